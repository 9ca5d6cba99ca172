//! Direct3D 9 → ARB: registers to ARB bindings, macros expanded, `_abs`/`_sat`/`cmp`
//! rewritten (see the module header of [`super`] for the mapping).

use super::tx::{Tx, free_temps, move_lane, refuse, splat_of};
use crate::d3d9::regs::{op_name, reg_name};
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::Op;
use crate::profile::Profile;
use std::collections::HashMap;

/// Translates a D3D9 program to ARBvp1.0 (vertex) or ARBfp1.0 (fragment).
pub fn to_arb(p: &Program) -> Result<Program, Vec<Diagnostic>> {
    if p.dialect() != Dialect::D3d9 {
        return Err(vec![refuse(
            format!("to_arb expects a Direct3D 9 program, not {}", p.profile),
            Span::NONE,
        )]);
    }
    let target = if p.stage() == Stage::Vertex {
        Profile::ArbVp1
    } else {
        Profile::ArbFp1
    };
    let mut t = Tx::new(p, target);
    let vp = target == Profile::ArbVp1;
    let (map, decls) = registers(&mut t, p, vp);

    // Constants keep their slots; literals of expansions follow. Relative addressing reads
    // the whole env file: the slots between are filled in at the end.
    t.out.consts = p.consts.clone();
    let rel_used = p
        .insts
        .iter()
        .any(|i| i.src.iter().any(|s| s.rel.is_some()));
    let file_len = p.consts.len() as u16;
    let mut uses_a0 = instructions(&mut t, p, &map, vp);
    for i in &t.out.insts {
        if i.dst
            .as_ref()
            .is_some_and(|d| d.reg.file == RegFile::Address)
        {
            uses_a0 = true;
        }
    }
    if rel_used {
        env_region(&mut t, p, file_len);
    }
    t.out.num_addrs = u16::from(uses_a0);
    t.finish_io(&decls);
    t.finish()
}

/// D3D9 inputs and outputs to ARB bindings: the register each maps to, and the target's
/// declarations.
fn registers(t: &mut Tx, p: &Program, vp: bool) -> (HashMap<Reg, Reg>, HashMap<Reg, IoDecl>) {
    let mut map: HashMap<Reg, Reg> = HashMap::new();
    let mut decls: HashMap<Reg, IoDecl> = HashMap::new();
    let mut generic_free: Vec<u16> = (0..16)
        .rev()
        .filter(|i| !matches!(i, 0..=5 | 8..=15))
        .collect();
    // Conventional slots first, so generics never collide with them.
    let mut conventional = Vec::new();
    for d in &p.io {
        let Some((reg, sem)) = binding(t, d, vp) else {
            continue;
        };
        if d.reg.file == RegFile::Input && vp {
            conventional.push(reg.index);
        }
        map.insert(d.reg, reg);
        decls.insert(reg, IoDecl::implied(reg, sem, Span::NONE));
    }
    generic_free.retain(|i| !conventional.contains(i));
    for d in &p.io {
        if d.reg.file == RegFile::Input && vp && !map.contains_key(&d.reg) {
            match generic_free.pop() {
                Some(i) => {
                    let reg = Reg::new(RegFile::Input, i);
                    map.insert(d.reg, reg);
                    decls.insert(
                        reg,
                        IoDecl::implied(reg, Semantic::Generic(i as u8), Span::NONE),
                    );
                }
                None => t
                    .errs
                    .push(refuse("too many vertex attributes for ARBvp1.0", d.span)),
            }
        }
    }
    (map, decls)
}

/// The conventional ARB register and semantic of one D3D9 declaration (`None` for vertex
/// inputs without a conventional slot, which get generic attributes, and for what has no
/// binding, which is reported).
fn binding(t: &mut Tx, d: &IoDecl, vp: bool) -> Option<(Reg, Semantic)> {
    Some(match (d.reg.file, vp) {
        (RegFile::Input, true) => {
            let idx = match d.semantic {
                Semantic::Position(0) => 0,
                Semantic::BlendWeight(0) => 1,
                Semantic::Normal(0) => 2,
                Semantic::Color(0) => 3,
                Semantic::Color(1) => 4,
                Semantic::Fog(0) => 5,
                Semantic::TexCoord(n) if n < 8 => 8 + n as u16,
                _ => return None,
            };
            (Reg::new(RegFile::Input, idx), d.semantic)
        }
        (RegFile::Input, false) => match d.semantic {
            Semantic::Color(n) if n < 2 => (Reg::new(RegFile::Input, n as u16), d.semantic),
            Semantic::Fog(0) => (Reg::new(RegFile::Input, 2), d.semantic),
            Semantic::TexCoord(n) if n < 8 => (Reg::new(RegFile::TexCoord, n as u16), d.semantic),
            s => {
                t.errs.push(refuse(
                    format!(
                        "the pixel shader input {} ({s:?}) has no ARBfp1.0 binding",
                        reg_name(d.reg)
                    ),
                    d.span,
                ));
                return None;
            }
        },
        (RegFile::TexCoord, _) => (d.reg, Semantic::TexCoord(d.reg.index as u8)),
        (RegFile::Misc, _) => {
            t.errs.push(
                refuse(
                    format!("{} has no exact ARBfp1.0 counterpart", reg_name(d.reg)),
                    d.span,
                )
                .with_note("vPos counts pixels from the top-left corner, fragment.position from the bottom-left; vFace has no ARB binding"),
            );
            return None;
        }
        (RegFile::Output, _) => match d.semantic {
            Semantic::Position(0) => (Reg::new(RegFile::RastOut, 0), d.semantic),
            Semantic::Fog(0) => (Reg::new(RegFile::RastOut, 1), d.semantic),
            Semantic::PointSize(0) => (Reg::new(RegFile::RastOut, 2), d.semantic),
            Semantic::Color(n) if n < 2 => (Reg::new(RegFile::AttrOut, n as u16), d.semantic),
            Semantic::TexCoord(n) if n < 8 => (Reg::new(RegFile::TexCrdOut, n as u16), d.semantic),
            s => {
                t.errs.push(refuse(
                    format!(
                        "the vs_3_0 output {} ({s:?}) has no ARBvp1.0 binding",
                        reg_name(d.reg)
                    ),
                    d.span,
                ));
                return None;
            }
        },
        (RegFile::ColorOut, _) => {
            if d.reg.index > 0 && !t.out.has_option(&ArbOption::DrawBuffers) {
                t.out.options.push(ArbOption::DrawBuffers);
            }
            (d.reg, Semantic::Color(d.reg.index as u8))
        }
        _ => (d.reg, d.semantic),
    })
}

/// Translates every instruction; returns whether `a0` is read.
fn instructions(t: &mut Tx, p: &Program, map: &HashMap<Reg, Reg>, vp: bool) -> bool {
    let target = t.out.profile;
    let mut uses_a0 = false;
    let free = free_temps(p);
    for (n, inst) in p.insts.iter().enumerate() {
        t.scratch = 0;
        t.free = free[n].clone();
        let name = op_name(inst.op, p.profile);
        if inst.pred.is_some() {
            t.errs.push(refuse(
                format!("predicated `{name}` (ARB has no predication)"),
                inst.span,
            ));
            continue;
        }
        let unsupported = unsupported(inst.op, vp);
        if unsupported.is_none() && inst.op == Op::Nop {
            continue;
        }
        if let Some(what) = unsupported {
            t.errs.push(refuse(
                format!("`{name}`: {what} has no {target} equivalent"),
                inst.span,
            ));
            continue;
        }
        let mut i = inst.clone();
        i.pp = false;
        i.comment = inst.comment.clone();
        if !operands(t, &mut i, inst, map, &name, &mut uses_a0) {
            continue;
        }
        // `_abs` sources: ABS into a temporary first.
        for k in 0..i.src.len() {
            if i.src[k].abs {
                let tmp = t.temp();
                let mut s = i.src[k].clone();
                s.abs = false;
                s.negate = false;
                t.push(t.mk(Op::Abs, Dst::new(tmp, WriteMask::ALL), vec![s], inst));
                let neg = i.src[k].negate;
                i.src[k] = Src::new(tmp);
                i.src[k].negate = neg;
            }
        }
        // oDepth: D3D9 writes x, ARB's result.depth carries the depth in z.
        if let Some(d) = i.dst.as_mut()
            && d.reg.file == RegFile::DepthOut
        {
            d.mask = WriteMask::Z;
            move_lane(&mut i, 0, 2);
        }
        let sat_vp = vp && i.sat;
        if sat_vp {
            i.sat = false;
        }
        let before = t.out.insts.len();
        arb_inst(t, i, inst, p.profile);
        if sat_vp && t.out.insts.len() > before {
            let d = t.out.insts.last().unwrap().dst.clone().unwrap();
            let zero = t.lit([0.0; 4]);
            let one = t.lit([1.0; 4]);
            let mut s = Src::new(d.reg);
            s.rel = d.rel;
            t.push(t.mk(Op::Max, d.clone(), vec![s.clone(), zero], inst));
            t.push(t.mk(Op::Min, d, vec![s, one], inst));
        }
    }
    uses_a0
}

/// What ARB has no counterpart for.
fn unsupported(op: Op, vp: bool) -> Option<&'static str> {
    match op {
        o if o.is_flow() => Some("flow control"),
        Op::Texldd => Some("texldd (explicit gradients)"),
        Op::Texldl => Some("texldl (explicit level of detail)"),
        Op::Dsx | Op::Dsy => Some("derivatives (dsx/dsy)"),
        Op::Setp(_) => Some("setp (predicate register)"),
        Op::Sincos if vp => Some("sincos (ARBvp1.0 has no SIN/COS/SCS)"),
        _ => None,
    }
}

/// Maps the registers of `i` to their ARB bindings and `c[a0.x + n]` to an ARB array
/// read; false when an operand has no ARB form (reported).
fn operands(
    t: &mut Tx,
    i: &mut Inst,
    inst: &Inst,
    map: &HashMap<Reg, Reg>,
    name: &str,
    uses_a0: &mut bool,
) -> bool {
    let file_len = t.from.consts.len() as u16;
    let mut bad = false;
    for s in i.src.iter_mut() {
        if let Some(r) = map.get(&s.reg) {
            s.reg = *r;
        }
        if let Some(rel) = s.rel {
            if rel.reg.file != RegFile::Address || rel.comp != 0 || s.reg.file != RegFile::Const {
                t.errs.push(refuse(
                    format!("`{name}`: relative addressing other than c[a0.x + n]"),
                    inst.span,
                ));
                bad = true;
                continue;
            }
            *uses_a0 = true;
            let idx = s.reg.index;
            let lo = idx.saturating_sub(63);
            s.reg.index = lo;
            s.rel = Some(RelAddr {
                reg: rel.reg,
                comp: 0,
                lo,
                hi: file_len,
                offset: (idx - lo) as i16,
            });
        }
    }
    if let Some(d) = i.dst.as_mut() {
        if let Some(r) = map.get(&d.reg) {
            d.reg = *r;
        }
        if d.rel.is_some() {
            t.errs.push(refuse(
                format!("`{name}`: relative output addressing"),
                inst.span,
            ));
            bad = true;
        }
    }
    !bad
}

/// With relative addressing, the env region 0..env_end fills what the target has room for
/// next to the literals; slots that are defined or read directly always stay.
fn env_region(t: &mut Tx, p: &Program, file_len: u16) {
    let target = t.out.profile;
    let lits = t.out.consts.len() - file_len as usize;
    let room = (p.profile.limits().consts as usize).min(target.limits().consts as usize);
    let mut needed = 0usize;
    for (k, c) in p.consts.iter().enumerate() {
        if !matches!(c.binding, ConstBinding::Env(_)) {
            needed = k + 1;
        }
    }
    for i in &t.out.insts {
        for s in &i.src {
            if s.reg.file == RegFile::Const && s.rel.is_none() && s.reg.index < file_len {
                needed = needed.max(s.reg.index as usize + 1);
            }
        }
    }
    let env_end = room.saturating_sub(lits).max(needed) as u16;
    let tail: Vec<ConstSlot> = t.out.consts.split_off(file_len as usize);
    t.out.consts.truncate(env_end as usize);
    while t.out.consts.len() < env_end as usize {
        let n = t.out.consts.len() as u16;
        t.out.consts.push(ConstSlot {
            binding: ConstBinding::Env(n),
            span: Span::NONE,
        });
    }
    t.out.consts.extend(tail);
    for i in t.out.insts.iter_mut() {
        for s in i.src.iter_mut() {
            if s.reg.file != RegFile::Const {
                continue;
            }
            match s.rel.as_mut() {
                Some(rel) => rel.hi = env_end,
                None if s.reg.index >= file_len => s.reg.index = s.reg.index - file_len + env_end,
                None => {}
            }
        }
    }
}

/// Emits the ARB form of one (operand-mapped) D3D9 instruction of a `from` program.
fn arb_inst(t: &mut Tx, mut i: Inst, orig: &Inst, from: Profile) {
    let at = orig;
    let vp = from.stage() == Stage::Vertex;
    match i.op {
        // vs_2_0 and later `expp` is `exp` at lower precision, and every `logp` is `log`:
        // replicated scalars, not ARB's four-part EXP/LOG (only vs_1_1 `expp` is that).
        Op::Exp if from != Profile::Vs1_1 => {
            i.op = Op::Ex2;
            t.push(i);
        }
        // D3D9 ignores the sign of a logarithm's input and of a power's base; ARB gives
        // NaN for a negative one.
        Op::Log | Op::Lg2 | Op::Pow => {
            if i.op == Op::Log {
                i.op = Op::Lg2;
            }
            let tmp = t.temp();
            let s = splat_of(&i.src[0], 0);
            t.push(t.mk(Op::Abs, Dst::new(tmp, WriteMask::X), vec![s], at));
            i.src[0] = Src::new(tmp).swizzled(Swizzle::splat(0));
            t.push(i);
        }
        Op::Mova => {
            let d = i.dst.clone().unwrap();
            if d.mask != WriteMask::X {
                t.errs.push(refuse(
                    "mova to a0 components other than .x (ARB address registers have only .x)",
                    at.span,
                ));
                return;
            }
            let tmp = t.temp();
            let half = t.lit([0.5; 4]);
            let s = splat_of(&i.src[0], 0);
            t.push(t.mk(Op::Add, Dst::new(tmp, WriteMask::X), vec![s, half], at));
            t.push(t.mk(
                Op::Arl,
                d,
                vec![Src::new(tmp).swizzled(Swizzle::splat(0))],
                at,
            ));
        }
        Op::CmpGe => {
            i.op = Op::Cmp;
            i.src.swap(1, 2);
            t.push(i);
        }
        Op::Texkil => {
            i.op = Op::Kil;
            let s = &mut i.src[0];
            let c = s.swizzle.comps();
            s.swizzle = Swizzle::new(c[0], c[1], c[2], c[2]);
            t.push(i);
        }
        Op::Lrp if vp => {
            let d = i.dst.clone().unwrap();
            let tmp = t.temp();
            let (a, b, c) = (i.src[0].clone(), i.src[1].clone(), i.src[2].clone());
            let mut sub = t.mk(Op::Sub, Dst::new(tmp, d.mask), vec![b, c.clone()], at);
            sub.comment = i.comment.clone();
            t.push(sub);
            t.push(t.mk(Op::Mad, d, vec![a, Src::new(tmp), c], at));
        }
        Op::Nrm => nrm(t, i, at),
        Op::Sgn => {
            let d = i.dst.clone().unwrap();
            let (t1, t2) = (t.temp(), t.temp());
            let zero = t.lit([0.0; 4]);
            let s = i.src[0].clone();
            t.push(t.mk(
                Op::Slt,
                Dst::new(t1, d.mask),
                vec![zero.clone(), s.clone()],
                at,
            ));
            t.push(t.mk(Op::Slt, Dst::new(t2, d.mask), vec![s, zero], at));
            t.push(t.mk(Op::Sub, d, vec![Src::new(t1), Src::new(t2)], at));
        }
        Op::Dp2add => {
            let d = i.dst.clone().unwrap();
            let tmp = t.temp();
            let (a, b, c) = (&i.src[0], &i.src[1], &i.src[2]);
            let c0 = splat_of(c, 0);
            let first = t.mk(
                Op::Mad,
                Dst::new(tmp, WriteMask::X),
                vec![splat_of(a, 0), splat_of(b, 0), c0],
                at,
            );
            let mut second = t.mk(
                Op::Mad,
                d,
                vec![
                    splat_of(a, 1),
                    splat_of(b, 1),
                    Src::new(tmp).swizzled(Swizzle::splat(0)),
                ],
                at,
            );
            second.sat = i.sat;
            t.push(first);
            t.push(second);
        }
        Op::Sincos => {
            i.op = Op::Scs;
            i.src.truncate(1);
            i.src[0] = splat_of(&i.src[0], 0);
            t.push(i);
        }
        Op::M4x4 | Op::M4x3 | Op::M3x4 | Op::M3x3 | Op::M3x2 => {
            let d = i.dst.clone().unwrap();
            let cols = if matches!(i.op, Op::M4x4 | Op::M4x3) {
                4
            } else {
                3
            };
            let rows = i.op.matrix_rows().unwrap_or(1);
            let dot = if cols == 4 { Op::Dp4 } else { Op::Dp3 };
            let mut first = true;
            for r in 0..rows {
                if !d.mask.has(r) {
                    continue;
                }
                let mut row = i.src[1].clone();
                match row.rel.as_mut() {
                    Some(rel) => rel.offset += r as i16,
                    None => row.reg.index += r as u16,
                }
                let mut dd = d.clone();
                dd.mask = WriteMask::single(r);
                let mut x = t.mk(dot, dd, vec![i.src[0].clone(), row], at);
                x.sat = i.sat;
                if first {
                    x.comment = i.comment.clone();
                    first = false;
                }
                t.push(x);
            }
        }
        _ => t.push(i),
    }
}

/// `nrm`: DP3, MAX (so that a zero vector stays zero, as in D3D9), RSQ, MUL.
fn nrm(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let s = i.src[0].clone();
    let mut dp = t.mk(
        Op::Dp3,
        Dst::new(tmp, WriteMask::X),
        vec![s.clone(), s.clone()],
        at,
    );
    dp.comment = i.comment.clone();
    t.push(dp);
    let tx = Src::new(tmp).swizzled(Swizzle::splat(0));
    // D3D9 `nrm` of a zero vector is 0 (it scales by FLT_MAX); ARB's RSQ(0) = +inf
    // would give NaN, so the squared length is at least the smallest normal float.
    let least = t.lit([f32::MIN_POSITIVE; 4]);
    t.push(t.mk(
        Op::Max,
        Dst::new(tmp, WriteMask::X),
        vec![tx.clone(), least],
        at,
    ));
    t.push(t.mk(Op::Rsq, Dst::new(tmp, WriteMask::X), vec![tx.clone()], at));
    let mut m = t.mk(Op::Mul, d, vec![s, tx], at);
    m.sat = i.sat;
    t.push(m);
}

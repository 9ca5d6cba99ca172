//! ARB → Direct3D 9: `program.env[n]` to `c#n`, literals to free constant registers,
//! bindings to `v#`/`t#`/outputs, and each ARB instruction to D3D9 instructions whose
//! operands the target accepts (read ports, ps_2_0 swizzles, texture operand rules).

use super::tx::{Tx, free_temps, move_lane, refuse, splat_of};
use crate::d3d9::regs::implied_semantic;
use crate::d3d9::rules::ps2_0_swizzle;
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::Op;
use crate::profile::Profile;
use std::collections::HashMap;

/// Translates an ARB program into `target` (vs_1_1, vs_2_0, vs_2_x, ps_2_0 or ps_2_x).
pub fn to_d3d9(p: &Program, target: Profile) -> Result<Program, Vec<Diagnostic>> {
    if p.dialect() != Dialect::Arb {
        return Err(vec![refuse(
            format!("to_d3d9 expects an ARB program, not {}", p.profile),
            Span::NONE,
        )]);
    }
    if !matches!(
        target,
        Profile::Vs1_1 | Profile::Vs2_0 | Profile::Vs2_x | Profile::Ps2_0 | Profile::Ps2_x
    ) || target.stage() != p.stage()
    {
        return Err(vec![refuse(
            format!(
                "cannot translate a {} program to {target}: the target must be a {} profile among vs_1_1, vs_2_0, vs_2_x, ps_2_0, ps_2_x",
                p.profile,
                if p.stage() == Stage::Vertex {
                    "vertex"
                } else {
                    "pixel"
                }
            ),
            Span::NONE,
        )]);
    }
    let mut t = Tx::new(p, target);
    t.out.num_temps = p.num_temps;
    options(&mut t, p);
    let (cmap, env_max) = constants(&mut t, p);
    let (map, decls) = registers(&mut t, p, target.stage() == Stage::Vertex);
    instructions(&mut t, p, &map, &cmap);
    // Address register and constant file size.
    t.out.num_addrs = u16::from(t.out.insts.iter().any(|i| {
        i.dst
            .as_ref()
            .is_some_and(|d| d.reg.file == RegFile::Address)
            || i.src.iter().any(|s| s.rel.is_some())
    }));
    constant_file(&mut t, env_max);
    samplers(&mut t);
    // Declarations: inputs explicit first (dcl order = first use), outputs implicit.
    t.finish_io(&decls);
    crate::d3d9::canonicalize(&mut t.out);
    t.finish()
}

fn options(t: &mut Tx, p: &Program) {
    for o in &p.options {
        match o {
            ArbOption::PrecisionHintFastest
            | ArbOption::PrecisionHintNicest
            | ArbOption::DrawBuffers => {}
            other => t.errs.push(refuse(
                format!("OPTION {other:?} has no Direct3D 9 shader equivalent"),
                Span::NONE,
            )),
        }
    }
}

/// Constants: program.env[n] is c#n; literals go to free registers. Returns the `c#` of
/// each ARB constant slot and the number of env registers.
fn constants(t: &mut Tx, p: &Program) -> (Vec<Option<u16>>, u16) {
    let mut cmap: Vec<Option<u16>> = vec![None; p.consts.len()];
    let mut env_max = 0u16;
    for (k, c) in p.consts.iter().enumerate() {
        if let ConstBinding::Env(n) = c.binding {
            cmap[k] = Some(n);
            env_max = env_max.max(n + 1);
        }
    }
    t.out.consts = (0..env_max)
        .map(|n| ConstSlot {
            binding: ConstBinding::Env(n),
            span: Span::NONE,
        })
        .collect();
    t.max_c = env_max;
    array_literals(t, p, &mut cmap);
    for (k, c) in p.consts.iter().enumerate() {
        match &c.binding {
            ConstBinding::Env(_) => {}
            ConstBinding::Literal(_) if cmap[k].is_some() => {}
            ConstBinding::Literal(l) => {
                let s = t.lit(l.value);
                cmap[k] = Some(s.reg.index);
            }
            ConstBinding::Local(n) => t.errs.push(
                refuse(
                    format!("program.local[{n}] has no Direct3D 9 equivalent"),
                    c.span,
                )
                .with_hint("use program.env[n], which becomes c#n"),
            ),
            ConstBinding::State(s) => t.errs.push(
                refuse(
                    format!("tracked GL state ({s:?}) has no Direct3D 9 equivalent"),
                    c.span,
                )
                .with_hint("pass the value in program.env[n], which becomes c#n"),
            ),
        }
    }
    (cmap, env_max)
}

/// Literals inside relatively addressed arrays take the c# that continue the array.
fn array_literals(t: &mut Tx, p: &Program, cmap: &mut [Option<u16>]) {
    for inst in &p.insts {
        for s in &inst.src {
            let Some(rel) = s.rel else { continue };
            let Some(ConstBinding::Env(b)) = p.consts.get(rel.lo as usize).map(|c| &c.binding)
            else {
                continue;
            };
            for k in rel.lo..rel.hi {
                let want = b + (k - rel.lo);
                if let Some(ConstBinding::Literal(l)) = p.consts.get(k as usize).map(|c| &c.binding)
                    && cmap[k as usize].is_none()
                    && !t.used_env(want)
                {
                    while t.out.consts.len() <= want as usize {
                        let n = t.out.consts.len() as u16;
                        t.out.consts.push(ConstSlot {
                            binding: ConstBinding::Env(n),
                            span: Span::NONE,
                        });
                    }
                    t.out.consts[want as usize].binding =
                        ConstBinding::Literal(Literal::vec4(l.value));
                    t.max_c = t.max_c.max(want + 1);
                    cmap[k as usize] = Some(want);
                }
            }
        }
    }
}

/// Inputs and outputs: the D3D9 register of each ARB binding, and the declarations.
fn registers(t: &mut Tx, p: &Program, vs: bool) -> (HashMap<Reg, Reg>, HashMap<Reg, IoDecl>) {
    let mut map: HashMap<Reg, Reg> = HashMap::new();
    let mut decls: HashMap<Reg, IoDecl> = HashMap::new();
    let mut next_v = 0u16;
    for d in &p.io {
        let (reg, sem, explicit) = match (d.reg.file, vs) {
            (RegFile::Input, true) => {
                let sem = match d.semantic {
                    Semantic::Generic(n) if n < 8 => Semantic::TexCoord(8 + n),
                    Semantic::Generic(n) => {
                        t.errs.push(refuse(
                            format!("vertex.attrib[{n}] has no usage to map to"),
                            d.span,
                        ));
                        continue;
                    }
                    s => s,
                };
                let r = Reg::new(RegFile::Input, next_v);
                next_v += 1;
                (r, sem, true)
            }
            (RegFile::Input, false) => match d.semantic {
                Semantic::Color(n) => (Reg::new(RegFile::Input, n as u16), d.semantic, true),
                s => {
                    t.errs.push(
                        refuse(
                            format!("fragment input {s:?} has no ps_2_0 register"),
                            d.span,
                        )
                        .with_note(
                            "ps_2_0 reads colours (v0, v1) and texture coordinates (t#) only",
                        ),
                    );
                    continue;
                }
            },
            (RegFile::TexCoord, _) => (d.reg, d.semantic, true),
            (RegFile::Misc, _) => {
                t.errs.push(refuse(
                    "fragment.position has no ps_2_0 counterpart",
                    d.span,
                ));
                continue;
            }
            (RegFile::AttrOut, _) if d.reg.index >= 2 => {
                t.errs.push(refuse(
                    "back-face colours have no vertex shader output",
                    d.span,
                ));
                continue;
            }
            _ => (d.reg, implied_semantic(d.reg).unwrap_or(d.semantic), false),
        };
        map.insert(d.reg, reg);
        let mut nd = IoDecl::implied(reg, sem, Span::NONE);
        nd.explicit = explicit;
        decls.insert(reg, nd);
    }
    (map, decls)
}

fn instructions(t: &mut Tx, p: &Program, map: &HashMap<Reg, Reg>, cmap: &[Option<u16>]) {
    let free = free_temps(p);
    let mut absorbed = None;
    for (n, inst) in p.insts.iter().enumerate() {
        t.scratch = 0;
        t.free = free[n].clone();
        let mut i = inst.clone();
        if sign_ignored(p, n + 1).is_some() {
            absorbed = Some(n);
            continue;
        }
        if absorbed.is_some_and(|a| a + 1 == n)
            && let Some(s) = sign_ignored(p, n)
        {
            i.src[0] = s;
        }
        let bad = !sources(t, &mut i, inst, map, cmap);
        let mut depth = false;
        let mut skip = false;
        if let Some(d) = i.dst.as_mut() {
            if let Some(r) = map.get(&d.reg) {
                d.reg = *r;
            }
            d.name = None;
            if d.reg.file == RegFile::DepthOut {
                depth = true;
                skip = !d.mask.has(2);
                d.mask = WriteMask::X;
            }
            if matches!((d.reg.file, d.reg.index), (RegFile::RastOut, 1 | 2)) {
                skip = !d.mask.has(0);
                d.mask = WriteMask::X;
            }
        }
        if skip {
            continue;
        }
        if depth {
            move_lane(&mut i, 2, 0);
        }
        if bad {
            continue;
        }
        d3d_inst(t, i, inst);
    }
}

/// When instruction `n` is LG2 or POW reading a lane that the instruction before it set to
/// `ABS` of a source, and nothing reads that temporary afterwards: the ABS's source (D3D9's
/// `log` and `pow` ignore the sign, so the pair is one D3D9 instruction — the inverse of
/// what `to_arb` emits for them).
fn sign_ignored(p: &Program, n: usize) -> Option<Src> {
    let (abs, user) = (p.insts.get(n.checked_sub(1)?)?, p.insts.get(n)?);
    let d = abs.dst.as_ref()?;
    let s = user.src.first()?;
    let lane = s.swizzle.get(0);
    let plain = abs.op == Op::Abs && !abs.sat && abs.pred.is_none() && d.reg.file == RegFile::Temp;
    if !plain
        || !matches!(user.op, Op::Lg2 | Op::Pow)
        || s.reg != d.reg
        || s.rel.is_some()
        || s.abs
        || s.negate
        || s.swizzle != Swizzle::splat(lane)
        || d.mask != WriteMask::single(lane)
    {
        return None;
    }
    for later in &p.insts[n + 1..] {
        let read =
            (0..later.src.len()).any(|k| later.src[k].reg == d.reg && later.reads_of(k).has(lane));
        if read || later.op.is_flow() {
            return None;
        }
        if later
            .dst
            .as_ref()
            .is_some_and(|w| w.reg == d.reg && w.mask.has(lane))
        {
            break;
        }
    }
    Some(splat_of(&abs.src[0], lane))
}

/// Maps the sources of `i` to D3D9 registers; relatively addressed arrays must be
/// `program.env[k..]` in order. False when a source has no D3D9 form.
fn sources(
    t: &mut Tx,
    i: &mut Inst,
    inst: &Inst,
    map: &HashMap<Reg, Reg>,
    cmap: &[Option<u16>],
) -> bool {
    let target = t.out.profile;
    let mut bad = false;
    for s in i.src.iter_mut() {
        if let Some(r) = map.get(&s.reg) {
            s.reg = *r;
        }
        s.name = None;
        if s.reg.file != RegFile::Const {
            continue;
        }
        let slot = s.reg.index as usize;
        let Some(rel) = s.rel else {
            match cmap.get(slot).copied().flatten() {
                Some(c) => s.reg.index = c,
                None => bad = true,
            }
            continue;
        };
        // The array lo..hi must be env[k..] in order.
        let base = cmap.get(rel.lo as usize).copied().flatten();
        let contiguous = (rel.lo..rel.hi).all(|k| {
            let m = cmap.get(k as usize).copied().flatten();
            m.is_some() && m == base.map(|b| b + (k - rel.lo))
        });
        let eff = base.map(|b| b as i32 + rel.offset as i32 + (s.reg.index as i32 - rel.lo as i32));
        match (contiguous, eff) {
            (true, Some(e)) if e >= 0 => {
                s.reg.index = e as u16;
                s.rel = Some(RelAddr {
                    reg: Reg::new(RegFile::Address, 0),
                    comp: 0,
                    lo: 0,
                    hi: target.limits().consts,
                    offset: 0,
                });
            }
            _ => {
                t.errs.push(refuse(
                    "relative addressing of an array that is not program.env[k..k+n]",
                    inst.span,
                ));
                bad = true;
            }
        }
    }
    !bad
}

/// Sizes the constant table as the D3D9 front end would: up to the highest register read
/// (the whole file with relative addressing).
fn constant_file(t: &mut Tx, env_max: u16) {
    let target = t.out.profile;
    let mut max_ref = t.max_c as usize;
    for i in &t.out.insts {
        for (k, s) in i.src.iter().enumerate() {
            if s.reg.file == RegFile::Const {
                let rows = i.src_rows(k) as usize;
                max_ref = max_ref.max(s.reg.index as usize + rows);
            }
        }
    }
    if t.out.insts.iter().any(|i| {
        i.src
            .iter()
            .any(|s| s.reg.file == RegFile::Const && s.rel.is_some())
    }) {
        // A relative read references the whole constant file (the D3D9 front end's rule).
        max_ref = max_ref.max(target.limits().consts as usize);
    }
    while t.out.consts.len() < max_ref {
        let n = t.out.consts.len() as u16;
        t.out.consts.push(ConstSlot {
            binding: ConstBinding::Env(n),
            span: Span::NONE,
        });
    }
    t.out.consts.truncate(max_ref.max(env_max as usize));
}

/// One sampler declaration per texture unit used.
fn samplers(t: &mut Tx) {
    let mut samplers: Vec<SamplerDecl> = Vec::new();
    for i in &t.out.insts {
        if let Some(tr) = i.tex {
            match samplers.iter().find(|s| s.unit == tr.unit) {
                Some(s) if s.target != tr.target => t.errs.push(refuse(
                    format!(
                        "texture unit {} is sampled as two different targets",
                        tr.unit
                    ),
                    i.span,
                )),
                Some(_) => {}
                None => samplers.push(SamplerDecl {
                    unit: tr.unit,
                    target: tr.target,
                    span: Span::NONE,
                }),
            }
        }
    }
    t.out.samplers = samplers;
}

impl Tx<'_> {
    /// Emits a D3D9 instruction after making its operands legal for the target: at most
    /// one (vertex) or two (pixel) distinct constants, one input and one texture
    /// coordinate register per instruction, and ps_2_0's limited swizzles.
    fn emit_d3d(&mut self, mut i: Inst) {
        let prof = self.out.profile;
        let ps = prof.stage() == Stage::Fragment;
        for (file, max) in [
            (RegFile::Const, if ps { 2 } else { 1 }),
            (RegFile::Input, 1),
            (RegFile::TexCoord, 1),
        ] {
            let mut seen: Vec<(Reg, Option<RelAddr>)> = Vec::new();
            for k in 0..i.src.len() {
                let s = i.src[k].clone();
                if s.reg.file != file || (k == 1 && i.op.matrix_rows().is_some()) {
                    continue;
                }
                if seen.contains(&(s.reg, s.rel)) {
                    continue;
                }
                if seen.len() < max {
                    seen.push((s.reg, s.rel));
                    continue;
                }
                let tmp = self.temp();
                let mut whole = s.clone();
                whole.swizzle = Swizzle::IDENTITY;
                whole.negate = false;
                let mut mv = Inst::new(Op::Mov, Some(Dst::new(tmp, WriteMask::ALL)), [whole]);
                mv.span = i.span;
                self.out.insts.push(mv);
                for s2 in i.src.iter_mut().skip(k) {
                    if s2.reg == s.reg && s2.rel == s.rel {
                        s2.reg = tmp;
                        s2.rel = None;
                    }
                }
            }
        }
        if prof == Profile::Ps2_0 {
            let lanes = if i.info().has_dst {
                i.dst_lanes()
            } else {
                WriteMask::ALL
            };
            for k in 0..i.src.len() {
                let s = i.src[k].clone();
                if ps2_0_swizzle(s.swizzle) {
                    continue;
                }
                // Rebuild the swizzled value lane by lane with replicate swizzles.
                let need = i.src_lanes(k, lanes);
                let tmp = self.temp();
                for lane in need.iter() {
                    let mut one = s.clone();
                    one.swizzle = Swizzle::splat(s.swizzle.get(lane));
                    one.negate = false;
                    let mut mv =
                        Inst::new(Op::Mov, Some(Dst::new(tmp, WriteMask::single(lane))), [one]);
                    mv.span = i.span;
                    self.out.insts.push(mv);
                }
                i.src[k] = Src::new(tmp);
                i.src[k].negate = s.negate;
            }
        }
        self.out.insts.push(i);
    }

    /// A plain temporary (no modifier or swizzle) holding `s`, for operands that must be one.
    fn plain(&mut self, s: &Src, at: &Inst) -> Src {
        if s.reg.file == RegFile::Temp && s.swizzle.is_identity() && !s.negate && s.rel.is_none() {
            return s.clone();
        }
        let tmp = self.temp();
        let i = self.mk(Op::Mov, Dst::new(tmp, WriteMask::ALL), vec![s.clone()], at);
        self.emit_d3d(i);
        Src::new(tmp)
    }
}

/// Emits the D3D9 form of one (operand-mapped) ARB instruction.
fn d3d_inst(t: &mut Tx, mut i: Inst, at: &Inst) {
    let target = t.out.profile;
    let v11 = target == Profile::Vs1_1;
    let ps = target.stage() == Stage::Fragment;
    // Outputs cannot take _sat in ps_2_0/2_x: compute in a temporary, then copy.
    if ps && i.sat && i.dst.as_ref().is_some_and(|d| d.reg.file.is_output()) {
        let d = i.dst.clone().unwrap();
        let tmp = t.temp();
        i.dst = Some(Dst::new(tmp, d.mask));
        d3d_inst(t, i, at);
        let mv = t.mk(Op::Mov, d, vec![Src::new(tmp)], at);
        t.emit_d3d(mv);
        return;
    }
    match i.op {
        Op::Arl => arl(t, i, at),
        Op::Abs if v11 => {
            i.op = Op::Max;
            let mut n = i.src[0].clone();
            n.negate = !n.negate;
            i.src.push(n);
            t.emit_d3d(i);
        }
        Op::Pow if v11 => pow_v11(t, i, at),
        Op::Pow => pow(t, i, at),
        Op::Exp if v11 => t.emit_d3d(i),
        Op::Exp | Op::Log => exp_log(t, i, at),
        Op::Xpd => xpd(t, i, at),
        Op::Dph => dph(t, i, at),
        Op::Flr | Op::Frc if v11 => flr_frc_v11(t, i, at),
        Op::Flr => flr(t, i, at),
        Op::Lrp if v11 => lrp_v11(t, i, at),
        Op::Cmp => {
            i.op = Op::CmpGe;
            i.src.swap(1, 2);
            t.emit_d3d(i);
        }
        Op::Sge | Op::Slt if ps => set_ps(t, i, at),
        Op::Scs | Op::Sin | Op::Cos => trig(t, i, at),
        Op::Swz => swz(t, i, at),
        Op::Kil => kil(t, i, at),
        Op::Tex | Op::Txb | Op::Txp => tex(t, i, at),
        op if !target.has(op) => {
            let name = i.info().arb.unwrap_or("?");
            t.errs.push(refuse(
                format!("`{name}` has no {target} equivalent"),
                at.span,
            ));
        }
        _ => t.emit_d3d(i),
    }
}

/// ARB `EXP`/`LOG` (a four-part result; z is 2^x or log2|x|): D3D9's `expp` (after vs_1_1)
/// and `logp` replicate one value, so only a z-only write has a counterpart, `exp`/`log`.
fn exp_log(t: &mut Tx, mut i: Inst, at: &Inst) {
    let name = i.info().arb.unwrap_or("?");
    if i.dst.as_ref().is_some_and(|d| d.mask == WriteMask::Z) {
        i.op = if i.op == Op::Exp { Op::Ex2 } else { Op::Lg2 };
        t.emit_d3d(i);
    } else {
        let target = t.out.profile;
        t.errs.push(refuse(
            format!(
                "`{name}` writing more than .z (its four-part result) has no {target} equivalent"
            ),
            at.span,
        ));
    }
}

/// `ARL`: floor through `frc`, then `mova` (which rounds).
fn arl(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let s = splat_of(&i.src[0], 0);
    let f = t.mk(Op::Frc, Dst::new(tmp, WriteMask::Y), vec![s.clone()], at);
    t.emit_d3d(f);
    let mut neg = Src::new(tmp).swizzled(Swizzle::splat(1));
    neg.negate = true;
    let a = t.mk(Op::Add, Dst::new(tmp, WriteMask::X), vec![s, neg], at);
    t.emit_d3d(a);
    let m = t.mk(
        Op::Mova,
        Dst::new(d.reg, WriteMask::X),
        vec![Src::new(tmp).swizzled(Swizzle::splat(0))],
        at,
    );
    t.emit_d3d(m);
}

/// vs_1_1 has no `pow`: `exp(log(a) * b)`.
fn pow_v11(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let l = t.mk(
        Op::Lg2,
        Dst::new(tmp, WriteMask::X),
        vec![i.src[0].clone()],
        at,
    );
    t.emit_d3d(l);
    let m = t.mk(
        Op::Mul,
        Dst::new(tmp, WriteMask::X),
        vec![Src::new(tmp).swizzled(Swizzle::splat(0)), i.src[1].clone()],
        at,
    );
    t.emit_d3d(m);
    let e = t.mk(
        Op::Ex2,
        d,
        vec![Src::new(tmp).swizzled(Swizzle::splat(0))],
        at,
    );
    t.emit_d3d(e);
}

/// Pixel shader `pow` writes a temporary other than its exponent's register.
fn pow(t: &mut Tx, mut i: Inst, at: &Inst) {
    let ps = t.out.profile.stage() == Stage::Fragment;
    let d = i.dst.clone().unwrap();
    if ps && (d.reg.file != RegFile::Temp || i.src[1].reg == d.reg) {
        let tmp = t.temp();
        i.dst = Some(Dst::new(tmp, d.mask));
        t.emit_d3d(i);
        let mv = t.mk(Op::Mov, d, vec![Src::new(tmp)], at);
        t.emit_d3d(mv);
    } else {
        t.emit_d3d(i);
    }
}

/// `XPD`: `crs` in pixel shaders (plain temporaries), two products in vertex shaders.
fn xpd(t: &mut Tx, i: Inst, at: &Inst) {
    let vs = t.out.profile.stage() == Stage::Vertex;
    let mut d = i.dst.clone().unwrap();
    d.mask = d.mask.intersect(WriteMask::XYZ);
    if d.mask.is_empty() {
        return;
    }
    let (a, b) = (i.src[0].clone(), i.src[1].clone());
    if vs {
        // a.yzx * b.zxy - a.zxy * b.yzx, with a temporary so d may alias a or b.
        let tmp = t.temp();
        let sw = |s: &Src, x: Comp, y: Comp, z: Comp| {
            let mut r = s.clone();
            r.swizzle = Swizzle::new(
                s.swizzle.get(x),
                s.swizzle.get(y),
                s.swizzle.get(z),
                s.swizzle.get(3),
            );
            r
        };
        let m = t.mk(
            Op::Mul,
            Dst::new(tmp, d.mask),
            vec![sw(&a, 1, 2, 0), sw(&b, 2, 0, 1)],
            at,
        );
        t.emit_d3d(m);
        let mut nb = sw(&b, 1, 2, 0);
        nb.negate = !nb.negate;
        let mut x = t.mk(Op::Mad, d, vec![sw(&a, 2, 0, 1), nb, Src::new(tmp)], at);
        x.sat = i.sat;
        t.emit_d3d(x);
    } else {
        let pa = t.plain(&a, at);
        let pb = t.plain(&b, at);
        let tmp = t.temp();
        let mut x = t.mk(Op::Xpd, Dst::new(tmp, d.mask), vec![pa, pb], at);
        x.sat = i.sat;
        t.emit_d3d(x);
        let mv = t.mk(Op::Mov, d, vec![Src::new(tmp)], at);
        t.emit_d3d(mv);
    }
}

/// `DPH`: `dp3` plus `w`.
fn dph(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let dp = t.mk(
        Op::Dp3,
        Dst::new(tmp, WriteMask::X),
        vec![i.src[0].clone(), i.src[1].clone()],
        at,
    );
    t.emit_d3d(dp);
    let mut a = t.mk(
        Op::Add,
        d,
        vec![
            Src::new(tmp).swizzled(Swizzle::splat(0)),
            splat_of(&i.src[1], 3),
        ],
        at,
    );
    a.sat = i.sat;
    t.emit_d3d(a);
}

/// vs_1_1 `frc` writes only .y/.xy: go lane by lane through .y.
fn flr_frc_v11(t: &mut Tx, i: Inst, at: &Inst) {
    // vs_1_1 frc writes only .y/.xy: go lane by lane through .y.
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    for lane in d.mask.iter() {
        let s = splat_of(&i.src[0], lane);
        let f = t.mk(Op::Frc, Dst::new(tmp, WriteMask::Y), vec![s.clone()], at);
        t.emit_d3d(f);
        let mut dd = d.clone();
        dd.mask = WriteMask::single(lane);
        let ty = Src::new(tmp).swizzled(Swizzle::splat(1));
        let x = if i.op == Op::Flr {
            let mut n = ty;
            n.negate = true;
            t.mk(Op::Add, dd, vec![s, n], at)
        } else {
            t.mk(Op::Mov, dd, vec![ty], at)
        };
        t.emit_d3d(x);
    }
}

/// `FLR`: `x - frc(x)`.
fn flr(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let f = t.mk(Op::Frc, Dst::new(tmp, d.mask), vec![i.src[0].clone()], at);
    t.emit_d3d(f);
    let mut n = Src::new(tmp);
    n.negate = true;
    let mut a = t.mk(Op::Add, d, vec![i.src[0].clone(), n], at);
    a.sat = i.sat;
    t.emit_d3d(a);
}

/// vs_1_1 has no `lrp`: `sub` then `mad`.
fn lrp_v11(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let s = t.mk(
        Op::Sub,
        Dst::new(tmp, d.mask),
        vec![i.src[1].clone(), i.src[2].clone()],
        at,
    );
    t.emit_d3d(s);
    let m = t.mk(
        Op::Mad,
        d,
        vec![i.src[0].clone(), Src::new(tmp), i.src[2].clone()],
        at,
    );
    t.emit_d3d(m);
}

/// Pixel shaders have no `sge`/`slt`: `cmp` of the difference.
fn set_ps(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let tmp = t.temp();
    let mut nb = i.src[1].clone();
    nb.negate = !nb.negate;
    let a = t.mk(
        Op::Add,
        Dst::new(tmp, d.mask),
        vec![i.src[0].clone(), nb],
        at,
    );
    t.emit_d3d(a);
    let one = t.lit([1.0; 4]);
    let zero = t.lit([0.0; 4]);
    let (x, y) = if i.op == Op::Sge {
        (one, zero)
    } else {
        (zero, one)
    };
    let mut c = t.mk(Op::CmpGe, d, vec![Src::new(tmp), x, y], at);
    c.sat = i.sat;
    t.emit_d3d(c);
}

/// `SCS`/`SIN`/`COS` through `sincos` (angles reduced to [-pi, pi] first).
fn trig(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let mut x = splat_of(&i.src[0], 0);
    if i.op != Op::Scs {
        // Reduce the angle to [-pi, pi], which sincos requires.
        let tmp = t.temp();
        let inv = t.lit([1.0 / std::f32::consts::TAU; 4]);
        let half = t.lit([0.5; 4]);
        let m = t.mk(Op::Mad, Dst::new(tmp, WriteMask::X), vec![x, inv, half], at);
        t.emit_d3d(m);
        let tx = Src::new(tmp).swizzled(Swizzle::splat(0));
        let f = t.mk(Op::Frc, Dst::new(tmp, WriteMask::X), vec![tx.clone()], at);
        t.emit_d3d(f);
        let tau = t.lit([std::f32::consts::TAU; 4]);
        let mut npi = t.lit([std::f32::consts::PI; 4]);
        npi.negate = true;
        let m2 = t.mk(
            Op::Mad,
            Dst::new(tmp, WriteMask::X),
            vec![tx.clone(), tau, npi],
            at,
        );
        t.emit_d3d(m2);
        x = tx;
    }
    // D3DSINCOSCONST1 and D3DSINCOSCONST2 (d3d9types.h).
    let c1 = t.lit([
        -1.550_099_2e-6,
        -2.170_139e-5,
        0.002_604_166_7,
        0.000_260_416_68,
    ]);
    let c2 = t.lit([-0.020_833_334, -0.125, 1.0, 0.5]);
    let tmp = t.temp();
    let sc = t.mk(
        Op::Sincos,
        Dst::new(tmp, WriteMask::XY),
        vec![x, c1, c2],
        at,
    );
    t.emit_d3d(sc);
    let lane = match i.op {
        Op::Sin => Some(1),
        Op::Cos => Some(0),
        _ => None,
    };
    let mut src = Src::new(tmp);
    let mut dd = d.clone();
    match lane {
        Some(l) => src.swizzle = Swizzle::splat(l),
        None => dd.mask = d.mask.intersect(WriteMask::XY),
    }
    if dd.mask.is_empty() {
        return;
    }
    let mut mv = t.mk(Op::Mov, dd, vec![src], at);
    mv.sat = i.sat;
    t.emit_d3d(mv);
}

/// `SWZ`: a swizzled `mul` by the signs, then `add` of the constant lanes.
fn swz(t: &mut Tx, i: Inst, at: &Inst) {
    let d = i.dst.clone().unwrap();
    let e = i.ext_swizzle.unwrap();
    let s = &i.src[0];
    let mut comps = [0u8; 4];
    let mut mul = [0f32; 4];
    let mut add = [0f32; 4];
    for k in 0..4 {
        let sign = if e.neg[k] != s.negate { -1.0 } else { 1.0 };
        match e.sel[k] {
            ExtSel::Comp(c) => {
                comps[k] = s.swizzle.get(c);
                mul[k] = sign;
            }
            ExtSel::Zero => add[k] = 0.0,
            ExtSel::One => add[k] = sign,
        }
    }
    let mut src = s.clone();
    src.negate = false;
    src.swizzle = Swizzle::new(comps[0], comps[1], comps[2], comps[3]);
    let tmp = t.temp();
    let cm = t.lit(mul);
    let m = t.mk(Op::Mul, Dst::new(tmp, d.mask), vec![src, cm], at);
    t.emit_d3d(m);
    let ca = t.lit(add);
    let mut a = t.mk(Op::Add, d, vec![Src::new(tmp), ca], at);
    a.sat = i.sat;
    t.emit_d3d(a);
}

/// `KIL` tests all four lanes; `texkill` tests xyz: test twice.
fn kil(t: &mut Tx, i: Inst, at: &Inst) {
    let s = i.src[0].clone();
    let tmp = t.temp();
    let m = t.mk(Op::Mov, Dst::new(tmp, WriteMask::ALL), vec![s.clone()], at);
    t.emit_d3d(m);
    let mut k = Inst::new(Op::Texkil, None, [Src::new(tmp)]);
    k.span = at.span;
    t.emit_d3d(k.clone());
    let w = t.mk(
        Op::Mov,
        Dst::new(tmp, WriteMask::ALL),
        vec![splat_of(&s, 3)],
        at,
    );
    t.emit_d3d(w);
    t.emit_d3d(k);
}

/// Texture reads: D3D9 targets, a plain coordinate, a whole temporary destination.
fn tex(t: &mut Tx, i: Inst, at: &Inst) {
    let name = i.info().arb.unwrap_or("?");
    let mut tr = i.tex.unwrap();
    match tr.target {
        TexTarget::T2D | TexTarget::Cube | TexTarget::T3D => {}
        TexTarget::T1D => tr.target = TexTarget::T2D,
        other => {
            t.errs.push(refuse(
                format!("{name} with target {other:?} has no Direct3D 9 sampler type"),
                at.span,
            ));
            return;
        }
    }
    let d = i.dst.clone().unwrap();
    let coord = i.src[0].clone();
    let coord = if matches!(coord.reg.file, RegFile::Temp | RegFile::TexCoord)
        && coord.swizzle.is_identity()
        && !coord.negate
    {
        coord
    } else {
        let tmp = t.temp();
        let m = t.mk(Op::Mov, Dst::new(tmp, WriteMask::ALL), vec![coord], at);
        t.emit_d3d(m);
        Src::new(tmp)
    };
    let direct = d.reg.file == RegFile::Temp && d.mask.is_all() && !i.sat;
    let into = if direct { d.reg } else { t.temp() };
    let mut x = Inst::new(i.op, Some(Dst::new(into, WriteMask::ALL)), [coord]);
    x.tex = Some(tr);
    x.span = at.span;
    x.comment = i.comment.clone();
    t.emit_d3d(x);
    if !direct {
        let mut mv = t.mk(Op::Mov, d, vec![Src::new(into)], at);
        mv.sat = i.sat;
        d3d_inst(t, mv, at);
    }
}

//! Translation between Direct3D 9 shader assembly and ARB programs, over the IR.
//!
//! [`to_arb`] turns a `vs_*` program into `!!ARBvp1.0` and a `ps_*` program into
//! `!!ARBfp1.0`, so D3D9 programs (the paper's Figures 3 and 5) can run on an OpenGL
//! implementation as an oracle; [`to_d3d9`] goes the other way, into vs_1_1, vs_2_0,
//! vs_2_x, ps_2_0 or ps_2_x. Where one side has no counterpart the translation stops with
//! an `E2401` diagnostic naming the construct (flow control, predication, `texldd`, ...).
//!
//! Mapping (D3D9 → ARB): `c#` keeps its slot (`Env(#)` is `program.env[#]`, a `def` a
//! literal); `v#` maps by its `dcl` semantic to the conventional attribute (position 0,
//! blend weight 1, normal 2, colours 3/4, fog 5, texcoord n 8+n, others generic attributes
//! in unused slots); macros expand: `m4x4` into DP4s, `nrm` into DP3/RSQ/MUL, `lrp` (vertex)
//! into SUB/MAD, `sgn` into SLT/SLT/SUB, `dp2add` into MAD/MAD, `sincos` (fragment) into SCS,
//! `crs` is XPD, `mova`/vs_1_1 `mov a0.x` into ADD 0.5/ARL (round to nearest as
//! floor(x + 0.5): ties go up), `texkill` into KIL on `.xyzz` (KIL also tests w), `_sat`
//! in vertex programs into MAX/MIN, `_pp` is dropped, `nop` disappears.
//!
//! `cmp`: D3D9 `cmp d, a, b, c` is `a >= 0 ? b : c`; ARB `CMP d, a, x, y` is
//! `a < 0 ? x : y`, so `cmp` becomes `CMP d, a, c, b`. The two agree for every number,
//! ±0 and ±inf included, but not for NaN: D3D9 selects `c` (NaN >= 0 is false) where the
//! translated ARB selects `b` (NaN < 0 is false). No ARB form is exact at both NaN and 0.
//!
//! Precision-related differences that stay: ARB `RSQ`/`RCP` of 0 give +inf where D3D9
//! `rcp` gives FLT_MAX-like values on some drivers; `_centroid` is dropped (ARB has no
//! centroid interpolation; it only matters with multisampling).

use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::{Op, Shape};
use crate::profile::Profile;
use std::collections::HashMap;

const CODE: &str = "E2401";

fn refuse(what: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(CODE, what, span).with_label("not expressible in the target language")
}

fn lit_src(slot: u16) -> Src {
    Src::new(Reg::new(RegFile::Const, slot))
}

fn splat_of(s: &Src, lane: Comp) -> Src {
    let mut t = s.clone();
    t.swizzle = Swizzle::splat(s.swizzle.get(lane));
    t
}

/// Makes lane `to` of every componentwise source read what lane `from` read.
fn move_lane(inst: &mut Inst, from: Comp, to: Comp) {
    if inst.info().shape != Shape::Componentwise {
        return;
    }
    for s in inst.src.iter_mut() {
        let mut c = s.swizzle.comps();
        c[to as usize] = c[from as usize];
        s.swizzle = Swizzle::new(c[0], c[1], c[2], c[3]);
    }
}

struct Tx<'a> {
    from: &'a Program,
    out: Program,
    errs: Vec<Diagnostic>,
    lit_slots: HashMap<[u32; 4], u16>,
    /// D3D9 target only: next free `c#` for literals.
    next_c: u16,
    max_c: u16,
    /// Scratch temporaries live only within the expansion of one source instruction, so
    /// they are numbered from `from.num_temps` again for each one ...
    scratch: u16,
    /// ... after the source's own temporaries that are dead across the instruction.
    free: Vec<u16>,
}

impl<'a> Tx<'a> {
    fn new(from: &'a Program, target: Profile) -> Tx<'a> {
        let mut out = Program::new(target);
        out.num_temps = from.num_temps;
        Tx {
            from,
            out,
            errs: Vec::new(),
            lit_slots: HashMap::new(),
            next_c: 0,
            max_c: 0,
            scratch: 0,
            free: Vec::new(),
        }
    }

    fn temp(&mut self) -> Reg {
        let k = self.scratch as usize;
        self.scratch += 1;
        if let Some(&f) = self.free.get(k) {
            return Reg::new(RegFile::Temp, f);
        }
        let r = Reg::new(
            RegFile::Temp,
            self.from.num_temps + (k - self.free.len()) as u16,
        );
        self.out.num_temps = self.out.num_temps.max(r.index + 1);
        r
    }

    /// A constant slot holding `v` (shared between uses).
    fn lit(&mut self, v: [f32; 4]) -> Src {
        let key = v.map(f32::to_bits);
        if let Some(&s) = self.lit_slots.get(&key) {
            return lit_src(s);
        }
        let slot = if self.out.dialect() == Dialect::D3d9 {
            while (self.next_c as usize) < self.out.consts.len()
                && !matches!(
                    self.out.consts[self.next_c as usize].binding,
                    ConstBinding::Env(_)
                )
                || self.used_env(self.next_c)
            {
                self.next_c += 1;
            }
            let s = self.next_c;
            self.next_c += 1;
            while self.out.consts.len() <= s as usize {
                let n = self.out.consts.len() as u16;
                self.out.consts.push(ConstSlot {
                    binding: ConstBinding::Env(n),
                    span: Span::NONE,
                });
            }
            self.out.consts[s as usize].binding = ConstBinding::Literal(Literal::vec4(v));
            self.max_c = self.max_c.max(s + 1);
            s
        } else {
            self.out.consts.push(ConstSlot {
                binding: ConstBinding::Literal(Literal::vec4(v)),
                span: Span::NONE,
            });
            (self.out.consts.len() - 1) as u16
        };
        self.lit_slots.insert(key, slot);
        lit_src(slot)
    }

    /// D3D9 target: whether `c#n` is taken by a host-set ARB `program.env[n]`.
    fn used_env(&self, n: u16) -> bool {
        self.from
            .consts
            .iter()
            .any(|c| c.binding == ConstBinding::Env(n))
    }

    fn push(&mut self, i: Inst) {
        self.out.insts.push(i);
    }

    fn mk(&self, op: Op, dst: Dst, src: Vec<Src>, at: &Inst) -> Inst {
        let mut i = Inst::new(op, Some(dst), src);
        i.span = at.span;
        i
    }

    /// Builds `io` in the order the target's front end numbers declarations: for ARB,
    /// inputs by first use and then outputs by first use; for D3D9, first use (explicit
    /// declarations are moved first by [`crate::d3d9::canonicalize`]).
    fn finish_io(&mut self, decls: &HashMap<Reg, IoDecl>) {
        let mut order: Vec<Reg> = Vec::new();
        let arb = self.out.dialect() == Dialect::Arb;
        for pass in 0..2 {
            for i in &self.out.insts {
                for r in i
                    .src
                    .iter()
                    .map(|s| s.reg)
                    .chain(i.dst.iter().map(|d| d.reg))
                {
                    let keep = !arb || (pass == 0) == r.file.is_input();
                    if keep && decls.contains_key(&r) && !order.contains(&r) {
                        order.push(r);
                    }
                }
            }
        }
        let mut rest: Vec<Reg> = decls
            .keys()
            .copied()
            .filter(|r| !order.contains(r))
            .collect();
        rest.sort();
        order.extend(rest);
        if arb {
            // The ARB front end keeps declarations sorted by register.
            order.sort();
        }
        self.out.io = order.iter().map(|r| decls[r].clone()).collect();
    }
}

/// For straight-line programs: per instruction, the source temporaries that an expansion
/// may use as scratch (not read or written by the instruction, dead after it).
fn free_temps(p: &Program) -> Vec<Vec<u16>> {
    let n = p.num_temps as usize;
    if p.insts.iter().any(|i| i.op.is_flow()) {
        return vec![Vec::new(); p.insts.len()];
    }
    let mut live = vec![false; n];
    let mut out = vec![Vec::new(); p.insts.len()];
    for (k, inst) in p.insts.iter().enumerate().rev() {
        let mut busy = live.clone();
        if let Some(d) = &inst.dst
            && d.reg.file == RegFile::Temp
            && (d.reg.index as usize) < n
        {
            busy[d.reg.index as usize] = true;
            if d.mask.is_all() && inst.pred.is_none() {
                live[d.reg.index as usize] = false;
            }
        }
        for (j, s) in inst.src.iter().enumerate() {
            if s.reg.file == RegFile::Temp {
                let rows = if j == 1 {
                    inst.op.matrix_rows().unwrap_or(1)
                } else {
                    1
                } as usize;
                for r in 0..rows {
                    if let Some(x) = live.get_mut(s.reg.index as usize + r) {
                        *x = true;
                    }
                    if let Some(x) = busy.get_mut(s.reg.index as usize + r) {
                        *x = true;
                    }
                }
            }
        }
        out[k] = (0..n as u16).filter(|&r| !busy[r as usize]).collect();
    }
    out
}

// ================================================================================
// D3D9 → ARB
// ================================================================================

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

    // Registers: D3D9 inputs and outputs to ARB bindings.
    let mut map: HashMap<Reg, Reg> = HashMap::new();
    let mut decls: HashMap<Reg, IoDecl> = HashMap::new();
    let mut generic_free: Vec<u16> = (0..16)
        .rev()
        .filter(|i| !matches!(i, 0..=5 | 8..=15))
        .collect();
    // Conventional slots first, so generics never collide with them.
    let mut conventional = Vec::new();
    for d in &p.io {
        let (reg, sem) = match (d.reg.file, vp) {
            (RegFile::Input, true) => {
                let idx = match d.semantic {
                    Semantic::Position(0) => Some(0),
                    Semantic::BlendWeight(0) => Some(1),
                    Semantic::Normal(0) => Some(2),
                    Semantic::Color(0) => Some(3),
                    Semantic::Color(1) => Some(4),
                    Semantic::Fog(0) => Some(5),
                    Semantic::TexCoord(n) if n < 8 => Some(8 + n as u16),
                    _ => None,
                };
                match idx {
                    Some(i) => {
                        conventional.push(i);
                        (Reg::new(RegFile::Input, i), d.semantic)
                    }
                    None => continue,
                }
            }
            (RegFile::Input, false) => match d.semantic {
                Semantic::Color(n) if n < 2 => (Reg::new(RegFile::Input, n as u16), d.semantic),
                Semantic::Fog(0) => (Reg::new(RegFile::Input, 2), d.semantic),
                Semantic::TexCoord(n) if n < 8 => {
                    (Reg::new(RegFile::TexCoord, n as u16), d.semantic)
                }
                s => {
                    t.errs.push(refuse(
                        format!(
                            "the pixel shader input {} ({s:?}) has no ARBfp1.0 binding",
                            reg_label(d.reg)
                        ),
                        d.span,
                    ));
                    continue;
                }
            },
            (RegFile::TexCoord, _) => (d.reg, Semantic::TexCoord(d.reg.index as u8)),
            (RegFile::Misc, _) => {
                t.errs.push(
                    refuse(
                        format!("{} has no exact ARBfp1.0 counterpart", reg_label(d.reg)),
                        d.span,
                    )
                    .with_note("vPos counts pixels from the top-left corner, fragment.position from the bottom-left; vFace has no ARB binding"),
                );
                continue;
            }
            (RegFile::Output, _) => match d.semantic {
                Semantic::Position(0) => (Reg::new(RegFile::RastOut, 0), d.semantic),
                Semantic::Fog(0) => (Reg::new(RegFile::RastOut, 1), d.semantic),
                Semantic::PointSize(0) => (Reg::new(RegFile::RastOut, 2), d.semantic),
                Semantic::Color(n) if n < 2 => (Reg::new(RegFile::AttrOut, n as u16), d.semantic),
                Semantic::TexCoord(n) if n < 8 => {
                    (Reg::new(RegFile::TexCrdOut, n as u16), d.semantic)
                }
                s => {
                    t.errs.push(refuse(
                        format!(
                            "the vs_3_0 output {} ({s:?}) has no ARBvp1.0 binding",
                            reg_label(d.reg)
                        ),
                        d.span,
                    ));
                    continue;
                }
            },
            (RegFile::ColorOut, _) => {
                if d.reg.index > 0 && !t.out.has_option(&ArbOption::DrawBuffers) {
                    t.out.options.push(ArbOption::DrawBuffers);
                }
                (d.reg, Semantic::Color(d.reg.index as u8))
            }
            _ => (d.reg, d.semantic),
        };
        map.insert(d.reg, reg);
        decls.insert(reg, arb_decl(reg, sem));
    }
    generic_free.retain(|i| !conventional.contains(i));
    for d in &p.io {
        if d.reg.file == RegFile::Input && vp && !map.contains_key(&d.reg) {
            match generic_free.pop() {
                Some(i) => {
                    let reg = Reg::new(RegFile::Input, i);
                    map.insert(d.reg, reg);
                    decls.insert(reg, arb_decl(reg, Semantic::Generic(i as u8)));
                }
                None => t
                    .errs
                    .push(refuse("too many vertex attributes for ARBvp1.0", d.span)),
            }
        }
    }

    // Constants keep their slots; literals of expansions follow. Relative addressing reads
    // the whole env file: the slots between are filled in at the end.
    t.out.consts = p.consts.clone();
    let rel_used = p
        .insts
        .iter()
        .any(|i| i.src.iter().any(|s| s.rel.is_some()));
    let file_len = p.consts.len() as u16;
    let mut uses_a0 = false;

    let free = free_temps(p);
    for (n, inst) in p.insts.iter().enumerate() {
        t.scratch = 0;
        t.free = free[n].clone();
        let name = crate::d3d9::regs::op_name(inst.op, p.profile);
        if inst.pred.is_some() {
            t.errs.push(refuse(
                format!("predicated `{name}` (ARB has no predication)"),
                inst.span,
            ));
            continue;
        }
        let unsupported = match inst.op {
            o if o.is_flow() => Some("flow control"),
            Op::Texldd => Some("texldd (explicit gradients)"),
            Op::Texldl => Some("texldl (explicit level of detail)"),
            Op::Dsx | Op::Dsy => Some("derivatives (dsx/dsy)"),
            Op::Setp(_) => Some("setp (predicate register)"),
            Op::Sincos if vp => Some("sincos (ARBvp1.0 has no SIN/COS/SCS)"),
            Op::Nop => {
                continue;
            }
            _ => None,
        };
        if let Some(what) = unsupported {
            t.errs.push(refuse(
                format!("`{name}`: {what} has no {target} equivalent"),
                inst.span,
            ));
            continue;
        }
        // Map operands.
        let mut i = inst.clone();
        i.pp = false;
        i.comment = inst.comment.clone();
        let mut bad = false;
        for s in i.src.iter_mut() {
            if let Some(r) = map.get(&s.reg) {
                s.reg = *r;
            }
            if let Some(rel) = s.rel {
                if rel.reg.file != RegFile::Address || rel.comp != 0 || s.reg.file != RegFile::Const
                {
                    t.errs.push(refuse(
                        format!("`{name}`: relative addressing other than c[a0.x + n]"),
                        inst.span,
                    ));
                    bad = true;
                    continue;
                }
                uses_a0 = true;
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
        if bad {
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
        arb_inst(&mut t, i, inst, vp);
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
    for i in &t.out.insts {
        if i.dst
            .as_ref()
            .is_some_and(|d| d.reg.file == RegFile::Address)
        {
            uses_a0 = true;
        }
    }
    if rel_used {
        // The env region 0..env_end fills what the target has room for next to the
        // literals; slots that are defined or read directly always stay.
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
                    None if s.reg.index >= file_len => {
                        s.reg.index = s.reg.index - file_len + env_end
                    }
                    None => {}
                }
            }
        }
    }
    t.out.num_addrs = u16::from(uses_a0);
    t.finish_io(&decls);
    if !t.errs.is_empty() {
        return Err(t.errs);
    }
    let diags = crate::validate::check(&t.out, &target.limits());
    if crate::diag::has_errors(&diags) {
        return Err(diags);
    }
    Ok(t.out)
}

fn reg_label(r: Reg) -> String {
    crate::d3d9::regs::reg_name(r)
}

fn arb_decl(reg: Reg, semantic: Semantic) -> IoDecl {
    IoDecl {
        reg,
        semantic,
        mask: WriteMask::ALL,
        interp: Interp::Perspective,
        pp: false,
        explicit: false,
        span: Span::NONE,
    }
}

/// Emits the ARB form of one (operand-mapped) D3D9 instruction.
fn arb_inst(t: &mut Tx, mut i: Inst, orig: &Inst, vp: bool) {
    let at = orig;
    match i.op {
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
        Op::Nrm => {
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
            t.push(t.mk(Op::Rsq, Dst::new(tmp, WriteMask::X), vec![tx.clone()], at));
            let mut m = t.mk(Op::Mul, d, vec![s, tx], at);
            m.sat = i.sat;
            t.push(m);
        }
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

// ================================================================================
// ARB → D3D9
// ================================================================================

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
    let vs = target.stage() == Stage::Vertex;
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

    // Constants: program.env[n] is c#n; literals go to free registers.
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
    // Literals inside relatively addressed arrays take the c# that continue the array.
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

    // Inputs and outputs.
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
            _ => (
                d.reg,
                crate::d3d9::regs::implied_semantic(d.reg).unwrap_or(d.semantic),
                false,
            ),
        };
        map.insert(d.reg, reg);
        let mut nd = arb_decl(reg, sem);
        nd.explicit = explicit;
        decls.insert(reg, nd);
    }

    let free = free_temps(p);
    for (n, inst) in p.insts.iter().enumerate() {
        t.scratch = 0;
        t.free = free[n].clone();
        let mut i = inst.clone();
        let mut bad = false;
        for s in i.src.iter_mut() {
            if let Some(r) = map.get(&s.reg) {
                s.reg = *r;
            }
            s.name = None;
            if s.reg.file == RegFile::Const {
                let slot = s.reg.index as usize;
                if let Some(rel) = s.rel {
                    // The array lo..hi must be env[k..] in order.
                    let base = cmap.get(rel.lo as usize).copied().flatten();
                    let contiguous = (rel.lo..rel.hi).all(|k| {
                        let m = cmap.get(k as usize).copied().flatten();
                        m.is_some() && m == base.map(|b| b + (k - rel.lo))
                    });
                    let eff = base.map(|b| {
                        b as i32 + rel.offset as i32 + (s.reg.index as i32 - rel.lo as i32)
                    });
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
                } else {
                    match cmap.get(slot).copied().flatten() {
                        Some(c) => s.reg.index = c,
                        None => bad = true,
                    }
                }
            }
        }
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
        d3d_inst(&mut t, i, inst, target);
    }
    // Address register and constant file size.
    t.out.num_addrs = u16::from(t.out.insts.iter().any(|i| {
        i.dst
            .as_ref()
            .is_some_and(|d| d.reg.file == RegFile::Address)
            || i.src.iter().any(|s| s.rel.is_some())
    }));
    let mut max_ref = t.max_c as usize;
    for i in &t.out.insts {
        for (k, s) in i.src.iter().enumerate() {
            if s.reg.file == RegFile::Const {
                let rows = if k == 1 {
                    i.op.matrix_rows().unwrap_or(1)
                } else {
                    1
                } as usize;
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
    // Samplers.
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
    // Declarations: inputs explicit first (dcl order = first use), outputs implicit.
    t.finish_io(&decls);
    crate::d3d9::canonicalize(&mut t.out);
    if !t.errs.is_empty() {
        return Err(t.errs);
    }
    let diags = crate::validate::check(&t.out, &target.limits());
    if crate::diag::has_errors(&diags) {
        return Err(diags);
    }
    Ok(t.out)
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
                if crate::d3d9::rules::ps2_0_swizzle(s.swizzle) {
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
fn d3d_inst(t: &mut Tx, mut i: Inst, at: &Inst, target: Profile) {
    let vs = target.stage() == Stage::Vertex;
    let v11 = target == Profile::Vs1_1;
    let ps = !vs;
    // Outputs cannot take _sat in ps_2_0/2_x: compute in a temporary, then copy.
    if ps && i.sat && i.dst.as_ref().is_some_and(|d| d.reg.file.is_output()) {
        let d = i.dst.clone().unwrap();
        let tmp = t.temp();
        i.dst = Some(Dst::new(tmp, d.mask));
        d3d_inst(t, i, at, target);
        let mv = t.mk(Op::Mov, d, vec![Src::new(tmp)], at);
        t.emit_d3d(mv);
        return;
    }
    let name = i.info().arb.unwrap_or("?");
    match i.op {
        Op::Arl => {
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
        Op::Abs if v11 => {
            i.op = Op::Max;
            let mut n = i.src[0].clone();
            n.negate = !n.negate;
            i.src.push(n);
            t.emit_d3d(i);
        }
        Op::Pow if v11 => {
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
        Op::Pow => {
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
        Op::Xpd => {
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
        Op::Dph => {
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
        Op::Flr | Op::Frc if v11 => {
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
        Op::Flr => {
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
        Op::Lrp if v11 => {
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
        Op::Cmp => {
            i.op = Op::CmpGe;
            i.src.swap(1, 2);
            t.emit_d3d(i);
        }
        Op::Sge | Op::Slt if ps => {
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
        Op::Scs | Op::Sin | Op::Cos => {
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
        Op::Swz => {
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
        Op::Kil => {
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
        Op::Tex | Op::Txb | Op::Txp => {
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
                d3d_inst(t, mv, at, target);
            }
        }
        op if !target.has(op) => {
            t.errs.push(refuse(
                format!("`{name}` has no {target} equivalent"),
                at.span,
            ));
        }
        _ => t.emit_d3d(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lane_rewires_componentwise_sources() {
        let mut i = Inst::new(
            Op::Mov,
            Some(Dst::new(Reg::new(RegFile::DepthOut, 0), WriteMask::X)),
            [Src::new(Reg::new(RegFile::Temp, 0)).swizzled(Swizzle::new(3, 1, 2, 0))],
        );
        move_lane(&mut i, 0, 2);
        assert_eq!(i.src[0].swizzle.get(2), 3);
    }
}

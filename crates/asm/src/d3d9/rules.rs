//! Per-version operand rules of Direct3D 9 shader assembly (`E21xx`), over the IR.
//!
//! The front end calls these through [`crate::validate::check`], and so does every test of
//! an optimizer pass: a pass cannot produce a program the assembler would reject. Sources,
//! per rule, are the pages of the DirectX 9 asm shader reference: the "Registers - <model>"
//! tables (read ports: "the number of different registers of each register type that can
//! be read in a single instruction"; which registers need `dcl`; relative addressing),
//! "Source Register Swizzling" (ps), "Modifiers for ps_2_0 and Above", "Instruction
//! modifiers (vs)", "Source Register Modifiers" (`_abs` is 3_0 only) and each
//! instruction's page (`texld - ps_2_0 and up`, `sincos`, `crs`, `nrm`, `m3x2`…`m4x4`,
//! `frc - vs`, `rcp`/`rsq`/`exp`/`log`/`pow`, `dp2add`, `sgn`, `mova`, `loop`).
//!
//! ps_2_x/3_0 constant reads: the ps_2_x register page of the DirectX 9.0 SDK states that
//! an instruction may read at most two different `c#` registers; vertex shaders read one.

use super::errors::err;
use super::printer::{mask_text, swizzle_text};
use super::regs::{self, reg_name};
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::Op;
use crate::profile::{Limits, Profile};

pub fn check(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    let mut r = Rules { p, out: Vec::new() };
    r.declarations();
    r.local();
    r.dependent_reads(limits);
    r.uninitialized();
    r.outputs();
    r.out
}

/// The rules that look at one instruction at a time (and flow structure), for a program
/// the front end could only partly lower: the errors come out together with the syntax
/// errors. Whole-program data-flow rules are left out, since dropped lines would make
/// them report nonsense.
pub fn check_partial(p: &Program) -> Vec<Diagnostic> {
    let mut r = Rules { p, out: Vec::new() };
    r.local();
    r.out
}

struct Rules<'a> {
    p: &'a Program,
    out: Vec<Diagnostic>,
}

/// The operand rules of one instruction of `p` (read ports, swizzles, modifiers, masks,
/// operand kinds), which need not be in `p` yet: what a pass needs to vet a rewritten
/// instruction without re-checking the whole program. Program-wide rules (declarations,
/// dependent reads, flow structure, uninitialised reads) are left to [`check`].
pub fn check_inst(p: &Program, inst: &Inst) -> Vec<Diagnostic> {
    let mut r = Rules { p, out: Vec::new() };
    r.instruction(0, inst);
    r.out
}

/// Source swizzles a ps_2_0 instruction accepts (no arbitrary-swizzle cap): none, the
/// replicates `.x .y .z .w`, and `.yzxw`, `.zxyw`, `.wzyx` ("Source Register Swizzling").
pub fn ps2_0_swizzle(s: Swizzle) -> bool {
    s.is_replicate()
        || [
            Swizzle::IDENTITY,
            Swizzle::new(1, 2, 0, 3),
            Swizzle::new(2, 0, 1, 3),
            Swizzle::new(3, 2, 1, 0),
        ]
        .contains(&s)
}

/// Dependent-read order of each texture instruction (`None` for the others), as ps_2_0
/// defines it: a read is first-order when its coordinate is `r#` or its destination register
/// was written before, and each texture result flowing into the registers it reads or
/// writes adds one (Microsoft, "texld - ps_2_0 and up").
pub fn texture_read_orders(p: &Program) -> Vec<Option<i32>> {
    let n = p
        .insts
        .iter()
        .flat_map(|i| {
            i.dst
                .iter()
                .map(|d| d.reg)
                .chain(i.src.iter().map(|s| s.reg))
        })
        .filter(|r| r.file == RegFile::Temp)
        .map(|r| r.index as usize + 1)
        .max()
        .unwrap_or(0)
        .max(p.num_temps as usize);
    // dep[r]: highest order of a texture read whose result flows into r#.
    let mut dep: Vec<Option<i32>> = vec![None; n];
    let mut written = vec![false; n];
    let temp_dep = |dep: &[Option<i32>], r: Reg| {
        (r.file == RegFile::Temp)
            .then(|| dep.get(r.index as usize).copied().flatten())
            .flatten()
    };
    let mut out = Vec::with_capacity(p.insts.len());
    for inst in &p.insts {
        let dst = inst.dst.as_ref().filter(|d| d.reg.file == RegFile::Temp);
        let value = if inst.op.is_texture() {
            let coord = inst.src.first().map(|s| s.reg);
            let rewritten = dst.map(|d| d.reg).filter(|r| written[r.index as usize]);
            let order = coord
                .into_iter()
                .chain(rewritten)
                .filter(|r| r.file == RegFile::Temp)
                .map(|r| temp_dep(&dep, r).map_or(1, |k| (k + 1).max(1)))
                .max()
                .unwrap_or(0);
            out.push(Some(order));
            Some(order)
        } else {
            out.push(None);
            let mut m = inst.src.iter().filter_map(|s| temp_dep(&dep, s.reg)).max();
            if let Some(d) = dst
                && !d.mask.is_all()
            {
                m = m.max(temp_dep(&dep, d.reg));
            }
            m
        };
        if let Some(d) = dst {
            dep[d.reg.index as usize] = value;
            written[d.reg.index as usize] = true;
        }
    }
    out
}

fn at(s: Span, inst: &Inst) -> Span {
    if s.is_none() { inst.span } else { s }
}

fn is_ps(p: Profile) -> bool {
    p.stage() == Stage::Fragment
}

fn sm3(p: Profile) -> bool {
    matches!(p, Profile::Vs3_0 | Profile::Ps3_0)
}

fn name(p: Profile, op: Op) -> String {
    regs::op_name(op, p)
}

/// Sources that carry data (not the sincos/sgn scratch operands or flow labels).
fn data_srcs(p: Profile, inst: &Inst) -> Vec<usize> {
    let n = inst.src.len();
    match inst.op {
        Op::Sincos if !sm3(p) => vec![0],
        Op::Sgn => vec![0],
        Op::Call | Op::Label | Op::Loop | Op::Rep => vec![],
        Op::Callnz | Op::If | Op::Breakp => vec![],
        _ => (0..n).collect(),
    }
}

impl Rules<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn local(&mut self) {
        for (n, inst) in self.p.insts.iter().enumerate() {
            self.instruction(n, inst);
        }
        self.abs_consistency();
        self.flow();
    }

    // ---- declarations ---------------------------------------------------------------

    fn declarations(&mut self) {
        let p = self.p;
        let prof = p.profile;
        for d in &p.io {
            let nm = reg_name(d.reg);
            if regs::requires_dcl(d.reg, prof) && !d.explicit {
                self.push(
                    err(
                        "E2112",
                        format!("`{nm}` must be declared with dcl in {prof}"),
                        d.span,
                    )
                    .with_note("the IoDecl of this register has explicit: false"),
                );
            }
            let ok = match d.reg.file {
                RegFile::Input if matches!(prof, Profile::Ps2_0 | Profile::Ps2_x) => {
                    d.semantic == Semantic::Color(d.reg.index as u8)
                }
                RegFile::Input | RegFile::Output => regs::semantic_usage(d.semantic).is_some(),
                RegFile::Misc => {
                    d.semantic
                        == if d.reg.index == 0 {
                            Semantic::WindowPos
                        } else {
                            Semantic::Face
                        }
                }
                _ => regs::implied_semantic(d.reg) == Some(d.semantic),
            };
            if !ok {
                self.push(
                    err(
                        "E2130",
                        format!(
                            "`{nm}` cannot carry the semantic {:?} in {prof}",
                            d.semantic
                        ),
                        d.span,
                    )
                    .with_note("a pass gave this register a semantic D3D9 cannot declare"),
                );
            }
            if d.reg == Reg::new(RegFile::Misc, 0)
                && ![WriteMask::X, WriteMask::Y, WriteMask::XY].contains(&d.mask)
            {
                self.push(
                    err(
                        "E2112",
                        "vPos must be declared with mask .x, .y or .xy",
                        d.span,
                    )
                    .with_hint("write `dcl vPos.xy`"),
                );
            }
        }
        for (i, c) in p.consts.iter().enumerate() {
            let ok = match &c.binding {
                ConstBinding::Env(n) => *n as usize == i,
                ConstBinding::Literal(l) => l.form == LiteralForm::Vector(4),
                _ => false,
            };
            if !ok {
                self.push(
                    err(
                        "E2130",
                        format!(
                            "constant slot c{i} has a binding D3D9 cannot express: {:?}",
                            c.binding
                        ),
                        c.span,
                    )
                    .with_note(
                        "D3D9 constants are `def` literals of four values or host-set c# (Env(#))",
                    ),
                );
            }
        }
        for inst in &p.insts {
            if let Some(t) = inst.tex {
                match p.samplers.iter().find(|s| s.unit == t.unit) {
                    None => self.push(
                        err(
                            "E2112",
                            format!("sampler s{} is not declared", t.unit),
                            inst.span,
                        )
                        .with_hint(format!("add `dcl_2d s{}`", t.unit)),
                    ),
                    Some(s) if s.target != t.target => self.push(
                        err(
                            "E2112",
                            format!(
                                "s{} is sampled as {:?} but declared {:?}",
                                t.unit, t.target, s.target
                            ),
                            inst.span,
                        )
                        .with_related(s.span, "declared here"),
                    ),
                    _ => {}
                }
            }
        }
        for s in &p.samplers {
            if regs::target_word(s.target).is_none() {
                self.push(err(
                    "E2130",
                    format!(
                        "sampler s{} has target {:?}, which D3D9 cannot declare",
                        s.unit, s.target
                    ),
                    s.span,
                ));
            }
        }
    }

    // ---- one instruction -------------------------------------------------------------

    fn instruction(&mut self, _n: usize, inst: &Inst) {
        let p = self.p;
        let prof = p.profile;
        let ps = is_ps(prof);
        let op = inst.op;
        let opn = name(prof, op);
        let data = data_srcs(prof, inst);

        // Read ports.
        for (file, max, what) in [
            (RegFile::Const, if ps { 2 } else { 1 }, "constant"),
            (RegFile::Input, 1, "input"),
            (RegFile::TexCoord, 1, "texture coordinate"),
        ] {
            let mut seen: Vec<(Reg, Option<RelAddr>, Span)> = Vec::new();
            for &k in &data {
                let s = &inst.src[k];
                if s.reg.file == file
                    && !seen.iter().any(|(r, rel, _)| *r == s.reg && *rel == s.rel)
                {
                    seen.push((s.reg, s.rel, at(s.span, inst)));
                }
            }
            if seen.len() > max {
                let (_, _, sp) = seen[max];
                let mut d = err(
                    "E2101",
                    format!(
                        "`{opn}` reads {} different {what} registers; {prof} allows {max} per instruction",
                        seen.len()
                    ),
                    sp,
                )
                .with_label("one too many")
                .with_hint(format!(
                    "copy one of them to a temporary first (`mov r#, {}`)",
                    reg_name(seen[max].0)
                ));
                for (_, _, s) in &seen[..max] {
                    d = d.with_related(*s, "also read here");
                }
                self.push(d);
            }
        }

        // Replicate swizzles of scalar operands.
        let scalar: &[usize] = match op {
            Op::Rcp | Op::Rsq | Op::Ex2 | Op::Lg2 | Op::Exp | Op::Log => &[0],
            Op::Pow => &[0, 1],
            Op::Sincos => &[0],
            Op::Dp2add => &[2],
            // "if_comp", "break_comp": both sources need a replicate swizzle.
            Op::Ifc(_) | Op::Breakc(_) => &[0, 1],
            _ => &[],
        };
        for &k in scalar {
            let Some(s) = inst.src.get(k) else { continue };
            let identity_ok =
                !ps && !matches!(op, Op::Sincos | Op::Dp2add | Op::Ifc(_) | Op::Breakc(_));
            if !(s.swizzle.is_replicate() || identity_ok && s.swizzle.is_identity()) {
                self.push(
                    err(
                        "E2102",
                        format!("`{opn}` needs a replicate swizzle on source {k}"),
                        at(s.span, inst),
                    )
                    .with_label("pick one component")
                    .with_hint("write `.x`, `.y`, `.z` or `.w`"),
                );
            }
        }

        // ps_2_0 swizzles.
        if prof == Profile::Ps2_0 {
            for s in &inst.src {
                if !ps2_0_swizzle(s.swizzle) {
                    self.push(
                        err(
                            "E2103",
                            format!("ps_2_0 has no `.{}` swizzle", swizzle_text(s.swizzle)),
                            at(s.span, inst),
                        )
                        .with_label("arbitrary swizzles need ps_2_x")
                        .with_note("ps_2_0 swizzles: .xyzw, .yzxw, .zxyw, .wzyx and replicates (.x, .y, .z, .w)"),
                    );
                }
            }
        }

        // Texture instructions.
        if op.is_texture() && ps {
            if !sm3(prof)
                && let Some(d) = &inst.dst
                && (d.reg.file != RegFile::Temp || !d.mask.is_all())
            {
                self.push(
                    err(
                        "E2104",
                        format!("`{opn}` in {prof} writes a whole temporary register"),
                        at(d.span, inst),
                    )
                    .with_hint("sample into r# without a write mask, then copy what you need"),
                );
            }
            if let Some(s) = inst.src.first() {
                let file_ok = sm3(prof) || matches!(s.reg.file, RegFile::Temp | RegFile::TexCoord);
                if !file_ok {
                    self.push(
                        err(
                            "E2104",
                            format!("the coordinate of `{opn}` must be t# or r# in {prof}"),
                            at(s.span, inst),
                        )
                        .with_hint("copy the coordinate to a temporary first"),
                    );
                }
                if s.negate || s.abs || (!sm3(prof) && !s.swizzle.is_identity()) {
                    self.push(
                        err(
                            "E2104",
                            format!(
                                "the coordinate of `{opn}` takes no modifier{} in {prof}",
                                if sm3(prof) { "" } else { " or swizzle" }
                            ),
                            at(s.span, inst),
                        )
                        .with_hint("compute the coordinate into a temporary first"),
                    );
                }
            }
        }
        if op == Op::Texkil
            && let Some(s) = inst.src.first()
            && (!matches!(
                s.reg.file,
                RegFile::Temp | RegFile::TexCoord | RegFile::Input
            ) || s.negate
                || s.abs
                || !s.swizzle.is_identity())
        {
            self.push(
                err(
                    "E2104",
                    "texkill takes a plain register (r# or t#)",
                    at(s.span, inst),
                )
                .with_hint("compute the tested value into a temporary first"),
            );
        }

        // _sat and _pp.
        if inst.sat {
            let why = if !ps && prof != Profile::Vs3_0 {
                Some(format!(
                    "vertex shaders have `_sat` only from vs_3_0 ({prof})"
                ))
            } else if matches!(op, Op::Frc | Op::Sincos | Op::Mova | Op::Texkil)
                || op.is_texture()
                || op.is_flow()
                || matches!(op, Op::Setp(_))
            {
                Some(format!("`{opn}` cannot take `_sat`"))
            } else if matches!(prof, Profile::Ps2_0 | Profile::Ps2_x)
                && inst.dst.as_ref().is_some_and(|d| d.reg.file.is_output())
            {
                Some(format!(
                    "in {prof}, `_sat` cannot be used when writing an output register"
                ))
            } else {
                None
            };
            if let Some(w) = why {
                self.push(
                    err("E2106", w, inst.span).with_hint(
                        "saturate in a temporary, e.g. `mov_sat r#, ...`, where allowed",
                    ),
                );
            }
        }
        if inst.pp && !ps {
            self.push(err(
                "E2107",
                "`_pp` exists only in pixel shaders",
                inst.span,
            ));
        }

        // Write masks.
        if let Some(d) = &inst.dst {
            let m = d.mask;
            let bad: Option<&str> = match op {
                Op::Sincos if ![WriteMask::X, WriteMask::Y, WriteMask::XY].contains(&m) => {
                    Some("sincos writes .x, .y or .xy")
                }
                Op::Xpd if m.has(3) => Some("crs writes a subset of .xyz"),
                Op::M3x2 if m != WriteMask::XY => Some("m3x2 writes .xy"),
                Op::M3x3 | Op::M4x3 if m != WriteMask::XYZ => Some("m3x3 and m4x3 write .xyz"),
                Op::M3x4 | Op::M4x4 if !m.is_all() => Some("m3x4 and m4x4 write all of .xyzw"),
                Op::Frc if prof == Profile::Vs1_1 && m != WriteMask::Y && m != WriteMask::XY => {
                    Some("vs_1_1 frc writes .y or .xy")
                }
                _ => None,
            };
            if let Some(b) = bad {
                self.push(
                    err(
                        "E2108",
                        format!("write mask `.{}` not allowed: {b}", mask_text(m)),
                        at(d.span, inst),
                    )
                    .with_label("bad write mask"),
                );
            }
            let scalar_out = matches!(
                (d.reg.file, d.reg.index),
                (RegFile::RastOut, 1 | 2) | (RegFile::DepthOut, _)
            );
            if scalar_out && m != WriteMask::X {
                self.push(err(
                    "E2108",
                    format!("`{}` is a scalar register: no write mask", reg_name(d.reg)),
                    at(d.span, inst),
                ));
            }
            if d.reg.file == RegFile::Address && prof == Profile::Vs1_1 && m != WriteMask::X {
                self.push(err("E2108", "vs_1_1 has only a0.x", at(d.span, inst)));
            }
            if d.reg.file == RegFile::Output
                && let Some(decl) = p.io_decl(d.reg)
                && !m.minus(decl.mask).is_empty()
            {
                self.push(
                    err(
                        "E2113",
                        format!(
                            "writes components of `{}` that its dcl does not declare",
                            reg_name(d.reg)
                        ),
                        at(d.span, inst),
                    )
                    .with_related(decl.span, "declared here"),
                );
            }
        }

        // Operand register restrictions.
        self.operand_restrictions(inst, &opn);

        // Register files readable as data.
        for &k in &data {
            let s = &inst.src[k];
            let bad = match s.reg.file {
                RegFile::Address
                | RegFile::Loop
                | RegFile::Predicate
                | RegFile::Sampler
                | RegFile::Label => true,
                RegFile::ConstInt | RegFile::ConstBool => true,
                RegFile::Misc if s.reg.index == 1 => {
                    !matches!(op, Op::Setp(_) | Op::Ifc(_) | Op::Breakc(_))
                }
                f => f.is_output(),
            };
            if bad {
                self.push(
                    err(
                        "E2110",
                        format!("`{}` cannot be read by `{opn}`", reg_name(s.reg)),
                        at(s.span, inst),
                    )
                    .with_label("not a data source")
                    .with_note(match s.reg.file {
                        RegFile::Misc => "vFace may only be compared, with setp_*, if_* or break_*",
                        RegFile::Address => "a0 is only used as a relative index, c[a0.x + n]",
                        RegFile::ConstInt | RegFile::ConstBool => {
                            "i# and b# are read only by flow control"
                        }
                        _ => "this register is not a data source",
                    }),
                );
            }
        }
        if let Some(d) = &inst.dst {
            let ok = match d.reg.file {
                RegFile::Address => op == Op::Mova,
                RegFile::Predicate => matches!(op, Op::Setp(_)),
                _ => true,
            };
            if !ok {
                self.push(
                    err(
                        "E2110",
                        format!("`{}` cannot be written by `{opn}`", reg_name(d.reg)),
                        at(d.span, inst),
                    )
                    .with_hint(if d.reg.file == RegFile::Address {
                        "write a0 with mova"
                    } else {
                        "write p0 with setp_*"
                    }),
                );
            }
        }

        // _abs.
        for s in &inst.src {
            if s.abs && !sm3(prof) {
                self.push(
                    err(
                        "E2111",
                        format!("the `_abs` source modifier exists only in 3_0 ({prof})"),
                        at(s.span, inst),
                    )
                    .with_hint("use the `abs` instruction into a temporary"),
                );
            }
        }

        // Predication.
        if let Some(pr) = &inst.pred {
            if !regs::file_in_profile(RegFile::Predicate, prof) {
                self.push(err(
                    "E2115",
                    format!("{prof} has no predication"),
                    inst.span,
                ));
            } else if op.is_flow() {
                self.push(
                    err("E2115", format!("`{opn}` cannot be predicated"), inst.span).with_hint(
                        "use the predicate forms: if p0.x, breakp p0.x, callnz l#, p0.x",
                    ),
                );
            } else if op == Op::Sincos && !sm3(prof) && !pr.swizzle.is_replicate() {
                self.push(err(
                    "E2115",
                    "predicated sincos needs a replicate swizzle on p0",
                    inst.span,
                ));
            }
        }
        for s in &inst.src {
            if s.reg.file == RegFile::Predicate
                && matches!(op, Op::If | Op::Callnz)
                && !regs::file_in_profile(RegFile::Predicate, prof)
            {
                self.push(err(
                    "E2115",
                    format!("{prof} has no predicate register"),
                    at(s.span, inst),
                ));
            }
        }

        // Relative addressing.
        for s in &inst.src {
            if let Some(rel) = &s.rel {
                self.relative(inst, s.reg.file, rel, at(s.span, inst), false);
            }
        }
        if let Some(d) = &inst.dst
            && let Some(rel) = &d.rel
        {
            self.relative(inst, d.reg.file, rel, at(d.span, inst), true);
        }

        // Components read beyond the declaration.
        for (k, s) in inst.src.iter().enumerate() {
            if !s.reg.file.is_input() || s.rel.is_some() {
                continue;
            }
            let Some(decl) = p.io_decl(s.reg) else {
                continue;
            };
            let reads = inst.reads_of(k);
            let extra = reads.minus(decl.mask);
            if !extra.is_empty() && !decl.mask.is_all() {
                self.push(
                    err(
                        "E2113",
                        format!(
                            "reads `{}.{}`, which its dcl does not declare",
                            reg_name(s.reg),
                            mask_text(extra)
                        ),
                        at(s.span, inst),
                    )
                    .with_related(decl.span, "declared here")
                    .with_hint(format!(
                        "declare more components (`dcl {}.{}`) or change the swizzle",
                        reg_name(s.reg),
                        mask_text(decl.mask.union(reads))
                    )),
                );
            }
        }
    }

    fn relative(&mut self, inst: &Inst, file: RegFile, rel: &RelAddr, span: Span, dst: bool) {
        let prof = self.p.profile;
        let lp = rel.reg.file == RegFile::Loop;
        let ok = match prof {
            Profile::Vs1_1 => file == RegFile::Const && !lp && rel.comp == 0 && !dst,
            Profile::Vs2_0 | Profile::Vs2_x => file == RegFile::Const && !dst,
            Profile::Vs3_0 => match file {
                RegFile::Const | RegFile::Input => !dst,
                RegFile::Output => dst && lp,
                _ => false,
            },
            Profile::Ps3_0 => file == RegFile::Input && lp && !dst,
            _ => false,
        };
        if !ok {
            let note = match prof {
                Profile::Vs1_1 => "vs_1_1 indexes only constants, with a0.x",
                Profile::Vs2_0 | Profile::Vs2_x => {
                    "vs_2_0/vs_2_x index only constants, with a0 or aL"
                }
                Profile::Vs3_0 => "vs_3_0 indexes c# and v# (a0 or aL) and o# (aL)",
                Profile::Ps3_0 => "ps_3_0 indexes only v#, with aL",
                _ => "pixel shaders before ps_3_0 have no relative addressing",
            };
            self.push(
                err(
                    "E2116",
                    format!("relative addressing not allowed here in {prof}"),
                    span,
                )
                .with_note(note),
            );
        }
        let _ = inst;
    }

    fn operand_restrictions(&mut self, inst: &Inst, opn: &str) {
        let prof = self.p.profile;
        let op = inst.op;
        let Some(d) = &inst.dst else { return };
        let dspan = at(d.span, inst);
        let bad = |msg: String, span: Span, out: &mut Vec<Diagnostic>| {
            out.push(err("E2109", msg, span).with_label("not allowed"));
        };
        let temp_dst =
            matches!(op, Op::Xpd | Op::Nrm | Op::Sincos) || (op == Op::Pow && is_ps(prof));
        if temp_dst && d.reg.file != RegFile::Temp {
            bad(
                format!("`{opn}` must write a temporary register"),
                dspan,
                &mut self.out,
            );
        }
        let same = |s: &Src| s.reg == d.reg && s.rel.is_none();
        match op {
            Op::Xpd => {
                for s in &inst.src {
                    if same(s) {
                        bad(
                            format!(
                                "crs: source `{}` is the destination register",
                                reg_name(s.reg)
                            ),
                            at(s.span, inst),
                            &mut self.out,
                        );
                    }
                    if !s.swizzle.is_identity() {
                        bad(
                            "crs sources take no swizzle".into(),
                            at(s.span, inst),
                            &mut self.out,
                        );
                    }
                }
            }
            Op::Nrm if inst.src.first().is_some_and(same) => {
                bad(
                    "nrm: the destination cannot be the source register".into(),
                    dspan,
                    &mut self.out,
                );
            }
            Op::Pow if is_ps(prof) && inst.src.get(1).is_some_and(same) => {
                bad(
                    "pow: the destination cannot be the exponent's register".into(),
                    dspan,
                    &mut self.out,
                );
            }
            Op::M3x2 | Op::M3x3 | Op::M3x4 | Op::M4x3 | Op::M4x4 => {
                let rows = op.matrix_rows().unwrap_or(1) as u16;
                if inst.src.first().is_some_and(same) {
                    bad(
                        format!("{opn}: the destination cannot be the vector's register"),
                        dspan,
                        &mut self.out,
                    );
                }
                if let Some(m) = inst.src.get(1) {
                    if m.negate || !m.swizzle.is_identity() || m.abs {
                        bad(
                            format!("{opn}: the matrix operand takes no modifier or swizzle"),
                            at(m.span, inst),
                            &mut self.out,
                        );
                    }
                    if m.reg.file == d.reg.file
                        && d.reg.index >= m.reg.index
                        && d.reg.index < m.reg.index.saturating_add(rows)
                    {
                        bad(
                            format!("{opn}: the destination is one of the matrix rows"),
                            dspan,
                            &mut self.out,
                        );
                    }
                }
            }
            Op::Sincos if !sm3(prof) => {
                if let (Some(a), Some(b)) = (inst.src.get(1), inst.src.get(2))
                    && (a.reg.file != RegFile::Const
                        || b.reg.file != RegFile::Const
                        || a.reg == b.reg)
                {
                    bad(
                        format!(
                            "sincos in {prof}: sources 1 and 2 are two different c# holding D3DSINCOSCONST1 and 2"
                        ),
                        at(a.span.join(b.span), inst),
                        &mut self.out,
                    );
                }
            }
            Op::Sgn => {
                if let (Some(a), Some(b)) = (inst.src.get(1), inst.src.get(2))
                    && (a.reg.file != RegFile::Temp
                        || b.reg.file != RegFile::Temp
                        || a.reg == b.reg)
                {
                    bad(
                        "sgn: sources 1 and 2 are two different scratch temporaries".into(),
                        at(a.span.join(b.span), inst),
                        &mut self.out,
                    );
                }
            }
            Op::Mova if d.reg.file != RegFile::Address => {
                bad(
                    "mova writes the address register a0".into(),
                    dspan,
                    &mut self.out,
                );
            }
            _ => {}
        }
    }

    fn abs_consistency(&mut self) {
        if !sm3(self.p.profile) {
            return;
        }
        let mut with = None;
        let mut without = None;
        for inst in &self.p.insts {
            for s in &inst.src {
                if s.reg.file == RegFile::Const {
                    let slot = if s.abs { &mut with } else { &mut without };
                    slot.get_or_insert(at(s.span, inst));
                }
            }
        }
        if let (Some(a), Some(b)) = (with, without) {
            self.push(
                err(
                    "E2111",
                    "constant registers are read both with and without `_abs`",
                    a,
                )
                .with_related(b, "read without _abs here")
                .with_note("in 3_0 shaders either every c# read uses _abs or none does"),
            );
        }
    }

    // ---- flow control ------------------------------------------------------------------

    fn flow(&mut self) {
        let p = self.p;
        let prof = p.profile;
        let loop_max = if prof == Profile::Vs2_0 { 1 } else { 4 };
        let if_max = if prof == Profile::Vs2_0 { 16 } else { 24 };
        #[derive(PartialEq, Clone, Copy)]
        enum B {
            If,
            Else,
            Loop,
            Rep,
        }
        // Each open block with the counts of open (loop or rep, if, loop) blocks including
        // itself, so that depths are known in constant time.
        let mut stack: Vec<(B, Span, [usize; 3])> = Vec::new();
        let counts = |stack: &Vec<(B, Span, [usize; 3])>| stack.last().map_or([0; 3], |e| e.2);
        let open = |stack: &mut Vec<(B, Span, [usize; 3])>, b: B, sp: Span| {
            let mut c = counts(stack);
            match b {
                B::Loop => {
                    c[0] += 1;
                    c[2] += 1;
                }
                B::Rep => c[0] += 1,
                B::If | B::Else => c[1] += 1,
            }
            stack.push((b, sp, c));
        };
        let mut main_done = false;
        let mut in_sub = false;
        let mut labels: std::collections::HashSet<u16> = std::collections::HashSet::new();
        for inst in &p.insts {
            if inst.op == Op::Label
                && let Some(s) = inst.src.first()
                && !labels.insert(s.reg.index)
            {
                self.push(err(
                    "E2114",
                    format!("label l{} is defined twice", s.reg.index),
                    inst.span,
                ));
            }
        }
        for inst in &p.insts {
            let sp = inst.span;
            let [loops, ifs, _] = counts(&stack);
            if main_done && !in_sub && inst.op != Op::Label {
                self.push(
                    err("E2114", "instruction after `ret` outside a subroutine", sp).with_hint(
                        "the main program ends with ret; subroutines start with label l#",
                    ),
                );
                main_done = false; // report once per stretch
                in_sub = true;
            }
            match inst.op {
                Op::If | Op::Ifc(_) => {
                    if ifs + 1 > if_max {
                        self.push(err(
                            "E2114",
                            format!("if blocks nested deeper than {if_max}"),
                            sp,
                        ));
                    }
                    if prof == Profile::Vs2_0
                        && inst.op == Op::If
                        && inst
                            .src
                            .first()
                            .is_some_and(|s| s.reg.file != RegFile::ConstBool)
                    {
                        self.push(err("E2114", "vs_2_0 `if` tests a boolean constant b#", sp));
                    }
                    open(&mut stack, B::If, sp);
                }
                Op::Else => match stack.last() {
                    Some((B::If, _, _)) => {
                        stack.last_mut().unwrap().0 = B::Else;
                    }
                    Some((B::Else, o, _)) => {
                        let o = *o;
                        self.push(
                            err("E2114", "second `else` in one if block", sp)
                                .with_related(o, "if block"),
                        );
                    }
                    _ => self.push(err("E2114", "`else` without an open `if`", sp)),
                },
                Op::Endif => self.close(&mut stack, sp, "endif", &[B::If, B::Else]),
                Op::Loop | Op::Rep => {
                    if loops + 1 > loop_max {
                        self.push(err(
                            "E2114",
                            format!("loop/rep blocks nested deeper than {loop_max} in {prof}"),
                            sp,
                        ));
                    }
                    open(
                        &mut stack,
                        if inst.op == Op::Loop { B::Loop } else { B::Rep },
                        sp,
                    );
                }
                Op::Endloop => self.close(&mut stack, sp, "endloop", &[B::Loop]),
                Op::Endrep => self.close(&mut stack, sp, "endrep", &[B::Rep]),
                Op::Break | Op::Breakc(_) | Op::Breakp if loops == 0 => {
                    self.push(err("E2114", "`break` outside a loop or rep block", sp));
                }
                Op::Label => {
                    if !stack.is_empty() {
                        self.push(err("E2114", "`label` inside a flow-control block", sp));
                    } else if !main_done && !in_sub {
                        self.push(
                            err("E2114", "`label` before the main program's `ret`", sp).with_hint(
                                "end the main program with ret, then write the subroutines",
                            ),
                        );
                    }
                    in_sub = true;
                    main_done = false;
                }
                Op::Ret => {
                    if !stack.is_empty() {
                        self.push(err("E2114", "`ret` inside a flow-control block", sp));
                    }
                    if in_sub {
                        in_sub = false;
                    }
                    main_done = true;
                }
                Op::Call | Op::Callnz => {
                    if let Some(s) = inst.src.first()
                        && !labels.contains(&s.reg.index)
                    {
                        self.push(err(
                            "E2114",
                            format!("call to undefined label l{}", s.reg.index),
                            at(s.span, inst),
                        ));
                    }
                }
                _ => {}
            }
            // Loop counter.
            let uses_al = inst.src.iter().enumerate().any(|(k, s)| {
                (s.reg.file == RegFile::Loop && !(inst.op == Op::Loop && k == 0))
                    || s.rel.is_some_and(|r| r.reg.file == RegFile::Loop)
            }) || inst
                .dst
                .as_ref()
                .is_some_and(|d| d.rel.is_some_and(|r| r.reg.file == RegFile::Loop));
            let in_loop = counts(&stack)[2] > usize::from(inst.op == Op::Loop);
            if uses_al && !in_loop && !in_sub {
                self.push(
                    err("E2120", "aL is used outside a loop block", sp)
                        .with_hint("aL holds the counter of the enclosing loop aL, i# block"),
                );
            }
        }
        for (b, sp, _) in stack {
            let what = match b {
                B::If | B::Else => "if block is never closed with endif",
                B::Loop => "loop block is never closed with endloop",
                B::Rep => "rep block is never closed with endrep",
            };
            self.push(err("E2114", what, sp));
        }
        if in_sub && !main_done && p.insts.iter().any(|i| i.op == Op::Label) {
            let last = p.insts.last().map_or(Span::NONE, |i| i.span);
            self.push(err(
                "E2114",
                "the last subroutine does not end with `ret`",
                last,
            ));
        }
    }

    fn close<B: PartialEq + Copy>(
        &mut self,
        stack: &mut Vec<(B, Span, [usize; 3])>,
        sp: Span,
        what: &str,
        want: &[B],
    ) {
        match stack.last() {
            Some((b, _, _)) if want.contains(b) => {
                stack.pop();
            }
            Some((_, o, _)) => {
                let o = *o;
                self.push(
                    err(
                        "E2114",
                        format!("`{what}` closes a different kind of block"),
                        sp,
                    )
                    .with_related(o, "innermost open block"),
                );
                stack.pop();
            }
            None => self.push(err("E2114", format!("`{what}` without an open block"), sp)),
        }
    }

    // ---- dependent texture reads ---------------------------------------------------------

    fn dependent_reads(&mut self, limits: &Limits) {
        let p = self.p;
        if !matches!(p.profile, Profile::Ps2_0 | Profile::Ps2_x) {
            return;
        }
        let Some(levels) = limits.max_tex_indirections else {
            return;
        };
        let max_order = levels.saturating_sub(1) as i32;
        for (inst, order) in p.insts.iter().zip(texture_read_orders(p)) {
            let Some(order) = order.filter(|&o| o > max_order) else {
                continue;
            };
            self.push(
                err(
                    "E2105",
                    format!("this texture read is dependent to order {order}; {} allows {max_order}", p.profile),
                    inst.span,
                )
                .with_note("a read is first-order when its coordinate is r# or its destination was written before; each texture result it depends on adds one")
                .with_note(format!("limits: {}", limits.source)),
            );
        }
    }

    // ---- uninitialized temporaries ---------------------------------------------------------

    fn uninitialized(&mut self) {
        let p = self.p;
        if p.insts.iter().any(|i| i.op.is_flow()) {
            return;
        }
        let mut written = vec![WriteMask::NONE; p.num_temps as usize];
        let mut reported = vec![false; p.num_temps as usize];
        let mut a0 = WriteMask::NONE;
        for inst in &p.insts {
            for (k, s) in inst.src.iter().enumerate() {
                if let Some(rel) = &s.rel
                    && rel.reg.file == RegFile::Address
                    && !a0.has(rel.comp)
                {
                    self.push(
                        err("E2117", "a0 is used before it is written", at(s.span, inst))
                            .with_hint("set it with mova (vs_1_1: mov a0.x, ...) first"),
                    );
                    a0 = WriteMask::ALL;
                }
                if s.reg.file != RegFile::Temp || (inst.op == Op::Sgn && k > 0) {
                    continue;
                }
                let rows = if k == 1 {
                    inst.op.matrix_rows().unwrap_or(1)
                } else {
                    1
                };
                let reads = inst.reads_of(k);
                for r in 0..rows as usize {
                    let i = s.reg.index as usize + r;
                    let Some(w) = written.get(i) else { continue };
                    let missing = reads.minus(*w);
                    if !missing.is_empty() && !reported[i] {
                        reported[i] = true;
                        self.push(
                            err(
                                "E2117",
                                format!("reads `r{i}.{}` before it is written", mask_text(missing)),
                                at(s.span, inst),
                            )
                            .with_label("uninitialized"),
                        );
                    }
                }
            }
            if let Some(d) = &inst.dst {
                match d.reg.file {
                    RegFile::Temp => {
                        if let Some(w) = written.get_mut(d.reg.index as usize) {
                            *w = w.union(d.mask);
                        }
                    }
                    RegFile::Address => a0 = a0.union(d.mask),
                    _ => {}
                }
            }
            if inst.op == Op::Sgn {
                for s in inst.src.iter().skip(1) {
                    if let Some(w) = written.get_mut(s.reg.index as usize) {
                        *w = WriteMask::ALL;
                    }
                }
            }
        }
    }

    // ---- required outputs ----------------------------------------------------------------

    fn outputs(&mut self) {
        let p = self.p;
        let writes = |f: RegFile, i: Option<u16>| {
            p.insts.iter().any(|x| {
                x.dst
                    .as_ref()
                    .is_some_and(|d| d.reg.file == f && i.is_none_or(|i| d.reg.index == i))
            })
        };
        let whole = p.insts.first().map_or(Span::new(0, 0), |i| i.span);
        match p.profile {
            Profile::Vs1_1 | Profile::Vs2_0 | Profile::Vs2_x
                if !writes(RegFile::RastOut, Some(0)) =>
            {
                self.push(
                    err("E2118", "the vertex shader never writes oPos", whole).with_hint(
                        "every vertex shader must write the position, e.g. `m4x4 oPos, v0, c0`",
                    ),
                );
            }
            Profile::Ps2_0 | Profile::Ps2_x
                if !writes(RegFile::ColorOut, None) && !writes(RegFile::DepthOut, None) =>
            {
                self.push(Diagnostic::warning(
                    "W2119",
                    "the pixel shader writes no colour (oC#)",
                    whole,
                ));
            }
            _ => {}
        }
    }
}

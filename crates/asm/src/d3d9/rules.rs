//! Per-version operand rules of Direct3D 9 shader assembly (`E21xx`), over the IR.
//!
//! The front end runs these after lowering (through [`super::check`]), and so does every
//! test of an optimizer pass (through [`crate::validate::check`]): a pass cannot produce a
//! program the assembler would reject. Sources, per rule, are the pages of the DirectX 9
//! asm shader reference: the "Registers - `<model>`" tables (read ports: "the number of
//! different registers of each register type that can be read in a single instruction";
//! which registers need `dcl`; relative addressing), "Source Register Swizzling" (ps),
//! "Modifiers for ps_2_0 and Above", "Instruction modifiers (vs)", "Source Register
//! Modifiers" (`_abs` is 3_0 only) and each instruction's page (`texld - ps_2_0 and up`,
//! `sincos`, `crs`, `nrm`, `m3x2`…`m4x4`, `frc - vs`, `rcp`/`rsq`/`exp`/`log`/`pow`,
//! `dp2add`, `sgn`, `mova`, `loop`).
//!
//! ps_2_x/3_0 constant reads: the ps_2_x register page of the DirectX 9.0 SDK states that
//! an instruction may read at most two different `c#` registers; vertex shaders read one.

use super::error::{D3d9Error, FlowBlock, Spanned};
use super::regs;
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::Op;
use crate::profile::{Limits, Profile};
use std::collections::HashSet;

pub fn check(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    let mut r = Rules::new(p);
    r.declarations();
    r.local();
    r.dependent_reads(limits);
    r.uninitialized();
    r.outputs();
    r.finish()
}

/// The rules that look at one instruction at a time (and flow structure), for a program
/// the front end could only partly lower: the errors come out together with the syntax
/// errors. Whole-program data-flow rules are left out, since dropped lines would make
/// them report nonsense.
pub fn check_partial(p: &Program) -> Vec<Diagnostic> {
    let mut r = Rules::new(p);
    r.local();
    r.finish()
}

/// The operand rules of one instruction of `p` (read ports, swizzles, modifiers, masks,
/// operand kinds), which need not be in `p` yet: what a pass needs to vet a rewritten
/// instruction without re-checking the whole program. Program-wide rules (declarations,
/// dependent reads, flow structure, uninitialised reads) are left to [`check`].
pub fn check_inst(p: &Program, inst: &Inst) -> Vec<Diagnostic> {
    let mut r = Rules::new(p);
    r.instruction(inst);
    r.finish()
}

struct Rules<'a> {
    p: &'a Program,
    out: Vec<Spanned>,
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

impl<'a> Rules<'a> {
    fn new(p: &'a Program) -> Rules<'a> {
        Rules { p, out: Vec::new() }
    }

    fn push(&mut self, e: D3d9Error, span: Span) {
        self.out.push(e.at(span));
    }

    fn finish(self) -> Vec<Diagnostic> {
        self.out.iter().map(Spanned::to_diagnostic).collect()
    }

    fn local(&mut self) {
        for inst in &self.p.insts {
            self.instruction(inst);
        }
        self.abs_consistency();
        self.flow();
    }

    // ---- declarations ---------------------------------------------------------------

    fn declarations(&mut self) {
        self.io_declarations();
        self.const_bindings();
        self.sampler_declarations();
    }

    fn io_declarations(&mut self) {
        let profile = self.p.profile;
        for d in &self.p.io {
            let reg = d.reg;
            if regs::requires_dcl(reg, profile) && !d.explicit {
                self.push(D3d9Error::ImplicitDecl { reg, profile }, d.span);
            }
            let ok = match reg.file {
                RegFile::Input if matches!(profile, Profile::Ps2_0 | Profile::Ps2_x) => {
                    d.semantic == Semantic::Color(reg.index as u8)
                }
                RegFile::Input | RegFile::Output => regs::semantic_usage(d.semantic).is_some(),
                RegFile::Misc => {
                    d.semantic
                        == if reg.index == 0 {
                            Semantic::WindowPos
                        } else {
                            Semantic::Face
                        }
                }
                _ => regs::implied_semantic(reg) == Some(d.semantic),
            };
            if !ok {
                let semantic = d.semantic;
                self.push(
                    D3d9Error::BadSemantic {
                        reg,
                        semantic,
                        profile,
                    },
                    d.span,
                );
            }
            if reg == Reg::new(RegFile::Misc, 0)
                && ![WriteMask::X, WriteMask::Y, WriteMask::XY].contains(&d.mask)
            {
                self.push(D3d9Error::VposMask, d.span);
            }
        }
    }

    fn const_bindings(&mut self) {
        for (slot, c) in self.p.consts.iter().enumerate() {
            let ok = match &c.binding {
                ConstBinding::Env(n) => *n as usize == slot,
                ConstBinding::Literal(l) => l.form == LiteralForm::Vector(4),
                _ => false,
            };
            if !ok {
                let binding = Box::new(c.binding.clone());
                self.push(D3d9Error::BadConstBinding { slot, binding }, c.span);
            }
        }
    }

    fn sampler_declarations(&mut self) {
        let p = self.p;
        for inst in &p.insts {
            if let Some(t) = inst.tex {
                let unit = sampler_index(p.stage(), t.unit);
                match p.samplers.iter().find(|s| s.unit == t.unit) {
                    None => self.push(D3d9Error::SamplerNotDeclared { unit }, inst.span),
                    Some(s) if s.target != t.target => {
                        let e = D3d9Error::SamplerTargetMismatch {
                            unit,
                            used: t.target,
                            declared: s.target,
                            decl: s.span,
                        };
                        self.push(e, inst.span);
                    }
                    _ => {}
                }
            }
        }
        for s in &p.samplers {
            if regs::target_word(s.target).is_none() {
                let (unit, target) = (sampler_index(p.stage(), s.unit), s.target);
                self.push(D3d9Error::SamplerTarget { unit, target }, s.span);
            }
        }
    }

    // ---- one instruction -------------------------------------------------------------

    fn instruction(&mut self, inst: &Inst) {
        let data = data_srcs(self.p.profile, inst);
        self.read_ports(inst, &data);
        self.replicate_swizzles(inst);
        self.ps2_0_swizzles(inst);
        self.texture_operands(inst);
        self.sat_and_pp(inst);
        self.write_masks(inst);
        self.operand_restrictions(inst);
        self.data_files(inst, &data);
        self.abs_modifiers(inst);
        self.predication(inst);
        self.relative_addressing(inst);
        self.declared_components(inst);
    }

    /// Distinct registers of one type an instruction reads.
    fn read_ports(&mut self, inst: &Inst, data: &[usize]) {
        let profile = self.p.profile;
        for (file, max) in [
            (RegFile::Const, if is_ps(profile) { 2 } else { 1 }),
            (RegFile::Input, 1),
            (RegFile::TexCoord, 1),
        ] {
            let mut seen: Vec<(Reg, Option<RelAddr>, Span)> = Vec::new();
            for &k in data {
                let s = &inst.src[k];
                if s.reg.file == file
                    && !seen.iter().any(|(r, rel, _)| *r == s.reg && *rel == s.rel)
                {
                    seen.push((s.reg, s.rel, at(s.span, inst)));
                }
            }
            if seen.len() > max {
                let (reg, _, span) = seen[max];
                let e = D3d9Error::ReadPorts {
                    op: inst.op,
                    profile,
                    file,
                    count: seen.len(),
                    max,
                    reg,
                    others: seen[..max].iter().map(|x| x.2).collect(),
                };
                self.push(e, span);
            }
        }
    }

    /// Replicate swizzles of scalar operands.
    fn replicate_swizzles(&mut self, inst: &Inst) {
        let (op, profile) = (inst.op, self.p.profile);
        let scalar: &[usize] = match op {
            Op::Rcp | Op::Rsq | Op::Ex2 | Op::Lg2 | Op::Exp | Op::Log => &[0],
            Op::Pow => &[0, 1],
            Op::Sincos => &[0],
            Op::Dp2add => &[2],
            // "if_comp", "break_comp": both sources need a replicate swizzle.
            Op::Ifc(_) | Op::Breakc(_) => &[0, 1],
            _ => &[],
        };
        for &src in scalar {
            let Some(s) = inst.src.get(src) else { continue };
            let identity_ok = !is_ps(profile)
                && !matches!(op, Op::Sincos | Op::Dp2add | Op::Ifc(_) | Op::Breakc(_));
            if !(s.swizzle.is_replicate() || identity_ok && s.swizzle.is_identity()) {
                self.push(
                    D3d9Error::NeedsReplicate { op, profile, src },
                    at(s.span, inst),
                );
            }
        }
    }

    fn ps2_0_swizzles(&mut self, inst: &Inst) {
        if self.p.profile.ps2_0_swizzle_rule() != crate::profile::SwizzleRule::Always {
            return;
        }
        for s in &inst.src {
            if !ps2_0_swizzle(s.swizzle) {
                let swizzle = s.swizzle;
                self.push(D3d9Error::Ps20Swizzle { swizzle }, at(s.span, inst));
            }
        }
    }

    /// Destination and coordinate of pixel shader texture instructions, and `texkill`.
    fn texture_operands(&mut self, inst: &Inst) {
        let (op, profile) = (inst.op, self.p.profile);
        if op.is_texture() && is_ps(profile) {
            if !sm3(profile)
                && let Some(d) = &inst.dst
                && (d.reg.file != RegFile::Temp || !d.mask.is_all())
            {
                self.push(D3d9Error::TexWholeTemp { op, profile }, at(d.span, inst));
            }
            if let Some(s) = inst.src.first() {
                let file_ok =
                    sm3(profile) || matches!(s.reg.file, RegFile::Temp | RegFile::TexCoord);
                if !file_ok {
                    self.push(D3d9Error::TexCoordFile { op, profile }, at(s.span, inst));
                }
                if s.negate || s.abs || (!sm3(profile) && !s.swizzle.is_identity()) {
                    self.push(
                        D3d9Error::TexCoordModifier { op, profile },
                        at(s.span, inst),
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
            self.push(D3d9Error::TexkillOperand, at(s.span, inst));
        }
    }

    fn sat_and_pp(&mut self, inst: &Inst) {
        let (op, profile) = (inst.op, self.p.profile);
        let ps = is_ps(profile);
        if inst.sat {
            let why = if !ps && profile != Profile::Vs3_0 {
                Some(D3d9Error::SatInVertex { profile })
            } else if matches!(op, Op::Frc | Op::Sincos | Op::Mova | Op::Texkil)
                || op.is_texture()
                || op.is_flow()
                || matches!(op, Op::Setp(_))
            {
                Some(D3d9Error::SatOnOp { op, profile })
            } else if matches!(profile, Profile::Ps2_0 | Profile::Ps2_x)
                && inst.dst.as_ref().is_some_and(|d| d.reg.file.is_output())
            {
                Some(D3d9Error::SatOnOutput { profile })
            } else {
                None
            };
            if let Some(e) = why {
                self.push(e, inst.span);
            }
        }
        if inst.pp && !ps {
            self.push(D3d9Error::PpInVertex, inst.span);
        }
    }

    fn write_masks(&mut self, inst: &Inst) {
        let (op, profile) = (inst.op, self.p.profile);
        let Some(d) = &inst.dst else { return };
        let m = d.mask;
        let bad = match op {
            Op::Sincos => ![WriteMask::X, WriteMask::Y, WriteMask::XY].contains(&m),
            Op::Xpd => m.has(3),
            Op::M3x2 => m != WriteMask::XY,
            Op::M3x3 | Op::M4x3 => m != WriteMask::XYZ,
            Op::M3x4 | Op::M4x4 => !m.is_all(),
            Op::Frc => profile == Profile::Vs1_1 && m != WriteMask::Y && m != WriteMask::XY,
            _ => false,
        };
        let span = at(d.span, inst);
        if bad {
            self.push(D3d9Error::MaskNotAllowed { mask: m, op }, span);
        }
        let reg = d.reg;
        let scalar_out = matches!(
            (reg.file, reg.index),
            (RegFile::RastOut, 1 | 2) | (RegFile::DepthOut, _)
        );
        if scalar_out && m != WriteMask::X {
            self.push(D3d9Error::ScalarRegisterMask { reg }, span);
        }
        if reg.file == RegFile::Address && profile == Profile::Vs1_1 && m != WriteMask::X {
            self.push(D3d9Error::Vs11AddressMask, span);
        }
        if reg.file == RegFile::Output
            && let Some(decl) = self.p.io_decl(reg)
            && !m.minus(decl.mask).is_empty()
        {
            let decl = decl.span;
            self.push(D3d9Error::WritesUndeclared { reg, decl }, span);
        }
    }

    /// Operand register restrictions (`E2109`).
    fn operand_restrictions(&mut self, inst: &Inst) {
        let (op, profile) = (inst.op, self.p.profile);
        let Some(d) = &inst.dst else { return };
        let dspan = at(d.span, inst);
        let temp_dst =
            matches!(op, Op::Xpd | Op::Nrm | Op::Sincos) || (op == Op::Pow && is_ps(profile));
        if temp_dst && d.reg.file != RegFile::Temp {
            self.push(D3d9Error::MustWriteTemp { op, profile }, dspan);
        }
        let same = |s: &Src| s.reg == d.reg && s.rel.is_none();
        match op {
            Op::Xpd => {
                for s in &inst.src {
                    if same(s) {
                        let reg = s.reg;
                        self.push(D3d9Error::CrsSourceIsDst { reg }, at(s.span, inst));
                    }
                    if !s.swizzle.is_identity() {
                        self.push(D3d9Error::CrsSwizzle, at(s.span, inst));
                    }
                }
            }
            Op::Nrm if inst.src.first().is_some_and(same) => {
                self.push(D3d9Error::NrmSameRegister, dspan);
            }
            Op::Pow if is_ps(profile) && inst.src.get(1).is_some_and(same) => {
                self.push(D3d9Error::PowSameRegister, dspan);
            }
            Op::M3x2 | Op::M3x3 | Op::M3x4 | Op::M4x3 | Op::M4x4 => self.matrix_operands(inst, d),
            Op::Sincos if !sm3(profile) => {
                if let (Some(a), Some(b)) = (inst.src.get(1), inst.src.get(2))
                    && (a.reg.file != RegFile::Const
                        || b.reg.file != RegFile::Const
                        || a.reg == b.reg)
                {
                    let span = at(a.span.join(b.span), inst);
                    self.push(D3d9Error::SincosConstants { profile }, span);
                }
            }
            Op::Sgn => {
                if let (Some(a), Some(b)) = (inst.src.get(1), inst.src.get(2))
                    && (a.reg.file != RegFile::Temp
                        || b.reg.file != RegFile::Temp
                        || a.reg == b.reg)
                {
                    self.push(D3d9Error::SgnScratch, at(a.span.join(b.span), inst));
                }
            }
            Op::Mova if d.reg.file != RegFile::Address => {
                self.push(D3d9Error::MovaDestination, dspan);
            }
            _ => {}
        }
    }

    /// The vector, matrix and destination of `m3x2` … `m4x4`.
    fn matrix_operands(&mut self, inst: &Inst, d: &Dst) {
        let (op, profile) = (inst.op, self.p.profile);
        let dspan = at(d.span, inst);
        let rows = op.matrix_rows().unwrap_or(1) as u16;
        if inst
            .src
            .first()
            .is_some_and(|s| s.reg == d.reg && s.rel.is_none())
        {
            self.push(D3d9Error::MatrixVectorIsDst { op, profile }, dspan);
        }
        if let Some(m) = inst.src.get(1) {
            if m.negate || !m.swizzle.is_identity() || m.abs {
                self.push(D3d9Error::MatrixModifier { op, profile }, at(m.span, inst));
            }
            if m.reg.file == d.reg.file
                && d.reg.index >= m.reg.index
                && d.reg.index < m.reg.index.saturating_add(rows)
            {
                self.push(D3d9Error::MatrixRowIsDst { op, profile }, dspan);
            }
        }
    }

    /// Register files readable as data, and writable by this op.
    fn data_files(&mut self, inst: &Inst, data: &[usize]) {
        let (op, profile) = (inst.op, self.p.profile);
        for &k in data {
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
                let reg = s.reg;
                self.push(
                    D3d9Error::NotDataSource { reg, op, profile },
                    at(s.span, inst),
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
                let reg = d.reg;
                self.push(
                    D3d9Error::NotWritableBy { reg, op, profile },
                    at(d.span, inst),
                );
            }
        }
    }

    fn abs_modifiers(&mut self, inst: &Inst) {
        let profile = self.p.profile;
        for s in &inst.src {
            if s.abs && !sm3(profile) {
                self.push(D3d9Error::AbsNotSm3 { profile }, at(s.span, inst));
            }
        }
    }

    fn predication(&mut self, inst: &Inst) {
        let (op, profile) = (inst.op, self.p.profile);
        let has_p0 = regs::file_in_profile(RegFile::Predicate, profile);
        if let Some(pr) = &inst.pred {
            if !has_p0 {
                self.push(D3d9Error::NoPredication { profile }, inst.span);
            } else if op.is_flow() {
                self.push(D3d9Error::FlowPredicated { op, profile }, inst.span);
            } else if op == Op::Sincos && !sm3(profile) && !pr.swizzle.is_replicate() {
                self.push(D3d9Error::SincosPredicate, inst.span);
            }
        }
        for s in &inst.src {
            if s.reg.file == RegFile::Predicate && matches!(op, Op::If | Op::Callnz) && !has_p0 {
                self.push(D3d9Error::NoPredicateRegister { profile }, at(s.span, inst));
            }
        }
    }

    fn relative_addressing(&mut self, inst: &Inst) {
        for s in &inst.src {
            if let Some(rel) = &s.rel {
                self.relative(s.reg.file, rel, at(s.span, inst), false);
            }
        }
        if let Some(d) = &inst.dst
            && let Some(rel) = &d.rel
        {
            self.relative(d.reg.file, rel, at(d.span, inst), true);
        }
    }

    fn relative(&mut self, file: RegFile, rel: &RelAddr, span: Span, dst: bool) {
        let profile = self.p.profile;
        let lp = rel.reg.file == RegFile::Loop;
        let ok = match profile {
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
            self.push(D3d9Error::RelativeNotAllowed { profile }, span);
        }
    }

    /// Components read beyond the declaration.
    fn declared_components(&mut self, inst: &Inst) {
        for (k, s) in inst.src.iter().enumerate() {
            if !s.reg.file.is_input() || s.rel.is_some() {
                continue;
            }
            let Some(decl) = self.p.io_decl(s.reg) else {
                continue;
            };
            let reads = inst.reads_of(k);
            let extra = reads.minus(decl.mask);
            if !extra.is_empty() && !decl.mask.is_all() {
                let e = D3d9Error::ReadsUndeclared {
                    reg: s.reg,
                    extra,
                    wanted: decl.mask.union(reads),
                    decl: decl.span,
                };
                self.push(e, at(s.span, inst));
            }
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
        if let (Some(a), Some(without)) = (with, without) {
            self.push(D3d9Error::AbsMixed { without }, a);
        }
    }

    // ---- flow control ------------------------------------------------------------------

    fn flow(&mut self) {
        let p = self.p;
        let mut f = Flow::default();
        for inst in &p.insts {
            if inst.op == Op::Label
                && let Some(s) = inst.src.first()
                && !f.labels.insert(s.reg.index)
            {
                let label = s.reg.index;
                self.push(D3d9Error::LabelTwice { label }, inst.span);
            }
        }
        for inst in &p.insts {
            let sp = inst.span;
            if f.main_done && !f.in_sub && inst.op != Op::Label {
                self.push(D3d9Error::AfterRet, sp);
                f.main_done = false; // report once per stretch
                f.in_sub = true;
            }
            self.flow_inst(&mut f, inst);
            self.loop_counter(&f, inst);
        }
        for &(block, sp, _) in &f.stack {
            self.push(D3d9Error::Unclosed { block }, sp);
        }
        if f.in_sub && !f.main_done && p.insts.iter().any(|i| i.op == Op::Label) {
            let last = p.insts.last().map_or(Span::NONE, |i| i.span);
            self.push(D3d9Error::SubroutineWithoutRet, last);
        }
    }

    /// Opens, closes and checks the blocks and subroutines one instruction affects.
    fn flow_inst(&mut self, f: &mut Flow, inst: &Inst) {
        let profile = self.p.profile;
        let loop_max = if profile == Profile::Vs2_0 { 1 } else { 4 };
        let if_max = if profile == Profile::Vs2_0 { 16 } else { 24 };
        let sp = inst.span;
        let [loops, ifs, _] = f.counts();
        match inst.op {
            Op::If | Op::Ifc(_) => {
                if ifs + 1 > if_max {
                    self.push(D3d9Error::IfDepth { max: if_max }, sp);
                }
                if profile == Profile::Vs2_0
                    && inst.op == Op::If
                    && inst
                        .src
                        .first()
                        .is_some_and(|s| s.reg.file != RegFile::ConstBool)
                {
                    self.push(D3d9Error::Vs20IfBool, sp);
                }
                f.open(FlowBlock::If, sp);
            }
            Op::Else => match f.stack.last_mut() {
                Some((b @ FlowBlock::If, _, _)) => *b = FlowBlock::Else,
                Some((FlowBlock::Else, open, _)) => {
                    let open = *open;
                    self.push(D3d9Error::SecondElse { open }, sp);
                }
                _ => self.push(D3d9Error::ElseWithoutIf, sp),
            },
            Op::Endif => self.close(f, sp, FlowBlock::If, &[FlowBlock::If, FlowBlock::Else]),
            Op::Loop | Op::Rep => {
                if loops + 1 > loop_max {
                    self.push(
                        D3d9Error::LoopDepth {
                            max: loop_max,
                            profile,
                        },
                        sp,
                    );
                }
                let block = if inst.op == Op::Loop {
                    FlowBlock::Loop
                } else {
                    FlowBlock::Rep
                };
                f.open(block, sp);
            }
            Op::Endloop => self.close(f, sp, FlowBlock::Loop, &[FlowBlock::Loop]),
            Op::Endrep => self.close(f, sp, FlowBlock::Rep, &[FlowBlock::Rep]),
            Op::Break | Op::Breakc(_) | Op::Breakp if loops == 0 => {
                self.push(D3d9Error::BreakOutsideLoop, sp);
            }
            Op::Label => {
                if !f.stack.is_empty() {
                    self.push(D3d9Error::LabelInBlock, sp);
                } else if !f.main_done && !f.in_sub {
                    self.push(D3d9Error::LabelBeforeRet, sp);
                }
                f.in_sub = true;
                f.main_done = false;
            }
            Op::Ret => {
                if !f.stack.is_empty() {
                    self.push(D3d9Error::RetInBlock, sp);
                }
                f.in_sub = false;
                f.main_done = true;
            }
            Op::Call | Op::Callnz => {
                if let Some(s) = inst.src.first()
                    && !f.labels.contains(&s.reg.index)
                {
                    let label = s.reg.index;
                    self.push(D3d9Error::UndefinedLabel { label }, at(s.span, inst));
                }
            }
            _ => {}
        }
    }

    /// `aL` is only defined inside a `loop` block (or a subroutine called from one).
    fn loop_counter(&mut self, f: &Flow, inst: &Inst) {
        let uses_al = inst.src.iter().enumerate().any(|(k, s)| {
            (s.reg.file == RegFile::Loop && !(inst.op == Op::Loop && k == 0))
                || s.rel.is_some_and(|r| r.reg.file == RegFile::Loop)
        }) || inst
            .dst
            .as_ref()
            .is_some_and(|d| d.rel.is_some_and(|r| r.reg.file == RegFile::Loop));
        let in_loop = f.counts()[2] > usize::from(inst.op == Op::Loop);
        if uses_al && !in_loop && !f.in_sub {
            self.push(D3d9Error::LoopCounterOutside, inst.span);
        }
    }

    fn close(&mut self, f: &mut Flow, sp: Span, closer: FlowBlock, want: &[FlowBlock]) {
        match f.stack.last() {
            Some((b, _, _)) if want.contains(b) => {
                f.stack.pop();
            }
            Some(&(_, open, _)) => {
                self.push(D3d9Error::WrongClose { closer, open }, sp);
                f.stack.pop();
            }
            None => self.push(D3d9Error::CloseWithoutOpen { closer }, sp),
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
        let max = levels.saturating_sub(1) as i32;
        for (inst, order) in p.insts.iter().zip(texture_read_orders(p)) {
            let Some(order) = order.filter(|&o| o > max) else {
                continue;
            };
            let e = D3d9Error::DependentRead {
                order,
                max,
                profile: p.profile,
                limits: limits.source.clone(),
            };
            self.push(e, inst.span);
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
                    self.push(D3d9Error::A0Uninitialized, at(s.span, inst));
                    a0 = WriteMask::ALL;
                }
                if s.reg.file != RegFile::Temp || (inst.op == Op::Sgn && k > 0) {
                    continue;
                }
                let rows = inst.src_rows(k);
                let reads = inst.reads_of(k);
                for r in 0..rows as usize {
                    let temp = s.reg.index as usize + r;
                    let Some(w) = written.get(temp) else { continue };
                    let missing = reads.minus(*w);
                    if !missing.is_empty() && !reported[temp] {
                        reported[temp] = true;
                        self.push(D3d9Error::Uninitialized { temp, missing }, at(s.span, inst));
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
                self.push(D3d9Error::NoPosition, whole);
            }
            Profile::Ps2_0 | Profile::Ps2_x
                if !writes(RegFile::ColorOut, None) && !writes(RegFile::DepthOut, None) =>
            {
                self.push(D3d9Error::NoColor, whole);
            }
            _ => {}
        }
    }
}

/// Open flow-control blocks and subroutine state, walked in program order.
#[derive(Default)]
struct Flow {
    /// Each open block with the counts of open (loop or rep, if, loop) blocks including
    /// itself, so that depths are known in constant time.
    stack: Vec<(FlowBlock, Span, [usize; 3])>,
    main_done: bool,
    in_sub: bool,
    labels: HashSet<u16>,
}

impl Flow {
    fn counts(&self) -> [usize; 3] {
        self.stack.last().map_or([0; 3], |e| e.2)
    }

    fn open(&mut self, block: FlowBlock, span: Span) {
        let mut c = self.counts();
        match block {
            FlowBlock::Loop => {
                c[0] += 1;
                c[2] += 1;
            }
            FlowBlock::Rep => c[0] += 1,
            FlowBlock::If | FlowBlock::Else => c[1] += 1,
        }
        self.stack.push((block, span, c));
    }
}

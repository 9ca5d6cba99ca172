//! Lowering: parsed statements to the IR [`Program`].
//!
//! Resolves register names against the version's register files, builds the side tables
//! (`def*` constants, `dcl` declarations, samplers) and one [`Inst`] per instruction.
//! It reports what it needs to build a well-formed IR (names, operand counts, operand
//! kinds, declarations); the per-version operand rules are [`super::rules`], run after.
//!
//! Conventions: `c#` slot = register number and `consts` is dense up to the highest
//! referenced or defined register (a `def` is a `Vector(4)` literal, anything else
//! `Env(#)`); a relative read `c[a0.x + n]` references the whole constant file, so then
//! `consts` covers every register of the profile's limit. `i#`/`b#` are dense likewise.
//! Explicit `dcl`s come first in `io`, in source order, followed by implicitly declared
//! registers in order of first use.

use super::error::{D3d9Error, MAX_ERRORS, Spanned, suggest};
use super::lexer::Line;
use super::parser::{Operand, PredTok, RegOperand, RelTok, Stmt, parse_line};
use super::regs::{self, DefKind, file_count, file_in_profile, parse_reg_name};
use crate::ir::*;
use crate::ops::Op;
use crate::profile::{Limits, Profile, src_count};

/// Operand kinds of the flow-control instructions.
const BOOL_OR_PREDICATE: &[RegFile] = &[RegFile::ConstBool, RegFile::Predicate];
const LABEL: &[RegFile] = &[RegFile::Label];

pub struct Lower<'a> {
    src: &'a str,
    profile: Profile,
    limits: &'a Limits,
    pub prog: Program,
    pub errors: Vec<Spanned>,
    error_count: usize,
    seen_inst: bool,
    first_inst_span: Span,
    defs: Vec<(u16, Span)>,
    max_c: Option<u32>,
    max_i: Option<u32>,
    max_b: Option<u32>,
    max_r: Option<u32>,
    uses_a0: bool,
    /// Some `c#` is read relatively: every constant register may be read.
    rel_const: bool,
    implicit: Vec<IoDecl>,
}

/// The modifier words of a `dcl_...` opcode.
#[derive(Default)]
struct DclWords {
    usage: Option<(String, u8, Span)>,
    target: Option<TexTarget>,
    centroid: bool,
    pp: bool,
}

impl<'a> Lower<'a> {
    pub fn new(src: &'a str, profile: Profile, limits: &'a Limits) -> Lower<'a> {
        Lower {
            src,
            profile,
            limits,
            prog: Program::new(profile),
            errors: Vec::new(),
            error_count: 0,
            seen_inst: false,
            first_inst_span: Span::NONE,
            defs: Vec::new(),
            max_c: None,
            max_i: None,
            max_b: None,
            max_r: None,
            uses_a0: false,
            rel_const: false,
            implicit: Vec::new(),
        }
    }

    pub fn error_count(&self) -> usize {
        self.error_count
    }

    fn report(&mut self, e: Spanned) {
        if !e.error.is_warning() {
            self.error_count += 1;
            if self.error_count > MAX_ERRORS {
                return;
            }
        }
        self.errors.push(e);
    }

    /// Lowers every line. The first line must be the version.
    pub fn run(&mut self, lines: &[Line]) {
        let mut header_done = false;
        for line in lines {
            if line.tokens.is_empty() {
                continue;
            }
            if self.error_count > MAX_ERRORS {
                break;
            }
            if !header_done {
                header_done = true;
                if self.header(line) {
                    continue;
                }
            }
            match parse_line(self.src, line) {
                Ok(stmt) => self.stmt(stmt),
                Err(e) => self.report(e),
            }
        }
        if !header_done {
            let profile = self.profile;
            self.report(D3d9Error::EmptyProgram { profile }.at(Span::new(0, 0)));
        }
        if self.error_count > MAX_ERRORS {
            let more = self.error_count - MAX_ERRORS;
            let end = Span::new(self.src.len(), self.src.len());
            self.errors.push(D3d9Error::TooManyErrors { more }.at(end));
        }
    }

    /// Checks the version line. Returns false when the line is not a version at all (it
    /// is then parsed as a statement after reporting).
    fn header(&mut self, line: &Line) -> bool {
        let t = line.tokens[0];
        let b = self.src.as_bytes();
        let mut end = t.start;
        while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_' || b[end] == b'.')
        {
            end += 1;
        }
        let word = self.src[t.start..end]
            .to_ascii_lowercase()
            .replace('.', "_");
        let span = Span::new(t.start, end);
        let found = Profile::ALL
            .into_iter()
            .find(|p| p.dialect() == Dialect::D3d9 && p.header() == word);
        let rest: Vec<_> = line.tokens.iter().filter(|x| x.start >= end).collect();
        let profile = self.profile;
        match found {
            Some(p) if p == profile => {}
            Some(found) => self.report(D3d9Error::VersionMismatch { found, profile }.at(span)),
            None => {
                let looks_like =
                    (word.starts_with("vs_") || word.starts_with("ps_")) && word.len() <= 8;
                if looks_like {
                    self.report(D3d9Error::UnsupportedVersion { word }.at(span));
                } else {
                    self.report(D3d9Error::MissingVersion { profile }.at(span));
                    return false;
                }
            }
        }
        if let Some(x) = rest.first() {
            let span = Span::new(x.start, rest.last().unwrap().end);
            self.report(D3d9Error::TextAfterVersion.at(span));
        }
        true
    }

    fn stmt(&mut self, s: Stmt) {
        let mut parts = s.op.split('_');
        let base = parts.next().unwrap_or("").to_string();
        let mods: Vec<&str> = parts.collect();
        if let Some(kind) = DefKind::from_word(&base) {
            if let Some(p) = &s.pred {
                self.report(D3d9Error::PredicatedDef.at(p.span));
            }
            if !mods.is_empty() {
                self.report(D3d9Error::DefModifiers { kind }.at(s.op_span));
            }
            return self.def(kind, &s);
        }
        match base.as_str() {
            "dcl" => {
                if let Some(p) = &s.pred {
                    self.report(D3d9Error::PredicatedDcl.at(p.span));
                }
                self.dcl(&mods, &s)
            }
            "vs" | "ps" => self.report(D3d9Error::MisplacedVersion.at(s.span)),
            _ => self.instruction(&base, &mods, &s),
        }
    }

    // ---- registers -----------------------------------------------------------------

    /// Resolves a register name to a register of a file present in this version.
    fn resolve(&mut self, name: &str, span: Span, allow_no_index: bool) -> Option<(Reg, bool)> {
        let p = self.profile;
        let Some((file, index)) = parse_reg_name(name, p) else {
            let name = name.to_string();
            self.report(D3d9Error::NotARegister { name, profile: p }.at(span));
            return None;
        };
        if !file_in_profile(file, p) {
            let shown = self.shown(name, span);
            self.report(
                D3d9Error::FileNotInProfile {
                    shown,
                    file,
                    profile: p,
                }
                .at(span),
            );
            return None;
        }
        let index = match index {
            Some(i) => i,
            None if allow_no_index
                && matches!(file, RegFile::Const | RegFile::Input | RegFile::Output) =>
            {
                return Some((Reg::new(file, 0), false));
            }
            None => {
                let name = name.to_string();
                self.report(D3d9Error::NeedsNumber { name }.at(span));
                return None;
            }
        };
        let count = file_count(file, p, self.limits);
        if index >= count {
            let e = D3d9Error::OutOfRange {
                shown: self.shown(name, span),
                file,
                count,
                profile: p,
                limits: self.limits.source.clone(),
            };
            self.report(e.at(span));
            return None;
        }
        Some((Reg::new(file, index as u16), true))
    }

    /// The register name as the author wrote it (falls back to the lowercased name).
    fn shown(&self, name: &str, span: Span) -> String {
        self.src
            .get(span.range())
            .filter(|t| t.eq_ignore_ascii_case(name))
            .unwrap_or(name)
            .to_string()
    }

    fn note_use(&mut self, reg: Reg, rows: u32) {
        let hi = reg.index as u32 + rows.max(1) - 1;
        let slot = match reg.file {
            RegFile::Const => &mut self.max_c,
            RegFile::ConstInt => &mut self.max_i,
            RegFile::ConstBool => &mut self.max_b,
            RegFile::Temp => &mut self.max_r,
            RegFile::Address => {
                self.uses_a0 = true;
                return;
            }
            _ => return,
        };
        *slot = Some(slot.map_or(hi, |m| m.max(hi)));
    }

    /// Makes sure an input/output register has a declaration, implicit where the version
    /// allows it.
    fn need_decl(&mut self, reg: Reg, span: Span) -> bool {
        if self.prog.io.iter().any(|d| d.reg == reg) || self.implicit.iter().any(|d| d.reg == reg) {
            return true;
        }
        let implicit_ok = matches!(
            reg.file,
            RegFile::RastOut
                | RegFile::AttrOut
                | RegFile::TexCrdOut
                | RegFile::ColorOut
                | RegFile::DepthOut
        );
        if implicit_ok && let Some(sem) = regs::implied_semantic(reg) {
            self.implicit.push(IoDecl::implied(reg, sem, Span::NONE));
            return true;
        }
        let profile = self.profile;
        self.report(D3d9Error::Undeclared { reg, profile }.at(span));
        false
    }

    // ---- def -----------------------------------------------------------------------

    fn def(&mut self, kind: DefKind, s: &Stmt) {
        let file = kind.file();
        let Some(Operand::Reg(r)) = s.operands.first() else {
            self.report(D3d9Error::DefNeedsRegister { kind }.at(s.span));
            return;
        };
        if s.operands.len() != kind.values() + 1 {
            let found = s.operands.len();
            self.report(D3d9Error::DefOperandCount { kind, found }.at(s.span));
            return;
        }
        let Some((reg, _)) = self.resolve(&r.name, r.name_span, false) else {
            return;
        };
        if reg.file != file || r.neg || r.abs || r.rel.is_some() || r.suffix.is_some() {
            self.report(D3d9Error::DefWrongRegister { kind }.at(r.span));
            return;
        }
        let first_def = self.defs.iter().find(|(i, _)| *i == reg.index).copied();
        if let (RegFile::Const, Some((_, first))) = (file, first_def) {
            let first = Some(first);
            self.report(D3d9Error::DefinedTwice { reg, first }.at(s.span));
            return;
        }
        let vals = &s.operands[1..];
        match kind {
            DefKind::Def => self.def_floats(reg, vals, s),
            DefKind::Defi => self.def_ints(reg, vals, s),
            DefKind::Defb => self.def_bool(reg, vals, s),
        }
    }

    fn def_floats(&mut self, reg: Reg, vals: &[Operand], s: &Stmt) {
        let mut v = [0f32; 4];
        for (k, o) in vals.iter().enumerate() {
            match number(o, self.src) {
                Some(x) => v[k] = x,
                None => {
                    self.report(D3d9Error::DefNotNumber.at(o.span()));
                    return;
                }
            }
        }
        self.defs.push((reg.index, s.span));
        let i = reg.index as usize;
        if self.prog.consts.len() <= i {
            self.prog.consts.resize(
                i + 1,
                ConstSlot {
                    binding: ConstBinding::Env(0),
                    span: Span::NONE,
                },
            );
        }
        self.prog.consts[i] = ConstSlot {
            binding: ConstBinding::Literal(Literal::vec4(v)),
            span: s.span,
        };
        self.note_use(reg, 1);
    }

    fn def_ints(&mut self, reg: Reg, vals: &[Operand], s: &Stmt) {
        let mut v = [0i32; 4];
        for (k, o) in vals.iter().enumerate() {
            match integer(o, self.src) {
                Some(x) => v[k] = x,
                None => {
                    self.report(D3d9Error::DefNotInteger.at(o.span()));
                    return;
                }
            }
        }
        if let Some(taken) = define(&mut self.prog.int_consts, reg, v) {
            self.report(taken.at(s.span));
            return;
        }
        self.note_use(reg, 1);
    }

    fn def_bool(&mut self, reg: Reg, vals: &[Operand], s: &Stmt) {
        let b = match &vals[0] {
            Operand::Reg(w) if w.name == "true" && !w.neg => true,
            Operand::Reg(w) if w.name == "false" && !w.neg => false,
            o => {
                self.report(D3d9Error::DefNotBool.at(o.span()));
                return;
            }
        };
        if let Some(taken) = define(&mut self.prog.bool_consts, reg, b) {
            self.report(taken.at(s.span));
            return;
        }
        self.note_use(reg, 1);
    }

    // ---- dcl -----------------------------------------------------------------------

    fn dcl(&mut self, mods: &[&str], s: &Stmt) {
        if self.seen_inst {
            let first = self.first_inst_span;
            self.report(D3d9Error::DclAfterInstruction { first }.at(s.span));
        }
        if s.operands.len() != 1 {
            self.report(D3d9Error::DclOperandCount.at(s.span));
            return;
        }
        let Operand::Reg(r) = &s.operands[0] else {
            self.report(D3d9Error::DclNeedsRegister.at(s.operands[0].span()));
            return;
        };
        if r.neg || r.bang || r.abs || r.rel.is_some() {
            self.report(D3d9Error::DclModifiers.at(r.span));
            return;
        }
        let Some((reg, _)) = self.resolve(&r.name, r.name_span, false) else {
            return;
        };
        let Some(words) = self.dcl_words(mods, s) else {
            return;
        };
        if reg.file == RegFile::Sampler {
            return self.dcl_sampler(reg, r, &words, s);
        }
        if words.target.is_some() {
            self.report(D3d9Error::TypeOnNonSampler.at(s.op_span));
            return;
        }
        let mask = match &r.suffix {
            Some((m, span)) => match parse_mask(m) {
                Some(m) => m,
                None => {
                    let text = m.clone();
                    self.report(D3d9Error::BadMask { text }.at(*span));
                    return;
                }
            },
            None => WriteMask::ALL,
        };
        let Some(semantic) = self.dcl_semantic(reg, r, &words, s) else {
            return;
        };
        let p = self.profile;
        let stage_ps = p.stage() == Stage::Fragment;
        if words.pp && !stage_ps {
            self.report(D3d9Error::DclPartialPrecision.at(s.op_span));
            return;
        }
        if words.centroid && !stage_ps && !(p == Profile::Vs3_0 && reg.file == RegFile::Output) {
            self.report(D3d9Error::CentroidNotInput.at(s.op_span));
            return;
        }
        self.declare_io(reg, semantic, mask, &words, s);
    }

    /// Reads the `_usage#`, `_2d`/`_cube`/`_volume`, `_centroid` and `_pp` words.
    fn dcl_words(&mut self, mods: &[&str], s: &Stmt) -> Option<DclWords> {
        let mut w = DclWords::default();
        // Spans of the modifier words inside the opcode.
        let mut off = s.op_span.start as usize + 3;
        for m in mods {
            let mspan = Span::new(off, off + 1 + m.len());
            off += 1 + m.len();
            if *m == "centroid" {
                w.centroid = true;
            } else if *m == "pp" {
                w.pp = true;
            } else if let Some(t) = regs::sampler_target(m) {
                w.target = Some(t);
            } else {
                let cut = m.find(|c: char| c.is_ascii_digit()).unwrap_or(m.len());
                let (u, n) = m.split_at(cut);
                let idx = if n.is_empty() {
                    Some(0)
                } else {
                    n.parse::<u8>().ok()
                };
                match (regs::USAGES.contains(&u), idx) {
                    (true, Some(i)) if i < 16 => w.usage = Some((u.to_string(), i, mspan)),
                    (true, _) => {
                        let index = n.to_string();
                        self.report(D3d9Error::UsageIndex { index }.at(mspan));
                        return None;
                    }
                    (false, _) => {
                        let names = regs::USAGES
                            .iter()
                            .copied()
                            .chain(["2d", "cube", "volume", "centroid", "pp"]);
                        let e = D3d9Error::UnknownDeclaration {
                            word: m.to_string(),
                            suggestion: suggest(u, names),
                        };
                        self.report(e.at(mspan));
                        return None;
                    }
                }
            }
        }
        Some(w)
    }

    fn dcl_sampler(&mut self, reg: Reg, r: &RegOperand, words: &DclWords, s: &Stmt) {
        let Some(t) = words.target else {
            self.report(D3d9Error::SamplerNeedsType { reg }.at(s.op_span));
            return;
        };
        if words.usage.is_some() || words.centroid || words.pp || r.suffix.is_some() {
            self.report(D3d9Error::SamplerDclExtra.at(s.span));
            return;
        }
        let unit = sampler_unit(self.profile.stage(), reg.index as u8);
        if let Some(first) = self.prog.samplers.iter().find(|d| d.unit == unit) {
            let first = first.span;
            self.report(D3d9Error::SamplerDeclaredTwice { reg, first }.at(s.span));
            return;
        }
        self.prog.samplers.push(SamplerDecl {
            unit,
            target: t,
            span: s.span,
        });
    }

    /// The semantic a `dcl` gives an input or output register.
    fn dcl_semantic(
        &mut self,
        reg: Reg,
        r: &RegOperand,
        words: &DclWords,
        s: &Stmt,
    ) -> Option<Semantic> {
        let p = self.profile;
        Some(match (reg.file, p) {
            (RegFile::Input, Profile::Ps2_0 | Profile::Ps2_x) | (RegFile::TexCoord, _) => {
                if let Some((_, _, us)) = &words.usage {
                    self.report(D3d9Error::UsageNotAllowed { reg, profile: p }.at(*us));
                    return None;
                }
                if reg.file == RegFile::Input {
                    Semantic::Color(reg.index as u8)
                } else {
                    Semantic::TexCoord(reg.index as u8)
                }
            }
            (RegFile::Misc, _) => {
                if words.usage.is_some() {
                    self.report(D3d9Error::MiscUsage.at(s.op_span));
                    return None;
                }
                if reg.index == 0 {
                    Semantic::WindowPos
                } else {
                    Semantic::Face
                }
            }
            (RegFile::Input | RegFile::Output, _) => match &words.usage {
                Some((u, i, _)) => regs::usage_semantic(u, *i).expect("known usage"),
                None => {
                    self.report(D3d9Error::NeedsUsage { reg }.at(s.op_span));
                    return None;
                }
            },
            _ => {
                let pixel = p.stage() == Stage::Fragment;
                self.report(D3d9Error::NotDeclarable { reg, pixel }.at(r.span));
                return None;
            }
        })
    }

    /// Records an input/output declaration unless its register or semantic is taken.
    fn declare_io(
        &mut self,
        reg: Reg,
        semantic: Semantic,
        mask: WriteMask,
        words: &DclWords,
        s: &Stmt,
    ) {
        if let Some(first) = self.prog.io.iter().find(|d| d.reg == reg) {
            let first = first.span;
            self.report(D3d9Error::DeclaredTwice { reg, first }.at(s.span));
            return;
        }
        if let Some(first) = self
            .prog
            .io
            .iter()
            .find(|d| d.semantic == semantic && d.reg.file == reg.file)
            && matches!(reg.file, RegFile::Input | RegFile::Output)
        {
            let (first, first_reg) = (first.span, first.reg);
            self.report(
                D3d9Error::SameSemantic {
                    first_reg,
                    reg,
                    first,
                }
                .at(s.span),
            );
            return;
        }
        self.prog.io.push(IoDecl {
            reg,
            semantic,
            mask,
            interp: if words.centroid {
                Interp::Centroid
            } else {
                Interp::Perspective
            },
            pp: words.pp,
            explicit: true,
            span: s.span,
        });
    }

    // ---- instructions --------------------------------------------------------------

    fn instruction(&mut self, base: &str, mods: &[&str], s: &Stmt) {
        if !self.seen_inst {
            self.seen_inst = true;
            self.first_inst_span = s.span;
        }
        let Some((op, sat, pp)) = self.opcode(base, mods, s) else {
            return;
        };
        if !self.available(op, s) {
            return;
        }
        let pred = match &s.pred {
            Some(pt) => match self.predicate(pt) {
                Some(pr) => Some(pr),
                None => return,
            },
            None => None,
        };
        let mut inst = Inst::new(op, None, []);
        inst.sat = sat;
        inst.pp = pp;
        inst.pred = pred;
        inst.comment = s.comment.clone();
        inst.span = s.span;
        if self.operands(&mut inst, s) {
            self.prog.insts.push(inst);
        }
    }

    /// The op of a mnemonic with its comparison suffix, and the `_sat`/`_pp` modifiers.
    fn opcode(&mut self, base: &str, mods: &[&str], s: &Stmt) -> Option<(Op, bool, bool)> {
        let mut mod_iter = mods.iter();
        let (word, mut op) = match regs::MNEMONICS.iter().find(|(n, _)| *n == base) {
            Some(&(n, op)) => (n, op),
            None => {
                let e = D3d9Error::UnknownInstruction {
                    name: base.to_string(),
                    suggestion: suggest(base, regs::MNEMONICS.iter().map(|(n, _)| *n)),
                };
                self.report(e.at(s.op_span));
                return None;
            }
        };
        // Comparison suffix of if/break/setp.
        if matches!(base, "if" | "break" | "setp") {
            let cond = mods.first().and_then(|m| regs::cond_from(m));
            match (base, cond) {
                ("if", Some(c)) => {
                    op = Op::Ifc(c);
                    mod_iter.next();
                }
                ("break", Some(c)) => {
                    op = Op::Breakc(c);
                    mod_iter.next();
                }
                ("setp", Some(c)) => {
                    op = Op::Setp(c);
                    mod_iter.next();
                }
                ("setp", None) => {
                    self.report(D3d9Error::SetpNeedsCondition.at(s.op_span));
                    return None;
                }
                _ => {}
            }
        }
        let mut sat = false;
        let mut pp = false;
        for m in mod_iter {
            match *m {
                "sat" => sat = true,
                "pp" => pp = true,
                other => {
                    let modifier = other.to_string();
                    self.report(D3d9Error::UnknownModifier { modifier, op: word }.at(s.op_span));
                    return None;
                }
            }
        }
        // vs_1_1 writes the address register with `mov`; Hoist's IR calls that mova.
        if op == Op::Mov
            && self.profile == Profile::Vs1_1
            && let Some(Operand::Reg(d)) = s.operands.first()
            && d.name == "a0"
        {
            op = Op::Mova;
        }
        Some((op, sat, pp))
    }

    /// Whether the version has `op` (and `mov a0` is spelled as it requires).
    fn available(&mut self, op: Op, s: &Stmt) -> bool {
        let p = self.profile;
        if !p.has(op) {
            self.report(D3d9Error::NotInProfile { op, profile: p }.at(s.op_span));
            return false;
        }
        if op == Op::Mov
            && p != Profile::Vs1_1
            && let Some(Operand::Reg(d)) = s.operands.first()
            && d.name == "a0"
        {
            let operands = self.src[s.op_span.end as usize..s.span.end as usize]
                .trim()
                .to_string();
            self.report(D3d9Error::MovToA0 { operands }.at(s.op_span));
            return false;
        }
        true
    }

    /// Lowers the operands of `inst` by the form its op takes.
    fn operands(&mut self, inst: &mut Inst, s: &Stmt) -> bool {
        let ops = &s.operands;
        let op = inst.op;
        let data = SrcKind::Data;
        match op {
            Op::Tex | Op::Txb | Op::Txp | Op::Texldl | Op::Texldd => self.tex_inst(inst, ops, s),
            Op::Texkil => self.expect_count(s, op, 1) && self.src_into(inst, &ops[0], data),
            Op::If => {
                self.expect_count(s, op, 1) && self.flow_src(inst, &ops[0], BOOL_OR_PREDICATE)
            }
            Op::Callnz => {
                self.expect_count(s, op, 2)
                    && self.flow_src(inst, &ops[0], LABEL)
                    && self.flow_src(inst, &ops[1], BOOL_OR_PREDICATE)
            }
            Op::Call | Op::Label => {
                self.expect_count(s, op, 1) && self.flow_src(inst, &ops[0], LABEL)
            }
            Op::Loop => {
                self.expect_count(s, op, 2)
                    && self.flow_src(inst, &ops[0], &[RegFile::Loop])
                    && self.flow_src(inst, &ops[1], &[RegFile::ConstInt])
            }
            Op::Rep => {
                self.expect_count(s, op, 1) && self.flow_src(inst, &ops[0], &[RegFile::ConstInt])
            }
            Op::Breakp => {
                self.expect_count(s, op, 1) && self.flow_src(inst, &ops[0], &[RegFile::Predicate])
            }
            Op::Ifc(_) | Op::Breakc(_) => {
                self.expect_count(s, op, 2)
                    && self.src_into(inst, &ops[0], data)
                    && self.src_into(inst, &ops[1], data)
            }
            _ => {
                let info = op.info();
                let n = src_count(op, self.profile) + usize::from(info.has_dst);
                if !self.expect_count(s, op, n) {
                    return false;
                }
                let mut ok = true;
                let mut it = ops.iter();
                if info.has_dst {
                    ok &= self.dst_into(inst, it.next().unwrap());
                }
                for (k, o) in it.enumerate() {
                    let kind = match op.matrix_rows() {
                        Some(rows) if k == 1 => SrcKind::Matrix(rows as u32),
                        _ => SrcKind::Data,
                    };
                    ok &= self.src_into(inst, o, kind);
                }
                ok
            }
        }
    }

    /// Reports an operand count other than `n` (the message shows the form `op` takes).
    fn expect_count(&mut self, s: &Stmt, op: Op, n: usize) -> bool {
        if s.operands.len() == n {
            return true;
        }
        let span = if s.operands.is_empty() {
            s.span
        } else {
            s.operands[0].span().join(s.operands.last().unwrap().span())
        };
        let e = D3d9Error::OperandCount {
            text: s.op.clone(),
            op,
            profile: self.profile,
            expected: n,
            found: s.operands.len(),
        };
        self.report(e.at(span));
        false
    }

    fn predicate(&mut self, pt: &PredTok) -> Option<Predicate> {
        let (reg, _) = self.resolve(&pt.reg, pt.reg_span, false)?;
        if reg.file != RegFile::Predicate {
            self.report(D3d9Error::PredicateNotP0.at(pt.reg_span));
            return None;
        }
        let swizzle = match &pt.swizzle {
            Some((t, span)) => self.swizzle(t, *span)?,
            None => Swizzle::IDENTITY,
        };
        Some(Predicate {
            negate: pt.negate,
            swizzle,
        })
    }

    /// Parses swizzle letters, reporting them when they are not a swizzle.
    fn swizzle(&mut self, text: &str, span: Span) -> Option<Swizzle> {
        let s = parse_swizzle(text);
        if s.is_none() {
            let text = text.to_string();
            self.report(D3d9Error::BadSwizzle { text }.at(span));
        }
        s
    }

    fn tex_inst(&mut self, inst: &mut Inst, ops: &[Operand], s: &Stmt) -> bool {
        let texldd = inst.op == Op::Texldd;
        if !self.expect_count(s, inst.op, if texldd { 5 } else { 3 }) {
            return false;
        }
        let mut ok = self.dst_into(inst, &ops[0]);
        ok &= self.src_into(inst, &ops[1], SrcKind::Data);
        // Sampler.
        let Operand::Reg(sr) = &ops[2] else {
            self.report(D3d9Error::ExpectedSampler.at(ops[2].span()));
            return false;
        };
        let Some((sreg, _)) = self.resolve(&sr.name, sr.name_span, false) else {
            return false;
        };
        if sreg.file != RegFile::Sampler {
            let (op, text) = (inst.op, s.op.clone());
            self.report(
                D3d9Error::NotASampler {
                    reg: sreg,
                    op,
                    text,
                }
                .at(sr.span),
            );
            return false;
        }
        if sr.neg || sr.abs || sr.rel.is_some() || sr.bang {
            self.report(D3d9Error::SamplerModifiers.at(sr.span));
            return false;
        }
        if let Some((_, sspan)) = &sr.suffix
            && self.profile != Profile::Ps3_0
        {
            let profile = self.profile;
            self.report(D3d9Error::SamplerSwizzle { profile }.at(*sspan));
            return false;
        }
        let unit = sampler_unit(self.profile.stage(), sreg.index as u8);
        let target = match self.prog.samplers.iter().find(|d| d.unit == unit) {
            Some(d) => d.target,
            None => {
                self.report(D3d9Error::SamplerUndeclared { reg: sreg }.at(sr.span));
                return false;
            }
        };
        inst.tex = Some(TexRef { unit, target });
        if texldd {
            ok &= self.src_into(inst, &ops[3], SrcKind::Data);
            ok &= self.src_into(inst, &ops[4], SrcKind::Data);
        }
        ok
    }

    fn flow_src(&mut self, inst: &mut Inst, o: &Operand, files: &'static [RegFile]) -> bool {
        let Operand::Reg(r) = o else {
            self.report(D3d9Error::ExpectedRegister.at(o.span()));
            return false;
        };
        let Some((reg, _)) = self.resolve(&r.name, r.name_span, false) else {
            return false;
        };
        if !files.contains(&reg.file) {
            let e = D3d9Error::WrongRegisterType {
                expected: files,
                reg,
            };
            self.report(e.at(r.span));
            return false;
        }
        let pred = reg.file == RegFile::Predicate;
        if r.neg || r.abs || r.rel.is_some() || (r.bang && !pred) || r.bad_modifier.is_some() {
            self.report(D3d9Error::OperandModifiers.at(r.span));
            return false;
        }
        let mut src = Src::new(reg);
        src.span = r.span;
        if let Some((t, span)) = &r.suffix {
            if !pred {
                self.report(D3d9Error::OperandSwizzle.at(*span));
                return false;
            }
            match self.swizzle(t, *span) {
                Some(s) => src.swizzle = s,
                None => return false,
            }
        }
        src.negate = r.bang;
        self.note_use(reg, 1);
        inst.src.push(src);
        true
    }

    fn rel(&mut self, rt: &RelTok, file: RegFile, base: u32) -> Option<RelAddr> {
        let (areg, _) = self.resolve(&rt.reg, rt.reg_span, false)?;
        let comp = match (areg.file, &rt.comp) {
            (RegFile::Address, Some((c, span))) => match parse_swizzle(c) {
                Some(s) if c.len() == 1 => s.get(0),
                _ => {
                    let text = c.clone();
                    self.report(D3d9Error::BadAddressComponent { text }.at(*span));
                    return None;
                }
            },
            (RegFile::Address, None) => {
                self.report(D3d9Error::AddressNeedsComponent.at(rt.reg_span));
                return None;
            }
            (RegFile::Loop, None) => 0,
            (RegFile::Loop, Some((_, span))) => {
                self.report(D3d9Error::LoopComponent.at(*span));
                return None;
            }
            _ => {
                self.report(D3d9Error::CannotIndex { reg: areg }.at(rt.reg_span));
                return None;
            }
        };
        let offset = base as i64 + rt.offset;
        let count = file_count(file, self.profile, self.limits);
        if offset < 0 || offset >= count as i64 {
            self.report(D3d9Error::RelOutOfRange { offset, count }.at(rt.span));
            return None;
        }
        self.note_use(areg, 1);
        if file == RegFile::Const {
            self.rel_const = true;
        }
        Some(RelAddr {
            reg: areg,
            comp,
            lo: 0,
            hi: count.min(u16::MAX as u32) as u16,
            offset: 0,
        })
    }

    fn reg_operand(&mut self, r: &RegOperand) -> Option<(Reg, Option<RelAddr>)> {
        let (mut reg, had_index) = self.resolve(&r.name, r.name_span, r.rel.is_some())?;
        let rel = match &r.rel {
            Some(rt) => {
                let base = if had_index { reg.index as u32 } else { 0 };
                let rel = self.rel(rt, reg.file, base)?;
                reg.index = (base as i64 + rt.offset) as u16;
                Some(rel)
            }
            None => None,
        };
        if let Some((m, span)) = &r.bad_modifier {
            let e = D3d9Error::BadSourceModifier {
                modifier: m.clone(),
                profile: self.profile,
            };
            self.report(e.at(*span));
            return None;
        }
        Some((reg, rel))
    }

    fn dst_into(&mut self, inst: &mut Inst, o: &Operand) -> bool {
        let Operand::Reg(r) = o else {
            self.report(D3d9Error::ExpectedDestination.at(o.span()));
            return false;
        };
        if r.neg || r.bang || r.abs {
            self.report(D3d9Error::DestinationModifiers.at(r.span));
            return false;
        }
        let Some((reg, rel)) = self.reg_operand(r) else {
            return false;
        };
        let scalar_out = matches!(
            (reg.file, reg.index),
            (RegFile::RastOut, 1 | 2) | (RegFile::DepthOut, _)
        );
        let mask = match &r.suffix {
            Some((m, span)) => match parse_mask(m) {
                Some(m) => m,
                None => {
                    let text = m.clone();
                    self.report(D3d9Error::BadMask { text }.at(*span));
                    return false;
                }
            },
            None if scalar_out => WriteMask::X,
            None => WriteMask::ALL,
        };
        if reg.file.is_output() || reg.file.is_input() {
            if reg.file.is_input() {
                self.report(D3d9Error::WriteInput { reg }.at(r.span));
                return false;
            }
            if !self.need_decl(reg, r.span) {
                return false;
            }
        }
        if !matches!(
            reg.file,
            RegFile::Temp | RegFile::Address | RegFile::Predicate
        ) && !reg.file.is_output()
        {
            self.report(D3d9Error::NotWritable { reg }.at(r.span));
            return false;
        }
        self.note_use(reg, 1);
        let mut d = Dst::new(reg, mask);
        d.rel = rel;
        d.span = r.span;
        inst.dst = Some(d);
        true
    }

    fn src_into(&mut self, inst: &mut Inst, o: &Operand, kind: SrcKind) -> bool {
        let Operand::Reg(r) = o else {
            self.report(D3d9Error::LiteralOperand.at(o.span()));
            return false;
        };
        if r.bang {
            self.report(D3d9Error::BangOnData.at(r.span));
            return false;
        }
        let Some((reg, rel)) = self.reg_operand(r) else {
            return false;
        };
        if reg.file.is_output() {
            self.report(D3d9Error::ReadOutput { reg }.at(r.span));
            return false;
        }
        if reg.file.is_input() && !self.need_decl(reg, r.span) {
            return false;
        }
        let swizzle = match &r.suffix {
            Some((t, span)) => match self.swizzle(t, *span) {
                Some(s) => s,
                None => return false,
            },
            None => Swizzle::IDENTITY,
        };
        let rows = match kind {
            SrcKind::Matrix(n) => n,
            SrcKind::Data => 1,
        };
        if let SrcKind::Matrix(n) = kind
            && !self.matrix_rows(reg, rel.is_some(), n, r.span)
        {
            return false;
        }
        self.note_use(reg, rows);
        let mut src = Src::new(reg);
        src.rel = rel;
        src.swizzle = swizzle;
        src.negate = r.neg;
        src.abs = r.abs;
        src.span = r.span;
        inst.src.push(src);
        true
    }

    /// The `n` registers of a matrix operand must exist (and be declared, for inputs).
    fn matrix_rows(&mut self, reg: Reg, relative: bool, n: u32, span: Span) -> bool {
        let last = reg.index as u32 + n - 1;
        if !relative && last >= file_count(reg.file, self.profile, self.limits) {
            let last = Reg::new(reg.file, last.min(u16::MAX as u32) as u16);
            self.report(D3d9Error::MatrixPastEnd { first: reg, last }.at(span));
            return false;
        }
        if reg.file.is_input() {
            for k in 1..n {
                if !self.need_decl(Reg::new(reg.file, reg.index + k as u16), span) {
                    return false;
                }
            }
        }
        true
    }

    /// Finishes the program: dense constant tables, counts, implicit declarations.
    pub fn finish(mut self) -> (Program, Vec<Spanned>) {
        let mut n = self
            .max_c
            .map_or(0, |m| m as usize + 1)
            .max(self.prog.consts.len());
        if self.rel_const {
            n = n.max(file_count(RegFile::Const, self.profile, self.limits) as usize);
        }
        let mut consts = Vec::with_capacity(n);
        for i in 0..n {
            let is_def = self.defs.iter().any(|(k, _)| *k as usize == i);
            consts.push(if is_def {
                self.prog.consts[i].clone()
            } else {
                ConstSlot {
                    binding: ConstBinding::Env(i as u16),
                    span: Span::NONE,
                }
            });
        }
        self.prog.consts = consts;
        let ni = self.max_i.map_or(0, |m| m as usize + 1);
        self.prog
            .int_consts
            .resize(ni.max(self.prog.int_consts.len()), None);
        let nb = self.max_b.map_or(0, |m| m as usize + 1);
        self.prog
            .bool_consts
            .resize(nb.max(self.prog.bool_consts.len()), None);
        self.prog.num_temps = self.max_r.map_or(0, |m| m as u16 + 1);
        self.prog.num_addrs = u16::from(self.uses_a0);
        self.prog.io.append(&mut self.implicit);
        (self.prog, self.errors)
    }
}

#[derive(Clone, Copy)]
enum SrcKind {
    Data,
    /// Source 1 of a matrix macro: this many consecutive registers.
    Matrix(u32),
}

fn number(o: &Operand, _src: &str) -> Option<f32> {
    match o {
        Operand::Num { text, neg, .. } => {
            let t = text.trim_end_matches(['f', 'F']);
            let t = t.strip_suffix('.').unwrap_or(t);
            let v: f32 = t.parse().ok()?;
            Some(if *neg { -v } else { v })
        }
        // `nan` and `inf` are Hoist extensions so that any literal a pass creates prints.
        Operand::Reg(r) if r.suffix.is_none() && r.rel.is_none() => {
            let v = match r.name.as_str() {
                "nan" => f32::NAN,
                "inf" => f32::INFINITY,
                _ => return None,
            };
            Some(if r.neg { -v } else { v })
        }
        _ => None,
    }
}

fn integer(o: &Operand, _src: &str) -> Option<i32> {
    match o {
        Operand::Num { text, neg, .. } => {
            let v: i64 = text.parse().ok()?;
            let v = if *neg { -v } else { v };
            i32::try_from(v).ok()
        }
        _ => None,
    }
}

/// Parses a swizzle: 1–4 letters of `xyzw` or of `rgba`; the last letter repeats.
pub fn parse_swizzle(t: &str) -> Option<Swizzle> {
    let comps = letters(t)?;
    if comps.is_empty() || comps.len() > 4 {
        return None;
    }
    let last = *comps.last().unwrap();
    let g = |i: usize| comps.get(i).copied().unwrap_or(last);
    Some(Swizzle::new(g(0), g(1), g(2), g(3)))
}

/// Parses a write mask: 1–4 letters of `xyzw` or `rgba`, in order, no repeats.
pub fn parse_mask(t: &str) -> Option<WriteMask> {
    let comps = letters(t)?;
    if comps.is_empty() || comps.len() > 4 || comps.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    Some(WriteMask(comps.iter().fold(0, |m, &c| m | 1 << c)))
}

fn letters(t: &str) -> Option<Vec<Comp>> {
    let xyzw = t.bytes().all(|b| b"xyzw".contains(&b));
    let rgba = t.bytes().all(|b| b"rgba".contains(&b));
    if !xyzw && !rgba {
        return None;
    }
    Some(
        t.bytes()
            .map(|b| match b {
                b'x' | b'r' => 0,
                b'y' | b'g' => 1,
                b'z' | b'b' => 2,
                _ => 3,
            })
            .collect(),
    )
}

/// Stores a `defi`/`defb` value in its table, or says the register is defined already.
fn define<T>(table: &mut Vec<Option<T>>, reg: Reg, value: T) -> Option<D3d9Error> {
    let i = reg.index as usize;
    if table.len() <= i {
        table.resize_with(i + 1, || None);
    }
    if table[i].is_some() {
        return Some(D3d9Error::DefinedTwice { reg, first: None });
    }
    table[i] = Some(value);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzles_and_masks() {
        assert_eq!(parse_swizzle("xy"), Some(Swizzle::new(0, 1, 1, 1)));
        assert_eq!(parse_swizzle("a"), Some(Swizzle::splat(3)));
        assert_eq!(parse_swizzle("xg"), None);
        assert_eq!(parse_swizzle("xyzwx"), None);
        assert_eq!(parse_mask("xzw"), Some(WriteMask(0b1101)));
        assert_eq!(parse_mask("yx"), None);
        assert_eq!(parse_mask("xx"), None);
        assert_eq!(parse_mask("rgb"), Some(WriteMask::XYZ));
    }
}

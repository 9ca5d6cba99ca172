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
//! `consts` covers every register of the profile's limit. `i#`/`b#` are dense likewise. Explicit `dcl`s come first in `io`, in source order,
//! followed by implicitly declared registers in order of first use.

use super::errors::{MAX_ERRORS, err, suggest, syntax};
use super::lexer::Line;
use super::parser::{Operand, PredTok, RegOperand, RelTok, Stmt, parse_line};
use super::regs::{self, file_count, file_in_profile, parse_reg_name, reg_name};
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::Op;
use crate::profile::{Limits, Profile};

pub struct Lower<'a> {
    src: &'a str,
    profile: Profile,
    limits: &'a Limits,
    pub prog: Program,
    pub diags: Vec<Diagnostic>,
    errors: usize,
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

impl<'a> Lower<'a> {
    pub fn new(src: &'a str, profile: Profile, limits: &'a Limits) -> Lower<'a> {
        Lower {
            src,
            profile,
            limits,
            prog: Program::new(profile),
            diags: Vec::new(),
            errors: 0,
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
        self.errors
    }

    fn report(&mut self, d: Diagnostic) {
        if d.is_error() {
            self.errors += 1;
            if self.errors > MAX_ERRORS {
                return;
            }
        }
        self.diags.push(d);
    }

    /// Lowers every line. The first line must be the version.
    pub fn run(&mut self, lines: &[Line]) {
        let mut header_done = false;
        for line in lines {
            if line.tokens.is_empty() {
                continue;
            }
            if self.errors > MAX_ERRORS {
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
                Err(d) => self.report(*d),
            }
        }
        if !header_done {
            self.report(
                err(
                    "E2001",
                    "the program is empty: it has no version line",
                    Span::new(0, 0),
                )
                .with_hint(format!(
                    "start the program with `{}`",
                    self.profile.header()
                )),
            );
        }
        if self.errors > MAX_ERRORS {
            let n = self.errors - MAX_ERRORS;
            self.diags.push(err(
                "E2099",
                format!("{n} more errors not shown"),
                Span::new(self.src.len(), self.src.len()),
            ));
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
        match found {
            Some(p) if p == self.profile => {}
            Some(p) => self.report(
                err(
                    "E2002",
                    format!(
                        "the program says `{}` but is being read as {}",
                        p.header(),
                        self.profile
                    ),
                    span,
                )
                .with_label("version line")
                .with_hint(format!(
                    "change the version line to `{}` or select the {} profile",
                    self.profile.header(),
                    p
                )),
            ),
            None => {
                let looks_like =
                    (word.starts_with("vs_") || word.starts_with("ps_")) && word.len() <= 8;
                if looks_like {
                    self.report(
                        err("E2003", format!("`{word}` is not supported"), span)
                            .with_label("unsupported version")
                            .with_hint(
                                "Hoist reads vs_1_1, vs_2_0, vs_2_x, vs_3_0, ps_2_0, ps_2_x \
                                 and ps_3_0",
                            ),
                    );
                } else {
                    self.report(
                        err(
                            "E2001",
                            "the first statement must be the version line",
                            span,
                        )
                        .with_label("expected a version here")
                        .with_hint(format!(
                            "start the program with `{}`",
                            self.profile.header()
                        )),
                    );
                    return false;
                }
            }
        }
        if let Some(x) = rest.first() {
            self.report(syntax(
                "unexpected text after the version",
                Span::new(x.start, rest.last().unwrap().end),
            ));
        }
        true
    }

    fn stmt(&mut self, s: Stmt) {
        let mut parts = s.op.split('_');
        let base = parts.next().unwrap_or("").to_string();
        let mods: Vec<&str> = parts.collect();
        match base.as_str() {
            "def" | "defi" | "defb" => {
                if let Some(p) = &s.pred {
                    self.report(syntax("`def` cannot be predicated", p.span));
                }
                if !mods.is_empty() {
                    self.report(err(
                        "E2012",
                        format!("`{}` takes no modifiers", base),
                        s.op_span,
                    ));
                }
                self.def(&base, &s)
            }
            "dcl" => {
                if let Some(p) = &s.pred {
                    self.report(syntax("`dcl` cannot be predicated", p.span));
                }
                self.dcl(&mods, &s)
            }
            "vs" | "ps" => self.report(
                err(
                    "E2001",
                    "the version line must come first, and only once",
                    s.span,
                )
                .with_label("misplaced version"),
            ),
            _ => self.instruction(&base, &mods, &s),
        }
    }

    // ---- registers -----------------------------------------------------------------

    /// Resolves a register name to a register of a file present in this version.
    fn resolve(&mut self, name: &str, span: Span, allow_no_index: bool) -> Option<(Reg, bool)> {
        let p = self.profile;
        let Some((file, index)) = parse_reg_name(name, p) else {
            let d = err("E2021", format!("`{name}` is not a register"), span)
                .with_label("unknown register");
            let d = match name {
                "opos" | "ofog" | "opts" | "od0" | "ot0" => d,
                _ if name.starts_with('o') && p == Profile::Vs3_0 => {
                    d.with_hint("vs_3_0 outputs are o0..o11, declared with dcl_<usage>")
                }
                _ => d,
            };
            self.report(d);
            return None;
        };
        if !file_in_profile(file, p) {
            let hint = match file {
                RegFile::TexCoord if p == Profile::Ps3_0 => {
                    "ps_3_0 reads interpolants from v# registers declared with dcl_texcoord#"
                }
                RegFile::RastOut | RegFile::AttrOut | RegFile::TexCrdOut => {
                    "vs_3_0 writes o# registers declared with dcl_position/dcl_texcoord#/..."
                }
                RegFile::Predicate => "the predicate register p0 exists in vs_2_x/ps_2_x and 3_0",
                RegFile::ConstInt | RegFile::ConstBool | RegFile::Label | RegFile::Loop => {
                    "flow control needs vs_2_0 (ps_2_x for pixel shaders) or later"
                }
                _ => "see the Registers page of this shader version",
            };
            self.report(
                err(
                    "E2023",
                    format!("{} has no `{}` register", p, self.shown(name, span)),
                    span,
                )
                .with_label("not in this version")
                .with_hint(hint),
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
                self.report(
                    err("E2021", format!("`{name}` needs a register number"), span)
                        .with_hint(format!("write `{name}0`, `{name}1`, ...")),
                );
                return None;
            }
        };
        let count = file_count(file, p, self.limits);
        if index >= count {
            let first = reg_name(Reg::new(file, 0));
            let last = if count > 0 {
                reg_name(Reg::new(file, (count - 1).min(u16::MAX as u32) as u16))
            } else {
                "none".into()
            };
            self.report(
                err(
                    "E2022",
                    format!("`{}` is out of range", self.shown(name, span)),
                    span,
                )
                .with_label(format!("{p} has {first}..{last}"))
                .with_note(format!("limits: {}", self.limits.source)),
            );
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
            self.implicit.push(IoDecl {
                reg,
                semantic: sem,
                mask: WriteMask::ALL,
                interp: Interp::Perspective,
                pp: false,
                explicit: false,
                span: Span::NONE,
            });
            return true;
        }
        let name = reg_name(reg);
        let hint = match (reg.file, self.profile) {
            (RegFile::Input, Profile::Ps2_0 | Profile::Ps2_x) => format!("add `dcl {name}`"),
            (RegFile::TexCoord, _) => {
                format!("add `dcl {name}` (with a mask such as `.xy` if fewer components are used)")
            }
            (RegFile::Input, _) => format!("add a declaration such as `dcl_texcoord0 {name}`"),
            (RegFile::Output, _) => format!("add a declaration such as `dcl_texcoord0 {name}`"),
            (RegFile::Misc, _) => format!("add `dcl {name}`"),
            _ => format!("declare {name}"),
        };
        self.report(
            err("E2050", format!("`{name}` is used but not declared"), span)
                .with_label("needs a dcl")
                .with_hint(hint),
        );
        false
    }

    // ---- def -----------------------------------------------------------------------

    fn def(&mut self, base: &str, s: &Stmt) {
        let (file, want, what) = match base {
            "def" => (RegFile::Const, 4, "four numbers"),
            "defi" => (RegFile::ConstInt, 4, "four integers"),
            _ => (RegFile::ConstBool, 1, "`true` or `false`"),
        };
        let Some(Operand::Reg(r)) = s.operands.first() else {
            self.report(
                err(
                    "E2030",
                    format!("`{base}` needs a register and {what}"),
                    s.span,
                )
                .with_hint(format!("for example `{}`", example_def(base))),
            );
            return;
        };
        if s.operands.len() != want + 1 {
            self.report(
                err(
                    "E2013",
                    format!(
                        "`{base}` takes a register and {what}, found {} operands",
                        s.operands.len()
                    ),
                    s.span,
                )
                .with_hint(format!("for example `{}`", example_def(base))),
            );
            return;
        }
        let Some((reg, _)) = self.resolve(&r.name, r.name_span, false) else {
            return;
        };
        if reg.file != file || r.neg || r.abs || r.rel.is_some() || r.suffix.is_some() {
            self.report(
                err(
                    "E2030",
                    format!("`{base}` defines a {} register", reg_kind(file)),
                    r.span,
                )
                .with_hint(format!("for example `{}`", example_def(base))),
            );
            return;
        }
        let first_def = self.defs.iter().find(|(i, _)| *i == reg.index).copied();
        if let (RegFile::Const, Some((_, first))) = (file, first_def) {
            self.report(
                err(
                    "E2031",
                    format!("`{}` is defined twice", reg_name(reg)),
                    s.span,
                )
                .with_related(first, "first defined here"),
            );
            return;
        }
        let vals = &s.operands[1..];
        match file {
            RegFile::Const => {
                let mut v = [0f32; 4];
                for (k, o) in vals.iter().enumerate() {
                    match number(o, self.src) {
                        Some(x) => v[k] = x,
                        None => {
                            self.report(
                                err("E2030", "expected a number", o.span())
                                    .with_label("not a number"),
                            );
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
            RegFile::ConstInt => {
                let mut v = [0i32; 4];
                for (k, o) in vals.iter().enumerate() {
                    match integer(o, self.src) {
                        Some(x) => v[k] = x,
                        None => {
                            self.report(
                                err("E2030", "expected an integer", o.span())
                                    .with_label("not an integer"),
                            );
                            return;
                        }
                    }
                }
                let i = reg.index as usize;
                if self.prog.int_consts.len() <= i {
                    self.prog.int_consts.resize(i + 1, None);
                }
                if self.prog.int_consts[i].is_some() {
                    self.report(err(
                        "E2031",
                        format!("`{}` is defined twice", reg_name(reg)),
                        s.span,
                    ));
                    return;
                }
                self.prog.int_consts[i] = Some(v);
                self.note_use(reg, 1);
            }
            _ => {
                let b = match &vals[0] {
                    Operand::Reg(w) if w.name == "true" && !w.neg => true,
                    Operand::Reg(w) if w.name == "false" && !w.neg => false,
                    o => {
                        self.report(err("E2030", "expected `true` or `false`", o.span()));
                        return;
                    }
                };
                let i = reg.index as usize;
                if self.prog.bool_consts.len() <= i {
                    self.prog.bool_consts.resize(i + 1, None);
                }
                if self.prog.bool_consts[i].is_some() {
                    self.report(err(
                        "E2031",
                        format!("`{}` is defined twice", reg_name(reg)),
                        s.span,
                    ));
                    return;
                }
                self.prog.bool_consts[i] = Some(b);
                self.note_use(reg, 1);
            }
        }
    }

    // ---- dcl -----------------------------------------------------------------------

    fn dcl(&mut self, mods: &[&str], s: &Stmt) {
        if self.seen_inst {
            self.report(
                err(
                    "E2042",
                    "declarations must come before the first instruction",
                    s.span,
                )
                .with_related(self.first_inst_span, "first instruction")
                .with_hint("move this dcl above the instructions"),
            );
        }
        if s.operands.len() != 1 {
            self.report(
                err("E2013", "`dcl` takes exactly one register", s.span)
                    .with_hint("for example `dcl_texcoord0 v1` or `dcl_2d s0`"),
            );
            return;
        }
        let Operand::Reg(r) = &s.operands[0] else {
            self.report(err("E2040", "`dcl` needs a register", s.operands[0].span()));
            return;
        };
        if r.neg || r.bang || r.abs || r.rel.is_some() {
            self.report(err(
                "E2040",
                "a declared register takes no modifiers",
                r.span,
            ));
            return;
        }
        let Some((reg, _)) = self.resolve(&r.name, r.name_span, false) else {
            return;
        };
        let mut usage: Option<(String, u8, Span)> = None;
        let mut target = None;
        let mut centroid = false;
        let mut pp = false;
        // Spans of the modifier words inside the opcode.
        let mut off = s.op_span.start as usize + 3;
        for m in mods {
            let mspan = Span::new(off, off + 1 + m.len());
            off += 1 + m.len();
            if *m == "centroid" {
                centroid = true;
            } else if *m == "pp" {
                pp = true;
            } else if let Some(t) = regs::sampler_target(m) {
                target = Some(t);
            } else {
                let cut = m.find(|c: char| c.is_ascii_digit()).unwrap_or(m.len());
                let (u, n) = m.split_at(cut);
                let idx = if n.is_empty() {
                    Some(0)
                } else {
                    n.parse::<u8>().ok()
                };
                match (regs::USAGES.contains(&u), idx) {
                    (true, Some(i)) if i < 16 => usage = Some((u.to_string(), i, mspan)),
                    (true, _) => {
                        self.report(err(
                            "E2040",
                            format!("usage index `{n}` is out of range (0..15)"),
                            mspan,
                        ));
                        return;
                    }
                    (false, _) => {
                        let mut d = err("E2040", format!("unknown declaration `_{m}`"), mspan)
                            .with_label("not a usage or sampler type");
                        let names = regs::USAGES
                            .iter()
                            .copied()
                            .chain(["2d", "cube", "volume", "centroid", "pp"]);
                        if let Some(sug) = suggest(u, names) {
                            d = d.with_hint(format!("did you mean `_{sug}`?"));
                        }
                        self.report(d);
                        return;
                    }
                }
            }
        }
        let p = self.profile;
        if reg.file == RegFile::Sampler {
            let Some(t) = target else {
                self.report(
                    err(
                        "E2040",
                        "a sampler declaration needs a texture type",
                        s.op_span,
                    )
                    .with_hint(format!(
                        "write `dcl_2d {}`, `dcl_cube` or `dcl_volume`",
                        reg_name(reg)
                    )),
                );
                return;
            };
            if usage.is_some() || centroid || pp || r.suffix.is_some() {
                self.report(err(
                    "E2040",
                    "a sampler declaration takes only its texture type",
                    s.span,
                ));
                return;
            }
            if let Some(first) = self
                .prog
                .samplers
                .iter()
                .find(|d| d.unit as u16 == reg.index)
            {
                let fs = first.span;
                self.report(
                    err(
                        "E2041",
                        format!("`{}` is declared twice", reg_name(reg)),
                        s.span,
                    )
                    .with_related(fs, "first declared here"),
                );
                return;
            }
            self.prog.samplers.push(SamplerDecl {
                unit: reg.index as u8,
                target: t,
                span: s.span,
            });
            return;
        }
        if target.is_some() {
            self.report(err(
                "E2040",
                "a texture type can only be declared for a sampler (s#)",
                s.op_span,
            ));
            return;
        }
        let mask = match &r.suffix {
            Some((m, span)) => match parse_mask(m) {
                Some(m) => m,
                None => {
                    self.report(bad_mask(m, *span));
                    return;
                }
            },
            None => WriteMask::ALL,
        };
        let stage_ps = p.stage() == Stage::Fragment;
        let semantic = match (reg.file, p) {
            (RegFile::Input, Profile::Ps2_0 | Profile::Ps2_x) | (RegFile::TexCoord, _) => {
                if let Some((_, _, us)) = &usage {
                    self.report(
                        err("E2040", format!("{p} declarations take no usage"), *us)
                            .with_hint(format!("write `dcl {}`", reg_name(reg))),
                    );
                    return;
                }
                if reg.file == RegFile::Input {
                    Semantic::Color(reg.index as u8)
                } else {
                    Semantic::TexCoord(reg.index as u8)
                }
            }
            (RegFile::Misc, _) => {
                if usage.is_some() {
                    self.report(err(
                        "E2040",
                        "vPos and vFace are declared with plain `dcl`",
                        s.op_span,
                    ));
                    return;
                }
                if reg.index == 0 {
                    Semantic::WindowPos
                } else {
                    Semantic::Face
                }
            }
            (RegFile::Input | RegFile::Output, _) => match &usage {
                Some((u, i, _)) => regs::usage_semantic(u, *i).expect("known usage"),
                None => {
                    self.report(
                        err(
                            "E2040",
                            format!("`{}` needs a usage", reg_name(reg)),
                            s.op_span,
                        )
                        .with_hint(format!("for example `dcl_texcoord0 {}`", reg_name(reg))),
                    );
                    return;
                }
            },
            _ => {
                self.report(
                    err(
                        "E2040",
                        format!("`{}` cannot be declared", reg_name(reg)),
                        r.span,
                    )
                    .with_label("no dcl for this register")
                    .with_note(if stage_ps {
                        "pixel shaders declare inputs (v#, t#, vPos, vFace) and samplers"
                    } else {
                        "vertex shaders declare inputs (v#), samplers and vs_3_0 outputs (o#)"
                    }),
                );
                return;
            }
        };
        if pp && !stage_ps {
            self.report(err(
                "E2012",
                "`_pp` exists only in pixel shaders",
                s.op_span,
            ));
            return;
        }
        if centroid && !stage_ps && !(p == Profile::Vs3_0 && reg.file == RegFile::Output) {
            self.report(err(
                "E2012",
                "`_centroid` applies to pixel shader inputs",
                s.op_span,
            ));
            return;
        }
        if let Some(first) = self.prog.io.iter().find(|d| d.reg == reg) {
            let fs = first.span;
            self.report(
                err(
                    "E2041",
                    format!("`{}` is declared twice", reg_name(reg)),
                    s.span,
                )
                .with_related(fs, "first declared here")
                .with_note("Hoist keeps one declaration per register"),
            );
            return;
        }
        if let Some(first) = self
            .prog
            .io
            .iter()
            .find(|d| d.semantic == semantic && d.reg.file == reg.file)
            && matches!(reg.file, RegFile::Input | RegFile::Output)
        {
            let (fs, fr) = (first.span, first.reg);
            self.report(
                err(
                    "E2043",
                    format!(
                        "`{}` and `{}` are declared with the same semantic",
                        reg_name(fr),
                        reg_name(reg)
                    ),
                    s.span,
                )
                .with_related(fs, "first declared here")
                .with_note("each input and output semantic links one register to the other stage"),
            );
            return;
        }
        self.prog.io.push(IoDecl {
            reg,
            semantic,
            mask,
            interp: if centroid {
                Interp::Centroid
            } else {
                Interp::Perspective
            },
            pp,
            explicit: true,
            span: s.span,
        });
    }

    // ---- instructions --------------------------------------------------------------

    fn instruction(&mut self, base: &str, mods: &[&str], s: &Stmt) {
        let p = self.profile;
        if !self.seen_inst {
            self.seen_inst = true;
            self.first_inst_span = s.span;
        }
        let mut mod_iter = mods.iter();
        let mut op = match regs::MNEMONICS.iter().find(|(n, _)| *n == base) {
            Some((_, op)) => *op,
            None => {
                let mut d = err("E2010", format!("unknown instruction `{base}`"), s.op_span)
                    .with_label("unknown instruction");
                if regs::OLD_MNEMONICS.contains(&base) {
                    d = d.with_note(format!("`{base}` is a ps_1_x instruction"));
                } else if let Some(sug) = suggest(base, regs::MNEMONICS.iter().map(|(n, _)| *n)) {
                    d = d.with_hint(format!("did you mean `{sug}`?"));
                }
                self.report(d);
                return;
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
                    self.report(
                        err("E2012", "`setp` needs a comparison", s.op_span)
                            .with_hint("write `setp_gt`, `setp_lt`, `setp_ge`, `setp_le`, `setp_eq` or `setp_ne`"),
                    );
                    return;
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
                    let hint = match other {
                        "x2" | "x4" | "x8" | "d2" | "d4" | "d8" => {
                            "result scaling modifiers exist only in ps_1_x; multiply instead"
                        }
                        "centroid" => "`_centroid` is written on the dcl of the input",
                        "gt" | "lt" | "ge" | "le" | "eq" | "ne" => {
                            "comparisons apply to if, break and setp"
                        }
                        _ => "instructions take `_sat` and (pixel shaders) `_pp`",
                    };
                    self.report(
                        err(
                            "E2012",
                            format!("unknown modifier `_{other}` on `{base}`"),
                            s.op_span,
                        )
                        .with_hint(hint),
                    );
                    return;
                }
            }
        }
        // vs_1_1 writes the address register with `mov`; Hoist's IR calls that mova.
        if op == Op::Mov
            && p == Profile::Vs1_1
            && let Some(Operand::Reg(d)) = s.operands.first()
            && d.name == "a0"
        {
            op = Op::Mova;
        }
        if !p.has(op) {
            let mut d = err(
                "E2011",
                format!("`{}` is not available in {p}", regs::op_name(op, p)),
                s.op_span,
            )
            .with_label(format!("not a {p} instruction"));
            let have: Vec<&str> = Profile::ALL
                .iter()
                .filter(|q| q.dialect() == Dialect::D3d9 && q.has(op))
                .map(|q| q.header())
                .collect();
            d = if have.is_empty() {
                match op {
                    Op::Cnd => {
                        d.with_note("cnd exists only in ps_1_x; use cmp (src0 >= 0 ? src1 : src2)")
                    }
                    _ => d.with_note("no Direct3D 9 version Hoist reads has it"),
                }
            } else {
                d.with_note(format!("available in: {}", have.join(", ")))
            };
            if op == Op::Mov && p != Profile::Vs1_1 {
                d = d.with_hint("use mova to write a0");
            }
            self.report(d);
            return;
        }
        if op == Op::Mov
            && p != Profile::Vs1_1
            && let Some(Operand::Reg(d)) = s.operands.first()
            && d.name == "a0"
        {
            self.report(
                err(
                    "E2023",
                    "a0 is written with `mova` from vs_2_0 on",
                    s.op_span,
                )
                .with_hint(format!(
                    "write `mova {}`",
                    &self.src[s.op_span.end as usize..s.span.end as usize].trim()
                )),
            );
            return;
        }
        let pred = match &s.pred {
            Some(pt) => match self.predicate(pt) {
                Some(pr) => Some(pr),
                None => return,
            },
            None => None,
        };
        let ops = &s.operands;
        let info = op.info();
        let mut inst = Inst::new(op, None, []);
        inst.sat = sat;
        inst.pp = pp;
        inst.pred = pred;
        inst.comment = s.comment.clone();
        inst.span = s.span;
        let nsrc = crate::validate::src_count(op, p);
        let ok = match op {
            Op::Tex | Op::Txb | Op::Txp | Op::Texldl | Op::Texldd => {
                self.tex_inst(&mut inst, ops, s)
            }
            Op::Texkil => {
                self.expect_count(s, 1, "texkill r# (or t#)")
                    && self.src_into(&mut inst, &ops[0], SrcKind::Data)
            }
            Op::If => {
                self.expect_count(s, 1, "if b# (or if p0.x)")
                    && self.flow_src(
                        &mut inst,
                        &ops[0],
                        &[RegFile::ConstBool, RegFile::Predicate],
                    )
            }
            Op::Callnz => {
                self.expect_count(s, 2, "callnz l#, b# (or p0.x)")
                    && self.flow_src(&mut inst, &ops[0], &[RegFile::Label])
                    && self.flow_src(
                        &mut inst,
                        &ops[1],
                        &[RegFile::ConstBool, RegFile::Predicate],
                    )
            }
            Op::Call | Op::Label => {
                self.expect_count(s, 1, &format!("{base} l#"))
                    && self.flow_src(&mut inst, &ops[0], &[RegFile::Label])
            }
            Op::Loop => {
                self.expect_count(s, 2, "loop aL, i#")
                    && self.flow_src(&mut inst, &ops[0], &[RegFile::Loop])
                    && self.flow_src(&mut inst, &ops[1], &[RegFile::ConstInt])
            }
            Op::Rep => {
                self.expect_count(s, 1, "rep i#")
                    && self.flow_src(&mut inst, &ops[0], &[RegFile::ConstInt])
            }
            Op::Breakp => {
                self.expect_count(s, 1, "breakp p0.x")
                    && self.flow_src(&mut inst, &ops[0], &[RegFile::Predicate])
            }
            Op::Ifc(_) | Op::Breakc(_) => {
                self.expect_count(s, 2, &format!("{} src0, src1", s.op))
                    && self.src_into(&mut inst, &ops[0], SrcKind::Data)
                    && self.src_into(&mut inst, &ops[1], SrcKind::Data)
            }
            _ => {
                let n = nsrc + usize::from(info.has_dst);
                let form = if info.has_dst { "dst" } else { "" };
                let want = format!(
                    "{} {}{}",
                    s.op,
                    form,
                    (0..nsrc).map(|i| format!(", src{i}")).collect::<String>()
                );
                let want = want.replace(" , ", " ");
                if !self.expect_count(s, n, want.trim()) {
                    false
                } else {
                    let mut ok = true;
                    let mut it = ops.iter();
                    if info.has_dst {
                        ok &= self.dst_into(&mut inst, it.next().unwrap());
                    }
                    for (k, o) in it.enumerate() {
                        let kind = if k == 1 && op.matrix_rows().is_some() {
                            SrcKind::Matrix(op.matrix_rows().unwrap() as u32)
                        } else {
                            SrcKind::Data
                        };
                        ok &= self.src_into(&mut inst, o, kind);
                    }
                    ok
                }
            }
        };
        if ok {
            self.prog.insts.push(inst);
        }
    }

    fn expect_count(&mut self, s: &Stmt, n: usize, form: &str) -> bool {
        if s.operands.len() == n {
            return true;
        }
        let span = if s.operands.is_empty() {
            s.span
        } else {
            s.operands[0].span().join(s.operands.last().unwrap().span())
        };
        self.report(
            err(
                "E2013",
                format!(
                    "`{}` takes {n} operand{}, found {}",
                    s.op,
                    if n == 1 { "" } else { "s" },
                    s.operands.len()
                ),
                span,
            )
            .with_hint(format!("the form is `{form}`")),
        );
        false
    }

    fn predicate(&mut self, pt: &PredTok) -> Option<Predicate> {
        let (reg, _) = self.resolve(&pt.reg, pt.reg_span, false)?;
        if reg.file != RegFile::Predicate {
            self.report(err(
                "E2115",
                "instructions are predicated on p0",
                pt.reg_span,
            ));
            return None;
        }
        let swizzle = match &pt.swizzle {
            Some((t, span)) => match parse_swizzle(t) {
                Some(s) => s,
                None => {
                    self.report(bad_swizzle(t, *span));
                    return None;
                }
            },
            None => Swizzle::IDENTITY,
        };
        Some(Predicate {
            negate: pt.negate,
            swizzle,
        })
    }

    fn tex_inst(&mut self, inst: &mut Inst, ops: &[Operand], s: &Stmt) -> bool {
        let texldd = inst.op == Op::Texldd;
        let n = if texldd { 5 } else { 3 };
        let form = if texldd {
            format!("{} dst, src0, s#, src2, src3", s.op)
        } else {
            format!("{} dst, src0, s#", s.op)
        };
        if !self.expect_count(s, n, &form) {
            return false;
        }
        let mut ok = self.dst_into(inst, &ops[0]);
        ok &= self.src_into(inst, &ops[1], SrcKind::Data);
        // Sampler.
        let Operand::Reg(sr) = &ops[2] else {
            self.report(err("E2023", "expected a sampler (s#)", ops[2].span()));
            return false;
        };
        let Some((sreg, _)) = self.resolve(&sr.name, sr.name_span, false) else {
            return false;
        };
        if sreg.file != RegFile::Sampler {
            self.report(
                err(
                    "E2023",
                    format!("`{}` is not a sampler", reg_name(sreg)),
                    sr.span,
                )
                .with_hint(format!("the form is `{form}`")),
            );
            return false;
        }
        if sr.neg || sr.abs || sr.rel.is_some() || sr.bang {
            self.report(err("E2104", "a sampler takes no modifiers", sr.span));
            return false;
        }
        if let Some((_, sspan)) = &sr.suffix
            && self.profile != Profile::Ps3_0
        {
            self.report(err(
                "E2104",
                format!("a sampler takes no swizzle in {}", self.profile),
                *sspan,
            ));
            return false;
        }
        let target = match self
            .prog
            .samplers
            .iter()
            .find(|d| d.unit as u16 == sreg.index)
        {
            Some(d) => d.target,
            None => {
                self.report(
                    err(
                        "E2051",
                        format!("sampler `{}` is used but not declared", reg_name(sreg)),
                        sr.span,
                    )
                    .with_label("needs dcl_2d, dcl_cube or dcl_volume")
                    .with_hint(format!(
                        "add `dcl_2d {}` before the first instruction",
                        reg_name(sreg)
                    )),
                );
                return false;
            }
        };
        inst.tex = Some(TexRef {
            unit: sreg.index as u8,
            target,
        });
        if texldd {
            ok &= self.src_into(inst, &ops[3], SrcKind::Data);
            ok &= self.src_into(inst, &ops[4], SrcKind::Data);
        }
        ok
    }

    fn flow_src(&mut self, inst: &mut Inst, o: &Operand, files: &[RegFile]) -> bool {
        let Operand::Reg(r) = o else {
            self.report(err("E2023", "expected a register", o.span()));
            return false;
        };
        let Some((reg, _)) = self.resolve(&r.name, r.name_span, false) else {
            return false;
        };
        if !files.contains(&reg.file) {
            let want: Vec<&str> = files.iter().map(|f| reg_kind(*f)).collect();
            self.report(
                err(
                    "E2023",
                    format!("expected {}, found `{}`", want.join(" or "), reg_name(reg)),
                    r.span,
                )
                .with_label("wrong register type"),
            );
            return false;
        }
        let pred = reg.file == RegFile::Predicate;
        if r.neg || r.abs || r.rel.is_some() || (r.bang && !pred) || r.bad_modifier.is_some() {
            self.report(err("E2023", "this operand takes no modifiers", r.span));
            return false;
        }
        let mut src = Src::new(reg);
        src.span = r.span;
        if let Some((t, span)) = &r.suffix {
            if !pred {
                self.report(err("E2024", "this operand takes no swizzle", *span));
                return false;
            }
            match parse_swizzle(t) {
                Some(s) => src.swizzle = s,
                None => {
                    self.report(bad_swizzle(t, *span));
                    return false;
                }
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
                    self.report(
                        err("E2026", format!("`{c}` is not an address component"), *span)
                            .with_hint("write a0.x (vs_2_0 and later also a0.y, a0.z, a0.w)"),
                    );
                    return None;
                }
            },
            (RegFile::Address, None) => {
                self.report(
                    err(
                        "E2026",
                        "the address register needs a component",
                        rt.reg_span,
                    )
                    .with_hint("write `a0.x`"),
                );
                return None;
            }
            (RegFile::Loop, None) => 0,
            (RegFile::Loop, Some((_, span))) => {
                self.report(err("E2026", "aL takes no component", *span));
                return None;
            }
            _ => {
                self.report(
                    err(
                        "E2026",
                        format!("`{}` cannot index registers", reg_name(areg)),
                        rt.reg_span,
                    )
                    .with_hint("index with a0.x (or aL inside a loop)"),
                );
                return None;
            }
        };
        let total = base as i64 + rt.offset;
        let count = file_count(file, self.profile, self.limits);
        if total < 0 || total >= count as i64 {
            self.report(err(
                "E2026",
                format!(
                    "offset {total} is outside the register file (0..{})",
                    count.saturating_sub(1)
                ),
                rt.span,
            ));
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
            self.report(
                err(
                    "E2027",
                    format!("source modifier `{m}` does not exist in {}", self.profile),
                    *span,
                )
                .with_hint("Direct3D 9 shaders have `-` (negate) and, in 3_0, `_abs`"),
            );
            return None;
        }
        Some((reg, rel))
    }

    fn dst_into(&mut self, inst: &mut Inst, o: &Operand) -> bool {
        let Operand::Reg(r) = o else {
            self.report(err("E2023", "expected a destination register", o.span()));
            return false;
        };
        if r.neg || r.bang || r.abs {
            self.report(
                err(
                    "E2023",
                    "a destination register takes no source modifiers",
                    r.span,
                )
                .with_hint("negate or take |x| on a source instead"),
            );
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
                    self.report(bad_mask(m, *span));
                    return false;
                }
            },
            None if scalar_out => WriteMask::X,
            None => WriteMask::ALL,
        };
        if reg.file.is_output() || reg.file.is_input() {
            if reg.file.is_input() {
                self.report(
                    err(
                        "E2110",
                        format!("`{}` is an input and cannot be written", reg_name(reg)),
                        r.span,
                    )
                    .with_label("read-only register")
                    .with_hint("write the value to a temporary (r#) instead"),
                );
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
            self.report(
                err(
                    "E2110",
                    format!("`{}` cannot be written", reg_name(reg)),
                    r.span,
                )
                .with_label("read-only register")
                .with_hint("write to a temporary (r#) or an output register"),
            );
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
            self.report(
                err("E2023", "expected a register", o.span())
                    .with_hint("put literal values in a constant register with `def`"),
            );
            return false;
        };
        if r.bang {
            self.report(err(
                "E2023",
                "`!` applies only to the predicate register",
                r.span,
            ));
            return false;
        }
        let Some((reg, rel)) = self.reg_operand(r) else {
            return false;
        };
        if reg.file.is_output() {
            self.report(
                err(
                    "E2110",
                    format!("`{}` is an output and cannot be read", reg_name(reg)),
                    r.span,
                )
                .with_label("write-only register")
                .with_hint("keep the value in a temporary (r#) and read that"),
            );
            return false;
        }
        if reg.file.is_input() && !self.need_decl(reg, r.span) {
            return false;
        }
        let swizzle = match &r.suffix {
            Some((t, span)) => match parse_swizzle(t) {
                Some(s) => s,
                None => {
                    self.report(bad_swizzle(t, *span));
                    return false;
                }
            },
            None => Swizzle::IDENTITY,
        };
        let rows = match kind {
            SrcKind::Matrix(n) => n,
            SrcKind::Data => 1,
        };
        if let SrcKind::Matrix(n) = kind {
            let last = reg.index as u32 + n - 1;
            if rel.is_none() && last >= file_count(reg.file, self.profile, self.limits) {
                self.report(err(
                    "E2022",
                    format!(
                        "the matrix {}..{} runs past the last register",
                        reg_name(reg),
                        reg_name(Reg::new(reg.file, last.min(u16::MAX as u32) as u16))
                    ),
                    r.span,
                ));
                return false;
            }
            if reg.file.is_input() {
                for k in 1..n {
                    if !self.need_decl(Reg::new(reg.file, reg.index + k as u16), r.span) {
                        return false;
                    }
                }
            }
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

    /// Finishes the program: dense constant tables, counts, implicit declarations.
    pub fn finish(mut self) -> (Program, Vec<Diagnostic>) {
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
        (self.prog, self.diags)
    }
}

#[derive(Clone, Copy)]
enum SrcKind {
    Data,
    /// Source 1 of a matrix macro: this many consecutive registers.
    Matrix(u32),
}

fn reg_kind(f: RegFile) -> &'static str {
    match f {
        RegFile::Const => "constant (c#)",
        RegFile::ConstInt => "integer constant (i#)",
        RegFile::ConstBool => "boolean constant (b#)",
        RegFile::Label => "label (l#)",
        RegFile::Loop => "the loop counter (aL)",
        RegFile::Predicate => "the predicate register (p0)",
        RegFile::Sampler => "sampler (s#)",
        _ => "register",
    }
}

fn example_def(base: &str) -> &'static str {
    match base {
        "def" => "def c0, 1.0, 0.5, 0.0, 1.0",
        "defi" => "defi i0, 4, 0, 1, 0",
        _ => "defb b0, true",
    }
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

fn bad_swizzle(t: &str, span: Span) -> Diagnostic {
    err("E2024", format!("`.{t}` is not a swizzle"), span)
        .with_label("bad swizzle")
        .with_hint("a swizzle is 1 to 4 letters of xyzw (or rgba), e.g. `.x`, `.xy`, `.wzyx`")
}

fn bad_mask(t: &str, span: Span) -> Diagnostic {
    err("E2025", format!("`.{t}` is not a write mask"), span)
        .with_label("bad write mask")
        .with_hint("a write mask lists components in order without repeats, e.g. `.xy`, `.xzw`")
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

//! Dialect-independent checks over the IR: structural invariants, availability of each
//! operation in the program's profile, and resource limits.
//!
//! Structural problems (dangling indices, missing declarations) are internal errors with
//! code `E09xx`; availability and limit violations are ordinary user-facing diagnostics.
//! Each front end runs these around its own operand rules (`arb::rules`, `d3d9::rules`);
//! [`crate::validate::check`] runs the same sequence for a program of either dialect.

use crate::diag::{Diagnostic, code};
use crate::ir::{
    ConstBinding, Dialect, Program, Reg, RegFile, Span, Stage, SymKind, sampler_index,
};
use crate::ops::{Op, Shape};
use crate::profile::{Limits, Profile, file_count, src_count};

/// Every check of a program, in the order the front ends report them: IR invariants, the
/// dialect's operand `rules`, then resource limits.
pub fn check_with(
    p: &Program,
    limits: &Limits,
    rules: impl FnOnce(&Program, &Limits) -> Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    let mut out = check_ir(p);
    out.extend(rules(p, limits));
    out.extend(check_limits(p, limits));
    out
}

fn internal(msg: String, span: Span) -> Diagnostic {
    Diagnostic::error(code!("E0900"), msg, span)
        .with_note("this is a bug in Hoist, not in your program")
}

fn reg_exists(p: &Program, reg: Reg) -> bool {
    let i = reg.index as usize;
    match reg.file {
        RegFile::Temp => reg.index < p.num_temps,
        RegFile::Const => i < p.consts.len(),
        RegFile::ConstInt => i < p.int_consts.len(),
        RegFile::ConstBool => i < p.bool_consts.len(),
        RegFile::Address => reg.index < p.num_addrs,
        RegFile::Input
        | RegFile::TexCoord
        | RegFile::Misc
        | RegFile::RastOut
        | RegFile::AttrOut
        | RegFile::TexCrdOut
        | RegFile::Output
        | RegFile::ColorOut
        | RegFile::DepthOut => p.io_decl(reg).is_some(),
        RegFile::Sampler | RegFile::Loop | RegFile::Predicate | RegFile::Label => true,
    }
}

fn file_allowed(stage: Stage, file: RegFile) -> bool {
    match file {
        RegFile::RastOut | RegFile::AttrOut | RegFile::TexCrdOut | RegFile::Output => {
            stage == Stage::Vertex
        }
        RegFile::TexCoord | RegFile::Misc | RegFile::ColorOut | RegFile::DepthOut => {
            stage == Stage::Fragment
        }
        _ => true,
    }
}

/// Structural invariants of the IR.
pub fn check_ir(p: &Program) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let stage = p.stage();
    for (n, inst) in p.insts.iter().enumerate() {
        let info = inst.info();
        let name = info.arb.or(info.d3d).unwrap_or("?");
        let at = inst.span;
        if !p.profile.has(inst.op) {
            out.push(
                Diagnostic::error(
                    code!("E0101"),
                    format!("`{name}` is not available in {}", p.profile),
                    at,
                )
                .with_label("not in this profile"),
            );
        }
        if info.has_dst != inst.dst.is_some() {
            out.push(internal(
                format!("instruction {n} ({name}): destination mismatch"),
                at,
            ));
        }
        let want = src_count(inst.op, p.profile);
        if inst.src.len() != want {
            out.push(internal(
                format!(
                    "instruction {n} ({name}): {} sources, expected {want}",
                    inst.src.len()
                ),
                at,
            ));
        }
        if inst.op.is_texture() != inst.tex.is_some() {
            out.push(internal(
                format!("instruction {n} ({name}): texture unit mismatch"),
                at,
            ));
        }
        if (inst.op == Op::Swz) != inst.ext_swizzle.is_some() {
            out.push(internal(
                format!("instruction {n} ({name}): SWZ selector mismatch"),
                at,
            ));
        }
        if let Some(d) = &inst.dst {
            if d.mask.is_empty() {
                out.push(internal(
                    format!("instruction {n} ({name}): empty write mask"),
                    at,
                ));
            }
            let writable = d.reg.file.is_output()
                || matches!(
                    d.reg.file,
                    RegFile::Temp | RegFile::Address | RegFile::Predicate
                );
            if !writable {
                out.push(
                    Diagnostic::error(
                        code!("E0102"),
                        format!("{:?} registers cannot be written", d.reg.file),
                        d.span.join(at),
                    )
                    .with_label("read-only register"),
                );
            }
            if !reg_exists(p, d.reg) {
                out.push(internal(
                    format!("instruction {n}: undeclared destination {:?}", d.reg),
                    at,
                ));
            }
            if !file_allowed(stage, d.reg.file) {
                out.push(internal(
                    format!("instruction {n}: {:?} in a {stage:?} program", d.reg.file),
                    at,
                ));
            }
        }
        for (k, s) in inst.src.iter().enumerate() {
            let rows = inst.src_rows(k);
            for r in 0..rows as u16 {
                let reg = Reg::new(s.reg.file, s.reg.index.saturating_add(r));
                if s.rel.is_none() && !reg_exists(p, reg) {
                    out.push(internal(
                        format!("instruction {n} ({name}): undeclared source {reg:?}"),
                        s.span.join(at),
                    ));
                }
            }
            if let Some(rel) = &s.rel
                && (rel.lo > rel.hi || !reg_exists(p, rel.reg) && rel.reg.file == RegFile::Address)
            {
                {
                    out.push(internal(
                        format!("instruction {n}: bad relative address"),
                        at,
                    ));
                }
            }
            if !file_allowed(stage, s.reg.file) || s.reg.file.is_output() {
                out.push(internal(
                    format!("instruction {n}: reads {:?}", s.reg.file),
                    at,
                ));
            }
            if let Some(id) = s.name
                && id as usize >= p.symbols.len()
            {
                out.push(internal(format!("instruction {n}: dangling name {id}"), at));
            }
        }
        if matches!(info.shape, Shape::Tex)
            && inst.tex.is_some()
            && stage == Stage::Vertex
            && !matches!(p.profile, Profile::Vs3_0)
        {
            out.push(internal(
                format!("instruction {n}: texture op in vertex program"),
                at,
            ));
        }
    }
    for (i, s) in p.symbols.iter().enumerate() {
        let ok = match &s.kind {
            SymKind::Temp(t) => *t < p.num_temps,
            SymKind::Address(a) => *a < p.num_addrs,
            SymKind::Attrib(r) | SymKind::Output(r) => reg_exists(p, *r),
            SymKind::Param { base, len, .. } => (*base as usize + *len as usize) <= p.consts.len(),
            SymKind::Alias(t) => (*t as usize) < p.symbols.len() && *t as usize != i,
        };
        if !ok {
            out.push(internal(format!("symbol `{}` is dangling", s.name), s.span));
        }
    }
    out
}

/// Resource limits: slots, registers, interpolators, samplers.
pub fn check_limits(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let whole = p.insts_span();
    let slots = p.slots();
    let unit = if p.dialect() == Dialect::Arb {
        "instructions"
    } else {
        "instruction slots"
    };
    let over = |what: &str, used: u32, max: u32| {
        Diagnostic::error(
            code!("E0301"),
            format!("program uses {used} {what}, the limit is {max}"),
            whole,
        )
        .with_note(format!("limits: {}", limits.source))
    };
    if slots.total() > limits.max_slots {
        out.push(over(unit, slots.total(), limits.max_slots));
    }
    if let Some(m) = limits.max_alu_slots
        && slots.alu > m
    {
        out.push(over(&format!("arithmetic {unit}"), slots.alu, m));
    }
    if let Some(m) = limits.max_tex_slots
        && slots.tex > m
    {
        out.push(over(&format!("texture {unit}"), slots.tex, m));
    }
    if p.num_temps > limits.temps {
        out.push(
            Diagnostic::error(
                code!("E0302"),
                format!(
                    "program uses {} temporaries, the limit is {}",
                    p.num_temps, limits.temps
                ),
                whole,
            )
            .with_note(format!("limits: {}", limits.source)),
        );
    }
    if p.consts.len() > limits.consts as usize {
        let what = if p.dialect() == Dialect::Arb {
            "parameter slots"
        } else {
            "constant registers"
        };
        out.push(
            Diagnostic::error(
                code!("E0303"),
                format!(
                    "program uses {} {what}, the limit is {}",
                    p.consts.len(),
                    limits.consts
                ),
                whole,
            )
            .with_note(format!("limits: {}", limits.source)),
        );
    }
    for c in &p.consts {
        let (kind, n, max) = match c.binding {
            ConstBinding::Env(n) => ("env", n, limits.env_params),
            ConstBinding::Local(n) => ("local", n, limits.local_params),
            _ => continue,
        };
        if n >= max && p.dialect() == Dialect::Arb {
            out.push(
                Diagnostic::error(
                    code!("E0304"),
                    format!("program.{kind}[{n}] is out of range (limit {max})"),
                    c.span,
                )
                .with_label("index too large"),
            );
        }
    }
    for d in &p.io {
        let (what, n, max) = match (d.reg.file, p.stage()) {
            (RegFile::TexCoord, _) | (RegFile::TexCrdOut, _) => {
                ("texture coordinate", d.reg.index, limits.texcoords as u16)
            }
            (RegFile::AttrOut, _) => ("colour output", d.reg.index, limits.colors as u16 * 2),
            (RegFile::Input, Stage::Vertex) => ("vertex attribute", d.reg.index, limits.attribs),
            (RegFile::Input, Stage::Fragment) if p.profile == Profile::Ps3_0 => {
                ("input register", d.reg.index, limits.attribs)
            }
            (RegFile::Output, _) => (
                "output register",
                d.reg.index,
                file_count(RegFile::Output, p.profile, limits) as u16,
            ),
            _ => continue,
        };
        if n >= max {
            out.push(
                Diagnostic::error(
                    code!("E0305"),
                    format!("{what} {n} is out of range (limit {max})"),
                    d.span,
                )
                .with_note(format!("limits: {}", limits.source)),
            );
        }
    }
    for inst in &p.insts {
        if let Some(t) = inst.tex
            && sampler_index(p.stage(), t.unit) >= limits.samplers
        {
            {
                out.push(
                    Diagnostic::error(
                        code!("E0306"),
                        format!(
                            "texture unit {} is out of range (limit {})",
                            sampler_index(p.stage(), t.unit),
                            limits.samplers
                        ),
                        inst.span,
                    )
                    .with_label("sampler out of range"),
                );
            }
        }
    }
    out
}

//! Direct3D 9 shader assembly (`vs_1_1` … `vs_3_0`, `ps_2_0` … `ps_3_0`): front end,
//! printer and per-version operand rules.
//!
//! - [`lexer`]: lines of tokens, comments kept per line;
//! - [`parser`]: one statement per line;
//! - [`lower`]: statements to the IR, with names, declarations and constants resolved;
//! - [`printer`]: canonical text, `parse(print(p)) == p` up to spans;
//! - [`rules`]: the operand rules of each version, over the IR;
//! - [`regs`]: register names, usages and mnemonics shared by the above;
//! - [`error`]: the `E20xx`/`E21xx` errors, raised as [`D3d9Error`] values and turned into
//!   diagnostic text in one place.

pub mod error;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod printer;
pub mod regs;
pub mod rules;

use crate::checks::check_with;
use crate::diag::{Diagnostic, Parsed, has_errors};
use crate::ir::{ConstBinding, ConstSlot, Inst, Program, Reg, RegFile, Span};
use crate::profile::{Limits, Profile};

pub use error::D3d9Error;

/// Parses a program of this dialect. Every error found is reported; the program is
/// returned only when there are none. Linear in the input.
pub fn parse(source: &str, profile: Profile, limits: &Limits) -> Parsed {
    let (lines, unterminated) = lexer::lex(source);
    let mut lower = lower::Lower::new(source, profile, limits);
    lower.run(&lines);
    let error_count = lower.error_count();
    let (program, errors) = lower.finish();
    let mut diags: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
    if let Some(u) = unterminated {
        diags.push(D3d9Error::UnclosedComment.to_diagnostic(u.0));
    }
    if error_count == 0 && unterminated.is_none() {
        diags.extend(check(&program, limits));
    } else if error_count < error::MAX_ERRORS {
        diags.extend(rules::check_partial(&program));
    }
    crate::sort::by_key(&mut diags, |d| {
        if d.span.is_none() {
            u32::MAX
        } else {
            d.span.start
        }
    });
    let ok = !has_errors(&diags);
    Parsed {
        program: ok.then_some(program),
        diagnostics: diags,
    }
}

/// Prints a program in this dialect.
pub fn print(p: &Program) -> String {
    printer::print(p)
}

/// Prints a program with the line and operand spans of every instruction.
pub fn print_with_spans(p: &Program) -> crate::printed::Printed {
    printer::print_with_spans(p)
}

/// Every check of a Direct3D 9 program: IR invariants, the operand rules of its version,
/// then resource limits.
pub fn check(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    check_with(p, limits, check_rules)
}

/// Dialect operand rules over the IR.
pub fn check_rules(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    rules::check(p, limits)
}

/// The operand rules of one instruction (see [`rules::check_inst`]).
pub fn check_inst(p: &Program, inst: &Inst) -> Vec<Diagnostic> {
    rules::check_inst(p, inst)
}

/// Reorders `io` the way the front end builds it: explicit declarations (and those the
/// version requires) first, in their current order, then implicitly declared registers in
/// order of first use. Passes that add outputs can call this so that
/// `parse(print(p)) == p` holds whatever order they pushed declarations in.
pub fn canonicalize(p: &mut Program) {
    let prof = p.profile;
    for d in &mut p.io {
        if regs::requires_dcl(d.reg, prof) {
            d.explicit = true;
        }
    }
    let (mut explicit, implicit): (Vec<_>, Vec<_>) = p.io.drain(..).partition(|d| d.explicit);
    let mut order: Vec<Reg> = Vec::new();
    for i in &p.insts {
        let regs = i
            .dst
            .iter()
            .map(|d| d.reg)
            .chain(i.src.iter().map(|s| s.reg));
        for r in regs {
            if !order.contains(&r) {
                order.push(r);
            }
        }
    }
    let mut implicit = implicit;
    crate::sort::by_key(&mut implicit, |d| {
        order.iter().position(|r| *r == d.reg).unwrap_or(usize::MAX)
    });
    explicit.extend(implicit);
    p.io = explicit;
    dense_consts(p);
}

/// The constant table the front end builds: one slot per register up to the highest one an
/// instruction reads or a `def` defines (the whole file with relative addressing), host-set
/// where there is no `def`.
fn dense_consts(p: &mut Program) {
    let mut n = p
        .consts
        .iter()
        .rposition(|c| matches!(c.binding, ConstBinding::Literal(_)))
        .map_or(0, |i| i + 1);
    for inst in &p.insts {
        for (k, s) in inst.src.iter().enumerate() {
            if s.reg.file != RegFile::Const {
                continue;
            }
            if s.rel.is_some() {
                let limits = p.profile.limits();
                n = n.max(regs::file_count(RegFile::Const, p.profile, &limits) as usize);
                continue;
            }
            let rows = inst.src_rows(k);
            n = n.max(s.reg.index as usize + rows as usize);
        }
    }
    while p.consts.len() > n
        && matches!(
            p.consts.last().map(|c| &c.binding),
            Some(ConstBinding::Env(_))
        )
    {
        p.consts.pop();
    }
    while p.consts.len() < n {
        let i = p.consts.len() as u16;
        p.consts.push(ConstSlot {
            binding: ConstBinding::Env(i),
            span: Span::NONE,
        });
    }
}

//! ARB_vertex_program / ARB_fragment_program 1.0: front end and printer.
//!
//! [`parse`] runs [`lexer`] → [`parser`] (syntax tree with spans, recovering at `;`) →
//! [`resolve`] (names, bindings, declarations → IR) and then [`check`]: the IR checks of
//! [`crate::checks`] around this dialect's rules ([`check_rules`]).
//! [`print`] writes canonical ARB that parses back to the same program.
//!
//! Names that begin with `$` are reserved for generated declarations: they resolve like
//! any name but are not kept as symbols, so the printer can name registers a pass added.

mod ast;
mod bindings;
mod error;
mod lexer;
mod parser;
mod printer;
mod resolve;
mod rules;

pub use bindings::state_text;
pub use error::ArbError;
pub use printer::fmt_f32;
pub use resolve::arb_ops;
pub use rules::tex_indirections;

use crate::checks::check_with;
use crate::diag::{self, Diagnostic, Parsed};
use crate::ir::Program;
use crate::profile::{Limits, Profile};

/// Parses a program of this dialect.
pub fn parse(source: &str, profile: Profile, limits: &Limits) -> Parsed {
    let (ast, mut errors) = parser::parse(source, profile);
    let mut program = None;
    let stopped = errors
        .iter()
        .any(|e| matches!(e.error, ArbError::TooManyErrors { .. }));
    if let (Some(ast), false) = (ast, stopped) {
        let budget = parser::MAX_ERRORS.saturating_sub(errors.len());
        let (p, more) = resolve::resolve(&ast, profile, limits, budget);
        errors.extend(more);
        program = Some(p);
    }
    crate::sort::by_key(&mut errors, |e| {
        (
            e.span.start,
            matches!(e.error, ArbError::TooManyErrors { .. }),
        )
    });
    let mut diagnostics: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
    if !diag::has_errors(&diagnostics)
        && let Some(p) = &program
    {
        diagnostics.extend(check(p, limits));
    }
    let ok = !diag::has_errors(&diagnostics);
    Parsed {
        program: program.filter(|_| ok),
        diagnostics,
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

/// Every check of an ARB program: IR invariants, the ARB rules, then resource limits.
pub fn check(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    check_with(p, limits, check_rules)
}

/// Dialect operand rules over the IR.
pub fn check_rules(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    rules::check_rules(p, limits)
}

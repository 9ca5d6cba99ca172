//! Front end and printer (in progress).

use crate::Parsed;
use crate::diag::Diagnostic;
use crate::ir::Program;
use crate::profile::{Limits, Profile};

/// Parses a program of this dialect.
pub fn parse(_source: &str, _profile: Profile, _limits: &Limits) -> Parsed {
    Parsed {
        program: None,
        diagnostics: vec![Diagnostic::error(
            "E0000",
            "front end not written yet",
            crate::Span::new(0, 0),
        )],
    }
}

/// Prints a program in this dialect.
pub fn print(_p: &Program) -> String {
    String::new()
}

/// Dialect operand rules over the IR.
pub fn check_rules(_p: &Program, _limits: &Limits) -> Vec<Diagnostic> {
    Vec::new()
}

//! Validation of a program of either dialect: the one entry point the optimizer, its tests
//! and the translator use to ask "would the assembler accept this?".
//!
//! [`check`] runs the dialect-independent checks of [`crate::checks`] (IR invariants,
//! profile availability, resource limits) around the dialect's operand rules, exactly as
//! the front end does after parsing; every optimizer pass is followed by it in tests and
//! debug builds, so a pass cannot emit a program the parser would reject. This module sits
//! above both front ends and is imported by neither.

use crate::diag::Diagnostic;
use crate::ir::{Dialect, Program};
use crate::profile::Limits;

pub use crate::checks::{check_ir, check_limits};
pub use crate::profile::src_count;

/// All checks: invariants, availability, dialect rules and limits.
pub fn check(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    match p.dialect() {
        Dialect::Arb => crate::arb::check(p, limits),
        Dialect::D3d9 => crate::d3d9::check(p, limits),
    }
}

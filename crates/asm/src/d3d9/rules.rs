//! Per-version operand rules (E21xx), over the IR.
pub fn check(_p: &crate::ir::Program, _l: &crate::profile::Limits) -> Vec<crate::diag::Diagnostic> {
    Vec::new()
}

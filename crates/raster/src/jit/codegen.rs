//! Module layout: imports, the `run` export, the loop over 4-lane chunks.
use super::Refusal;
use crate::compile::Kernel;

pub(super) fn module(_k: &Kernel) -> Result<(Vec<u8>, usize), Refusal> {
    Err(Refusal::Unsupported("code generation is not written yet".into()))
}

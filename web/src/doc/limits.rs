//! What a document may hold: the sizes a link or a file may bring in.

/// Longest program text accepted (bytes).
pub const MAX_PROGRAM: usize = 64 * 1024;
/// Longest scene text accepted (bytes).
pub const MAX_SCENE: usize = 128 * 1024;
/// Largest render target edge (pixels).
pub const MAX_SIZE: u32 = 1024;
/// Largest built-in texture edge (pixels).
pub const MAX_TEX_SIZE: u32 = 1024;
/// Most parameters and texture units a document may set (units 0..31: 16..31 are
/// D3D9's vertex samplers, `hoist_asm::ir::VERTEX_SAMPLER_BASE`).
pub const MAX_PARAMS: usize = 256;
pub const MAX_UNITS: usize = 32;

//! # hoist-raster: the software GPU that proves optimizations
//!
//! Renders vertex/fragment assembly program pairs (ARB and Direct3D 9, via the shared IR of
//! `hoist-asm`) the way a GL implementation does, so that the original and the optimized
//! pair can be compared pixel for pixel and held against Mesa's llvmpipe.
//!
//! ## Pipeline
//! 1. **Vertex stage** ([`raster`]): the vertex program runs once per vertex (64 vertices per
//!    batch), or fixed-function transform when there is none (`OPTION ARB_position_invariant`
//!    uses the same MVP arithmetic).
//! 2. **Primitive setup**: clipping against w > 0, the near and far planes and a guard band,
//!    perspective divide, viewport transform, 1/256-pixel snapping, facing and culling.
//! 3. **Rasterization**: 8×8 tiles of 2×2 quads, edge functions in integers, pixel centres at
//!    +½, ties owned by left and bottom edges (GL window coordinates, y up) — the "top-left"
//!    rule of a y-down framebuffer.
//! 4. **Interpolation**: perspective-correct in f64 then rounded, for every varying; colours
//!    are clamped at the vertex (GL default); `fragment.position`/`vPos`, `vFace`, depth.
//! 5. **Fragment stage**: the compiled kernel runs over the tile's 64 lanes
//!    ([`exec`]); KIL discards; the depth test and the colour write follow.
//!
//! Programs are compiled once ([`compile`]) into a flat kernel over structure-of-arrays
//! batches. Natively, bands of 8 rows are shaded in parallel with rayon (feature
//! `parallel`); the web build is single-threaded and renders incrementally ([`job`]).
//!
//! ## Entry points
//! - [`render`]: one program pair, one draw, one float image;
//! - [`job::RenderJob`]: the same, a bounded number of bands per call;
//! - [`probe`]: a program run on given values (per vertex, or per fragment with given
//!   interpolants and a trace of every instruction), for translation validation;
//! - [`scene::parse`] and [`scene::run`]: piglit shader_runner scenes plus Hoist's GPGPU
//!   extensions (render targets, passes, ping-pong), documented in `SCENES.md`;
//! - [`image::compare`], [`image::to_rgba8`], [`image::encode_pf4`], [`image::encode_png`].
//!
//! The crate does no I/O, spawns no threads of its own (rayon only with `parallel`) and
//! reads no clocks, so it builds for `wasm32-unknown-unknown`.

// Lane loops index several rows in lockstep (`o[l] = f(a[l], b[l])`): written as index
// loops on purpose, the form that vectorises uniformly.
#![allow(clippy::needless_range_loop)]
// `!(a < b)` is deliberate wherever NaN must take the other branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

/// The scalar semantics of every operation live with the language ([`hoist_asm::semantics`]),
/// so the executor and the optimizer's constant folding share one implementation.
pub use hoist_asm::semantics as alu;
pub mod compile;
pub mod draw;
pub mod error;
pub mod eval64;
pub mod exec;
pub mod fog;
pub mod glstate;
pub mod image;
pub mod jit;
pub mod job;
pub mod pattern;
pub mod probe;
pub mod program;
pub mod raster;
pub mod scene;
pub mod texture;
pub mod trace;
pub mod value;

use hoist_asm::Program;

pub use draw::{
    ATTRIBS, Caps, DrawState, Geometry, Mesh, Params, RenderConfig, Rendered, StageParams, Stats,
    TargetFormat,
};
pub use error::RenderError;
pub use glstate::GlState;
pub use image::{Image, Verdict, compare};
pub use texture::{Filter, MipFilter, Sampler, TexFormat, Texture, Wrap};

/// Renders one draw of a program pair (either may be `None` for fixed function) into a
/// fresh target cleared to `cfg.clear`.
pub fn render(
    vp: Option<&Program>,
    fp: Option<&Program>,
    cfg: &RenderConfig,
) -> Result<Rendered, RenderError> {
    let mut job = job::RenderJob::new(vp, fp, cfg)?;
    job.run_to_end();
    Ok(job.finish())
}

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
pub mod exec;
pub mod fog;
pub mod glstate;
pub mod image;
pub mod jit;
pub mod job;
pub mod pattern;
pub mod probe;
pub mod raster;
pub mod scene;
pub mod texture;

use hoist_asm::Program;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use glstate::GlState;
pub use image::{Image, Verdict, compare};
pub use texture::{Filter, MipFilter, Sampler, TexFormat, Texture, Wrap};

/// Number of vertex attribute slots (ARB aliasing: position 0, weight 1, normal 2, colour 3,
/// secondary colour 4, fog 5, texcoord n at 8 + n; generic `attrib[n]` is slot n).
pub const ATTRIBS: usize = 16;

/// Errors of rendering and scene execution.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RenderError {
    #[error("program cannot be executed: {0}")]
    Program(String),
    #[error("limit exceeded: {0}")]
    Limit(String),
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("line {line}: {message}")]
    Scene { line: u32, message: String },
}

/// Resource caps. Every allocation and every loop of a render is bounded by these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Caps {
    /// Largest render-target width and height.
    pub max_target_size: u32,
    /// Largest render-target area in pixels.
    pub max_target_pixels: u64,
    /// Largest texture (all levels), bytes of RGBA32F storage.
    pub max_texture_bytes: u64,
    /// All textures and targets of a scene together, bytes.
    pub max_total_bytes: u64,
    pub max_vertices: usize,
    pub max_indices: usize,
    pub max_loop_iterations: u32,
    pub max_call_depth: u32,
    /// Instructions dispatched per batch in flow mode before the batch is cut off.
    pub max_batch_instructions: u64,
    /// Draw and pass commands per scene.
    pub max_commands: usize,
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            max_target_size: 8192,
            max_target_pixels: 8192 * 8192,
            max_texture_bytes: 256 << 20,
            max_total_bytes: 2 << 30,
            max_vertices: 1 << 20,
            max_indices: 3 << 20,
            max_loop_iterations: 255,
            max_call_depth: 8,
            max_batch_instructions: 1 << 22,
            max_commands: 100_000,
        }
    }
}

impl Caps {
    pub fn check_target(&self, w: u32, h: u32) -> Result<(), RenderError> {
        if w == 0 || h == 0 {
            return Err(RenderError::Config(format!("render size {w}x{h} is empty")));
        }
        if w > self.max_target_size
            || h > self.max_target_size
            || u64::from(w) * u64::from(h) > self.max_target_pixels
        {
            return Err(RenderError::Limit(format!(
                "render size {w}x{h} exceeds the cap of {m}x{m} ({} pixels)",
                self.max_target_pixels,
                m = self.max_target_size
            )));
        }
        Ok(())
    }

    pub fn check_texture(&self, w: u32, h: u32, d: u32) -> Result<(), RenderError> {
        let bytes = u64::from(w) * u64::from(h) * u64::from(d.max(1)) * 16;
        if w == 0 || h == 0 {
            return Err(RenderError::Config(format!(
                "texture size {w}x{h} is empty"
            )));
        }
        if bytes > self.max_texture_bytes {
            return Err(RenderError::Limit(format!(
                "texture {w}x{h}x{d} needs {bytes} bytes, the cap is {}",
                self.max_texture_bytes
            )));
        }
        Ok(())
    }
}

/// Host-set parameters of one stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageParams {
    /// ARB `program.env[n]`; D3D9 `c#` without `def`.
    pub env: BTreeMap<u16, [f32; 4]>,
    /// ARB `program.local[n]`.
    pub local: BTreeMap<u16, [f32; 4]>,
    /// D3D9 `i#` without `defi`.
    pub ints: BTreeMap<u16, [i32; 4]>,
    /// D3D9 `b#` without `defb`.
    pub bools: BTreeMap<u16, bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub vertex: StageParams,
    pub fragment: StageParams,
}

/// An indexed triangle list; each vertex holds all [`ATTRIBS`] attribute slots.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Mesh {
    pub vertices: Vec<[[f32; 4]; ATTRIBS]>,
    pub indices: Vec<u32>,
}

/// What a draw sends down the pipeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Geometry {
    /// The GPGPU quad of arbref: NDC [-1,1]², z 0, w 1, texcoord[0] = (s, t, 0, 1) over
    /// [0,1]², drawn as the strip (-1,-1) (1,-1) (-1,1) (1,1), split along (1,-1)–(-1,1).
    Quad,
    /// piglit `draw rect`: object coordinates, the same strip order; `tex` = texcoord[0]
    /// rectangle (x, y, w, h) for `draw rect tex`, else texcoord[0] is the current value.
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        tex: Option<[f32; 4]>,
    },
    Mesh(Mesh),
}

/// GL state of a draw besides programs, textures and parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawState {
    /// Current attribute values (used where the geometry supplies none).
    pub current: [[f32; 4]; ATTRIBS],
    pub gl: GlState,
    pub depth_test: bool,
    pub cull_back: bool,
    /// `GL_VERTEX_PROGRAM_TWO_SIDE_ARB`.
    pub two_side: bool,
    /// `GL_CLAMP_VERTEX_COLOR` (GL default: on).
    pub vertex_clamp: bool,
    /// `GL_CLAMP_FRAGMENT_COLOR` on a float target (GL default FIXED_ONLY: off).
    pub fragment_clamp: bool,
    /// Fixed-function colour sum (adds the secondary colour without a fragment program).
    pub color_sum: bool,
}

impl Default for DrawState {
    fn default() -> DrawState {
        let mut current = [[0.0, 0.0, 0.0, 1.0]; ATTRIBS];
        current[2] = [0.0, 0.0, 1.0, 1.0];
        current[3] = [1.0; 4];
        DrawState {
            current,
            gl: GlState::default(),
            depth_test: false,
            cull_back: false,
            two_side: false,
            vertex_clamp: true,
            fragment_clamp: false,
            color_sum: false,
        }
    }
}

impl DrawState {
    pub fn set_color(&mut self, c: [f32; 4]) {
        self.current[3] = c;
    }

    pub fn set_texcoord(&mut self, unit: usize, v: [f32; 4]) {
        if unit < 8 {
            self.current[8 + unit] = v;
        }
    }
}

/// Storage format of a render target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TargetFormat {
    #[default]
    Rgba32F,
    /// Clamped to [0, 1] and quantised to n/255 on write.
    Rgba8,
}

/// Everything [`render`] needs besides the programs.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderConfig {
    pub width: u32,
    pub height: u32,
    pub format: TargetFormat,
    pub clear: [f32; 4],
    /// Textures by unit (shared, so scenes can reuse them without copying).
    pub textures: BTreeMap<u8, Arc<Texture>>,
    pub params: Params,
    pub geometry: Geometry,
    pub state: DrawState,
    pub caps: Caps,
    /// Interpreter or compiled kernels ([`jit`]).
    pub exec: jit::Exec,
}

impl Default for RenderConfig {
    fn default() -> RenderConfig {
        RenderConfig {
            width: 256,
            height: 256,
            format: TargetFormat::Rgba32F,
            clear: [0.0; 4],
            textures: BTreeMap::new(),
            params: Params::default(),
            geometry: Geometry::Quad,
            state: DrawState::default(),
            caps: Caps::default(),
            exec: jit::Exec::default(),
        }
    }
}

/// Counters for the statistics panel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    pub draws: u64,
    pub vertex_invocations: u64,
    pub vertex_instructions: u64,
    pub vertex_slots: u64,
    pub triangles: u64,
    /// Covered fragments whose program ran (helper lanes of partial quads not counted).
    pub fragment_invocations: u64,
    pub fragment_instructions: u64,
    pub fragment_slots: u64,
    pub fragments_killed: u64,
    /// Batches cut off by [`Caps::max_batch_instructions`].
    pub truncated_batches: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.draws += o.draws;
        self.vertex_invocations += o.vertex_invocations;
        self.vertex_instructions += o.vertex_instructions;
        self.vertex_slots += o.vertex_slots;
        self.triangles += o.triangles;
        self.fragment_invocations += o.fragment_invocations;
        self.fragment_instructions += o.fragment_instructions;
        self.fragment_slots += o.fragment_slots;
        self.fragments_killed += o.fragments_killed;
        self.truncated_batches += o.truncated_batches;
    }
}

/// A finished render.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub image: Image,
    pub stats: Stats,
}

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

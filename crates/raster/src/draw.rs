//! What a draw is: the render configuration (geometry, state, parameters, textures, the
//! executor), the caps a scene may require, the statistics of a render and its errors. The
//! crate root re-exports all of it; the modules that draw import it from here.

use crate::error::RenderError;
use crate::glstate::GlState;
use crate::image::Image;
use crate::texture::Texture;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Number of vertex attribute slots (ARB aliasing: position 0, weight 1, normal 2, colour 3,
/// secondary colour 4, fog 5, texcoord n at 8 + n; generic `attrib[n]` is slot n).
pub const ATTRIBS: usize = 16;

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
    pub exec: Exec,
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
            exec: Exec::default(),
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

/// Which executor runs programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Exec {
    /// The batched interpreter (the reference).
    #[default]
    Interp,
    /// Compiled modules where the compiler accepts the program, else the interpreter.
    Compiled,
}

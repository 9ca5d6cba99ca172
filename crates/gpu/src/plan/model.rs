//! The plan's types: what `js/runner.mjs` reads (serialised as JSON; binary data as base64
//! of little-endian words) and the probes the results are held against.

use crate::iface::Bindings;
use serde::Serialize;

/// A scene as GPU work.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Plan {
    pub programs: Vec<PlanProgram>,
    pub textures: Vec<PlanTexture>,
    pub commands: Vec<GpuCommand>,
    /// The scene's probes in order (commands name them by index).
    pub probes: Vec<ProbeSpec>,
}

/// One translated pair in one draw-state variant.
#[derive(Clone, Debug, Serialize)]
pub struct PlanProgram {
    /// The scene's pair name (`""` for the unnamed pair).
    pub pair: String,
    pub wgsl: String,
    pub glsl_vs: String,
    pub glsl_fs: String,
    pub bindings: Bindings,
}

/// A texture to upload, every level the executor samples.
#[derive(Clone, Debug, Serialize)]
pub struct PlanTexture {
    /// `2d` (1D, 2D and RECT textures), `3d` or `cube` (six layers, GL face order).
    pub shape: &'static str,
    /// `rgba8` (texels are n/255: upload them as unorm bytes) or `rgba32f`.
    pub format: &'static str,
    pub levels: Vec<PlanLevel>,
    pub sampler: PlanSampler,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanLevel {
    pub width: u32,
    pub height: u32,
    /// Slices (3D) or faces (cube).
    pub depth: u32,
    /// RGBA f32 texels, rows from t = 0, then slice by slice (base64).
    pub texels: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlanSampler {
    /// `nearest` | `linear`.
    pub min: &'static str,
    pub mag: &'static str,
    /// `none` (the texture then has one level) | `nearest` | `linear`.
    pub mip: &'static str,
    /// `clamp` | `repeat`.
    pub wrap: &'static str,
}

/// One step on the GPU.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum GpuCommand {
    /// Creates (or recreates) an RGBA32F target cleared to zero.
    Target {
        name: String,
        width: u32,
        height: u32,
    },
    /// Clears colour and depth (the colour as the target stores it).
    Clear {
        target: String,
        color: [f32; 4],
        depth: f32,
    },
    Swap {
        a: String,
        b: String,
    },
    Draw(Box<PlanDraw>),
    /// A colour probe: count the pixels of `rect` (clipped to the target) where a channel
    /// of the first `channels` differs from `expect` by more than `tolerance` (NaN counts).
    Probe {
        probe: usize,
        target: String,
        rect: [i64; 4],
        expect: [f32; 4],
        channels: usize,
        tolerance: f32,
    },
    /// Read the depth at one pixel.
    ProbeDepth {
        probe: usize,
        target: String,
        x: i64,
        y: i64,
    },
    /// Read a whole target now (for `compare`).
    Snapshot {
        key: String,
        target: String,
    },
}

/// One draw.
#[derive(Clone, Debug, Serialize)]
pub struct PlanDraw {
    pub target: String,
    pub program: usize,
    /// 16 attribute slots (RGBA f32) per vertex, base64.
    pub vertices: String,
    pub vertex_count: u32,
    /// A triangle list.
    pub indices: Vec<u32>,
    /// The uniform blocks' contents by binding (base64 of their bytes).
    pub uniforms: Vec<PlanUniform>,
    pub textures: Vec<PlanBinding>,
    pub depth_test: bool,
    pub cull_back: bool,
    /// GL's depth range (near, far), the viewport's.
    pub depth_range: [f32; 2],
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanUniform {
    pub binding: u32,
    pub data: String,
}

/// What texture binding pair k reads.
#[derive(Clone, Debug, Serialize)]
pub struct PlanBinding {
    /// The texture at binding 2k, its sampler at 2k + 1.
    pub k: u32,
    pub view: &'static str,
    /// An uploaded texture, or `None` with `target` set, or neither: the incomplete texture
    /// (0, 0, 0, 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<usize>,
    /// A target's contents as the draw starts (render to texture), with its sampler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler: Option<PlanSampler>,
    /// The draw block's `cmp` words for this binding (`iface::compare_words`).
    #[serde(skip)]
    pub compare: [u32; 4],
}

/// A probe of the scene.
#[derive(Clone, Debug, Serialize)]
pub struct ProbeSpec {
    pub line: u32,
    pub text: String,
    pub kind: ProbeKind,
}

#[derive(Clone, Debug, Serialize)]
pub enum ProbeKind {
    Color,
    /// Depth within 0.01 of `expect`.
    Depth {
        expect: f32,
    },
    /// Two targets (snapshot keys) within `tolerance`.
    Compare {
        a: String,
        b: String,
        tolerance: f32,
    },
}

//! What a translation is specialised for: the API's conventions and the draw state that
//! changes the shaders (the host picks the variant per draw, as a driver would).

use serde::{Deserialize, Serialize};

/// Which API a variant is written for (coordinate conventions differ; see `wgsl::entry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Api {
    WebGpu,
    WebGl2,
}

/// What the fragment stage does to its colour before the write (the executor's
/// `GL_CLAMP_FRAGMENT_COLOR` and RGBA8 targets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Output {
    #[default]
    Float,
    /// Clamped to [0, 1], NaN to 0.
    Clamp,
    /// Clamped and rounded to n/255 (an RGBA8 target).
    Unorm8,
}

/// The draw state a translation is specialised for (it changes the shaders' interface or
/// their last instructions, so the host picks the variant, as a driver would).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Options {
    /// `GL_VERTEX_PROGRAM_TWO_SIDE_ARB`: back faces read the back colours.
    pub two_side: bool,
    /// `GL_CLAMP_VERTEX_COLOR` (GL's default: on).
    pub vertex_clamp: bool,
    /// `GL_COLOR_SUM` for a fixed-function fragment stage.
    pub color_sum: bool,
    pub output: Output,
    /// The executor's `Caps::max_loop_iterations` and `max_call_depth`.
    pub max_loop_iterations: u32,
    pub max_call_depth: u32,
}

impl Default for Options {
    fn default() -> Options {
        let caps = hoist_raster::Caps::default();
        Options {
            two_side: false,
            vertex_clamp: true,
            color_sum: false,
            output: Output::Float,
            max_loop_iterations: caps.max_loop_iterations,
            max_call_depth: caps.max_call_depth,
        }
    }
}

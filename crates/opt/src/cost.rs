//! Cost models: what a selection of moves is worth.
//!
//! - [`CostModel::Paper`]: the paper's measure, fragment instruction slots (Section 3.3:
//!   "select a combination of instructions that minimizes the number of instruction slots
//!   required for the FP program"); ties go to fewer vertex slots, then fewer interpolators.
//! - [`CostModel::Modern`]: per-fragment work on a modern GPU, where interpolating an
//!   attribute is itself ALU work. Cost per fragment = fragment slots + `interp_cost` × the
//!   interpolated components the fragment program reads + vertex slots × vertices /
//!   fragments. The default `interp_cost` of 0.5 slot per component matches what Hoist's
//!   reference notes measured on Mesa llvmpipe: the 13-tap Gaussian pass with its addresses
//!   interpolated (28 more components) ran as fast as computing them per fragment (13
//!   fewer instructions), and an H200 showed no difference either.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
#[derive(Default)]
pub enum CostModel {
    #[default]
    Paper,
    Modern {
        interp_cost: f64,
        vertices: f64,
        fragments: f64,
    },
}

impl CostModel {
    pub fn modern_default(vertices: f64, fragments: f64) -> CostModel {
        CostModel::Modern {
            interp_cost: 0.5,
            vertices,
            fragments,
        }
    }

    /// Cost of a program pair with these figures; lower is better. The tuple is compared
    /// lexicographically, so the paper model breaks ties by vertex slots and interpolators.
    pub fn cost(&self, fp_slots: u32, vp_slots: u32, interp_components: u32) -> (f64, f64, f64) {
        match *self {
            CostModel::Paper => (fp_slots as f64, vp_slots as f64, interp_components as f64),
            CostModel::Modern {
                interp_cost,
                vertices,
                fragments,
            } => {
                let per_vertex = if fragments > 0.0 {
                    vertices / fragments
                } else {
                    0.0
                };
                let c = fp_slots as f64
                    + interp_cost * interp_components as f64
                    + vp_slots as f64 * per_vertex;
                (c, vp_slots as f64, interp_components as f64)
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            CostModel::Paper => "paper",
            CostModel::Modern { .. } => "modern",
        }
    }
}

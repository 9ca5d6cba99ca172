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
//! - [`CostModel::R600`]: per-fragment estimated cycles on an R600-family GPU (seed 004,
//!   [`crate::r600`]): the fragment program's cycles per wavefront (ALU groups or fetches,
//!   whichever bounds it) plus the vertex program's scaled by vertices / fragments, plus
//!   1/64 cycle per fragment ALU group (ALU work hidden behind fetches still takes issue
//!   slots; without it a fetch-bound program would never prefer less ALU work, because the
//!   moved vertex work, however small, would decide); ties go to fewer fragment ALU groups,
//!   then fewer fragment GPRs (interpolants arrive in GPRs, so motion can cost registers).

use hoist_asm::Program;
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
    R600 {
        chip: crate::r600::Chip,
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

    /// Cost of a program pair; lower is better. The slot figures are the pair's (the paper
    /// and modern models need nothing else); the R600 model compiles both programs.
    pub fn cost_of(&self, vp: &Program, fp: &Program, slots: (u32, u32, u32)) -> (f64, f64, f64) {
        let (fp_slots, vp_slots, interp) = slots;
        match *self {
            CostModel::R600 {
                chip,
                vertices,
                fragments,
            } => {
                let f = crate::r600::compile(fp, chip).stats;
                let v = crate::r600::compile(vp, chip).stats;
                let per_vertex = if fragments > 0.0 {
                    vertices / fragments
                } else {
                    0.0
                };
                let c = f.estimated_cycles as f64
                    + v.estimated_cycles as f64 * per_vertex
                    + f.alu_groups as f64 / 64.0;
                (c, f.alu_groups as f64, f.gprs as f64)
            }
            _ => self.cost(fp_slots, vp_slots, interp),
        }
    }

    /// Cost of a program pair with these figures; lower is better. The tuple is compared
    /// lexicographically, so the paper model breaks ties by vertex slots and interpolators.
    /// The R600 model needs the programs ([`CostModel::cost_of`]); from figures alone it
    /// counts like the paper's.
    pub fn cost(&self, fp_slots: u32, vp_slots: u32, interp_components: u32) -> (f64, f64, f64) {
        match *self {
            CostModel::Paper | CostModel::R600 { .. } => {
                (fp_slots as f64, vp_slots as f64, interp_components as f64)
            }
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

    /// How the model prices recomputing a uniform-expression varying in the fragment program
    /// (`passes::varying_uniform`): at most this many instructions per interpolant, and, when
    /// interpolated components cost fragment work, what one costs (the recomputation pays
    /// on its own when its slots cost less than the components it frees). Under the paper's
    /// and the R600 models a recomputation only pays when the freed interpolator lets more
    /// work move, which the selection finds out. The limit follows Mesa's drivers' choices
    /// (`max_varying_expression_cost`: 2 to 12).
    pub fn recompute(&self) -> (u32, Option<f64>) {
        match *self {
            CostModel::Modern { interp_cost, .. } => (4, Some(interp_cost)),
            _ => (4, None),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            CostModel::Paper => "paper",
            CostModel::Modern { .. } => "modern",
            CostModel::R600 { .. } => "r600",
        }
    }
}

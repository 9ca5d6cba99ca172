//! What the optimizer returns: both programs with per-line provenance, the fate of every
//! fragment instruction, and the statistics and rule results behind the choice.

use crate::analysis::movable::Stay;
use crate::passes::fp_to_vp::{Mirror, Transport};
use crate::pipeline::Stats;
use crate::tracked::Line;
use hoist_asm::ir::Program;
use serde::{Deserialize, Serialize};

/// What happened to one instruction of the original fragment program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// Moved to the vertex program; `group` is its independent group (none for a shared
    /// uniform helper).
    Moved { group: Option<usize> },
    /// Stays in the fragment program.
    Stays { reason: Stay },
}

/// Result of one selection rule, for comparison.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RuleResult {
    pub rule: String,
    pub moved: Vec<u32>,
    pub vp_slots: u32,
    pub fp_slots: u32,
    pub interp_components: u32,
    pub cost: f64,
    pub proven_optimal: bool,
    pub evaluations: u32,
}

/// Everything [`optimize`] produces.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Outcome {
    pub vp: Program,
    pub fp: Program,
    /// Provenance of each instruction of [`Outcome::vp`] / [`Outcome::fp`].
    pub vp_lines: Vec<Line>,
    pub fp_lines: Vec<Line>,
    /// Per instruction of [`Outcome::source_fp`].
    pub fates: Vec<Fate>,
    /// The fragment program the motion started from: the original after commutation
    /// ([`Outcome::commuted`]); fates, groups and transports index its instructions.
    pub source_fp: Program,
    /// Instructions of each independent movable group.
    pub groups: Vec<Vec<u32>>,
    pub before: Stats,
    pub after: Stats,
    /// The rule whose result is returned, and both rules' results.
    pub chosen: String,
    pub rules: Vec<RuleResult>,
    /// Vertex parameters the host must now set.
    pub mirrors: Vec<Mirror>,
    pub transports: Vec<Transport>,
    /// Moved instructions also kept in the fragment program, recomputed there instead of
    /// transported (no interpolator was left): uniform helpers and instructions of inputs
    /// and constants (`fp_to_vp::pack`).
    pub duplicated: Vec<u32>,
    /// Fragment instructions whose operands were swapped to unlock motion.
    pub commuted: Vec<u32>,
    pub notes: Vec<String>,
    /// Merges of the vector-packing pass (`Options::slp`): vertex, fragment.
    #[serde(default)]
    pub slp_merges: [u32; 2],
    /// Groups kept because a program was made to fit its temp limit (`Options::fit`).
    #[serde(default)]
    pub kept_by_fit: Option<crate::fit_choice::KeptByFit>,
    /// The interpolator maps before and after, and what the varying passes did.
    #[serde(default)]
    pub varyings: crate::varying_map::VaryingReport,
}

impl Outcome {
    /// Fragment-slot reduction in percent.
    pub fn fp_reduction(&self) -> f64 {
        let b = self.before.fp_slots.total() as f64;
        if b == 0.0 {
            0.0
        } else {
            100.0 * (b - self.after.fp_slots.total() as f64) / b
        }
    }
}

/// Why a pair cannot be optimized at all.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptError {
    #[error("{0}")]
    NotAPair(String),
}

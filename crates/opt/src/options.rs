//! What the caller chooses: limits, cost model, selection rule and the transformations on.

use crate::cost::CostModel;
use hoist_asm::profile::Limits;
use serde::{Deserialize, Serialize};

/// Which selection rule decides the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The paper's rule: everything movable, dropping the latest until it fits.
    Greedy,
    /// Exact search for the cheapest choice under the cost model.
    #[default]
    Optimal,
    /// Every subset of groups (at most 2^16 evaluations; more groups fall back to the exact
    /// search): slow, for checking the search.
    Exhaustive,
}

/// Optimizer options (the playground's and the command line's).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// Vertex-program limits (default: the profile's).
    pub vp_limits: Option<Limits>,
    /// Fragment-program limits (default: the profile's).
    pub fp_limits: Option<Limits>,
    pub cost: CostModel,
    pub selection: Selection,
    /// Move instructions that read host-set fragment parameters; the vertex program gets its
    /// own copies, listed in [`Outcome::mirrors`] for the host to set.
    pub mirror_params: bool,
    /// Apply only the first `k` movable groups.
    pub steps: Option<usize>,
    /// Swap `r = a; r += b` so that the movable term comes first.
    pub commute: bool,
    /// Emulate fragment-only ops in the vertex program when that lets them move.
    pub lower: bool,
    /// Clean up the moved vertex code (write interpolators directly, fold copies).
    pub vp_cleanup: bool,
    /// Reorder both programs to lower their peak register pressure (`passes::schedule`).
    #[serde(default)]
    pub schedule: bool,
    /// Make a program over its temp limit fit (`passes::fit`: renumbering, scheduling or
    /// rematerialization) instead of rejecting the choice; code motion may then use more
    /// vertex temporaries than the limit while it emits.
    #[serde(default)]
    pub fit: bool,
    /// Evaluation budget of the exact search.
    pub search_budget: u32,
    /// Pack independent same-opcode instructions with disjoint write masks into one vector
    /// instruction ([`crate::passes::slp`]) in both programs after the motion.
    #[serde(default)]
    pub slp: bool,
    /// Fragment instructions that must stay, with why (translation validation feeds back
    /// the moves it rejected this way).
    #[serde(default)]
    pub stay: Vec<(u32, String)>,
    /// The varying passes (`passes::varying_*`): dead, constant, uniform-expression and
    /// duplicate interpolants, and the relocation of existing ones when the motion packs.
    pub varyings: bool,
    /// Peepholes the R600 statistics motivate (seed 004), on both programs after the
    /// motion's clean-up; validation checks their results like the rest.
    #[serde(default)]
    pub peepholes: Peepholes,
}

/// Which peepholes run (`passes::mad_fuse`, `passes::dot_product`, `passes::tex_dedup`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Peepholes {
    /// MUL + ADD → MAD.
    pub mad: bool,
    /// MUL/MAD chains over one component → DP3/DP4.
    pub dot: bool,
    /// A repeated fetch of the same coordinate → MOV.
    pub tex_dedup: bool,
}

impl Peepholes {
    pub const ALL: Peepholes = Peepholes {
        mad: true,
        dot: true,
        tex_dedup: true,
    };
}

impl Default for Options {
    fn default() -> Self {
        Options {
            vp_limits: None,
            fp_limits: None,
            cost: CostModel::Paper,
            selection: Selection::Optimal,
            mirror_params: false,
            steps: None,
            commute: true,
            lower: true,
            vp_cleanup: true,
            schedule: false,
            fit: false,
            search_budget: 4096,
            slp: false,
            stay: Vec::new(),
            peepholes: Peepholes::default(),
            varyings: true,
        }
    }
}

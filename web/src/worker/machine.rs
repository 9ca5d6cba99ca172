//! The Machine panel's model: what the original and the optimized pair become on an
//! R600-family VLIW-5 GPU (seed 004, `hoist_opt::r600`), computed in the worker with the
//! summary so the page only draws it. The chip is the cost model's when the selection ran
//! under the R600 model (R600 otherwise), and then the view also prices both pairs as the
//! selection did (`CostModel::cost_of`).

use hoist_asm::Program;
use hoist_opt::CostModel;
use hoist_opt::r600::{self, Chip, Stats};
use serde::{Deserialize, Serialize};

/// One program on the machine: its figures, its bundled listing, the model's notes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineSide {
    pub stats: Stats,
    pub listing: String,
    pub notes: Vec<String>,
}

impl MachineSide {
    pub fn of(p: &Program, chip: Chip) -> MachineSide {
        let m = r600::compile(p, chip);
        MachineSide {
            stats: m.stats.clone(),
            listing: r600::stats::listing(&m),
            notes: m.notes.clone(),
        }
    }
}

/// What the R600 cost model charged the original pair (when it parsed) and the optimized
/// one: estimated cycles per wavefront, fragment plus vertex × vertices/fragments (plus the
/// tie-break on fragment ALU groups), the figure the selection minimised.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Priced {
    pub before: Option<f64>,
    pub after: f64,
}

/// Both programs before and after the code motion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineView {
    pub chip: Chip,
    /// Set when the selection ran under the R600 model.
    #[serde(default)]
    pub priced: Option<Priced>,
    pub vp_before: Option<MachineSide>,
    pub fp_before: Option<MachineSide>,
    pub vp_after: MachineSide,
    pub fp_after: MachineSide,
}

/// The view for an original pair (when it parsed) and its optimized pair, selected under
/// `cost`.
pub fn view(
    original: Option<(&Program, &Program)>,
    vp: &Program,
    fp: &Program,
    cost: &CostModel,
) -> MachineView {
    let (chip, priced) = match cost {
        CostModel::R600 { chip, .. } => {
            let price = |v: &Program, f: &Program| cost.cost_of(v, f, (0, 0, 0)).0;
            let priced = Priced {
                before: original.map(|(v, f)| price(v, f)),
                after: price(vp, fp),
            };
            (*chip, Some(priced))
        }
        _ => (Chip::R600, None),
    };
    MachineView {
        chip,
        priced,
        vp_before: original.map(|(v, _)| MachineSide::of(v, chip)),
        fp_before: original.map(|(_, f)| MachineSide::of(f, chip)),
        vp_after: MachineSide::of(vp, chip),
        fp_after: MachineSide::of(fp, chip),
    }
}

/// What `hoistReport().machine` gives scripts: the fragment and vertex figures before and
/// after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MachineReport {
    pub chip: Chip,
    pub priced: Option<Priced>,
    pub fp_before: Option<Stats>,
    pub fp_after: Stats,
    pub vp_before: Option<Stats>,
    pub vp_after: Stats,
}

impl MachineView {
    pub fn report(&self) -> MachineReport {
        MachineReport {
            chip: self.chip,
            priced: self.priced,
            fp_before: self.fp_before.as_ref().map(|s| s.stats.clone()),
            fp_after: self.fp_after.stats.clone(),
            vp_before: self.vp_before.as_ref().map(|s| s.stats.clone()),
            vp_after: self.vp_after.stats.clone(),
        }
    }
}

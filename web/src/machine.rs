//! The Machine panel's model: what the original and the optimized pair become on an
//! R600-family VLIW-5 GPU (seed 004, `hoist_opt::r600`), computed in the worker with the
//! summary so the page only draws it.

use hoist_asm::Program;
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

/// Both programs before and after the code motion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineView {
    pub chip: Chip,
    pub vp_before: Option<MachineSide>,
    pub fp_before: Option<MachineSide>,
    pub vp_after: MachineSide,
    pub fp_after: MachineSide,
}

/// The view for an original pair (when it parsed) and its optimized pair.
pub fn view(original: Option<(&Program, &Program)>, vp: &Program, fp: &Program) -> MachineView {
    let chip = Chip::R600;
    MachineView {
        chip,
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
    pub fp_before: Option<Stats>,
    pub fp_after: Stats,
    pub vp_before: Option<Stats>,
    pub vp_after: Stats,
}

impl MachineView {
    pub fn report(&self) -> MachineReport {
        MachineReport {
            chip: self.chip,
            fp_before: self.fp_before.as_ref().map(|s| s.stats.clone()),
            fp_after: self.fp_after.stats.clone(),
            vp_before: self.vp_before.as_ref().map(|s| s.stats.clone()),
            vp_after: self.vp_after.stats.clone(),
        }
    }
}

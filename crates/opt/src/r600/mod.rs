//! An R600-family VLIW-5 machine model (seed 004): what an ARB or Direct3D 9 program becomes
//! on a Radeon HD 2000–4000 (R600/RV670, R700), and the ShaderAnalyzer-style statistics the
//! paper tunes with (its Tables 2 and 3).
//!
//! - [`lower`]: IR → R600-like ALU ops and fetches on virtual registers (DP3/DP4 as DOT4 over
//!   four slots, POW as LOG/MUL/EXP, LRP as two ops, trans-only ops, texture reads as
//!   fetches), with dead-channel removal as the driver's compiler would do.
//! - [`pack`]: the bundle packer (slots x, y, z, w, t; DOT4; PV/PS forwarding; literals;
//!   read ports and bank swizzles; constant-file ports; kcache lines), grouping ALU ops
//!   into instruction groups.
//! - [`clause`]: TEX and ALU clauses (fetch limits, dependent fetches, 128-slot ALU clauses),
//!   then the GPR allocation over the scheduled order.
//! - [`stats`]: the per-program figures and the printed listing.
//!
//! The rules are facts of the R600/R700 ISA documents and of Mesa's r600 backend. Where the
//! model simplifies (flow control counted once, relative constant reads, inputs already in
//! GPRs), [`Machine::notes`] says so and [`Stats::lower_bound`] is set.

pub mod clause;
pub mod lower;
pub mod pack;
pub mod stats;

pub use clause::{Clause, Machine};
pub use stats::Stats;

use hoist_asm::Program;
use serde::{Deserialize, Serialize};

/// The chip generation, which fixes fetch-clause size, constant-file ports and GPR pools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Chip {
    /// R600/RV670 (the paper's Radeon HD 3870).
    #[default]
    R600,
    /// R700 (RV770, Radeon HD 4000).
    R700,
}

impl Chip {
    pub const ALL: [Chip; 2] = [Chip::R600, Chip::R700];

    pub fn id(self) -> &'static str {
        match self {
            Chip::R600 => "r600",
            Chip::R700 => "r700",
        }
    }

    pub fn from_id(s: &str) -> Option<Chip> {
        Chip::ALL.into_iter().find(|c| c.id() == s)
    }

    /// Fetches per TEX clause.
    pub fn max_fetches(self) -> usize {
        match self {
            Chip::R600 => 8,
            Chip::R700 => 16,
        }
    }

    /// Constant-file read ports per instruction group.
    pub fn cfile_ports(self) -> usize {
        match self {
            Chip::R600 => 4,
            Chip::R700 => 2,
        }
    }

    /// GPRs available to the stage's threads on one SIMD (Mesa's r600 defaults for RV670
    /// and RV770: pixel 144 / vertex 40, pixel 192 / vertex 56).
    pub fn gpr_pool(self, stage: hoist_asm::Stage) -> u32 {
        match (self, stage) {
            (Chip::R600, hoist_asm::Stage::Fragment) => 144,
            (Chip::R600, hoist_asm::Stage::Vertex) => 40,
            (Chip::R700, hoist_asm::Stage::Fragment) => 192,
            (Chip::R700, hoist_asm::Stage::Vertex) => 56,
        }
    }
}

impl std::fmt::Display for Chip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Lowers, packs and allocates `program` for `chip`.
pub fn compile(program: &Program, chip: Chip) -> Machine {
    let lowered = lower::lower(program, chip);
    clause::build(&lowered, chip)
}

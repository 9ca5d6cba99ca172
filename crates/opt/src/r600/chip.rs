//! The R600-family chips the model knows, and the facts that differ between them (fetches
//! per TEX clause, constant-file read ports, GPR pools).

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

    /// GPRs available to the stage's threads on one SIMD: the split of the register file
    /// that the drivers program into `SQ_GPR_RESOURCE_MGMT_1` (`NUM_PS_GPRS`,
    /// `NUM_VS_GPRS`; 4 clause temporaries besides). RV670 (Radeon HD 3870): pixel 144 /
    /// vertex 40, in the Linux radeon driver's default state (`r600_blit_kms.c`) and
    /// Mesa's r600 (`r600_state.c`) alike. RV770: pixel 192 / vertex 56 in the radeon
    /// default state; Mesa's Gallium r600 gives RV770 pixel 130 / vertex 56 and keeps 31
    /// each for geometry and export shaders, which programs without those stages leave
    /// idle, so the model keeps 192. (The first R600, Radeon HD 2900, also has 192 / 56;
    /// this model's R600 is the RV670.)
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

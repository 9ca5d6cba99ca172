//! The per-program figures, with the definitions of the paper's Tables 2 and 3 (as AMD's
//! GPU ShaderAnalyzer showed them):
//!
//! - ALU count = instruction groups; slot utilisation = filled slots / (5 × groups).
//! - Fetch utilisation = result components used / (4 × fetches) (a fetch's components are
//!   those some later op reads; the rest are dropped as dead).
//! - ALU:fetch ratio = groups / fetches; GPRs = highest GPR + 1; wavefronts per SIMD =
//!   ⌊pool / GPRs⌋ with the stage's pool of [`Chip::gpr_pool`], 64 threads each.
//! - Estimated cycles per wavefront: a SIMD issues one group for 16 threads a cycle (4 per
//!   wavefront per group) and its 4 texture units fetch for 4 threads a cycle (16 per
//!   wavefront per fetch); the larger is the bottleneck, assuming latency is hidden.

use super::chip::Chip;
use super::lower::{Lowered, Node};
use super::pack::Clause;
use serde::{Deserialize, Serialize};

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// What limits the estimated cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bottleneck {
    Alu,
    Fetch,
    #[default]
    None,
}

/// The statistics of one program on one chip.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub alu_groups: u32,
    pub slots_filled: u32,
    pub slot_utilization: f64,
    pub literal_slots: u32,
    pub fetches: u32,
    pub fetch_components: u32,
    pub fetch_utilization: f64,
    /// Groups per fetch (None without fetches).
    pub alu_fetch_ratio: Option<f64>,
    pub gprs: u32,
    pub wavefronts: u32,
    pub threads: u32,
    pub clauses: u32,
    pub alu_clauses: u32,
    pub tex_clauses: u32,
    pub flow_instructions: u32,
    pub alu_cycles: u32,
    pub fetch_cycles: u32,
    pub estimated_cycles: u32,
    pub bottleneck: Bottleneck,
    /// Some rule was simplified (see the notes): the counts are lower bounds.
    pub lower_bound: bool,
}

impl Stats {
    /// The figures of a schedule: its clauses over `lowered`, the GPR of each register, and
    /// whether the model simplified a rule on the way.
    pub fn of(
        clauses: &[Clause],
        lowered: &Lowered,
        gpr: &[Option<u16>],
        chip: Chip,
        stage: hoist_asm::Stage,
        simplified: bool,
    ) -> Stats {
        let mut s = Stats::default();
        for c in clauses {
            match c {
                Clause::Alu(groups) => {
                    s.alu_clauses += 1;
                    s.alu_groups += groups.len() as u32;
                    for g in groups {
                        s.slots_filled += g.filled() as u32;
                        s.literal_slots += g.literal_slots() as u32;
                    }
                }
                Clause::Tex(fetches) => {
                    s.tex_clauses += 1;
                    s.fetches += fetches.len() as u32;
                    for &f in fetches {
                        if let Node::Fetch(f) = &lowered.nodes[f] {
                            s.fetch_components += f.mask.count_ones();
                        }
                    }
                }
                Clause::Flow(_) => s.flow_instructions += 1,
            }
        }
        s.clauses = s.alu_clauses + s.tex_clauses;
        s.slot_utilization = ratio(s.slots_filled, 5 * s.alu_groups);
        s.fetch_utilization = ratio(s.fetch_components, 4 * s.fetches);
        s.alu_fetch_ratio = (s.fetches > 0).then(|| ratio(s.alu_groups, s.fetches));
        s.gprs = gpr
            .iter()
            .flatten()
            .map(|&g| g as u32 + 1)
            .max()
            .unwrap_or(0);
        s.wavefronts = chip.gpr_pool(stage) / s.gprs.max(1);
        s.threads = 64 * s.wavefronts;
        s.alu_cycles = 4 * s.alu_groups;
        s.fetch_cycles = 16 * s.fetches;
        s.estimated_cycles = s.alu_cycles.max(s.fetch_cycles);
        s.bottleneck = match (s.alu_cycles, s.fetch_cycles) {
            (0, 0) => Bottleneck::None,
            (a, f) if a >= f => Bottleneck::Alu,
            _ => Bottleneck::Fetch,
        };
        s.lower_bound = simplified;
        s
    }
}

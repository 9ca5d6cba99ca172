//! A program together with the provenance of each of its instructions.
//!
//! Passes edit [`Tracked`] programs so that every output line knows where it came from —
//! the original program, the fragment program (moved), or a pass that added it — and which
//! of its operands a pass changed. The playground draws the paper's Figure 5 annotations
//! (`→` moved, `+` added, underlined operands) from this.

use hoist_asm::ir::{Inst, Program};
use serde::{Deserialize, Serialize};

/// Why a pass added an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AddedFor {
    /// M2: saves a vertex output value into a temporary for moved code to read.
    Save,
    /// M4: writes a moved result to a free interpolator.
    Transport,
    /// Fragment side: reads a transported value back into the register it used to live in.
    Materialize,
    /// Collects components from several registers into one operand.
    Gather,
    /// Satisfies an operand rule of the target profile (e.g. one constant per instruction).
    Legalize,
    /// Part of the expansion of an op the vertex profile lacks.
    Lowering,
    /// Computes a value again instead of holding a temporary (`passes::remat`).
    Rematerialize,
    /// Writes an existing interpolant where the interpolator packing put it.
    Relocate,
    /// Recomputes in the fragment program a value the vertex program computed from
    /// constants only (`passes::varying_uniform`).
    Recompute,
}

/// Where an instruction came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Prov {
    /// Instruction `index` of this program before optimization.
    Original { index: u32 },
    /// Moved from fragment instruction `index`.
    Moved { index: u32 },
    /// Added by a pass; `index` is the fragment instruction it serves, if any.
    Added { why: AddedFor, index: Option<u32> },
}

/// Provenance of one instruction plus which operands a pass changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub prov: Prov,
    /// Bit 0: destination; bit `k + 1`: source `k`.
    pub changed: u8,
}

impl Line {
    pub fn original(index: usize) -> Line {
        Line {
            prov: Prov::Original {
                index: index as u32,
            },
            changed: 0,
        }
    }

    pub fn added(why: AddedFor, index: Option<usize>) -> Line {
        Line {
            prov: Prov::Added {
                why,
                index: index.map(|i| i as u32),
            },
            changed: 0,
        }
    }

    pub fn mark_dst(&mut self) {
        self.changed |= 1;
    }

    pub fn mark_src(&mut self, k: usize) {
        self.changed |= 2 << k;
    }

    pub fn is_original(&self) -> bool {
        matches!(self.prov, Prov::Original { .. })
    }
}

/// A program whose instructions carry provenance (`lines[i]` describes `program.insts[i]`).
#[derive(Clone, Debug)]
pub struct Tracked {
    pub program: Program,
    pub lines: Vec<Line>,
}

impl Tracked {
    pub fn new(program: Program) -> Tracked {
        let lines = (0..program.insts.len()).map(Line::original).collect();
        Tracked { program, lines }
    }

    pub fn push(&mut self, inst: Inst, line: Line) {
        self.program.insts.push(inst);
        self.lines.push(line);
    }

    /// Keeps instructions for which `keep(i)` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let insts = std::mem::take(&mut self.program.insts);
        let lines = std::mem::take(&mut self.lines);
        for (i, (inst, line)) in insts.into_iter().zip(lines).enumerate() {
            if keep(i) {
                self.program.insts.push(inst);
                self.lines.push(line);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.program.insts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.program.insts.is_empty()
    }
}

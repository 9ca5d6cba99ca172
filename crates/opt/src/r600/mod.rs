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
//! - [`figures`]: the per-program statistics; [`stats`]: the report and the listing.
//!
//! The rules are facts of the R600/R700 ISA documents and of Mesa's r600 backend. Where the
//! model simplifies (flow control counted once, relative constant reads, inputs already in
//! GPRs), [`Machine::notes`] says so and [`Stats::lower_bound`] is set.

pub mod chip;
pub mod clause;
pub mod figures;
pub mod lower;
pub mod pack;
pub mod stats;

pub use chip::Chip;
pub use clause::{Clause, Machine};
pub use figures::{Bottleneck, Stats};

use hoist_asm::Program;

/// Lowers, packs and allocates `program` for `chip`.
pub fn compile(program: &Program, chip: Chip) -> Machine {
    let lowered = lower::lower(program, chip);
    clause::build(&lowered, chip)
}

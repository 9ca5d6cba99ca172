//! Varying compaction: where every interpolant the fragment program reads travels, the
//! ones it had and the ones the motion adds, packed into as few registers as the choice
//! needs (Mesa's `compact_varyings`, made exact). It runs inside the motion
//! ([`super::fp_to_vp`], whose `pack`, `bins` and `greedy` modules hold it) and is tested
//! through it (`tests/filetests/varying_pack`).
//!
//! What it does: each operand of a staying instruction that reads only interpolated values
//! gets them from one register, through its swizzle (fixed positions where the profile's
//! swizzles are restricted); a value may travel in several registers (two texture
//! addresses sharing one `y`); existing interpolants are first kept in place and, when
//! that leaves no packing, relocated — the vertex program writes each where the packing
//! puts it, from the value it wrote before, and the fragment program reads it there.
//! Registers hold values of one qualifier (centroid, partial precision) only. The search is
//! exact within a node budget; past it, or when no packing keeps every operand whole, the
//! greedy split places what it can and the operands read their values back through `mov`s.
//!
//! Legality: a relocated interpolant is the same per-vertex value written to another
//! register component of the same class, so it interpolates to the same value; replicas
//! are copies of one per-vertex value; an operand that reads its values through a new
//! swizzle reads the same values in the same lanes. Components that change meaning are
//! written after every original write of them, so no stale write survives; an interpolant
//! nothing wrote (whose value depends on which output registers exist) is written
//! explicitly with the value it read. Validation follows every relocation
//! (`Outcome::varyings`).

pub use super::fp_to_vp::{free_components, relaxed_capacity, swizzle_free};

//! # hoist-verify: every optimized pair is checked before anyone sees it
//!
//! Sits on top of the optimizer and the executor, which know nothing of each other:
//! - [`validate`]: translation validation of one optimized pair against the original, on
//!   seeded inputs, with the executor;
//! - [`optimize()`]: the optimizer as the command line, the page and the tests call it —
//!   results validated, failing groups bisected and kept in place, the reason reported;
//! - [`scene`]: an optimized pair run in its scene, and the equivalence rule of the results;
//! - [`generate`]: random vertex/fragment program pairs in both dialects, written the way
//!   compilers write them (the inputs of the soak, the fuzzers and the property tests);
//! - [`debug`]: one pixel traced in the original and the optimized pair, lined up by the
//!   optimizer's provenance, with the first row where they differ (`hoist debug`, the
//!   page's pixel debugger);
//! - [`execdiff`]: compiled execution against the interpreter, bit for bit (the soak's and
//!   the `compiled` fuzz target's check);
//! - [`fuzz`]: the fuzz targets' bodies, shared with the tests that replay their findings;
//! - [`linear`]: emitted linear-expression code (seed 003) run and iterated in the executor;
//!   [`linear_debug`]: that code traced on one x, lane by lane, labelled from the packing;
//! - [`soak`]: many generated pairs through all of the above, counting what went wrong.

pub mod debug;
pub mod execdiff;
#[cfg(feature = "front")]
pub mod front;
pub mod fuzz;
pub mod generate;
pub mod linear;
pub mod linear_debug;
pub mod linear_recover;
pub mod optimize;
pub mod scene;
pub mod soak;
pub mod validate;
pub mod verdict;

pub use optimize::{Rejection, Status, Validated, optimize};
pub use validate::{Check, Config, Failure, Report};

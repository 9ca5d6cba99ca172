//! # hoist-verify: every optimized pair is checked before anyone sees it
//!
//! - [`generate`]: random vertex/fragment program pairs in both dialects, written the way
//!   compilers write them (the inputs of the soak, the fuzzers and the property tests).
pub mod generate;

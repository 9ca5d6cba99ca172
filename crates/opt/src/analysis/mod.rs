//! Analyses of a vertex/fragment program pair. Each is computed from scratch on the
//! programs it is given; passes never keep one across a change.

pub mod capacity;
pub mod defuse;
pub mod finite;
pub mod groups;
pub mod interp;
pub mod liveness;
pub mod movable;
pub mod varyings;

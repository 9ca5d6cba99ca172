//! Analyses of a vertex/fragment program pair. Each is computed from scratch on the
//! programs it is given; passes never keep one across a change.

pub mod capacity;
pub mod defuse;
pub mod finite;
pub mod groups;
pub mod interp;
pub mod liveness;
pub mod movable;
pub mod presence;
pub mod varyings;

/// Analyses of a pair, shared by every evaluation of a choice and by `commute`.
pub struct Analysis {
    pub vp_du: Option<defuse::DefUse>,
    pub fp_du: Option<defuse::DefUse>,
    pub interp: interp::InterpMap,
    pub movability: movable::Movability,
    pub groups: groups::Groups,
    /// What each fragment input carries from the vertex program (`varyings`).
    pub facts: varyings::Varyings,
}

//! # hoist-opt: move fragment-program work to the vertex program
//!
//! GPGPU programs run almost everything in the fragment program, once per pixel, while the
//! vertex program runs four times per quad. Any fragment computation that is affine in the
//! interpolated inputs can be computed per vertex and interpolated instead, with the same
//! result. This crate implements that code motion — the technique of Ikeda, Ino and
//! Hagihara, "A Code Motion Technique for Accelerating General-Purpose Computation on the
//! GPU" (IPDPS 2006) and its journal version (rules A1–A3, M1–M4) — for ARB and Direct3D 9
//! assembly, and goes beyond it: per-component values, interpolator packing, commutation that
//! unlocks motion, lowering of ops the vertex profile lacks, exact selection under limits,
//! and a modern cost model.
//!
//! - [`analysis`]: def-use, interpolant origins, movability (conditions C1–C4, with a reason
//!   for everything that stays), independent groups.
//! - [`passes`]: one transformation per file (motion, copy propagation, dead code,
//!   retargeting, legalisation, commutation, lowering, vector packing), and the registry
//!   ([`passes::PASSES`]) through which the pipeline and the filetests run them by name.
//! - [`cost`] and [`select`]: what a choice is worth, and the greedy / exact / stepwise rules.
//! - [`pipeline`]: one choice evaluated: the motion, the clean-up passes to a fixed point,
//!   the IR checked after every pass (debug and test builds), the profile's rules at the end.
//! - [`optimizer`]: [`optimize`] and [`Optimizer`], which run the analyses once and then
//!   the pipeline for the selection rule of the [`Options`] (or for a fixed set of groups).
//! - [`r600`]: an R600-family VLIW-5 machine model (seed 004): lowering, bundle packing,
//!   clauses, GPRs and ShaderAnalyzer-style statistics.
//! - [`annotate`]: the [`Outcome`] as people read it, one model for the CLI and the page:
//!   each printed line's origin, mark, changed operands and reason, each fate in words.
//!
//! Modules depend one way: `analysis` ← `passes` ← `pipeline` ← `select` ← `optimizer`;
//! the crate root only re-exports. [`Outcome`] carries both programs, per-line provenance,
//! the fate of every fragment instruction and the statistics before and after. Users get
//! validated results through `hoist_verify::optimize`, which sits on top of this crate.

pub mod analysis;
pub mod annotate;
pub mod cost;
pub mod edit;
pub mod fit_choice;
pub mod fxhash;
pub mod linear;
pub mod optimizer;
pub mod options;
pub mod outcome;
pub mod passes;
pub mod pipeline;
pub mod r600;
pub mod select;
pub mod tracked;
pub mod varying_map;

pub use cost::CostModel;
pub use optimizer::{Optimizer, analyze, optimize};
pub use options::{Options, Peepholes, Selection};
pub use outcome::{Fate, OptError, Outcome, RuleResult};
pub use pipeline::Stats;
pub use tracked::{AddedFor, Line, Prov};
pub use varying_map::{SlotUse, VaryingReport};

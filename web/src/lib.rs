//! # hoist-web: the Hoist playground
//!
//! A static page (Yew, built by Trunk) where a vertex/fragment program pair is edited,
//! optimized by `hoist-opt` and rendered by `hoist-raster`, original next to optimized, with
//! a pixel-exact verdict. Logic lives in plain modules that test natively; `components/`
//! only draws them, `app` wires them to the browser, and `main.rs` only starts the app.
//!
//! - [`doc`]: the shareable document and its invariants; [`codec`]: permalinks.
//! - [`state`]: the app state and its `Action` reducer; [`summary`]: the line under the
//!   header with the slot figures and the verdict.
//! - [`analysis`]: parse, optimize and validate (`hoist-verify`), the page's summary of the
//!   result (annotations from `hoist_opt::annotate`, the dependence graph); [`highlight`].
//! - [`supplied`]: what the draw supplies (attributes, matrices, parameters), overrides and
//!   "randomise inputs"; [`guidance`]: why a render is DIFFERENT (the culprit group, the
//!   worst pixel, cancellation) or proves little (a constant image).
//! - [`render`]: render plans, the incremental two-pair task, verdicts, display mappings.
//! - [`engine`]: optimization, validation and rendering as jobs and events — what the
//!   page's Web Worker runs (`worker`, started by `src/bin/hoist-worker.rs`), reached
//!   through `bridge` and the message encoding `wire` (wasm only).
//! - [`scenefile`]: documents imported from and exported to `.shader_test` scene files.
//! - [`linear`]: the "Linear expression" mode (seed 003): examples, the worker's job
//!   (search, code, execution verdict); [`linear_recover`] its systems recovered from
//!   programs ([`linear_programs`]: the program examples).
//! - [`examples`], [`estimate`], [`dag`], [`numbers`]: the gallery, the paper's cost
//!   reasoning, the dependence graph and input validation.

pub mod analysis;
pub mod codec;
pub mod cost;
pub mod dag;
pub mod doc;
pub mod engine;
pub mod estimate;
pub mod examples;
pub mod executor;
pub mod figure;
pub mod guidance;
pub mod handedit;
pub mod highlight;
pub mod limits;
pub mod linear;
pub mod linear_converge;
pub mod linear_doc;
pub mod linear_programs;
pub mod linear_recover;
pub mod liveness;
pub mod machine;
pub mod numbers;
pub mod ophelp;
pub mod reach;
pub mod render;
pub mod scene_rules;
pub mod scene_text;
pub mod scenefile;
pub mod state;
pub mod summary;
pub mod supplied;
pub mod work;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod bridge;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod jit;
#[cfg(target_arch = "wasm32")]
pub mod wire;
#[cfg(target_arch = "wasm32")]
pub mod worker;

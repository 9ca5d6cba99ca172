//! # hoist-web: the Hoist playground
//!
//! A static page (Yew, built by Trunk) where a vertex/fragment program pair is edited,
//! optimized by `hoist-opt` and rendered by `hoist-raster`, original next to optimized, with
//! a pixel-exact verdict. Logic lives in plain modules that test natively; `components/`
//! only draws them, `app` wires them to the browser, and `main.rs` only starts the app.
//!
//! Four layers, shown by folders; arrows run one way, down (the layers test, and
//! `docs/ARCHITECTURE.md`):
//!
//! - [`page`]: the app, its state and reducer, the components, the editors' highlighting,
//!   figures, instruction help, scene-file import and export;
//! - [`wire`] (wasm only): the messages between page and worker, and both ends (the page's
//!   `bridge`, the `worker` started by `src/bin/hoist-worker.rs`);
//! - [`worker`]: the jobs: parse, optimize and validate, the page's summary of the result,
//!   renders and verdicts, guidance, the compiled runtime, the linear mode's job;
//! - [`doc`]: the document, its permalinks, the gallery, the cost choice, the limits.
//!
//! A feature mode keeps each of its parts in its layer: the linear mode's document in
//! `doc::linear_doc`, its job in `worker::linear*`, its panels in `page::components::linear*`;
//! liveness and the machine model likewise.

pub mod doc;
pub mod page;
#[cfg(target_arch = "wasm32")]
pub mod wire;
pub mod worker;

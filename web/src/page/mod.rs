//! The page layer: [`app`] wires the browser (wasm only), [`state`] is the app state and its
//! `Action` reducer, `components/` draw it (one file per panel), [`summary`] the line under
//! the header; [`highlight`] the editors' syntax colouring, [`ophelp`] instruction help, [`pause`] the pause before a job,
//! [`figure`] SVG figures, [`estimate`] the paper's cost reasoning, [`gpu`] the GPU view's
//! logic (API choice, agreement and timing in words) and `runner` its calls into
//! `runner.mjs` (wasm only), [`scenefile`] documents imported from and exported to
//! `.shader_test` files, [`source_map`] source mode's links between the WGSL/GLSL and its
//! assembly, [`source_state`] its part of the reducer. Depends on the worker and document
//! layers, and on the wire to reach the workers.

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod components;
pub mod estimate;
pub mod figure;
pub mod gpu;
pub mod highlight;
pub mod ophelp;
pub mod pause;
#[cfg(target_arch = "wasm32")]
pub mod runner;
pub mod scenefile;
pub mod source_map;
pub mod source_state;
pub mod state;
pub mod summary;

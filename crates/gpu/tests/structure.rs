//! The function limit and the import layers (tests/support).
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/layers.rs"]
mod layers;
#[path = "../../../tests/support/structure.rs"]
mod structure;

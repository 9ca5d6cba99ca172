//! The function limit (tests/support). Import cycles are not checked: a parent module holds
//! the shared types its children import, and it imports them back.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/structure.rs"]
mod structure;

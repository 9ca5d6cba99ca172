//! No function over 150 lines without a stated reason. (Import cycles are not checked here:
//! the crate root holds the shared types its modules import, and they are imported back.)
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/structure.rs"]
mod structure;

#[test]
fn functions_fit_on_a_screen_or_say_why() {
    structure::functions_fit_on_a_screen_or_say_why();
}

//! No function over 150 lines without a stated reason. (Import cycles are not checked here:
//! a parent module holds the shared types its children import, and it imports them back.)
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/structure.rs"]
mod structure;

#[test]
fn functions_fit_on_a_screen_or_say_why() {
    structure::functions_fit_on_a_screen_or_say_why();
}

//! Layers without import cycles, and no function over 150 lines without a stated reason.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/structure.rs"]
mod structure;

#[test]
fn modules_do_not_import_each_other_back() {
    structure::modules_do_not_import_each_other_back();
}

#[test]
fn functions_fit_on_a_screen_or_say_why() {
    structure::functions_fit_on_a_screen_or_say_why();
}

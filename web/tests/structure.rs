//! The function limit and the import layers (tests/support), and the page's layers: the
//! folders of `src/` are floors, `page` over `wire` over `worker` over `doc`, and a module
//! imports only modules of its own floor or below (docs/ARCHITECTURE.md draws them).
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../tests/support/layers.rs"]
mod layers;
#[path = "../../tests/support/structure.rs"]
mod structure;

use std::collections::BTreeSet;

const FLOORS: [&str; 4] = ["doc", "worker", "wire", "page"];

fn floor(path: &[String]) -> Option<usize> {
    FLOORS
        .iter()
        .position(|f| path.first().is_some_and(|p| p == f))
}

#[test]
fn folders_are_layers_and_arrows_run_down() {
    let mods = structure::modules();
    let known: BTreeSet<Vec<String>> = mods.iter().map(|m| m.path.clone()).collect();
    let mut up = Vec::new();
    let mut arrows = 0;
    for m in &mods {
        // The crate root and the binaries only declare and start.
        let Some(from) = floor(&m.path) else {
            continue;
        };
        for to in structure::imports(m, &known) {
            arrows += 1;
            match floor(&to) {
                Some(t) if t <= from => {}
                _ => up.push(format!("{} -> {}", m.path.join("::"), to.join("::"))),
            }
        }
    }
    assert!(
        arrows > 100,
        "the import scan finds too little: {arrows} arrows"
    );
    assert!(
        up.is_empty(),
        "imports that run up or out of the floors:\n{}",
        up.join("\n")
    );
    for f in FLOORS {
        assert!(
            mods.iter().any(|m| m.path.first().is_some_and(|p| p == f)),
            "no module on floor `{f}`"
        );
    }
}

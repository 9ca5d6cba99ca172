//! `hoist opt SCENE`'s verdict lines use the page's rule and words for an agreement that
//! proves little (`hoist_verify::verdict::flatness`): the four gallery examples whose image
//! is constant read "proves little: the image is constant (the verdict alone:
//! bit-identical)", as the page's verdict does (issue 27, item 9); a varied image stays
//! plain "bit-identical".
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn window_line(scene: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["opt", scene])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("window: ").map(str::to_string))
        .unwrap_or_else(|| panic!("{scene}: no window line\n{text}"))
}

#[test]
fn constant_images_prove_little_in_the_pages_words() {
    for id in [
        "graphics/ambient",
        "graphics/diffuse",
        "fluid/clear",
        "fluid/actuallyrender",
    ] {
        let line = window_line(&format!("examples/{id}.shader_test"));
        assert_eq!(
            line, "proves little: the image is constant (the verdict alone: bit-identical)",
            "{id}"
        );
    }
    assert_eq!(
        window_line("examples/paper/fig3.shader_test"),
        "bit-identical"
    );
}

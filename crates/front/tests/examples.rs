//! The WGSL and GLSL example scenes (`examples/wgsl`, `examples/glsl`): each compiles in
//! both dialects and passes every probe in both. The probes' expected values are what
//! Chromium's WebGPU (WGSL) or WebGL2 (GLSL ES) renders of the same scene give
//! (`tests/gpu.rs` checks the whole images against the browser; `crates/cli/tests/compile.rs`
//! that the motion shortens every example's fragment program).

use hoist_asm::Dialect;
use hoist_front::Options;
use hoist_raster::scene::{Command, RunOptions};
use std::path::PathBuf;

fn examples() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut v = Vec::new();
    for dir in ["wgsl", "glsl"] {
        for e in std::fs::read_dir(root.join(dir))
            .expect("examples")
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "shader_test") {
                v.push(e.path());
            }
        }
    }
    v.sort();
    v
}

#[test]
fn every_example_passes_its_probes_in_both_dialects() {
    let all = examples();
    assert!(all.len() >= 10, "{} examples", all.len());
    let (mut wgsl, mut glsl) = (0, 0);
    for path in &all {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        if text.contains("[wgsl]") {
            wgsl += 1;
        } else {
            glsl += 1;
        }
        for d in [Dialect::Arb, Dialect::D3d9] {
            let opts = Options {
                dialect: Some(d),
                ..Options::default()
            };
            let ro = RunOptions::default();
            let p = hoist_front::scene::parse(&text, &ro.caps, &opts)
                .unwrap_or_else(|e| panic!("{name} ({d:?}): {e:?}"));
            let probes = p
                .scene
                .commands
                .iter()
                .filter(|(_, c)| matches!(c, Command::Probe { .. } | Command::RelProbe { .. }))
                .count();
            assert!(probes >= 4, "{name}: {probes} probes pin too little");
            let r = hoist_raster::scene::run(&p.scene, &ro).expect("runs");
            let failed: Vec<String> = r
                .probes
                .iter()
                .filter(|p| !p.pass)
                .map(|p| p.to_string())
                .collect();
            assert!(failed.is_empty(), "{name} ({d:?}):\n{}", failed.join("\n"));
        }
    }
    assert!(
        wgsl >= 5 && glsl >= 5,
        "{wgsl} WGSL and {glsl} GLSL examples"
    );
}

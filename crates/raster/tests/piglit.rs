//! Conformance: every probe of the piglit ARB shader_test files in `../shared/corpus`
//! must pass. Skips (with a notice) when `../shared` is not next to the repository.

use hoist_raster::Caps;
use hoist_raster::scene::{self, RunOptions};
use std::path::PathBuf;

#[path = "../../../tests/support/oracles.rs"]
mod oracles;
use oracles::skip;

fn corpus() -> Option<PathBuf> {
    oracles::shared("corpus/piglit/tests/spec").filter(|p| p.is_dir())
}

#[test]
fn piglit_arb_shader_tests_pass() {
    let Some(root) = corpus() else {
        skip("../shared/corpus/piglit is not next to the repository");
        return;
    };
    let files = oracles::shader_tests(&root);
    assert_eq!(files.len(), 80, "expected the 80 ARB shader tests");
    let (mut passed, mut failed) = (0, 0);
    let mut problems = Vec::new();
    for f in &files {
        let name = f.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        let result = scene::parse(&text, &Caps::default())
            .and_then(|s| scene::run(&s, &RunOptions::default()));
        match result {
            Ok(r) => {
                for p in &r.probes {
                    if p.pass {
                        passed += 1;
                    } else {
                        failed += 1;
                        problems.push(format!("{name}: {p}"));
                    }
                }
            }
            Err(e) => problems.push(format!("{name}: error: {e}")),
        }
    }
    for p in &problems {
        eprintln!("{p}");
    }
    println!("piglit ARB shader_tests: {passed} probes passed, {failed} failed");
    assert!(problems.is_empty(), "{} problems", problems.len());
    assert_eq!(passed, 115);
}

//! Replays what the fuzzers found: every file in `fuzz/regressions/<target>/` (minimised
//! corpora and any crash inputs, kept in the repository) goes through the target's body
//! again. A panic fails the test, naming the file.
#![cfg(not(target_arch = "wasm32"))]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

#[test]
fn fuzz_findings_stay_fixed() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut failures = Vec::new();
    for (name, body) in hoist_verify::fuzz::TARGETS {
        let dir = root.join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{} holds no inputs", dir.display());
        for f in &files {
            let data = std::fs::read(f).expect("readable input");
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| body(&data))) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {msg}", f.display()));
            }
        }
        println!("fuzz regressions {name}: {} inputs", files.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

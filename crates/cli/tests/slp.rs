//! `hoist opt --slp`: the vector-packing pass reaches the command line. On the paper's ARB
//! Gaussian pair, the JSON for scripts counts the merges in `slp_merges` ([vertex,
//! fragment]), the optimized pair has that many fewer slots than without the flag and is
//! validated; the text report names the merges. `--peepholes` is checked the same way.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn opt(extra: &[&str]) -> (String, bool) {
    let dir = repo().join("examples/paper");
    let out = Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(&dir)
        .args(["opt", "--vp", "gauss13.vp", "--fp", "gauss13.fp"])
        .args(extra)
        .output()
        .expect("hoist runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    )
}

fn slots(j: &serde_json::Value, stage: &str) -> u64 {
    let s = &j["after"][stage];
    ["alu", "tex", "flow"]
        .iter()
        .map(|k| s[k].as_u64().unwrap_or(0))
        .sum()
}

fn json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend(extra);
    let (text, ok) = opt(&args);
    assert!(ok, "{text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn slp_flag_merges_and_reports() {
    let (off, on) = (json(&[]), json(&["--slp"]));
    let merges: Vec<u64> = on["slp_merges"]
        .as_array()
        .expect("slp_merges")
        .iter()
        .map(|v| v.as_u64().expect("a count"))
        .collect();
    assert_eq!(merges.len(), 2);
    assert!(merges[0] + merges[1] > 0, "nothing merged");
    let total = |j: &serde_json::Value| slots(j, "vp_slots") + slots(j, "fp_slots");
    assert_eq!(total(&on), total(&off) - merges[0] - merges[1]);
    assert_eq!(off["slp_merges"], serde_json::json!([0, 0]));
    let (text, ok) = opt(&["--slp"]);
    assert!(ok && text.contains("vector packing (--slp):"), "{text}");
    assert!(text.contains("validation: passed"), "{text}");
}

/// `--peepholes` (MAD fusion, dot products, repeated fetches) reaches the same pipeline: on
/// the Direct3D 9 Gaussian scene it removes fragment slots the motion left, the result is
/// validated and the scene renders bit-identical.
#[test]
fn peepholes_flag_removes_fragment_slots() {
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_hoist"))
            .current_dir(repo().join("examples/paper"))
            .args(["opt", "gauss13.shader_test", "--json"])
            .args(extra)
            .output()
            .expect("hoist runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{text}");
        let first = serde_json::Deserializer::from_str(&text)
            .into_iter::<serde_json::Value>()
            .next()
            .expect("a JSON object")
            .expect("valid JSON");
        (first, text)
    };
    let ((off, _), (on, text)) = (run(&[]), run(&["--peepholes"]));
    assert!(
        slots(&on, "fp_slots") < slots(&off, "fp_slots"),
        "fragment slots {} → {}",
        slots(&off, "fp_slots"),
        slots(&on, "fp_slots")
    );
    assert_eq!(on["validation"]["status"], "validated", "{text}");
    assert!(text.contains("window: bit-identical"), "{text}");
}

//! `hoist stats`: the JSON interface for scripts (one object per program with the keys the
//! issue names), the text report and listing, `--optimized` on a scene, and errors.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> Vec<serde_json::Value> {
    let out = hoist(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

const KEYS: [&str; 8] = [
    "alu_groups",
    "slot_utilization",
    "fetches",
    "fetch_utilization",
    "gprs",
    "clauses",
    "alu_fetch_ratio",
    "bottleneck",
];

#[test]
fn json_has_the_interface_keys_per_program() {
    let naive = "examples/r600/matmul-naive.shader_test";
    let vector = "examples/r600/matmul-vector.shader_test";
    for target in ["r600", "r700"] {
        let v = json(&["stats", "--target", target, naive, vector, "--json"]);
        assert_eq!(v.len(), 4, "two programs per scene");
        for o in &v {
            for k in KEYS {
                assert!(o.get(k).is_some(), "{k} missing in {o}");
            }
            for k in ["slot_utilization", "fetch_utilization"] {
                let x = o[k].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&x), "{k} = {x}");
            }
            assert_eq!(o["target"], target);
            assert!(["alu", "fetch", "none"].contains(&o["bottleneck"].as_str().unwrap()));
        }
        let fps: Vec<_> = v.iter().filter(|o| o["stage"] == "fragment").collect();
        assert_eq!(fps[0]["fetch_utilization"], 0.25);
        assert_eq!(fps[1]["fetch_utilization"], 1.0);
        assert_eq!(fps[0]["fetches"], 8);
        assert!(fps[1]["listing"].as_str().unwrap().contains("DOT4"));
    }
}

#[test]
fn text_report_and_listing_have_slot_letters() {
    let out = hoist(&["stats", "examples/r600/matmul-vector.shader_test"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Number of instructions: 1 ALU, 2 TEX"),
        "{text}"
    );
    assert!(text.contains("Fetch components: 8 of 8 (100.0%)"), "{text}");
    assert!(text.contains("x: DOT4"), "{text}");
    assert!(text.contains("w: DOT4"), "{text}");
    assert!(text.contains("TEX: 2 fetches"), "{text}");
}

#[test]
fn optimized_adds_the_moved_pair() {
    let v = json(&[
        "stats",
        "--optimized",
        "--json",
        "examples/paper/fig3.shader_test",
    ]);
    let versions: Vec<_> = v.iter().map(|o| o["version"].as_str().unwrap()).collect();
    assert_eq!(versions, ["original", "original", "optimized", "optimized"]);
    let fp = |ver: &str| {
        v.iter()
            .find(|o| o["version"] == ver && o["stage"] == "fragment")
            .unwrap()["alu_groups"]
            .as_u64()
            .unwrap()
    };
    assert!(
        fp("optimized") < fp("original"),
        "code motion removes fragment ALU work"
    );
}

#[test]
fn single_programs_of_both_dialects() {
    let v = json(&[
        "stats",
        "--json",
        "examples/paper/gauss13.fp",
        "examples/paper/fig3.psh",
    ]);
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|o| o["stage"] == "fragment"));
}

#[test]
fn bad_input_is_a_clear_error() {
    let out = hoist(&["stats", "no/such/file.fp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = hoist(&["stats", "--target", "r800", "examples/paper/fig3.psh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("r600 or r700"));
    let dir = std::env::temp_dir().join(format!("hoist-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.fp");
    std::fs::write(&bad, "!!ARBfp1.0\nFOO result.color, 1;\nEND\n").unwrap();
    let out = hoist(&["stats", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

//! `hoist live`: the JSON interface for scripts (`peak`, `peak_components`, `limit`, `rows`)
//! on a hand-checked grid, and on every example scene before and after code motion, where
//! each row's count is recomputed from the grid text.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn live(args: &[&str]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_hoist"))
        .arg("live")
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stderr}"));
    (out.status.code().unwrap_or(-1), json)
}

const MASKS: &str = "!!ARBfp1.0\nTEMP a, b;\nTEX a, fragment.texcoord[0], texture[0], 2D;\n\
MOV b.x, a.x;\nMOV b.y, a.w;\nADD b.xy, b, a.z;\nMOV result.color, b.xyxy;\nEND\n";

#[test]
fn hand_checked_grid() {
    let dir = std::env::temp_dir().join(format!("hoist-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("masks.fp");
    std::fs::write(&file, MASKS).unwrap();
    let (code, j) = live(&["--json", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    let p = &j[0];
    assert_eq!(p["columns"], serde_json::json!(["a", "b", "oC0"]));
    // a.y is a dead write, a.z lives until the ADD, b.x survives the write of b.y.
    let rows = [
        "wwww ---- ----",
        "r-ll w--- ----",
        "--lr lw-- ----",
        "--r- aa-- ----",
        "---- rr-- wwww",
    ];
    assert_eq!(p["rows"], serde_json::json!(rows));
    assert_eq!(p["peak"], 2);
    assert_eq!(p["peak_row"], 2);
    assert_eq!(p["peak_components"], 4);
    assert_eq!(p["limit"], 32);
    assert_eq!(p["profile"], "!!ARBfp1.0");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Temporaries and their components with a non-empty cell in a grid row.
fn count(row: &str, temps: usize) -> (u64, u64) {
    let groups: Vec<&str> = row.split(' ').take(temps).collect();
    let busy = |g: &&str| g.chars().filter(|&c| c != '-').count() as u64;
    (
        groups.iter().filter(|g| busy(g) > 0).count() as u64,
        groups.iter().map(busy).sum(),
    )
}

#[test]
fn every_example_before_and_after_motion() {
    let mut scenes: Vec<PathBuf> = Vec::new();
    for group in ["paper", "graphics", "fluid"] {
        for f in std::fs::read_dir(root().join("examples").join(group)).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "shader_test") {
                scenes.push(f);
            }
        }
    }
    scenes.sort();
    assert!(scenes.len() > 10);
    for s in &scenes {
        let (code, j) = live(&["--json", "--optimized", s.to_str().unwrap()]);
        assert_eq!(code, 0, "{}", s.display());
        let all = j.as_array().unwrap();
        let versions: Vec<&str> = all.iter().map(|p| p["version"].as_str().unwrap()).collect();
        assert_eq!(versions, ["original", "original", "optimized", "optimized"]);
        for p in all {
            let kinds = p["kinds"].as_array().unwrap();
            let temps = kinds.iter().take_while(|k| *k == "temp").count();
            assert!(kinds[temps..].iter().all(|k| k != "temp"));
            let rows = p["rows"].as_array().unwrap();
            let counts: Vec<(u64, u64)> = rows
                .iter()
                .map(|r| count(r.as_str().unwrap(), temps))
                .collect();
            let peak = counts.iter().map(|c| c.0).max().unwrap_or(0);
            let comps = counts.iter().map(|c| c.1).max().unwrap_or(0);
            assert_eq!(p["peak"], peak, "{} {}", s.display(), p["version"]);
            assert_eq!(p["peak_components"], comps, "{}", s.display());
            assert!(p["limit"].as_u64().unwrap() >= 12);
            assert_eq!(rows.len(), p["insts"].as_array().unwrap().len());
        }
    }
}

/// `--schedule` adds `peak_after`: the thesis's Listing 5.3 analogue goes from 8 live
/// components to 6 (Listing 5.4), its temporaries stay 2.
#[test]
fn schedule_reports_the_peak_after() {
    let (code, j) = live(&["--schedule", "--json", "examples/pressure/listing-5-3.fp"]);
    assert_eq!(code, 0);
    let p = &j[0];
    assert_eq!(p["peak_components"], 8);
    assert_eq!(p["peak_components_after"], 6);
    assert_eq!(p["peak"], 2);
    assert_eq!(p["peak_after"], 2);
    assert_eq!(p["scheduled"]["rows"][7], "---- aaww llll ----");
}

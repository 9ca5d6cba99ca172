//! `hoist linear`: the JSON interface for scripts (`--paper NAME`, FILE), the human output
//! with the cost parts and the grouping, and errors with their line.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .args(args)
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = hoist(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn paper_json_has_the_interface_fields() {
    let v = json(&["linear", "--paper", "fig10", "--json"]);
    assert_eq!(v["cost_before"], 6);
    assert_eq!(v["cost_after"], 4);
    assert_eq!(v["lower_bound"], 4);
    assert_eq!(v["proven_optimal"], true);
    assert!(v["method"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(v["paper"]["cost_after"], 4);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(v["parts_before"]["blocks"], 6);
    let after = &v["program_after"];
    assert_eq!(
        after["instructions"].as_u64().unwrap(),
        4 + after["extra"].as_u64().unwrap()
    );
    assert!(after["text"].as_str().unwrap().contains("MAD "));
    let out = hoist(&["linear", "--paper", "fig10", "--d3d9"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("def c0,") && text.contains("mad r1,"),
        "{text}"
    );
}

#[test]
fn file_json_and_human_output() {
    let dir = std::env::temp_dir().join(format!("hoist-linear-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sys.txt");
    // Fig. 10's pattern written out: tridiagonal without its diagonal, b everywhere.
    let rows: Vec<String> = (0..8usize)
        .map(|r| {
            let mut e = Vec::new();
            if r > 0 {
                e.push(format!("{}:0.25", r - 1));
            }
            if r < 7 {
                e.push(format!("{}:0.25", r + 1));
            }
            e.push("b:1".into());
            e.join(" ")
        })
        .collect();
    std::fs::write(&path, format!("name mine\n{}\n", rows.join("\n"))).unwrap();
    let p = path.to_str().unwrap();
    let v = json(&["linear", p, "--json"]);
    assert_eq!(
        (v["cost_before"].as_u64(), v["cost_after"].as_u64()),
        (Some(6), Some(4))
    );
    assert!(v["lower_bound"].as_u64().unwrap() <= 4);
    let out = hoist(&["linear", p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("before: ΣC^T 6"), "{text}");
    assert!(text.contains("groups: 0="), "{text}");
    std::fs::write(&path, "0:1\n1:x\n").unwrap();
    let out = hoist(&["linear", p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unknown_paper_name_is_a_usage_error() {
    let out = hoist(&["linear", "--paper", "fig99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fig13"));
}

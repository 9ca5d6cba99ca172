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
    assert_eq!(v["program_before"]["unpermute_moves"], 2);
    assert_eq!(v["program_before"]["unpermute_extra"], 0);
    assert_eq!(after["unpermute_moves"], 4);
    let profiles = v["cost_profile"]["after"].as_array().unwrap();
    let names: Vec<&str> = profiles
        .iter()
        .map(|p| p["profile"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["arb_fragment", "ps_2_0", "arb_vertex", "vs_1_1_constants"]
    );
    assert_eq!(profiles[0]["instructions"], 4);
    let c = json(&["linear", "--paper", "fig10", "--json", "--converge", "1e-6"]);
    let conv = &c["convergence"];
    assert!(conv["packed"]["step"].as_f64().unwrap() <= 1e-6);
    assert!(conv["packed_error"].as_f64().unwrap() <= 1e-5);
    assert_eq!(conv["original"]["iterations"], conv["packed"]["iterations"]);
    assert_eq!(
        hoist(&["linear", "--paper", "fig10", "--converge", "nan"])
            .status
            .code(),
        Some(2)
    );
    let fixed = hoist(&["linear", "--paper", "fig10", "--unpermute"]);
    let text = String::from_utf8_lossy(&fixed.stdout);
    assert!(text.contains("MOV result.texcoord[1].yw, y1."), "{text}");
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

/// A program file: the system its outputs compute is recovered, mapped back to the
/// program, and optimized like any system.
#[test]
fn program_files_are_recovered_then_packed() {
    let dir = std::env::temp_dir().join(format!("hoist-linear-prog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vp = dir.join("step.vp");
    std::fs::write(
        &vp,
        "!!ARBvp1.0\nTEMP a;\nMUL a, vertex.attrib[1], 0.5;\nMAD a, vertex.attrib[2].yxwz, 2.0, a;\n\
         RCP a.w, vertex.attrib[1].x;\nADD result.texcoord[0], a, {1, 0, 0, 0};\n\
         MOV result.position, vertex.position;\nEND\n",
    )
    .unwrap();
    let v = json(&["linear", vp.to_str().unwrap(), "--json"]);
    let rec = &v["recovered"];
    assert_eq!(rec["nonlinear"], 1);
    let rows = rec["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    let names: Vec<&str> = rec["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"vertex.attrib[2].y"), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("line 5 RCP")),
        "{names:?}"
    );
    assert!(v["cost_before"].as_u64().is_some() && v["lower_bound"].as_u64().is_some());
    let out = hoist(&["linear", vp.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("result.texcoord[0].x = 0.5·vertex.attrib[1].x + 2·vertex.attrib[2].y + 1"),
        "{text}"
    );

    let vs = dir.join("step.vsh");
    std::fs::write(
        &vs,
        "vs_2_0\ndcl_position v0\ndef c0, 0.25, 0.5, 0, 1\nmul r1, v0, c0.x\nadd r1, r1, c0.y\nmov oPos, v0\n",
    )
    .unwrap();
    let v = json(&["linear", vs.to_str().unwrap(), "--register", "r1", "--json"]);
    assert_eq!(v["recovered"]["rows"][0]["name"], "r1.x");
    assert_eq!(v["recovered"]["nonlinear"], 0);

    let looped = dir.join("loop.vsh");
    std::fs::write(
        &looped,
        "vs_2_0\ndcl_position v0\ndefi i0, 2, 0, 1, 0\nmov r0, v0\nrep i0\nadd r0, r0, v0\nendrep\nmov oPos, r0\n",
    )
    .unwrap();
    let out = hoist(&["linear", looped.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 5: flow control"), "{err}");
    let out = hoist(&["linear", vs.to_str().unwrap(), "--register", "r9"]);
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&dir).ok();
}

/// Table 2's Gauss-Seidel row: 112 → 72, the bound, found by the symmetry-orbit seed; the
/// programs are sweeps (updated values read from y) whose length is the model's plus its
/// extras minus what the diagonal DP4s save; both orders' sweeps and Jacobi converge.
#[test]
fn gauss_seidel_json_reaches_the_papers_72_with_a_sweep() {
    let v = json(&[
        "linear",
        "--paper",
        "gauss-seidel",
        "--json",
        "--converge",
        "1e-6",
    ]);
    assert_eq!(v["cost_before"], 112);
    assert_eq!(v["cost_after"], 72);
    assert_eq!(v["lower_bound"], 72);
    assert_eq!(v["proven_optimal"], true);
    assert!(v["method"].as_str().unwrap().starts_with("symmetry orbits"));
    for (key, model) in [("program_before", 112), ("program_after", 72)] {
        let p = &v[key];
        assert_eq!(p["sweep"], true);
        let n = p["instructions"].as_u64().unwrap();
        assert_eq!(
            n + p["saved"].as_u64().unwrap(),
            model + p["extra"].as_u64().unwrap(),
            "{key}"
        );
    }
    let conv = &v["convergence"];
    let steps = |k: &str| conv[k]["iterations"].as_u64().unwrap();
    assert!(steps("original") < steps("jacobi") && steps("packed") < steps("jacobi"));
    for k in ["original_error", "packed_error", "jacobi_error"] {
        assert!(conv[k].as_f64().unwrap() <= 1e-5, "{k}");
    }
}

//! `hoist db`: pairs are found by every naming the command documents, optimized in
//! parallel, and every outcome — validated, skipped, broken — is counted and listed, in the
//! text report, the JSON object and the CSV rows.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap()
}

const VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";
/// Two movable address computations, two texture reads.
const FP: &str = "!!ARBfp1.0\nTEMP a, b;\nADD a, fragment.texcoord[0], {0.25, 0, 0, 0};\n\
TEX a, a, texture[0], 2D;\nADD b, fragment.texcoord[0], {-0.25, 0, 0, 0};\n\
TEX b, b, texture[0], 2D;\nADD result.color, a, b;\nEND\n";
const VS: &str = "vs_1_1\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n";
const PS: &str = "ps_2_0\ndcl t0\ndcl_2d s0\ndef c0, 0.5, 0, 0, 0\nadd r0, t0, c0\n\
texld r0, r0, s0\nmov oC0, r0\n";

fn tree(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hoist-db-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sub = dir.join("nested/deeper");
    std::fs::create_dir_all(&sub).unwrap();
    let w = |p: &Path, t: &str| std::fs::write(p, t).unwrap();
    w(&dir.join("a.vp"), VP);
    w(&dir.join("a.fp"), FP);
    w(&sub.join("d.vs"), VS);
    w(&sub.join("d.ps"), PS);
    w(&dir.join("both.vfp"), &format!("{VP}{FP}"));
    w(
        &dir.join("nested/scene.shader_test"),
        &format!("[vertex program]\n{VP}\n[fragment program]\n{FP}\n[test]\ndraw rect -1 -1 2 2\n"),
    );
    // A vertex program alone: the fixed-function stand-in takes the fragment side.
    w(
        &dir.join("nested/vponly.shader_test"),
        &format!("[vertex program]\n{VP}\n[test]\ndraw rect -1 -1 2 2\n"),
    );
    // A fragment program that does not parse, and a vertex program without a partner.
    w(&dir.join("broken.vp"), VP);
    w(
        &dir.join("broken.fp"),
        "!!ARBfp1.0\nMOV result.color, nonsense;\nEND\n",
    );
    w(&dir.join("lonely.vp"), VP);
    w(&dir.join("only-vp.vfp"), VP);
    dir
}

#[test]
fn the_report_counts_every_pair_and_lists_what_failed() {
    let dir = tree("text");
    let csv = dir.join("out.csv");
    let r = hoist(&[
        "db",
        dir.to_str().unwrap(),
        "--jobs",
        "2",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&r.stderr)
    );
    // a.vp+fp, both.vfp, nested/scene, nested/vponly, deeper/d.vs+ps, broken.vp+fp, only-vp.vfp
    assert!(text.starts_with("7 pairs, 5 with results"), "{text}");
    assert!(
        text.contains("status: validated 5, error 1, skipped 1"),
        "{text}"
    );
    assert!(text.contains("error       broken.vp+fp"), "{text}");
    assert!(text.contains("skipped     only-vp.vfp"), "{text}");
    assert!(
        !text.contains("lonely"),
        "a vertex program without a partner is no pair"
    );
    // The two address computations move in each ARB pair with a fragment program of its own.
    for name in ["a.vp+fp", "both.vfp", "nested/scene.shader_test"] {
        let table = text.split("\npairs:\n").nth(1).unwrap();
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        assert!(row.contains("5->3"), "{row}");
    }
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 8, "{rows}");
    assert!(
        rows.lines()
            .next()
            .unwrap()
            .starts_with("name,kind,dialect,status,")
    );
    assert!(
        rows.contains("nested/deeper/d.vs+ps,pair,vs_1_1+ps_2_0,validated,3,2,"),
        "{rows}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_json_object_has_the_documented_fields() {
    let dir = tree("json");
    let r = hoist(&["db", dir.to_str().unwrap(), "--json"]);
    assert!(r.status.success());
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let pairs = j["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 7);
    let a = pairs.iter().find(|p| p["name"] == "a.vp+fp").unwrap();
    assert_eq!(a["status"], "validated");
    assert_eq!(a["before"]["fp_slots"], 5);
    assert_eq!(a["after"]["fp_slots"], 3);
    let with_results = j["totals"]["with_results"].as_u64().unwrap();
    assert_eq!(with_results, 5);
    let sum: u64 = pairs
        .iter()
        .filter_map(|p| p["after"]["fp_slots"].as_u64())
        .sum();
    assert_eq!(j["totals"]["after"]["fp_slots"].as_u64(), Some(sum));
    assert_eq!(
        j["helped"].as_u64().unwrap()
            + j["hurt"].as_u64().unwrap()
            + j["unchanged"].as_u64().unwrap(),
        with_results
    );
    let failures = j["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 2, "{failures:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_directory_is_a_usage_error() {
    let r = hoist(&["db", "/nonexistent/hoist-db"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("is not a directory"));
}

/// Scenes written in WGSL and GLSL (the examples') are compiled as `hoist opt` compiles
/// them and optimized with their uniforms mirrored; before, `db` read them as ARB/D3D9
/// scenes and listed each as an error ("unsupported section").
#[test]
fn shading_language_scenes_are_compiled() {
    let dir = std::env::temp_dir().join(format!("hoist-db-front-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    for f in ["wgsl/blur.shader_test", "glsl/webgl-textured.shader_test"] {
        let to = dir.join(f.replace('/', "-"));
        std::fs::copy(root.join(f), to).unwrap();
    }
    let r = hoist(&["db", dir.to_str().unwrap(), "--json"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let pairs = j["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    for p in pairs {
        assert_eq!(p["status"], "validated", "{p}");
        assert!(
            p["after"]["fp_slots"].as_u64() < p["before"]["fp_slots"].as_u64(),
            "{p}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

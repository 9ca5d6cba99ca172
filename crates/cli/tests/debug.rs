//! `hoist debug`, the interface for scripts: the JSON's final pixel is `hoist render`'s
//! pixel bit for bit (read from its PF4 output), rows carry the source line of their
//! instruction, `--optimized` names the fragment line each moved vertex row came from, a
//! D3D9 loop shows its iterations, NaN and infinities survive, and bad input is a clear
//! error with exit status 1, never a panic.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> Value {
    let mut a = vec!["debug", "--json"];
    a.extend_from_slice(args);
    let out = hoist(&a);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"))
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("hoist-debug-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    f.to_str().unwrap().to_string()
}

/// The pixel (x, y) of `hoist render`'s PF4 output for the same options, as bits.
fn rendered(opts: &[&str], x: u32, y: u32) -> Vec<String> {
    let out = tmp(&format!("r{x}-{y}.pfm"), "");
    let mut a = vec!["render", "--quiet", "--out", &out];
    a.extend_from_slice(opts);
    let r = hoist(&a);
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let mut nl = 0;
    let start = bytes
        .iter()
        .position(|&b| {
            nl += usize::from(b == b'\n');
            nl == 3
        })
        .unwrap()
        + 1;
    let header = String::from_utf8_lossy(&bytes[..start]).to_string();
    let w: u32 = header.split_whitespace().nth(1).unwrap().parse().unwrap();
    let i = start + ((y * w + x) as usize) * 16;
    (0..4)
        .map(|c| {
            let b: [u8; 4] = bytes[i + 4 * c..i + 4 * c + 4].try_into().unwrap();
            format!("{:08x}", u32::from_le_bytes(b))
        })
        .collect()
}

fn bits(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect()
}

const FIG3: [&str; 6] = [
    "--vp",
    "examples/paper/fig3.vsh",
    "--fp",
    "examples/paper/fig3.psh",
    "--texture",
    "0",
];

#[test]
fn figure_3_traces_to_the_rendered_pixel_with_source_lines() {
    let mut opts: Vec<&str> = FIG3.to_vec();
    opts.extend_from_slice(&["noise:3@64x64", "--size", "48x40"]);
    let src = std::fs::read_to_string(root().join("examples/paper/fig3.psh")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    for (x, y) in [(0, 0), (13, 27), (47, 39)] {
        let p = format!("{x},{y}");
        let mut a = opts.clone();
        a.extend_from_slice(&["--pixel", &p]);
        let j = json(&a);
        assert_eq!(
            bits(&j["final"]["bits"]),
            rendered(&opts, x, y),
            "({x}, {y})"
        );
        assert_eq!(j["pair"], "original");
        let rows = j["fragment"]["rows"].as_array().unwrap();
        let insts = lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && !l.starts_with(';'))
            .filter(|l| !["ps_", "def", "dcl"].iter().any(|p| l.starts_with(p)))
            .count();
        assert_eq!(rows.len(), insts);
        for r in rows {
            let line = r["line"].as_u64().unwrap() as usize;
            let mnemonic = r["op"].as_str().unwrap().split_whitespace().next().unwrap();
            assert!(
                lines[line - 1].trim_start().starts_with(mnemonic),
                "line {line} `{}` is not `{}`",
                lines[line - 1],
                r["op"]
            );
        }
        let texld: Vec<&Value> = rows.iter().filter(|r| r.get("fetch").is_some()).collect();
        assert_eq!(texld.len(), 3);
        // The vertex rows hold three vertices each; the interpolation weights sum to 1.
        for r in j["vertex"]["rows"].as_array().unwrap() {
            assert_eq!(r["values"].as_array().unwrap().len(), 3);
        }
        let w: f64 = j["interpolation"]["perspective"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((w - 1.0).abs() < 1e-9);
    }
}

#[test]
fn optimized_figure_3_names_where_moved_rows_came_from() {
    let mut opts: Vec<&str> = FIG3.to_vec();
    opts.extend_from_slice(&["gradient", "--pixel", "20,7", "--optimized"]);
    let j = json(&opts);
    assert_eq!(j["pair"], "optimized");
    let src = std::fs::read_to_string(root().join("examples/paper/fig3.psh")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let moved: Vec<&Value> = j["vertex"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["moved_from"].is_null())
        .collect();
    // As many as `hoist opt --json` reports moved vertex instructions (straight-line
    // code: each runs once).
    let out = hoist(&[
        "opt",
        "--vp",
        "examples/paper/fig3.vsh",
        "--fp",
        "examples/paper/fig3.psh",
        "--json",
    ]);
    let opt: Value = serde_json::from_slice(&out.stdout).unwrap();
    let expect = opt["vp_lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["prov"]["kind"] == "moved")
        .count();
    assert!(expect > 0);
    assert_eq!(moved.len(), expect);
    for r in &moved {
        let from = r["moved_from"].as_u64().unwrap() as usize;
        let mnemonic = r["op"].as_str().unwrap().split_whitespace().next().unwrap();
        assert!(
            lines[from - 1].trim_start().starts_with(mnemonic),
            "moved `{}` from line {from} `{}`",
            r["op"],
            lines[from - 1]
        );
    }
    let aligned = j["aligned"].as_array().unwrap();
    assert!(aligned.iter().any(|a| a.get("moved_to").is_some()));
    assert!(j["first_divergence"].is_null(), "{}", j["first_divergence"]);
}

#[test]
fn a_d3d9_loop_shows_its_iterations() {
    let vs = tmp(
        "loop.vsh",
        "vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\n\
         mov o0, v0\nmov o1, v1\n",
    );
    let ps = tmp(
        "loop.psh",
        "ps_3_0\ndef c0, 0.5, 0.25, 0, 1\ndefi i0, 4, 2, 3, 0\ndcl_texcoord0 v0\n\
         mov r0, c0.z\nloop aL, i0\n  add r0.x, r0.x, c0.x\nendloop\nmov oC0, r0\n",
    );
    let j = json(&["--vp", &vs, "--fp", &ps, "--size", "8x8", "--pixel", "3,3"]);
    let rows = j["fragment"]["rows"].as_array().unwrap();
    let counters: Vec<f64> = rows
        .iter()
        .filter_map(|r| r["flow"]["Iteration"]["counter"].as_u64())
        .map(|b| f64::from(f32::from_bits(b as u32)))
        .collect();
    assert_eq!(counters, vec![2.0, 5.0, 8.0, 11.0]);
    let adds: Vec<f64> = rows
        .iter()
        .filter(|r| r["op"].as_str().unwrap().starts_with("add"))
        .map(|r| r["values"][0][0].as_f64().unwrap())
        .collect();
    assert_eq!(adds, vec![0.5, 1.0, 1.5, 2.0]);
    assert_eq!(j["final"]["pixel"][0], 2.0);
    let text = hoist(&[
        "debug", "--vp", &vs, "--fp", &ps, "--size", "8x8", "--pixel", "3,3",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("iteration 3 (aL = 11)"), "{text}");
    assert!(text.contains("loop left after 4 iterations"), "{text}");
}

#[test]
fn nan_and_infinity_are_kept() {
    let vp = tmp(
        "pass.vp",
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n",
    );
    let fp = tmp(
        "nan.fp",
        "!!ARBfp1.0\nPARAM z = {0, 0, 0, 0};\nTEMP t;\nRCP t.x, z.x;\n\
         MUL result.color, t.x, z;\nEND\n",
    );
    let j = json(&["--vp", &vp, "--fp", &fp, "--size", "4x4", "--pixel", "1,2"]);
    let rows = j["fragment"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["values"][0][0], "Infinity");
    assert_eq!(rows[0]["bits"][0][0], "7f800000");
    assert_eq!(
        j["final"]["pixel"],
        serde_json::json!(["NaN", "NaN", "NaN", "NaN"])
    );
    let opts = ["--vp", vp.as_str(), "--fp", fp.as_str(), "--size", "4x4"];
    assert_eq!(bits(&j["final"]["bits"]), rendered(&opts, 1, 2));
}

#[test]
fn bad_requests_are_clear_errors() {
    let mut opts: Vec<&str> = FIG3.to_vec();
    opts.extend_from_slice(&["gradient", "--size", "16x16", "--pixel", "16,0"]);
    let mut a = vec!["debug"];
    a.extend_from_slice(&opts);
    let out = hoist(&a);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the 16x16 image"), "{err}");
    // Every vertex at one point: no triangle covers anything.
    let vp = tmp(
        "point.vp",
        "!!ARBvp1.0\nPARAM p = {0.5, 0.5, 0, 1};\nMOV result.position, p;\nEND\n",
    );
    let fp = tmp(
        "col.fp",
        "!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n",
    );
    let out = hoist(&["debug", "--vp", &vp, "--fp", &fp, "--pixel", "1,1"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no primitive of the draw covers pixel (1, 1)"),
        "{err}"
    );
    let bad = tmp("bad.fp", "!!ARBfp1.0\nMOV result.color, nonsense;\nEND\n");
    let out = hoist(&["debug", "--vp", &vp, "--fp", &bad, "--pixel", "1,1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error"));
    let out = hoist(&["debug", "--vp", &vp, "--fp", &fp, "--pixel", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

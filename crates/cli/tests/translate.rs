//! `hoist translate --to wgsl|glsl --vp F --fp F [--json]` as scripts use it: every example
//! pair and every piglit ARB test translate to both languages; the JSON object's keys and
//! its shaders are the library's; bad input exits 1 with a message, a bad option 2.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(root())
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hoist-translate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "shader_test") {
            out.push(p);
        }
    }
}

/// Each pair of a scene file, as two program files (empty for fixed function).
fn pairs(path: &Path) -> Vec<(String, PathBuf, PathBuf)> {
    let text = std::fs::read_to_string(path).unwrap();
    let caps = hoist_raster::Caps::default();
    let s = hoist_front::scene::parse(&text, &caps, &hoist_front::Options::default())
        .unwrap()
        .scene;
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    s.programs
        .iter()
        .enumerate()
        .map(|(i, (name, pair))| {
            let write = |suffix: &str, sp: &Option<hoist_raster::scene::SceneProgram>| {
                let f = tmp(&format!("{stem}-{i}.{suffix}"));
                std::fs::write(&f, sp.as_ref().map_or("", |p| p.source.as_str())).unwrap();
                f
            };
            (
                format!("{} [{name}]", path.display()),
                write("vp", &pair.vertex),
                write("fp", &pair.fragment),
            )
        })
        .collect()
}

/// Translates to both languages as text and JSON; returns the failures.
fn translate_all(files: &[PathBuf]) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut n = 0;
    for f in files {
        for (name, vp, fp) in pairs(f) {
            n += 1;
            let (vp, fp) = (vp.to_str().unwrap(), fp.to_str().unwrap());
            for to in ["wgsl", "glsl"] {
                let r = hoist(&["translate", "--to", to, "--vp", vp, "--fp", fp]);
                let out = String::from_utf8_lossy(&r.stdout);
                let marked = out.contains("// ==== vertex shader")
                    && out.contains("// ==== fragment shader");
                if !r.status.success() || !marked {
                    failures.push(format!(
                        "{name} --to {to}: {}",
                        String::from_utf8_lossy(&r.stderr)
                    ));
                    continue;
                }
                let r = hoist(&["translate", "--to", to, "--vp", vp, "--fp", fp, "--json"]);
                match serde_json::from_slice::<serde_json::Value>(&r.stdout) {
                    Ok(j) if j["shaders"].as_array().is_some_and(|s| s.len() == 2) => {}
                    _ => failures.push(format!("{name} --to {to} --json: no shaders")),
                }
            }
        }
    }
    (n, failures)
}

#[test]
fn every_example_translates_to_both_languages() {
    let mut files = Vec::new();
    collect(&root().join("examples"), &mut files);
    files.sort();
    let (n, failures) = translate_all(&files);
    println!("{n} example pairs translated to WGSL and GLSL ES");
    assert!(n >= 50, "{n} pairs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_piglit_test_translates_to_both_languages() {
    let Some(dir) = oracles::shared("corpus/piglit/tests/spec") else {
        oracles::skip("../shared/corpus/piglit is not next to the repository");
        return;
    };
    let mut files = Vec::new();
    collect(&dir, &mut files);
    assert_eq!(files.len(), 80);
    let (n, failures) = translate_all(&files);
    println!("{n} piglit pairs translated to WGSL and GLSL ES");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_is_the_library_s_translation_with_its_bindings() {
    let (vp, fp) = ("examples/paper/gauss13.vsh", "examples/paper/gauss13.psh");
    let r = hoist(&[
        "translate",
        "--to",
        "glsl",
        "--vp",
        vp,
        "--fp",
        fp,
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let keys: Vec<&str> = j.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "bindings",
            "differences",
            "fragment",
            "language",
            "shaders",
            "vertex"
        ]
    );
    let parse = |f: &str| {
        let src = std::fs::read_to_string(root().join(f)).unwrap();
        hoist_asm::parse(&src, &Default::default()).program.unwrap()
    };
    let t = hoist_gpu::translate(
        Some(&parse(vp)),
        Some(&parse(fp)),
        &hoist_gpu::Options::default(),
    )
    .unwrap();
    assert_eq!(j["shaders"][0]["source"], t.glsl_vs.as_str());
    assert_eq!(j["shaders"][1]["source"], t.glsl_fs.as_str());
    assert_eq!(j["shaders"][1]["stage"], "fragment");
    assert_eq!(j["fragment"]["profile"], "ps_2_0");
    let b = &j["bindings"];
    assert_eq!(b["attributes"][0]["location"], 0);
    assert_eq!(b["textures"][0]["unit"], 0);
    assert_eq!(b["textures"][0]["view"], "2d");
    assert!(
        b["uniforms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["name"] == "fragment_consts")
    );
    let ids: Vec<&str> = j["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"texture-filtering"), "{ids:?}");
    let r = hoist(&["translate", "--to", "wgsl", "--vp", vp, "--fp", fp]);
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("@vertex\nfn vs(") && text.contains("@fragment\nfn fs("));
}

#[test]
fn bad_input_is_a_clear_error() {
    let run = |args: &[&str]| {
        let r = hoist(args);
        (
            r.status.code(),
            String::from_utf8_lossy(&r.stderr).to_string(),
        )
    };
    let fp = "examples/paper/gauss13.psh";
    // A fragment program where the vertex program goes.
    let (code, err) = run(&["translate", "--to", "wgsl", "--vp", fp, "--fp", fp]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("fragment program was given as the vertex program"),
        "{err}"
    );
    // A program the executor refuses too (relative output addressing).
    let (code, err) = run(&[
        "translate",
        "--to",
        "glsl",
        "--vp",
        "crates/asm/tests/d3d9/all_vs_3_0.vsh",
        "--fp",
        fp,
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("relative destination"), "{err}");
    // A syntax error: the parser's diagnostic.
    let bad = tmp("bad.vp");
    std::fs::write(&bad, "!!ARBvp1.0\nMOV result.position, nonsense;\nEND\n").unwrap();
    let (code, err) = run(&[
        "translate",
        "--to",
        "wgsl",
        "--vp",
        bad.to_str().unwrap(),
        "--fp",
        fp,
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("nonsense"), "{err}");
    let (code, err) = run(&[
        "translate",
        "--to",
        "wgsl",
        "--vp",
        "no/such.vp",
        "--fp",
        fp,
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("cannot read"), "{err}");
    let (code, _) = run(&["translate", "--to", "hlsl", "--vp", fp, "--fp", fp]);
    assert_eq!(code, Some(2));
    let (code, _) = run(&["translate", "--vp", fp, "--fp", fp]);
    assert_eq!(code, Some(2));
}

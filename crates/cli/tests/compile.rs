//! `hoist compile` as scripts use it: every option of
//! `hoist compile FILE.wgsl [--vertex NAME] [--fragment NAME] [--dialect arb|d3d9]
//! [--target T] [--out-vp F] [--out-fp F] [--json]` and the GLSL form; the default ARB
//! target is the smallest the programs fit; naga's messages come at the source line.
//! `hoist run` reads scenes with GLSL and WGSL sections.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use std::process::{Command, Output};

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hoist-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Two vertex and two fragment entry points; `long` unrolls to more fragment
/// instructions than the R300's 96 (but fewer than NV40's 4096).
const MODULE: &str = "struct V { @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32> }
@group(0) @binding(0) var<uniform> k: vec4<f32>;
@vertex fn a(@location(0) p: vec4<f32>, @location(8) t: vec2<f32>) -> V { return V(p, t); }
@vertex fn b(@location(0) p: vec4<f32>, @location(8) t: vec2<f32>) -> V { return V(p, t * 2.0); }
@fragment fn short(i: V) -> @location(0) vec4<f32> { return vec4(i.uv * k.xy, 0.0, 1.0); }
@fragment fn long(i: V) -> @location(0) vec4<f32> {
  var x = i.uv.x;
  for (var n = 0; n < 60; n++) { x = fract(x * k.x + k.y); }
  return vec4(x);
}
";

#[test]
fn entry_points_dialect_target_and_outputs() {
    let src = tmp("m.wgsl");
    std::fs::write(&src, MODULE).unwrap();
    let s = src.to_str().unwrap();
    // Two of each stage: the user must pick.
    let r = hoist(&["compile", s]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("several vertex entry points"));
    // The short pair fits the R300, the default target.
    let r = hoist(&[
        "compile",
        s,
        "--vertex",
        "b",
        "--fragment",
        "short",
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    for key in ["vp", "fp", "dialect", "bindings", "spans"] {
        assert!(j.get(key).is_some(), "no `{key}` in {j}");
    }
    assert_eq!(j["dialect"], "arb");
    assert_eq!(j["target"], "r300");
    assert!(j["vp"].as_str().unwrap().contains("!!ARBvp1.0"));
    // The long one needs NV40's limits: chosen by default, refused under --target r300.
    let r = hoist(&[
        "compile",
        s,
        "--vertex",
        "a",
        "--fragment",
        "long",
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(j["target"], "nv40", "{}", j["fp"]);
    let r = hoist(&[
        "compile",
        s,
        "--vertex",
        "a",
        "--fragment",
        "long",
        "--dialect",
        "arb",
        "--target",
        "r300",
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("do not fit the target"));
    let r = hoist(&[
        "compile",
        s,
        "--vertex",
        "a",
        "--fragment",
        "long",
        "--target",
        "g80",
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(j["target"], "g80");
    let r = hoist(&["compile", s, "--target", "r500"]);
    assert_eq!(r.status.code(), Some(2));
    // D3D9, written to files.
    let (vp, fp) = (tmp("o.vsh"), tmp("o.psh"));
    let r = hoist(&[
        "compile",
        s,
        "--vertex",
        "a",
        "--fragment",
        "short",
        "--dialect",
        "d3d9",
        "--out-vp",
        vp.to_str().unwrap(),
        "--out-fp",
        fp.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(std::fs::read_to_string(&vp).unwrap().starts_with("vs_3_0"));
    assert!(std::fs::read_to_string(&fp).unwrap().starts_with("ps_3_0"));
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        !out.contains("ps_3_0") && out.contains("bindings:"),
        "{out}"
    );
}

#[test]
fn nagas_message_comes_at_its_line() {
    let src = tmp("bad.wgsl");
    std::fs::write(
        &src,
        "@vertex fn v() -> @builtin(position) vec4<f32> { return vec4(0.0); }\n\
         @fragment fn f() -> @location(0) vec4<f32> {\n  let x: f32 = true;\n  return vec4(x);\n}\n",
    )
    .unwrap();
    let r = hoist(&["compile", src.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.wgsl:3:"), "{err}");
}

#[test]
fn glsl_pairs_compile() {
    let (vs, fs) = (tmp("a.vert"), tmp("a.frag"));
    std::fs::write(
        &vs,
        "attribute vec4 position;\nattribute vec2 texcoord;\nvarying vec2 v_uv;\n\
         void main() { v_uv = texcoord; gl_Position = position; }\n",
    )
    .unwrap();
    std::fs::write(
        &fs,
        "precision mediump float;\nuniform sampler2D u_image;\nvarying vec2 v_uv;\n\
         void main() { gl_FragColor = texture2D(u_image, v_uv * 0.5); }\n",
    )
    .unwrap();
    let r = hoist(&[
        "compile",
        "--glsl-vs",
        vs.to_str().unwrap(),
        "--glsl-fs",
        fs.to_str().unwrap(),
        "--json",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert!(j["bindings"]["textures"][0]["name"] == "u_image", "{j}");
}

#[test]
fn run_reads_scenes_with_shader_sections() {
    let scene = tmp("s.shader_test");
    std::fs::write(
        &scene,
        "[require]\nGLSL >= 1.10\n\n[vertex shader]\nvoid main() { gl_Position = gl_Vertex; }\n\n\
         [fragment shader]\nuniform vec4 color;\nvoid main() { gl_FragColor = color * 0.5; }\n\n\
         [test]\nuniform vec4 color 1.0 0.5 0.25 1.0\ndraw rect -1 -1 2 2\n\
         probe all rgba 0.5 0.25 0.125 0.5\nprobe all rgba 1 1 1 1\n",
    )
    .unwrap();
    let r = hoist(&["run", scene.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&r.stdout);
    // The probes are reported at the lines of the file as written.
    assert!(out.contains("PASS line 14"), "{out}");
    assert!(out.contains("FAIL line 15"), "{out}");
    assert!(out.contains("1 passed, 1 failed"), "{out}");
    // A GLSL error is reported at its line in the scene.
    std::fs::write(
        &scene,
        "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; }\n[fragment shader]\n\
         void main() {\n  gl_FragColor = vec4(nope);\n}\n[test]\ndraw rect -1 -1 2 2\n",
    )
    .unwrap();
    let r = hoist(&["run", scene.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("s.shader_test:5:"), "{err}");
}

/// Every WGSL and GLSL example: `hoist opt` moves work out of its fragment program, the
/// optimized pair validates, and the scene renders the same both ways.
#[test]
fn the_motion_shortens_every_example() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    let mut n = 0;
    for dir in ["wgsl", "glsl"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_none_or(|x| x != "shader_test") {
                continue;
            }
            n += 1;
            let r = hoist(&["opt", p.to_str().unwrap(), "--json"]);
            let out = String::from_utf8_lossy(&r.stdout);
            assert!(
                r.status.success(),
                "{}: {}{out}",
                p.display(),
                String::from_utf8_lossy(&r.stderr)
            );
            let j: serde_json::Value = serde_json::from_str(
                out.split("\n}\n")
                    .next()
                    .map(|s| format!("{s}\n}}"))
                    .as_deref()
                    .unwrap_or(""),
            )
            .unwrap_or_else(|e| panic!("{}: {e}: {out}", p.display()));
            let slots = |s: &serde_json::Value| {
                ["alu", "tex", "flow"]
                    .iter()
                    .map(|k| s[*k].as_u64().expect("slot count"))
                    .sum::<u64>()
            };
            let before = slots(&j["before"]["fp_slots"]);
            let after = slots(&j["after"]["fp_slots"]);
            let verdict =
                out.contains("window: bit-identical") || out.contains("window: equivalent");
            assert!(verdict, "{}: {out}", p.display());
            assert!(
                after < before,
                "{}: fragment slots {before} -> {after}",
                p.display()
            );
        }
    }
    assert!(n >= 10);
}

/// `hoist render --wgsl`: a unit is GL's, seen by both stages; compiled to D3D9 the vertex
/// shader's `s0` is unit 16, and it reads `--texture 0` too (it read (0, 0, 0, 1) before).
/// The vertex and the fragment stage fetch the same texel (blue): their difference is 0.
#[test]
fn render_gives_a_d3d9_vertex_fetch_the_units_texture() {
    let src = tmp("vt.wgsl");
    std::fs::write(
        &src,
        "@group(0) @binding(1) var tex: texture_2d<f32>;\n\
         @group(0) @binding(2) var samp: sampler;\n\
         struct V { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }\n\
         @vertex fn vs(@location(0) p: vec4<f32>) -> V {\n  \
         return V(p, textureSampleLevel(tex, samp, vec2(0.25, 0.75), 0.0));\n}\n\
         @fragment fn fs(i: V) -> @location(0) vec4<f32> {\n  \
         let t = textureSample(tex, samp, vec2(0.25, 0.75));\n  \
         return vec4(abs(i.c - t).rgb + t.rgb * 0.0001, 1.0);\n}\n",
    )
    .unwrap();
    let r = hoist(&[
        "render",
        "--wgsl",
        src.to_str().unwrap(),
        "--dialect",
        "d3d9",
        "--texture",
        "0",
        "rgbw@2x2",
        "--filter",
        "nearest",
        "--size",
        "8x8",
    ]);
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let max = |c: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("image {c}:")))
            .unwrap_or_else(|| panic!("{out}"));
        let v = line.split(" max ").nth(1).and_then(|s| s.split(' ').next());
        v.and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{line}"))
    };
    assert!(max("R") < 1e-3 && max("G") < 1e-3, "{out}");
    assert!(max("B") > 0.0 && max("B") < 1e-3, "{out}");
}

//! The front end's contract: naga's messages at the right line, refusals at the span of
//! what cannot lower, the binding table and spans, and the fuzz regressions replayed.

use hoist_asm::Dialect;
use hoist_asm::diag::LineIndex;
use hoist_front::{Options, SourceId, compile_glsl, compile_wgsl};

const PASS: &str = "struct V { @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(8) t: vec2<f32>) -> V { return V(p, t); }
";

fn line_of(src: &str, e: &hoist_front::Error) -> u32 {
    LineIndex::new(src)
        .line_col(e.diagnostics[0].span.start as usize)
        .line
}

#[test]
fn a_wgsl_syntax_error_is_nagas_message_at_its_line() {
    let src = format!(
        "{PASS}@fragment fn fs(i: V) -> @location(0) vec4<f32> {{\n  let x = ;\n  return vec4(1.0);\n}}\n"
    );
    let e = compile_wgsl(&src, &Options::default()).unwrap_err();
    assert_eq!(e.source, SourceId::Wgsl);
    assert_eq!(line_of(&src, &e), 4, "{:?}", e.diagnostics);
}

#[test]
fn a_wgsl_type_error_is_nagas_validation_message_at_its_line() {
    let src = format!(
        "{PASS}@fragment fn fs(i: V) -> @location(0) vec4<f32> {{\n  let x: f32 = 1.0;\n  return vec4(x) + i.uv;\n}}\n"
    );
    let e = compile_wgsl(&src, &Options::default()).unwrap_err();
    assert!(matches!(line_of(&src, &e), 3..=5), "{:?}", e.diagnostics);
}

#[test]
fn a_glsl_error_points_into_the_shader_the_user_wrote() {
    let vs = "attribute vec4 position;\nvoid main() { gl_Position = position; }\n";
    let fs =
        "precision mediump float;\nvoid main() {\n  gl_FragColor = vec4(undefined_thing);\n}\n";
    let e = compile_glsl(vs, fs, &Options::default()).unwrap_err();
    assert_eq!(e.source, SourceId::GlslFragment);
    assert_eq!(line_of(fs, &e), 3, "{:?}", e.diagnostics);
}

#[test]
fn what_cannot_lower_is_refused_at_its_span() {
    let src = format!(
        "{PASS}@group(0) @binding(0) var<storage, read> data: array<f32>;\n@fragment fn fs(i: V) -> @location(0) vec4<f32> {{\n  return vec4(data[0]);\n}}\n"
    );
    let e = compile_wgsl(&src, &Options::default()).unwrap_err();
    assert!(
        e.diagnostics[0].message.contains("storage"),
        "{:?}",
        e.diagnostics
    );
    assert_eq!(line_of(&src, &e), 5);
    let flat =
        "struct V { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) k: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>) -> V { return V(p, p); }
@fragment fn fs(i: V) -> @location(0) vec4<f32> { return i.k; }
";
    let e = compile_wgsl(flat, &Options::default()).unwrap_err();
    assert!(
        e.diagnostics[0].message.contains("flat"),
        "{:?}",
        e.diagnostics
    );
}

#[test]
fn derivatives_choose_d3d9_and_constant_loops_unroll_for_arb() {
    let src = format!(
        "{PASS}@fragment fn fs(i: V) -> @location(0) vec4<f32> {{\n  return vec4(dpdx(i.uv), 0.0, 1.0);\n}}\n"
    );
    let c = compile_wgsl(&src, &Options::default()).expect("compiles");
    assert_eq!(c.dialect, Dialect::D3d9);
    assert!(c.fp.contains("dsx"), "{}", c.fp);
    let err = compile_wgsl(
        &src,
        &Options {
            dialect: Some(Dialect::Arb),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(err.diagnostics[0].message.contains("d3d9"));
    let lp = format!(
        "{PASS}@fragment fn fs(i: V) -> @location(0) vec4<f32> {{\n  var a = 0.0;\n  for (var k = 0; k < 4; k++) {{ a += i.uv.x * f32(k); }}\n  return vec4(a);\n}}\n"
    );
    let c = compile_wgsl(&lp, &Options::default()).expect("compiles");
    assert_eq!(c.dialect, Dialect::Arb);
    assert!(!c.fp.contains("rep"));
}

#[test]
fn every_instruction_carries_a_span_inside_its_source() {
    let scene = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/wgsl/lighting.shader_test"
    ))
    .unwrap();
    let src = scene.split("[wgsl]\n").nth(1).unwrap();
    let src = src.split("\n[test]").next().unwrap().to_string();
    let c = compile_wgsl(&src, &Options::default()).expect("compiles");
    let fp = hoist_asm::parse(&c.fp, &hoist_asm::ParseOptions::default())
        .program
        .expect("parses");
    let moves_to_outputs = fp
        .insts
        .iter()
        .filter(|i| i.dst.as_ref().is_some_and(|d| d.reg.file.is_output()))
        .count();
    assert!(
        c.spans.fp.len() + moves_to_outputs >= fp.insts.len(),
        "{} spans for {} instructions",
        c.spans.fp.len(),
        fp.insts.len()
    );
    for s in c.spans.vp.iter().chain(&c.spans.fp) {
        assert!(s.end <= src.len() && s.start <= s.end);
        assert!(s.src_line >= 1);
    }
    assert!(
        c.bindings
            .uniforms
            .iter()
            .any(|u| u.name == "light.shininess")
    );
}

#[test]
fn fuzz_regressions_replay() {
    for target in ["front_wgsl", "front_glsl"] {
        let dir =
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/regressions/").to_string() + target;
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for f in rd.flatten() {
            let data = std::fs::read(f.path()).unwrap();
            if target == "front_wgsl" {
                hoist_front::fuzz::wgsl(&data);
            } else {
                hoist_front::fuzz::glsl(&data);
            }
        }
    }
}

/// A scene's texture unit is seen by both stages, as in GL and WebGPU; in D3D9 the vertex
/// shader's `s0` is a sampler of its own (unit 16), so the scene's `texture ... 0` must reach
/// it too. The vertex stage fetches a texel and the fragment stage fetches the same one:
/// their difference is zero only when both read the scene's texture (the vertex fetch read
/// (0, 0, 0, 1) when only unit 0 was bound).
#[test]
fn a_vertex_texture_fetch_reads_the_scenes_texture_in_d3d9() {
    let wgsl = "[wgsl]\n@group(0) @binding(1) var tex: texture_2d<f32>;\n\
                @group(0) @binding(2) var samp: sampler;\n\
                struct V { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }\n\
                @vertex fn vs(@location(0) p: vec4<f32>) -> V {\n  \
                return V(p, textureSampleLevel(tex, samp, vec2(0.25, 0.75), 0.0));\n}\n\
                @fragment fn fs(i: V) -> @location(0) vec4<f32> {\n  \
                let t = textureSample(tex, samp, vec2(0.25, 0.75));\n  \
                return vec4(abs(i.c - t).rgb + t.rgb * 0.0001, 1.0);\n}\n";
    let glsl = "[vertex shader]\nuniform sampler2D tex;\nvarying vec4 c;\n\
                void main() { gl_Position = gl_Vertex; c = texture2DLod(tex, vec2(0.25, 0.75), 0.0); }\n\
                [fragment shader]\nuniform sampler2D tex;\nvarying vec4 c;\n\
                void main() { vec4 t = texture2D(tex, vec2(0.25, 0.75));\n  \
                gl_FragColor = vec4(abs(c - t).rgb + t.rgb * 0.0001, 1.0); }\n";
    let test = "[test]\nwindow rgba32f 8 8\ntexture pattern 0 rgbw@2x2 filter nearest\n\
                draw rect -1 -1 2 2\n";
    let opts = Options {
        dialect: Some(Dialect::D3d9),
        ..Options::default()
    };
    let ro = hoist_raster::scene::RunOptions::default();
    for (what, src) in [("WGSL", wgsl), ("GLSL", glsl)] {
        let text = format!("{src}{test}");
        let p = hoist_front::scene::parse(&text, &ro.caps, &opts)
            .unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let t = p.translated.as_ref().expect("compiled");
        assert!(
            t.compiled.vp.contains("texldl"),
            "{what}: {}",
            t.compiled.vp
        );
        let r = hoist_raster::scene::run(&p.scene, &ro).expect("runs");
        let img = &r.targets["window"];
        for px in &img.pixels {
            // The texel (blue in rgbw) is not black, so a vertex fetch of no texture shows.
            assert!(
                px[0] < 1e-3 && px[1] < 1e-3 && px[2] < 1e-3 && px[2] > 0.0,
                "{what}: {px:?}"
            );
        }
    }
}

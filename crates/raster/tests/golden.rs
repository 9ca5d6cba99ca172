//! Bit-identity of native and wasm builds: renders a fixed set of programs (every
//! transcendental, partial-precision forms, perspective interpolation, bilinear/mipmapped/
//! projective sampling, D3D9 flow control, a multi-pass scene) and compares the FNV-1a
//! hashes of the float images with `tests/golden/hashes.txt`.
//!
//! The native test regenerates the file when `BLESS=1`; the same test compiled for
//! `wasm32-unknown-unknown` (wasm-bindgen-test, runs in Node) checks the same file, so a
//! difference between the two builds fails one of them.

use hoist_asm::{ParseOptions, Program};
use hoist_raster::jit::Exec;
use hoist_raster::scene::{self, RunOptions};
use hoist_raster::{
    Caps, Filter, MipFilter, RenderConfig, Sampler, TexFormat, Texture, Wrap, pattern, render,
};
use std::sync::Arc;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;

const GOLDEN: &str = include_str!("golden/hashes.txt");

const PASS_VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
MOV result.texcoord[0], vertex.texcoord[0];\nMOV result.texcoord[1], vertex.texcoord[0].yxyx;\nEND\n";
const SHOW_FP: &str = "!!ARBfp1.0\nTEMP a;\nADD a, fragment.texcoord[1], fragment.texcoord[2];\n\
MAD result.color, fragment.texcoord[0], 0.5, a;\nEND\n";

const PINGPONG: &str = "\
[require]\nGL >= 1.3\n\n\
[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n\n\
[fragment program step]\n!!ARBfp1.0\nPARAM d = program.local[0];\nTEMP a, b, c;\n\
TEX a, fragment.texcoord[0], texture[0], 2D;\nADD c, fragment.texcoord[0], d;\nTEX b, c, texture[0], 2D;\n\
LRP a, 0.3, b, a;\nSIN a.w, a.x;\nMOV result.color, a;\nEND\n\n\
[vertex program step]\n!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n\n\
[test]\nwindow rgba32f 48 40\ntarget ping rgba32f 48 40\ntarget pong rgba32f 48 40\n\
texture pattern 0 noise:11@48x40 filter linear\nbind target ping\ndraw quad\n\
use program step\nparameter local_fp 0 (0.013, 0.007, 0, 0)\n\
repeat 6\nbind target pong\ntexture target 0 ping filter linear wrap repeat\ndraw quad\nswap ping pong\nend\n\
bind target window\ntexture target 0 ping\nuse program\ndraw quad\n";

fn parse(src: &str) -> Program {
    hoist_asm::parse(src, &ParseOptions::default())
        .into_result()
        .unwrap_or_else(|d| panic!("{d:?}"))
}

fn texture(spec: &str, filter: Filter, mip: MipFilter, wrap: Wrap) -> Arc<Texture> {
    let (p, size) = pattern::parse_spec(spec).unwrap();
    let (w, h) = size.unwrap();
    let img = pattern::generate(&p, w, h);
    let mut s = Sampler::new(filter, wrap);
    s.mip = mip;
    let mut t = Texture::new_2d(w, h, img.pixels, TexFormat::Rgba32F, s);
    if mip != MipFilter::None {
        t.generate_mipmaps();
    }
    Arc::new(t)
}

fn hashes(exec: Exec) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    hoist_raster::jit::set_default_exec(exec);
    let mut one = |name: &str, vp: &str, fp: &str, mut cfg: RenderConfig| {
        cfg.exec = exec;
        let r = render(Some(&parse(vp)), Some(&parse(fp)), &cfg).unwrap();
        out.push((name.to_string(), r.image.hash()));
    };
    let base = RenderConfig {
        width: 64,
        height: 48,
        ..RenderConfig::default()
    };
    one(
        "transcendental",
        PASS_VP,
        include_str!("golden/transcendental.fp"),
        base.clone(),
    );
    one(
        "partial",
        include_str!("golden/partial.vp"),
        SHOW_FP,
        base.clone(),
    );
    let mut cfg = base.clone();
    cfg.textures.insert(
        0,
        texture(
            "noise:9@37x23",
            Filter::Linear,
            MipFilter::Linear,
            Wrap::Repeat,
        ),
    );
    one(
        "sampling",
        include_str!("golden/partial.vp"),
        include_str!("golden/sample.fp"),
        cfg,
    );
    let mut cfg = base.clone();
    cfg.textures.insert(
        0,
        texture(
            "gradient@16x16",
            Filter::Nearest,
            MipFilter::Nearest,
            Wrap::ClampToEdge,
        ),
    );
    one(
        "d3d9_flow",
        include_str!("golden/flow.vsh"),
        include_str!("golden/ops.psh"),
        cfg,
    );
    let sc = scene::parse(PINGPONG, &Caps::default()).unwrap();
    let r = scene::run(&sc, &RunOptions::default()).unwrap();
    out.push(("pingpong_scene".into(), r.targets["window"].hash()));
    hoist_raster::jit::set_default_exec(Exec::Interp);
    out
}

fn format(h: &[(String, u64)]) -> String {
    h.iter().map(|(n, v)| format!("{n} {v:016x}\n")).collect()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn images_match_the_golden_hashes() {
    let got = format(&hashes(Exec::Interp));
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("BLESS").is_some() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/hashes.txt");
        std::fs::write(p, &got).unwrap();
        return;
    }
    assert_eq!(
        got, GOLDEN,
        "image hashes differ from tests/golden/hashes.txt"
    );
}

/// The compiled kernels (wasmtime natively) give the same hashes as the interpreter.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn compiled_kernels_match_the_golden_hashes() {
    assert_eq!(
        format(&hashes(Exec::Compiled)),
        GOLDEN,
        "compiled image hashes differ from tests/golden/hashes.txt"
    );
}

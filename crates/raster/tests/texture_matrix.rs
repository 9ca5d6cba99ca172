//! Texture fetches compiled against interpreted, over the whole matrix of issue 20: every
//! texture target (1D, 2D, 3D, CUBE, RECT, SHADOW1D, SHADOW2D, SHADOWRECT), every fetch
//! (ARB `TEX`/`TXP`/`TXB`; D3D9 `texld`/`texldp`/`texldb`/`texldl`/`texldd` and vs_3_0
//! vertex `texldl`), every write mask, identity, swizzled and negated coordinates, both
//! filters (and min ≠ mag), both wrap modes, no/nearest/linear mipmaps, colour and depth
//! textures with and without compare mode (every compare function and depth mode), and
//! 2D single-level textures behind non-2D targets (the compiled code's inline path). Each
//! kernel runs one batch of random and edge-value coordinates through the interpreter and
//! through wasmtime; outputs, kill masks and statistics must agree bit for bit.
//!
//! Also: the reproducer (a `SHADOW2D` fetch of a colour texture drew R = 0
//! compiled), and what depth textures and compare mode return (the rules of
//! `hoist_asm::semantics`), checked against values computed here from the texels.

use hoist_asm::ir::{TexTarget, sampler_unit};
use hoist_asm::{ParseOptions, Program, Stage};
use hoist_raster::compile::{LANES, compile};
use hoist_raster::exec::{ExecEnv, Machine};
use hoist_raster::jit::{self, Exec, abi};
use hoist_raster::raster::const_table;
use hoist_raster::scene::{self, RunOptions};
use hoist_raster::texture::{CompareFunc, DepthMode};
use hoist_raster::{
    Caps, Filter, GlState, Image, MipFilter, RenderConfig, Sampler, StageParams, TexFormat,
    Texture, Wrap, pattern, render,
};
use std::collections::BTreeMap;
use std::sync::Arc;

fn parse(src: &str) -> Result<Program, String> {
    hoist_asm::parse(src, &ParseOptions::default())
        .into_result()
        .map_err(|d| format!("{d:?}\n{src}"))
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f32 {
        ((self.next() >> 40) as f32) / (1u64 << 24) as f32
    }

    /// Mostly in [lo, hi]; one in sixteen an edge value.
    fn coord(&mut self, lo: f32, hi: f32) -> f32 {
        const EDGES: [f32; 9] = [
            0.0,
            -0.0,
            1.0,
            0.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-40,
            -2.5,
        ];
        let r = self.next();
        if r.is_multiple_of(16) {
            EDGES[(r >> 8) as usize % EDGES.len()]
        } else {
            lo + (hi - lo) * self.unit()
        }
    }
}

/// One texture configuration of the matrix.
#[derive(Clone, Copy, Debug)]
struct Config {
    /// A 2D texture of one level instead of the target's own shape.
    flat: bool,
    min: Filter,
    mag: Filter,
    wrap: Wrap,
    mip: MipFilter,
    /// `None`: colour (RGBA32F); `Some(None)`: depth without compare.
    depth: Option<Option<CompareFunc>>,
    mode: DepthMode,
}

fn configs(target: TexTarget) -> Vec<Config> {
    let flat_ok = !matches!(target, TexTarget::T3D | TexTarget::Cube);
    let mut v = Vec::new();
    let mut k = 0usize;
    for flat in [false, true] {
        if flat && !flat_ok {
            continue;
        }
        for (min, mag) in [
            (Filter::Nearest, Filter::Nearest),
            (Filter::Linear, Filter::Linear),
            (Filter::Linear, Filter::Nearest),
        ] {
            for wrap in [Wrap::ClampToEdge, Wrap::Repeat] {
                for mip in [MipFilter::None, MipFilter::Nearest, MipFilter::Linear] {
                    if flat && mip != MipFilter::None {
                        continue;
                    }
                    for d in 0..3 {
                        k += 1;
                        let depth = match d {
                            0 => None,
                            1 => Some(None),
                            _ => Some(Some(CompareFunc::ALL[k % 8])),
                        };
                        v.push(Config {
                            flat,
                            min,
                            mag,
                            wrap,
                            mip,
                            depth,
                            mode: DepthMode::ALL[(k / 3) % 4],
                        });
                    }
                }
            }
        }
    }
    v
}

fn texture(target: TexTarget, c: &Config, seed: u64) -> Texture {
    let sampler = Sampler {
        min: c.min,
        mag: c.mag,
        mip: c.mip,
        wrap: c.wrap,
        ..Sampler::default()
    };
    let mut rng = Rng(seed | 1);
    let mut t = if c.flat {
        let (w, h) = (7, 5);
        let texels = (0..w * h)
            .map(|_| std::array::from_fn(|_| rng.unit()))
            .collect();
        Texture::new_2d(w, h, texels, TexFormat::Rgba32F, sampler)
    } else {
        Texture::for_target(target, 6, sampler, &mut |_, _, _| {
            std::array::from_fn(|_| rng.unit())
        })
    };
    if let Some(cmp) = c.depth {
        t = t.into_depth(cmp, c.mode);
    }
    t
}

const MASKS: [&str; 15] = [
    ".x", ".y", ".xy", ".z", ".xz", ".yz", ".xyz", ".w", ".xw", ".yw", ".xyw", ".zw", ".xzw",
    ".yzw", "",
];
const SWIZZLES: [&str; 4] = ["", ".yzxw", "", ".wzyx"];

/// `k`-th variant: a write mask and a coordinate modifier (identity, swizzle, negation,
/// both).
fn variant(k: usize) -> (&'static str, bool, &'static str) {
    (MASKS[k % 15], k % 4 >= 2, SWIZZLES[k % 4])
}

fn arb_name(t: TexTarget) -> &'static str {
    match t {
        TexTarget::T1D => "1D",
        TexTarget::T2D => "2D",
        TexTarget::T3D => "3D",
        TexTarget::Cube => "CUBE",
        TexTarget::Rect => "RECT",
        TexTarget::Shadow1D => "SHADOW1D",
        TexTarget::Shadow2D => "SHADOW2D",
        TexTarget::ShadowRect => "SHADOWRECT",
    }
}

/// An ARB fragment program with four fetches `op` through `target`, variants `k..k + 4`,
/// one per draw buffer.
fn arb_program(op: &str, target: TexTarget, k: usize) -> String {
    let rect = matches!(target, TexTarget::Rect | TexTarget::ShadowRect);
    let mut s = String::from(
        "!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nOPTION ARB_draw_buffers;\nTEMP c, r0, r1, r2, r3;\n",
    );
    if rect {
        s.push_str("MUL c, fragment.texcoord[0], {7, 5, 1, 1};\n");
    } else {
        s.push_str("MOV c, fragment.texcoord[0];\n");
    }
    for i in 0..4 {
        let (mask, neg, swz) = variant(k + i);
        let n = if neg { "-" } else { "" };
        s.push_str(&format!(
            "{op} r{i}{mask}, {n}c{swz}, texture[{i}], {};\n",
            arb_name(target)
        ));
    }
    for i in 0..4 {
        s.push_str(&format!("MOV result.color[{i}], r{i};\n"));
    }
    s.push_str("END\n");
    s
}

fn d3d_name(t: TexTarget) -> &'static str {
    match t {
        TexTarget::Cube => "cube",
        TexTarget::T3D => "volume",
        _ => "2d",
    }
}

/// A ps_3_0 program with four fetches (`texld`, `texldp`, `texldb`, `texldl`, `texldd`),
/// one per colour output.
fn ps_program(op: &str, target: TexTarget, k: usize) -> String {
    let mut s = String::from("ps_3_0\ndcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_texcoord2 v2\n");
    for i in 0..4 {
        s.push_str(&format!("dcl_{} s{i}\n", d3d_name(target)));
    }
    s.push_str("def c0, 0, 0, 0, 0\nmov r4, v0\nmov r9, v1\nmov r10, v2\n");
    for i in 0..4 {
        // ps_3_0 takes no modifier on the coordinate: negation goes through a `mov`.
        let (mask, neg, swz) = variant(k + i);
        let n = if neg { "-" } else { "" };
        let grads = if op == "texldd" { ", r9, r10" } else { "" };
        s.push_str(&format!(
            "mov r{i}, c0\nmov r{}, {n}r4\n{op} r{i}{mask}, r{}{swz}, s{i}{grads}\n",
            5 + i,
            5 + i
        ));
    }
    for i in 0..4 {
        s.push_str(&format!("mov oC{i}, r{i}\n"));
    }
    s
}

/// A vs_3_0 program with four vertex texture fetches (`texldl`).
fn vs_program(target: TexTarget, k: usize) -> String {
    let mut s = String::from("vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\n");
    for i in 0..4 {
        s.push_str(&format!("dcl_{} s{i}\n", d3d_name(target)));
    }
    s.push_str("dcl_position o0\n");
    for i in 0..4 {
        s.push_str(&format!("dcl_texcoord{i} o{}\n", i + 1));
    }
    s.push_str("def c0, 0, 0, 0, 0\nmov r4, v1\nmov o0, v0\n");
    for i in 0..4 {
        let (mask, neg, swz) = variant(k + i);
        let n = if neg { "-" } else { "" };
        s.push_str(&format!(
            "mov r{i}, c0\nmov r{}, {n}r4\ntexldl r{i}{mask}, r{}{swz}, s{i}\n",
            5 + i,
            5 + i
        ));
    }
    for i in 0..4 {
        s.push_str(&format!("mov o{}, r{i}\n", i + 1));
    }
    s
}

/// Runs one batch of `p` through the interpreter and through wasmtime, once with a module
/// that reads each unit's mode at run time and once with one compiled for the bound
/// textures' modes; the first difference, if any.
fn compare_kernel(p: &Program, textures: &[Option<&Texture>], seed: u64) -> Option<String> {
    let k = compile(p).unwrap_or_else(|e| panic!("{e}"));
    [abi::ANY_MODES, abi::modes_for(&k, textures)]
        .iter()
        .find_map(|modes| {
            compare_modes(p, &k, textures, seed, modes).map(|e| format!("modes {modes:?}: {e}"))
        })
}

fn compare_modes(
    p: &Program,
    k: &hoist_raster::compile::Kernel,
    textures: &[Option<&Texture>],
    seed: u64,
    modes: &abi::Modes,
) -> Option<String> {
    let k = k.clone();
    let compiled = jit::prepare_with(&k, modes).unwrap_or_else(|e| panic!("refused: {e}"));
    let consts = const_table(p, k.const_len, &StageParams::default(), &GlState::default());
    let env = ExecEnv {
        consts: &consts,
        textures,
        shared_textures: &[],
        int_consts: &[],
        bool_consts: &[],
        quads: p.stage() == Stage::Fragment,
        max_loop_iterations: 255,
        max_call_depth: 8,
        max_batch_instructions: 1 << 22,
    };
    let mut a = Machine::new(&k);
    let mut b = Machine::new(&k);
    for m in [&mut a, &mut b] {
        m.bind_consts(&k, &consts);
        m.reset(&k);
    }
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for &(_, row) in &k.inputs {
        for (c, r) in (row as usize..row as usize + 4).enumerate() {
            let v: [f32; LANES] = std::array::from_fn(|_| match c {
                3 => rng.coord(-1.0, 3.0),
                _ => rng.coord(-0.6, 1.6),
            });
            *a.regs[r] = v;
            *b.regs[r] = v;
        }
    }
    let live = [true; LANES];
    a.run(&k, &env, &live);
    compiled.run(&mut b, &k, &env, &live);
    for &(reg, row) in &k.outputs {
        for c in 0..4 {
            let r = row as usize + c;
            for l in 0..LANES {
                if !same(a.regs[r][l], b.regs[r][l]) {
                    return Some(format!(
                        "{reg:?} component {c} lane {l}: interpreter {:?}, compiled {:?}",
                        a.regs[r][l], b.regs[r][l]
                    ));
                }
            }
        }
    }
    if a.killed != b.killed {
        return Some("kill masks differ".into());
    }
    if (a.insts_executed, a.slots_executed) != (b.insts_executed, b.slots_executed) {
        return Some("statistics differ".into());
    }
    None
}

/// Every cell of one stage/dialect: for each target and fetch, every texture configuration
/// with four variants each; returns the number of kernels run.
fn run_cells(
    cells: &[(&str, TexTarget)],
    program: &dyn Fn(&str, TexTarget, usize) -> String,
    problems: &mut Vec<String>,
    covered: &mut BTreeMap<String, [bool; 15]>,
) -> usize {
    let mut n = 0;
    for &(op, target) in cells {
        for (ci, c) in configs(target).iter().enumerate() {
            let k = 4 * ci;
            let text = program(op, target, k);
            let p = match parse(&text) {
                Ok(p) => p,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            let texs: Vec<Texture> = (0..4)
                .map(|u| texture(target, c, (ci * 4 + u) as u64 + 7))
                .collect();
            // s0..s3 are units 0..3 in a pixel program, 16..19 in a vertex program.
            let mut refs: Vec<Option<&Texture>> = vec![None; 32];
            for (u, t) in texs.iter().enumerate() {
                refs[usize::from(sampler_unit(p.stage(), u as u8))] = Some(t);
            }
            let bare = p
                .insts
                .iter()
                .filter_map(|i| i.tex)
                .find(|t| refs[t.unit as usize].is_none());
            assert!(bare.is_none(), "{op} {target:?}: no texture at {bare:?}");
            if let Some(d) = compare_kernel(&p, &refs, ci as u64) {
                problems.push(format!("{op} {target:?} {c:?}: {d}\n{text}"));
            }
            let cov = covered.entry(format!("{op} {target:?}")).or_default();
            for i in 0..4 {
                cov[(k + i) % 15] = true;
            }
            n += 1;
        }
    }
    n
}

const ALL_TARGETS: [TexTarget; 8] = [
    TexTarget::T1D,
    TexTarget::T2D,
    TexTarget::T3D,
    TexTarget::Cube,
    TexTarget::Rect,
    TexTarget::Shadow1D,
    TexTarget::Shadow2D,
    TexTarget::ShadowRect,
];

#[test]
fn every_target_fetch_mask_and_texture_is_bit_identical_compiled() {
    let mut problems = Vec::new();
    let mut covered = BTreeMap::new();
    let arb: Vec<(&str, TexTarget)> = ["TEX", "TXP", "TXB"]
        .into_iter()
        .flat_map(|op| ALL_TARGETS.map(|t| (op, t)))
        .collect();
    let d3d_targets = [TexTarget::T2D, TexTarget::Cube, TexTarget::T3D];
    let ps: Vec<(&str, TexTarget)> = ["texld", "texldp", "texldb", "texldl", "texldd"]
        .into_iter()
        .flat_map(|op| d3d_targets.map(|t| (op, t)))
        .collect();
    let vs: Vec<(&str, TexTarget)> = d3d_targets.map(|t| ("texldl", t)).to_vec();
    let n_arb = run_cells(
        &arb,
        &|op, t, k| arb_program(op, t, k),
        &mut problems,
        &mut covered,
    );
    let n_ps = run_cells(
        &ps,
        &|op, t, k| ps_program(op, t, k),
        &mut problems,
        &mut covered,
    );
    let mut vs_cov = BTreeMap::new();
    let n_vs = run_cells(&vs, &|_, t, k| vs_program(t, k), &mut problems, &mut vs_cov);
    println!(
        "texture matrix: {n_arb} ARB fragment, {n_ps} ps_3_0 and {n_vs} vs_3_0 kernels of four fetches, compiled against interpreted"
    );
    for (cell, masks) in covered.iter().chain(vs_cov.iter()) {
        assert!(
            masks.iter().all(|&m| m),
            "{cell}: not every write mask drawn"
        );
    }
    assert_eq!(covered.len(), arb.len() + ps.len(), "{problems:?}");
    assert!(
        problems.is_empty(),
        "{} of the matrix differ:\n{}",
        problems.len(),
        problems[..problems.len().min(4)].join("\n")
    );
}

const VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";

/// The reproducer, rendered as `hoist render --size 32x32 --tex-size 16x16
/// --texture 0 noise:1` does: compiled drew R = 0 at every pixel (the compiled code sends
/// `SHADOW2D` fetches to the general sampler, which had no copy of a texture the unit's
/// descriptor could sample inline).
fn reproducer(fp: &str, exec: Exec, format: TexFormat) -> Image {
    let (p, _) = pattern::parse_spec("noise:1").unwrap();
    let img = pattern::generate(&p, 16, 16);
    let t = Texture::new_2d(16, 16, img.pixels, format, Sampler::default());
    let mut cfg = RenderConfig {
        width: 32,
        height: 32,
        exec,
        ..RenderConfig::default()
    };
    cfg.textures.insert(0, Arc::new(t));
    let (vp, fp) = (parse(VP).unwrap(), parse(fp).unwrap());
    render(Some(&vp), Some(&fp), &cfg).unwrap().image
}

const SHADOW_FP: &str = "!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nTEMP R0;\n\
MUL R0.xyz, fragment.texcoord[0], {1, 1, 0.5, 0};\nTEX R0.x, R0, texture[0], SHADOW2D;\n\
MOV result.color, R0;\nEND\n";

#[test]
fn shadow_fetch_of_a_colour_texture_reproducer() {
    let full = SHADOW_FP.replace("TEX R0.x,", "TEX R0,");
    let plain = full.replace("SHADOW2D", "2D");
    for fp in [SHADOW_FP.to_string(), full] {
        let a = reproducer(&fp, Exec::Interp, TexFormat::Rgba32F);
        let b = reproducer(&fp, Exec::Compiled, TexFormat::Rgba32F);
        let p = reproducer(&plain, Exec::Interp, TexFormat::Rgba32F);
        let masked = fp.contains("R0.x,");
        for (i, ((x, y), z)) in a.pixels.iter().zip(&b.pixels).zip(&p.pixels).enumerate() {
            for c in 0..4 {
                assert!(
                    same(x[c], y[c]),
                    "pixel {i} component {c}: interpreter {}, compiled {}\n{fp}",
                    x[c],
                    y[c]
                );
            }
            // A shadow target on a colour texture is an ordinary fetch (llvmpipe, measured).
            assert_eq!(x[0], z[0], "pixel {i}");
            if !masked {
                assert_eq!(x, z, "pixel {i}");
            }
        }
        assert!(a.pixels.iter().any(|p| p[0] > 0.5), "the texture was read");
    }
}

fn quad_render(fp: &str, t: Texture, exec: Exec, size: u32) -> Image {
    let mut cfg = RenderConfig {
        width: size,
        height: size,
        exec,
        ..RenderConfig::default()
    };
    cfg.textures.insert(0, Arc::new(t));
    let (vp, fp) = (parse(VP).unwrap(), parse(fp).unwrap());
    render(Some(&vp), Some(&fp), &cfg).unwrap().image
}

/// Renders both ways, asserts they agree, returns the image.
fn checked(fp: &str, t: &Texture, size: u32) -> Image {
    let a = quad_render(fp, t.clone(), Exec::Interp, size);
    let b = quad_render(fp, t.clone(), Exec::Compiled, size);
    for (x, y) in a.pixels.iter().zip(&b.pixels) {
        assert!(
            (0..4).all(|c| same(x[c], y[c])),
            "{x:?} against {y:?}\n{fp}"
        );
    }
    a
}

/// A depth ramp D(x, y) = (x + ½)/8 over 8×8 texels, sampled at pixel centres of an 8×8
/// target (one texel per pixel), reference r set by the program.
fn ramp(filter: Filter, compare: Option<CompareFunc>, mode: DepthMode) -> Texture {
    let texels = (0..64)
        .map(|i| [((i % 8) as f32 + 0.5) / 8.0, 0.9, 0.9, 0.9])
        .collect();
    Texture::new_2d(
        8,
        8,
        texels,
        TexFormat::Depth,
        Sampler::new(filter, Wrap::ClampToEdge),
    )
    .into_depth(compare, mode)
}

fn shadow_fp(target: &str, r: f32) -> String {
    format!(
        "!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nTEMP c;\n\
         MOV c, fragment.texcoord[0];\nMOV c.z, {r};\nTEX result.color, c, texture[0], {target};\nEND\n"
    )
}

#[test]
fn depth_textures_and_compare_follow_the_semantics() {
    let d = |x: usize| (x as f32 + 0.5) / 8.0;
    // Compare on, SHADOW2D, nearest: 1 where r op D, expanded by the depth mode.
    for f in CompareFunc::ALL {
        for mode in DepthMode::ALL {
            let img = checked(
                &shadow_fp("SHADOW2D", 0.4375),
                &ramp(Filter::Nearest, Some(f), mode),
                8,
            );
            for (i, p) in img.pixels.iter().enumerate() {
                let v = if f.passes(0.4375, d(i % 8)) { 1.0 } else { 0.0 };
                assert_eq!(*p, mode.expand(v), "{f:?} {mode:?} pixel {i}");
            }
        }
    }
    // Compare off: the depth itself; a non-shadow target ignores compare mode.
    for (target, compare) in [("SHADOW2D", None), ("2D", Some(CompareFunc::Never))] {
        let img = checked(
            &shadow_fp(target, 0.0),
            &ramp(Filter::Nearest, compare, DepthMode::Luminance),
            8,
        );
        for (i, p) in img.pixels.iter().enumerate() {
            assert_eq!(
                *p,
                [d(i % 8), d(i % 8), d(i % 8), 1.0],
                "{target} pixel {i}"
            );
        }
    }
    // Linear: the four texels are compared first, then blended. At a 16×16 target pixel
    // centre between texels 3 and 4 (D = 0.4375, 0.5625) with r = 0.5 and LEQUAL, the
    // weights are ¾ and ¼ on the texels: one passes, one fails.
    let img = checked(
        &shadow_fp("SHADOW2D", 0.5),
        &ramp(
            Filter::Linear,
            Some(CompareFunc::Lequal),
            DepthMode::Intensity,
        ),
        16,
    );
    let at = |x: usize| img.pixels[5 * 16 + x][0];
    assert_eq!(
        at(7),
        0.25,
        "x 7: s = 15/32, between texel 3 (fails) and 4 (passes)"
    );
    assert_eq!(at(8), 0.75);
    assert_eq!(at(2), 0.0);
    assert_eq!(at(13), 1.0);
    // The reference is clamped to [0, 1]: r = 5 fails LEQUAL everywhere, r = -5 passes.
    for (r, want) in [(5.0, 0.0), (-5.0, 1.0)] {
        let img = checked(
            &shadow_fp("SHADOW2D", r),
            &ramp(Filter::Nearest, Some(CompareFunc::Lequal), DepthMode::Red),
            8,
        );
        assert!(
            img.pixels.iter().all(|p| *p == [want, 0.0, 0.0, 1.0]),
            "r = {r}"
        );
    }
}

#[test]
fn scenes_set_depth_textures_and_compare_mode() {
    let text = "[require]\nGL_ARB_fragment_program\n[vertex program]\n!!ARBvp1.0\n\
        MOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n\
        [fragment program]\n!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nTEMP c;\n\
        MOV c, fragment.texcoord[0];\nMOV c.z, 0.5;\nTEX result.color, c, texture[0], SHADOW2D;\nEND\n\
        [test]\nwindow rgba32f 8 8\ntexture pattern 0 gradient@8x8 format depth compare greater depth_mode alpha\n\
        draw quad\nprobe rgba 1 1 0 0 0 1\nprobe rgba 6 1 0 0 0 0\n";
    for exec in [Exec::Interp, Exec::Compiled] {
        jit::set_default_exec(exec);
        let r = scene::parse(text, &Caps::default())
            .and_then(|s| scene::run(&s, &RunOptions::default()));
        jit::set_default_exec(Exec::Interp);
        let r = r.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.failed(), 0, "{exec:?}: {:?}", r.probes);
        assert_eq!(r.passed(), 2);
    }
    for bad in ["compare sometimes", "depth_mode green", "format stencil"] {
        let t = text.replace("compare greater depth_mode alpha", bad);
        let e = scene::parse(&t, &Caps::default()).unwrap_err().to_string();
        assert!(e.contains("line 18"), "{bad}: {e}");
    }
}

//! The pixel trace's property (issue 25): the value a trace ends with is the rendered pixel,
//! bit for bit — for every example's pairs (original and optimized) and for generated pairs
//! of both dialects (ARB, D3D9, and D3D9 with loops, branches and predication), on a quad
//! and on overlapping perspective meshes with the depth test, with random textures of every
//! target, filter and mipmap mode. Each trace is also checked against itself: a texture
//! fetch's result is the value the instruction wrote, its listed texels and weights blend
//! to that result, and the trace survives a JSON round trip.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Program};
use hoist_raster::jit::Exec;
use hoist_raster::raster::CompiledProgram;
use hoist_raster::trace::{PixelTrace, trace_pixel};
use hoist_raster::value::vec4;
use hoist_raster::{ATTRIBS, Geometry, Mesh, Params, RenderConfig, StageParams};
use hoist_verify::execdiff::{ExecTally, textures};
use hoist_verify::generate::{self, Flavor, flow};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn parse(text: &str) -> Option<Program> {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .ok()
}

fn random_stage(rng: &mut SmallRng) -> StageParams {
    let mut p = StageParams::default();
    for i in 0..32u16 {
        let v = std::array::from_fn(|_| rng.random_range(-2.0f32..2.0));
        p.env.insert(i, v);
        p.local.insert(i, v.map(|x| x * 0.5));
    }
    p
}

/// Overlapping triangles at drawn depths and w (perspective), some back-facing.
fn mesh(rng: &mut SmallRng) -> Geometry {
    let mut vertices = Vec::new();
    for _ in 0..18 {
        let mut v = [[0.0, 0.0, 0.0, 1.0]; ATTRIBS];
        let w = rng.random_range(0.5f32..2.0);
        v[0] = [
            rng.random_range(-1.2f32..1.2) * w,
            rng.random_range(-1.2f32..1.2) * w,
            rng.random_range(-0.9f32..0.9) * w,
            w,
        ];
        v[8] = std::array::from_fn(|_| rng.random_range(0.0f32..1.0));
        v[3] = std::array::from_fn(|_| rng.random_range(0.0f32..1.0));
        vertices.push(v);
    }
    Geometry::Mesh(Mesh {
        vertices,
        indices: (0..18).collect(),
    })
}

/// A draw of `size`: the quad or a mesh (with the depth test), random parameters.
fn config(seed: u64, vp: &Program, fp: &Program, size: (u32, u32)) -> RenderConfig {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tally = ExecTally::default();
    let mut cfg = RenderConfig {
        width: size.0,
        height: size.1,
        textures: textures(&[vp, fp], seed, &mut tally),
        params: Params {
            vertex: random_stage(&mut rng),
            fragment: random_stage(&mut rng),
        },
        clear: [0.1, 0.2, 0.3, 0.4],
        ..RenderConfig::default()
    };
    if seed % 2 == 1 {
        cfg.geometry = mesh(&mut rng);
        cfg.state.depth_test = seed % 4 == 1;
    }
    cfg.caps.max_batch_instructions = 1 << 16;
    cfg
}

/// Traces every `step`-th pixel of the render of `cfg` and checks each against the image;
/// returns how many pixels were traced (those no triangle covers are skipped, after
/// checking they hold the clear colour).
fn check(label: &str, vp: &Program, fp: &Program, cfg: &RenderConfig, step: u32) -> usize {
    let mut cfg = cfg.clone();
    cfg.exec = Exec::Compiled;
    let Ok(image) = hoist_raster::render(Some(vp), Some(fp), &cfg) else {
        return 0;
    };
    let image = image.image;
    cfg.exec = Exec::Interp;
    let interp = hoist_raster::render(Some(vp), Some(fp), &cfg)
        .expect("renders")
        .image;
    assert_eq!(
        image.pixels.iter().map(|p| vec4(*p)).collect::<Vec<_>>(),
        interp.pixels.iter().map(|p| vec4(*p)).collect::<Vec<_>>(),
        "{label}: interpreter and compiled agree"
    );
    let cvp = Arc::new(CompiledProgram::new(vp).expect("compiles"));
    let cfp = Arc::new(CompiledProgram::new(fp).expect("compiles"));
    let mut traced = 0;
    for y in (0..cfg.height).step_by(step as usize) {
        for x in ((y % step)..cfg.width).step_by(step as usize) {
            let want = vec4(image.get(x, y).expect("inside"));
            match trace_pixel(Some(&cvp), Some(&cfp), &cfg, x, y) {
                Ok(t) => {
                    assert_eq!(
                        t.pixel,
                        want,
                        "{label}: pixel ({x}, {y})\n{vp}\n{fp}",
                        vp = hoist_asm::print(vp),
                        fp = hoist_asm::print(fp)
                    );
                    self_consistent(label, &t);
                    traced += 1;
                }
                Err(e) => {
                    assert!(e.to_string().contains("covers"), "{label}: {e}");
                    assert_eq!(want, vec4(cfg.clear), "{label}: uncovered ({x}, {y})");
                }
            }
        }
    }
    traced
}

/// A fetch's explained value is what the instruction wrote (full mask, no saturation,
/// unpredicated); a pair aligned with itself does not diverge.
fn self_consistent(label: &str, t: &PixelTrace) {
    for s in t.vertex.iter().chain(&t.fragment) {
        for (i, f) in s.fetch.iter().enumerate() {
            let (Some(f), Some(Some(v))) = (f, s.values.get(i)) else {
                continue;
            };
            if s.mask == 15 && s.pred.is_empty() && !s.op.contains("_sat") && !s.op.contains("_SAT")
            {
                assert_eq!(&f.value, v, "{label}: fetch `{}`", s.op);
            }
            if !f.incomplete {
                // The texels and weights the explanation lists blend to the fetched value.
                for c in 0..4 {
                    let blend: f64 = f
                        .texels
                        .iter()
                        .map(|t| f64::from(t.weight.get()) * f64::from(t.value[c].get()))
                        .sum();
                    let want = f64::from(f.value[c].get());
                    let scale = f
                        .texels
                        .iter()
                        .fold(1.0f64, |m, t| m.max(f64::from(t.value[c].get()).abs()));
                    assert!(
                        (blend - want).abs() <= 1e-5 * scale || !want.is_finite(),
                        "{label}: `{}` texels blend to {blend}, fetched {want}",
                        s.op
                    );
                }
            }
        }
    }
    assert!(!t.candidates.is_empty());
    let json = serde_json::to_string(t).expect("serializes");
    let back: PixelTrace = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(&back, t, "{label}: serde round trip");
}

#[test]
fn generated_pairs_trace_to_the_rendered_pixel() {
    let (mut pairs, mut pixels) = (0, 0);
    for seed in 0..32u64 {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = generate::pair(seed, flavor);
            let (Some(vp), Some(fp)) = (parse(&p.vp), parse(&p.fp)) else {
                continue;
            };
            let cfg = config(seed, &vp, &fp, (20, 13));
            pixels += check(&p.label, &vp, &fp, &cfg, 2);
            pairs += 1;
        }
    }
    assert!(
        pairs >= 60 && pixels >= 2500,
        "{pairs} pairs, {pixels} pixels"
    );
    eprintln!("generated: {pairs} pairs, {pixels} pixels traced");
}

#[test]
fn flow_control_pairs_trace_to_the_rendered_pixel() {
    let (mut pairs, mut pixels, mut iterations, mut predicated) = (0, 0, 0, 0);
    for seed in 0..60u64 {
        let p = flow::pair(seed);
        let vp = parse(&p.vp).unwrap_or_else(|| panic!("{}: vp parses\n{}", p.label, p.vp));
        let fp = parse(&p.fp).unwrap_or_else(|| panic!("{}: fp parses\n{}", p.label, p.fp));
        let cfg = config(seed, &vp, &fp, (16, 16));
        pixels += check(&p.label, &vp, &fp, &cfg, 3);
        pairs += 1;
        let cvp = Arc::new(CompiledProgram::new(&vp).unwrap());
        let cfp = Arc::new(CompiledProgram::new(&fp).unwrap());
        if let Ok(t) = trace_pixel(Some(&cvp), Some(&cfp), &cfg, 8, 8) {
            iterations += t
                .fragment
                .iter()
                .filter(|s| matches!(s.flow, Some(hoist_raster::trace::Flow::Iteration { .. })))
                .count();
            predicated += t.fragment.iter().filter(|s| !s.pred.is_empty()).count();
        }
    }
    assert!(
        pairs == 60 && pixels >= 1000,
        "{pairs} pairs, {pixels} pixels"
    );
    assert!(
        iterations > 20 && predicated > 5,
        "{iterations} iterations, {predicated} predicated"
    );
    eprintln!(
        "flow: {pairs} pairs, {pixels} pixels, {iterations} iterations, {predicated} predicated rows"
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "shader_test") {
            out.push(p);
        }
    }
}

/// Every example scene's program pairs, and its optimize pair optimized as `hoist opt`
/// does (with the mirrored parameters the optimized pair reads).
#[test]
fn examples_original_and_optimized_trace_to_the_rendered_pixel() {
    let mut files = Vec::new();
    collect(&repo().join("examples"), &mut files);
    files.sort();
    assert!(files.len() >= 30, "{} example scenes", files.len());
    let (mut pairs, mut pixels, mut optimized) = (0, 0, 0);
    let vcfg = hoist_verify::Config::default();
    for (i, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        let opts = hoist_front::Options::default();
        let scene = hoist_front::scene::parse(&text, &Default::default(), &opts)
            .unwrap_or_else(|e| panic!("{}: {e:?}", f.display()))
            .scene;
        let name = f.strip_prefix(repo()).unwrap().display().to_string();
        for (pname, pair) in &scene.programs {
            let (Some(vp), Some(fp)) = (&pair.vertex, &pair.fragment) else {
                continue;
            };
            let (vp, fp) = (&vp.program, &fp.program);
            let cfg = config(i as u64 * 2, vp, fp, (24, 16));
            pixels += check(&format!("{name} {pname}"), vp, fp, &cfg, 4);
            pairs += 1;
            if pname != scene.optimize_target() {
                continue;
            }
            let o = hoist_opt::Options {
                mirror_params: hoist_front::scene::has_sources(&text),
                ..hoist_opt::Options::default()
            };
            let Ok(v) = hoist_verify::optimize(vp, fp, &o, Some(&vcfg)) else {
                continue;
            };
            let out = &v.outcome;
            let mut ocfg = cfg.clone();
            ocfg.params = hoist_verify::validate::mirrored(&cfg.params, &cfg.state.gl, out);
            pixels += check(&format!("{name} optimized"), &out.vp, &out.fp, &ocfg, 4);
            optimized += 1;
            aligned_with_itself(&name, vp, fp, &cfg, out);
        }
    }
    assert!(
        pairs >= 30 && optimized >= 20,
        "{pairs} pairs, {optimized} optimized"
    );
    eprintln!("examples: {pairs} pairs ({optimized} optimized too), {pixels} pixels traced");
}

/// Aligning a pixel's trace of the original pair with the optimized pair's: moved
/// instructions are named, and the trace of the original aligned with itself through an
/// outcome that moved nothing has no divergence.
fn aligned_with_itself(
    name: &str,
    vp: &Program,
    fp: &Program,
    cfg: &RenderConfig,
    out: &hoist_opt::Outcome,
) {
    let cvp = Arc::new(CompiledProgram::new(vp).unwrap());
    let cfp = Arc::new(CompiledProgram::new(fp).unwrap());
    let ovp = Arc::new(CompiledProgram::new(&out.vp).unwrap());
    let ofp = Arc::new(CompiledProgram::new(&out.fp).unwrap());
    let mut ocfg = cfg.clone();
    ocfg.params = hoist_verify::validate::mirrored(&cfg.params, &cfg.state.gl, out);
    let (x, y) = (cfg.width / 2, cfg.height / 2);
    let (Ok(a), Ok(b)) = (
        trace_pixel(Some(&cvp), Some(&cfp), cfg, x, y),
        trace_pixel(Some(&ovp), Some(&ofp), &ocfg, x, y),
    ) else {
        return;
    };
    let al = hoist_verify::debug::align(&a, &b, out);
    let moved = out
        .vp_lines
        .iter()
        .filter(|l| matches!(l.prov, hoist_opt::Prov::Moved { .. }))
        .count();
    let named = al.vertex_moved_from.iter().flatten().count();
    assert!(
        moved == 0 || named > 0,
        "{name}: {moved} moved instructions, none named in the trace"
    );
    paired_vertex_rows(name, &a, &b, out, &al.vertex_rows);
}

/// The vertex stage's pairing: every step of both traces on exactly one row, each trace in
/// its order; a pair is one original instruction printed the same on both sides, with the
/// same values at the three vertices bit for bit; an optimized step alone names the
/// fragment instruction it was moved from exactly when it was moved; and every optimized
/// step of an original instruction printed as the original (straight-line code: each runs
/// once) is paired. Returns (pairs, moved rows).
fn paired_vertex_rows(
    name: &str,
    a: &PixelTrace,
    b: &PixelTrace,
    out: &hoist_opt::Outcome,
    rows: &[hoist_verify::debug::VertexRow],
) -> (usize, usize) {
    let seq = |f: &dyn Fn(&hoist_verify::debug::VertexRow) -> Option<usize>| {
        rows.iter().filter_map(f).collect::<Vec<_>>()
    };
    assert_eq!(
        seq(&|r| r.original),
        (0..a.vertex.len()).collect::<Vec<_>>(),
        "{name}: original steps"
    );
    assert_eq!(
        seq(&|r| r.optimized),
        (0..b.vertex.len()).collect::<Vec<_>>(),
        "{name}: optimized steps"
    );
    let (mut pairs, mut moved) = (0, 0);
    let flow = a.vertex.iter().chain(&b.vertex).any(|s| s.flow.is_some());
    for r in rows {
        let prov = |j: usize| out.vp_lines.get(b.vertex[j].inst as usize).map(|l| l.prov);
        match (r.original, r.optimized) {
            (Some(i), Some(j)) => {
                let (s, t) = (&a.vertex[i], &b.vertex[j]);
                assert_eq!(
                    prov(j),
                    Some(hoist_opt::Prov::Original { index: s.inst }),
                    "{name}: pair {i}/{j}"
                );
                assert_eq!(s.op.trim(), t.op.trim(), "{name}: pair {i}/{j}");
                // The written components (the rest of the register may hold other values).
                let written = |v: &[Option<hoist_raster::value::Vec4>]| {
                    v.iter()
                        .map(|v| {
                            v.map(|v| {
                                (0..4)
                                    .filter(|c| s.mask & (1 << c) != 0)
                                    .map(|c| v[c])
                                    .collect::<Vec<_>>()
                            })
                        })
                        .collect::<Vec<_>>()
                };
                assert_eq!(s.mask, t.mask, "{name}: pair {i}/{j}");
                assert_eq!(
                    written(&s.values),
                    written(&t.values),
                    "{name}: pair {i}/{j} `{}`",
                    s.op
                );
                assert!(r.moved_from.is_none());
                pairs += 1;
            }
            (None, Some(j)) => {
                let want = match prov(j) {
                    Some(hoist_opt::Prov::Moved { index }) => Some(index),
                    _ => None,
                };
                assert_eq!(r.moved_from, want, "{name}: optimized step {j}");
                moved += usize::from(want.is_some());
                if let (Some(hoist_opt::Prov::Original { index }), false) = (prov(j), flow) {
                    let printed = a.vertex.iter().find(|s| s.inst == index);
                    assert!(
                        printed.is_none_or(|s| s.op.trim() != b.vertex[j].op.trim()),
                        "{name}: optimized step {j} `{}` is original and unpaired",
                        b.vertex[j].op
                    );
                }
            }
            (Some(_), None) => assert!(r.moved_from.is_none()),
            (None, None) => panic!("{name}: an empty row"),
        }
    }
    (pairs, moved)
}

/// The vertex rows of generated pairs (ARB, D3D9 and flow control), optimized, at a few
/// pixels each: the pairing's invariants, with pairs and moved rows found.
#[test]
fn generated_pairs_pair_their_vertex_rows() {
    let (mut traced, mut pairs, mut moved) = (0, 0, 0);
    let mut programs: Vec<(String, String, String)> = Vec::new();
    for seed in 0..24u64 {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = generate::pair(seed, flavor);
            programs.push((p.label, p.vp, p.fp));
        }
        let p = flow::pair(seed);
        programs.push((p.label, p.vp, p.fp));
    }
    for (seed, (label, vp, fp)) in programs.iter().enumerate() {
        let (Some(vp), Some(fp)) = (parse(vp), parse(fp)) else {
            continue;
        };
        let Ok(v) = hoist_verify::optimize(&vp, &fp, &hoist_opt::Options::default(), None) else {
            continue;
        };
        let out = &v.outcome;
        let cfg = config(seed as u64, &vp, &fp, (16, 16));
        let mut ocfg = cfg.clone();
        ocfg.params = hoist_verify::validate::mirrored(&cfg.params, &cfg.state.gl, out);
        let c = |p: &Program| Arc::new(CompiledProgram::new(p).unwrap());
        let (cvp, cfp, ovp, ofp) = (c(&vp), c(&fp), c(&out.vp), c(&out.fp));
        for (x, y) in [(3, 4), (8, 8), (12, 13)] {
            let (Ok(a), Ok(b)) = (
                trace_pixel(Some(&cvp), Some(&cfp), &cfg, x, y),
                trace_pixel(Some(&ovp), Some(&ofp), &ocfg, x, y),
            ) else {
                continue;
            };
            let al = hoist_verify::debug::align(&a, &b, out);
            let (p, m) = paired_vertex_rows(label, &a, &b, out, &al.vertex_rows);
            traced += 1;
            pairs += p;
            moved += m;
        }
    }
    assert!(
        traced >= 100 && pairs >= 200 && moved >= 50,
        "{traced} pixels, {pairs} pairs, {moved} moved rows"
    );
    eprintln!("vertex rows: {traced} pixels, {pairs} pairs, {moved} moved rows");
}

/// A cancellation (`(x·10⁶ + 0.1) - x·10⁶`) moved without validation: the moved `MAD` and
/// `MUL` rows line up with their per-vertex values and agree, and the first divergence is
/// the `SUB`, whose per-fragment result is rounding noise the interpolated one is not.
#[test]
fn a_cancellation_diverges_at_the_subtraction() {
    let vp = parse(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
         MOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
    )
    .unwrap();
    let fp = parse(
        "!!ARBfp1.0\nPARAM big = {1000000, 0.1, 0, 0};\nTEMP a, b;\n\
         MAD a, fragment.texcoord[0], big.x, big.y;\nMUL b, fragment.texcoord[0], big.x;\n\
         SUB a, a, b;\nMOV result.color, a;\nEND\n",
    )
    .unwrap();
    let out = hoist_verify::optimize(&vp, &fp, &hoist_opt::Options::default(), None)
        .unwrap()
        .outcome;
    let cfg = RenderConfig {
        width: 300,
        height: 300,
        ..RenderConfig::default()
    };
    let c = |p: &Program| Arc::new(CompiledProgram::new(p).unwrap());
    let mut diverged = 0;
    for (x, y) in [(77, 130), (13, 201), (150, 40), (250, 260)] {
        let a = trace_pixel(Some(&c(&vp)), Some(&c(&fp)), &cfg, x, y).unwrap();
        let b = trace_pixel(Some(&c(&out.vp)), Some(&c(&out.fp)), &cfg, x, y).unwrap();
        let al = hoist_verify::debug::align(&a, &b, &out);
        assert_eq!(al.vertex_moved_from.iter().flatten().count(), 3);
        for (k, row) in al.rows.iter().enumerate().take(2) {
            assert!(
                matches!(row, hoist_verify::debug::AlignedRow::Moved { .. }),
                "row {k}: {row:?}"
            );
        }
        if let Some(d) = &al.first_divergence {
            assert_eq!(d.inst, 2, "({x}, {y}): {d:?}");
            assert_eq!(Some(d.original), a.fragment[2].values[0]);
            assert!(d.difference > d.tolerance);
            diverged += 1;
        }
    }
    assert!(diverged >= 3, "{diverged} of 4 pixels diverge at the SUB");
}

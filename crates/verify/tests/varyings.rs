//! The varying passes (issue 24) held against the executor: what an unwritten interpolant
//! reads, every pass firing on pairs made for it and rendering bit for bit like the
//! original, qualifiers never mixed in generated pairs, and the 13-tap Gaussian packed to
//! the fewest fragment slots any choice reaches, proven, in its scene.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ir::{Semantic, TexTarget};
use hoist_asm::{ArbTarget, ParseOptions, Program};
use hoist_opt::analysis::varyings::{Qualifier, Source, implied_semantic, unwritten_value};
use hoist_opt::passes::fp_to_vp::Carried;
use hoist_opt::{CostModel, Options};
use hoist_raster::{Filter, Params, RenderConfig, Sampler, Texture, Wrap};
use hoist_verify::Status;
use std::collections::BTreeMap;
use std::sync::Arc;

fn parse(text: &str) -> Program {
    match hoist_asm::parse(text, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => panic!("{}", hoist_asm::diag::render(&d, "test", text, false)),
    }
}

/// One pixel of `fp` (which copies an interpolant to the colour) after `vp`.
fn pixel(vp: &Program, fp: &Program) -> [f32; 4] {
    let cfg = RenderConfig {
        width: 2,
        height: 2,
        ..RenderConfig::default()
    };
    let r = hoist_raster::render(Some(vp), Some(fp), &cfg).expect("renders");
    r.image.pixels[0]
}

/// For vertex programs that leave interpolants unwritten in each way (no output of the
/// semantic, an output below a higher one of the same file, a declared output never
/// written, components of a written output), the value `analysis::varyings` says an
/// unwritten component reads is what the executor delivers.
#[test]
fn unwritten_inputs_read_what_the_executor_delivers() {
    let arb_vps = [
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n",
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[3], vertex.texcoord[0];\nEND\n",
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[1].xy, vertex.texcoord[0];\nEND\n",
        "!!ARBvp1.0\nOUTPUT o = result.texcoord[2];\nMOV result.position, vertex.position;\nEND\n",
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.color.secondary.x, 0.5;\nEND\n",
    ];
    let inputs = [
        "fragment.texcoord[0]",
        "fragment.texcoord[1]",
        "fragment.texcoord[2]",
        "fragment.color",
        "fragment.color.secondary",
    ];
    let mut checked = 0;
    for vp in arb_vps.map(parse) {
        for input in inputs {
            let fp = parse(&format!("!!ARBfp1.0\nMOV result.color, {input};\nEND\n"));
            checked += compare(&vp, &fp);
        }
    }
    let vs = parse(
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1.xy\ndcl_texcoord2 o2\n\
         mov o0, v0\nmov o1.xy, v0\n",
    );
    for k in 0..3 {
        let ps = parse(&format!("ps_3_0\ndcl_texcoord{k} v0\nmov oC0, v0\n"));
        checked += compare(&vs, &ps);
    }
    assert!(checked >= 60, "{checked} unwritten components checked");
}

/// The unwritten components of `fp`'s one input, against the rendered pixel.
fn compare(vp: &Program, fp: &Program) -> usize {
    let du = hoist_opt::analysis::defuse::DefUse::compute(vp).ok();
    let interp = hoist_opt::analysis::interp::InterpMap::compute(vp, du.as_ref(), fp);
    let facts = hoist_opt::analysis::varyings::Varyings::compute(vp, du.as_ref(), fp, &interp);
    let reg = fp.insts[0].src[0].reg;
    let sem = fp
        .semantic(reg)
        .or_else(|| implied_semantic(fp, reg))
        .expect("a semantic");
    let got = pixel(vp, fp);
    let mut n = 0;
    for c in 0..4u8 {
        if let Source::Unwritten { value } = facts.source(reg, c) {
            assert_eq!(*value, unwritten_value(vp, sem, c));
            assert_eq!(
                got[c as usize].to_bits(),
                value.to_bits(),
                "{sem:?}.{c} after\n{}",
                hoist_asm::print(vp)
            );
            n += 1;
        }
    }
    n
}

/// Textures with distinct texels on units 0 and 1.
fn textures() -> BTreeMap<u8, Arc<Texture>> {
    let mut m = BTreeMap::new();
    for unit in 0..2u8 {
        let s = Sampler::new(Filter::Nearest, Wrap::Repeat);
        let t = Texture::for_target(TexTarget::T2D, 8, s, &mut |x, y, _| {
            let (x, y) = (x as f32, y as f32);
            [x / 7.0, y / 7.0, (x * y + f32::from(unit)) / 50.0, 1.0]
        });
        m.insert(unit, Arc::new(t));
    }
    m
}

/// Optimizes and validates; the result must be validated with nothing rejected, render bit
/// for bit like the original (with the mirrored parameters), and `pass` must have changed
/// something. Returns the outcome.
fn check(vp: &str, fp: &str, opts: &Options, pass: &str) -> hoist_opt::Outcome {
    let out = renders_the_same(vp, fp, opts);
    assert!(
        out.varyings
            .changes
            .iter()
            .any(|c| c.done && c.pass == pass),
        "{pass} did nothing: {:?}",
        out.varyings.changes
    );
    out
}

/// Optimizes and validates; the result must be validated with nothing rejected and render
/// bit for bit like the original (with the mirrored parameters).
fn renders_the_same(vp: &str, fp: &str, opts: &Options) -> hoist_opt::Outcome {
    let (vp, fp) = (parse(vp), parse(fp));
    let cfg = hoist_verify::Config::default();
    let v = hoist_verify::optimize(&vp, &fp, opts, Some(&cfg)).expect("optimizes");
    assert_eq!(v.status, Status::Validated, "{:?}", v.status);
    assert!(v.rejected.is_empty(), "{:?}", v.rejected);
    let out = v.outcome;
    let mut params = Params::default();
    for n in 0..4u16 {
        let v = [0.25 + f32::from(n), -0.5, 0.75, 2.0];
        params.vertex.env.insert(n, v);
        params.vertex.local.insert(n, v.map(|x| x * 0.5));
        params.fragment.env.insert(n, v.map(|x| -x));
        params.fragment.local.insert(n, v.map(|x| x * 0.25));
    }
    let mut cfg = RenderConfig {
        width: 24,
        height: 24,
        textures: textures(),
        params: params.clone(),
        ..RenderConfig::default()
    };
    let a = hoist_raster::render(Some(&vp), Some(&fp), &cfg).expect("renders");
    cfg.params = hoist_verify::validate::mirrored(&params, &cfg.state.gl, &out);
    let b = hoist_raster::render(Some(&out.vp), Some(&out.fp), &cfg).expect("renders");
    for (i, (p, q)) in a.image.pixels.iter().zip(&b.image.pixels).enumerate() {
        assert!(
            p.iter().zip(q).all(|(x, y)| x.to_bits() == y.to_bits()),
            "pixel {i}: {q:?}, the original renders {p:?}\n{}\n{}",
            hoist_asm::print(&out.vp),
            hoist_asm::print(&out.fp)
        );
    }
    out
}

/// A fragment read of an output register nothing writes reads 0 where the register exists
/// (below a higher one the vertex program writes, or declared) and (0, 0, 0, 1) where it
/// does not: the optimizer must not change which registers exist under such a read
/// (`analysis::presence`). Each pair reads v0.w with two constants in an instruction kept
/// in the fragment program (no literal can replace it: a pixel shader instruction reads
/// two constant registers at most), so the read stays.
#[test]
fn removed_outputs_keep_what_unwritten_inputs_read() {
    let cases = [
        // oD1 is a constant, which varying_const propagates; its write then dies, and
        // with it oD0, which made v0.w read 0 (soak seed 3555).
        (
            "vs_2_0\ndef c0, 0.25, 0.5, 0.75, 1\ndcl_position v0\nmov oPos, v0\nmov oD1, c0\n",
            "ps_2_0\ndef c0, 0.5, 0.25, 2, 1\ndef c1, 0.125, 0, 0.5, 0.25\ndcl v0\ndcl v1\n\
             mad r0, v0, c0, c1\nmul r0, r0, v1\nmov oC0, r0\n",
            Some("varying_const"),
        ),
        // oD0.x and oD1 are written but never read: removing both leaves no colour
        // register.
        (
            "vs_2_0\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oD0.x, v1\n\
             mov oD1, v1.yxzw\n",
            "ps_2_0\ndef c0, 0.5, 0.25, 2, 1\ndef c1, 0.125, 0, 0.5, 0.25\ndcl v0\n\
             mad r0, v0.w, c0, c1\nmov oC0, r0\n",
            None,
        ),
        // vs_3_0: the colour output is declared, never written (soak seed 3713 and six
        // others: the declaration was pruned).
        (
            "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_color0 o1\nmov o0, v0\n",
            "ps_3_0\ndef c0, 0.5, 0.25, 2, 1\ndef c1, 0.125, 0, 0.5, 0.25\ndcl_color0 v0\n\
             mad oC0, v0, c0, c1\n",
            None,
        ),
    ];
    let opts = Options {
        stay: vec![(0, "the test keeps it".into())],
        ..Options::default()
    };
    for (vp, fp, pass) in cases {
        let out = match pass {
            Some(p) => check(vp, fp, &opts, p),
            None => renders_the_same(vp, fp, &opts),
        };
        let v0 = hoist_asm::ir::Reg::new(hoist_asm::ir::RegFile::Input, 0);
        assert!(
            out.fp.insts[0].src.iter().any(|s| s.reg == v0),
            "the unwritten read stays\n{}",
            hoist_asm::print(&out.fp)
        );
    }
}

#[test]
fn every_varying_pass_fires_and_the_pair_renders_the_same() {
    let mirror = Options {
        mirror_params: true,
        ..Options::default()
    };
    // Dead: texcoord[2] is never written.
    check(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
        "!!ARBfp1.0\nTEMP a;\nTEX a, fragment.texcoord[0], texture[0], 2D;\nMAD result.color, a, fragment.texcoord[2], a;\nEND\n",
        &Options::default(),
        "varying_dead",
    );
    // Constant, and a vertex parameter read through its fragment copy.
    let out = check(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\n\
         MOV result.texcoord[1], {0.5, 0.25, 2, 1};\nMOV result.texcoord[2], program.env[1];\nEND\n",
        "!!ARBfp1.0\nTEMP a;\nTEX a, fragment.texcoord[0], texture[0], 2D;\nMUL a, a, fragment.texcoord[1];\n\
         MAD result.color, a, fragment.texcoord[2], a;\nEND\n",
        &mirror,
        "varying_const",
    );
    assert!(out.mirrors.iter().any(|m| m.to_fragment));
    // Duplicates: texcoord[1] and texcoord[2] carry the same attribute.
    check(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[1], vertex.texcoord[0];\n\
         MOV result.texcoord[2], vertex.texcoord[0];\nEND\n",
        "!!ARBfp1.0\nTEMP a, b;\nTEX a, fragment.texcoord[1], texture[0], 2D;\nTEX b, fragment.texcoord[2], texture[1], 2D;\n\
         MUL result.color, a, b;\nEND\n",
        &Options::default(),
        "varying_dedup",
    );
    // Uniform expression, recomputed because the modern model prices interpolation.
    check(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\n\
         MUL result.texcoord[1], program.env[0], {2, 2, 2, 2};\nEND\n",
        "!!ARBfp1.0\nTEMP a;\nTEX a, fragment.texcoord[0], texture[0], 2D;\nMUL result.color, a, fragment.texcoord[1];\nEND\n",
        &Options {
            cost: CostModel::modern_default(4.0, 576.0),
            ..mirror.clone()
        },
        "varying_uniform",
    );
    // Relocation: ps_2_0 keeps components in place; t1.z joins t0.xy so that the moved 3-D
    // coordinate gets a register of its own (two interpolators).
    let mut two = Options::default();
    let mut vl = hoist_asm::Profile::Vs2_0.limits();
    let mut fl = hoist_asm::Profile::Ps2_0.limits();
    vl.texcoords = 2;
    fl.texcoords = 2;
    two.vp_limits = Some(vl);
    two.fp_limits = Some(fl);
    let out = check(
        "vs_2_0\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0.xy, v1\nmov oT1, v1.yxzw\n",
        "ps_2_0\ndef c0, 0.25, 0.5, 0.125, 0\ndcl t0.xy\ndcl t1\ndcl_2d s0\ndcl_volume s1\n\
         texld r0, t0, s0\nmul r1, r0, t1.z\nadd r2.xyz, t1, c0\ntexld r2, r2, s1\nmad r0, r1, r2, r0\nmov oC0, r0\n",
        &two,
        "varying_pack",
    );
    assert_eq!(out.after.fp_slots.total(), out.before.fp_slots.total() - 1);
}

/// Generated D3D9 pairs (whose pixel shaders declare some inputs `_centroid` or `_pp`),
/// optimized with no spare interpolator so that the packing works hardest: every value an
/// optimized input register carries has that register's qualifier (an original interpolant
/// its own declaration's, a moved result the one of the inputs it was computed from).
#[test]
fn qualifiers_are_never_mixed() {
    let mut carried = 0;
    let mut qualified = 0;
    for seed in 0..120u64 {
        let pair = hoist_verify::generate::pair(seed, hoist_verify::generate::Flavor::D3d9);
        let (vp, fp) = (parse(&pair.vp), parse(&pair.fp));
        qualified += fp
            .io
            .iter()
            .filter(|d| Qualifier::of(&fp, d.reg) != Qualifier::default())
            .count();
        let mut opts = Options::default();
        let (mut vl, mut fl) = (vp.profile.limits(), fp.profile.limits());
        let used = fp
            .io
            .iter()
            .filter(|d| matches!(d.semantic, Semantic::TexCoord(_)))
            .count() as u8;
        vl.texcoords = used.max(1).min(vl.texcoords);
        fl.texcoords = vl.texcoords.min(fl.texcoords);
        opts.vp_limits = Some(vl);
        opts.fp_limits = Some(fl);
        let out = hoist_opt::optimize(&vp, &fp, &opts).expect("optimizes");
        let source = hoist_opt::analyze(&vp, &out.source_fp, &opts);
        for slot in &out.varyings.after {
            let Some(reg) = out.fp.reg_for(slot.semantic, false).or_else(|| {
                out.fp
                    .io
                    .iter()
                    .find(|d| implied_semantic(&out.fp, d.reg) == Some(slot.semantic))
                    .map(|d| d.reg)
            }) else {
                continue;
            };
            let have = Qualifier::of(&out.fp, reg);
            let want = match slot.carries {
                Carried::Input { semantic, .. } => {
                    fp.reg_for(semantic, false).map(|r| Qualifier::of(&fp, r))
                }
                Carried::Moved { inst, .. } => source.movability.qualifiers[inst as usize],
            };
            if let Some(w) = want {
                assert_eq!(
                    have, w,
                    "{}: {} carries {:?}",
                    pair.label, slot.name, slot.carries
                );
                carried += 1;
            }
        }
    }
    assert!(carried > 100, "{carried} values checked");
    assert!(qualified > 5, "{qualified} qualified inputs generated");
}

/// The 13-tap Gaussian (`examples/paper/gauss13-packed`, the arbref form with a
/// host texel size): under the default ARB target, with mirrored parameters, F 41 -> 27,
/// which no choice can beat (13 TEX, 13 MUL/MAD and the output MOV cannot move), proven by
/// the exact search; validated, and the scene renders bit-identically with every probe.
#[test]
fn gauss13_packs_to_27_proven_and_renders_the_same() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper/gauss13-packed.shader_test"
    );
    let text = std::fs::read_to_string(path).expect("the example");
    let sc = hoist_raster::scene::parse(&text, &hoist_raster::Caps::default()).expect("parses");
    let pair = sc
        .programs
        .get(sc.optimize_target())
        .expect("a pair")
        .clone();
    let (vp, fp) = (
        pair.vertex.expect("vp").program,
        pair.fragment.expect("fp").program,
    );
    let target = ArbTarget::default();
    assert_eq!(target.id(), "r300");
    let opts = Options {
        vp_limits: Some(vp.profile.limits_for(target)),
        fp_limits: Some(fp.profile.limits_for(target)),
        mirror_params: true,
        ..Options::default()
    };
    let v = hoist_verify::optimize(&vp, &fp, &opts, Some(&hoist_verify::Config::default()))
        .expect("optimizes");
    assert_eq!(v.status, Status::Validated);
    assert!(v.rejected.is_empty());
    let out = &v.outcome;
    assert_eq!(out.before.fp_slots.total(), 41);
    assert_eq!(out.after.fp_slots.total(), 27);
    let optimal = out
        .rules
        .iter()
        .find(|r| r.rule == "optimal")
        .expect("the exact search ran");
    assert!(optimal.proven_optimal, "{:?}", out.rules);
    assert_eq!(out.chosen, "optimal");
    // Every tap address travels; y is shared: 14 values in 5 registers, none split.
    let registers: std::collections::BTreeSet<u8> =
        out.transports.iter().map(|t| t.texcoord).collect();
    assert_eq!(registers.len(), 5, "{:?}", out.transports);
    let before = hoist_raster::scene::run(&sc, &Default::default()).expect("runs");
    let opt = hoist_verify::scene::with_optimized(&sc, out);
    let after = hoist_raster::scene::run(&opt, &Default::default()).expect("runs");
    assert_eq!(before.failed(), 0);
    assert_eq!(after.failed(), 0);
    for (name, e) in hoist_verify::scene::compare(&before, &after) {
        assert!(
            matches!(e.verdict, hoist_raster::Verdict::Identical),
            "{name}: {:?}",
            e.verdict
        );
    }
}

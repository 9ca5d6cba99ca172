//! The R600-motivated peepholes (`passes::mad_fuse`, `dot_product`, `tex_dedup`) keep every
//! program's meaning bit for bit: on generated pairs of both dialects (the soak's generator,
//! the whole instruction set), each program rewritten by all three renders exactly the
//! original's image (every float's bits), with random host parameters and the generator's
//! textures. The executor's MAD rounds its product (`x * y + z` in f32, no fused
//! multiply-add) and its dot products sum left to right, which is what makes the rewrites
//! exact; a failure here means a pass is wrong, not a rounding tolerance.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Program};
use hoist_opt::passes::{dot_product, mad_fuse, tex_dedup};
use hoist_opt::tracked::Tracked;
use hoist_raster::{RenderConfig, render};
use hoist_verify::generate::{Flavor, pair, textures};

fn parse(text: &str) -> Program {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .unwrap()
}

/// The program after every peephole, and which of them rewrote something.
fn rewrite(p: &Program, hits: &mut [u32; 3]) -> (Program, bool) {
    let limits = p.profile.limits();
    let mut t = Tracked::new(p.clone());
    let done = [
        tex_dedup::run(&mut t, &limits),
        mad_fuse::run(&mut t, &limits),
        dot_product::run(&mut t, &limits),
    ];
    for (h, d) in hits.iter_mut().zip(done) {
        *h += u32::from(d);
    }
    (t.program, done.iter().any(|&d| d))
}

/// Generated programs rarely hold MUL/MAD chains, so this writes them: each single-lane
/// DP3/DP4 into a temporary becomes the chain `mul; mad; mad[; mad]` over the same lane (the
/// same value bit for bit, by the executor's summation order), for `dot_product` to find.
fn expand_dots(p: &Program) -> Program {
    use hoist_asm::Op;
    use hoist_asm::ir::{Inst, RegFile, Swizzle};
    let mut out = p.clone();
    out.insts.clear();
    for inst in &p.insts {
        let d = inst.dst.as_ref();
        let ok = matches!(inst.op, Op::Dp3 | Op::Dp4)
            && d.is_some_and(|d| {
                d.mask.count() == 1 && d.reg.file == RegFile::Temp && d.rel.is_none()
            })
            && inst
                .src
                .iter()
                .all(|s| s.rel.is_none() && Some(s.reg) != d.map(|d| d.reg))
            && inst.pred.is_none();
        let (true, Some(d)) = (ok, d) else {
            out.insts.push(inst.clone());
            continue;
        };
        let n = if inst.op == Op::Dp3 { 3 } else { 4 };
        let lane = d.mask.iter().next().unwrap_or(0);
        for k in 0..n {
            let mut a = inst.src[0].clone();
            let mut b = inst.src[1].clone();
            a.swizzle = Swizzle::splat(inst.src[0].swizzle.get(k));
            b.swizzle = Swizzle::splat(inst.src[1].swizzle.get(k));
            let mut acc = hoist_asm::ir::Src::new(d.reg);
            acc.swizzle = Swizzle::splat(lane);
            let mut next = if k == 0 {
                Inst::new(Op::Mul, Some(d.clone()), [a, b])
            } else {
                Inst::new(Op::Mad, Some(d.clone()), [a, b, acc])
            };
            next.sat = inst.sat && k == n - 1;
            out.insts.push(next);
        }
    }
    out
}

fn params(seed: u64) -> hoist_raster::Params {
    let mut p = hoist_raster::Params::default();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
    };
    for n in 0..32u16 {
        let v = [next(), next(), next(), next()];
        p.fragment.env.insert(n, v);
        p.fragment.local.insert(n, [v[1], v[2], v[3], v[0]]);
        p.vertex.env.insert(n, [v[2], v[0], v[3], v[1]]);
        p.vertex.local.insert(n, [v[3], v[2], v[1], v[0]]);
    }
    p
}

fn same_bits(a: &hoist_raster::Image, b: &hoist_raster::Image) -> bool {
    a.pixels.len() == b.pixels.len()
        && a.pixels.iter().zip(&b.pixels).all(|(x, y)| {
            x.iter()
                .zip(y)
                .all(|(u, v)| u.to_bits() == v.to_bits() || (u.is_nan() && v.is_nan()))
        })
}

#[test]
fn peepholes_keep_generated_programs_bit_identical() {
    let n: u64 = std::env::var("PEEPHOLE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let mut changed = 0;
    let mut hits = [0u32; 3];
    for seed in 0..n {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = pair(seed, flavor);
            let (vp, fp) = (parse(&p.vp), parse(&p.fp));
            let (vp, fp) = if seed % 2 == 1 {
                (expand_dots(&vp), expand_dots(&fp))
            } else {
                (vp, fp)
            };
            let (vp2, a) = rewrite(&vp, &mut hits);
            let (fp2, b) = rewrite(&fp, &mut hits);
            if !(a || b) {
                continue;
            }
            changed += 1;
            for (prog, name) in [(&vp2, "vertex"), (&fp2, "fragment")] {
                let diags = hoist_asm::validate::check(prog, &prog.profile.limits());
                assert!(
                    diags.iter().all(|d| !d.is_error()),
                    "{}: {name} no longer validates",
                    p.label
                );
            }
            let cfg = RenderConfig {
                width: 16,
                height: 16,
                textures: textures(&fp),
                params: params(seed),
                ..RenderConfig::default()
            };
            let before = render(Some(&vp), Some(&fp), &cfg).unwrap();
            let after = render(Some(&vp2), Some(&fp2), &cfg).unwrap();
            assert!(
                same_bits(&before.image, &after.image),
                "{}: the peepholes changed the image\n--- vp\n{}\n--- fp\n{}",
                p.label,
                hoist_asm::print(&vp2),
                hoist_asm::print(&fp2)
            );
        }
    }
    eprintln!(
        "{changed} of {} pairs rewritten; programs per pass (tex_dedup, mad_fuse, dot_product): {hits:?}",
        2 * n
    );
    assert!(
        changed > n / 4,
        "only {changed} of {} pairs had something to rewrite",
        2 * n
    );
    assert!(hits.iter().all(|&h| h > 0), "a pass never fired: {hits:?}");
}

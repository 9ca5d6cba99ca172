//! Equivalence is proven, not assumed: random straight-line vertex/fragment pairs over the
//! opcode set, optimized under random options and limits, rendered with the executor on
//! random textures and parameters, must agree within 1e-6 of the image's value range.
//!
//! The generator keeps programs well conditioned, because equivalence holds up to floating-
//! point rounding and a discontinuous function of an interpolated value (floor, compare,
//! kill, nearest filtering at a texel edge) turns a one-ulp difference into a jump: such
//! ops only see texture results and constants, textures are smooth and filtered
//! bilinearly with clamping (a noise texture would multiply an address's rounding by its
//! size), and arguments of reciprocals, logarithms and powers are kept at least 1. The
//! paper tests cover noise textures with nearest filtering at texel centres. Every pair is also
//! translated to Direct3D 9 (vs_2_0/ps_2_0) when the translator can express it, and checked
//! the same way. The largest relative difference seen is printed.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use hoist_asm::Program;
use hoist_opt::{CostModel, Options, Selection};
use proptest::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// splitmix64: a small deterministic generator driven by proptest's seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / ((1u64 << 53) as f64)) < p
    }
    fn unit(&mut self) -> f32 {
        ((self.next() >> 40) as f32 / (1u32 << 24) as f32) * 2.0 - 1.0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const COMPS: [char; 4] = ['x', 'y', 'z', 'w'];

fn swizzle(r: &mut Rng) -> String {
    match r.below(4) {
        0 => String::new(),
        1 => format!(".{}", COMPS[r.below(4)]),
        _ => format!(".{}", (0..4).map(|_| COMPS[r.below(4)]).collect::<String>()),
    }
}

fn mask(r: &mut Rng) -> String {
    let m = 1 + r.below(15);
    if m == 15 {
        return String::new();
    }
    format!(
        ".{}",
        (0..4)
            .filter(|c| m & (1 << c) != 0)
            .map(|c| COMPS[c])
            .collect::<String>()
    )
}

fn lit(r: &mut Rng) -> String {
    let v: Vec<String> = (0..4).map(|_| format!("{:.4}", r.unit())).collect();
    format!("{{{}}}", v.join(", "))
}

/// A random ARB pair. `texcoords` interpolators carry affine functions of the quad's
/// texture coordinate; `smooth` temps hold values built from interpolants and constants
/// (candidates for motion), `rough` temps hold texture results (never fed to a
/// discontinuous op after motion, since they stay where they are).
fn generate(r: &mut Rng) -> (String, String) {
    let sets = 1 + r.below(3);
    let mut vp = String::from("!!ARBvp1.0\nTEMP v;\nMOV result.position, vertex.position;\n");
    for k in 0..sets {
        match r.below(3) {
            0 => vp.push_str(&format!("MOV result.texcoord[{k}], vertex.texcoord[0];\n")),
            1 => vp.push_str(&format!(
                "MAD result.texcoord[{k}], vertex.texcoord[0], {}, {};\n",
                lit(r),
                lit(r)
            )),
            _ => vp.push_str(&format!(
                "MUL v, vertex.texcoord[0].yxyx, {};\nADD result.texcoord[{k}], v, {};\n",
                lit(r),
                lit(r)
            )),
        }
    }
    vp.push_str("END\n");

    let mut fp = String::from(
        "!!ARBfp1.0\nPARAM p0 = program.env[0];\nPARAM p1 = program.env[1];\nTEMP s0, s1, s2, s3, t0, t1, t2, one;\n",
    );
    fp.push_str("MOV one, {1, 1, 1, 1};\n");
    let mut smooth: Vec<&str> = Vec::new();
    let mut rough: Vec<&str> = Vec::new();
    for (k, s) in ["s0", "s1"].iter().enumerate() {
        fp.push_str(&format!("MOV {s}, fragment.texcoord[{}];\n", k % sets));
        smooth.push(s);
    }
    smooth.extend(["s2", "s3"]);
    let texcoord = |r: &mut Rng| format!("fragment.texcoord[{}]{}", r.below(sets), swizzle(r));
    let n = 4 + r.below(14);
    for _ in 0..n {
        let smooth_src = |r: &mut Rng, smooth: &[&str]| -> String {
            let neg = if r.chance(0.2) { "-" } else { "" };
            match r.below(5) {
                0 => format!("{neg}{}", texcoord(r)),
                1 => format!("{neg}{}", lit(r)),
                2 => format!("{neg}p{}{}", r.below(2), swizzle(r)),
                _ => format!("{neg}{}{}", r.pick(smooth), swizzle(r)),
            }
        };
        let any_src = |r: &mut Rng, smooth: &[&str], rough: &[&str]| -> String {
            if !rough.is_empty() && r.chance(0.5) {
                format!("{}{}", r.pick(rough), swizzle(r))
            } else {
                smooth_src(r, smooth)
            }
        };
        let sdst = *r.pick(&["s0", "s1", "s2", "s3"]);
        let tdst = *r.pick(&["t0", "t1", "t2"]);
        match r.below(12) {
            // Affine-friendly ops on smooth values.
            0 => fp.push_str(&format!(
                "ADD {sdst}{}, {}, {};\n",
                mask(r),
                smooth_src(r, &smooth),
                smooth_src(r, &smooth)
            )),
            1 => fp.push_str(&format!(
                "MUL {sdst}{}, {}, {};\n",
                mask(r),
                smooth_src(r, &smooth),
                lit(r)
            )),
            2 => fp.push_str(&format!(
                "MAD {sdst}{}, {}, p{}, {};\n",
                mask(r),
                smooth_src(r, &smooth),
                r.below(2),
                smooth_src(r, &smooth)
            )),
            3 => fp.push_str(&format!(
                "DP3 {sdst}{}, {}, {};\n",
                mask(r),
                smooth_src(r, &smooth),
                lit(r)
            )),
            4 => fp.push_str(&format!(
                "DPH {sdst}{}, {}, {};\n",
                mask(r),
                smooth_src(r, &smooth),
                lit(r)
            )),
            5 => fp.push_str(&format!(
                "LRP {sdst}{}, {}, {}, {};\n",
                mask(r),
                lit(r),
                smooth_src(r, &smooth),
                smooth_src(r, &smooth)
            )),
            6 => fp.push_str(&format!(
                "SUB {sdst}{}, {}, {};\n",
                mask(r),
                smooth_src(r, &smooth),
                smooth_src(r, &smooth)
            )),
            // A fetch at a smooth address (bilinear, so continuous).
            7 | 8 => {
                let unit = r.below(2);
                fp.push_str(&format!(
                    "TEX {tdst}, {}, texture[{unit}], 2D;\n",
                    smooth_src(r, &smooth)
                ));
                rough.push(tdst);
            }
            // Non-linear ops, kept well conditioned.
            9 => {
                let op = *r.pick(&["RCP", "RSQ", "LG2"]);
                fp.push_str(&format!(
                    "MAD {tdst}, {0}, {0}, one;\n",
                    format!("{}.x", r.pick(&smooth))
                ));
                fp.push_str(&format!("{op} {tdst}{}, {tdst}.x;\n", mask(r)));
                rough.push(tdst);
            }
            10 => {
                let op = *r.pick(&["SIN", "COS"]);
                fp.push_str(&format!(
                    "{op} {tdst}{}, {}.{};\n",
                    mask(r),
                    r.pick(&smooth),
                    COMPS[r.below(4)]
                ));
                rough.push(tdst);
            }
            _ => {
                let op = *r.pick(&["MAX", "MIN", "MUL", "ADD"]);
                fp.push_str(&format!(
                    "{op} {tdst}, {}, {};\n",
                    any_src(r, &smooth, &rough),
                    any_src(r, &smooth, &rough)
                ));
                rough.push(tdst);
            }
        }
    }
    // Combine everything into the output.
    // Combine every value with small weights (a sum that does not amplify rounding).
    fp.push_str("MUL t2, s0, {0.125, 0.25, 0.375, 0.5};\n");
    for v in smooth
        .iter()
        .skip(1)
        .chain(rough.iter().filter(|v| **v != "t2"))
    {
        fp.push_str(&format!("MAD t2, {v}, {{0.125, 0.25, 0.375, 0.5}}, t2;\n"));
    }
    fp.push_str("MOV result.color, t2;\nEND\n");
    (vp, initialise(fp))
}

/// Gives every temporary a full write before its first use, so no program reads an undefined
/// register (that is tested elsewhere; here it would only add noise).
fn initialise(fp: String) -> String {
    fp.replacen("MOV one, {1, 1, 1, 1};\n", "MOV one, {1, 1, 1, 1};\nMOV s2, {0.5, 0.25, 0.125, 1};\nMOV s3, {0.3, 0.6, 0.9, 1};\nMOV t0, {0, 0, 0, 0};\nMOV t1, {0, 0, 0, 0};\nMOV t2, {0, 0, 0, 0};\n", 1)
}

fn options(r: &mut Rng, fp: &Program, vp_slots: u32) -> Options {
    let mut fl = fp.profile.limits();
    let mut vl = fp.profile.partner().limits();
    if r.chance(0.3) {
        // Tighter interpolator limits, but never below what the original pair uses.
        let used = fp
            .io
            .iter()
            .filter(|d| d.reg.file == hoist_asm::RegFile::TexCoord)
            .map(|d| d.reg.index as u8 + 1)
            .max()
            .unwrap_or(0);
        let t = (used + r.below(3) as u8).clamp(1, 8);
        fl.texcoords = t;
        vl.texcoords = t;
    }
    if r.chance(0.2) {
        // A tight vertex budget, but never below what the original vertex program uses.
        vl.max_slots = vp_slots + r.below(12) as u32;
    }
    Options {
        vp_limits: Some(vl),
        fp_limits: Some(fl),
        cost: if r.chance(0.3) {
            CostModel::modern_default(4.0, 1024.0)
        } else {
            CostModel::Paper
        },
        selection: if r.chance(0.5) {
            Selection::Greedy
        } else {
            Selection::Optimal
        },
        mirror_params: r.chance(0.5),
        steps: if r.chance(0.2) {
            Some(r.below(4))
        } else {
            None
        },
        commute: r.chance(0.8),
        lower: r.chance(0.8),
        vp_cleanup: r.chance(0.8),
        search_budget: 256,
        stay: Vec::new(),
    }
}

static MAX_REL_MILLIONTHS: AtomicU32 = AtomicU32::new(0);
static CASES: AtomicU32 = AtomicU32::new(0);
static MOVED: AtomicU32 = AtomicU32::new(0);

fn check_pair(vp: &Program, fp: &Program, r: &mut Rng, what: &str) {
    let opts = options(r, fp, vp.slots().total());
    let mut cfg = smooth_config(32);
    for n in 0..2u16 {
        let v = [r.unit(), r.unit(), r.unit(), r.unit()];
        cfg.params.fragment.local.insert(n, v);
        cfg.params.fragment.env.insert(n, v);
    }
    let (out, verdict, range) = prove(vp, fp, &opts, cfg);
    let rel = verdict.max_abs_diff() / range.max(1.0);
    CASES.fetch_add(1, Ordering::Relaxed);
    if out.after.fp_slots.total() < out.before.fp_slots.total() {
        MOVED.fetch_add(1, Ordering::Relaxed);
    }
    MAX_REL_MILLIONTHS.fetch_max((rel * 1e9) as u32, Ordering::Relaxed);
    assert!(
        rel <= 1e-6,
        "{what}: max |Δ| = {} (range {range}, relative {rel:e})\n{verdict:?}\n--- vp\n{}\n--- fp\n{}\n--- optimized vp\n{}\n--- optimized fp\n{}",
        verdict.max_abs_diff(),
        hoist_asm::print(vp),
        hoist_asm::print(fp),
        hoist_asm::print(&out.vp),
        hoist_asm::print(&out.fp)
    );
}

/// A runner for `cases` random seeds, or only the seed in `HOIST_SEED` (to replay a failure).
fn seeded_runner(
    cases: u32,
) -> (
    proptest::test_runner::TestRunner,
    proptest::strategy::BoxedStrategy<u64>,
) {
    let runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let seeds = match std::env::var("HOIST_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        Some(s) => proptest::strategy::Just(s).boxed(),
        None => any::<u64>().boxed(),
    };
    (runner, seeds)
}

#[test]
fn random_pairs_render_the_same_after_optimization() {
    let (mut runner, seeds) = seeded_runner(96);
    let result = runner.run(&seeds, |seed| {
        if std::env::var_os("HOIST_DEBUG_SELECT").is_some() {
            eprintln!("seed {seed}");
        }
        let mut r = Rng(seed);
        let (vps, fps) = generate(&mut r);
        let vp = parse(&vps);
        let fp = parse(&fps);
        if std::env::var_os("HOIST_SEED").is_some() {
            println!("--- vp\n{vps}--- fp\n{fps}");
        }
        check_pair(&vp, &fp, &mut r, "ARB");
        if let (Ok(dvp), Ok(dfp)) = (
            hoist_asm::translate::to_d3d9(&vp, hoist_asm::Profile::Vs2_0),
            hoist_asm::translate::to_d3d9(&fp, hoist_asm::Profile::Ps2_0),
        ) {
            check_pair(&dvp, &dfp, &mut r, "D3D9");
        }
        Ok(())
    });
    println!(
        "optimizer equivalence: {} pairs, {} with fewer fragment slots, largest relative difference {:e}",
        CASES.load(Ordering::Relaxed),
        MOVED.load(Ordering::Relaxed),
        MAX_REL_MILLIONTHS.load(Ordering::Relaxed) as f64 / 1e9
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

static SEARCHED: AtomicU32 = AtomicU32::new(0);
static SEARCH_EVALS: AtomicU32 = AtomicU32::new(0);
static SUBSET_EVALS: AtomicU32 = AtomicU32::new(0);

/// The exact search prunes with a bound; whenever it claims a proof, trying every subset of
/// groups must find nothing cheaper (for ARB pairs and their D3D9 translations). Returns
/// whether a proof was checked.
fn check_search(vp: &Program, fp: &Program, r: &mut Rng) -> bool {
    let mut opts = options(r, fp, vp.slots().total());
    opts.steps = None;
    opts.selection = Selection::Optimal;
    opts.search_budget = 4096;
    let Ok(searched) = hoist_opt::optimize(vp, fp, &opts) else {
        return false;
    };
    let Some(claim) = searched.rules.iter().find(|r| r.rule == "optimal") else {
        return false;
    };
    // Up to 2^10 subsets keeps the property quick; larger cases are rare in the generator.
    if !claim.proven_optimal || searched.groups.len() > 10 {
        return false;
    }
    opts.selection = Selection::Exhaustive;
    let every = hoist_opt::optimize(vp, fp, &opts).expect("optimizes");
    if every.chosen != "exhaustive" {
        return false;
    }
    let cost = |o: &hoist_opt::Outcome| {
        opts.cost.cost(
            o.after.fp_slots.total(),
            o.after.vp_slots.total(),
            o.after.interp_components,
        )
    };
    let (a, b) = (cost(&searched), cost(&every));
    SEARCHED.fetch_add(1, Ordering::Relaxed);
    SEARCH_EVALS.fetch_add(claim.evaluations, Ordering::Relaxed);
    let moved = every
        .fates
        .iter()
        .filter(|f| matches!(f, hoist_opt::Fate::Moved { .. }))
        .count();
    SUBSET_EVALS.fetch_max(moved as u32, Ordering::Relaxed);
    assert!(
        a.0 <= b.0 + 1e-9,
        "the search claims {a:?} is optimal but a subset costs {b:?}\n{opts:?}\n--- vp\n{}\n--- fp\n{}",
        hoist_asm::print(vp),
        hoist_asm::print(fp)
    );
    true
}

#[test]
fn proven_optimal_holds_against_every_subset() {
    let (mut runner, seeds) = seeded_runner(64);
    let result = runner.run(&seeds, |seed| {
        let mut r = Rng(seed);
        let (vps, fps) = generate(&mut r);
        let (vp, fp) = (parse(&vps), parse(&fps));
        check_search(&vp, &fp, &mut r);
        if let (Ok(dvp), Ok(dfp)) = (
            hoist_asm::translate::to_d3d9(&vp, hoist_asm::Profile::Vs2_0),
            hoist_asm::translate::to_d3d9(&fp, hoist_asm::Profile::Ps2_0),
        ) {
            check_search(&dvp, &dfp, &mut r);
        }
        Ok(())
    });
    println!(
        "exact search vs every subset: {} proofs checked ({} search evaluations; up to {} instructions moved)",
        SEARCHED.load(Ordering::Relaxed),
        SEARCH_EVALS.load(Ordering::Relaxed),
        SUBSET_EVALS.load(Ordering::Relaxed)
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(SEARCHED.load(Ordering::Relaxed) > 0, "no proof was checked");
}

/// A seed whose D3D9 translation once made the search prove a wrong optimum (a helper was
/// pinned by capacity that only uniform values, which may be recomputed, had taken).
#[test]
fn search_counterexample_stays_fixed() {
    let mut r = Rng(3443602744686633715);
    let (vps, fps) = generate(&mut r);
    let (vp, fp) = (parse(&vps), parse(&fps));
    check_search(&vp, &fp, &mut r);
    let dvp = hoist_asm::translate::to_d3d9(&vp, hoist_asm::Profile::Vs2_0).expect("translates");
    let dfp = hoist_asm::translate::to_d3d9(&fp, hoist_asm::Profile::Ps2_0).expect("translates");
    assert!(
        check_search(&dvp, &dfp, &mut r),
        "the proof was not checked"
    );
}

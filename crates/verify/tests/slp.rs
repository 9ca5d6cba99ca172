//! The vector-packing pass (`hoist_opt::passes::slp`) preserves every value, bit for bit.
//!
//! Programs come from inputs this pass was not written against: the random generator
//! (`hoist_verify::generate`, the whole instruction set of ARB and Direct3D 9, both stages),
//! the examples and the piglit ARB corpus. Each program is packed alone and the executor
//! (`hoist_raster::probe`) runs original and packed on the same random inputs (attributes,
//! interpolants in 2×2 quads, parameters, noise textures); every output and every kill must
//! agree bit for bit (any NaN equal to any NaN). A second flavour splits each componentwise
//! instruction of a generated program into one instruction per written component first, so
//! the pass has many pairs to put back together; the packed result is compared with the
//! program as generated. The scenes of the examples and the corpus also render with every
//! program packed, bit-identical to the original, and their merges are the table in
//! `docs/slp-results.md`, with a second table of the examples' optimized pairs (code motion
//! and validation) without and with `Options::slp`.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ir::{ConstBinding, Dialect, Inst, RegFile, Semantic, WriteMask};
use hoist_asm::ops::{Op, Shape};
use hoist_asm::{ParseOptions, Program, Stage};
use hoist_opt::passes::slp;
use hoist_raster::probe::{self, StageEnv};
use hoist_raster::raster::CompiledProgram;
use hoist_raster::{ATTRIBS, Caps, GlState, Sampler, StageParams, Texture};
use hoist_verify::generate::{Flavor, pair};
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "../../../tests/support/golden.rs"]
mod golden;
#[path = "../../../tests/support/oracles.rs"]
mod oracles;

const LANES: usize = 16;

fn parse(text: &str) -> Program {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .unwrap_or_else(|d| panic!("{d:?}\n{text}"))
}

fn random_vec(rng: &mut SmallRng) -> [f32; 4] {
    std::array::from_fn(|_| rng.random_range(-2.0..2.0f32))
}

/// Random values for every host parameter `p` reads.
fn params(rng: &mut SmallRng, p: &Program) -> StageParams {
    let mut out = StageParams::default();
    for (i, slot) in p.consts.iter().enumerate() {
        match slot.binding {
            ConstBinding::Env(n) => {
                out.env.insert(n, random_vec(rng));
            }
            ConstBinding::Local(n) => {
                out.local.insert(n, random_vec(rng));
            }
            ConstBinding::Literal(_) => continue,
            ConstBinding::State(_) => {}
        }
        if p.dialect() == Dialect::D3d9 {
            out.env.insert(i as u16, random_vec(rng));
        }
    }
    out
}

/// A noise texture for every unit the compiled program samples.
fn textures(rng: &mut SmallRng, cp: &CompiledProgram) -> BTreeMap<u8, Arc<Texture>> {
    let mut out = BTreeMap::new();
    for &(unit, target) in &cp.kernel.samplers {
        let sampler = Sampler::new(hoist_raster::Filter::Nearest, hoist_raster::Wrap::Repeat);
        let t = Texture::for_target(target, 8, sampler, &mut |_, _, _| {
            std::array::from_fn(|_| rng.random_range(0.0..1.0f32))
        });
        out.insert(unit, Arc::new(t));
    }
    out
}

/// Outputs per invocation, and kills (fragment programs).
type Run = (Vec<Vec<(hoist_asm::Reg, [f32; 4])>>, Vec<bool>);

/// Runs `p` on the inputs of `seed` (the same for every program of the stage).
fn execute(p: &Program, seed: u64) -> Result<Run, String> {
    let cp = CompiledProgram::new(p).map_err(|e| e.to_string())?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let params = params(&mut rng, p);
    let textures = textures(&mut rng, &cp);
    let (gl, caps) = (GlState::default(), Caps::default());
    let env = StageEnv {
        params: &params,
        gl: &gl,
        textures: &textures,
        caps: &caps,
    };
    match p.stage() {
        Stage::Vertex => {
            let attribs: Vec<[[f32; 4]; ATTRIBS]> = (0..LANES)
                .map(|_| std::array::from_fn(|_| random_vec(&mut rng)))
                .collect();
            Ok((probe::run_vertices(&cp, &env, &attribs).outputs, Vec::new()))
        }
        Stage::Fragment => {
            let input = |lane: usize, s: Semantic| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (seed, lane, s).hash(&mut h);
                random_vec(&mut SmallRng::seed_from_u64(h.finish()))
            };
            let f = probe::run_fragments(&cp, &env, LANES, true, false, &input)
                .map_err(|e| e.to_string())?;
            Ok((f.outputs, f.killed))
        }
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// `Err` with the first difference between the runs of `a` and `b`.
fn equivalent(a: &Program, b: &Program, seed: u64) -> Result<(), String> {
    let (ra, rb) = (execute(a, seed)?, execute(b, seed)?);
    if ra.1 != rb.1 {
        return Err(format!("kills differ: {:?} vs {:?}", ra.1, rb.1));
    }
    for (lane, (oa, ob)) in ra.0.iter().zip(&rb.0).enumerate() {
        for ((reg, va), (reg_b, vb)) in oa.iter().zip(ob) {
            let differs = reg != reg_b || !va.iter().zip(vb).all(|(x, y)| same(*x, *y));
            if differs {
                return Err(format!("lane {lane}: {reg:?} {va:?} vs {reg_b:?} {vb:?}"));
            }
        }
    }
    (ra.0.len() == rb.0.len())
        .then_some(())
        .ok_or("output counts differ".into())
}

/// One instruction per written component, for componentwise instructions that do not read
/// the register they write (splitting those would change what later components read).
fn scalarize(p: &Program) -> Program {
    let mut out = p.clone();
    out.insts.clear();
    for inst in &p.insts {
        let split = inst.info().shape == Shape::Componentwise
            && !matches!(inst.op, Op::Sgn | Op::Mova | Op::Setp(_))
            && inst.pred.is_none()
            && inst.dst.as_ref().is_some_and(|d| {
                d.rel.is_none()
                    && d.mask.count() > 1
                    && d.reg.file != RegFile::Address
                    && inst.src.iter().all(|s| s.reg != d.reg)
            });
        if !split {
            out.insts.push(inst.clone());
            continue;
        }
        for c in inst.dst_lanes().iter() {
            let mut one: Inst = inst.clone();
            one.dst.as_mut().expect("checked").mask = WriteMask::single(c);
            out.insts.push(one);
        }
    }
    out
}

/// Packs `p` and checks the result: still valid for its profile, printable and parsed back
/// to itself, and equivalent in the executor. Returns the merges.
fn check_packed(original: &Program, input: &Program, seed: u64, what: &str) -> usize {
    let mut packed = input.clone();
    let merges = slp::pack(&mut packed);
    assert_eq!(packed.insts.len() + merges, input.insts.len(), "{what}");
    let limits = original.profile.limits();
    let was_valid = hoist_asm::validate::check(input, &limits)
        .iter()
        .all(|d| !d.is_error());
    if was_valid {
        let errors: Vec<_> = hoist_asm::validate::check(&packed, &limits)
            .into_iter()
            .filter(|d| d.is_error())
            .map(|d| d.message)
            .collect();
        assert!(
            errors.is_empty(),
            "{what}: packing broke a rule: {errors:?}\n{}",
            hoist_asm::print(&packed)
        );
        let text = hoist_asm::print(&packed);
        assert!(
            parse(&text).eq_ignoring_spans(&packed),
            "{what}: round trip\n{text}"
        );
    }
    if let Err(e) = equivalent(original, &packed, seed) {
        panic!(
            "{what}: packed program differs: {e}\n--- original\n{}\n--- packed\n{}",
            hoist_asm::print(original),
            hoist_asm::print(&packed)
        );
    }
    merges
}

#[derive(Default)]
struct Seen {
    programs: usize,
    merges: usize,
    scalarized_merges: usize,
    by_dialect: BTreeMap<&'static str, usize>,
}

#[test]
fn generated_programs_pack_equivalently_in_both_dialects() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let seen = std::cell::RefCell::new(Seen::default());
    let result = runner.run(&any::<u64>(), |seed| {
        let mut seen = seen.borrow_mut();
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = pair(seed, flavor);
            for text in [&p.vp, &p.fp] {
                let prog = parse(text);
                let what = format!("{} ({:?})", p.label, prog.profile);
                let n = check_packed(&prog, &prog, seed, &what);
                let split = scalarize(&prog);
                equivalent(&prog, &split, seed).expect("scalarizing keeps every value");
                let m = check_packed(&prog, &split, seed, &format!("{what}, scalarized"));
                let dialect = match flavor {
                    Flavor::Arb => "arb",
                    Flavor::D3d9 => "d3d9",
                };
                *seen.by_dialect.entry(dialect).or_default() += n + m;
                seen.programs += 1;
                seen.merges += n;
                seen.scalarized_merges += m;
            }
        }
        Ok(())
    });
    let seen = seen.into_inner();
    println!(
        "slp: {} generated programs, {} merges as generated, {} after scalarizing, by dialect {:?}",
        seen.programs, seen.merges, seen.scalarized_merges, seen.by_dialect
    );
    result.unwrap();
    assert!(
        seen.by_dialect.values().all(|&n| n > 50),
        "too few merges to show anything: {:?}",
        seen.by_dialect
    );
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Merges and slots of one scene's programs, packed alone.
#[derive(Default)]
struct Row {
    merges: [usize; 2],
    slots: [(u32, u32); 2],
}

/// Packs every program of the scene at `path`, checks each in the executor and the whole
/// scene rendered with them (bit-identical targets, the same probes passing).
fn scene_row(path: &Path, seed: u64) -> Option<Row> {
    let text = std::fs::read_to_string(path).ok()?;
    let caps = Caps::default();
    let scene = read_scene(&text, &caps)?;
    let mut packed_scene = scene.clone();
    let mut row = Row::default();
    for (name, pair) in &scene.programs {
        for sp in [&pair.vertex, &pair.fragment].into_iter().flatten() {
            let p = &sp.program;
            let what = format!("{} `{name}` {:?}", path.display(), p.stage());
            let mut q = p.clone();
            let n = check_packed(p, p, seed, &what);
            slp::pack(&mut q);
            let k = usize::from(p.stage() == Stage::Fragment);
            row.merges[k] += n;
            row.slots[k].0 += p.slots().total();
            row.slots[k].1 += q.slots().total();
            packed_scene.set_program(name, q);
        }
    }
    let opts = hoist_raster::scene::RunOptions::default();
    let a = hoist_raster::scene::run(&scene, &opts).ok()?;
    let b = hoist_raster::scene::run(&packed_scene, &opts).expect("the packed scene runs");
    for (target, e) in hoist_verify::scene::compare(&a, &b) {
        assert_eq!(
            e.verdict,
            hoist_raster::Verdict::Identical,
            "{}: target {target}",
            path.display()
        );
    }
    assert_eq!(a.passed(), b.passed(), "{}: probes", path.display());
    Some(row)
}

fn table_line(out: &mut String, name: &str, r: &Row) {
    use std::fmt::Write;
    let _ = writeln!(
        out,
        "| {name} | {} | {} → {} | {} | {} → {} |",
        r.merges[0], r.slots[0].0, r.slots[0].1, r.merges[1], r.slots[1].0, r.slots[1].1
    );
}

#[test]
fn examples_and_piglit_pack_equivalently() {
    let mut out = String::from(
        "# Vector packing (SLP) on the examples and the piglit corpus\n\n\
         Generated by `crates/verify/tests/slp.rs` (`BLESS=1 cargo test -p hoist-verify --test \
         slp`): every program of each scene packed alone by `hoist_opt::passes::slp` (no code \
         motion), each checked in the executor and the scene rendered bit-identical. Slots \
         are the profile's instruction slots summed over the scene's programs.\n\n\
         | scene | vertex merges | vertex slots | fragment merges | fragment slots |\n\
         |---|---|---|---|---|\n",
    );
    let files = oracles::shader_tests(&repo().join("examples"));
    assert!(
        files.len() >= 30,
        "the example scenes ({} found)",
        files.len()
    );
    let mut total = Row::default();
    for (i, f) in files.iter().enumerate() {
        let row = scene_row(f, i as u64).unwrap_or_else(|| panic!("{} runs", f.display()));
        let name = f
            .strip_prefix(repo().join("examples"))
            .unwrap()
            .display()
            .to_string();
        table_line(&mut out, &name, &row);
        add(&mut total, &row);
    }
    table_line(&mut out, "**all examples**", &total);
    let mut out = piglit(out);
    out.push_str(&with_motion(&files));
    golden::check(
        &repo().join("docs/slp-results.md"),
        &out,
        "cargo test -p hoist-verify --test slp",
    );
}

/// A scene as `hoist run` reads it: WGSL/GLSL sections compiled by hoist-front.
fn read_scene(text: &str, caps: &Caps) -> Option<hoist_raster::scene::Scene> {
    let opts = hoist_front::Options::default();
    hoist_front::scene::parse(text, caps, &opts)
        .ok()
        .map(|p| p.scene)
}

/// The examples' optimized pairs (default options, validated) without and with `slp`; the
/// scene rendered with the packed result must agree with the original as the one without.
fn with_motion(files: &[PathBuf]) -> String {
    use std::fmt::Write;
    let mut out = String::from(
        "\n## After code motion\n\n\
         `hoist_verify::optimize` on each example's pair (default options, validated), without \
         and with `Options::slp` (`hoist opt --slp`): slots of the optimized pair and the \
         merges (vertex + fragment). Every result with SLP is validated and its scene render \
         agrees with the original as the one without.\n\n\
         | scene | F without | F with | V without | V with | merges (V + F) |\n\
         |---|---|---|---|---|---|\n",
    );
    let cfg = hoist_verify::Config::default();
    let (mut saved, mut merges) = (0i64, 0u32);
    for f in files {
        let text = std::fs::read_to_string(f).expect("readable");
        let scene = read_scene(&text, &Caps::default()).expect("parses");
        let Some(pair) = scene.programs.get(scene.optimize_target()) else {
            continue;
        };
        let (Some(vp), Some(fp)) = (&pair.vertex, &pair.fragment) else {
            continue;
        };
        let run = |slp: bool| {
            let opts = hoist_opt::Options {
                slp,
                // As `hoist opt`: a compiled pair's uniforms are the host's, in both stages.
                mirror_params: hoist_front::scene::has_sources(&text),
                ..hoist_opt::Options::default()
            };
            hoist_verify::optimize(&vp.program, &fp.program, &opts, Some(&cfg)).expect("optimizes")
        };
        let (off, on) = (run(false), run(true));
        let name = f
            .strip_prefix(repo().join("examples"))
            .unwrap()
            .display()
            .to_string();
        assert_eq!(
            on.status.is_validated(),
            off.status.is_validated(),
            "{name}: {}",
            on.status.describe()
        );
        assert!(
            renders_like(&scene, &off.outcome, &on.outcome),
            "{name}: render"
        );
        let (a, b) = (&off.outcome.after, &on.outcome.after);
        let [v, fm] = on.outcome.slp_merges;
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {v} + {fm} |",
            a.fp_slots.total(),
            b.fp_slots.total(),
            a.vp_slots.total(),
            b.vp_slots.total()
        );
        saved += i64::from(a.fp_slots.total() + a.vp_slots.total())
            - i64::from(b.fp_slots.total() + b.vp_slots.total());
        merges += v + fm;
    }
    let _ = writeln!(
        out,
        "\n{merges} merges in all; the optimized pairs have {saved} fewer slots in all with SLP."
    );
    out
}

/// Whether the scene rendered with `on` agrees with the original at least as `off` does
/// (bit-identical where that was, within the tolerance where that was).
fn renders_like(
    scene: &hoist_raster::scene::Scene,
    off: &hoist_opt::Outcome,
    on: &hoist_opt::Outcome,
) -> bool {
    let opts = hoist_raster::scene::RunOptions::default();
    let run = |s: &hoist_raster::scene::Scene| hoist_raster::scene::run(s, &opts).expect("runs");
    let original = run(scene);
    let verdicts = |o: &hoist_opt::Outcome| {
        let r = run(&hoist_verify::scene::with_optimized(scene, o));
        hoist_verify::scene::compare(&original, &r)
    };
    let (a, b) = (verdicts(off), verdicts(on));
    let identical =
        |e: &hoist_verify::scene::Equivalence| e.verdict == hoist_raster::Verdict::Identical;
    a.iter().all(|(target, e)| {
        let other = &b[target];
        (other.holds() || !e.holds()) && (identical(other) || !identical(e))
    })
}

fn add(total: &mut Row, r: &Row) {
    for k in 0..2 {
        total.merges[k] += r.merges[k];
        total.slots[k].0 += r.slots[k].0;
        total.slots[k].1 += r.slots[k].1;
    }
}

/// The corpus total appended to the table (or the table as it is, with a SKIP notice).
fn piglit(mut out: String) -> String {
    let Some(root) = oracles::shared("corpus/piglit/tests/spec").filter(|p| p.is_dir()) else {
        oracles::skip("../shared/corpus/piglit is not next to the repository");
        let old = std::fs::read_to_string(repo().join("docs/slp-results.md")).unwrap_or_default();
        out.extend(
            old.lines()
                .filter(|l| l.starts_with("| **piglit"))
                .map(|l| l.to_string() + "\n"),
        );
        return out;
    };
    let files = oracles::shader_tests(&root);
    let mut total = Row::default();
    let mut scenes = 0;
    for (i, f) in files.iter().enumerate() {
        if let Some(row) = scene_row(f, 1000 + i as u64) {
            add(&mut total, &row);
            scenes += 1;
        }
    }
    table_line(
        &mut out,
        &format!("**piglit ARB corpus** ({scenes} scenes)"),
        &total,
    );
    out
}

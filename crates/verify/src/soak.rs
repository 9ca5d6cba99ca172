//! The soak: many generated pairs through optimize, validate and render, counting what
//! went wrong.
//!
//! Per pair and dialect ([`crate::generate`]): parse both programs; optimize and validate
//! under seeded random options (selection rule, cost model, mirrored parameters,
//! commutation, lowering, clean-up, scheduling, fitting to temp limits, tighter limits); print and re-parse the optimized
//! programs; then check the validated result again against fresh inputs (another seed of
//! [`crate::validate`], whose checks include a render). Counted:
//! - **panics** anywhere in the optimizer or the validator (caught, with their message);
//! - **mismatches**: a result presented as validated that the fresh check rejects;
//! - **rejected groups**: moves validation caught and kept in place (optimizer bugs the
//!   user never saw);
//! - **unvalidated** results (the executor could not run a program);
//! - **round-trip** failures of the printer and **generator** failures (a pair that does not
//!   parse);
//! - **compiled-versus-interpreted differences**: every pair's kernels (both stages) and its
//!   render, run by the interpreter and by the compiled modules under textures drawn for the
//!   pair ([`crate::execdiff`]), bit for bit; with the counts of every texture target,
//!   fetch, write mask and texture kind drawn.
//!
//! Pairs come from [`generate::pair_with`] with [`Reach::Shadow`], so ARB programs also
//! sample through shadow targets.
//!
//! `scripts/soak.sh N` runs it; CI runs a short one through `tests/soak.rs`.

use crate::execdiff::{self, ExecTally};
use crate::generate::{self, Flavor, Reach};
use crate::validate::{self, Config};
use crate::{Status, Validated};
use hoist_asm::{ParseOptions, Program};
use hoist_opt::{CostModel, Options, Selection};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What went wrong with one pair.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    Generator(String),
    Panic(String),
    /// The optimizer refused a valid pair (an error instead of a result).
    Error(String),
    Mismatch(String),
    Rejected(String),
    Unvalidated(String),
    RoundTrip(String),
}

impl Problem {
    fn kind(&self) -> &'static str {
        match self {
            Problem::Generator(_) => "GENERATOR",
            Problem::Panic(_) => "PANIC",
            Problem::Error(_) => "ERROR",
            Problem::Mismatch(_) => "MISMATCH",
            Problem::Rejected(_) => "REJECTED",
            Problem::Unvalidated(_) => "UNVALIDATED",
            Problem::RoundTrip(_) => "ROUND-TRIP",
        }
    }

    /// Problems that mean a user could have seen a wrong or crashing result.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Problem::Generator(_)
                | Problem::Panic(_)
                | Problem::Error(_)
                | Problem::Mismatch(_)
                | Problem::RoundTrip(_)
        )
    }
}

/// Totals of one dialect.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub pairs: u32,
    /// Pairs whose fragment program got shorter.
    pub improved: u32,
    pub fragment_slots_before: u64,
    pub fragment_slots_after: u64,
    pub panics: u32,
    pub errors: u32,
    pub mismatches: u32,
    pub rejected_groups: u32,
    pub unvalidated: u32,
    pub round_trip: u32,
    pub generator: u32,
    /// Instructions the vector-packing pass merged away (pairs soaked with `Options::slp`).
    pub slp_merges: u64,
    /// Pairs whose result keeps groups only a fit kept (`Outcome::kept_by_fit`).
    pub kept_by_fit: u32,
    /// Pairs with values recomputed in the fragment program instead of transported
    /// (`Outcome::duplicated`).
    pub recomputed: u32,
    /// Pairs in which each varying pass changed something ([`VARYING_PASSES`]).
    pub varying_passes: [u32; 5],
    /// Every problem, with the pair's label.
    pub problems: Vec<(String, Problem)>,
    /// Compiled against interpreted: what was compared and drawn, and the differences.
    pub exec: ExecTally,
}

/// The varying passes the soak counts, in [`Tally::varying_passes`] order.
pub const VARYING_PASSES: [&str; 5] = [
    "varying_dead",
    "varying_const",
    "varying_uniform",
    "varying_dedup",
    "varying_pack",
];

impl Tally {
    pub(crate) fn add(&mut self, label: &str, p: Problem) {
        match &p {
            Problem::Generator(_) => self.generator += 1,
            Problem::Panic(_) => self.panics += 1,
            Problem::Error(_) => self.errors += 1,
            Problem::Mismatch(_) => self.mismatches += 1,
            Problem::Rejected(_) => self.rejected_groups += 1,
            Problem::Unvalidated(_) => self.unvalidated += 1,
            Problem::RoundTrip(_) => self.round_trip += 1,
        }
        self.problems.push((label.to_string(), p));
    }

    pub fn merge(&mut self, o: Tally) {
        self.pairs += o.pairs;
        self.improved += o.improved;
        self.fragment_slots_before += o.fragment_slots_before;
        self.fragment_slots_after += o.fragment_slots_after;
        self.panics += o.panics;
        self.errors += o.errors;
        self.mismatches += o.mismatches;
        self.rejected_groups += o.rejected_groups;
        self.unvalidated += o.unvalidated;
        self.round_trip += o.round_trip;
        self.generator += o.generator;
        self.slp_merges += o.slp_merges;
        self.kept_by_fit += o.kept_by_fit;
        self.recomputed += o.recomputed;
        for (a, b) in self.varying_passes.iter_mut().zip(o.varying_passes) {
            *a += b;
        }
        self.problems.extend(o.problems);
        self.exec.merge(o.exec);
    }

    pub fn failures(&self) -> u32 {
        self.panics
            + self.errors
            + self.mismatches
            + self.round_trip
            + self.generator
            + self.exec.differences.len() as u32
    }

    /// One summary line.
    pub fn summary(&self, name: &str) -> String {
        format!(
            "{name}: {} pairs, {} with fewer fragment slots ({} -> {} slots in all), {} panics, {} errors, {} mismatches, {} rejected groups, {} unvalidated, {} round-trip failures, {} generator failures, {} SLP merges, {} kept groups by a fit, {} recomputed instead of transported; varying passes changed {}",
            self.pairs,
            self.improved,
            self.fragment_slots_before,
            self.fragment_slots_after,
            self.panics,
            self.errors,
            self.mismatches,
            self.rejected_groups,
            self.unvalidated,
            self.round_trip,
            self.generator,
            self.slp_merges,
            self.kept_by_fit,
            self.recomputed,
            VARYING_PASSES
                .iter()
                .zip(self.varying_passes)
                .map(|(p, n)| format!("{n} ({})", p.trim_start_matches("varying_")))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// Every problem, one per line.
    pub fn details(&self) -> String {
        self.problems
            .iter()
            .map(|(label, p)| {
                let text = match p {
                    Problem::Generator(s)
                    | Problem::Panic(s)
                    | Problem::Error(s)
                    | Problem::Mismatch(s)
                    | Problem::Rejected(s)
                    | Problem::Unvalidated(s)
                    | Problem::RoundTrip(s) => s,
                };
                format!("{} {label}: {text}\n", p.kind())
            })
            .chain(
                self.exec
                    .differences
                    .iter()
                    .map(|d| format!("COMPILED-DIFFERS {d}\n")),
            )
            .collect()
    }
}

fn parse(text: &str) -> Result<Program, String> {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .map_err(|d| hoist_asm::diag::render(&d, "generated", text, false))
}

/// Seeded random options, the way the playground's users set them.
pub fn options(rng: &mut SmallRng, vp: &Program, fp: &Program) -> Options {
    let mut fl = fp.profile.limits();
    let mut vl = vp.profile.limits();
    if rng.random_bool(0.2) {
        // Tighter interpolator limits, never below what either program uses.
        let used = [vp, fp]
            .iter()
            .flat_map(|p| p.io.iter())
            .filter_map(|d| match d.semantic {
                hoist_asm::ir::Semantic::TexCoord(k) => Some(k + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let t = (used + rng.random_range(0..3u8)).clamp(1, fl.texcoords.min(vl.texcoords).max(1));
        fl.texcoords = t;
        vl.texcoords = t;
    }
    if rng.random_bool(0.2) {
        vl.max_slots = vp.slots().total() + rng.random_range(0..12u32);
    }
    // Drawn from a side stream so that the draws below, and so every seed recorded before
    // these limits existed (the regression pairs), keep their options.
    let mut side = SmallRng::seed_from_u64(rng.clone().random::<u64>() ^ 0x7E3D_C0DE);
    if side.random_bool(0.25) {
        // Tighter temp limits, never below what either program uses: motion then often
        // exceeds the vertex limit, which `fit` (drawn below) renumbers, schedules or
        // rematerializes away, and without it the selection drops the group.
        vl.temps = (vp.num_temps + side.random_range(0..3u16)).clamp(1, vl.temps.max(1));
        fl.temps = (fp.num_temps + side.random_range(0..3u16)).clamp(1, fl.temps.max(1));
    }
    // A stream of its own, so the draws above keep every recorded seed's options.
    let mut tight = SmallRng::seed_from_u64(rng.clone().random::<u64>() ^ 0x1A7E_5107);
    if tight.random_bool(0.15) {
        // No spare interpolator at all: the packing must relocate to move anything.
        let used = [vp, fp]
            .iter()
            .flat_map(|p| p.io.iter())
            .filter_map(|d| match d.semantic {
                hoist_asm::ir::Semantic::TexCoord(k) => Some(k + 1),
                _ => None,
            })
            .max()
            .unwrap_or(1)
            .max(1);
        fl.texcoords = used.min(fl.texcoords);
        vl.texcoords = used.min(vl.texcoords);
    }
    Options {
        vp_limits: Some(vl),
        fp_limits: Some(fl),
        cost: match rng.random_range(0..10u8) {
            0..=2 => CostModel::modern_default(4.0, 1024.0),
            3 => CostModel::R600 {
                chip: if rng.random_bool(0.5) {
                    hoist_opt::r600::Chip::R600
                } else {
                    hoist_opt::r600::Chip::R700
                },
                vertices: 4.0,
                fragments: 1024.0,
            },
            _ => CostModel::Paper,
        },
        selection: if rng.random_bool(0.5) {
            Selection::Greedy
        } else {
            Selection::Optimal
        },
        mirror_params: rng.random_bool(0.5),
        steps: rng.random_bool(0.15).then(|| rng.random_range(0..4usize)),
        commute: rng.random_bool(0.8),
        lower: rng.random_bool(0.8),
        vp_cleanup: rng.random_bool(0.8),
        schedule: rng.random_bool(0.5),
        fit: rng.random_bool(0.3),
        search_budget: 64,
        stay: Vec::new(),
        slp: rng.random_bool(0.5),
        peepholes: hoist_opt::Peepholes {
            mad: rng.random_bool(0.5),
            dot: rng.random_bool(0.5),
            tex_dedup: rng.random_bool(0.5),
        },
        varyings: true,
    }
}

/// Catches a panic in `f`, returning its message and location.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic without a message".into());
        let at = LAST_PANIC
            .with(|l| l.borrow_mut().take())
            .unwrap_or_default();
        format!("{msg}{at}")
    })
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Records panic locations for [`guarded`] instead of printing them (call once).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|l| *l.borrow_mut() = Some(at));
    }));
}

/// The options and validation seeds the soak uses for a pair.
pub fn settings(seed: u64, vp: &Program, fp: &Program) -> (Options, Config, Config) {
    let mut rng = SmallRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x50A4);
    let opts = options(&mut rng, vp, fp);
    let cfg = Config {
        seed: rng.random(),
        ..Config::default()
    };
    let fresh = Config {
        seed: rng.random(),
        render_size: 32,
    };
    (opts, cfg, fresh)
}

/// Writes the pair of a seed to `dir` (`vp.txt`, `fp.txt`, and the soak's options as
/// `options.json`) and describes how the soak optimizes it.
pub fn dump(seed: u64, flavor: Flavor, dir: &std::path::Path) -> Result<String, String> {
    let pair = generate::pair_with(seed, flavor, Reach::Shadow);
    let (vp, fp) = (parse(&pair.vp)?, parse(&pair.fp)?);
    let (opts, cfg, fresh) = settings(seed, &vp, &fp);
    dump_pair(
        &pair.label,
        (&pair.vp, &pair.fp),
        (&vp, &fp),
        (&opts, &cfg, &fresh),
        dir,
    )
}

/// Writes a parsed pair and the soak's options for it to `dir` and describes how the
/// optimizer and validation treat it (shared by [`dump`] and the WGSL soak's dump).
pub fn dump_pair(
    label: &str,
    text: (&str, &str),
    pair: (&Program, &Program),
    settings: (&Options, &Config, &Config),
    dir: &std::path::Path,
) -> Result<String, String> {
    let ((vp, fp), (opts, cfg, fresh)) = (pair, settings);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("vp.txt"), text.0).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("fp.txt"), text.1).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(opts).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("options.json"), json).map_err(|e| e.to_string())?;
    let mut text = format!(
        "{label}: written to {}\noptions: {opts:?}\nvalidation seeds: {} and {}\n",
        dir.display(),
        cfg.seed,
        fresh.seed
    );
    let v = crate::optimize(vp, fp, opts, Some(cfg)).map_err(|e| e.to_string())?;
    let out = &v.outcome;
    let fresh_check = validate::validate(vp, fp, out, fresh)?;
    text.push_str(&format!(
        "--- source fragment program\n{}--- optimized vertex program\n{}--- optimized fragment program\n{}--- transports {:?}\n--- fates {:?}\n--- rejected groups {:?}\n--- status: {:?}\n--- fresh check: {:?}\n",
        hoist_asm::print(&out.source_fp),
        hoist_asm::print(&out.vp),
        hoist_asm::print(&out.fp),
        out.transports,
        out.fates,
        v.rejected
            .iter()
            .map(|r| format!("{:?}: {}", r.instructions, r.failure))
            .collect::<Vec<_>>(),
        v.status,
        fresh_check.failure
    ));
    Ok(text)
}

/// Soaks one pair.
pub fn soak_one(seed: u64, flavor: Flavor, tally: &mut Tally) {
    let pair = generate::pair_with(seed, flavor, Reach::Shadow);
    let label = pair.label.clone();
    tally.pairs += 1;
    let (vp, fp) = match (parse(&pair.vp), parse(&pair.fp)) {
        (Ok(v), Ok(f)) => (v, f),
        (Err(e), _) | (_, Err(e)) => {
            tally.add(&label, Problem::Generator(e));
            return;
        }
    };
    let (opts, cfg, fresh) = settings(seed, &vp, &fp);
    check(&label, &vp, &fp, &opts, (&cfg, &fresh), tally);
    let exec = guarded(|| {
        let mut t = ExecTally::default();
        execdiff::check_pair(&label, &vp, &fp, seed, &mut t);
        t
    });
    match exec {
        Ok(t) => tally.exec.merge(t),
        Err(p) => tally.add(
            &label,
            Problem::Panic(format!("comparing compiled with interpreted: {p}")),
        ),
    }
}

/// Optimizes and validates one pair under `opts` (validation seeds `cfg.0`, then a fresh
/// check with `cfg.1`), printing and re-parsing the result; counts problems in `tally`.
pub fn check(
    label: &str,
    vp: &Program,
    fp: &Program,
    opts: &Options,
    cfg: (&Config, &Config),
    tally: &mut Tally,
) {
    check_under(
        label,
        vp,
        fp,
        opts,
        cfg,
        hoist_asm::ArbTarget::default(),
        tally,
    );
}

/// [`check`] for a pair parsed under ARB target `target` (the printed result is parsed
/// back under it).
pub fn check_under(
    label: &str,
    vp: &Program,
    fp: &Program,
    opts: &Options,
    cfg: (&Config, &Config),
    target: hoist_asm::ArbTarget,
    tally: &mut Tally,
) {
    let (cfg, fresh) = cfg;
    let v: Validated = match guarded(|| crate::optimize(vp, fp, opts, Some(cfg))) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => {
            tally.add(label, Problem::Error(e.to_string()));
            return;
        }
        Err(p) => {
            tally.add(label, Problem::Panic(format!("{p}; options {opts:?}")));
            return;
        }
    };
    for r in &v.rejected {
        tally.add(
            label,
            Problem::Rejected(format!("instructions {:?}: {}", r.instructions, r.failure)),
        );
    }
    let out = &v.outcome;
    tally.slp_merges += u64::from(out.slp_merges[0] + out.slp_merges[1]);
    tally.kept_by_fit += u32::from(out.kept_by_fit.is_some());
    tally.recomputed += u32::from(!out.duplicated.is_empty());
    for (k, pass) in VARYING_PASSES.iter().enumerate() {
        let done = out
            .varyings
            .changes
            .iter()
            .any(|c| c.done && c.pass == *pass);
        tally.varying_passes[k] += u32::from(done);
    }
    tally.fragment_slots_before += u64::from(out.before.fp_slots.total());
    tally.fragment_slots_after += u64::from(out.after.fp_slots.total());
    if out.after.fp_slots.total() < out.before.fp_slots.total() {
        tally.improved += 1;
    }
    match &v.status {
        Status::Validated | Status::Unchanged { .. } => {}
        Status::Unvalidated { why } => {
            tally.add(label, Problem::Unvalidated(why.clone()));
            return;
        }
        Status::Skipped => unreachable!("validation was asked for"),
    }
    for p in [&out.vp, &out.fp] {
        let text = hoist_asm::print(p);
        let back = hoist_asm::parse(&text, &ParseOptions::default().with_target(&text, target))
            .into_result()
            .map_err(|d| hoist_asm::diag::render(&d, "generated", &text, false));
        match back {
            Ok(q) if q.eq_ignoring_spans(p) => {}
            Ok(q) => tally.add(
                label,
                Problem::RoundTrip(format!(
                    "printed and parsed back differently: {}",
                    first_difference(p, &q)
                )),
            ),
            Err(e) => tally.add(label, Problem::RoundTrip(format!("does not parse: {e}"))),
        }
    }
    match guarded(|| validate::validate(vp, fp, out, fresh)) {
        Ok(Ok(r)) => {
            if let Some(f) = r.failure {
                tally.add(label, Problem::Mismatch(f.to_string()));
            }
        }
        Ok(Err(e)) => tally.add(label, Problem::Unvalidated(e)),
        Err(p) => tally.add(label, Problem::Panic(format!("in the fresh check: {p}"))),
    }
}

/// Where two programs first differ, ignoring spans and comments.
pub fn first_difference(a: &Program, b: &Program) -> String {
    let (mut a, mut b) = (a.clone(), b.clone());
    a.clear_spans();
    b.clear_spans();
    if let Some(i) =
        (0..a.insts.len().max(b.insts.len())).find(|&i| a.insts.get(i) != b.insts.get(i))
    {
        return format!(
            "instruction {}: {:?} against {:?}",
            i + 1,
            a.insts.get(i),
            b.insts.get(i)
        );
    }
    fn first<T: std::fmt::Debug + PartialEq>(what: &str, x: &[T], y: &[T]) -> Option<String> {
        let i = (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i))?;
        Some(format!("{what} {i}: {:?} against {:?}", x.get(i), y.get(i)))
    }
    if let Some(d) = first("io", &a.io, &b.io)
        .or_else(|| first("const", &a.consts, &b.consts))
        .or_else(|| first("symbol", &a.symbols, &b.symbols))
        .or_else(|| first("sampler", &a.samplers, &b.samplers))
    {
        return d;
    }
    if a.num_temps != b.num_temps {
        return format!("temps: {} against {}", a.num_temps, b.num_temps);
    }
    if let Some(d) = first("int const", &a.int_consts, &b.int_consts)
        .or_else(|| first("bool const", &a.bool_consts, &b.bool_consts))
        .or_else(|| first("option", &a.options, &b.options))
    {
        return d;
    }
    if a.num_addrs != b.num_addrs {
        return format!("address registers: {} against {}", a.num_addrs, b.num_addrs);
    }
    "elsewhere".into()
}

/// Soaks seeds `first .. first + n` of one dialect on `threads` threads.
pub fn soak(first: u64, n: u64, flavor: Flavor, threads: usize) -> Tally {
    soak_with(first, n, threads, &|seed, tally| {
        soak_one(seed, flavor, tally)
    })
}

/// Runs `one` on seeds `first .. first + n` on `threads` threads and merges the tallies.
pub fn soak_with(
    first: u64,
    n: u64,
    threads: usize,
    one: &(dyn Fn(u64, &mut Tally) + Sync),
) -> Tally {
    let threads = threads.max(1) as u64;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut tally = Tally::default();
                    let mut seed = first + t;
                    while seed < first + n {
                        one(seed, &mut tally);
                        seed += threads;
                    }
                    tally
                })
            })
            .collect();
        let mut all = Tally::default();
        for h in handles {
            all.merge(h.join().expect("soak threads catch their panics"));
        }
        all
    })
}

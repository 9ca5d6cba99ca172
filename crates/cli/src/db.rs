//! `hoist db DIR [--json] [--csv F]`: the optimizer over every program pair in a directory
//! tree, in parallel, reported the way Mesa's shader-db reports a compiler change.
//!
//! Pairs are found by name: `a.vp` + `a.fp`, `a.vs` + `a.ps` and `a.vsh` + `a.psh` in one
//! directory, `a.vfp` (one file holding the vertex program, then the fragment program) and
//! `a.shader_test` (the scene's pair to optimize, GLSL/WGSL sections compiled as `hoist opt`
//! compiles them, with mirrored parameters; a stage an ARB scene leaves to fixed function
//! gets the pass-through program the page's import writes). Each is parsed, optimized with the
//! defaults of `hoist opt` and validated. The report gives totals before → after
//! (fragment slots, vertex slots, interpolator components, temporaries), how many pairs the
//! change helped, hurt or left unchanged, the worst cases and a table of every pair. Pairs
//! validation caught (rejected groups, a clean-up returned unchanged), results that could
//! not be validated, refusals and errors are counted and listed, never dropped.
//!
//! This is an interface for scripts: `--json` prints one object (fields in `--help`),
//! `--csv F` writes one row per pair. The exit status is 0 when the tree was read (whatever
//! the pairs' results), 2 on a usage error.

use crate::util;
use hoist_asm::{ArbTarget, Program};
use hoist_opt::{Options, Stats};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(clap::Args)]
#[command(
    after_help = "Pairs: a.vp + a.fp, a.vs + a.ps, a.vsh + a.psh (same directory and \
stem), a.vfp (both programs in one file), a.shader_test (the scene's pair; GLSL/WGSL sections are compiled and their uniforms mirrored).\n\n\
JSON (--json): `pairs` (one object per pair: `name`, `kind`, `dialect`, `status` = \
validated | rejected | unchanged | unvalidated | refused | error | skipped, `detail`, \
`before`/`after` = {fp_slots, vp_slots, interp_components (texture coordinates and \
colours), fp_temps, vp_temps}, \
`proven_optimal`, `rejected_groups`, `ms`), `totals` (before/after sums over the pairs \
with results), `helped`/`hurt`/`unchanged` (by fragment slots), `per_metric` (helped and \
hurt per figure), `counts` (pairs per status) and `failures` (name, status, detail of every \
pair that is not validated).\n\n\
CSV (--csv F): a header, then one row per pair: name, kind, dialect, status, the five \
figures before and after, proven_optimal, rejected_groups."
)]
pub struct Args {
    /// Directory searched recursively for program pairs
    dir: PathBuf,
    /// Print one JSON object instead of the text report
    #[arg(long)]
    json: bool,
    /// Also write one CSV row per pair to this file
    #[arg(long, value_name = "F")]
    csv: Option<PathBuf>,
    /// Worker threads (default: the machine's parallelism)
    #[arg(long)]
    jobs: Option<usize>,
    /// Rows in the worst-case lists
    #[arg(long, default_value_t = 10)]
    worst: usize,
    /// Move instructions that read host-set fragment parameters (as `hoist opt --mirror-params`)
    #[arg(long)]
    mirror_params: bool,
    #[arg(long, value_parser = util::parse_target, help = util::TARGET_HELP)]
    target: Option<ArbTarget>,
}

/// Where a pair's programs come from.
#[derive(Clone, Debug)]
enum Source {
    Files(PathBuf, PathBuf),
    Combined(PathBuf),
    Scene(PathBuf),
}

/// One discovered pair: its name (relative to the directory) and its source.
#[derive(Clone, Debug)]
struct Found {
    name: String,
    source: Source,
}

/// The figures the report sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
struct Figures {
    fp_slots: u64,
    vp_slots: u64,
    interp_components: u64,
    fp_temps: u64,
    vp_temps: u64,
}

impl Figures {
    fn of(s: &Stats) -> Figures {
        Figures {
            fp_slots: u64::from(s.fp_slots.total()),
            vp_slots: u64::from(s.vp_slots.total()),
            interp_components: u64::from(s.interp_components + s.color_components),
            fp_temps: u64::from(s.fp_temps),
            vp_temps: u64::from(s.vp_temps),
        }
    }

    fn add(&mut self, o: &Figures) {
        self.fp_slots += o.fp_slots;
        self.vp_slots += o.vp_slots;
        self.interp_components += o.interp_components;
        self.fp_temps += o.fp_temps;
        self.vp_temps += o.vp_temps;
    }

    fn values(&self) -> [u64; 5] {
        [
            self.fp_slots,
            self.vp_slots,
            self.interp_components,
            self.fp_temps,
            self.vp_temps,
        ]
    }
}

const METRICS: [&str; 5] = [
    "fragment slots",
    "vertex slots",
    "interpolator components",
    "fragment temps",
    "vertex temps",
];

/// One pair's result.
#[derive(Clone, Debug, Serialize)]
struct Row {
    name: String,
    kind: &'static str,
    dialect: Option<String>,
    status: &'static str,
    detail: Option<String>,
    before: Option<Figures>,
    after: Option<Figures>,
    proven_optimal: Option<bool>,
    rejected_groups: u32,
    ms: u64,
}

impl Row {
    fn failed(name: &str, kind: &'static str, status: &'static str, detail: String) -> Row {
        Row {
            name: name.into(),
            kind,
            dialect: None,
            status,
            detail: Some(detail),
            before: None,
            after: None,
            proven_optimal: None,
            rejected_groups: 0,
            ms: 0,
        }
    }

    /// Fragment slots after minus before (negative: helped).
    fn delta(&self) -> Option<[i64; 5]> {
        let (b, a) = (self.before?, self.after?);
        let (b, a) = (b.values(), a.values());
        Some(std::array::from_fn(|k| a[k] as i64 - b[k] as i64))
    }
}

pub fn run(args: Args) -> u8 {
    let found = match discover(&args.dir) {
        Ok(f) => f,
        Err(e) => {
            util::error(e);
            return 2;
        }
    };
    let rows = process_all(&args, &found);
    let summary = Summary::of(&rows);
    let out = if args.json {
        let mut s = serde_json::to_string_pretty(&Json {
            pairs: &rows,
            summary: &summary,
        })
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    } else {
        text_report(&rows, &summary, args.worst)
    };
    if let Some(path) = &args.csv
        && let Err(e) = std::fs::write(path, csv(&rows))
    {
        util::error(format!("cannot write {}: {e}", path.display()));
        return 2;
    }
    util::write_stdout(&out);
    0
}

/// Every pair under `dir`, sorted by name.
fn discover(dir: &Path) -> Result<Vec<Found>, String> {
    if !dir.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("cannot read {}: {e}", d.display()))?;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let rel = |p: &Path| p.strip_prefix(dir).unwrap_or(p).display().to_string();
    let ext = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .map(str::to_lowercase)
    };
    let mut found = Vec::new();
    for p in &files {
        match ext(p).as_deref() {
            Some("vfp") => found.push(Found {
                name: rel(p),
                source: Source::Combined(p.clone()),
            }),
            Some("shader_test") => found.push(Found {
                name: rel(p),
                source: Source::Scene(p.clone()),
            }),
            Some(v @ ("vp" | "vs" | "vsh")) => {
                let f = match v {
                    "vp" => "fp",
                    "vs" => "ps",
                    _ => "psh",
                };
                let fp = p.with_extension(f);
                if fp.is_file() {
                    found.push(Found {
                        name: rel(&p.with_extension(format!("{v}+{f}"))),
                        source: Source::Files(p.clone(), fp),
                    });
                }
            }
            _ => {}
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// Runs every pair on `jobs` threads; rows come back in discovery order.
fn process_all(args: &Args, found: &[Found]) -> Vec<Row> {
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, found.len().max(1));
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; found.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = found.get(i) else { break };
                    let row =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| process(args, f)))
                            .unwrap_or_else(|p| {
                                let msg = p
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_else(|| "a panic".into());
                                Row::failed(
                                    &f.name,
                                    kind_of(&f.source),
                                    "error",
                                    format!("panic: {msg}"),
                                )
                            });
                    rows.lock().expect("no worker panics holding the lock")[i] = Some(row);
                }
            });
        }
    });
    rows.into_inner()
        .expect("workers are done")
        .into_iter()
        .flatten()
        .collect()
}

fn kind_of(s: &Source) -> &'static str {
    match s {
        Source::Files(..) => "pair",
        Source::Combined(_) => "vfp",
        Source::Scene(_) => "shader_test",
    }
}

/// Parses `text` as a program under `target`; the error is the diagnostics in one line.
fn parse_one(text: &str, name: &str, target: Option<ArbTarget>) -> Result<Program, String> {
    let opts = util::target_options(text, name, None, target);
    hoist_asm::parse(text, &opts).into_result().map_err(|d| {
        let first = d
            .iter()
            .find(|d| d.is_error())
            .map_or("does not parse".into(), |d| d.message.clone());
        format!("{name}: {first}")
    })
}

/// A pair as read: its programs, the ARB target they are held to, and whether they were
/// compiled from GLSL/WGSL (whose uniforms the host sets for both stages).
type Loaded = (Program, Program, ArbTarget, bool);

/// The two programs of a pair, or why there is no pair.
fn load(args: &Args, f: &Found) -> Result<Loaded, (&'static str, String)> {
    let target = args.target.unwrap_or_default();
    let read = |p: &Path| util::read_source(p).map_err(|e| ("error", e));
    let parse = |t: &str, n: &str, target| parse_one(t, n, target).map_err(|e| ("error", e));
    match &f.source {
        Source::Files(v, fr) => {
            let (vt, ft) = (read(v)?, read(fr)?);
            Ok((
                parse(&vt, &v.display().to_string(), args.target)?,
                parse(&ft, &fr.display().to_string(), args.target)?,
                target,
                false,
            ))
        }
        Source::Combined(p) => {
            let text = read(p)?;
            let at = fragment_start(&text).ok_or((
                "skipped",
                "no fragment program header (!!ARBfp1.0 or ps_*) after the vertex program".into(),
            ))?;
            let name = p.display().to_string();
            Ok((
                parse(&text[..at], &name, args.target)?,
                parse(&text[at..], &name, args.target)?,
                target,
                false,
            ))
        }
        Source::Scene(p) => {
            let text = read(p)?;
            // GLSL/WGSL sections are compiled as `hoist run` and `hoist opt` compile them.
            let compiled = hoist_front::scene::has_sources(&text);
            let caps = hoist_raster::Caps::default();
            let sc = hoist_front::scene::parse(&text, &caps, &hoist_front::Options::default())
                .map_err(|d| {
                    let first = d
                        .iter()
                        .find(|d| d.is_error())
                        .map_or("does not parse".into(), |d| d.message.clone());
                    ("error", format!("{}: {first}", p.display()))
                })?
                .scene;
            let target = sc
                .meta
                .get("target")
                .and_then(|t| ArbTarget::from_id(t))
                .or(args.target)
                .unwrap_or_default();
            let pair = sc.programs.get(sc.optimize_target()).cloned();
            let (v, fr) = pair.map_or((None, None), |p| (p.vertex, p.fragment));
            let stand_in = |text: &str| parse(text, "fixed-function stand-in", args.target);
            let arb = |p: &hoist_raster::scene::SceneProgram| {
                p.program.dialect() == hoist_asm::Dialect::Arb
            };
            match (v, fr) {
                (Some(v), Some(fr)) => Ok((v.program, fr.program, target, compiled)),
                (Some(v), None) if arb(&v) => {
                    let sum = sc.commands.iter().any(|(_, c)| {
                        matches!(c, hoist_raster::scene::Command::Enable(cap, true) if cap == "GL_COLOR_SUM")
                    });
                    let body = if sum { FF_FRAGMENT_SUM } else { FF_FRAGMENT };
                    Ok((v.program, stand_in(body)?, target, compiled))
                }
                (None, Some(fr)) if arb(&fr) => {
                    Ok((stand_in(FF_VERTEX)?, fr.program, target, compiled))
                }
                _ => Err((
                    "skipped",
                    "the scene has no vertex/fragment program pair to optimize".into(),
                )),
            }
        }
    }
}

/// Fixed-function stand-ins for a stage an ARB scene leaves to fixed function (the page's
/// import writes the same programs): the interpolated colour (with colour sum: primary plus
/// secondary, clamped), and position, colours and texture coordinates passed through.
const FF_FRAGMENT: &str = "!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n";
const FF_FRAGMENT_SUM: &str = "!!ARBfp1.0\nADD_SAT result.color.xyz, fragment.color, \
    fragment.color.secondary;\nMOV result.color.w, fragment.color.w;\nEND\n";
const FF_VERTEX: &str = "!!ARBvp1.0\nOPTION ARB_position_invariant;\nMOV result.color, \
    vertex.color;\nMOV result.color.secondary, vertex.color.secondary;\nMOV result.texcoord[0], \
    vertex.texcoord[0];\nMOV result.texcoord[1], vertex.texcoord[1];\nMOV result.texcoord[2], \
    vertex.texcoord[2];\nMOV result.texcoord[3], vertex.texcoord[3];\nMOV result.texcoord[4], \
    vertex.texcoord[4];\nMOV result.texcoord[5], vertex.texcoord[5];\nMOV result.texcoord[6], \
    vertex.texcoord[6];\nMOV result.texcoord[7], vertex.texcoord[7];\nEND\n";

/// Byte offset of the fragment program's header line in a combined file.
fn fragment_start(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start().to_ascii_lowercase();
        if at > 0 && (t.starts_with("!!arbfp") || t.starts_with("ps_") || t.starts_with("ps.")) {
            return Some(at);
        }
        at += line.len();
    }
    None
}

fn process(args: &Args, f: &Found) -> Row {
    let kind = kind_of(&f.source);
    let (vp, fp, target, compiled) = match load(args, f) {
        Ok(p) => p,
        Err((status, why)) => return Row::failed(&f.name, kind, status, why),
    };
    let opts = Options {
        vp_limits: Some(vp.profile.limits_for(target)),
        fp_limits: Some(fp.profile.limits_for(target)),
        // A compiled pair's uniforms are the host's, set for both stages (as `hoist opt`).
        mirror_params: args.mirror_params || compiled,
        ..Options::default()
    };
    let start = std::time::Instant::now();
    let cfg = hoist_verify::Config::default();
    let checked = match hoist_verify::optimize(&vp, &fp, &opts, Some(&cfg)) {
        Ok(c) => c,
        Err(e) => return Row::failed(&f.name, kind, "refused", e.to_string()),
    };
    let ms = start.elapsed().as_millis() as u64;
    let out = &checked.outcome;
    let (status, detail) = match &checked.status {
        hoist_verify::Status::Validated if checked.rejected.is_empty() => ("validated", None),
        hoist_verify::Status::Validated => (
            "rejected",
            Some(
                checked
                    .rejected
                    .iter()
                    .map(|r| r.failure.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        ),
        s @ hoist_verify::Status::Unchanged { .. } => ("unchanged", Some(s.describe())),
        s => ("unvalidated", Some(s.describe())),
    };
    Row {
        name: f.name.clone(),
        kind,
        dialect: Some(format!("{}+{}", vp.profile, fp.profile)),
        status,
        detail,
        before: Some(Figures::of(&out.before)),
        after: Some(Figures::of(&out.after)),
        proven_optimal: out
            .rules
            .iter()
            .find(|r| r.rule == out.chosen)
            .map(|r| r.proven_optimal),
        rejected_groups: checked.rejected.len() as u32,
        ms,
    }
}

/// What the report adds up.
#[derive(Debug, Default, Serialize)]
struct Summary {
    totals: Totals,
    helped: u32,
    hurt: u32,
    unchanged: u32,
    /// Per figure: [helped, hurt].
    per_metric: Vec<(String, [u32; 2])>,
    /// Pairs per status.
    counts: Vec<(String, u32)>,
    failures: Vec<Failure>,
}

#[derive(Debug, Default, Serialize)]
struct Totals {
    pairs: u32,
    with_results: u32,
    before: Figures,
    after: Figures,
}

#[derive(Debug, Serialize)]
struct Failure {
    name: String,
    status: &'static str,
    detail: String,
}

const STATUSES: [&str; 7] = [
    "validated",
    "rejected",
    "unchanged",
    "unvalidated",
    "refused",
    "error",
    "skipped",
];

impl Summary {
    fn of(rows: &[Row]) -> Summary {
        let mut s = Summary {
            per_metric: METRICS.iter().map(|m| (m.to_string(), [0; 2])).collect(),
            counts: STATUSES.iter().map(|k| (k.to_string(), 0)).collect(),
            ..Summary::default()
        };
        s.totals.pairs = rows.len() as u32;
        for r in rows {
            if let Some(c) = s.counts.iter_mut().find(|(k, _)| k == r.status) {
                c.1 += 1;
            }
            if r.status != "validated" {
                s.failures.push(Failure {
                    name: r.name.clone(),
                    status: r.status,
                    detail: r.detail.clone().unwrap_or_default(),
                });
            }
            let (Some(b), Some(a), Some(d)) = (r.before, r.after, r.delta()) else {
                continue;
            };
            s.totals.with_results += 1;
            s.totals.before.add(&b);
            s.totals.after.add(&a);
            match d[0].signum() {
                -1 => s.helped += 1,
                1 => s.hurt += 1,
                _ => s.unchanged += 1,
            }
            for (k, m) in s.per_metric.iter_mut().enumerate() {
                match d[k].signum() {
                    -1 => m.1[0] += 1,
                    1 => m.1[1] += 1,
                    _ => {}
                }
            }
        }
        s
    }
}

#[derive(Serialize)]
struct Json<'a> {
    pairs: &'a [Row],
    #[serde(flatten)]
    summary: &'a Summary,
}

fn percent(b: u64, a: u64) -> String {
    if b == 0 {
        return "n/a".into();
    }
    format!("{:+.2}%", 100.0 * (a as f64 - b as f64) / b as f64)
}

/// The text report: totals, helped/hurt, failures, worst cases, the per-pair table.
fn text_report(rows: &[Row], s: &Summary, worst: usize) -> String {
    let mut o = String::new();
    let t = &s.totals;
    o += &format!(
        "{} pairs, {} with results\n\ntotals (before -> after):\n",
        t.pairs, t.with_results
    );
    let (b, a) = (t.before.values(), t.after.values());
    for (k, (name, [h, u])) in s.per_metric.iter().enumerate() {
        o += &format!(
            "  {name:<24} {:>8} -> {:<8} {:>9}   helped {h}, hurt {u}\n",
            b[k],
            a[k],
            percent(b[k], a[k])
        );
    }
    o += &format!(
        "\nby fragment slots: {} helped, {} hurt, {} unchanged\n",
        s.helped, s.hurt, s.unchanged
    );
    let counts: Vec<String> = s
        .counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    o += &format!("status: {}\n", counts.join(", "));
    if !s.failures.is_empty() {
        o += &format!("\nnot validated ({}):\n", s.failures.len());
        for f in &s.failures {
            o += &format!("  {:<11} {}: {}\n", f.status, f.name, f.detail);
        }
    }
    o += &worst_cases(rows, worst);
    o += "\npairs:\n";
    let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(4);
    o += &format!(
        "  {:<w$} {:>11} {:>11} {:>9} {:>9} {:>9}  status\n",
        "name", "F", "V", "I", "temps F", "temps V"
    );
    for r in rows {
        o += &table_row(r, w);
    }
    o
}

fn table_row(r: &Row, w: usize) -> String {
    let cell = |k: usize| match (r.before, r.after) {
        (Some(b), Some(a)) => format!("{}->{}", b.values()[k], a.values()[k]),
        _ => "-".into(),
    };
    let proven = if r.proven_optimal == Some(true) {
        " (proven)"
    } else {
        ""
    };
    format!(
        "  {:<w$} {:>11} {:>11} {:>9} {:>9} {:>9}  {}{proven}\n",
        r.name,
        cell(0),
        cell(1),
        cell(2),
        cell(3),
        cell(4),
        r.status
    )
}

/// The pairs the change hurt most and helped most, by fragment, then vertex slots.
fn worst_cases(rows: &[Row], n: usize) -> String {
    let mut with: Vec<(&Row, [i64; 5])> = rows
        .iter()
        .filter_map(|r| r.delta().map(|d| (r, d)))
        .collect();
    let mut o = String::new();
    let w = with.iter().map(|(r, _)| r.name.len()).max().unwrap_or(4);
    let line = |(r, d): &(&Row, [i64; 5])| {
        format!("  {:<w$} F {:+} V {:+} I {:+}\n", r.name, d[0], d[1], d[2])
    };
    with.sort_by_key(|(r, d)| (std::cmp::Reverse((d[0], d[1], d[2])), r.name.clone()));
    let hurt: Vec<_> = with
        .iter()
        .filter(|(_, d)| d[..3] > [0, 0, 0][..])
        .take(n)
        .collect();
    o += &format!("\nworst cases (most hurt, {}):\n", hurt.len());
    for x in hurt {
        o += &line(x);
    }
    with.sort_by_key(|(r, d)| ((d[0], d[1], d[2]), r.name.clone()));
    o += &format!("\nmost helped ({}):\n", with.len().min(n));
    for x in with.iter().filter(|(_, d)| d[0] < 0).take(n) {
        o += &line(x);
    }
    o
}

/// One CSV row per pair (RFC 4180 quoting).
fn csv(rows: &[Row]) -> String {
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut o = String::from(
        "name,kind,dialect,status,fp_slots_before,fp_slots_after,vp_slots_before,vp_slots_after,\
         interp_before,interp_after,fp_temps_before,fp_temps_after,vp_temps_before,vp_temps_after,\
         proven_optimal,rejected_groups\n",
    );
    for r in rows {
        let mut cells = vec![
            q(&r.name),
            r.kind.to_string(),
            q(r.dialect.as_deref().unwrap_or("")),
            r.status.to_string(),
        ];
        for k in 0..5 {
            for f in [r.before, r.after] {
                cells.push(f.map_or(String::new(), |f| f.values()[k].to_string()));
            }
        }
        cells.push(r.proven_optimal.map_or(String::new(), |p| p.to_string()));
        cells.push(r.rejected_groups.to_string());
        o += &cells.join(",");
        o.push('\n');
    }
    o
}

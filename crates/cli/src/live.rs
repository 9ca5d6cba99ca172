//! `hoist live FILE...`: the register liveness grid of each program (seed 002), as text or
//! JSON; with `--optimized` also of the pair after code motion, side by side in the output.
//!
//! Programs are parsed with the temp limit lifted, so a program over it is still shown
//! (marked OVER THE LIMIT against the profile's real limit).

use crate::util;
use hoist_asm::{ArbTarget, Program, Stage};
use hoist_opt::analysis::liveness::{Legend, Liveness};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  hoist live blur.psh\n  hoist live --legend rga kernel.fp\n  \
hoist live --optimized examples/paper/fig3.shader_test\n  hoist live --json a.vp a.fp\n  \
hoist live --schedule --json examples/pressure/listing-5-3.fp\n\n\
A FILE is a program of either stage and dialect, or a scene file (.shader_test: the pair it\n\
optimizes). Legend (thesis): - empty, l live, r read, w written, a read and written;\n\
(rga): . empty, : live, v read, ^ written, x both. `live` counts temporaries; `>` marks\n\
the first row at the peak.\n\n\
JSON (--json): an array with one object per program: `file`, `stage`, `profile`,\n\
`version` (original/optimized), `peak` (most temporaries live at one instruction),\n\
`peak_row` (1-based), `peak_components`, `limit` (the profile's temp limit), `over_limit`\n\
(the peak exceeds it), `declared` (temporaries as numbered, which the profile checks),\n\
`columns` (register names, four components each), `kinds` (temp/address/predicate/\n\
output), `rows` (per instruction: the grid row, four characters per register separated\n\
by spaces), `live` and `live_components` (per row),\n\
`insts` (per row: the printed instruction). With --schedule: `peak_after`,\n\
`peak_components_after` and `scheduled` (the same object for the scheduled program).\n\n\
Exit status: 0 on success, 1 when a program has errors, 2 on a usage error."
)]
pub struct Args {
    /// Program or scene files (`-` reads standard input)
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON array instead of text
    #[arg(long)]
    json: bool,
    /// Cell characters: thesis (CUDAvis) or rga (Radeon GPU Analyzer)
    #[arg(long, default_value = "thesis", value_parser = ["thesis", "rga"])]
    legend: String,
    /// Also show the pair after code motion (a scene file, or one vertex and one fragment
    /// program among the files)
    #[arg(long)]
    optimized: bool,
    /// Also show each program after pressure-minimising scheduling (`peak_after` in JSON)
    #[arg(long)]
    schedule: bool,
    /// Make a program over its temp limit fit (renumbering, scheduling or
    /// rematerialization, in that order) and show the result and which one did it
    #[arg(long)]
    fit: bool,
    /// Invocations that price rematerialization under --fit (fragments or vertices)
    #[arg(long, default_value_t = 65536.0)]
    invocations: f64,
    #[arg(long, value_parser = util::parse_target, help = util::TARGET_HELP)]
    target: Option<ArbTarget>,
}

/// One program to show.
struct Entry {
    file: String,
    version: &'static str,
    program: Program,
}

#[derive(Serialize)]
struct LiveJson {
    file: String,
    stage: &'static str,
    profile: String,
    version: &'static str,
    peak: u32,
    peak_row: Option<usize>,
    peak_components: u32,
    limit: u16,
    over_limit: bool,
    declared: u16,
    columns: Vec<String>,
    kinds: Vec<&'static str>,
    rows: Vec<String>,
    live: Vec<u32>,
    live_components: Vec<u32>,
    insts: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_after: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_components_after: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scheduled: Option<Box<LiveJson>>,
}

pub fn run(args: Args) -> u8 {
    run_checked(&args).unwrap_or_else(|code| code)
}

fn run_checked(args: &Args) -> Result<u8, u8> {
    let legend = Legend::from_name(&args.legend).unwrap_or_default();
    let target = args.target.unwrap_or_default();
    let mut entries = Vec::new();
    let mut failed = false;
    for path in &args.files {
        match load(path, args.target) {
            Ok(mut e) => entries.append(&mut e),
            Err(2) => return Err(2),
            Err(_) => failed = true,
        }
    }
    if args.optimized && !failed {
        entries = with_optimized(entries, target)?;
    }
    let mut notes = Vec::new();
    if args.fit {
        entries = fitted(entries, target, args.invocations, &mut notes);
    }
    let out = if args.json {
        let all: Vec<LiveJson> = entries
            .iter()
            .map(|e| {
                let mut j = json(&e.program, &e.file, e.version, target);
                if args.schedule {
                    let s = json(&scheduled(&e.program, target), &e.file, "scheduled", target);
                    j.peak_after = Some(s.peak);
                    j.peak_components_after = Some(s.peak_components);
                    j.scheduled = Some(Box::new(s));
                }
                j
            })
            .collect();
        serde_json::to_string_pretty(&all).unwrap_or_default() + "\n"
    } else {
        let mut s = String::new();
        for e in &entries {
            let l = Liveness::compute(&e.program, limit(&e.program, target));
            s.push_str(&format!(
                "== {} ({} program, {}, {})\n{}\n",
                e.file,
                stage_name(e.program.stage()),
                e.program.profile,
                e.version,
                l.listing(&e.program, legend)
            ));
            if args.schedule {
                let q = scheduled(&e.program, target);
                let after = Liveness::compute(&q, limit(&q, target));
                let note = if q.insts == e.program.insts {
                    "no order with a lower peak"
                } else {
                    "reordered"
                };
                s.push_str(&format!(
                    "-- scheduled ({note}): peak {} -> {} temporaries, {} -> {} components\n{}\n",
                    l.peak,
                    after.peak,
                    l.peak_components,
                    after.peak_components,
                    after.listing(&q, legend)
                ));
            }
        }
        s
    };
    util::write_stdout(&out);
    for n in &notes {
        eprintln!("{n}");
    }
    Ok(u8::from(failed))
}

fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}

fn kind(f: hoist_asm::RegFile) -> &'static str {
    match f {
        hoist_asm::RegFile::Temp => "temp",
        hoist_asm::RegFile::Address => "address",
        hoist_asm::RegFile::Predicate => "predicate",
        _ => "output",
    }
}

fn limit(p: &Program, target: ArbTarget) -> u16 {
    p.profile.limits_for(target).temps
}

/// Each entry over its temp limit followed by its fitted version, with a note per entry.
fn fitted(entries: Vec<Entry>, target: ArbTarget, inv: f64, notes: &mut Vec<String>) -> Vec<Entry> {
    let mut out = Vec::new();
    for e in entries {
        let limits = e.program.profile.limits_for(target);
        let mut t = hoist_opt::tracked::Tracked::new(e.program.clone());
        let fit = hoist_opt::passes::fit::run(&mut t, &limits, inv);
        let file = e.file.clone();
        out.push(e);
        match fit {
            Ok(None) => {}
            Ok(Some(how)) => {
                notes.push(format!("{file}: fits its temp limit: {}", how.describe()));
                out.push(Entry {
                    file,
                    version: "fitted",
                    program: t.program,
                });
            }
            Err(()) => notes.push(format!(
                "{file}: over its temp limit of {}, and no renumbering, schedule or \
                 rematerialization found makes it fit",
                limits.temps
            )),
        }
    }
    out
}

/// `p` after the scheduling pass under its profile's limits (`p` itself when no order
/// lowers its peak).
fn scheduled(p: &Program, target: ArbTarget) -> Program {
    let mut t = hoist_opt::tracked::Tracked::new(p.clone());
    let mut limits = p.profile.limits_for(target);
    limits.temps = u16::MAX;
    hoist_opt::passes::schedule::run(&mut t, &limits);
    t.program
}

fn json(p: &Program, file: &str, version: &'static str, target: ArbTarget) -> LiveJson {
    let l = Liveness::compute(p, limit(p, target));
    let (text, lines) = hoist_asm::print_with_lines(p);
    let printed: Vec<&str> = text.lines().collect();
    LiveJson {
        file: file.to_string(),
        stage: stage_name(p.stage()),
        profile: p.profile.to_string(),
        version,
        peak: l.peak,
        peak_row: l.peak_row.map(|r| r + 1),
        peak_components: l.peak_components,
        limit: l.limit,
        over_limit: l.over_limit(),
        declared: l.declared,
        columns: l.names.clone(),
        kinds: l.regs.iter().map(|r| kind(r.file)).collect(),
        rows: (0..l.rows())
            .map(|r| l.row_text(r, Legend::default()))
            .collect(),
        live: l.temps.clone(),
        live_components: l.components.clone(),
        insts: lines
            .iter()
            .map(|&k| printed.get(k).map_or("", |s| s.trim()).to_string())
            .collect(),
        peak_after: None,
        peak_components_after: None,
        scheduled: None,
    }
}

/// The programs of a file: one program, or the pair a scene optimizes.
fn load(path: &Path, target: Option<ArbTarget>) -> Result<Vec<Entry>, u8> {
    let source = util::read_source(path).map_err(|e| {
        util::error(e);
        2u8
    })?;
    let name = path.display().to_string();
    if hoist_asm::detect_profile(&source).is_none() {
        return load_scene(&name, &source);
    }
    let mut opts = util::target_options(&source, &name, None, target);
    if let Some(l) = &mut opts.limits {
        l.temps = u16::MAX;
    }
    let program = util::parse_program(&source, &name, &opts)?;
    Ok(vec![Entry {
        file: name,
        version: "original",
        program,
    }])
}

fn load_scene(name: &str, source: &str) -> Result<Vec<Entry>, u8> {
    let (_, pair) = util::scene_pair(
        &format!("{name}: not a program (no header) nor a scene"),
        source,
    )?;
    let entries: Vec<Entry> = [pair.vertex, pair.fragment]
        .into_iter()
        .flatten()
        .map(|p| Entry {
            file: name.to_string(),
            version: "original",
            program: p.program,
        })
        .collect();
    if entries.is_empty() {
        util::error(format!("{name}: the scene has no programs"));
        return Err(1);
    }
    Ok(entries)
}

/// The entries with the optimized pair after each original pair (validated like `hoist
/// opt`).
fn with_optimized(entries: Vec<Entry>, target: ArbTarget) -> Result<Vec<Entry>, u8> {
    let vp = entries.iter().find(|e| e.program.stage() == Stage::Vertex);
    let fp = entries
        .iter()
        .find(|e| e.program.stage() == Stage::Fragment);
    let (Some(vp), Some(fp)) = (vp, fp) else {
        util::error("--optimized needs a vertex and a fragment program (or a scene with both)");
        return Err(2);
    };
    if entries.len() != 2 {
        util::error("--optimized takes one pair: a scene, or one vertex and one fragment program");
        return Err(2);
    }
    let opts = hoist_opt::Options {
        vp_limits: Some(vp.program.profile.limits_for(target)),
        fp_limits: Some(fp.program.profile.limits_for(target)),
        ..hoist_opt::Options::default()
    };
    let cfg = hoist_verify::Config::default();
    let checked =
        hoist_verify::optimize(&vp.program, &fp.program, &opts, Some(&cfg)).map_err(|e| {
            util::error(e);
            1u8
        })?;
    let o = checked.outcome;
    let extra = [(vp.file.clone(), o.vp), (fp.file.clone(), o.fp)];
    let mut out = entries;
    for (file, program) in extra {
        out.push(Entry {
            file,
            version: "optimized",
            program,
        });
    }
    Ok(out)
}

//! `hoist stats --target r600|r700 FILE...`: what each program becomes on an R600-family
//! VLIW-5 GPU (seed 004): a ShaderAnalyzer-like report (ALU groups and slot use, fetches and
//! component use, ALU:fetch ratio, GPRs and wavefronts, clauses, estimated cycles and the
//! bottleneck) and the bundled listing with slot letters. A file is a vertex or fragment
//! program of either dialect, or a scene (both programs of the pair it optimizes);
//! `--optimized` adds the validated code-motion result of a scene's pair. `--json` prints
//! one array with an object per program, for scripts.

use crate::util;
use hoist_asm::{Program, Stage};
use hoist_opt::r600::{self, Chip, Stats};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  hoist stats examples/r600/matmul-naive.shader_test\n  \
hoist stats --target r700 --json prog.fp\n  hoist stats --optimized examples/paper/fig3.shader_test\n\n\
Exit status: 0 on success, 1 when a program does not parse, 2 on a usage error or an \
unreadable file."
)]
pub struct Args {
    /// Programs (.vp/.fp/.vs/.ps, either dialect) or scene files (.shader_test)
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The machine: r600 (RV670, Radeon HD 3870) or r700 (RV770)
    #[arg(long, default_value = "r600", value_parser = parse_chip)]
    target: Chip,
    /// Print one JSON array, an object per program
    #[arg(long)]
    json: bool,
    /// For a scene: also the pair after validated code motion (fragment → vertex)
    #[arg(long)]
    optimized: bool,
    /// Only the figures, no listing
    #[arg(long)]
    no_listing: bool,
}

fn parse_chip(s: &str) -> Result<Chip, String> {
    Chip::from_id(s).ok_or_else(|| format!("unknown target `{s}` (expected r600 or r700)"))
}

/// One program's figures, as `--json` prints them.
#[derive(Serialize)]
struct Entry {
    file: String,
    stage: &'static str,
    version: &'static str,
    profile: String,
    target: Chip,
    #[serde(flatten)]
    stats: Stats,
    notes: Vec<String>,
    listing: String,
}

fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}

fn entry(file: &str, version: &'static str, p: &Program, chip: Chip) -> (Entry, r600::Machine) {
    let m = r600::compile(p, chip);
    let e = Entry {
        file: file.to_string(),
        stage: stage_name(p.stage()),
        version,
        profile: p.profile.to_string(),
        target: chip,
        stats: m.stats.clone(),
        notes: m.notes.clone(),
        listing: r600::stats::listing(&m),
    };
    (e, m)
}

fn load_program(path: &Path, source: &str) -> Result<Program, u8> {
    let name = path.display().to_string();
    util::parse_program(
        source,
        &name,
        &util::target_options(source, &name, None, None),
    )
}

/// The programs of one file: (version, program).
fn programs(path: &Path, optimized: bool) -> Result<Vec<(&'static str, Program)>, u8> {
    let text = util::read_source(path).map_err(|e| {
        util::error(e);
        2
    })?;
    let is_scene = path.extension().is_some_and(|e| e == "shader_test")
        || text.trim_start().starts_with("[require]");
    if !is_scene {
        if optimized {
            eprintln!(
                "warning: --optimized needs a scene (a vertex/fragment pair); {} is one program",
                path.display()
            );
        }
        return Ok(vec![("original", load_program(path, &text)?)]);
    }
    let (_, pair) = util::scene_pair(&path.display().to_string(), &text)?;
    let mut out: Vec<(&'static str, Program)> = Vec::new();
    out.extend(
        pair.vertex
            .as_ref()
            .map(|v| ("original", v.program.clone())),
    );
    out.extend(
        pair.fragment
            .as_ref()
            .map(|f| ("original", f.program.clone())),
    );
    if out.is_empty() {
        util::error(format!("{}: the scene has no program", path.display()));
        return Err(1);
    }
    if optimized {
        let (Some(v), Some(f)) = (pair.vertex, pair.fragment) else {
            util::error(format!(
                "{}: --optimized needs a vertex and a fragment program",
                path.display()
            ));
            return Err(1);
        };
        let opts = hoist_opt::Options::default();
        let cfg = hoist_verify::Config::default();
        let res =
            hoist_verify::optimize(&v.program, &f.program, &opts, Some(&cfg)).map_err(|e| {
                util::error(format!("{}: {e}", path.display()));
                1u8
            })?;
        out.push(("optimized", res.outcome.vp.clone()));
        out.push(("optimized", res.outcome.fp.clone()));
    }
    Ok(out)
}

fn text(e: &Entry, m: &r600::Machine, listing: bool) -> String {
    let mut s = format!(
        "== {} — {} program ({}, {}), {}\n",
        e.file, e.stage, e.profile, e.version, e.target
    );
    s.push_str(&r600::stats::report(m));
    if listing {
        s.push('\n');
        s.push_str(&e.listing);
    }
    s
}

pub fn run(args: Args) -> u8 {
    let mut entries = Vec::new();
    let mut out = String::new();
    for path in &args.files {
        let progs = match programs(path, args.optimized) {
            Ok(p) => p,
            Err(code) => return code,
        };
        let file = path.display().to_string();
        for (version, p) in progs {
            let (e, m) = entry(&file, version, &p, args.target);
            if !args.json {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&text(&e, &m, !args.no_listing));
            }
            entries.push(e);
        }
    }
    if args.json {
        out = serde_json::to_string_pretty(&entries).unwrap_or_default();
        out.push('\n');
    }
    util::write_stdout(&out);
    0
}

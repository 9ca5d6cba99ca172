//! `hoist opt`: move fragment work to the vertex program and report what happened.

use crate::util;
use hoist_asm::{ArbTarget, Program, Stage};
use hoist_opt::annotate::{self, FateNote, SourceLines, annotate};
use hoist_opt::{CostModel, Fate, Options, Outcome, Selection};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  hoist opt --vp conv.vsh --fp conv.psh\n  \
hoist opt --vp gauss.vp --fp gauss.fp --mirror-params --json\n  \
hoist opt --vp a.vsh --fp a.psh --steps 3 --out-vp a2.vsh --out-fp a2.psh\n  \
hoist opt examples/paper/fig3.shader_test   (optimizes, then runs the scene both ways)\n\n\
Annotations: `->` moved from the fragment program, `+` added, `*` an operand changed.\n\n\
JSON (--json): one object with `vp`/`fp` (optimized text), `vp_lines`/`fp_lines` (per printed\n\
instruction: `prov` = original/moved/added with the source instruction index, `changed` bit\n\
0 = destination, bit k+1 = source k), `fates` (per original fragment instruction: `line`,\n\
`text`, `fate` = moved/stays, `reason`, `condition`), `before`/`after` statistics (slots,\n\
temporaries, interpolator components and registers), `rules` (greedy and optimal results),\n\
`groups`, `mirrors` (parameters the host must set: a vertex copy of a fragment parameter,\n\
or with `to_fragment` a fragment copy of a vertex one), `transports`, `notes`,\n\
`slp_merges` ([vertex, fragment] merges of --slp) and `varyings` (`before`/`after`: per\n\
interpolator component the fragment program reads, its `semantic`, `comp`, `class`,\n\
`carries` = input (an original interpolant) or moved (a transported result) and `source`\n\
in words; `changes`: per varying pass what it did or refused, with why).\n\n\
Exit status: 0 on success, 1 when a program has errors, 2 on a usage error.")]
pub struct Args {
    /// A scene file (piglit shader_runner format): optimize its `[hoist] optimize` pair, then
    /// run the scene with the original and the optimized pair and compare every target
    #[arg(conflicts_with_all = ["vp", "fp", "wgsl", "glsl_vs"], required_unless_present_any = ["vp", "wgsl", "glsl_vs"])]
    scene: Option<PathBuf>,
    #[command(flatten)]
    source: crate::compile::Source,
    /// Vertex program
    #[arg(long, requires = "fp")]
    vp: Option<PathBuf>,
    /// Fragment program
    #[arg(long, requires = "vp")]
    fp: Option<PathBuf>,
    /// Write the optimized vertex program here instead of printing it
    #[arg(long)]
    out_vp: Option<PathBuf>,
    /// Write the optimized fragment program here instead of printing it
    #[arg(long)]
    out_fp: Option<PathBuf>,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Cost model: paper (fragment slots), modern (interpolation costs ALU too), or r600 /
    /// r700 (estimated cycles on an R600-family GPU, see `hoist stats`)
    #[arg(long, default_value = "paper", value_parser = ["paper", "modern", "r600", "r700"])]
    cost: String,
    /// Modern model: fragment slots per interpolated component
    #[arg(long, default_value_t = 0.5)]
    interp_cost: f64,
    /// Modern and R600 models: render size the per-vertex cost is amortised over
    #[arg(long, default_value = "256x256")]
    size: String,
    /// Selection rule whose result is printed
    #[arg(long, default_value = "optimal", value_parser = ["greedy", "optimal", "exhaustive"])]
    selection: String,
    /// Move instructions that read host-set fragment parameters (the host must then set
    /// the vertex copies listed in the report). On by default for pairs compiled from
    /// GLSL or WGSL (--wgsl, --glsl-vs/--glsl-fs, scenes with shader sections): their
    /// uniforms are the host's, set for both stages
    #[arg(long)]
    mirror_params: bool,
    /// Apply only the first K movable groups
    #[arg(long)]
    steps: Option<usize>,
    /// Do not swap operands to unlock motion
    #[arg(long)]
    no_commute: bool,
    /// Do not emulate fragment-only ops in the vertex program
    #[arg(long)]
    no_lower: bool,
    /// Keep the moved vertex code as the paper writes it (explicit copies to outputs)
    #[arg(long)]
    no_vp_cleanup: bool,
    /// Do not run the varying passes (dead, constant, uniform-expression and duplicate
    /// interpolants) and keep every existing interpolant where it is when packing
    #[arg(long)]
    no_varyings: bool,
    /// Pack independent same-opcode instructions with disjoint write masks into vector
    /// instructions (SLP) in both optimized programs
    #[arg(long)]
    slp: bool,
    /// Reorder both optimized programs to lower their peak register pressure
    #[arg(long)]
    schedule: bool,
    /// Make a program over its temp limit fit (renumbering, scheduling or
    /// rematerialization) instead of dropping the groups that overflow it
    #[arg(long)]
    fit: bool,
    /// The R600-motivated peepholes in both optimized programs: MUL + ADD → MAD, sums of
    /// products → DP3/DP4, a repeated texture fetch → MOV
    #[arg(long)]
    peepholes: bool,
    #[arg(long, value_parser = util::parse_target, help = util::TARGET_HELP)]
    target: Option<ArbTarget>,
    /// Override the vertex instruction-slot limit
    #[arg(long)]
    vp_slots: Option<u32>,
    /// Override the fragment instruction-slot limit
    #[arg(long)]
    fp_slots: Option<u32>,
    /// Override the number of texture-coordinate interpolators
    #[arg(long)]
    texcoords: Option<u8>,
    /// Override the number of vertex temporaries
    #[arg(long)]
    vp_temps: Option<u16>,
    /// Return the optimizer's result without translation validation (for speed
    /// experiments; the result is then not known to be equivalent)
    #[arg(long)]
    no_validate: bool,
}

fn load(
    path: &std::path::Path,
    target: Option<ArbTarget>,
    adjust: &dyn Fn(&mut hoist_asm::Limits),
) -> Result<(String, Program), u8> {
    let source = util::read_source(path).map_err(|e| {
        util::error(e);
        2
    })?;
    let name = path.display().to_string();
    // Parse under the limits the optimizer will use, so overrides apply to the input too.
    let mut opts = util::target_options(&source, &name, None, target);
    if let Some(l) = &mut opts.limits {
        adjust(l);
    }
    let mut parsed = hoist_asm::parse(&source, &opts);
    util::hint_target(
        &mut parsed.diagnostics,
        &source,
        None,
        target.unwrap_or_default(),
    );
    if !parsed.diagnostics.is_empty() {
        eprint!(
            "{}",
            hoist_asm::diag::render(&parsed.diagnostics, &name, &source, util::stderr_color())
        );
    }
    match parsed.into_result() {
        Ok(p) => Ok((source, p)),
        Err(_) => Err(1),
    }
}

/// `writeln!` into a `String` (formatting into memory cannot fail).
macro_rules! outln {
    ($o:expr) => { $o.push('\n') };
    ($o:expr, $($a:tt)*) => {{ $o.push_str(&format!($($a)*)); $o.push('\n'); }};
}

fn parse_size(s: &str) -> Option<(f64, f64)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
}

#[derive(Serialize)]
struct FateJson {
    index: usize,
    line: u32,
    text: String,
    fate: &'static str,
    condition: Option<String>,
    reason: Option<String>,
    group: Option<usize>,
}

#[derive(Serialize)]
struct Json<'a> {
    vp: String,
    fp: String,
    #[serde(flatten)]
    outcome: &'a Outcome,
    validation: Validation<'a>,
    fates_explained: Vec<FateJson>,
}

#[derive(Serialize)]
struct Validation<'a> {
    #[serde(flatten)]
    status: &'a hoist_verify::Status,
    report: &'a Option<hoist_verify::Report>,
    rejected: &'a [hoist_verify::Rejection],
    rounds: u32,
}

pub fn run(mut args: Args) -> u8 {
    if args.source.given() {
        match args.source.to_files(args.target) {
            Ok((vp, fp)) => {
                args.vp = Some(vp);
                args.fp = Some(fp);
            }
            Err(code) => return code,
        }
        // A compiled pair's uniforms are the host's, set for both stages.
        args.mirror_params = true;
    }
    if let Some(path) = &args.scene
        && std::fs::read_to_string(path).is_ok_and(|t| hoist_front::scene::has_sources(&t))
    {
        args.mirror_params = true;
    }
    run_checked(&args).unwrap_or_else(|code| code)
}

/// The pair to optimize and where its fragment program's text starts.
struct Input {
    scene: Option<hoist_raster::scene::Scene>,
    vp: Program,
    fp: Program,
    fp_src: String,
    fp_first_line: u32,
}

/// The limit overrides of the command line, per stage.
fn adjust(args: &Args, l: &mut hoist_asm::Limits, vertex: bool) {
    if vertex {
        if let Some(n) = args.vp_slots {
            l.max_slots = n;
        }
        if let Some(n) = args.vp_temps {
            l.temps = n;
        }
    } else if let Some(n) = args.fp_slots {
        l.max_slots = n;
        l.max_alu_slots = l.max_alu_slots.map(|a| a.max(n));
        l.max_tex_slots = l.max_tex_slots.map(|t| t.max(n));
    }
    if let Some(n) = args.texcoords {
        l.texcoords = n;
    }
}

fn input(args: &Args) -> Result<Input, u8> {
    match (&args.scene, &args.vp, &args.fp) {
        (Some(path), _, _) => {
            let (sc, v, f, line) = load_scene(path)?;
            let name = path.display().to_string();
            util::warn_if_d3d9(args.target, Some(f.program.profile), &name);
            Ok(Input {
                scene: Some(sc),
                vp: v.program,
                fp: f.program,
                fp_src: f.source,
                fp_first_line: line,
            })
        }
        (None, Some(vpath), Some(fpath)) => {
            let (_, vp) = load(vpath, args.target, &|l| adjust(args, l, true))?;
            let (fp_src, fp) = load(fpath, args.target, &|l| adjust(args, l, false))?;
            Ok(Input {
                scene: None,
                vp,
                fp,
                fp_src,
                fp_first_line: 1,
            })
        }
        _ => {
            util::error("give a scene file or both --vp and --fp");
            Err(2)
        }
    }
}

/// The options `hoist opt --vp F --fp F [--target T]` optimizes with: every other flag at
/// its default (for `hoist debug --optimized`).
pub(crate) fn default_options(vp: &Program, fp: &Program, target: Option<ArbTarget>) -> Options {
    #[derive(clap::Parser)]
    struct Defaults {
        #[command(flatten)]
        args: Args,
    }
    let parsed = <Defaults as clap::Parser>::try_parse_from(["hoist", "--vp", "-", "--fp", "-"]);
    match parsed {
        Ok(mut d) => {
            d.args.target = target;
            options(&d.args, vp, fp).unwrap_or_default()
        }
        Err(_) => Options::default(),
    }
}

fn options(args: &Args, vp: &Program, fp: &Program) -> Result<Options, u8> {
    let Some((w, h)) = parse_size(&args.size) else {
        util::error(format!("bad --size `{}` (expected WxH)", args.size));
        return Err(2);
    };
    let target = args.target.unwrap_or_default();
    let mut vl = vp.profile.limits_for(target);
    let mut fl = fp.profile.limits_for(target);
    adjust(args, &mut vl, true);
    adjust(args, &mut fl, false);
    Ok(Options {
        vp_limits: Some(vl),
        fp_limits: Some(fl),
        cost: match args.cost.as_str() {
            "modern" => CostModel::Modern {
                interp_cost: args.interp_cost,
                vertices: 4.0,
                fragments: w * h,
            },
            chip @ ("r600" | "r700") => CostModel::R600 {
                chip: hoist_opt::r600::Chip::from_id(chip).unwrap_or_default(),
                vertices: 4.0,
                fragments: w * h,
            },
            _ => CostModel::Paper,
        },
        selection: match args.selection.as_str() {
            "greedy" => Selection::Greedy,
            "exhaustive" => Selection::Exhaustive,
            _ => Selection::Optimal,
        },
        mirror_params: args.mirror_params,
        steps: args.steps,
        commute: !args.no_commute,
        lower: !args.no_lower,
        vp_cleanup: !args.no_vp_cleanup,
        varyings: !args.no_varyings,
        slp: args.slp,
        schedule: args.schedule,
        fit: args.fit,
        peepholes: if args.peepholes {
            hoist_opt::Peepholes::ALL
        } else {
            hoist_opt::Peepholes::default()
        },
        ..Options::default()
    })
}

/// Per original fragment instruction: its line, text and fate (for `--json`).
fn explain(notes: &[FateNote]) -> Vec<FateJson> {
    notes
        .iter()
        .map(|n| FateJson {
            index: n.index,
            line: n.line,
            text: n.text.clone(),
            fate: match n.fate {
                Fate::Moved { .. } => "moved",
                Fate::Stays { .. } => "stays",
            },
            condition: n.condition.clone(),
            reason: n.reason.clone(),
            group: match n.fate {
                Fate::Moved { group } => group,
                Fate::Stays { .. } => None,
            },
        })
        .collect()
}

/// The human-readable report.
fn report(
    args: &Args,
    checked: &hoist_verify::Validated,
    fates: &[FateNote],
    fp_lines: &SourceLines,
) -> String {
    let res = &checked.outcome;
    let mut out = String::new();
    let b = &res.before;
    let a = &res.after;
    outln!(
        out,
        "fragment program: {} -> {} slots ({:.0}% fewer); vertex program: {} -> {} slots",
        b.fp_slots.total(),
        a.fp_slots.total(),
        res.fp_reduction(),
        b.vp_slots.total(),
        a.vp_slots.total()
    );
    outln!(
        out,
        "interpolators: {} -> {} components in {} -> {} of {} registers",
        b.interp_components,
        a.interp_components,
        b.interp_registers,
        a.interp_registers,
        a.interp_available
    );
    if args.slp {
        let [v, f] = res.slp_merges;
        outln!(
            out,
            "vector packing (--slp): {f} fragment and {v} vertex instruction(s) merged away"
        );
    }
    for r in &res.rules {
        outln!(
            out,
            "  {}: F {} V {} interpolated components {}{} ({} evaluations)",
            r.rule,
            r.fp_slots,
            r.vp_slots,
            r.interp_components,
            if r.proven_optimal {
                ", proven optimal"
            } else {
                ""
            },
            r.evaluations
        );
    }
    outln!(out, "\nfragment instructions:");
    for f in fates {
        outln!(out, "  {:>4}  {:<32} {}", f.line, f.text, f.summary());
    }
    for m in &res.mirrors {
        if m.to_fragment {
            outln!(
                out,
                "host: set fragment {:?} to the value of vertex {:?}",
                m.fragment,
                m.vertex
            );
        } else {
            outln!(
                out,
                "host: set vertex {:?} to the value of fragment {:?}",
                m.vertex,
                m.fragment
            );
        }
    }
    for c in &res.varyings.changes {
        let at = c
            .inst
            .map_or(String::new(), |i| format!(" (line {})", fp_lines.line(i)));
        let mark = if c.done { "" } else { "not done: " };
        let input = if c.input.is_empty() {
            String::new()
        } else {
            format!("{}{at}: ", c.input)
        };
        outln!(out, "{}: {input}{mark}{}", c.pass, c.what);
    }
    for n in &res.notes {
        outln!(out, "note: {n}");
    }
    outln!(out, "{}", validation_line(checked));
    for r in &checked.rejected {
        let lines: Vec<String> = r
            .instructions
            .iter()
            .map(|&i| fp_lines.line(i).to_string())
            .collect();
        outln!(
            out,
            "rejected by validation: lines {}: {}",
            lines.join(", "),
            r.failure
        );
    }
    if args.out_vp.is_none() {
        outln!(out, "\noptimized vertex program ({}):", res.vp.profile);
        out.push_str(&annotate(res, Stage::Vertex, fp_lines).listing());
    }
    if args.out_fp.is_none() {
        outln!(out, "\noptimized fragment program ({}):", res.fp.profile);
        out.push_str(&annotate(res, Stage::Fragment, fp_lines).listing());
    }
    out
}

fn run_checked(args: &Args) -> Result<u8, u8> {
    let Input {
        scene,
        vp,
        fp,
        fp_src,
        fp_first_line,
    } = input(args)?;
    let opts = options(args, &vp, &fp)?;
    let cfg = hoist_verify::Config::default();
    let checked = hoist_verify::optimize(&vp, &fp, &opts, (!args.no_validate).then_some(&cfg))
        .map_err(|e| {
            util::error(e);
            1u8
        })?;
    let res = &checked.outcome;
    let fp_lines = SourceLines::of(&fp, &fp_src, fp_first_line);
    let fates = annotate::fates(res, &fp, &fp_lines);
    let vp_text = hoist_asm::print(&res.vp);
    let fp_text = hoist_asm::print(&res.fp);
    let mut out = if args.json {
        let j = Json {
            vp: vp_text.clone(),
            fp: fp_text.clone(),
            outcome: res,
            validation: Validation {
                status: &checked.status,
                report: &checked.report,
                rejected: &checked.rejected,
                rounds: checked.rounds,
            },
            fates_explained: explain(&fates),
        };
        let mut s = serde_json::to_string_pretty(&j).map_err(|e| {
            util::error(e);
            1u8
        })?;
        s.push('\n');
        s
    } else {
        report(args, &checked, &fates, &fp_lines)
    };
    let mut status = 0;
    if let Some(sc) = scene {
        match compare_scene(sc, res) {
            Ok((text, same)) => {
                out.push_str(&text);
                if !same {
                    status = 1;
                }
            }
            Err(e) => {
                util::error(e);
                status = 1;
            }
        }
    }
    if !util::write_stdout(&out) {
        return Ok(status);
    }
    for (path, text) in [(&args.out_vp, &vp_text), (&args.out_fp, &fp_text)] {
        if let Some(p) = path
            && let Err(e) = std::fs::write(p, text)
        {
            util::error(format!("cannot write {}: {e}", p.display()));
            return Ok(2);
        }
    }
    Ok(status)
}

/// What translation validation checked, in one line.
fn validation_line(v: &hoist_verify::Validated) -> String {
    match (&v.status, &v.report) {
        (hoist_verify::Status::Validated, Some(r)) => {
            let mut s = format!(
                "validation: passed on {} input sets ({} vertices, {} transported values, {} fragments, {} pixels)",
                r.input_sets, r.vertices, r.values, r.fragments, r.pixels
            );
            if !r.textures.is_empty() {
                s.push_str(&format!("; textures {}", r.textures.join("; ")));
            }
            s
        }
        (s, _) => format!("validation: {}", s.describe()),
    }
}

type ScenePair = (
    hoist_raster::scene::Scene,
    hoist_raster::scene::SceneProgram,
    hoist_raster::scene::SceneProgram,
    u32,
);

/// Reads a scene and the pair it asks to optimize.
fn load_scene(path: &std::path::Path) -> Result<ScenePair, u8> {
    let text = util::read_source(path).map_err(|e| {
        util::error(e);
        2
    })?;
    let (sc, pair) = util::scene_pair(&path.display().to_string(), &text)?;
    let (Some(v), Some(f)) = (pair.vertex, pair.fragment) else {
        util::error(format!(
            "{}: the pair to optimize needs a vertex and a fragment program",
            path.display()
        ));
        return Err(1);
    };
    let line = f.line.max(1);
    Ok((sc, v, f, line))
}

/// Runs the scene with the original and with the optimized pair; returns the report and
/// whether every target came out equivalent (`hoist_verify::scene`).
fn compare_scene(sc: hoist_raster::scene::Scene, res: &Outcome) -> Result<(String, bool), String> {
    let opts = hoist_raster::scene::RunOptions::default();
    let before = hoist_raster::scene::run(&sc, &opts).map_err(|e| e.to_string())?;
    let opt = hoist_verify::scene::with_optimized(&sc, res);
    let after = hoist_raster::scene::run(&opt, &opts).map_err(|e| e.to_string())?;
    let mut text = String::from("\nscene check (original vs optimized):\n");
    let mut all = true;
    for (target, e) in hoist_verify::scene::compare(&before, &after) {
        let ok = e.holds();
        all &= ok;
        let images = [&before.targets[&target], &after.targets[&target]];
        let verdict = hoist_verify::verdict::agreement(&e.wording(), images);
        text.push_str(&format!("  {target}: {verdict}\n"));
    }
    text.push_str(&format!(
        "  probes: original {} passed, {} failed; optimized {} passed, {} failed\n",
        before.passed(),
        before.failed(),
        after.passed(),
        after.failed()
    ));
    Ok((text, all && after.failed() <= before.failed()))
}

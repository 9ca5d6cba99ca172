//! `hoist linear FILE | --paper NAME`: pack a linear expression y = A·x + b into 4-wide
//! instructions (seed 003) and print both costs with their parts, the grouping and the
//! method that found it; `--json` prints one object for scripts. FILE may also be a
//! straight-line ARB or Direct3D 9 program (told apart by its header): the system its
//! outputs (or `--register`) compute is recovered first (`linear::recover`) and printed
//! with the meaning of every variable.

use crate::util;
use hoist_opt::linear::anneal::Schedule;
use hoist_opt::linear::profile_cost::ProfileCost;
use hoist_opt::linear::recover::{self, Recovered, Rows};
use hoist_opt::linear::{self, SearchOptions, Solution, System, emit, paper};
use hoist_verify::linear::{Convergence, converge};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  hoist linear --paper fig13\n  hoist linear --paper gauss-seidel --json\n  hoist linear system.txt\n\n\
Paper systems: wave2d, runge-kutta, gauss-seidel, fig2, fig10, fig13, fig14.\n\
File format: one row per line, `col:coef` entries and an optional `b:coef`; directives\n\
`name NAME`, `repeat K`, `split lower` (Gauss-Seidel); `#` comments.\n\n\
Exit status: 0 on success, 1 when the file cannot be read, 2 on a usage error."
)]
pub struct Args {
    /// A system in the text format, or an ARB/D3D9 program (`-` reads standard input)
    #[arg(required_unless_present = "paper", conflicts_with = "paper")]
    file: Option<PathBuf>,
    /// One of the paper's systems instead of a file
    #[arg(long, value_parser = parse_paper)]
    paper: Option<String>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    /// For a program: recover the four components of this register (an ARB TEMP or
    /// OUTPUT name or binding, a D3D9 name such as r3) instead of every output
    #[arg(long, value_name = "NAME")]
    register: Option<String>,
    /// Print the programs as Direct3D 9 vs_3_0 instead of ARB
    #[arg(long)]
    d3d9: bool,
    /// The outputs are fixed registers: end the programs with the MOVs that write y back in
    /// the original order (they are counted either way)
    #[arg(long)]
    unpermute: bool,
    /// Iterate x ← A·x + b with the original and the packed code in the executor until the
    /// step is at most this (e.g. 1e-6), and compare both with the fixed point
    #[arg(long, value_name = "TOL")]
    converge: Option<f64>,
    /// Seed of the annealing's random numbers
    #[arg(long, default_value_t = SearchOptions::default().seed)]
    seed: u64,
    /// Branch-and-bound node budget (0: no exact search)
    #[arg(long, default_value_t = SearchOptions::default().exact_budget)]
    exact_budget: u64,
    /// Annealing runs from each starting point (0: no annealing, the seeds alone)
    #[arg(long, default_value_t = SearchOptions::default().restarts)]
    restarts: usize,
    /// Annealing moves per temperature step, per variable
    #[arg(long, default_value_t = Schedule::default().moves_per_var)]
    moves_per_var: usize,
    /// Annealing start temperature (in instructions)
    #[arg(long, default_value_t = Schedule::default().t0)]
    t0: f64,
    /// Annealing cooling factor per temperature step
    #[arg(long, default_value_t = Schedule::default().alpha)]
    alpha: f64,
}

fn parse_paper(s: &str) -> Result<String, String> {
    paper::case(s).map(|c| c.name.to_string()).ok_or_else(|| {
        format!(
            "unknown paper system `{s}` (expected one of: {})",
            paper::names().join(", ")
        )
    })
}

#[derive(Serialize)]
struct PaperNumbers {
    source: &'static str,
    cost_before: u32,
    cost_after: u32,
}

#[derive(Serialize)]
struct Report<'a> {
    name: &'a str,
    variables: usize,
    nonzeros: usize,
    scalar_ops: u64,
    cost_before: u32,
    cost_after: u32,
    lower_bound: u32,
    proven_optimal: bool,
    method: &'a str,
    groups: Vec<Vec<usize>>,
    parts_before: linear::Parts,
    parts_after: linear::Parts,
    candidates: &'a [linear::search::Candidate],
    paper: Option<PaperNumbers>,
    /// The instruction count on real profiles (`hoist_opt::linear::profile_cost`).
    cost_profile: CostProfile<'a>,
    program_before: Program,
    program_after: Program,
    /// With `--converge`: the iterations of the original and the packed code.
    #[serde(skip_serializing_if = "Option::is_none")]
    convergence: Option<Convergence>,
    /// For a program file: what the rows and the variables stand for.
    #[serde(skip_serializing_if = "Option::is_none")]
    recovered: Option<&'a Recovered>,
}

/// Iterations `--converge` runs at most.
const CONVERGE_MAX_STEPS: usize = 5000;

#[derive(Serialize)]
struct CostProfile<'a> {
    before: &'a [ProfileCost],
    after: &'a [ProfileCost],
}

/// An emitted ARB vertex-program body (x group J in `vertex.attrib[J]`, y group I in `yI`);
/// for a Gauss-Seidel system, one sweep in the grouping's order (`emit::arb_sweep`).
#[derive(Serialize)]
struct Program {
    instructions: usize,
    /// Instructions beyond the model's cost (see `hoist_opt::linear::emit`).
    extra: usize,
    /// Instructions the model counts that the code does without (a sweep's diagonal DP4s).
    saved: usize,
    /// Whether the code is a Gauss-Seidel sweep (groups in order, updated values read back).
    sweep: bool,
    /// MOVs writing y to fixed output registers in the original order, and how many of
    /// them exceed the one per output any order needs.
    unpermute_moves: usize,
    unpermute_extra: usize,
    text: String,
}

fn program(sys: &System, g: &linear::Grouping, d3d9: bool, fixed: bool) -> Program {
    let e = if d3d9 {
        emit::d3d9_sweep(sys, g)
    } else {
        emit::arb_sweep(sys, g)
    };
    let outputs: Vec<usize> = (0..sys.groups()).collect();
    let u = emit::unpermute(g, &outputs, d3d9);
    let mut text = e.body;
    if fixed {
        text += &u.text;
    }
    Program {
        instructions: e.instructions,
        extra: e.extra,
        saved: e.saved,
        sweep: sys.gauss_seidel(),
        unpermute_moves: u.moves,
        unpermute_extra: u.extra,
        text,
    }
}

fn load(args: &Args) -> Result<(System, Option<Recovered>), String> {
    if let Some(name) = &args.paper {
        let sys = paper::system(name).ok_or_else(|| format!("unknown paper system `{name}`"))?;
        return Ok((sys, None));
    }
    let path = args.file.as_ref().ok_or("no file given")?;
    let text = util::read_source(path)?;
    if hoist_asm::detect_profile(&text).is_some() {
        let rec = recover_program(&text, args.register.as_deref())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok((rec.system.clone(), Some(rec)));
    }
    if args.register.is_some() {
        return Err("--register applies to a program file, not to a system".into());
    }
    linear::parse(&text)
        .map(|s| (s, None))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn recover_program(text: &str, register: Option<&str>) -> Result<Recovered, String> {
    let parsed = hoist_asm::parse(text, &hoist_asm::ParseOptions::default());
    let diags = parsed.diagnostics.clone();
    let prog = parsed.into_result().map_err(|_| {
        diags
            .iter()
            .find(|d| d.is_error())
            .map(|d| {
                let at = d.position(text);
                format!("{}:{}: {}", at.line, at.col, d.message)
            })
            .unwrap_or_else(|| "the program does not parse".into())
    })?;
    let rows = match register {
        None => Rows::Outputs,
        Some(name) => Rows::Register(
            recover::register_named(&prog, name)
                .ok_or_else(|| format!("the program writes no register called `{name}`"))?,
        ),
    };
    recover::recover(&prog, text, rows).map_err(|e| e.to_string())
}

fn parts_line(p: &linear::Parts) -> String {
    let rep = if p.repeat > 1 {
        format!(", × {} evaluations", p.repeat)
    } else {
        String::new()
    };
    format!(
        "ΣC^T {} ({} column-major, {} row-major blocks) + ΣC^sum {}{rep} = {}",
        p.blocks, p.column_major_blocks, p.row_major_blocks, p.sums, p.total
    )
}

fn human(r: &Report, sol: &Solution) -> String {
    let mut s = String::new();
    if let Some(rec) = r.recovered {
        s += &format!(
            "recovered from the program: {} rows, {} variables ({} results of non-affine \
             instructions)\n",
            rec.rows.len(),
            rec.variables.len(),
            rec.nonlinear
        );
        s += &rec.describe();
        s += "variables:";
        for (c, v) in rec.variables.iter().enumerate() {
            s += &format!(" x{c}={}", v.name);
        }
        s += "\n\n";
    }
    s += &format!(
        "{}: {} variables, {} non-zeros, {} scalar operations\n",
        r.name, r.variables, r.nonzeros, r.scalar_ops
    );
    s += &format!("before: {}\n", parts_line(&sol.parts_before));
    s += &format!("after:  {}\n", parts_line(&sol.parts_after));
    let proof = if sol.proven_optimal {
        "optimal (proven)".to_string()
    } else {
        format!("{} above the bound", sol.cost_after - sol.lower_bound)
    };
    s += &format!(
        "lower bound {}: {proof}; found by {}\n",
        sol.lower_bound, sol.method
    );
    if let Some(p) = &r.paper {
        s += &format!(
            "paper ({}): {} → {}\n",
            p.source, p.cost_before, p.cost_after
        );
    }
    s += "on profiles (before → after, extra instructions beyond the model):\n";
    for (b, a) in sol.profiles_before.iter().zip(&sol.profiles_after) {
        s += &format!(
            "  {:<17} {:>4} → {:<4} (+{} → +{}): {}\n",
            a.profile, b.instructions, a.instructions, b.extra, a.extra, a.rule
        );
    }
    if let Some(c) = &r.convergence {
        let err = |e: Option<f64>| e.map_or("—".to_string(), |e| format!("{e:.1e}"));
        s += &format!(
            "iterated to a step ≤ {:e}: original {} steps (max|x − x*| {}), packed {} steps ({}); \
             max|x_original − x_packed| {:.1e}\n",
            c.tolerance,
            c.original.iterations,
            err(c.original_error),
            c.packed.iterations,
            err(c.packed_error),
            c.between
        );
        if let Some(j) = &c.jacobi {
            s += &format!(
                "  (Gauss-Seidel sweeps, each in its program's order; Jacobi takes {} steps ({}))\n",
                j.iterations,
                err(c.jacobi_error)
            );
        }
    }
    s += "groups:";
    for (i, g) in r.groups.iter().enumerate() {
        s += &format!(" {i}={g:?}");
    }
    s += "\nmethods:\n";
    for c in &sol.candidates {
        s += &format!("  {:>5}  {}\n", c.cost, c.method);
    }
    for (label, p) in [
        ("original", &r.program_before),
        ("packed", &r.program_after),
    ] {
        s += &format!(
            "\n# {label} program (x group J in attribute J, y group I in a temporary): \
             {} instructions, {} beyond the model{}; fixed outputs need {} un-permute MOVs \
             ({} beyond one per output)\n{}",
            p.instructions,
            p.extra,
            if p.sweep {
                format!(
                    ", {} it saves; one Gauss-Seidel sweep in this order, y group J < I read as updated values",
                    p.saved
                )
            } else {
                String::new()
            },
            p.unpermute_moves,
            p.unpermute_extra,
            p.text
        );
    }
    s
}

pub fn run(args: Args) -> u8 {
    let (sys, recovered) = match load(&args) {
        Ok(s) => s,
        Err(e) => {
            util::error(e);
            return 1;
        }
    };
    let opts = SearchOptions {
        seed: args.seed,
        exact_budget: args.exact_budget,
        restarts: args.restarts,
        schedule: Schedule {
            t0: args.t0,
            alpha: args.alpha.clamp(0.5, 0.9999),
            moves_per_var: args.moves_per_var,
            ..Schedule::default()
        },
    };
    let sol = linear::optimize(&sys, &opts);
    let convergence = match args.converge {
        None => None,
        Some(tol) if !(tol.is_finite() && tol > 0.0) => {
            util::error("--converge needs a positive tolerance");
            return 2;
        }
        Some(tol) => match converge(&sys, &sol.grouping, tol, CONVERGE_MAX_STEPS) {
            Ok(c) => Some(c),
            Err(e) => {
                util::error(e);
                return 1;
            }
        },
    };
    let report = Report {
        name: &sys.name,
        variables: sys.vars,
        nonzeros: sys.nnz(),
        scalar_ops: sys.scalar_ops(),
        cost_before: sol.cost_before,
        cost_after: sol.cost_after,
        lower_bound: sol.lower_bound,
        proven_optimal: sol.proven_optimal,
        method: &sol.method,
        groups: sol.grouping.groups(),
        parts_before: sol.parts_before,
        parts_after: sol.parts_after,
        candidates: &sol.candidates,
        paper: args
            .paper
            .as_deref()
            .and_then(paper::case)
            .map(|c| PaperNumbers {
                source: c.source,
                cost_before: c.before,
                cost_after: c.after,
            }),
        program_before: program(
            &sys,
            &linear::Grouping::identity(sys.m),
            args.d3d9,
            args.unpermute,
        ),
        program_after: program(&sys, &sol.grouping, args.d3d9, args.unpermute),
        recovered: recovered.as_ref(),
        convergence,
        cost_profile: CostProfile {
            before: &sol.profiles_before,
            after: &sol.profiles_after,
        },
    };
    let out = if args.json {
        serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
    } else {
        human(&report, &sol)
    };
    if util::write_stdout(&out) { 0 } else { 1 }
}

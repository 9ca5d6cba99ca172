//! `hoist`: check, run, render, optimize, debug and translate GPU vertex/fragment assembly
//! programs, and show their register liveness.
//!
//! One subcommand per module, each with a clap `Args` struct and a `run` function that
//! returns the process exit code. The libraries do the work; this crate only reads files,
//! parses options and prints.

mod check;
mod compile;
mod db;
mod debug;
mod linear;
mod live;
mod opt;
mod render;
mod run;
mod stats;
mod translate;
mod util;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hoist",
    version,
    about = "See and prove GPU shader-pipeline optimizations"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse programs and report diagnostics
    Check(check::Args),
    /// Compile a WGSL module or a GLSL pair to ARB or D3D9 assembly (through naga)
    Compile(compile::Args),
    /// Execute scene files (piglit shader_runner format) and check their probes
    Run(run::Args),
    /// Render a vertex/fragment program pair to an image (same options as arbref)
    Render(render::Args),
    /// Move fragment-program work to the vertex program
    Opt(opt::Args),
    /// Trace one pixel through both stages (vertices, interpolation, fragment), original or optimized
    Debug(debug::Args),
    /// Pack a linear expression y = A·x + b into 4-wide instructions (seed 003)
    Linear(linear::Args),
    /// Optimize every program pair in a directory tree and report totals (shader-db style)
    Db(db::Args),
    /// Register liveness per component: the grid, live temporaries per row, the peak (seed 002)
    Live(live::Args),
    /// What programs become on an R600-family VLIW-5 GPU: statistics and bundles (seed 004)
    Stats(stats::Args),
    /// Translate a program pair to WGSL (WebGPU) or GLSL ES 3.00 (WebGL2), with its bindings
    Translate(translate::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check(a) => check::run(a),
        Command::Compile(a) => compile::run(a),
        Command::Run(a) => run::run(a),
        Command::Render(a) => render::run(a),
        Command::Opt(a) => opt::run(a),
        Command::Debug(a) => debug::run(a),
        Command::Linear(a) => linear::run(a),
        Command::Db(a) => db::run(a),
        Command::Live(a) => live::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Translate(a) => translate::run(a),
    };
    ExitCode::from(code)
}

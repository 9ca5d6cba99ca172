//! `hoist-soak`: generated pairs through optimize, validate and render (see
//! `hoist_verify::soak`). `scripts/soak.sh N` is the usual way in.

use clap::Parser;
use hoist_verify::generate::Flavor;
use hoist_verify::soak;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Soak the optimizer and its validation with generated program pairs")]
struct Args {
    /// Pairs per dialect
    pairs: u64,
    /// First seed
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Only this flavour: arb or d3d9 (generated assembly pairs), or wgsl (generated WGSL
    /// programs through the front end; needs the `front` feature, which scripts/soak.sh
    /// enables)
    #[arg(long, value_parser = ["arb", "d3d9", "wgsl"])]
    only: Option<String>,
    /// Worker threads (default: all cores)
    #[arg(long)]
    threads: Option<usize>,
    /// Print at most this many problems of each dialect
    #[arg(long, default_value_t = 40)]
    show: usize,
    /// Write the pair of seed FIRST (of the `--only` dialect) to DIR as vp/fp files, with
    /// the options the soak uses, instead of soaking; with `--only wgsl`, the WGSL program
    /// and its compiled pair for each dialect (DIR/arb, DIR/d3d9)
    #[arg(long, value_name = "DIR")]
    dump: Option<std::path::PathBuf>,
}

/// Generated WGSL programs through the front end, both dialects (feature `front`).
#[cfg(feature = "front")]
fn soak_wgsl(args: &Args, threads: usize) -> u32 {
    let t0 = Instant::now();
    let tally = hoist_verify::front::soak(args.first, args.pairs, threads);
    for line in tally.details().lines().take(args.show) {
        println!("  {line}");
    }
    let (seen, missing) = hoist_verify::front::coverage(args.first, args.pairs);
    println!(
        "{} ({:.1} s); builtins called: {seen}, never called: {missing:?}",
        tally.summary("WGSL"),
        t0.elapsed().as_secs_f64()
    );
    tally.failures()
}

#[cfg(not(feature = "front"))]
fn soak_wgsl(args: &Args, _threads: usize) -> u32 {
    if args.only.as_deref() == Some("wgsl") {
        println!(
            "WGSL: hoist-soak was built without the `front` feature (scripts/soak.sh enables it)"
        );
        return 1;
    }
    println!("WGSL: skipped (built without the `front` feature)");
    0
}

#[cfg(feature = "front")]
fn dump_wgsl(seed: u64, dir: &std::path::Path) -> Result<String, String> {
    hoist_verify::front::dump(seed, dir)
}

#[cfg(not(feature = "front"))]
fn dump_wgsl(_seed: u64, _dir: &std::path::Path) -> Result<String, String> {
    Err("built without the `front` feature (scripts/soak.sh enables it)".into())
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if let Some(dir) = &args.dump {
        let done = match args.only.as_deref() {
            Some("wgsl") => dump_wgsl(args.first, dir),
            Some("d3d9") => soak::dump(args.first, Flavor::D3d9, dir),
            _ => soak::dump(args.first, Flavor::Arb, dir),
        };
        return match done {
            Ok(text) => {
                println!("{text}");
                std::process::ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("hoist-soak: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    soak::quiet_panics();
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let flavors: Vec<(Flavor, &str)> = [(Flavor::Arb, "ARB"), (Flavor::D3d9, "D3D9")]
        .into_iter()
        .filter(|(_, n)| {
            args.only
                .as_deref()
                .is_none_or(|o| o.eq_ignore_ascii_case(n))
        })
        .collect();
    println!(
        "soak: seeds {}..{} per dialect, {threads} threads",
        args.first,
        args.first + args.pairs
    );
    let mut failures = 0;
    let start = Instant::now();
    for (flavor, name) in flavors {
        let t0 = Instant::now();
        let tally = soak::soak(args.first, args.pairs, flavor, threads);
        let secs = t0.elapsed().as_secs_f64();
        for line in tally.details().lines().take(args.show) {
            println!("  {line}");
        }
        println!(
            "{} ({secs:.1} s, {:.1} ms per pair)",
            tally.summary(name),
            1000.0 * secs / tally.pairs.max(1) as f64
        );
        println!("{}", tally.exec.summary(name));
        failures += tally.failures();
    }
    if args.only.as_deref().is_none_or(|o| o == "wgsl") {
        failures += soak_wgsl(&args, threads);
    }
    println!("soak total: {:.1} s", start.elapsed().as_secs_f64());
    if failures > 0 {
        println!(
            "soak FAILED: {failures} failures (panics, errors, mismatches, round-trip or generator failures, compiled-versus-interpreted differences)"
        );
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}

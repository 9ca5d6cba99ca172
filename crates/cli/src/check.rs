//! `hoist check FILE...`: parse each file and print rustc-style diagnostics.

use crate::util;
use hoist_asm::{ArbTarget, Profile};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  hoist check blur.fp pass.vp\n  hoist check --profile ps_2_0 kernel.psh\n  hoist check --target g80 long.fp\n\n\
Exit status: 0 when every file is valid, 1 when any has an error, 2 on a usage error."
)]
pub struct Args {
    /// Program files (`-` reads standard input)
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Parse as this profile instead of detecting it from the header
    /// (arbvp1, arbfp1, vs_1_1, vs_2_0, vs_2_x, vs_3_0, ps_2_0, ps_2_x, ps_3_0)
    #[arg(long, value_parser = parse_profile)]
    profile: Option<Profile>,
    #[arg(long, value_parser = util::parse_target, help = util::TARGET_HELP)]
    target: Option<ArbTarget>,
    /// Print nothing for valid files
    #[arg(short, long)]
    quiet: bool,
}

pub fn parse_profile(s: &str) -> Result<Profile, String> {
    Profile::from_id(s).ok_or_else(|| {
        let all: Vec<_> = Profile::ALL.iter().map(|p| p.id()).collect();
        format!(
            "unknown profile `{s}` (expected one of: {})",
            all.join(", ")
        )
    })
}

pub fn run(args: Args) -> u8 {
    let mut failed = false;
    let color = util::stderr_color();
    for path in &args.files {
        let source = match util::read_source(path) {
            Ok(s) => s,
            Err(e) => {
                util::error(e);
                failed = true;
                continue;
            }
        };
        let name = path.display().to_string();
        let opts = util::target_options(&source, &name, args.profile, args.target);
        let mut parsed = hoist_asm::parse(&source, &opts);
        let target = args.target.unwrap_or_default();
        util::hint_target(&mut parsed.diagnostics, &source, args.profile, target);
        if !parsed.diagnostics.is_empty() {
            eprint!(
                "{}",
                hoist_asm::diag::render(&parsed.diagnostics, &name, &source, color)
            );
        }
        match parsed.into_result() {
            Ok(p) => {
                if !args.quiet {
                    let s = p.slots();
                    println!(
                        "{name}: ok ({}, {} instructions, {} slots: {} arithmetic, {} texture{})",
                        p.profile,
                        p.insts.len(),
                        s.total(),
                        s.alu,
                        s.tex,
                        if s.flow > 0 {
                            format!(", {} flow", s.flow)
                        } else {
                            String::new()
                        }
                    );
                }
            }
            Err(diags) => {
                let n = diags.iter().filter(|d| d.is_error()).count();
                eprintln!("{name}: {n} error{}", if n == 1 { "" } else { "s" });
                failed = true;
            }
        }
    }
    u8::from(failed)
}

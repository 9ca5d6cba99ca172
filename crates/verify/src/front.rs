//! The soak of the WGSL front end (feature `front`, off for the page): generated WGSL
//! programs over every builtin (`hoist_front::generate`) compiled for each dialect that can
//! hold them, then the pair soak's optimize, validate, print and fresh check
//! ([`crate::soak::check`]). The generator writes only what the targets express, so a
//! refusal, a compiled program that does not parse, or a panic in the front end is a
//! failure (`ERROR`, `GENERATOR`, `PANIC`).

use crate::soak::{self, Problem, Tally};
use hoist_asm::{ArbTarget, Dialect, ParseOptions, Profile, Program};
use hoist_front::{Options, compile_wgsl, generate};
use std::panic::{AssertUnwindSafe, catch_unwind};

fn parse(text: &str, target: ArbTarget) -> Result<Program, String> {
    hoist_asm::parse(text, &ParseOptions::default().with_target(text, target))
        .into_result()
        .map_err(|d| hoist_asm::diag::render(&d, "compiled", text, false))
}

/// Soaks the program of `seed` in every dialect it compiles for.
pub fn soak_one(seed: u64, tally: &mut Tally) {
    let g = generate::wgsl(seed);
    for (d, name, ok) in [
        (Dialect::Arb, "ARB", g.arb()),
        (Dialect::D3d9, "D3D9", g.d3d9()),
    ] {
        if !ok {
            continue;
        }
        let label = format!("{} ({name})", g.label());
        tally.pairs += 1;
        let opts = Options {
            dialect: Some(d),
            ..Options::default()
        };
        let c = match catch_unwind(AssertUnwindSafe(|| compile_wgsl(&g.wgsl, &opts))) {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                let msg = e.diagnostics.first().map_or("", |x| x.message.as_str());
                tally.add(
                    &label,
                    Problem::Error(format!("the front end refused it: {msg}\n{}", g.wgsl)),
                );
                continue;
            }
            Err(_) => {
                tally.add(
                    &label,
                    Problem::Panic(format!("in the front end:\n{}", g.wgsl)),
                );
                continue;
            }
        };
        let target = c
            .target
            .as_deref()
            .and_then(ArbTarget::from_id)
            .unwrap_or_default();
        let (vp, fp) = match (parse(&c.vp, target), parse(&c.fp, target)) {
            (Ok(v), Ok(f)) => (v, f),
            (Err(e), _) | (_, Err(e)) => {
                tally.add(
                    &label,
                    Problem::Generator(format!("compiled text does not parse: {e}")),
                );
                continue;
            }
        };
        let (mut o, cfg, fresh) = soak::settings(seed, &vp, &fp);
        if target != ArbTarget::default() && d == Dialect::Arb {
            o.vp_limits = Some(Profile::ArbVp1.limits_for(target));
            o.fp_limits = Some(Profile::ArbFp1.limits_for(target));
        }
        soak::check_under(&label, &vp, &fp, &o, (&cfg, &fresh), target, tally);
    }
}

/// Soaks seeds `first .. first + n` on `threads` threads.
pub fn soak(first: u64, n: u64, threads: usize) -> Tally {
    soak::soak_with(first, n, threads, &soak_one)
}

/// The builtins seeds `first .. first + n` call, and those of [`generate::BUILTINS`] none
/// of them does.
pub fn coverage(first: u64, n: u64) -> (usize, Vec<&'static str>) {
    let mut seen: Vec<&'static str> = Vec::new();
    for s in first..first + n {
        for b in generate::wgsl(s).builtins {
            if !seen.contains(&b) {
                seen.push(b);
            }
        }
    }
    let missing = generate::BUILTINS
        .iter()
        .copied()
        .filter(|b| !seen.contains(b))
        .collect();
    (seen.len(), missing)
}

//! The soak of the WGSL front end (feature `front`, off for the page): generated WGSL
//! programs over every builtin (`hoist_front::generate`) compiled for each dialect that can
//! hold them, then the pair soak's optimize, validate, print and fresh check
//! ([`crate::soak::check`]). The generator writes only what the targets express, so a
//! refusal, a compiled program that does not parse, or a panic in the front end is a
//! failure (`ERROR`, `GENERATOR`, `PANIC`).

use crate::soak::{self, Problem, Tally};
use crate::validate::Config;
use hoist_asm::{ArbTarget, Dialect, ParseOptions, Profile, Program};
use hoist_front::{Options, compile_wgsl, generate};
use std::panic::{AssertUnwindSafe, catch_unwind};

fn parse(text: &str, target: ArbTarget) -> Result<Program, String> {
    hoist_asm::parse(text, &ParseOptions::default().with_target(text, target))
        .into_result()
        .map_err(|d| hoist_asm::diag::render(&d, "compiled", text, false))
}

/// The program of `seed` compiled for dialect `d` and parsed, with the soak's settings
/// for it; `None` when the generated program is not meant for that dialect.
fn compiled(seed: u64, g: &generate::Generated, d: Dialect) -> Option<Result<Compiled, Problem>> {
    let ok = match d {
        Dialect::Arb => g.arb(),
        Dialect::D3d9 => g.d3d9(),
    };
    if !ok {
        return None;
    }
    let opts = Options {
        dialect: Some(d),
        ..Options::default()
    };
    let c = match catch_unwind(AssertUnwindSafe(|| compile_wgsl(&g.wgsl, &opts))) {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            let msg = e.diagnostics.first().map_or("", |x| x.message.as_str());
            return Some(Err(Problem::Error(format!(
                "the front end refused it: {msg}\n{}",
                g.wgsl
            ))));
        }
        Err(_) => {
            return Some(Err(Problem::Panic(format!(
                "in the front end:\n{}",
                g.wgsl
            ))));
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
            return Some(Err(Problem::Generator(format!(
                "compiled text does not parse: {e}"
            ))));
        }
    };
    let (mut o, cfg, fresh) = soak::settings(seed, &vp, &fp);
    if target != ArbTarget::default() && d == Dialect::Arb {
        o.vp_limits = Some(Profile::ArbVp1.limits_for(target));
        o.fp_limits = Some(Profile::ArbFp1.limits_for(target));
    }
    Some(Ok(Compiled {
        text: (c.vp, c.fp),
        vp,
        fp,
        opts: o,
        cfg: (cfg, fresh),
        target,
    }))
}

struct Compiled {
    text: (String, String),
    vp: Program,
    fp: Program,
    opts: hoist_opt::Options,
    cfg: (Config, Config),
    target: ArbTarget,
}

const DIALECTS: [(Dialect, &str); 2] = [(Dialect::Arb, "ARB"), (Dialect::D3d9, "D3D9")];

/// Soaks the program of `seed` in every dialect it compiles for.
pub fn soak_one(seed: u64, tally: &mut Tally) {
    let g = generate::wgsl(seed);
    for (d, name) in DIALECTS {
        let label = format!("{} ({name})", g.label());
        let c = match compiled(seed, &g, d) {
            None => continue,
            Some(Err(p)) => {
                tally.pairs += 1;
                tally.add(&label, p);
                continue;
            }
            Some(Ok(c)) => c,
        };
        tally.pairs += 1;
        let cfg = (&c.cfg.0, &c.cfg.1);
        soak::check_under(&label, &c.vp, &c.fp, &c.opts, cfg, c.target, tally);
    }
}

/// Writes the WGSL program of `seed` to `dir` (`program.wgsl`) and, for each dialect it
/// compiles for, the compiled pair and the soak's options under `dir/arb` or `dir/d3d9`,
/// describing how the optimizer and validation treat each.
pub fn dump(seed: u64, dir: &std::path::Path) -> Result<String, String> {
    let g = generate::wgsl(seed);
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("program.wgsl"), &g.wgsl).map_err(|e| e.to_string())?;
    let mut text = String::new();
    for (d, name) in DIALECTS {
        let c = match compiled(seed, &g, d) {
            None => continue,
            Some(Err(p)) => return Err(format!("{name}: {p:?}")),
            Some(Ok(c)) => c,
        };
        let label = format!("{} ({name})", g.label());
        let sub = dir.join(name.to_ascii_lowercase());
        let settings = (&c.opts, &c.cfg.0, &c.cfg.1);
        text.push_str(&soak::dump_pair(
            &label,
            (&c.text.0, &c.text.1),
            (&c.vp, &c.fp),
            settings,
            &sub,
        )?);
    }
    Ok(text)
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

//! Shared helpers: load programs, optimize, render both pairs with the executor, compare.

#![allow(dead_code)]

use hoist_asm::{ParseOptions, Program, Stage};
use hoist_opt::{Options, Outcome};
use hoist_raster::pattern::{Pattern, generate};
use hoist_raster::{Filter, RenderConfig, Sampler, TexFormat, Texture, Verdict, Wrap};
use std::path::PathBuf;
use std::sync::Arc;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn parse(text: &str) -> Program {
    match hoist_asm::parse(text, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => panic!("{}", hoist_asm::diag::render(&d, "test", text, false)),
    }
}

pub fn load(rel: &str) -> Program {
    let path = repo().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text)
}

/// A render configuration with a smooth, clamped texture on every unit 0..4: its values
/// change by at most about 1 per unit of texture coordinate, so a rounding difference in an
/// address changes the fetched value by about as much (not by the texture's size, as noise
/// under bilinear filtering would).
pub fn smooth_config(size: u32) -> RenderConfig {
    let mut cfg = RenderConfig {
        width: size,
        height: size,
        ..RenderConfig::default()
    };
    for unit in 0..4u8 {
        let img = generate(&Pattern::Gradient, 64, 64);
        let tex = Texture::new_2d(
            64,
            64,
            img.pixels,
            TexFormat::Rgba32F,
            Sampler::new(Filter::Linear, Wrap::ClampToEdge),
        );
        cfg.textures.insert(unit, Arc::new(tex));
    }
    cfg
}

/// A render configuration with a noise texture on every unit 0..4.
pub fn config(size: u32, filter: Filter, seed: u64) -> RenderConfig {
    let mut cfg = RenderConfig {
        width: size,
        height: size,
        ..RenderConfig::default()
    };
    for unit in 0..4u8 {
        let img = generate(&Pattern::Noise(seed + unit as u64), size, size);
        let tex = Texture::new_2d(
            size,
            size,
            img.pixels,
            TexFormat::Rgba32F,
            Sampler::new(filter, Wrap::Repeat),
        );
        cfg.textures.insert(unit, Arc::new(tex));
    }
    cfg
}

/// Checks that the optimized pair validates and round-trips through its printer.
pub fn check_output(out: &Outcome) {
    for p in [&out.vp, &out.fp] {
        let diags = hoist_asm::validate::check(p, &p.profile.limits());
        assert!(
            !diags.iter().any(|d| d.is_error()),
            "optimizer output does not validate: {:?}\n{}",
            diags,
            hoist_asm::print(p)
        );
        let text = hoist_asm::print(p);
        let again = parse(&text);
        if !again.eq_ignoring_spans(p) {
            let (mut a, mut b) = (p.clone(), again.clone());
            a.clear_spans();
            b.clear_spans();
            let what = [
                (
                    "io",
                    format!("{:?}", a.io) != format!("{:?}", b.io),
                    format!("{:?}\n{:?}", a.io, b.io),
                ),
                (
                    "consts",
                    a.consts != b.consts,
                    format!("{:?}\n{:?}", a.consts, b.consts),
                ),
                ("insts", a.insts != b.insts, String::new()),
                (
                    "temps",
                    a.num_temps != b.num_temps,
                    format!("{} {}", a.num_temps, b.num_temps),
                ),
                (
                    "symbols",
                    a.symbols != b.symbols,
                    format!("{:?}\n{:?}", a.symbols, b.symbols),
                ),
            ];
            let diff: Vec<String> = what
                .iter()
                .filter(|w| w.1)
                .map(|w| format!("{}: {}", w.0, w.2))
                .collect();
            let insts: Vec<String> = a
                .insts
                .iter()
                .zip(&b.insts)
                .filter(|(x, y)| x != y)
                .map(|(x, y)| format!("{x:?}\n  vs {y:?}"))
                .collect();
            panic!(
                "optimizer output does not round-trip:\n{text}\n{}\n{}",
                diff.join("\n"),
                insts.join("\n")
            );
        }
    }
}

/// Optimizes (validated, with nothing rejected) and renders both pairs; returns the outcome
/// and the verdict.
pub fn prove(
    vp: &Program,
    fp: &Program,
    opts: &Options,
    mut cfg: RenderConfig,
) -> (Outcome, Verdict, f32) {
    assert_eq!(vp.stage(), Stage::Vertex);
    let check = hoist_verify::Config::default();
    let v = hoist_verify::optimize(vp, fp, opts, Some(&check)).expect("optimize");
    assert_eq!(
        v.status,
        hoist_verify::Status::Validated,
        "{:?}",
        v.rejected
    );
    assert!(
        v.rejected.is_empty(),
        "validation rejected: {:?}",
        v.rejected
    );
    let out = v.outcome;
    check_output(&out);
    let a = hoist_raster::render(Some(vp), Some(fp), &cfg).expect("render original");
    cfg.params = hoist_verify::validate::mirrored(&cfg.params, &cfg.state.gl, &out);
    let b = hoist_raster::render(Some(&out.vp), Some(&out.fp), &cfg).expect("render optimized");
    let range = a.image.magnitude();
    (out, hoist_raster::compare(&a.image, &b.image), range)
}

/// Instructions of a printed program (no header, declarations or comments).
pub fn instructions(p: &Program) -> Vec<String> {
    let (text, rows) = hoist_asm::print_with_lines(p);
    let lines: Vec<&str> = text.lines().collect();
    rows.iter()
        .map(|&r| {
            let l = lines[r];
            let l = l.split([';', '#']).next().unwrap_or(l);
            l.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

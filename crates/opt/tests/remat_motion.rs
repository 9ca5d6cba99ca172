//! Rematerialization inside the code-motion selection (issue 12): on
//! `examples/pressure/remat-motion`, moving the fragment program's affine work alone would
//! hold more temporaries live in vs_1_1 than its 12; without fitting the selection leaves the
//! group behind, with `Options::fit` it keeps it because recomputing the interpolant values
//! fits the limit. On `examples/pressure/remat-interp`, code motion has one interpolator left
//! and a moved value read by the output is recomputed in the fragment program instead of
//! taking one (`fp_to_vp::pack`). All results are validated (`hoist_verify::optimize`) and render
//! bit-identical to the original over the scene's own draw.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::repo;
use hoist_asm::Program;
use hoist_opt::analysis::liveness::Liveness;
use hoist_opt::{AddedFor, Fate, Options, Outcome, Prov};
use hoist_raster::scene::{self, RunOptions, Scene};
use hoist_raster::{Caps, Verdict};

fn load_named(name: &str) -> Scene {
    let path = repo().join(format!("examples/pressure/{name}.shader_test"));
    let text = std::fs::read_to_string(&path).expect("example");
    scene::parse(&text, &Caps::default()).expect("scene parses")
}

fn load() -> Scene {
    load_named("remat-motion")
}

fn pair(s: &Scene) -> (Program, Program) {
    let p = &s.programs[s.optimize_target()];
    let vp = p.vertex.as_ref().expect("vertex").program.clone();
    let fp = p.fragment.as_ref().expect("fragment").program.clone();
    (vp, fp)
}

/// Validated result under `opts`, and whether its render is bit-identical.
fn optimized(s: &Scene, opts: &Options) -> (Outcome, bool) {
    let (vp, fp) = pair(s);
    let cfg = hoist_verify::Config::default();
    let v = hoist_verify::optimize(&vp, &fp, opts, Some(&cfg)).expect("optimizes");
    assert_eq!(
        v.status,
        hoist_verify::Status::Validated,
        "{:?}",
        v.rejected
    );
    assert!(v.rejected.is_empty(), "{:?}", v.rejected);
    let original = scene::run(s, &RunOptions::default()).expect("runs");
    let after = scene::run(
        &hoist_verify::scene::with_optimized(s, &v.outcome),
        &RunOptions::default(),
    )
    .expect("optimized scene runs");
    assert_eq!(after.failed(), 0, "probes fail after optimization");
    let targets = hoist_verify::scene::compare(&original, &after);
    let identical = !targets.is_empty()
        && targets
            .values()
            .all(|t| matches!(t.verdict, Verdict::Identical));
    (v.outcome, identical)
}

/// The largest group (the kernel's whole affine computation) and whether it moved.
fn big_group_moved(out: &Outcome) -> bool {
    let g = (0..out.groups.len())
        .max_by_key(|&g| out.groups[g].len())
        .expect("groups");
    assert!(out.groups[g].len() > 20, "{:?}", out.groups);
    out.groups[g]
        .iter()
        .all(|&i| matches!(out.fates[i as usize], Fate::Moved { .. }))
}

#[test]
fn motion_alone_exceeds_vs_1_1_temps() {
    let s = load();
    let (vp, _) = pair(&s);
    let limit = vp.profile.limits().temps;
    // With the vertex temp limit lifted, the selection moves everything; the result's
    // pressure is what the motion alone needs.
    let mut loose = vp.profile.limits();
    loose.temps = 64;
    let opts = Options {
        vp_limits: Some(loose),
        ..Options::default()
    };
    let (out, identical) = optimized(&s, &opts);
    assert!(big_group_moved(&out));
    assert!(identical);
    let peak = Liveness::counts(&out.vp, 0).peak;
    assert!(peak > u32::from(limit), "peak {peak}");
    println!("motion alone: vertex peak {peak} > {limit}");
}

#[test]
fn without_fit_the_group_is_dropped_with_fit_remat_keeps_it() {
    let s = load();
    let (drop, identical) = optimized(&s, &Options::default());
    assert!(identical, "drop alternative renders differently");
    assert!(!big_group_moved(&drop));
    assert!(drop.kept_by_fit.is_none());

    let fit = Options {
        fit: true,
        ..Options::default()
    };
    let (keep, identical) = optimized(&s, &fit);
    assert!(identical, "the fitted result renders differently");
    assert!(big_group_moved(&keep));
    let limit = keep.vp.profile.limits().temps;
    assert!(keep.vp.num_temps <= limit);
    assert!(Liveness::counts(&keep.vp, 0).peak <= u32::from(limit));
    let copies = keep
        .vp_lines
        .iter()
        .filter(|l| {
            matches!(
                l.prov,
                Prov::Added {
                    why: AddedFor::Rematerialize,
                    ..
                }
            )
        })
        .count();
    assert!(copies > 0, "no rematerialized value");
    let f_keep = keep.after.fp_slots.total();
    let f_drop = drop.after.fp_slots.total();
    assert!(f_keep < f_drop, "F {f_keep} vs {f_drop}");

    let k = keep.kept_by_fit.as_ref().expect("kept_by_fit");
    assert!(!k.groups.is_empty());
    assert!(
        k.fits.iter().any(|f| f.contains("computed")),
        "{:?}",
        k.fits
    );
    assert_eq!(k.kept_slots.0, f_keep);
    assert_eq!(k.dropped_slots.map(|d| d.0), Some(f_drop));
    assert!(k.runs_saved.is_some_and(|r| r > 0.0));
    assert!(
        keep.notes
            .iter()
            .any(|n| n.contains("kept thanks to the fit"))
    );
    println!(
        "drop: F {f_drop} V {}; keep with {copies} remat copies: F {f_keep} V {}",
        drop.after.vp_slots.total(),
        keep.after.vp_slots.total()
    );
}

/// The fitted kernel under the modern cost model: the copies are priced at vertices per
/// copy against the fragment slots the group saves, and the group still pays.
#[test]
fn remat_is_priced_by_the_cost_model() {
    let s = load();
    let opts = Options {
        fit: true,
        cost: hoist_opt::CostModel::modern_default(4.0, 4096.0),
        ..Options::default()
    };
    let (keep, identical) = optimized(&s, &opts);
    assert!(identical);
    assert!(big_group_moved(&keep));
    let k = keep.kept_by_fit.expect("kept_by_fit");
    let (kf, kv) = k.kept_slots;
    let (df, dv) = k.dropped_slots.expect("alternative");
    let runs = |f: u32, v: u32| 4096.0 * f as f64 + 4.0 * v as f64;
    assert_eq!(k.runs_saved, Some(runs(df, dv) - runs(kf, kv)));
}

/// One interpolator is left; the group's first value (`MUL a, texcoord[0], 2`) is read by the
/// output as well, so it stays in the fragment program too, and only the group's last value
/// travels. (With the varying passes, which merge the duplicated interpolants and free the
/// ones only moved code reads, more interpolators are left and no copy is needed: this is
/// the packing that keeps existing interpolants in place.)
#[test]
fn remat_instead_of_an_interpolator() {
    let s = load_named("remat-interp");
    let opts = Options {
        varyings: false,
        ..Options::default()
    };
    let (out, identical) = optimized(&s, &opts);
    assert!(identical, "renders differently");
    for i in 0..4 {
        assert!(
            matches!(out.fates[i], Fate::Moved { .. }),
            "instruction {i}: {:?}",
            out.fates[i]
        );
    }
    assert_eq!(out.duplicated, vec![0], "MUL a is kept in both programs");
    assert!(out.transports.iter().all(|t| t.inst != 0));
    let free = out.before.interp_available - out.before.interp_registers;
    assert_eq!(free, 1, "one free interpolator");
    // Transporting `a` as well would need a second register.
    let carried: std::collections::BTreeSet<u8> =
        out.transports.iter().map(|t| t.texcoord).collect();
    assert_eq!(carried.len(), 1);
    let (before, after) = (out.before.fp_slots.total(), out.after.fp_slots.total());
    assert!(after < before, "F {before} -> {after}");
    let copy = out
        .fp
        .insts
        .iter()
        .filter(|i| i.op == hoist_asm::ops::Op::Mul)
        .count();
    assert!(copy >= 1, "the fragment program computes a again");
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("instead of taking an interpolator")),
        "{:?}",
        out.notes
    );
    println!("remat instead of an interpolator: F {before} -> {after}");
}

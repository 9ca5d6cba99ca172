//! The optimizer against the paper: Figure 3 must become Figure 5, the K=13 Gaussian must
//! do at least as well as Table 4, and every result must render the same as the original.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use hoist_opt::{Fate, Options};
use hoist_raster::Filter;

/// Figure 5(b) of the paper, the fragment program after code motion.
const FIGURE_5B: [&str; 7] = [
    "texld r2, t1, s0",
    "texld r0, t2, s0",
    "texld r1, t0, s0",
    "mul r2, r2, c0.x",
    "mad r1, c1.x, r1, r2",
    "mad r0, c2.x, r0, r1",
    "mov oC0, r0",
];

#[test]
fn figure_3_becomes_figure_5() {
    let vp = load("examples/paper/fig3.vsh");
    let fp = load("examples/paper/fig3.psh");
    let (out, verdict, _) = prove(
        &vp,
        &fp,
        &Options::default(),
        config(256, Filter::Nearest, 7),
    );
    // The paper: "reduces the number of instruction slots in FPs from 16 to 7 slots, but
    // increases that in VPs from 2 to 14 slots".
    assert_eq!(out.before.fp_slots.total(), 16);
    assert_eq!(out.after.fp_slots.total(), 7);
    assert_eq!(out.before.vp_slots.total(), 2);
    assert!(
        out.after.vp_slots.total() <= 14,
        "V = {}",
        out.after.vp_slots.total()
    );
    assert_eq!(instructions(&out.fp), FIGURE_5B);
    // Lines 1-9 move; the texture reads (C1/C2) and everything after them (C4) stay.
    for (i, f) in out.fates.iter().enumerate() {
        match (i, f) {
            (0..=8, Fate::Moved { .. }) => {}
            (9..=11, Fate::Stays { reason }) => {
                assert_eq!(reason.condition(), "C2", "line {}", i + 1)
            }
            (12..=14, Fate::Stays { reason }) => {
                assert_eq!(reason.condition(), "C4", "line {}", i + 1)
            }
            (15, Fate::Stays { reason }) => assert_eq!(reason.condition(), "C2"),
            _ => panic!("line {}: {f:?}", i + 1),
        }
    }
    assert!(verdict.is_identical(), "{verdict:?}");
}

#[test]
fn figure_3_without_vertex_clean_up_is_the_papers_figure_5a() {
    let vp = load("examples/paper/fig3.vsh");
    let fp = load("examples/paper/fig3.psh");
    let opts = Options {
        vp_cleanup: false,
        ..Options::default()
    };
    let (out, verdict, _) = prove(&vp, &fp, &opts, config(256, Filter::Nearest, 7));
    // Figure 5(a): 2 original + 9 moved + 3 added = 14 slots.
    assert_eq!(out.after.vp_slots.total(), 14);
    assert_eq!(out.after.fp_slots.total(), 7);
    let added = out
        .vp_lines
        .iter()
        .filter(|l| matches!(l.prov, hoist_opt::Prov::Added { .. }))
        .count();
    let moved = out
        .vp_lines
        .iter()
        .filter(|l| matches!(l.prov, hoist_opt::Prov::Moved { .. }))
        .count();
    assert_eq!((moved, added), (9, 3));
    assert!(verdict.is_identical(), "{verdict:?}");
}

/// Table 4: V 2 → 23 and F 63 → 43 when all 7 groups move, one group at a time.
#[test]
fn gaussian_k13_matches_or_beats_table_4() {
    let vp = load("examples/paper/gauss13.vsh");
    let fp = load("examples/paper/gauss13.psh");
    let (out, verdict, _) = prove(
        &vp,
        &fp,
        &Options::default(),
        config(256, Filter::Nearest, 3),
    );
    assert_eq!(out.before.fp_slots.total(), 63);
    assert_eq!(out.before.vp_slots.total(), 2);
    assert!(
        out.after.fp_slots.total() <= 43,
        "F = {}",
        out.after.fp_slots.total()
    );
    assert!(
        out.after.vp_slots.total() <= 23,
        "V = {}",
        out.after.vp_slots.total()
    );
    // The eight texture-coordinate interpolators are what limits the motion.
    assert_eq!(out.after.interp_registers, 8);
    assert!(verdict.is_identical(), "{verdict:?}");

    // Stepwise: each applied group lowers F; at least 7 steps as in the paper.
    let mut last_f = u32::MAX;
    for k in 0..=7 {
        let opts = Options {
            steps: Some(k),
            ..Options::default()
        };
        let (o, v, _) = prove(&vp, &fp, &opts, config(64, Filter::Nearest, 3));
        let f = o.after.fp_slots.total();
        assert!(f < last_f, "step {k}: F {f} did not drop below {last_f}");
        last_f = f;
        assert!(v.is_identical(), "step {k}: {v:?}");
    }
}

#[test]
fn gaussian_k13_in_arb_packs_two_addresses_per_interpolator() {
    let vp = load("examples/paper/gauss13.vp");
    let fp = load("examples/paper/gauss13.fp");
    let (out, verdict, _) = prove(
        &vp,
        &fp,
        &Options::default(),
        config(256, Filter::Nearest, 5),
    );
    // ARB fragment programs read swizzled texture coordinates, so all 12 taps fit.
    assert_eq!(out.before.fp_slots.total(), 63);
    assert_eq!(out.after.fp_slots.total(), 27);
    assert!(out.after.interp_registers <= 8);
    assert!(verdict.is_identical(), "{verdict:?}");
}

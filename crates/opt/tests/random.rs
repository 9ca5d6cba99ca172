//! The exact search prunes with a bound; whenever it claims a proof of optimality, trying
//! every subset of groups must find nothing cheaper. Pairs come from the soak's generator
//! (`hoist_verify::generate`, the whole instruction set of both dialects) under the soak's
//! random options. Equivalence of optimized pairs on generated input is the soak's and
//! validation's job (`crates/verify/tests/soak.rs`); this file holds only the search's claim.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use hoist_asm::Program;
use hoist_opt::{Options, Outcome, Selection};
use hoist_verify::generate::{Flavor, pair};
use proptest::prelude::*;

/// What one check found.
#[derive(Default)]
struct Checked {
    /// proofs compared with every subset
    proofs: u32,
    /// search evaluations behind those proofs
    evaluations: u32,
}

fn cost(opts: &Options, o: &Outcome) -> f64 {
    let slots = (
        o.after.fp_slots.total(),
        o.after.vp_slots.total(),
        o.after.interp_components,
    );
    opts.cost.cost_of(&o.vp, &o.fp, slots).0
}

/// Runs the exact search; when it claims a proof over at most 10 groups (2^10 subsets keeps
/// this quick), the exhaustive selection must cost no less. Returns whether a proof was checked.
fn check_search(vp: &Program, fp: &Program, mut opts: Options, seen: &mut Checked) -> bool {
    opts.steps = None;
    opts.selection = Selection::Optimal;
    opts.search_budget = 4096;
    let Ok(searched) = hoist_opt::optimize(vp, fp, &opts) else {
        return false;
    };
    let Some(claim) = searched.rules.iter().find(|r| r.rule == "optimal") else {
        return false;
    };
    if !claim.proven_optimal || searched.groups.len() > 10 {
        return false;
    }
    opts.selection = Selection::Exhaustive;
    let every = hoist_opt::optimize(vp, fp, &opts).expect("optimizes");
    if every.chosen != "exhaustive" {
        return false;
    }
    let (a, b) = (cost(&opts, &searched), cost(&opts, &every));
    assert!(
        a <= b + 1e-9,
        "the search claims {a} is optimal but a subset costs {b}\n{opts:?}\n--- vp\n{}\n--- fp\n{}",
        hoist_asm::print(vp),
        hoist_asm::print(fp)
    );
    seen.proofs += 1;
    seen.evaluations += claim.evaluations;
    true
}

#[test]
fn proven_optimal_holds_against_every_subset() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let seen = std::cell::RefCell::new(Checked::default());
    let result = runner.run(&any::<u64>(), |seed| {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = pair(seed, flavor);
            let (vp, fp) = (parse(&p.vp), parse(&p.fp));
            let (opts, _, _) = hoist_verify::soak::settings(seed, &vp, &fp);
            check_search(&vp, &fp, opts, &mut seen.borrow_mut());
        }
        Ok(())
    });
    let seen = seen.into_inner();
    println!(
        "exact search vs every subset: {} proofs checked ({} search evaluations)",
        seen.proofs, seen.evaluations
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(seen.proofs > 0, "no proof was checked");
}

/// A D3D9 pair that once made the search prove a wrong optimum (a helper was pinned by
/// capacity that only uniform values, which may be recomputed, had taken).
#[test]
fn search_counterexample_stays_fixed() {
    let vp = load("crates/opt/tests/pairs/search_counterexample.vp");
    let fp = load("crates/opt/tests/pairs/search_counterexample.fp");
    let json =
        std::fs::read_to_string(repo().join("crates/opt/tests/pairs/search_counterexample.json"))
            .expect("options file");
    let opts: Options = serde_json::from_str(&json).expect("options parse");
    assert!(
        check_search(&vp, &fp, opts, &mut Checked::default()),
        "the proof was not checked"
    );
}

/// A pair (soak seed 7175060968993811537, ARB) where the search proved F 34 optimal while
/// moving one more LRP gave 33: its only reader was a dead MAD, which the bound counted as
/// a staying reader (a merge MOV to pay for, an interpolator to fill). Dead readers now
/// count for neither, as the packer sees them.
#[test]
fn a_dead_reader_does_not_hide_a_saving() {
    let seed = 7175060968993811537u64;
    let p = pair(seed, Flavor::Arb);
    let (vp, fp) = (parse(&p.vp), parse(&p.fp));
    let (opts, _, _) = hoist_verify::soak::settings(seed, &vp, &fp);
    let mut seen = Checked::default();
    assert!(check_search(&vp, &fp, opts, &mut seen), "no proof to check");
}

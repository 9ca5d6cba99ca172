//! Rematerialization, renumbering and fitting a program to its temp limit
//! (`passes::{remat, renumber, fit}`): every transformed program must compute bit for bit
//! the same outputs in the executor and keep to its profile's rules. Inputs are the
//! generator's programs (both dialects, both stages) held to limits tighter than they were
//! written for, and a vertex program whose values are all needed after their sum, which no
//! schedule can bring under vs_1_1's 12 temporaries but rematerialization can.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod execute;

use execute::outputs;
use hoist_asm::{ParseOptions, Program};
use hoist_opt::analysis::liveness::Liveness;
use hoist_opt::passes::fit::{self, Fit};
use hoist_opt::passes::{remat, renumber, schedule};
use hoist_opt::tracked::{AddedFor, Prov, Tracked};
use hoist_verify::generate::{Flavor, pair};

/// Parses with the temp limit lifted (the programs here are over it on purpose).
fn parse_over(text: &str) -> Program {
    let mut opts = ParseOptions::default().with_target(text, Default::default());
    if let Some(l) = &mut opts.limits {
        l.temps = u16::MAX;
    }
    hoist_asm::parse(text, &opts)
        .into_result()
        .unwrap_or_else(|d| panic!("{}", hoist_asm::diag::render(&d, "t", text, false)))
}

/// Thirteen products of an attribute and a constant, summed, then each product used again
/// with the sum: at the last addition all thirteen values and the sum are live.
fn over_vs() -> String {
    let mut s = String::from("vs_1_1\ndcl_position v0\ndcl_texcoord v1\n");
    s.push_str("mul r0, v1, c0\nadd r12, r0, c20\n");
    for i in 1..12 {
        s.push_str(&format!("mul r{i}, v1, c{i}\nadd r12, r12, r{i}\n"));
    }
    for k in 0..6 {
        s.push_str(&format!("mad oT{k}, r{}, r12, r{}\n", 2 * k, 2 * k + 1));
    }
    s.push_str("mov oPos, v0\n");
    s
}

fn same(a: &Program, b: &Program, label: &str) {
    for seed in 0..3 {
        assert!(
            outputs(a, seed) == outputs(b, seed),
            "{label}: results differ\n--- before\n{}\n--- after\n{}",
            hoist_asm::print(a),
            hoist_asm::print(b)
        );
    }
}

#[test]
fn rematerialization_saves_a_program_no_schedule_fits() {
    let p = parse_over(&over_vs());
    let limits = p.profile.limits();
    assert_eq!(Liveness::compute(&p, 12).peak, 13);
    // No order helps: every product is read after the sum, which reads them all.
    let mut s = Tracked::new(p.clone());
    schedule::run(&mut s, &limits);
    assert_eq!(Liveness::compute(&s.program, 12).peak, 13);
    assert!(renumber::registers_needed(&s.program).unwrap() > 12);

    let mut t = Tracked::new(p.clone());
    let how = fit::run(&mut t, &limits, 4.0).expect("fits");
    let Some(Fit::Rematerialized {
        from,
        to,
        copies,
        cost,
    }) = how
    else {
        panic!("{how:?}");
    };
    assert_eq!((from, to), (13, 12));
    assert_eq!(cost, 4.0 * copies as f64);
    let added = t
        .lines
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
    assert_eq!(added, copies as usize);
    let errors: Vec<_> = hoist_asm::validate::check(&t.program, &limits)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(
        errors.is_empty(),
        "{errors:?}\n{}",
        hoist_asm::print(&t.program)
    );
    same(&p, &t.program, "over_vs");
}

/// Generated programs held to fewer temporaries than they use: whatever fits must compute
/// the same; rematerialization toward a lower peak must compute the same and lower it.
#[test]
fn generated_programs_fitted_and_rematerialized_compute_the_same() {
    let mut how = std::collections::BTreeMap::<&str, u32>::new();
    let mut remats = 0;
    let mut per_dialect = std::collections::BTreeMap::<bool, u32>::new();
    for seed in 0..120u64 {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let g = pair(seed, flavor);
            for text in [&g.vp, &g.fp] {
                let p = common::parse(text);
                let peak = Liveness::counts(&p, 0).peak;
                let mut r = Tracked::new(p.clone());
                if peak > 1 && remat::run(&mut r, peak - 1) > 0 {
                    remats += 1;
                    assert!(Liveness::counts(&r.program, 0).peak <= peak, "{}", g.label);
                    same(&p, &r.program, &g.label);
                }
                for tighter in [1u16, 2, 4] {
                    let mut limits = p.profile.limits();
                    limits.temps = p.num_temps.saturating_sub(tighter);
                    let mut t = Tracked::new(p.clone());
                    match fit::run(&mut t, &limits, 1.0) {
                        Ok(Some(f)) => {
                            let name = match f {
                                Fit::Renumbered { .. } => "renumbered",
                                Fit::Scheduled { .. } => "scheduled",
                                Fit::Rematerialized { .. } => "rematerialized",
                            };
                            *how.entry(name).or_default() += 1;
                            assert!(t.program.num_temps <= limits.temps);
                            same(&p, &t.program, &g.label);
                            // The pipeline canonicalizes after its passes; so does this.
                            let mut c = t.program.clone();
                            hoist_asm::canonicalize(&mut c);
                            let text = hoist_asm::print(&c);
                            assert!(
                                common::parse(&text).eq_ignoring_spans(&c),
                                "{}: the fitted program does not print and parse back\n{text}",
                                g.label
                            );
                            *per_dialect.entry(g.label.contains("arb")).or_default() += 1;
                        }
                        Ok(None) => assert!(p.num_temps <= limits.temps),
                        Err(()) => {
                            *how.entry("no fit").or_default() += 1;
                            assert!(t.program.insts == p.insts, "changed without fitting");
                        }
                    }
                }
            }
        }
    }
    println!(
        "fit: {how:?} (ARB {:?}, D3D9 {:?}); {remats} programs rematerialized toward a lower peak",
        per_dialect.get(&true),
        per_dialect.get(&false)
    );
    assert!(how.get("renumbered").copied().unwrap_or(0) > 10);
    assert!(
        per_dialect.get(&true).copied().unwrap_or(0) > 10,
        "ARB programs fit too"
    );
    assert!(remats > 0);
}

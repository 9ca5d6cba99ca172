//! The linear debugger's trace (`hoist_verify::linear_debug`): its final y lanes are the
//! executor's run bit for bit, and every lane label names what the emitted code really
//! puts there, checked by the values, not by the text: the code is traced at x = 0 and at
//! every unit vector, giving each lane's affine form in x; a final y_i's form is row i of
//! A·x + b, a partial sum's or a term's takes each coefficient of row i or none, an input
//! lane is x_j itself. For the paper's systems (packed by the search and in the original
//! order) and for generated systems under random groupings, both dialects.
#![cfg(not(target_arch = "wasm32"))]

use hoist_opt::linear::anneal::{Rng, Schedule};
use hoist_opt::linear::{Grouping, SearchOptions, System, paper};
use hoist_verify::linear::Runner;
use hoist_verify::linear_debug::{Lane, LinearTrace, trace};

/// A[r][c] summed over the terms.
fn dense(sys: &System) -> Vec<Vec<f64>> {
    let mut a = vec![vec![0.0; sys.m]; sys.m];
    for t in &sys.terms {
        for (r, row) in t.rows.iter().enumerate() {
            for &(c, v) in row {
                a[r][c] += v;
            }
        }
    }
    a
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * (1.0 + a.abs().max(b.abs()))
}

/// Checks one grouping's trace; returns the lanes checked.
fn check(label: &str, sys: &System, g: &Grouping, d3d: bool, rng: &mut Rng) -> usize {
    let runner = Runner::new(sys, g, d3d, false).unwrap_or_else(|e| panic!("{label}: {e}"));
    let x: Vec<f64> = (0..sys.m).map(|_| rng.unit() * 4.0 - 2.0).collect();
    let t = trace(&runner, sys, &x).unwrap();
    let run = runner.run(std::slice::from_ref(&x));
    for (i, (traced, ran)) in t.y.iter().zip(&run[0]).enumerate() {
        assert_eq!(
            *traced,
            (*ran as f32).to_bits(),
            "{label}: y{i} traced {} ran {ran}",
            f32::from_bits(*traced)
        );
    }
    assert_eq!(t.y.len(), sys.vars);
    // Every variable has one final lane; every lane of x is as loaded.
    for i in 0..sys.vars {
        let finals = t
            .rows
            .iter()
            .flat_map(|r| r.lanes)
            .filter(|l| *l == Lane::Final(i));
        assert_eq!(finals.count(), 1, "{label}: final lanes of y{i}");
    }
    let a = dense(sys);
    // The affine form of every row's lanes from traces at 0 and at the unit vectors.
    let at = |x: &[f64]| -> LinearTrace { trace(&runner, sys, x).unwrap() };
    let zero = at(&vec![0.0; sys.m]);
    let units: Vec<LinearTrace> = (0..sys.m)
        .map(|j| {
            let mut e = vec![0.0; sys.m];
            e[j] = 1.0;
            at(&e)
        })
        .collect();
    let mut checked = 0;
    for (k, row) in t.rows.iter().enumerate() {
        assert_eq!(zero.rows[k].lanes, row.lanes, "{label}: labels depend on x");
        for (l, lane) in row.lanes.iter().enumerate() {
            let v = |tr: &LinearTrace| f64::from(f32::from_bits(tr.rows[k].bits[l]));
            let c0 = v(&zero);
            let cs: Vec<f64> = units.iter().map(|u| v(u) - c0).collect();
            let what = format!("{label}: row {k} `{}` lane {l} ({lane:?})", row.op);
            match *lane {
                Lane::X(j) => {
                    assert_eq!(row.bits[l], (x[j] as f32).to_bits(), "{what}");
                    assert!(
                        cs.iter()
                            .enumerate()
                            .all(|(c, v)| close(*v, f64::from(c == j))),
                        "{what}"
                    );
                }
                Lane::Final(i) | Lane::Output(i) => {
                    assert!(close(c0, sys.b[i]), "{what}: b {c0} want {}", sys.b[i]);
                    for (c, v) in cs.iter().enumerate() {
                        assert!(
                            close(*v, a[i][c]),
                            "{what}: a[{i}][{c}] {v} want {}",
                            a[i][c]
                        );
                    }
                }
                Lane::Partial(i) | Lane::Term(i) => {
                    assert!(close(c0, sys.b[i]) || close(c0, 0.0), "{what}: b part {c0}");
                    for (c, v) in cs.iter().enumerate() {
                        assert!(
                            close(*v, a[i][c]) || close(*v, 0.0),
                            "{what}: a[{i}][{c}] part {v}"
                        );
                    }
                }
                Lane::Unused => continue,
            }
            checked += 1;
        }
    }
    checked
}

fn random_system(rng: &mut Rng, vars: usize) -> System {
    let a: Vec<Vec<f64>> = (0..vars)
        .map(|_| {
            (0..vars)
                .map(|_| {
                    if rng.below(3) == 0 {
                        (rng.unit() * 8.0 - 4.0).round() / 2.0
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let b: Vec<f64> = (0..vars)
        .map(|_| {
            if rng.below(2) == 0 {
                rng.unit() - 0.5
            } else {
                0.0
            }
        })
        .collect();
    System::from_dense("random", &a, &b)
}

fn shuffled(rng: &mut Rng, m: usize) -> Grouping {
    let mut perm: Vec<usize> = (0..m).collect();
    for i in (1..m).rev() {
        perm.swap(i, rng.below(i + 1));
    }
    Grouping { perm }
}

#[test]
fn paper_systems_trace_to_the_executor_with_true_labels() {
    let opts = SearchOptions {
        exact_budget: 2_000,
        schedule: Schedule {
            moves_per_var: 1,
            ..Schedule::default()
        },
        ..SearchOptions::default()
    };
    let mut rng = Rng::new(25);
    let (mut systems, mut lanes) = (0, 0);
    for name in paper::names() {
        let sys = paper::system(name).unwrap();
        if sys.groups() > 16 {
            continue;
        }
        let packed = hoist_opt::linear::optimize(&sys, &opts).grouping;
        for d3d in [false, true] {
            lanes += check(name, &sys, &Grouping::identity(sys.m), d3d, &mut rng);
            lanes += check(name, &sys, &packed, d3d, &mut rng);
        }
        systems += 1;
    }
    assert!(
        systems >= 3 && lanes > 500,
        "{systems} systems, {lanes} lanes"
    );
    eprintln!("paper: {systems} systems, {lanes} labelled lanes checked");
}

#[test]
fn generated_systems_trace_to_the_executor_with_true_labels() {
    let mut rng = Rng::new(0x25C);
    let mut lanes = 0;
    for case in 0..40 {
        let vars = 1 + rng.below(24);
        let sys = random_system(&mut rng, vars);
        let g = shuffled(&mut rng, sys.m);
        lanes += check(
            &format!("random {case} ({vars} vars)"),
            &sys,
            &g,
            case % 2 == 1,
            &mut rng,
        );
    }
    assert!(lanes > 1000, "{lanes} lanes");
    eprintln!("generated: 40 systems, {lanes} labelled lanes checked");
}

//! Proof by execution (seed 003): each paper system's original and packed programs, ARB
//! and Direct3D 9 vs_3_0, run
//! in the executor (`hoist_raster::probe::run_vertices`) on random x, and every y agrees,
//! up to the permutation, with A·x + b computed in f64 within a relative tolerance of
//! 1e-5 of Σ|a_rc·x_c| + |b_r| (f32 coefficients and the reordered sums round differently).
//! The emitted length is the model's cost plus the extras [`emit`] names.
#![cfg(not(target_arch = "wasm32"))]

use hoist_opt::linear::anneal::{Rng, Schedule};
use hoist_opt::linear::emit::unpermute;
use hoist_opt::linear::{Grouping, SearchOptions, System, optimize, paper};
use hoist_verify::linear::{Runner, sweep_step};

const VERTICES: usize = 8;
const TOL: f64 = 1e-5;

/// Runs the program for `g` on the x vectors and returns y per vertex, by variable.
fn execute(sys: &System, g: &Grouping, xs: &[Vec<f64>], d3d: bool) -> Vec<Vec<f64>> {
    Runner::new(sys, g, d3d, false).unwrap().run(xs)
}

fn execute_as(
    sys: &System,
    g: &Grouping,
    xs: &[Vec<f64>],
    d3d: bool,
    fixed: bool,
) -> Vec<Vec<f64>> {
    Runner::new(sys, g, d3d, fixed).unwrap().run(xs)
}

fn check(sys: &System, g: &Grouping, xs: &[Vec<f64>], label: &str) {
    for d3d in [false, true] {
        check_dialect(sys, g, xs, label, d3d);
    }
}

fn check_dialect(sys: &System, g: &Grouping, xs: &[Vec<f64>], label: &str, d3d: bool) {
    check_ys(
        sys,
        xs,
        &execute(sys, g, xs, d3d),
        &format!("{label} (d3d9: {d3d})"),
    );
}

fn check_ys(sys: &System, xs: &[Vec<f64>], ys: &[Vec<f64>], label: &str) {
    for (x, y) in xs.iter().zip(ys) {
        for (r, &got) in y.iter().enumerate() {
            let terms = sys.terms.iter().flat_map(|t| t.rows[r].iter());
            let want: f64 = terms.clone().map(|(c, v)| v * x[*c]).sum::<f64>() + sys.b[r];
            let scale: f64 = terms.map(|(c, v)| (v * x[*c]).abs()).sum::<f64>() + sys.b[r].abs();
            assert!(
                (got - want).abs() <= TOL * scale + 1e-6,
                "{} {label}: y[{r}] = {} but A·x + b = {want}",
                sys.name,
                got
            );
        }
    }
}

#[test]
fn packed_programs_compute_the_same_y_up_to_the_permutation() {
    let mut rng = Rng::new(11);
    let quick = SearchOptions {
        exact_budget: 20_000,
        schedule: Schedule {
            moves_per_var: 1,
            ..Schedule::default()
        },
        ..SearchOptions::default()
    };
    for name in paper::names() {
        let sys = paper::system(name).unwrap();
        let xs: Vec<Vec<f64>> = (0..VERTICES)
            .map(|_| (0..sys.m).map(|_| rng.unit() * 2.0 - 1.0).collect())
            .collect();
        check(&sys, &Grouping::identity(sys.m), &xs, "original");
        let sol = optimize(&sys, &quick);
        check(&sys, &sol.grouping, &xs, "packed");
    }
}

/// Fixed outputs: the packed code followed by the un-permute MOVs writes every y to its
/// original output register and lane; the MOVs are counted (one per output when nothing
/// moved, more when a group's variables come from several packed groups).
#[test]
fn unpermuted_outputs_hold_y_in_the_original_order() {
    let mut rng = Rng::new(12);
    let quick = SearchOptions {
        exact_budget: 20_000,
        schedule: Schedule {
            moves_per_var: 1,
            ..Schedule::default()
        },
        ..SearchOptions::default()
    };
    for name in paper::names() {
        let sys = paper::system(name).unwrap();
        let xs: Vec<Vec<f64>> = (0..VERTICES)
            .map(|_| (0..sys.m).map(|_| rng.unit() * 2.0 - 1.0).collect())
            .collect();
        let all: Vec<usize> = (0..sys.groups()).collect();
        let id = unpermute(&Grouping::identity(sys.m), &all, false);
        assert_eq!((id.moves, id.extra), (sys.groups(), 0), "{name}");
        let sol = optimize(&sys, &quick);
        let u = unpermute(&sol.grouping, &all, false);
        assert!(
            u.moves >= sys.groups() && u.moves <= 4 * sys.groups(),
            "{name}"
        );
        if sol.grouping.canonical() != Grouping::identity(sys.m) {
            assert!(u.extra > 0, "{name}: a regrouping must move something");
        }
        for d3d in [false, true] {
            let ys = execute_as(&sys, &sol.grouping, &xs, d3d, true);
            check_ys(&sys, &xs, &ys, &format!("unpermuted (d3d9: {d3d})"));
        }
    }
}

/// A random Gauss-Seidel system: up to five neighbours per row, |a| ≤ 0.2 (so a sweep
/// stays bounded), b in [−1, 1].
fn random_gauss_seidel(rng: &mut Rng, vars: usize) -> System {
    let rows = (0..vars)
        .map(|_| {
            let mut cols: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(vars)).collect();
            cols.sort_unstable();
            cols.dedup();
            cols.into_iter()
                .map(|c| (c, (rng.unit() * 0.4 - 0.2).max(-0.2)))
                .filter(|(_, v)| *v != 0.0)
                .collect()
        })
        .collect();
    let b = (0..vars).map(|_| rng.unit() * 2.0 - 1.0).collect();
    System::new("random-gs", rows, b, true, 1)
}

fn shuffled(rng: &mut Rng, m: usize) -> Grouping {
    let mut perm: Vec<usize> = (0..m).collect();
    for i in (1..m).rev() {
        perm.swap(i, rng.below(i + 1));
    }
    Grouping { perm }
}

/// The emitted Gauss-Seidel sweep (ARB and vs_3_0) computes, in the executor, the f64
/// sweep in the grouping's order (`sweep_step`), for the paper's system in its original,
/// packed and shuffled orders and for random systems in random orders; its length is the
/// model's cost plus its extras minus what it saves.
#[test]
fn gauss_seidel_sweeps_compute_the_sweep_in_their_order() {
    let mut rng = Rng::new(13);
    let gs = paper::system("gauss-seidel").unwrap();
    let packed = optimize(&gs, &SearchOptions::default()).grouping;
    let mut cases = vec![
        (gs.clone(), Grouping::identity(gs.m)),
        (gs.clone(), packed),
        (gs.clone(), shuffled(&mut rng, gs.m)),
    ];
    for k in 0..12 {
        let sys = random_gauss_seidel(&mut rng, 4 + 3 * k);
        let g = shuffled(&mut rng, sys.m);
        cases.push((sys.clone(), Grouping::identity(sys.m)));
        cases.push((sys, g));
    }
    for (sys, g) in &cases {
        let xs: Vec<Vec<f64>> = (0..VERTICES)
            .map(|_| (0..sys.m).map(|_| rng.unit() * 2.0 - 1.0).collect())
            .collect();
        for d3d in [false, true] {
            let ys = Runner::sweep(sys, g, d3d).unwrap().run(&xs);
            for (x, y) in xs.iter().zip(&ys) {
                let want = sweep_step(sys, &g.perm, x);
                let scale = 1.0 + want.iter().map(|v| v.abs()).fold(0.0, f64::max);
                let err = max_abs_diff(y, &want);
                assert!(
                    err <= 1e-5 * scale,
                    "{} {:?} (d3d9: {d3d}): sweep differs by {err}",
                    sys.name,
                    &g.perm[..4]
                );
            }
        }
    }
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max)
}

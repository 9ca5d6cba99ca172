//! Linear-expression code (seed 003, `hoist_opt::linear`) run in the executor, which
//! hoist-opt cannot call: [`Runner`] parses and compiles the emitted programs of a grouping
//! once (eight y groups per program, in the texture-coordinate outputs) and evaluates
//! y = A·x + b for many x ([`Runner::sweep`]: one Gauss-Seidel sweep in the grouping's
//! order); [`converge`] iterates original and packed code, feeding y back as x, to the
//! fixed point, which [`fixed_point`] solves in f64 (Gaussian elimination) to compare with;
//! [`sweep_step`] is the f64 sweep the executed one is checked against. The tests of
//! `hoist_opt::linear`, the command line and the page use it.

use hoist_asm::ir::Semantic;
use hoist_asm::{ArbTarget, ParseOptions, Program};
use hoist_opt::linear::emit::{
    Emitted, arb, arb_program, arb_program_unpermuted, arb_sweep, d3d9, d3d9_program,
    d3d9_program_unpermuted, d3d9_sweep,
};
use hoist_opt::linear::{Grouping, System, cost};
use hoist_raster::probe::{StageEnv, run_vertices};
use hoist_raster::raster::{CompiledProgram, out_semantic};
use hoist_raster::{ATTRIBS, Caps, GlState, StageParams};
use serde::Serialize;
use std::collections::BTreeMap;

/// The compiled programs evaluating y = A·x + b for one grouping.
pub struct Runner {
    g: Grouping,
    m: usize,
    fixed: bool,
    programs: Vec<(CompiledProgram, Program, Vec<usize>)>,
}

impl Runner {
    /// `fixed`: the outputs are fixed registers, written back in the original order by the
    /// un-permute MOVs (output slot k of a program holds original group `chunk[k]`).
    pub fn new(sys: &System, g: &Grouping, d3d: bool, fixed: bool) -> Result<Runner, String> {
        Runner::build(sys, g, d3d, fixed, false)
    }

    /// One Gauss-Seidel sweep in `g`'s order per run (`emit::arb_sweep`): y = x^(k+1) from
    /// x = x^(k). For a system without `split lower`, the same as [`Runner::new`].
    pub fn sweep(sys: &System, g: &Grouping, d3d: bool) -> Result<Runner, String> {
        Runner::build(sys, g, d3d, false, true)
    }

    fn build(
        sys: &System,
        g: &Grouping,
        d3d: bool,
        fixed: bool,
        sweep: bool,
    ) -> Result<Runner, String> {
        if sys.groups() > ATTRIBS {
            return Err(format!(
                "{}: the emitted code reads x from the {ATTRIBS} vertex attributes, so it runs \
                 systems of at most {} variables; this one has {}",
                sys.name,
                4 * ATTRIBS,
                sys.vars
            ));
        }
        let e: Emitted = match (d3d, sweep) {
            (false, false) => arb(sys, g),
            (true, false) => d3d9(sys, g),
            (false, true) => arb_sweep(sys, g),
            (true, true) => d3d9_sweep(sys, g),
        };
        let model = cost(sys, g) as usize / sys.repeat as usize;
        if e.instructions + e.saved != model + e.extra {
            return Err(format!(
                "{}: {} instructions emitted, the model counts {model} + {} extra",
                sys.name, e.instructions, e.extra
            ));
        }
        let n = sys.groups();
        let mut programs = Vec::new();
        for chunk in (0..n).collect::<Vec<_>>().chunks(8) {
            let src = match (d3d, fixed) {
                (true, false) => d3d9_program(&e, n, chunk),
                (false, false) => arb_program(&e, chunk),
                (true, true) => d3d9_program_unpermuted(&e, n, g, chunk),
                (false, true) => arb_program_unpermuted(&e, g, chunk),
            };
            let opts = ParseOptions::default().with_target(&src, ArbTarget::G80);
            let prog = hoist_asm::parse(&src, &opts).into_result().map_err(|d| {
                let first = d.iter().find(|d| d.is_error()).map(|d| d.message.clone());
                format!(
                    "{}: the emitted program does not parse: {}",
                    sys.name,
                    first.unwrap_or_default()
                )
            })?;
            let cp = CompiledProgram::new(&prog).map_err(|e| e.to_string())?;
            programs.push((cp, prog, chunk.to_vec()));
        }
        Ok(Runner {
            g: g.clone(),
            m: sys.m,
            fixed,
            programs,
        })
    }

    /// The grouping and the compiled programs (each with its parse and the y groups its
    /// texture-coordinate outputs carry), for the linear debugger.
    #[allow(clippy::type_complexity)]
    pub fn parts(&self) -> (&Grouping, &[(CompiledProgram, Program, Vec<usize>)]) {
        (&self.g, &self.programs)
    }

    /// The vertex attributes of x (by variable) in the packed layout.
    pub fn attribs(&self, x: &[f64]) -> [[f32; 4]; ATTRIBS] {
        let mut a = [[0.0f32; 4]; ATTRIBS];
        for (p, &v) in self.g.perm.iter().enumerate() {
            a[p / 4][p % 4] = x[v] as f32;
        }
        a
    }

    /// Calls `f` with the environment the system's programs run in: no parameters, GL
    /// state or textures (every input is an attribute).
    pub fn with_env<R>(f: impl FnOnce(&StageEnv) -> R) -> R {
        let (params, gl, tex, caps) = (
            StageParams::default(),
            GlState::default(),
            BTreeMap::new(),
            Caps::default(),
        );
        f(&StageEnv {
            params: &params,
            gl: &gl,
            textures: &tex,
            caps: &caps,
        })
    }

    /// y per x vector, by variable (x by variable too; the packed layout is applied here).
    pub fn run(&self, xs: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let attribs: Vec<[[f32; 4]; ATTRIBS]> = xs.iter().map(|x| self.attribs(x)).collect();
        Runner::with_env(|env| self.run_attribs(env, &attribs, xs.len()))
    }

    fn run_attribs(
        &self,
        env: &StageEnv,
        attribs: &[[[f32; 4]; ATTRIBS]],
        n: usize,
    ) -> Vec<Vec<f64>> {
        let mut ys = vec![vec![0.0; self.m]; n];
        for (cp, prog, chunk) in &self.programs {
            let run = run_vertices(cp, env, attribs);
            for (vi, outs) in run.outputs.iter().enumerate() {
                for (k, &gi) in chunk.iter().enumerate() {
                    let val = outs
                        .iter()
                        .find(|(r, _)| out_semantic(prog, *r) == Some(Semantic::TexCoord(k as u8)))
                        .map_or([f32::NAN; 4], |(_, v)| *v);
                    for (l, v) in val.iter().enumerate() {
                        let var = if self.fixed {
                            4 * gi + l
                        } else {
                            self.g.perm[4 * gi + l]
                        };
                        ys[vi][var] = f64::from(*v);
                    }
                }
            }
        }
        ys
    }
}

/// The outcome of iterating x ← A·x + b through the executor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Converged {
    pub iterations: usize,
    pub x: Vec<f64>,
    /// max |x_k+1 − x_k| at the end.
    pub step: f64,
}

/// Iterates from x = 0 until max |x_k+1 − x_k| ≤ `tol` or `max_iter` steps (a non-finite
/// step stops it too).
pub fn iterate(r: &Runner, m: usize, tol: f64, max_iter: usize) -> Converged {
    let mut x = vec![vec![0.0; m]];
    let mut step = f64::INFINITY;
    for it in 1..=max_iter {
        let y = r.run(&x);
        step = y[0]
            .iter()
            .zip(&x[0])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        x = y;
        if step <= tol || !step.is_finite() {
            return Converged {
                iterations: it,
                x: x.remove(0),
                step,
            };
        }
    }
    Converged {
        iterations: max_iter,
        x: x.remove(0),
        step,
    }
}

/// Original and packed code iterated to the fixed point: for a Gauss-Seidel system, the
/// sweep in the original order and in the packed order, and Jacobi beside them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Convergence {
    pub tolerance: f64,
    pub original: Converged,
    pub packed: Converged,
    /// max |x − x*| of each, x* the f64 fixed point (None when I − A is singular).
    pub original_error: Option<f64>,
    pub packed_error: Option<f64>,
    /// max |x_original − x_packed|.
    pub between: f64,
    /// Gauss-Seidel systems: the same matrix iterated as Jacobi (every entry reads x^(k),
    /// the original order's evaluation code) and its distance to x*.
    pub jacobi: Option<Converged>,
    pub jacobi_error: Option<f64>,
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max)
}

/// Iterates the original order's code and `g`'s from x = 0 (ARB code; a step is one run
/// of the vertex programs: one evaluation, or for a Gauss-Seidel system one sweep in that
/// grouping's order) until max |x_k+1 − x_k| ≤ `tol` or `max_iter` steps.
pub fn converge(
    sys: &System,
    g: &Grouping,
    tol: f64,
    max_iter: usize,
) -> Result<Convergence, String> {
    let id = Grouping::identity(sys.m);
    let original = iterate(&Runner::sweep(sys, &id, false)?, sys.m, tol, max_iter);
    let packed = iterate(&Runner::sweep(sys, g, false)?, sys.m, tol, max_iter);
    let jacobi = if sys.gauss_seidel() {
        Some(iterate(
            &Runner::new(sys, &id, false, false)?,
            sys.m,
            tol,
            max_iter,
        ))
    } else {
        None
    };
    let star = fixed_point(sys);
    let err = |c: &Converged| star.as_ref().map(|s| max_diff(&c.x, s));
    Ok(Convergence {
        tolerance: tol,
        original_error: err(&original),
        packed_error: err(&packed),
        between: max_diff(&original.x, &packed.x),
        jacobi_error: jacobi.as_ref().and_then(err),
        jacobi,
        original,
        packed,
    })
}

/// One Gauss-Seidel sweep in f64, in the order `perm`: each variable in turn becomes its
/// row of A·x + b, later rows reading the values already replaced.
pub fn sweep_step(sys: &System, perm: &[usize], x: &[f64]) -> Vec<f64> {
    let rows = sys.whole_rows();
    let mut x = x.to_vec();
    for &r in perm {
        x[r] = rows[r].iter().map(|(c, a)| a * x[*c]).sum::<f64>() + sys.b[r];
    }
    x
}

/// The fixed point x = A·x + b by Gaussian elimination with partial pivoting, in f64.
pub fn fixed_point(sys: &System) -> Option<Vec<f64>> {
    let m = sys.m;
    let mut a = vec![vec![0.0; m + 1]; m];
    for (r, row) in a.iter_mut().enumerate() {
        row[r] = 1.0;
        for t in &sys.terms {
            for (c, v) in &t.rows[r] {
                row[*c] -= v;
            }
        }
        row[m] = sys.b[r];
    }
    for col in 0..m {
        let p = (col..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[p][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, p);
        let pivot = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / pivot[col];
                for (x, p) in row.iter_mut().zip(&pivot).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..m).map(|r| a[r][m] / a[r][r]).collect())
}

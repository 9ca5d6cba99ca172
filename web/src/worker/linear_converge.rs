//! The linear mode's convergence (seed 003 §3.3, issue 11): the original and the packed ARB
//! code iterated in the executor from x₀ = 0, each step feeding y back as x, until
//! max |x_k+1 − x_k| ≤ [`TOLERANCE`] or [`MAX_STEPS`] steps, and both compared with the
//! fixed point x* = A·x* + b solved in f64 — `hoist_verify::linear::converge`, the same run
//! as `hoist linear --converge` and the Convergence table of docs/linear-results.md.
//! The worker runs it as a step of its own after the packing's result, so a newer edit
//! cancels it before it starts. [`convergence`] is the one call of the library.

use hoist_opt::linear::{Grouping, System};
use serde::{Deserialize, Serialize};

/// The step size at which an iteration stops.
pub const TOLERANCE: f64 = 1e-6;
/// The most steps an iteration runs (as the docs' table).
pub const MAX_STEPS: usize = 2000;
/// The examples whose system is an iteration x ← A·x + b (the others are single
/// evaluations, whose iteration need not converge).
pub const ITERATIVE: [&str; 4] = ["gauss-seidel", "jacobi", "fig10", "fig13"];

/// One program's iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    pub steps: usize,
    /// max |x_k+1 − x_k| of the last step.
    pub last_step: f64,
    /// max |x − x*| at the end (None: I − A is singular, no fixed point to compare).
    pub error: Option<f64>,
}

impl Iteration {
    /// The last step reached the tolerance.
    pub fn converged(&self) -> bool {
        self.last_step <= TOLERANCE
    }
}

/// Both programs iterated to the fixed point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvergenceView {
    pub tolerance: f64,
    pub max_steps: usize,
    pub original: Iteration,
    pub packed: Iteration,
    /// max |x_original − x_packed| at the end.
    pub between: f64,
    /// Time in the worker (ms).
    #[serde(default)]
    pub ms: f64,
}

impl ConvergenceView {
    /// The iterations in a few words, for the page and `hoistReport()`.
    pub fn headline(&self) -> String {
        let sci = crate::doc::linear_doc::sci;
        let one = |i: &Iteration| {
            let err = i.error.map_or("—".to_string(), sci);
            if i.converged() {
                format!("{} steps, max|x − x*| {err}", i.steps)
            } else {
                format!(
                    "NOT converged in {} steps (last step {})",
                    i.steps,
                    sci(i.last_step)
                )
            }
        };
        format!(
            "original: {}; packed: {}; max|x_original − x_packed| {}",
            one(&self.original),
            one(&self.packed),
            sci(self.between)
        )
    }

    /// Both reached the tolerance, and the same solution.
    pub fn agrees(&self) -> bool {
        self.original.converged()
            && self.packed.converged()
            && self.between <= 10.0 * TOLERANCE
            && [self.original.error, self.packed.error]
                .iter()
                .all(|e| e.is_none_or(|e| e <= 100.0 * TOLERANCE))
    }
}

/// Iterates the original order's code and grouping `g`'s to the fixed point.
pub fn convergence(sys: &System, g: &Grouping) -> Result<ConvergenceView, String> {
    let c = hoist_verify::linear::converge(sys, g, TOLERANCE, MAX_STEPS)?;
    let it = |r: &hoist_verify::linear::Converged, error| Iteration {
        steps: r.iterations,
        last_step: r.step,
        error,
    };
    Ok(ConvergenceView {
        tolerance: c.tolerance,
        max_steps: MAX_STEPS,
        original: it(&c.original, c.original_error),
        packed: it(&c.packed, c.packed_error),
        between: c.between,
        ms: 0.0,
    })
}

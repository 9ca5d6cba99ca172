//! The worker's measured costs for the executor choice (`hoist_raster::jit::choose`).
//!
//! The prediction starts from rates measured in the page's runtime ([`PRIOR`]), and every
//! finished run refines them from what it measured: a run the interpreter drew alone gives
//! the interpreter's rate (its time over the fragment instructions it executed), a run
//! drawn by compiled code alone gives the compiled rate (its time less the modules it
//! made), and each module made gives the price of making one per kernel instruction. A run
//! shared with helper workers gives no rate: its lead competed with them for the cores.
//! Each rate is a moving average, so one slow run (a cold engine, a busy
//! machine) moves the prediction but does not decide it.

use hoist_raster::jit::choose::Costs;

/// The rates before anything is measured, from BENCHMARKS.md ("Compiled kernels", the
/// browser table): gauss13 at 1024² (1,048,576 fragments × 41 instructions) drawn in 278 ms
/// by the interpreter through the page's runtime and in 104.6 ms compiled; its module
/// generated in 23.7 ms and instantiated in 3.4 ms.
pub const PRIOR: Costs = Costs {
    interp_ns: 6.5,
    compiled_ns: 2.4,
    make_ms: 2.0,
    make_ms_per_inst: 0.6,
};

/// Weight of a new measurement in the moving averages.
const WEIGHT: f64 = 0.3;

/// Fragment instructions below which a run's time says more about its set-up than its rate.
const MIN_WORK: f64 = 100_000.0;

/// What one finished run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// Shading by the interpreter and by compiled code: (fragment instructions, ms). A
    /// draw's set-up (vertices, textures, targets) is the same for both executors, so only
    /// the shading says what one saves over the other.
    pub shaded: [(f64, f64); 2],
    /// Modules made during the run (kernel instructions, ms).
    pub made: Vec<(usize, f64)>,
}

/// The costs, refined run by run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    pub costs: Costs,
    /// Runs that refined each rate (interpreter, compiled, making modules).
    pub seen: [u32; 3],
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration {
            costs: PRIOR,
            seen: [0; 3],
        }
    }
}

fn blend(old: f64, new: f64) -> f64 {
    if new.is_finite() && new > 0.0 {
        old + WEIGHT * (new - old)
    } else {
        old
    }
}

impl Calibration {
    /// Refines the costs with one run.
    pub fn observe(&mut self, o: &Observed) {
        let made_ms: f64 = o.made.iter().map(|m| m.1).sum();
        let insts: usize = o.made.iter().map(|m| m.0).sum();
        let c = &mut self.costs;
        if insts > 0 {
            let per_inst = ((made_ms - c.make_ms * o.made.len() as f64) / insts as f64).max(0.01);
            c.make_ms_per_inst = blend(c.make_ms_per_inst, per_inst);
            self.seen[2] += 1;
        }
        let [(iw, ims), (cw, cms)] = o.shaded;
        if iw >= MIN_WORK {
            c.interp_ns = blend(c.interp_ns, ims * 1e6 / iw);
            self.seen[0] += 1;
        }
        if cw >= MIN_WORK {
            c.compiled_ns = blend(c.compiled_ns, cms * 1e6 / cw);
            self.seen[1] += 1;
        }
    }
}

thread_local! {
    static CALIBRATION: std::cell::Cell<Calibration> = std::cell::Cell::new(Calibration::default());
}

/// This worker's calibration so far.
pub fn calibration() -> Calibration {
    CALIBRATION.with(std::cell::Cell::get)
}

/// Refines this worker's calibration with a finished run; the prediction uses it from the
/// next draw on when it is on ([`predict`]).
pub fn observe(o: &Observed) {
    let mut c = calibration();
    c.observe(o);
    CALIBRATION.with(|x| x.set(c));
    if hoist_raster::jit::choose::costs().is_some() {
        hoist_raster::jit::choose::set_costs(Some(c.costs));
    }
}

/// Turns the prediction on with this worker's costs (`false`: every kernel compiled).
pub fn predict(on: bool) {
    hoist_raster::jit::choose::set_costs(on.then(|| calibration().costs));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_refine_the_rate_they_measured_and_nothing_else() {
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let mut c = Calibration::default();
        // The interpreter shaded 1,000,000 fragment instructions in 50 ms: 50 ns each.
        c.observe(&Observed {
            shaded: [(1e6, 50.0), (0.0, 0.0)],
            made: Vec::new(),
        });
        assert!(near(
            c.costs.interp_ns,
            PRIOR.interp_ns + WEIGHT * (50.0 - PRIOR.interp_ns)
        ));
        assert_eq!(c.costs.compiled_ns, PRIOR.compiled_ns);
        // Compiled code shaded 2,000,000 in 10 ms (5 ns each), after making one module of
        // 20 instructions in the fixed price plus 20 ms (1 ms per instruction).
        c.observe(&Observed {
            shaded: [(0.0, 0.0), (2e6, 10.0)],
            made: vec![(20, PRIOR.make_ms + 20.0)],
        });
        assert!(near(
            c.costs.compiled_ns,
            PRIOR.compiled_ns + WEIGHT * (5.0 - PRIOR.compiled_ns)
        ));
        assert!(near(
            c.costs.make_ms_per_inst,
            PRIOR.make_ms_per_inst + WEIGHT * (1.0 - PRIOR.make_ms_per_inst)
        ));
        assert_eq!(c.seen, [1, 1, 1]);
        // Too little shading, and a nonsense time, refine no rate.
        let before = c;
        for shaded in [[(10.0, 5.0), (10.0, 5.0)], [(1e7, f64::NAN), (1e7, -1.0)]] {
            c.observe(&Observed {
                shaded,
                made: Vec::new(),
            });
        }
        assert_eq!(c.costs, before.costs);
    }
}

//! Whether a draw should pay for compiling its fragment kernel, by a measured prediction.
//!
//! Compiled code shades faster than the interpreter, but a kernel that is not loaded yet
//! must first be generated and instantiated, which can cost more than a small image saves
//! (a 256² quad of a short program on every keystroke). With [`Costs`] set on a thread (the
//! page's worker sets and refines them from its own renders), [`super::prepare_for`] weighs
//! the two for a kernel that is not ready: the saving is the draw's predicted fragment
//! instructions times the difference of the two per-instruction rates, the price is
//! the predicted time to make the module. It compiles when the saving pays the price,
//! counting the work already interpreted for the same kernel (rent or buy: a kernel drawn
//! again and again is compiled once the interpreting it cost would have paid for it).
//! A kernel whose module is loaded is always run compiled; without costs (natively, the
//! command line, the tests) every kernel is compiled as before. Either way the pixels are
//! the same: the two executors agree bit for bit.

use std::cell::{Cell, RefCell};

/// The measured rates the prediction uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// Interpreter and compiled code, nanoseconds per fragment instruction.
    pub interp_ns: f64,
    pub compiled_ns: f64,
    /// Making a module (code generation and loading): fixed, and per kernel instruction (ms).
    pub make_ms: f64,
    pub make_ms_per_inst: f64,
}

impl Costs {
    /// The predicted time to make the module of a kernel of `insts` instructions (ms).
    pub fn make(&self, insts: usize) -> f64 {
        self.make_ms + self.make_ms_per_inst * insts as f64
    }

    /// The predicted time compiled code saves over `work` fragment instructions (ms).
    pub fn saving(&self, work: f64) -> f64 {
        work * (self.interp_ns - self.compiled_ns).max(0.0) * 1e-6
    }
}

/// One decision, for the page to say why a draw was interpreted.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub insts: usize,
    /// Fragment instructions predicted for this draw, and interpreted before it.
    pub work: f64,
    pub before: f64,
    pub make_ms: f64,
    pub saving_ms: f64,
    pub compile: bool,
}

impl Choice {
    /// The reason, in words, of a draw left to the interpreter.
    pub fn reason(&self) -> String {
        format!(
            "predicted faster: making the module ≈ {:.1} ms, compiled code would save ≈ {:.1} ms",
            self.make_ms, self.saving_ms
        )
    }
}

/// Kernels interpreted so far by the prediction (key, fragment instructions), most recent last.
const RENTED_CAP: usize = 64;

thread_local! {
    static CLOCK: Cell<Option<fn() -> f64>> = const { Cell::new(None) };
    static MADE: RefCell<Vec<(usize, f64)>> = const { RefCell::new(Vec::new()) };
    static SHADED: Cell<[(f64, f64); 2]> = const { Cell::new([(0.0, 0.0); 2]) };
    static COSTS: Cell<Option<Costs>> = const { Cell::new(None) };
    static RENTED: RefCell<Vec<(String, f64)>> = const { RefCell::new(Vec::new()) };
    static CHOICES: RefCell<Vec<Choice>> = const { RefCell::new(Vec::new()) };
}

/// Sets (or with `None` clears) this thread's costs; without them every kernel is compiled.
pub fn set_costs(c: Option<Costs>) {
    COSTS.with(|x| x.set(c));
}

pub fn costs() -> Option<Costs> {
    COSTS.with(Cell::get)
}

/// Sets the clock (ms) that times the modules made after a decision ([`take_made`]) and the
/// draws' shading ([`take_shaded`]).
pub fn set_clock(now: Option<fn() -> f64>) {
    CLOCK.with(|c| c.set(now));
}

pub(crate) fn now() -> f64 {
    CLOCK.with(Cell::get).map_or(0.0, |f| f())
}

/// Records that a module for a kernel of `insts` instructions was made since `t0`.
pub(crate) fn made(insts: usize, t0: f64) {
    if let Some(f) = CLOCK.with(Cell::get) {
        MADE.with(|m| m.borrow_mut().push((insts, f() - t0)));
    }
}

/// Records shading that executed `work` fragment instructions since `t0`, by compiled code
/// or the interpreter (a draw's shading alone: its set-up is the same for both).
pub(crate) fn shaded(compiled: bool, work: u64, t0: f64) {
    if let Some(f) = CLOCK.with(Cell::get) {
        let ms = f() - t0;
        SHADED.with(|s| {
            let mut v = s.get();
            let e = &mut v[usize::from(compiled)];
            *e = (e.0 + work as f64, e.1 + ms);
            s.set(v);
        });
    }
}

/// Shading since the last call: (fragment instructions, ms) by the interpreter and by
/// compiled code, emptied.
pub fn take_shaded() -> [(f64, f64); 2] {
    SHADED.with(|s| s.replace([(0.0, 0.0); 2]))
}

/// Modules made since the last call (kernel instructions, ms to generate and load), emptied.
pub fn take_made() -> Vec<(usize, f64)> {
    MADE.with(|m| std::mem::take(&mut *m.borrow_mut()))
}

/// The decisions made since the last call, emptied.
pub fn take_choices() -> Vec<Choice> {
    CHOICES.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// Whether to compile a kernel of `insts` instructions keyed `key` for a draw of `work`
/// predicted fragment instructions; records the decision, and the rent when it says no.
pub(crate) fn decide(costs: &Costs, key: &str, insts: usize, work: f64) -> bool {
    // The kernel's rent so far leaves the list; it comes back (most recent) if it grows.
    let before = RENTED.with(|r| {
        let mut r = r.borrow_mut();
        let at = r.iter().position(|(k, _)| k == key);
        at.map_or(0.0, |i| r.remove(i).1)
    });
    let make_ms = costs.make(insts);
    let saving_ms = costs.saving(before + work);
    let compile = saving_ms >= make_ms;
    if !compile {
        RENTED.with(|r| {
            let mut r = r.borrow_mut();
            if r.len() >= RENTED_CAP {
                r.remove(0);
            }
            r.push((key.to_string(), before + work));
        });
    }
    CHOICES.with(|c| {
        c.borrow_mut().push(Choice {
            insts,
            work,
            before,
            make_ms,
            saving_ms,
            compile,
        })
    });
    compile
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Costs = Costs {
        interp_ns: 30.0,
        compiled_ns: 10.0,
        make_ms: 5.0,
        make_ms_per_inst: 0.5,
    };

    #[test]
    fn small_draws_rent_until_the_rent_pays_for_the_module() {
        take_choices();
        // 10 instructions: the module costs 10 ms; 20 ns saved per fragment instruction,
        // so 500,000 fragment instructions pay for it.
        let key = "k-small";
        assert!(!decide(&C, key, 10, 200_000.0));
        assert!(!decide(&C, key, 10, 200_000.0));
        // 400,000 interpreted before plus 200,000 now: 12 ms saved ≥ 10 ms.
        assert!(decide(&C, key, 10, 200_000.0));
        let ch = take_choices();
        assert_eq!(ch.len(), 3);
        assert_eq!(ch[2].before, 400_000.0);
        assert!((ch[2].saving_ms - 12.0).abs() < 1e-9 && ch[2].make_ms == 10.0);
        // Bought: the rent starts again from nothing.
        assert!(!decide(&C, key, 10, 200_000.0));
        assert_eq!(take_choices()[0].before, 0.0);
    }

    #[test]
    fn a_large_draw_compiles_at_once_and_kernels_rent_apart() {
        assert!(decide(&C, "k-large", 40, 10_000_000.0));
        assert!(!decide(&C, "k-a", 10, 300_000.0));
        assert!(!decide(&C, "k-b", 10, 300_000.0));
        assert!(decide(&C, "k-a", 10, 300_000.0));
        assert!(!take_choices()[1].reason().is_empty());
    }

    #[test]
    fn compiled_code_no_faster_never_pays() {
        let slow = Costs {
            compiled_ns: 40.0,
            ..C
        };
        assert_eq!(slow.saving(1e12), 0.0);
        assert!(!decide(&slow, "k-slow", 1, 1e12));
    }
}

//! Which executor drew an image: the fragment programs compiled to wasm
//! (`hoist_raster::jit`, loaded in the worker by `crate::worker::jit`), or the interpreter, and why.
//!
//! The renderer falls back to the interpreter silently (a refused kernel, a module the
//! engine would not load, a call that trapped), so the page asks afterwards: every fragment
//! program of the scene is compiled again here (code generation is cheap; the loaded module
//! is cached by the same hash), its refusal is the reason, and the runtime's log of the run
//! says whether loading or a call failed and whether compiled code ran at all. The page
//! shows the result next to the render times and in `hoistReport()`.

use hoist_raster::jit::{self, Exec};
use hoist_raster::scene::Scene;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The executor of one render.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Executor {
    /// Every fragment program ran as compiled code.
    Compiled,
    /// The interpreter drew at least part of the image, for this reason.
    Interpreter(String),
}

impl fmt::Display for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Executor::Compiled => write!(f, "compiled"),
            Executor::Interpreter(why) => write!(f, "interpreter: {why}"),
        }
    }
}

/// Test-only switches of the compiled executor (never set by a document): the end-to-end
/// test checks that the interpreter then draws the same image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Force {
    /// The runtime refuses every module.
    Refuse,
    /// The runtime hands `WebAssembly.Module` broken bytes, so the engine throws.
    Throw,
    /// Compiled execution off.
    Interpret,
    /// Every kernel compiled, whatever the prediction says (`crate::worker::choose`).
    Compile,
}

/// What the runtime saw during one render (`crate::worker::jit::take_log` in the worker).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Log {
    /// Batches run by compiled code, and batches that fell back after a failed call.
    pub compiled_batches: u64,
    pub fallback_batches: u64,
    /// Modules (by hash) that could not be loaded or whose call failed, with the reason.
    pub failures: Vec<(u64, String)>,
    /// Modules instantiated, and the milliseconds `WebAssembly.Module`/`Instance` took.
    pub instantiated: u32,
    pub instantiate_ms: f64,
    /// The executor choices of the draws (`hoist_raster::jit::choose`), the modules made
    /// after them (kernel instructions, ms to generate and load), and the shading.
    pub choices: Vec<hoist_raster::jit::choose::Choice>,
    pub made: Vec<(usize, f64)>,
    /// Shading by the interpreter and by compiled code: (fragment instructions, ms).
    pub shaded: [(f64, f64); 2],
}

/// The executor of a render of `scene` that ran with `exec`, the runtime's `log` of it.
pub fn describe(scene: &Scene, exec: Exec, log: &Log) -> Executor {
    if exec == Exec::Interp {
        return Executor::Interpreter("compiled execution is off".into());
    }
    let mut reasons: Vec<String> = Vec::new();
    let mut any = false;
    for sp in scene.programs.values().filter_map(|p| p.fragment.as_ref()) {
        let Ok(kernel) = hoist_raster::compile::compile(&sp.program) else {
            continue;
        };
        any = true;
        let why = match jit::compile(&kernel) {
            Err(r) => Some(r.to_string()),
            // The draw's module is compiled for its textures' modes (another hash than
            // this one when it samples inline): failures of this render are its.
            Ok(m) => log
                .failures
                .iter()
                .find(|(h, _)| *h == m.hash)
                .or(log.failures.first())
                .map(|(_, w)| w.clone()),
        };
        if let Some(w) = why
            && !reasons.contains(&w)
        {
            reasons.push(w);
        }
    }
    if !any {
        return Executor::Interpreter("no fragment program".into());
    }
    if reasons.is_empty()
        && let Some(c) = log.choices.iter().find(|c| !c.compile)
    {
        reasons.push(c.reason());
    }
    if reasons.is_empty() && log.fallback_batches > 0 {
        reasons.push(
            log.failures
                .last()
                .map_or_else(|| "a compiled call failed".into(), |(_, w)| w.clone()),
        );
    }
    if reasons.is_empty() && cfg!(target_arch = "wasm32") && log.compiled_batches == 0 {
        reasons.push("no compiled code ran".into());
    }
    if reasons.is_empty() {
        Executor::Compiled
    } else {
        Executor::Interpreter(reasons.join("; "))
    }
}

thread_local! {
    /// What the runtime did since the engine last asked.
    static LOG: std::cell::RefCell<Log> = std::cell::RefCell::new(Log::default());
}

/// The runtime's log since the last call, emptied (natively: nothing is logged).
pub fn take_log() -> Log {
    let mut log = LOG.with(|l| std::mem::take(&mut *l.borrow_mut()));
    log.choices = hoist_raster::jit::choose::take_choices();
    log.made = hoist_raster::jit::choose::take_made();
    log.shaded = hoist_raster::jit::choose::take_shaded();
    log
}

/// Records what the runtime (`crate::worker::jit`, in the worker) did.
pub fn record(f: impl FnOnce(&mut Log)) {
    LOG.with(|l| f(&mut l.borrow_mut()));
}

//! Compiles a straight-line [`Kernel`] into one WebAssembly module with SIMD128, so a
//! batch runs as one fused loop instead of one interpreter pass per instruction.
//!
//! The interpreter ([`crate::exec`]) stays the reference: the module computes exactly what
//! it computes, bit for bit (the same operation order, no fused multiply-add, `min`/`max`/
//! `_SAT`/compares written with compare + select so NaN and ±0 take the interpreter's
//! branch, transcendentals through the same `libm` functions). Whatever the compiler cannot
//! do yet it *refuses* ([`Refusal`]) and the caller falls back to the interpreter.
//!
//! # ABI (stable; changes are listed here first)
//! Lanes are invocations, four per `v128` (structure of arrays). The batch layout of
//! [`crate::raster`] puts one 2×2 quad in lanes `4q..4q+4` (lane = quad·4 + dy·2 + dx), so
//! one `v128` is one quad and derivatives stay inside a vector.
//!
//! **Imports** (module `env`):
//! - `memory`: the linear memory (`(import "env" "memory" (memory 1))`, 32-bit, no
//!   maximum). All pointers below are byte offsets into it, 16-byte aligned.
//! - `exp2f: (f32) -> f32`, `log2f: (f32) -> f32`, `powf: (f32, f32) -> f32`,
//!   `sinf: (f32) -> f32`, `cosf: (f32) -> f32`: must be exactly `libm::exp2f`,
//!   `libm::log2f`, `libm::powf`, `libm::sinf`, `libm::cosf` (what [`crate::alu`] calls);
//!   the dialect rules around them (`|x|`, zero cases) are compiled inline.
//! - `tex: (unit: i32, kind: i32, target: i32, quad: i32, out: i32) -> ()`: samples one
//!   quad the general way. `quad` points at 48 f32: coordinates `[c][lane]` (c = 0..4,
//!   lane = 0..4), then the x gradients and the y gradients in the same layout (used by
//!   `texldd` only); `out` receives 16 f32 `[c][lane]`. `kind` and `target` are
//!   [`abi::kind_code`]/[`abi::target_code`]; implement it with [`abi::sample_quad`].
//!   Called only for units whose descriptor mode is [`abi::MODE_GENERIC`] or for targets
//!   other than 2D ([`abi::inline_target`]); the host keeps the texture of every unit
//!   either can reach ([`abi::needs_general`]).
//!
//! **Export** `run(io, consts, tex, kill, scratch, lanes, flags: i32) -> ()`:
//! - `io`: the row file, [`Kernel::rows`] rows of [`LANES`] f32, row `r` lane `l` at
//!   `io + 4·(r·LANES + l)`. The host writes the input rows the module reads
//!   ([`Module::inputs`]: those of [`Kernel::inputs`] the program touches) before the
//!   call; the module writes all four rows of every output register ([`Kernel::outputs`]; components the program never writes are 0, as after
//!   [`crate::exec::Machine::reset`]). No other row is read or written: temporaries,
//!   address registers and constants live in locals.
//! - `consts`: the constant table, [`Kernel::const_len`] vec4 of f32 (16 bytes each).
//! - `tex`: 32 texture descriptors of 32 bytes, one per unit, see [`abi::TexDesc`].
//! - `kill`: [`LANES`] i32 written by the module: non-zero where the lane was discarded.
//! - `scratch`: 256 bytes the module may use (the `tex` import's `quad` and `out`).
//! - `lanes`: lanes to run, a multiple of 4, at most [`LANES`].
//! - `flags`: bit 0 = lanes form quads ([`ExecEnv::quads`]; without it derivatives are 0).
//!
//! **Modes.** [`compile_with`] compiles each unit's fetches for one descriptor mode
//! ([`abi::Modes`], from the textures a draw binds: [`abi::modes_for`]): one path per fetch,
//! no branch on the descriptor, and a fetch compiled for an inline mode reads only its s, t
//! (and projected q) rows. Such a module is run only for batches whose staged descriptors
//! are of those modes ([`abi::mode_fits`]); the host interprets the others. [`compile`]
//! ([`abi::MODE_ANY`] for every unit) branches on the descriptor at every fetch.
//!
//! [`abi::Layout`] places all of these in one block and [`abi::stage`]/[`abi::unstage`]
//! move a [`Machine`]'s rows in and out, so a backend only instantiates and calls.
//!
//! # Rust API
//! [`compile`] turns a kernel into a [`Module`] (or a [`Refusal`]). A [`KernelCompiler`]
//! loads modules into [`CompiledKernel`]s for one platform: natively wasmtime
//! ([`native`]); the page registers its own with [`set_compiler`]. [`prepare`] is what the
//! renderer calls: compile, load through the registered compiler (cached by hash), or refuse.

pub mod abi;
mod builder;
pub mod choose;
mod codegen;
mod module;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
mod ops;
mod texture;

use crate::compile::{Kernel, LANES};
use std::cell::RefCell;
use std::sync::Arc;

pub use crate::draw::Exec;
pub use module::{
    CompiledKernel, KernelCompiler, MAX_INSTS, MAX_LOCALS, Module, Refusal, Shareable, interpret,
};

thread_local! {
    static COMPILER: RefCell<Option<Arc<dyn KernelCompiler>>> = const { RefCell::new(None) };
    static DEFAULT_EXEC: std::cell::Cell<Exec> = const { std::cell::Cell::new(Exec::Interp) };
}

/// Sets the executor of draws that do not name one on this thread (scenes: `scene::run`
/// and `SceneJob`; a [`crate::draw::RenderConfig`] carries its own `exec`).
pub fn set_default_exec(e: Exec) {
    DEFAULT_EXEC.with(|x| x.set(e));
}

/// The executor [`set_default_exec`] chose ([`Exec::Interp`] until then).
pub fn default_exec() -> Exec {
    DEFAULT_EXEC.with(|x| x.get())
}

/// Registers the compiler [`prepare`] uses on this thread (natively the default is
/// [`native::Wasmtime`]; on wasm32 there is none until the page registers one).
pub fn set_compiler(c: Option<Arc<dyn KernelCompiler>>) {
    COMPILER.with(|x| *x.borrow_mut() = c);
}

fn current_compiler() -> Option<Arc<dyn KernelCompiler>> {
    if let Some(c) = COMPILER.with(|x| x.borrow().clone()) {
        return Some(c);
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        Some(native::shared())
    }
    #[cfg(target_arch = "wasm32")]
    {
        None
    }
}

/// Compiles `k` (once per thread for an unchanged kernel, see [`module_for`]) and loads it
/// with the current compiler.
pub fn prepare(k: &Kernel) -> Result<Arc<dyn CompiledKernel>, Refusal> {
    prepare_with(k, &abi::ANY_MODES)
}

/// [`prepare`] of a module whose fetches are compiled for `modes` ([`abi::Modes`]).
pub fn prepare_with(k: &Kernel, modes: &abi::Modes) -> Result<Arc<dyn CompiledKernel>, Refusal> {
    if k.has_flow {
        return Err(Refusal::Flow);
    }
    load_keyed(k, modes, kernel_key(k, modes))
}

/// [`prepare_with`] with the kernel's [`kernel_key`] already made.
fn load_keyed(
    k: &Kernel,
    modes: &abi::Modes,
    key: String,
) -> Result<Arc<dyn CompiledKernel>, Refusal> {
    let module = module_keyed(k, modes, key)?;
    let c = current_compiler()
        .ok_or_else(|| Refusal::Backend("no kernel compiler registered".into()))?;
    c.load(&module)
}

/// Kernels whose modules (or refusals) [`module_for`] keeps per thread.
pub const MODULE_CACHE_CAP: usize = 64;

/// A kernel's key and its module or refusal.
type ModuleEntry = (String, Result<Arc<Module>, Refusal>);

thread_local! {
    /// Most recently used last.
    static MODULES: RefCell<Vec<ModuleEntry>> =
        const { RefCell::new(Vec::new()) };
}

/// [`prepare_with`] for a draw of about `fragments` fragments: when this thread has
/// [`choose::Costs`] and the kernel's module is not loaded yet, only if the prediction says
/// compiling pays ([`choose`]); otherwise [`Refusal::Predicted`] and the interpreter draws.
pub fn prepare_for(
    k: &Kernel,
    fragments: f64,
    modes: &abi::Modes,
) -> Result<Arc<dyn CompiledKernel>, Refusal> {
    let Some(costs) = choose::costs() else {
        return prepare_with(k, modes);
    };
    if k.has_flow {
        return Err(Refusal::Flow);
    }
    let key = kernel_key(k, modes);
    if ready(&key) {
        return load_keyed(k, modes, key);
    }
    if !choose::decide(
        &costs,
        &key,
        k.insts.len(),
        fragments * k.insts.len() as f64,
    ) {
        return Err(Refusal::Predicted);
    }
    let t0 = choose::now();
    let r = load_keyed(k, modes, key);
    if r.is_ok() {
        choose::made(k.insts.len(), t0);
    }
    r
}

/// Whether the module of the kernel keyed `key` is made and loaded by the current compiler.
fn ready(key: &str) -> bool {
    let module = MODULES.with(|c| {
        let c = c.borrow();
        c.iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, m)| m.as_ref().ok().cloned())
    });
    module.is_some_and(|m| current_compiler().is_some_and(|c| c.loaded(m.hash)))
}

/// [`compile`], remembered per thread: a draw of a kernel this thread has compiled before
/// (every draw of a scene after the first, every keystroke that leaves the fragment
/// program as it was) reuses its module instead of generating it again. The key is the
/// kernel's whole text with immediates by their bits, so two kernels share a module only
/// when code generation would produce the same bytes.
pub fn module_for(k: &Kernel) -> Result<Arc<Module>, Refusal> {
    if k.has_flow {
        return Err(Refusal::Flow);
    }
    module_keyed(k, &abi::ANY_MODES, kernel_key(k, &abi::ANY_MODES))
}

/// [`module_for`] with the kernel's [`kernel_key`] already made.
fn module_keyed(k: &Kernel, modes: &abi::Modes, key: String) -> Result<Arc<Module>, Refusal> {
    MODULES.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
            let entry = cache.remove(i);
            let found = entry.1.clone();
            cache.push(entry);
            return found;
        }
        let made = compile_with(k, modes).map(Arc::new);
        if cache.len() >= MODULE_CACHE_CAP {
            drop(cache.remove(0));
        }
        cache.push((key, made.clone()));
        made
    })
}

/// Everything code generation reads from a kernel and its modes, as text (no field of it is
/// a float except the immediates, written by their bits so `-0.0` and NaN payloads stay
/// apart).
fn kernel_key(k: &Kernel, modes: &abi::Modes) -> String {
    use std::fmt::Write;
    let mut s = format!(
        "{:?} {:?} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {} {} {}",
        k.stage,
        k.dialect,
        k.rows,
        k.const_len,
        k.insts,
        k.inputs,
        k.outputs,
        k.reset,
        k.samplers,
        k.reads,
        k.has_kill,
        k.has_derivs,
        k.main_end
    );
    if modes != &abi::ANY_MODES {
        let _ = write!(s, " modes {modes:?}");
    }
    for f in &k.const_fills {
        let _ = write!(
            s,
            " {}:{:?}:{:08x}:{}:{}",
            f.row,
            f.slot,
            f.imm.to_bits(),
            f.neg,
            f.abs
        );
    }
    s
}

/// Compiles a kernel to a WebAssembly module that reads each unit's mode at run time, or
/// refuses.
pub fn compile(k: &Kernel) -> Result<Module, Refusal> {
    compile_with(k, &abi::ANY_MODES)
}

/// [`compile`] with the fetches of each unit compiled for its mode in `modes`.
pub fn compile_with(k: &Kernel, modes: &abi::Modes) -> Result<Module, Refusal> {
    if k.has_flow {
        return Err(Refusal::Flow);
    }
    if k.insts.len() > MAX_INSTS {
        return Err(Refusal::TooLarge {
            what: "instructions",
            n: k.insts.len(),
            cap: MAX_INSTS,
        });
    }
    let made = codegen::module(k, modes)?;
    Ok(Module {
        hash: fnv1a(&made.wasm),
        wasm: made.wasm,
        rows: k.rows,
        const_len: k.const_len,
        locals: made.locals,
        modes: *modes,
        inputs: made.inputs,
    })
}

/// FNV-1a, 64 bits: the project's one hash.
pub use hoist_asm::hash::fnv1a;

const _: () = assert!(LANES.is_multiple_of(4));

//! What the compiled executor's parts agree on: the caps, the module a kernel compiles to,
//! why one is refused, and the traits through which a platform loads and runs modules
//! (natively [`super::native`], in the page the worker's runtime).

use crate::compile::Kernel;
use crate::exec::{ExecEnv, Machine, Mask};
use std::fmt;
use std::sync::Arc;

/// Largest kernel compiled, in kernel instructions.
pub const MAX_INSTS: usize = 4096;
/// Largest number of `v128` locals a module may use.
pub const MAX_LOCALS: usize = 20_000;

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Module {
    /// The WebAssembly binary.
    pub wasm: Vec<u8>,
    /// FNV-1a of `wasm`: the cache key.
    pub hash: u64,
    /// Rows of the row file (`Kernel::rows`).
    pub rows: usize,
    /// Constant table entries read (`Kernel::const_len`).
    pub const_len: usize,
    /// `v128` locals the function uses.
    pub locals: usize,
    /// The descriptor modes the fetches were compiled for ([`super::abi::Modes`]).
    pub modes: super::abi::Modes,
    /// The input rows the module reads: the host stages these and no others
    /// ([`super::abi::stage_inputs`]).
    pub inputs: Vec<crate::compile::R>,
}

/// Why a kernel is not compiled (the interpreter runs it instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// D3D9 flow control or predication.
    Flow,
    /// Over a size cap.
    TooLarge {
        what: &'static str,
        n: usize,
        cap: usize,
    },
    /// An operation or addressing form the compiler does not handle.
    Unsupported(String),
    /// No compiler is available on this platform, or loading the module failed.
    Backend(String),
    /// The prediction ([`super::choose`]) said making the module costs more than it saves.
    Predicted,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Flow => write!(f, "flow control and predication are interpreted"),
            Refusal::TooLarge { what, n, cap } => write!(f, "{n} {what} exceed the cap of {cap}"),
            Refusal::Unsupported(s) => write!(f, "not compiled: {s}"),
            Refusal::Backend(s) => write!(f, "no compiled code: {s}"),
            Refusal::Predicted => write!(f, "compiling was predicted not to pay"),
        }
    }
}

/// Thread-safe where threads exist (native renders share kernels across rayon threads);
/// nothing on wasm32, where JS objects are neither `Send` nor `Sync`.
#[cfg(not(target_arch = "wasm32"))]
pub trait Shareable: Send + Sync {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send + Sync + ?Sized> Shareable for T {}
#[cfg(target_arch = "wasm32")]
pub trait Shareable {}
#[cfg(target_arch = "wasm32")]
impl<T: ?Sized> Shareable for T {}

/// A loaded module. `run` does what [`Machine::run`] does for the same kernel: after the
/// input rows are set, it leaves the output rows and [`Machine::killed`] as the
/// interpreter would after [`Machine::reset`], and adds the statistics. The caller need not
/// reset the machine: the module keeps its temporaries to itself, and a batch that falls
/// back to the interpreter is reset first ([`Machine::reset`] leaves the inputs alone). Per-thread state
/// (an instance and its memory) may be kept in [`Machine::backend`].
pub trait CompiledKernel: Shareable {
    fn run(&self, m: &mut Machine, k: &Kernel, env: &ExecEnv, live: &Mask);
}

/// What a [`CompiledKernel`] does with a batch it cannot run: the interpreter's run, after
/// the reset its caller skipped.
pub fn interpret(m: &mut Machine, k: &Kernel, env: &ExecEnv, live: &Mask) {
    m.reset(k);
    m.run(k, env, live);
}

/// Loads modules for one platform.
pub trait KernelCompiler: Shareable {
    fn load(&self, module: &Module) -> Result<Arc<dyn CompiledKernel>, Refusal>;
    /// Whether the module hashed `hash` is loaded already, so using it costs nothing more.
    fn loaded(&self, _hash: u64) -> bool {
        false
    }
}

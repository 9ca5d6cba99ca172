//! The compiled executor's runtime in the worker (wasm32 only): loads the wasm modules the
//! raster JIT makes from kernels (`hoist_raster::jit`) into the running program.
//!
//! A module is compiled with `WebAssembly.Module` and instantiated with
//! `WebAssembly.Instance`; its imports are satisfied from this program itself:
//! - every memory import gets this program's own memory (`wasm_bindgen::memory()`), so the
//!   compiled code reads and writes the executor's rows in place, with no copies;
//! - every function import `env.<name>` gets one of this program's exports listed in
//!   [`TRANSCENDENTALS`] (`#[wasm_bindgen]` functions that call the same `hoist_asm::semantics`
//!   and libm code the interpreter calls). The exported function objects are passed in the
//!   import object as they are, so the engine links them wasm to wasm and the results are
//!   bit-identical to the interpreter's.
//!
//! - `env.tex` (the general sampler for textures the module does not sample inline) is
//!   [`hoist_jit_tex`], which reads the quad from the calling machine's block and samples
//!   with `hoist_raster::jit::abi::sample_quad`, the interpreter's sampler.
//!
//! An unknown import, a module the engine rejects, or a missing export is an error the
//! caller answers by interpreting. Instances are cached by a hash of the module's bytes
//! ([`Cache`], least recently used first out), so an unchanged program costs nothing on the
//! next keystroke.
//!
//! [`Browser`] is the `hoist_raster::jit::KernelCompiler` of the page ([`install`] registers
//! it for the worker's thread). Its kernels keep, per [`Machine`], one 16-byte-aligned block
//! in this program's memory laid out by `abi::Layout` (rows, constants, texture
//! descriptors, kill mask, scratch); inline-sampled textures are not copied: their
//! descriptors point at the texels where the executor keeps them. A call that throws (a
//! trap) makes the kernel fall back to the interpreter for the batch and for the rest of the
//! draw. Everything is recorded in a [`Log`] the engine reads after each render
//! (`crate::worker::executor`).

use crate::worker::executor::{Force, Log};
use hoist_raster::alu;
use hoist_raster::compile::{Kernel, LANES};
use hoist_raster::exec::{ExecEnv, Machine, Mask};
use hoist_raster::jit::abi::{self, Layout, TexDesc};
use hoist_raster::jit::{self, CompiledKernel, Exec, KernelCompiler, Module, Refusal};
use hoist_raster::texture::Texture;
use js_sys::{Function, Object, Reflect, WebAssembly};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// `env.<name>` imports a compiled module may ask for, and this program's export that
/// provides each.
pub const TRANSCENDENTALS: &[(&str, &str)] = &[
    ("exp2f", "hoist_jit_exp2f"),
    ("log2f", "hoist_jit_log2f"),
    ("powf", "hoist_jit_powf"),
    ("sinf", "hoist_jit_sinf"),
    ("cosf", "hoist_jit_cosf"),
    ("tex", "hoist_jit_tex"),
];

/// `libm::exp2f` through the interpreter's `EX2`.
#[wasm_bindgen]
pub fn hoist_jit_exp2f(x: f32) -> f32 {
    alu::ex2(x)
}

/// `libm::log2f` (ARB `LG2`, which applies no other rule).
#[wasm_bindgen]
pub fn hoist_jit_log2f(x: f32) -> f32 {
    alu::lg2(x, hoist_asm::Dialect::Arb)
}

/// `libm::powf` (ARB `POW`, which applies no other rule).
#[wasm_bindgen]
pub fn hoist_jit_powf(x: f32, y: f32) -> f32 {
    alu::pow(x, y, hoist_asm::Dialect::Arb)
}

#[wasm_bindgen]
pub fn hoist_jit_sinf(x: f32) -> f32 {
    alu::sin(x)
}

#[wasm_bindgen]
pub fn hoist_jit_cosf(x: f32) -> f32 {
    alu::cos(x)
}

/// An instantiated module and its entry point.
pub struct Loaded {
    pub instance: WebAssembly::Instance,
    pub run: Function,
    /// Milliseconds spent in `WebAssembly.Module` + `WebAssembly.Instance`.
    pub instantiate_ms: f64,
}

fn js_error(what: &str, e: &JsValue) -> String {
    let msg = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    format!("{what}: {msg}")
}

fn get(o: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(o, &JsValue::from_str(key))
        .ok()
        .filter(|v| !v.is_undefined())
}

/// The import object for `module`: memory and the transcendentals from this program.
fn imports_for(module: &WebAssembly::Module) -> Result<Object, String> {
    let own = wasm_bindgen::exports();
    let namespaces = Object::new();
    for desc in WebAssembly::Module::imports(module).iter() {
        let field = |k| {
            get(&desc, k)
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        };
        let (ns, name, kind) = (field("module"), field("name"), field("kind"));
        let value = match kind.as_str() {
            "memory" => wasm_bindgen::memory(),
            "function" => {
                let export = TRANSCENDENTALS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, e)| *e)
                    .ok_or_else(|| {
                        format!(
                            "the module imports `{ns}.{name}`, which the runtime does not provide"
                        )
                    })?;
                get(&own, export)
                    .ok_or_else(|| format!("this program does not export `{export}`"))?
            }
            _ => return Err(format!("the module imports {kind} `{ns}.{name}`")),
        };
        let table = match get(&namespaces, &ns) {
            Some(t) => t,
            None => {
                let t: JsValue = Object::new().into();
                Reflect::set(&namespaces, &JsValue::from_str(&ns), &t)
                    .map_err(|e| js_error("import object", &e))?;
                t
            }
        };
        Reflect::set(&table, &JsValue::from_str(&name), &value)
            .map_err(|e| js_error("import object", &e))?;
    }
    Ok(namespaces)
}

/// Compiles and instantiates `bytes`, linked to this program; `entry` names the exported
/// function to call.
pub fn instantiate(bytes: &[u8], entry: &str, now: &dyn Fn() -> f64) -> Result<Loaded, String> {
    let t0 = now();
    let buf = js_sys::Uint8Array::from(bytes);
    let module = WebAssembly::Module::new(&buf).map_err(|e| js_error("WebAssembly.Module", &e))?;
    let imports = imports_for(&module)?;
    let instance = WebAssembly::Instance::new(&module, &imports)
        .map_err(|e| js_error("WebAssembly.Instance", &e))?;
    let run = get(&WebAssembly::Instance::exports(&instance), entry)
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| format!("the module exports no function `{entry}`"))?;
    Ok(Loaded {
        instance,
        run,
        instantiate_ms: now() - t0,
    })
}

/// A 64-bit FNV-1a hash of a module's bytes (the project's one hash): the cache key.
pub use hoist_asm::hash::fnv1a as hash;

/// Instances by module hash, at most `cap`, the least recently used dropped first. A
/// module that failed to load is remembered too (with its error), so a refused program is
/// not compiled again on every draw.
pub struct Cache {
    cap: usize,
    /// Most recently used last.
    entries: Vec<(u64, Result<Rc<Loaded>, String>)>,
    pub hits: u64,
    pub misses: u64,
}

impl Cache {
    pub fn new(cap: usize) -> Cache {
        Cache {
            cap: cap.max(1),
            entries: Vec::new(),
            hits: 0,
            misses: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `key` is cached (without touching its age).
    pub fn contains(&self, key: u64) -> bool {
        self.entries.iter().any(|(k, _)| *k == key)
    }

    /// The instance for `key`, made by `load` when it is not cached.
    pub fn get_or_load(
        &mut self,
        key: u64,
        load: impl FnOnce() -> Result<Loaded, String>,
    ) -> Result<Rc<Loaded>, String> {
        if let Some(i) = self.entries.iter().position(|(k, _)| *k == key) {
            self.hits += 1;
            let e = self.entries.remove(i);
            let r = e.1.clone();
            self.entries.push(e);
            return r;
        }
        self.misses += 1;
        let r = load().map(Rc::new);
        if self.entries.len() >= self.cap {
            drop(self.entries.remove(0));
        }
        self.entries.push((key, r.clone()));
        r
    }
}

/// Modules kept instantiated in the worker.
pub const CACHE_CAP: usize = 64;

thread_local! {
    /// The machine state of the call under way, for [`hoist_jit_tex`].
    static ACTIVE: RefCell<Option<Box<State>>> = const { RefCell::new(None) };
    /// The test switch of the job under way.
    static FORCE: Cell<Option<Force>> = const { Cell::new(None) };
}

/// The log since the last call, emptied (`crate::worker::executor` keeps it).
pub fn take_log() -> Log {
    crate::worker::executor::take_log()
}

fn log(f: impl FnOnce(&mut Log)) {
    crate::worker::executor::record(f);
}

/// Registers [`Browser`] as this thread's kernel compiler and makes compiled execution the
/// default of scenes drawn on it.
pub fn install(now: fn() -> f64) {
    // Arc is the hook's type; on wasm32 nothing crosses threads.
    #[allow(clippy::arc_with_non_send_sync)]
    let c = Arc::new(Browser::new(CACHE_CAP, now));
    hoist_raster::jit::set_compiler(Some(c));
    hoist_raster::jit::choose::set_clock(Some(now));
    configure(None);
}

/// The test switch in force (what helpers are told to apply).
pub fn forced() -> Option<Force> {
    FORCE.with(|f| f.get())
}

/// Applies a job's test switch (`None`: compiled, as normal).
pub fn configure(force: Option<Force>) {
    if FORCE.with(|f| f.replace(force)) != force {
        // Runs kept under another executor's switch would answer for this one.
        crate::worker::render::forget_runs();
    }
    // A test switch measures one executor: no prediction in between.
    crate::worker::choose::predict(force.is_none());
    hoist_raster::jit::set_default_exec(if force == Some(Force::Interpret) {
        Exec::Interp
    } else {
        Exec::Compiled
    });
}

#[wasm_bindgen]
extern "C" {
    /// A module's exported `run`, called with numbers only (no boxing per call).
    type RunFn;
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(method, catch, js_name = call)]
    fn call_run(
        this: &RunFn,
        ctx: &JsValue,
        io: u32,
        consts: u32,
        tex: u32,
        kill: u32,
        scratch: u32,
        lanes: u32,
        flags: u32,
    ) -> Result<(), JsValue>;
}

/// The page's kernel compiler: instantiates modules in this program, cached.
pub struct Browser {
    cache: RefCell<Cache>,
    now: fn() -> f64,
}

impl Browser {
    pub fn new(cap: usize, now: fn() -> f64) -> Browser {
        Browser {
            cache: RefCell::new(Cache::new(cap)),
            now,
        }
    }

    fn instantiate_logged(&self, bytes: &[u8]) -> Result<Loaded, String> {
        let l = instantiate(bytes, "run", &self.now)?;
        log(|g| {
            g.instantiated += 1;
            g.instantiate_ms += l.instantiate_ms;
        });
        Ok(l)
    }
}

impl KernelCompiler for Browser {
    fn load(&self, module: &Module) -> Result<Arc<dyn CompiledKernel>, Refusal> {
        let r = match FORCE.with(Cell::get) {
            Some(Force::Refuse) => Err("forced refusal (test switch)".to_string()),
            Some(Force::Throw) => self
                .instantiate_logged(&module.wasm[..module.wasm.len() / 2])
                .map(Rc::new),
            _ => self
                .cache
                .borrow_mut()
                .get_or_load(module.hash, || self.instantiate_logged(&module.wasm)),
        };
        match r {
            Ok(loaded) => {
                // Arc is the hook's type; on wasm32 nothing crosses threads.
                #[allow(clippy::arc_with_non_send_sync)]
                let k = Arc::new(BrowserKernel {
                    loaded,
                    hash: module.hash,
                    modes: module.modes,
                    inputs: module.inputs.clone(),
                    broken: Cell::new(false),
                });
                Ok(k)
            }
            Err(e) => {
                log(|g| g.failures.push((module.hash, e.clone())));
                Err(Refusal::Backend(e))
            }
        }
    }

    fn loaded(&self, hash: u64) -> bool {
        FORCE.with(Cell::get).is_none() && self.cache.borrow().contains(hash)
    }
}

/// A module instantiated in this program.
pub struct BrowserKernel {
    loaded: Rc<Loaded>,
    hash: u64,
    /// The descriptor modes the module's fetches were compiled for.
    modes: abi::Modes,
    /// The input rows the module reads.
    inputs: Vec<hoist_raster::compile::R>,
    /// A call threw: the rest of the draw is interpreted.
    broken: Cell<bool>,
}

/// One machine's block in this program's memory and the textures sampled through
/// `env.tex`.
struct State {
    hash: u64,
    layout: Layout,
    block: Vec<u8>,
    /// From the start of `block` to its first 16-byte-aligned byte.
    off: usize,
    /// Per unit: the texture's identity and a copy, for the general sampler.
    generic: Vec<Option<((usize, usize), Texture)>>,
    quads: bool,
}

impl State {
    fn new(k: &Kernel, hash: u64) -> State {
        let layout = Layout::new(k);
        let block = vec![0u8; layout.bytes + 16];
        let addr = block.as_ptr() as usize;
        State {
            hash,
            layout,
            off: addr.next_multiple_of(16) - addr,
            block,
            generic: vec![None; abi::UNITS],
            quads: true,
        }
    }

    /// The address of the block's aligned start in this program's memory.
    fn base(&self) -> usize {
        self.block.as_ptr() as usize + self.off
    }

    fn mem(&mut self) -> &mut [u8] {
        &mut self.block[self.off..]
    }
}

/// Writes the descriptors of the units `k` samples: inline textures by the address of their
/// texels, the others for [`hoist_jit_tex`] (copied once per texture). Returns whether each
/// is of the mode the module was compiled for (`modes`).
fn stage_textures(s: &mut State, k: &Kernel, env: &ExecEnv, modes: &abi::Modes) -> bool {
    let mut fits = true;
    for &(unit, _) in &k.samplers {
        let u = unit as usize;
        if u >= abi::UNITS {
            continue;
        }
        let tex = env.textures.get(u).copied().flatten();
        let texels = tex
            .and_then(|t| t.levels.first())
            .map_or(0, |l| l.texels.as_ptr() as usize);
        let desc = match u32::try_from(texels) {
            Ok(at) => TexDesc::for_texture(tex, at),
            Err(_) => TexDesc::default(),
        };
        if abi::needs_general(k, unit, &desc) {
            let key = tex.map_or((0, 0), abi::texture_key);
            if s.generic[u].as_ref().map(|(k, _)| *k) != Some(key) {
                s.generic[u] = tex.map(|t| (key, t.clone()));
            }
        }
        fits &= abi::mode_fits(modes, u, &desc);
        let at = s.layout.tex + u * abi::DESC_BYTES;
        s.mem()[at..at + abi::DESC_BYTES].copy_from_slice(&desc.to_bytes());
    }
    fits
}

impl CompiledKernel for BrowserKernel {
    fn run(&self, m: &mut Machine, k: &Kernel, env: &ExecEnv, live: &Mask) {
        if self.broken.get() {
            log(|g| g.fallback_batches += 1);
            return jit::interpret(m, k, env, live);
        }
        let fresh = !matches!(
            m.backend.as_ref().and_then(|b| b.downcast_ref::<State>()),
            Some(s) if s.hash == self.hash
        );
        if fresh {
            m.backend = Some(Box::new(State::new(k, self.hash)));
        }
        let Some(mut s) = m.backend.take().and_then(|b| b.downcast::<State>().ok()) else {
            return jit::interpret(m, k, env, live);
        };
        s.quads = env.quads;
        if !stage_textures(&mut s, k, env, &self.modes) {
            m.backend = Some(s);
            log(|g| g.fallback_batches += 1);
            return jit::interpret(m, k, env, live);
        }
        let l = s.layout;
        abi::stage_inputs(m, &self.inputs, s.mem(), &l);
        abi::stage_consts(k, env, s.mem(), &l);
        let at = |o: usize| (s.base() + o) as u32;
        let args = [at(l.io), at(l.consts), at(l.tex), at(l.kill), at(l.scratch)];
        let run = self.loaded.run.clone();
        ACTIVE.with(|a| *a.borrow_mut() = Some(s));
        let r = run.unchecked_ref::<RunFn>().call_run(
            &JsValue::NULL,
            args[0],
            args[1],
            args[2],
            args[3],
            args[4],
            LANES as u32,
            u32::from(env.quads),
        );
        let Some(mut s) = ACTIVE.with(|a| a.borrow_mut().take()) else {
            return jit::interpret(m, k, env, live);
        };
        match r {
            Ok(()) => {
                abi::unstage(m, k, s.mem(), &l, LANES);
                abi::count(m, k, live);
                log(|g| g.compiled_batches += 1);
                m.backend = Some(s);
            }
            Err(e) => {
                self.broken.set(true);
                let why = js_error("the compiled code failed", &e);
                log(|g| {
                    g.fallback_batches += 1;
                    g.failures.push((self.hash, why));
                });
                m.backend = Some(s);
                jit::interpret(m, k, env, live);
            }
        }
    }
}

/// `env.tex`: samples one quad for the call under way (its block holds the quad at `quad`
/// and receives the result at `out`) with the interpreter's sampler.
#[wasm_bindgen]
pub fn hoist_jit_tex(unit: i32, kind: i32, target: i32, quad: i32, out: i32) {
    ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        let Some(s) = a.as_mut() else { return };
        let base = s.base();
        let (q, o) = (quad as u32 as usize, out as u32 as usize);
        let (Some(q), Some(o)) = (q.checked_sub(base), o.checked_sub(base)) else {
            return;
        };
        let State {
            generic,
            block,
            off,
            quads,
            ..
        } = &mut **s;
        let tex = generic
            .get(unit as u32 as usize)
            .and_then(|t| t.as_ref().map(|(_, t)| t));
        abi::tex_call(&mut block[*off..], tex, (kind, target), q, o, *quads);
    });
}

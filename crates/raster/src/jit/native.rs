//! Native execution of compiled kernels with wasmtime (Cranelift): one code generator for
//! the page and the command line. Modules are compiled once per process and cached by hash;
//! each [`Machine`] (one per rendering thread) keeps its own store, memory and instance in
//! [`Machine::backend`], so threads never share mutable state. When a machine is dropped its
//! instance goes back to a small per-thread pool, so the next draw of the same module on that
//! thread reuses the instance and its grown memory instead of faulting in fresh pages; what
//! it staged (textures, descriptors) is forgotten and staged again.

use super::abi::{self, Layout, TexDesc};
use super::module::{CompiledKernel, KernelCompiler, Module, Refusal, interpret};
use crate::compile::{Kernel, LANES};
use crate::exec::{ExecEnv, Machine, Mask};
use crate::texture::Texture;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use wasmtime::{Caller, Config, Engine, Linker, Memory, MemoryType, Store, TypedFunc};

type RunFn = TypedFunc<(i32, i32, i32, i32, i32, i32, i32), ()>;

/// The wasmtime compiler with its module cache.
pub struct Wasmtime {
    engine: Engine,
    cache: Mutex<HashMap<u64, Arc<WasmtimeKernel>>>,
}

/// Bound on cached modules (the cache is cleared when it fills).
const CACHE_CAP: usize = 512;

/// The process-wide compiler.
pub fn shared() -> Arc<dyn KernelCompiler> {
    static W: OnceLock<Arc<Wasmtime>> = OnceLock::new();
    W.get_or_init(|| Arc::new(Wasmtime::new())).clone()
}

impl Default for Wasmtime {
    fn default() -> Self {
        Wasmtime::new()
    }
}

impl Wasmtime {
    pub fn new() -> Wasmtime {
        let mut cfg = Config::new();
        cfg.wasm_simd(true);
        cfg.cranelift_opt_level(wasmtime::OptLevel::Speed);
        let engine = Engine::new(&cfg).unwrap_or_default();
        Wasmtime {
            engine,
            cache: Mutex::new(HashMap::new()),
        }
    }
}

impl KernelCompiler for Wasmtime {
    fn load(&self, module: &Module) -> Result<Arc<dyn CompiledKernel>, Refusal> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = cache.get(&module.hash)
            && k.wasm == module.wasm
        {
            return Ok(k.clone());
        }
        let m = wasmtime::Module::new(&self.engine, &module.wasm)
            .map_err(|e| Refusal::Backend(format!("wasmtime: {e}")))?;
        let k = Arc::new(WasmtimeKernel {
            engine: self.engine.clone(),
            module: m,
            wasm: module.wasm.clone(),
            hash: module.hash,
            modes: module.modes,
            inputs: module.inputs.clone(),
        });
        if cache.len() >= CACHE_CAP {
            cache.clear();
        }
        cache.insert(module.hash, k.clone());
        Ok(k)
    }
}

/// A module compiled to native code.
pub struct WasmtimeKernel {
    engine: Engine,
    module: wasmtime::Module,
    wasm: Vec<u8>,
    hash: u64,
    modes: abi::Modes,
    inputs: Vec<crate::compile::R>,
}

/// What the `env.tex` import needs: the memory and the textures sampled the general way.
struct Host {
    mem: Option<Memory>,
    textures: Vec<Option<Texture>>,
    quads: bool,
}

/// One thread's instance.
struct State {
    hash: u64,
    store: Store<Host>,
    mem: Memory,
    run: RunFn,
    layout: Layout,
    /// Per unit: what was staged.
    staged: Vec<Option<Held>>,
    texel_end: usize,
    /// Every staged descriptor is of the mode the module was compiled for.
    fits: bool,
}

const PAGE: usize = 65536;

/// Instances kept per thread for later machines.
const POOL_CAP: usize = 4;

thread_local! {
    static POOL: RefCell<Vec<State>> = const { RefCell::new(Vec::new()) };
}

/// What a [`Machine`] holds: its instance, returned to the pool when the machine drops it.
struct Slot(Option<State>);

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            // During thread teardown the pool may be gone: the instance is then just freed.
            let _ = POOL.try_with(|p| {
                let mut p = p.borrow_mut();
                if p.len() >= POOL_CAP {
                    p.remove(0);
                }
                p.push(s);
            });
        }
    }
}

/// A pooled instance of module `hash`, made ready for kernel `k`: it keeps what it staged
/// from shared textures (checked again on its first run) and forgets the rest.
fn pooled(hash: u64, k: &Kernel) -> Option<State> {
    let mut s = POOL
        .try_with(|p| {
            let mut p = p.borrow_mut();
            let i = p.iter().rposition(|s| s.hash == hash)?;
            Some(p.remove(i))
        })
        .ok()
        .flatten()?;
    let layout = Layout::new(k);
    if layout != s.layout
        || s.staged
            .iter()
            .any(|h| !matches!(h, None | Some(Held::Shared(_))))
    {
        s.layout = layout;
        if !reserve(&mut s, layout.bytes) {
            return None;
        }
        unstage_textures(&mut s);
    }
    Some(s)
}

fn link(engine: &Engine, store: &mut Store<Host>, mem: Memory) -> wasmtime::Result<Linker<Host>> {
    let mut l = Linker::new(engine);
    l.define(&mut *store, "env", "memory", mem)?;
    l.func_wrap("env", "exp2f", |x: f32| libm::exp2f(x))?;
    l.func_wrap("env", "log2f", |x: f32| libm::log2f(x))?;
    l.func_wrap("env", "powf", |x: f32, y: f32| libm::powf(x, y))?;
    l.func_wrap("env", "sinf", |x: f32| libm::sinf(x))?;
    l.func_wrap("env", "cosf", |x: f32| libm::cosf(x))?;
    l.func_wrap(
        "env",
        "tex",
        |mut c: Caller<'_, Host>, unit: i32, kind: i32, target: i32, quad: i32, out: i32| {
            let Some(mem) = c.data().mem else { return };
            let (data, host) = mem.data_and_store_mut(&mut c);
            let tex = host
                .textures
                .get(unit as u32 as usize)
                .and_then(|t| t.as_ref());
            let (q, o) = (quad as u32 as usize, out as u32 as usize);
            abi::tex_call(data, tex, (kind, target), q, o, host.quads);
        },
    )?;
    Ok(l)
}

impl WasmtimeKernel {
    fn instantiate(&self, k: &Kernel) -> wasmtime::Result<State> {
        let layout = Layout::new(k);
        let mut store = Store::new(
            &self.engine,
            Host {
                mem: None,
                textures: Vec::new(),
                quads: true,
            },
        );
        let pages = layout.bytes.div_ceil(PAGE).max(1) as u64;
        let mem = Memory::new(&mut store, MemoryType::new(pages as u32, None))?;
        store.data_mut().mem = Some(mem);
        let linker = link(&self.engine, &mut store, mem)?;
        let inst = linker.instantiate(&mut store, &self.module)?;
        let run = inst.get_typed_func(&mut store, "run")?;
        Ok(State {
            hash: self.hash,
            store,
            mem,
            run,
            layout,
            staged: (0..abi::UNITS).map(|_| None).collect(),
            texel_end: layout.bytes.next_multiple_of(16),
            fits: true,
        })
    }
}

/// Makes sure the memory holds `bytes`.
fn reserve(s: &mut State, bytes: usize) -> bool {
    let have = s.mem.data_size(&s.store);
    if have >= bytes {
        return true;
    }
    let pages = (bytes - have).div_ceil(PAGE) as u64;
    s.mem.grow(&mut s.store, pages).is_ok()
}

/// What a unit's staged texels came from.
enum Held {
    /// A shared texture: the same object in a later draw has the same texels (the handle
    /// held here keeps it alive, and `Arc::get_mut` cannot change it while it is held).
    Shared(Arc<Texture>),
    /// A texture known only by its address and size: trusted within one machine's draw.
    Local(usize, usize),
    /// Nothing bound.
    Unbound,
}

/// Whether unit `u` of `env` is what `held` staged.
fn still_staged(held: &Held, env: &ExecEnv, u: usize) -> bool {
    let tex = env.textures.get(u).copied().flatten();
    match (held, tex) {
        (Held::Unbound, None) => true,
        (Held::Shared(a), Some(t)) => std::ptr::eq(&**a, t),
        (Held::Local(p, n), Some(t)) => (*p, *n) == abi::texture_key(t),
        _ => false,
    }
}

/// Forgets everything staged (texels, descriptors, copies for the general sampler).
fn unstage_textures(s: &mut State) {
    s.staged = (0..abi::UNITS).map(|_| None).collect();
    s.texel_end = s.layout.bytes.next_multiple_of(16);
    s.store.data_mut().textures.clear();
}

/// Writes the descriptors of the units the kernel samples, staging texels of inline
/// textures into memory and keeping copies of the others for the general sampler. When
/// every unit still holds what was staged (later batches of a draw, later draws of shared
/// textures) nothing is done; otherwise everything is staged again, so memory stays bounded.
fn stage_textures(s: &mut State, k: &Kernel, env: &ExecEnv, modes: &abi::Modes) {
    let units = || {
        k.samplers
            .iter()
            .map(|&(u, _)| u as usize)
            .filter(|&u| u < abi::UNITS)
    };
    if units().all(|u| {
        s.staged[u]
            .as_ref()
            .is_some_and(|h| still_staged(h, env, u))
    }) {
        return;
    }
    unstage_textures(s);
    s.fits = true;
    for u in units() {
        if s.staged[u].is_some() {
            continue;
        }
        let tex = env.textures.get(u).copied().flatten();
        let held = match tex {
            None => Held::Unbound,
            Some(t) => match env.shared_textures.get(u).and_then(|x| x.as_ref()) {
                Some(a) if std::ptr::eq(&**a, t) => Held::Shared(a.clone()),
                _ => {
                    let (p, n) = abi::texture_key(t);
                    Held::Local(p, n)
                }
            },
        };
        let mut desc = TexDesc::for_texture(tex, 0);
        if desc.mode != abi::MODE_GENERIC
            && let Some(t) = tex
        {
            let texels = &t.levels[0].texels[..(desc.width * desc.height) as usize];
            let at = s.texel_end;
            let end = at + texels.len() * 16;
            if end <= u32::MAX as usize && reserve(s, end) {
                let data = &mut s.mem.data_mut(&mut s.store)[at..end];
                for (d, t) in data.chunks_exact_mut(16).zip(texels) {
                    for (d, v) in d.chunks_exact_mut(4).zip(t) {
                        d.copy_from_slice(&v.to_le_bytes());
                    }
                }
                desc.texels = at as u32;
                s.texel_end = end.next_multiple_of(16);
            } else {
                desc = TexDesc::default();
            }
        }
        s.fits &= abi::mode_fits(modes, u, &desc);
        let host = s.store.data_mut();
        if host.textures.len() <= u {
            host.textures.resize(u + 1, None);
        }
        host.textures[u] = if abi::needs_general(k, u as u8, &desc) {
            tex.cloned()
        } else {
            None
        };
        let at = s.layout.tex + u * abi::DESC_BYTES;
        s.mem.data_mut(&mut s.store)[at..at + abi::DESC_BYTES].copy_from_slice(&desc.to_bytes());
        s.staged[u] = Some(held);
    }
}

impl CompiledKernel for WasmtimeKernel {
    fn run(&self, m: &mut Machine, k: &Kernel, env: &ExecEnv, live: &Mask) {
        let fresh = !matches!(
            m.backend.as_ref().and_then(|b| b.downcast_ref::<Slot>()),
            Some(Slot(Some(s))) if s.hash == self.hash
        );
        if fresh {
            m.backend = None;
            let made = match pooled(self.hash, k) {
                Some(s) => Ok(s),
                None => self.instantiate(k),
            };
            match made {
                Ok(s) => m.backend = Some(Box::new(Slot(Some(s)))),
                Err(_) => return interpret(m, k, env, live),
            }
        }
        let Some(mut slot) = m.backend.take().and_then(|b| b.downcast::<Slot>().ok()) else {
            return interpret(m, k, env, live);
        };
        let Some(s) = slot.0.as_mut() else {
            return interpret(m, k, env, live);
        };
        stage_textures(s, k, env, &self.modes);
        if !s.fits {
            // Staged otherwise than compiled for (texels that did not fit in memory).
            m.backend = Some(slot);
            return interpret(m, k, env, live);
        }
        s.store.data_mut().quads = env.quads;
        let l = s.layout;
        {
            let data = s.mem.data_mut(&mut s.store);
            abi::stage_inputs(m, &self.inputs, data, &l);
            abi::stage_consts(k, env, data, &l);
        }
        let args = (
            l.io as i32,
            l.consts as i32,
            l.tex as i32,
            l.kill as i32,
            l.scratch as i32,
            LANES as i32,
            i32::from(env.quads),
        );
        if s.run.call(&mut s.store, args).is_err() {
            // A trapped instance is not reused.
            slot.0 = None;
            return interpret(m, k, env, live);
        }
        abi::unstage(m, k, s.mem.data(&s.store), &l, LANES);
        abi::count(m, k, live);
        m.backend = Some(slot);
    }
}

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
//! An unknown import, a module the engine rejects, or a missing export is an error the
//! caller answers by interpreting. Instances are cached by a hash of the module's bytes
//! ([`Cache`], least recently used first out), so an unchanged program costs nothing on the
//! next keystroke.

use hoist_raster::alu;
use js_sys::{Function, Object, Reflect, WebAssembly};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// `env.<name>` imports a compiled module may ask for, and this program's export that
/// provides each.
pub const TRANSCENDENTALS: &[(&str, &str)] = &[
    ("exp2f", "hoist_jit_exp2f"),
    ("log2f", "hoist_jit_log2f"),
    ("powf", "hoist_jit_powf"),
    ("sinf", "hoist_jit_sinf"),
    ("cosf", "hoist_jit_cosf"),
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
        let field = |k| get(&desc, k).and_then(|v| v.as_string()).unwrap_or_default();
        let (ns, name, kind) = (field("module"), field("name"), field("kind"));
        let value = match kind.as_str() {
            "memory" => wasm_bindgen::memory(),
            "function" => {
                let export = TRANSCENDENTALS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, e)| *e)
                    .ok_or_else(|| format!("the module imports `{ns}.{name}`, which the runtime does not provide"))?;
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

/// A 64-bit FNV-1a hash of a module's bytes: the cache key.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

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

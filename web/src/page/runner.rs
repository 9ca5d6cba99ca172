//! The page's end of `crates/gpu/js/runner.mjs`, which Trunk copies next to the page as
//! `runner.mjs`: imported on first use (a dynamic `import()`, so nothing of it loads with
//! the page), then [`detect`], [`run`] and [`time`] call its functions on the page's
//! thread, where the browser's WebGPU and WebGL2 live. Plans go in as the GPU worker wrote
//! them (JSON); of a render only the displayed target is read back, the timings and the
//! APIs found come back through serde.

use crate::page::gpu::{Detected, RawTiming, TimingSpec};
use hoist_gpu::check::GpuImage;
use hoist_raster::image::Image;
use js_sys::{Function, Promise, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The runner's file name, next to `index.html`.
pub const RUNNER: &str = "runner.mjs";

thread_local! {
    /// The import under way or done (one per page).
    static MODULE: RefCell<Option<Promise>> = const { RefCell::new(None) };
}

fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The runner module (its namespace object).
async fn module() -> Result<JsValue, String> {
    let promise = MODULE.with(|m| -> Result<Promise, String> {
        if let Some(p) = m.borrow().as_ref() {
            return Ok(p.clone());
        }
        let base = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.base_uri().ok().flatten())
            .ok_or("the page has no address")?;
        let url = web_sys::Url::new_with_base(RUNNER, &base).map_err(|e| describe(&e))?;
        // `import()` is syntax, not a function wasm-bindgen can bind: a one-line function
        // makes it callable.
        let import = Function::new_with_args("url", "return import(url)");
        let p: Promise = import
            .call1(&JsValue::NULL, &url.href().into())
            .map_err(|e| describe(&e))?
            .dyn_into()
            .map_err(|_| "import() did not return a promise".to_string())?;
        *m.borrow_mut() = Some(p.clone());
        Ok(p)
    })?;
    match JsFuture::from(promise).await {
        Ok(m) => Ok(m),
        Err(e) => {
            // A failed import is tried again next time.
            MODULE.with(|m| m.borrow_mut().take());
            Err(describe(&e))
        }
    }
}

/// Calls the runner's `name` with `args` and awaits its promise.
async fn call(name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let m = module().await?;
    let f: Function = Reflect::get(&m, &name.into())
        .map_err(|e| describe(&e))?
        .dyn_into()
        .map_err(|_| format!("the runner has no function `{name}`"))?;
    let array: js_sys::Array = args.iter().collect();
    let p: Promise = f
        .apply(&JsValue::NULL, &array)
        .map_err(|e| describe(&e))?
        .dyn_into()
        .map_err(|_| format!("`{name}` did not return a promise"))?;
    JsFuture::from(p).await.map_err(|e| describe(&e))
}

fn parse(json: &str) -> Result<JsValue, String> {
    js_sys::JSON::parse(json).map_err(|e| describe(&e))
}

/// Which APIs the browser offers.
pub async fn detect() -> Result<Detected, String> {
    let v = call("detect", &[]).await?;
    serde_wasm_bindgen::from_value(v).map_err(|e| e.to_string())
}

fn field(v: &JsValue, name: &str) -> JsValue {
    Reflect::get(v, &name.into()).unwrap_or(JsValue::UNDEFINED)
}

/// Runs a plan on `api` (`webgpu` | `webgl2`) and reads back its target `display` (only
/// that target is read out of the answer, so the page needs no decoder of the rest).
pub async fn run(api: &str, plan: &str, display: &str) -> Result<Image, String> {
    let v = call("run", &[api.into(), parse(plan)?]).await?;
    if let Some(e) = field(&v, "error").as_string() {
        return Err(e);
    }
    let t = field(&field(&v, "targets"), display);
    let size = |k: &str| field(&t, k).as_f64().map(|x| x as u32);
    let (Some(width), Some(height), Some(pixels)) = (
        size("width"),
        size("height"),
        field(&t, "pixels").as_string(),
    ) else {
        return Err(format!("the GPU returned no target `{display}`"));
    };
    GpuImage {
        width,
        height,
        pixels,
    }
    .decode()
}

/// Times the original plan against the optimized one on `api`.
pub async fn time(api: &str, plans: [&str; 2], spec: &TimingSpec) -> Result<RawTiming, String> {
    let pair: js_sys::Array = [parse(plans[0])?, parse(plans[1])?].iter().collect();
    let opts = serde_wasm_bindgen::to_value(spec).map_err(|e| e.to_string())?;
    let v = call("time", &[api.into(), pair.into(), opts]).await?;
    serde_wasm_bindgen::from_value(v).map_err(|e| e.to_string())
}

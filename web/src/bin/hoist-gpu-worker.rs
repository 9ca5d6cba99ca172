//! The GPU view's Web Worker (built by Trunk as `hoist-gpu-worker.js` + `_bg.wasm`, loaded
//! by `web/hoist-gpu-worker-loader.js` only when the view first renders): the GPU plans of
//! a document. See `hoist_web::wire::gpu`.

#[cfg(target_arch = "wasm32")]
fn main() {
    hoist_web::wire::gpu::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("hoist-gpu-worker is the playground's GPU-view worker; build it with `trunk build`.");
}

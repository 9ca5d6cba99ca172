//! The playground's Web Worker (built by Trunk as `hoist-worker.js` + `_bg.wasm`, loaded by
//! `web/hoist-worker-loader.js`): optimization, validation and rendering off the page's
//! thread. See `hoist_web::wire::worker`.

#[cfg(target_arch = "wasm32")]
fn main() {
    hoist_web::wire::worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("hoist-worker is the playground's Web Worker; build it with `trunk build`.");
}

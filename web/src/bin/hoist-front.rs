//! The playground's front worker (built by Trunk as `hoist-front.js` + `_bg.wasm`, loaded
//! by `web/hoist-front-loader.js` when source mode is first used): WGSL and GLSL compiled
//! with naga off the page's thread and out of its bundle. See `hoist_web::wire::front`.

#[cfg(target_arch = "wasm32")]
fn main() {
    hoist_web::wire::front::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("hoist-front is the playground's source-mode worker; build it with `trunk build`.");
}

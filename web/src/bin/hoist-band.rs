//! A helper of shared renders (built by Trunk as `hoist-band.js` + `_bg.wasm`, loaded by
//! `web/hoist-band-loader.js`; the page's worker starts it after a job that wanted it):
//! shades its range of a scene's last draw and hands the bands to the worker. A bundle
//! of its own: it carries the renderer and the scene's decoder, not the optimizer. See
//! `hoist_web::wire::bands`.

#[cfg(target_arch = "wasm32")]
fn main() {
    hoist_web::wire::bands::start_helper();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("hoist-band is a helper of the playground's worker; build it with `trunk build`.");
}

//! The playground's entry point (built by Trunk for `wasm32-unknown-unknown`).

#[cfg(target_arch = "wasm32")]
fn main() {
    hoist_web::page::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("hoist-web is the playground; build it with `trunk build` (see the README).");
}

//! The executor benchmark in a browser: the same K = 13 Gaussian workload as
//! `benches/gauss13.rs`, single-threaded wasm, timed with `Date.now()`. Ignored by default;
//! `scripts/bench-wasm.sh` runs it in headless Chromium through wasm-bindgen-test-runner.
#![cfg(target_arch = "wasm32")]

use hoist_raster::job::RenderJob;
use hoist_raster::raster::CompiledProgram;
use std::sync::Arc;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[path = "../benches/support/workload.rs"]
mod workload;

#[wasm_bindgen_test]
#[ignore]
fn gauss13_1024_in_the_browser() {
    let (vs, fs) = workload::gauss_programs(13);
    let vp = Arc::new(CompiledProgram::new(&workload::parse(&vs)).unwrap());
    let fp = Arc::new(CompiledProgram::new(&workload::parse(&fs)).unwrap());
    let cfg = workload::config();
    let mut job = RenderJob::with_compiled(Some(&vp), Some(&fp), &cfg).unwrap();
    job.run_to_end();
    let first = job.finish();
    // Like arbref --repeat: the same draw again into the same target (no clear).
    let mut job = RenderJob::with_compiled(Some(&vp), Some(&fp), &cfg).unwrap();
    let n = 10;
    let t0 = js_sys::Date::now();
    for _ in 0..n {
        job.redraw();
        job.run_to_end();
    }
    let ms = (js_sys::Date::now() - t0) / f64::from(n);
    let px = f64::from(workload::SIZE * workload::SIZE);
    console_log!(
        "BENCH gauss13_1024 wasm single_thread: {ms:.1} ms/draw, {:.1} Mpixel/s, {:.0} M fragment-instructions/s, fnv1a64 {:016x}",
        px / ms / 1e3,
        first.stats.fragment_instructions as f64 / ms / 1e3,
        first.image.hash()
    );
}

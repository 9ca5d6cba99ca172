//! The executor benchmark in the page's terms (ignored by default; `scripts/bench-wasm.sh`
//! runs it in headless Chromium): the K = 13 Gaussian at 1024² of
//! `crates/raster/benches/support/workload.rs`, drawn by the interpreter and by the
//! fragment program compiled to wasm and loaded by the page's runtime (`hoist_web::worker::jit`),
//! with the time to generate the module and to instantiate it.

#![cfg(target_arch = "wasm32")]

use hoist_raster::jit::{self as rj, Exec};
use hoist_raster::job::RenderJob;
use hoist_raster::raster::CompiledProgram;
use hoist_web::worker::jit;
use std::sync::Arc;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[path = "../../crates/raster/benches/support/workload.rs"]
#[allow(dead_code)]
mod workload;

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// ms per draw over `n` draws into the same target, and the image's hash.
fn time(
    cfg: &hoist_raster::RenderConfig,
    vp: &Arc<CompiledProgram>,
    fp: &Arc<CompiledProgram>,
    n: u32,
) -> (f64, u64) {
    let mut job = RenderJob::with_compiled(Some(vp), Some(fp), cfg).expect("job");
    job.run_to_end();
    let hash = hoist_raster::Image::hash(&job.finish().image);
    let mut job = RenderJob::with_compiled(Some(vp), Some(fp), cfg).expect("job");
    let t0 = now();
    for _ in 0..n {
        job.redraw();
        job.run_to_end();
    }
    ((now() - t0) / f64::from(n), hash)
}

#[wasm_bindgen_test]
#[ignore]
fn gauss13_1024_interpreted_and_compiled() {
    jit::install(now);
    // The compiled executor measured as such, whatever the page's prediction would pick.
    jit::configure(Some(hoist_web::worker::executor::Force::Compile));
    let (vs, fs) = workload::gauss_programs(13);
    let vp = Arc::new(CompiledProgram::new(&workload::parse(&vs)).unwrap());
    let fp = Arc::new(CompiledProgram::new(&workload::parse(&fs)).unwrap());
    let t0 = now();
    let module = rj::compile(&fp.kernel);
    let codegen_ms = now() - t0;
    let _ = jit::take_log();
    let mut cfg = workload::config();
    let (interp, h0) = time(&cfg, &vp, &fp, 5);
    cfg.exec = Exec::Compiled;
    let (compiled, h1) = time(&cfg, &vp, &fp, 10);
    let log = jit::take_log();
    let size = workload::SIZE;
    console_log!(
        "BENCH gauss13_{size} wasm single_thread: interpreter {interp:.1} ms/draw ({h0:016x}), compiled {compiled:.1} ms/draw ({h1:016x}), {:.2}x; module {} bytes, code generation {codegen_ms:.2} ms, instantiation {:.2} ms ({} modules); compiled batches {}, refusal {:?}, failures {:?}",
        interp / compiled,
        module.as_ref().map_or(0, |m| m.wasm.len()),
        log.instantiate_ms,
        log.instantiated,
        log.compiled_batches,
        module.as_ref().err().map(ToString::to_string),
        log.failures,
    );
    assert_eq!(h0, h1, "the compiled image differs");
}

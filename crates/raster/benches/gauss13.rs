//! Criterion benchmark of the executor on the seed paper's K = 13 Gaussian pass at
//! 1024×1024 (see `workload.rs`), single-threaded and on every core (rayon), interpreted and
//! compiled (`*_compiled`: wasm SIMD kernels run by wasmtime). Throughput is
//! reported in pixels; the fragment-instruction rate is the pixel rate times the
//! instructions per fragment printed at the start.
//!
//! Run with `cargo bench -p hoist-raster --features parallel --bench gauss13`, or
//! `scripts/bench-executor.sh`, which also times arbref side by side.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hoist_raster::jit::Exec;
use hoist_raster::job::RenderJob;
use hoist_raster::raster::CompiledProgram;
use std::sync::Arc;

#[path = "support/workload.rs"]
mod workload;

fn bench(c: &mut Criterion) {
    let (vs, fs) = workload::gauss_programs(13);
    let vp = Arc::new(CompiledProgram::new(&workload::parse(&vs)).unwrap());
    let fp = Arc::new(CompiledProgram::new(&workload::parse(&fs)).unwrap());
    let cfg = workload::config();
    let first = {
        let mut job = RenderJob::with_compiled(Some(&vp), Some(&fp), &cfg).unwrap();
        job.run_to_end();
        job.finish()
    };
    let px = u64::from(workload::SIZE) * u64::from(workload::SIZE);
    println!(
        "gauss13 {0}x{0}: {1} fragment instructions per draw ({2} per fragment), fnv1a64 {3:016x}",
        workload::SIZE,
        first.stats.fragment_instructions,
        first.stats.fragment_instructions / px,
        first.image.hash()
    );
    let mut g = c.benchmark_group("gauss13_1024");
    g.throughput(Throughput::Elements(px));
    g.sample_size(20);
    for (threads, exec) in [1usize, 0]
        .into_iter()
        .flat_map(|t| [(t, Exec::Interp), (t, Exec::Compiled)])
    {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let name = if threads == 1 {
            "single_thread".to_string()
        } else {
            format!("threads_{}", pool.current_num_threads())
        };
        let name = match exec {
            Exec::Interp => name,
            Exec::Compiled => format!("{name}_compiled"),
        };
        let mut cfg = cfg.clone();
        cfg.exec = exec;
        // Like arbref --repeat: the same draw again into the same target (no clear).
        let mut job = RenderJob::with_compiled(Some(&vp), Some(&fp), &cfg).unwrap();
        g.bench_function(name, |b| {
            b.iter(|| {
                pool.install(|| {
                    job.redraw();
                    job.run_to_end();
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

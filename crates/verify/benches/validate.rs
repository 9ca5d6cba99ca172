//! The price of trust: translation validation of each paper example's optimized pair, and
//! the whole validated optimization (what the page and the command line run). Budget (issue
//! "Optimizer trust"): a few milliseconds per paper example natively. Run with
//! `cargo bench -p hoist-verify --bench validate`.

use criterion::{Criterion, criterion_group, criterion_main};
use hoist_opt::Options;
use hoist_verify::Config;
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let opts = Options::default();
    let cfg = Config::default();
    let mut g = c.benchmark_group("paper");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for name in [
        "fig3",
        "gauss13",
        "gauss13-arb",
        "conv2d",
        "conv2d-arb",
        "sort",
        "sum",
    ] {
        let path = format!(
            "{}/../../examples/paper/{name}.shader_test",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).expect("example reads");
        let scene = hoist_raster::scene::parse(&text, &Default::default()).expect("scene parses");
        let pair = &scene.programs[scene.optimize_target()];
        let (vp, fp) = (
            &pair.vertex.as_ref().expect("vertex program").program,
            &pair.fragment.as_ref().expect("fragment program").program,
        );
        let out = hoist_opt::optimize(vp, fp, &opts).expect("optimizes");
        g.bench_function(format!("validate {name}"), |b| {
            b.iter(|| hoist_verify::validate::validate(black_box(vp), black_box(fp), &out, &cfg))
        });
        g.bench_function(format!("optimize and validate {name}"), |b| {
            b.iter(|| hoist_verify::optimize(black_box(vp), black_box(fp), &opts, Some(&cfg)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

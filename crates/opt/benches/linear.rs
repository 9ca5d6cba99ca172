//! Linear-expression packing speed (seed 003) on the 64×64 systems: one annealing run of
//! the default schedule, 1000 incremental swaps as the search sees them
//! (`Packing::searching`: a Gauss-Seidel group's inner order re-chosen), and the whole
//! default search.
//! Run with `cargo bench -p hoist-opt --bench linear`.

use criterion::{Criterion, criterion_group, criterion_main};
use hoist_opt::linear::anneal::{Rng, Schedule, anneal};
use hoist_opt::linear::{Grouping, Packing, SearchOptions, optimize, paper};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("linear");
    g.sample_size(10);
    for name in ["gauss-seidel", "wave2d"] {
        let sys = paper::system(name).unwrap();
        let start = Grouping::identity(sys.m);
        g.bench_function(format!("{name}/1000 swaps"), |b| {
            let mut p = Packing::searching(&sys, &start);
            let mut rng = Rng::new(1);
            b.iter(|| {
                for _ in 0..1000 {
                    let (x, y) = (rng.below(sys.m), rng.below(sys.m));
                    p.swap(x, y);
                }
                black_box(p.total())
            })
        });
        g.bench_function(format!("{name}/anneal"), |b| {
            b.iter(|| {
                let mut rng = Rng::new(7);
                black_box(anneal(&sys, &start, &Schedule::default(), &mut rng).cost)
            })
        });
        g.bench_function(format!("{name}/search"), |b| {
            b.iter(|| black_box(optimize(&sys, &SearchOptions::default()).cost_after))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

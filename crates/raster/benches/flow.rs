//! Criterion benchmark of the interpreter's flow mode and the general texture path: a
//! ps_3_0 program with a `loop` (four iterations, an `if`/`else`, a `break_*` and a
//! predicated write inside) sampling a 256×256 RGBA32F noise texture bilinearly with linear
//! mipmaps, on a 512×512 target, single-threaded. The workload issue 25's pixel trace
//! touches (its observer and texture tap compile away when off): BENCHMARKS.md has the
//! figures before and after.
//!
//! Run with `cargo bench -p hoist-raster --bench flow`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hoist_asm::ParseOptions;
use hoist_raster::job::RenderJob;
use hoist_raster::raster::CompiledProgram;
use hoist_raster::{Filter, MipFilter, RenderConfig, Sampler, TexFormat, Texture, Wrap, pattern};
use std::sync::Arc;

const VS: &str = "vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\n\
                  dcl_texcoord0 o1\nmov o0, v0\nmov o1, v1\n";

const PS: &str = "ps_3_0\ndef c0, 0.25, 0.5, 0.001, 1\ndef c1, 0.0625, 0.03125, 0.7, 0.2\n\
                  defi i0, 4, 0, 1, 0\ndcl_texcoord0 v0\ndcl_2d s0\nmov r0, c0.x\nmov r1, v0\n\
                  loop aL, i0\n  texld r2, r1, s0\n  mad r0, r2, c0.y, r0\n\
                  if_gt r2.x, c0.y\n    add r1.xy, r1, c1.xy\n  else\n    add r1.xy, r1, c1.yx\n\
                  endif\n  setp_gt p0, r0, c1.z\n  (p0) mul r0, r0, c1.w\n\
                  break_gt r0.w, c0.w\nendloop\nmov oC0, r0\n";

const SIZE: u32 = if cfg!(debug_assertions) { 64 } else { 512 };

fn bench(c: &mut Criterion) {
    let parse = |s: &str| {
        hoist_asm::parse(s, &ParseOptions::default())
            .into_result()
            .expect("benchmark program parses")
    };
    let vp = Arc::new(CompiledProgram::new(&parse(VS)).unwrap());
    let fp = Arc::new(CompiledProgram::new(&parse(PS)).unwrap());
    let img = pattern::generate(&pattern::Pattern::Noise(1), 256, 256);
    let mut sampler = Sampler::new(Filter::Linear, Wrap::Repeat);
    sampler.mip = MipFilter::Linear;
    let mut tex = Texture::new_2d(256, 256, img.pixels, TexFormat::Rgba32F, sampler);
    tex.generate_mipmaps();
    let mut cfg = RenderConfig {
        width: SIZE,
        height: SIZE,
        ..RenderConfig::default()
    };
    cfg.textures.insert(0, Arc::new(tex));
    let first = {
        let mut job = RenderJob::with_compiled(Some(&vp), Some(&fp), &cfg).unwrap();
        job.run_to_end();
        job.finish()
    };
    println!(
        "flow {SIZE}x{SIZE}: {} fragment instructions per draw, fnv1a64 {:016x}",
        first.stats.fragment_instructions,
        first.image.hash()
    );
    let mut g = c.benchmark_group("flow_512");
    g.throughput(Throughput::Elements(u64::from(SIZE) * u64::from(SIZE)));
    g.sample_size(20);
    let mut job = RenderJob::with_compiled(Some(&vp), Some(&fp), &cfg).unwrap();
    g.bench_function("interp_single_thread", |b| {
        b.iter(|| {
            job.redraw();
            job.run_to_end();
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

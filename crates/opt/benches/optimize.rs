//! Optimizer speed: it runs on every keystroke in the playground. Budgets (issue 4): every
//! paper example under 1 ms natively, a synthetic 1000-instruction fragment program under
//! 50 ms. Run with `cargo bench -p hoist-opt --bench optimize`.

use criterion::{Criterion, criterion_group, criterion_main};
use hoist_asm::{ParseOptions, Program};
use hoist_opt::Options;
use std::hint::black_box;

fn load(rel: &str) -> Program {
    let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    hoist_asm::parse(&text, &ParseOptions::default())
        .into_result()
        .expect("example parses")
}

/// A long ARB fragment program: `n` blocks of address arithmetic, a fetch and accumulation,
/// mixing movable and non-movable work, about 1000 instructions for n = 125.
pub fn synthetic(n: usize) -> (Program, Program) {
    let vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n";
    let mut fp = String::from(
        "!!ARBfp1.0\nPARAM k = {0.001, 0.002, 0.5, 2};\nTEMP a, b, c, acc;\nMOV acc, {0, 0, 0, 0};\n",
    );
    for i in 0..n {
        let f = (i % 13) as f32 * 0.01;
        fp.push_str(&format!("MUL a, fragment.texcoord[0], {{{f}, 1, 1, 1}};\n"));
        fp.push_str("ADD a.x, a.x, k.x;\n");
        fp.push_str("MAD a.y, a.y, k.z, k.y;\n");
        fp.push_str("TEX b, a, texture[0], 2D;\n");
        fp.push_str("MUL c, b, k.w;\n");
        fp.push_str("RSQ c.x, c.x;\n");
        fp.push_str("MAD acc, c, k.x, acc;\n");
        fp.push_str("ADD acc, acc, a;\n");
    }
    fp.push_str("MOV result.color, acc;\nEND\n");
    let parse = |s: &str, limits| {
        let o = ParseOptions {
            profile: None,
            limits: Some(limits),
        };
        hoist_asm::parse(s, &o)
            .into_result()
            .expect("synthetic parses")
    };
    (
        parse(vp, big(hoist_asm::Profile::ArbVp1)),
        parse(&fp, big(hoist_asm::Profile::ArbFp1)),
    )
}

/// Limits of a generous GPU, so a 1000-instruction program is legal.
fn big(p: hoist_asm::Profile) -> hoist_asm::Limits {
    let mut l = p.limits();
    l.max_slots = 4096;
    l.max_alu_slots = None;
    l.max_tex_slots = None;
    l.max_tex_indirections = None;
    l.consts = 1024;
    l
}

fn bench(c: &mut Criterion) {
    let opts = Options::default();
    for (name, vp, fp) in [
        (
            "fig3 (D3D9)",
            "examples/paper/fig3.vsh",
            "examples/paper/fig3.psh",
        ),
        (
            "gauss13 (D3D9)",
            "examples/paper/gauss13.vsh",
            "examples/paper/gauss13.psh",
        ),
        (
            "gauss13 (ARB)",
            "examples/paper/gauss13.vp",
            "examples/paper/gauss13.fp",
        ),
    ] {
        let (vp, fp) = (load(vp), load(fp));
        c.bench_function(&format!("optimize {name}"), |b| {
            b.iter(|| {
                hoist_opt::optimize(black_box(&vp), black_box(&fp), &opts).expect("optimizes")
            })
        });
    }
    // Every example scene's optimized pair (the playground's gallery).
    let mut scenes: Vec<_> = ["examples/paper", "examples/fluid", "examples/graphics"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(format!("{}/../../{d}", env!("CARGO_MANIFEST_DIR")))
                .into_iter()
                .flatten()
        })
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "shader_test"))
        .collect();
    scenes.sort();
    let mut g = c.benchmark_group("examples");
    for path in scenes {
        let text = std::fs::read_to_string(&path).expect("scene reads");
        let scene = hoist_raster::scene::parse(&text, &Default::default()).expect("scene parses");
        let pair = &scene.programs[scene.optimize_target()];
        let (Some(vp), Some(fp)) = (&pair.vertex, &pair.fragment) else {
            continue;
        };
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        g.bench_function(name, |b| {
            b.iter(|| hoist_opt::optimize(black_box(&vp.program), black_box(&fp.program), &opts))
        });
    }
    g.finish();

    let (vp, fp) = synthetic(125);
    assert!(fp.insts.len() >= 1000, "{} instructions", fp.insts.len());
    let opts = Options {
        vp_limits: Some(big(hoist_asm::Profile::ArbVp1)),
        fp_limits: Some(big(hoist_asm::Profile::ArbFp1)),
        ..Options::default()
    };
    let mut g = c.benchmark_group("synthetic");
    g.sample_size(10);
    g.bench_function(format!("optimize {} instructions", fp.insts.len()), |b| {
        b.iter(|| hoist_opt::optimize(black_box(&vp), black_box(&fp), &opts).expect("optimizes"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

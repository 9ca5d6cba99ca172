//! The benchmark workload, shared by the criterion bench and the browser bench: the seed
//! paper's K = 13 Gaussian pass (addresses computed per fragment, as in Table 4's first
//! row) on a 1024×1024 RGBA32F target, sampling a 1024×1024 RGBA32F noise texture with
//! nearest filtering, `program.local[0] = (1/1024, 0, 0, 0)` — the same programs arbref's
//! `examples/gauss13.{vp,fp}` hold (generated here from the filter's definition).

use hoist_asm::{ParseOptions, Program};
use hoist_raster::{Filter, RenderConfig, Sampler, TexFormat, Texture, Wrap, pattern};
use std::sync::Arc;

/// 1024 in optimised builds; unoptimised builds (`cargo test --all-targets` runs benches
/// once as tests) use 256 to stay quick.
pub const SIZE: u32 = if cfg!(debug_assertions) { 256 } else { 1024 };

/// The K-tap Gaussian along x: weights exp(-k²/2σ²) with σ = K/6, normalised.
pub fn gauss_programs(k: i32) -> (String, String) {
    let h = k / 2;
    let sigma = f64::from(k) / 6.0;
    let w: Vec<f64> = (-h..=h)
        .map(|i| (-f64::from(i * i) / (2.0 * sigma * sigma)).exp())
        .collect();
    let sum: f64 = w.iter().sum();
    let mut fp = String::from("!!ARBfp1.0\nPARAM texel = program.local[0];\n");
    for (i, chunk) in w.chunks(4).enumerate() {
        let vals: Vec<String> = (0..4)
            .map(|j| format!("{:.9}", chunk.get(j).map_or(0.0, |x| x / sum)))
            .collect();
        fp += &format!("PARAM w{i} = {{ {} }};\n", vals.join(", "));
    }
    fp += "TEMP acc, tc, t;\nMOV tc, fragment.texcoord[0];\n";
    for (i, tap) in (-h..=h).enumerate() {
        let wi = format!("w{}.{}", i / 4, ['x', 'y', 'z', 'w'][i % 4]);
        fp += &format!(
            "MAD tc.x, texel.x, {tap}.0, fragment.texcoord[0].x;\nTEX t, tc, texture[0], 2D;\n"
        );
        fp += &if i == 0 {
            format!("MUL acc, t, {wi};\n")
        } else {
            format!("MAD acc, t, {wi}, acc;\n")
        };
    }
    fp += "MOV result.color, acc;\nEND\n";
    let vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n";
    (vp.to_string(), fp)
}

pub fn parse(src: &str) -> Program {
    hoist_asm::parse(src, &ParseOptions::default())
        .into_result()
        .expect("benchmark program parses")
}

pub fn config() -> RenderConfig {
    let img = pattern::generate(&pattern::Pattern::Noise(1), SIZE, SIZE);
    let mut cfg = RenderConfig {
        width: SIZE,
        height: SIZE,
        ..RenderConfig::default()
    };
    cfg.textures.insert(
        0,
        Arc::new(Texture::new_2d(
            SIZE,
            SIZE,
            img.pixels,
            TexFormat::Rgba32F,
            Sampler::new(Filter::Nearest, Wrap::ClampToEdge),
        )),
    );
    cfg.params
        .fragment
        .local
        .insert(0, [1.0 / SIZE as f32, 0.0, 0.0, 0.0]);
    cfg
}

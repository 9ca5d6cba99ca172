//! Running one program in the executor on seeded random inputs, parameters and textures,
//! for bit-for-bit comparisons of a program with its transformed version.

use hoist_asm::ir::Semantic;
use hoist_asm::{Program, Stage};
use hoist_raster::probe::{self, StageEnv};
use hoist_raster::raster::CompiledProgram;
use hoist_raster::{ATTRIBS, Caps, GlState, StageParams};
use hoist_verify::generate::textures;

/// A deterministic value in [-2, 2] for a (seed, key) pair.
fn value(seed: u64, key: u64) -> f32 {
    let mut x = seed ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    ((x >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
}

fn params(seed: u64) -> StageParams {
    let mut p = StageParams::default();
    for n in 0..256u16 {
        let v = |c: u64| value(seed, 1000 + u64::from(n) * 4 + c);
        p.env.insert(n, [v(0), v(1), v(2), v(3)]);
        p.local.insert(n, [v(3), v(2), v(1), v(0)]);
    }
    for n in 0..16u16 {
        p.ints.insert(n, [1 + (n as i32 % 3), 0, 1, 0]);
        p.bools.insert(n, n % 2 == 0);
    }
    p
}

/// Outputs (as bits) and kills of `p` on 32 random invocations.
pub fn outputs(p: &Program, seed: u64) -> Vec<(Vec<[u32; 4]>, bool)> {
    let cp = CompiledProgram::new(p).expect("compiles");
    let (params, gl, caps) = (params(seed), GlState::default(), Caps::default());
    let tex = textures(p);
    let env = StageEnv {
        params: &params,
        gl: &gl,
        textures: &tex,
        caps: &caps,
    };
    let bits = |v: &[(hoist_asm::Reg, [f32; 4])]| -> Vec<[u32; 4]> {
        v.iter().map(|(_, x)| x.map(f32::to_bits)).collect()
    };
    match p.stage() {
        Stage::Vertex => {
            let attribs: Vec<[[f32; 4]; ATTRIBS]> = (0..32u64)
                .map(|i| {
                    std::array::from_fn(|a| {
                        std::array::from_fn(|c| value(seed, i * 97 + a as u64 * 4 + c as u64))
                    })
                })
                .collect();
            let v = probe::run_vertices(&cp, &env, &attribs);
            v.outputs.iter().map(|o| (bits(o), false)).collect()
        }
        Stage::Fragment => {
            let input = |lane: usize, s: Semantic| -> [f32; 4] {
                let key = format!("{s:?}")
                    .bytes()
                    .fold(lane as u64, |h, b| h * 31 + u64::from(b));
                std::array::from_fn(|c| value(seed, key * 4 + c as u64) * 0.5 + 0.5)
            };
            let f = probe::run_fragments(&cp, &env, 32, true, false, &input).expect("runs");
            f.outputs
                .iter()
                .zip(&f.killed)
                .map(|(o, &k)| (bits(o), k))
                .collect()
        }
    }
}

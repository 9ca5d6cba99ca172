//! The random program generator against the compiled kernels: for both dialects and both
//! stages, every generated program the compiler accepts runs on one batch of random and
//! edge-value inputs through the interpreter and through wasmtime; every output row and the
//! kill mask must agree bit for bit (NaN payloads aside, which the interpreter does not
//! canonicalise). Refusals are counted by reason and the rate is printed.

use hoist_asm::{ParseOptions, Program, Stage};
use hoist_raster::compile::{LANES, compile};
use hoist_raster::exec::{ExecEnv, Machine};
use hoist_raster::jit::{self, Refusal};
use hoist_raster::raster::const_table;
use hoist_raster::texture::Texture;
use hoist_raster::{GlState, StageParams};
use hoist_verify::generate::{Flavor, pair, textures};
use std::collections::BTreeMap;

const EDGES: [f32; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    1e-40,
    0.5,
    -2.5,
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn value(&mut self) -> f32 {
        let r = self.next();
        if r.is_multiple_of(8) {
            EDGES[(r >> 8) as usize % EDGES.len()]
        } else {
            ((r >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0) as f32
        }
    }
}

fn parse(text: &str) -> Program {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .unwrap_or_else(|d| panic!("{d:?}\n{text}"))
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Runs one batch both ways; returns a description of the first difference.
fn compare(p: &Program, rng: &mut Rng) -> Result<Option<String>, Refusal> {
    let k = compile(p).map_err(|e| Refusal::Unsupported(e.to_string()))?;
    jit::compile(&k)?;
    let compiled = jit::prepare(&k)?;
    let consts = const_table(p, k.const_len, &StageParams::default(), &GlState::default());
    let tex = textures(p);
    let texrefs: Vec<Option<&Texture>> = (0..32u8).map(|u| tex.get(&u).map(|t| &**t)).collect();
    let env = ExecEnv {
        consts: &consts,
        textures: &texrefs,
        shared_textures: &[],
        int_consts: &[],
        bool_consts: &[],
        quads: p.stage() == Stage::Fragment,
        max_loop_iterations: 255,
        max_call_depth: 8,
        max_batch_instructions: 1 << 22,
    };
    let mut a = Machine::new(&k);
    let mut b = Machine::new(&k);
    for m in [&mut a, &mut b] {
        m.bind_consts(&k, &consts);
        m.reset(&k);
    }
    for &(_, row) in &k.inputs {
        for r in row as usize..row as usize + 4 {
            let v: [f32; LANES] = std::array::from_fn(|_| rng.value());
            *a.regs[r] = v;
            *b.regs[r] = v;
        }
    }
    let live = [true; LANES];
    a.run(&k, &env, &live);
    compiled.run(&mut b, &k, &env, &live);
    for &(reg, row) in &k.outputs {
        for c in 0..4 {
            let r = row as usize + c;
            for l in 0..LANES {
                if !same(a.regs[r][l], b.regs[r][l]) {
                    return Ok(Some(format!(
                        "{reg:?} component {c} lane {l}: interpreter {:?} ({:#010x}), compiled {:?} ({:#010x})",
                        a.regs[r][l],
                        a.regs[r][l].to_bits(),
                        b.regs[r][l],
                        b.regs[r][l].to_bits()
                    )));
                }
            }
        }
    }
    if a.killed != b.killed {
        return Ok(Some("kill masks differ".into()));
    }
    if (a.insts_executed, a.slots_executed) != (b.insts_executed, b.slots_executed) {
        return Ok(Some("statistics differ".into()));
    }
    Ok(None)
}

fn reason(r: &Refusal) -> String {
    match r {
        Refusal::Unsupported(s) => s
            .split_once("): ")
            .map_or(s.clone(), |(_, why)| why.to_string()),
        other => other.to_string(),
    }
}

#[test]
fn generated_programs_are_bit_identical_compiled() {
    let n = 150u64;
    let mut problems = Vec::new();
    for flavor in [Flavor::Arb, Flavor::D3d9] {
        for stage in [Stage::Vertex, Stage::Fragment] {
            let mut refused: BTreeMap<String, usize> = BTreeMap::new();
            let mut ran = 0;
            for seed in 0..n {
                let pr = pair(seed, flavor);
                let text = if stage == Stage::Vertex {
                    &pr.vp
                } else {
                    &pr.fp
                };
                let p = parse(text);
                let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
                match compare(&p, &mut rng) {
                    Ok(None) => ran += 1,
                    Ok(Some(d)) => problems.push(format!("{} {stage:?}: {d}\n{text}", pr.label)),
                    Err(r) => *refused.entry(reason(&r)).or_default() += 1,
                }
            }
            let total: usize = refused.values().sum();
            println!(
                "{flavor:?} {stage:?}: {ran} of {n} compiled and bit-identical, {total} refused ({:.1}%): {refused:?}",
                100.0 * total as f64 / n as f64
            );
            assert!(ran > 0, "{flavor:?} {stage:?}: nothing compiled");
        }
    }
    assert!(
        problems.is_empty(),
        "{}",
        problems[..problems.len().min(5)].join("\n")
    );
}

//! Constant folding (`hoist_opt::passes::fold::eval`) against the executor: every folded op,
//! in both dialects, with and without `_sat`, on random and special operands (±0, ±1, ±inf,
//! NaN, denormals, huge), read both as varying interpolants and as uniform parameters (the
//! executor has a separate path for broadcast operands). Folding is only legal if the
//! folded literal is bit for bit what the program computes at run time.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ir::Semantic;
use hoist_asm::{Dialect, Op, ParseOptions, Program};
use hoist_opt::passes::fold;
use hoist_raster::probe::{self, StageEnv};
use hoist_raster::raster::CompiledProgram;
use hoist_raster::{Caps, GlState, StageParams};
use proptest::prelude::*;
use std::collections::BTreeMap;

const OPS: [(Op, &str, &str, usize); 10] = [
    (Op::Mov, "MOV", "mov", 1),
    (Op::Abs, "ABS", "abs", 1),
    (Op::Add, "ADD", "add", 2),
    (Op::Sub, "SUB", "sub", 2),
    (Op::Mul, "MUL", "mul", 2),
    (Op::Mad, "MAD", "mad", 3),
    (Op::Min, "MIN", "min", 2),
    (Op::Max, "MAX", "max", 2),
    (Op::Rcp, "RCP", "rcp", 1),
    (Op::Rsq, "RSQ", "rsq", 1),
];

fn scalar(op: Op) -> bool {
    matches!(op, Op::Rcp | Op::Rsq)
}

/// `OP result, a, b, c` reading interpolants (`uniform` false) or parameters.
fn program(d: Dialect, op: usize, sat: bool, uniform: bool) -> Program {
    let (o, arb, d3d, n) = OPS[op];
    let sw = if scalar(o) { ".x" } else { "" };
    let text = match d {
        Dialect::Arb => {
            let src: Vec<String> = (0..n)
                .map(|k| {
                    if uniform {
                        format!("program.env[{k}]{sw}")
                    } else {
                        format!("fragment.texcoord[{k}]{sw}")
                    }
                })
                .collect();
            let s = if sat { "_SAT" } else { "" };
            format!(
                "!!ARBfp1.0\n{arb}{s} result.color, {};\nEND\n",
                src.join(", ")
            )
        }
        Dialect::D3d9 => {
            // ps_2_0 reads at most two constant registers and one texture coordinate per
            // instruction: the others go through temporaries.
            let src: Vec<String> = (0..n)
                .map(|k| match (uniform && k < 2, k) {
                    (true, _) => format!("c{k}{sw}"),
                    (false, 0) => format!("t0{sw}"),
                    (false, _) => format!("r{k}{sw}"),
                })
                .collect();
            let s = if sat { "_sat" } else { "" };
            let dcl: String = (0..3).map(|k| format!("dcl t{k}\n")).collect();
            format!(
                "ps_2_0\n{dcl}mov r1, t1\nmov r2, t2\n{d3d}{s} r0, {}\nmov oC0, r0\n",
                src.join(", ")
            )
        }
    };
    hoist_asm::parse(&text, &ParseOptions::default())
        .into_result()
        .unwrap_or_else(|d| panic!("{text}\n{d:?}"))
}

/// What the executor computes for the first lane of the result.
fn run(p: &Program, args: [f32; 3]) -> f32 {
    let cp = CompiledProgram::new(p).expect("compiles");
    let mut params = StageParams::default();
    for (k, a) in args.iter().enumerate() {
        params.env.insert(k as u16, [*a; 4]);
    }
    let textures = BTreeMap::new();
    let env = StageEnv {
        params: &params,
        gl: &GlState::default(),
        textures: &textures,
        caps: &Caps::default(),
    };
    let input = |_: usize, s: Semantic| match s {
        Semantic::TexCoord(k) if k < 3 => [args[k as usize]; 4],
        _ => [0.0; 4],
    };
    let out = probe::run_fragments(&cp, &env, 4, false, false, &input).expect("runs");
    out.outputs[0][0].1[0]
}

fn special() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(0.0f32),
        Just(-0.0f32),
        Just(1.0f32),
        Just(-1.0f32),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(f32::NAN),
        Just(f32::MAX),
        Just(1e-40f32),
        Just(-3.0e38f32),
        any::<f32>(),
        -4.0f32..4.0,
    ]
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn folding_computes_what_the_executor_computes(
        op in 0..OPS.len(),
        d3d in any::<bool>(),
        sat in any::<bool>(),
        uniform in any::<bool>(),
        a in special(), b in special(), c in special(),
    ) {
        let d = if d3d { Dialect::D3d9 } else { Dialect::Arb };
        let p = program(d, op, sat, uniform);
        let args = [a, b, c];
        let got = run(&p, args);
        let n = OPS[op].3;
        let r = fold::eval(OPS[op].0, d, &args[..n]).expect("foldable");
        let want = if sat { hoist_asm::semantics::sat(r) } else { r };
        prop_assert!(same(want, got), "{:?} {d:?} sat={sat} uniform={uniform} {:?}: fold {want:e} ({:#x}), executor {got:e} ({:#x})",
            OPS[op].0, &args[..n], want.to_bits(), got.to_bits());
    }
}

/// MIN and MAX fold as `hoist_asm::semantics::min`/`max` compute them, which is what both
/// executors run: the first operand on a tie (so the sign of equal zeros is kept), the
/// other one when the first is NaN. Every pair of special operands, both dialects, both
/// operand paths, bit for bit (`f32::min`/`max` leave the sign of equal zeros to the build).
#[test]
fn min_and_max_fold_signed_zeros_and_nan_as_the_executor() {
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
    ];
    let mut checked = 0;
    for (op, name) in [(6, "MIN"), (7, "MAX")] {
        let o = OPS[op].0;
        for &a in &specials {
            for &b in &specials {
                let want = if o == Op::Min {
                    hoist_asm::semantics::min(a, b)
                } else {
                    hoist_asm::semantics::max(a, b)
                };
                for d in [Dialect::Arb, Dialect::D3d9] {
                    let r = fold::eval(o, d, &[a, b]).expect("foldable");
                    assert!(
                        r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan()),
                        "{name}({a:?}, {b:?}) {d:?}: fold {r:?}, semantics {want:?}"
                    );
                    for uniform in [false, true] {
                        let got = run(&program(d, op, false, uniform), [a, b, 0.0]);
                        assert!(
                            same(r, got),
                            "{name}({a:?}, {b:?}) {d:?} uniform={uniform}: fold {r:?}, executor {got:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 64 * 4);
    // The ties themselves, spelled out.
    assert_eq!(
        fold::eval(Op::Max, Dialect::Arb, &[0.0, -0.0])
            .unwrap()
            .to_bits(),
        0
    );
    assert_eq!(
        fold::eval(Op::Max, Dialect::Arb, &[-0.0, 0.0])
            .unwrap()
            .to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(
        fold::eval(Op::Min, Dialect::D3d9, &[-0.0, 0.0])
            .unwrap()
            .to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(
        fold::eval(Op::Min, Dialect::D3d9, &[0.0, -0.0])
            .unwrap()
            .to_bits(),
        0
    );
}

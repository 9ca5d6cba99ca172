//! A fragment program evaluated in double precision: the reference the page's guidance
//! holds a DIFFERENT pixel against to tell cancellation from a wrong result. Straight-line
//! arithmetic only (the operations below, no textures, flow control or relative
//! addressing); operand swizzles, negation and `_abs` as the IR defines them
//! (`Swizzle::get`), write masks and `_sat` as the executor applies them, in f64.

use crate::program::{UNWRITTEN, in_semantic};
use hoist_asm::Op;
use hoist_asm::Program;
use hoist_asm::ir::{RegFile, Semantic};
use std::collections::HashMap;

/// The fragment program's inputs by semantic, in double precision.
pub type Inputs64 = HashMap<Semantic, [f64; 4]>;

fn input_of(fp: &Program, m: &Inputs64, reg: hoist_asm::Reg) -> [f64; 4] {
    in_semantic(fp, reg)
        .and_then(|s| m.get(&s).copied())
        .unwrap_or(UNWRITTEN.map(f64::from))
}

/// The fragment program's colour output evaluated in double precision, when it is straight
/// arithmetic this knows (`None` otherwise: textures, flow control, other operations).
pub fn eval64(fp: &Program, consts: &[[f32; 4]], inputs: &Inputs64) -> Option<[f64; 4]> {
    let mut regs: HashMap<(RegFile, u16), [f64; 4]> = HashMap::new();
    for inst in &fp.insts {
        let src: Vec<[f64; 4]> = inst
            .src
            .iter()
            .map(|s| {
                if s.rel.is_some() {
                    return None;
                }
                let raw = match s.reg.file {
                    RegFile::Temp => regs.get(&(RegFile::Temp, s.reg.index)).copied()?,
                    RegFile::Input | RegFile::TexCoord | RegFile::Misc => {
                        input_of(fp, inputs, s.reg)
                    }
                    RegFile::Const => consts.get(usize::from(s.reg.index))?.map(f64::from),
                    _ => return None,
                };
                let mut v = [0.0; 4];
                for (i, o) in v.iter_mut().enumerate() {
                    let c = raw[usize::from(s.swizzle.get(i as u8))];
                    let c = if s.abs { c.abs() } else { c };
                    *o = if s.negate { -c } else { c };
                }
                Some(v)
            })
            .collect::<Option<_>>()?;
        let each = |f: &dyn Fn(usize) -> f64| -> [f64; 4] { std::array::from_fn(f) };
        let dot = |n: usize| (0..n).map(|c| src[0][c] * src[1][c]).sum::<f64>();
        let r: [f64; 4] = match inst.op {
            Op::Mov => src[0],
            Op::Abs => src[0].map(f64::abs),
            Op::Add => each(&|c| src[0][c] + src[1][c]),
            Op::Sub => each(&|c| src[0][c] - src[1][c]),
            Op::Mul => each(&|c| src[0][c] * src[1][c]),
            Op::Mad => each(&|c| src[0][c] * src[1][c] + src[2][c]),
            Op::Min => each(&|c| min64(src[0][c], src[1][c])),
            Op::Max => each(&|c| max64(src[0][c], src[1][c])),
            Op::Flr => src[0].map(f64::floor),
            Op::Frc => src[0].map(|v| v - v.floor()),
            Op::Lrp => each(&|c| src[0][c] * (src[1][c] - src[2][c]) + src[2][c]),
            Op::Slt => each(&|c| f64::from(u8::from(src[0][c] < src[1][c]))),
            Op::Sge => each(&|c| f64::from(u8::from(src[0][c] >= src[1][c]))),
            Op::Cmp => each(&|c| {
                if src[0][c] < 0.0 {
                    src[1][c]
                } else {
                    src[2][c]
                }
            }),
            Op::CmpGe => each(&|c| {
                if src[0][c] >= 0.0 {
                    src[1][c]
                } else {
                    src[2][c]
                }
            }),
            Op::Dp3 => [dot(3); 4],
            Op::Dp4 => [dot(4); 4],
            Op::Dph => [dot(3) + src[1][3]; 4],
            _ => return None,
        };
        let d = inst.dst.as_ref()?;
        let slot = regs.entry((d.reg.file, d.reg.index)).or_insert([0.0; 4]);
        for (c, v) in r.iter().enumerate() {
            if d.mask.0 & (1 << c) != 0 {
                slot[c] = if inst.sat { sat64(*v) } else { *v };
            }
        }
    }
    regs.get(&(RegFile::ColorOut, 0)).copied()
}

/// `hoist_asm::semantics::max`, `min` and `sat` in double precision: the first operand on
/// a tie, the other when the first is NaN; `_SAT` of NaN or −0 is +0.
fn max64(a: f64, b: f64) -> f64 {
    if b > a || a.is_nan() { b } else { a }
}

fn min64(a: f64, b: f64) -> f64 {
    if b < a || a.is_nan() { b } else { a }
}

fn sat64(x: f64) -> f64 {
    if x > 0.0 { x.min(1.0) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_asm::ParseOptions;

    /// The double-precision reference computes MIN, MAX and `_SAT` as the executors do.
    #[test]
    fn reference_min_max_and_sat_follow_the_semantics() {
        let specials = [0.0f32, -0.0, 1.0, -1.0, 2.0, f32::INFINITY, f32::NAN];
        for a in specials {
            for b in specials {
                let pairs = [
                    (max64(a.into(), b.into()), hoist_asm::semantics::max(a, b)),
                    (min64(a.into(), b.into()), hoist_asm::semantics::min(a, b)),
                ];
                for (got, want) in pairs {
                    let same =
                        (got as f32).to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                    assert!(same, "{a:?} {b:?}: {got:?} against {want:?}");
                }
            }
            let want = hoist_asm::semantics::sat(a);
            assert_eq!((sat64(a.into()) as f32).to_bits(), want.to_bits(), "{a:?}");
        }
    }

    #[test]
    fn swizzles_modifiers_masks_and_saturation() {
        let fp = hoist_asm::parse(
            "!!ARBfp1.0\n\
             PARAM k = {0.25, -2, 3, 0.5};\n\
             TEMP a;\n\
             MUL a, fragment.texcoord[0].wzyx, k;\n\
             ADD a.xy, a, -k.zzzz;\n\
             MAD_SAT result.color, a, k.w, 0.75;\n\
             END\n",
            &ParseOptions::default(),
        )
        .into_result()
        .expect("parses");
        let consts = crate::program::const_table(
            &fp,
            fp.consts.len(),
            &Default::default(),
            &Default::default(),
        );
        let inputs = Inputs64::from([(Semantic::TexCoord(0), [1.0, 2.0, 3.0, 4.0])]);
        let out = eval64(&fp, &consts, &inputs).expect("straight arithmetic");
        // a = (4·0.25, 3·-2, 2·3, 1·0.5) = (1, -6, 6, 0.5); a.xy -= 3 → (-2, -9);
        // result = sat(a·0.5 + 0.75) = sat(-0.25, -3.75, 3.75, 1.0).
        assert_eq!(out, [0.0, 0.0, 1.0, 1.0]);
        let texture = hoist_asm::parse(
            "!!ARBfp1.0\nTEX result.color, fragment.texcoord[0], texture[0], 2D;\nEND\n",
            &ParseOptions::default(),
        )
        .into_result()
        .expect("parses");
        assert_eq!(eval64(&texture, &[], &inputs), None);
    }
}

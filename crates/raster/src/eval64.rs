//! A fragment program evaluated in double precision: the reference the page's guidance
//! holds a DIFFERENT pixel against to tell cancellation from a wrong result. Straight-line
//! arithmetic only (the operations below, no textures, flow control or relative
//! addressing); operand swizzles, negation and `_abs` as the IR defines them
//! (`Swizzle::get`), write masks and `_sat` as the executor applies them, in f64.

use crate::program::{UNWRITTEN, in_semantic};
use hoist_asm::Op;
use hoist_asm::Program;
use hoist_asm::ir::{RegFile, Semantic};
/// Four-component values by key, in the order first set: a pixel has a handful of inputs
/// and a straight-line program writes a handful of registers, so a list searched in order
/// is enough.
#[derive(Clone, Debug, PartialEq)]
pub struct Values<K>(Vec<(K, [f64; 4])>);

impl<K> Default for Values<K> {
    fn default() -> Self {
        Values(Vec::new())
    }
}

impl<K: Copy + PartialEq> Values<K> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, key: K) -> Option<[f64; 4]> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// The value of `key`, zero until set.
    pub fn slot(&mut self, key: K) -> &mut [f64; 4] {
        let at = match self.0.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.0.push((key, [0.0; 4]));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    pub fn insert(&mut self, key: K, value: [f64; 4]) {
        *self.slot(key) = value;
    }
}

/// The fragment program's inputs by semantic, in double precision.
pub type Inputs64 = Values<Semantic>;

fn input_of(fp: &Program, m: &Inputs64, reg: hoist_asm::Reg) -> [f64; 4] {
    in_semantic(fp, reg)
        .and_then(|s| m.get(s))
        .unwrap_or(UNWRITTEN.map(f64::from))
}

/// Operation `op` on component `c` of its sources; `None` for an operation this does not
/// know.
fn lane(op: Op, src: &[[f64; 4]], c: usize) -> Option<f64> {
    let x = |k: usize| src[k][c];
    Some(match op {
        Op::Mov => x(0),
        Op::Abs => x(0).abs(),
        Op::Add => x(0) + x(1),
        Op::Sub => x(0) - x(1),
        Op::Mul => x(0) * x(1),
        Op::Mad => x(0) * x(1) + x(2),
        Op::Min => min64(x(0), x(1)),
        Op::Max => max64(x(0), x(1)),
        Op::Flr => x(0).floor(),
        Op::Frc => x(0) - x(0).floor(),
        Op::Lrp => x(0) * (x(1) - x(2)) + x(2),
        Op::Slt => f64::from(u8::from(x(0) < x(1))),
        Op::Sge => f64::from(u8::from(x(0) >= x(1))),
        Op::Cmp => {
            if x(0) < 0.0 {
                x(1)
            } else {
                x(2)
            }
        }
        Op::CmpGe => {
            if x(0) >= 0.0 {
                x(1)
            } else {
                x(2)
            }
        }
        _ => return None,
    })
}

/// The fragment program's colour output evaluated in double precision, when it is straight
/// arithmetic this knows (`None` otherwise: textures, flow control, other operations).
pub fn eval64(fp: &Program, consts: &[[f32; 4]], inputs: &Inputs64) -> Option<[f64; 4]> {
    let mut regs = Values::<(RegFile, u16)>::new();
    for inst in &fp.insts {
        // The operations below read at most three sources.
        let mut read = [[0.0; 4]; 3];
        if inst.src.len() > read.len() {
            return None;
        }
        for (v, s) in read.iter_mut().zip(&inst.src) {
            if s.rel.is_some() {
                return None;
            }
            let raw = match s.reg.file {
                RegFile::Temp => regs.get((RegFile::Temp, s.reg.index))?,
                RegFile::Input | RegFile::TexCoord | RegFile::Misc => input_of(fp, inputs, s.reg),
                RegFile::Const => consts.get(usize::from(s.reg.index))?.map(f64::from),
                _ => return None,
            };
            for (i, o) in v.iter_mut().enumerate() {
                let c = raw[usize::from(s.swizzle.get(i as u8))];
                let c = if s.abs { c.abs() } else { c };
                *o = if s.negate { -c } else { c };
            }
        }
        let src = &read[..inst.src.len()];
        let dot = |n: usize| (0..n).map(|c| src[0][c] * src[1][c]).sum::<f64>();
        let r: [f64; 4] = match inst.op {
            Op::Dp3 => [dot(3); 4],
            Op::Dp4 => [dot(4); 4],
            Op::Dph => [dot(3) + src[1][3]; 4],
            op => {
                let mut r = [0.0; 4];
                for (c, v) in r.iter_mut().enumerate() {
                    *v = lane(op, src, c)?;
                }
                r
            }
        };
        let d = inst.dst.as_ref()?;
        let slot = regs.slot((d.reg.file, d.reg.index));
        for (c, v) in r.iter().enumerate() {
            if d.mask.0 & (1 << c) != 0 {
                slot[c] = if inst.sat { sat64(*v) } else { *v };
            }
        }
    }
    regs.get((RegFile::ColorOut, 0))
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
        // Opaque inputs: rustc 1.95's optimized builds fold `max64(-0.0, 0.0)` with
        // constant operands to +0 while the same code at run time returns -0.
        let specials = specials.map(std::hint::black_box);
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
        let mut inputs = Inputs64::new();
        inputs.insert(Semantic::TexCoord(0), [1.0, 2.0, 3.0, 4.0]);
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

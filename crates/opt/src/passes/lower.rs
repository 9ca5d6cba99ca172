//! Lowering: vertex-program emulations of operations the vertex profile lacks.
//!
//! Some operations a fragment profile offers are missing from the vertex profile (ARB
//! vertex programs have no `CMP`/`LRP`; vs_1_1 has no `abs`, `cmp`, `lrp`, `dp2add`). When such
//! an instruction is otherwise movable, it moves as a short sequence of vertex operations.
//! Each expansion reproduces the executor's evaluation order and rounding, so results are
//! bit-identical for finite values except the sign of a zero result: `max(s, −s)` keeps
//! −0 (`hoist_asm::semantics::max` keeps the first operand on a tie), and a select whose
//! chosen value is ±0 can come out as the other zero (`−0 + +0 = +0`). Validation's vertex
//! check compares transported values bit for bit, so such a difference on its inputs
//! keeps the group in the fragment program:
//! - `abs d, s` → `max d, s, -s`.
//! - selects (`CMP`, D3D9 `cmp`, `cnd`) → a 0/1 mask from `slt`/`sge` and `d = b·m + c·(1−m)`:
//!   `b·1 + c·0` is exactly `b` and `b·0 + c·1` exactly `c` — unless the unselected side is
//!   infinite or NaN (∞·0 = NaN): selects where a value operand may be non-finite stay
//!   (`analysis/finite.rs`).
//! - `lrp d, t, a, b` → `mul u, t, a; add v, 1, -t; mad d, v, b, u`: the executor's
//!   `t·a + (1−t)·b`, with the same roundings (addition commutes exactly).
//! - `dp2add d, a, b, c` → `mul u.x, a.x, b.x; mad u.x, a.y, b.y, u.x; add d, u.x, c.x`.

use hoist_asm::ir::{Dst, Inst, Reg, RegFile, Src, Swizzle, WriteMask};
use hoist_asm::ops::Op;
use hoist_asm::profile::Profile;

/// Whether `inst` can be emulated in `vp`.
pub fn can_lower(inst: &Inst, vp: Profile) -> bool {
    let needs = |ops: &[Op]| ops.iter().all(|&o| vp.has(o));
    if inst.src.iter().any(|s| s.abs) {
        return false;
    }
    match inst.op {
        Op::Abs => needs(&[Op::Max]),
        Op::Cmp | Op::CmpGe | Op::Cnd => needs(&[Op::Slt, Op::Sge, Op::Mul, Op::Mad, Op::Sub]),
        Op::Lrp => needs(&[Op::Mul, Op::Add, Op::Mad]),
        Op::Dp2add => needs(&[Op::Mul, Op::Mad, Op::Add]),
        _ => false,
    }
}

/// Expands `inst` into vertex operations. `temp()` hands out scratch temporaries and
/// `one_zero()` a constant slot holding (1, 0, 0.5, 0) for the selects.
pub fn expand(
    inst: &Inst,
    temp: &mut dyn FnMut() -> Option<u16>,
    one_zero: &mut dyn FnMut() -> Option<u16>,
) -> Option<Vec<Inst>> {
    let dst = inst.dst.clone()?;
    let mask = dst.mask;
    let tmp = |t: u16| Reg::new(RegFile::Temp, t);
    let mk = |op: Op, d: Dst, s: Vec<Src>| {
        let mut i = Inst::new(op, Some(d), s);
        i.pp = inst.pp;
        i
    };
    let mut out = Vec::new();
    match inst.op {
        Op::Abs => {
            out.push(mk(
                Op::Max,
                dst,
                vec![inst.src[0].clone(), inst.src[0].clone().negated()],
            ));
        }
        Op::Lrp => {
            let k = Reg::new(RegFile::Const, one_zero()?);
            let u = tmp(temp()?);
            let v = tmp(temp()?);
            out.push(mk(
                Op::Mul,
                Dst::new(u, mask),
                vec![inst.src[0].clone(), inst.src[1].clone()],
            ));
            out.push(mk(
                Op::Add,
                Dst::new(v, mask),
                vec![
                    Src::new(k).swizzled(Swizzle::splat(0)),
                    inst.src[0].clone().negated(),
                ],
            ));
            out.push(mk(
                Op::Mad,
                dst,
                vec![Src::new(v), inst.src[2].clone(), Src::new(u)],
            ));
        }
        Op::Dp2add => {
            let u = tmp(temp()?);
            let x = |s: &Src, c: u8| s.clone().swizzled(Swizzle::splat(s.swizzle.get(c)));
            out.push(mk(
                Op::Mul,
                Dst::new(u, WriteMask::X),
                vec![x(&inst.src[0], 0), x(&inst.src[1], 0)],
            ));
            out.push(mk(
                Op::Mad,
                Dst::new(u, WriteMask::X),
                vec![
                    x(&inst.src[0], 1),
                    x(&inst.src[1], 1),
                    Src::new(u).swizzled(Swizzle::splat(0)),
                ],
            ));
            out.push(mk(
                Op::Add,
                dst,
                vec![Src::new(u).swizzled(Swizzle::splat(0)), x(&inst.src[2], 0)],
            ));
        }
        Op::Cmp | Op::CmpGe | Op::Cnd => {
            let k = Reg::new(RegFile::Const, one_zero()?);
            let m = tmp(temp()?);
            let n = tmp(temp()?);
            // m = 1 where the first source (b) is selected.
            let (op, thresh) = match inst.op {
                Op::Cmp => (Op::Slt, 1),   // s0 < 0
                Op::CmpGe => (Op::Sge, 1), // s0 >= 0
                _ => (Op::Slt, 2),         // cnd: s0 > 0.5 ⇔ 0.5 < s0
            };
            if inst.op == Op::Cnd {
                out.push(mk(
                    op,
                    Dst::new(m, mask),
                    vec![
                        Src::new(k).swizzled(Swizzle::splat(thresh)),
                        inst.src[0].clone(),
                    ],
                ));
            } else {
                out.push(mk(
                    op,
                    Dst::new(m, mask),
                    vec![
                        inst.src[0].clone(),
                        Src::new(k).swizzled(Swizzle::splat(thresh)),
                    ],
                ));
            }
            // n = 1 - m
            out.push(mk(
                Op::Sub,
                Dst::new(n, mask),
                vec![Src::new(k).swizzled(Swizzle::splat(0)), Src::new(m)],
            ));
            // n = c * n ; d = b * m + n
            out.push(mk(
                Op::Mul,
                Dst::new(n, mask),
                vec![inst.src[2].clone(), Src::new(n)],
            ));
            out.push(mk(
                Op::Mad,
                dst,
                vec![inst.src[1].clone(), Src::new(m), Src::new(n)],
            ));
        }
        _ => return None,
    }
    if inst.sat {
        return None;
    }
    Some(out)
}

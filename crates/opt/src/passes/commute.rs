//! Commutation that unlocks motion (the paper's Sorting kernel).
//!
//! A compiler often accumulates as `r = a; r = r + b`. When `a` must stay in the fragment
//! program but `b` could move, neither instruction moves. Swapping the operands,
//! `r = b; r = r + a`, lets the first instruction move and saves a fragment slot.
//!
//! Rewrites (`i` is the `mov`, `j` the add; `r` written by `i` is read only by `j`):
//! - `mov r, a; add r, r, b` (or `add r, b, r`) → `mov r, b; add r, r, a`
//! - `mov r, a; sub r, r, b` → `mov r, -b; add r, r, a`
//! - `mov r, a; sub r, b, r` → `mov r, b; sub r, r, a`
//!
//! Legality: IEEE addition is commutative and `x - y` equals `x + (-y)` exactly, so `j`
//! computes bit-identical results. `b` is evaluated earlier than before and `a` later, so
//! both must read the same values at their new places: neither `i` (whose destination both
//! would otherwise see rewritten) nor anything between `i` and `j` may write a register either
//! reads. Only reorderings that make `i` movable are applied.

use crate::analysis::defuse::DefUse;
use crate::analysis::movable::Movability;
use crate::tracked::Tracked;
use hoist_asm::ir::{Inst, Src, Swizzle, WriteMask};
use hoist_asm::ops::Op;

/// `movable_src(j, k)`: whether operand `k` of instruction `j` reads only values that could
/// move. Returns the indices of the `mov`s that were rewritten.
pub fn run(
    t: &mut Tracked,
    du: &DefUse,
    m: &Movability,
    movable_src: &dyn Fn(usize, usize) -> bool,
) -> Vec<usize> {
    let mut done = Vec::new();
    let n = t.program.insts.len();
    for j in 0..n {
        let inst = &t.program.insts[j];
        if !matches!(inst.op, Op::Add | Op::Sub) || m.movable(j) {
            continue;
        }
        let Some(dst) = &inst.dst else { continue };
        // Which operand reads r (the accumulator) straight from one `mov`?
        for acc in 0..2usize {
            let other = 1 - acc;
            let s = &inst.src[acc];
            if s.reg != dst.reg
                || s.negate
                || s.abs
                || s.rel.is_some()
                || !identity_on(s.swizzle, dst.mask)
            {
                continue;
            }
            let reads: Vec<_> = du.reads(j).iter().filter(|r| r.src == acc as u8).collect();
            let Some(i) = reads.first().and_then(|r| r.def) else {
                continue;
            };
            let i = i as usize;
            if reads.iter().any(|r| r.def != Some(i as u32)) || done.contains(&i) {
                continue;
            }
            let mv = &t.program.insts[i];
            let Some(mdst) = &mv.dst else { continue };
            if mv.op != Op::Mov
                || mv.sat
                || mdst.reg != dst.reg
                || mdst.mask != dst.mask
                || m.movable(i)
            {
                continue;
            }
            // r from the mov must be read by j alone.
            if dst
                .mask
                .iter()
                .any(|c| du.uses(i, c).iter().any(|u| u.inst != j as u32))
            {
                continue;
            }
            if !movable_src(j, other) {
                continue;
            }
            // `b` is now read at `i`, before `i`'s own write and everything up to `j`; `a` is
            // read at `j`, after the rewritten `mov` and everything between.
            let a = mv.src[0].clone();
            let b = inst.src[other].clone();
            if clobbers(&t.program.insts[i..j], &a) || clobbers(&t.program.insts[i..j], &b) {
                continue;
            }
            let (new_mov_src, new_op, new_other) = match (inst.op, acc) {
                (Op::Add, _) => (b, Op::Add, a),
                (Op::Sub, 0) => (b.negated(), Op::Add, a),
                (Op::Sub, _) => (b, Op::Sub, a),
                _ => continue,
            };
            let acc_src = inst.src[acc].clone();
            t.program.insts[i].src[0] = new_mov_src;
            let jj = &mut t.program.insts[j];
            jj.op = new_op;
            jj.src[0] = acc_src;
            jj.src[1] = new_other;
            t.lines[i].mark_src(0);
            t.lines[j].mark_src(0);
            t.lines[j].mark_src(1);
            done.push(i);
            break;
        }
    }
    done
}

fn identity_on(s: Swizzle, mask: WriteMask) -> bool {
    mask.iter().all(|c| s.get(c) == c)
}

fn clobbers(between: &[Inst], s: &Src) -> bool {
    between.iter().any(|w| {
        w.dst
            .as_ref()
            .is_some_and(|d| d.reg == s.reg || s.rel.is_some_and(|r| r.reg == d.reg))
    })
}

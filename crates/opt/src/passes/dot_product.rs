//! Sums of products → DP3/DP4: a chain `mul t.c, a.i, b.i; mad t.c, a.j, b.j, t.c;
//! mad t.c, a.k, b.k, t.c [; mad t.c, a.l, b.l, t.c]` on one component becomes
//! `dp3/dp4 t.c, a.ijk[l], b.ijk[l]` — the paper's `dot()`, one VLIW group on R600 instead of
//! three or four dependent ones.
//!
//! Legality: the executor's DP3 is `(a0·b0 + a1·b1) + a2·b2` (DP4 adds `a3·b3` last), each
//! product rounded, and MAD rounds its product before the add, so the chain in this order
//! computes bit-for-bit the dot product. The rewrite requires: each link reads the previous
//! one's result alone (a temporary component nobody else reads), all products read the same
//! two registers with the same modifiers (no relative address), neither register is written
//! inside the chain, only the last link may saturate, and the program still validates.

use super::mad_fuse::{sole_reader, straight_line, written_between};
use crate::tracked::Tracked;
use hoist_asm::ir::{Inst, Program, Src, Swizzle, WriteMask};
use hoist_asm::ops::Op;
use hoist_asm::profile::Limits;

/// The component of operand `s` that lane `lane` of an instruction reads.
fn comp(s: &Src, lane: u8) -> u8 {
    s.swizzle.get(lane)
}

fn same_reg(a: &Src, b: &Src) -> bool {
    a.reg == b.reg && a.negate == b.negate && a.abs == b.abs && a.rel.is_none() && b.rel.is_none()
}

/// Follows the chain from the `mul` at `i`; returns its instructions.
fn chain(p: &Program, i: usize) -> Option<Vec<usize>> {
    let mul = &p.insts[i];
    let d = mul.dst.as_ref()?;
    if mul.op != Op::Mul || mul.sat || d.mask.count() != 1 {
        return None;
    }
    let mut links = vec![i];
    while links.len() < 4 {
        let last = *links.last()?;
        let Some(j) = sole_reader(p, last) else { break };
        let m = &p.insts[j];
        let prev = p.insts[last].dst.as_ref()?;
        let reads_prev = m.op == Op::Mad
            && m.src[2].reg == prev.reg
            && !m.src[2].negate
            && !m.src[2].abs
            && m.dst.as_ref().is_some_and(|x| x.mask.count() == 1)
            && m.src[0].reg != prev.reg
            && m.src[1].reg != prev.reg;
        if !reads_prev || p.insts[last].sat {
            break;
        }
        links.push(j);
    }
    (links.len() >= 3).then_some(links)
}

/// The dot product replacing a chain, if its products line up.
fn rewrite(p: &Program, links: &[usize]) -> Option<Inst> {
    let first = &p.insts[links[0]];
    let last = &p.insts[*links.last()?];
    let lane = |i: usize| {
        p.insts[i]
            .dst
            .as_ref()
            .map(|d| d.mask.iter().next().unwrap_or(0))
    };
    let (a0, b0) = (&first.src[0], &first.src[1]);
    let mut ca = [0u8; 4];
    let mut cb = [0u8; 4];
    for (n, &i) in links.iter().enumerate() {
        let inst = &p.insts[i];
        let l = lane(i)?;
        if !same_reg(&inst.src[0], a0) || !same_reg(&inst.src[1], b0) {
            return None;
        }
        if written_between(p, a0.reg, links[0], i) || written_between(p, b0.reg, links[0], i) {
            return None;
        }
        ca[n] = comp(&inst.src[0], l);
        cb[n] = comp(&inst.src[1], l);
    }
    let op = if links.len() == 3 { Op::Dp3 } else { Op::Dp4 };
    let mut a = a0.clone();
    let mut b = b0.clone();
    a.swizzle = Swizzle::new(
        ca[0],
        ca[1],
        ca[2],
        if op == Op::Dp4 { ca[3] } else { ca[2] },
    );
    b.swizzle = Swizzle::new(
        cb[0],
        cb[1],
        cb[2],
        if op == Op::Dp4 { cb[3] } else { cb[2] },
    );
    let mut dst = last.dst.clone()?;
    dst.mask = WriteMask(dst.mask.0);
    let mut dp = Inst::new(op, Some(dst), [a, b]);
    dp.sat = last.sat;
    dp.span = last.span;
    dp.comment = last.comment.clone();
    Some(dp)
}

/// Rewrites every eligible chain; returns whether anything changed.
pub fn run(t: &mut Tracked, limits: &Limits) -> bool {
    if !straight_line(&t.program) || !t.program.profile.has(Op::Dp4) {
        return false;
    }
    let mut progress = false;
    let mut i = 0;
    while i < t.program.insts.len() {
        let found =
            chain(&t.program, i).and_then(|links| Some((rewrite(&t.program, &links)?, links)));
        if let Some((dp, links)) = found {
            let end = *links.last().unwrap_or(&i);
            let mut trial = t.program.clone();
            trial.insts[end] = dp.clone();
            let drop: Vec<usize> = links[..links.len() - 1].to_vec();
            let mut k = 0;
            trial.insts.retain(|_| {
                k += 1;
                !drop.contains(&(k - 1))
            });
            if hoist_asm::validate::check(&trial, limits)
                .iter()
                .all(|d| !d.is_error())
            {
                t.program.insts[end] = dp;
                t.lines[end].mark_src(0);
                t.lines[end].mark_src(1);
                t.retain(|k| !drop.contains(&k));
                progress = true;
                continue;
            }
        }
        i += 1;
    }
    progress
}

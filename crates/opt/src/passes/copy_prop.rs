//! Copy propagation: operands that read the result of a plain `mov` read its source instead.
//!
//! After motion the fragment program holds `mov r, tK` instructions that read transported
//! values back into their old registers; propagating them lets the staying instructions
//! read the interpolator directly, and [`super::dce`] then drops the `mov`s (the paper's
//! Figure 5 has none). On the vertex side the same pass folds copies in the moved code.
//!
//! Legality: an operand is rewritten only when every component it reads was written by a
//! candidate `mov` (no saturation, no modifiers other than negation, no relative
//! addressing), all of them read the same register with the same negation, that register
//! is not written between the `mov` and the reader, and the composed swizzle is accepted by
//! the profile (`legal`). The reader then sees bit-for-bit the same values.

use crate::analysis::defuse::DefUse;
use crate::tracked::{Line, Tracked};
use hoist_asm::ir::{Inst, Program, Src, Swizzle, WriteMask};
use hoist_asm::ops::Op;

/// Rewrites operands of instructions accepted by `reader` that read `mov`s accepted by
/// `candidate`. `legal(program, inst, src, new)` vets each rewrite. Returns whether anything
/// changed.
pub fn run(
    t: &mut Tracked,
    candidate: &dyn Fn(&Line, &Inst) -> bool,
    reader: &dyn Fn(&Line) -> bool,
    legal: &dyn Fn(&Program, usize, usize, &Src) -> bool,
) -> bool {
    let Ok(du) = DefUse::compute(&t.program) else {
        return false;
    };
    let mut progress = false;
    for j in 0..t.program.insts.len() {
        if !reader(&t.lines[j]) {
            continue;
        }
        for k in 0..t.program.insts[j].src.len() {
            let s = &t.program.insts[j].src[k];
            if s.rel.is_some() || s.abs {
                continue;
            }
            if k == 1 && t.program.insts[j].op.matrix_rows().is_some() {
                continue;
            }
            let reads: Vec<_> = du.reads(j).iter().filter(|r| r.src == k as u8).collect();
            if reads.is_empty() {
                continue;
            }
            let mut from: Option<(hoist_asm::ir::Reg, bool)> = None;
            let mut comp_map = [None::<u8>; 4];
            let mut ok = true;
            for r in &reads {
                let Some(d) = r.def else {
                    ok = false;
                    break;
                };
                let m = &t.program.insts[d as usize];
                let ms = &m.src[0];
                if m.op != Op::Mov
                    || m.sat
                    || ms.rel.is_some()
                    || ms.abs
                    || !candidate(&t.lines[d as usize], m)
                {
                    ok = false;
                    break;
                }
                let key = (ms.reg, ms.negate);
                if from.is_some_and(|f| f != key) {
                    ok = false;
                    break;
                }
                from = Some(key);
                let src_comp = ms.swizzle.get(r.comp);
                // The source must still hold that component at the reader.
                if hoist_asm::ir::RegFile::Temp == ms.reg.file
                    && t.program.insts[d as usize + 1..j].iter().any(|w| {
                        w.dst
                            .as_ref()
                            .is_some_and(|x| x.reg == ms.reg && x.mask.has(src_comp))
                    })
                {
                    ok = false;
                    break;
                }
                comp_map[r.comp as usize] = Some(src_comp);
            }
            let Some((reg, neg)) = from.filter(|_| ok) else {
                continue;
            };
            let old = &t.program.insts[j].src[k];
            let lanes = t.program.insts[j].src_lanes(k, lanes_of(&t.program.insts[j]));
            // Unread lanes may read anything; prefer the identity, then a replicate, so the
            // result is a swizzle the profile accepts.
            let mapped: Option<[u8; 4]> = (0..4u8).try_fold([0u8; 4], |mut sw, lane| {
                let a = old.swizzle.get(lane);
                sw[lane as usize] = match comp_map[a as usize] {
                    Some(c) => c,
                    None if lanes.has(lane) => return None,
                    None => u8::MAX,
                };
                Some(sw)
            });
            let Some(mapped) = mapped else { continue };
            let fill = |f: &dyn Fn(u8) -> u8| {
                let mut sw = mapped;
                for (lane, c) in sw.iter_mut().enumerate() {
                    if *c == u8::MAX {
                        *c = f(lane as u8);
                    }
                }
                Swizzle::new(sw[0], sw[1], sw[2], sw[3])
            };
            let first = mapped.iter().copied().find(|&c| c != u8::MAX).unwrap_or(0);
            let last = mapped
                .iter()
                .rev()
                .copied()
                .find(|&c| c != u8::MAX)
                .unwrap_or(0);
            let candidates = [fill(&|l| l), fill(&|_| last), fill(&|_| first)];
            let mut new = old.clone();
            new.reg = reg;
            new.name = None;
            new.negate ^= neg;
            let Some(sw) = candidates.into_iter().find(|&sw| {
                new.swizzle = sw;
                legal(&t.program, j, k, &new)
            }) else {
                continue;
            };
            new.swizzle = sw;
            if new == *old {
                continue;
            }
            t.program.insts[j].src[k] = new;
            t.lines[j].mark_src(k);
            progress = true;
        }
    }
    progress
}

fn lanes_of(inst: &Inst) -> WriteMask {
    if inst.info().has_dst {
        inst.dst_lanes()
    } else {
        WriteMask::ALL
    }
}

//! Retargeting: a moved instruction whose result only travels to the fragment program
//! writes the interpolator itself, and its transport `mov` shrinks or disappears.
//!
//! `op rX.m, ...; mov oTk.n, rX.s` becomes `op oTk.n', ...` for the lanes `n'` of the `mov`
//! that read components `op` wrote, when every component `op` writes is either read only by
//! that `mov` or not read at all. A transport whose components come from several producers
//! is split this way, one producer at a time; the `mov` keeps only the lanes no producer
//! could take. For ops whose lanes are independent (componentwise) the sources' swizzles
//! are permuted with the lanes; ops that replicate one result (scalar ops, dot products)
//! may write any lanes; other shapes are retargeted only when the lanes stay in place. The
//! output receives exactly the values the `mov` copied, so the program's outputs are
//! unchanged, provided nothing between the producer and the `mov` writes those output
//! components.

use crate::analysis::defuse::DefUse;
use crate::tracked::{AddedFor, Prov, Tracked};
use hoist_asm::ir::{RegFile, Swizzle, WriteMask};
use hoist_asm::ops::{Op, Shape};

struct Plan {
    producer: usize,
    transport: usize,
    /// Lanes of the transport this producer takes over, with the producer lane feeding each.
    lanes: Vec<(u8, u8)>,
}

/// Non-overlapping plans: each producer and each transport appears at most once.
fn find(t: &Tracked, du: &DefUse) -> Vec<Plan> {
    let mut plans: Vec<Plan> = Vec::new();
    for q in 0..t.program.insts.len() {
        if !matches!(
            t.lines[q].prov,
            Prov::Added {
                why: AddedFor::Transport,
                ..
            }
        ) {
            continue;
        }
        let mv = &t.program.insts[q];
        let s = &mv.src[0];
        if mv.op != Op::Mov
            || mv.sat
            || s.negate
            || s.abs
            || s.rel.is_some()
            || s.reg.file != RegFile::Temp
        {
            continue;
        }
        let Some(mask) = mv.dst.as_ref().map(|d| d.mask) else {
            continue;
        };
        let mut producers: Vec<u32> = du.reads(q).iter().filter_map(|r| r.def).collect();
        hoist_asm::sort::ord(&mut producers);
        producers.dedup();
        for p in producers {
            let p = p as usize;
            if t.lines[p].is_original() {
                continue;
            }
            let prod = &t.program.insts[p];
            let Some(pd) = &prod.dst else { continue };
            if pd.rel.is_some() || pd.reg != s.reg {
                continue;
            }
            let only_this = pd
                .mask
                .iter()
                .all(|c| du.uses(p, c).iter().all(|u| u.inst == q as u32));
            if !only_this {
                continue;
            }
            // Lanes of the transport fed by this producer.
            let lanes: Vec<(u8, u8)> = mask
                .iter()
                .filter(|&l| {
                    du.reads(q)
                        .iter()
                        .any(|r| r.comp == s.swizzle.get(l) && r.def == Some(p as u32))
                })
                .map(|l| (l, s.swizzle.get(l)))
                .collect();
            if lanes.is_empty() {
                continue;
            }
            // The output is now written at `p` instead of `q`: nothing in between may write
            // the same components, or it would be the later write.
            let taken = lanes
                .iter()
                .fold(WriteMask::NONE, |m, &(l, _)| m.union(WriteMask::single(l)));
            let out = mv.dst.as_ref().map(|d| d.reg);
            if t.program.insts[p + 1..q].iter().any(|w| {
                w.dst
                    .as_ref()
                    .is_some_and(|d| Some(d.reg) == out && !d.mask.intersect(taken).is_empty())
            }) {
                continue;
            }
            let identity = lanes.iter().all(|&(l, a)| l == a);
            let relane = match prod.info().shape {
                Shape::Componentwise => prod.op != Op::Mova,
                Shape::Scalar | Shape::Dot(_) | Shape::Dph | Shape::Dp2add => true,
                _ => identity && lanes.len() as u32 == pd.mask.count(),
            };
            if relane && !plans.iter().any(|pl| pl.transport == q || pl.producer == p) {
                plans.push(Plan {
                    producer: p,
                    transport: q,
                    lanes,
                });
                break;
            }
        }
    }
    plans
}

/// Returns whether anything changed.
pub fn run(t: &mut Tracked) -> bool {
    let mut progress = false;
    loop {
        let Ok(du) = DefUse::compute(&t.program) else {
            return progress;
        };
        let plans = find(t, &du);
        if plans.is_empty() {
            return progress;
        }
        let mut remove = vec![false; t.program.insts.len()];
        for plan in plans {
            let out = t.program.insts[plan.transport]
                .dst
                .clone()
                .expect("mov has a destination");
            let new_mask = plan
                .lanes
                .iter()
                .fold(WriteMask::NONE, |m, &(l, _)| m.union(WriteMask::single(l)));
            let prod = &mut t.program.insts[plan.producer];
            if prod.info().shape == Shape::Componentwise {
                for src in prod.src.iter_mut() {
                    let old = src.swizzle.comps();
                    let mut sw = old;
                    for &(l, a) in &plan.lanes {
                        sw[l as usize] = old[a as usize];
                    }
                    src.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
                }
            }
            let d = prod.dst.as_mut().expect("producer has a destination");
            d.reg = out.reg;
            d.mask = new_mask;
            d.name = None;
            t.lines[plan.producer].mark_dst();
            let rest = out.mask.minus(new_mask);
            if rest.is_empty() {
                remove[plan.transport] = true;
            } else {
                // The producer now writes the output earlier; the other lanes keep their mov.
                t.program.insts[plan.transport]
                    .dst
                    .as_mut()
                    .expect("mov has a destination")
                    .mask = rest;
            }
        }
        t.retain(|i| !remove[i]);
        progress = true;
    }
}

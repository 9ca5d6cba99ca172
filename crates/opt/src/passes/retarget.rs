//! Retargeting: a moved instruction whose result only travels to the fragment program
//! writes the interpolator itself, and its transport `mov` disappears.
//!
//! `op rX.m, ...; mov oTk.n, rX.s` becomes `op oTk.n, ...` when every component `op` writes
//! is either read only by that `mov` or not read at all. For ops whose lanes are independent
//! (componentwise) the sources' swizzles are permuted with the lanes; ops that replicate one
//! result (scalar ops, dot products) may write any lanes; other shapes are retargeted only
//! when the lanes stay where they are. The output receives exactly the values the `mov`
//! copied, so the program's outputs are unchanged.

use crate::analysis::defuse::DefUse;
use crate::tracked::{AddedFor, Prov, Tracked};
use hoist_asm::ir::{RegFile, Swizzle};
use hoist_asm::ops::{Op, Shape};

/// Returns whether anything changed.
pub fn run(t: &mut Tracked) -> bool {
    let mut progress = false;
    loop {
        let Ok(du) = DefUse::compute(&t.program) else {
            return progress;
        };
        let mut done = None;
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
            let reads = &du.reads[q];
            let Some(p) = reads.first().and_then(|r| r.def) else {
                continue;
            };
            if reads.iter().any(|r| r.def != Some(p)) || t.lines[p as usize].is_original() {
                continue;
            }
            let prod = &t.program.insts[p as usize];
            let Some(pd) = &prod.dst else { continue };
            if pd.rel.is_some() || pd.reg != s.reg {
                continue;
            }
            let only_this = pd.mask.iter().all(|c| {
                du.uses[p as usize][c as usize]
                    .iter()
                    .all(|u| u.inst == q as u32)
            });
            if !only_this {
                continue;
            }
            let mask = mv.dst.as_ref().expect("mov has a destination").mask;
            let lane_from: Vec<(u8, u8)> = mask.iter().map(|l| (l, s.swizzle.get(l))).collect();
            if lane_from.iter().any(|&(_, a)| !pd.mask.has(a)) {
                continue;
            }
            let identity = lane_from.iter().all(|&(l, a)| l == a) && mask == pd.mask;
            let shape = prod.info().shape;
            let relane = match shape {
                Shape::Componentwise => prod.op != Op::Mova,
                Shape::Scalar | Shape::Dot(_) | Shape::Dph | Shape::Dp2add => true,
                _ => identity,
            };
            if !relane {
                continue;
            }
            done = Some((p as usize, q, mask, lane_from, shape));
            break;
        }
        let Some((p, q, mask, lane_from, shape)) = done else {
            return progress;
        };
        let out = t.program.insts[q]
            .dst
            .clone()
            .expect("mov has a destination");
        let prod = &mut t.program.insts[p];
        if shape == Shape::Componentwise {
            for src in prod.src.iter_mut() {
                let old = src.swizzle.comps();
                let mut sw = old;
                for &(l, a) in &lane_from {
                    sw[l as usize] = old[a as usize];
                }
                src.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
            }
        }
        let d = prod.dst.as_mut().expect("producer has a destination");
        d.reg = out.reg;
        d.mask = mask;
        d.name = None;
        t.lines[p].mark_dst();
        t.retain(|i| i != q);
        progress = true;
    }
}

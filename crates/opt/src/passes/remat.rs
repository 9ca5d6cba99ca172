//! Rematerialization (seed 002, CUDAvis §5.2 "value recalculation"): instead of holding a
//! temporary across the rows where pressure peaks, compute its value again right before
//! its next read.
//!
//! A value can be recomputed when its instruction reads only inputs and constants (`v#`,
//! `t#`, `c#` and ARB parameters are readable everywhere and never change) and is cheap: one
//! arithmetic instruction, not a texture read, kill or flow op, not predicated, with no
//! relative addressing. The copy goes immediately before the first read after the peak row
//! and writes the same register, on the components nothing wrote since the original: those
//! components still hold the original's bits there, so the copy rewrites identical bits and
//! every read sees what it saw before. The value is then dead between its last read before
//! the peak and the copy, which frees its components at the peak.
//!
//! Each copy costs one instruction per invocation: fragments·ΔF in a fragment program,
//! vertices·ΔV in a vertex program ([`cost`]). The pass adds copies only while the peak is
//! above the target (a profile's limit), each time the one that lowers the pressure most
//! (the peak, then the rows at the peak, then the live components), and stops when none
//! helps.

use crate::analysis::defuse::{DefUse, defines_in_program};
use crate::analysis::liveness::Liveness;
use crate::tracked::{AddedFor, Line, Tracked};
use hoist_asm::ir::{Inst, Program, RegFile, WriteMask};

/// One recomputation: a copy of instruction `def` inserted before instruction `at`,
/// writing `mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Copy {
    def: usize,
    at: usize,
    mask: WriteMask,
}

/// The cost of `added` instructions run `invocations` times (fragments or vertices).
pub fn cost(added: usize, invocations: f64) -> f64 {
    added as f64 * invocations
}

/// Adds recomputations to `t` until its peak of live temporaries is at most `target` or no
/// copy lowers the pressure; returns how many it added.
pub fn run(t: &mut Tracked, target: u32) -> usize {
    let mut added = 0;
    for _ in 0..t.program.insts.len().min(256) {
        let now = key(&t.program);
        if now.0 <= target {
            break;
        }
        let Ok(du) = DefUse::compute(&t.program) else {
            break;
        };
        let best = candidates(&t.program, &du)
            .into_iter()
            .map(|c| (key(&with_copy(&t.program, c)), c))
            .filter(|(k, _)| *k < now)
            .min_by_key(|(k, c)| (*k, c.at, c.def));
        let Some((_, c)) = best else {
            break;
        };
        let mut inst = t.program.insts[c.def].clone();
        if let Some(d) = &mut inst.dst {
            d.mask = c.mask;
        }
        let index = match t.lines[c.def].prov {
            crate::tracked::Prov::Original { index } | crate::tracked::Prov::Moved { index } => {
                Some(index as usize)
            }
            crate::tracked::Prov::Added { index, .. } => index.map(|i| i as usize),
        };
        t.program.insts.insert(c.at, inst);
        t.lines
            .insert(c.at, Line::added(AddedFor::Rematerialize, index));
        added += 1;
    }
    added
}

/// Pressure to minimise: peak temporaries, rows at the peak, live components in all.
fn key(p: &Program) -> (u32, usize, u32) {
    let l = Liveness::counts(p, 0);
    let at_peak = l.temps.iter().filter(|&&t| t == l.peak).count();
    (l.peak, at_peak, l.components.iter().sum())
}

fn with_copy(p: &Program, c: Copy) -> Program {
    let mut q = p.clone();
    let mut inst = p.insts[c.def].clone();
    if let Some(d) = &mut inst.dst {
        d.mask = c.mask;
    }
    q.insts.insert(c.at, inst);
    q
}

/// Whether `inst` may be computed again anywhere: one cheap instruction of inputs and
/// constants writing a temporary.
pub fn recomputable(inst: &Inst) -> bool {
    let class_ok = !inst.op.is_texture() && !inst.op.is_kill() && !inst.op.is_flow();
    let dst_ok = inst
        .dst
        .as_ref()
        .is_some_and(|d| d.reg.file == RegFile::Temp && d.rel.is_none());
    let srcs_ok = inst
        .src
        .iter()
        .all(|s| !defines_in_program(s.reg.file) && s.rel.is_none());
    class_ok && dst_ok && srcs_ok && inst.pred.is_none() && inst.info().has_dst
}

/// Every copy that ends a recomputable value's life across one of the peak rows.
fn candidates(p: &Program, du: &DefUse) -> Vec<Copy> {
    let l = Liveness::counts(p, 0);
    let peaks: Vec<usize> = (0..l.rows()).filter(|&r| l.temps[r] == l.peak).collect();
    let mut out = Vec::new();
    for (d, inst) in p.insts.iter().enumerate() {
        if !recomputable(inst) {
            continue;
        }
        let Some(dst) = &inst.dst else { continue };
        let mut users: Vec<usize> = du.users(d).map(|u| u as usize).collect();
        hoist_asm::sort::ord(&mut users);
        users.dedup();
        for &r in peaks.iter().filter(|&&r| r > d && !users.contains(&r)) {
            let Some(&at) = users.iter().find(|&&u| u > r) else {
                continue;
            };
            if !users.iter().any(|&u| u < r) && at == users[0] {
                // Nothing reads it before the peak: the copy would only move it.
                continue;
            }
            let overwritten = p.insts[d + 1..at]
                .iter()
                .filter_map(|i| i.dst.as_ref())
                .filter(|w| w.reg == dst.reg)
                .fold(WriteMask::NONE, |m, w| m.union(w.mask));
            let mask = dst.mask.minus(overwritten);
            let c = Copy { def: d, at, mask };
            if !mask.is_empty() && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

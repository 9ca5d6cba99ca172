//! Renumbers the temporaries of a straight-line Direct3D 9 program onto as few registers as
//! its live ranges need, so that a program over its profile's temp limit (which counts the
//! highest `r#` + 1) fits when its pressure allows.
//!
//! A *web* is a set of definitions that must share a register: those whose components one
//! operand reads together. Each web holds a register from its first definition to its last
//! read, and webs are coloured greedily in order of their first definition, which for
//! intervals uses no more registers than the most intervals that overlap. A web may take
//! the register of one whose last read is the row of its first write (the instruction reads
//! before it writes). Every read then names the register its definitions wrote, and nothing
//! else writes that register between them, so the program computes the same values.
//!
//! Programs with flow control, predicated or relatively addressed temporaries, matrix
//! macros reading rows of temporaries, reads of
//! temporaries never written, and ARB programs (whose temporaries are named declarations)
//! are left alone.

use crate::analysis::defuse::DefUse;
use crate::tracked::Tracked;
use hoist_asm::Dialect;
use hoist_asm::ir::{Program, RegFile};

/// Renumbers `t`'s temporaries onto at most `limit` registers; returns whether it changed
/// anything (`false` also when no renumbering fits).
pub fn run(t: &mut Tracked, limit: u16) -> bool {
    match plan(&t.program) {
        Some((colors, used)) if used <= limit => apply(&mut t.program, &colors, used),
        _ => false,
    }
}

/// Registers a renumbering would use, if the program can be renumbered.
pub fn registers_needed(p: &Program) -> Option<u16> {
    plan(p).map(|(_, n)| n)
}

/// The register of each temp-writing instruction's web, and the registers used.
fn plan(p: &Program) -> Option<(Vec<Option<u16>>, u16)> {
    if p.dialect() != Dialect::D3d9 || p.insts.iter().any(|i| i.op.is_flow()) {
        return None;
    }
    let temp_dst = |i: usize| {
        p.insts[i]
            .dst
            .as_ref()
            .filter(|d| d.reg.file == RegFile::Temp)
    };
    for (i, inst) in p.insts.iter().enumerate() {
        let rel_src = inst
            .src
            .iter()
            .any(|s| s.reg.file == RegFile::Temp && s.rel.is_some());
        let rows = inst.op.matrix_rows().is_some()
            && inst.src.get(1).is_some_and(|s| s.reg.file == RegFile::Temp);
        if rel_src || rows || temp_dst(i).is_some_and(|d| d.rel.is_some() || inst.pred.is_some()) {
            return None;
        }
    }
    let du = DefUse::compute(p).ok()?;
    let n = p.insts.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for j in 0..n {
        for k in 0..p.insts[j].src.len() {
            let mut defs = Vec::new();
            for r in du.reads(j).iter().filter(|r| r.src as usize == k) {
                if r.reg.file != RegFile::Temp {
                    continue;
                }
                defs.push(r.def? as usize);
            }
            for w in defs.windows(2) {
                let (a, b) = (find(&mut parent, w[0]), find(&mut parent, w[1]));
                parent[a] = b;
            }
        }
    }
    // Interval of each web: first definition to last read.
    let mut span: Vec<Option<(usize, usize)>> = vec![None; n];
    for d in (0..n).filter(|&d| temp_dst(d).is_some()) {
        let w = find(&mut parent, d);
        let last = du.users(d).map(|u| u as usize).max().unwrap_or(d);
        let s = span[w].get_or_insert((d, last));
        *s = (s.0.min(d), s.1.max(last));
    }
    let mut webs: Vec<(usize, usize, usize)> = (0..n)
        .filter_map(|w| span[w].map(|(a, b)| (a, b, w)))
        .collect();
    webs.sort_unstable();
    let mut free_at: Vec<usize> = Vec::new();
    let mut color_of = vec![None; n];
    for &(start, end, w) in &webs {
        let c = match free_at.iter().position(|&f| f <= start) {
            Some(c) => c,
            None => {
                free_at.push(0);
                free_at.len() - 1
            }
        };
        free_at[c] = end.max(start + 1);
        color_of[w] = Some(c as u16);
    }
    let colors = (0..n)
        .map(|d| temp_dst(d).and(color_of[find(&mut parent, d)]))
        .collect();
    Some((colors, free_at.len() as u16))
}

/// Rewrites every temp operand to its web's register.
fn apply(p: &mut Program, colors: &[Option<u16>], used: u16) -> bool {
    let Ok(du) = DefUse::compute(p) else {
        return false;
    };
    let before = p.insts.clone();
    for j in 0..p.insts.len() {
        let srcs: Vec<Option<u16>> = (0..p.insts[j].src.len())
            .map(|k| {
                du.reads(j)
                    .iter()
                    .find(|r| r.src as usize == k && r.reg.file == RegFile::Temp)
                    .and_then(|r| colors[r.def? as usize])
            })
            .collect();
        let inst = &mut p.insts[j];
        for (s, c) in inst.src.iter_mut().zip(srcs) {
            if let Some(c) = c {
                s.reg.index = c;
            }
        }
        if let (Some(d), Some(c)) = (&mut inst.dst, colors[j]) {
            d.reg.index = c;
        }
    }
    p.num_temps = used;
    p.insts != before
}

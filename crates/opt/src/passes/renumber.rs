//! Renumbers the temporaries of a straight-line program onto as few registers as its live
//! ranges need, so that a program over its profile's temp limit (D3D9: the highest `r#` + 1;
//! ARB: the `TEMP` declarations) fits when its pressure allows.
//!
//! A *web* is a set of definitions that must share a register: those whose components one
//! operand reads together. Each web holds a register from its first definition to its last
//! read, and webs are coloured greedily in order of their first definition, which for
//! intervals uses no more registers than the most intervals that overlap. A web may take
//! the register of one whose last read is the row of its first write (the instruction reads
//! before it writes). Every read then names the register its definitions wrote, and nothing
//! else writes that register between them, so the program computes the same values.
//!
//! ARB programs name their temporaries: the declarations are rebuilt as one `TEMP` per
//! register used, each named after the declaration its first web came from (a name two
//! registers would share goes to the first, the other gets a generated name), and unused
//! declarations and `ALIAS`es of temporaries are removed (registers are then printed under
//! their own names). Names are for printing only, so this changes no value.
//!
//! Programs with flow control, predicated or relatively addressed temporaries, matrix
//! macros reading rows of temporaries and reads of temporaries never written are left
//! alone.

use crate::analysis::defuse::DefUse;
use crate::tracked::Tracked;
use hoist_asm::Dialect;
use hoist_asm::ir::{Program, RegFile, SymId, SymKind, Symbol};

/// Renumbers `t`'s temporaries onto at most `limit` registers; returns whether it changed
/// anything (`false` also when no renumbering fits).
pub fn run(t: &mut Tracked, limit: u16) -> bool {
    match plan(&t.program) {
        Some((colors, used)) if used <= limit => {
            let before = t.program.clone();
            let changed = apply(&mut t.program, &colors, used);
            if t.program.dialect() == Dialect::Arb {
                rename_arb(&mut t.program, &before, &colors, used);
                return t.program != before;
            }
            changed
        }
        _ => false,
    }
}

/// Registers a renumbering would use, if the program can be renumbered.
pub fn registers_needed(p: &Program) -> Option<u16> {
    plan(p).map(|(_, n)| n)
}

/// The register of each temp-writing instruction's web, and the registers used.
fn plan(p: &Program) -> Option<(Vec<Option<u16>>, u16)> {
    if p.insts.iter().any(|i| i.op.is_flow()) {
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
    hoist_asm::sort::ord(&mut webs);
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

/// Rebuilds an ARB program's `TEMP` declarations after [`apply`]: register `c` is named after
/// the declaration of the register (in `before`) its first web wrote.
fn rename_arb(p: &mut Program, before: &Program, colors: &[Option<u16>], used: u16) {
    let mut first: Vec<Option<u16>> = vec![None; used as usize];
    for (j, c) in colors.iter().enumerate() {
        if let (Some(c), Some(d)) = (c, &before.insts[j].dst) {
            first[*c as usize].get_or_insert(d.reg.index);
        }
    }
    let old = std::mem::take(&mut p.symbols);
    let name_of = |reg: u16| {
        old.iter()
            .find(|s| s.kind == SymKind::Temp(reg))
            .map(|s| (s.name.clone(), s.span))
    };
    let mut temps: Vec<Symbol> = Vec::new();
    for (c, reg) in first.iter().enumerate() {
        if let Some((name, span)) = reg.and_then(name_of)
            && !temps.iter().any(|t| t.name == name)
        {
            temps.push(Symbol {
                name,
                kind: SymKind::Temp(c as u16),
                span,
            });
        }
    }
    let temp_like = |mut i: usize| {
        for _ in 0..old.len() {
            match old[i].kind {
                SymKind::Alias(t) if (t as usize) < old.len() => i = t as usize,
                SymKind::Temp(_) => return true,
                _ => return false,
            }
        }
        true
    };
    let mut new_id: Vec<Option<SymId>> = vec![None; old.len()];
    let mut temps = Some(temps);
    for (i, s) in old.iter().enumerate() {
        if temp_like(i) {
            if let Some(t) = temps.take() {
                p.symbols.extend(t);
            }
            continue;
        }
        let mut s = s.clone();
        if let SymKind::Alias(t) = &mut s.kind {
            match new_id[*t as usize] {
                Some(n) => *t = n,
                None => continue,
            }
        }
        new_id[i] = Some(p.symbols.len() as SymId);
        p.symbols.push(s);
    }
    if let Some(t) = temps.take() {
        p.symbols.extend(t);
    }
    for inst in &mut p.insts {
        let dst = inst.dst.iter_mut().map(|d| (d.reg.file, &mut d.name));
        let src = inst.src.iter_mut().map(|s| (s.reg.file, &mut s.name));
        for (file, name) in dst.chain(src) {
            *name = match file {
                RegFile::Temp => None,
                _ => name.and_then(|n| new_id[n as usize]),
            };
        }
    }
}

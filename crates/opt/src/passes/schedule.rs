//! Pressure-minimising list scheduling of straight-line programs (seed 002, CUDAvis §5.3:
//! moving the second fetch below the first fetch's uses cuts the peak from 8 to 6).
//!
//! The dependence DAG has an edge from `i` to a later `j` whenever they touch a common
//! register component and one of them writes it (read after write, write after read, write
//! after write; temporaries, address, predicate and output registers), so every order the
//! scheduler emits reads the same values into the same registers and writes the same
//! outputs: the program computes the same results. An instruction with a relatively
//! addressed destination is a barrier. Texture reads stay before their uses by the edges
//! themselves; as the order of texture reads and arithmetic decides the dependent-read
//! phases (ARB texture indirections, ps_2_0's read orders), a schedule that raises either,
//! or that the profile's rules reject, is discarded.
//!
//! Greedy list schedulers (top-down by the change in live components, with the original
//! order or texture reads first on ties, and bottom-up) each propose an order; the one with
//! the lowest peak (live temporaries, then live components, then their sum over the rows) is
//! kept when it beats the program as written. Programs with flow control are left alone.

use crate::analysis::defuse::DefUse;
use crate::analysis::liveness::{Liveness, inst_reads};
use crate::tracked::Tracked;
use hoist_asm::ir::{Program, Reg, RegFile, WriteMask};
use hoist_asm::profile::Limits;
use hoist_asm::{Dialect, Stage};

/// Peak pressure of a program: live temporaries, live components, and the components
/// summed over its rows (which breaks ties between equal peaks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pressure {
    pub temps: u32,
    pub components: u32,
    pub total: u32,
}

impl Pressure {
    pub fn of(p: &Program) -> Pressure {
        let l = Liveness::counts(p, 0);
        Pressure {
            temps: l.peak,
            components: l.peak_components,
            total: l.components.iter().sum(),
        }
    }
}

/// Reorders `t` to lower its peak pressure; returns whether it changed.
pub fn run(t: &mut Tracked, limits: &Limits) -> bool {
    let Some(order) = best_order(&t.program, limits) else {
        return false;
    };
    let insts = std::mem::take(&mut t.program.insts);
    let lines = std::mem::take(&mut t.lines);
    let mut slots: Vec<_> = insts.into_iter().zip(lines).map(Some).collect();
    for i in order {
        if let Some((inst, line)) = slots[i].take() {
            t.program.insts.push(inst);
            t.lines.push(line);
        }
    }
    true
}

/// The best order found, if it lowers the pressure and keeps the program within its rules.
pub fn best_order(p: &Program, limits: &Limits) -> Option<Vec<usize>> {
    if p.insts.iter().any(|i| i.op.is_flow()) || p.insts.len() < 2 {
        return None;
    }
    let du = DefUse::compute(p).ok()?;
    let dag = Dag::new(p);
    let before = Pressure::of(p);
    let phases = phases(p);
    let errors = count_errors(p, limits);
    let mut best: Option<(Pressure, Vec<usize>)> = None;
    let candidates = [
        top_down(p, &du, &dag, false),
        top_down(p, &du, &dag, true),
        bottom_up(p, &du, &dag),
    ];
    for order in candidates {
        if order.iter().enumerate().all(|(k, &i)| k == i) {
            continue;
        }
        let q = reordered(p, &order);
        let pr = Pressure::of(&q);
        if pr >= before || best.as_ref().is_some_and(|(b, _)| pr >= *b) {
            continue;
        }
        if phases(&q) > phases(p) || count_errors(&q, limits) > errors {
            continue;
        }
        best = Some((pr, order));
    }
    best.map(|(_, o)| o)
}

fn reordered(p: &Program, order: &[usize]) -> Program {
    let mut q = p.clone();
    q.insts = order.iter().map(|&i| p.insts[i].clone()).collect();
    q
}

fn count_errors(p: &Program, limits: &Limits) -> usize {
    hoist_asm::validate::check(p, limits)
        .iter()
        .filter(|d| d.is_error())
        .count()
}

/// The dependent-read measure the profile limits: ARB texture indirections, or the highest
/// ps_2_0 read order (0 for vertex programs).
fn phases(p: &Program) -> fn(&Program) -> i64 {
    match (p.stage(), p.dialect()) {
        (Stage::Vertex, _) => |_| 0,
        (_, Dialect::Arb) => |q| i64::from(hoist_asm::arb::tex_indirections(q)),
        (_, Dialect::D3d9) => |q| {
            hoist_asm::d3d9::rules::texture_read_orders(q)
                .into_iter()
                .flatten()
                .max()
                .map_or(0, i64::from)
        },
    }
}

/// Predecessors and successors of each instruction in the dependence DAG.
struct Dag {
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
}

/// What an instruction reads, what it writes, and whether it is a barrier.
type Touch = (Vec<(Reg, WriteMask)>, Option<(Reg, WriteMask)>, bool);

/// Files whose registers carry dependences between instructions.
fn ordered(f: RegFile) -> bool {
    matches!(
        f,
        RegFile::Temp | RegFile::Address | RegFile::Predicate | RegFile::Loop
    ) || f.is_output()
}

impl Dag {
    fn new(p: &Program) -> Dag {
        let n = p.insts.len();
        let touch: Vec<Touch> = p
            .insts
            .iter()
            .map(|i| {
                let reads = inst_reads(i)
                    .into_iter()
                    .filter(|(r, _)| ordered(r.file))
                    .collect();
                let write = i.dst.as_ref().map(|d| (d.reg, d.mask));
                let barrier = i.dst.as_ref().is_some_and(|d| d.rel.is_some()) || i.op.is_kill();
                (reads, write, barrier)
            })
            .collect();
        let meets = |a: &[(Reg, WriteMask)], r: Reg, m: WriteMask| {
            a.iter()
                .any(|(x, xm)| *x == r && !xm.intersect(m).is_empty())
        };
        let mut preds = vec![Vec::new(); n];
        let mut succs = vec![Vec::new(); n];
        for j in 0..n {
            for i in 0..j {
                let (ri, wi, bi) = &touch[i];
                let (rj, wj, bj) = &touch[j];
                let raw = wi.is_some_and(|(r, m)| meets(rj, r, m));
                let war = wj.is_some_and(|(r, m)| meets(ri, r, m));
                let waw = matches!((wi, wj), (Some((a, am)), Some((b, bm)))
                    if a == b && !am.intersect(*bm).is_empty());
                if raw || war || waw || *bi || *bj {
                    preds[j].push(i);
                    succs[i].push(j);
                }
            }
        }
        Dag { preds, succs }
    }
}

/// Temporary components `j` defines that something reads later.
fn defined(p: &Program, du: &DefUse, j: usize) -> Vec<u8> {
    match &p.insts[j].dst {
        Some(d) if d.reg.file == RegFile::Temp => d
            .mask
            .iter()
            .filter(|&c| !du.uses(j, c).is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// The (defining instruction, component) values of temporaries `j` reads.
fn values_read(du: &DefUse, j: usize) -> Vec<(usize, u8)> {
    let mut v: Vec<(usize, u8)> = du
        .reads(j)
        .iter()
        .filter(|r| r.reg.file == RegFile::Temp)
        .filter_map(|r| r.def.map(|d| (d as usize, r.comp)))
        .collect();
    hoist_asm::sort::ord(&mut v);
    v.dedup();
    v
}

/// Distinct instructions reading each (definition, component).
fn readers(du: &DefUse, n: usize) -> Vec<usize> {
    let mut out = vec![0usize; n * 4];
    for d in 0..n {
        for c in 0..4u8 {
            let mut insts: Vec<u32> = du.uses(d, c).iter().map(|u| u.inst).collect();
            insts.dedup();
            out[d * 4 + c as usize] = insts.len();
        }
    }
    out
}

/// Top-down: among the ready instructions, the one that adds the fewest live components
/// (new values minus values it reads for the last time); ties by the original order, or
/// texture reads first when `tex_first`.
fn top_down(p: &Program, du: &DefUse, dag: &Dag, tex_first: bool) -> Vec<usize> {
    let n = p.insts.len();
    let mut pending = readers(du, n);
    let mut waiting: Vec<usize> = dag.preds.iter().map(|v| v.len()).collect();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let pick = (0..n)
            .filter(|&j| !done[j] && waiting[j] == 0)
            .min_by_key(|&j| {
                let freed = values_read(du, j)
                    .iter()
                    .filter(|(d, c)| pending[d * 4 + *c as usize] == 1)
                    .count() as i64;
                let delta = defined(p, du, j).len() as i64 - freed;
                let tex = !(tex_first && p.insts[j].op.is_texture());
                (delta, tex, j)
            });
        let Some(j) = pick else {
            return (0..n).collect();
        };
        for (d, c) in values_read(du, j) {
            pending[d * 4 + c as usize] -= 1;
        }
        for &s in &dag.succs[j] {
            waiting[s] -= 1;
        }
        done[j] = true;
        order.push(j);
    }
    order
}

/// Bottom-up: from the end, place the ready instruction (all its successors placed) that
/// ends the most live values above it and starts the fewest; ties by the latest first.
fn bottom_up(p: &Program, du: &DefUse, dag: &Dag) -> Vec<usize> {
    let n = p.insts.len();
    let mut waiting: Vec<usize> = dag.succs.iter().map(|v| v.len()).collect();
    let mut live = vec![false; n * 4];
    let mut done = vec![false; n];
    let mut rev = Vec::with_capacity(n);
    while rev.len() < n {
        let pick = (0..n)
            .filter(|&j| !done[j] && waiting[j] == 0)
            .min_by_key(|&j| {
                let starts = values_read(du, j)
                    .iter()
                    .filter(|(d, c)| !live[d * 4 + *c as usize])
                    .count() as i64;
                let ends = defined(p, du, j).len() as i64;
                (starts - ends, std::cmp::Reverse(j))
            });
        let Some(j) = pick else {
            return (0..n).collect();
        };
        for (d, c) in values_read(du, j) {
            live[d * 4 + c as usize] = true;
        }
        for c in 0..4 {
            live[j * 4 + c] = false;
        }
        for &s in &dag.preds[j] {
            waiting[s] -= 1;
        }
        done[j] = true;
        rev.push(j);
    }
    rev.reverse();
    rev
}

//! Clauses and registers: the lowered program as a sequence of TEX and ALU clauses, and the
//! GPRs it needs.
//!
//! A program runs as control-flow instructions, each starting a clause. The scheduler
//! alternates: a TEX clause takes every fetch whose address is ready (at most 8 on R600,
//! 16 on R700; a fetch whose address depends on a fetch of the same clause waits for the
//! next one), then an ALU clause packs every ALU op that is ready into groups ([`super::pack`])
//! until none is, or until the next group would take it over 128 slots (instructions plus
//! literal slots) or need a third kcache window (an ALU clause locks at most 2 windows of
//! 32 constants). Flow-control instructions end clauses and keep their place.
//!
//! GPRs come last, over the scheduled order: each register lives from its first write to
//! its last read (inputs from the start, outputs to the end) and takes a whole GPR; a
//! linear scan assigns the lowest free GPR, so the count is the largest number of registers
//! live at once. A GPR freed by a last read can be written by the same group.

use super::chip::Chip;
use super::figures::Stats;
use super::lower::{AluOp, Lowered, Node, Operand};
use super::pack::{self, Filling, Forward, Group, WINDOW};
use hoist_asm::Stage;
use std::collections::BTreeSet;

pub use super::pack::Clause;

/// A program as the machine runs it.
#[derive(Clone, Debug)]
pub struct Machine {
    pub chip: Chip,
    pub stage: Stage,
    pub lowered: Lowered,
    pub clauses: Vec<Clause>,
    /// The GPR of each virtual register (None: never used).
    pub gpr: Vec<Option<u16>>,
    /// Where the model simplifies a rule, in words.
    pub notes: Vec<String>,
    pub stats: Stats,
}

impl Machine {
    pub fn alu(&self, node: usize) -> Option<&AluOp> {
        match self.lowered.nodes.get(node) {
            Some(Node::Alu(op)) => Some(op),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dep {
    Raw,
    War,
    Waw,
}

type Loc = (u32, u8);

fn reads(node: &Node) -> Vec<Loc> {
    match node {
        Node::Alu(op) => op
            .src
            .iter()
            .filter_map(|s| match s.operand {
                Operand::Gpr(v, c) => Some((v, c)),
                Operand::Special(sp, c) => Some((special_key(sp), c)),
                _ => None,
            })
            .collect(),
        Node::Fetch(f) => (0..4)
            .filter(|c| f.chans & 1 << c != 0)
            .map(|c| (f.coord, c))
            .collect(),
        Node::Flow(..) => Vec::new(),
    }
}

fn special_key(s: super::lower::Special) -> u32 {
    use super::lower::Special::*;
    match s {
        Address => u32::MAX,
        Loop => u32::MAX - 1,
        Predicate => u32::MAX - 2,
        Other(..) => u32::MAX - 3,
    }
}

fn writes(node: &Node) -> Vec<Loc> {
    match node {
        Node::Alu(op) => pack::writes_of(op).into_vec(),
        Node::Fetch(f) => match f.dst {
            Some(v) => (0..4)
                .filter(|c| f.mask & 1 << c != 0)
                .map(|c| (v, c))
                .collect(),
            None => Vec::new(),
        },
        Node::Flow(..) => Vec::new(),
    }
}

/// Each node's predecessors: who wrote what it reads, who read or wrote what it writes.
fn dependences(nodes: &[Node]) -> Vec<Vec<(usize, Dep)>> {
    let mut last_write: std::collections::HashMap<Loc, usize> = Default::default();
    let mut readers: std::collections::HashMap<Loc, Vec<usize>> = Default::default();
    let mut preds = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for l in reads(n) {
            if let Some(&w) = last_write.get(&l) {
                preds[i].push((w, Dep::Raw));
            }
            readers.entry(l).or_default().push(i);
        }
        for l in writes(n) {
            if let Some(&w) = last_write.get(&l) {
                preds[i].push((w, Dep::Waw));
            }
            for r in readers.remove(&l).unwrap_or_default() {
                if r != i {
                    preds[i].push((r, Dep::War));
                }
            }
            last_write.insert(l, i);
        }
    }
    preds
}

/// Position of a scheduled node: clause, and group within an ALU clause.
type Pos = Option<(usize, usize)>;

struct Sched<'a> {
    l: &'a Lowered,
    chip: Chip,
    preds: Vec<Vec<(usize, Dep)>>,
    pos: Vec<Pos>,
    clauses: Vec<Clause>,
    notes: BTreeSet<String>,
}

/// Schedules, packs and allocates a lowered program.
pub fn build(l: &Lowered, chip: Chip) -> Machine {
    let mut s = Sched {
        l,
        chip,
        preds: dependences(&l.nodes),
        pos: vec![None; l.nodes.len()],
        clauses: Vec::new(),
        notes: BTreeSet::new(),
    };
    let mut start = 0;
    for (i, n) in l.nodes.iter().enumerate() {
        if let Node::Flow(name, _) = n {
            s.region(start..i);
            s.pos[i] = Some((s.clauses.len(), 0));
            s.clauses.push(Clause::Flow(name));
            start = i + 1;
        }
    }
    s.region(start..l.nodes.len());
    let gpr = allocate(l, &s.clauses);
    let mut notes: Vec<String> = l.notes.clone();
    notes.extend(s.notes);
    let stage = l.stage.unwrap_or(Stage::Fragment);
    let simplified = l.lower_bound || notes.len() > l.notes.len();
    let stats = Stats::of(&s.clauses, l, &gpr, chip, stage, simplified);
    Machine {
        chip,
        stage,
        lowered: l.clone(),
        clauses: s.clauses,
        gpr,
        notes,
        stats,
    }
}

impl Sched<'_> {
    fn region(&mut self, range: std::ops::Range<usize>) {
        let mut alu: Vec<usize> = Vec::new();
        let mut tex: Vec<usize> = Vec::new();
        for i in range {
            match self.l.nodes[i] {
                Node::Alu(_) => alu.push(i),
                Node::Fetch(_) => tex.push(i),
                Node::Flow(..) => {}
            }
        }
        while !alu.is_empty() || !tex.is_empty() {
            let before = alu.len() + tex.len();
            self.tex_clause(&mut tex);
            self.alu_clause(&mut alu);
            if alu.len() + tex.len() == before {
                // Unreachable for a well-formed dependence graph; never loop forever.
                self.notes.insert("internal: scheduling stalled".into());
                break;
            }
        }
    }

    fn tex_clause(&mut self, pending: &mut Vec<usize>) {
        let k = self.clauses.len();
        let mut taken = Vec::new();
        for &n in pending.iter() {
            if taken.len() == self.chip.max_fetches() {
                break;
            }
            let ready = self.preds[n].iter().all(|&(p, d)| match self.pos[p] {
                None => false,
                Some((c, _)) => c < k || d != Dep::Raw,
            });
            if ready {
                self.pos[n] = Some((k, 0));
                taken.push(n);
            }
        }
        if !taken.is_empty() {
            pending.retain(|n| !taken.contains(n));
            self.clauses.push(Clause::Tex(taken));
        }
    }

    fn ready_alu(&self, n: usize, k: usize, g: usize) -> bool {
        self.preds[n].iter().all(|&(p, d)| match self.pos[p] {
            None => false,
            Some((c, pg)) => d == Dep::War || c < k || pg < g,
        })
    }

    fn alu_clause(&mut self, pending: &mut Vec<usize>) {
        let k = self.clauses.len();
        let mut groups: Vec<Group> = Vec::new();
        let mut used = 0;
        let mut lines = BTreeSet::new();
        let mut full = false;
        while !full {
            let g = groups.len();
            let fwd = match groups.last() {
                Some(last) => pack::forwards(last, |n| match &self.l.nodes[n] {
                    Node::Alu(op) => op,
                    _ => unreachable!("ALU clauses hold ALU ops"),
                }),
                None => Forward::new(),
            };
            let mut fill = Filling::new(self.chip, &fwd);
            let window: Vec<usize> = pending
                .iter()
                .copied()
                .filter(|&n| self.pos[n].is_none())
                .take(WINDOW)
                .collect();
            for n in window {
                if !self.ready_alu(n, k, g) {
                    continue;
                }
                let op = match &self.l.nodes[n] {
                    Node::Alu(op) => op,
                    _ => continue,
                };
                let mut next = lines.clone();
                next.extend(kcache_lines(op));
                if windows(&next) > 2 {
                    if !(groups.is_empty() && fill.group.filled() == 0) {
                        continue;
                    }
                    self.notes.insert(KCACHE_NOTE.into());
                }
                let save = fill.clone();
                let mut placed = fill.try_place(n, op);
                if !placed && fill.group.filled() == 0 {
                    fill.force(n, op);
                    self.notes.insert(PORTS_NOTE.into());
                    placed = true;
                }
                if placed && used + fill.group.clause_slots() > 128 {
                    fill = save;
                    full = true;
                    continue;
                }
                if placed {
                    self.pos[n] = Some((k, g));
                    lines = next;
                }
            }
            if fill.group.filled() == 0 {
                break;
            }
            used += fill.group.clause_slots();
            groups.push(fill.group);
        }
        if !groups.is_empty() {
            pending.retain(|&n| self.pos[n].is_none());
            self.clauses.push(Clause::Alu(groups));
        }
    }
}

const KCACHE_NOTE: &str = "an op reads constants from more kcache windows than an ALU clause \
can lock; counted as if it could (the driver would move a constant through a GPR)";
const PORTS_NOTE: &str = "an op reads more operands or literals than a group has read ports \
or literal room for; counted as one group (the driver would move one through a GPR first)";

/// The 16-constant lines an op reads directly (relative reads are noted elsewhere).
fn kcache_lines(op: &AluOp) -> impl Iterator<Item = u16> + '_ {
    op.src.iter().filter_map(|s| match s.operand {
        Operand::Kcache {
            index, rel: false, ..
        } => Some(index / 16),
        _ => None,
    })
}

/// Windows of two consecutive lines needed to cover `lines`.
fn windows(lines: &BTreeSet<u16>) -> usize {
    let mut n = 0;
    let mut covered_to: Option<u16> = None;
    for &l in lines {
        if covered_to.is_none_or(|c| l > c) {
            n += 1;
            covered_to = Some(l + 1);
        }
    }
    n
}

/// The steps of the schedule: each ALU group and each fetch is one.
fn steps(l: &Lowered, clauses: &[Clause]) -> Vec<(usize, usize)> {
    let mut at = vec![(usize::MAX, 0); l.nodes.len()];
    let mut step = 1;
    for c in clauses {
        match c {
            Clause::Alu(groups) => {
                for g in groups {
                    for p in g.slots.iter().flatten() {
                        at[p.node] = (step, 0);
                    }
                    step += 1;
                }
            }
            Clause::Tex(fetches) => {
                for &f in fetches {
                    at[f] = (step, 0);
                    step += 1;
                }
            }
            Clause::Flow(_) => step += 1,
        }
    }
    at
}

/// Linear-scan GPR allocation over the scheduled order (see the module docs).
fn allocate(l: &Lowered, clauses: &[Clause]) -> Vec<Option<u16>> {
    let at = steps(l, clauses);
    let n = l.vregs as usize;
    let mut start = vec![usize::MAX; n];
    let mut end = vec![0usize; n];
    let mut used = vec![false; n];
    for (i, node) in l.nodes.iter().enumerate() {
        let step = at[i].0;
        if step == usize::MAX {
            continue;
        }
        for (v, _) in writes(node).into_iter().filter(|w| (w.0 as usize) < n) {
            start[v as usize] = start[v as usize].min(step);
            end[v as usize] = end[v as usize].max(step);
            used[v as usize] = true;
        }
        for (v, _) in reads(node).into_iter().filter(|r| (r.0 as usize) < n) {
            end[v as usize] = end[v as usize].max(step);
            used[v as usize] = true;
        }
    }
    for &v in &l.inputs {
        start[v as usize] = 0;
    }
    for &v in &l.outputs {
        if used[v as usize] {
            end[v as usize] = usize::MAX;
        }
    }
    for v in 0..n {
        if used[v] && start[v] == usize::MAX {
            start[v] = 0;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&v| used[v]).collect();
    hoist_asm::sort::by_key(&mut order, |&v| (start[v], v));
    let mut gpr = vec![None; n];
    let mut busy: Vec<Option<(usize, usize)>> = Vec::new();
    for v in order {
        let free = busy.iter().position(|b| match *b {
            None => true,
            Some((s, e)) => e < start[v] || (e == start[v] && s < e),
        });
        let r = free.unwrap_or_else(|| {
            busy.push(None);
            busy.len() - 1
        });
        busy[r] = Some((start[v], end[v]));
        gpr[v] = Some(r as u16);
    }
    gpr
}

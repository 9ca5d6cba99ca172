//! The exact interpolator packer: values into registers of four components, so that every
//! group of values one fragment operand reads lies in one register.
//!
//! A value may be placed in several registers (a `y` two texture addresses share travels
//! once with each). Values of one register share a qualifier; values with none (uniform)
//! go anywhere. Profiles with free source swizzles put a value in any free component;
//! the others keep each value at its own position, so operand swizzles do not change.
//!
//! The search is a depth-first assignment of groups (largest first) to registers: a
//! register that already holds some of the group's values first, then one empty register
//! (empty registers are interchangeable), pruned when the values still to place exceed the
//! free components. Within its node budget it either finds a packing or proves there is
//! none; past the budget it says it does not know.

use crate::analysis::varyings::Qualifier;
use hoist_asm::ir::Comp;

/// A value's index.
pub(super) type V = usize;

/// A register's content, slot by slot.
pub(super) type Slots = [Option<V>; 4];

pub(super) struct Problem {
    pub(super) bins: usize,
    pub(super) any_slot: bool,
    /// Per value: its qualifier (`None`: any) and its position (fixed-position profiles).
    pub(super) class: Vec<Option<Qualifier>>,
    pub(super) pos: Vec<Comp>,
    /// Per register: content that stays where it is, and its qualifier.
    pub(super) fixed: Vec<Slots>,
    pub(super) fixed_class: Vec<Option<Qualifier>>,
    /// Groups of values that must share a register; every value to place is in one.
    pub(super) groups: Vec<Vec<V>>,
}

pub(super) struct Solution {
    pub(super) bins: Vec<Slots>,
    pub(super) class: Vec<Option<Qualifier>>,
    /// The register of each group of the problem.
    pub(super) group_bin: Vec<usize>,
}

pub(super) enum Answer {
    Found(Solution),
    Impossible,
    Unknown,
}

struct Search<'a> {
    p: &'a Problem,
    order: Vec<usize>,
    bins: Vec<Slots>,
    class: Vec<Option<Qualifier>>,
    chosen: Vec<usize>,
    nodes: u32,
    budget: u32,
}

/// Packs `p` within `budget` search nodes.
pub(super) fn solve(p: &Problem, budget: u32) -> Answer {
    let mut groups: Vec<usize> = Vec::new();
    for (g, vals) in p.groups.iter().enumerate() {
        if group_class(p, vals).is_err() {
            return Answer::Impossible;
        }
        // A group inside another (or equal to an earlier one) is placed with it.
        let covered = p.groups.iter().enumerate().any(|(h, other)| {
            h != g && vals.iter().all(|v| other.contains(v)) && (other.len() > vals.len() || h < g)
        });
        if !covered {
            groups.push(g);
        }
    }
    hoist_asm::sort::by_key(&mut groups, |&g| std::cmp::Reverse(p.groups[g].len()));
    let mut s = Search {
        p,
        order: groups,
        bins: p.fixed.clone(),
        class: p.fixed_class.clone(),
        chosen: vec![usize::MAX; p.groups.len()],
        nodes: 0,
        budget,
    };
    match s.dfs(0) {
        Some(true) => {}
        Some(false) => return Answer::Impossible,
        None => return Answer::Unknown,
    }
    let bins = s.bins;
    let group_bin = (0..p.groups.len())
        .map(|g| {
            if s.chosen[g] != usize::MAX {
                return s.chosen[g];
            }
            (0..bins.len())
                .find(|&b| p.groups[g].iter().all(|v| bins[b].contains(&Some(*v))))
                .expect("a covering group's register holds it")
        })
        .collect();
    Answer::Found(Solution {
        bins,
        class: s.class,
        group_bin,
    })
}

/// The one qualifier of a group's values (`None`: any); `Err` when they differ.
fn group_class(p: &Problem, vals: &[V]) -> Result<Option<Qualifier>, ()> {
    let mut q = None;
    for &v in vals {
        match (q, p.class[v]) {
            (None, x) => q = x,
            (Some(a), Some(b)) if a != b => return Err(()),
            _ => {}
        }
    }
    Ok(q)
}

impl Search<'_> {
    /// `Some(true)`: placed everything from `k` on; `Some(false)`: impossible; `None`: out
    /// of budget.
    fn dfs(&mut self, k: usize) -> Option<bool> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        let Some(&g) = self.order.get(k) else {
            return Some(true);
        };
        if !self.room_left(k) {
            return Some(false);
        }
        let vals = &self.p.groups[g];
        let mut cands: Vec<(usize, usize)> = Vec::new();
        let mut tried_empty = false;
        for b in 0..self.p.bins {
            let overlap = vals
                .iter()
                .filter(|v| self.bins[b].contains(&Some(**v)))
                .count();
            let empty = self.bins[b].iter().all(Option::is_none);
            if empty && tried_empty || !self.fits(b, vals) {
                continue;
            }
            tried_empty |= empty;
            cands.push((b, overlap));
        }
        hoist_asm::sort::by_key(&mut cands, |&(b, o)| {
            (
                std::cmp::Reverse(o),
                self.bins[b].iter().all(Option::is_none),
                b,
            )
        });
        for (b, _) in cands {
            let (saved, saved_class) = (self.bins[b], self.class[b]);
            self.put(b, g);
            self.chosen[g] = b;
            match self.dfs(k + 1) {
                Some(true) => return Some(true),
                None => return None,
                Some(false) => {}
            }
            self.bins[b] = saved;
            self.class[b] = saved_class;
            self.chosen[g] = usize::MAX;
        }
        Some(false)
    }

    /// Whether the free components can still hold the distinct values not yet placed.
    fn room_left(&self, k: usize) -> bool {
        let placed = |v: V| self.bins.iter().any(|b| b.contains(&Some(v)));
        let mut need: Vec<V> = Vec::new();
        for &g in &self.order[k..] {
            for &v in &self.p.groups[g] {
                if !placed(v) && !need.contains(&v) {
                    need.push(v);
                }
            }
        }
        let free: usize = self
            .bins
            .iter()
            .map(|b| b.iter().filter(|s| s.is_none()).count())
            .sum();
        need.len() <= free
    }

    fn fits(&self, b: usize, vals: &[V]) -> bool {
        let q = group_class(self.p, vals).expect("checked");
        if let (Some(a), Some(c)) = (q, self.class[b])
            && a != c
        {
            return false;
        }
        let bin = &self.bins[b];
        let new: Vec<V> = vals
            .iter()
            .copied()
            .filter(|v| !bin.contains(&Some(*v)))
            .collect();
        if self.p.any_slot {
            new.len() <= bin.iter().filter(|s| s.is_none()).count()
        } else {
            new.iter().all(|&v| bin[self.p.pos[v] as usize].is_none())
                && new
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| new[..i].iter().all(|&u| self.p.pos[u] != self.p.pos[v]))
        }
    }

    fn put(&mut self, b: usize, g: usize) {
        let p = self.p;
        for &v in &p.groups[g] {
            if self.bins[b].contains(&Some(v)) {
                continue;
            }
            let slot = if p.any_slot {
                self.bins[b].iter().position(Option::is_none).expect("fits")
            } else {
                p.pos[v] as usize
            };
            self.bins[b][slot] = Some(v);
            if self.class[b].is_none() {
                self.class[b] = p.class[v];
            }
        }
    }
}

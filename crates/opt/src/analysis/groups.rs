//! Independent movable groups: the units the selection chooses among.
//!
//! The paper's Gaussian filter has "20 movable instructions composing 7 independent groups
//! in terms of data dependencies". Here a group is a connected component of the def-use
//! graph restricted to movable instructions, where edges out of *uniform* values are
//! ignored: a uniform helper (say `rcp r0.w, c3.x`) shared by several address computations
//! must not glue them into one group. Such helpers belong to every group that needs them
//! ([`Groups::closure`]) and are moved once when any of those groups is. Producers whose
//! values one staying operand reads together are one group too: they share an
//! interpolator register, and moving only some of them would save nothing.

use super::defuse::DefUse;
use super::movable::{Kind, Movability};

#[derive(Clone, Debug, Default)]
pub struct Groups {
    /// Members of each group, in program order; groups ordered by their first member.
    pub members: Vec<Vec<u32>>,
    /// Group of each instruction (`None` when it stays, or is a uniform helper).
    pub of: Vec<Option<usize>>,
    /// Movable ancestors (transitively) of each movable instruction.
    ancestors: Vec<Vec<u32>>,
}

impl Groups {
    pub fn compute(du: &DefUse, m: &Movability) -> Groups {
        let n = m.stays.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let uniform = |i: usize| {
            let mask = (0..4u8)
                .filter(|&c| !du.uses(i, c).is_empty())
                .fold(0u8, |a, c| a | 1 << c);
            (0..4)
                .filter(|c| mask & 1 << c != 0)
                .all(|c| m.kinds[i][c] == Kind::Uniform)
        };
        let mut ancestors: Vec<Vec<u32>> = vec![Vec::new(); n];
        for i in 0..n {
            if !m.movable(i) {
                continue;
            }
            let mut anc: Vec<u32> = Vec::new();
            for r in du.reads(i) {
                let Some(d) = r.def else { continue };
                let d = d as usize;
                if !m.movable(d) {
                    continue;
                }
                anc.push(d as u32);
                anc.extend(ancestors[d].iter().copied());
                if !uniform(d) {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, d));
                    parent[a] = b;
                }
            }
            hoist_asm::sort::ord(&mut anc);
            anc.dedup();
            ancestors[i] = anc;
        }
        // Values one staying operand reads travel together (one interpolator register), so
        // their producers form one group: moving only some of them saves nothing.
        for j in 0..n {
            if m.movable(j) {
                continue;
            }
            for k in 0..4u8 {
                let mut first: Option<usize> = None;
                for r in du.reads(j).iter().filter(|r| r.src == k) {
                    let Some(d) = r.def else { continue };
                    let d = d as usize;
                    if !m.movable(d) || uniform(d) {
                        continue;
                    }
                    match first {
                        None => first = Some(d),
                        Some(f) => {
                            let (a, b) = (find(&mut parent, f), find(&mut parent, d));
                            parent[a] = b;
                        }
                    }
                }
            }
        }
        let mut root_group: Vec<Option<usize>> = vec![None; n];
        let mut g = Groups {
            members: Vec::new(),
            of: vec![None; n],
            ancestors,
        };
        for i in 0..n {
            if !m.movable(i) || uniform(i) && has_movable_user(du, m, i) {
                continue;
            }
            let r = find(&mut parent, i);
            let gi = *root_group[r].get_or_insert_with(|| {
                g.members.push(Vec::new());
                g.members.len() - 1
            });
            g.members[gi].push(i as u32);
            g.of[i] = Some(gi);
        }
        g
    }

    /// A group's members plus every movable instruction they depend on.
    pub fn closure(&self, groups: impl IntoIterator<Item = usize>, n: usize) -> Vec<bool> {
        let mut sel = vec![false; n];
        for gi in groups {
            for &i in &self.members[gi] {
                sel[i as usize] = true;
                for &a in &self.ancestors[i as usize] {
                    sel[a as usize] = true;
                }
            }
        }
        sel
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// A uniform helper is a group of its own only when nothing movable uses it.
fn has_movable_user(du: &DefUse, m: &Movability, i: usize) -> bool {
    du.uses_of(i).iter().any(|u| m.movable(u.inst as usize))
}

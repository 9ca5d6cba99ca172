//! A lower bound and an exact branch and bound over balanced partitions.
//!
//! Bound: a block costing k instructions covers at most 4k non-zeros (k peels of at most
//! one non-zero per row, or k rows of at most four), and C^sum ≥ 0, so every grouping costs
//! at least Σ_t ⌈nnz(A_t)/4⌉ per evaluation.
//!
//! Branch and bound fixes groups one at a time, group k holding the smallest unplaced
//! variable and three more (so each partition is met once, whatever the order of groups or
//! of variables inside them). A node's bound is the cost of the blocks whose row and
//! column groups are both fixed, the ADDs those already force, and ⌈rest/4⌉ for the
//! non-zeros not yet in a fixed block. Given a node budget, it either proves the best
//! cost optimal or stops and says so.
//!
//! Gauss-Seidel systems (split by the evaluation order, `cost` module header): a term's
//! non-zeros depend on the order, so the bound is ⌈nnz(A)/4⌉ over the whole matrix, and a
//! node counts each fixed off-diagonal block's min(c_c, c_r) and each fixed diagonal
//! block's cheapest cost over its group's 24 inner orders, C^sum bounded by 0: no order
//! of groups or of variables inside them costs less. A leaf is costed with its groups in
//! the order fixed and the inner orders chosen ([`Packing::searching`]), and when that
//! exceeds the leaf's order-free bound and there are at most four groups, in every other
//! order of the groups too. A leaf still above its bound might cost less in an order not
//! tried, so its bound stays a candidate for the optimum and optimality is claimed only
//! when none is below the best cost found.

use super::cost::{Grouping, Packing, block, diagonal_min, sum_cost};
use super::system::System;
use super::system::Term;

const FREE: usize = usize::MAX;

/// Gauss-Seidel leaves of at most this many groups are costed over every order of the
/// groups (4! = 24), not only the order the search fixed them in.
const ORDERED_LEAF_GROUPS: usize = 4;

/// Σ_t ⌈nnz(A_t)/4⌉ × repeat: no grouping costs less.
pub fn lower_bound(sys: &System) -> u32 {
    if sys.gauss_seidel() {
        return sys.nnz().div_ceil(4) as u32 * sys.repeat;
    }
    let per: usize = sys.terms.iter().map(|t| t.nnz().div_ceil(4)).sum();
    per as u32 * sys.repeat
}

/// What the branch and bound found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The best cost known at the end (the `upper` given, or lower when it found better).
    pub cost: u32,
    /// The grouping, when the search found one better than `upper`.
    pub grouping: Option<Grouping>,
    /// Whether the search finished: then `cost` is optimal.
    pub proven: bool,
    pub nodes: u64,
}

#[derive(Clone)]
struct Node {
    det: Vec<u32>,
    rest: Vec<usize>,
    nr: Vec<Vec<u32>>,
}

struct Search<'s> {
    sys: &'s System,
    /// The terms the bound counts: the system's, or for Gauss-Seidel the whole matrix.
    terms: Vec<Term>,
    gauss_seidel: bool,
    /// The lowest order-free bound of a leaf whose exact cost exceeded it (Gauss-Seidel).
    unresolved: u32,
    /// The orders of the groups a Gauss-Seidel leaf is costed in beyond the one fixed
    /// (every order when there are at most [`ORDERED_LEAF_GROUPS`] groups, else none).
    orders: Vec<Vec<usize>>,
    n: usize,
    group_of: Vec<usize>,
    groups: Vec<[usize; 4]>,
    best: u32,
    best_grouping: Option<Grouping>,
    nodes: u64,
    budget: u64,
    stopped: bool,
}

impl Search<'_> {
    fn bound(&self, node: &Node, k: usize) -> u32 {
        let mut total = 0;
        for (t, term) in self.terms.iter().enumerate() {
            if self.gauss_seidel {
                total += node.det[t] + node.rest[t].div_ceil(4) as u32;
                continue;
            }
            let sums: u32 = (0..k)
                .map(|i| sum_cost(node.nr[t][i], term.with_b && self.b_nonzero(i)))
                .sum();
            total += node.det[t] + sums + node.rest[t].div_ceil(4) as u32;
        }
        total * self.sys.repeat
    }

    fn b_nonzero(&self, g: usize) -> bool {
        self.groups[g].iter().any(|&v| self.sys.b[v] != 0.0)
    }

    fn nnz_in(&self, t: usize, rows: &[usize], col: usize) -> usize {
        rows.iter()
            .map(|&r| {
                self.terms[t].rows[r]
                    .iter()
                    .filter(|(c, _)| self.group_of[*c] == col)
                    .count()
            })
            .sum()
    }

    /// The node after fixing group k: the blocks (k, J) and (J, k) for J ≤ k.
    fn extend(&self, node: &Node, k: usize) -> Node {
        let mut next = node.clone();
        for (t, term) in self.terms.iter().enumerate() {
            for j in 0..=k {
                let pairs = if j == k {
                    vec![(k, k)]
                } else {
                    vec![(k, j), (j, k)]
                };
                for (a, c) in pairs {
                    let rows = &self.groups[a];
                    let b = block(term, rows, &self.group_of, c, a == c);
                    next.det[t] += if self.gauss_seidel && a == c {
                        diagonal_min(&term.rows, rows)
                    } else {
                        b.cost()
                    };
                    next.rest[t] -= self.nnz_in(t, rows, c);
                    next.nr[t][a] += u32::from(b.row_major);
                }
            }
        }
        next
    }

    fn visit(&mut self, node: &Node, k: usize) {
        if self.stopped {
            return;
        }
        if k == self.n {
            self.leaf(node);
            return;
        }
        let free: Vec<usize> = (0..self.sys.m)
            .filter(|&v| self.group_of[v] == FREE)
            .collect();
        let (first, rest) = (free[0], &free[1..]);
        let r = rest.len();
        for a in 0..r {
            for b in a + 1..r {
                for c in b + 1..r {
                    let g = [first, rest[a], rest[b], rest[c]];
                    self.nodes += 1;
                    if self.nodes > self.budget {
                        self.stopped = true;
                        return;
                    }
                    self.place(&g, k);
                    let next = self.extend(node, k);
                    if self.bound(&next, k + 1) < self.best {
                        self.visit(&next, k + 1);
                    }
                    self.unplace(&g);
                    if self.stopped {
                        return;
                    }
                }
            }
        }
    }

    fn leaf(&mut self, node: &Node) {
        let bound = self.bound(node, self.n);
        let g = Grouping {
            perm: self.groups.concat(),
        };
        if !self.gauss_seidel {
            if bound < self.best {
                (self.best, self.best_grouping) = (bound, Some(g));
            }
            return;
        }
        let mut p = Packing::searching(self.sys, &g);
        if p.total() > bound {
            for order in self.orders.iter().skip(1) {
                let perm = order.iter().flat_map(|&i| self.groups[i]).collect();
                let q = Packing::searching(self.sys, &Grouping { perm });
                if q.total() < p.total() {
                    p = q;
                }
                if p.total() == bound {
                    break;
                }
            }
        }
        if p.total() < self.best {
            (self.best, self.best_grouping) = (p.total(), Some(p.grouping()));
        }
        if p.total() > bound {
            self.unresolved = self.unresolved.min(bound);
        }
    }

    fn place(&mut self, g: &[usize; 4], k: usize) {
        for &v in g {
            self.group_of[v] = k;
        }
        self.groups.push(*g);
    }

    fn unplace(&mut self, g: &[usize; 4]) {
        for &v in g {
            self.group_of[v] = FREE;
        }
        self.groups.pop();
    }
}

/// Every order of `n` items, the identity first.
fn orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in orders(n - 1) {
        for at in (0..n).rev() {
            let mut o = rest.clone();
            o.insert(at, n - 1);
            out.push(o);
        }
    }
    out
}

/// Searches for a grouping cheaper than `upper`, visiting at most `budget` nodes.
pub fn branch_and_bound(sys: &System, upper: u32, budget: u64) -> Exact {
    let gauss_seidel = sys.gauss_seidel();
    let terms = if gauss_seidel {
        vec![Term {
            rows: sys.whole_rows(),
            with_b: true,
            row_major_diagonal: false,
        }]
    } else {
        sys.terms.clone()
    };
    let t = terms.len();
    let n = sys.groups();
    let mut s = Search {
        sys,
        terms,
        gauss_seidel,
        unresolved: u32::MAX,
        orders: if gauss_seidel && n <= ORDERED_LEAF_GROUPS {
            orders(n)
        } else {
            Vec::new()
        },
        n,
        group_of: vec![FREE; sys.m],
        groups: Vec::with_capacity(n),
        best: upper,
        best_grouping: None,
        nodes: 0,
        budget,
        stopped: false,
    };
    let root = Node {
        det: vec![0; t],
        rest: s.terms.iter().map(|t| t.nnz()).collect(),
        nr: vec![vec![0; n]; t],
    };
    if s.bound(&root, 0) < upper {
        s.visit(&root, 0);
    }
    Exact {
        cost: s.best,
        grouping: s.best_grouping,
        proven: !s.stopped && s.unresolved >= s.best,
        nodes: s.nodes,
    }
}

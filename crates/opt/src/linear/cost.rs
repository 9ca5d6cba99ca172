//! The paper's cost model (seed §2.3.1, §2.3.2) and its incremental upkeep.
//!
//! A block T_IJ = A_IJ·x_J costs c_c = the most non-zeros in one of its rows (one MUL and
//! c_c − 1 MADs, swizzles being free) or c_r = its non-zero rows (one masked DP4 each),
//! C^T = min(c_c, c_r), ties to column-major because its first MUL can absorb the
//! accumulation. Row-major terms are summed: C^sum(I) = n_r(I) when b_I is non-zero, else
//! n_r(I) − 1 (never below 0). A Gauss-Seidel term's diagonal blocks are row-major (§3.3).
//! The total is Σ C^T + Σ C^sum over every term, times the system's `repeat`.
//!
//! [`Packing`] keeps every block's cost for a grouping; swapping two variables of different
//! groups G, H recomputes only the blocks in rows and columns G, H and the n row sums:
//! O(n) blocks per move, as the paper's annealing needs.

use super::system::{System, Term};
use serde::Serialize;

/// How one block is evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub cc: u8,
    pub cr: u8,
    pub row_major: bool,
}

impl Block {
    pub fn cost(self) -> u32 {
        u32::from(if self.row_major { self.cr } else { self.cc })
    }
}

/// The cost with its parts, for one evaluation of the expression and in total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Parts {
    /// Σ C^T over the non-zero blocks.
    pub blocks: u32,
    /// Σ C^sum (the ADDs joining row-major terms and b).
    pub sums: u32,
    pub column_major_blocks: u32,
    pub row_major_blocks: u32,
    /// Evaluations per step.
    pub repeat: u32,
    /// (blocks + sums) × repeat.
    pub total: u32,
}

/// A grouping: `perm[p]` is the variable at position p; group g is positions 4g..4g+4.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Grouping {
    pub perm: Vec<usize>,
}

impl Grouping {
    pub fn identity(m: usize) -> Grouping {
        Grouping {
            perm: (0..m).collect(),
        }
    }

    pub fn groups(&self) -> Vec<Vec<usize>> {
        self.perm.chunks(4).map(<[usize]>::to_vec).collect()
    }

    /// The same partition written canonically: each group sorted, groups by first member.
    pub fn canonical(&self) -> Grouping {
        let mut gs = self.groups();
        gs.iter_mut().for_each(|g| g.sort_unstable());
        gs.sort();
        Grouping { perm: gs.concat() }
    }
}

/// Evaluates block (rows of group `rows`, columns in group `col`) of a term.
pub fn block(term: &Term, rows: &[usize], group_of: &[usize], col: usize, diagonal: bool) -> Block {
    let (mut cc, mut cr) = (0u8, 0u8);
    for &r in rows {
        let k = term.rows[r]
            .iter()
            .filter(|(c, _)| group_of[*c] == col)
            .count() as u8;
        cc = cc.max(k);
        cr += u8::from(k > 0);
    }
    let row_major = cc > 0 && ((term.row_major_diagonal && diagonal) || cr < cc);
    Block { cc, cr, row_major }
}

/// C^sum for a block row with `nr` row-major terms.
pub fn sum_cost(nr: u32, b_nonzero: bool) -> u32 {
    if b_nonzero { nr } else { nr.saturating_sub(1) }
}

/// Every block's cost for one grouping, kept current under swaps.
#[derive(Clone, Debug)]
pub struct Packing<'s> {
    sys: &'s System,
    n: usize,
    perm: Vec<usize>,
    group_of: Vec<usize>,
    /// `blocks[t][I * n + J]`.
    blocks: Vec<Vec<Block>>,
    nr: Vec<Vec<u32>>,
    sums: Vec<Vec<u32>>,
    block_total: u32,
    sum_total: u32,
}

impl<'s> Packing<'s> {
    pub fn new(sys: &'s System, g: &Grouping) -> Packing<'s> {
        let n = sys.groups();
        let mut group_of = vec![0; sys.m];
        for (p, &v) in g.perm.iter().enumerate() {
            group_of[v] = p / 4;
        }
        let t = sys.terms.len();
        let mut p = Packing {
            sys,
            n,
            perm: g.perm.clone(),
            group_of,
            blocks: vec![vec![Block::default(); n * n]; t],
            nr: vec![vec![0; n]; t],
            sums: vec![vec![0; n]; t],
            block_total: 0,
            sum_total: 0,
        };
        for t in 0..t {
            for i in 0..n {
                for j in 0..n {
                    p.set_block(t, i, j);
                }
            }
        }
        p.refresh_sums();
        p
    }

    fn set_block(&mut self, t: usize, i: usize, j: usize) {
        let rows = &self.perm[4 * i..4 * i + 4];
        let nb = block(&self.sys.terms[t], rows, &self.group_of, j, i == j);
        let old = std::mem::replace(&mut self.blocks[t][i * self.n + j], nb);
        self.block_total = self.block_total - old.cost() + nb.cost();
        self.nr[t][i] = self.nr[t][i] - u32::from(old.row_major) + u32::from(nb.row_major);
    }

    fn refresh_sums(&mut self) {
        for t in 0..self.sys.terms.len() {
            let with_b = self.sys.terms[t].with_b;
            for i in 0..self.n {
                let b = with_b && self.b_nonzero(i);
                let s = sum_cost(self.nr[t][i], b);
                self.sum_total = self.sum_total - self.sums[t][i] + s;
                self.sums[t][i] = s;
            }
        }
    }

    fn b_nonzero(&self, group: usize) -> bool {
        self.perm[4 * group..4 * group + 4]
            .iter()
            .any(|&v| self.sys.b[v] != 0.0)
    }

    /// Exchanges the variables at positions `p` and `q`, updating the costs in O(n) blocks.
    pub fn swap(&mut self, p: usize, q: usize) {
        let (g, h) = (p / 4, q / 4);
        let (u, v) = (self.perm[p], self.perm[q]);
        self.perm.swap(p, q);
        self.group_of[u] = h;
        self.group_of[v] = g;
        if g == h {
            return;
        }
        for t in 0..self.sys.terms.len() {
            for j in 0..self.n {
                self.set_block(t, g, j);
                self.set_block(t, h, j);
                if j != g && j != h {
                    self.set_block(t, j, g);
                    self.set_block(t, j, h);
                }
            }
        }
        self.refresh_sums();
    }

    /// The total cost (with `repeat`).
    pub fn total(&self) -> u32 {
        (self.block_total + self.sum_total) * self.sys.repeat
    }

    pub fn grouping(&self) -> Grouping {
        Grouping {
            perm: self.perm.clone(),
        }
    }

    pub fn block_at(&self, t: usize, i: usize, j: usize) -> Block {
        self.blocks[t][i * self.n + j]
    }

    pub fn parts(&self) -> Parts {
        let all = self.blocks.iter().flatten().filter(|b| b.cc > 0);
        let rm = all.clone().filter(|b| b.row_major).count() as u32;
        let cm = all.count() as u32 - rm;
        Parts {
            blocks: self.block_total,
            sums: self.sum_total,
            column_major_blocks: cm,
            row_major_blocks: rm,
            repeat: self.sys.repeat,
            total: self.total(),
        }
    }
}

/// The cost of a grouping, computed from scratch.
pub fn cost(sys: &System, g: &Grouping) -> u32 {
    Packing::new(sys, g).total()
}

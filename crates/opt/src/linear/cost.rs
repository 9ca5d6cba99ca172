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
//! O(n) blocks per move, as the paper's annealing needs. A block row is counted in one pass
//! over its four rows' entries (each entry adds one to its column group's count), a block
//! column in one pass over its four columns' entries (each adds one to its row's count), so
//! a move costs the entries in those rows and columns plus O(n), not n passes over them.
//!
//! Gauss-Seidel systems split by the evaluation order (`system` module header: the paper
//! iterates the transformed system, updating each unknown as soon as it is computed). An
//! off-diagonal block (I, J) lies wholly in the updated-values term when J comes before I
//! and wholly in the other otherwise, and costs min(c_c, c_r) in either; only a diagonal
//! block is cut in two: the entries whose column comes before their row within the group
//! (row-major, one DP4 per non-zero row, computed in sequence) and the rest (min). So the
//! cost depends on the partition, on the order of the four variables inside each group
//! (diagonal blocks only) and, through the per-term C^sum, on which side of the diagonal a
//! row-major off-diagonal block falls (the order of the groups). [`Packing::new`] costs a
//! grouping exactly as written (the original program's order); [`Packing::searching`]
//! chooses each group's inner order among its 24 to minimise its block row (diagonal
//! blocks plus C^sum), which a swap keeps current with O(n) more work: the two touched
//! groups' options are recomputed, and each row re-picks among its cached options.

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
        gs.iter_mut().for_each(|g| hoist_asm::sort::ord(g));
        hoist_asm::sort::ord(&mut gs);
        Grouping { perm: gs.concat() }
    }
}

/// Evaluates block (rows of group `rows`, columns in group `col`) of a term.
pub fn block(term: &Term, rows: &[usize], group_of: &[usize], col: usize, diagonal: bool) -> Block {
    let counts = rows.iter().map(|&r| {
        term.rows[r]
            .iter()
            .filter(|(c, _)| group_of[*c] == col)
            .count() as u32
    });
    Block::of(counts, term.row_major_diagonal && diagonal)
}

/// C^sum for a block row with `nr` row-major terms.
pub fn sum_cost(nr: u32, b_nonzero: bool) -> u32 {
    if b_nonzero { nr } else { nr.saturating_sub(1) }
}

/// One order of a group's four variables (`order[l]` = index into the group's members as
/// written) and the diagonal block's two parts under it: updated values (row-major) and the
/// rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DiagOption {
    order: [u8; 4],
    lower: Block,
    upper: Block,
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
    /// Gauss-Seidel: the whole matrix, each group's diagonal options and the chosen one.
    whole: Option<Vec<Vec<(usize, f64)>>>,
    /// Per source of blocks (each term, or for Gauss-Seidel the whole matrix): the rows of
    /// the entries of each column, once per entry.
    cols: Vec<Vec<Vec<usize>>>,
    /// Counts for [`Packing::set_row`] (4·n) and [`Packing::set_col`] (m), kept zeroed.
    by_group: Vec<u32>,
    by_row: Vec<u32>,
    free: bool,
    options: Vec<Vec<DiagOption>>,
    chosen: Vec<usize>,
}

impl Block {
    /// A block from its rows' counts: `cc` the largest, `cr` the non-zero ones.
    fn of(counts: impl Iterator<Item = u32>, forced_row_major: bool) -> Block {
        let (mut cc, mut cr) = (0u8, 0u8);
        for k in counts {
            cc = cc.max(k as u8);
            cr += u8::from(k > 0);
        }
        Block {
            cc,
            cr,
            row_major: cc > 0 && (forced_row_major || cr < cc),
        }
    }
}

/// `cols[c]`: the rows of column c's entries, once per entry.
fn columns(rows: &[Vec<(usize, f64)>], m: usize) -> Vec<Vec<usize>> {
    let mut cols = vec![Vec::new(); m];
    for (r, row) in rows.iter().enumerate() {
        for &(c, _) in row {
            cols[c].push(r);
        }
    }
    cols
}

const ORDERS: [[u8; 4]; 24] = {
    let mut out = [[0u8; 4]; 24];
    let mut k = 0;
    let mut a = 0;
    while a < 4 {
        let mut b = 0;
        while b < 4 {
            let mut c = 0;
            while c < 4 {
                if a != b && b != c && a != c {
                    out[k] = [a, b, c, 6 - a - b - c];
                    k += 1;
                }
                c += 1;
            }
            b += 1;
        }
        a += 1;
    }
    out
};

impl<'s> Packing<'s> {
    /// The grouping's cost exactly as written: groups and the variables inside them in
    /// `g.perm`'s order.
    pub fn new(sys: &'s System, g: &Grouping) -> Packing<'s> {
        Packing::build(sys, g, false)
    }

    /// As the search sees it: for a Gauss-Seidel system each group's inner order is chosen
    /// (module header) and [`Packing::grouping`] reports it; otherwise the same as `new`.
    pub fn searching(sys: &'s System, g: &Grouping) -> Packing<'s> {
        Packing::build(sys, g, true)
    }

    fn build(sys: &'s System, g: &Grouping, free: bool) -> Packing<'s> {
        let n = sys.groups();
        let mut group_of = vec![0; sys.m];
        for (p, &v) in g.perm.iter().enumerate() {
            group_of[v] = p / 4;
        }
        let t = sys.terms.len();
        let whole = sys.gauss_seidel().then(|| sys.whole_rows());
        let cols = match &whole {
            Some(w) => vec![columns(w, sys.m)],
            None => sys.terms.iter().map(|t| columns(&t.rows, sys.m)).collect(),
        };
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
            whole,
            cols,
            by_group: vec![0; 4 * n],
            by_row: vec![0; sys.m],
            free,
            options: vec![Vec::new(); n],
            chosen: vec![0; n],
        };
        for i in 0..n {
            p.set_row(i);
        }
        if p.whole.is_some() {
            for i in 0..n {
                p.set_options(i);
                p.set_diagonal(i);
            }
        }
        p.refresh_sums();
        p
    }

    fn put(&mut self, t: usize, i: usize, j: usize, nb: Block) {
        let old = std::mem::replace(&mut self.blocks[t][i * self.n + j], nb);
        self.block_total = self.block_total - old.cost() + nb.cost();
        self.nr[t][i] = self.nr[t][i] - u32::from(old.row_major) + u32::from(nb.row_major);
    }

    /// Block row i (blocks (i, j) for every j) of every source, placed by [`Packing::place`].
    fn set_row(&mut self, i: usize) {
        let n = self.n;
        let sys = self.sys;
        let mut counts = std::mem::take(&mut self.by_group);
        for src in 0..self.cols.len() {
            let rows = match &self.whole {
                Some(w) => w,
                None => &sys.terms[src].rows,
            };
            for (l, &r) in self.perm[4 * i..4 * i + 4].iter().enumerate() {
                for &(c, _) in &rows[r] {
                    counts[l * n + self.group_of[c]] += 1;
                }
            }
            for j in 0..n {
                let forced = self.whole.is_none() && sys.terms[src].row_major_diagonal && i == j;
                let nb = Block::of(
                    (0..4).map(|l| std::mem::take(&mut counts[l * n + j])),
                    forced,
                );
                self.place(src, i, j, nb);
            }
        }
        self.by_group = counts;
    }

    /// Block column j (blocks (i, j) for every i outside `skip`, whose rows are recounted
    /// whole by [`Packing::set_row`]) of every term.
    fn set_col(&mut self, j: usize, skip: [usize; 2]) {
        let mut counts = std::mem::take(&mut self.by_row);
        let cols = std::mem::take(&mut self.cols);
        for (src, cols) in cols.iter().enumerate() {
            for &c in &self.perm[4 * j..4 * j + 4] {
                for &r in &cols[c] {
                    counts[r] += 1;
                }
            }
            for i in (0..self.n).filter(|i| !skip.contains(i)) {
                let rows = &self.perm[4 * i..4 * i + 4];
                let nb = Block::of(rows.iter().map(|&r| counts[r]), false);
                self.place(src, i, j, nb);
            }
            for &c in &self.perm[4 * j..4 * j + 4] {
                for &r in &cols[c] {
                    counts[r] = 0;
                }
            }
        }
        self.cols = cols;
        self.by_row = counts;
    }

    /// Puts block (i, j) counted from source `src`: a term's own block, or a Gauss-Seidel
    /// off-diagonal block wholly in the term its side of the diagonal falls in (the
    /// diagonal is `set_diagonal`'s).
    fn place(&mut self, src: usize, i: usize, j: usize, nb: Block) {
        if self.whole.is_none() {
            self.put(src, i, j, nb);
        } else if i != j {
            let t = usize::from(j > i);
            self.put(t, i, j, nb);
            self.put(1 - t, i, j, Block::default());
        }
    }

    /// The diagonal options of group i: every inner order (only the written one unless
    /// `free`), one per distinct pair of parts.
    fn set_options(&mut self, i: usize) {
        let whole = self.whole.as_ref().expect("Gauss-Seidel");
        let members = &self.perm[4 * i..4 * i + 4];
        let orders: &[[u8; 4]] = if self.free { &ORDERS } else { &ORDERS[..1] };
        let mut opts: Vec<DiagOption> = Vec::new();
        for &order in orders {
            let (lower, upper) = diagonal_parts(whole, members, order);
            let o = DiagOption {
                order,
                lower,
                upper,
            };
            if !opts
                .iter()
                .any(|x| x.lower == o.lower && x.upper == o.upper)
            {
                opts.push(o);
            }
        }
        self.options[i] = opts;
    }

    /// Picks group i's diagonal option that makes its block row cheapest.
    fn set_diagonal(&mut self, i: usize) {
        let d = i * self.n + i;
        let off = [0, 1].map(|t| self.nr[t][i] - u32::from(self.blocks[t][d].row_major));
        let b = self.b_nonzero(i);
        let with_b = [0, 1].map(|t| self.sys.terms[t].with_b && b);
        let score = |o: &DiagOption| {
            o.lower.cost()
                + o.upper.cost()
                + sum_cost(off[0] + u32::from(o.lower.row_major), with_b[0])
                + sum_cost(off[1] + u32::from(o.upper.row_major), with_b[1])
        };
        let best = (0..self.options[i].len())
            .min_by_key(|&k| score(&self.options[i][k]))
            .unwrap_or(0);
        let o = self.options[i][best];
        self.chosen[i] = best;
        self.put(0, i, i, o.lower);
        self.put(1, i, i, o.upper);
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
            if self.whole.is_some() {
                self.set_options(g);
                self.set_diagonal(g);
                self.refresh_sums();
            }
            return;
        }
        self.set_row(g);
        self.set_row(h);
        self.set_col(g, [g, h]);
        self.set_col(h, [g, h]);
        if self.whole.is_some() {
            self.set_options(g);
            self.set_options(h);
            for i in 0..self.n {
                self.set_diagonal(i);
            }
        }
        self.refresh_sums();
    }

    /// The total cost (with `repeat`).
    pub fn total(&self) -> u32 {
        (self.block_total + self.sum_total) * self.sys.repeat
    }

    /// The grouping; for a Gauss-Seidel system searched with [`Packing::searching`], each
    /// group in its chosen inner order.
    pub fn grouping(&self) -> Grouping {
        let mut perm = self.perm.clone();
        if self.whole.is_some() {
            for (i, chunk) in perm.chunks_mut(4).enumerate() {
                let o = self.options[i][self.chosen[i]].order;
                let members = &self.perm[4 * i..4 * i + 4];
                for (l, &k) in o.iter().enumerate() {
                    chunk[l] = members[usize::from(k)];
                }
            }
        }
        Grouping { perm }
    }

    /// Block (i, j) of term t (for a Gauss-Seidel system: of the term it falls in under
    /// this grouping's order, [`System::layered`]).
    pub fn block_at(&self, t: usize, i: usize, j: usize) -> Block {
        self.blocks[t][i * self.n + j]
    }

    /// Σ C^T + Σ C^sum of block row i (one evaluation).
    pub fn row_cost(&self, i: usize) -> u32 {
        (0..self.sys.terms.len())
            .map(|t| {
                let bl: u32 = (0..self.n).map(|j| self.block_at(t, i, j).cost()).sum();
                bl + self.sums[t][i]
            })
            .sum()
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

/// A Gauss-Seidel diagonal block's two parts when the group's `members` are evaluated in
/// `order` (`order[l]` indexes `members`): the entries whose column comes first (updated
/// values, row-major) and the rest (min of the two methods).
pub(crate) fn diagonal_parts(
    whole: &[Vec<(usize, f64)>],
    members: &[usize],
    order: [u8; 4],
) -> (Block, Block) {
    let mut lane = [0usize; 4];
    for (l, &k) in order.iter().enumerate() {
        lane[usize::from(k)] = l;
    }
    let (mut lo, mut up) = ([0u8; 4], [0u8; 4]);
    for (k, &r) in members.iter().enumerate() {
        for (c, _) in &whole[r] {
            if let Some(kc) = members.iter().position(|v| v == c) {
                if lane[kc] < lane[k] {
                    lo[k] += 1;
                } else {
                    up[k] += 1;
                }
            }
        }
    }
    let part = |ks: [u8; 4], forced: bool| {
        let cc = ks.iter().copied().max().unwrap_or(0);
        let cr = ks.iter().filter(|k| **k > 0).count() as u8;
        Block {
            cc,
            cr,
            row_major: cc > 0 && (forced || cr < cc),
        }
    };
    (part(lo, true), part(up, false))
}

/// The cheapest C^T of a Gauss-Seidel diagonal block over the 24 orders of its group.
pub(crate) fn diagonal_min(whole: &[Vec<(usize, f64)>], members: &[usize]) -> u32 {
    ORDERS
        .iter()
        .map(|&o| {
            let (a, b) = diagonal_parts(whole, members, o);
            a.cost() + b.cost()
        })
        .min()
        .unwrap_or(0)
}

/// The cost of a grouping, computed from scratch.
pub fn cost(sys: &System, g: &Grouping) -> u32 {
    Packing::new(sys, g).total()
}

//! The paper's simulated annealing (seed §2.3.3, Fig. 4) and the structured seeds (strides
//! and colour classes).
//!
//! A move swaps two variables of different groups (a swap inside a group, or of whole
//! groups, leaves the cost unchanged, so only the partition into groups of four matters);
//! [`Packing::swap`] updates the cost in O(n) blocks. A worse move is taken with
//! probability e^(−ΔC/T); T falls geometrically. The paper gives no schedule; ours is in
//! [`Schedule`]. The random numbers come from a seeded SplitMix64, so a run is
//! reproducible and needs no clock.

use super::cost::{Grouping, Packing};
use super::system::System;

/// SplitMix64: small, seeded, good enough for move selection.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The annealing schedule: start temperature, geometric factor, moves per temperature
/// (times m), and the temperature at which it stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    pub t0: f64,
    pub alpha: f64,
    pub moves_per_var: usize,
    pub t_min: f64,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule {
            t0: 2.0,
            alpha: 0.92,
            moves_per_var: 6,
            t_min: 0.05,
        }
    }
}

/// The result of one annealing run: the best grouping met, its cost, and the moves made.
#[derive(Clone, Debug)]
pub struct Annealed {
    pub grouping: Grouping,
    pub cost: u32,
    pub moves: u64,
}

/// Anneals from `start`.
pub fn anneal(sys: &System, start: &Grouping, sched: &Schedule, rng: &mut Rng) -> Annealed {
    let mut p = Packing::searching(sys, start);
    let mut best = (p.total(), p.grouping());
    let m = sys.m;
    let mut moves = 0u64;
    if sys.groups() < 2 {
        return Annealed {
            grouping: best.1,
            cost: best.0,
            moves,
        };
    }
    let mut t = sched.t0;
    while t > sched.t_min {
        for _ in 0..sched.moves_per_var * m {
            let a = rng.below(m);
            let mut b = rng.below(m - 4);
            if b >= a / 4 * 4 {
                b += 4;
            }
            let before = p.total();
            p.swap(a, b);
            moves += 1;
            let after = p.total();
            if after > before {
                let delta = f64::from(after - before) / f64::from(sys.repeat);
                if rng.unit() >= (-delta / t).exp() {
                    p.swap(a, b);
                    continue;
                }
            }
            if after < best.0 {
                best = (after, p.grouping());
            }
        }
        t *= sched.alpha;
    }
    Annealed {
        grouping: best.1,
        cost: best.0,
        moves,
    }
}

/// Variables ordered by (v mod s, v div s), then cut into groups of four: stride s.
/// s = m/4 gives the groups {g, g+m/4, g+m/2, g+3m/4}; s = the size of a record turns an
/// array of structures into a structure of arrays.
pub fn strided(m: usize, s: usize) -> Grouping {
    let mut perm: Vec<usize> = (0..m).collect();
    hoist_asm::sort::by_key(&mut perm, |&v| (v % s, v / s));
    Grouping { perm }
}

fn strides(m: usize) -> Vec<usize> {
    let mut strides: Vec<usize> = (2..=8).chain([m / 4, m / 8, m / 16]).collect();
    strides.retain(|&s| s >= 2 && s < m);
    hoist_asm::sort::ord(&mut strides);
    strides.dedup();
    strides
}

/// The structured seeds: strides 2..=8 and m/4, m/8, m/16 (those below m), labelled.
pub fn seeds(m: usize) -> Vec<(String, Grouping)> {
    strides(m)
        .into_iter()
        .map(|s| (format!("stride {s}"), strided(m, s)))
        .collect()
}

/// A greedy colouring of the variables in index order, two variables adjacent when either
/// reads the other (a_rc ≠ 0 in some term). On a grid with a nearest-neighbour stencil in
/// lexicographic order this is the red-black colouring.
pub fn colouring(sys: &System) -> Vec<usize> {
    let mut adj = vec![Vec::new(); sys.m];
    for t in &sys.terms {
        for (r, row) in t.rows.iter().enumerate() {
            for &(c, _) in row {
                if c != r {
                    adj[r].push(c);
                    adj[c].push(r);
                }
            }
        }
    }
    let mut colour = vec![usize::MAX; sys.m];
    for v in 0..sys.m {
        let used: Vec<usize> = adj[v].iter().map(|&u| colour[u]).collect();
        colour[v] = (0..).find(|c| !used.contains(c)).unwrap_or(0);
    }
    colour
}

/// Colour-class seeds (seed 003 leaves the seeds open; red-black orderings are the classic
/// regrouping of Gauss-Seidel): variables ordered by (colour, v mod s, v div s) for the
/// strides of [`seeds`] and 1, when the colouring has between 2 and m/2 classes.
pub fn colour_seeds(sys: &System) -> Vec<(String, Grouping)> {
    let colour = colouring(sys);
    let classes = colour.iter().copied().max().map_or(0, |c| c + 1);
    if classes < 2 || classes > sys.m / 2 {
        return Vec::new();
    }
    std::iter::once(1)
        .chain(strides(sys.m))
        .map(|s| {
            let mut perm: Vec<usize> = (0..sys.m).collect();
            hoist_asm::sort::by_key(&mut perm, |&v| (colour[v], v % s, v / s));
            (
                format!("{classes}-colouring, stride {s}"),
                Grouping { perm },
            )
        })
        .collect()
}

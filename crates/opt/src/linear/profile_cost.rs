//! The cost of a grouping on real profiles, beside the paper's model (seed §3.4, Table 2
//! column e).
//!
//! The model counts one instruction per peel, DP4 and sum, with free swizzles, and lets b
//! ride on a block row's first MUL (making it a MAD). Profiles differ:
//! - `arb_fragment` (ARBfp1.0, ps_3_0): arbitrary swizzles, any number of constants per
//!   instruction: the model, plus the instructions no profile avoids (a first DP4 that
//!   covers fewer than four rows needs its other lanes set; a block row with no block needs
//!   a MOV; a Gauss-Seidel row joins its two terms with one more ADD — see [`super::emit`]).
//! - `ps_2_0`: the same, but a source swizzle must be `.xyzw`, `.yzxw`, `.zxyw`, `.wzyx` or a
//!   replicate (Microsoft, "Source Register Swizzling"); a peel whose swizzle is none of
//!   them, on the lanes that carry a coefficient, reads a copy of x built by masked MOVs
//!   with allowed swizzles, the fewest that cover its lanes; a copy serves every peel that
//!   needs the same swizzle of the same x group.
//! - `arb_vertex` (ARBvp1.0 as the GeForce FX runs it, vs_2_0+): one constant register per
//!   instruction, x in attributes: b cannot ride on a MAD that reads a coefficient, so a
//!   block row with b and no row-major term pays an ADD. This is exactly the length of the
//!   code [`super::emit`] writes (which `linear_exec` runs).
//! - `vs_1_1_constants` (the paper's GeForce FX setup for column e: A, x and b all in
//!   constant registers): `arb_vertex` plus one MOV of each x group an instruction reads
//!   into a temporary (enough temporaries assumed; register pressure is not modelled).
//!
//! All are per step (times `repeat`).

use super::cost::{Grouping, Packing};
use super::emit;
use super::system::System;
use hoist_asm::Swizzle;
use hoist_asm::d3d9::rules::ps2_0_swizzle;
use serde::Serialize;
use std::collections::BTreeSet;

/// One profile's instruction count for a grouping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProfileCost {
    pub profile: &'static str,
    pub instructions: u32,
    /// Instructions beyond the paper's model.
    pub extra: u32,
    /// What the extra instructions are.
    pub rule: &'static str,
}

/// The profiles, in the order [`profile_costs`] gives them.
pub const PROFILES: [&str; 4] = ["arb_fragment", "ps_2_0", "arb_vertex", "vs_1_1_constants"];

/// What the model leaves out on each profile, for `g` (module header).
pub fn profile_costs(sys: &System, g: &Grouping) -> Vec<ProfileCost> {
    let pk = Packing::new(sys, g);
    let model = pk.total();
    let rep = sys.repeat;
    let emitted = emit::arb(sys, g);
    let b_adds = b_adds(sys, &pk);
    let structural = (emitted.extra as u32).saturating_sub(b_adds);
    let swz = ps2_0_movs(sys, g, &pk);
    let x_groups = x_groups_read(sys, &pk);
    let mk = |profile, extra: u32, rule| ProfileCost {
        profile,
        instructions: model + extra * rep,
        extra: extra * rep,
        rule,
    };
    vec![
        mk(
            "arb_fragment",
            structural,
            "lanes a first DP4 leaves, rows without blocks, Gauss-Seidel joins",
        ),
        mk(
            "ps_2_0",
            structural + swz,
            "as arb_fragment, plus masked MOVs building swizzles ps_2_0 lacks",
        ),
        mk(
            "arb_vertex",
            structural + b_adds,
            "as arb_fragment, plus an ADD of b where one constant read per instruction keeps it off a MAD",
        ),
        mk(
            "vs_1_1_constants",
            structural + b_adds + x_groups,
            "as arb_vertex, plus a MOV of each x group out of the constant registers",
        ),
    ]
}

/// Block rows with a non-zero b and no row-major block but a column-major one: the model
/// folds b into the first MUL, a one-constant profile needs an ADD.
fn b_adds(sys: &System, pk: &Packing) -> u32 {
    let n = sys.groups();
    let g = pk.grouping();
    (0..n)
        .filter(|&i| {
            let has_b = g.perm[4 * i..4 * i + 4].iter().any(|&v| sys.b[v] != 0.0);
            let blocks = (0..sys.terms.len()).flat_map(|t| (0..n).map(move |j| (t, j)));
            let rm = blocks.clone().any(|(t, j)| pk.block_at(t, i, j).row_major);
            let cm = blocks
                .clone()
                .any(|(t, j)| pk.block_at(t, i, j).cc > 0 && !pk.block_at(t, i, j).row_major);
            has_b && !rm && cm
        })
        .count() as u32
}

/// x groups some non-zero block reads.
fn x_groups_read(sys: &System, pk: &Packing) -> u32 {
    let n = sys.groups();
    (0..n)
        .filter(|&j| (0..sys.terms.len()).any(|t| (0..n).any(|i| pk.block_at(t, i, j).cc > 0)))
        .count() as u32
}

/// The peel swizzles of `g` by x group, lanes without a coefficient left free (`None`).
fn peel_swizzles(sys: &System, g: &Grouping, pk: &Packing) -> BTreeSet<(usize, [Option<u8>; 4])> {
    let n = sys.groups();
    let mut lane_of = vec![(0, 0u8); sys.m];
    for (p, &v) in g.perm.iter().enumerate() {
        lane_of[v] = (p / 4, (p % 4) as u8);
    }
    let mut out = BTreeSet::new();
    for (t, term) in sys.terms.iter().enumerate() {
        for i in 0..n {
            for j in 0..n {
                let blk = pk.block_at(t, i, j);
                if blk.cc == 0 || blk.row_major {
                    continue;
                }
                let per_row: Vec<Vec<u8>> = g.perm[4 * i..4 * i + 4]
                    .iter()
                    .map(|&r| {
                        term.rows[r]
                            .iter()
                            .filter(|(c, _)| lane_of[*c].0 == j)
                            .map(|(c, _)| lane_of[*c].1)
                            .collect()
                    })
                    .collect();
                for peel in 0..usize::from(blk.cc) {
                    let swz = std::array::from_fn(|l| per_row[l].get(peel).copied());
                    out.insert((j, swz));
                }
            }
        }
    }
    out
}

/// The ps_2_0 swizzles: the identity, three rotations and the four replicates.
fn allowed() -> Vec<Swizzle> {
    (0..=255u8)
        .map(Swizzle)
        .filter(|s| ps2_0_swizzle(*s))
        .collect()
}

/// The fewest masked MOVs with allowed swizzles that build `want` (0 when one allowed
/// swizzle already matches every lane that matters).
pub fn ps2_0_moves(want: [Option<u8>; 4]) -> u32 {
    let ok = allowed();
    let covers = |s: Swizzle, l: usize| want[l].is_none_or(|c| s.get(l as u8) == c);
    if ok.iter().any(|&s| (0..4).all(|l| covers(s, l))) {
        return 0;
    }
    let need: Vec<usize> = (0..4).filter(|&l| want[l].is_some()).collect();
    let masks: Vec<u8> = ok
        .iter()
        .map(|&s| {
            need.iter()
                .filter(|&&l| covers(s, l))
                .fold(0u8, |m, &l| m | 1 << l)
        })
        .collect();
    let full = need.iter().fold(0u8, |m, &l| m | 1 << l);
    (1u32..=4)
        .find(|&k| subsets_cover(&masks, full, k as usize, 0, 0))
        .unwrap_or(4)
}

fn subsets_cover(masks: &[u8], full: u8, k: usize, from: usize, acc: u8) -> bool {
    if acc & full == full {
        return true;
    }
    if k == 0 {
        return false;
    }
    (from..masks.len()).any(|i| subsets_cover(masks, full, k - 1, i + 1, acc | masks[i]))
}

fn ps2_0_movs(sys: &System, g: &Grouping, pk: &Packing) -> u32 {
    peel_swizzles(sys, g, pk)
        .into_iter()
        .map(|(_, w)| ps2_0_moves(w))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fig1a_swizzles_need_two_moves_each_on_ps_2_0() {
        let (x, y, z, w) = (Some(0), Some(1), Some(2), Some(3));
        assert_eq!(ps2_0_moves([y, x, y, x]), 2);
        assert_eq!(ps2_0_moves([z, z, z, y]), 2);
        assert_eq!(ps2_0_moves([None, w, None, z]), 2);
        assert_eq!(ps2_0_moves([None, z, None, x]), 0);
        assert_eq!(ps2_0_moves([y, z, x, None]), 0);
        assert_eq!(ps2_0_moves([x, y, z, w]), 0);
        assert_eq!(ps2_0_moves([w, x, y, z]), 3);
        assert_eq!(allowed().len(), 8);
    }
}

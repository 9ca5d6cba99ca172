//! Stable sorts compiled once.
//!
//! Every `slice::sort_by(_key)` call site with its own closure instantiates the standard
//! library's whole stable sort (driftsort: about 3.5 KB of wasm each); the playground's
//! worker carried 36 of them. Here a caller's comparison becomes a `dyn` comparison of two
//! indices, one sort of indices is compiled for every caller, and the slice is then put in
//! that order by following the permutation's cycles (n swaps at most). The order is the
//! standard library's stable order: equal elements keep their relative order.
//!
//! The crates the page loads sort through here, `sort_unstable` included (a sorted list of
//! plain values is the same either way): for the short lists compilers and pages sort
//! (declarations, diagnostics, candidates, registers) the indirect call costs nothing
//! measurable (BENCHMARKS.md has what it took off the page's bundles).

use std::cmp::Ordering;

/// The stable sorting permutation of `n` items under `cmp` of two indices: item `p[i]`
/// goes to position `i`.
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut p: Vec<usize> = (0..n).collect();
    p.sort_by(|&a, &b| cmp(a, b));
    p
}

/// Moves item `p[i]` of `v` to position `i`: each cycle of `p` is walked once, swapping
/// the item that belongs at a position into it.
fn apply<T>(v: &mut [T], p: &[usize]) {
    let mut done = vec![false; p.len()];
    for start in 0..p.len() {
        if done[start] {
            continue;
        }
        let mut at = start;
        while p[at] != start {
            v.swap(at, p[at]);
            done[at] = true;
            at = p[at];
        }
        done[at] = true;
    }
}

/// `v.sort_by(cmp)`: stable, by a comparison.
pub fn by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let p = permutation(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    apply(v, &p);
}

/// `v.sort_by_key(key)`: stable, by a key.
pub fn by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    by(v, |a, b| key(a).cmp(&key(b)));
}

/// `v.sort()`: stable, by the items' own order.
pub fn ord<T: Ord>(v: &mut [T]) {
    by(v, T::cmp);
}

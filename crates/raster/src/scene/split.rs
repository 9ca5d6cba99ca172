//! One draw of a scene shaded by several workers (the page's Web Workers; natively, tests).
//!
//! Every worker runs the same scene job from the start, so each holds the same targets,
//! textures and prepared draw when it reaches the scene's last draw: the draw that is
//! split. Its bands are divided into `parts` contiguous ranges. A helper
//! ([`Role::Helper`]) shades its range a band at a time, hands each band over as a
//! [`Chunk`] and stops there: nothing after that draw concerns it. The lead
//! ([`Role::Lead`], part 0) shades its own range, then takes the helpers' bands from the
//! far end of what is missing, while it merges the chunks that arrive
//! ([`super::SceneJob::merge`]); a band is written once, by whichever side got there first,
//! and its statistics are counted once. When every band is there the lead goes on with the
//! commands after the draw (probes, comparisons) as if it had shaded them all.
//!
//! Why the image is the same bit for bit: a band's pixels depend only on the prepared draw
//! (programs, primitives, parameters, textures) and on the band's own earlier contents,
//! which every worker computed by the same deterministic replay; bands are 8 rows, so the
//! 2×2 quads that derivatives read never straddle two workers. A helper that never starts
//! or fails costs nothing but time: the lead shades its bands.

use crate::draw::Stats;
use serde::{Deserialize, Serialize};

/// This worker's share of a scene's split draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// Part 0 of `parts`: shades its range, takes over whatever helpers have not sent.
    Lead { parts: u32 },
    /// Part `part` (1 ≤ part < parts): shades its range, sends it, stops.
    Helper { part: u32, parts: u32 },
}

/// A shaded band of the split draw, as a helper hands it over.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub band: u32,
    /// The band's rows of the target (the last band may be short).
    pub color: Vec<[f32; 4]>,
    /// The same rows of the depth buffer; empty when the target has none.
    pub depth: Vec<f32>,
    pub stats: Stats,
}

/// Bands `[start, end)` of part `part` of `parts`, for a draw of `total` bands.
pub fn range(total: u32, part: u32, parts: u32) -> (u32, u32) {
    let parts = u64::from(parts.max(1));
    let at = |p: u64| (u64::from(total) * p / parts) as u32;
    (at(u64::from(part)), at(u64::from(part) + 1))
}

/// Which bands of the split draw are there, and what to shade next.
#[derive(Clone, Debug)]
pub(crate) struct Claims {
    role: Role,
    done: Vec<bool>,
    left: usize,
    /// The next band of this worker's own range.
    next: u32,
    end: u32,
    /// Bands merged from helpers.
    pub merged: u32,
}

impl Claims {
    pub fn new(role: Role, total: u32) -> Claims {
        let (next, end) = match role {
            Role::Lead { parts } => range(total, 0, parts),
            Role::Helper { part, parts } => range(total, part, parts),
        };
        let mut c = Claims {
            role,
            done: vec![false; total as usize],
            left: total as usize,
            next,
            end,
            merged: 0,
        };
        if let Role::Helper { .. } = role {
            // A helper answers for its own range only.
            for b in (0..next).chain(end..total) {
                c.set(b);
            }
        }
        c
    }

    fn set(&mut self, band: u32) -> bool {
        match self.done.get_mut(band as usize) {
            Some(d) if !*d => {
                *d = true;
                self.left -= 1;
                true
            }
            _ => false,
        }
    }

    pub fn complete(&self) -> bool {
        self.left == 0
    }

    /// The lead has shaded its own range and is taking helpers' bands.
    pub fn stealing(&self) -> bool {
        matches!(self.role, Role::Lead { .. }) && self.next >= self.end && !self.complete()
    }

    /// The next run of bands to shade, at most `max` long, claimed as done: this
    /// worker's own range in order, then (the lead only) the last missing bands, from
    /// the far end backwards.
    pub fn claim(&mut self, max: u32) -> Option<(u32, u32)> {
        let max = max.max(1);
        while self.next < self.end {
            let b = self.next;
            if self.done[b as usize] {
                self.next += 1;
                continue;
            }
            let mut n = 0;
            while n < max && b + n < self.end && !self.done[(b + n) as usize] {
                n += 1;
            }
            for k in b..b + n {
                self.set(k);
            }
            self.next = b + n;
            return Some((b, n));
        }
        if !matches!(self.role, Role::Lead { .. }) {
            return None;
        }
        let last = self.done.iter().rposition(|d| !d)? as u32;
        let mut first = last;
        while first > 0 && last - first + 1 < max && !self.done[(first - 1) as usize] {
            first -= 1;
        }
        for k in first..=last {
            self.set(k);
        }
        Some((first, last - first + 1))
    }

    /// Accepts a helper's band unless it is already there.
    pub fn accept(&mut self, band: u32) -> bool {
        let new = self.set(band);
        self.merged += u32::from(new);
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_every_band_once() {
        for total in [0u32, 1, 7, 32, 128, 1000] {
            for parts in 1..6 {
                let mut next = 0;
                for p in 0..parts {
                    let (a, b) = range(total, p, parts);
                    assert_eq!(a, next);
                    assert!(b >= a);
                    next = b;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn the_lead_takes_missing_bands_from_the_far_end() {
        let mut c = Claims::new(Role::Lead { parts: 2 }, 10);
        assert_eq!(c.claim(3), Some((0, 3)));
        assert_eq!(c.claim(3), Some((3, 2)));
        assert!(c.stealing());
        assert!(c.accept(5));
        assert_eq!(c.claim(2), Some((8, 2)));
        assert!(!c.accept(9), "a band the lead took is not merged again");
        assert!(c.accept(6));
        assert_eq!(c.claim(4), Some((7, 1)));
        assert!(c.complete() && !c.stealing());
        assert_eq!(c.claim(1), None);
        assert_eq!(c.merged, 2);
    }

    #[test]
    fn a_helper_shades_its_own_range_only() {
        let mut c = Claims::new(Role::Helper { part: 1, parts: 3 }, 10);
        let mut got = Vec::new();
        while let Some((b, n)) = c.claim(1) {
            assert_eq!(n, 1);
            got.push(b);
        }
        assert_eq!(got, vec![3, 4, 5]);
        assert!(c.complete() && !c.stealing());
    }
}

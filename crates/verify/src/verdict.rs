//! A comparison of two images in words: one wording for the command line and the page.
//!
//! [`Wording`] is an image [`Verdict`] with the caller's judgement of whether a difference
//! is still equivalent (the scene check's [`crate::scene::Equivalence::holds`], the page's
//! tolerance). Its `Display` is the headline: `bit-identical`, `equivalent: max |Δ| = …`,
//! `DIFFERENT: max |Δ| = …` or `DIFFERENT: sizes differ`; the alternate form (`{:#}`) adds
//! where, on one line: the worst pixel, and for a difference both values, or both sizes.

use hoist_raster::image::Verdict;
use std::fmt;

/// A verdict and whether its difference is still called equivalent.
#[derive(Clone, Copy, Debug)]
pub struct Wording<'a> {
    pub verdict: &'a Verdict,
    pub equivalent: bool,
}

impl fmt::Display for Wording<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let located = f.alternate();
        match self.verdict {
            Verdict::Identical => write!(f, "bit-identical"),
            Verdict::Differs {
                max_abs_diff, x, y, ..
            } if self.equivalent => {
                write!(f, "equivalent: max |Δ| = {max_abs_diff:e}")?;
                if located {
                    write!(f, " (at {x}, {y})")?;
                }
                Ok(())
            }
            Verdict::Differs {
                max_abs_diff,
                x,
                y,
                a,
                b,
                ..
            } => {
                write!(f, "DIFFERENT: max |Δ| = {max_abs_diff:e}")?;
                if located {
                    write!(f, " at ({x}, {y}): {a:?} vs {b:?}")?;
                }
                Ok(())
            }
            Verdict::SizeMismatch { a, b } if located => {
                write!(f, "DIFFERENT: sizes {a:?} vs {b:?}")
            }
            Verdict::SizeMismatch { .. } => write!(f, "DIFFERENT: sizes differ"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headlines_and_locations() {
        let d = Verdict::Differs {
            max_abs_diff: 0.5,
            x: 3,
            y: 4,
            channel: 0,
            a: [1.0; 4],
            b: [0.5, 1.0, 1.0, 1.0],
            differing_pixels: 1,
            nan_mismatches: 0,
        };
        let w = |v, equivalent| Wording {
            verdict: v,
            equivalent,
        };
        assert_eq!(w(&Verdict::Identical, true).to_string(), "bit-identical");
        assert_eq!(w(&d, true).to_string(), "equivalent: max |Δ| = 5e-1");
        assert_eq!(
            format!("{:#}", w(&d, true)),
            "equivalent: max |Δ| = 5e-1 (at 3, 4)"
        );
        assert_eq!(w(&d, false).to_string(), "DIFFERENT: max |Δ| = 5e-1");
        assert_eq!(
            format!("{:#}", w(&d, false)),
            "DIFFERENT: max |Δ| = 5e-1 at (3, 4): [1.0, 1.0, 1.0, 1.0] vs [0.5, 1.0, 1.0, 1.0]"
        );
        let s = Verdict::SizeMismatch {
            a: (2, 2),
            b: (3, 1),
        };
        assert_eq!(w(&s, false).to_string(), "DIFFERENT: sizes differ");
        assert_eq!(
            format!("{:#}", w(&s, false)),
            "DIFFERENT: sizes (2, 2) vs (3, 1)"
        );
    }
}

//! A comparison of two images in words: one wording for the command line and the page.
//!
//! [`Wording`] is an image [`Verdict`] with the caller's judgement of whether a difference
//! is still equivalent (the scene check's [`crate::scene::Equivalence::holds`], the page's
//! tolerance). Its `Display` is the headline: `bit-identical`, `equivalent: max |Δ| = …`,
//! `DIFFERENT: max |Δ| = …` or `DIFFERENT: sizes differ`; the alternate form (`{:#}`) adds
//! where, on one line: the worst pixel, and for a difference both values, or both sizes.
//!
//! [`flatness`] is the one rule for an agreement that proves little because of the image
//! itself: every pixel has the same bits ([`Flat::Constant`]) or every channel's values lie
//! within [`NEARLY_UNIFORM_ULPS`] units in the last place of one another
//! ([`Flat::Uniform`], e.g. a saturating MAD_SAT at 1 and 1 − 2⁻²⁴). Two programs can agree
//! on such an image and still differ everywhere else. [`agreement`] words the line the CLI
//! prints for it; the page's verdict uses [`Flat::headline`], the same words. [`alpha_only_zero`]
//! tells when alpha is 0 everywhere while RGB varies (a program that writes only `.xyz`):
//! the page then shows RGB as opaque rather than empty checkerboards.

use hoist_raster::image::{Image, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most units in the last place between the values of a channel that still count as one
/// value (a few roundings apart).
pub const NEARLY_UNIFORM_ULPS: u32 = 4;

/// Why an image proves little when two renders agree on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Flat {
    /// Every pixel has the same bits.
    Constant,
    /// Every channel's values lie within `ulps` (at most [`NEARLY_UNIFORM_ULPS`]) units in
    /// the last place of one another, not all equal.
    Uniform { ulps: u32 },
}

impl Flat {
    /// What is wrong with the image, in words.
    pub fn why(self) -> String {
        match self {
            Flat::Constant => "the image is constant".into(),
            Flat::Uniform { ulps } => format!(
                "the image is nearly uniform (every channel within {ulps} {} of one value)",
                if ulps == 1 { "ulp" } else { "ulps" }
            ),
        }
    }

    /// The headline of an agreement on such an image (the page's verdict).
    pub fn headline(self) -> String {
        format!("proves little: {}", self.why())
    }
}

/// A float's position on a line where neighbouring floats are one apart (−0 = +0).
fn ordinal(v: f32) -> i64 {
    let b = v.to_bits();
    if b & 0x8000_0000 != 0 {
        -i64::from(b & 0x7fff_ffff)
    } else {
        i64::from(b)
    }
}

/// Whether `img` proves little as evidence of agreement ([`Flat`]); `None` when it varies.
pub fn flatness(img: &Image) -> Option<Flat> {
    let first = img.pixels.first()?;
    let bits = |p: &[f32; 4]| p.map(f32::to_bits);
    if img.pixels.iter().all(|p| bits(p) == bits(first)) {
        return Some(Flat::Constant);
    }
    let mut worst = 0i64;
    for c in 0..4 {
        if img.pixels.iter().any(|p| p[c].is_nan()) {
            return None;
        }
        let (lo, hi) = img.pixels.iter().fold((i64::MAX, i64::MIN), |(lo, hi), p| {
            let o = ordinal(p[c]);
            (lo.min(o), hi.max(o))
        });
        worst = worst.max(hi - lo);
        if worst > i64::from(NEARLY_UNIFORM_ULPS) {
            return None;
        }
    }
    Some(Flat::Uniform { ulps: worst as u32 })
}

/// Alpha is 0 at every pixel while red, green or blue varies: the image is meant to be
/// read as RGB (its alpha was never written, or written 0).
pub fn alpha_only_zero(img: &Image) -> bool {
    let Some(first) = img.pixels.first() else {
        return false;
    };
    img.pixels.iter().all(|p| p[3] == 0.0)
        && img
            .pixels
            .iter()
            .any(|p| (0..3).any(|c| p[c].to_bits() != first[c].to_bits()))
}

/// The CLI's line for a target: the verdict ([`Wording`], with where), or, when the
/// images agree but either proves little ([`flatness`]), the page's headline with the
/// verdict alone after it.
pub fn agreement(w: &Wording<'_>, images: [&Image; 2]) -> String {
    let agrees = matches!(w.verdict, Verdict::Identical) || w.equivalent;
    match images.iter().find_map(|i| flatness(i)) {
        Some(f) if agrees && !matches!(w.verdict, Verdict::SizeMismatch { .. }) => {
            format!("{} (the verdict alone: {w:#})", f.headline())
        }
        _ => format!("{w:#}"),
    }
}

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

    fn image(values: &[[f32; 4]]) -> Image {
        Image {
            width: values.len() as u32,
            height: 1,
            pixels: values.to_vec(),
        }
    }

    #[test]
    fn constant_and_nearly_uniform_images_prove_little_and_varying_ones_do_not() {
        let one_below = f32::from_bits(1f32.to_bits() - 1);
        assert_eq!(flatness(&image(&[[0.5; 4]; 3])), Some(Flat::Constant));
        // A saturating MAD_SAT: 1 and the float below it.
        let sat = image(&[[1.0; 4], [one_below, 1.0, 1.0, 1.0], [1.0; 4]]);
        assert_eq!(flatness(&sat), Some(Flat::Uniform { ulps: 1 }));
        assert_eq!(
            Flat::Uniform { ulps: 1 }.headline(),
            "proves little: the image is nearly uniform (every channel within 1 ulp of one value)"
        );
        // Across zero: −0, +0 and the smallest subnormals are a few ulps apart.
        let tiny = f32::from_bits(2);
        let z = image(&[[-tiny, 0.0, 0.0, 1.0], [tiny, -0.0, 0.0, 1.0]]);
        assert_eq!(flatness(&z), Some(Flat::Uniform { ulps: 4 }));
        let five = f32::from_bits(1f32.to_bits() + 5);
        assert_eq!(flatness(&image(&[[1.0; 4], [five, 1.0, 1.0, 1.0]])), None);
        assert_eq!(flatness(&image(&[[0.0; 4], [0.5, 0.0, 0.0, 0.0]])), None);
        assert_eq!(flatness(&image(&[[f32::NAN; 4], [0.0; 4]])), None);
        assert_eq!(flatness(&image(&[])), None);
    }

    #[test]
    fn alpha_zero_with_rgb_varying_is_told_apart() {
        assert!(alpha_only_zero(&image(&[
            [0.1, 0.2, 0.3, 0.0],
            [0.4, 0.2, 0.3, 0.0]
        ])));
        assert!(!alpha_only_zero(&image(&[[0.1, 0.2, 0.3, 0.0]; 2])));
        assert!(!alpha_only_zero(&image(&[
            [0.1, 0.2, 0.3, 0.0],
            [0.4, 0.2, 0.3, 1.0]
        ])));
    }

    #[test]
    fn the_cli_line_of_an_agreement_that_proves_little() {
        let flat = image(&[[0.2, 0.15, 0.2, 1.0]; 4]);
        let varied = image(&[[0.2, 0.15, 0.2, 1.0], [0.3, 0.15, 0.2, 1.0]]);
        let w = Wording {
            verdict: &Verdict::Identical,
            equivalent: true,
        };
        assert_eq!(
            agreement(&w, [&flat, &flat]),
            "proves little: the image is constant (the verdict alone: bit-identical)"
        );
        assert_eq!(agreement(&w, [&varied, &varied]), "bit-identical");
        let d = Verdict::Differs {
            max_abs_diff: 0.1,
            x: 0,
            y: 0,
            channel: 0,
            a: [0.2; 4],
            b: [0.3; 4],
            differing_pixels: 1,
            nan_mismatches: 0,
        };
        let different = Wording {
            verdict: &d,
            equivalent: false,
        };
        assert!(agreement(&different, [&flat, &varied]).starts_with("DIFFERENT"));
    }

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

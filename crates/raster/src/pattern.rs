//! Built-in texture patterns, bit for bit the ones arbref generates (its README):
//! - `checker[:C]`: RGB = 1 where `x/C + y/C` is odd (integer division), else 0; A = 1; C = 8;
//! - `gradient`: R = (x+½)/W, G = (y+½)/H, B = (R+G)·½, A = 1, in f32;
//! - `noise:SEED`: R, G, B, A in turn from `(splitmix64(state) >> 40) · 2⁻²⁴`, row 0 first,
//!   where each call first adds 0x9E3779B97F4A7C15 to the state (initially SEED);
//! - piglit's `rgbw` (quadrants red, green, blue, white from the bottom-left) and the 8×8
//!   `miptree` (levels red, green, blue, white).
//!
//! A spec is `NAME[@WxH]`; without a size the caller's default applies.

use crate::image::Image;

pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Pattern {
    Checker(u32),
    Gradient,
    Noise(u64),
    Rgbw,
    Solid([f32; 4]),
}

/// Parses `checker[:C]`, `gradient`, `noise:SEED` (decimal or 0x hex), `rgbw` or
/// `solid:r,g,b,a`, with an optional `@WxH` suffix.
pub fn parse_spec(spec: &str) -> Result<(Pattern, Option<(u32, u32)>), String> {
    let (name, size) = match spec.rsplit_once('@') {
        Some((n, s)) => (
            n,
            Some(parse_size(s).ok_or_else(|| format!("bad size `{s}`"))?),
        ),
        None => (spec, None),
    };
    let p = if name == "gradient" {
        Pattern::Gradient
    } else if name == "rgbw" {
        Pattern::Rgbw
    } else if let Some(rest) = name.strip_prefix("checker") {
        let cell = match rest.strip_prefix(':') {
            Some(c) => c.parse::<i64>().ok().filter(|&c| c > 0).unwrap_or(8) as u32,
            None if rest.is_empty() => 8,
            None => return Err(format!("unknown pattern `{name}`")),
        };
        Pattern::Checker(cell)
    } else if let Some(seed) = name.strip_prefix("noise:") {
        let v = if let Some(h) = seed.strip_prefix("0x").or_else(|| seed.strip_prefix("0X")) {
            u64::from_str_radix(h, 16)
        } else {
            seed.parse::<u64>()
        };
        Pattern::Noise(v.map_err(|_| format!("bad noise seed `{seed}`"))?)
    } else if let Some(v) = name.strip_prefix("solid:") {
        let vals: Vec<f32> = v.split(',').filter_map(|x| x.trim().parse().ok()).collect();
        if vals.len() != 4 {
            return Err(format!("`solid:` needs r,g,b,a, got `{v}`"));
        }
        Pattern::Solid([vals[0], vals[1], vals[2], vals[3]])
    } else {
        return Err(format!("unknown pattern `{name}`"));
    };
    Ok((p, size))
}

/// `WxH` with both positive.
pub fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    let (w, h) = (w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?);
    (w > 0 && h > 0).then_some((w, h))
}

/// Generates a pattern image. The caller bounds `w·h`.
pub fn generate(p: &Pattern, w: u32, h: u32) -> Image {
    let mut img = Image::new(w, h, [0.0; 4]);
    let mut state = match p {
        Pattern::Noise(s) => *s,
        _ => 0,
    };
    if w > 0 {
        for (y, row) in img.pixels.chunks_mut(w as usize).enumerate() {
            fill_row(p, y as u32, (w, h), &mut state, row);
        }
    }
    img
}

/// One row of a pattern. Kept out of line so that a browser's optimizing tier compiles this
/// loop on its own, early, rather than the whole texture set-up around it.
#[inline(never)]
fn fill_row(p: &Pattern, y: u32, (w, h): (u32, u32), state: &mut u64, row: &mut [[f32; 4]]) {
    for (x, px) in (0u32..).zip(row) {
        *px = match p {
            Pattern::Checker(c) => {
                let v = if ((x / c + y / c) & 1) == 1 { 1.0 } else { 0.0 };
                [v, v, v, 1.0]
            }
            Pattern::Gradient => {
                let r = (x as f32 + 0.5) / w as f32;
                let g = (y as f32 + 0.5) / h as f32;
                [r, g, (r + g) * 0.5, 1.0]
            }
            Pattern::Noise(_) => {
                let mut v = [0.0; 4];
                for c in &mut v {
                    *c = (splitmix64(state) >> 40) as f32 * (1.0 / 16_777_216.0);
                }
                v
            }
            Pattern::Rgbw => {
                let right = x >= w / 2;
                match (y >= h / 2, right) {
                    (false, false) => [1.0, 0.0, 0.0, 1.0],
                    (false, true) => [0.0, 1.0, 0.0, 1.0],
                    (true, false) => [0.0, 0.0, 1.0, 1.0],
                    (true, true) => [1.0, 1.0, 1.0, 1.0],
                }
            }
            Pattern::Solid(v) => *v,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // First outputs of splitmix64 seeded with 0 (published test vector of the generator).
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn specs_parse_with_sizes() {
        assert_eq!(parse_spec("checker").unwrap(), (Pattern::Checker(8), None));
        assert_eq!(
            parse_spec("checker:4@16x8").unwrap(),
            (Pattern::Checker(4), Some((16, 8)))
        );
        assert_eq!(parse_spec("noise:0x10").unwrap().0, Pattern::Noise(16));
        assert!(parse_spec("plaid").is_err());
        assert!(parse_spec("gradient@0x4").is_err());
        let g = generate(&Pattern::Gradient, 4, 2);
        assert_eq!(g.pixels[5], [0.375, 0.75, 0.5625, 1.0]);
        let c = generate(&Pattern::Checker(2), 4, 4);
        assert_eq!(c.pixels[2][0], 1.0);
        assert_eq!(c.pixels[10][0], 0.0);
    }
}

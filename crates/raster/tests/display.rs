//! The display bytes (`image::to_rgba8`, what the page's canvases show) follow their
//! documented formula in every build: natively the scalar path, and under
//! `wasm32-unknown-unknown` with SIMD128 (wasm-bindgen-test in Node) the vector path.

use hoist_raster::image::{Image, ToRgba8, to_rgba8};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test;

/// The display bytes are the documented formula, `round(clamp((v - lo) / (hi - lo)) *
/// 255)` with NaN as 0, at the values where a shortcut would differ: each byte's
/// half-way points and the floats beside them, signed zeros, infinities, NaNs, and a
/// walk over the bit patterns; under several mappings (one with `lo == hi`).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
fn display_bytes_follow_the_rounding_formula_at_every_edge() {
    let mut vals: Vec<f32> = vec![0.0, -0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY];
    vals.extend([f32::NAN, -f32::NAN, f32::MIN_POSITIVE, f32::MAX, f32::MIN]);
    for k in 0..=256u32 {
        let half = (k as f32 - 0.5) / 255.0;
        let mut near = half;
        for _ in 0..3 {
            near = f32::from_bits(near.to_bits().saturating_sub(1));
        }
        for _ in 0..7 {
            vals.push(near);
            near = f32::from_bits(near.to_bits() + 1);
        }
    }
    vals.extend(
        (0..1u64 << 32)
            .step_by(65_521)
            .map(|b| f32::from_bits(b as u32)),
    );
    for (lo, hi) in [
        (0.0f32, 1.0f32),
        (-2.0, 3.0),
        (0.25, 0.25),
        (1.0, 0.0),
        (-1e-3, 1e6),
    ] {
        let scale = if hi != lo { 1.0 / (hi - lo) } else { 0.0 };
        let img = Image {
            width: vals.len() as u32,
            height: 1,
            pixels: vals.iter().map(|&v| [v, -v, v * 0.5, 0.0]).collect(),
        };
        let m = ToRgba8 {
            lo,
            hi,
            channels: [0, 1, 2, 4],
            top_down: false,
        };
        let bytes = to_rgba8(&img, &m);
        for (i, p) in img.pixels.iter().enumerate() {
            for c in 0..3 {
                let v = (p[c] - lo) * scale;
                let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
                let want = (v * 255.0).round() as u8;
                assert_eq!(
                    bytes[i * 4 + c],
                    want,
                    "{:e} channel {c}, lo {lo}, hi {hi}",
                    p[c]
                );
            }
            assert_eq!(bytes[i * 4 + 3], 255);
        }
    }
}

//! Float images: comparison verdicts, statistics, RGBA8 mapping and the file formats
//! (PF4 — arbref's 4-channel PFM, rows bottom-to-top — and PNG).

use serde::{Deserialize, Serialize};

/// An RGBA float image. Row 0 is the bottom row (window y = 0, texture t = 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[f32; 4]>,
}

impl Image {
    pub fn new(width: u32, height: u32, fill: [f32; 4]) -> Image {
        Image {
            width,
            height,
            pixels: vec![fill; width as usize * height as usize],
        }
    }

    /// Pixel at (x, y), origin bottom-left.
    pub fn get(&self, x: u32, y: u32) -> Option<[f32; 4]> {
        if x < self.width && y < self.height {
            self.pixels.get((y * self.width + x) as usize).copied()
        } else {
            None
        }
    }

    /// Per-channel min/max/mean over finite values, count of non-finite values, and the
    /// FNV-1a 64-bit hash of the little-endian float bytes — what arbref prints.
    pub fn stats(&self) -> ImageStats {
        let mut min = [f32::MAX; 4];
        let mut max = [-f32::MAX; 4];
        let mut sum = [0.0f64; 4];
        let mut nonfinite = 0u64;
        let mut hash = hoist_asm::hash::Fnv1a::new();
        for p in &self.pixels {
            for c in 0..4 {
                let v = p[c];
                hash.write(&v.to_le_bytes());
                if !v.is_finite() {
                    nonfinite += 1;
                    continue;
                }
                min[c] = min[c].min(v);
                max[c] = max[c].max(v);
                sum[c] += f64::from(v);
            }
        }
        let n = self.pixels.len().max(1) as f64;
        ImageStats {
            min,
            max,
            mean: sum.map(|s| s / n),
            nonfinite,
            fnv1a64: hash.finish(),
        }
    }

    /// The largest finite magnitude of any channel (0 for an empty or all-non-finite image):
    /// the scale relative tolerances are taken against.
    pub fn magnitude(&self) -> f32 {
        self.pixels
            .iter()
            .flatten()
            .filter(|v| v.is_finite())
            .fold(0f32, |m, v| m.max(v.abs()))
    }

    /// FNV-1a 64 of the pixel bytes (same as [`ImageStats::fnv1a64`]).
    pub fn hash(&self) -> u64 {
        self.stats().fnv1a64
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageStats {
    pub min: [f32; 4],
    pub max: [f32; 4],
    pub mean: [f64; 4],
    pub nonfinite: u64,
    pub fnv1a64: u64,
}

/// Outcome of comparing two images.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Verdict {
    /// Every float has the same bits.
    Identical,
    /// Values differ; the largest absolute difference and where it is.
    Differs {
        max_abs_diff: f32,
        /// Worst pixel (origin bottom-left) and channel.
        x: u32,
        y: u32,
        channel: u8,
        a: [f32; 4],
        b: [f32; 4],
        /// Pixels with any channel differing.
        differing_pixels: u64,
        /// Channels where exactly one side is NaN.
        nan_mismatches: u64,
    },
    /// The images have different sizes.
    SizeMismatch { a: (u32, u32), b: (u32, u32) },
}

impl Verdict {
    pub fn is_identical(&self) -> bool {
        matches!(self, Verdict::Identical)
    }

    /// Largest absolute difference (0 when identical, infinity on size or NaN mismatch).
    pub fn max_abs_diff(&self) -> f32 {
        match self {
            Verdict::Identical => 0.0,
            Verdict::Differs {
                max_abs_diff,
                nan_mismatches,
                ..
            } => {
                if *nan_mismatches > 0 {
                    f32::INFINITY
                } else {
                    *max_abs_diff
                }
            }
            Verdict::SizeMismatch { .. } => f32::INFINITY,
        }
    }

    /// True when every difference is within `tol` (and no NaN mismatches).
    pub fn within(&self, tol: f32) -> bool {
        self.max_abs_diff() <= tol
    }
}

/// Compares two images channel by channel. NaN equals NaN; `inf - inf` of different signs
/// counts as `f32::MAX`.
pub fn compare(a: &Image, b: &Image) -> Verdict {
    if a.width != b.width || a.height != b.height {
        return Verdict::SizeMismatch {
            a: (a.width, a.height),
            b: (b.width, b.height),
        };
    }
    let mut worst = (0.0f32, 0usize, 0u8);
    let mut differing = 0u64;
    let mut nan_mis = 0u64;
    let mut any = false;
    for (i, (p, q)) in a.pixels.iter().zip(&b.pixels).enumerate() {
        let mut pixel_differs = false;
        for c in 0..4 {
            let (u, v) = (p[c], q[c]);
            if u.to_bits() == v.to_bits() {
                continue;
            }
            any = true;
            if u.is_nan() || v.is_nan() {
                if u.is_nan() != v.is_nan() {
                    nan_mis += 1;
                    pixel_differs = true;
                }
                continue;
            }
            let d = if u == v { 0.0 } else { (u - v).abs() };
            let d = if d.is_nan() { f32::MAX } else { d };
            if d > 0.0 {
                pixel_differs = true;
            }
            if d > worst.0 || (worst.0 == 0.0 && d > 0.0) {
                worst = (d, i, c as u8);
            }
        }
        if pixel_differs {
            differing += 1;
        }
    }
    if !any {
        return Verdict::Identical;
    }
    let (d, i, c) = worst;
    let w = a.width as usize;
    Verdict::Differs {
        max_abs_diff: d,
        x: (i % w.max(1)) as u32,
        y: (i / w.max(1)) as u32,
        channel: c,
        a: a.pixels.get(i).copied().unwrap_or_default(),
        b: b.pixels.get(i).copied().unwrap_or_default(),
        differing_pixels: differing,
        nan_mismatches: nan_mis,
    }
}

/// How float values map to 8-bit display values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToRgba8 {
    /// Values mapped to 0 and 255 (clamped outside).
    pub lo: f32,
    pub hi: f32,
    /// Source channel for each output channel (0..4), or 4 for constant 255.
    pub channels: [u8; 4],
    /// Flip rows so the first output row is the top of the image (for display and PNG).
    pub top_down: bool,
}

impl Default for ToRgba8 {
    fn default() -> ToRgba8 {
        ToRgba8 {
            lo: 0.0,
            hi: 1.0,
            channels: [0, 1, 2, 3],
            top_down: true,
        }
    }
}

/// Maps an image to RGBA8 bytes (`round(clamp((v - lo)/(hi - lo)) * 255)`, NaN → 0).
#[inline(never)]
pub fn to_rgba8(img: &Image, m: &ToRgba8) -> Vec<u8> {
    let (w, h) = (img.width as usize, img.height as usize);
    let scale = if m.hi != m.lo {
        1.0 / (m.hi - m.lo)
    } else {
        0.0
    };
    // All four channels are converted (one vector's work), then picked (4: constant 255).
    let pick = m.channels.map(|c| usize::from(c.min(4)));
    let identity = pick == [0, 1, 2, 3];
    let mut out = vec![0u8; w * h * 4];
    for (row, dst) in out.chunks_exact_mut(w * 4).enumerate() {
        let y = if m.top_down { h - 1 - row } else { row };
        for (p, o) in img.pixels[y * w..(y + 1) * w]
            .iter()
            .zip(dst.chunks_exact_mut(4))
        {
            let b = display_bytes(*p, m.lo, scale);
            if identity {
                o.copy_from_slice(&b);
            } else {
                let all = [b[0], b[1], b[2], b[3], 255];
                for (o, &k) in o.iter_mut().zip(&pick) {
                    *o = all[k];
                }
            }
        }
    }
    out
}

/// `round(clamp((v - lo) * scale) * 255)` per channel, half away from zero, NaN → 0. The
/// scaled value `t` is in [0, 255] and its fraction `t - trunc(t)` is exact, so the rounding
/// is one comparison (`f32::round` is a library call in wasm).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn display_bytes(p: [f32; 4], lo: f32, scale: f32) -> [u8; 4] {
    p.map(|v| {
        let v = (v - lo) * scale;
        let t = if v > 0.0 { v.min(1.0) * 255.0 } else { 0.0 };
        let i = t as i32;
        (i + i32::from(t - i as f32 >= 0.5)) as u8
    })
}

/// The same as one SIMD128 vector: the page converts a 1024² image in a few milliseconds.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn display_bytes(p: [f32; 4], lo: f32, scale: f32) -> [u8; 4] {
    use core::arch::wasm32::*;
    let v = f32x4(p[0], p[1], p[2], p[3]);
    let v = f32x4_mul(f32x4_sub(v, f32x4_splat(lo)), f32x4_splat(scale));
    // `min` keeps a NaN; the mask of `v > 0` then clears it, and everything at or below 0.
    let t = f32x4_mul(f32x4_min(v, f32x4_splat(1.0)), f32x4_splat(255.0));
    let t = v128_and(t, f32x4_gt(v, f32x4_splat(0.0)));
    let i = i32x4_trunc_sat_f32x4(t);
    let up = f32x4_ge(f32x4_sub(t, f32x4_convert_i32x4(i)), f32x4_splat(0.5));
    let i = i32x4_sub(i, up);
    let n = i16x8_narrow_i32x4(i, i);
    u32x4_extract_lane::<0>(u8x16_narrow_i16x8(n, n)).to_le_bytes()
}

/// PF4: `PF4\n<W> <H>\n-1.0\n` then little-endian RGBA float32, rows bottom-to-top.
pub fn encode_pf4(img: &Image) -> Vec<u8> {
    let mut out = format!("PF4\n{} {}\n-1.0\n", img.width, img.height).into_bytes();
    out.reserve(img.pixels.len() * 16);
    for p in &img.pixels {
        for v in p {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Reads PF4, PF (RGB, A = 1) or Pf (grey), either endianness. `max_pixels` bounds the
/// allocation.
#[inline(never)]
pub fn decode_pfm(bytes: &[u8], max_pixels: u64) -> Result<Image, String> {
    let mut fields = Vec::new();
    let mut pos = 0;
    while fields.len() < 4 {
        while pos < bytes.len() && bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        let start = pos;
        while pos < bytes.len() && !bytes[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if start == pos {
            return Err("not a PFM file (truncated header)".into());
        }
        fields.push(String::from_utf8_lossy(&bytes[start..pos]).into_owned());
    }
    pos += 1;
    let nch = match fields[0].as_str() {
        "PF4" => 4,
        "PF" => 3,
        "Pf" => 1,
        m => return Err(format!("unknown PFM magic `{m}`")),
    };
    let w: u32 = fields[1].parse().map_err(|_| "bad PFM width")?;
    let h: u32 = fields[2].parse().map_err(|_| "bad PFM height")?;
    let scale: f32 = fields[3].parse().map_err(|_| "bad PFM scale")?;
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > max_pixels {
        return Err(format!("PFM size {w}x{h} is out of range"));
    }
    let n = w as usize * h as usize;
    let need = n * nch * 4;
    if bytes.len() < pos + need {
        return Err("PFM data is truncated".into());
    }
    let data = &bytes[pos..pos + need];
    let big = scale > 0.0;
    let mut pixels = Vec::with_capacity(n);
    for i in 0..n {
        let mut v = [0.0, 0.0, 0.0, 1.0];
        for c in 0..nch {
            let o = (i * nch + c) * 4;
            let b = [data[o], data[o + 1], data[o + 2], data[o + 3]];
            v[c] = if big {
                f32::from_be_bytes(b)
            } else {
                f32::from_le_bytes(b)
            };
        }
        if nch == 1 {
            v[1] = v[0];
            v[2] = v[0];
        }
        pixels.push(v);
    }
    Ok(Image {
        width: w,
        height: h,
        pixels,
    })
}

/// Encodes RGBA8 PNG (top row first) with the given mapping.
pub fn encode_png(img: &Image, m: &ToRgba8) -> Result<Vec<u8>, String> {
    let data = to_rgba8(
        img,
        &ToRgba8 {
            top_down: true,
            ..*m
        },
    );
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(&data).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// A PNG's size from its signature and header chunk alone, checked as [`decode_png`] checks
/// it (the header's fields valid for the PNG format, the size within `max_pixels`), without
/// decoding: for the page, which refuses a picture at once but leaves decoding (and the
/// chunks' checksums) to the worker, and so does not carry the decoder.
pub fn png_size(bytes: &[u8], max_pixels: u64) -> Result<(u32, u32), String> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    if bytes.len() < 8 || bytes[..8] != SIGNATURE {
        return Err("PNG: not a PNG file (no PNG signature)".into());
    }
    let header = bytes
        .get(8..33)
        .ok_or("PNG: the file ends inside its header")?;
    let word =
        |i: usize| u32::from_be_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    if word(0) != 13 || &header[4..8] != b"IHDR" {
        return Err("PNG: the first chunk is not a 13-byte IHDR".into());
    }
    let (w, h) = (word(8), word(12));
    let (depth, colour) = (header[16], header[17]);
    let depths: &[u8] = match colour {
        0 => &[1, 2, 4, 8, 16],
        3 => &[1, 2, 4, 8],
        2 | 4 | 6 => &[8, 16],
        _ => return Err(format!("PNG: colour type {colour} is not defined")),
    };
    if !depths.contains(&depth) {
        return Err(format!(
            "PNG: bit depth {depth} is not allowed for colour type {colour}"
        ));
    }
    if header[18] != 0 || header[19] != 0 || header[20] > 1 {
        return Err("PNG: unknown compression, filter or interlace method".into());
    }
    if w > i32::MAX as u32 || h > i32::MAX as u32 {
        return Err(format!("PNG: size {w}x{h} is beyond the format"));
    }
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > max_pixels {
        return Err(format!("PNG size {w}x{h} is out of range"));
    }
    Ok((w, h))
}

/// Decodes a PNG into a float image (`n/255`, 16-bit `n/65535`), bottom row first, as a
/// texture upload of the picture would see it. `max_pixels` bounds the allocation.
#[inline(never)]
pub fn decode_png(bytes: &[u8], max_pixels: u64) -> Result<Image, String> {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().map_err(|e| format!("PNG: {e}"))?;
    let (w, h) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if w == 0 || h == 0 || u64::from(w) * u64::from(h) > max_pixels {
        return Err(format!("PNG size {w}x{h} is out of range"));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "PNG: image too large".to_string())?;
    let mut buf = vec![0u8; size];
    let frame = reader
        .next_frame(&mut buf)
        .map_err(|e| format!("PNG: {e}"))?;
    let (ct, bd) = (frame.color_type, frame.bit_depth);
    let chans = ct.samples();
    let sixteen = bd == png::BitDepth::Sixteen;
    let bps = if sixteen { 2 } else { 1 };
    let stride = frame.line_size;
    let mut pixels = vec![[0.0f32; 4]; w as usize * h as usize];
    for row in 0..h as usize {
        let line = &buf[row * stride..row * stride + w as usize * chans * bps];
        let y = h as usize - 1 - row;
        for x in 0..w as usize {
            let mut s = [0.0f32; 4];
            for (c, v) in s.iter_mut().enumerate().take(chans) {
                let o = (x * chans + c) * bps;
                *v = if sixteen {
                    f32::from(u16::from_be_bytes([line[o], line[o + 1]])) / 65535.0
                } else {
                    f32::from(line[o]) / 255.0
                };
            }
            pixels[y * w as usize + x] = match chans {
                1 => [s[0], s[0], s[0], 1.0],
                2 => [s[0], s[0], s[0], s[1]],
                3 => [s[0], s[1], s[2], 1.0],
                _ => s,
            };
        }
    }
    Ok(Image {
        width: w,
        height: h,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pf4_round_trip_and_fnv_of_known_bytes() {
        let mut img = Image::new(2, 1, [0.0; 4]);
        img.pixels[1] = [1.0, -2.5, f32::INFINITY, 0.25];
        let bytes = encode_pf4(&img);
        assert!(bytes.starts_with(b"PF4\n2 1\n-1.0\n"));
        let back = decode_pfm(&bytes, 100).unwrap();
        assert_eq!(compare(&img, &back), Verdict::Identical);
        // FNV-1a 64 of 32 zero bytes, computed independently of Image::stats.
        let mut h: u64 = 0xcbf29ce484222325;
        for _ in 0..32 {
            h = h.wrapping_mul(0x100000001b3);
        }
        assert_eq!(Image::new(2, 1, [0.0; 4]).hash(), h);
        assert_eq!(img.stats().nonfinite, 1);
    }

    #[test]
    fn compare_reports_worst_pixel() {
        let a = Image::new(3, 2, [0.5; 4]);
        let mut b = a.clone();
        b.pixels[4][2] = 0.75;
        b.pixels[1][0] = 0.5000001;
        match compare(&a, &b) {
            Verdict::Differs {
                max_abs_diff,
                x,
                y,
                channel,
                differing_pixels,
                ..
            } => {
                assert_eq!(
                    (max_abs_diff, x, y, channel, differing_pixels),
                    (0.25, 1, 1, 2, 2)
                );
            }
            v => panic!("{v:?}"),
        }
        assert!(matches!(
            compare(&a, &Image::new(2, 3, [0.0; 4])),
            Verdict::SizeMismatch { .. }
        ));
    }

    #[test]
    fn png_round_trip_keeps_rows_bottom_first() {
        let mut img = Image::new(2, 2, [0.0, 0.0, 0.0, 1.0]);
        img.pixels[0] = [1.0, 0.0, 0.0, 1.0];
        let png = encode_png(&img, &ToRgba8::default()).unwrap();
        let back = decode_png(&png, 100).unwrap();
        assert_eq!(back.pixels[0], [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(back.pixels[3], [0.0, 0.0, 0.0, 1.0]);
        let bytes = to_rgba8(&img, &ToRgba8::default());
        assert_eq!(&bytes[8..12], &[255, 0, 0, 255]);
    }
}

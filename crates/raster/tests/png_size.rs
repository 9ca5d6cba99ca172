//! `image::png_size` (the page's check of a picked picture, without the decoder) against
//! `image::decode_png` (the png crate, the oracle): on PNGs the png crate writes in every
//! colour type and bit depth (it writes no interlaced files), at sizes inside and outside the limit, and
//! on those files with any header byte changed or cut short. Whatever the decoder accepts,
//! the check accepts with the same size; whatever the check refuses, the decoder refuses.
#![cfg(not(target_arch = "wasm32"))]

use hoist_raster::image::{decode_png, png_size};
use proptest::prelude::*;

const MAX: u64 = 64 * 64;

/// A PNG of `w`×`h` in `colour` at `depth`, its samples from `seed`.
fn png_file(w: u32, h: u32, colour: png::ColorType, depth: png::BitDepth, seed: u8) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(colour);
        enc.set_depth(depth);
        if colour == png::ColorType::Indexed {
            enc.set_palette(
                (0..=255u8)
                    .flat_map(|i| [i, i / 2, 255 - i])
                    .collect::<Vec<u8>>(),
            );
        }
        let mut wr = enc.write_header().unwrap();
        let bits = colour.samples() * depth as usize;
        let row = (w as usize * bits).div_ceil(8);
        let data: Vec<u8> = (0..row * h as usize)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect();
        wr.write_image_data(&data).unwrap();
    }
    out
}

/// Every colour type with every bit depth the format allows.
fn kinds() -> Vec<(png::ColorType, png::BitDepth)> {
    use png::BitDepth::*;
    use png::ColorType::*;
    vec![
        (Grayscale, One),
        (Grayscale, Two),
        (Grayscale, Four),
        (Grayscale, Eight),
        (Grayscale, Sixteen),
        (Rgb, Eight),
        (Rgb, Sixteen),
        (Indexed, One),
        (Indexed, Two),
        (Indexed, Four),
        (Indexed, Eight),
        (GrayscaleAlpha, Eight),
        (GrayscaleAlpha, Sixteen),
        (Rgba, Eight),
        (Rgba, Sixteen),
    ]
}

/// The check agrees with the decoder on one file.
fn agree(bytes: &[u8]) -> Result<(), String> {
    match (png_size(bytes, MAX), decode_png(bytes, MAX)) {
        (Ok(s), Ok(img)) if s == (img.width, img.height) => Ok(()),
        (Err(_), Err(_)) | (Ok(_), Err(_)) => Ok(()),
        (check, decoded) => Err(format!(
            "check {check:?}, decoder {:?}",
            decoded.map(|i| (i.width, i.height))
        )),
    }
}

#[test]
fn every_colour_type_and_depth_agrees_with_the_decoder() {
    let mut files = 0;
    for (colour, depth) in kinds() {
        for (w, h) in [(1, 1), (3, 5), (64, 64), (65, 64), (17, 300)] {
            let f = png_file(w, h, colour, depth, 7);
            let inside = u64::from(w) * u64::from(h) <= MAX;
            let what = format!("{colour:?} {depth:?} {w}x{h}");
            assert_eq!(png_size(&f, MAX).is_ok(), inside, "{what}");
            assert_eq!(decode_png(&f, MAX).is_ok(), inside, "{what}");
            agree(&f).unwrap();
            files += 1;
        }
    }
    assert_eq!(files, 15 * 5);
    for bad in [
        &b""[..],
        b"\x89PNG\r\n\x1a",
        b"GIF89a....",
        b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR",
    ] {
        assert!(png_size(bad, MAX).is_err(), "{bad:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any byte of the signature or header changed, or the file cut anywhere in its first 64
    /// bytes: never a size the decoder would not give.
    #[test]
    fn a_damaged_header_never_passes_what_the_decoder_refuses(
        kind in 0usize..15,
        w in 1u32..80,
        h in 1u32..80,
        at in 0usize..33,
        value in any::<u8>(),
        cut in 0usize..64,
    ) {
        let (colour, depth) = kinds()[kind];
        let f = png_file(w, h, colour, depth, value);
        let mut changed = f.clone();
        changed[at] = value;
        prop_assert!(agree(&changed).is_ok(), "byte {at} = {value}: {:?}", agree(&changed));
        let cut = &f[..cut.min(f.len())];
        prop_assert!(png_size(cut, MAX).is_err() || cut.len() >= 33);
        prop_assert!(agree(cut).is_ok(), "cut at {}: {:?}", cut.len(), agree(cut));
    }
}

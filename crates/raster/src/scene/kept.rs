//! Textures kept between runs. A texture made from a pattern or a supplied image is a
//! function of its source and options alone, so a later run (the next edit's renders, the
//! validation's, a helper's replay) takes the same `Arc` instead of generating, converting
//! and mipmapping it again; the same object is also what lets a compiled kernel's
//! backend keep the texels it staged (`ExecEnv::shared_textures`). Keys are exact: the
//! pattern's parameters by their bits (a `solid` of −0 is not one of +0), an image by its
//! bytes, the options, and the texture-size cap the image was decoded under. Targets are
//! never kept (their texels are the scene's). Per thread, least recently used first out,
//! at most [`KEPT`] textures and [`KEPT_BYTES`] bytes of texels.

use super::model::{TexOptions, TexSource};
use crate::pattern::Pattern;
use crate::texture::Texture;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most textures kept per thread.
pub const KEPT: usize = 8;
/// Most bytes of texels kept per thread (a 1024² texture with its mipmaps is ~21 MB).
pub const KEPT_BYTES: u64 = 64 << 20;

/// A kept texture: its key, the source image's size (for the caps check) and the texture.
struct Entry {
    key: Vec<u8>,
    opts: TexOptions,
    size: (u32, u32),
    tex: Arc<Texture>,
}

thread_local! {
    static KEPT_TEXTURES: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// The key of a texture source, or `None` when it is not kept (targets).
pub fn key(src: &TexSource, images: &BTreeMap<String, Vec<u8>>, cap: u64) -> Option<Vec<u8>> {
    let mut k = cap.to_le_bytes().to_vec();
    match src {
        TexSource::Target(_) | TexSource::Miptree => return None,
        TexSource::Image(name) => {
            k.push(1);
            k.extend_from_slice(images.get(name)?);
        }
        TexSource::Pattern(p, w, h) => {
            k.push(2);
            k.extend([*w, *h].iter().flat_map(|v| v.to_le_bytes()));
            match p {
                Pattern::Checker(c) => k.extend([0].into_iter().chain(c.to_le_bytes())),
                Pattern::Gradient => k.push(1),
                Pattern::Noise(s) => k.extend([2].into_iter().chain(s.to_le_bytes())),
                Pattern::Rgbw => k.push(3),
                Pattern::Solid(c) => {
                    k.push(4);
                    k.extend(c.iter().flat_map(|v| v.to_bits().to_le_bytes()));
                }
            }
        }
    }
    Some(k)
}

/// The kept texture for `key` and `opts` with its source image's size (and it becomes the
/// most recently used).
pub fn get(key: &[u8], opts: &TexOptions) -> Option<(Arc<Texture>, (u32, u32))> {
    KEPT_TEXTURES.with(|k| {
        let mut k = k.borrow_mut();
        let i = k.iter().position(|e| e.key == key && e.opts == *opts)?;
        let e = k.remove(i);
        let found = (e.tex.clone(), e.size);
        k.push(e);
        Some(found)
    })
}

/// Keeps `tex`, dropping the least recently used textures over the limits.
pub fn put(key: Vec<u8>, opts: TexOptions, size: (u32, u32), tex: Arc<Texture>) {
    if tex.bytes() > KEPT_BYTES {
        return;
    }
    KEPT_TEXTURES.with(|k| {
        let mut k = k.borrow_mut();
        k.retain(|e| !(e.key == key && e.opts == opts));
        k.push(Entry {
            key,
            opts,
            size,
            tex,
        });
        while k.len() > KEPT || k.iter().map(|e| e.tex.bytes()).sum::<u64>() > KEPT_BYTES {
            k.remove(0);
        }
    });
}

/// Forgets every kept texture of this thread.
pub fn clear() {
    KEPT_TEXTURES.with(|k| k.borrow_mut().clear());
}

/// The bytes of texels this thread keeps.
pub fn bytes() -> u64 {
    KEPT_TEXTURES.with(|k| k.borrow().iter().map(|e| e.tex.bytes()).sum())
}

/// How many textures this thread keeps.
pub fn count() -> usize {
    KEPT_TEXTURES.with(|k| k.borrow().len())
}

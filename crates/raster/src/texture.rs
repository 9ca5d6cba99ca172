//! Textures and sampling: 1D, 2D, RECT, 3D and cube maps; RGBA8, RGBA32F and depth; nearest
//! and bilinear filtering; clamp-to-edge and repeat; mipmaps with LOD selection; shadow
//! comparisons.
//!
//! Sampling follows the OpenGL 2.1 specification, section 3.8.8: `u = s·W`, nearest picks
//! `floor(u)`, linear blends the texels around `u - 1/2`; the LOD is
//! `λ = log2(ρ) + bias` with `ρ = max(|∂(u,v,w)/∂x|, |∂(u,v,w)/∂y|)` measured on the 2×2 quad
//! (coarse derivatives, as llvmpipe does); `λ ≤ c` magnifies (c = ½ when the magnification
//! filter is linear and the minification filter is a NEAREST-mipmap mode, else 0); nearest
//! mipmap level `⌈λ + ½⌉ - 1`; linear mipmapping blends levels `⌊λ⌋` and `⌊λ⌋ + 1`. A unit with
//! no texture, or a texture whose shape does not fit the instruction's target, samples
//! (0, 0, 0, 1) (GL's incomplete-texture result). Texel row 0 is t = 0. RGBA8 texels are
//! stored as floats `n/255`; the conversion happens once at upload.
//!
//! Linear interpolation is `a + f·(b - a)`, first along u, then v, then w/levels.
//!
//! Depth textures ([`TexFormat::Depth`]) and compare mode ([`Sampler::compare`]) follow the
//! rules written in [`hoist_asm::semantics`] (section "Shadow fetches and depth textures"):
//! each fetched texel is turned into RGBA by [`Lookup`] before filtering.

use crate::compile::{LANES, Row, TexKind};
use crate::value::{Bits, Vec4, vec4};
use hoist_asm::ir::TexTarget;
pub use hoist_asm::semantics::{CompareFunc, DepthMode};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Filter {
    #[default]
    Nearest,
    Linear,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum MipFilter {
    /// No mipmapping: level 0 only.
    #[default]
    None,
    Nearest,
    Linear,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Wrap {
    #[default]
    ClampToEdge,
    Repeat,
}

/// Filtering and wrapping of a texture unit, and how a depth texture reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Sampler {
    pub min: Filter,
    pub mag: Filter,
    pub mip: MipFilter,
    pub wrap: Wrap,
    /// `TEXTURE_COMPARE_MODE` = `COMPARE_R_TO_TEXTURE` with this function; `None` = `NONE`.
    /// Only depth textures sampled through a shadow target compare.
    #[serde(default)]
    pub compare: Option<CompareFunc>,
    /// `DEPTH_TEXTURE_MODE` of a depth texture (ignored for colour textures).
    #[serde(default)]
    pub depth_mode: DepthMode,
}

impl Sampler {
    pub fn new(filter: Filter, wrap: Wrap) -> Sampler {
        Sampler {
            min: filter,
            mag: filter,
            mip: MipFilter::None,
            wrap,
            ..Sampler::default()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum TexFormat {
    Rgba8,
    #[default]
    Rgba32F,
    /// A depth texture: one value per texel, component 0, stored clamped to [0, 1] (the
    /// other components are ignored); it reads through [`Sampler::depth_mode`] and, on a
    /// shadow target, [`Sampler::compare`].
    Depth,
}

/// Shape of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum TexShape {
    D1,
    #[default]
    D2,
    /// Rectangle: unnormalised coordinates, no mipmaps.
    Rect,
    D3,
    /// Six square faces stored as depth 6, in the order +X, -X, +Y, -Y, +Z, -Z.
    Cube,
}

impl TexShape {
    pub const ALL: [TexShape; 5] = [
        TexShape::D1,
        TexShape::D2,
        TexShape::D3,
        TexShape::Cube,
        TexShape::Rect,
    ];

    /// The shape a texture needs for `target` to sample it. A shadow target samples its
    /// base shape; its storage format is [`format_for_target`]'s business.
    pub fn of_target(target: TexTarget) -> TexShape {
        match target {
            TexTarget::T1D | TexTarget::Shadow1D => TexShape::D1,
            TexTarget::T2D | TexTarget::Shadow2D => TexShape::D2,
            TexTarget::T3D => TexShape::D3,
            TexTarget::Cube => TexShape::Cube,
            TexTarget::Rect | TexTarget::ShadowRect => TexShape::Rect,
        }
    }

    /// The word arbref's `--texture-target` and the scene option `shape` use.
    pub fn name(self) -> &'static str {
        match self {
            TexShape::D1 => "1d",
            TexShape::D2 => "2d",
            TexShape::D3 => "3d",
            TexShape::Cube => "cube",
            TexShape::Rect => "rect",
        }
    }

    pub fn from_name(s: &str) -> Option<TexShape> {
        TexShape::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s))
    }

    /// Width, height and depth (cube: 6 faces) of the texture [`Texture::from_image`] makes
    /// of a `w`×`h` image.
    pub fn extent(self, w: u32, h: u32) -> (u32, u32, u32) {
        match self {
            TexShape::D1 => (w, 1, 1),
            TexShape::D2 | TexShape::Rect => (w, h, 1),
            TexShape::D3 => (w, h, SLICES_3D),
            TexShape::Cube => (w.min(h), w.min(h), 6),
        }
    }

    /// In words, for people, the texture [`Texture::from_image`] makes of a `w`×`h` image:
    /// "3D 256×256×4", "CUBE six 256×256 faces".
    pub fn describe(self, w: u32, h: u32) -> String {
        let (w, h, d) = self.extent(w, h);
        self.describe_extent(w, h, d)
    }

    /// In words, for people, a texture of this shape and level-0 size.
    pub fn describe_extent(self, w: u32, h: u32, d: u32) -> String {
        match self {
            TexShape::D1 => format!("1D {w}"),
            TexShape::D2 => format!("2D {w}×{h}"),
            TexShape::Rect => format!("RECT {w}×{h}"),
            TexShape::D3 => format!("3D {w}×{h}×{d}"),
            TexShape::Cube => format!("CUBE six {w}×{h} faces"),
        }
    }
}

/// Slices of the 3D texture made of an image (arbref's `--texture-target 3d`).
pub const SLICES_3D: u32 = 4;

/// How a texture Hoist supplies for a unit is stored and compared: what
/// [`format_for_target`] chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Storage {
    pub format: TexFormat,
    /// `TEXTURE_COMPARE_MODE`/`FUNC` of a depth texture (`None`: compare off).
    pub compare: Option<CompareFunc>,
}

impl Storage {
    /// `sampler` with this storage's compare mode (and GL's default `DEPTH_TEXTURE_MODE`).
    pub fn sampler(self, sampler: Sampler) -> Sampler {
        Sampler {
            compare: self.compare,
            ..sampler
        }
    }

    /// `t` stored this way: a depth texture of its red channel, or `t` as it is.
    pub fn apply(self, t: Texture) -> Texture {
        match self.format {
            TexFormat::Depth => {
                let mode = t.sampler.depth_mode;
                t.into_depth(self.compare, mode)
            }
            _ => t,
        }
    }

    /// In words, for people, when it is a depth texture: "depth, compare LEQUAL".
    pub fn describe(self) -> Option<String> {
        (self.format == TexFormat::Depth).then(|| match self.compare {
            Some(f) => format!("depth, compare {}", f.name().to_ascii_uppercase()),
            None => "depth, compare off".to_string(),
        })
    }
}

/// The compare function of the depth textures Hoist supplies for shadow targets: LEQUAL,
/// the usual shadow-map test (lit where the fragment's depth r is at most the stored
/// depth; GL's own default `TEXTURE_COMPARE_FUNC`).
pub const SUPPLIED_COMPARE: CompareFunc = CompareFunc::Lequal;

/// How a texture Hoist supplies (the page, `hoist render`'s patterns, validation's input
/// sets) for a unit sampled as `target` is stored, given the colour format asked for. The
/// one place where shadow targets get depth: a unit sampled through `SHADOW1D`,
/// `SHADOW2D` or `SHADOWRECT` gets a depth texture of the image's red channel (clamped to
/// [0, 1]) with compare mode on, [`SUPPLIED_COMPARE`], `DEPTH_TEXTURE_MODE` LUMINANCE, so
/// a shadow lookup returns real 0/1 results (`hoist_asm::semantics`, "Shadow fetches and
/// depth textures"); every other target gets `asked`. A scene's explicit `format` and
/// `compare` options, and `hoist render --texture-format`, override this.
pub fn format_for_target(target: TexTarget, asked: TexFormat) -> Storage {
    match target {
        TexTarget::Shadow1D | TexTarget::Shadow2D | TexTarget::ShadowRect => Storage {
            format: TexFormat::Depth,
            compare: Some(SUPPLIED_COMPARE),
        },
        _ => Storage {
            format: asked,
            compare: None,
        },
    }
}

/// One mipmap level; texels row by row from t = 0, then slice by slice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Level {
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub texels: Vec<[f32; 4]>,
}

impl Level {
    pub fn new(width: u32, height: u32, depth: u32, texels: Vec<[f32; 4]>) -> Level {
        Level {
            width,
            height,
            depth,
            texels,
        }
    }
}

/// A texture with its sampler state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Texture {
    pub shape: TexShape,
    pub format: TexFormat,
    pub levels: Vec<Level>,
    pub sampler: Sampler,
}

impl Texture {
    /// A 2D texture of one level. RGBA8 quantises each value to `round(clamp(v)·255)/255`.
    pub fn new_2d(
        width: u32,
        height: u32,
        texels: Vec<[f32; 4]>,
        format: TexFormat,
        sampler: Sampler,
    ) -> Texture {
        let mut t = Texture {
            shape: TexShape::D2,
            format,
            levels: vec![Level::new(width, height, 1, texels)],
            sampler,
        };
        t.quantize();
        t
    }

    /// A texture a `target` samples (1D: `size`×1; 2D and rectangle: `size`²; 3D: `size`³;
    /// cube: six `size`² faces), RGBA32F, texel `(x, y, z)` from `texel`; with the full
    /// mipmap chain except for rectangles.
    pub fn for_target(
        target: TexTarget,
        size: u32,
        sampler: Sampler,
        texel: &mut dyn FnMut(u32, u32, u32) -> [f32; 4],
    ) -> Texture {
        let (shape, w, h, d) = match target {
            TexTarget::T1D | TexTarget::Shadow1D => (TexShape::D1, size, 1, 1),
            TexTarget::T2D | TexTarget::Shadow2D => (TexShape::D2, size, size, 1),
            TexTarget::Rect | TexTarget::ShadowRect => (TexShape::Rect, size, size, 1),
            TexTarget::T3D => (TexShape::D3, size, size, size),
            TexTarget::Cube => (TexShape::Cube, size, size, 6),
        };
        let mut texels = Vec::with_capacity((w * h * d) as usize);
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    texels.push(texel(x, y, z));
                }
            }
        }
        let mut t = Texture {
            shape,
            format: TexFormat::Rgba32F,
            levels: vec![Level::new(w, h, d, texels)],
            sampler,
        };
        if shape != TexShape::Rect {
            t.generate_mipmaps();
        }
        t
    }

    /// The texture of `shape` made of a `W`×`H` image, texel for texel as arbref's
    /// `--texture-target` builds it (its README, "Texture targets"): 1D: `W` texels, texel
    /// x = image(x, 0); 2D and RECT: the image; 3D: `W`×`H`×4, slice z, texel (x, y) =
    /// image(x, (y + z·⌊H/4⌋) mod H); CUBE: six S×S faces (S = min(W, H)) in GL order +X,
    /// −X, +Y, −Y, +Z, −Z, face f, texel (x, y) = image((x + f·⌊S/6⌋) mod S, y). One level,
    /// stored in `format`. The caller bounds the size ([`TexShape::extent`]).
    #[inline(never)]
    pub fn from_image(
        img: &crate::image::Image,
        shape: TexShape,
        format: TexFormat,
        sampler: Sampler,
    ) -> Texture {
        let (iw, ih) = (img.width.max(1), img.height.max(1));
        let (w, h, d) = shape.extent(iw, ih);
        let at = |x: u32, y: u32| {
            img.pixels
                .get((y * img.width + x) as usize)
                .copied()
                .unwrap_or(BORDERLESS)
        };
        let texels: Vec<[f32; 4]> = match shape {
            TexShape::D2 | TexShape::Rect => img.pixels.clone(),
            TexShape::D1 => (0..w).map(|x| at(x, 0)).collect(),
            TexShape::D3 => {
                let step = ih / SLICES_3D;
                let mut v = Vec::with_capacity((w * h * d) as usize);
                for z in 0..d {
                    for y in 0..h {
                        v.extend((0..w).map(|x| at(x, (y + z * step) % ih)));
                    }
                }
                v
            }
            TexShape::Cube => {
                let step = w / 6;
                let mut v = Vec::with_capacity((w * h * d) as usize);
                for f in 0..d {
                    for y in 0..h {
                        v.extend((0..w).map(|x| at((x + f * step) % w, y)));
                    }
                }
                v
            }
        };
        let mut t = Texture {
            shape,
            format,
            levels: vec![Level::new(w, h, d, texels)],
            sampler,
        };
        t.quantize();
        t
    }

    /// Its shape and size in words ("CUBE six 8×8 faces").
    pub fn describe(&self) -> String {
        let (w, h, d) = self
            .levels
            .first()
            .map_or((0, 0, 0), |l| (l.width, l.height, l.depth));
        self.shape.describe_extent(w, h, d)
    }

    /// Whether sampling this texture with `target` reads its texels (else the unit reads
    /// as incomplete: (0, 0, 0, 1)).
    pub fn fits(&self, target: TexTarget) -> bool {
        !self.levels.is_empty() && target_fits(self, target)
    }

    /// Applies the storage format to every texel (RGBA8 quantisation; depth clamped to
    /// [0, 1] in component 0, the others zeroed).
    #[inline(never)]
    pub fn quantize(&mut self) {
        let format = self.format;
        for l in &mut self.levels {
            for t in &mut l.texels {
                match format {
                    TexFormat::Rgba8 => *t = t.map(quantize8),
                    TexFormat::Depth => {
                        *t = [hoist_asm::semantics::depth_value(t[0]), 0.0, 0.0, 0.0]
                    }
                    TexFormat::Rgba32F => {}
                }
            }
        }
    }

    /// The same texture as a depth texture (component 0 of every texel is the depth),
    /// read through `compare` and `mode`.
    pub fn into_depth(mut self, compare: Option<CompareFunc>, mode: DepthMode) -> Texture {
        self.format = TexFormat::Depth;
        self.sampler.compare = compare;
        self.sampler.depth_mode = mode;
        self.quantize();
        self
    }

    /// Adds the full mipmap chain by 2×2 (or 2×2×2) box filtering of level 0.
    #[inline(never)]
    pub fn generate_mipmaps(&mut self) {
        self.levels.truncate(1);
        let cube = self.shape == TexShape::Cube;
        loop {
            let prev = self.levels.last().expect("level 0");
            if prev.width <= 1 && prev.height <= 1 && (cube || prev.depth <= 1) {
                break;
            }
            let (w, h) = ((prev.width / 2).max(1), (prev.height / 2).max(1));
            let d = if cube {
                prev.depth
            } else {
                (prev.depth / 2).max(1)
            };
            let mut texels = Vec::with_capacity((w * h * d) as usize);
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let mut acc = [0.0f32; 4];
                        let mut n = 0.0f32;
                        let zs: &[u32] = if cube || prev.depth == 1 {
                            &[z]
                        } else {
                            &[2 * z, 2 * z + 1]
                        };
                        for &sz in zs {
                            for dy in 0..2u32 {
                                for dx in 0..2u32 {
                                    let sx = (2 * x + dx).min(prev.width - 1);
                                    let sy = (2 * y + dy).min(prev.height - 1);
                                    let t = prev.texels
                                        [((sz * prev.height + sy) * prev.width + sx) as usize];
                                    for c in 0..4 {
                                        acc[c] += t[c];
                                    }
                                    n += 1.0;
                                }
                            }
                        }
                        texels.push(acc.map(|v| v / n));
                    }
                }
            }
            self.levels.push(Level::new(w, h, d, texels));
        }
        self.quantize();
    }

    /// Bytes of texel storage.
    pub fn bytes(&self) -> u64 {
        self.levels.iter().map(|l| l.texels.len() as u64 * 16).sum()
    }
}

pub fn quantize8(v: f32) -> f32 {
    let c = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    (c * 255.0).round() / 255.0
}

const BORDERLESS: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

#[inline(always)]
fn wrap_index(i: i32, n: u32, wrap: Wrap) -> usize {
    match wrap {
        Wrap::ClampToEdge => i.clamp(0, n as i32 - 1) as usize,
        Wrap::Repeat => i.rem_euclid(n as i32) as usize,
    }
}

/// Texel index along one axis for nearest filtering of normalised coordinate `s`.
#[inline(always)]
fn nearest_index(s: f32, n: u32, wrap: Wrap, normalized: bool) -> usize {
    let u = match (wrap, normalized) {
        (Wrap::Repeat, true) => hoist_asm::semantics::frc(s) * n as f32,
        (_, true) => s * n as f32,
        (_, false) => s,
    };
    // Saturating float->int conversion: NaN gives 0, huge values clamp.
    let i = hoist_asm::semantics::floor(u).max(-1.0).min(n as f32) as i32;
    wrap_index(i, n, wrap)
}

#[inline(always)]
fn lerp(f: f32, a: f32, b: f32) -> f32 {
    a + f * (b - a)
}

fn lerp4(f: f32, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [
        lerp(f, a[0], b[0]),
        lerp(f, a[1], b[1]),
        lerp(f, a[2], b[2]),
        lerp(f, a[3], b[3]),
    ]
}

fn linear_coords(s: f32, n: u32, wrap: Wrap, normalized: bool) -> (usize, usize, f32) {
    let u = match (wrap, normalized) {
        (Wrap::Repeat, true) => hoist_asm::semantics::frc(s) * n as f32,
        (_, true) => s * n as f32,
        (_, false) => s,
    } - 0.5;
    let u = if u.is_nan() {
        0.0
    } else {
        u.clamp(-2.0, n as f32 + 1.0)
    };
    let i0 = hoist_asm::semantics::floor(u);
    let f = u - i0;
    let i0 = i0 as i32;
    (wrap_index(i0, n, wrap), wrap_index(i0 + 1, n, wrap), f)
}

/// How a fetched texel reads: as stored (colour), or a depth value expanded by the depth
/// mode, compared first against a reference when the fetch compares (see
/// [`hoist_asm::semantics`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lookup {
    Colour,
    Depth {
        compare: Option<(CompareFunc, f32)>,
        mode: DepthMode,
    },
}

impl Lookup {
    #[inline(always)]
    fn read(self, t: [f32; 4]) -> [f32; 4] {
        match self {
            Lookup::Colour => t,
            Lookup::Depth { compare, mode } => {
                let v = match compare {
                    Some((f, r)) => {
                        if f.passes(r, t[0]) {
                            1.0
                        } else {
                            0.0
                        }
                    }
                    None => t[0],
                };
                mode.expand(v)
            }
        }
    }
}

/// One texel a traced fetch read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TexelRead {
    pub level: u32,
    /// x, y and z (the slice, or the cube face) within the level.
    pub at: [u32; 3],
    /// The texel as the filter saw it (after the depth lookup).
    pub value: Vec4,
    /// Its weight in the filtered result (products of the blend fractions).
    pub weight: Bits,
}

/// What addresses and reads texels besides the coordinates and the filter.
#[derive(Clone, Copy, Debug)]
struct Access {
    wrap: Wrap,
    normalized: bool,
    look: Lookup,
}

/// Samples one level at coordinates (already divided, RECT unnormalised).
fn sample_level(
    lv: &Level,
    slice: u32,
    coords: [f32; 3],
    dims: u8,
    filter: Filter,
    acc: Access,
) -> [f32; 4] {
    let Access {
        wrap,
        normalized,
        look,
    } = acc;
    let w = lv.width.max(1);
    let h = lv.height.max(1);
    let d = lv.depth.max(1);
    let at = |x: usize, y: usize, z: usize| -> [f32; 4] {
        look.read(
            lv.texels
                .get((z * h as usize + y) * w as usize + x)
                .copied()
                .unwrap_or(BORDERLESS),
        )
    };
    match filter {
        Filter::Nearest => {
            let x = nearest_index(coords[0], w, wrap, normalized);
            let y = if dims >= 2 {
                nearest_index(coords[1], h, wrap, normalized)
            } else {
                0
            };
            let z = if dims >= 3 {
                nearest_index(coords[2], d, wrap, normalized)
            } else {
                slice as usize
            };
            at(x, y, z)
        }
        Filter::Linear => {
            let (x0, x1, fx) = linear_coords(coords[0], w, wrap, normalized);
            let (y0, y1, fy) = if dims >= 2 {
                linear_coords(coords[1], h, wrap, normalized)
            } else {
                (0, 0, 0.0)
            };
            let plane = |z: usize| {
                let a = lerp4(fx, at(x0, y0, z), at(x1, y0, z));
                if dims >= 2 {
                    let b = lerp4(fx, at(x0, y1, z), at(x1, y1, z));
                    lerp4(fy, a, b)
                } else {
                    a
                }
            };
            if dims >= 3 {
                let (z0, z1, fz) = linear_coords(coords[2], d, wrap, normalized);
                lerp4(fz, plane(z0), plane(z1))
            } else {
                plane(slice as usize)
            }
        }
    }
}

/// The texels [`sample_level`] reads at the same coordinates, each with its weight in the
/// filtered result times `weight` (the level's): the explanation of a traced fetch, built
/// from the same addressing ([`nearest_index`], [`linear_coords`]) and lookup.
#[allow(clippy::too_many_arguments)]
fn level_texels(
    lv: &Level,
    (index, weight): (usize, f32),
    slice: u32,
    coords: [f32; 3],
    dims: u8,
    filter: Filter,
    acc: Access,
    out: &mut Vec<TexelRead>,
) {
    let Access {
        wrap,
        normalized,
        look,
    } = acc;
    let (w, h, d) = (lv.width.max(1), lv.height.max(1), lv.depth.max(1));
    let mut put = |x: usize, y: usize, z: usize, wt: f32| {
        let t = lv
            .texels
            .get((z * h as usize + y) * w as usize + x)
            .copied()
            .unwrap_or(BORDERLESS);
        out.push(TexelRead {
            level: index as u32,
            at: [x as u32, y as u32, z as u32],
            value: vec4(look.read(t)),
            weight: Bits(wt * weight),
        });
    };
    // Per axis: the texels and their weights (one texel of weight 1 for nearest).
    let axis = |c: f32, n: u32, used: bool, fixed: usize| -> [(usize, f32); 2] {
        if !used {
            return [(fixed, 1.0), (fixed, 0.0)];
        }
        match filter {
            Filter::Nearest => [(nearest_index(c, n, wrap, normalized), 1.0), (0, 0.0)],
            Filter::Linear => {
                let (i0, i1, f) = linear_coords(c, n, wrap, normalized);
                [(i0, 1.0 - f), (i1, f)]
            }
        }
    };
    let xs = axis(coords[0], w, true, 0);
    let ys = axis(coords[1], h, dims >= 2, 0);
    let zs = axis(coords[2], d, dims >= 3, slice as usize);
    let taps = if filter == Filter::Nearest { 1 } else { 2 };
    let n = |used: bool| if used { taps } else { 1 };
    for &(z, wz) in &zs[..n(dims >= 3)] {
        for &(y, wy) in &ys[..n(dims >= 2)] {
            for &(x, wx) in &xs[..taps] {
                put(x, y, z, wx * wy * wz);
            }
        }
    }
}

/// Cube-map face selection (GL 2.1 table 3.21): returns face and (s, t) in [0, 1].
fn cube_face(x: f32, y: f32, z: f32) -> (u32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    (face, 0.5 * (sc / ma + 1.0), 0.5 * (tc / ma + 1.0))
}

/// `SHADOW1D`, `SHADOW2D` or `SHADOWRECT`.
pub fn is_shadow(target: TexTarget) -> bool {
    matches!(
        target,
        TexTarget::Shadow1D | TexTarget::Shadow2D | TexTarget::ShadowRect
    )
}

fn target_fits(tex: &Texture, target: TexTarget) -> bool {
    tex.shape.fits(target)
}

impl TexShape {
    /// Whether a lookup with `target` reads a texture of this shape (else it reads GL's
    /// incomplete texture, (0, 0, 0, 1)).
    pub fn fits(self, target: TexTarget) -> bool {
        shape_fits(self, target)
    }
}

fn shape_fits(shape: TexShape, target: TexTarget) -> bool {
    matches!(
        (shape, target),
        (TexShape::D1 | TexShape::D2, TexTarget::T1D | TexTarget::T2D)
            | (TexShape::Rect, TexTarget::Rect)
            | (TexShape::D2, TexTarget::Rect)
            | (TexShape::D3, TexTarget::T3D)
            | (TexShape::Cube, TexTarget::Cube)
            | (
                TexShape::D1 | TexShape::D2,
                TexTarget::Shadow1D | TexTarget::Shadow2D
            )
            | (TexShape::Rect | TexShape::D2, TexTarget::ShadowRect)
    )
}

/// What a fetch of `target` from `tex` needs besides its coordinates.
#[derive(Clone, Copy)]
struct Prep {
    depth: bool,
    compare: Option<CompareFunc>,
    normalized: bool,
    dims: u8,
    nlev: usize,
}

impl Prep {
    fn of(tex: &Texture, target: TexTarget) -> Prep {
        let smp = tex.sampler;
        let depth = tex.format == TexFormat::Depth;
        let normalized = !matches!(target, TexTarget::Rect | TexTarget::ShadowRect);
        Prep {
            depth,
            compare: smp.compare.filter(|_| depth && is_shadow(target)),
            normalized,
            dims: match target {
                TexTarget::T1D | TexTarget::Shadow1D => 1,
                TexTarget::T3D | TexTarget::Cube => 3,
                _ => 2,
            },
            nlev: if !normalized || smp.mip == MipFilter::None {
                1
            } else {
                tex.levels.len()
            },
        }
    }
}

/// The texture a fetch reads, or `None` for GL's incomplete texture.
fn complete(tex: Option<&Texture>, target: TexTarget) -> Option<&Texture> {
    tex.filter(|t| !t.levels.is_empty() && target_fits(t, target))
}

/// `TXP`'s divided coordinates, or `None` when the fetch reads `coord` as it is.
fn project(kind: TexKind, coord: [&Row; 4]) -> Option<[Row; 3]> {
    (kind == TexKind::Txp).then(|| {
        let mut proj = [[0.0f32; LANES]; 3];
        let q = coord[3];
        for c in 0..3 {
            for l in 0..LANES {
                proj[c][l] = coord[c][l] / q[l];
            }
        }
        proj
    })
}

/// Samples a texture for one batch. `coord` holds the four coordinate rows, `grads` the
/// explicit derivatives of `texldd`. Writes RGBA into `out`.
pub fn sample_batch(
    tex: Option<&Texture>,
    kind: TexKind,
    target: TexTarget,
    coord: [&Row; 4],
    grads: Option<([&Row; 4], [&Row; 4])>,
    quads: bool,
    out: [&mut Row; 4],
) {
    let mut out = out;
    let Some(tex) = complete(tex, target) else {
        for (c, o) in out.iter_mut().enumerate() {
            **o = [BORDERLESS[c]; LANES];
        }
        return;
    };
    let smp = tex.sampler;
    let pr = Prep::of(tex, target);
    let base = &tex.levels[0];
    let proj = project(kind, coord);
    let cs: [&Row; 3] = match &proj {
        Some(p) => [&p[0], &p[1], &p[2]],
        None => [coord[0], coord[1], coord[2]],
    };

    // Fast path: 2D, one filter, no mipmaps, clamp, nearest.
    let single = smp.mip == MipFilter::None || tex.levels.len() == 1 || !pr.normalized;
    if single
        && smp.min == smp.mag
        && smp.min == Filter::Nearest
        && target == TexTarget::T2D
        && tex.shape == TexShape::D2
        && smp.wrap == Wrap::ClampToEdge
        && base.depth == 1
        && !pr.depth
    {
        nearest_2d(base, cs, out);
        return;
    }
    let lambda = lod(tex, kind, target, pr.dims, pr.nlev, coord, cs, grads, quads);
    for l in 0..LANES {
        let v = sample_lane(tex, target, pr, [cs[0][l], cs[1][l], cs[2][l]], lambda[l]);
        for c in 0..4 {
            out[c][l] = v[c];
        }
    }
}

/// Where one lane of a fetch reads: the cube face (or slice 0), the coordinates within
/// it, the dimensions addressed and the access (wrap, normalisation, depth lookup).
#[inline(always)]
fn lane_access(
    tex: &Texture,
    target: TexTarget,
    pr: Prep,
    c3: [f32; 3],
) -> (u32, [f32; 3], u8, Access) {
    let smp = tex.sampler;
    let [mut x, mut y, mut z] = c3;
    let look = if pr.depth {
        Lookup::Depth {
            compare: pr.compare.map(|f| (f, hoist_asm::semantics::shadow_ref(z))),
            mode: smp.depth_mode,
        }
    } else {
        Lookup::Colour
    };
    let acc = Access {
        wrap: smp.wrap,
        normalized: pr.normalized,
        look,
    };
    let mut slice = 0;
    if target == TexTarget::Cube {
        let (f, s, t) = cube_face(x, y, z);
        slice = f;
        x = s;
        y = t;
        z = 0.0;
    }
    let dims_eff = if target == TexTarget::Cube {
        2
    } else {
        pr.dims
    };
    (slice, [x, y, z], dims_eff, acc)
}

/// One lane of a fetch at divided coordinates `c3` and level of detail `lam`.
#[inline(always)]
fn sample_lane(tex: &Texture, target: TexTarget, pr: Prep, c3: [f32; 3], lam: f32) -> [f32; 4] {
    let (slice, c, dims_eff, acc) = lane_access(tex, target, pr, c3);
    filtered(tex, lam, pr.nlev, slice, c, dims_eff, acc)
}

/// What one lane of a fetch read: for the pixel debugger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchTrace {
    /// The coordinates after `TXP`'s division (RECT unnormalised).
    pub coords: [Bits; 3],
    /// The level of detail λ (bias included; 0 when the filter needs none).
    pub lod: Bits,
    /// The cube face (0..5: +x, -x, +y, -y, +z, -z), for cube fetches.
    pub face: Option<u32>,
    /// The texels read with their weights; empty for an incomplete texture.
    pub texels: Vec<TexelRead>,
    /// The texture is incomplete (missing, or of a shape the target does not read): the
    /// fetch returns (0, 0, 0, 1).
    pub incomplete: bool,
    /// The filtered result.
    pub value: Vec4,
}

/// Lane `lane` of [`sample_batch`] over the same rows: the value from the same code path
/// (level of detail from the same quad), and the texels it reads with their weights
/// ([`level_texels`]).
pub fn explain(
    tex: Option<&Texture>,
    kind: TexKind,
    target: TexTarget,
    coord: [&Row; 4],
    grads: Option<([&Row; 4], [&Row; 4])>,
    quads: bool,
    lane: usize,
) -> FetchTrace {
    let proj = project(kind, coord);
    let cs: [&Row; 3] = match &proj {
        Some(p) => [&p[0], &p[1], &p[2]],
        None => [coord[0], coord[1], coord[2]],
    };
    let c3 = [cs[0][lane], cs[1][lane], cs[2][lane]];
    let Some(tex) = complete(tex, target) else {
        return FetchTrace {
            coords: c3.map(Bits),
            lod: Bits(0.0),
            face: None,
            texels: Vec::new(),
            incomplete: true,
            value: vec4(BORDERLESS),
        };
    };
    let pr = Prep::of(tex, target);
    let lambda = lod(tex, kind, target, pr.dims, pr.nlev, coord, cs, grads, quads);
    let value = sample_lane(tex, target, pr, c3, lambda[lane]);
    let (slice, c, dims_eff, acc) = lane_access(tex, target, pr, c3);
    let acc = face_access(tex, acc);
    let (filter, levels, n) = level_choice(tex, lambda[lane], pr.nlev);
    let mut texels = Vec::new();
    for &(i, w) in &levels[..n] {
        level_texels(
            &tex.levels[i],
            (i, w),
            slice,
            c,
            dims_eff,
            filter,
            acc,
            &mut texels,
        );
    }
    FetchTrace {
        coords: c3.map(Bits),
        lod: Bits(lambda[lane]),
        face: (target == TexTarget::Cube).then(|| cube_face(c3[0], c3[1], c3[2]).0),
        texels,
        incomplete: false,
        value: vec4(value),
    }
}

/// Nearest sampling of a 2D texture clamped to its edge, the common GPGPU case: index
/// arithmetic on whole rows, then one 16-byte load per lane and a de-interleave.
#[inline(always)]
fn nearest_2d(base: &Level, cs: [&Row; 3], out: [&mut Row; 4]) {
    let mut out = out;
    let (w, h) = (base.width.max(1), base.height.max(1));
    let (wf, hf) = (w as f32, h as f32);
    let (wm, hm) = ((w - 1) as f32, (h - 1) as f32);
    let mut idx = [0u32; LANES];
    if u64::from(w) * u64::from(h) < 1 << 23 {
        for l in 0..LANES {
            let x = hoist_asm::semantics::floor(cs[0][l] * wf).max(0.0).min(wm);
            let y = hoist_asm::semantics::floor(cs[1][l] * hf).max(0.0).min(hm);
            idx[l] = hoist_asm::semantics::small_int(y * wf + x);
        }
    } else {
        for l in 0..LANES {
            let x = hoist_asm::semantics::floor(cs[0][l] * wf).max(0.0).min(wm) as u32;
            let y = hoist_asm::semantics::floor(cs[1][l] * hf).max(0.0).min(hm) as u32;
            idx[l] = y * w + x;
        }
    }
    let n = base.texels.len().min((w * h) as usize);
    let Some(last) = n.checked_sub(1) else {
        for (c, o) in out.iter_mut().enumerate() {
            **o = [BORDERLESS[c]; LANES];
        }
        return;
    };
    let (texels, last) = (&base.texels[..n], last as u32);
    let mut aos = [[0.0f32; 4]; LANES];
    for l in 0..LANES {
        aos[l] = texels[idx[l].min(last) as usize];
    }
    // De-interleave (vectorises as shuffles).
    let [o0, o1, o2, o3] = out;
    for l in 0..LANES {
        o0[l] = aos[l][0];
        o1[l] = aos[l][1];
        o2[l] = aos[l][2];
        o3[l] = aos[l][3];
    }
}

/// The level of detail of every lane: given (`texldl`), from explicit gradients
/// (`texldd`), or from the quad's differences, plus the `TXB` bias.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lod(
    tex: &Texture,
    kind: TexKind,
    target: TexTarget,
    dims: u8,
    nlev: usize,
    coord: [&Row; 4],
    cs: [&Row; 3],
    grads: Option<([&Row; 4], [&Row; 4])>,
    quads: bool,
) -> [f32; LANES] {
    let smp = tex.sampler;
    let base = &tex.levels[0];
    let needs_lambda = nlev > 1 || smp.min != smp.mag;
    let mut lambda = [0.0f32; LANES];
    if needs_lambda {
        let scale = [base.width as f32, base.height as f32, base.depth as f32];
        let rho_of = |dx: [f32; 3], dy: [f32; 3]| -> f32 {
            let mut sx = 0.0;
            let mut sy = 0.0;
            for c in 0..dims.min(3) as usize {
                let k = if target == TexTarget::Cube {
                    scale[0]
                } else {
                    scale[c]
                };
                sx += (dx[c] * k) * (dx[c] * k);
                sy += (dy[c] * k) * (dy[c] * k);
            }
            sx.sqrt().max(sy.sqrt())
        };
        match (kind, grads) {
            (TexKind::Lod, _) => lambda = *coord[3],
            (TexKind::Grad, Some((gx, gy))) => {
                for l in 0..LANES {
                    let dx = [gx[0][l], gx[1][l], gx[2][l]];
                    let dy = [gy[0][l], gy[1][l], gy[2][l]];
                    lambda[l] = libm::log2f(rho_of(dx, dy));
                }
            }
            _ if quads => {
                for q in (0..LANES).step_by(4) {
                    let mut dx = [0.0; 3];
                    let mut dy = [0.0; 3];
                    for c in 0..3 {
                        dx[c] = cs[c][q + 1] - cs[c][q];
                        dy[c] = cs[c][q + 2] - cs[c][q];
                    }
                    let lam = libm::log2f(rho_of(dx, dy));
                    lambda[q..q + 4].fill(lam);
                }
            }
            _ => {}
        }
        if kind == TexKind::Txb {
            for l in 0..LANES {
                lambda[l] += coord[3][l];
            }
        }
    } else if kind == TexKind::Lod {
        lambda = *coord[3];
    }
    lambda
}

/// The access of a fetch from `tex`: cube faces clamp to their edges whatever the wrap mode
/// (llvmpipe, seamless filtering off: a face's neighbour texels are never its own opposite
/// edge).
#[inline(always)]
fn face_access(tex: &Texture, acc: Access) -> Access {
    if tex.shape == TexShape::Cube {
        Access {
            wrap: Wrap::ClampToEdge,
            ..acc
        }
    } else {
        acc
    }
}

/// The filter and the levels (with their weights, the first `n`) a lookup at level of
/// detail `lam` reads: magnification, one level, or two mipmap levels blended.
#[inline(always)]
fn level_choice(tex: &Texture, lam: f32, nlev: usize) -> (Filter, [(usize, f32); 2], usize) {
    let smp = tex.sampler;
    let c_switch = if smp.mag == Filter::Linear && smp.mip == MipFilter::Nearest {
        0.5
    } else {
        0.0
    };
    let maxlev = (nlev - 1) as f32;
    let one = |i: usize| [(i, 1.0), (i, 0.0)];
    if !(lam > c_switch) {
        return (smp.mag, one(0), 1);
    }
    if nlev == 1 {
        return (smp.min, one(0), 1);
    }
    match smp.mip {
        MipFilter::None => (smp.min, one(0), 1),
        MipFilter::Nearest => {
            let d = if lam <= 0.5 {
                0.0
            } else {
                ((lam + 0.5).ceil() - 1.0).min(maxlev)
            };
            (smp.min, one(d.max(0.0) as usize), 1)
        }
        MipFilter::Linear => {
            let lam = lam.min(maxlev);
            let d1 = lam.floor().max(0.0);
            let d2 = (d1 + 1.0).min(maxlev);
            let f = lam - d1;
            if f > 0.0 && d2 > d1 {
                (smp.min, [(d1 as usize, 1.0 - f), (d2 as usize, f)], 2)
            } else {
                (smp.min, one(d1 as usize), 1)
            }
        }
    }
}

/// One lane's filtered texel at level of detail `lam` (magnification, one level, or
/// between mipmap levels).
#[inline(always)]
fn filtered(
    tex: &Texture,
    lam: f32,
    nlev: usize,
    slice: u32,
    c3: [f32; 3],
    dims_eff: u8,
    acc: Access,
) -> [f32; 4] {
    let acc = face_access(tex, acc);
    let (filter, lv, n) = level_choice(tex, lam, nlev);
    let a = sample_level(&tex.levels[lv[0].0], slice, c3, dims_eff, filter, acc);
    if n == 2 {
        let b = sample_level(&tex.levels[lv[1].0], slice, c3, dims_eff, filter, acc);
        lerp4(lv[1].1, a, b)
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: [f32; 4]) -> [Row; 4] {
        v.map(|x| [x; LANES])
    }

    fn refs(o: &mut [Row; 4]) -> [&mut Row; 4] {
        let [a, b, c, d] = o;
        [a, b, c, d]
    }

    #[test]
    fn nearest_clamp_and_repeat() {
        let texels: Vec<[f32; 4]> = (0..4).map(|i| [i as f32, 0.0, 0.0, 1.0]).collect();
        let mut t = Texture::new_2d(4, 1, texels, TexFormat::Rgba32F, Sampler::default());
        let c = rows([1.3, 0.5, 0.0, 1.0]);
        let mut out = [[0.0; LANES]; 4];
        sample_batch(
            Some(&t),
            TexKind::Tex,
            TexTarget::T2D,
            [&c[0], &c[1], &c[2], &c[3]],
            None,
            true,
            refs(&mut out),
        );
        assert_eq!(out[0][0], 3.0);
        t.sampler.wrap = Wrap::Repeat;
        sample_batch(
            Some(&t),
            TexKind::Tex,
            TexTarget::T2D,
            [&c[0], &c[1], &c[2], &c[3]],
            None,
            true,
            refs(&mut out),
        );
        assert_eq!(out[0][0], 1.0);
    }

    #[test]
    fn bilinear_blends_neighbours_and_missing_unit_is_black_opaque() {
        let texels = vec![[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]];
        let t = Texture::new_2d(
            2,
            1,
            texels,
            TexFormat::Rgba32F,
            Sampler::new(Filter::Linear, Wrap::ClampToEdge),
        );
        let c = rows([0.5, 0.5, 0.0, 1.0]);
        let mut out = [[0.0; LANES]; 4];
        sample_batch(
            Some(&t),
            TexKind::Tex,
            TexTarget::T2D,
            [&c[0], &c[1], &c[2], &c[3]],
            None,
            true,
            refs(&mut out),
        );
        assert_eq!(out[0][0], 0.5);
        sample_batch(
            None,
            TexKind::Tex,
            TexTarget::T2D,
            [&c[0], &c[1], &c[2], &c[3]],
            None,
            true,
            refs(&mut out),
        );
        assert_eq!(
            [out[0][0], out[1][0], out[2][0], out[3][0]],
            [0.0, 0.0, 0.0, 1.0]
        );
    }

    /// arbref's README, "Texture targets", texel by texel, on a non-square image.
    #[test]
    fn shapes_take_the_texels_arbref_gives_them() {
        let img = crate::pattern::generate(&crate::pattern::Pattern::Noise(3), 13, 9);
        let at = |x: u32, y: u32| img.pixels[(y * 13 + x) as usize];
        let make = |s| Texture::from_image(&img, s, TexFormat::Rgba32F, Sampler::default());
        let texel = |t: &Texture, x: u32, y: u32, z: u32| {
            let l = &t.levels[0];
            l.texels[((z * l.height + y) * l.width + x) as usize]
        };
        let d1 = make(TexShape::D1);
        assert_eq!((d1.levels[0].width, d1.levels[0].height), (13, 1));
        assert!((0..13).all(|x| texel(&d1, x, 0, 0) == at(x, 0)));
        for s in [TexShape::D2, TexShape::Rect] {
            let t = make(s);
            assert_eq!(t.shape, s);
            assert_eq!(t.levels[0].texels, img.pixels);
        }
        let d3 = make(TexShape::D3);
        let l = &d3.levels[0];
        assert_eq!((l.width, l.height, l.depth), (13, 9, 4));
        for z in 0..4 {
            for y in 0..9 {
                for x in 0..13 {
                    assert_eq!(texel(&d3, x, y, z), at(x, (y + z * 2) % 9));
                }
            }
        }
        let cube = make(TexShape::Cube);
        let l = &cube.levels[0];
        assert_eq!((l.width, l.height, l.depth), (9, 9, 6));
        for f in 0..6 {
            for y in 0..9 {
                for x in 0..9 {
                    assert_eq!(texel(&cube, x, y, f), at((x + f) % 9, y));
                }
            }
        }
        assert_eq!(TexShape::Cube.describe(13, 9), "CUBE six 9×9 faces");
        assert_eq!(TexShape::from_name("CUBE"), Some(TexShape::Cube));
        assert_eq!(TexShape::of_target(TexTarget::Shadow2D), TexShape::D2);
        assert!(cube.fits(TexTarget::Cube) && !cube.fits(TexTarget::T2D));
    }

    /// Linear filtering at a cube face's edge reads the edge texel again, even with repeat
    /// (llvmpipe: no wrap onto the face's opposite edge).
    #[test]
    fn cube_faces_clamp_to_their_edges() {
        let img = crate::image::Image {
            width: 2,
            height: 2,
            pixels: vec![[0.0; 4], [1.0; 4], [0.0; 4], [1.0; 4]],
        };
        let sample = |wrap| {
            let smp = Sampler::new(Filter::Linear, wrap);
            let t = Texture::from_image(&img, TexShape::Cube, TexFormat::Rgba32F, smp);
            // +Z face, s = 1 (its right edge: texel x = 1 of the first face).
            let c = rows([0.999_999, 0.0, 1.0, 1.0]);
            let mut out = [[0.0; LANES]; 4];
            sample_batch(
                Some(&t),
                TexKind::Tex,
                TexTarget::Cube,
                [&c[0], &c[1], &c[2], &c[3]],
                None,
                true,
                refs(&mut out),
            );
            out[0][0]
        };
        assert_eq!(sample(Wrap::ClampToEdge), 1.0);
        assert_eq!(sample(Wrap::Repeat), 1.0);
    }

    #[test]
    fn cube_faces_follow_the_gl_table() {
        assert_eq!(cube_face(1.0, 0.0, 0.0), (0, 0.5, 0.5));
        assert_eq!(cube_face(0.0, -1.0, 0.0).0, 3);
        assert_eq!(cube_face(0.0, 0.0, -2.0).0, 5);
    }
}

//! Scalar semantics of every arithmetic operation, one function per spec rule: the
//! executor and the optimizer's constant folding both evaluate through this module.
//!
//! The executor applies these lane by lane. Every transcendental goes through `libm`, so a
//! native build and a wasm build compute bit-identical results; exactly rounded operations
//! (`floor`, `sqrt`, `round`) use the core intrinsics, which are exact on every target and
//! vectorise. Nothing here uses fused multiply-add (Rust never contracts `a * b + c`).
//!
//! Where the two dialects disagree the function takes the [`Dialect`]:
//! - ARB (`ARB_vertex_program` 2.14.5, `ARB_fragment_program` 3.11.5): IEEE results, so
//!   `RCP(0) = +inf`, `RSQ(0) = +inf`, `LG2(0) = -inf`.
//! - Direct3D 9 (the pseudocode of the "rcp - vs", "rsq - vs", "log - vs", "logp - vs",
//!   "nrm - vs" pages): a zero input gives `FLT_MAX` (`-FLT_MAX` for the logarithms), and
//!   `rcp(1)`/`rsq(1)` are exactly 1.
//!
//! Negative inputs, where ARB leaves results undefined, follow what real implementations
//! give (measured with Mesa llvmpipe and an NVIDIA GPU, `../shared/notes/executor-fidelity.md`):
//! - `RSQ` takes `|x|` in both dialects; so do D3D9's `log`/`logp`/`pow` (its pages say so)
//!   and ARB's `LOG` (the spec's `fabs`).
//! - ARB `LG2` of a negative number is NaN (both implementations agree).
//! - ARB `POW` of a negative base is C's `pow`: NaN for a non-integer exponent (both agree),
//!   the signed power for an integer one (`POW(-2, 3) = -8`, `POW(-0.5, 2) = 0.25`). Here the
//!   two disagree: llvmpipe computes `pow`, the NVIDIA GPU `EX2(y·LG2(x))`, which is NaN for
//!   every negative base. Hoist follows llvmpipe, its differential oracle.
//! - Denormal inputs and results are kept, as llvmpipe keeps them (the GPU flushes them to
//!   zero: `LG2(1e-38)` is −126.2 here, −inf there).
//!
//! # Shadow fetches and depth textures
//!
//! What a fetch returns from a depth texture, with and without compare mode, and what a
//! shadow target (`ARB_fragment_program_shadow`: `SHADOW1D`, `SHADOW2D`, `SHADOWRECT`)
//! returns from a colour texture. This is the one place these rules are written; the
//! sampler (`hoist_raster::texture`) calls [`shadow_ref`], [`CompareFunc::passes`] and
//! [`DepthMode::expand`], and both executors run that sampler.
//! - **Colour texture, shadow target**: an ordinary fetch of the same texture; the
//!   reference coordinate is ignored. Measured with llvmpipe (`arbref`): `TEX r, c,
//!   texture[0], SHADOW2D` renders bit for bit what `2D` renders, and likewise `SHADOW1D`
//!   against `1D` and `SHADOWRECT` against `RECT`, nearest and linear. (Mesa's state
//!   tracker, `st_convert_sampler`, turns compare mode on only for a texture whose base
//!   format is `DEPTH_COMPONENT`/`DEPTH_STENCIL`, so the sampler never compares.)
//! - **Depth texture** (one value D in [0, 1] per texel): every texel reads as
//!   [`DepthMode::expand`] of a value v, with v = D, or with compare mode on *and* a shadow
//!   target, v = [`CompareFunc::passes`]`(R, D)` as 1 or 0, R = [`shadow_ref`] of the
//!   coordinate's r (z), after the `TXP` division. The texels are compared first and the
//!   0/1 results filtered (nearest: one texel; linear: the bilinear blend of the four
//!   comparisons, then the mipmap blend), as llvmpipe's gallivm sampler does
//!   (`lp_bld_sample_soa.c`: `lp_build_sample_comparefunc` on each fetched texel before
//!   `lp_build_masklerp2d`; R clamped to [0, 1] for a non-float depth format; the result
//!   replicated to four channels, then the view's swizzle). GL 2.1 §3.8.14 (texture
//!   comparison modes): `r = 1` when `R op D` holds, else 0, and the result is used in
//!   place of D under `DEPTH_TEXTURE_MODE`. Compare mode on a non-shadow target (D3D9's
//!   fetches, ARB `1D`/`2D`/`RECT`) is ignored: GL leaves it undefined, and Mesa's texture
//!   handles refuse that mix (llvmpipe's `lp_texture_handle.c`,
//!   `compile_sample_function`), so a fetch reads D.
//! - **`DEPTH_TEXTURE_MODE`** (GL 2.1 table 3.20; `ARB_depth_texture`, `ARB_shadow`):
//!   `LUMINANCE` (the default) gives (v, v, v, 1), `INTENSITY` (v, v, v, v), `ALPHA`
//!   (0, 0, 0, v); `RED` (GL 3.0's core rule) (v, 0, 0, 1).
//! - **What Hoist supplies** (the page, `hoist render`'s patterns, validation's input
//!   sets; `hoist_raster::texture::format_for_target`): a unit sampled through a shadow
//!   target gets a depth texture of its image's red channel with compare mode on, LEQUAL
//!   (GL's default `TEXTURE_COMPARE_FUNC`), `LUMINANCE`, so its lookups return 0 or 1 (a
//!   filtered blend of them with linear filtering). Scenes say what they bind.

use crate::profile::Dialect;

pub const FLT_MAX: f32 = f32::MAX;

/// `TEXTURE_COMPARE_FUNC`: the shadow test `R op D` of a reference R against a depth D.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum CompareFunc {
    Never,
    Less,
    Equal,
    #[default]
    Lequal,
    Greater,
    NotEqual,
    Gequal,
    Always,
}

impl CompareFunc {
    pub const ALL: [CompareFunc; 8] = [
        CompareFunc::Never,
        CompareFunc::Less,
        CompareFunc::Equal,
        CompareFunc::Lequal,
        CompareFunc::Greater,
        CompareFunc::NotEqual,
        CompareFunc::Gequal,
        CompareFunc::Always,
    ];

    /// Whether `r op d` holds (ordered comparisons; `NotEqual` is unordered, as llvmpipe's).
    #[inline(always)]
    pub fn passes(self, r: f32, d: f32) -> bool {
        match self {
            CompareFunc::Never => false,
            CompareFunc::Less => r < d,
            CompareFunc::Equal => r == d,
            CompareFunc::Lequal => r <= d,
            CompareFunc::Greater => r > d,
            CompareFunc::NotEqual => r != d,
            CompareFunc::Gequal => r >= d,
            CompareFunc::Always => true,
        }
    }

    /// GL's name without the prefix, lower case (`lequal`), as scenes write it.
    pub fn name(self) -> &'static str {
        match self {
            CompareFunc::Never => "never",
            CompareFunc::Less => "less",
            CompareFunc::Equal => "equal",
            CompareFunc::Lequal => "lequal",
            CompareFunc::Greater => "greater",
            CompareFunc::NotEqual => "notequal",
            CompareFunc::Gequal => "gequal",
            CompareFunc::Always => "always",
        }
    }

    pub fn from_name(s: &str) -> Option<CompareFunc> {
        CompareFunc::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
    }
}

/// `DEPTH_TEXTURE_MODE`: how a depth texel's value becomes RGBA.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum DepthMode {
    #[default]
    Luminance,
    Intensity,
    Alpha,
    Red,
}

impl DepthMode {
    pub const ALL: [DepthMode; 4] = [
        DepthMode::Luminance,
        DepthMode::Intensity,
        DepthMode::Alpha,
        DepthMode::Red,
    ];

    #[inline(always)]
    pub fn expand(self, v: f32) -> [f32; 4] {
        match self {
            DepthMode::Luminance => [v, v, v, 1.0],
            DepthMode::Intensity => [v, v, v, v],
            DepthMode::Alpha => [0.0, 0.0, 0.0, v],
            DepthMode::Red => [v, 0.0, 0.0, 1.0],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DepthMode::Luminance => "luminance",
            DepthMode::Intensity => "intensity",
            DepthMode::Alpha => "alpha",
            DepthMode::Red => "red",
        }
    }

    pub fn from_name(s: &str) -> Option<DepthMode> {
        DepthMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
    }
}

/// A depth texel as stored: clamped to [0, 1], NaN as 0 (a fixed-point depth format).
#[inline(always)]
pub fn depth_value(d: f32) -> f32 {
    if d > 0.0 {
        if d < 1.0 { d } else { 1.0 }
    } else {
        0.0
    }
}

/// The shadow reference R: the coordinate clamped to [0, 1] (a fixed-point depth format),
/// NaN as 0.
#[inline(always)]
pub fn shadow_ref(r: f32) -> f32 {
    depth_value(r)
}

/// `_SAT`: NaN and −0 give +0. Written with comparisons: `x.max(0.0).min(1.0)` gave −0 for
/// −0 in unoptimised builds and +0 in optimised ones (`f32::max` leaves the sign of equal
/// zeros unspecified), and the compiled kernels must match one definite answer.
#[inline(always)]
pub fn sat(x: f32) -> f32 {
    if x > 0.0 {
        if x < 1.0 { x } else { 1.0 }
    } else {
        0.0
    }
}

/// `MAX`/`max`: `b` when `b > a` or `a` is NaN, else `a` (the first operand on a tie, so
/// `max(+0, -0)` is +0 and `max(-0, +0)` is -0). Written with a comparison: `f32::max`
/// leaves the sign of equal zeros unspecified, and its result changed with the build (a
/// fuzzing build of the interpreter gave -0 where the release build and the compiled
/// kernels give +0).
#[inline(always)]
pub fn max(a: f32, b: f32) -> f32 {
    if b > a || a.is_nan() { b } else { a }
}

/// `MIN`/`min`: `b` when `b < a` or `a` is NaN, else `a` (see [`max`]).
#[inline(always)]
pub fn min(a: f32, b: f32) -> f32 {
    if b < a || a.is_nan() { b } else { a }
}

/// `floor`, exact for every input, written so that it vectorises on baseline x86-64
/// (SSE2 has no rounding instruction and `f32::floor` becomes a libm call there): values
/// of magnitude ≥ 2^23, infinities and NaN are already integral and returned as they are.
#[inline(always)]
pub fn floor(x: f32) -> f32 {
    // Targets with a rounding instruction (SSE4.1, wasm, AArch64) use it: the result is the
    // same exact floor either way.
    #[cfg(any(
        target_arch = "wasm32",
        target_arch = "aarch64",
        target_feature = "sse4.1"
    ))]
    return x.floor();
    #[cfg(not(any(
        target_arch = "wasm32",
        target_arch = "aarch64",
        target_feature = "sse4.1"
    )))]
    floor_portable(x)
}

/// The floor of [`floor`] for targets without a rounding instruction (public for tests).
#[inline(always)]
pub fn floor_portable(x: f32) -> f32 {
    if x.abs() < 8_388_608.0 {
        // Adding and subtracting 2^23 rounds to an integer (IEEE round-to-nearest).
        let m = 8_388_608.0f32.copysign(x);
        let t = (x + m) - m;
        let t = if t > x { t - 1.0 } else { t };
        t.copysign(x)
    } else {
        x
    }
}

/// Converts an integral value in `0.0..2^23` to `u32` with float arithmetic only (the
/// bits of `v + 2^23` hold `v` in the mantissa), which vectorises where a saturating
/// float-to-int conversion does not.
#[inline(always)]
pub fn small_int(v: f32) -> u32 {
    (v + 8_388_608.0).to_bits() & 0x7F_FFFF
}

#[inline(always)]
pub fn frc(x: f32) -> f32 {
    x - floor(x)
}

#[inline(always)]
pub fn rcp(x: f32, d: Dialect) -> f32 {
    match d {
        Dialect::Arb => 1.0 / x,
        Dialect::D3d9 => {
            if x == 0.0 {
                FLT_MAX
            } else if x == 1.0 {
                1.0
            } else {
                1.0 / x
            }
        }
    }
}

#[inline(always)]
pub fn rsq(x: f32, d: Dialect) -> f32 {
    let a = x.abs();
    match d {
        Dialect::Arb => 1.0 / a.sqrt(),
        Dialect::D3d9 => {
            if a == 0.0 {
                FLT_MAX
            } else if a == 1.0 {
                1.0
            } else {
                1.0 / a.sqrt()
            }
        }
    }
}

#[inline(always)]
pub fn ex2(x: f32) -> f32 {
    libm::exp2f(x)
}

/// `LG2`/`log`: D3D9 ignores the sign and gives `-FLT_MAX` for zero; ARB gives NaN for a
/// negative input and `-inf` for either zero.
#[inline(always)]
pub fn lg2(x: f32, d: Dialect) -> f32 {
    match d {
        Dialect::D3d9 if x == 0.0 => -FLT_MAX,
        Dialect::D3d9 => libm::log2f(x.abs()),
        Dialect::Arb => libm::log2f(x),
    }
}

/// `POW`/`pow` (`0^0 = 1`, as the piglit LIT test relies on): D3D9 `|base| ^ exponent`;
/// ARB C's `pow`, signed for integer exponents of a negative base and NaN otherwise.
#[inline(always)]
pub fn pow(base: f32, e: f32, d: Dialect) -> f32 {
    match d {
        Dialect::D3d9 => libm::powf(base.abs(), e),
        Dialect::Arb => libm::powf(base, e),
    }
}

#[inline(always)]
pub fn sin(x: f32) -> f32 {
    libm::sinf(x)
}

#[inline(always)]
pub fn cos(x: f32) -> f32 {
    libm::cosf(x)
}

/// `sgn`: -1, 0 or 1 (NaN gives 0).
#[inline(always)]
pub fn sgn(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// D3D9 `mova`: round to nearest, halfway cases away from zero.
#[inline(always)]
pub fn round_nearest(x: f32) -> f32 {
    x.round()
}

/// `LIT`. ARB: x and y are clamped to 0, w to ±(128 - 1/256), and `z = x > 0 ? y^w : 0`
/// (so `y = 0, w = 0` gives 1). D3D9: `z = (x > 0 && y > 0) ? y^w : 0`, same clamp of w.
pub fn lit(s: [f32; 4], d: Dialect) -> [f32; 4] {
    const MAXPOWER: f32 = 127.996_09;
    let w = s[3].clamp(-MAXPOWER, MAXPOWER);
    let w = if s[3].is_nan() { 0.0 } else { w };
    match d {
        Dialect::Arb => {
            // Comparisons rather than `max(0.0)`, so −0 gives +0 in every build.
            let x = if s[0] > 0.0 { s[0] } else { 0.0 };
            let y = if s[1] > 0.0 { s[1] } else { 0.0 };
            let z = if x > 0.0 { libm::powf(y, w) } else { 0.0 };
            [1.0, x, z, 1.0]
        }
        Dialect::D3d9 => {
            let mut r = [1.0, 0.0, 0.0, 1.0];
            if s[0] > 0.0 {
                r[1] = s[0];
                if s[1] > 0.0 {
                    r[2] = libm::powf(s[1], w);
                }
            }
            r
        }
    }
}

/// ARB `EXP` and vs_1_1 `expp`: `(2^floor(x), x - floor(x), 2^x, 1)`.
pub fn exp_partial(x: f32) -> [f32; 4] {
    let f = floor(x);
    [libm::exp2f(f), x - f, libm::exp2f(x), 1.0]
}

/// ARB `LOG`: `(floor(log2|x|), |x| / 2^floor(log2|x|), log2|x|, 1)`, the first two exact
/// (exponent and mantissa in [1, 2)). Zero gives `(-inf, 0, -inf, 1)`; inf gives
/// `(inf, inf, inf, 1)`; NaN propagates.
pub fn log_partial(x: f32) -> [f32; 4] {
    let a = x.abs();
    if a == 0.0 {
        return [f32::NEG_INFINITY, 0.0, f32::NEG_INFINITY, 1.0];
    }
    if !a.is_finite() {
        return [a, a, a, 1.0];
    }
    let (m, e) = libm::frexpf(a);
    [(e - 1) as f32, m * 2.0, libm::log2f(a), 1.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d3d9_zero_inputs_follow_the_reference_pseudocode() {
        assert_eq!(rcp(0.0, Dialect::D3d9), FLT_MAX);
        assert_eq!(rsq(0.0, Dialect::D3d9), FLT_MAX);
        assert_eq!(lg2(0.0, Dialect::D3d9), -FLT_MAX);
        assert_eq!(rcp(0.0, Dialect::Arb), f32::INFINITY);
        assert_eq!(rcp(-0.0, Dialect::Arb), f32::NEG_INFINITY);
        assert_eq!(rsq(0.0, Dialect::Arb), f32::INFINITY);
        assert_eq!(lg2(0.0, Dialect::Arb), f32::NEG_INFINITY);
        assert_eq!(rsq(-4.0, Dialect::Arb), 0.5);
    }

    #[test]
    fn partial_forms_match_piglit_expectations() {
        // piglit arb_vertex_program/instructions/exp.shader_test: EXP 4.5
        let e = exp_partial(4.5);
        assert_eq!(e[0], 16.0);
        assert_eq!(e[1], 0.5);
        assert!((e[2] - 22.627_417).abs() < 1e-5);
        // log.shader_test: LOG of 64, 50 and 30
        assert_eq!(log_partial(64.0)[0], 6.0);
        assert_eq!(log_partial(50.0)[1], 1.5625);
        assert!((log_partial(30.0)[2] - 4.906_891).abs() < 1e-5);
        assert_eq!(log_partial(-0.75), [-1.0, 1.5, libm::log2f(0.75), 1.0]);
    }

    #[test]
    fn lit_clamps_and_degenerate_cases() {
        assert_eq!(
            lit([0.65, 0.0, 0.0, 0.0], Dialect::Arb),
            [1.0, 0.65, 1.0, 1.0]
        );
        assert_eq!(
            lit([-0.5, 0.0, 0.0, 0.0], Dialect::Arb),
            [1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            lit([0.65, 0.0, 0.0, 0.0], Dialect::D3d9),
            [1.0, 0.65, 0.0, 1.0]
        );
        let big = lit([1.0, 0.5, 0.0, 1000.0], Dialect::Arb);
        assert_eq!(big[2], libm::powf(0.5, 127.996_09));
    }

    #[test]
    fn floor_matches_the_exact_floor_everywhere() {
        let mut s = 0x1234_5678u32;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let x = f32::from_bits(s);
            let (a, b) = (floor_portable(x), libm::floorf(x));
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{x}: {a} {b}"
            );
        }
        for x in [
            -0.0f32,
            0.0,
            -0.5,
            0.5,
            -1.0,
            8388607.5,
            -8388607.5,
            1e30,
            f32::NEG_INFINITY,
        ] {
            assert_eq!(
                floor_portable(x).to_bits(),
                libm::floorf(x).to_bits(),
                "{x}"
            );
            assert_eq!(floor(x).to_bits(), libm::floorf(x).to_bits(), "{x}");
        }
    }

    #[test]
    fn max_and_min_keep_the_first_zero_and_skip_nan() {
        assert_eq!(max(0.0, -0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(max(-0.0, 0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(min(-0.0, 0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(min(0.0, -0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(max(f32::NAN, 1.0), 1.0);
        assert_eq!(min(2.0, f32::NAN), 2.0);
        assert_eq!(max(1.0, 2.0), 2.0);
        assert_eq!(min(1.0, 2.0), 1.0);
    }

    #[test]
    fn shadow_comparisons_and_depth_modes() {
        // GL 2.1 §3.8.14: LEQUAL passes when R <= D.
        assert!(CompareFunc::Lequal.passes(0.5, 0.5));
        assert!(!CompareFunc::Lequal.passes(0.6, 0.5));
        assert!(CompareFunc::Greater.passes(0.6, 0.5));
        assert!(!CompareFunc::Never.passes(0.0, 0.0) && CompareFunc::Always.passes(1.0, 0.0));
        let passing: Vec<_> = CompareFunc::ALL
            .iter()
            .filter(|f| f.passes(0.25, 0.75))
            .map(|f| f.name())
            .collect();
        assert_eq!(passing, ["less", "lequal", "notequal", "always"]);
        assert_eq!(shadow_ref(f32::NAN), 0.0);
        assert_eq!(shadow_ref(-3.0), 0.0);
        assert_eq!(shadow_ref(7.0), 1.0);
        assert_eq!(DepthMode::Alpha.expand(0.5), [0.0, 0.0, 0.0, 0.5]);
        assert_eq!(DepthMode::default().expand(0.5), [0.5, 0.5, 0.5, 1.0]);
        for f in CompareFunc::ALL {
            assert_eq!(CompareFunc::from_name(f.name()), Some(f));
        }
        for m in DepthMode::ALL {
            assert_eq!(DepthMode::from_name(m.name()), Some(m));
        }
    }

    #[test]
    fn frc_and_flr_of_negatives() {
        assert_eq!(frc(-1.5), 0.5);
        assert_eq!(floor(-0.2), -1.0);
        assert_eq!(frc(-10.1), -10.1f32 - -11.0);
        assert_eq!(round_nearest(2.5), 3.0);
        assert_eq!(round_nearest(-2.5), -3.0);
        assert_eq!(sat(f32::NAN), 0.0);
        assert_eq!(sgn(-0.0), 0.0);
    }
}

//! Where a GPU cannot match the exact executor, in one place: each difference with what the
//! executor does, what the GPU does, and which programs it touches. `docs/gpu-translation.md`
//! explains them with the measured figures; `hoist translate --json` lists the ones that
//! apply to a pair.

use hoist_asm::ir::TexTarget;
use hoist_asm::{Op, Program};
use serde::Serialize;

/// One semantic difference between the executor and a GPU running the translation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub id: &'static str,
    pub what: &'static str,
}

pub const TRANSCENDENTALS: Difference = Difference {
    id: "transcendentals",
    what: "EX2, LG2, POW, SIN, COS, SCS/sincos, EXP, LOG, LIT: the executor calls libm \
           (correctly rounded or within 1 ulp); GPUs use their native exp2/log2/sin/cos, \
           within WGSL's bounds (exp2/log2 3 ulp plus 2^-21 absolute near 1, sin/cos 2^-11 \
           absolute on [-pi, pi]; POW is exp2(y*log2(x)), 3 ulp + the log's error times |y|).",
};
pub const DIVISION: Difference = Difference {
    id: "division",
    what: "RCP, RSQ, nrm, TXP's divide and RECT coordinates: the executor divides and takes \
           square roots correctly rounded; WGSL allows 2.5 ulp for division and 2 ulp for \
           inverse square roots (the translation writes 1/sqrt(x), not inverseSqrt).",
};
pub const FUSED: Difference = Difference {
    id: "fused-multiply-add",
    what: "MAD, LRP, DP*, matrix rows: the executor rounds the product and the sum \
           separately; GPU compilers may fuse a*b+c (one rounding), so results may differ in \
           the last bit and cancellations may differ more.",
};
pub const NAN: Difference = Difference {
    id: "nan-and-infinity",
    what: "MIN/MAX with a NaN operand (the executor returns the other operand), clamps of NaN, \
           comparisons: WGSL leaves NaN handling of min/max/clamp to the implementation and \
           GPUs may flush NaN/infinity in places; _SAT, SGN, KIL and colour clamps are written \
           with comparisons so they behave like the executor where comparisons are IEEE.",
};
pub const DENORMALS: Difference = Difference {
    id: "denormals",
    what: "The executor keeps subnormal numbers; GPUs usually flush them to zero (LG2 of \
           1e-38 is -126.2 in the executor, -inf on a flushing GPU; ARB LOG's exponent and \
           mantissa are read from the float's bits, exact for normal numbers only).",
};
pub const DERIVATIVES: Difference = Difference {
    id: "derivatives",
    what: "dsx/dsy and the implicit level of detail: the executor differences each 2x2 quad \
           at its bottom-left pixel (coarse); GPUs may take other pixels of the quad or fine \
           derivatives, and inside flow control whose condition differs across a quad the \
           GPU's derivatives are undefined where the executor's are not.",
};
pub const FILTERING: Difference = Difference {
    id: "texture-filtering",
    what: "Bilinear and trilinear weights, level-of-detail selection and mipmap blending are \
           the GPU's (fixed-point weights, often 8 bits of fraction; approximated log2 of the \
           footprint); the executor computes them in f32 from GL 2.1 section 3.8.8. Nearest \
           filtering agrees except where a coordinate lies on a texel edge.",
};
pub const CUBE: Difference = Difference {
    id: "cube-maps",
    what: "Cube maps: WebGPU and WebGL2 (ES 3.0) filter across faces (seamless); the executor \
           clamps each face to its edges, as llvmpipe does with seamless filtering off.",
};
pub const ONE_D: Difference = Difference {
    id: "1d-targets",
    what: "1D and SHADOW1D targets sample a 2D texture at t = 1/(2 height): exact for 1D \
           textures (one row); for a 2D texture sampled as 1D with mipmaps and repeat, lower \
           levels blend in the top row.",
};
pub const SHADOW: Difference = Difference {
    id: "shadow-targets",
    what: "SHADOW1D/2D/RECT targets: a depth texture with compare mode on is compared in \
           the shader, texel by texel at level 0 (nearest, or bilinear as the executor \
           blends), as GL 2.1 and the executor do; a GPU's own comparison sampler filters \
           with its fixed-point weights. A comparing texture with mipmaps or different \
           minification and magnification filters is refused; a colour texture is an \
           ordinary fetch.",
};
pub const INTERPOLATION: Difference = Difference {
    id: "interpolation",
    what: "Varyings: the executor interpolates in f64 from unsnapped positions and rounds \
           once; GPUs interpolate in f32 (and snap vertices to their sub-pixel grid), so \
           interpolants differ in the last bits, which a nearest lookup at a texel edge or a \
           FLR/FRC/CMP at a step turns into a large difference.",
};
pub const LOOPS: Difference = Difference {
    id: "loop-limits",
    what: "D3D9 loops: both run at most 255 iterations (the executor's cap); the executor \
           also cuts off a batch after 4M instructions, which a GPU does not.",
};
pub const COLOR_OUTPUTS: Difference = Difference {
    id: "colour-outputs",
    what: "Only result.color[0] / oC0 is written, as the executor draws one target.",
};
pub const RGBA8: Difference = Difference {
    id: "rgba8-targets",
    what: "RGBA8 targets are float targets whose writes the shader clamps and rounds to n/255 \
           (round half up), as the executor stores them; a hardware RGBA8 target rounds in its \
           own way.",
};

/// Every difference.
pub const ALL: [Difference; 14] = [
    TRANSCENDENTALS,
    DIVISION,
    FUSED,
    NAN,
    DENORMALS,
    DERIVATIVES,
    FILTERING,
    CUBE,
    ONE_D,
    SHADOW,
    INTERPOLATION,
    LOOPS,
    COLOR_OUTPUTS,
    RGBA8,
];

/// The differences that apply to a pair.
pub fn applying(
    vp: Option<&Program>,
    fp: Option<&Program>,
    opts: &crate::options::Options,
) -> Vec<Difference> {
    let insts: Vec<&hoist_asm::Inst> = vp
        .into_iter()
        .chain(fp)
        .flat_map(|p| p.insts.iter())
        .collect();
    let any = |f: &dyn Fn(&hoist_asm::Inst) -> bool| insts.iter().any(|i| f(i));
    let has = |ops: &[Op]| any(&|i| ops.contains(&i.op));
    let target = |ts: &[TexTarget]| any(&|i| i.tex.is_some_and(|t| ts.contains(&t.target)));
    let mut v = Vec::new();
    let mut add = |cond: bool, d: Difference| {
        if cond {
            v.push(d);
        }
    };
    use Op::*;
    add(
        has(&[Ex2, Lg2, Pow, Sin, Cos, Scs, Sincos, Exp, Log, Lit]),
        TRANSCENDENTALS,
    );
    add(
        has(&[Rcp, Rsq, Nrm, Txp]) || target(&[TexTarget::Rect, TexTarget::ShadowRect]),
        DIVISION,
    );
    add(
        has(&[
            Mad, Lrp, Dp3, Dp4, Dph, Dp2add, M4x4, M4x3, M3x4, M3x3, M3x2, Xpd, Nrm,
        ]),
        FUSED,
    );
    add(has(&[Min, Max]) || any(&|i| i.sat), NAN);
    add(has(&[Lg2, Log, Rcp, Rsq]), DENORMALS);
    let fragment_tex = fp.is_some_and(|p| p.insts.iter().any(|i| matches!(i.op, Tex | Txb | Txp)));
    add(has(&[Dsx, Dsy, Texldd]) || fragment_tex, DERIVATIVES);
    add(any(&|i| i.tex.is_some()), FILTERING);
    add(target(&[TexTarget::Cube]), CUBE);
    add(target(&[TexTarget::T1D, TexTarget::Shadow1D]), ONE_D);
    add(
        target(&[
            TexTarget::Shadow1D,
            TexTarget::Shadow2D,
            TexTarget::ShadowRect,
        ]),
        SHADOW,
    );
    add(fp.is_some(), INTERPOLATION);
    add(has(&[Loop, Rep]), LOOPS);
    add(
        fp.is_some_and(|p| {
            p.io.iter()
                .any(|d| d.reg.file == hoist_asm::RegFile::ColorOut && d.reg.index > 0)
        }),
        COLOR_OUTPUTS,
    );
    add(opts.output == crate::options::Output::Unorm8, RGBA8);
    v
}

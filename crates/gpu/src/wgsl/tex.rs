//! Texture reads, kills and derivatives.
//!
//! A texture instruction samples the binding of its (unit, target) pair through the GPU's
//! sampler, with the coordinates the executor uses: `TXP` divides x, y and z by w first;
//! RECT targets divide by the texture's size (the GPU samples normalised coordinates);
//! 1D targets read row 0 of a 2D texture at t = ½ / height (the executor reads row 0, and a
//! 1D texture is uploaded as a one-row 2D texture). The level of detail: implicit in the
//! fragment stage (`TEX`, `TXP`), plus w for `TXB`; w for `texldl`; the gradients for
//! `texldd`; level 0 in the vertex stage, where there are no derivatives (bias w for
//! `TXB`). A shadow target samples as above when its texture does not compare (a colour
//! texture, or a depth texture with compare mode off, uploaded already expanded by its
//! depth mode), and through `shadow{k}` (io.rs) when the draw block's `cmp[k]` says it
//! compares.
//!
//! Kills set a flag the fragment entry point discards on at the end, so the rest of the
//! program runs on killed fragments as the executor's does (and their derivatives stay
//! defined). `dsx`/`dsy` are coarse derivatives (y up in both APIs' framebuffers, see
//! `entry.rs`).

use super::common::Ctx;
use super::inst::operands;
use crate::error::Error;
use hoist_asm::ir::TexTarget;
use hoist_asm::{Inst, Op, WriteMask};

/// The coordinate expression of `target` from the vector `p` (already projected).
fn coord(target: TexTarget, p: &str, k: usize) -> String {
    match target {
        TexTarget::T1D | TexTarget::Shadow1D => {
            format!("vec2f({p}.x, 0.5f / f32(textureDimensions(tx{k}).y))")
        }
        TexTarget::T2D | TexTarget::Shadow2D => format!("{p}.xy"),
        TexTarget::Rect | TexTarget::ShadowRect => {
            format!("{p}.xy / vec2f(textureDimensions(tx{k}))")
        }
        TexTarget::T3D | TexTarget::Cube => format!("{p}.xyz"),
    }
}

/// A gradient of `target`'s coordinate from the vector `g`.
fn gradient(target: TexTarget, g: &str, k: usize) -> String {
    match target {
        TexTarget::T1D | TexTarget::Shadow1D => format!("vec2f({g}.x, 0.0f)"),
        TexTarget::T2D | TexTarget::Shadow2D => format!("{g}.xy"),
        TexTarget::Rect | TexTarget::ShadowRect => {
            format!("{g}.xy / vec2f(textureDimensions(tx{k}))")
        }
        TexTarget::T3D | TexTarget::Cube => format!("{g}.xyz"),
    }
}

fn sample(ctx: &Ctx, ins: &Inst, k: usize, target: TexTarget) -> String {
    let p = if ins.op == Op::Txp {
        "(o0.xyz / o0.w)"
    } else {
        "o0"
    };
    let c = coord(target, p, k);
    let (t, s) = (format!("tx{k}"), format!("sm{k}"));
    let plain = match (ins.op, ctx.fragment()) {
        (Op::Tex | Op::Txp, true) => format!("textureSample({t}, {s}, {c})"),
        (Op::Txb, true) => format!("textureSampleBias({t}, {s}, {c}, o0.w)"),
        (Op::Txb | Op::Texldl, _) => format!("textureSampleLevel({t}, {s}, {c}, o0.w)"),
        (Op::Texldd, _) => format!(
            "textureSampleGrad({t}, {s}, {c}, {}, {})",
            gradient(target, "o1", k),
            gradient(target, "o2", k)
        ),
        _ => format!("textureSampleLevel({t}, {s}, {c}, 0.0f)"),
    };
    if crate::iface::is_shadow(target) {
        format!("select({plain}, shadow{k}({p}.xyz), dr.cmp[{k}].x != 0u)")
    } else {
        plain
    }
}

/// Writes a texture, kill or derivative instruction; `Ok(false)` when `ins` is none.
pub(crate) fn special(ctx: &mut Ctx, ins: &Inst) -> Result<bool, Error> {
    let mask = ins.dst.as_ref().map_or(WriteMask::NONE, |d| d.mask);
    let value = match ins.op {
        Op::Tex | Op::Txb | Op::Txp | Op::Texldl | Op::Texldd => {
            let t = ins
                .tex
                .ok_or_else(|| ctx.err("texture instruction without a unit"))?;
            let k = ctx
                .textures
                .iter()
                .position(|&x| x == (t.unit, t.target))
                .ok_or_else(|| ctx.err("texture binding missing"))?;
            sample(ctx, ins, k, t.target)
        }
        Op::Dsx | Op::Dsy if !ctx.fragment() => "vec4f(0.0f)".to_string(),
        Op::Dsx => "dpdxCoarse(o0)".to_string(),
        Op::Dsy => "dpdyCoarse(o0)".to_string(),
        Op::Kil | Op::Texkil => return kill(ctx, ins).map(|_| true),
        _ => return Ok(false),
    };
    if ins.dst.is_none() {
        return Ok(true);
    }
    let lets = operands(ctx, ins)?;
    ctx.line("{");
    ctx.depth += 1;
    for l in &lets {
        ctx.line(l);
    }
    ctx.store(ins, &value, mask)?;
    ctx.depth -= 1;
    ctx.line("}");
    Ok(true)
}

/// `KIL` (any of x, y, z, w negative) and `texkil` (any of x, y, z); predication does not
/// apply to them in the executor, and a vertex program has nothing to kill.
fn kill(ctx: &mut Ctx, ins: &Inst) -> Result<(), Error> {
    if !ctx.fragment() {
        return Ok(());
    }
    let lets = operands(ctx, ins)?;
    let test = if ins.op == Op::Kil {
        "any(o0 < vec4f(0.0f))"
    } else {
        "any(o0.xyz < vec3f(0.0f))"
    };
    ctx.line("{");
    ctx.depth += 1;
    for l in &lets {
        ctx.line(l);
    }
    ctx.line(&format!("if {test} {{ f_killed = true; }}"));
    ctx.depth -= 1;
    ctx.line("}");
    Ok(())
}

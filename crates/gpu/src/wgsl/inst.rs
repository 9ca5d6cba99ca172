//! Arithmetic instructions: each becomes one block that binds its operands and stores one
//! `vec4f` value, computing what `hoist_asm::semantics` and the executor's kernel ops
//! compute, in the same order (dot products summed left to right, `LRP` as
//! `t·a + (1 − t)·b`, `FRC` as `x − floor(x)`), with the helpers of `prelude.rs` where the
//! dialects' edge cases need more than a builtin (D3D9 `rcp`/`rsq`/`log` of 0 and 1, ARB
//! `POW` of a negative base, `LIT`, `EXP`/`LOG`, `nrm`, `mova`'s rounding, `_SAT`).

use super::common::Ctx;
use crate::error::Error;
use crate::iface::data_srcs;
use hoist_asm::ir::RegFile;
use hoist_asm::{Dialect, Inst, Op, Profile, WriteMask};

/// The value of an arithmetic instruction from its operands `a` (`o0`, `o1`, ... bound in
/// the block; a matrix macro's rows are `o1`, `o2`, ...), and the components it writes
/// (`None` for ops that are not arithmetic).
fn value(ctx: &Ctx, ins: &Inst, mask: WriteMask) -> Option<(String, WriteMask)> {
    let d3d9 = ctx.p.dialect() == Dialect::D3d9;
    let to_addr = ins
        .dst
        .as_ref()
        .is_some_and(|d| d.reg.file == RegFile::Address);
    let sc = |e: String| format!("vec4f({e})");
    let v = |s: &str| s.to_string();
    let m = mask;
    Some(match ins.op {
        Op::Mov if to_addr => (v("floor(o0)"), m),
        Op::Mov | Op::Swz => (v("o0"), m),
        Op::Add => (v("o0 + o1"), m),
        Op::Sub => (v("o0 - o1"), m),
        Op::Mul => (v("o0 * o1"), m),
        Op::Mad => (v("o0 * o1 + o2"), m),
        Op::Abs => (v("abs(o0)"), m),
        Op::Flr => (v("floor(o0)"), m),
        Op::Frc => (v("o0 - floor(o0)"), m),
        Op::Max => (v("max(o0, o1)"), m),
        Op::Min => (v("min(o0, o1)"), m),
        Op::Sge => (v("select(vec4f(0.0f), vec4f(1.0f), o0 >= o1)"), m),
        Op::Slt => (v("select(vec4f(0.0f), vec4f(1.0f), o0 < o1)"), m),
        Op::Lrp => (v("o0 * o1 + (vec4f(1.0f) - o0) * o2"), m),
        Op::Cmp => (v("select(o2, o1, o0 < vec4f(0.0f))"), m),
        Op::CmpGe => (v("select(o2, o1, o0 >= vec4f(0.0f))"), m),
        Op::Cnd => (v("select(o2, o1, o0 > vec4f(0.5f))"), m),
        Op::Sgn => (v("sgn4(o0)"), m),
        Op::Arl => (v("floor(o0)"), m.intersect(WriteMask::X)),
        Op::Mova => (v("round_away4(o0)"), m),
        Op::Rcp if d3d9 => (sc("rcp_d3d(o0.x)".into()), m),
        Op::Rcp => (sc("1.0f / o0.x".into()), m),
        Op::Rsq if d3d9 => (sc("rsq_d3d(o0.x)".into()), m),
        Op::Rsq => (sc("1.0f / sqrt(abs(o0.x))".into()), m),
        Op::Ex2 => (sc("exp2(o0.x)".into()), m),
        Op::Exp if d3d9 && ctx.p.profile != Profile::Vs1_1 => (sc("exp2(o0.x)".into()), m),
        Op::Exp => (v("exp_partial(o0.x)"), m),
        Op::Lg2 | Op::Log if d3d9 => (sc("lg2_d3d(o0.x)".into()), m),
        Op::Lg2 => (sc("log2(o0.x)".into()), m),
        Op::Log => (v("log_partial(o0.x)"), m),
        Op::Pow if d3d9 => (sc("pow_abs(o0.x, o1.x)".into()), m),
        Op::Pow => (sc("pow_arb(o0.x, o1.x)".into()), m),
        Op::Sin => (sc("sin(o0.x)".into()), m),
        Op::Cos => (sc("cos(o0.x)".into()), m),
        Op::Dp3 => (sc("o0.x * o1.x + o0.y * o1.y + o0.z * o1.z".into()), m),
        Op::Dp4 => (
            sc("o0.x * o1.x + o0.y * o1.y + o0.z * o1.z + o0.w * o1.w".into()),
            m,
        ),
        Op::Dph => (
            sc("o0.x * o1.x + o0.y * o1.y + o0.z * o1.z + o1.w".into()),
            m,
        ),
        Op::Dp2add => (sc("o0.x * o1.x + o0.y * o1.y + o2.x".into()), m),
        Op::Xpd => (
            v(
                "vec4f(o0.y * o1.z - o0.z * o1.y, o0.z * o1.x - o0.x * o1.z, \
               o0.x * o1.y - o0.y * o1.x, 0.0f)",
            ),
            m.intersect(WriteMask::XYZ),
        ),
        Op::Dst => (v("vec4f(1.0f, o0.y * o1.y, o0.z, o1.w)"), m),
        Op::Lit if d3d9 => (v("lit_d3d(o0)"), m),
        Op::Lit => (v("lit_arb(o0)"), m),
        Op::Scs | Op::Sincos => (
            v("vec4f(cos(o0.x), sin(o0.x), 0.0f, 0.0f)"),
            m.intersect(WriteMask::XY),
        ),
        Op::Nrm => (v("nrm4(o0)"), m),
        Op::M4x4 | Op::M4x3 | Op::M3x4 | Op::M3x3 | Op::M3x2 => matrix(ins.op, m),
        Op::Setp(c) => {
            let op = match c {
                hoist_asm::ops::Cond::Gt => ">",
                hoist_asm::ops::Cond::Eq => "==",
                hoist_asm::ops::Cond::Ge => ">=",
                hoist_asm::ops::Cond::Lt => "<",
                hoist_asm::ops::Cond::Ne => "!=",
                hoist_asm::ops::Cond::Le => "<=",
            };
            (format!("select(vec4f(0.0f), vec4f(1.0f), o0 {op} o1)"), m)
        }
        _ => return None,
    })
}

/// `mAxB`: row r of the result is the dot product of the first `cols` lanes of `o0` with
/// row register `o{r + 1}`, summed left to right.
fn matrix(op: Op, m: WriteMask) -> (String, WriteMask) {
    let hoist_asm::ops::Shape::Matrix { cols, rows } = op.info().shape else {
        return ("vec4f(0.0f)".into(), WriteMask::NONE);
    };
    let lanes = ['x', 'y', 'z', 'w'];
    let row = |r: u8| {
        (0..cols as usize)
            .map(|c| format!("o0.{0} * o{1}.{0}", lanes[c], r + 1))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let parts: Vec<String> = (0..4u8)
        .map(|r| if r < rows { row(r) } else { "0.0f".into() })
        .collect();
    (
        format!("vec4f({})", parts.join(", ")),
        m.intersect(WriteMask((1u8 << rows) - 1)),
    )
}

/// Binds an instruction's operands (`o0`, `o1`, ...) as the first lines of its block.
pub(crate) fn operands(ctx: &mut Ctx, ins: &Inst) -> Result<Vec<String>, Error> {
    let mut pre = Vec::new();
    let mut lets = Vec::new();
    let mut k = 0;
    for i in data_srcs(ctx.p, ins) {
        let rows = if i == 1 {
            ins.op.matrix_rows().unwrap_or(1)
        } else {
            1
        };
        for r in 0..u16::from(rows) {
            let e = if ins.op == Op::Swz && i == 0 {
                swz_value(ctx, ins, &mut pre)?
            } else {
                ctx.src(&ins.src[i], r, &mut pre)?
            };
            lets.push(format!("let o{k} = {e};"));
            k += 1;
        }
    }
    pre.extend(lets);
    Ok(pre)
}

/// `SWZ`'s extended swizzle: each lane a component of the operand (after its own swizzle,
/// negated when asked, the operand's negation included), 0, or ±1 (the operand's negation
/// does not apply to the constants).
fn swz_value(ctx: &mut Ctx, ins: &Inst, pre: &mut Vec<String>) -> Result<String, Error> {
    let e = ins
        .ext_swizzle
        .ok_or_else(|| ctx.err("SWZ without selectors"))?;
    let mut plain = ins.src[0].clone();
    plain.swizzle = hoist_asm::Swizzle::IDENTITY;
    plain.negate = false;
    let base = ctx.src(&plain, 0, pre)?;
    let lanes = ['x', 'y', 'z', 'w'];
    let parts: Vec<String> = (0..4)
        .map(|c| match e.sel[c] {
            hoist_asm::ir::ExtSel::Zero => "0.0f".to_string(),
            hoist_asm::ir::ExtSel::One => if e.neg[c] { "-1.0f" } else { "1.0f" }.to_string(),
            hoist_asm::ir::ExtSel::Comp(k) => {
                let k = ins.src[0].swizzle.get(k);
                let neg = e.neg[c] ^ ins.src[0].negate;
                format!("{}sw.{}", if neg { "-" } else { "" }, lanes[k as usize])
            }
        })
        .collect();
    pre.push(format!("let sw = {base};"));
    Ok(format!("vec4f({})", parts.join(", ")))
}

/// Writes an arithmetic instruction; `Ok(false)` when `ins` is not one.
pub(crate) fn alu(ctx: &mut Ctx, ins: &Inst) -> Result<bool, Error> {
    let mask = ins.dst.as_ref().map_or(WriteMask::NONE, |d| d.mask);
    let Some((val, mask)) = value(ctx, ins, mask) else {
        return Ok(false);
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
    ctx.store(ins, &val, mask)?;
    ctx.depth -= 1;
    ctx.line("}");
    Ok(true)
}

//! Code for each kernel instruction, on `v128` locals, in the interpreter's exact operation
//! order ([`crate::exec`]): no fused multiply-add, `min`/`max` as
//! [`hoist_asm::semantics::min`]/`max` (the other operand when one is NaN, the first on a
//! tie), comparisons and selects where the interpreter branches, transcendentals lane by
//! lane through the `libm` imports.

use super::builder::{Gen, Import, L_I0, L_W0, P_CONSTS, bin, konst, max, min, select, un};
use crate::compile::{GatherFrom, KInst, KOp, Pre};
use hoist_asm::Dialect;
use hoist_asm::ops::Cond;
use hoist_asm::semantics::FLT_MAX;
use wasm_encoder::Instruction as I;

/// [`hoist_asm::semantics::sat`]: `x > 0 ? (x < 1 ? x : 1) : 0`.
fn sat(g: &mut Gen, x: u32) -> u32 {
    let zero = konst(g, 0.0);
    let one = konst(g, 1.0);
    let lt1 = bin(g, x, one, I::F32x4Lt);
    let hi = select(g, lt1, x, one);
    let gt0 = bin(g, x, zero, I::F32x4Gt);
    select(g, gt0, hi, zero)
}

/// `1.0` where the mask is set, else `0.0`.
fn one_where(g: &mut Gen, m: u32) -> u32 {
    let one = konst(g, 1.0);
    bin(g, m, one, I::V128And)
}

/// Applies a scalar import lane by lane.
fn per_lane(g: &mut Gen, f: Import, args: &[u32]) -> u32 {
    let t = g.temp();
    g.emit(I::V128Const(0));
    g.set(t);
    for lane in 0..4u8 {
        g.get(t);
        for &a in args {
            g.get(a);
            g.emit(I::F32x4ExtractLane(lane));
        }
        g.emit(I::Call(f as u32));
        g.emit(I::F32x4ReplaceLane(lane));
        g.set(t);
    }
    t
}

fn pre_step(g: &mut Gen, p: &Pre) -> Result<(), String> {
    match p {
        Pre::Modify { from, to, neg, abs } => {
            for c in 0..4 {
                let s = g.row(from[c]);
                let d = g.row(to + c as u32);
                g.get(s);
                if *abs {
                    g.emit(I::F32x4Abs);
                }
                if *neg {
                    g.emit(I::F32x4Neg);
                }
                g.set(d);
            }
            Ok(())
        }
        Pre::Gather {
            from,
            base,
            addr,
            lo,
            hi,
            swizzle,
            neg,
            abs,
            to,
        } => {
            if !matches!(from, GatherFrom::Consts) {
                return Err("relative addressing of a register file".into());
            }
            gather_consts(g, *base, *addr, (*lo, *hi), *swizzle, (*neg, *abs), *to);
            Ok(())
        }
    }
}

/// Relative constant reads, lane by lane: slot `base + (addr as i32)` (saturating), in
/// `lo..hi` and inside the table, else 0.
fn gather_consts(
    g: &mut Gen,
    base: i32,
    addr: u32,
    (lo, hi): (i32, i32),
    swizzle: [u8; 4],
    (neg, abs): (bool, bool),
    to: u32,
) {
    let a = g.row(addr);
    let hi = i64::from(hi).min(g.k.const_len as i64);
    let outs: [u32; 4] = std::array::from_fn(|c| to + c as u32);
    let outs = outs.map(|r| g.row(r));
    for &o in &outs {
        g.emit(I::V128Const(0));
        g.set(o);
    }
    for lane in 0..4u8 {
        // w0 = base + trunc_sat(a[lane]) in i64: outside lo..hi exactly when the
        // interpreter's saturating i32 sum is.
        g.get(a);
        g.emit(I::F32x4ExtractLane(lane));
        g.emit(I::I32TruncSatF32S);
        g.emit(I::I64ExtendI32S);
        g.emit(I::I64Const(i64::from(base)));
        g.emit(I::I64Add);
        g.set(L_W0);
        // if lo <= w0 < hi
        g.get(L_W0);
        g.emit(I::I64Const(i64::from(lo)));
        g.emit(I::I64GeS);
        g.get(L_W0);
        g.emit(I::I64Const(hi));
        g.emit(I::I64LtS);
        g.emit(I::I32And);
        g.emit(I::If(wasm_encoder::BlockType::Empty));
        g.get(L_W0);
        g.emit(I::I32WrapI64);
        g.emit(I::I32Const(4));
        g.emit(I::I32Shl);
        g.emit(I::LocalGet(P_CONSTS));
        g.emit(I::I32Add);
        g.set(L_I0);
        for c in 0..4 {
            g.get(outs[c]);
            g.get(L_I0);
            g.emit(I::F32Load(super::builder::mem(
                4 * u64::from(swizzle[c] & 3),
                2,
            )));
            if abs {
                g.emit(I::F32Abs);
            }
            if neg {
                g.emit(I::F32Neg);
            }
            g.emit(I::F32x4ReplaceLane(lane));
            g.set(outs[c]);
        }
        g.emit(I::End);
    }
}

/// Emits one instruction.
pub(super) fn instruction(g: &mut Gen, ins: &KInst) -> Result<(), String> {
    if ins.pred.is_some() {
        return Err("predication".into());
    }
    for p in &ins.pre {
        pre_step(g, p)?;
    }
    if let KOp::Kill(m) = ins.op {
        let zero = konst(g, 0.0);
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let s = g.row(ins.src[0][c]);
                let lt = bin(g, s, zero, I::F32x4Lt);
                let k = g.kill;
                g.get(k);
                g.get(lt);
                g.emit(I::V128Or);
                g.set(k);
            }
        }
        return Ok(());
    }
    if matches!(ins.op, KOp::Nop) || ins.mask == 0 {
        return Ok(());
    }
    let (mut res, replicate) = compute(g, ins)?;
    // A result that is a source register itself is copied first: an earlier component's
    // store may overwrite it (`MOV r.xy, r.yxzw`).
    for v in res.iter_mut().flatten() {
        if !g.is_temp(*v) {
            let t = g.temp();
            g.get(*v);
            g.set(t);
            *v = t;
        }
    }
    for c in 0..4 {
        if ins.mask & (1 << c) == 0 {
            continue;
        }
        let rc = if replicate { 0 } else { c };
        let Some(v) = res[rc] else {
            return Err(format!("component {c} has no result"));
        };
        let v = if ins.sat { sat(g, v) } else { v };
        let d = g.row(ins.dst + c as u32);
        g.get(v);
        g.set(d);
    }
    Ok(())
}

type Res = ([Option<u32>; 4], bool);

/// Computes the instruction's result components (`None` where not computed); the flag says
/// the result is one scalar replicated (component 0).
fn compute(g: &mut Gen, ins: &KInst) -> Result<Res, String> {
    let mask = ins.mask;
    let s = ins.src.clone();
    let mut r = [None; 4];
    macro_rules! src {
        ($i:expr, $c:expr) => {{
            let row = s.get($i).ok_or_else(|| format!("missing source {}", $i))?[$c];
            g.row(row)
        }};
    }
    macro_rules! each {
        (|$c:ident| $body:expr) => {
            for $c in 0..4 {
                if mask & (1 << $c) != 0 {
                    r[$c] = Some($body);
                }
            }
        };
    }
    match ins.op {
        KOp::Mov => each!(|c| src!(0, c)),
        KOp::Add => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            bin(g, a, b, I::F32x4Add)
        }),
        KOp::Sub => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            bin(g, a, b, I::F32x4Sub)
        }),
        KOp::Mul => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            bin(g, a, b, I::F32x4Mul)
        }),
        KOp::Mad => each!(|c| {
            let (a, b, e) = (src!(0, c), src!(1, c), src!(2, c));
            let p = bin(g, a, b, I::F32x4Mul);
            bin(g, p, e, I::F32x4Add)
        }),
        KOp::Abs => each!(|c| {
            let a = src!(0, c);
            un(g, a, I::F32x4Abs)
        }),
        KOp::Flr | KOp::AddrFloor => each!(|c| {
            let a = src!(0, c);
            un(g, a, I::F32x4Floor)
        }),
        KOp::AddrRound => each!(|c| {
            let a = src!(0, c);
            round_half_away(g, a)
        }),
        KOp::Frc => each!(|c| {
            let a = src!(0, c);
            let f = un(g, a, I::F32x4Floor);
            bin(g, a, f, I::F32x4Sub)
        }),
        KOp::Max => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            max(g, a, b)
        }),
        KOp::Min => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            min(g, a, b)
        }),
        KOp::Sge | KOp::Slt => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            let op = if matches!(ins.op, KOp::Sge) {
                I::F32x4Ge
            } else {
                I::F32x4Lt
            };
            let m = bin(g, a, b, op);
            one_where(g, m)
        }),
        KOp::Lrp => each!(|c| {
            let (t, a, b) = (src!(0, c), src!(1, c), src!(2, c));
            let ta = bin(g, t, a, I::F32x4Mul);
            let one = konst(g, 1.0);
            let u = bin(g, one, t, I::F32x4Sub);
            let ub = bin(g, u, b, I::F32x4Mul);
            bin(g, ta, ub, I::F32x4Add)
        }),
        KOp::CmpLt | KOp::CmpGe | KOp::Cnd => each!(|c| {
            let (t, a, b) = (src!(0, c), src!(1, c), src!(2, c));
            let (k, op) = match ins.op {
                KOp::CmpLt => (0.0, I::F32x4Lt),
                KOp::CmpGe => (0.0, I::F32x4Ge),
                _ => (0.5, I::F32x4Gt),
            };
            let kk = konst(g, k);
            let m = bin(g, t, kk, op);
            select(g, m, a, b)
        }),
        KOp::Sgn => each!(|c| {
            let a = src!(0, c);
            let zero = konst(g, 0.0);
            let gt = bin(g, a, zero, I::F32x4Gt);
            let lt = bin(g, a, zero, I::F32x4Lt);
            let p = one_where(g, gt);
            let m1 = konst(g, -1.0);
            let n = bin(g, lt, m1, I::V128And);
            bin(g, p, n, I::V128Or)
        }),
        KOp::Setp(cond) => each!(|c| {
            let (a, b) = (src!(0, c), src!(1, c));
            let m = compare(g, cond, a, b);
            one_where(g, m)
        }),
        KOp::Rcp | KOp::Rsq | KOp::Ex2 | KOp::Sin | KOp::Cos | KOp::Lg2 | KOp::Pow => {
            return scalar(g, ins);
        }
        KOp::Tex(kind, unit, target) => {
            let v = super::texture::sample(g, ins, kind, unit, target)?;
            r = v.map(Some);
        }
        KOp::Dsx | KOp::Dsy => each!(|c| {
            let a = src!(0, c);
            derivative(g, a, matches!(ins.op, KOp::Dsy))
        }),
        _ => return vector_op(g, ins),
    }
    Ok((r, false))
}

/// The scalar operations: component 0 of the sources in, one value replicated out.
fn scalar(g: &mut Gen, ins: &KInst) -> Result<Res, String> {
    let d = g.k.dialect;
    let src = |g: &mut Gen, i: usize| -> Result<u32, String> {
        let row = ins
            .src
            .get(i)
            .ok_or_else(|| format!("missing source {i}"))?[0];
        Ok(g.row(row))
    };
    let v = match ins.op {
        KOp::Rcp | KOp::Rsq => {
            let x = src(g, 0)?;
            let x = if matches!(ins.op, KOp::Rsq) {
                let a = un(g, x, I::F32x4Abs);
                un(g, a, I::F32x4Sqrt)
            } else {
                x
            };
            let one = konst(g, 1.0);
            let q = bin(g, one, x, I::F32x4Div);
            if d == Dialect::D3d9 {
                // rsq tests |x| against 0 and 1: sqrt keeps both.
                let zero = konst(g, 0.0);
                let is1 = bin(g, x, one, I::F32x4Eq);
                let v = select(g, is1, one, q);
                let is0 = bin(g, x, zero, I::F32x4Eq);
                let big = konst(g, FLT_MAX);
                select(g, is0, big, v)
            } else {
                q
            }
        }
        KOp::Ex2 | KOp::Sin | KOp::Cos => {
            let x = src(g, 0)?;
            let f = match ins.op {
                KOp::Ex2 => Import::Exp2f,
                KOp::Sin => Import::Sinf,
                _ => Import::Cosf,
            };
            per_lane(g, f, &[x])
        }
        KOp::Lg2 => {
            let x = src(g, 0)?;
            if d == Dialect::D3d9 {
                let a = un(g, x, I::F32x4Abs);
                let l = per_lane(g, Import::Log2f, &[a]);
                let zero = konst(g, 0.0);
                let is0 = bin(g, x, zero, I::F32x4Eq);
                let m = konst(g, -FLT_MAX);
                select(g, is0, m, l)
            } else {
                per_lane(g, Import::Log2f, &[x])
            }
        }
        KOp::Pow => {
            let (b, e) = (src(g, 0)?, src(g, 1)?);
            let b = if d == Dialect::D3d9 {
                un(g, b, I::F32x4Abs)
            } else {
                b
            };
            per_lane(g, Import::Powf, &[b, e])
        }
        _ => return Err(format!("{:?} is not a scalar operation", ins.op)),
    };
    let mut r = [None; 4];
    r[0] = Some(v);
    Ok((r, true))
}

/// Per-lane comparison of [`Cond::test`].
fn compare(g: &mut Gen, c: Cond, a: u32, b: u32) -> u32 {
    let op = match c {
        Cond::Gt => I::F32x4Gt,
        Cond::Eq => I::F32x4Eq,
        Cond::Ge => I::F32x4Ge,
        Cond::Lt => I::F32x4Lt,
        Cond::Ne => I::F32x4Ne,
        Cond::Le => I::F32x4Le,
    };
    bin(g, a, b, op)
}

/// `f32::round`: halfway cases away from zero (`t = trunc(x)`, plus `±1` when
/// `|x - t| >= 0.5`; the difference is exact).
fn round_half_away(g: &mut Gen, x: u32) -> u32 {
    let t = un(g, x, I::F32x4Trunc);
    let dif = bin(g, x, t, I::F32x4Sub);
    let ad = un(g, dif, I::F32x4Abs);
    let half = konst(g, 0.5);
    let m = bin(g, ad, half, I::F32x4Ge);
    let one = konst(g, 1.0);
    let sign = g.temp();
    g.splat_i(0x8000_0000);
    g.set(sign);
    let s = select(g, sign, x, one);
    let ts = bin(g, t, s, I::F32x4Add);
    select(g, m, ts, t)
}

/// `dsx`/`dsy` inside a quad (lanes 0..4 of the vector): lane 1 (or 2) minus lane 0,
/// broadcast; 0 when lanes are not quads.
fn derivative(g: &mut Gen, a: u32, dy: bool) -> u32 {
    let k: u8 = if dy { 2 } else { 1 };
    let bcast = |lane: u8| -> [u8; 16] { std::array::from_fn(|i| 4 * lane + (i as u8 % 4)) };
    let t = g.temp();
    g.get(a);
    g.get(a);
    g.emit(I::I8x16Shuffle(bcast(k)));
    g.get(a);
    g.get(a);
    g.emit(I::I8x16Shuffle(bcast(0)));
    g.emit(I::F32x4Sub);
    let q = g.quads;
    g.get(q);
    g.emit(I::V128And);
    g.set(t);
    t
}

/// Dot products, cross product, `DST`, `LIT`, `EXP`, sine/cosine pairs, `NRM`, matrices.
fn vector_op(g: &mut Gen, ins: &KInst) -> Result<Res, String> {
    let d = g.k.dialect;
    let s = ins.src.clone();
    let mut r = [None; 4];
    macro_rules! src {
        ($i:expr, $c:expr) => {{
            let row = s.get($i).ok_or_else(|| format!("missing source {}", $i))?[$c];
            g.row(row)
        }};
    }
    let mul = |g: &mut Gen, a: u32, b: u32| bin(g, a, b, I::F32x4Mul);
    let add = |g: &mut Gen, a: u32, b: u32| bin(g, a, b, I::F32x4Add);
    let sub = |g: &mut Gen, a: u32, b: u32| bin(g, a, b, I::F32x4Sub);
    match ins.op {
        KOp::Dp3 | KOp::Dp4 | KOp::Dph | KOp::Dp2add => {
            let (a0, b0, a1, b1) = (src!(0, 0), src!(1, 0), src!(0, 1), src!(1, 1));
            let p0 = mul(g, a0, b0);
            let p1 = mul(g, a1, b1);
            let mut acc = add(g, p0, p1);
            if matches!(ins.op, KOp::Dp2add) {
                let c0 = src!(2, 0);
                acc = add(g, acc, c0);
            } else {
                let (a2, b2) = (src!(0, 2), src!(1, 2));
                let p2 = mul(g, a2, b2);
                acc = add(g, acc, p2);
                if matches!(ins.op, KOp::Dp4) {
                    let (a3, b3) = (src!(0, 3), src!(1, 3));
                    let p3 = mul(g, a3, b3);
                    acc = add(g, acc, p3);
                } else if matches!(ins.op, KOp::Dph) {
                    let b3 = src!(1, 3);
                    acc = add(g, acc, b3);
                }
            }
            r[0] = Some(acc);
            return Ok((r, true));
        }
        KOp::Xpd => {
            let (ax, ay, az) = (src!(0, 0), src!(0, 1), src!(0, 2));
            let (bx, by, bz) = (src!(1, 0), src!(1, 1), src!(1, 2));
            let terms = [(ay, bz, az, by), (az, bx, ax, bz), (ax, by, ay, bx)];
            for (c, (p, q, u, v)) in terms.into_iter().enumerate() {
                if ins.mask & (1 << c) != 0 {
                    let l = mul(g, p, q);
                    let rr = mul(g, u, v);
                    r[c] = Some(sub(g, l, rr));
                }
            }
        }
        KOp::Dst => {
            r[0] = Some(konst(g, 1.0));
            let (a1, b1) = (src!(0, 1), src!(1, 1));
            r[1] = Some(mul(g, a1, b1));
            r[2] = Some(src!(0, 2));
            r[3] = Some(src!(1, 3));
        }
        KOp::Lit => {
            let v = [src!(0, 0), src!(0, 1), src!(0, 2), src!(0, 3)];
            r = lit(g, v, d).map(Some);
        }
        KOp::ExpPartial => {
            let x = src!(0, 0);
            let f = un(g, x, I::F32x4Floor);
            r[0] = Some(per_lane(g, Import::Exp2f, &[f]));
            r[1] = Some(sub(g, x, f));
            r[2] = Some(per_lane(g, Import::Exp2f, &[x]));
            r[3] = Some(konst(g, 1.0));
        }
        KOp::SinCos => {
            let x = src!(0, 0);
            if ins.mask & 1 != 0 {
                r[0] = Some(per_lane(g, Import::Cosf, &[x]));
            }
            if ins.mask & 2 != 0 {
                r[1] = Some(per_lane(g, Import::Sinf, &[x]));
            }
        }
        KOp::Nrm => {
            let v = [src!(0, 0), src!(0, 1), src!(0, 2), src!(0, 3)];
            let xx = mul(g, v[0], v[0]);
            let yy = mul(g, v[1], v[1]);
            let zz = mul(g, v[2], v[2]);
            let s1 = add(g, xx, yy);
            let f = add(g, s1, zz);
            let sq = un(g, f, I::F32x4Sqrt);
            let one = konst(g, 1.0);
            let inv = bin(g, one, sq, I::F32x4Div);
            let zero = konst(g, 0.0);
            let nz = bin(g, f, zero, I::F32x4Ne);
            let big = konst(g, FLT_MAX);
            let f = select(g, nz, inv, big);
            for c in 0..4 {
                if ins.mask & (1 << c) != 0 {
                    r[c] = Some(mul(g, v[c], f));
                }
            }
        }
        KOp::Matrix(cols) => {
            for row in 0..(s.len().saturating_sub(1)).min(4) {
                if ins.mask & (1 << row) == 0 {
                    continue;
                }
                let (a, m) = (src!(0, 0), src!(1 + row, 0));
                let mut acc = mul(g, a, m);
                for c in 1..cols as usize {
                    let (a, m) = (src!(0, c), src!(1 + row, c));
                    let p = mul(g, a, m);
                    acc = add(g, acc, p);
                }
                r[row] = Some(acc);
            }
        }
        KOp::LogPartial => return Err("LOG is interpreted".into()),
        op => return Err(format!("{op:?} is not compiled")),
    }
    Ok((r, false))
}

/// [`hoist_asm::semantics::lit`].
fn lit(g: &mut Gen, v: [u32; 4], d: Dialect) -> [u32; 4] {
    const MAXPOWER: f32 = 127.996_09;
    let zero = konst(g, 0.0);
    let one = konst(g, 1.0);
    // w = clamp(w, -M, M), NaN -> 0.
    let lo = konst(g, -MAXPOWER);
    let hi = konst(g, MAXPOWER);
    let below = bin(g, v[3], lo, I::F32x4Lt);
    let w = select(g, below, lo, v[3]);
    let above = bin(g, w, hi, I::F32x4Gt);
    let w = select(g, above, hi, w);
    let nan = bin(g, v[3], v[3], I::F32x4Ne);
    let w = select(g, nan, zero, w);
    let xpos = bin(g, v[0], zero, I::F32x4Gt);
    match d {
        Dialect::Arb => {
            let x = select(g, xpos, v[0], zero);
            let ypos = bin(g, v[1], zero, I::F32x4Gt);
            let y = select(g, ypos, v[1], zero);
            let p = per_lane(g, Import::Powf, &[y, w]);
            let z = select(g, xpos, p, zero);
            [one, x, z, one]
        }
        Dialect::D3d9 => {
            let x = select(g, xpos, v[0], zero);
            let ypos = bin(g, v[1], zero, I::F32x4Gt);
            let p = per_lane(g, Import::Powf, &[v[1], w]);
            let both = bin(g, xpos, ypos, I::V128And);
            let z = select(g, both, p, zero);
            [one, x, z, one]
        }
    }
}

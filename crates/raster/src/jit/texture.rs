//! Texture instructions. 2D textures of one level with one filter are fetched inline when
//! the unit's descriptor says so (nearest or bilinear, clamp to edge or repeat), with the
//! interpreter's index arithmetic ([`crate::texture`]: `nearest_2d`, `nearest_index`,
//! `linear_coords`, `lerp`); everything else calls the `env.tex` import for the quad, which
//! runs the interpreter's own sampler. A module compiled for a unit's mode
//! ([`abi::Modes`]) has that one path per fetch; one compiled for [`abi::MODE_ANY`] branches
//! on the descriptor at every fetch.

use super::abi;
use super::builder::{Gen, Import, P_SCRATCH, TexLocals, bin, konst, max, mem, min, select, un};
use crate::compile::{KInst, TexKind};
use hoist_asm::ir::TexTarget;
use wasm_encoder::{BlockType, Instruction as I};

/// Samples: returns the four result locals.
pub(super) fn sample(
    g: &mut Gen,
    ins: &KInst,
    kind: TexKind,
    unit: u8,
    target: TexTarget,
) -> Result<[u32; 4], String> {
    let s = ins.src.clone();
    let coord = s.first().ok_or("texture instruction without coordinates")?;
    if kind == TexKind::Grad && s.len() < 3 {
        return Err("texldd without gradients".into());
    }
    if usize::from(unit) >= abi::UNITS {
        return Err(format!("texture unit {unit}"));
    }
    let fixed = g.modes[usize::from(unit)];
    // A fetch compiled for one inline mode reads s, t and (projected) q, nothing else: the
    // module then neither loads nor is handed the other rows.
    let only_inline =
        abi::inline_target(target) && fixed != abi::MODE_GENERIC && fixed != abi::MODE_ANY;
    let read = |c: usize| !only_inline || c < 2 || (c == 3 && kind == TexKind::Txp);
    let coord: [u32; 4] = std::array::from_fn(|c| if read(c) { g.row(coord[c]) } else { u32::MAX });
    let out: [u32; 4] = std::array::from_fn(|_| g.temp());
    if !abi::inline_target(target) || fixed == abi::MODE_GENERIC {
        generic(g, ins, kind, unit, target, coord, out);
        return Ok(out);
    }
    let tl = tex_locals(g, unit);
    let (u, v) = if kind == TexKind::Txp {
        (
            bin(g, coord[0], coord[3], I::F32x4Div),
            bin(g, coord[1], coord[3], I::F32x4Div),
        )
    } else {
        (coord[0], coord[1])
    };
    if fixed != abi::MODE_ANY {
        let r = inline(g, &tl, fixed, u, v)?;
        for c in 0..4 {
            g.get(r[c]);
            g.set(out[c]);
        }
        return Ok(out);
    }
    g.emit(I::Block(BlockType::Empty));
    g.emit(I::Block(BlockType::Empty));
    for mode in [
        abi::MODE_NEAREST_CLAMP,
        abi::MODE_NEAREST_REPEAT,
        abi::MODE_LINEAR_CLAMP,
        abi::MODE_LINEAR_REPEAT,
    ] {
        g.get(tl.mode);
        g.emit(I::I32x4ExtractLane(0));
        g.emit(I::I32Const(mode));
        g.emit(I::I32Eq);
        g.emit(I::If(BlockType::Empty));
        let r = inline(g, &tl, mode, u, v)?;
        for c in 0..4 {
            g.get(r[c]);
            g.set(out[c]);
        }
        g.emit(I::Br(2));
        g.emit(I::End);
    }
    g.emit(I::End);
    generic(g, ins, kind, unit, target, coord, out);
    g.emit(I::End);
    Ok(out)
}

/// The inline fetch of one descriptor mode.
fn inline(g: &mut Gen, tl: &TexLocals, mode: i32, u: u32, v: u32) -> Result<[u32; 4], String> {
    Ok(match mode {
        abi::MODE_NEAREST_CLAMP => nearest_clamp(g, tl, u, v),
        abi::MODE_NEAREST_REPEAT => nearest_repeat(g, tl, u, v),
        abi::MODE_LINEAR_CLAMP => linear(g, tl, u, v, false),
        abi::MODE_LINEAR_REPEAT => linear(g, tl, u, v, true),
        _ => return Err(format!("texture mode {mode}")),
    })
}

fn tex_locals(g: &mut Gen, unit: u8) -> TexLocals {
    if let Some(t) = g.tex_locals.get(&unit) {
        return *t;
    }
    let t = TexLocals {
        mode: g.new_v128(),
        base: g.new_v128(),
        wf: g.new_v128(),
        hf: g.new_v128(),
        wm: g.new_v128(),
        hm: g.new_v128(),
    };
    g.tex_locals.insert(unit, t);
    t
}

/// The `env.tex` call for the quad.
fn generic(
    g: &mut Gen,
    ins: &KInst,
    kind: TexKind,
    unit: u8,
    target: TexTarget,
    coord: [u32; 4],
    out: [u32; 4],
) {
    let mut blocks = vec![coord];
    if kind == TexKind::Grad {
        for i in 1..3 {
            let rows = ins.src[i];
            blocks.push(std::array::from_fn(|c| rows[c]).map(|r| g.row(r)));
        }
    }
    for (b, rows) in blocks.iter().enumerate() {
        for (c, &l) in rows.iter().enumerate() {
            g.get(P_SCRATCH);
            g.get(l);
            g.emit(I::V128Store(mem((64 * b + 16 * c) as u64, 4)));
        }
    }
    g.emit(I::I32Const(i32::from(unit)));
    g.emit(I::I32Const(abi::kind_code(kind)));
    g.emit(I::I32Const(abi::target_code(target)));
    g.get(P_SCRATCH);
    g.get(P_SCRATCH);
    g.emit(I::I32Const(192));
    g.emit(I::I32Add);
    g.emit(I::Call(Import::Tex as u32));
    for (c, &o) in out.iter().enumerate() {
        g.get(P_SCRATCH);
        g.emit(I::V128Load(mem(192 + 16 * c as u64, 4)));
        g.set(o);
    }
}

/// Loads the texels at the (integral, in range) f32 indices and transposes them to
/// component vectors. The index becomes an address without a float-to-int conversion: the
/// bits of `i + 2^23` are `0x4B00_0000 + i` for integral `0 ≤ i < 2^23` (an inline texture
/// has fewer than 2^22 texels), so `bits << 4` is `16·i + 0xB000_0000` (mod 2^32), and the
/// descriptor's `base` local holds `texels − 0xB000_0000`.
fn fetch(g: &mut Gen, tl: &TexLocals, idx: u32) -> [u32; 4] {
    let at = g.temp();
    g.get(idx);
    g.splat(MAGIC);
    g.emit(I::F32x4Add);
    g.emit(I::I32Const(4));
    g.emit(I::I32x4Shl);
    g.get(tl.base);
    g.emit(I::I32x4Add);
    g.set(at);
    let t: [u32; 4] = std::array::from_fn(|_| g.temp());
    for lane in 0..4u8 {
        g.get(at);
        g.emit(I::I32x4ExtractLane(lane));
        g.emit(I::V128Load(mem(0, 4)));
        g.set(t[lane as usize]);
    }
    let shuf =
        |lanes: [u8; 4]| -> [u8; 16] { std::array::from_fn(|i| 4 * lanes[i / 4] + (i % 4) as u8) };
    let pair = |g: &mut Gen, a: u32, b: u32, lanes: [u8; 4]| {
        let r = g.temp();
        g.get(a);
        g.get(b);
        g.emit(I::I8x16Shuffle(shuf(lanes)));
        g.set(r);
        r
    };
    let lo01 = pair(g, t[0], t[1], [0, 4, 1, 5]);
    let hi01 = pair(g, t[0], t[1], [2, 6, 3, 7]);
    let lo23 = pair(g, t[2], t[3], [0, 4, 1, 5]);
    let hi23 = pair(g, t[2], t[3], [2, 6, 3, 7]);
    [
        pair(g, lo01, lo23, [0, 1, 4, 5]),
        pair(g, lo01, lo23, [2, 3, 6, 7]),
        pair(g, hi01, hi23, [0, 1, 4, 5]),
        pair(g, hi01, hi23, [2, 3, 6, 7]),
    ]
}

/// 2^23: added to a small integral f32, its bits hold the integer ([`fetch`]).
const MAGIC: f32 = 8_388_608.0;

/// `nearest_2d`: `floor(s·w).max(0).min(w - 1)`, the same in y, index `y·w + x`. The
/// clamps are `pmax`/`pmin` with the bound first, which give the bound for NaN as `max` and
/// `min` do; the index is exact in f32 (fewer than 2^22 texels).
fn nearest_clamp(g: &mut Gen, tl: &TexLocals, u: u32, v: u32) -> [u32; 4] {
    let zero = g.temp();
    g.emit(I::V128Const(0));
    g.set(zero);
    let axis = |g: &mut Gen, c: u32, n: u32, nm: u32| {
        let sc = bin(g, c, n, I::F32x4Mul);
        let f = un(g, sc, I::F32x4Floor);
        let lo = bin(g, zero, f, I::F32x4PMax);
        bin(g, nm, lo, I::F32x4PMin)
    };
    let x = axis(g, u, tl.wf, tl.wm);
    let y = axis(g, v, tl.hf, tl.hm);
    let yw = bin(g, y, tl.wf, I::F32x4Mul);
    let idx = bin(g, yw, x, I::F32x4Add);
    fetch(g, tl, idx)
}

/// `i.rem_euclid(n)` for small integral `i` in f32: `i - n·floor(i / n)` (exact here).
fn rem_euclid(g: &mut Gen, i: u32, n: u32) -> u32 {
    let q = bin(g, i, n, I::F32x4Div);
    let fq = un(g, q, I::F32x4Floor);
    let m = bin(g, n, fq, I::F32x4Mul);
    bin(g, i, m, I::F32x4Sub)
}

/// `frc(s)·n`.
fn repeat_coord(g: &mut Gen, s: u32, n: u32) -> u32 {
    let f = un(g, s, I::F32x4Floor);
    let fr = bin(g, s, f, I::F32x4Sub);
    bin(g, fr, n, I::F32x4Mul)
}

/// `nearest_index` with repeat: `floor(frc(s)·n).max(-1).min(n)`, wrapped.
fn nearest_repeat(g: &mut Gen, tl: &TexLocals, u: u32, v: u32) -> [u32; 4] {
    let m1 = konst(g, -1.0);
    let axis = |g: &mut Gen, c: u32, n: u32| {
        let uu = repeat_coord(g, c, n);
        let f = un(g, uu, I::F32x4Floor);
        let lo = max(g, f, m1);
        let i = min(g, lo, n);
        rem_euclid(g, i, n)
    };
    let x = axis(g, u, tl.wf);
    let y = axis(g, v, tl.hf);
    let yw = bin(g, y, tl.wf, I::F32x4Mul);
    let idx = bin(g, yw, x, I::F32x4Add);
    fetch(g, tl, idx)
}

/// `linear_coords`: the two wrapped indices and the weight along one axis.
fn linear_axis(g: &mut Gen, c: u32, n: u32, repeat: bool) -> (u32, u32, u32) {
    let zero = konst(g, 0.0);
    let one = konst(g, 1.0);
    let half = konst(g, 0.5);
    let base = if repeat {
        repeat_coord(g, c, n)
    } else {
        bin(g, c, n, I::F32x4Mul)
    };
    let u = bin(g, base, half, I::F32x4Sub);
    let lo = konst(g, -2.0);
    let hi = bin(g, n, one, I::F32x4Add);
    let below = bin(g, u, lo, I::F32x4Lt);
    let uc = select(g, below, lo, u);
    let above = bin(g, uc, hi, I::F32x4Gt);
    let uc = select(g, above, hi, uc);
    let nan = bin(g, u, u, I::F32x4Ne);
    let u = select(g, nan, zero, uc);
    let i0 = un(g, u, I::F32x4Floor);
    let f = bin(g, u, i0, I::F32x4Sub);
    let i1 = bin(g, i0, one, I::F32x4Add);
    let wrap = |g: &mut Gen, i: u32| {
        if repeat {
            rem_euclid(g, i, n)
        } else {
            let neg = bin(g, i, zero, I::F32x4Lt);
            let a = select(g, neg, zero, i);
            let nm = bin(g, n, one, I::F32x4Sub);
            let big = bin(g, a, nm, I::F32x4Gt);
            select(g, big, nm, a)
        }
    };
    let x0 = wrap(g, i0);
    let x1 = wrap(g, i1);
    (x0, x1, f)
}

/// Bilinear: `lerp(fy, lerp(fx, t00, t10), lerp(fx, t01, t11))`, `lerp = a + f·(b - a)`.
fn linear(g: &mut Gen, tl: &TexLocals, u: u32, v: u32, repeat: bool) -> [u32; 4] {
    let (x0, x1, fx) = linear_axis(g, u, tl.wf, repeat);
    let (y0, y1, fy) = linear_axis(g, v, tl.hf, repeat);
    let at = |g: &mut Gen, x: u32, y: u32| {
        let yw = bin(g, y, tl.wf, I::F32x4Mul);
        let idx = bin(g, yw, x, I::F32x4Add);
        fetch(g, tl, idx)
    };
    let t00 = at(g, x0, y0);
    let t10 = at(g, x1, y0);
    let t01 = at(g, x0, y1);
    let t11 = at(g, x1, y1);
    let lerp = |g: &mut Gen, f: u32, a: u32, b: u32| {
        let d = bin(g, b, a, I::F32x4Sub);
        let p = bin(g, f, d, I::F32x4Mul);
        bin(g, a, p, I::F32x4Add)
    };
    [0usize, 1, 2, 3].map(|c| {
        let a = lerp(g, fx, t00[c], t10[c]);
        let b = lerp(g, fx, t01[c], t11[c]);
        lerp(g, fy, a, b)
    })
}

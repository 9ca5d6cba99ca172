//! Vector packing (SLP): two componentwise instructions of one opcode that write disjoint
//! components of one register become one instruction writing both.
//!
//! `ADD r0.x, r1.x, c0.x` … `ADD r0.y, r1.y, c0.z` becomes `ADD r0.xy, r1.xy, c0.xz`: one
//! slot instead of two. The rules follow Mesa's `nir_opt_vectorize` (same opcode, sources
//! that can be combined into one swizzle, nothing crossing a vec4) and the legality half of
//! LLVM's SLP vectorizer (no dependence between the pair, scheduling one next to the other
//! must not reorder a dependent access). A pair (A before B) merges when:
//!
//! - the opcode computes lane `c` from lane `c` of its sources only (`Shape::Componentwise`;
//!   not `sgn`, whose extra operands are scratch, nor `mova`/`setp`, which write address or
//!   predicate registers). Scalar ops (`RCP RSQ EX2 LG2 POW SIN COS`), dot products and the
//!   other shapes compute one value from fixed lanes and are never merged;
//! - both write the same register without relative addressing, with disjoint write masks,
//!   the same `_SAT`/`_sat` and `_pp`, and neither is predicated;
//! - operand `k` of both reads the same register with the same negation and `_abs` (source
//!   modifiers apply to a whole operand, not to a component), without relative addressing.
//!   `ADD`, `MUL` and the product of `MAD` may take B's two operands in swapped order;
//! - B does not read a component A writes (a true dependence; the opposite direction is
//!   harmless because an instruction reads all its operands before it writes);
//! - every instruction between them can be crossed: B moves up to A (or A down to B) only
//!   when the crossed instruction neither writes what the moving one reads, nor reads or
//!   writes what it writes. Flow control, texture reads, kills, predicated instructions and
//!   relatively addressed destinations are never crossed, so texture indirections and
//!   dependent-read levels stay as they were;
//! - the merged swizzles are ones the profile accepts (ps_2_0 and ps_2_x: no arbitrary
//!   swizzles; unread lanes are filled to reach an accepted form) and the dialect's operand
//!   rules accept the instruction (`hoist_asm::check_inst`).
//!
//! Legality: each written lane of the merged instruction applies the same operation to the
//! same source lanes (same registers, modifiers and values, since nothing in between writes
//! them and A does not feed B) as the instruction it came from, and clamps the same way, so
//! every value is bit-for-bit what the pair computed. Each operand reads the register its
//! two originals read, so the merged instruction reads exactly the registers A read: read-port
//! limits (one constant per vs_1_1 / ARB vertex instruction, two in ps_2_0) cannot be
//! exceeded. Every merge removes one instruction, so slot counts only decrease.

use crate::tracked::Tracked;
use hoist_asm::Profile;
use hoist_asm::ir::{Inst, Program, Reg, RegFile, Swizzle, WriteMask};
use hoist_asm::ops::{Op, Shape};

/// Merges pairs in `t` until none is left; returns whether anything merged.
pub fn run(t: &mut Tracked) -> bool {
    merge(t) > 0
}

/// Merges pairs in a program without provenance; returns the number of merges.
pub fn pack(program: &mut Program) -> usize {
    let mut t = Tracked::new(std::mem::replace(program, Program::new(program.profile)));
    let n = merge(&mut t);
    *program = t.program;
    n
}

/// Merges pairs in `t` until none is left; returns the number of merges. The merged
/// instruction keeps the earlier instruction's provenance, with its operands marked changed.
pub fn merge(t: &mut Tracked) -> usize {
    let mut merges = 0;
    // Pairs before the last merge were refused; a merge can only unblock an earlier pair by
    // removing an instruction between it, which the final pass from the start catches.
    let mut from = 0;
    loop {
        let Some((i, j, merged, at_first)) = find(&t.program, from) else {
            if from == 0 {
                break;
            }
            from = 0;
            continue;
        };
        from = i;
        let keep = if at_first { i } else { j };
        let drop = if at_first { j } else { i };
        t.program.insts[keep] = merged;
        t.lines[keep] = t.lines[i];
        t.lines[keep].mark_dst();
        for k in 0..t.program.insts[keep].src.len() {
            t.lines[keep].mark_src(k);
        }
        t.program.insts.remove(drop);
        t.lines.remove(drop);
        merges += 1;
    }
    merges
}

/// The first mergeable pair `(i, j)`, the merged instruction, and whether it goes at `i`
/// (B moved up) or at `j` (A moved down).
fn find(p: &Program, from: usize) -> Option<(usize, usize, Inst, bool)> {
    for i in from..p.insts.len() {
        if !candidate(&p.insts[i]) {
            continue;
        }
        for j in i + 1..p.insts.len() {
            if barrier(&p.insts[j]) {
                break;
            }
            if !same_target(&p.insts[i], &p.insts[j]) {
                continue;
            }
            let Some(merged) = combine(p, &p.insts[i], &p.insts[j]) else {
                continue;
            };
            let between = &p.insts[i + 1..j];
            if between.iter().all(|m| independent(&p.insts[j], m)) {
                return Some((i, j, merged, true));
            }
            if between.iter().all(|m| independent(&p.insts[i], m)) {
                return Some((i, j, merged, false));
            }
        }
    }
    None
}

/// The cheap part of [`combine`]'s test: one opcode, one destination register, disjoint masks.
fn same_target(a: &Inst, b: &Inst) -> bool {
    match (&a.dst, &b.dst) {
        (Some(x), Some(y)) => a.op == b.op && x.reg == y.reg && x.mask.intersect(y.mask).is_empty(),
        _ => false,
    }
}

/// Whether `inst` may be one of a merged pair.
fn candidate(inst: &Inst) -> bool {
    inst.info().shape == Shape::Componentwise
        && !matches!(inst.op, Op::Sgn | Op::Mova | Op::Setp(_))
        && inst.pred.is_none()
        && inst.tex.is_none()
        && inst.ext_swizzle.is_none()
        && inst
            .dst
            .as_ref()
            .is_some_and(|d| d.rel.is_none() && d.reg.file != RegFile::Address)
        && inst.src.iter().all(|s| s.rel.is_none())
}

/// Instructions nothing moves across.
fn barrier(m: &Inst) -> bool {
    m.op.is_flow()
        || m.op.is_texture()
        || m.op.is_kill()
        || m.pred.is_some()
        || m.dst.as_ref().is_some_and(|d| d.rel.is_some())
        || matches!(m.op, Op::Nop | Op::Setp(_))
}

/// Register components an instruction reads (matrix macros: every row; relative
/// addressing: the address register).
fn reads(inst: &Inst) -> Vec<(Reg, WriteMask)> {
    let mut out = Vec::new();
    for (k, s) in inst.src.iter().enumerate() {
        let m = inst.reads_of(k);
        let rows = match inst.op.matrix_rows() {
            Some(r) if k == 1 => r as u16,
            _ => 1,
        };
        for r in 0..rows {
            out.push((Reg::new(s.reg.file, s.reg.index + r), m));
        }
        if let Some(rel) = &s.rel {
            out.push((rel.reg, WriteMask::single(rel.comp)));
        }
    }
    out
}

fn overlaps(list: &[(Reg, WriteMask)], reg: Reg, mask: WriteMask) -> bool {
    list.iter()
        .any(|&(r, m)| r == reg && !m.intersect(mask).is_empty())
}

/// Whether `moving` and `m` can swap places: neither reads what the other writes, and they
/// do not write the same components.
fn independent(moving: &Inst, m: &Inst) -> bool {
    let Some(d) = &moving.dst else { return false };
    if let Some(md) = &m.dst {
        if overlaps(&reads(moving), md.reg, md.mask) {
            return false;
        }
        if md.reg == d.reg && !md.mask.intersect(d.mask).is_empty() {
            return false;
        }
    }
    !overlaps(&reads(m), d.reg, d.mask)
}

/// The instruction computing both `a` and `b` (`a` first), if they can merge.
fn combine(p: &Program, a: &Inst, b: &Inst) -> Option<Inst> {
    if !candidate(b) || a.op != b.op || a.sat != b.sat || a.pp != b.pp {
        return None;
    }
    let (da, db) = (a.dst.as_ref()?, b.dst.as_ref()?);
    if da.reg != db.reg || !da.mask.intersect(db.mask).is_empty() {
        return None;
    }
    if overlaps(&reads(b), da.reg, da.mask) {
        return None;
    }
    let direct = merged_sources(p, a, b, false);
    direct.or_else(|| swappable(a.op).then(|| merged_sources(p, a, b, true))?)
}

/// Ops whose first two operands commute bit for bit.
fn swappable(op: Op) -> bool {
    matches!(op, Op::Add | Op::Mul | Op::Mad)
}

/// `a` widened to `b`'s lanes, operand by operand (`b`'s first two swapped when `swap`).
fn merged_sources(p: &Program, a: &Inst, b: &Inst, swap: bool) -> Option<Inst> {
    let (ma, mb) = (a.dst_lanes(), b.dst_lanes());
    let mut out = a.clone();
    let d = out.dst.as_mut()?;
    d.mask = ma.union(mb);
    for k in 0..a.src.len() {
        let kb = if swap && k < 2 { 1 - k } else { k };
        let (sa, sb) = (&a.src[k], &b.src[kb]);
        if sa.reg != sb.reg || sa.negate != sb.negate || sa.abs != sb.abs {
            return None;
        }
        let mut lanes = [None::<u8>; 4];
        for l in ma.iter() {
            lanes[l as usize] = Some(sa.swizzle.get(l));
        }
        for l in mb.iter() {
            lanes[l as usize] = Some(sb.swizzle.get(l));
        }
        out.src[k].swizzle = fill(p, lanes)?;
    }
    legal(p, &out).then_some(out)
}

/// A swizzle with the given lanes (`None`: unread, any component) that the profile accepts: the identity where free, then each replicate and each of
/// ps_2_0's fixed swizzles that agree with the read lanes.
fn fill(p: &Program, lanes: [Option<u8>; 4]) -> Option<Swizzle> {
    let agrees = |s: Swizzle| (0..4u8).all(|l| lanes[l as usize].is_none_or(|c| s.get(l) == c));
    let identity_fill = {
        let c = |l: u8| lanes[l as usize].unwrap_or(l);
        Swizzle::new(c(0), c(1), c(2), c(3))
    };
    let mut candidates = vec![identity_fill];
    candidates.extend((0..4).map(Swizzle::splat));
    candidates.extend([
        Swizzle::IDENTITY,
        Swizzle::new(1, 2, 0, 3),
        Swizzle::new(2, 0, 1, 3),
        Swizzle::new(3, 2, 1, 0),
    ]);
    candidates
        .into_iter()
        .find(|&s| agrees(s) && swizzle_ok(p.profile, s))
}

/// ps_2_0's swizzle rule where written code keeps to it (`Profile::keeps_ps2_0_swizzles`).
fn swizzle_ok(profile: Profile, s: Swizzle) -> bool {
    !profile.keeps_ps2_0_swizzles() || hoist_asm::d3d9::rules::ps2_0_swizzle(s)
}

/// The dialect's operand rules accept `inst` in `p`.
fn legal(p: &Program, inst: &Inst) -> bool {
    inst.src.iter().all(|s| swizzle_ok(p.profile, s.swizzle))
        && hoist_asm::check_inst(p, inst).is_empty()
}

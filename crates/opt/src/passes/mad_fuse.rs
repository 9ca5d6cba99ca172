//! MUL + ADD → MAD: `mul d, a, b` whose result only one `add e, d, c` reads becomes
//! `mad e, a', b', c` (the operands' swizzles composed with the add's), and the `mul` goes.
//! On an R600-family GPU this is the paper's `MUL_e + ADD → MULADD`: one VLIW slot and one
//! dependent group fewer.
//!
//! Legality: the executor's (and the hardware's MULADD, and both specs') MAD rounds the
//! product before the add, so the result is bit-for-bit the two instructions' result. The
//! rewrite is made only when the `mul`'s written components are read by that `add` alone
//! (a temporary, so nothing after the program reads it), the `add` reads no component of
//! `d` from another definition, `d` is not one of the `mul`'s operands, neither operand's
//! register is written between the two, the `mul` is not saturated, the `add` reads `d`
//! with no absolute value and no relative address (a negation moves onto `a`), and the
//! program still validates under its limits (swizzle rules, read ports). Programs with flow
//! control or predication are left alone.

use crate::tracked::Tracked;
use hoist_asm::ir::{Inst, Program, RegFile, Src, WriteMask};
use hoist_asm::ops::Op;
use hoist_asm::profile::Limits;

/// Whether the pass may look at this program (straight-line code only).
pub(crate) fn straight_line(p: &Program) -> bool {
    p.insts.iter().all(|i| !i.op.is_flow() && i.pred.is_none())
}

/// The one instruction reading what instruction `i` (writing a temporary) defines, when
/// every component it reads of that register comes from `i`; None when there are several
/// readers, none, or a reader mixing definitions.
pub(crate) fn sole_reader(p: &Program, i: usize) -> Option<usize> {
    let d = p.insts[i].dst.as_ref()?;
    if d.reg.file != RegFile::Temp || d.rel.is_some() {
        return None;
    }
    let mut live = d.mask;
    let mut reader = None;
    for (k, inst) in p.insts.iter().enumerate().skip(i + 1) {
        if live.is_empty() {
            break;
        }
        let mut reads = WriteMask::NONE;
        let mut other = WriteMask::NONE;
        for s in 0..inst.src.len() {
            if inst.src[s].reg == d.reg || inst.src[s].rel.is_some() {
                let r = inst.reads_of(s);
                reads = reads.union(WriteMask(r.0 & live.0));
                other = other.union(WriteMask(r.0 & !live.0));
            }
        }
        if !reads.is_empty() {
            if reader.is_some() || !other.is_empty() {
                return None;
            }
            reader = Some(k);
        }
        if let Some(w) = &inst.dst
            && w.reg == d.reg
        {
            live = WriteMask(live.0 & !w.mask.0);
        }
    }
    reader
}

/// Whether register `reg` is written by an instruction strictly between `i` and `j`.
pub(crate) fn written_between(p: &Program, reg: hoist_asm::ir::Reg, i: usize, j: usize) -> bool {
    p.insts.get(i + 1..j).unwrap_or_default().iter().any(|k| {
        k.dst
            .as_ref()
            .is_some_and(|d| d.reg == reg || d.rel.is_some())
    })
}

/// Tries one rewrite at `mul` index `i`; returns the new instruction for the reader.
fn fuse(p: &Program, i: usize) -> Option<(usize, Inst)> {
    let mul = &p.insts[i];
    if mul.op != Op::Mul || mul.sat || mul.pred.is_some() {
        return None;
    }
    let d = mul.dst.as_ref()?;
    let j = sole_reader(p, i)?;
    let add = &p.insts[j];
    if add.op != Op::Add {
        return None;
    }
    let which: Vec<usize> = (0..2).filter(|&k| add.src[k].reg == d.reg).collect();
    let [k] = which[..] else { return None };
    let via = &add.src[k];
    if via.abs || via.rel.is_some() {
        return None;
    }
    for s in &mul.src {
        if s.reg == d.reg || s.rel.is_some() || written_between(p, s.reg, i, j) {
            return None;
        }
    }
    let compose = |s: &Src| -> Src {
        let mut n = s.clone();
        n.swizzle = via.swizzle.compose(s.swizzle);
        n
    };
    let mut a = compose(&mul.src[0]);
    let b = compose(&mul.src[1]);
    if via.negate {
        a.negate = !a.negate;
    }
    let c = add.src[1 - k].clone();
    let mut mad = Inst::new(Op::Mad, add.dst.clone(), [a, b, c]);
    mad.sat = add.sat;
    mad.pp = add.pp && mul.pp;
    mad.span = add.span;
    mad.comment = add.comment.clone();
    Some((j, mad))
}

/// Fuses every eligible pair; returns whether anything changed.
pub fn run(t: &mut Tracked, limits: &Limits) -> bool {
    if !straight_line(&t.program) {
        return false;
    }
    let mut progress = false;
    let mut i = 0;
    while i < t.program.insts.len() {
        if let Some((j, mad)) = fuse(&t.program, i) {
            let mut trial = t.program.clone();
            trial.insts[j] = mad;
            trial.insts.remove(i);
            let ok = hoist_asm::validate::check(&trial, limits)
                .iter()
                .all(|d| !d.is_error());
            if ok {
                t.program.insts[j] = trial.insts[j - 1].clone();
                t.lines[j].mark_src(0);
                t.lines[j].mark_src(1);
                t.lines[j].mark_src(2);
                t.retain(|k| k != i);
                progress = true;
                continue;
            }
        }
        i += 1;
    }
    progress
}

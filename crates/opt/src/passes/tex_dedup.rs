//! Duplicate texture fetch removal: a second fetch of the same unit and target with the
//! same coordinate operand as an earlier one becomes a `mov` from the first fetch's result
//! (one fetch fewer; on R600 one fewer TEX instruction, sometimes one TEX clause fewer).
//!
//! Legality: a fetch is a function of its unit, target, opcode and coordinate (implicit
//! derivatives included: the same coordinate register gives the same derivatives), so the
//! second fetch returns exactly what the first did when the coordinate's register is not
//! written between them, the first fetch wrote every component the second writes and those
//! components are not overwritten in between, and both have the same saturation. Programs
//! with flow control or predication are left alone; the result must still validate.

use super::mad_fuse::{straight_line, written_between};
use crate::tracked::Tracked;
use hoist_asm::ir::{Inst, Program, Src};
use hoist_asm::ops::Op;
use hoist_asm::profile::Limits;

fn same_src(a: &Src, b: &Src) -> bool {
    a.reg == b.reg
        && a.swizzle == b.swizzle
        && a.negate == b.negate
        && a.abs == b.abs
        && a.rel.is_none()
        && b.rel.is_none()
}

fn same_fetch(a: &Inst, b: &Inst) -> bool {
    a.op == b.op
        && a.tex == b.tex
        && a.sat == b.sat
        && a.src.len() == b.src.len()
        && a.src.iter().zip(&b.src).all(|(x, y)| same_src(x, y))
}

/// The earlier fetch `j` can stand in for, if any.
fn earlier(p: &Program, j: usize) -> Option<usize> {
    let second = &p.insts[j];
    if !second.op.is_texture() {
        return None;
    }
    let d2 = second.dst.as_ref()?;
    (0..j).rev().find(|&i| {
        let first = &p.insts[i];
        let Some(d1) = first.dst.as_ref() else {
            return false;
        };
        same_fetch(first, second)
            && d1.reg != first.src[0].reg
            && d1.rel.is_none()
            && d2.mask.0 & !d1.mask.0 == 0
            && !first.src.iter().any(|s| written_between(p, s.reg, i, j))
            && !written_between(p, d1.reg, i, j)
    })
}

/// Replaces every duplicate fetch; returns whether anything changed.
pub fn run(t: &mut Tracked, limits: &Limits) -> bool {
    if !straight_line(&t.program) {
        return false;
    }
    let mut progress = false;
    for j in 0..t.program.insts.len() {
        let Some(i) = earlier(&t.program, j) else {
            continue;
        };
        let Some(d1) = t.program.insts[i].dst.clone() else {
            continue;
        };
        let second = &t.program.insts[j];
        let mut mov = Inst::new(Op::Mov, second.dst.clone(), [Src::new(d1.reg)]);
        mov.span = second.span;
        mov.comment = second.comment.clone();
        let mut trial = t.program.clone();
        trial.insts[j] = mov.clone();
        if hoist_asm::validate::check(&trial, limits)
            .iter()
            .all(|d| !d.is_error())
        {
            t.program.insts[j] = mov;
            t.lines[j].mark_src(0);
            progress = true;
        }
    }
    progress
}

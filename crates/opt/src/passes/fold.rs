//! Constant folding of moved vertex code.
//!
//! Uniform helpers that moved to the vertex program often compute a value from literals
//! only (`rcp r0.w, c3.x` with `def c3, 256, ...`, or `mul r2.x, c0.x, c5.x`). Such an
//! instruction becomes a `mov` of a new literal, which copy propagation then folds into its
//! readers; besides a slot, this often saves the extra `mov` vs_1_1 needs when an
//! instruction reads two constant registers.
//!
//! Legality: only exactly rounded operations are folded (`mov add sub mul mad min max abs`,
//! `rcp`, `rsq`, `_sat`), evaluated by [`hoist_asm::semantics`], the functions the executor
//! runs (unfused `a * b + c`, D3D9's `rcp(0) = rsq(0) = FLT_MAX`, NaN saturating to 0,
//! `min`/`max` keeping the first operand on a tie, so the sign of equal zeros, where
//! `f32::min`/`max` leave it to the build).
//! IEEE arithmetic gives the same bits at compile time as at run time, so the folded literal
//! is exactly the value the instruction computed. `crates/verify/tests/fold.rs` holds this
//! module and the executor together on random operands.

use crate::fxhash::FastMap as HashMap;
use crate::tracked::Tracked;
use hoist_asm::ir::{ConstBinding, Dialect, Program, Reg, RegFile, Src, Swizzle};
use hoist_asm::ops::Op;
use hoist_asm::semantics;

/// Exactly rounded scalar semantics of the folded ops (lane `c` of each source given).
pub fn eval(op: Op, d: Dialect, a: &[f32]) -> Option<f32> {
    let x = *a.first()?;
    let r = match op {
        Op::Mov => x,
        Op::Abs => x.abs(),
        Op::Add => x + a.get(1)?,
        Op::Sub => x - a.get(1)?,
        Op::Mul => x * a.get(1)?,
        Op::Mad => x * a.get(1)? + a.get(2)?,
        Op::Min => semantics::min(x, *a.get(1)?),
        Op::Max => semantics::max(x, *a.get(1)?),
        Op::Rcp => semantics::rcp(x, d),
        Op::Rsq => semantics::rsq(x, d),
        _ => return None,
    };
    Some(r)
}

fn literal(p: &Program, s: &Src, comp: u8) -> Option<f32> {
    if s.reg.file != RegFile::Const || s.rel.is_some() {
        return None;
    }
    match &p.consts.get(s.reg.index as usize)?.binding {
        ConstBinding::Literal(l) => Some(l.value[comp as usize]),
        _ => None,
    }
}

/// Folds non-original instructions whose inputs are all literals, and replaces operands
/// whose components are all known literals by one literal (`legal` vets each such rewrite).
/// Returns whether anything changed.
pub fn run(
    t: &mut Tracked,
    max_consts: u16,
    legal: &dyn Fn(&Program, usize, usize, &Src) -> bool,
) -> bool {
    let d = t.program.dialect();
    let mut known: HashMap<(Reg, u8), f32> = HashMap::default();
    let mut progress = false;
    for i in 0..t.program.insts.len() {
        let inst = t.program.insts[i].clone();
        let Some(dst) = inst.dst.clone() else {
            continue;
        };
        let scalar = matches!(inst.op, Op::Rcp | Op::Rsq);
        let foldable = !t.lines[i].is_original()
            && dst.rel.is_none()
            && eval(inst.op, d, &[1.0, 1.0, 1.0]).is_some()
            && inst.src.iter().all(|s| !s.abs && s.rel.is_none());
        let mut values = [0f32; 4];
        let mut ok = foldable;
        if ok {
            for lane in dst.mask.iter() {
                let mut args = [0f32; 3];
                for (k, s) in inst.src.iter().enumerate() {
                    let comp = s.swizzle.get(if scalar { 0 } else { lane });
                    let v =
                        literal(&t.program, s, comp).or_else(|| known.get(&(s.reg, comp)).copied());
                    match v {
                        Some(v) => args[k] = if s.negate { -v } else { v },
                        None => ok = false,
                    }
                }
                if !ok {
                    break;
                }
                let r = eval(inst.op, d, &args[..inst.src.len()]).expect("op is foldable");
                values[lane as usize] = if inst.sat { semantics::sat(r) } else { r };
            }
        }
        if !ok && !t.lines[i].is_original() {
            progress |= propagate_operands(t, i, &known, max_consts, legal);
        }
        for c in dst.mask.iter() {
            known.remove(&(dst.reg, c));
        }
        if !ok || dst.reg.file != RegFile::Temp {
            continue;
        }
        if inst.op != Op::Mov || !inst.src.iter().all(|s| s.reg.file == RegFile::Const) || inst.sat
        {
            let Some(slot) =
                crate::edit::literal_slot(&mut t.program, values, max_consts, None, &[])
            else {
                continue;
            };
            let mut m = hoist_asm::Inst::new(
                Op::Mov,
                Some(dst.clone()),
                [Src::new(Reg::new(RegFile::Const, slot)).swizzled(Swizzle::IDENTITY)],
            );
            m.comment = t.program.insts[i].comment.clone();
            t.program.insts[i] = m;
            t.lines[i].mark_src(0);
            progress = true;
        }
        for c in dst.mask.iter() {
            known.insert((dst.reg, c), values[c as usize]);
        }
    }
    progress
}

/// Replaces each temporary operand of instruction `i` whose read components all hold known
/// literals by a literal holding those values at the same components.
fn propagate_operands(
    t: &mut Tracked,
    i: usize,
    known: &HashMap<(Reg, u8), f32>,
    max_consts: u16,
    legal: &dyn Fn(&Program, usize, usize, &Src) -> bool,
) -> bool {
    let inst = t.program.insts[i].clone();
    let lanes = if inst.info().has_dst {
        inst.dst_lanes()
    } else {
        hoist_asm::WriteMask::ALL
    };
    let mut changed = false;
    for (k, s) in inst.src.iter().enumerate() {
        if s.reg.file != RegFile::Temp
            || s.rel.is_some()
            || (k == 1 && inst.op.matrix_rows().is_some())
        {
            continue;
        }
        let reads = inst.src_reads(k, lanes);
        if reads.is_empty() {
            continue;
        }
        let mut v = [0f32; 4];
        if !reads
            .iter()
            .all(|c| known.get(&(s.reg, c)).map(|x| v[c as usize] = *x).is_some())
        {
            continue;
        }
        // A slot that ends up unused is dropped later (`edit::prune_added_consts`).
        let Some(slot) = crate::edit::literal_slot(&mut t.program, v, max_consts, None, &[]) else {
            continue;
        };
        let mut new = s.clone();
        new.reg = Reg::new(RegFile::Const, slot);
        new.name = None;
        if !legal(&t.program, i, k, &new) {
            continue;
        }
        t.program.insts[i].src[k] = new;
        t.lines[i].mark_src(k);
        changed = true;
    }
    changed
}

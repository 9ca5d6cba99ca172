//! Which fragment selects may see an infinite or NaN value operand, although every input is
//! finite.
//!
//! ARB vertex programs (and vs_1_1) have no select, so a moved `CMP`/`cmp`/`cnd` is emulated
//! as `b·m + c·(1−m)` with a 0/1 mask `m` (`passes/lower.rs`). That is exact for finite `b`
//! and `c`, but an infinite unselected side gives `∞·0 = NaN` where the select returned the
//! other side. This analysis finds the selects where that can happen, so they stay.
//!
//! Host inputs (attributes, parameters, texels) are taken as finite; the values that can
//! become infinite or NaN from finite inputs are the results of the ops that divide, take
//! logarithms or exponentiate (`RCP`, `RSQ`, `LG2`/`LOG`, `EX2`/`EXP`, `POW`, `LIT`), and
//! whatever is computed from them, through the vertex program, the interpolants it writes,
//! and the fragment program. `SLT`/`SGE` (0 or 1) and address loads end such a chain.
//! Overflow of finite products is not tracked: the emulation stays exact unless an operand
//! is already infinite, which needs magnitudes beyond 10^19 in a product of moderate inputs.

use super::interp::InterpMap;
use crate::fxhash::FastMap as HashMap;
use hoist_asm::ir::{Inst, Program, Reg, RegFile, WriteMask};
use hoist_asm::ops::Op;

/// Per register: the components that may hold a non-finite value.
type State = HashMap<Reg, WriteMask>;

fn creates(op: Op) -> bool {
    matches!(
        op,
        Op::Rcp | Op::Rsq | Op::Lg2 | Op::Log | Op::Ex2 | Op::Exp | Op::Pow | Op::Lit
    )
}

fn bounded(op: Op) -> bool {
    matches!(op, Op::Slt | Op::Sge | Op::Arl | Op::Mova) || op.is_kill()
}

/// Whether source `k` of `inst` reads a component that may be non-finite.
fn reads_nonfinite(
    state: &State,
    inputs: &dyn Fn(Reg) -> WriteMask,
    inst: &Inst,
    k: usize,
) -> bool {
    let s = &inst.src[k];
    let flagged = match s.reg.file {
        RegFile::Temp => state.get(&s.reg).copied().unwrap_or(WriteMask::NONE),
        f if f.is_input() => inputs(s.reg),
        _ => WriteMask::NONE,
    };
    !inst.reads_of(k).intersect(flagged).is_empty()
}

/// Runs `p` over the flags, calling `visit` with each instruction before its write.
fn walk(
    p: &Program,
    inputs: &dyn Fn(Reg) -> WriteMask,
    mut visit: impl FnMut(usize, &Inst, &State),
) -> State {
    let mut state = State::default();
    for (i, inst) in p.insts.iter().enumerate() {
        visit(i, inst, &state);
        let Some(d) = &inst.dst else { continue };
        let tainted = !bounded(inst.op)
            && (creates(inst.op)
                || (0..inst.src.len()).any(|k| reads_nonfinite(&state, inputs, inst, k)));
        let e = state.entry(d.reg).or_insert(WriteMask::NONE);
        *e = if tainted {
            e.union(d.mask)
        } else {
            e.minus(d.mask)
        };
    }
    state
}

/// Per fragment instruction: whether it is a select whose value operands may be non-finite.
pub fn nonfinite_selects(vp: &Program, fp: &Program, interp: &InterpMap) -> Vec<bool> {
    let outputs = walk(vp, &|_| WriteMask::NONE, |_, _, _| {});
    let inputs = |r: Reg| {
        interp
            .links
            .get(&r)
            .and_then(|o| outputs.get(o).copied())
            .unwrap_or(WriteMask::NONE)
    };
    let mut selects = vec![false; fp.insts.len()];
    walk(fp, &inputs, |i, inst, state| {
        selects[i] = matches!(inst.op, Op::Cmp | Op::CmpGe | Op::Cnd)
            && (1..inst.src.len()).any(|k| reads_nonfinite(state, &inputs, inst, k));
    });
    selects
}

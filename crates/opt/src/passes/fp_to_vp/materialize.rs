//! The fragment program after motion. Each moved instruction becomes `mov`s that read its
//! transported components back into the register it used to write, so every staying
//! instruction sees exactly the values it saw before (copy propagation then reads the
//! interpolators directly where it can, and dead-code elimination drops the rest). A
//! staying operand the packing placed in one register reads that register directly, its
//! swizzle pointing at where each value travels; every interpolator register in use is
//! declared with its values' qualifier.

use super::layout::{Packed, Val, channel_of};
use super::types::{Infeasible, Input, Mirror};
use crate::analysis::varyings::Change;
use crate::edit;
use crate::passes::varying_uniform;
use crate::tracked::{AddedFor, Line, Tracked};
use hoist_asm::ir::{Comp, Dst, Inst, Src, Swizzle, WriteMask};
use hoist_asm::ops::Op;

/// The fragment program with the moved instructions (except those kept in both programs)
/// replaced by reads of their interpolators, and the uniform-expression interpolants the
/// packing chose recomputed at its top; with the fragment copies of vertex parameters and
/// the log of the recomputation.
pub(super) fn fragment(
    x: &Input,
    selected: &[bool],
    packed: &Packed,
) -> Result<(Tracked, Vec<Mirror>, Vec<Change>), Infeasible> {
    let fp = x.fp;
    let dup = &packed.dup;
    let mut fpt = Tracked::new(fp.clone());
    fpt.program.insts.clear();
    fpt.lines.clear();
    let mut at = vec![usize::MAX; fp.insts.len()];
    for (i, inst) in fp.insts.iter().enumerate() {
        if !selected[i] || dup[i] {
            at[i] = fpt.len();
            let line = x.fp_lines.get(i).copied().unwrap_or(Line::original(i));
            fpt.push(inst.clone(), line);
            continue;
        }
        materialize(&mut fpt, packed, i, inst);
    }
    for &(j, k, ch) in &packed.operands {
        rewrite(
            x,
            &mut fpt,
            packed,
            (j as usize, at[j as usize]),
            k as usize,
            ch,
        );
    }
    let (mirrors, changes) = recompute(x, &mut fpt, packed, &at)?;
    for (ch, q) in packed.class.iter().enumerate() {
        let c = &packed.chans[ch];
        if let Some(d) = fpt.program.io.iter_mut().find(|d| d.reg == c.input) {
            let q = q.unwrap_or_default();
            d.interp = q.interp();
            d.pp = q.partial;
        }
    }
    Ok((fpt, mirrors, changes))
}

/// The uniform-expression interpolants of `packed` computed at the top of `fpt`, and the
/// staying operands that read them (as the original program did) reading that instead.
fn recompute(
    x: &Input,
    fpt: &mut Tracked,
    packed: &Packed,
    at: &[usize],
) -> Result<(Vec<Mirror>, Vec<Change>), Infeasible> {
    if packed.recompute.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut mirrors = x.reverse.to_vec();
    let before = fpt.len();
    let map = varying_uniform::emit(
        fpt,
        x.vp,
        x.vp_du,
        &packed.recompute,
        x.fp_limits,
        (x.mirror_params, &edit::host_params(x.fp)),
        &mut mirrors,
    )
    .map_err(|_| Infeasible::Constants {
        limit: x.fp_limits.consts as u32,
    })?;
    let shift = fpt.len() - before;
    for (j, inst) in x.fp.insts.iter().enumerate() {
        if at[j] == usize::MAX {
            continue;
        }
        let now = at[j] + shift;
        for (k, s) in inst.src.iter().enumerate() {
            let Some((_, lanes)) = map.iter().find(|(r, _)| *r == s.reg) else {
                continue;
            };
            if fpt.program.insts[now].src[k] != *s {
                continue;
            }
            let read = inst.src_lanes(k, super::layout::live_of(x, j));
            let Some((reg, first)) = read.iter().find_map(|l| lanes[s.swizzle.get(l) as usize])
            else {
                continue;
            };
            let sw: [Comp; 4] = std::array::from_fn(|l| {
                lanes[s.swizzle.get(l as u8) as usize]
                    .filter(|(r, _)| *r == reg)
                    .map_or(first, |(_, c)| c)
            });
            let n = &mut fpt.program.insts[now].src[k];
            n.reg = reg;
            n.name = None;
            n.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
            fpt.lines[now].mark_src(k);
        }
    }
    let changes = packed
        .recompute
        .iter()
        .map(|p| Change {
            pass: "varying_uniform".into(),
            input: crate::analysis::varyings::input_name(x.fp, p.reg, WriteMask::ALL),
            inst: None,
            done: true,
            what: format!(
                "computed from constants only: recomputed at the top of the fragment program \
                 ({} instruction{}), which frees its interpolator",
                p.insts.len(),
                if p.insts.len() == 1 { "" } else { "s" }
            ),
        })
        .collect();
    Ok((mirrors.split_off(x.reverse.len()), changes))
}

/// The `mov`s that put moved instruction `i`'s transported lanes back in its register.
fn materialize(fpt: &mut Tracked, packed: &Packed, i: usize, inst: &Inst) {
    let dst = inst
        .dst
        .as_ref()
        .expect("moved instruction has a destination");
    let mut per_chan: Vec<(usize, WriteMask, [Comp; 4])> = Vec::new();
    for c in dst.mask.iter() {
        if let Some(&(ch, slot)) = packed.places(Val::Moved(i as u32, c)).first() {
            if let Some(e) = per_chan.iter_mut().find(|e| e.0 == ch) {
                e.1 = e.1.union(WriteMask::single(c));
                e.2[c as usize] = slot;
            } else {
                let mut sw = [0, 1, 2, 3];
                sw[c as usize] = slot;
                per_chan.push((ch, WriteMask::single(c), sw));
            }
        }
    }
    for (ch, mask, sw) in per_chan {
        let input = packed.chans[ch].input;
        let src = Src::new(input).swizzled(Swizzle::new(sw[0], sw[1], sw[2], sw[3]));
        let mut d = Dst::new(dst.reg, mask);
        d.name = dst.name;
        let mut m = Inst::new(Op::Mov, Some(d), [src]);
        m.pp = inst.pp;
        fpt.push(m, Line::added(AddedFor::Materialize, Some(i)));
        let used = WriteMask(
            sw.iter()
                .enumerate()
                .filter(|(l, _)| mask.has(*l as u8))
                .fold(0, |m, (_, &s)| m | 1 << s),
        );
        edit::declare_io(&mut fpt.program, input, packed.chans[ch].semantic, used);
    }
}

/// Operand `k` of original instruction `j` (now at `at` in `fpt`) reads channel `ch`.
fn rewrite(
    x: &Input,
    fpt: &mut Tracked,
    packed: &Packed,
    (j, at): (usize, usize),
    k: usize,
    ch: usize,
) {
    let Some(new) = operand(x, packed, j, k, ch) else {
        return;
    };
    let c = &packed.chans[ch];
    let used = new
        .swizzle
        .reads(x.fp.insts[j].src_lanes(k, super::layout::live_of(x, j)));
    let inst = &mut fpt.program.insts[at];
    if inst.src[k] != new {
        inst.src[k] = new;
        fpt.lines[at].mark_src(k);
    }
    edit::declare_io(&mut fpt.program, c.input, c.semantic, used);
}

/// The operand that reads from channel `ch` the values operand `k` of fragment instruction
/// `j` read (`None` when a read value is not there, which the packing rules out).
pub(super) fn operand(x: &Input, packed: &Packed, j: usize, k: usize, ch: usize) -> Option<Src> {
    let inst = &x.fp.insts[j];
    let s = &inst.src[k];
    let slot_of = |c: Comp| -> Option<Comp> {
        let v = if channel_of(&packed.chans, s.reg).is_some() {
            Val::Existing(s.reg, c)
        } else {
            let r = x
                .fp_du
                .reads(j)
                .iter()
                .find(|r| r.src == k as u8 && r.comp == c)?;
            Val::Moved(r.def?, c)
        };
        packed.content[ch]
            .iter()
            .position(|x| *x == Some(v))
            .map(|p| p as Comp)
    };
    let read = inst.src_lanes(k, super::layout::live_of(x, j));
    let mut sw = [0u8; 4];
    let mut first = None;
    for l in read.iter() {
        let slot = slot_of(s.swizzle.get(l))?;
        sw[l as usize] = slot;
        first.get_or_insert(slot);
    }
    let first = first?;
    let any_slot = super::layout::swizzle_free(x.fp.profile);
    let same_reg = packed.chans[ch].input == s.reg;
    for l in 0..4u8 {
        if !read.has(l) {
            // An unread lane keeps its component (where positions are fixed) or the slot
            // of its value when that is there, else repeats a read one.
            sw[l as usize] = match slot_of(s.swizzle.get(l)) {
                _ if !any_slot || same_reg => s.swizzle.get(l),
                Some(slot) => slot,
                None => first,
            };
        }
    }
    let mut n = s.clone();
    n.reg = packed.chans[ch].input;
    n.name = None;
    n.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
    Some(n)
}

/// Whether every operand rewrite of `packed` gives an instruction the profile accepts (with
/// the interpolator registers declared as the rewrite will declare them).
pub(super) fn rewrites_legal(x: &Input, packed: &Packed) -> bool {
    let mut fp = x.fp.clone();
    for c in &packed.chans {
        edit::declare_io(&mut fp, c.input, c.semantic, WriteMask::ALL);
    }
    packed.operands.iter().all(|&(j, k, ch)| {
        let (j, k) = (j as usize, k as usize);
        let Some(new) = operand(x, packed, j, k, ch) else {
            return false;
        };
        let mut inst = x.fp.insts[j].clone();
        inst.src[k] = new;
        let swizzle_ok = match x.fp.profile {
            hoist_asm::profile::Profile::Ps2_0 | hoist_asm::profile::Profile::Ps2_x => {
                if inst.op.is_texture() && k == 0 {
                    inst.src[k].swizzle.is_identity()
                } else {
                    hoist_asm::d3d9::rules::ps2_0_swizzle(inst.src[k].swizzle)
                }
            }
            _ => true,
        };
        swizzle_ok && hoist_asm::check_inst(&fp, &inst).is_empty()
    })
}

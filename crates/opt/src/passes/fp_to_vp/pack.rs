//! Interpolator packing: where every value the fragment program reads through a
//! texture-coordinate interpolator travels after the motion — the results moved code sends
//! (transports) and the interpolants the program already read (existing values) — and
//! which values are recomputed in both programs when they do not fit.
//!
//! The demand: each operand of a staying instruction that reads only interpolated values
//! (an interpolant register, or a temporary whose read components all come from moved
//! instructions) needs them in one register, read through its swizzle; an operand that
//! also reads values staying code computed gets its moved values back through `mov`s
//! (`materialize`), so those values may travel anywhere. A value may travel in several
//! registers.
//!
//! The packing is decided exactly ([`bins`]), in two steps: first with every existing
//! value where it is (nothing in the vertex program changes for them), then with all of
//! them relocated (Mesa's `compact_varyings`: the vertex program writes each existing value
//! where the packing puts it, and the fragment program reads it there). Registers hold
//! values of one qualifier only; an interpolant the vertex program writes in a way the
//! packing cannot follow (relative addressing) keeps its register as it is. When neither
//! step finds a packing, instructions are recomputed instead of transported (below), and
//! the last resort is the greedy placement with operands split across registers
//! ([`greedy`]), whose `mov`s stay in the fragment program.
//!
//! Rematerialization instead of an interpolator (seed 002, CUDAvis §5.2, applied across the
//! stages): when the transported values do not fit, a moved instruction whose staying
//! readers could get its value without an interpolator is kept in the fragment program as
//! well (its moved readers use the vertex copy): uniform helpers (functions of constants
//! only, with their uniform ancestors), and any instruction the remat pass could recompute
//! ([`crate::passes::remat::recomputable`]: one cheap instruction reading only interpolants,
//! inputs and constants). This is not the same as leaving the instruction unmoved: its
//! moved readers need it in the vertex program (a moved set is closed under dependences),
//! so without the copy they would have to stay too. The copy is the original instruction
//! on the original inputs, so the staying readers see exactly the values they saw before:
//! bit for bit, for any operation. Each copy costs one fragment slot per fragment, which the
//! selection's cost model charges like any other instruction; the packing keeps as few
//! copies as fit (each, in program order, goes back to being transported when it still
//! fits).

use super::bins::{self, Answer, Problem};
use super::greedy;
pub(super) use super::layout::{
    Channel, Packed, Relocation, Val, channel_of, live_reads, swizzle_free, texcoord_of,
};
use super::types::{Infeasible, Input};
use crate::analysis::varyings::Qualifier;
use crate::passes::varying_uniform::Plan;
use hoist_asm::ir::{Comp, Program, Reg, RegFile, Semantic, WriteMask};
use hoist_asm::profile::Profile;

/// Search nodes each exact packing step may use.
const BUDGET: u32 = 20_000;

fn channels(x: &Input) -> Vec<Channel> {
    let n = x.vp_limits.texcoords.min(x.fp_limits.texcoords);
    let mut out = Vec::new();
    let sm3 = matches!(x.fp.profile, Profile::Ps3_0);
    let mut next_v = 0u16;
    let mut next_o = 0u16;
    for k in 0..n {
        let semantic = Semantic::TexCoord(k);
        let fp_reg = x.fp.reg_for(semantic, false);
        let vp_reg = x.vp.reg_for(semantic, true);
        let (input, out_reg) = if sm3 {
            let fresh = |file, p: &Program, next: &mut u16| {
                while p.io.iter().any(|d| d.reg == Reg::new(file, *next)) {
                    *next += 1;
                }
                *next += 1;
                Reg::new(file, *next - 1)
            };
            let input = fp_reg.unwrap_or_else(|| fresh(RegFile::Input, x.fp, &mut next_v));
            let out_reg = vp_reg.unwrap_or_else(|| fresh(RegFile::Output, x.vp, &mut next_o));
            // No register left for another interpolator.
            let count = |f, p: &Program, l| hoist_asm::d3d9::regs::file_count(f, p.profile, l);
            if u32::from(input.index) >= count(RegFile::Input, x.fp, x.fp_limits)
                || u32::from(out_reg.index) >= count(RegFile::Output, x.vp, x.vp_limits)
            {
                break;
            }
            (input, out_reg)
        } else {
            (
                Reg::new(RegFile::TexCoord, k as u16),
                Reg::new(RegFile::TexCrdOut, k as u16),
            )
        };
        // Written through relative addressing or under flow control: the vertex value of
        // a component cannot be read back to relocate it.
        let frozen = (0..4).any(|c| {
            matches!(
                x.interp.origin(input, c),
                crate::analysis::interp::Origin::Opaque(
                    crate::analysis::interp::Opacity::Relative
                        | crate::analysis::interp::Opacity::FlowControl
                )
            )
        });
        out.push(Channel {
            out: out_reg,
            input,
            semantic,
            free: WriteMask::ALL,
            frozen,
        });
    }
    out
}

/// Free components of each interpolator register the pair could still use with every
/// existing interpolant where it is.
pub fn free_components(x: &Input) -> Vec<WriteMask> {
    let staying = vec![true; x.fp.insts.len()];
    let mut chans = channels(x);
    mark_taken(x, &staying, &mut chans);
    chans
        .iter()
        .map(|c| c.free)
        .filter(|m| !m.is_empty())
        .collect()
}

/// Free interpolator components when existing interpolants may be relocated: every
/// component of every register except those instructions that cannot move read (which
/// take one component each wherever they go). An upper bound on what any packing leaves,
/// per position and in total.
pub fn relaxed_capacity(x: &Input, movable: &[bool]) -> [u32; 4] {
    let staying: Vec<bool> = movable.iter().map(|m| !m).collect();
    let mut chans = channels(x);
    mark_taken(x, &staying, &mut chans);
    let mut per = [0u32; 4];
    for ch in &chans {
        for c in ch.free.iter() {
            per[c as usize] += 1;
        }
    }
    per
}

/// Marks, in each channel's `free`, the components instructions in `staying` read. Without
/// relocation (`Input::relocate` off) the packing is the one before the varying passes:
/// every component the fragment program reads or the vertex program writes is taken.
fn mark_taken(x: &Input, staying: &[bool], chans: &mut [Channel]) {
    mark_taken_but(x, staying, chans, &[]);
}

/// [`mark_taken`], with the interpolants `recomputed` (`varying_uniform`) left free.
fn mark_taken_but(x: &Input, staying: &[bool], chans: &mut [Channel], recomputed: &[Plan]) {
    for ch in chans.iter_mut() {
        let mut taken = WriteMask::NONE;
        if recomputed.iter().any(|p| p.reg == ch.input) {
            ch.free = WriteMask::ALL;
            continue;
        }
        for i in (0..x.fp_du.len()).filter(|&i| staying[i] || !x.relocate) {
            for r in x.fp_du.reads(i).iter().filter(|r| r.reg == ch.input) {
                let live = live_reads(x, i).any(|l| l == r);
                if live || !x.relocate {
                    taken = taken.union(WriteMask::single(r.comp));
                }
            }
        }
        if !x.relocate {
            for c in 0..4 {
                let written = x
                    .vp_du
                    .final_defs
                    .iter()
                    .any(|&(r, cc, _)| r == ch.out && cc == c)
                    || x.interp.written(ch.input, c);
                if written {
                    taken = taken.union(WriteMask::single(c));
                }
            }
        }
        ch.free = WriteMask::ALL.minus(taken);
    }
}

/// What a choice asks of the interpolators: the values, their qualifiers and homes, and
/// the groups that must share a register.
pub(super) struct Demand {
    pub(super) vals: Vec<Val>,
    pub(super) class: Vec<Option<Qualifier>>,
    /// (values, the staying operand reading them together, if one).
    pub(super) groups: Vec<Group>,
}

/// Values read together, and the staying operand (instruction, operand) reading them, if one.
pub(super) type Group = (Vec<usize>, Option<(u32, u8)>);

impl Demand {
    fn index(&mut self, v: Val, class: Option<Qualifier>) -> usize {
        match self.vals.iter().position(|x| *x == v) {
            Some(i) => i,
            None => {
                self.vals.push(v);
                self.class.push(class);
                self.vals.len() - 1
            }
        }
    }
}

/// The demand of the choice `selected` with `dup` recomputed in both programs; also marks
/// channels whose interpolants are read in ways the packing cannot rewrite.
fn demand(
    x: &Input,
    selected: &[bool],
    dup: &[bool],
    recomputed: &[Plan],
    chans: &mut [Channel],
) -> Demand {
    let mut d = Demand {
        vals: Vec::new(),
        class: Vec::new(),
        groups: Vec::new(),
    };
    let moved = |i: usize| selected[i] && !dup[i];
    for (j, inst) in x.fp.insts.iter().enumerate() {
        if moved(j) {
            continue;
        }
        for k in 0..inst.src.len() {
            let s = &inst.src[k];
            let reads: Vec<_> = live_reads(x, j).filter(|r| r.src == k as u8).collect();
            if recomputed.iter().any(|p| p.reg == s.reg) {
                continue;
            }
            if let Some(ch) = channel_of(chans, s.reg) {
                if s.rel.is_some() || inst.src_rows(k) > 1 {
                    chans[ch].frozen = true;
                    continue;
                }
                let q = Qualifier::of(x.fp, s.reg);
                let mut g: Vec<usize> = reads
                    .iter()
                    .map(|r| d.index(Val::Existing(r.reg, r.comp), Some(q)))
                    .collect();
                g.dedup();
                if !g.is_empty() {
                    d.groups.push((g, Some((j as u32, k as u8))));
                }
                continue;
            }
            if s.reg.file != RegFile::Temp {
                continue;
            }
            let mixed = reads
                .iter()
                .any(|r| r.def.is_none_or(|e| !moved(e as usize)));
            let mut g: Vec<usize> = Vec::new();
            for r in reads
                .iter()
                .filter(|r| r.def.is_some_and(|e| moved(e as usize)))
            {
                let e = r.def.expect("filtered") as usize;
                let v = d.index(Val::Moved(e as u32, r.comp), x.movability.qualifiers[e]);
                if !g.contains(&v) {
                    g.push(v);
                }
            }
            if g.is_empty() {
                continue;
            }
            if mixed {
                d.groups.extend(g.into_iter().map(|v| (vec![v], None)));
            } else {
                d.groups.push((g, Some((j as u32, k as u8))));
            }
        }
    }
    d
}

/// Components of moved instructions a staying instruction reads (for a lane somebody
/// uses): the values to transport.
pub(super) fn transported(x: &Input, selected: &[bool]) -> Vec<(u32, Comp)> {
    let mut needed: Vec<(u32, Comp)> = Vec::new();
    for j in (0..selected.len()).filter(|&j| !selected[j]) {
        for r in live_reads(x, j) {
            if let Some(d) = r.def
                && selected[d as usize]
                && !needed.contains(&(d, r.comp))
            {
                needed.push((d, r.comp));
            }
        }
    }
    hoist_asm::sort::ord(&mut needed);
    needed
}

/// The exact packing of the choice, existing values in place first, relocated second;
/// `Err(proven)` when there is none: `proven` says whether the search showed that (it may
/// also have run out of nodes).
fn exact(x: &Input, selected: &[bool], dup: &[bool], rec: &[Plan]) -> Result<Packed, bool> {
    let relocate = x.relocate;
    let mut chans = channels(x);
    let staying: Vec<bool> = (0..selected.len())
        .map(|i| !selected[i] || dup[i])
        .collect();
    mark_taken_but(x, &staying, &mut chans, rec);
    let d = demand(x, selected, dup, rec, &mut chans);
    let any_slot = swizzle_free(x.fp.profile);
    let pos: Vec<Comp> = d
        .vals
        .iter()
        .map(|v| match *v {
            Val::Moved(_, c) | Val::Existing(_, c) => c,
        })
        .collect();
    let mut proven = true;
    for phase in [false, true] {
        if phase && !relocate {
            break;
        }
        let mut fixed = vec![[None; 4]; chans.len()];
        let mut fixed_class = vec![None; chans.len()];
        let (mut class, mut pos) = (d.class.clone(), pos.clone());
        for (v, val) in d.vals.iter().enumerate() {
            if let Val::Existing(reg, c) = *val {
                let ch = channel_of(&chans, reg).expect("existing values are in channels");
                if !phase || chans[ch].frozen {
                    fixed[ch][c as usize] = Some(v);
                    fixed_class[ch] = d.class[v];
                }
            }
        }
        // Components taken otherwise (without relocation: whatever either program uses
        // there) hold a placeholder no group asks for.
        for (ch, c) in chans.iter().enumerate() {
            for k in 0..4u8 {
                if !c.free.has(k) && fixed[ch][k as usize].is_none() && (!phase || c.frozen) {
                    fixed[ch][k as usize] = Some(class.len());
                    class.push(None);
                    pos.push(k);
                }
            }
        }
        let groups: Vec<Vec<usize>> = d.groups.iter().map(|(g, _)| g.clone()).collect();
        let p = Problem {
            bins: chans.len(),
            any_slot,
            class,
            pos,
            fixed,
            fixed_class,
            groups,
        };
        match bins::solve(&p, BUDGET) {
            Answer::Found(sol) => {
                let mut packed = finish(x, chans.clone(), &d, sol, phase, dup);
                packed.recompute = rec.to_vec();
                if super::materialize::rewrites_legal(x, &packed) {
                    return Ok(packed);
                }
                // A packing the profile's operand rules refuse: others are not searched.
                proven = false;
            }
            Answer::Unknown => proven = false,
            Answer::Impossible => {}
        }
    }
    Err(proven)
}

/// A solution's registers assigned to channels (relocated ones where most of their
/// existing values already were, each such value at its old slot when it can be).
fn finish(
    x: &Input,
    chans: Vec<Channel>,
    d: &Demand,
    sol: bins::Solution,
    relocated: bool,
    dup: &[bool],
) -> Packed {
    let n = chans.len();
    let home = |v: usize| match d.vals.get(v) {
        Some(&Val::Existing(reg, c)) => channel_of(&chans, reg).map(|ch| (ch, c)),
        _ => None,
    };
    // Bin → channel: frozen bins (all of them when nothing is relocated) stay; the others
    // go where most of their values live.
    let mut to_chan: Vec<Option<usize>> = (0..n)
        .map(|b| (chans[b].frozen || !relocated).then_some(b))
        .collect();
    let mut taken: Vec<bool> = chans.iter().map(|c| c.frozen).collect();
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    for b in (0..n).filter(|&b| to_chan[b].is_none()) {
        for ch in (0..n).filter(|&c| !taken[c]) {
            let score = sol.bins[b]
                .iter()
                .flatten()
                .filter(|&&v| home(v).is_some_and(|h| h.0 == ch))
                .count();
            pairs.push((score, b, ch));
        }
    }
    hoist_asm::sort::by_key(&mut pairs, |&(s, b, ch)| {
        (
            std::cmp::Reverse(s),
            sol.bins[b].iter().all(Option::is_none),
            b,
            ch,
        )
    });
    for (_, b, ch) in pairs {
        if to_chan[b].is_none() && !taken[ch] {
            to_chan[b] = Some(ch);
            taken[ch] = true;
        }
    }
    let mut content = vec![[None; 4]; n];
    let mut class = vec![None; n];
    for (b, chan) in to_chan.iter().enumerate() {
        let ch = chan.expect("every register has a channel");
        class[ch] = sol.class[b];
        let mut slots = sol.bins[b];
        if swizzle_free(x.fp.profile) {
            // Existing values back at their old slot in their old register.
            for s in 0..4 {
                if let Some(v) = slots[s]
                    && let Some((hc, hs)) = home(v)
                    && hc == ch
                    && hs as usize != s
                    && slots[hs as usize].is_none_or(|u| home(u) != Some((ch, hs)))
                {
                    slots.swap(s, hs as usize);
                }
            }
        }
        content[ch] = slots.map(|v| v.and_then(|v| d.vals.get(v).copied()));
    }
    let operands = d
        .groups
        .iter()
        .zip(&sol.group_bin)
        .filter_map(|((_, op), &b)| op.map(|(j, k)| (j, k, to_chan[b].expect("assigned"))))
        .collect();
    Packed {
        chans,
        content,
        operands,
        dup: dup.to_vec(),
        exact: true,
        relocated,
        class,
        recompute: Vec::new(),
    }
}

/// Places the transported components. Uniform-expression interpolants are recomputed in
/// the fragment program when the cost model says that pays on its own; when the values do
/// not fit, first any others are too (as few as fit), then uniform helpers (with their
/// uniform ancestors) and instructions of inputs and constants are recomputed in both
/// programs instead of transported, and packing is retried; then each such helper, in
/// program order, goes back to being transported if it still fits (that only removes
/// fragment work).
pub(super) fn place(
    x: &Input,
    selected: &[bool],
    needed: &[(u32, Comp)],
) -> Result<Packed, Infeasible> {
    let fp = x.fp;
    let none = vec![false; selected.len()];
    let plans = uniform_plans(x, selected);
    let pays = |p: &Plan| {
        let comps = p.lanes.iter().flatten().count() as f64;
        x.recompute
            .1
            .is_some_and(|c| f64::from(p.slots(x.vp, fp)) < c * comps)
    };
    let base: Vec<Plan> = plans.iter().filter(|p| pays(p)).cloned().collect();
    let attempt = |dup: &[bool], rec: &[Plan]| -> Result<Packed, Infeasible> {
        let proven = match exact(x, selected, dup, rec) {
            Ok(p) => return Ok(p),
            Err(proven) => proven,
        };
        let mut chans = channels(x);
        let staying: Vec<bool> = (0..selected.len())
            .map(|i| !selected[i] || dup[i])
            .collect();
        mark_taken_but(x, &staying, &mut chans, rec);
        let needed: Vec<(u32, Comp)> = needed
            .iter()
            .copied()
            .filter(|v| !dup[v.0 as usize])
            .collect();
        let mut p = greedy::pack(x, selected, dup, &needed, chans).map_err(|e| {
            if proven {
                e
            } else {
                Infeasible::PackingUnknown
            }
        })?;
        p.recompute = rec.to_vec();
        Ok(p)
    };
    let first = attempt(&none, &base);
    if first.as_ref().is_ok_and(|p| p.exact) || plans.len() == base.len() && first.is_ok() {
        return first;
    }
    if plans.len() > base.len()
        && let Ok(mut best) = attempt(&none, &plans)
        && (best.exact || first.is_err())
    {
        // As few recomputations as fit.
        let mut rec = plans.clone();
        let mut k = 0;
        while k < rec.len() {
            if base.contains(&rec[k]) {
                k += 1;
                continue;
            }
            let mut fewer = rec.clone();
            fewer.remove(k);
            match attempt(&none, &fewer) {
                Ok(p) if p.exact || !best.exact => {
                    best = p;
                    rec = fewer;
                }
                _ => k += 1,
            }
        }
        return Ok(best);
    }
    if let Ok(p) = first {
        return Ok(p);
    }
    let e = Infeasible::Interpolators {
        needed: channels(x).len() as u32 + 1,
        limit: channels(x).len() as u32,
    };
    let uniform =
        |i: usize| {
            fp.insts[i].dst_lanes().iter().all(|c| {
                x.movability.kinds[i][c as usize] == crate::analysis::movable::Kind::Uniform
            }) || recomputed_for_movers(x, selected, i)
        };
    let mut roots: Vec<usize> = needed
        .iter()
        .map(|v| v.0 as usize)
        .filter(|&i| uniform(i))
        .collect();
    roots.dedup();
    if roots.is_empty() {
        return Err(e);
    }
    let closure = |roots: &[usize]| {
        let mut dup = vec![false; selected.len()];
        let mut stack = roots.to_vec();
        while let Some(i) = stack.pop() {
            if dup[i] {
                continue;
            }
            dup[i] = true;
            for r in x.fp_du.reads(i) {
                if let Some(d) = r.def
                    && selected[d as usize]
                    && !dup[d as usize]
                {
                    stack.push(d as usize);
                }
            }
        }
        dup
    };
    let mut best = attempt(&closure(&roots), &plans)?;
    let mut k = 0;
    while k < roots.len() {
        let mut fewer = roots.clone();
        fewer.remove(k);
        match attempt(&closure(&fewer), &plans) {
            Ok(p) => {
                best = p;
                roots = fewer;
            }
            Err(_) => k += 1,
        }
    }
    Ok(best)
}

/// The uniform-expression interpolants of the choice (`varying_uniform`): channel inputs
/// whose every component staying instructions read is computed from constants only, each
/// reading operand taking its components from one recomputed instruction.
fn uniform_plans(x: &Input, selected: &[bool]) -> Vec<Plan> {
    if !x.relocate {
        return Vec::new();
    }
    let chans = channels(x);
    let mut out = Vec::new();
    for ch in &chans {
        let mut comps = WriteMask::NONE;
        let mut operands: Vec<WriteMask> = Vec::new();
        for j in (0..selected.len()).filter(|&j| !selected[j]) {
            for k in 0..x.fp.insts[j].src.len() as u8 {
                let m = live_reads(x, j)
                    .filter(|r| r.src == k && r.reg == ch.input)
                    .fold(WriteMask::NONE, |m, r| m.union(WriteMask::single(r.comp)));
                if !m.is_empty() {
                    comps = comps.union(m);
                    operands.push(m);
                }
            }
        }
        let Some(plan) = crate::passes::varying_uniform::candidate(
            x.vp,
            x.vp_du,
            x.fp,
            x.facts,
            ch.input,
            comps,
            (x.recompute.0, x.mirror_params),
        ) else {
            continue;
        };
        let one_source = |m: &WriteMask| {
            let mut insts = m.iter().filter_map(|c| plan.lanes[c as usize].map(|l| l.0));
            let first = insts.next();
            insts.all(|i| Some(i) == first)
        };
        if operands.iter().all(one_source) {
            out.push(plan);
        }
    }
    out
}

/// Whether moved instruction `i` can be recomputed in the fragment program for its staying
/// readers while moved readers use the vertex copy; one with no moved reader is left to the
/// selection (moving it would only add vertex work).
fn recomputed_for_movers(x: &Input, selected: &[bool], i: usize) -> bool {
    crate::passes::remat::recomputable(&x.fp.insts[i])
        && (0..4u8).any(|c| x.fp_du.uses(i, c).iter().any(|u| selected[u.inst as usize]))
}

pub(super) fn relocated_values(x: &Input, p: &Packed) -> Vec<Relocation> {
    let mut out = Vec::new();
    for (ch, slots) in p.content.iter().enumerate() {
        for (s, v) in slots.iter().enumerate() {
            let Some(Val::Existing(reg, c)) = *v else {
                continue;
            };
            let home = channel_of(&p.chans, reg) == Some(ch) && s as Comp == c;
            let unwritten = matches!(
                x.facts.source(reg, c),
                crate::analysis::varyings::Source::Unwritten { .. }
            );
            if !home || unwritten {
                out.push((ch, s as Comp, reg, c));
            }
        }
    }
    out
}

/// What every channel component carries, for the outcome's interpolator map.
pub(super) fn carries(x: &Input, p: &Packed) -> Vec<super::types::Carry> {
    use super::types::{Carried, Carry};
    let mut out = Vec::new();
    for (ch, slots) in p.content.iter().enumerate() {
        for (s, v) in slots.iter().enumerate() {
            let carries = match *v {
                Some(Val::Moved(inst, comp)) => Carried::Moved { inst, comp },
                Some(Val::Existing(reg, comp)) => {
                    let Some(semantic) =
                        x.fp.semantic(reg)
                            .or_else(|| crate::analysis::varyings::implied_semantic(x.fp, reg))
                    else {
                        continue;
                    };
                    Carried::Input { semantic, comp }
                }
                None => continue,
            };
            out.push(Carry {
                texcoord: texcoord_of(&p.chans[ch]),
                slot: s as Comp,
                carries,
            });
        }
    }
    out
}

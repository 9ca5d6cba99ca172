//! Duplicate varyings: two interpolants that carry the same value each hold an
//! interpolator; the fragment program reads one of them for both.
//!
//! Two input components carry the same value when their vertex sources are the same
//! (`analysis::varyings`): a copy of the same attribute or parameter component with the
//! same sign, or the same lane of the same vertex instruction (copies through `mov`s are
//! followed), and when they are delivered the same way — the same [`Class`]: interpolated
//! under the same qualifier, or colours clamped alike. For each value the interpolant that
//! carries the most of the pair's values is kept; an operand whose components all have a
//! kept copy elsewhere, in one register, reads that register instead (its swizzle
//! remapped).
//!
//! Legality: equal per-vertex values interpolated the same way give equal values at every
//! fragment, bit for bit; nothing else changes. The vertex writes of the interpolant that
//! is no longer read are removed later, with the other dead vertex code. A rewrite the
//! profile refuses (a swizzle ps_2_0 does not have) is not made, and is reported.

use crate::analysis::varyings::{Change, Class, PassCx, Source, input_name};
use crate::edit;
use crate::tracked::Tracked;
use hoist_asm::ir::{Comp, Reg, RegFile, Swizzle, WriteMask};

/// What makes two interpolant components carry the same value: source, class, clamped.
type SameValue = (Source, Class, bool);

/// Every interpolant component with a dedupable source, grouped by value.
struct Values {
    /// (source, class) of each value, and the components carrying it.
    values: Vec<(SameValue, Vec<(Reg, Comp)>)>,
}

impl Values {
    fn of(t: &Tracked, cx: &PassCx) -> Values {
        let mut regs: Vec<Reg> = t
            .program
            .io
            .iter()
            .map(|d| d.reg)
            .filter(|r| matches!(r.file, RegFile::TexCoord | RegFile::Input))
            .collect();
        hoist_asm::sort::ord(&mut regs);
        let mut values: Vec<(SameValue, Vec<(Reg, Comp)>)> = Vec::new();
        for reg in regs {
            let class = cx.facts.class(reg);
            if matches!(class, Class::Fixed | Class::Fog) {
                continue;
            }
            for c in 0..4 {
                let s = cx.facts.source(reg, c);
                if !matches!(
                    s,
                    Source::Varying { .. } | Source::Uniform { .. } | Source::Parameter { .. }
                ) {
                    continue;
                }
                let key = (s.clone(), class, cx.facts.clamped(reg));
                match values.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push((reg, c)),
                    None => values.push((key, vec![(reg, c)])),
                }
            }
        }
        Values { values }
    }

    /// The kept copy of every duplicated component: per value, the component in the
    /// register that carries the most values (lowest register on a tie).
    fn kept(&self) -> Vec<((Reg, Comp), (Reg, Comp))> {
        let count = |r: Reg| {
            self.values
                .iter()
                .filter(|(_, v)| v.iter().any(|(x, _)| *x == r))
                .count()
        };
        let mut out = Vec::new();
        for (_, v) in self.values.iter().filter(|(_, v)| v.len() > 1) {
            let keep = *v
                .iter()
                .max_by_key(|(r, _)| (count(*r), std::cmp::Reverse(*r)))
                .expect("two or more");
            for &x in v {
                if x.0 != keep.0 {
                    out.push((x, keep));
                }
            }
        }
        out
    }
}

/// Redirects operands to kept copies; returns whether anything changed.
pub fn run(t: &mut Tracked, cx: &PassCx, log: &mut Vec<Change>) -> bool {
    let kept = Values::of(t, cx).kept();
    if kept.is_empty() {
        return false;
    }
    let copy = |r: Reg, c: Comp| kept.iter().find(|(x, _)| *x == (r, c)).map(|(_, k)| *k);
    let mut progress = false;
    let du = crate::analysis::defuse::DefUse::compute(&t.program).ok();
    for j in 0..t.program.insts.len() {
        for k in 0..t.program.insts[j].src.len() {
            let inst = &t.program.insts[j];
            let s = inst.src[k].clone();
            let reads = edit::operand_reads(&t.program, du.as_ref(), j, k);
            if reads.is_empty() || !matches!(s.reg.file, RegFile::TexCoord | RegFile::Input) {
                continue;
            }
            let targets: Vec<Option<(Reg, Comp)>> = reads.iter().map(|c| copy(s.reg, c)).collect();
            let Some(Some((to, _))) = targets.first().copied() else {
                continue;
            };
            if targets.iter().any(|t| t.is_none_or(|(r, _)| r != to)) {
                continue;
            }
            let lanes = inst.src_lanes(k, lanes_of(inst));
            let mut sw = [0u8; 4];
            let fallback = copy(s.reg, reads.iter().next().expect("non-empty"))
                .expect("mapped")
                .1;
            for (l, x) in sw.iter_mut().enumerate() {
                let c = s.swizzle.get(l as u8);
                *x = match copy(s.reg, c) {
                    Some((r, cc)) if r == to => cc,
                    _ => fallback,
                };
            }
            let name = input_name(&t.program, s.reg, reads);
            let done = edit::try_operand(&mut t.program, j, k, cx.fp_limits, |p| {
                let mut n = s.clone();
                n.reg = to;
                n.name = None;
                n.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
                let mask = sw
                    .iter()
                    .enumerate()
                    .filter(|(l, _)| lanes.has(*l as u8))
                    .fold(WriteMask::NONE, |m, (_, &c)| m.union(WriteMask::single(c)));
                let sem = p.semantic(to)?;
                edit::declare_io(p, to, sem, mask);
                Some(n)
            });
            if done {
                t.lines[j].mark_src(k);
            }
            let to_name = input_name(&t.program, to, WriteMask::ALL);
            log.push(Change {
                pass: "varying_dedup".into(),
                input: name,
                inst: Some(j as u32),
                done,
                what: if done {
                    format!("carries the same values as {to_name}: reads those instead")
                } else {
                    format!("carries the same values as {to_name}, but the profile does not accept the swizzle that reads them there")
                },
            });
            progress |= done;
        }
    }
    progress
}

fn lanes_of(inst: &hoist_asm::ir::Inst) -> WriteMask {
    if inst.info().has_dst {
        inst.dst_lanes()
    } else {
        WriteMask::ALL
    }
}

//! The packing's last resort, when no packing keeps every operand's values in one register:
//! existing interpolants stay where they are; each staying operand's transported values go
//! together into one register when one has room (registers already in use first), else one
//! by one wherever a component is free, and the operand then reads them back through the
//! `mov`s the fragment side writes (which copy propagation cannot remove, so they cost
//! fragment slots the selection sees). Registers keep one qualifier.

use super::layout::{Channel, Packed, Val};
use super::types::{Infeasible, Input};
use crate::analysis::varyings::Qualifier;
use hoist_asm::ir::{Comp, RegFile, WriteMask};

/// The registers as the greedy fills them.
struct State {
    chans: Vec<Channel>,
    content: Vec<[Option<Val>; 4]>,
    class: Vec<Option<Qualifier>>,
    any_slot: bool,
}

impl State {
    fn avail(&self, ch: usize) -> WriteMask {
        let used = (0..4u8)
            .filter(|&s| self.content[ch][s as usize].is_some())
            .fold(WriteMask::NONE, |m, s| m.union(WriteMask::single(s)));
        self.chans[ch].free.minus(used)
    }

    fn class_ok(&self, ch: usize, q: Option<Qualifier>) -> bool {
        !matches!((self.class[ch], q), (Some(a), Some(b)) if a != b)
    }

    /// Slots in `ch` for the components `comps` (their positions when positions are fixed).
    fn fits(&self, ch: usize, comps: &[Comp]) -> Option<Vec<Comp>> {
        let free: Vec<Comp> = self.avail(ch).iter().collect();
        if self.any_slot {
            (free.len() >= comps.len()).then(|| free[..comps.len()].to_vec())
        } else {
            comps
                .iter()
                .all(|c| free.contains(c))
                .then(|| comps.to_vec())
        }
    }

    fn put(&mut self, ch: usize, vals: &[(u32, Comp)], slots: &[Comp], q: Option<Qualifier>) {
        for (v, &s) in vals.iter().zip(slots) {
            self.content[ch][s as usize] = Some(Val::Moved(v.0, v.1));
        }
        if self.class[ch].is_none() {
            self.class[ch] = q;
        }
    }

    fn place_one(&mut self, v: (u32, Comp), q: Option<Qualifier>) -> bool {
        for ch in 0..self.chans.len() {
            if !self.class_ok(ch, q) {
                continue;
            }
            if let Some(s) = self.fits(ch, &[v.1]) {
                self.put(ch, &[v], &s, q);
                return true;
            }
        }
        false
    }
}

/// Places every transported component of `needed`, existing interpolants staying where
/// they are (`chans[..].free` holds what they leave).
pub(super) fn pack(
    x: &Input,
    selected: &[bool],
    dup: &[bool],
    needed: &[(u32, Comp)],
    chans: Vec<Channel>,
) -> Result<Packed, Infeasible> {
    let n = chans.len();
    // Existing interpolants stay where they are.
    let content = chans
        .iter()
        .map(|c| {
            std::array::from_fn(|s| {
                (!c.free.has(s as Comp)).then_some(Val::Existing(c.input, s as Comp))
            })
        })
        .collect();
    let mut st = State {
        content,
        class: chans
            .iter()
            .map(|c| (c.free != WriteMask::ALL).then(|| Qualifier::of(x.fp, c.input)))
            .collect(),
        any_slot: super::layout::swizzle_free(x.fp.profile),
        chans,
    };
    let limit = n as u32;
    let overflow = |k| Infeasible::Interpolators { needed: k, limit };
    let q = |i: u32| x.movability.qualifiers[i as usize];
    for (vals, mixed) in operands(x, selected, dup) {
        let placed = |st: &State, v: (u32, Comp)| {
            (0..n).find(|&ch| st.content[ch].contains(&Some(Val::Moved(v.0, v.1))))
        };
        let unplaced: Vec<(u32, Comp)> = vals
            .iter()
            .copied()
            .filter(|v| placed(&st, *v).is_none())
            .collect();
        if unplaced.is_empty() {
            continue;
        }
        let placed_chs: Vec<usize> = vals.iter().filter_map(|v| placed(&st, *v)).collect();
        let comps: Vec<Comp> = unplaced.iter().map(|v| v.1).collect();
        let qv = q(unplaced[0].0);
        let mut done = false;
        if !mixed {
            let candidates: Vec<usize> = if placed_chs.is_empty() {
                // Prefer channels already in use, to pack.
                let mut c: Vec<usize> = (0..n).collect();
                hoist_asm::sort::by_key(&mut c, |&i| (st.content[i].iter().all(Option::is_none), i));
                c
            } else if placed_chs.iter().all(|&c| c == placed_chs[0]) {
                vec![placed_chs[0]]
            } else {
                vec![]
            };
            for ch in candidates {
                if unplaced.iter().all(|v| st.class_ok(ch, q(v.0)))
                    && let Some(slots) = st.fits(ch, &comps)
                {
                    st.put(ch, &unplaced, &slots, qv);
                    done = true;
                    break;
                }
            }
        }
        if !done {
            for v in unplaced {
                if !st.place_one(v, q(v.0)) {
                    return Err(overflow(limit + 1));
                }
            }
        }
    }
    for v in needed {
        let here = st
            .content
            .iter()
            .any(|s| s.contains(&Some(Val::Moved(v.0, v.1))));
        if !here && !st.place_one(*v, q(v.0)) {
            return Err(overflow(limit + 1));
        }
    }
    Ok(Packed {
        chans: st.chans,
        content: st.content,
        operands: Vec::new(),
        dup: dup.to_vec(),
        exact: false,
        relocated: false,
        class: st.class,
        recompute: Vec::new(),
    })
}

/// Operands of staying instructions, each with the transported values it reads and whether
/// it also reads values staying code computed.
fn operands(x: &Input, selected: &[bool], dup: &[bool]) -> Vec<(Vec<(u32, Comp)>, bool)> {
    let mut out = Vec::new();
    for j in 0..x.fp_du.len() {
        if selected[j] && !dup[j] {
            continue;
        }
        for k in 0..x.fp.insts[j].src.len() as u8 {
            let mut vals = Vec::new();
            let mut mixed = false;
            for r in super::layout::live_reads(x, j).filter(|r| r.src == k) {
                match r.def {
                    Some(d) if selected[d as usize] && !dup[d as usize] => {
                        if !vals.contains(&(d, r.comp)) {
                            vals.push((d, r.comp));
                        }
                    }
                    _ => mixed |= r.reg.file == RegFile::Temp,
                }
            }
            if !vals.is_empty() {
                out.push((vals, mixed));
            }
        }
    }
    out
}

//! Interpolator packing: which free texture-coordinate component each transported value
//! travels in, and which values are recomputed in both programs when they run out.
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
//! on the original inputs, whose interpolators stay in use (every interpolator component
//! the original fragment program reads is counted as taken, moved readers included), so the
//! staying readers see exactly the values they saw before: bit for bit, for any operation,
//! not only linear ones. Each copy costs one fragment slot per fragment, which the
//! selection's cost model charges like any other instruction; the packing keeps as few
//! copies as fit (each, in program order, goes back to being transported when it still
//! fits). Recomputing in the fragment program a value the vertex program computed before
//! the motion is not done here: that is exact only for moves, swizzles and negations of an
//! interpolant (interpolation is linear and negation commutes with rounding), where it
//! amounts to reading another interpolator's lanes.

use super::types::Infeasible;
use super::types::Input;
use crate::fxhash::FastMap as HashMap;
use hoist_asm::ir::{Comp, Program, Reg, RegFile, Semantic, WriteMask};
use hoist_asm::profile::Profile;

/// Interpolator register `k` as the two programs name it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Channel {
    pub(super) out: Reg,
    pub(super) input: Reg,
    pub(super) semantic: Semantic,
    /// Components still free.
    pub(super) free: WriteMask,
    used: WriteMask,
}

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
            let input = fp_reg.unwrap_or_else(|| {
                while x
                    .fp
                    .io
                    .iter()
                    .any(|d| d.reg == Reg::new(RegFile::Input, next_v))
                {
                    next_v += 1;
                }
                next_v += 1;
                Reg::new(RegFile::Input, next_v - 1)
            });
            let out_reg = vp_reg.unwrap_or_else(|| {
                while x
                    .vp
                    .io
                    .iter()
                    .any(|d| d.reg == Reg::new(RegFile::Output, next_o))
                {
                    next_o += 1;
                }
                next_o += 1;
                Reg::new(RegFile::Output, next_o - 1)
            });
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
        let mut taken = WriteMask::NONE;
        for c in 0..4 {
            let vp_writes = x
                .vp_du
                .final_defs
                .iter()
                .any(|&(r, cc, _)| r == out_reg && cc == c)
                || x.interp.written(input, c);
            if vp_writes {
                taken = taken.union(WriteMask::single(c));
            }
        }
        for (i, reads) in (0..x.fp_du.len()).map(|i| (i, x.fp_du.reads(i))) {
            let _ = i;
            for r in reads {
                if r.reg == input {
                    taken = taken.union(WriteMask::single(r.comp));
                }
            }
        }
        let free = WriteMask::ALL.minus(taken);
        if !free.is_empty() {
            out.push(Channel {
                out: out_reg,
                input,
                semantic,
                free,
                used: WriteMask::NONE,
            });
        }
    }
    out
}

/// Free components of each interpolator register the pair could still use.
pub fn free_components(x: &Input) -> Vec<WriteMask> {
    channels(x).iter().map(|c| c.free).collect()
}

/// Whether the fragment profile lets an operand read interpolator components in any order.
pub fn swizzle_free(fp: Profile) -> bool {
    matches!(fp, Profile::ArbFp1 | Profile::Ps3_0)
}

/// Where each transported (instruction, component) travels: (channel, slot).
pub(super) type Placement = HashMap<(u32, Comp), (usize, Comp)>;

/// Places every transported component.
fn pack(
    x: &Input,
    selected: &[bool],
    dup: &[bool],
    needed: &[(u32, Comp)],
    chans: &mut [Channel],
) -> Result<Placement, Infeasible> {
    let mut place: HashMap<(u32, Comp), (usize, Comp)> = HashMap::default();
    let any_slot = swizzle_free(x.fp.profile);
    let limit = chans.len() as u32;
    let overflow = |n| Infeasible::Interpolators { needed: n, limit };
    // Operands of staying instructions, each with the transported values it reads.
    let mut operands: Vec<(Vec<(u32, Comp)>, bool)> = Vec::new();
    for (j, reads) in (0..x.fp_du.len()).map(|i| (i, x.fp_du.reads(i))) {
        if selected[j] {
            continue;
        }
        let nsrc = x.fp.insts[j].src.len();
        for k in 0..nsrc as u8 {
            let mut vals = Vec::new();
            let mut mixed = false;
            for r in reads.iter().filter(|r| r.src == k) {
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
                operands.push((vals, mixed));
            }
        }
    }
    let fits = |c: &Channel, comps: &[Comp]| -> Option<Vec<Comp>> {
        if any_slot {
            let free: Vec<Comp> = c.free.minus(c.used).iter().collect();
            (free.len() >= comps.len()).then(|| free[..comps.len()].to_vec())
        } else {
            comps
                .iter()
                .all(|&cc| c.free.minus(c.used).has(cc))
                .then(|| comps.to_vec())
        }
    };
    let put = |chans: &mut [Channel],
               place: &mut HashMap<_, _>,
               vals: &[(u32, Comp)],
               ch: usize,
               slots: Vec<Comp>| {
        for (v, s) in vals.iter().zip(slots) {
            chans[ch].used = chans[ch].used.union(WriteMask::single(s));
            place.insert(*v, (ch, s));
        }
    };
    let place_one = |chans: &mut [Channel],
                     place: &mut HashMap<(u32, Comp), (usize, Comp)>,
                     v: (u32, Comp)|
     -> Result<(), Infeasible> {
        for (ch, c) in chans.iter_mut().enumerate() {
            let avail = c.free.minus(c.used);
            let slot = if any_slot {
                avail.iter().next()
            } else {
                avail.has(v.1).then_some(v.1)
            };
            if let Some(s) = slot {
                c.used = c.used.union(WriteMask::single(s));
                place.insert(v, (ch, s));
                return Ok(());
            }
        }
        Err(overflow(limit + 1))
    };
    for (vals, mixed) in &operands {
        let unplaced: Vec<(u32, Comp)> = vals
            .iter()
            .copied()
            .filter(|v| !place.contains_key(v))
            .collect();
        if unplaced.is_empty() {
            continue;
        }
        let placed_chs: Vec<usize> = vals
            .iter()
            .filter_map(|v| place.get(v).map(|p| p.0))
            .collect();
        let comps: Vec<Comp> = unplaced.iter().map(|v| v.1).collect();
        let mut done = false;
        if !mixed {
            let candidates: Vec<usize> = if placed_chs.is_empty() {
                // Prefer channels already in use, to pack.
                let mut c: Vec<usize> = (0..chans.len()).collect();
                c.sort_by_key(|&i| (chans[i].used.is_empty(), i));
                c
            } else if placed_chs.iter().all(|&c| c == placed_chs[0]) {
                vec![placed_chs[0]]
            } else {
                vec![]
            };
            for ch in candidates {
                if let Some(slots) = fits(&chans[ch], &comps) {
                    put(chans, &mut place, &unplaced, ch, slots);
                    done = true;
                    break;
                }
            }
        }
        if !done {
            for v in unplaced {
                place_one(chans, &mut place, v)?;
            }
        }
    }
    for v in needed {
        if !place.contains_key(v) {
            place_one(chans, &mut place, *v)?;
        }
    }
    Ok(place)
}

/// Components of moved instructions a staying instruction reads: the values to transport.
pub(super) fn transported(x: &Input, selected: &[bool]) -> Vec<(u32, Comp)> {
    let fp = x.fp;
    let mut needed: Vec<(u32, Comp)> = Vec::new();
    for (i, sel) in selected.iter().enumerate() {
        if !sel {
            continue;
        }
        for c in fp.insts[i].dst_lanes().iter() {
            if x.fp_du
                .uses(i, c)
                .iter()
                .any(|u| !selected[u.inst as usize])
            {
                needed.push((i as u32, c));
            }
        }
    }
    needed
}

/// Places the transported components. When interpolators run out, uniform helpers (with their
/// uniform ancestors) and instructions of inputs and constants are recomputed in both
/// programs instead of transported, and
/// packing is retried; then each such helper, in program order, goes back to being
/// transported if it still fits (that only removes fragment work). Returns the placement,
/// the channels with what they carry, and the helpers kept in both programs.
pub(super) fn place(
    x: &Input,
    selected: &[bool],
    needed: &[(u32, Comp)],
) -> Result<(Placement, Vec<Channel>, Vec<bool>), Infeasible> {
    let fp = x.fp;
    let base = channels(x);
    let mut chans = base.clone();
    let mut dup = vec![false; selected.len()];
    let place = match pack(x, selected, &dup, needed, &mut chans) {
        Ok(p) => p,
        Err(e) => {
            let uniform = |i: usize| {
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
            let all_needed = needed.to_vec();
            let attempt = |roots: &[usize]| {
                let dup = closure(roots);
                let needed: Vec<(u32, Comp)> = all_needed
                    .iter()
                    .copied()
                    .filter(|v| !dup[v.0 as usize])
                    .collect();
                let mut chans = base.clone();
                pack(x, selected, &dup, &needed, &mut chans).map(|p| (p, chans, dup))
            };
            let (mut place, c, d) = attempt(&roots)?;
            (chans, dup) = (c, d);
            let mut k = 0;
            while k < roots.len() {
                let mut fewer = roots.clone();
                fewer.remove(k);
                match attempt(&fewer) {
                    Ok((p, c, d)) => {
                        (place, chans, dup) = (p, c, d);
                        roots = fewer;
                    }
                    Err(_) => k += 1,
                }
            }
            place
        }
    };
    Ok((place, chans, dup))
}

/// Whether moved instruction `i` can be recomputed in the fragment program for its staying
/// readers while moved readers use the vertex copy; one with no moved reader is left to the
/// selection (moving it would only add vertex work).
fn recomputed_for_movers(x: &Input, selected: &[bool], i: usize) -> bool {
    crate::passes::remat::recomputable(&x.fp.insts[i])
        && (0..4u8).any(|c| x.fp_du.uses(i, c).iter().any(|u| selected[u.inst as usize]))
}

pub(super) fn texcoord_of(c: &Channel) -> u8 {
    match c.semantic {
        Semantic::TexCoord(k) => k,
        _ => 0,
    }
}

//! Moves a chosen set of fragment instructions to the end of the vertex program.
//!
//! This is the paper's code motion (steps M1–M4), generalised to both dialects and to
//! per-component values. Given a set `M` of fragment instructions that
//! [`crate::analysis::movable`] found movable and that is closed under dependences (every
//! value an instruction in `M` reads from an earlier instruction is computed in `M`):
//!
//! 1. **Code movement (A2).** The instructions of `M` are appended to the vertex program in
//!    their original order. All vertex temporaries are free there, except the ones that hold
//!    values moved code reads (below); fragment temporaries are renamed onto free vertex
//!    temporaries, keeping the same number when it is free.
//! 2. **Inputs (M2, M3).** A fragment interpolant read by moved code becomes the vertex-side
//!    value that fed it: the register the vertex program copied into the output when that
//!    register still holds the value at the end (M3), otherwise a copy saved into a spare
//!    temporary right after the write (M2). Components that come from different registers
//!    are gathered into one temporary first.
//! 3. **Constants (M1, A1).** Literals move freely (ARB: an inline constant; D3D9: a `def` in
//!    a free `c#`, the same number when free). Host-set parameters move only with "mirror
//!    parameters": the vertex program gets its own copy, and [`Mirror`] tells the host which
//!    vertex parameter to set to which fragment parameter.
//! 4. **Outputs (M4).** Each component of a moved result that a staying instruction reads is
//!    written to a free texture-coordinate interpolator component right after it is computed.
//!    On the fragment side the moved instruction is replaced by a `mov` that reads the
//!    interpolator back into the register it used to write, so every staying instruction
//!    sees exactly the values it saw before. [`super::copy_prop`] then makes the readers use
//!    the interpolator directly and [`super::dce`] drops what became dead.
//!
//! Packing: components are placed so that each staying operand finds all its transported
//! components in one interpolator register. Profiles with arbitrary source swizzles (ARB
//! fragment programs, ps_3_0) may put a component in any free slot (two 2-D addresses share
//! one register as `.xy` and `.zw`); the others keep every component in its own position so
//! the operand's swizzle does not change (ps_2_0 texture coordinates cannot be swizzled).
//!
//! Legality: a moved instruction computes, per vertex, the same function of the same values
//! the fragment instruction computed per fragment; [`crate::analysis::movable`] guarantees the
//! function is affine in interpolated values, so interpolating its per-vertex results gives
//! the per-fragment results. Staying instructions read unchanged values through the
//! materialising `mov`s. Nothing else in either program changes.

use crate::analysis::defuse::DefUse;
use crate::analysis::interp::{InterpMap, Origin};
use crate::analysis::movable::Movability;
use crate::edit;
use crate::fxhash::FastMap as HashMap;
use crate::tracked::{AddedFor, Line, Prov, Tracked};
use hoist_asm::ir::{
    Comp, ConstBinding, Dialect, Dst, Inst, Program, Reg, RegFile, Semantic, Span, Src, Swizzle,
    WriteMask,
};
use hoist_asm::ops::Op;
use hoist_asm::profile::{Limits, Profile};
use serde::{Deserialize, Serialize};

/// Everything the motion needs to know about the pair.
pub struct Input<'a> {
    pub vp: &'a Program,
    pub fp: &'a Program,
    pub vp_du: &'a DefUse,
    pub fp_du: &'a DefUse,
    pub interp: &'a InterpMap,
    pub movability: &'a Movability,
    pub vp_limits: &'a Limits,
    pub fp_limits: &'a Limits,
}

/// A host parameter the vertex program now needs: set `vertex` to the value of `fragment`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mirror {
    /// Vertex-program binding (`Env(n)` / `Local(n)`; D3D9 `Env(n)` = vertex `c#n`).
    pub vertex: ConstBinding,
    /// The fragment-program binding or GL state it copies.
    pub fragment: ConstBinding,
}

/// Where one transported component travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transport {
    /// Fragment instruction that computes it.
    pub inst: u32,
    /// Component of that instruction's destination.
    pub comp: Comp,
    /// Interpolator (texture-coordinate set) and component it travels in.
    pub texcoord: u8,
    pub slot: Comp,
}

/// The pair after motion, before clean-up.
#[derive(Clone, Debug)]
pub struct Motion {
    pub vp: Tracked,
    pub fp: Tracked,
    pub mirrors: Vec<Mirror>,
    pub transports: Vec<Transport>,
    /// Moved instructions also kept in the fragment program (uniform helpers recomputed on
    /// both sides because no interpolator was left to carry them).
    pub duplicated: Vec<u32>,
}

/// Why a selection cannot be moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Infeasible {
    Temporaries {
        needed: u32,
        limit: u32,
    },
    Interpolators {
        needed: u32,
        limit: u32,
    },
    Constants {
        limit: u32,
    },
    Parameters,
    /// A program has flow control.
    FlowControl,
    /// The selection contains an instruction that cannot move.
    Unmovable {
        inst: u32,
    },
}

impl std::fmt::Display for Infeasible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Infeasible::Temporaries { needed, limit } => {
                write!(f, "needs {needed} vertex temporaries, the limit is {limit}")
            }
            Infeasible::Interpolators { needed, limit } => {
                write!(f, "needs {needed} interpolators, {limit} are free")
            }
            Infeasible::Constants { limit } => {
                write!(f, "needs more than the {limit} vertex constant registers")
            }
            Infeasible::Parameters => {
                write!(f, "no free vertex parameter for a mirrored parameter")
            }
            Infeasible::Unmovable { inst } => write!(f, "instruction {} cannot move", inst + 1),
            Infeasible::FlowControl => write!(f, "a program has flow control"),
        }
    }
}

/// Interpolator register `k` as the two programs name it.
#[derive(Clone, Copy, Debug)]
struct Channel {
    out: Reg,
    input: Reg,
    semantic: Semantic,
    /// Components still free.
    free: WriteMask,
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
type Placement = HashMap<(u32, Comp), (usize, Comp)>;

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

/// Temporary allocator for the appended vertex code.
struct Temps {
    limit: u16,
    taken: Vec<bool>,
    map: HashMap<u16, u16>,
    peak: u16,
}

impl Temps {
    fn take(&mut self, prefer: Option<u16>) -> Result<u16, Infeasible> {
        let pick = match prefer {
            Some(p) if (p as usize) < self.taken.len() && !self.taken[p as usize] => Some(p),
            _ => self.taken.iter().position(|t| !t).map(|i| i as u16),
        };
        let Some(t) = pick else {
            return Err(Infeasible::Temporaries {
                needed: self.limit as u32 + 1,
                limit: self.limit as u32,
            });
        };
        self.taken[t as usize] = true;
        self.peak = self.peak.max(t + 1);
        Ok(t)
    }

    fn map(&mut self, fp_temp: u16) -> Result<u16, Infeasible> {
        if let Some(&t) = self.map.get(&fp_temp) {
            return Ok(t);
        }
        let t = self.take(Some(fp_temp))?;
        self.map.insert(fp_temp, t);
        Ok(t)
    }
}

struct Consts<'a> {
    x: &'a Input<'a>,
    cache: HashMap<u16, u16>,
    mirrors: Vec<Mirror>,
    /// Vertex registers handed out so far (D3D9 host-set ones look free until read).
    taken: Vec<u16>,
}

impl Consts<'_> {
    /// The vertex slot holding fragment constant slot `slot`.
    fn translate(&mut self, vp: &mut Program, slot: u16) -> Result<u16, Infeasible> {
        if let Some(&s) = self.cache.get(&slot) {
            return Ok(s);
        }
        let fp = self.x.fp;
        let max = self.x.vp_limits.consts;
        let binding = fp.consts[slot as usize].binding.clone();
        let out = match &binding {
            ConstBinding::Literal(l) => {
                edit::literal_slot(vp, l.value, max, Some(slot), &self.taken)
                    .ok_or(Infeasible::Constants { limit: max as u32 })?
            }
            ConstBinding::State(s)
                if !matches!(
                    s,
                    hoist_asm::state::StateRef::TexEnvColor(_)
                        | hoist_asm::state::StateRef::DepthRange
                ) =>
            {
                edit::binding_slot(vp, binding.clone(), max, None, &self.taken)
                    .ok_or(Infeasible::Constants { limit: max as u32 })?
            }
            _ => {
                // A host parameter (or fragment-only state): give the vertex program its own.
                let (vbinding, prefer) = match (vp.dialect(), &binding) {
                    (Dialect::D3d9, ConstBinding::Env(n)) => (None, Some(*n)),
                    (Dialect::D3d9, _) => (None, None),
                    (Dialect::Arb, b) => {
                        let (local, n) = match b {
                            ConstBinding::Env(n) => (false, *n),
                            ConstBinding::Local(n) => (true, *n),
                            _ => (true, 0),
                        };
                        let used = edit::used_params(vp, local);
                        let lim = if local {
                            self.x.vp_limits.local_params
                        } else {
                            self.x.vp_limits.env_params
                        };
                        let pick = if !used.contains(&n)
                            && n < lim
                            && !matches!(b, ConstBinding::State(_))
                        {
                            n
                        } else {
                            let used_l = edit::used_params(vp, true);
                            (0..self.x.vp_limits.local_params)
                                .find(|i| !used_l.contains(i))
                                .ok_or(Infeasible::Parameters)?
                        };
                        let vb =
                            if local || matches!(b, ConstBinding::State(_)) || used.contains(&n) {
                                ConstBinding::Local(pick)
                            } else {
                                ConstBinding::Env(pick)
                            };
                        (Some(vb), None)
                    }
                };
                let s = match vbinding {
                    Some(vb) => edit::binding_slot(vp, vb, max, None, &self.taken),
                    None => edit::binding_slot(vp, ConstBinding::Env(0), max, prefer, &self.taken),
                }
                .ok_or(Infeasible::Constants { limit: max as u32 })?;
                self.mirrors.push(Mirror {
                    vertex: vp.consts[s as usize].binding.clone(),
                    fragment: binding,
                });
                s
            }
        };
        self.cache.insert(slot, out);
        self.taken.push(out);
        Ok(out)
    }
}

/// Where a fragment interpolant component lives in the vertex program.
#[derive(Clone, Copy, PartialEq, Eq)]
struct VpValue {
    reg: Reg,
    comp: Comp,
    negate: bool,
}

/// Runs the motion for the instructions marked in `selected`.
pub fn run(x: &Input, selected: &[bool]) -> Result<Motion, Infeasible> {
    let fp = x.fp;
    // Transported components: read by a staying instruction.
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
    let base = channels(x);
    let mut chans = base.clone();
    // When interpolators run out, uniform helpers are recomputed in both programs instead of
    // transported (with their uniform ancestors), and packing is retried. Then each such
    // helper, in program order, goes back to being transported if it still fits: that only
    // removes fragment work.
    let mut dup = vec![false; selected.len()];
    let place = match pack(x, selected, &dup, &needed, &mut chans) {
        Ok(p) => p,
        Err(e) => {
            let uniform = |i: usize| {
                fp.insts[i].dst_lanes().iter().all(|c| {
                    x.movability.kinds[i][c as usize] == crate::analysis::movable::Kind::Uniform
                })
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
            let all_needed = needed.clone();
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

    // Vertex temporaries that must survive to the end: M3 temp origins and M2 saves.
    let mut temps = Temps {
        limit: x.vp_limits.temps,
        taken: vec![false; x.vp_limits.temps as usize],
        map: HashMap::default(),
        peak: 0,
    };
    let mut saves: HashMap<u32, (u16, WriteMask)> = HashMap::default();
    let mut origins: HashMap<(Reg, Comp), VpValue> = HashMap::default();
    for (i, reads) in (0..x.fp_du.len()).map(|i| (i, x.fp_du.reads(i))) {
        if !selected[i] {
            continue;
        }
        let live = crate::analysis::movable::live_lanes(x.fp_du, i, &fp.insts[i]);
        for r in reads {
            if !r.reg.file.is_input() || r.lanes.intersect(live).is_empty() {
                continue;
            }
            match x.interp.origin(r.reg, r.comp) {
                Origin::Direct { reg, comp, negate } => {
                    if reg.file == RegFile::Temp
                        && !temps.taken.get(reg.index as usize).copied().unwrap_or(true)
                    {
                        temps.taken[reg.index as usize] = true;
                        temps.peak = temps.peak.max(reg.index + 1);
                    }
                    origins.insert((r.reg, r.comp), VpValue { reg, comp, negate });
                }
                Origin::Computed { inst, comp } => {
                    let e = saves.entry(inst).or_insert((u16::MAX, WriteMask::NONE));
                    e.1 = e.1.union(WriteMask::single(comp));
                    origins.insert(
                        (r.reg, r.comp),
                        VpValue {
                            reg: Reg::new(RegFile::Temp, u16::MAX),
                            comp,
                            negate: false,
                        },
                    );
                }
                // Movability admits only direct or computed interpolants; anything else
                // means the selection is not closed, which the caller must not pass.
                _ => return Err(Infeasible::Unmovable { inst: i as u32 }),
            }
        }
    }
    // A save register must be dead from its save to the end of the original program (M2:
    // "an unused temporary"): no later instruction may read it, since it would see the saved
    // value instead of its own, nor write it, since that would overwrite the save.
    let mut save_order: Vec<u32> = saves.keys().copied().collect();
    save_order.sort_unstable();
    for j in &save_order {
        let mut touched = vec![false; temps.limit as usize];
        for (i, w) in x.vp.insts.iter().enumerate().skip(*j as usize + 1) {
            let writes = w.dst.as_ref().map(|d| d.reg);
            let reads = x.vp_du.reads(i).iter().map(|r| r.reg);
            for reg in writes.into_iter().chain(reads) {
                if reg.file == RegFile::Temp
                    && let Some(t) = touched.get_mut(reg.index as usize)
                {
                    *t = true;
                }
            }
        }
        let pick = (0..temps.limit).find(|&t| !temps.taken[t as usize] && !touched[t as usize]);
        let t = pick.ok_or(Infeasible::Temporaries {
            needed: temps.limit as u32 + 1,
            limit: temps.limit as u32,
        })?;
        temps.taken[t as usize] = true;
        temps.peak = temps.peak.max(t + 1);
        saves.get_mut(j).expect("save exists").0 = t;
    }
    for (k, v) in origins.iter_mut() {
        if v.reg.index == u16::MAX
            && let Origin::Computed { inst, .. } = x.interp.origin(k.0, k.1)
        {
            v.reg = Reg::new(RegFile::Temp, saves[&inst].0);
        }
    }

    // 1. The original vertex program with M2 saves.
    let mut vp = Tracked::new(x.vp.clone());
    vp.program.insts.clear();
    vp.lines.clear();
    for (j, inst) in x.vp.insts.iter().enumerate() {
        vp.push(inst.clone(), Line::original(j));
        if let Some(&(t, mask)) = saves.get(&(j as u32)) {
            let mut dup = inst.clone();
            dup.dst = Some(Dst::new(Reg::new(RegFile::Temp, t), mask));
            dup.comment = None;
            dup.span = Span::NONE;
            let mut line = Line::added(AddedFor::Save, None);
            line.mark_dst();
            vp.push(dup, line);
        }
    }

    // 2. Appended moved code, with transports after each producer.
    let mut consts = Consts {
        x,
        cache: HashMap::default(),
        mirrors: Vec::new(),
        taken: Vec::new(),
    };
    let mut transports = Vec::new();
    for (i, inst) in fp.insts.iter().enumerate() {
        if !selected[i] {
            continue;
        }
        // A matrix macro moves as its rows' dot products, so that every row register is
        // renamed and every row constant placed on its own (the vertex program has no
        // block of registers to match the fragment program's).
        let pieces = matrix_rows(inst);
        let mut vdst = None;
        for (piece, inst) in pieces.iter().enumerate() {
            let mut new = inst.clone();
            new.span = Span::NONE;
            // Dead lanes do not move (their inputs may not exist in the vertex program).
            let live = crate::analysis::movable::live_lanes(x.fp_du, i, inst);
            if let Some(d) = &mut new.dst
                && !live.is_empty()
                && live != d.mask
            {
                d.mask = live;
            }
            let mut line = if piece == 0 {
                Line {
                    prov: Prov::Moved { index: i as u32 },
                    changed: 0,
                }
            } else {
                Line::added(AddedFor::Lowering, Some(i))
            };
            let mut gathers: Vec<Inst> = Vec::new();
            let lanes = new.dst_lanes();
            // Operands no live lane reads (`DST r.w, a, b` reads nothing of `a`) may name
            // registers the vertex program lacks; they are filled in below.
            let unread: Vec<usize> = (0..new.src.len())
                .filter(|&k| inst.src_lanes(k, lanes).is_empty())
                .collect();
            for (k, s) in new.src.iter_mut().enumerate() {
                if unread.contains(&k) {
                    continue;
                }
                let orig = s.reg;
                s.name = None;
                s.span = Span::NONE;
                match s.reg.file {
                    RegFile::Temp => {
                        s.reg.index = temps.map(s.reg.index)?;
                    }
                    RegFile::Const => {
                        s.reg.index = consts.translate(&mut vp.program, s.reg.index)?;
                    }
                    f if f.is_input() => {
                        let need = inst.src_lanes(k, lanes);
                        let mut vals: Vec<(Comp, VpValue)> = Vec::new();
                        for lane in need.iter() {
                            let c = s.swizzle.get(lane);
                            let Some(&v) = origins.get(&(orig, c)) else {
                                return Err(Infeasible::Unmovable { inst: i as u32 });
                            };
                            vals.push((lane, v));
                        }
                        let first = vals[0].1;
                        let uniform_reg = vals
                            .iter()
                            .all(|(_, v)| v.reg == first.reg && v.negate == first.negate);
                        if uniform_reg {
                            // Unread lanes keep what the original swizzle would map to, if
                            // anything, else the identity.
                            let mut sw = [0u8, 1, 2, 3];
                            for (lane, c) in sw.iter_mut().enumerate() {
                                let fc = inst.src[k].swizzle.get(lane as u8);
                                if let Some(v) = origins.get(&(orig, fc))
                                    && v.reg == first.reg
                                {
                                    *c = v.comp;
                                }
                            }
                            for (lane, v) in &vals {
                                sw[*lane as usize] = v.comp;
                            }
                            s.reg = first.reg;
                            s.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
                            s.negate ^= first.negate;
                        } else {
                            // Gather the fragment components into one temporary, same positions.
                            let g = temps.take(None)?;
                            let greg = Reg::new(RegFile::Temp, g);
                            let mut by_src: Vec<(VpValue, WriteMask, [Comp; 4])> = Vec::new();
                            for (lane, v) in &vals {
                                let c = inst.src[k].swizzle.get(*lane);
                                if let Some(e) = by_src
                                    .iter_mut()
                                    .find(|e| e.0.reg == v.reg && e.0.negate == v.negate)
                                {
                                    e.1 = e.1.union(WriteMask::single(c));
                                    e.2[c as usize] = v.comp;
                                } else {
                                    let mut sw = [0u8, 1, 2, 3];
                                    sw[c as usize] = v.comp;
                                    by_src.push((*v, WriteMask::single(c), sw));
                                }
                            }
                            for (v, mask, sw) in by_src {
                                let mut src = Src::new(v.reg)
                                    .swizzled(Swizzle::new(sw[0], sw[1], sw[2], sw[3]));
                                src.negate = v.negate;
                                gathers.push(Inst::new(Op::Mov, Some(Dst::new(greg, mask)), [src]));
                            }
                            s.reg = greg;
                        }
                    }
                    _ => {}
                }
                if s.reg != orig {
                    line.mark_src(k);
                }
            }
            for &k in &unread {
                let read = (0..new.src.len()).find(|j| !unread.contains(j));
                new.src[k] = match read {
                    Some(j) => new.src[j].clone(),
                    None => {
                        let max = x.vp_limits.consts;
                        let slot =
                            edit::literal_slot(&mut vp.program, [0.0; 4], max, None, &consts.taken)
                                .ok_or(Infeasible::Constants { limit: max as u32 })?;
                        Src::new(Reg::new(RegFile::Const, slot))
                    }
                };
                line.mark_src(k);
            }
            if let Some(d) = &mut new.dst {
                let orig = d.reg;
                d.name = None;
                d.span = Span::NONE;
                d.reg.index = temps.map(d.reg.index)?;
                if d.reg != orig {
                    line.mark_dst();
                }
            }
            for g in gathers {
                vp.push(g, Line::added(AddedFor::Gather, Some(i)));
            }
            vdst = new.dst.as_ref().map(|d| d.reg);
            if x.vp.profile.has(new.op) {
                vp.push(new, line);
            } else {
                let lim = x.vp_limits.consts;
                let taken = consts.taken.clone();
                let vprog = &mut vp.program;
                let mut one_zero =
                    || edit::literal_slot(vprog, [1.0, 0.0, 0.5, 0.0], lim, None, &taken);
                let mut scratch = || temps.take(None).ok();
                let seq = crate::passes::lower::expand(&new, &mut scratch, &mut one_zero).ok_or(
                    Infeasible::Temporaries {
                        needed: temps.limit as u32 + 1,
                        limit: temps.limit as u32,
                    },
                )?;
                let last = seq.len() - 1;
                for (n, inst) in seq.into_iter().enumerate() {
                    let l = if n == last {
                        line
                    } else {
                        Line::added(AddedFor::Lowering, Some(i))
                    };
                    vp.push(inst, l);
                }
            }
        }
        // Transports of this producer, one `mov` per interpolator register.
        let mut per_chan: Vec<(usize, WriteMask, [Comp; 4])> = Vec::new();
        for c in inst.dst_lanes().iter() {
            if let Some(&(ch, slot)) = place.get(&(i as u32, c)) {
                transports.push(Transport {
                    inst: i as u32,
                    comp: c,
                    texcoord: texcoord_of(&chans[ch]),
                    slot,
                });
                if let Some(e) = per_chan.iter_mut().find(|e| e.0 == ch) {
                    e.1 = e.1.union(WriteMask::single(slot));
                    e.2[slot as usize] = c;
                } else {
                    let mut sw = [0u8, 1, 2, 3];
                    sw[slot as usize] = c;
                    per_chan.push((ch, WriteMask::single(slot), sw));
                }
            }
        }
        for (ch, mask, sw) in per_chan {
            let src = Src::new(vdst.expect("moved instruction has a destination"))
                .swizzled(Swizzle::new(sw[0], sw[1], sw[2], sw[3]));
            let out = chans[ch].out;
            vp.push(
                Inst::new(Op::Mov, Some(Dst::new(out, mask)), [src]),
                Line::added(AddedFor::Transport, Some(i)),
            );
            edit::declare_io(&mut vp.program, out, chans[ch].semantic, mask);
        }
    }
    for t in 0..temps.peak {
        edit::ensure_temp(&mut vp.program, t);
    }

    // 3. The fragment program: moved instructions become reads of their interpolators.
    let mut fpt = Tracked::new(fp.clone());
    fpt.program.insts.clear();
    fpt.lines.clear();
    for (i, inst) in fp.insts.iter().enumerate() {
        if !selected[i] || dup[i] {
            fpt.push(inst.clone(), Line::original(i));
            continue;
        }
        let dst = inst
            .dst
            .as_ref()
            .expect("moved instruction has a destination");
        let mut per_chan: Vec<(usize, WriteMask, [Comp; 4])> = Vec::new();
        for c in dst.mask.iter() {
            if let Some(&(ch, slot)) = place.get(&(i as u32, c)) {
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
            let input = chans[ch].input;
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
            edit::declare_io(&mut fpt.program, input, chans[ch].semantic, used);
        }
    }
    let duplicated = (0..dup.len())
        .filter(|&i| dup[i])
        .map(|i| i as u32)
        .collect();
    Ok(Motion {
        vp,
        fp: fpt,
        mirrors: consts.mirrors,
        transports,
        duplicated,
    })
}

/// A matrix macro as one dot product per written row (`m3x2 d.xy, a, c4` is `dp3 d.x, a, c4`
/// and `dp3 d.y, a, c5`), which the executor evaluates in the same order, so bit for bit
/// alike; any other instruction as itself.
fn matrix_rows(inst: &Inst) -> Vec<Inst> {
    let (Some(rows), Some(d)) = (inst.op.matrix_rows(), &inst.dst) else {
        return vec![inst.clone()];
    };
    let dot = match inst.info().shape {
        hoist_asm::ops::Shape::Matrix { cols: 4, .. } => Op::Dp4,
        _ => Op::Dp3,
    };
    (0..rows)
        .filter(|&r| d.mask.has(r))
        .map(|r| {
            let mut row = inst.src[1].clone();
            row.reg.index += u16::from(r);
            let mut dp = inst.clone();
            dp.op = dot;
            dp.src = [inst.src[0].clone(), row].into_iter().collect();
            if let Some(dd) = &mut dp.dst {
                dd.mask = WriteMask::single(r);
            }
            dp
        })
        .collect()
}

fn texcoord_of(c: &Channel) -> u8 {
    match c.semantic {
        Semantic::TexCoord(k) => k,
        _ => 0,
    }
}

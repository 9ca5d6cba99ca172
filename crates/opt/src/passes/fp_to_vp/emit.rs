//! Appending the moved instructions to the vertex program (A2) with their constants (M1),
//! inputs (M2, M3) and temporaries renamed, and writing each transported result to its
//! interpolator right after it is computed (M4).

use super::inputs::{Origins, Temps, VpValue};
use super::layout::{Packed, Relocation, Val, texcoord_of};
use super::types::{Infeasible, Input, Mirror, Transport};
use crate::edit;
use crate::fxhash::FastMap as HashMap;
use crate::tracked::{AddedFor, Line, Prov, Tracked};
use hoist_asm::ir::{
    Comp, ConstBinding, Dialect, Dst, Inst, Program, Reg, RegFile, Span, Src, Swizzle, WriteMask,
};
use hoist_asm::ops::Op;

pub(super) struct Consts<'a> {
    x: &'a Input<'a>,
    cache: HashMap<u16, u16>,
    pub(super) mirrors: Vec<Mirror>,
    /// Vertex registers handed out so far (D3D9 host-set ones look free until read).
    pub(super) taken: Vec<u16>,
}

impl Consts<'_> {
    /// The vertex slot holding fragment constant slot `slot`.
    pub(super) fn translate(&mut self, vp: &mut Program, slot: u16) -> Result<u16, Infeasible> {
        if let Some(&s) = self.cache.get(&slot) {
            return Ok(s);
        }
        let fp = self.x.fp;
        let max = self.x.vp_limits.consts;
        let mut binding = fp.consts[slot as usize].binding.clone();
        // A fragment copy of a vertex parameter: the vertex program reads the original.
        let own = self
            .x
            .reverse
            .iter()
            .find(|m| m.to_fragment && m.fragment == binding)
            .map(|m| m.vertex.clone());
        if let Some(b) = &own {
            binding = b.clone();
        }
        let out = match &binding {
            ConstBinding::Env(n) if own.is_some() && vp.dialect() == Dialect::D3d9 => *n,
            _ if own.is_some() => edit::binding_slot(vp, binding.clone(), max, None, &self.taken)
                .ok_or(Infeasible::Constants { limit: max as u32 })?,
            ConstBinding::Literal(l) => {
                edit::literal_slot(vp, l.value, max, Some(slot), &self.taken)
                    .ok_or(Infeasible::Constants { limit: max as u32 })?
            }
            ConstBinding::State(s) if s.bindable_in(hoist_asm::ir::Stage::Vertex) => {
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
                    to_fragment: false,
                });
                s
            }
        };
        self.cache.insert(slot, out);
        self.taken.push(out);
        Ok(out)
    }
}

/// D3D9 vertex registers the fragment copies of earlier passes read (`Mirror::to_fragment`):
/// the host sets them for those copies, so no moved constant may take one even once no
/// vertex instruction reads it.
fn copied_vertex_params(x: &Input) -> Vec<u16> {
    if x.vp.dialect() != Dialect::D3d9 {
        return Vec::new();
    }
    x.reverse
        .iter()
        .filter(|m| m.to_fragment)
        .filter_map(|m| match m.vertex {
            ConstBinding::Env(n) => Some(n),
            _ => None,
        })
        .collect()
}

/// The vertex program being extended.
pub(super) struct Emitter<'a> {
    x: &'a Input<'a>,
    vp: Tracked,
    temps: Temps,
    consts: Consts<'a>,
    origins: &'a Origins,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(x: &'a Input<'a>, vp: Tracked, temps: Temps, origins: &'a Origins) -> Self {
        Emitter {
            x,
            vp,
            temps,
            consts: Consts {
                x,
                cache: HashMap::default(),
                mirrors: Vec::new(),
                taken: copied_vertex_params(x),
            },
            origins,
        }
    }

    /// Appends fragment instruction `i`; returns the vertex register holding its result.
    /// A matrix macro moves as its rows' dot products, so that every row register is renamed
    /// and every row constant placed on its own (the vertex program has no block of registers
    /// to match the fragment program's).
    pub(super) fn moved(&mut self, i: usize, inst: &Inst) -> Result<Option<Reg>, Infeasible> {
        let mut vdst = None;
        for (piece, inst) in matrix_rows(inst).iter().enumerate() {
            let line = if piece == 0 {
                Line {
                    prov: Prov::Moved { index: i as u32 },
                    changed: 0,
                }
            } else {
                Line::added(AddedFor::Lowering, Some(i))
            };
            let (new, line, gathers) = self.translate(i, inst, line)?;
            for g in gathers {
                self.vp.push(g, Line::added(AddedFor::Gather, Some(i)));
            }
            vdst = new.dst.as_ref().map(|d| d.reg);
            self.push(i, new, line)?;
        }
        Ok(vdst)
    }

    /// `inst` with its registers renamed into the vertex program, and the `mov`s that gather
    /// operands whose components come from several registers.
    fn translate(
        &mut self,
        i: usize,
        inst: &Inst,
        mut line: Line,
    ) -> Result<(Inst, Line, Vec<Inst>), Infeasible> {
        let mut new = inst.clone();
        new.span = Span::NONE;
        // Dead lanes do not move (their inputs may not exist in the vertex program).
        let live = crate::analysis::movable::live_lanes(self.x.fp_du, i, inst);
        if let Some(d) = &mut new.dst
            && !live.is_empty()
            && live != d.mask
        {
            d.mask = live;
        }
        let mut gathers = Vec::new();
        let lanes = new.dst_lanes();
        // Operands no live lane reads (`DST r.w, a, b` reads nothing of `a`) may name
        // registers the vertex program lacks; they are filled in below.
        let unread: Vec<usize> = (0..new.src.len())
            .filter(|&k| inst.src_lanes(k, lanes).is_empty())
            .collect();
        for k in 0..new.src.len() {
            if unread.contains(&k) {
                continue;
            }
            let s = &mut new.src[k];
            let orig = s.reg;
            s.name = None;
            s.span = Span::NONE;
            match s.reg.file {
                RegFile::Temp => s.reg.index = self.temps.map(s.reg.index)?,
                RegFile::Const => {
                    s.reg.index = self.consts.translate(&mut self.vp.program, s.reg.index)?
                }
                f if f.is_input() => {
                    let need = inst.src_lanes(k, lanes);
                    self.input_operand(i, &inst.src[k], s, need, &mut gathers)?;
                }
                _ => {}
            }
            if new.src[k].reg != orig {
                line.mark_src(k);
            }
        }
        for &k in &unread {
            new.src[k] = self.filler(&new, &unread)?;
            line.mark_src(k);
        }
        if let Some(d) = &mut new.dst {
            let orig = d.reg;
            d.name = None;
            d.span = Span::NONE;
            d.reg.index = self.temps.map(d.reg.index)?;
            if d.reg != orig {
                line.mark_dst();
            }
        }
        Ok((new, line, gathers))
    }

    /// A fragment input operand becomes the vertex register(s) its components come from:
    /// that register, swizzled, when they all share one; else a temporary they are gathered
    /// into, at the same positions.
    fn input_operand(
        &mut self,
        i: usize,
        frag: &Src,
        s: &mut Src,
        need: WriteMask,
        gathers: &mut Vec<Inst>,
    ) -> Result<(), Infeasible> {
        let orig = frag.reg;
        let mut vals: Vec<(Comp, VpValue)> = Vec::new();
        for lane in need.iter() {
            let c = s.swizzle.get(lane);
            let Some(&v) = self.origins.get(&(orig, c)) else {
                return Err(Infeasible::Unmovable { inst: i as u32 });
            };
            vals.push((lane, v));
        }
        let first = vals[0].1;
        if vals
            .iter()
            .all(|(_, v)| v.reg == first.reg && v.negate == first.negate)
        {
            // Unread lanes keep what the original swizzle would map to, if anything, else the
            // identity.
            let mut sw = [0u8, 1, 2, 3];
            for (lane, c) in sw.iter_mut().enumerate() {
                let fc = frag.swizzle.get(lane as u8);
                if let Some(v) = self.origins.get(&(orig, fc))
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
            return Ok(());
        }
        let greg = Reg::new(RegFile::Temp, self.temps.take(None)?);
        let mut by_src: Vec<(VpValue, WriteMask, [Comp; 4])> = Vec::new();
        for (lane, v) in &vals {
            let c = frag.swizzle.get(*lane);
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
            let mut src = Src::new(v.reg).swizzled(Swizzle::new(sw[0], sw[1], sw[2], sw[3]));
            src.negate = v.negate;
            gathers.push(Inst::new(Op::Mov, Some(Dst::new(greg, mask)), [src]));
        }
        s.reg = greg;
        Ok(())
    }

    /// A readable register for an operand no lane reads: another operand of the
    /// instruction, or a zero literal.
    fn filler(&mut self, new: &Inst, unread: &[usize]) -> Result<Src, Infeasible> {
        if let Some(j) = (0..new.src.len()).find(|j| !unread.contains(j)) {
            return Ok(new.src[j].clone());
        }
        let max = self.x.vp_limits.consts;
        let slot = edit::literal_slot(
            &mut self.vp.program,
            [0.0; 4],
            max,
            None,
            &self.consts.taken,
        )
        .ok_or(Infeasible::Constants { limit: max as u32 })?;
        Ok(Src::new(Reg::new(RegFile::Const, slot)))
    }

    /// Appends `new`, emulated with the vertex profile's operations when it lacks the op.
    fn push(&mut self, i: usize, new: Inst, line: Line) -> Result<(), Infeasible> {
        if self.x.vp.profile.has(new.op) {
            self.vp.push(new, line);
            return Ok(());
        }
        let lim = self.x.vp_limits.consts;
        let taken = self.consts.taken.clone();
        let vprog = &mut self.vp.program;
        let temps = &mut self.temps;
        let mut one_zero = || edit::literal_slot(vprog, [1.0, 0.0, 0.5, 0.0], lim, None, &taken);
        let exhausted = temps.exhausted();
        let mut scratch = || temps.take(None).ok();
        let seq =
            crate::passes::lower::expand(&new, &mut scratch, &mut one_zero).ok_or(exhausted)?;
        let last = seq.len() - 1;
        for (n, inst) in seq.into_iter().enumerate() {
            let l = if n == last {
                line
            } else {
                Line::added(AddedFor::Lowering, Some(i))
            };
            self.vp.push(inst, l);
        }
        Ok(())
    }

    /// The transports of instruction `i` (result in `vdst`), one `mov` per interpolator
    /// register that carries some of its lanes, recorded in `out`.
    pub(super) fn transports(
        &mut self,
        i: usize,
        inst: &Inst,
        vdst: Option<Reg>,
        packed: &Packed,
        out: &mut Vec<Transport>,
    ) {
        let mut per_chan: Vec<(usize, WriteMask, [Comp; 4])> = Vec::new();
        for c in inst.dst_lanes().iter() {
            for (ch, slot) in packed.places(Val::Moved(i as u32, c)) {
                out.push(Transport {
                    inst: i as u32,
                    comp: c,
                    texcoord: texcoord_of(&packed.chans[ch]),
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
            let out_reg = packed.chans[ch].out;
            self.vp.push(
                Inst::new(Op::Mov, Some(Dst::new(out_reg, mask)), [src]),
                Line::added(AddedFor::Transport, Some(i)),
            );
            edit::declare_io(
                &mut self.vp.program,
                out_reg,
                packed.chans[ch].semantic,
                mask,
            );
        }
    }

    /// Writes the existing interpolants the packing placed elsewhere (or that nothing
    /// wrote) into their new places, right after the original code: one `mov` per channel
    /// and source register, from the vertex value the fragment program used to receive.
    pub(super) fn relocations(
        &mut self,
        packed: &Packed,
        relocated: &[Relocation],
    ) -> Result<(), Infeasible> {
        // (channel, source register, negate) -> (mask, swizzle).
        let mut movs: Vec<(usize, Reg, bool, WriteMask, [Comp; 4])> = Vec::new();
        for &(ch, slot, reg, c) in relocated {
            let (src, comp, negate) = match self.origins.get(&(reg, c)) {
                Some(v) => (v.reg, v.comp, v.negate),
                None => {
                    let value = self.x.facts.constant(reg, c).unwrap_or(0.0);
                    let max = self.x.vp_limits.consts;
                    let mut lit = [0.0f32; 4];
                    lit[c as usize] = value;
                    let taken = self.consts.taken.clone();
                    let k = edit::literal_slot(&mut self.vp.program, lit, max, None, &taken)
                        .ok_or(Infeasible::Constants { limit: max as u32 })?;
                    self.consts.taken.push(k);
                    (Reg::new(RegFile::Const, k), c, false)
                }
            };
            match movs
                .iter_mut()
                .find(|m| m.0 == ch && m.1 == src && m.2 == negate)
            {
                Some(m) => {
                    m.3 = m.3.union(WriteMask::single(slot));
                    m.4[slot as usize] = comp;
                }
                None => {
                    let mut sw = [0u8, 1, 2, 3];
                    sw[slot as usize] = comp;
                    movs.push((ch, src, negate, WriteMask::single(slot), sw));
                }
            }
        }
        for (ch, src, negate, mask, sw) in movs {
            let mut s = Src::new(src).swizzled(Swizzle::new(sw[0], sw[1], sw[2], sw[3]));
            s.negate = negate;
            let out_reg = packed.chans[ch].out;
            self.vp.push(
                Inst::new(Op::Mov, Some(Dst::new(out_reg, mask)), [s]),
                Line::added(AddedFor::Relocate, None),
            );
            edit::declare_io(
                &mut self.vp.program,
                out_reg,
                packed.chans[ch].semantic,
                mask,
            );
        }
        Ok(())
    }

    /// The vertex program (with every temporary it uses declared) and the mirrored
    /// parameters the host must set.
    pub(super) fn finish(mut self) -> (Tracked, Vec<Mirror>) {
        for t in 0..self.temps.peak {
            edit::ensure_temp(&mut self.vp.program, t);
        }
        (self.vp, self.consts.mirrors)
    }
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

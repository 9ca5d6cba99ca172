//! The vertex-side values moved code reads: for each interpolant component, the register
//! the vertex program copied into the output (M3), or a copy of the value saved into a
//! spare temporary right after it was written (M2); and the temporaries moved code may use.

use super::types::{Infeasible, Input};
use crate::analysis::interp::Origin;
use crate::fxhash::FastMap as HashMap;
use crate::tracked::{AddedFor, Line, Tracked};
use hoist_asm::ir::{Comp, Dst, Reg, RegFile, Span, WriteMask};

/// Temporary allocator for the appended vertex code.
pub(super) struct Temps {
    pub(super) limit: u16,
    pub(super) taken: Vec<bool>,
    map: HashMap<u16, u16>,
    pub(super) peak: u16,
}

impl Temps {
    pub(super) fn new(limit: u16) -> Temps {
        Temps {
            limit,
            taken: vec![false; limit as usize],
            map: HashMap::default(),
            peak: 0,
        }
    }

    /// The error when no temporary is left.
    pub(super) fn exhausted(&self) -> Infeasible {
        Infeasible::Temporaries {
            needed: self.limit as u32 + 1,
            limit: self.limit as u32,
        }
    }

    pub(super) fn take(&mut self, prefer: Option<u16>) -> Result<u16, Infeasible> {
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

    pub(super) fn map(&mut self, fp_temp: u16) -> Result<u16, Infeasible> {
        if let Some(&t) = self.map.get(&fp_temp) {
            return Ok(t);
        }
        let t = self.take(Some(fp_temp))?;
        self.map.insert(fp_temp, t);
        Ok(t)
    }
}

/// Where a fragment interpolant component lives in the vertex program.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct VpValue {
    pub(super) reg: Reg,
    pub(super) comp: Comp,
    pub(super) negate: bool,
}

/// M2 saves: vertex instruction index -> (save temporary, components).
pub(super) type Saves = HashMap<u32, (u16, WriteMask)>;
/// Where each fragment interpolant component moved code reads lives in the vertex program.
pub(super) type Origins = HashMap<(Reg, Comp), VpValue>;

/// The origins of every interpolant component the selection reads, reserving the
/// temporaries that must survive to the end (M3 temporaries and M2 saves) in `temps`.
pub(super) fn vertex_inputs(
    x: &Input,
    selected: &[bool],
    relocated: &[super::layout::Relocation],
    temps: &mut Temps,
) -> Result<(Saves, Origins), Infeasible> {
    let fp = x.fp;
    let mut saves: HashMap<u32, (u16, WriteMask)> = HashMap::default();
    let mut origins: HashMap<(Reg, Comp), VpValue> = HashMap::default();
    // What moved code reads, then the existing interpolants written again elsewhere.
    let mut wanted: Vec<(Reg, Comp, Option<usize>)> = Vec::new();
    for (i, reads) in (0..x.fp_du.len()).map(|i| (i, x.fp_du.reads(i))) {
        if !selected[i] {
            continue;
        }
        let live = crate::analysis::movable::live_lanes(x.fp_du, i, &fp.insts[i]);
        for r in reads {
            if r.reg.file.is_input() && !r.lanes.intersect(live).is_empty() {
                wanted.push((r.reg, r.comp, Some(i)));
            }
        }
    }
    for &(_, _, reg, c) in relocated {
        wanted.push((reg, c, None));
    }
    for (ireg, icomp, reader) in wanted {
        {
            match x.interp.origin(ireg, icomp) {
                Origin::Direct { reg, comp, negate } => {
                    // Relocations are written before the moved code, which may then reuse
                    // the temporary; moved code needs it kept.
                    if reader.is_some()
                        && reg.file == RegFile::Temp
                        && !temps.taken.get(reg.index as usize).copied().unwrap_or(true)
                    {
                        temps.taken[reg.index as usize] = true;
                        temps.peak = temps.peak.max(reg.index + 1);
                    }
                    origins.insert((ireg, icomp), VpValue { reg, comp, negate });
                }
                Origin::Computed { inst, comp } => {
                    let e = saves.entry(inst).or_insert((u16::MAX, WriteMask::NONE));
                    e.1 = e.1.union(WriteMask::single(comp));
                    origins.insert(
                        (ireg, icomp),
                        VpValue {
                            reg: Reg::new(RegFile::Temp, u16::MAX),
                            comp,
                            negate: false,
                        },
                    );
                }
                // Constants the emitter writes itself.
                _ if reader.is_none() => {}
                // Movability admits only direct or computed interpolants; anything else
                // means the selection is not closed, which the caller must not pass.
                _ => {
                    return Err(Infeasible::Unmovable {
                        inst: reader.unwrap_or(0) as u32,
                    });
                }
            }
        }
    }
    pick_save_registers(x, &mut saves, temps)?;
    for (k, v) in origins.iter_mut() {
        if v.reg.index == u16::MAX
            && let Origin::Computed { inst, .. } = x.interp.origin(k.0, k.1)
        {
            v.reg = Reg::new(RegFile::Temp, saves[&inst].0);
        }
    }
    Ok((saves, origins))
}

/// Gives every M2 save a temporary.
fn pick_save_registers(x: &Input, saves: &mut Saves, temps: &mut Temps) -> Result<(), Infeasible> {
    // A save register must be dead from its save to the end of the original program (M2:
    // "an unused temporary"): no later instruction may read it, since it would see the saved
    // value instead of its own, nor write it, since that would overwrite the save.
    let mut save_order: Vec<u32> = saves.keys().copied().collect();
    hoist_asm::sort::ord(&mut save_order);
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
        let t = pick.ok_or_else(|| temps.exhausted())?;
        temps.taken[t as usize] = true;
        temps.peak = temps.peak.max(t + 1);
        saves.get_mut(j).expect("save exists").0 = t;
    }
    Ok(())
}

/// The original vertex program with the M2 saves after the writes they copy.
pub(super) fn with_saves(x: &Input, saves: &Saves) -> Tracked {
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
    vp
}

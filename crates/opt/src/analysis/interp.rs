//! Where each fragment interpolant comes from in the vertex program.
//!
//! A fragment input register is linked to the vertex output with the same semantic
//! (`t1` ← `oT1`, `fragment.texcoord[1]` ← `result.texcoord[1]`). For each component the
//! fragment program reads, this analysis finds the vertex program's last write and
//! classifies it, which is what the paper's steps M2 and M3 need:
//! - [`Origin::Direct`]: a plain `mov` from a register whose component still holds the same
//!   value at the end of the vertex program (a vertex input, a constant, or a temporary not
//!   written again). Moved code reads that register directly (M3, no extra instruction).
//! - [`Origin::Computed`]: any other write. Moved code needs the value saved into a spare
//!   temporary right after that write (M2, one extra instruction).
//! - [`Origin::Unwritten`] / [`Origin::Opaque`]: nothing trustworthy to move from (this
//!   includes fog's y, z and w, which the pipeline sets to 0, 0, 1).

use super::defuse::DefUse;
use crate::fxhash::FastMap as HashMap;
use hoist_asm::ir::{Comp, ConstBinding, Program, Reg, RegFile, Semantic};
use hoist_asm::ops::Op;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Direct { reg: Reg, comp: Comp, negate: bool },
    Computed { inst: u32, comp: Comp },
    Unwritten,
    Opaque(Opacity),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opacity {
    /// The vertex program has flow control.
    FlowControl,
    /// No vertex output carries this input's semantic.
    Unlinked,
    /// The written value goes through relative addressing.
    Relative,
    /// The pipeline fixes the component whatever the vertex program writes (fog's y, z
    /// and w read 0, 0, 1).
    Fixed,
}

/// Interpolant origins for one program pair.
#[derive(Clone, Debug, Default)]
pub struct InterpMap {
    origins: HashMap<(Reg, Comp), Origin>,
    /// Fragment input register → linked vertex output register.
    pub links: HashMap<Reg, Reg>,
}

impl InterpMap {
    pub fn compute(vp: &Program, vp_du: Option<&DefUse>, fp: &Program) -> InterpMap {
        let mut map = InterpMap::default();
        for d in &fp.io {
            if !d.reg.file.is_input() {
                continue;
            }
            let out = vp
                .io
                .iter()
                .find(|o| o.reg.file.is_output() && o.semantic == d.semantic)
                .map(|o| o.reg);
            let out = out.or_else(|| implied_output(vp, d.semantic));
            if let Some(o) = out {
                map.links.insert(d.reg, o);
            }
            for c in 0..4 {
                let origin = match (out, vp_du) {
                    _ if matches!(d.semantic, Semantic::Fog(_)) && c > 0 => {
                        Origin::Opaque(Opacity::Fixed)
                    }
                    (None, _) => Origin::Opaque(Opacity::Unlinked),
                    (Some(_), None) => Origin::Opaque(Opacity::FlowControl),
                    (Some(o), Some(du)) => origin_of(vp, du, o, c),
                };
                map.origins.insert((d.reg, c), origin);
            }
        }
        map
    }

    /// Origin of component `comp` of fragment input `reg`.
    pub fn origin(&self, reg: Reg, comp: Comp) -> Origin {
        self.origins
            .get(&(reg, comp))
            .copied()
            .unwrap_or(Origin::Opaque(Opacity::Unlinked))
    }

    /// Whether the vertex program writes this component of the output linked to `reg`.
    pub fn written(&self, reg: Reg, comp: Comp) -> bool {
        !matches!(
            self.origin(reg, comp),
            Origin::Unwritten | Origin::Opaque(Opacity::Unlinked)
        )
    }
}

/// Vertex outputs that need no declaration to exist (vs_1_1 `oT#`, ARB `result.texcoord`).
fn implied_output(vp: &Program, s: Semantic) -> Option<Reg> {
    let reg = match s {
        Semantic::TexCoord(n) => Reg::new(RegFile::TexCrdOut, n as u16),
        Semantic::Color(n) => Reg::new(RegFile::AttrOut, n as u16),
        Semantic::Fog(0) => Reg::new(RegFile::RastOut, 1),
        _ => return None,
    };
    vp.insts
        .iter()
        .any(|i| i.dst.as_ref().is_some_and(|d| d.reg == reg))
        .then_some(reg)
}

fn origin_of(vp: &Program, du: &DefUse, out: Reg, c: Comp) -> Origin {
    let Some(&(_, _, j)) = du
        .final_defs
        .iter()
        .find(|&&(r, cc, _)| r == out && cc == c)
    else {
        return Origin::Unwritten;
    };
    let inst = &vp.insts[j as usize];
    if inst.dst.as_ref().is_some_and(|d| d.rel.is_some()) {
        return Origin::Opaque(Opacity::Relative);
    }
    if inst.op == Op::Mov && !inst.sat {
        let s = &inst.src[0];
        if s.rel.is_none() && !s.abs {
            let src_comp = s.swizzle.get(c);
            let stable = match s.reg.file {
                RegFile::Input => true,
                RegFile::Const => matches!(
                    vp.consts.get(s.reg.index as usize).map(|k| &k.binding),
                    Some(
                        ConstBinding::Literal(_)
                            | ConstBinding::Env(_)
                            | ConstBinding::Local(_)
                            | ConstBinding::State(_)
                    )
                ),
                RegFile::Temp => !vp.insts[j as usize + 1..].iter().any(|w| {
                    w.dst
                        .as_ref()
                        .is_some_and(|d| d.reg == s.reg && d.mask.has(src_comp))
                }),
                _ => false,
            };
            if stable {
                return Origin::Direct {
                    reg: s.reg,
                    comp: src_comp,
                    negate: s.negate,
                };
            }
        }
    }
    Origin::Computed { inst: j, comp: c }
}

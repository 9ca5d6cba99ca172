//! What every fragment input component carries from the vertex program, as the varying
//! passes need it (Mesa's `nir_opt_varyings` asks the same questions of a shader pair):
//!
//! - [`Source`]: nothing writes it (the value the pipeline then delivers), a literal, a
//!   host-set parameter, a value the vertex program computes from constants only (a
//!   *uniform expression*), or a varying value identified by what it copies (so that two
//!   outputs carrying the same value can be recognised);
//! - [`Class`]: how the pipeline delivers it: interpolated under a qualifier
//!   ([`Qualifier`]: centroid, partial precision), a colour (clamped to [0, 1] when the
//!   vertex program writes `oD#`/`result.color`, and of low precision on old hardware), or
//!   the fog coordinate. Values of different classes never share an interpolator.
//!
//! What an unwritten input reads follows the executor (`hoist_raster::raster`,
//! `probe::UNWRITTEN`): when the vertex program has no output register of the input's
//! semantic, (0, 0, 0, 1); when it has one (declared, or below a higher register of the same
//! file it uses) but never writes the component, 0. `crates/verify/tests/varyings.rs` holds
//! this rule and the executor together.

use super::defuse::DefUse;
use super::interp::{InterpMap, Opacity, Origin};
pub use super::presence::{implied_semantic, out_semantic};
use crate::fxhash::FastMap as HashMap;
use hoist_asm::ir::{Comp, ConstBinding, Interp, Program, Reg, RegFile, Semantic};
use hoist_asm::ops::Op;
use serde::{Deserialize, Serialize};

/// An interpolation qualifier: what a register's declaration asks of the rasterizer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Qualifier {
    /// D3D9 `_centroid`: sampled at the centroid of the covered samples.
    pub centroid: bool,
    /// D3D9 `_pp` on the declaration: the value may arrive at partial precision.
    pub partial: bool,
}

impl Qualifier {
    /// The qualifier fragment input `reg` is declared with.
    pub fn of(fp: &Program, reg: Reg) -> Qualifier {
        fp.io_decl(reg).map_or(Qualifier::default(), |d| Qualifier {
            centroid: d.interp == Interp::Centroid,
            partial: d.pp,
        })
    }

    pub fn interp(self) -> Interp {
        if self.centroid {
            Interp::Centroid
        } else {
            Interp::Perspective
        }
    }

    /// `_centroid`, `_pp`, or "perspective".
    pub fn describe(self) -> String {
        match (self.centroid, self.partial) {
            (false, false) => "perspective".into(),
            (true, false) => "centroid".into(),
            (false, true) => "perspective, partial precision".into(),
            (true, true) => "centroid, partial precision".into(),
        }
    }
}

/// How the pipeline delivers a fragment input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "class", rename_all = "snake_case")]
pub enum Class {
    /// Interpolated like a texture coordinate.
    Interpolated { qualifier: Qualifier },
    /// A colour: clamped when the vertex program writes a colour register, low precision.
    Colour,
    /// The fog coordinate (x only; y, z, w are fixed).
    Fog,
    /// Window position, face: not from the vertex program.
    Fixed,
}

impl Class {
    pub fn of(fp: &Program, reg: Reg) -> Class {
        match fp.semantic(reg).or_else(|| implied_semantic(fp, reg)) {
            Some(Semantic::Color(_)) => Class::Colour,
            Some(Semantic::Fog(_)) => Class::Fog,
            Some(Semantic::WindowPos | Semantic::Face) | None => Class::Fixed,
            Some(_) if reg.file == RegFile::Misc => Class::Fixed,
            Some(_) => Class::Interpolated {
                qualifier: Qualifier::of(fp, reg),
            },
        }
    }
}

/// What identifies a varying value, for finding duplicates: the vertex register component
/// it copies (an attribute, or a temporary's final value), or the instruction that computes
/// it; negation included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKey {
    Attribute { reg: Reg, comp: Comp, negate: bool },
    Computed { inst: u32, comp: Comp, negate: bool },
}

/// The vertex side of one fragment input component.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// No vertex output writes it: the fragment program reads `value`.
    Unwritten { value: f32 },
    /// A literal (or a component the pipeline fixes, as fog's y, z, w).
    Constant { value: f32 },
    /// A host-set vertex parameter or GL state component, maybe negated.
    Parameter {
        binding: ConstBinding,
        comp: Comp,
        negate: bool,
    },
    /// Computed by vertex instruction `inst` (lane `comp`) from constants only.
    Uniform { inst: u32, comp: Comp },
    /// Anything that varies.
    Varying { key: ValueKey },
    /// Not known: vertex flow control, relative addressing.
    Opaque,
}

/// The facts for every input component the fragment program declares or reads.
#[derive(Clone, Debug, Default)]
pub struct Varyings {
    sources: HashMap<(Reg, Comp), Source>,
    classes: HashMap<Reg, Class>,
    /// Whether the vertex program writes the input's colour through a clamping register.
    clamped: HashMap<Reg, bool>,
}

impl Varyings {
    pub fn compute(
        vp: &Program,
        vp_du: Option<&DefUse>,
        fp: &Program,
        interp: &InterpMap,
    ) -> Varyings {
        let mut v = Varyings::default();
        let mut regs: Vec<Reg> = fp
            .io
            .iter()
            .map(|d| d.reg)
            .filter(|r| r.file.is_input())
            .collect();
        for inst in &fp.insts {
            for s in &inst.src {
                if s.reg.file.is_input() && !regs.contains(&s.reg) {
                    regs.push(s.reg);
                }
            }
        }
        for reg in regs {
            let class = Class::of(fp, reg);
            v.classes.insert(reg, class);
            let Some(sem) = fp.semantic(reg).or_else(|| implied_semantic(fp, reg)) else {
                continue;
            };
            if class == Class::Fixed {
                continue;
            }
            let out = interp.links.get(&reg).copied();
            v.clamped.insert(
                reg,
                class == Class::Colour && out.is_none_or(|o| o.file == RegFile::AttrOut),
            );
            for c in 0..4 {
                let s = match (interp.origin(reg, c), vp_du) {
                    (Origin::Unwritten | Origin::Opaque(Opacity::Unlinked), _) => {
                        Source::Unwritten {
                            value: unwritten_value(vp, sem, c),
                        }
                    }
                    (Origin::Opaque(Opacity::Fixed), _) => Source::Constant {
                        value: [0.0, 0.0, 0.0, 1.0][c as usize],
                    },
                    (Origin::Opaque(_), _) | (_, None) => Source::Opaque,
                    (
                        Origin::Direct {
                            reg: r,
                            comp,
                            negate,
                        },
                        Some(du),
                    ) => register_source(vp, du, r, comp, negate, None),
                    (Origin::Computed { inst, comp }, Some(du)) => {
                        computed_source(vp, du, inst, comp)
                    }
                };
                v.sources.insert((reg, c), s);
            }
        }
        v
    }

    /// The source of component `comp` of fragment input `reg`.
    pub fn source(&self, reg: Reg, comp: Comp) -> &Source {
        self.sources.get(&(reg, comp)).unwrap_or(&Source::Opaque)
    }

    pub fn class(&self, reg: Reg) -> Class {
        self.classes.get(&reg).copied().unwrap_or(Class::Fixed)
    }

    /// Whether the pipeline clamps this colour input to [0, 1].
    pub fn clamped(&self, reg: Reg) -> bool {
        self.clamped.get(&reg).copied().unwrap_or(false)
    }

    /// The value the fragment program reads when the component is a known constant (a
    /// literal, a fixed component, or nothing written), after the pipeline's colour clamp.
    pub fn constant(&self, reg: Reg, comp: Comp) -> Option<f32> {
        let v = match self.source(reg, comp) {
            Source::Unwritten { value } | Source::Constant { value } => *value,
            _ => return None,
        };
        Some(if self.clamped(reg) {
            v.clamp(0.0, 1.0)
        } else {
            v
        })
    }
}

/// The value an unwritten component of the input with semantic `sem` reads (module header).
pub fn unwritten_value(vp: &Program, sem: Semantic, c: Comp) -> f32 {
    if output_exists(vp, sem) {
        0.0
    } else {
        [0.0, 0.0, 0.0, 1.0][c as usize]
    }
}

/// Whether the executor gives the vertex program an output register of semantic `sem`:
/// every register of an output file up to the highest one the program declares or names.
fn output_exists(vp: &Program, sem: Semantic) -> bool {
    super::presence::output_reg(vp, sem).is_some()
}

/// The source of vertex register `reg`'s component `comp` as read right before instruction
/// `at` (`None`: at the end of the program).
fn register_source(
    vp: &Program,
    du: &DefUse,
    reg: Reg,
    comp: Comp,
    negate: bool,
    at: Option<u32>,
) -> Source {
    match reg.file {
        RegFile::Const => match vp.consts.get(reg.index as usize).map(|k| &k.binding) {
            Some(ConstBinding::Literal(l)) => {
                let v = l.value[comp as usize];
                Source::Constant {
                    value: if negate { -v } else { v },
                }
            }
            Some(b) => Source::Parameter {
                binding: b.clone(),
                comp,
                negate,
            },
            None => Source::Opaque,
        },
        RegFile::Input => Source::Varying {
            key: ValueKey::Attribute { reg, comp, negate },
        },
        RegFile::Temp => {
            let def = match at {
                None => du
                    .final_defs
                    .iter()
                    .find(|&&(r, c, _)| r == reg && c == comp)
                    .map(|&(_, _, j)| j),
                Some(_) => None,
            };
            match def {
                Some(j) => negated(computed_source(vp, du, j, comp), negate),
                None => Source::Opaque,
            }
        }
        _ => Source::Opaque,
    }
}

/// The source of lane `comp` of vertex instruction `j`'s result: a plain `mov` is followed
/// to what it copies; an instruction of constants only is a uniform expression.
fn computed_source(vp: &Program, du: &DefUse, j: u32, comp: Comp) -> Source {
    let inst = &vp.insts[j as usize];
    if inst.dst.as_ref().is_some_and(|d| d.rel.is_some()) {
        return Source::Opaque;
    }
    let s = inst.src.first();
    if inst.op == Op::Mov
        && !inst.sat
        && let Some(s) = s
        && !s.abs
        && s.rel.is_none()
    {
        let c = s.swizzle.get(comp);
        if s.reg.file == RegFile::Temp {
            return match du
                .reads(j as usize)
                .iter()
                .find(|r| r.comp == c)
                .and_then(|r| r.def)
            {
                Some(d) => negated(computed_source(vp, du, d, c), s.negate),
                None => Source::Opaque,
            };
        }
        return register_source(vp, du, s.reg, c, s.negate, Some(j));
    }
    if uniform_only(vp, du, j, &mut Vec::new()) {
        return Source::Uniform { inst: j, comp };
    }
    Source::Varying {
        key: ValueKey::Computed {
            inst: j,
            comp,
            negate: false,
        },
    }
}

fn negated(s: Source, negate: bool) -> Source {
    if !negate {
        return s;
    }
    match s {
        Source::Constant { value } => Source::Constant { value: -value },
        Source::Parameter {
            binding,
            comp,
            negate,
        } => Source::Parameter {
            binding,
            comp,
            negate: !negate,
        },
        Source::Varying {
            key: ValueKey::Attribute { reg, comp, negate },
        } => Source::Varying {
            key: ValueKey::Attribute {
                reg,
                comp,
                negate: !negate,
            },
        },
        Source::Varying {
            key: ValueKey::Computed { inst, comp, negate },
        } => Source::Varying {
            key: ValueKey::Computed {
                inst,
                comp,
                negate: !negate,
            },
        },
        // A negated uniform expression is not the expression's lane itself.
        Source::Uniform { .. } => Source::Opaque,
        other => other,
    }
}

/// Whether vertex instruction `j` computes from constants and parameters only, through
/// instructions that do too (no attribute, no relative addressing); `seen` guards the walk.
pub fn uniform_only(vp: &Program, du: &DefUse, j: u32, seen: &mut Vec<u32>) -> bool {
    if seen.contains(&j) {
        return true;
    }
    seen.push(j);
    let inst = &vp.insts[j as usize];
    if inst.op.is_texture() || inst.src.iter().any(|s| s.rel.is_some()) {
        return false;
    }
    du.reads(j as usize).iter().all(|r| match r.reg.file {
        RegFile::Const => true,
        RegFile::Temp => r.def.is_some_and(|d| uniform_only(vp, du, d, seen)),
        _ => false,
    })
}

/// The vertex instructions a uniform expression needs, in program order: `j` and every
/// instruction whose value reaches it.
pub fn uniform_closure(du: &DefUse, j: u32) -> Vec<u32> {
    let mut out = vec![j];
    let mut k = 0;
    while k < out.len() {
        for r in du.reads(out[k] as usize) {
            if let Some(d) = r.def
                && !out.contains(&d)
            {
                out.push(d);
            }
        }
        k += 1;
    }
    hoist_asm::sort::ord(&mut out);
    out
}

/// One thing a varying pass did to an interpolant, or declined to do and why: what the
/// page and the CLI show per pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The pass (`varying_dead`, `varying_const`, `varying_dedup`, `varying_uniform`,
    /// `varying_pack`).
    pub pass: String,
    /// The interpolant and components concerned, as the fragment program names them.
    pub input: String,
    /// The fragment instruction concerned (index into the original program), if one.
    pub inst: Option<u32>,
    /// Whether the pass did it (false: refused, `what` says why).
    pub done: bool,
    pub what: String,
}

/// What the varying passes over a pair share: the vertex program, the facts, the fragment
/// limits and whether host parameters may be copied between the stages.
pub struct PassCx<'a> {
    pub vp: &'a Program,
    pub facts: &'a Varyings,
    pub fp_limits: &'a hoist_asm::profile::Limits,
    pub mirror_params: bool,
}

/// `fragment.texcoord[1].xy` / `t1.xy`: an input register and components as the fragment
/// program's dialect writes them.
pub fn input_name(fp: &Program, reg: Reg, mask: hoist_asm::ir::WriteMask) -> String {
    let base = match (fp.dialect(), reg.file) {
        (hoist_asm::Dialect::D3d9, RegFile::TexCoord) => format!("t{}", reg.index),
        (hoist_asm::Dialect::D3d9, _) => format!("v{}", reg.index),
        (_, RegFile::TexCoord) => format!("fragment.texcoord[{}]", reg.index),
        (_, RegFile::Input) => match reg.index {
            0 => "fragment.color".into(),
            1 => "fragment.color.secondary".into(),
            _ => "fragment.fogcoord".into(),
        },
        _ => "fragment.position".into(),
    };
    if mask.is_all() {
        return base;
    }
    let comps: String = mask
        .iter()
        .map(|c| hoist_asm::ir::COMP_NAMES[c as usize])
        .collect();
    format!("{base}.{comps}")
}

//! The interpolator maps of an outcome: per component a fragment program reads, what it
//! carries and how the vertex program fills it, before and after the optimization, with
//! what each varying pass did (the page draws these; the CLI prints them; translation
//! validation reads the `after` map to know where each original interpolant went).

use crate::analysis::defuse::DefUse;
use crate::analysis::interp::InterpMap;
use crate::analysis::varyings::{Change, Class, Source, Varyings, implied_semantic, input_name};
use crate::passes::fp_to_vp::{Carried, Carry};
use hoist_asm::ir::{Comp, Program, RegFile, Semantic, WriteMask};
use serde::{Deserialize, Serialize};

/// One interpolator component the fragment program reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotUse {
    /// As the fragment program names it (`fragment.texcoord[2].x`, `t2.x`).
    pub name: String,
    pub semantic: Semantic,
    pub comp: Comp,
    pub class: Class,
    pub carries: Carried,
    /// What the vertex program writes there, in words.
    pub source: String,
}

/// Both maps and the varying passes' log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VaryingReport {
    pub before: Vec<SlotUse>,
    pub after: Vec<SlotUse>,
    pub changes: Vec<Change>,
}

impl VaryingReport {
    /// What the optimized fragment program's input `semantic`.`comp` carries (an input it
    /// reads where it always was when the map does not say otherwise).
    pub fn carried(&self, semantic: Semantic, comp: Comp) -> Carried {
        self.after
            .iter()
            .find(|s| s.semantic == semantic && s.comp == comp)
            .map_or(Carried::Input { semantic, comp }, |s| s.carries)
    }
}

/// The map of `fp` (with `vp`): every input component it reads, with what `carries` says
/// is in the texture-coordinate ones (the rest carry what they always did).
pub fn map(vp: &Program, fp: &Program, carries: &[Carry]) -> Vec<SlotUse> {
    let vp_du = DefUse::compute(vp).ok();
    let interp = InterpMap::compute(vp, vp_du.as_ref(), fp);
    let facts = Varyings::compute(vp, vp_du.as_ref(), fp, &interp);
    let mut out: Vec<SlotUse> = Vec::new();
    let fp_du = DefUse::compute(fp).ok();
    for (i, inst) in fp.insts.iter().enumerate() {
        for k in 0..inst.src.len() {
            let reg = inst.src[k].reg;
            if !matches!(reg.file, RegFile::TexCoord | RegFile::Input) {
                continue;
            }
            let Some(semantic) = fp.semantic(reg).or_else(|| implied_semantic(fp, reg)) else {
                continue;
            };
            for comp in crate::edit::operand_reads(fp, fp_du.as_ref(), i, k).iter() {
                if out.iter().any(|s| s.semantic == semantic && s.comp == comp) {
                    continue;
                }
                let carried = match semantic {
                    Semantic::TexCoord(t) => carries
                        .iter()
                        .find(|c| c.texcoord == t && c.slot == comp)
                        .map(|c| c.carries),
                    _ => None,
                };
                let carries = carried.unwrap_or(Carried::Input { semantic, comp });
                out.push(SlotUse {
                    name: input_name(fp, reg, WriteMask::single(comp)),
                    semantic,
                    comp,
                    class: facts.class(reg),
                    carries,
                    source: match carries {
                        Carried::Moved { inst, comp } => format!(
                            "fragment instruction {} .{}, computed per vertex",
                            inst + 1,
                            hoist_asm::ir::COMP_NAMES[comp as usize]
                        ),
                        Carried::Input { .. } => describe(vp, facts.source(reg, comp)),
                    },
                });
            }
        }
    }
    hoist_asm::sort::by_key(&mut out, |s| (s.semantic, s.comp));
    out
}

/// A vertex source in words.
fn describe(vp: &Program, s: &Source) -> String {
    let _ = vp;
    let line = |j: u32| format!("vertex instruction {}", j + 1);
    match s {
        Source::Unwritten { value } => format!("never written: reads {value}"),
        Source::Constant { value } => format!("the constant {value}"),
        Source::Parameter {
            binding,
            comp,
            negate,
        } => format!(
            "{}parameter {binding:?}.{}",
            if *negate { "minus " } else { "" },
            hoist_asm::ir::COMP_NAMES[*comp as usize]
        ),
        Source::Uniform { inst, comp } => format!(
            "a value of constants only ({} .{})",
            line(*inst),
            hoist_asm::ir::COMP_NAMES[*comp as usize]
        ),
        Source::Varying { key } => match key {
            crate::analysis::varyings::ValueKey::Attribute { reg, comp, negate } => format!(
                "{}vertex input {} .{}",
                if *negate { "minus " } else { "" },
                reg.index,
                hoist_asm::ir::COMP_NAMES[*comp as usize]
            ),
            crate::analysis::varyings::ValueKey::Computed { inst, comp, negate } => format!(
                "{}{} .{}",
                if *negate { "minus " } else { "" },
                line(*inst),
                hoist_asm::ir::COMP_NAMES[*comp as usize]
            ),
        },
        Source::Opaque => {
            "written where it cannot be followed (flow control, relative addressing)".into()
        }
    }
}

/// What the packing did to existing interpolants, as changes of the `varying_pack` step.
pub fn packing_changes(
    fp: &Program,
    after: &[SlotUse],
    exact: bool,
    relocated: bool,
) -> Vec<Change> {
    let mut out = Vec::new();
    for s in after {
        if let Carried::Input { semantic, comp } = s.carries
            && (semantic, comp) != (s.semantic, s.comp)
        {
            let from = fp
                .reg_for(semantic, false)
                .map(|r| input_name(fp, r, WriteMask::single(comp)))
                .unwrap_or_else(|| {
                    format!("{semantic:?}.{}", hoist_asm::ir::COMP_NAMES[comp as usize])
                });
            out.push(Change {
                pass: "varying_pack".into(),
                input: from,
                inst: None,
                done: true,
                what: format!("relocated to {}", s.name),
            });
        }
    }
    if relocated && out.is_empty() {
        out.push(Change {
            pass: "varying_pack".into(),
            input: String::new(),
            inst: None,
            done: true,
            what: "existing interpolants were repacked in place".into(),
        });
    }
    if !exact {
        out.push(Change {
            pass: "varying_pack".into(),
            input: String::new(),
            inst: None,
            done: false,
            what: "no packing keeps every operand's values in one register: some are split \
                   across registers and read back through `mov`s"
                .into(),
        });
    }
    out
}

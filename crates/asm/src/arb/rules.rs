//! ARB rules over the IR, checked after parsing and after every optimizer pass (through
//! [`crate::validate::check`]): what ARB cannot spell (D3D9 modifiers), relative addressing
//! and address-register writes, option conflicts and the limits options lower
//! (ARB_position_invariant: 4 instructions; fog options: 1 temp, 1 attribute, 2
//! parameters and 2/3/4 instructions), texture targets per unit, the attribute count, and
//! texture indirections (ARB_fragment_program section 3.11.6). Indirections over
//! [`Limits::max_tex_indirections`] are a warning: the spec lets drivers report native
//! limits without refusing the program, and the paper's kernels exceed the R300's four.

use super::error::ArbError;
use super::resolve::{is_shadow, option_group, option_name, option_stage};
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::ops::{Class, Op};
use crate::profile::Limits;
use std::collections::{HashMap, HashSet};

fn target_name(t: TexTarget) -> &'static str {
    t.arb_name()
}

/// Number of texture indirections (dependency phases) of a fragment program.
pub fn tex_indirections(p: &Program) -> u32 {
    let mut count = 1;
    let mut written: HashSet<u16> = HashSet::new();
    let mut alu_touched: HashSet<u16> = HashSet::new();
    let temp = |r: Reg| (r.file == RegFile::Temp).then_some(r.index);
    for inst in &p.insts {
        let dst = inst.dst.as_ref().and_then(|d| temp(d.reg));
        if inst.op.info().class == Class::Tex {
            let coord = inst.src.first().and_then(|s| temp(s.reg));
            let dependent = coord.is_some_and(|c| written.contains(&c))
                || dst.is_some_and(|d| alu_touched.contains(&d));
            if dependent {
                count += 1;
                written.clear();
                alu_touched.clear();
            }
            written.extend(dst);
        } else {
            written.extend(dst);
            alu_touched.extend(dst);
            alu_touched.extend(inst.src.iter().filter_map(|s| temp(s.reg)));
        }
    }
    count
}

/// ARB rules over the IR.
pub fn check_rules(p: &Program, limits: &Limits) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let stage = p.stage();
    let vp = stage == Stage::Vertex;
    let mut err = |e: ArbError, span: Span| out.push(e.to_diagnostic(span));

    let mut seen: Vec<&ArbOption> = Vec::new();
    for o in &p.options {
        if option_stage(o) != stage {
            err(
                ArbError::OptionWrongStage {
                    name: option_name(o).into(),
                    stage: super::bindings::stage_name(stage),
                },
                Span::NONE,
            );
        }
        if let Some(other) = seen
            .iter()
            .find(|s| **s != o && option_group(s).is_some() && option_group(s) == option_group(o))
        {
            err(
                ArbError::OptionConflict {
                    name: option_name(o).into(),
                    other: option_name(other).into(),
                    first: Span::NONE,
                },
                Span::NONE,
            );
        }
        seen.push(o);
    }

    let mut targets: HashMap<u8, (TexTarget, Span)> = HashMap::new();
    for inst in &p.insts {
        let at = inst.span;
        if inst.pp || inst.pred.is_some() {
            err(
                ArbError::NotExpressible {
                    what: "a `_pp` hint or predicate",
                },
                at,
            );
        }
        if inst.sat && vp {
            let name = inst.info().arb.unwrap_or("?");
            err(
                ArbError::SatInVertex {
                    name: format!("{name}_SAT"),
                },
                at,
            );
        }
        if let Some(d) = &inst.dst {
            if d.rel.is_some() {
                err(
                    ArbError::NotExpressible {
                        what: "a relatively addressed destination",
                    },
                    d.span.join(at),
                );
            }
            if (d.reg.file == RegFile::Address) != (inst.op == Op::Arl) {
                err(
                    ArbError::AddressWrite {
                        why: "ARL writes address registers and nothing else",
                    },
                    d.span.join(at),
                );
            } else if inst.op == Op::Arl && d.mask != WriteMask::X {
                err(
                    ArbError::AddressWrite {
                        why: "only `.x` can be written",
                    },
                    d.span.join(at),
                );
            }
            if d.reg == Reg::new(RegFile::RastOut, 0) && p.has_option(&ArbOption::PositionInvariant)
            {
                err(ArbError::PositionInvariantWrite, d.span.join(at));
            }
            if d.reg.file == RegFile::ColorOut
                && d.reg.index > 0
                && !p.has_option(&ArbOption::DrawBuffers)
            {
                err(ArbError::DrawBuffersNeedsOption, d.span.join(at));
            }
        }
        for s in &inst.src {
            if s.abs {
                err(
                    ArbError::NotExpressible {
                        what: "an absolute-value source modifier",
                    },
                    s.span.join(at),
                );
            }
            if let Some(rel) = &s.rel {
                let why = if !vp {
                    Some("fragment programs have no relative addressing")
                } else if s.reg.file != RegFile::Const {
                    Some("only parameter arrays can be addressed relatively")
                } else if rel.reg.file != RegFile::Address || rel.comp != 0 {
                    Some("the address must be the `.x` of an address register")
                } else {
                    None
                };
                if let Some(why) = why {
                    err(ArbError::RelAddrRule { why }, s.span.join(at));
                }
            }
        }
        if let Some(t) = inst.tex {
            if is_shadow(t.target) && !p.has_option(&ArbOption::FragmentProgramShadow) {
                err(
                    ArbError::ShadowNeedsOption {
                        target: target_name(t.target).into(),
                    },
                    at,
                );
            }
            match targets.get(&t.unit) {
                Some(&(first, first_span)) if first != t.target => err(
                    ArbError::TexTargetConflict {
                        unit: t.unit,
                        first: target_name(first),
                        second: target_name(t.target),
                        first_span,
                    },
                    at,
                ),
                Some(_) => {}
                None => {
                    targets.insert(t.unit, (t.target, at));
                }
            }
        }
    }

    let whole = p
        .insts
        .first()
        .map_or(Span::NONE, |i| i.span)
        .join(p.insts.last().map_or(Span::NONE, |i| i.span));
    let slots = p.slots();
    let inputs = p.io.iter().filter(|d| d.reg.file.is_input()).count() as u64;
    let mut limit = |what, used: u64, max: u64, option| {
        if used > max {
            out.push(
                ArbError::LimitWithOption {
                    what,
                    used,
                    max,
                    option,
                }
                .to_diagnostic(whole),
            );
        }
    };
    if p.has_option(&ArbOption::PositionInvariant) {
        limit(
            "instructions",
            slots.total() as u64,
            (limits.max_slots as u64).saturating_sub(4),
            "ARB_position_invariant",
        );
    }
    let fog = p.options.iter().find_map(|o| match o {
        ArbOption::FogExp => Some((o, 3)),
        ArbOption::FogExp2 => Some((o, 4)),
        ArbOption::FogLinear => Some((o, 2)),
        _ => None,
    });
    if let Some((o, n)) = fog {
        let name = option_name(o);
        limit(
            "instructions",
            slots.total() as u64,
            (limits.max_slots as u64).saturating_sub(n),
            name,
        );
        if let Some(m) = limits.max_alu_slots {
            limit(
                "arithmetic instructions",
                slots.alu as u64,
                (m as u64).saturating_sub(n),
                name,
            );
        }
        limit(
            "temporaries",
            p.num_temps as u64,
            (limits.temps as u64).saturating_sub(1),
            name,
        );
        limit(
            "attributes",
            inputs,
            (limits.attribs as u64).saturating_sub(1),
            name,
        );
        limit(
            "parameter slots",
            p.consts.len() as u64,
            (limits.consts as u64).saturating_sub(2),
            name,
        );
    }
    if inputs > limits.attribs as u64 {
        out.push(
            ArbError::TooManyAttributes {
                used: inputs as u32,
                max: limits.attribs as u32,
            }
            .to_diagnostic(whole),
        );
    }
    if !vp && let Some(max) = limits.max_tex_indirections {
        let used = tex_indirections(p);
        if used > max {
            out.push(ArbError::TexIndirections { used, max }.to_diagnostic(whole));
        }
    }
    out
}

//! ARB rules over the IR, checked after parsing (through [`super::check`]) and after every
//! optimizer pass (through [`crate::validate::check`]): what ARB cannot spell (D3D9 modifiers), relative addressing
//! and address-register writes, option conflicts and the limits options lower
//! (ARB_position_invariant: 4 instructions; fog options: 1 temp, 1 attribute, 2
//! parameters and 2/3/4 instructions), texture targets per unit, the attribute count, and
//! texture indirections (ARB_fragment_program section 3.11.6). Indirections over
//! [`Limits::max_tex_indirections`] are a warning: the spec lets drivers report native
//! limits without refusing the program, and the paper's kernels exceed the R300's four.

use super::bindings::stage_name;
use super::error::{ArbError, Spanned};
use super::resolve::{SlotKey, is_shadow, option_group, option_name, option_stage, slot_key};
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
    options(p, &mut out);
    let mut targets: HashMap<u8, (TexTarget, Span)> = HashMap::new();
    for inst in &p.insts {
        instruction(p, inst, &mut out);
        texture_target(p, inst, &mut targets, &mut out);
    }
    program_limits(p, limits, &mut out);
    relative_arrays(p, &mut out);
    out.iter().map(Spanned::to_diagnostic).collect()
}

/// ARB_vertex_program: the elements of a parameter array addressed relatively are
/// distinct bindings (literals excepted). Mesa lays every relatively addressed array out in
/// one list where each program parameter or state vector may appear once, so it also
/// refuses one binding in two such arrays; so does Hoist.
fn relative_arrays(p: &Program, out: &mut Vec<Spanned>) {
    let mut arrays: Vec<(u16, u16)> = Vec::new();
    for s in p.insts.iter().flat_map(|i| &i.src) {
        if let Some(rel) = &s.rel
            && s.reg.file == RegFile::Const
            && !arrays.contains(&(rel.lo, rel.hi))
        {
            arrays.push((rel.lo, rel.hi));
        }
    }
    let name = |lo: u16| {
        p.symbols
            .iter()
            .find(|s| matches!(s.kind, SymKind::Param { base, array: true, .. } if base == lo))
            .map_or_else(
                || format!("the array at parameter {lo}"),
                |s| s.name.clone(),
            )
    };
    let mut seen: HashMap<SlotKey, (usize, u16)> = HashMap::new();
    for &(lo, hi) in &arrays {
        for slot in lo..hi {
            let Some(c) = p.consts.get(usize::from(slot)) else {
                continue;
            };
            if matches!(c.binding, ConstBinding::Literal(_)) {
                continue;
            }
            match seen.get(&slot_key(&c.binding)) {
                Some(&(first, first_lo)) => {
                    let e = ArbError::RelativeArrayDuplicate {
                        binding: binding_text(&c.binding),
                        array: name(first_lo),
                        other: (first_lo != lo).then(|| name(lo)),
                        first: p.consts[first].span,
                    };
                    out.push(e.at(c.span));
                }
                None => {
                    seen.insert(slot_key(&c.binding), (usize::from(slot), lo));
                }
            }
        }
    }
}

fn binding_text(b: &ConstBinding) -> String {
    match b {
        ConstBinding::Env(n) => format!("program.env[{n}]"),
        ConstBinding::Local(n) => format!("program.local[{n}]"),
        ConstBinding::State(s) => super::bindings::state_text(*s),
        ConstBinding::Literal(l) => format!("{:?}", l.value),
    }
}

/// Options of the wrong stage, and two options of one group (fog modes, precision hints).
fn options(p: &Program, out: &mut Vec<Spanned>) {
    let stage = p.stage();
    let mut seen: Vec<&ArbOption> = Vec::new();
    for o in &p.options {
        if option_stage(o) != stage {
            let e = ArbError::OptionWrongStage {
                name: option_name(o).into(),
                stage: stage_name(stage),
            };
            out.push(e.at(Span::NONE));
        }
        if let Some(other) = seen
            .iter()
            .find(|s| **s != o && option_group(s).is_some() && option_group(s) == option_group(o))
        {
            let e = ArbError::OptionConflict {
                name: option_name(o).into(),
                other: option_name(other).into(),
                first: Span::NONE,
            };
            out.push(e.at(Span::NONE));
        }
        seen.push(o);
    }
}

/// What ARB cannot spell, address-register writes, outputs that need an option, and
/// relative addressing.
fn instruction(p: &Program, inst: &Inst, out: &mut Vec<Spanned>) {
    let vp = p.stage() == Stage::Vertex;
    let at = inst.span;
    if inst.pp || inst.pred.is_some() {
        let what = "a `_pp` hint or predicate";
        out.push(ArbError::NotExpressible { what }.at(at));
    }
    if inst.sat && vp {
        let name = inst.info().arb.unwrap_or("?");
        let name = format!("{name}_SAT");
        out.push(ArbError::SatInVertex { name }.at(at));
    }
    if let Some(d) = &inst.dst {
        destination(p, inst, d, out);
    }
    for s in &inst.src {
        if s.abs {
            let what = "an absolute-value source modifier";
            out.push(ArbError::NotExpressible { what }.at(s.span.join(at)));
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
                out.push(ArbError::RelAddrRule { why }.at(s.span.join(at)));
            }
        }
    }
}

fn destination(p: &Program, inst: &Inst, d: &Dst, out: &mut Vec<Spanned>) {
    let span = d.span.join(inst.span);
    if d.rel.is_some() {
        let what = "a relatively addressed destination";
        out.push(ArbError::NotExpressible { what }.at(span));
    }
    if (d.reg.file == RegFile::Address) != (inst.op == Op::Arl) {
        let why = "ARL writes address registers and nothing else";
        out.push(ArbError::AddressWrite { why }.at(span));
    } else if inst.op == Op::Arl && d.mask != WriteMask::X {
        let why = "only `.x` can be written";
        out.push(ArbError::AddressWrite { why }.at(span));
    }
    if d.reg == Reg::new(RegFile::RastOut, 0) && p.has_option(&ArbOption::PositionInvariant) {
        out.push(ArbError::PositionInvariantWrite.at(span));
    }
    if d.reg.file == RegFile::ColorOut && d.reg.index > 0 && !p.has_option(&ArbOption::DrawBuffers)
    {
        out.push(ArbError::DrawBuffersNeedsOption.at(span));
    }
}

/// Shadow targets need their option; a texture unit is sampled with one target only.
fn texture_target(
    p: &Program,
    inst: &Inst,
    targets: &mut HashMap<u8, (TexTarget, Span)>,
    out: &mut Vec<Spanned>,
) {
    let Some(t) = inst.tex else { return };
    let at = inst.span;
    if is_shadow(t.target) && !p.has_option(&ArbOption::FragmentProgramShadow) {
        let target = target_name(t.target).into();
        out.push(ArbError::ShadowNeedsOption { target }.at(at));
    }
    match targets.get(&t.unit) {
        Some(&(first, first_span)) if first != t.target => {
            let e = ArbError::TexTargetConflict {
                unit: t.unit,
                first: target_name(first),
                second: target_name(t.target),
                first_span,
            };
            out.push(e.at(at));
        }
        Some(_) => {}
        None => {
            targets.insert(t.unit, (t.target, at));
        }
    }
}

/// The limits options lower, the attribute count and texture indirections.
fn program_limits(p: &Program, limits: &Limits, out: &mut Vec<Spanned>) {
    let whole = p.insts_span();
    let slots = p.slots();
    let inputs = p.io.iter().filter(|d| d.reg.file.is_input()).count() as u64;
    let mut limit = |what, used: u64, max: u64, option| {
        if used > max {
            let e = ArbError::LimitWithOption {
                what,
                used,
                max,
                option,
            };
            out.push(e.at(whole));
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
        let e = ArbError::TooManyAttributes {
            used: inputs as u32,
            max: limits.attribs as u32,
        };
        out.push(e.at(whole));
    }
    if p.stage() == Stage::Fragment
        && let Some(max) = limits.max_tex_indirections
    {
        let used = tex_indirections(p);
        if used > max {
            out.push(ArbError::TexIndirections { used, max }.at(whole));
        }
    }
}

//! Constant varyings: an interpolant the vertex program writes from a literal, or from a
//! host-set parameter, is read in the fragment program as that literal or parameter, and
//! its interpolator is freed.
//!
//! An operand is rewritten when every component it reads is constant (`Source::Constant`,
//! which includes the components the pipeline fixes, fog's y, z, w), or every one copies a
//! component of the same vertex parameter with the same sign. A literal goes into a literal
//! slot. A parameter needs a fragment copy: GL state the fragment program can bind
//! (ARB_fragment_program binds all but texgen planes, clip planes and point state) is bound again; a
//! host parameter only with "mirror parameters", as a new fragment parameter the host sets
//! to the vertex one's value (a [`Mirror`] with `to_fragment`).
//!
//! Legality: interpolating the same value at every vertex gives that value exactly
//! (weights that sum to 1, in f64, rounded to f32: the error is far below half an ulp), so
//! the fragment program reads the same bits. Colours are clamped by the pipeline and may be
//! of low precision: a colour constant is propagated only in [0, 1] (Mesa's rule), where the
//! clamp does nothing, and a colour parameter, whose range is unknown, never. A rewrite the
//! profile's operand rules refuse is not made; each refusal is reported with its reason.

use crate::analysis::varyings::{Change, Class, PassCx, Source, input_name};
use crate::edit;
use crate::passes::fp_to_vp::types::Mirror;
use crate::tracked::Tracked;
use hoist_asm::Dialect;
use hoist_asm::ir::{Comp, ConstBinding, Reg, RegFile, Src, Swizzle, WriteMask};
use hoist_asm::state::StateRef;

/// What an operand's components copy, when the pass can rewrite it.
enum Plan {
    Literal([f32; 4]),
    Parameter {
        binding: ConstBinding,
        /// Parameter component for each register component read.
        comps: [Comp; 4],
        negate: bool,
    },
}

/// Rewrites constant and parameter operands; returns whether anything changed. New
/// fragment parameters are appended to `mirrors`.
pub fn run(t: &mut Tracked, cx: &PassCx, log: &mut Vec<Change>, mirrors: &mut Vec<Mirror>) -> bool {
    let mut progress = false;
    let du = crate::analysis::defuse::DefUse::compute(&t.program).ok();
    for j in 0..t.program.insts.len() {
        for k in 0..t.program.insts[j].src.len() {
            let inst = &t.program.insts[j];
            let s = inst.src[k].clone();
            if !matches!(s.reg.file, RegFile::TexCoord | RegFile::Input) {
                continue;
            }
            let reads = edit::operand_reads(&t.program, du.as_ref(), j, k);
            if reads.is_empty() {
                continue;
            }
            let unwritten = reads
                .iter()
                .all(|c| matches!(cx.facts.source(s.reg, c), Source::Unwritten { .. }));
            if unwritten {
                continue; // varying_dead's
            }
            let Some(plan) = plan(cx, s.reg, reads) else {
                continue;
            };
            let name = input_name(&t.program, s.reg, reads);
            let (done, what) = match (refusal(cx, s.reg, reads, &plan), plan) {
                (Some(why), _) => (false, why),
                (None, Plan::Literal(v)) => {
                    let done = super::varying_dead::literal_operand(t, j, k, v, cx);
                    let shown: Vec<String> =
                        reads.iter().map(|c| v[c as usize].to_string()).collect();
                    (done, constant_words(done, &shown))
                }
                (
                    None,
                    Plan::Parameter {
                        binding,
                        comps,
                        negate,
                    },
                ) => parameter(t, j, k, cx, (binding, comps, negate), mirrors),
            };
            log.push(Change {
                pass: "varying_const".into(),
                input: name,
                inst: Some(j as u32),
                done,
                what,
            });
            progress |= done;
        }
    }
    progress
}

fn constant_words(done: bool, shown: &[String]) -> String {
    if done {
        format!("constant: reads ({}) directly", shown.join(", "))
    } else {
        format!(
            "constant ({}), but the profile does not accept a constant in this operand",
            shown.join(", ")
        )
    }
}

/// The rewrite of an operand reading `reads` of `reg`, when all its components are
/// constant, or all copy one parameter with one sign.
fn plan(cx: &PassCx, reg: Reg, reads: WriteMask) -> Option<Plan> {
    if reads.iter().all(|c| cx.facts.constant(reg, c).is_some()) {
        let mut v = [0.0f32; 4];
        for c in reads.iter() {
            v[c as usize] = cx.facts.constant(reg, c)?;
        }
        return Some(Plan::Literal(v));
    }
    let mut binding: Option<(ConstBinding, bool)> = None;
    let mut comps = [0u8; 4];
    for c in reads.iter() {
        let Source::Parameter {
            binding: b,
            comp,
            negate,
        } = cx.facts.source(reg, c)
        else {
            return None;
        };
        match &binding {
            None => binding = Some((b.clone(), *negate)),
            Some((b0, n0)) if b0 == b && n0 == negate => {}
            _ => return None,
        }
        comps[c as usize] = *comp;
    }
    let (binding, negate) = binding?;
    Some(Plan::Parameter {
        binding,
        comps,
        negate,
    })
}

/// Why the rule of the module header forbids the rewrite, if it does.
fn refusal(cx: &PassCx, reg: Reg, reads: WriteMask, plan: &Plan) -> Option<String> {
    let colour = cx.facts.class(reg) == Class::Colour;
    match plan {
        Plan::Literal(_) if colour => {
            let outside = reads.iter().any(|c| match cx.facts.source(reg, c) {
                Source::Constant { value } | Source::Unwritten { value } => {
                    !(0.0..=1.0).contains(value)
                }
                _ => true,
            });
            outside.then(|| "a colour constant outside [0, 1]: the pipeline clamps it".into())
        }
        Plan::Literal(_) => None,
        Plan::Parameter { .. } if colour => Some(
            "a colour from a parameter: its range is unknown and the pipeline clamps it".into(),
        ),
        Plan::Parameter { binding, .. } => {
            let state = matches!(binding, ConstBinding::State(s) if fragment_state(s));
            (!state && !cx.mirror_params).then(|| {
                "a vertex parameter: enable \"mirror parameters\" to read a fragment copy".into()
            })
        }
    }
}

/// GL state an ARB fragment program can bind itself.
pub fn fragment_state(s: &StateRef) -> bool {
    s.bindable_in(hoist_asm::ir::Stage::Fragment)
}

/// Makes operand `k` of instruction `j` read a fragment copy of a vertex parameter.
fn parameter(
    t: &mut Tracked,
    j: usize,
    k: usize,
    cx: &PassCx,
    (binding, comps, negate): (ConstBinding, [Comp; 4], bool),
    mirrors: &mut Vec<Mirror>,
) -> (bool, String) {
    let old = t.program.insts[j].src[k].clone();
    let max = cx.fp_limits.consts;
    let mut copy: Option<ConstBinding> = None;
    let done = edit::try_operand(&mut t.program, j, k, cx.fp_limits, |p| {
        let (slot, fb) = fragment_slot(p, &binding, cx, mirrors, max)?;
        copy = Some(fb);
        let sw = old.swizzle.comps().map(|c| comps[c as usize]);
        let mut s = Src::new(Reg::new(RegFile::Const, slot));
        s.swizzle = Swizzle::new(sw[0], sw[1], sw[2], sw[3]);
        s.negate = old.negate ^ negate;
        s.abs = old.abs;
        Some(s)
    });
    if !done {
        return (
            false,
            "a vertex parameter, but no fragment parameter is left for its copy".into(),
        );
    }
    t.lines[j].mark_src(k);
    let fb = copy.expect("set when done");
    let state = matches!(binding, ConstBinding::State(_)) && fb == binding;
    if !state && !mirrors.iter().any(|m| m.to_fragment && m.fragment == fb) {
        mirrors.push(Mirror {
            vertex: binding.clone(),
            fragment: fb.clone(),
            to_fragment: true,
        });
    }
    let what = if state {
        "a GL state value: the fragment program binds it itself".into()
    } else {
        format!("a vertex parameter: reads its fragment copy {fb:?}, which the host sets")
    };
    (true, what)
}

/// A fragment constant slot for a copy of vertex parameter `b`: the same state binding, or
/// a fragment parameter (reusing the copy an earlier rewrite made).
fn fragment_slot(
    p: &mut hoist_asm::Program,
    b: &ConstBinding,
    cx: &PassCx,
    mirrors: &[Mirror],
    max: u16,
) -> Option<(u16, ConstBinding)> {
    if let ConstBinding::State(s) = b
        && fragment_state(s)
        && p.dialect() == Dialect::Arb
    {
        let slot = edit::binding_slot(p, b.clone(), max, None, &[])?;
        return Some((slot, b.clone()));
    }
    if let Some(m) = mirrors.iter().find(|m| m.to_fragment && &m.vertex == b) {
        let slot = p.consts.iter().position(|c| c.binding == m.fragment)?;
        return Some((slot as u16, m.fragment.clone()));
    }
    new_fragment_param(p, cx.fp_limits, mirrors, &[])
}

/// A fragment parameter no program reads, no copy took and not in `reserved`: its slot and
/// binding (D3D9: a free `c#`; ARB: a free `program.local`). Every mirror's fragment side
/// is taken whichever way it copies: a vertex copy of a fragment parameter still needs the
/// host to set that parameter even once no fragment instruction reads it. `reserved` names
/// the parameters the fragment program read before code left it, which the host sets too.
pub fn new_fragment_param(
    p: &mut hoist_asm::Program,
    limits: &hoist_asm::profile::Limits,
    mirrors: &[Mirror],
    reserved: &[ConstBinding],
) -> Option<(u16, ConstBinding)> {
    let max = limits.consts;
    let local = p.dialect() == Dialect::Arb;
    let taken: Vec<u16> = mirrors
        .iter()
        .map(|m| &m.fragment)
        .chain(reserved)
        .filter_map(|b| match *b {
            ConstBinding::Env(n) if !local => Some(n),
            ConstBinding::Local(n) if local => Some(n),
            _ => None,
        })
        .collect();
    match p.dialect() {
        Dialect::D3d9 => {
            let slot = edit::binding_slot(p, ConstBinding::Env(0), max, None, &taken)?;
            Some((slot, ConstBinding::Env(slot)))
        }
        Dialect::Arb => {
            let used = edit::used_params(p, true);
            let n = (0..limits.local_params).find(|i| !used.contains(i) && !taken.contains(i))?;
            let fb = ConstBinding::Local(n);
            let slot = edit::binding_slot(p, fb.clone(), max, None, &[])?;
            Some((slot, fb))
        }
    }
}

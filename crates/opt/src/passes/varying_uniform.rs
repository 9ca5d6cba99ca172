//! Uniform-expression varyings: an interpolant the vertex program computes from constants
//! and parameters only is computed again at the top of the fragment program, and the
//! fragment program reads that instead, which frees its interpolator.
//!
//! [`candidates`] finds, for a choice, the texture-coordinate interpolants whose every
//! component a staying instruction reads is such a value (`analysis::varyings`,
//! `Source::Uniform`), whose vertex instructions (with every instruction they read, in
//! order) the fragment profile can execute, at most `limit` of them, and whose readers can
//! each read one recomputed register instead. The cost model decides when it is worth it
//! (`fp_to_vp::pack`): where interpolated components cost fragment work, whenever the
//! instructions cost less than the components; under the paper's model, only when the
//! freed interpolator lets more work move. [`emit`] writes the instructions (literals as
//! literals, vertex parameters as fragment copies the host sets, GL state bound again) and
//! says which register now holds each interpolant component.
//!
//! Legality: the same instructions on the same values compute the same bits in either
//! stage (one dialect, one set of operation semantics, `hoist_asm::semantics`), and an
//! interpolant that is the same at every vertex interpolates to exactly that value. Colours
//! are never recomputed (the pipeline clamps them).

use crate::analysis::defuse::DefUse;
use crate::analysis::varyings::{Class, Source, Varyings, uniform_closure};
use crate::edit;
use crate::passes::fp_to_vp::types::Mirror;
use crate::tracked::{AddedFor, Line, Tracked};
use hoist_asm::ir::{Comp, ConstBinding, Program, Reg, RegFile};

/// One interpolant to recompute: its fragment register, the vertex instructions, and for
/// each component the vertex instruction and lane that computes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub reg: Reg,
    pub insts: Vec<u32>,
    pub lanes: [Option<(u32, Comp)>; 4],
}

impl Plan {
    /// Fragment slots the recomputation costs.
    pub fn slots(&self, vp: &Program, fp: &Program) -> u32 {
        self.insts
            .iter()
            .map(|&j| u32::from(fp.profile.slots(vp.insts[j as usize].op).unwrap_or(1)))
            .sum()
    }
}

/// The plan for interpolant `reg` whose components `comps` are read, if it can be
/// recomputed within `limit` instructions.
pub fn candidate(
    vp: &Program,
    vp_du: &DefUse,
    fp: &Program,
    facts: &Varyings,
    reg: Reg,
    comps: hoist_asm::ir::WriteMask,
    (limit, mirror_params): (u32, bool),
) -> Option<Plan> {
    if !matches!(facts.class(reg), Class::Interpolated { .. }) || comps.is_empty() {
        return None;
    }
    let mut lanes = [None; 4];
    let mut insts: Vec<u32> = Vec::new();
    for c in comps.iter() {
        let Source::Uniform { inst, comp } = *facts.source(reg, c) else {
            return None;
        };
        lanes[c as usize] = Some((inst, comp));
        for j in uniform_closure(vp_du, inst) {
            if !insts.contains(&j) {
                insts.push(j);
            }
        }
    }
    hoist_asm::sort::ord(&mut insts);
    // Every operand's temporary components come from one instruction (its fragment copy
    // is then one register).
    let one_writer = |j: u32| {
        (0..vp.insts[j as usize].src.len() as u8).all(|k| {
            let mut defs = vp_du
                .reads(j as usize)
                .iter()
                .filter(|r| r.src == k && r.reg.file == RegFile::Temp)
                .map(|r| r.def);
            let first = defs.next();
            first.is_none_or(|f| f.is_some() && defs.all(|d| d == f))
        })
    };
    // Constants the fragment program can have: literals, state it binds itself (ARB), and
    // parameters when they may be copied.
    let constant_ok = |b: &ConstBinding| match b {
        ConstBinding::Literal(_) => true,
        ConstBinding::State(s)
            if fp.dialect() == hoist_asm::Dialect::Arb
                && crate::passes::varying_const::fragment_state(s) =>
        {
            true
        }
        _ => mirror_params,
    };
    let executable = insts.iter().all(|&j| {
        let i = &vp.insts[j as usize];
        let consts_ok = i
            .src
            .iter()
            .filter(|s| s.reg.file == RegFile::Const)
            .all(|s| {
                vp.consts
                    .get(s.reg.index as usize)
                    .is_some_and(|c| constant_ok(&c.binding))
            });
        fp.profile.has(i.op)
            && i.op.matrix_rows().is_none()
            && i.dst
                .as_ref()
                .is_some_and(|d| d.reg.file == RegFile::Temp || d.reg.file.is_output())
            && i.src.iter().all(|s| s.rel.is_none())
            && one_writer(j)
            && consts_ok
    });
    (executable && insts.len() as u32 <= limit).then_some(Plan { reg, insts, lanes })
}

/// An interpolant register recomputed in the fragment program, and per component the
/// fragment temporary component now holding it.
type Recomputed = (Reg, [Option<(Reg, Comp)>; 4]);

/// Writes the plans' instructions at the top of `fp` (renamed onto fresh temporaries,
/// constants copied or mirrored into parameters outside `reserved`); returns, per plan, the fragment register and lane of each
/// interpolant component, or why it cannot.
pub fn emit(
    fp: &mut Tracked,
    vp: &Program,
    vp_du: &DefUse,
    plans: &[Plan],
    fp_limits: &hoist_asm::profile::Limits,
    (mirror_params, reserved): (bool, &[ConstBinding]),
    mirrors: &mut Vec<Mirror>,
) -> Result<Vec<Recomputed>, String> {
    let mut code: Vec<hoist_asm::Inst> = Vec::new();
    // Vertex instruction -> the fragment temporary its copy writes.
    let mut temps: Vec<(u32, u16)> = Vec::new();
    let mut next = fp.program.num_temps.max(used_temp_count(&fp.program));
    let mut out = Vec::new();
    // D3D9 registers handed out here: the code reading them is inserted only at the end,
    // so until then they look free; and the parameters the original program read.
    let mut given: Vec<u16> = reserved
        .iter()
        .filter_map(|b| match *b {
            ConstBinding::Env(n) => Some(n),
            _ => None,
        })
        .collect();
    for plan in plans {
        for &j in &plan.insts {
            if temps.iter().any(|(jj, _)| *jj == j) {
                continue;
            }
            let mut inst = vp.insts[j as usize].clone();
            inst.span = hoist_asm::Span::NONE;
            inst.comment = None;
            for (k, s) in inst.src.iter_mut().enumerate() {
                s.name = None;
                s.span = hoist_asm::Span::NONE;
                match s.reg.file {
                    RegFile::Temp => {
                        let w = vp_du
                            .reads(j as usize)
                            .iter()
                            .find(|r| r.src == k as u8)
                            .and_then(|r| r.def);
                        let t = temps.iter().find(|(jj, _)| Some(*jj) == w).map(|x| x.1);
                        s.reg =
                            Reg::new(RegFile::Temp, t.ok_or("a read before the write it needs")?);
                    }
                    RegFile::Const => {
                        let slot = constant(
                            &mut fp.program,
                            vp,
                            s.reg.index,
                            fp_limits,
                            (mirror_params, reserved, &given),
                            mirrors,
                        )?;
                        given.push(slot);
                        s.reg = Reg::new(RegFile::Const, slot);
                    }
                    _ => return Err("reads something other than constants".into()),
                }
            }
            let t = next;
            next += 1;
            let d = inst.dst.as_mut().ok_or("no destination")?;
            temps.push((j, t));
            d.reg = Reg::new(RegFile::Temp, t);
            d.name = None;
            d.span = hoist_asm::Span::NONE;
            edit::ensure_temp(&mut fp.program, t);
            code.push(inst);
        }
        let lanes = plan.lanes.map(|l| {
            l.and_then(|(j, c)| {
                temps
                    .iter()
                    .find(|(jj, _)| *jj == j)
                    .map(|x| (Reg::new(RegFile::Temp, x.1), c))
            })
        });
        out.push((plan.reg, lanes));
    }
    let mut insts = std::mem::take(&mut fp.program.insts);
    let mut lines = std::mem::take(&mut fp.lines);
    for inst in code {
        fp.program.insts.push(inst);
        fp.lines.push(Line::added(AddedFor::Recompute, None));
    }
    fp.program.insts.append(&mut insts);
    fp.lines.append(&mut lines);
    Ok(out)
}

/// Temporaries a D3D9 program uses (ARB programs declare theirs).
fn used_temp_count(p: &Program) -> u16 {
    let mut n = 0;
    for i in &p.insts {
        for r in i
            .dst
            .iter()
            .map(|d| d.reg)
            .chain(i.src.iter().map(|s| s.reg))
        {
            if r.file == RegFile::Temp {
                n = n.max(r.index + 1);
            }
        }
    }
    n
}

/// A fragment constant slot holding vertex constant slot `slot`'s value.
fn constant(
    fp: &mut Program,
    vp: &Program,
    slot: u16,
    limits: &hoist_asm::profile::Limits,
    (mirror_params, reserved, avoid): (bool, &[ConstBinding], &[u16]),
    mirrors: &mut Vec<Mirror>,
) -> Result<u16, String> {
    let b = vp
        .consts
        .get(slot as usize)
        .map(|c| c.binding.clone())
        .ok_or("no such constant")?;
    let full = || "no fragment constant left".to_string();
    match &b {
        ConstBinding::Literal(l) => {
            edit::literal_slot(fp, l.value, limits.consts, None, avoid).ok_or_else(full)
        }
        ConstBinding::State(s)
            if fp.dialect() == hoist_asm::Dialect::Arb
                && crate::passes::varying_const::fragment_state(s) =>
        {
            edit::binding_slot(fp, b.clone(), limits.consts, None, avoid).ok_or_else(full)
        }
        _ if !mirror_params => {
            Err("reads a vertex parameter and \"mirror parameters\" is off".into())
        }
        _ => {
            if let Some(m) = mirrors.iter().find(|m| m.to_fragment && m.vertex == b)
                && let Some(k) = fp.consts.iter().position(|c| c.binding == m.fragment)
            {
                return Ok(k as u16);
            }
            let (slot, fb) = crate::passes::varying_const::new_fragment_param(fp, limits, mirrors, reserved)
                .ok_or_else(full)?;
            mirrors.push(Mirror {
                vertex: b,
                fragment: fb,
                to_fragment: true,
            });
            Ok(slot)
        }
    }
}

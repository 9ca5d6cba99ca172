//! The optimization pipeline, as a sequence of named steps.
//!
//! 1. Analyse the pair: def-use of both programs, interpolant origins, movability (C1–C4)
//!    and the independent groups ([`crate::analysis`]).
//! 2. Choose what to move ([`crate::select`]): all movable groups, the paper's greedy rule,
//!    an exact search, or the first `k` groups (stepwise).
//! 3. [`evaluate`] a choice: move it ([`passes::fp_to_vp`]), then clean up — fragment copy
//!    propagation and dead-code elimination (which removes the materialising `mov`s and any
//!    interpolator nobody reads any more), vertex retargeting, copy propagation and
//!    dead-code elimination — and validate both programs against their profiles and limits.
//!    Analyses are recomputed after every pass that changes a program; none is kept across.

use crate::analysis::defuse::DefUse;
use crate::analysis::interp::InterpMap;
use crate::analysis::movable::Movability;
use crate::cost::CostModel;
use crate::passes::{self, copy_prop, dce, fp_to_vp, retarget};
use crate::tracked::{AddedFor, Line, Prov, Tracked};
use hoist_asm::Diagnostic;
use hoist_asm::ir::{Comp, Inst, Program, Reg, RegFile, Semantic, Src, Swizzle};
use hoist_asm::profile::{Limits, Profile, SlotCount};
use serde::Serialize;

/// Resource figures of a program pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub vp_slots: SlotCount,
    pub fp_slots: SlotCount,
    pub vp_instructions: u32,
    pub fp_instructions: u32,
    pub vp_temps: u16,
    pub fp_temps: u16,
    /// Texture-coordinate interpolator components the fragment program reads.
    pub interp_components: u32,
    /// Texture-coordinate interpolator registers the fragment program reads.
    pub interp_registers: u32,
    /// Texture-coordinate interpolator registers the profiles offer.
    pub interp_available: u32,
    /// Colour interpolator components the fragment program reads.
    pub color_components: u32,
}

impl Stats {
    pub fn of(vp: &Program, fp: &Program, vp_limits: &Limits, fp_limits: &Limits) -> Stats {
        let mut tex = std::collections::BTreeMap::<Reg, u8>::new();
        let mut color = 0u8;
        for inst in &fp.insts {
            let lanes = if inst.info().has_dst {
                inst.dst_lanes()
            } else {
                hoist_asm::WriteMask::ALL
            };
            for (k, s) in inst.src.iter().enumerate() {
                let reads = inst.src_reads(k, lanes).0;
                let is_color = matches!(fp.semantic(s.reg), Some(Semantic::Color(_)));
                match s.reg.file {
                    RegFile::Input | RegFile::TexCoord if is_color => {
                        color |= reads << (4 * s.reg.index.min(1))
                    }
                    RegFile::TexCoord | RegFile::Input => *tex.entry(s.reg).or_default() |= reads,
                    _ => {}
                }
            }
        }
        Stats {
            vp_slots: vp.slots(),
            fp_slots: fp.slots(),
            vp_instructions: vp.insts.len() as u32,
            fp_instructions: fp.insts.len() as u32,
            vp_temps: used_temps(vp),
            fp_temps: used_temps(fp),
            interp_components: tex.values().map(|m| m.count_ones()).sum(),
            interp_registers: tex.len() as u32,
            interp_available: vp_limits.texcoords.min(fp_limits.texcoords) as u32,
            color_components: color.count_ones(),
        }
    }
}

/// Temporaries a program touches (D3D9: highest `r#` + 1; ARB: declared).
fn used_temps(p: &Program) -> u16 {
    let mut hi = 0;
    for i in &p.insts {
        if let Some(d) = &i.dst
            && d.reg.file == RegFile::Temp
        {
            hi = hi.max(d.reg.index + 1);
        }
        for s in &i.src {
            if s.reg.file == RegFile::Temp {
                hi = hi.max(s.reg.index + 1);
            }
        }
    }
    if p.dialect() == hoist_asm::Dialect::Arb {
        p.num_temps
    } else {
        hi
    }
}

/// Analyses of the original pair, shared by every evaluation.
pub struct Analysis {
    pub vp_du: Option<DefUse>,
    pub fp_du: Option<DefUse>,
    pub interp: InterpMap,
    pub movability: Movability,
    pub groups: crate::analysis::groups::Groups,
}

/// One evaluated choice.
#[derive(Clone, Debug)]
pub struct Evaluated {
    pub vp: Tracked,
    pub fp: Tracked,
    pub mirrors: Vec<fp_to_vp::Mirror>,
    pub transports: Vec<fp_to_vp::Transport>,
    pub duplicated: Vec<u32>,
    pub stats: Stats,
    pub cost: (f64, f64, f64),
}

/// Why an evaluation failed.
#[derive(Clone, Debug)]
pub enum Rejected {
    Infeasible(fp_to_vp::Infeasible),
    Invalid(Vec<Diagnostic>),
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::Infeasible(i) => write!(f, "{i}"),
            Rejected::Invalid(d) => write!(
                f,
                "the result would break a profile rule: {}",
                d.first().map_or("?", |d| d.message.as_str())
            ),
        }
    }
}

/// Everything [`evaluate`] needs besides the choice.
pub struct Context<'a> {
    pub vp: &'a Program,
    pub fp: &'a Program,
    pub vp_limits: &'a Limits,
    pub fp_limits: &'a Limits,
    pub analysis: &'a Analysis,
    pub cost: CostModel,
    pub vp_cleanup: bool,
}

/// Source swizzles a D3D9 2.0-level pixel shader accepts without the arbitrary-swizzle cap:
/// none, replicate, `.yzxw`, `.zxyw`, `.wzyx`; texture coordinates of texture ops: none.
pub fn fragment_swizzle_ok(profile: Profile, inst: &Inst, k: usize, s: &Src) -> bool {
    match profile {
        Profile::Ps2_0 | Profile::Ps2_x => {
            if inst.op.is_texture() && k == 0 {
                return s.swizzle.is_identity();
            }
            s.swizzle.is_identity()
                || s.swizzle.is_replicate()
                || [
                    Swizzle::new(1, 2, 0, 3),
                    Swizzle::new(2, 0, 1, 3),
                    Swizzle::new(3, 2, 1, 0),
                ]
                .contains(&s.swizzle)
        }
        _ => true,
    }
}

/// Vertex outputs still needed: non-interpolant outputs always, interpolants when read.
fn vp_live_out(vp: &Program, fp: &Program) -> impl Fn(Reg, Comp) -> bool + use<> {
    let mut read: Vec<(Semantic, Comp)> = Vec::new();
    for inst in &fp.insts {
        let lanes = if inst.info().has_dst {
            inst.dst_lanes()
        } else {
            hoist_asm::WriteMask::ALL
        };
        for (k, s) in inst.src.iter().enumerate() {
            if let Some(sem) = fp.semantic(s.reg) {
                for c in inst.src_reads(k, lanes).iter() {
                    read.push((sem, c));
                }
            }
        }
    }
    let io: Vec<(Reg, Option<Semantic>)> =
        vp.io.iter().map(|d| (d.reg, Some(d.semantic))).collect();
    move |reg: Reg, c: Comp| {
        let sem = io
            .iter()
            .find(|(r, _)| *r == reg)
            .and_then(|(_, s)| *s)
            .or(match reg.file {
                RegFile::TexCrdOut => Some(Semantic::TexCoord(reg.index as u8)),
                RegFile::AttrOut if reg.index < 2 => Some(Semantic::Color(reg.index as u8)),
                _ => None,
            });
        match sem {
            Some(s @ (Semantic::TexCoord(_) | Semantic::Color(_) | Semantic::Generic(_))) => {
                read.contains(&(s, c))
            }
            _ => true,
        }
    }
}

/// Drops input/output declarations of registers neither program touches any more.
fn prune_io(vp: &mut Program, fp: &mut Program) {
    let used = |p: &Program, r: Reg| {
        p.insts.iter().any(|i| i.dst.as_ref().is_some_and(|d| d.reg == r) || i.src.iter().any(|s| s.reg == r))
            || p.symbols.iter().any(|s| matches!(s.kind, hoist_asm::ir::SymKind::Attrib(a) | hoist_asm::ir::SymKind::Output(a) if a == r))
    };
    let fp_c = fp.clone();
    fp.io
        .retain(|d| !d.reg.file.is_input() || used(&fp_c, d.reg) || d.reg.file == RegFile::Misc);
    let vp_c = vp.clone();
    vp.io
        .retain(|d| !d.reg.file.is_output() || used(&vp_c, d.reg));
}

/// Moves the instructions marked in `selected`, cleans up and validates.
pub fn evaluate(cx: &Context, selected: &[bool]) -> Result<Evaluated, Rejected> {
    let a = cx.analysis;
    let (Some(vp_du), Some(fp_du)) = (&a.vp_du, &a.fp_du) else {
        // Flow control in either program: nothing can move; the pair stays as written.
        if selected.iter().any(|&s| s) {
            return Err(Rejected::Infeasible(fp_to_vp::Infeasible::FlowControl));
        }
        let stats = Stats::of(cx.vp, cx.fp, cx.vp_limits, cx.fp_limits);
        let cost = cx.cost.cost(
            stats.fp_slots.total(),
            stats.vp_slots.total(),
            stats.interp_components,
        );
        return Ok(Evaluated {
            vp: Tracked::new(cx.vp.clone()),
            fp: Tracked::new(cx.fp.clone()),
            mirrors: Vec::new(),
            transports: Vec::new(),
            duplicated: Vec::new(),
            stats,
            cost,
        });
    };
    let input = fp_to_vp::Input {
        vp: cx.vp,
        fp: cx.fp,
        vp_du,
        fp_du,
        interp: &a.interp,
        movability: &a.movability,
        vp_limits: cx.vp_limits,
        fp_limits: cx.fp_limits,
    };
    let mut m = fp_to_vp::run(&input, selected).map_err(Rejected::Infeasible)?;

    // Fragment side: read interpolators directly, then drop what became dead.
    let fp_profile = cx.fp.profile;
    let is_materialize = |l: &Line, _: &Inst| {
        matches!(
            l.prov,
            Prov::Added {
                why: AddedFor::Materialize,
                ..
            }
        )
    };
    copy_prop::run(&mut m.fp, &is_materialize, &|_| true, &|p, j, k, s| {
        fragment_swizzle_ok(fp_profile, &p.insts[j], k, s)
    });
    let fp_out = |r: Reg, _: Comp| matches!(r.file, RegFile::ColorOut | RegFile::DepthOut);
    dce::run(&mut m.fp, &fp_out, &|l| !l.is_original());
    if let (Profile::Ps2_0 | Profile::Ps2_x, Some(levels)) =
        (fp_profile, cx.fp_limits.max_tex_indirections)
    {
        passes::tex_rename::run(&mut m.fp, levels as i32 - 1, cx.fp_limits.temps);
    }

    // Vertex side: write interpolators directly, fold copies in moved code, drop dead code
    // (including interpolants the fragment program no longer reads).
    if cx.vp_cleanup {
        let not_original = |l: &Line, _: &Inst| !l.is_original();
        let legal = |p: &Program, j: usize, k: usize, s: &Src| {
            let mut inst = p.insts[j].clone();
            inst.src[k] = s.clone();
            hoist_asm::check_inst(p, &inst).is_empty()
        };
        passes::fold::run(&mut m.vp, cx.vp_limits.consts, &legal);
        copy_prop::run(&mut m.vp, &not_original, &|l| !l.is_original(), &legal);
        let live = vp_live_out(&m.vp.program, &m.fp.program);
        dce::run(&mut m.vp, &live, &|l| !l.is_original());
        retarget::run(&mut m.vp);
        copy_prop::run(&mut m.vp, &not_original, &|l| !l.is_original(), &legal);
    }
    let live = vp_live_out(&m.vp.program, &m.fp.program);
    dce::run(&mut m.vp, &live, &|_| true);
    passes::legalize::run(&mut m.vp, cx.vp_limits);
    prune_io(&mut m.vp.program, &mut m.fp.program);
    crate::edit::prune_added_consts(&mut m.vp.program, cx.vp);
    crate::edit::prune_added_consts(&mut m.fp.program, cx.fp);
    hoist_asm::canonicalize(&mut m.vp.program);
    hoist_asm::canonicalize(&mut m.fp.program);

    let mut diags = hoist_asm::validate::check(&m.vp.program, cx.vp_limits);
    diags.extend(hoist_asm::validate::check(&m.fp.program, cx.fp_limits));
    diags.retain(|d| d.is_error());
    if !diags.is_empty() {
        return Err(Rejected::Invalid(diags));
    }
    let stats = Stats::of(&m.vp.program, &m.fp.program, cx.vp_limits, cx.fp_limits);
    let cost = cx.cost.cost(
        stats.fp_slots.total(),
        stats.vp_slots.total(),
        stats.interp_components,
    );
    Ok(Evaluated {
        vp: m.vp,
        fp: m.fp,
        mirrors: m.mirrors,
        transports: m.transports,
        duplicated: m.duplicated,
        stats,
        cost,
    })
}

/// Free interpolator capacity of the pair (see [`crate::select::Capacity`]).
pub fn capacity(cx: &Context) -> crate::select::Capacity {
    let (Some(vp_du), Some(fp_du)) = (&cx.analysis.vp_du, &cx.analysis.fp_du) else {
        return crate::select::Capacity {
            per_comp: [0; 4],
            total: 0,
            any_slot: false,
        };
    };
    let input = fp_to_vp::Input {
        vp: cx.vp,
        fp: cx.fp,
        vp_du,
        fp_du,
        interp: &cx.analysis.interp,
        movability: &cx.analysis.movability,
        vp_limits: cx.vp_limits,
        fp_limits: cx.fp_limits,
    };
    let free = fp_to_vp::free_components(&input);
    let mut per_comp = [0u32; 4];
    for m in &free {
        for c in m.iter() {
            per_comp[c as usize] += 1;
        }
    }
    crate::select::Capacity {
        per_comp,
        total: per_comp.iter().sum(),
        any_slot: fp_to_vp::swizzle_free(cx.fp.profile),
    }
}

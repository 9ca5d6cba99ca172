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

use crate::cost::CostModel;
use crate::passes::{self, Env, Id, Removable, Report, fp_to_vp};
use crate::tracked::Tracked;
use hoist_asm::Diagnostic;
use hoist_asm::ir::{Program, Reg, RegFile, Semantic};
use hoist_asm::profile::{Limits, Profile, SlotCount};
use serde::{Deserialize, Serialize};

/// Resource figures of a program pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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

pub use crate::analysis::Analysis;

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
    /// Merges of the vector-packing pass (vertex, fragment).
    pub slp_merges: [u32; 2],
    /// How a program over its temp limit was made to fit (`passes::fit`), in words.
    pub fits: Vec<String>,
    /// What every texture-coordinate interpolator component carries after the motion.
    pub carries: Vec<fp_to_vp::Carry>,
    /// The packing was decided exactly; it relocated existing interpolants.
    pub exact_packing: bool,
    pub relocated: bool,
    /// What the varying steps of the motion did (uniform expressions recomputed).
    pub changes: Vec<crate::analysis::varyings::Change>,
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
    /// Run the vector-packing pass on both programs after the motion.
    pub slp: bool,
    pub schedule: bool,
    pub fit: bool,
    pub peepholes: crate::options::Peepholes,
    /// Provenance of the fragment program's instructions (what the varying passes changed).
    pub fp_lines: &'a [crate::tracked::Line],
    /// Fragment copies of vertex parameters the varying passes made.
    pub reverse: &'a [fp_to_vp::Mirror],
    /// The packing may relocate existing interpolants (`Options::varyings`).
    pub relocate: bool,
    pub mirror_params: bool,
}

impl Context<'_> {
    /// The motion's input for this pair.
    pub fn input<'b>(
        &'b self,
        vp_du: &'b crate::analysis::defuse::DefUse,
        fp_du: &'b crate::analysis::defuse::DefUse,
        vp_limits: &'b Limits,
    ) -> fp_to_vp::Input<'b> {
        let a = self.analysis;
        fp_to_vp::Input {
            vp: self.vp,
            fp: self.fp,
            vp_du,
            fp_du,
            interp: &a.interp,
            movability: &a.movability,
            vp_limits,
            fp_limits: self.fp_limits,
            facts: &a.facts,
            fp_lines: self.fp_lines,
            reverse: self.reverse,
            relocate: self.relocate,
            recompute: self.cost.recompute(),
            mirror_params: self.mirror_params,
        }
    }
}

pub use crate::passes::{
    fragment_live_out, fragment_swizzle_ok, is_materialize, vertex_operand_legal, vp_live_out,
};

/// Drops input/output declarations of registers neither program touches any more, except
/// a vertex output declaration that holds a register whose unwritten `w` the fragment
/// program reads (`analysis::presence`).
fn prune_io(vp: &mut Program, fp: &mut Program) {
    use crate::analysis::presence;
    // Its own declaration (which may be what gives it its semantic), or a higher one when
    // no instruction holds it.
    let holding: Vec<Reg> = presence::needs(vp, fp)
        .into_iter()
        .filter_map(|n| {
            presence::holding_decl(vp, n)
                .filter(|&d| d == n || !presence::held_by_instructions(vp, n))
        })
        .collect();
    let used = |p: &Program, r: Reg| {
        p.insts.iter().any(|i| i.dst.as_ref().is_some_and(|d| d.reg == r) || i.src.iter().any(|s| s.reg == r))
            || p.symbols.iter().any(|s| matches!(s.kind, hoist_asm::ir::SymKind::Attrib(a) | hoist_asm::ir::SymKind::Output(a) if a == r))
    };
    let fp_c = fp.clone();
    fp.io
        .retain(|d| !d.reg.file.is_input() || used(&fp_c, d.reg) || d.reg.file == RegFile::Misc);
    let vp_c = vp.clone();
    vp.io
        .retain(|d| !d.reg.file.is_output() || used(&vp_c, d.reg) || holding.contains(&d.reg));
}

/// The R600-motivated peepholes that are on (seed 004), in the order that lets each feed
/// the next: fetches first, then MUL + ADD → MAD, then MAD chains → dot products.
fn peepholes(t: &mut Tracked, on: crate::options::Peepholes, limits: &Limits) {
    let env = Env::new(limits);
    if on.tex_dedup {
        passes::run(Id::tex_dedup, t, &env);
    }
    if on.mad {
        passes::run(Id::mad_fuse, t, &env);
    }
    if on.dot {
        passes::run(Id::dot_product, t, &env);
    }
}

/// Repeats `round` until it makes no progress (a bounded number of times: every pass in a
/// round only removes or simplifies, so a few rounds reach the fixed point).
fn fixed_point(mut round: impl FnMut() -> bool) {
    for _ in 0..16 {
        if !round() {
            return;
        }
    }
}

/// How often each program runs under a cost model (vertices, fragments), which prices
/// rematerialization; the paper's model, which has no such figures, is priced as a quad.
pub fn invocations(cost: CostModel) -> (f64, f64) {
    match cost {
        CostModel::Modern {
            vertices,
            fragments,
            ..
        }
        | CostModel::R600 {
            vertices,
            fragments,
            ..
        } => (vertices, fragments),
        CostModel::Paper => (4.0, 65536.0),
    }
}

/// Makes each program over its temp limit fit, when it can (what cannot fit fails the
/// profile's rules afterwards, as before); returns how, in words.
fn fit_both(cx: &Context, m: &mut fp_to_vp::Motion) -> Vec<String> {
    let (vertices, fragments) = invocations(cx.cost);
    let mut out = Vec::new();
    for (name, t, limits, n) in [
        ("vertex", &mut m.vp, cx.vp_limits, vertices),
        ("fragment", &mut m.fp, cx.fp_limits, fragments),
    ] {
        let env = Env {
            invocations: n,
            ..Env::new(limits)
        };
        let how = match passes::run(Id::fit, t, &env) {
            Report::Fitted { how, .. } => how.ok().flatten(),
            _ => None,
        };
        if let Some(h) = how {
            out.push(format!(
                "the {name} program fits its temp limit: {}",
                h.describe()
            ));
        }
    }
    out
}

/// The pair as written: nothing moved, nothing cleaned up.
pub fn unchanged(cx: &Context) -> Evaluated {
    let stats = Stats::of(cx.vp, cx.fp, cx.vp_limits, cx.fp_limits);
    let cost = cx.cost.cost_of(
        cx.vp,
        cx.fp,
        (
            stats.fp_slots.total(),
            stats.vp_slots.total(),
            stats.interp_components,
        ),
    );
    Evaluated {
        vp: Tracked::new(cx.vp.clone()),
        fp: Tracked::new(cx.fp.clone()),
        mirrors: Vec::new(),
        transports: Vec::new(),
        duplicated: Vec::new(),
        stats,
        cost,
        slp_merges: [0; 2],
        fits: Vec::new(),
        carries: Vec::new(),
        exact_packing: true,
        relocated: false,
        changes: Vec::new(),
    }
}

/// Moves the instructions marked in `selected`, cleans up and validates.
pub fn evaluate(cx: &Context, selected: &[bool]) -> Result<Evaluated, Rejected> {
    let a = cx.analysis;
    let (Some(vp_du), Some(fp_du)) = (&a.vp_du, &a.fp_du) else {
        // Flow control in either program: nothing can move; the pair stays as written.
        if selected.iter().any(|&s| s) {
            return Err(Rejected::Infeasible(fp_to_vp::Infeasible::FlowControl));
        }
        return Ok(unchanged(cx));
    };
    // With `fit`, motion and legalisation may use more vertex temporaries than the limit;
    // the vertex program is made to fit before the profile's rules are checked.
    let loose = Limits {
        temps: cx.vp_limits.temps.saturating_mul(4),
        ..cx.vp_limits.clone()
    };
    let vp_limits = if cx.fit { &loose } else { cx.vp_limits };
    let input = cx.input(vp_du, fp_du, vp_limits);
    let mut m = passes::motion(Id::fp_to_vp, &input, selected).map_err(Rejected::Infeasible)?;

    // Fragment side: read interpolators directly, then drop what became dead, until neither
    // makes progress.
    let fp_env = Env::new(cx.fp_limits);
    fixed_point(|| {
        let progress = passes::run(Id::copy_prop, &mut m.fp, &fp_env).progress();
        progress | passes::run(Id::dce, &mut m.fp, &fp_env).progress()
    });
    peepholes(&mut m.fp, cx.peepholes, cx.fp_limits);
    if matches!(cx.fp.profile, Profile::Ps2_0 | Profile::Ps2_x)
        && cx.fp_limits.max_tex_indirections.is_some()
    {
        passes::run(Id::tex_rename, &mut m.fp, &fp_env);
    }

    // Vertex side: write interpolators directly, fold copies and constants in moved code,
    // drop dead code (including interpolants the fragment program no longer reads), until
    // nothing makes progress.
    if cx.vp_cleanup {
        let vp = &mut m.vp;
        let env = Env {
            fragment: Some(&m.fp.program),
            ..Env::new(cx.vp_limits)
        };
        fixed_point(|| {
            let mut progress = passes::run(Id::fold, vp, &env).progress();
            progress |= passes::run(Id::copy_prop, vp, &env).progress();
            progress |= passes::run(Id::dce, vp, &env).progress();
            progress | passes::run(Id::retarget, vp, &env).progress()
        });
    }
    peepholes(&mut m.vp, cx.peepholes, cx.vp_limits);
    let all = Env {
        fragment: Some(&m.fp.program),
        removable: Removable::All,
        ..Env::new(cx.vp_limits)
    };
    passes::run(Id::dce, &mut m.vp, &all);
    passes::run(Id::legalize, &mut m.vp, &Env::new(vp_limits));
    let mut slp_merges = [0u32; 2];
    if cx.slp {
        let sides = [(&mut m.vp, cx.vp_limits), (&mut m.fp, cx.fp_limits)];
        for (n, (t, limits)) in slp_merges.iter_mut().zip(sides) {
            if let Report::Merges(k) = passes::run(Id::slp, t, &Env::new(limits)) {
                *n = k as u32;
            }
        }
    }
    if cx.schedule {
        passes::run(Id::schedule, &mut m.vp, &Env::new(cx.vp_limits));
        passes::run(Id::schedule, &mut m.fp, &fp_env);
    }
    let fits = if cx.fit {
        fit_both(cx, &mut m)
    } else {
        Vec::new()
    };
    prune_io(&mut m.vp.program, &mut m.fp.program);
    crate::edit::prune_added_consts(&mut m.vp.program, cx.vp);
    crate::edit::prune_added_consts(&mut m.fp.program, cx.fp);
    hoist_asm::canonicalize(&mut m.vp.program);
    hoist_asm::canonicalize(&mut m.fp.program);
    passes::checked("prune_io, prune_added_consts, canonicalize", &m.vp);
    passes::checked("prune_io, prune_added_consts, canonicalize", &m.fp);

    let mut diags = hoist_asm::validate::check(&m.vp.program, cx.vp_limits);
    diags.extend(hoist_asm::validate::check(&m.fp.program, cx.fp_limits));
    diags.retain(|d| d.is_error());
    if !diags.is_empty() {
        return Err(Rejected::Invalid(diags));
    }
    let stats = Stats::of(&m.vp.program, &m.fp.program, cx.vp_limits, cx.fp_limits);
    let cost = cx.cost.cost_of(
        &m.vp.program,
        &m.fp.program,
        (
            stats.fp_slots.total(),
            stats.vp_slots.total(),
            stats.interp_components,
        ),
    );
    Ok(Evaluated {
        vp: m.vp,
        fp: m.fp,
        mirrors: m.mirrors,
        transports: m.transports,
        duplicated: m.duplicated,
        stats,
        cost,
        slp_merges,
        fits,
        carries: m.carries,
        exact_packing: m.exact_packing,
        relocated: m.relocated,
        changes: m.changes,
    })
}

//! # hoist-opt: move fragment-program work to the vertex program
//!
//! GPGPU programs run almost everything in the fragment program, once per pixel, while the
//! vertex program runs four times per quad. Any fragment computation that is affine in the
//! interpolated inputs can be computed per vertex and interpolated instead, with the same
//! result. This crate implements that code motion — the technique of Ikeda, Ino and
//! Hagihara, "A Code Motion Technique for Accelerating General-Purpose Computation on the
//! GPU" (IPDPS 2006) and its journal version (rules A1–A3, M1–M4) — for ARB and Direct3D 9
//! assembly, and goes beyond it: per-component values, interpolator packing, commutation that
//! unlocks motion, lowering of ops the vertex profile lacks, exact selection under limits,
//! and a modern cost model.
//!
//! - [`analysis`]: def-use, interpolant origins, movability (conditions C1–C4, with a reason
//!   for everything that stays), independent groups.
//! - [`passes`]: one transformation per file (motion, copy propagation, dead code,
//!   retargeting, legalisation, commutation, lowering).
//! - [`cost`] and [`select`]: what a choice is worth, and the greedy / exact / stepwise rules.
//! - [`pipeline`]: the steps in order, and validation of every result.
//!
//! [`optimize`] is the entry point; [`Outcome`] carries both programs, per-line provenance,
//! the fate of every fragment instruction and the statistics before and after.

pub mod analysis;
pub mod cost;
pub mod edit;
pub mod fxhash;
pub mod passes;
pub mod pipeline;
pub mod select;
pub mod tracked;

use analysis::defuse::DefUse;
use analysis::groups::Groups;
use analysis::interp::InterpMap;
use analysis::movable::{Knobs, Movability, Stay};
pub use cost::CostModel;
use hoist_asm::ir::{Program, Stage};
use hoist_asm::profile::Limits;
pub use pipeline::Stats;
use serde::{Deserialize, Serialize};
pub use tracked::{AddedFor, Line, Prov};

/// Which selection rule decides the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The paper's rule: everything movable, dropping the latest until it fits.
    Greedy,
    /// Exact search for the cheapest choice under the cost model.
    #[default]
    Optimal,
    /// Every subset of groups (at most 2^16 evaluations; more groups fall back to the exact
    /// search): slow, for checking the search.
    Exhaustive,
}

/// Optimizer options (the playground's and the command line's).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    /// Vertex-program limits (default: the profile's).
    pub vp_limits: Option<Limits>,
    /// Fragment-program limits (default: the profile's).
    pub fp_limits: Option<Limits>,
    pub cost: CostModel,
    pub selection: Selection,
    /// Move instructions that read host-set fragment parameters; the vertex program gets its
    /// own copies, listed in [`Outcome::mirrors`] for the host to set.
    pub mirror_params: bool,
    /// Apply only the first `k` movable groups.
    pub steps: Option<usize>,
    /// Swap `r = a; r += b` so that the movable term comes first.
    pub commute: bool,
    /// Emulate fragment-only ops in the vertex program when that lets them move.
    pub lower: bool,
    /// Clean up the moved vertex code (write interpolators directly, fold copies).
    pub vp_cleanup: bool,
    /// Evaluation budget of the exact search.
    pub search_budget: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            vp_limits: None,
            fp_limits: None,
            cost: CostModel::Paper,
            selection: Selection::Optimal,
            mirror_params: false,
            steps: None,
            commute: true,
            lower: true,
            vp_cleanup: true,
            search_budget: 4096,
        }
    }
}

/// What happened to one instruction of the original fragment program.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// Moved to the vertex program; `group` is its independent group (none for a shared
    /// uniform helper).
    Moved { group: Option<usize> },
    /// Stays in the fragment program.
    Stays { reason: Stay },
}

/// Result of one selection rule, for comparison.
#[derive(Clone, Debug, Serialize)]
pub struct RuleResult {
    pub rule: &'static str,
    pub moved: Vec<u32>,
    pub vp_slots: u32,
    pub fp_slots: u32,
    pub interp_components: u32,
    pub cost: f64,
    pub proven_optimal: bool,
    pub evaluations: u32,
}

/// Everything [`optimize`] produces.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub vp: Program,
    pub fp: Program,
    /// Provenance of each instruction of [`Outcome::vp`] / [`Outcome::fp`].
    pub vp_lines: Vec<Line>,
    pub fp_lines: Vec<Line>,
    /// Per instruction of the (possibly commuted) original fragment program.
    pub fates: Vec<Fate>,
    /// Instructions of each independent movable group.
    pub groups: Vec<Vec<u32>>,
    pub before: Stats,
    pub after: Stats,
    /// The rule whose result is returned, and both rules' results.
    pub chosen: &'static str,
    pub rules: Vec<RuleResult>,
    /// Vertex parameters the host must now set.
    pub mirrors: Vec<passes::fp_to_vp::Mirror>,
    pub transports: Vec<passes::fp_to_vp::Transport>,
    /// Moved uniform helpers also kept in the fragment program (no interpolator was left).
    pub duplicated: Vec<u32>,
    /// Fragment instructions whose operands were swapped to unlock motion.
    pub commuted: Vec<u32>,
    pub notes: Vec<String>,
}

impl Outcome {
    /// Fragment-slot reduction in percent.
    pub fn fp_reduction(&self) -> f64 {
        let b = self.before.fp_slots.total() as f64;
        if b == 0.0 {
            0.0
        } else {
            100.0 * (b - self.after.fp_slots.total() as f64) / b
        }
    }
}

/// Why a pair cannot be optimized at all.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OptError {
    #[error("{0}")]
    NotAPair(String),
    #[error("the input does not validate: {0}")]
    Invalid(String),
}

fn analyze(vp: &Program, fp: &Program, opts: &Options) -> pipeline::Analysis {
    let vp_du = DefUse::compute(vp).ok();
    let fp_du = DefUse::compute(fp).ok();
    let interp = InterpMap::compute(vp, vp_du.as_ref(), fp);
    let vp_profile = vp.profile;
    let lower = opts.lower;
    let lowerable = move |i: &hoist_asm::Inst| lower && passes::lower::can_lower(i, vp_profile);
    let knobs = Knobs {
        vp_profile,
        mirror_params: opts.mirror_params,
        lowerable: &lowerable,
    };
    let (movability, groups) = match (&fp_du, &vp_du) {
        (Some(du), Some(_)) => {
            let m = Movability::compute(fp, du, &interp, &knobs);
            let g = Groups::compute(du, &m);
            (m, g)
        }
        _ => {
            let n = fp.insts.len();
            (
                Movability {
                    stays: vec![Some(Stay::FlowControl); n],
                    kinds: vec![[analysis::movable::Kind::Varying; 4]; n],
                },
                Groups::default(),
            )
        }
    };
    pipeline::Analysis {
        vp_du,
        fp_du,
        interp,
        movability,
        groups,
    }
}

fn rule_result(rule: &'static str, c: &select::Choice) -> RuleResult {
    RuleResult {
        rule,
        moved: c
            .selected
            .iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| i as u32)
            .collect(),
        vp_slots: c.result.stats.vp_slots.total(),
        fp_slots: c.result.stats.fp_slots.total(),
        interp_components: c.result.stats.interp_components,
        cost: c.result.cost.0,
        proven_optimal: c.proven,
        evaluations: c.evaluations,
    }
}

/// Optimizes a vertex/fragment program pair.
pub fn optimize(vp: &Program, fp: &Program, opts: &Options) -> Result<Outcome, OptError> {
    if vp.stage() != Stage::Vertex || fp.stage() != Stage::Fragment {
        return Err(OptError::NotAPair(
            "expected a vertex program and a fragment program".into(),
        ));
    }
    if vp.dialect() != fp.dialect() {
        return Err(OptError::NotAPair(format!(
            "the vertex program is {} and the fragment program {}; both must be the same language",
            vp.profile, fp.profile
        )));
    }
    let vp_limits = opts
        .vp_limits
        .clone()
        .unwrap_or_else(|| vp.profile.limits());
    let fp_limits = opts
        .fp_limits
        .clone()
        .unwrap_or_else(|| fp.profile.limits());
    let mut notes = Vec::new();

    // Commutation first: it changes what is movable.
    let mut fp_work = tracked::Tracked::new(fp.clone());
    let mut commuted = Vec::new();
    if opts.commute {
        let a = analyze(vp, fp, opts);
        if let Some(du) = &a.fp_du {
            let m = &a.movability;
            let movable_src = |j: usize, k: usize| {
                fp.insts[j].src[k].reg.file != hoist_asm::RegFile::Misc
                    && du
                        .reads(j)
                        .iter()
                        .filter(|r| r.src as usize == k)
                        .all(|r| match r.def {
                            Some(d) => m.movable(d as usize),
                            None => !r.reg.file.is_input() || a.interp.written(r.reg, r.comp),
                        })
            };
            commuted = passes::commute::run(&mut fp_work, du, m, &movable_src);
        }
    }
    let fp_c = fp_work.program.clone();
    let analysis = analyze(vp, &fp_c, opts);
    if !commuted.is_empty() {
        // Keep a commutation only if the instruction it freed is movable now.
        commuted.retain(|&i| analysis.movability.movable(i));
    }
    let cx = pipeline::Context {
        vp,
        fp: &fp_c,
        vp_limits: &vp_limits,
        fp_limits: &fp_limits,
        analysis: &analysis,
        cost: opts.cost,
        vp_cleanup: opts.vp_cleanup,
    };
    let n = fp_c.insts.len();
    let movable: Vec<bool> = (0..n).map(|i| analysis.movability.movable(i)).collect();
    let groups = &analysis.groups;

    let greedy = select::greedy(&cx, &movable, groups);
    // Each evaluation costs time proportional to the program, so long programs get fewer of
    // them (a 1000-instruction program 20, about 30 ms); they may end unproven.
    let budget = opts.search_budget.min((20_000 / n.max(1)).max(8) as u32);
    let optimal = select::optimal(&cx, groups, budget, greedy.as_ref().ok());
    let mut rules = Vec::new();
    if let Ok(c) = &greedy {
        rules.push(rule_result("greedy", c));
    }
    if let Ok(c) = &optimal {
        rules.push(rule_result("optimal", c));
    }
    let (chosen_name, chosen) = match opts.steps {
        Some(k) => ("stepwise", select::stepwise(&cx, groups, k)),
        None => match opts.selection {
            Selection::Greedy => ("greedy", greedy),
            Selection::Optimal => ("optimal", optimal),
            Selection::Exhaustive => match select::exhaustive(&cx, groups) {
                Some(c) => ("exhaustive", c),
                None => {
                    notes.push(format!(
                        "more than {} groups: the exact search decides instead of trying every subset",
                        select::EXHAUSTIVE_GROUPS
                    ));
                    ("optimal", optimal)
                }
            },
        },
    };
    let chosen = match chosen {
        Ok(c) => c,
        Err(why) => {
            notes.push(format!("nothing moved: {why}"));
            let result = select::nothing(&cx).map_err(|e| OptError::Invalid(e.to_string()))?;
            select::Choice {
                selected: vec![false; n],
                result: result.into(),
                proven: false,
                evaluations: 1,
                dropped: Vec::new(),
            }
        }
    };

    let mut fates = Vec::with_capacity(n);
    for i in 0..n {
        let fate = if chosen.selected[i] {
            Fate::Moved {
                group: groups.of[i],
            }
        } else if let Some(s) = &analysis.movability.stays[i] {
            Fate::Stays { reason: s.clone() }
        } else {
            let why = chosen
                .dropped
                .iter()
                .find(|(j, _)| *j as usize == i)
                .map(|(_, w)| w.clone());
            Fate::Stays {
                reason: match why {
                    Some(w) => Stay::NotSelected { why: w },
                    None => Stay::NotSelected {
                        why: "the selection left it in place".into(),
                    },
                },
            }
        };
        fates.push(fate);
    }
    if chosen.selected.iter().any(|&s| s) {
        notes.push(
            "moved values are interpolated: results agree up to floating-point rounding, and an \
             infinite value would interpolate to NaN"
                .into(),
        );
    }
    if !chosen.result.mirrors.is_empty() {
        notes.push(format!(
            "the host must set {} new vertex parameter(s), see mirrors",
            chosen.result.mirrors.len()
        ));
    }
    let before = Stats::of(vp, fp, &vp_limits, &fp_limits);
    let r = std::sync::Arc::unwrap_or_clone(chosen.result);
    Ok(Outcome {
        vp: r.vp.program,
        fp: r.fp.program,
        vp_lines: r.vp.lines,
        fp_lines: r.fp.lines,
        fates,
        groups: groups.members.clone(),
        before,
        after: r.stats,
        chosen: chosen_name,
        rules,
        mirrors: r.mirrors,
        transports: r.transports,
        duplicated: r.duplicated,
        commuted: commuted.iter().map(|&i| i as u32).collect(),
        notes,
    })
}

//! The optimizer's entry points: analyse a pair once ([`analyze`]), then evaluate the
//! options' selection rule or a fixed set of groups through the pipeline
//! ([`crate::pipeline::evaluate`]) and describe the result ([`Outcome`]).

use crate::analysis;
use crate::analysis::defuse::DefUse;
use crate::analysis::groups::Groups;
use crate::analysis::interp::InterpMap;
use crate::analysis::movable::{Knobs, Movability, Stay};
use crate::analysis::varyings::Change;
use crate::options::{Options, Selection};
use crate::outcome::{Fate, OptError, Outcome, RuleResult};
use crate::pipeline::{self, Stats};
use crate::{passes, select, tracked, varying_map};
use hoist_asm::ir::{Program, Stage};
use hoist_asm::profile::Limits;

/// The analyses of a pair under `opts` (def-use, interpolant origins, movability, groups).
pub fn analyze(vp: &Program, fp: &Program, opts: &Options) -> analysis::Analysis {
    let vp_du = DefUse::compute(vp).ok();
    let fp_du = DefUse::compute(fp).ok();
    let interp = InterpMap::compute(vp, vp_du.as_ref(), fp);
    let vp_profile = vp.profile;
    let lower = opts.lower;
    let lowerable = move |i: &hoist_asm::Inst| lower && passes::lower::can_lower(i, vp_profile);
    let forced = |i: usize| {
        opts.stay
            .iter()
            .find(|(j, _)| *j as usize == i)
            .map(|(_, why)| Stay::Rejected { why: why.clone() })
    };
    let nonfinite = analysis::finite::nonfinite_selects(vp, fp, &interp);
    let inexact = |i: usize| nonfinite.get(i).copied().unwrap_or(false);
    let knobs = Knobs {
        vp_profile,
        mirror_params: opts.mirror_params,
        lowerable: &lowerable,
        inexact_lowering: &inexact,
        forced: &forced,
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
                    qualifiers: vec![None; n],
                },
                Groups::default(),
            )
        }
    };
    let facts = analysis::varyings::Varyings::compute(vp, vp_du.as_ref(), fp, &interp);
    analysis::Analysis {
        vp_du,
        fp_du,
        interp,
        movability,
        groups,
        facts,
    }
}

fn rule_result(rule: &'static str, c: &select::Choice) -> RuleResult {
    RuleResult {
        rule: rule.into(),
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
    Optimizer::new(vp, fp, opts)?.run()
}

/// A pair analysed once, from which choices are evaluated: the selection rule of the
/// options ([`Optimizer::run`]) or a fixed set of groups ([`Optimizer::with_groups`], which
/// translation validation uses to find the group behind a failure).
pub struct Optimizer<'a> {
    vp: &'a Program,
    /// The fragment program as given.
    original_fp: Program,
    /// The fragment program after the varying passes and commutation.
    fp: Program,
    /// Provenance of its instructions (the operands the varying passes rewrote).
    fp_lines: Vec<tracked::Line>,
    /// What the varying passes did, and the fragment copies of vertex parameters they made.
    varying_changes: Vec<Change>,
    varying_mirrors: Vec<passes::fp_to_vp::Mirror>,
    opts: Options,
    vp_limits: Limits,
    fp_limits: Limits,
    analysis: analysis::Analysis,
    commuted: Vec<usize>,
}

impl<'a> Optimizer<'a> {
    pub fn new(vp: &'a Program, fp: &Program, opts: &Options) -> Result<Optimizer<'a>, OptError> {
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
        let pre = varying_passes(vp, fp, opts, &fp_limits);
        let (fp_c, mut commuted) = if opts.commute {
            commute(vp, &pre.fp.program, opts)
        } else {
            (pre.fp.program.clone(), Vec::new())
        };
        let analysis = analyze(vp, &fp_c, opts);
        // Keep a commutation only if the instruction it freed is movable now.
        commuted.retain(|&i| analysis.movability.movable(i));
        Ok(Optimizer {
            vp,
            original_fp: fp.clone(),
            fp: fp_c,
            fp_lines: pre.fp.lines,
            varying_changes: pre.changes,
            varying_mirrors: pre.mirrors,
            opts: opts.clone(),
            vp_limits,
            fp_limits,
            analysis,
            commuted,
        })
    }

    fn context(&self) -> pipeline::Context<'_> {
        pipeline::Context {
            vp: self.vp,
            fp: &self.fp,
            vp_limits: &self.vp_limits,
            fp_limits: &self.fp_limits,
            analysis: &self.analysis,
            cost: self.opts.cost,
            vp_cleanup: self.opts.vp_cleanup,
            slp: self.opts.slp,
            schedule: self.opts.schedule,
            fit: self.opts.fit,
            peepholes: self.opts.peepholes,
            fp_lines: &self.fp_lines,
            reverse: &self.varying_mirrors,
            relocate: self.opts.varyings,
            mirror_params: self.opts.mirror_params,
        }
    }

    /// Independent movable groups (instruction indices of the commuted fragment program).
    pub fn groups(&self) -> &[Vec<u32>] {
        &self.analysis.groups.members
    }

    /// The result of the options' selection rule.
    pub fn run(&self) -> Result<Outcome, OptError> {
        let cx = self.context();
        let (name, chosen, rules, notes) = self.select(&cx);
        // With `fit`, the same rule without it is what dropping would have given.
        let alternative = match &chosen {
            Ok(c) if cx.fit && !c.result.fits.is_empty() => {
                let strict = pipeline::Context { fit: false, ..cx };
                self.select(&strict).1.ok()
            }
            _ => None,
        };
        self.outcome(name, chosen, rules, notes, alternative)
    }

    /// The options' selection rule under `cx`: its name, its choice, both rules' results
    /// and notes.
    fn select(
        &self,
        cx: &pipeline::Context,
    ) -> (
        &'static str,
        Result<select::Choice, pipeline::Rejected>,
        Vec<RuleResult>,
        Vec<String>,
    ) {
        let opts = &self.opts;
        let n = self.fp.insts.len();
        let groups = &self.analysis.groups;
        let movable: Vec<bool> = (0..n)
            .map(|i| self.analysis.movability.movable(i))
            .collect();
        let mut notes = Vec::new();
        let greedy = select::greedy(cx, &movable, groups);
        // Each evaluation costs time proportional to the program, so long programs get fewer
        // of them (a 1000-instruction program 20, about 30 ms); they may end unproven.
        let budget = opts.search_budget.min((20_000 / n.max(1)).max(8) as u32);
        let optimal = select::optimal(cx, groups, budget, greedy.as_ref().ok());
        let mut rules = Vec::new();
        if let Ok(c) = &greedy {
            rules.push(rule_result("greedy", c));
        }
        if let Ok(c) = &optimal {
            rules.push(rule_result("optimal", c));
        }
        let (name, chosen) = match opts.steps {
            Some(k) => ("stepwise", select::stepwise(cx, groups, k)),
            None => match opts.selection {
                Selection::Greedy => ("greedy", greedy),
                Selection::Optimal => ("optimal", optimal),
                Selection::Exhaustive => match select::exhaustive(cx, groups) {
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
        (name, chosen, rules, notes)
    }

    /// Exactly the groups in `which` (indices into [`Optimizer::groups`]) moved, with the
    /// helpers they need; `Err` when that choice does not fit the limits.
    pub fn with_groups(&self, which: &[usize]) -> Result<Outcome, String> {
        let cx = self.context();
        let chosen = select::fixed(&cx, &self.analysis.groups, which, &|g| {
            format!("group {g} was left out")
        })
        .map_err(|e| e.to_string())?;
        self.outcome("fixed", Ok(chosen), Vec::new(), Vec::new(), None)
            .map_err(|e| e.to_string())
    }

    fn outcome(
        &self,
        name: &'static str,
        chosen: Result<select::Choice, pipeline::Rejected>,
        rules: Vec<RuleResult>,
        mut notes: Vec<String>,
        alternative: Option<select::Choice>,
    ) -> Result<Outcome, OptError> {
        let cx = self.context();
        let n = self.fp.insts.len();
        let groups = &self.analysis.groups;
        let chosen = match chosen {
            Ok(c) => c,
            Err(why) => {
                notes.push(format!("nothing moved: {why}"));
                // Even the clean-up of the unchanged pair may fail the profile's rules (say,
                // dead code removed before a read of an undefined value): then the pair is
                // returned exactly as written.
                let result = select::nothing(&cx).unwrap_or_else(|e| {
                    notes.push(format!("the pair is returned as written: {e}"));
                    pipeline::unchanged(&cx)
                });
                select::Choice {
                    selected: vec![false; n],
                    result: result.into(),
                    proven: false,
                    evaluations: 1,
                    dropped: Vec::new(),
                }
            }
        };
        let fates = (0..n)
            .map(|i| {
                if chosen.selected[i] {
                    return Fate::Moved {
                        group: groups.of[i],
                    };
                }
                if let Some(s) = &self.analysis.movability.stays[i] {
                    return Fate::Stays { reason: s.clone() };
                }
                let why = chosen
                    .dropped
                    .iter()
                    .find(|(j, _)| *j as usize == i)
                    .map_or_else(
                        || "the selection left it in place".into(),
                        |(_, w)| w.clone(),
                    );
                Fate::Stays {
                    reason: Stay::NotSelected { why },
                }
            })
            .collect();
        if chosen.selected.iter().any(|&s| s) {
            notes.push(
                "moved values are interpolated: results agree up to floating-point rounding, and an \
                 infinite value would interpolate to NaN"
                    .into(),
            );
        }
        let all_mirrors = self.varying_mirrors.iter().chain(&chosen.result.mirrors);
        let (to_f, to_v): (Vec<_>, Vec<_>) = all_mirrors.partition(|m| m.to_fragment);
        if !to_v.is_empty() {
            notes.push(format!(
                "the host must set {} new vertex parameter(s), see mirrors",
                to_v.len()
            ));
        }
        if !to_f.is_empty() {
            notes.push(format!(
                "the host must set {} new fragment parameter(s) (copies of vertex ones the \
                 fragment program now reads instead of an interpolant), see mirrors",
                to_f.len()
            ));
        }
        notes.extend(chosen.result.fits.iter().cloned());
        if !chosen.result.duplicated.is_empty() {
            let list: Vec<String> = chosen
                .result
                .duplicated
                .iter()
                .map(|i| (i + 1).to_string())
                .collect();
            notes.push(format!(
                "fragment instruction{} {} moved and also kept in the fragment program: \
                 recomputed there for its staying readers instead of taking an interpolator \
                 (one slot per fragment each)",
                if list.len() == 1 { "" } else { "s" },
                list.join(", ")
            ));
        }
        let kept_by_fit =
            crate::fit_choice::kept_by_fit(&cx, groups, &chosen, alternative.as_ref());
        notes.extend(kept_by_fit.as_ref().map(|k| k.describe()));
        let before = Stats::of(self.vp, &self.original_fp, &self.vp_limits, &self.fp_limits);
        let r = std::sync::Arc::unwrap_or_clone(chosen.result);
        let after_map = varying_map::map(&r.vp.program, &r.fp.program, &r.carries);
        let mut changes = self.varying_changes.clone();
        changes.extend(r.changes.iter().cloned());
        changes.extend(varying_map::packing_changes(
            &self.original_fp,
            &after_map,
            r.exact_packing,
            r.relocated,
        ));
        let varyings = varying_map::VaryingReport {
            before: varying_map::map(self.vp, &self.original_fp, &[]),
            after: after_map,
            changes,
        };
        let mut mirrors = self.varying_mirrors.clone();
        mirrors.extend(r.mirrors);
        Ok(Outcome {
            vp: r.vp.program,
            fp: r.fp.program,
            vp_lines: r.vp.lines,
            fp_lines: r.fp.lines,
            fates,
            source_fp: self.fp.clone(),
            groups: groups.members.clone(),
            before,
            after: r.stats,
            chosen: name.into(),
            rules,
            mirrors,
            transports: r.transports,
            duplicated: r.duplicated,
            commuted: self.commuted.iter().map(|&i| i as u32).collect(),
            notes,
            slp_merges: r.slp_merges,
            kept_by_fit,
            varyings,
        })
    }
}

/// The fragment program after the varying passes that need no choice ([`Options::varyings`]):
/// dead, constant and duplicate interpolants, with what each did.
struct PrePassed {
    fp: tracked::Tracked,
    changes: Vec<Change>,
    mirrors: Vec<passes::fp_to_vp::Mirror>,
}

fn varying_passes(vp: &Program, fp: &Program, opts: &Options, fp_limits: &Limits) -> PrePassed {
    let mut out = PrePassed {
        fp: tracked::Tracked::new(fp.clone()),
        changes: Vec::new(),
        mirrors: Vec::new(),
    };
    if !opts.varyings {
        return out;
    }
    let env = passes::Env {
        vertex: Some(vp),
        mirror_params: opts.mirror_params,
        ..passes::Env::new(fp_limits)
    };
    for id in [
        passes::Id::varying_dead,
        passes::Id::varying_const,
        passes::Id::varying_dedup,
    ] {
        if let passes::Report::Varyings {
            changes, mirrors, ..
        } = passes::run(id, &mut out.fp, &env)
        {
            out.changes.extend(changes);
            out.mirrors.extend(mirrors);
        }
    }
    out
}

/// Commutation first: it changes what is movable. Returns the rewritten fragment program and
/// the `mov`s it rewrote.
fn commute(vp: &Program, fp: &Program, opts: &Options) -> (Program, Vec<usize>) {
    let mut fp_work = tracked::Tracked::new(fp.clone());
    let a = analyze(vp, fp, opts);
    let limits = fp.profile.limits();
    let env = passes::Env {
        analysis: Some(&a),
        ..passes::Env::new(&limits)
    };
    match passes::run(passes::Id::commute, &mut fp_work, &env) {
        passes::Report::Rewritten(commuted) => (fp_work.program, commuted),
        _ => (fp.clone(), Vec::new()),
    }
}

//! From a [`Doc`] to everything the page shows except pixels: parsed programs and their
//! diagnostics, the optimizer's validated result as the page shows it (annotated programs,
//! fates, the dependence graph), hand-edited programs, statistics and the parameters and
//! texture units the programs use.
//!
//! Two halves, so the page can split them between threads: [`parse`] (fast: the main
//! thread runs it on every edit for diagnostics) and [`optimize`] then [`summarize`] (the
//! optimizer, its translation validation (`hoist_verify`), the annotations of
//! `hoist_opt::annotate` and the graph: the worker runs them and sends the [`Optimized`]
//! summary, not the whole outcome), joined by [`Analysis::with_result`]. [`analyze`] does
//! all of it. Everything is pure and total: broken programs, mismatched pairs and optimizer
//! errors end up as messages. [`trust`] words how far the optimized pair was checked.
//!
//! Parts that a new result often repeats (sides, annotated programs, the graph) are `Rc`s,
//! kept from the last analysis while equal, so the views drawing them see the same pointer
//! and skip their work.

use crate::doc::{Doc, ParamKey};
use crate::worker::dag::{self, Dag};
use crate::worker::reach::{self, Reach};
use hoist_asm::ir::{ConstBinding, RegFile, TexTarget};
use hoist_asm::profile::Limits;
use hoist_asm::{ArbTarget, Diagnostic, Dialect, ParseOptions, Profile, Program, Stage};
use hoist_opt::annotate::{self, Annotated, SourceLines};
use hoist_opt::{Fate, Outcome, Stats};
use hoist_verify::{Rejection, Report, Status, Validated};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

pub use crate::doc::cost::QUAD_VERTICES;

/// One parsed program.
#[derive(Clone, Debug)]
pub struct Side {
    /// Profile from the header, if recognisable.
    pub detected: Option<Profile>,
    /// Profile the text was parsed as (override, else detected).
    pub profile: Option<Profile>,
    pub diagnostics: Vec<Diagnostic>,
    pub program: Option<Program>,
    /// Source line of each instruction.
    pub lines: SourceLines,
    /// The smallest larger ARB target under which the program has no errors, when it has
    /// some under the chosen target (it is over one of its limits: instructions,
    /// parameters, temporaries, ...).
    pub fits: Option<ArbTarget>,
}

impl Side {
    /// A side with diagnostics and nothing parsed (a scene, a linear system, a source
    /// editor).
    pub fn only_diagnostics(diagnostics: Vec<Diagnostic>) -> Side {
        Side {
            detected: None,
            profile: None,
            diagnostics,
            program: None,
            lines: Default::default(),
            fits: None,
        }
    }

    /// Parses `src` as `forced` (else its header's profile) under the default ARB target.
    pub fn parse(src: &str, forced: Option<Profile>) -> Side {
        Side::parse_for(src, forced, ArbTarget::default())
    }

    /// Parses `src` as `forced` (else its header's profile) under `target`'s ARB limits.
    pub fn parse_for(src: &str, forced: Option<Profile>, target: ArbTarget) -> Side {
        let detected = hoist_asm::detect_profile(src);
        let profile = forced.or(detected);
        let opts = ParseOptions {
            profile,
            limits: None,
        }
        .with_target(src, target);
        let parsed = hoist_asm::parse(src, &opts);
        let mut diagnostics = parsed.diagnostics.clone();
        let fits = diagnostics
            .iter()
            .any(|d| d.is_error())
            .then(|| hoist_asm::fitting_target(src, profile, target))
            .flatten();
        if let Some(t) = fits {
            for d in diagnostics.iter_mut().filter(|d| d.is_error()) {
                d.hint = Some(format!(
                    "fits the {} target ({}); choose it under Options → ARB target",
                    t.id().to_uppercase(),
                    t.name()
                ));
            }
        }
        let program = parsed.into_result().ok();
        let lines = program
            .as_ref()
            .map(|p| SourceLines::of(p, src, 1))
            .unwrap_or_default();
        Side {
            detected,
            profile,
            diagnostics,
            program,
            lines,
            fits,
        }
    }

    /// Dialect for highlighting (D3D9 when unknown).
    pub fn dialect(&self) -> Dialect {
        self.profile.map_or(Dialect::D3d9, |p| p.dialect())
    }

    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// `Rc<T>` fields travel as `T`.
mod shared {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::rc::Rc;

    pub fn serialize<T: Serialize, S: Serializer>(v: &Rc<T>, s: S) -> Result<S::Ok, S::Error> {
        (**v).serialize(s)
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Rc<T>, D::Error> {
        T::deserialize(d).map(Rc::new)
    }
}

/// The optimizer's validated result as the page shows it: what the worker sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Optimized {
    /// How the result was validated, what was checked, the groups validation rejected.
    #[serde(with = "crate::worker::engine::cbor")]
    pub status: Status,
    pub report: Option<Report>,
    #[serde(with = "crate::worker::engine::cbor")]
    pub rejected: Vec<Rejection>,
    /// Both optimized programs, printed and annotated.
    #[serde(with = "shared")]
    pub vp: Rc<Annotated>,
    #[serde(with = "shared")]
    pub fp: Rc<Annotated>,
    pub vp_profile: Profile,
    pub fp_profile: Profile,
    /// Per original fragment instruction.
    #[serde(with = "crate::worker::engine::cbor")]
    pub fates: Vec<Fate>,
    /// Number of independent movable groups.
    pub groups: usize,
    pub after: Stats,
    /// The selection rule whose result this is, and whether it proved it optimal.
    pub chosen: String,
    pub proven_optimal: bool,
    pub notes: Vec<String>,
    /// The original fragment program's dependence graph (or why there is none).
    #[serde(with = "shared")]
    pub dag: Rc<Result<Dag, String>>,
    /// How far the stepwise slider may go ([`crate::worker::reach`]).
    #[serde(default)]
    pub reach: Option<Reach>,
    /// Merges of the vector-packing pass (vertex, fragment), when it ran.
    #[serde(default)]
    pub slp_merges: Option<[u32; 2]>,
    /// Register liveness of the optimized vertex and fragment programs.
    #[serde(default)]
    pub liveness: Vec<crate::worker::liveness::Grid>,
    /// Both pairs on an R600-family GPU (the Machine panel, [`crate::worker::machine`]).
    #[serde(with = "shared")]
    pub machine: Rc<crate::worker::machine::MachineView>,
    /// The interpolator maps before and after and the varying passes' effects (the
    /// Interpolators panel, [`crate::worker::varyings`]).
    #[serde(with = "shared")]
    pub varyings: Rc<crate::worker::varyings::VaryingView>,
    /// Validation is still running: the images may be drawn, but no verdict word is given
    /// until [`Validation`] arrives (`status` is `Skipped` meanwhile).
    #[serde(default)]
    pub validating: bool,
}

/// Validation's answer for a result sent while [`Optimized::validating`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    #[serde(with = "crate::worker::engine::cbor")]
    pub status: Status,
    pub report: Option<Report>,
}

impl Optimized {
    /// This result with validation's answer.
    pub fn validated(&self, v: &Validation) -> Optimized {
        Optimized {
            status: v.status.clone(),
            report: v.report.clone(),
            validating: false,
            ..self.clone()
        }
    }
}

/// What the optimizer made of a pair, as the page gets it (`Err`: why it could not run).
pub type OptResult = Result<Box<Optimized>, String>;

/// The optimizer's whole validated result (`Err`: why it could not run).
pub type FullResult = Result<Box<Validated>, String>;

/// Everything derived from a document.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub vp: Rc<Side>,
    pub fp: Rc<Side>,
    pub optimized: Option<Rc<Optimized>>,
    /// The optimizer's whole outcome, where it was computed (the worker, native callers of
    /// [`analyze`]): the renderer needs its programs and mirrors. The page never has it.
    pub outcome: Option<Rc<Outcome>>,
    /// Why there is no optimized pair (errors in the input, a mismatched pair, ...).
    pub problem: Option<String>,
    /// Hand-edited optimized programs, when the optimized side is in edit mode.
    pub hand: Option<(Rc<Side>, Rc<Side>)>,
    /// Statistics of the original pair and of the optimized (or hand-edited) pair.
    pub before: Option<Stats>,
    pub after: Option<Stats>,
    /// Host-set parameters the programs read.
    pub params: Vec<ParamKey>,
    /// Texture units the fragment programs sample.
    pub units: Vec<u8>,
    /// Each unit with the target it is sampled as (a unit sampled as two targets appears
    /// twice), by unit: what the draw must supply ([`crate::worker::render::base_scene`]).
    pub targets: Vec<(u8, TexTarget)>,
}

impl Analysis {
    pub fn original_pair(&self) -> Option<(&Program, &Program)> {
        Some((self.vp.program.as_ref()?, self.fp.program.as_ref()?))
    }

    /// The hand-edited pair, when there is one and it parses.
    pub fn hand_pair(&self) -> Option<(&Program, &Program)> {
        let (v, f) = self.hand.as_ref()?;
        Some((v.program.as_ref()?, f.program.as_ref()?))
    }

    pub fn dialect(&self) -> Dialect {
        self.vp
            .profile
            .or(self.fp.profile)
            .map_or(Dialect::D3d9, |p| p.dialect())
    }

    /// Number of independent movable groups (the range of the stepwise slider).
    pub fn groups(&self) -> usize {
        self.optimized.as_ref().map_or(0, |o| o.groups)
    }
}

fn limits_of(doc: &Doc, p: &Program) -> Limits {
    doc.opts.limits_of(p.profile)
}

/// Host-set parameters a program reads.
pub fn host_params(p: &Program) -> Vec<ParamKey> {
    let vertex = p.stage() == Stage::Vertex;
    let relative = p.insts.iter().any(|i| {
        i.src
            .iter()
            .any(|s| s.reg.file == RegFile::Const && s.rel.is_some())
    });
    let mut used = vec![relative; p.consts.len()];
    for i in &p.insts {
        for s in &i.src {
            if s.reg.file == RegFile::Const
                && let Some(u) = used.get_mut(s.reg.index as usize)
            {
                *u = true;
            }
        }
    }
    let mut out: Vec<ParamKey> = p
        .consts
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .filter_map(|(c, _)| match c.binding {
            ConstBinding::Env(n) => Some(ParamKey {
                vertex,
                local: false,
                index: n,
            }),
            ConstBinding::Local(n) => Some(ParamKey {
                vertex,
                local: true,
                index: n,
            }),
            _ => None,
        })
        .collect();
    hoist_asm::sort::ord(&mut out);
    out.dedup();
    out
}

/// The (unit, target) pairs a program samples.
pub fn texture_targets(p: &Program) -> Vec<(u8, TexTarget)> {
    let mut u: Vec<(u8, TexTarget)> = p.samplers.iter().map(|s| (s.unit, s.target)).collect();
    u.extend(
        p.insts
            .iter()
            .filter_map(|i| i.tex.map(|t| (t.unit, t.target))),
    );
    hoist_asm::sort::by_key(&mut u, |&(unit, t)| (unit, t.arb_name()));
    u.dedup();
    u
}

/// Texture units a program samples.
pub fn texture_units(p: &Program) -> Vec<u8> {
    let mut u: Vec<u8> = p.samplers.iter().map(|s| s.unit).collect();
    u.extend(p.insts.iter().filter_map(|i| i.tex.map(|t| t.unit)));
    hoist_asm::sort::ord(&mut u);
    u.dedup();
    u
}

fn parse_hand(
    doc: &Doc,
    forced: (Option<Profile>, Option<Profile>),
) -> Option<(Rc<Side>, Rc<Side>)> {
    doc.hand.as_ref().map(|h| {
        (
            Rc::new(Side::parse_for(&h.vp, forced.0, doc.opts.target)),
            Rc::new(Side::parse_for(&h.fp, forced.1, doc.opts.target)),
        )
    })
}

fn pair_stats(doc: &Doc, v: &Side, f: &Side) -> Option<Stats> {
    match (&v.program, &f.program) {
        (Some(v), Some(f)) => Some(Stats::of(v, f, &limits_of(doc, v), &limits_of(doc, f))),
        _ => None,
    }
}

/// The smallest ARB target under which every program with errors has none.
fn pair_fits(vp: &Side, fp: &Side) -> Option<ArbTarget> {
    [vp, fp]
        .into_iter()
        .filter(|s| s.program.is_none())
        .map(|s| s.fits)
        .collect::<Option<Vec<_>>>()
        .and_then(|v| v.into_iter().max())
}

/// Parses a document: both programs, the hand edit (its dialect from its headers), the
/// statistics of the original pair and the parameters and units the programs use. No
/// optimization: `optimized` is `None`, `problem` says only what keeps the pair from it.
pub fn parse(doc: &Doc) -> Analysis {
    let vp = Rc::new(Side::parse_for(&doc.vp, doc.vp_profile(), doc.opts.target));
    let fp = Rc::new(Side::parse_for(&doc.fp, doc.fp_profile(), doc.opts.target));
    let before = pair_stats(doc, &vp, &fp);
    let problem = match (vp.program.is_some(), fp.program.is_some()) {
        (true, true) => None,
        (false, false) => Some("both programs have"),
        (false, true) => Some("the vertex program has"),
        (true, false) => Some("the fragment program has"),
    }
    .map(|which| match pair_fits(&vp, &fp) {
        Some(t) => format!(
            "{which} errors; fix them to optimize and render, or analyze under {} ({}), where \
             the pair fits",
            t.id().to_uppercase(),
            t.name()
        ),
        None => format!("{which} errors; fix them to optimize and render"),
    });
    let hand = parse_hand(doc, (None, None));
    let mut a = Analysis {
        vp,
        fp,
        optimized: None,
        outcome: None,
        problem,
        after: hand.as_ref().and_then(|(v, f)| pair_stats(doc, v, f)),
        hand,
        before,
        params: Vec::new(),
        units: Vec::new(),
        targets: Vec::new(),
    };
    a.collect_inputs();
    a
}

/// Optimizes and validates the parsed pair (`None` when there is no pair). This is the
/// slow part: the page runs it in its worker.
pub fn optimize(doc: &Doc, a: &Analysis) -> Option<FullResult> {
    optimize_with(doc, a, Some(&hoist_verify::Config::default()))
}

/// The optimizer's result before validation (`status` `Skipped`): what the page draws while
/// [`validate`] runs.
pub fn optimize_unvalidated(doc: &Doc, a: &Analysis) -> Option<FullResult> {
    optimize_with(doc, a, None)
}

fn optimize_with(
    doc: &Doc,
    a: &Analysis,
    cfg: Option<&hoist_verify::Config>,
) -> Option<FullResult> {
    let (v, f) = a.original_pair()?;
    let frags = f64::from(doc.inputs.width) * f64::from(doc.inputs.height);
    let opts = doc
        .opts
        .to_options(v.profile, f.profile, QUAD_VERTICES as f64, frags);
    Some(
        hoist_verify::optimize(v, f, &opts, cfg)
            .map(Box::new)
            .map_err(|e| e.to_string()),
    )
}

/// Validates an unvalidated outcome as [`optimize`] would have (`None`: it failed, so the
/// optimizer must run again with the failing group kept in the fragment program).
pub fn validate(a: &Analysis, outcome: &hoist_opt::Outcome) -> Option<Validation> {
    let (v, f) = a.original_pair()?;
    let report =
        hoist_verify::validate::validate(v, f, outcome, &hoist_verify::Config::default()).ok()?;
    report.failure.is_none().then_some(Validation {
        status: Status::Validated,
        report: Some(report),
    })
}

/// The page's view of a validated result: both programs annotated (`hoist_opt::annotate`),
/// the fates, the figures and the dependence graph of the original fragment program.
pub fn summarize(doc: &Doc, a: &Analysis, v: &Validated) -> Optimized {
    let o = &v.outcome;
    let lines = &a.fp.lines;
    let dag = match &a.fp.program {
        Some(fp) => dag::build(fp, &doc.fp, lines, &o.fates),
        None => Err("the fragment program has errors".into()),
    };
    let vp = annotate::annotate(o, Stage::Vertex, lines);
    let fp = annotate::annotate(o, Stage::Fragment, lines);
    Optimized {
        status: v.status.clone(),
        report: v.report.clone(),
        rejected: v.rejected.clone(),
        vp: Rc::new(vp.clone()),
        fp: Rc::new(fp.clone()),
        vp_profile: o.vp.profile,
        fp_profile: o.fp.profile,
        fates: o.fates.clone(),
        groups: o.groups.len(),
        after: o.after,
        proven_optimal: o
            .rules
            .iter()
            .find(|r| r.rule == o.chosen)
            .is_some_and(|r| r.proven_optimal),
        chosen: o.chosen.clone(),
        notes: o.notes.clone(),
        dag: Rc::new(dag),
        reach: a
            .original_pair()
            .and_then(|pair| reach::reach(doc, pair, &a.fp.lines, &v.rejected)),
        slp_merges: doc.opts.slp.then_some(o.slp_merges),
        liveness: vec![
            crate::worker::liveness::Grid::of_annotated(
                &o.vp,
                &vp,
                doc.opts.limits_of(o.vp.profile).temps,
            ),
            crate::worker::liveness::Grid::of_annotated(
                &o.fp,
                &fp,
                doc.opts.limits_of(o.fp.profile).temps,
            ),
        ],
        machine: Rc::new(crate::worker::machine::view(
            a.original_pair(),
            &o.vp,
            &o.fp,
            &cost_model(doc),
        )),
        varyings: Rc::new(crate::worker::varyings::view(o, &doc.fp, lines)),
        validating: v.status == Status::Skipped,
    }
}

/// `new`, or `old` when it holds the same value (so views keyed on the pointer skip work).
fn keep<T: PartialEq>(old: Option<&Rc<T>>, new: Rc<T>) -> Rc<T> {
    match old {
        Some(o) if Rc::ptr_eq(o, &new) || **o == *new => o.clone(),
        _ => new,
    }
}

impl Analysis {
    /// Joins [`parse`] and the worker's result: takes the statistics after, and parses the
    /// hand edit in the optimized programs' profiles. Annotated programs and the graph equal
    /// to those of `last` (the analysis shown so far) are taken from it.
    pub fn with_result(
        mut self,
        doc: &Doc,
        result: Option<OptResult>,
        last: Option<&Analysis>,
    ) -> Analysis {
        match result {
            Some(Ok(mut o)) => {
                let prev = last.and_then(|l| l.optimized.as_deref());
                o.vp = keep(prev.map(|p| &p.vp), o.vp);
                o.fp = keep(prev.map(|p| &p.fp), o.fp);
                o.dag = keep(prev.map(|p| &p.dag), o.dag);
                let profiles = (Some(o.vp_profile), Some(o.fp_profile));
                let reparse = self
                    .hand
                    .as_ref()
                    .is_some_and(|(v, f)| (v.profile, f.profile) != profiles);
                if reparse {
                    self.hand = parse_hand(doc, profiles);
                    self.collect_inputs();
                }
                self.after = match &self.hand {
                    Some((v, f)) => pair_stats(doc, v, f),
                    None => Some(o.after),
                };
                self.optimized = Some(Rc::from(o));
            }
            Some(Err(e)) => self.problem = Some(e),
            None => {}
        }
        self
    }

    /// Parameters and texture units of every parsed program.
    fn collect_inputs(&mut self) {
        let mut params = Vec::new();
        let mut units = Vec::new();
        let mut targets = Vec::new();
        let programs = [
            self.vp.program.as_ref(),
            self.fp.program.as_ref(),
            self.hand.as_ref().and_then(|h| h.0.program.as_ref()),
            self.hand.as_ref().and_then(|h| h.1.program.as_ref()),
        ];
        for p in programs.into_iter().flatten() {
            params.extend(host_params(p));
            units.extend(texture_units(p));
            targets.extend(texture_targets(p));
        }
        hoist_asm::sort::ord(&mut params);
        params.dedup();
        hoist_asm::sort::ord(&mut units);
        units.dedup();
        hoist_asm::sort::by_key(&mut targets, |&(unit, t): &(u8, TexTarget)| {
            (unit, t.arb_name())
        });
        targets.dedup();
        self.params = params;
        self.units = units;
        self.targets = targets;
    }
}

/// The page's view of the optimizer's result (`None`: no pair to optimize).
pub fn page_result(doc: &Doc, a: &Analysis, full: Option<&FullResult>) -> Option<OptResult> {
    full.map(|r| match r {
        Ok(v) => Ok(Box::new(summarize(doc, a, v))),
        Err(e) => Err(e.clone()),
    })
}

/// Parses, optimizes and validates a document; the analysis keeps the whole outcome.
pub fn analyze(doc: &Doc) -> Analysis {
    let a = parse(doc);
    let full = optimize(doc, &a);
    let r = page_result(doc, &a, full.as_ref());
    let mut a = a.with_result(doc, r, None);
    a.outcome = full.and_then(Result::ok).map(|v| Rc::new(v.outcome));
    a
}

/// How far the pair on the optimized side is trusted, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Trust {
    /// The pair may be called equivalent to the original (it passed validation, or is the
    /// original returned unchanged). Never true for a hand edit.
    pub validated: bool,
    /// The pair shown is the user's hand edit, judged by the render verdict alone.
    pub hand: bool,
    /// Validation has not answered yet ([`Optimized::validating`]): no verdict word yet.
    pub pending: bool,
    /// "validated on 3 input sets · …", "not validated: …", "your hand edit (not validated)".
    pub summary: String,
    /// One line per group validation rejected, its original source lines first.
    pub rejected: Vec<String>,
}

/// The trust line of an analysis (`None` when there is no optimized pair).
pub fn trust(a: &Analysis) -> Option<Trust> {
    if a.hand.is_some() {
        return Some(Trust {
            validated: false,
            hand: true,
            pending: false,
            summary: "your hand edit (not validated)".into(),
            rejected: Vec::new(),
        });
    }
    let v = a.optimized.as_deref()?;
    let summary = match (&v.status, &v.report) {
        _ if v.validating => "validating…".to_string(),
        (Status::Validated, Some(r)) => {
            let mut s = format!(
                "validated on {} input set{} · {} vertices · {} transported values · {} fragments",
                r.input_sets,
                if r.input_sets == 1 { "" } else { "s" },
                r.vertices,
                r.values,
                r.fragments
            );
            if r.pixels > 0 {
                s.push_str(&format!(" · {} rendered pixels", r.pixels));
            }
            s
        }
        (status, _) => status.describe(),
    };
    let line = |i: u32| a.fp.lines.line(i);
    let rejected = v
        .rejected
        .iter()
        .map(|r| {
            let mut lines: Vec<u32> = r.instructions.iter().map(|&i| line(i)).collect();
            hoist_asm::sort::ord(&mut lines);
            lines.dedup();
            let list = lines
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let noun = if lines.len() == 1 { "line" } else { "lines" };
            format!("rejected by validation: {noun} {list} — {}", r.failure)
        })
        .collect();
    Some(Trust {
        validated: v.status.is_validated(),
        hand: false,
        pending: v.validating,
        summary,
        rejected,
    })
}

/// The model the page's optimization runs under: `analysis::optimize`'s, for one quad over
/// the document's window.
pub fn cost_model(doc: &Doc) -> hoist_opt::CostModel {
    let frags = f64::from(doc.inputs.width) * f64::from(doc.inputs.height);
    let verts = QUAD_VERTICES as f64;
    doc.opts.cost.model(doc.opts.interp_cost, verts, frags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_opt::annotate::{Mark, Why};

    fn fig3() -> Doc {
        Doc {
            vp: include_str!("../../../examples/paper/fig3.vsh").into(),
            fp: include_str!("../../../examples/paper/fig3.psh").into(),
            ..Doc::default()
        }
    }

    #[test]
    fn figure3_is_optimized_and_annotated() {
        let a = analyze(&fig3());
        assert_eq!(a.vp.errors() + a.fp.errors(), 0, "{:?}", a.fp.diagnostics);
        assert_eq!(a.fp.profile, Some(Profile::Ps2_0));
        let before = a.before.unwrap();
        assert_eq!(before.fp_slots.total(), 16);
        assert_eq!(before.vp_slots.total(), 2);
        let o = a.optimized.as_ref().expect("optimized");
        assert!(o.after.fp_slots.total() < 16);
        // Every moved vertex line points at a fragment instruction; its source line is
        // where the user wrote it.
        let moved: Vec<_> =
            o.vp.lines
                .iter()
                .filter(|l| l.mark == Mark::Moved)
                .collect();
        assert!(!moved.is_empty());
        for l in &moved {
            let origin = l.origin.unwrap();
            let line = a.fp.lines.line(origin);
            assert!(line >= 15, "{origin}");
            assert_eq!(l.why, Some(Why::Moved { line }));
            let tip = l.why.as_ref().unwrap().sentence();
            assert!(tip.contains("moved from fragment line"));
        }
        // texld stays for C2, and says so.
        let texld =
            o.fp.lines
                .iter()
                .find(|l| l.text.contains("texld") && l.stayed())
                .expect("a texld that stayed");
        let tip = texld.why.as_ref().unwrap().sentence();
        assert!(tip.contains("C2"), "{tip}");
        // Moved code reads the vertex inputs instead of the interpolants (Figure 5: `v1`
        // underlined), so some operand is marked as changed.
        let changed: Vec<&str> =
            o.vp.lines
                .iter()
                .chain(&o.fp.lines)
                .flat_map(|l| l.changed_spans.iter().map(|r| &l.text[r.clone()]))
                .collect();
        assert!(changed.iter().any(|t| t.starts_with('v')), "{changed:?}");
        assert_eq!(a.units, vec![0]);
        assert!(a.params.is_empty());
    }

    #[test]
    fn trust_says_how_the_pair_was_checked() {
        use hoist_verify::{Check, Failure, Rejection};
        let mut a = analyze(&fig3());
        let t = trust(&a).expect("an optimized pair");
        assert!(t.validated && !t.hand && t.rejected.is_empty());
        assert!(
            t.summary.starts_with("validated on 3 input sets · ")
                && t.summary.contains(" vertices · ")
                && t.summary.contains(" transported values · ")
                && t.summary.contains(" fragments"),
            "{}",
            t.summary
        );
        // Rejected groups name the user's source lines (instructions 0 and 1 are on
        // lines 15 and 16 of Figure 3(b)) and the failing check.
        let o = Rc::make_mut(a.optimized.as_mut().unwrap());
        o.rejected.push(Rejection {
            instructions: vec![1, 0],
            failure: Failure {
                check: Check::Vertex,
                input: "perspective grid (seed 3)".into(),
                detail: "o1.x: 0.5 expected, 0.25 found".into(),
            },
        });
        o.status = Status::Unvalidated {
            why: "the executor cannot run the pair".into(),
        };
        let t = trust(&a).unwrap();
        assert!(!t.validated);
        assert_eq!(t.summary, "not validated: the executor cannot run the pair");
        assert_eq!(
            t.rejected,
            [
                "rejected by validation: lines 15, 16 — per-vertex check on the perspective grid \
              (seed 3): o1.x: 0.5 expected, 0.25 found"
            ]
        );
        // No optimized pair, no trust line.
        a.optimized = None;
        assert!(trust(&a).is_none());
    }

    #[test]
    fn parse_then_result_equals_analyze() {
        let d = fig3();
        let p = parse(&d);
        assert!(p.optimized.is_none() && p.problem.is_none());
        assert_eq!(p.before.unwrap().fp_slots.total(), 16);
        let full = optimize(&d, &p);
        let r = page_result(&d, &p, full.as_ref());
        let joined = p.with_result(&d, r.clone(), None);
        let whole = analyze(&d);
        let (j, w) = (joined.optimized.clone().unwrap(), whole.optimized.unwrap());
        assert_eq!(j.fp.text, w.fp.text);
        assert_eq!(j.fp, w.fp);
        assert_eq!(joined.after, whole.after);
        assert_eq!(j.status, Status::Validated);
        assert!(joined.outcome.is_none() && whole.outcome.is_some());
        // The same result again keeps the annotated programs and the graph of the last.
        let again = parse(&d).with_result(&d, r, Some(&joined));
        let k = again.optimized.unwrap();
        assert!(Rc::ptr_eq(&k.vp, &j.vp) && Rc::ptr_eq(&k.fp, &j.fp));
        assert!(Rc::ptr_eq(&k.dag, &j.dag));
        assert!(!Rc::ptr_eq(&k, &j));
    }

    #[test]
    fn the_summary_survives_the_wire_and_is_smaller() {
        let d = fig3();
        let p = parse(&d);
        let full = optimize(&d, &p).unwrap().unwrap();
        let o = summarize(&d, &p, &full);
        let bytes = crate::worker::engine::to_bytes(&o).unwrap();
        let back: Optimized = crate::worker::engine::from_bytes(&bytes).unwrap();
        assert_eq!(back, o);
        assert!(back.dag.is_ok());
        // The liveness grids and the Machine panel are views the outcome does not hold;
        // without them the summary must be smaller than the outcome it replaces.
        let mut core = o.clone();
        core.liveness.clear();
        let without_liveness = crate::worker::engine::to_bytes(&core).unwrap().len();
        let machine = crate::worker::engine::to_bytes(&*o.machine).unwrap().len();
        let core = without_liveness - machine;
        let whole = crate::worker::engine::to_bytes(&full).unwrap();
        assert!(core < whole.len(), "{core} vs {}", whole.len());
    }

    #[test]
    fn errors_are_reported_not_fatal() {
        let mut d = fig3();
        d.fp = d.fp.replace("mov oC0, r0", "mov oC0, r0,");
        let a = analyze(&d);
        assert!(a.fp.errors() > 0);
        assert!(a.optimized.is_none());
        assert!(a.problem.as_ref().unwrap().contains("fragment program"));
        let d = Doc {
            vp: "garbage".into(),
            fp: String::new(),
            ..Doc::default()
        };
        let a = analyze(&d);
        assert!(a.vp.errors() > 0 && a.fp.errors() > 0);
    }

    #[test]
    fn mismatched_pair_is_a_message() {
        let mut d = fig3();
        d.vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n".into();
        let a = analyze(&d);
        assert!(a.vp.program.is_some(), "{:?}", a.vp.diagnostics);
        assert!(a.optimized.is_none());
        assert!(a.problem.is_some());
    }

    #[test]
    fn host_parameters_are_found() {
        let d = Doc {
            vp: "vs_1_1\ndcl_position v0\nmov oPos, v0\nmov oT0, c4\n".into(),
            fp: "ps_2_0\ndcl t0\nadd r0, t0, c2\nmov oC0, r0\n".into(),
            ..Doc::default()
        };
        let a = analyze(&d);
        assert_eq!(a.fp.errors(), 0, "{:?}", a.fp.diagnostics);
        let keys: Vec<(bool, u16)> = a.params.iter().map(|k| (k.vertex, k.index)).collect();
        assert_eq!(keys, vec![(false, 2), (true, 4)]);
    }
}

//! From a [`Doc`] to everything the page shows except pixels: parsed programs and their
//! diagnostics, the optimizer's validated outcome with the annotated optimized programs,
//! hand-edited programs, statistics and the parameters and texture units the programs use.
//!
//! Two halves, so the page can split them between threads: [`parse`] (fast: the main
//! thread runs it on every edit for diagnostics) and [`optimize`] (the optimizer and its
//! translation validation, `hoist_verify`: the worker runs it), joined by
//! [`Analysis::with_result`]. [`analyze`] does all three. Everything is pure and total:
//! broken programs, mismatched pairs and optimizer errors end up as messages. [`trust`]
//! words how far the optimized pair was checked.

use crate::annotate::{self, CodeLine};
use crate::doc::{Doc, ParamKey};
use hoist_asm::diag::LineIndex;
use hoist_asm::ir::{ConstBinding, RegFile};
use hoist_asm::profile::Limits;
use hoist_asm::{Diagnostic, Dialect, ParseOptions, Profile, Program, Stage};
use hoist_opt::{Outcome, Stats};
use hoist_verify::{Status, Validated};

/// Vertices of the playground's draw (the GPGPU quad).
pub const QUAD_VERTICES: u64 = 4;

/// One parsed program.
#[derive(Clone, Debug)]
pub struct Side {
    /// Profile from the header, if recognisable.
    pub detected: Option<Profile>,
    /// Profile the text was parsed as (override, else detected).
    pub profile: Option<Profile>,
    pub diagnostics: Vec<Diagnostic>,
    pub program: Option<Program>,
    /// 1-based source line of each instruction.
    pub inst_lines: Vec<u32>,
}

impl Side {
    pub fn parse(src: &str, forced: Option<Profile>) -> Side {
        let detected = hoist_asm::detect_profile(src);
        let profile = forced.or(detected);
        let parsed = hoist_asm::parse(
            src,
            &ParseOptions {
                profile,
                limits: None,
            },
        );
        let diagnostics = parsed.diagnostics.clone();
        let program = parsed.into_result().ok();
        let idx = LineIndex::new(src);
        let inst_lines = program
            .as_ref()
            .map(|p| {
                p.insts
                    .iter()
                    .map(|i| {
                        if i.span.is_none() {
                            0
                        } else {
                            idx.line_col(i.span.start as usize).line
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Side {
            detected,
            profile,
            diagnostics,
            program,
            inst_lines,
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

/// The optimizer's validated result, printed and annotated.
#[derive(Clone, Debug)]
pub struct Optimized {
    /// The outcome, how it was validated, and the groups validation rejected.
    pub validated: Validated,
    pub vp_text: String,
    pub fp_text: String,
    pub vp_view: Vec<CodeLine>,
    pub fp_view: Vec<CodeLine>,
}

impl Optimized {
    pub fn outcome(&self) -> &Outcome {
        &self.validated.outcome
    }
}

/// What the optimizer made of a pair (`Err`: why it could not run).
pub type OptResult = Result<Box<Validated>, String>;

/// Everything derived from a document.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub vp: Side,
    pub fp: Side,
    pub optimized: Option<Optimized>,
    /// Why there is no optimized pair (errors in the input, a mismatched pair, ...).
    pub problem: Option<String>,
    /// Hand-edited optimized programs, when the optimized side is in edit mode.
    pub hand: Option<(Side, Side)>,
    /// Statistics of the original pair and of the optimized (or hand-edited) pair.
    pub before: Option<Stats>,
    pub after: Option<Stats>,
    /// Host-set parameters the programs read.
    pub params: Vec<ParamKey>,
    /// Texture units the fragment programs sample.
    pub units: Vec<u8>,
}

impl Analysis {
    pub fn original_pair(&self) -> Option<(&Program, &Program)> {
        Some((self.vp.program.as_ref()?, self.fp.program.as_ref()?))
    }

    /// The pair to render on the optimized side: the hand edit when there is one.
    pub fn optimized_pair(&self) -> Option<(&Program, &Program)> {
        match &self.hand {
            Some((v, f)) => Some((v.program.as_ref()?, f.program.as_ref()?)),
            None => self
                .optimized
                .as_ref()
                .map(|o| (&o.outcome().vp, &o.outcome().fp)),
        }
    }

    pub fn dialect(&self) -> Dialect {
        self.vp
            .profile
            .or(self.fp.profile)
            .map_or(Dialect::D3d9, |p| p.dialect())
    }

    /// Number of independent movable groups (the range of the stepwise slider).
    pub fn groups(&self) -> usize {
        self.optimized
            .as_ref()
            .map_or(0, |o| o.outcome().groups.len())
    }
}

fn limits_of(doc: &Doc, p: &Program) -> Limits {
    match p.stage() {
        Stage::Vertex => doc.opts.vp_limits.apply(p.profile.limits()),
        Stage::Fragment => doc.opts.fp_limits.apply(p.profile.limits()),
    }
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
    out.sort();
    out.dedup();
    out
}

/// Texture units a program samples.
pub fn texture_units(p: &Program) -> Vec<u8> {
    let mut u: Vec<u8> = p.samplers.iter().map(|s| s.unit).collect();
    u.extend(p.insts.iter().filter_map(|i| i.tex.map(|t| t.unit)));
    u.sort();
    u.dedup();
    u
}

fn parse_hand(doc: &Doc, forced: (Option<Profile>, Option<Profile>)) -> Option<(Side, Side)> {
    doc.hand
        .as_ref()
        .map(|h| (Side::parse(&h.vp, forced.0), Side::parse(&h.fp, forced.1)))
}

fn pair_stats(doc: &Doc, v: &Side, f: &Side) -> Option<Stats> {
    match (&v.program, &f.program) {
        (Some(v), Some(f)) => Some(Stats::of(v, f, &limits_of(doc, v), &limits_of(doc, f))),
        _ => None,
    }
}

/// Parses a document: both programs, the hand edit (its dialect from its headers), the
/// statistics of the original pair and the parameters and units the programs use. No
/// optimization: `optimized` is `None`, `problem` says only what keeps the pair from it.
pub fn parse(doc: &Doc) -> Analysis {
    let vp = Side::parse(&doc.vp, doc.vp_profile());
    let fp = Side::parse(&doc.fp, doc.fp_profile());
    let before = pair_stats(doc, &vp, &fp);
    let problem = match (vp.program.is_some(), fp.program.is_some()) {
        (true, true) => None,
        (false, false) => Some("both programs have"),
        (false, true) => Some("the vertex program has"),
        (true, false) => Some("the fragment program has"),
    }
    .map(|which| format!("{which} errors; fix them to optimize and render"));
    let hand = parse_hand(doc, (None, None));
    let mut a = Analysis {
        vp,
        fp,
        optimized: None,
        problem,
        after: hand.as_ref().and_then(|(v, f)| pair_stats(doc, v, f)),
        hand,
        before,
        params: Vec::new(),
        units: Vec::new(),
    };
    a.collect_inputs();
    a
}

/// Optimizes and validates the parsed pair (`None` when there is no pair). This is the
/// slow part: the page runs it in its worker.
pub fn optimize(doc: &Doc, a: &Analysis) -> Option<OptResult> {
    let (v, f) = a.original_pair()?;
    let frags = f64::from(doc.inputs.width) * f64::from(doc.inputs.height);
    let opts = doc
        .opts
        .to_options(v.profile, f.profile, QUAD_VERTICES as f64, frags);
    let cfg = hoist_verify::Config::default();
    Some(
        hoist_verify::optimize(v, f, &opts, Some(&cfg))
            .map(Box::new)
            .map_err(|e| e.to_string()),
    )
}

impl Analysis {
    /// Joins [`parse`] and [`optimize`]: prints and annotates the optimized programs, takes
    /// the statistics after, and parses the hand edit in the optimized programs' profiles.
    pub fn with_result(mut self, doc: &Doc, result: Option<OptResult>) -> Analysis {
        match result {
            Some(Ok(validated)) => {
                let outcome = &validated.outcome;
                let (vp_text, vp_il) = hoist_asm::print_with_lines(&outcome.vp);
                let (fp_text, fp_il) = hoist_asm::print_with_lines(&outcome.fp);
                let cx = |fragment| annotate::Context {
                    fates: &outcome.fates,
                    fp_lines: &self.fp.inst_lines,
                    fragment,
                };
                let vp_view = annotate::annotate(
                    &outcome.vp,
                    &vp_text,
                    &vp_il,
                    &outcome.vp_lines,
                    &cx(false),
                );
                let fp_view =
                    annotate::annotate(&outcome.fp, &fp_text, &fp_il, &outcome.fp_lines, &cx(true));
                let profiles = (Some(outcome.vp.profile), Some(outcome.fp.profile));
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
                    None => Some(outcome.after),
                };
                self.optimized = Some(Optimized {
                    validated: *validated,
                    vp_text,
                    fp_text,
                    vp_view,
                    fp_view,
                });
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
        let programs = [
            self.vp.program.as_ref(),
            self.fp.program.as_ref(),
            self.hand.as_ref().and_then(|h| h.0.program.as_ref()),
            self.hand.as_ref().and_then(|h| h.1.program.as_ref()),
        ];
        for p in programs.into_iter().flatten() {
            params.extend(host_params(p));
            units.extend(texture_units(p));
        }
        params.sort();
        params.dedup();
        units.sort();
        units.dedup();
        self.params = params;
        self.units = units;
    }
}

/// Parses, optimizes and validates a document.
pub fn analyze(doc: &Doc) -> Analysis {
    let a = parse(doc);
    let r = optimize(doc, &a);
    a.with_result(doc, r)
}

/// How far the pair on the optimized side is trusted, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Trust {
    /// The pair may be called equivalent to the original (it passed validation, or is the
    /// original returned unchanged). Never true for a hand edit.
    pub validated: bool,
    /// The pair shown is the user's hand edit, judged by the render verdict alone.
    pub hand: bool,
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
            summary: "your hand edit (not validated)".into(),
            rejected: Vec::new(),
        });
    }
    let v = &a.optimized.as_ref()?.validated;
    let summary = match (&v.status, &v.report) {
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
    let line = |i: u32| a.fp.inst_lines.get(i as usize).copied().unwrap_or(i + 1);
    let rejected = v
        .rejected
        .iter()
        .map(|r| {
            let mut lines: Vec<u32> = r.instructions.iter().map(|&i| line(i)).collect();
            lines.sort_unstable();
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
        summary,
        rejected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotate::Marker;

    fn fig3() -> Doc {
        Doc {
            vp: include_str!("../../examples/paper/fig3.vsh").into(),
            fp: include_str!("../../examples/paper/fig3.psh").into(),
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
        assert!(o.outcome().after.fp_slots.total() < 16);
        // Every moved vertex line points at a fragment instruction; its source line is
        // where the user wrote it.
        let moved: Vec<_> = o
            .vp_view
            .iter()
            .filter(|l| l.marker == Marker::Moved)
            .collect();
        assert!(!moved.is_empty());
        for l in &moved {
            let origin = l.origin.unwrap();
            assert!(a.fp.inst_lines[origin] >= 15, "{origin}");
            assert!(l.tip.as_ref().unwrap().contains("moved from fragment line"));
        }
        // texld stays for C2, and says so.
        let texld = o
            .fp_view
            .iter()
            .find(|l| l.text.contains("texld") && l.stayed)
            .expect("a texld that stayed");
        assert!(
            texld.tip.as_ref().unwrap().contains("C2"),
            "{:?}",
            texld.tip
        );
        // Moved code reads the vertex inputs instead of the interpolants (Figure 5: `v1`
        // underlined), so some operand is marked as changed.
        let changed: Vec<&str> = o
            .vp_view
            .iter()
            .chain(&o.fp_view)
            .flat_map(|l| l.changed.iter().map(|r| &l.text[r.clone()]))
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
        let o = a.optimized.as_mut().unwrap();
        o.validated.rejected.push(Rejection {
            instructions: vec![1, 0],
            failure: Failure {
                check: Check::Vertex,
                input: "perspective grid (seed 3)".into(),
                detail: "o1.x: 0.5 expected, 0.25 found".into(),
            },
        });
        o.validated.status = Status::Unvalidated {
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
        let r = optimize(&d, &p);
        let joined = p.with_result(&d, r);
        let whole = analyze(&d);
        let (j, w) = (joined.optimized.unwrap(), whole.optimized.unwrap());
        assert_eq!(j.fp_text, w.fp_text);
        assert_eq!(j.fp_view, w.fp_view);
        assert_eq!(joined.after, whole.after);
        assert_eq!(j.validated.status, Status::Validated);
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

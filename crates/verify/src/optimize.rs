//! The optimizer as users see it: every result validated before it is returned.
//!
//! [`optimize`] runs [`hoist_opt::Optimizer`] and [`crate::validate::validate`]s its result.
//! When validation fails, the moved groups are bisected — halves first, then growing prefixes
//! for failures that need several groups together — to find one group whose move breaks
//! equivalence. Its instructions are made to stay (`Options::stay`, reported as "rejected
//! by validation" with the failing input) and the optimizer runs again, so the selection
//! rule can use the freed resources elsewhere. This repeats until a result passes. A
//! failure that remains with no group moved turns the varying passes off instead (rejected
//! with no instructions). If even the result with nothing moved and no varying pass fails
//! (the clean-up of untouched code would be at fault), the input pair is returned unchanged
//! and the status says so.

use crate::validate::{self, Config, Failure, Report};
use hoist_asm::Program;
use hoist_opt::{Fate, OptError, Optimizer, Options, Outcome};
use serde::{Deserialize, Serialize};

/// How far a result was checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// Every check passed on every input set.
    Validated,
    /// Validation was turned off (`--no-validate`): the result is not known to be equivalent.
    Skipped,
    /// The executor could not run the programs, so nothing was checked.
    Unvalidated { why: String },
    /// Even the result with nothing moved failed; the input pair is returned unchanged.
    Unchanged { failure: Failure },
}

impl Status {
    /// Whether the result may be presented as equivalent to the input.
    pub fn is_validated(&self) -> bool {
        matches!(self, Status::Validated | Status::Unchanged { .. })
    }

    /// One line for a person.
    pub fn describe(&self) -> String {
        match self {
            Status::Validated => "validated".into(),
            Status::Skipped => "not validated (validation is off)".into(),
            Status::Unvalidated { why } => format!("not validated: {why}"),
            Status::Unchanged { failure } => {
                format!("returned unchanged: the clean-up alone failed validation ({failure})")
            }
        }
    }
}

/// A group whose move validation rejected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rejection {
    /// Its fragment instructions (indices into the original program).
    pub instructions: Vec<u32>,
    pub failure: Failure,
}

/// An optimization result and how it was checked.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Validated {
    pub outcome: Outcome,
    pub status: Status,
    /// What the last validation run checked.
    pub report: Option<Report>,
    pub rejected: Vec<Rejection>,
    /// Optimizer and validator runs it took.
    pub rounds: u32,
}

/// Optimizes and validates; `cfg = None` skips validation.
pub fn optimize(
    vp: &Program,
    fp: &Program,
    opts: &Options,
    cfg: Option<&Config>,
) -> Result<Validated, OptError> {
    let Some(cfg) = cfg else {
        return Ok(Validated {
            outcome: hoist_opt::optimize(vp, fp, opts)?,
            status: Status::Skipped,
            report: None,
            rejected: Vec::new(),
            rounds: 1,
        });
    };
    let mut opts = opts.clone();
    let mut rejected = Vec::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        let opt = Optimizer::new(vp, fp, &opts)?;
        let outcome = opt.run()?;
        let report = match validate::validate(vp, fp, &outcome, cfg) {
            Ok(r) => r,
            Err(why) => {
                return Ok(Validated {
                    outcome,
                    status: Status::Unvalidated { why },
                    report: None,
                    rejected,
                    rounds,
                });
            }
        };
        let Some(failure) = report.failure.clone() else {
            return Ok(Validated {
                outcome,
                status: Status::Validated,
                report: Some(report),
                rejected,
                rounds,
            });
        };
        let moved = moved_groups(&outcome);
        // A failure that stays with no group moved is the varying passes' (bisecting the
        // groups would only blame innocent ones).
        let varyings_fail = opts.varyings
            && (moved.is_empty()
                || opt.with_groups(&[]).ok().is_some_and(|o| {
                    validate::validate(vp, fp, &o, cfg).is_ok_and(|r| r.failure.is_some())
                }));
        if varyings_fail {
            // Nothing moved, so the varying passes' rewrites failed: without them.
            opts.varyings = false;
            rejected.push(Rejection {
                instructions: Vec::new(),
                failure,
            });
            continue;
        }
        if moved.is_empty() {
            return Ok(Validated {
                outcome: unchanged(vp, fp, outcome),
                status: Status::Unchanged { failure },
                report: Some(report),
                rejected,
                rounds,
            });
        }
        let (culprit, failure) = bisect(vp, fp, &opt, &moved, failure, cfg);
        let instructions = opt.groups()[culprit].clone();
        let why = failure.to_string();
        opts.stay
            .extend(instructions.iter().map(|&i| (i, why.clone())));
        rejected.push(Rejection {
            instructions,
            failure,
        });
    }
}

/// Groups every member of which moved.
fn moved_groups(out: &Outcome) -> Vec<usize> {
    (0..out.groups.len())
        .filter(|&g| {
            out.groups[g]
                .iter()
                .all(|&i| matches!(out.fates[i as usize], Fate::Moved { .. }))
        })
        .collect()
}

/// A group of `moved` whose move fails validation, with the failure it causes.
fn bisect(
    vp: &Program,
    fp: &Program,
    opt: &Optimizer,
    moved: &[usize],
    failure: Failure,
    cfg: &Config,
) -> (usize, Failure) {
    let fails = |groups: &[usize]| -> Option<Failure> {
        let out = opt.with_groups(groups).ok()?;
        validate::validate(vp, fp, &out, cfg).ok()?.failure
    };
    let mut cand = moved.to_vec();
    let mut failure = failure;
    while cand.len() > 1 {
        let (a, b) = cand.split_at(cand.len() / 2);
        if let Some(f) = fails(a) {
            (cand, failure) = (a.to_vec(), f);
        } else if let Some(f) = fails(b) {
            (cand, failure) = (b.to_vec(), f);
        } else {
            break;
        }
    }
    if cand.len() > 1 {
        // Only a combination fails: the group whose addition first fails is the culprit.
        for k in 1..=cand.len() {
            if let Some(f) = fails(&cand[..k]) {
                return (cand[k - 1], f);
            }
        }
    }
    (*cand.last().expect("a moved group"), failure)
}

/// The input pair as the result: nothing moved, nothing cleaned up.
fn unchanged(vp: &Program, fp: &Program, mut out: Outcome) -> Outcome {
    out.vp = vp.clone();
    out.fp = fp.clone();
    out.vp_lines = (0..vp.insts.len()).map(hoist_opt::Line::original).collect();
    out.fp_lines = (0..fp.insts.len()).map(hoist_opt::Line::original).collect();
    out.source_fp = fp.clone();
    out.after = out.before;
    out.transports.clear();
    out.mirrors.clear();
    out.duplicated.clear();
    out.commuted.clear();
    out.slp_merges = [0; 2];
    out.varyings.after = out.varyings.before.clone();
    out.varyings.changes.clear();
    out.notes
        .push("validation failed even with nothing moved: the input is returned unchanged".into());
    out
}

//! How far the stepwise slider may go: applying the first k movable groups is tried for
//! k = 1, 2, … with the optimizer's own evaluation (`Optimizer::with_groups`, the choice
//! `select::stepwise` makes) until one does not fit; the slider stops before it and shows
//! the optimizer's reason. Without this, a k past what fits silently moves nothing.

use crate::doc::Doc;
use hoist_asm::Program;
use hoist_opt::Optimizer;
use hoist_verify::Rejection;
use serde::{Deserialize, Serialize};

/// The feasible range of the stepwise slider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reach {
    /// Movable groups of the pair.
    pub groups: usize,
    /// The largest k such that the first 1…k groups each fit.
    pub feasible: usize,
    /// Why k = `feasible` + 1 does not fit (the optimizer's words), when it was tried.
    pub limit: Option<String>,
    /// Positions past `feasible` that were not tried (the evaluation budget ran out).
    pub unchecked: bool,
}

impl Reach {
    /// The slider's maximum.
    pub fn max(&self) -> usize {
        if self.unchecked {
            self.groups
        } else {
            self.feasible
        }
    }

    /// What the page says next to the slider about its end, if it ends early.
    pub fn message(&self) -> Option<String> {
        match &self.limit {
            Some(why) => Some(format!("k > {}: {why}", self.feasible)),
            None if self.unchecked => Some(format!(
                "k > {}: not checked in advance (long program)",
                self.feasible
            )),
            None => None,
        }
    }

    /// `k` clamped to what fits.
    pub fn clamp(&self, k: usize) -> usize {
        k.min(self.max())
    }
}

/// Evaluations a long program may spend on the slider's range (as the optimizer's own
/// search budget: time grows with the program).
fn budget(fp: &Program) -> usize {
    (20_000 / fp.insts.len().max(1)).max(8)
}

/// The slider's range for a document's pair under its options (without its own `steps`),
/// groups that validation rejected kept in place as the optimizer keeps them.
pub fn reach(doc: &Doc, vp: &Program, fp: &Program, rejected: &[Rejection]) -> Option<Reach> {
    let frags = f64::from(doc.inputs.width) * f64::from(doc.inputs.height);
    let mut opts = doc.opts.to_options(
        vp.profile,
        fp.profile,
        crate::doc::cost::QUAD_VERTICES as f64,
        frags,
    );
    opts.steps = None;
    for r in rejected {
        let why = r.failure.to_string();
        opts.stay
            .extend(r.instructions.iter().map(|&i| (i, why.clone())));
    }
    let opt = Optimizer::new(vp, fp, &opts).ok()?;
    let groups = opt.groups().len();
    let budget = budget(fp);
    for k in 1..=groups {
        if k > budget {
            return Some(Reach {
                groups,
                feasible: k - 1,
                limit: None,
                unchecked: true,
            });
        }
        let first: Vec<usize> = (0..k).collect();
        if let Err(why) = opt.with_groups(&first) {
            return Some(Reach {
                groups,
                feasible: k - 1,
                limit: Some(why),
                unchecked: false,
            });
        }
    }
    Some(Reach {
        groups,
        feasible: groups,
        limit: None,
        unchecked: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::examples;

    fn doc_of(id: &str) -> Doc {
        examples::load(examples::find(id).unwrap_or_else(|| panic!("example {id}")))
    }

    /// gauss13 moves nothing past a certain k: the slider must stop before it, and the
    /// position it stops at must really move work (fragment slots go down).
    #[test]
    fn gauss13_stops_where_it_fits() {
        for id in ["paper/gauss13", "paper/conv2d"] {
            let mut doc = doc_of(id);
            let a = crate::worker::analysis::analyze(&doc);
            let o = a.optimized.as_ref().unwrap();
            let r = o.reach.clone().expect("a reach");
            assert_eq!(r.groups, o.groups, "{id}");
            assert!(r.feasible < r.groups, "{id}: {r:?}");
            assert!(r.feasible > 0, "{id}: {r:?}");
            let msg = r.message().unwrap();
            println!("{id}: {msg}");
            assert!(msg.starts_with(&format!("k > {}: ", r.feasible)), "{msg}");
            doc.opts.stepwise = true;
            doc.opts.steps = r.feasible as u32;
            let at = crate::worker::analysis::analyze(&doc);
            let (before, after) = (at.before.unwrap(), at.after.unwrap());
            assert!(
                after.fp_slots.total() < before.fp_slots.total(),
                "{id}: {before:?} → {after:?}"
            );
            doc.opts.steps = r.feasible as u32 + 1;
            let past = crate::worker::analysis::analyze(&doc);
            let notes = &past.optimized.as_ref().unwrap().notes;
            assert!(
                notes
                    .iter()
                    .any(|n| n.contains(r.limit.as_deref().unwrap())),
                "{id}: the optimizer's own reason: {notes:?} vs {r:?}"
            );
        }
    }

    #[test]
    fn a_pair_that_fits_reaches_every_group() {
        let a = crate::worker::analysis::analyze(&doc_of("paper/fig3"));
        let o = a.optimized.as_ref().unwrap();
        let r = o.reach.clone().unwrap();
        assert_eq!((r.feasible, r.max()), (o.groups, o.groups));
        assert_eq!(r.message(), None);
        assert_eq!(r.clamp(o.groups + 5), o.groups);
    }
}

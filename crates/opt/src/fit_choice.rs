//! Which moved groups the selection kept because a program was made to fit its temp limit
//! (`Options::fit`, [`crate::passes::fit`]) instead of being dropped, and what that cost.
//!
//! With `fit` on, every evaluation of a choice fits both programs after the motion
//! (renumbering, scheduling, rematerialization), so a group whose code would push the vertex
//! (or fragment) program over its profile's temp limit stays selectable, and the selection
//! compares its cost, remat's extra instructions included, with every other choice. This
//! module names the groups the fit kept by comparing with the alternative: the same
//! selection rule run without the fit (the optimizer runs it only when a fit happened), or,
//! for a fixed choice, the chosen groups dropped latest first until the rest passes the
//! profile's rules with no fit (the greedy rule's drop). Both are priced as instruction
//! runs, fragments·F + vertices·V ([`crate::passes::remat::cost`] per program), with the
//! cost model's invocation counts.

use crate::analysis::groups::Groups;
use crate::pipeline::{Context, Evaluated, evaluate, invocations};
use crate::select::Choice;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Groups a fit kept in the chosen result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptByFit {
    /// The groups (1-based, as the page and the CLI number them).
    pub groups: Vec<usize>,
    /// How each program was made to fit, in words.
    pub fits: Vec<String>,
    /// Fragment and vertex slots of the chosen result and of the drop alternative
    /// (`None` when even moving nothing breaks a rule without the fit).
    pub kept_slots: (u32, u32),
    pub dropped_slots: Option<(u32, u32)>,
    /// Instruction runs (fragments·F + vertices·V) keeping saves over dropping; the fit's
    /// extra instructions are included in the kept side.
    pub runs_saved: Option<f64>,
}

impl KeptByFit {
    /// One line for the notes.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self.groups.iter().map(|g| g.to_string()).collect();
        let what = format!(
            "group{} {} kept thanks to the fit above",
            if self.groups.len() == 1 { "" } else { "s" },
            names.join(", "),
        );
        let (kf, kv) = self.kept_slots;
        match (self.dropped_slots, self.runs_saved) {
            (Some((df, dv)), Some(saved)) => format!(
                "{what}: fragment slots {kf} instead of {df}, vertex slots {kv} instead of \
                 {dv} when dropped; keeping saves {saved} instruction runs \
                 (fragments·ΔF + vertices·ΔV, the fit's copies included)"
            ),
            _ => format!("{what}: without the fit nothing passes the profile's rules"),
        }
    }
}

/// The groups of `chosen` that only a fit kept, or `None` when the choice passes the
/// profile's rules without one (or no fit was needed). `alternative` is the selection rule's
/// choice without the fit, when the caller ran it; otherwise the chosen groups are dropped,
/// latest first, until the rest passes without the fit.
pub fn kept_by_fit(
    cx: &Context,
    groups: &Groups,
    chosen: &Choice,
    alternative: Option<&Choice>,
) -> Option<KeptByFit> {
    let result = &chosen.result;
    if !cx.fit || result.fits.is_empty() {
        return None;
    }
    let strict = Context { fit: false, ..*cx };
    if evaluate(&strict, &chosen.selected).is_ok() {
        return None;
    }
    let whole = |sel: &[bool]| -> Vec<usize> {
        (0..groups.len())
            .filter(|&g| groups.members[g].iter().all(|&i| sel[i as usize]))
            .collect()
    };
    let kept = whole(&chosen.selected);
    let (dropped, other): (Vec<usize>, Option<Arc<Evaluated>>) = match alternative {
        Some(a) => {
            let theirs = whole(&a.selected);
            let only: Vec<usize> = kept
                .iter()
                .copied()
                .filter(|g| !theirs.contains(g))
                .collect();
            (only, Some(a.result.clone()))
        }
        None => drop_latest(&strict, groups, kept),
    };
    if dropped.is_empty() {
        return None;
    }
    let slots = |r: &Evaluated| (r.stats.fp_slots.total(), r.stats.vp_slots.total());
    let kept_slots = slots(result);
    let dropped_slots = other.as_deref().map(slots);
    let (vertices, fragments) = invocations(cx.cost);
    let runs = |(f, v): (u32, u32)| fragments * f as f64 + vertices * v as f64;
    Some(KeptByFit {
        groups: dropped.iter().map(|g| g + 1).collect(),
        fits: result.fits.clone(),
        kept_slots,
        dropped_slots,
        runs_saved: dropped_slots.map(|d| runs(d) - runs(kept_slots)),
    })
}

/// Drops the latest of `kept` until the rest passes under `strict`: the groups dropped, and
/// the result.
fn drop_latest(
    strict: &Context,
    groups: &Groups,
    mut kept: Vec<usize>,
) -> (Vec<usize>, Option<Arc<Evaluated>>) {
    let n = groups.of.len();
    let mut dropped = Vec::new();
    while let Some(g) = kept.pop() {
        dropped.push(g);
        if let Ok(r) = evaluate(strict, &groups.closure(kept.iter().copied(), n)) {
            dropped.reverse();
            return (dropped, Some(Arc::new(r)));
        }
    }
    dropped.reverse();
    (dropped, None)
}

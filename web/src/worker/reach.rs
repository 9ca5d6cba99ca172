//! How far the stepwise slider may go: applying the first k movable groups is tried for
//! k = 1, 2, … with the optimizer's own evaluation (`Optimizer::with_groups`, the choice
//! `select::stepwise` makes) until one does not fit; the slider stops before it and shows
//! the optimizer's reason. Without this, a k past what fits silently moves nothing.

use crate::doc::Doc;
use hoist_asm::Program;
use hoist_opt::Optimizer;
use hoist_opt::annotate::SourceLines;
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
    /// What each group moves, in the order the slider applies them: its source lines and
    /// their instructions ("lines 14, 15: mov r1, t0 · add r1.x, t0.x, r2.x").
    #[serde(default)]
    pub moves: Vec<String>,
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

    /// Whether group `g` (0-based) is within what fits, known not to fit after the ones
    /// before it, or was not checked.
    pub fn fit_of(&self, g: usize) -> Fit {
        if g < self.feasible {
            Fit::Fits
        } else if self.unchecked {
            Fit::Unchecked
        } else {
            Fit::Beyond
        }
    }

    /// `k` clamped to what fits.
    pub fn clamp(&self, k: usize) -> usize {
        k.min(self.max())
    }
}

/// Where a group stands on the slider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    Fits,
    /// Past the first group that does not fit together with the ones before it.
    Beyond,
    Unchecked,
}

/// What a group moves: its instructions' source lines and text (comments cut), the first
/// three of a longer group.
fn describe(group: &[u32], source: &str, lines: &SourceLines) -> String {
    let text: Vec<&str> = source.lines().collect();
    let mut ls: Vec<u32> = group.iter().map(|&i| lines.line(i)).collect();
    hoist_asm::sort::ord(&mut ls);
    ls.dedup();
    let code = |l: u32| {
        let t = text
            .get((l as usize).wrapping_sub(1))
            .copied()
            .unwrap_or("");
        let cut = t.find([';', '#']).filter(|&c| c > 0).unwrap_or(t.len());
        let cut = t.find("//").map_or(cut, |c| c.min(cut));
        t[..cut].trim().trim_end_matches(';').trim().to_string()
    };
    let shown: Vec<String> = ls
        .iter()
        .take(3)
        .map(|&l| code(l))
        .filter(|c| !c.is_empty())
        .collect();
    let more = ls.len().saturating_sub(3);
    let nums: Vec<String> = ls.iter().map(u32::to_string).collect();
    let what = match (shown.is_empty(), more) {
        (true, _) => String::new(),
        (false, 0) => format!(": {}", shown.join(" · ")),
        (false, m) => format!(": {} · {m} more", shown.join(" · ")),
    };
    format!(
        "{} {}{what}",
        if ls.len() == 1 { "line" } else { "lines" },
        nums.join(", ")
    )
}

/// Evaluations a long program may spend on the slider's range (as the optimizer's own
/// search budget: time grows with the program).
fn budget(fp: &Program) -> usize {
    (20_000 / fp.insts.len().max(1)).max(8)
}

/// The slider's range for a document's pair under its options (without its own `steps`),
/// groups that validation rejected kept in place as the optimizer keeps them.
pub fn reach(
    doc: &Doc,
    (vp, fp): (&Program, &Program),
    lines: &SourceLines,
    rejected: &[Rejection],
) -> Option<Reach> {
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
    let moves: Vec<String> = opt
        .groups()
        .iter()
        .map(|g| describe(g, &doc.fp, lines))
        .collect();
    let budget = budget(fp);
    for k in 1..=groups {
        if k > budget {
            return Some(Reach {
                groups,
                feasible: k - 1,
                limit: None,
                unchecked: true,
                moves,
            });
        }
        let first: Vec<usize> = (0..k).collect();
        if let Err(why) = opt.with_groups(&first) {
            return Some(Reach {
                groups,
                feasible: k - 1,
                limit: Some(why),
                unchecked: false,
                moves,
            });
        }
    }
    Some(Reach {
        groups,
        feasible: groups,
        limit: None,
        unchecked: false,
        moves,
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
            // Each group says what it moves; the ones past the end are told apart.
            assert_eq!(r.moves.len(), r.groups, "{id}");
            assert!(
                r.moves.iter().all(|m| m.starts_with("line")),
                "{id}: {:?}",
                r.moves
            );
            assert_eq!(r.fit_of(r.feasible - 1), Fit::Fits);
            assert_eq!(r.fit_of(r.feasible), Fit::Beyond);
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

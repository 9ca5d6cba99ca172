//! Choosing what to move when not everything fits or pays.
//!
//! - [`greedy`]: the paper's rule (journal version, Section 3.3): start from every movable
//!   instruction and, while the result exceeds a resource limit, leave the latest one in
//!   the fragment program. Under the modern cost model it then also drops each group, last
//!   first, whose removal lowers the cost.
//! - [`optimal`]: an exact branch-and-bound search over the independent groups. Each leaf
//!   is a real [`evaluate`] of the pair (so packing, copy propagation and limits are exact,
//!   not estimated). The bound: moving a set of instructions saves at most their fragment
//!   slots, so `F ≥ F₀ − Σ slots(closure of chosen ∪ undecided groups)`, and interpolated
//!   components cannot drop below zero. The search stops after a budget of evaluations and
//!   says whether it proved optimality.
//! - [`stepwise`]: the first `k` groups in program order (the paper's Table 4 moves the
//!   Gaussian filter's 7 groups one by one).

use crate::analysis::groups::Groups;
use crate::pipeline::{Context, Evaluated, Rejected, evaluate};
use std::collections::HashMap;

/// Outcome of a selection rule.
#[derive(Clone, Debug)]
pub struct Choice {
    pub selected: Vec<bool>,
    pub result: Evaluated,
    /// Whether the search proved no other choice is cheaper.
    pub proven: bool,
    pub evaluations: u32,
    /// Movable instructions left behind, with why.
    pub dropped: Vec<(u32, String)>,
}

/// Evaluates with memoisation.
struct Evaluator<'a, 'b> {
    cx: &'a Context<'b>,
    memo: HashMap<Vec<bool>, Result<Evaluated, Rejected>>,
    count: u32,
}

impl Evaluator<'_, '_> {
    fn eval(&mut self, sel: &[bool]) -> Result<Evaluated, Rejected> {
        if let Some(r) = self.memo.get(sel) {
            return r.clone();
        }
        self.count += 1;
        let r = evaluate(self.cx, sel);
        self.memo.insert(sel.to_vec(), r.clone());
        r
    }
}

fn fp_slots(cx: &Context, i: usize) -> u32 {
    cx.fp.profile.slots(cx.fp.insts[i].op).unwrap_or(1) as u32
}

/// Nothing moved: the original pair, evaluated the same way.
pub fn nothing(cx: &Context) -> Result<Evaluated, Rejected> {
    evaluate(cx, &vec![false; cx.fp.insts.len()])
}

/// The paper's greedy rule.
pub fn greedy(cx: &Context, movable: &[bool], groups: &Groups) -> Result<Choice, Rejected> {
    let mut ev = Evaluator {
        cx,
        memo: HashMap::new(),
        count: 0,
    };
    let mut sel = movable.to_vec();
    let mut dropped = Vec::new();
    let mut result = ev.eval(&sel);
    while let Err(why) = &result {
        let Some(last) = sel.iter().rposition(|&s| s) else {
            break;
        };
        sel[last] = false;
        dropped.push((last as u32, format!("dropped by the greedy rule: {why}")));
        result = ev.eval(&sel);
    }
    let mut result = result?;
    if matches!(cx.cost, crate::cost::CostModel::Modern { .. }) {
        for g in (0..groups.len()).rev() {
            let mut trial = sel.clone();
            for &i in &groups.members[g] {
                trial[i as usize] = false;
            }
            drop_dependents(cx, &mut trial);
            if trial == sel {
                continue;
            }
            if let Ok(r) = ev.eval(&trial)
                && r.cost < result.cost
            {
                for (i, (&a, &b)) in sel.iter().zip(&trial).enumerate() {
                    if a && !b {
                        dropped.push((i as u32, "not worth it under the modern cost model".into()));
                    }
                }
                sel = trial;
                result = r;
            }
        }
    }
    Ok(Choice {
        selected: sel,
        result,
        proven: false,
        evaluations: ev.count,
        dropped,
    })
}

/// Deselects instructions that read a value from one that is not selected.
fn drop_dependents(cx: &Context, sel: &mut [bool]) {
    let Some(du) = &cx.analysis.fp_du else { return };
    for i in 0..sel.len() {
        if sel[i]
            && du.reads[i]
                .iter()
                .any(|r| r.def.is_some_and(|d| !sel[d as usize]))
        {
            sel[i] = false;
        }
    }
}

/// Free interpolator capacity: per component position (aligned packing) and in total.
#[derive(Clone, Copy, Debug)]
pub struct Capacity {
    pub per_comp: [u32; 4],
    pub total: u32,
    pub any_slot: bool,
}

/// Transported non-uniform components of each group (uniform ones may be recomputed on both
/// sides instead). Groups are connected components of non-uniform def-use edges, so a
/// group's transported values do not depend on which other groups move.
fn group_demand(cx: &Context, groups: &Groups) -> Vec<[u32; 4]> {
    let n = cx.fp.insts.len();
    let Some(du) = &cx.analysis.fp_du else {
        return vec![[0; 4]; groups.len()];
    };
    let m = &cx.analysis.movability;
    (0..groups.len())
        .map(|g| {
            let sel = groups.closure([g], n);
            let mut d = [0u32; 4];
            for &i in &groups.members[g] {
                let i = i as usize;
                for c in 0..4u8 {
                    let read_outside = du.uses[i][c as usize].iter().any(|u| !sel[u.inst as usize]);
                    if read_outside
                        && m.kinds[i][c as usize] != crate::analysis::movable::Kind::Uniform
                    {
                        d[c as usize] += 1;
                    }
                }
            }
            d
        })
        .collect()
}

fn fits(cap: &Capacity, demand: &[u32; 4]) -> bool {
    let total: u32 = demand.iter().sum();
    if cap.any_slot {
        total <= cap.total
    } else {
        (0..4).all(|c| demand[c] <= cap.per_comp[c])
    }
}

/// Exact search over groups, within `budget` evaluations, starting from `incumbent`.
pub fn optimal(
    cx: &Context,
    groups: &Groups,
    budget: u32,
    incumbent: Option<&Choice>,
) -> Result<Choice, Rejected> {
    let n = cx.fp.insts.len();
    let g = groups.len();
    let paper = matches!(cx.cost, crate::cost::CostModel::Paper);
    let mut ev = Evaluator {
        cx,
        memo: HashMap::new(),
        count: 0,
    };
    let f0 = cx.fp.slots().total();
    let mut best: Option<(Vec<bool>, Evaluated)> = None;
    let consider = |best: &mut Option<(Vec<bool>, Evaluated)>, sel: Vec<bool>, r: Evaluated| {
        if best.as_ref().is_none_or(|(_, b)| r.cost < b.cost) {
            *best = Some((sel, r));
        }
    };
    if let Some(c) = incumbent {
        consider(&mut best, c.selected.clone(), c.result.clone());
    }
    let none = vec![false; n];
    if let Ok(r) = ev.eval(&none) {
        consider(&mut best, none, r);
    }
    let cap = crate::pipeline::capacity(cx);
    let demand = group_demand(cx, groups);
    let slots_of = |sel: &[bool]| -> u32 {
        sel.iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| fp_slots(cx, i))
            .sum()
    };
    // Lower bound on fragment slots of any completion of `chosen` (first `from` decided).
    let bound_of = |chosen: &[bool], from: usize| -> f64 {
        let idx = chosen
            .iter()
            .enumerate()
            .filter(|(_, c)| **c)
            .map(|(i, _)| i)
            .chain(from..g);
        f0.saturating_sub(slots_of(&groups.closure(idx, n))) as f64
    };
    let mut proven = true;
    // Depth-first over (next group, chosen so far, demand so far); include before exclude.
    let mut stack: Vec<(usize, Vec<bool>, [u32; 4])> = vec![(0, vec![false; g], [0; 4])];
    while let Some((d, chosen, dem)) = stack.pop() {
        if ev.count >= budget {
            proven = false;
            break;
        }
        if paper
            && let Some((_, b)) = &best
            && bound_of(&chosen, d) >= b.cost.0
        {
            continue;
        }
        if d == g {
            let sel = groups.closure(
                chosen
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c)
                    .map(|(i, _)| i),
                n,
            );
            if let Ok(r) = ev.eval(&sel) {
                consider(&mut best, sel, r);
            }
            continue;
        }
        let mut without = chosen.clone();
        without[d] = false;
        stack.push((d + 1, without, dem));
        let mut more = dem;
        for c in 0..4 {
            more[c] += demand[d][c];
        }
        if fits(&cap, &more) {
            let mut with = chosen;
            with[d] = true;
            stack.push((d + 1, with, more));
        }
    }
    let Some((selected, result)) = best else {
        return nothing(cx).map(|r| Choice {
            selected: vec![false; n],
            result: r,
            proven,
            evaluations: ev.count,
            dropped: Vec::new(),
        });
    };
    let dropped = (0..n)
        .filter(|&i| cx.analysis.movability.movable(i) && !selected[i])
        .map(|i| {
            (
                i as u32,
                "the exact search found that moving it does not fit or does not pay".to_string(),
            )
        })
        .collect();
    Ok(Choice {
        selected,
        result,
        proven,
        evaluations: ev.count,
        dropped,
    })
}

/// The first `k` groups.
pub fn stepwise(cx: &Context, groups: &Groups, k: usize) -> Result<Choice, Rejected> {
    let n = cx.fp.insts.len();
    let mut ev = Evaluator {
        cx,
        memo: HashMap::new(),
        count: 0,
    };
    let sel = groups.closure(0..k.min(groups.len()), n);
    let result = ev.eval(&sel)?;
    let dropped = (0..n)
        .filter(|&i| cx.analysis.movability.movable(i) && !sel[i])
        .map(|i| {
            let g = groups.of[i].map_or(String::new(), |g| format!(" {}", g + 1));
            (i as u32, format!("stepwise: group{g} is not applied yet"))
        })
        .collect();
    Ok(Choice {
        selected: sel,
        result,
        proven: false,
        evaluations: ev.count,
        dropped,
    })
}

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
//!   components cannot drop below zero (not with SLP or the peepholes on, which remove
//!   fragment instructions too: then it enumerates unpruned). The search stops after a
//!   budget of evaluations and says whether it proved optimality. Every leaf's packing of
//!   the interpolators is itself exact (`fp_to_vp::pack`: values shared between registers,
//!   existing interpolants relocated, qualifiers kept apart), so optimality holds over the
//!   packings too; a leaf whose packing fell back to the greedy split (or whose packer ran
//!   out of nodes) voids the proof unless its own bound cannot beat the best. With
//!   relocation the free capacity the bound uses counts only what instructions that cannot
//!   move read: relocation may free everything else.
//! - [`exhaustive`]: every subset of groups (up to 2^16), the check on the search's bound.
//! - [`stepwise`]: the first `k` groups in program order (the paper's Table 4 moves the
//!   Gaussian filter's 7 groups one by one).

use crate::analysis::capacity::Capacity;
use crate::analysis::groups::Groups;
use crate::fxhash::FastMap;
use crate::passes::fp_to_vp;
use crate::pipeline::{Context, Evaluated, Rejected, evaluate};
use hoist_asm::WriteMask;
use std::sync::Arc;

/// Outcome of a selection rule.
#[derive(Clone, Debug)]
pub struct Choice {
    pub selected: Vec<bool>,
    pub result: Arc<Evaluated>,
    /// Whether the search proved no other choice is cheaper.
    pub proven: bool,
    pub evaluations: u32,
    /// Movable instructions left behind, with why.
    pub dropped: Vec<(u32, String)>,
}

/// Evaluates with memoisation.
struct Evaluator<'a, 'b> {
    cx: &'a Context<'b>,
    memo: FastMap<Vec<bool>, Result<Arc<Evaluated>, Rejected>>,
    count: u32,
}

impl Evaluator<'_, '_> {
    fn eval(&mut self, sel: &[bool]) -> Result<Arc<Evaluated>, Rejected> {
        if let Some(r) = self.memo.get(sel) {
            return r.clone();
        }
        self.count += 1;
        let r = evaluate(self.cx, sel).map(Arc::new);
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
        memo: FastMap::default(),
        count: 0,
    };
    let mut sel = movable.to_vec();
    let mut dropped = Vec::new();
    // While even the necessary interpolator condition fails, drop without evaluating.
    let cap = capacity(cx);
    while !fits(&cap, &demand_of(cx, &sel)) {
        let Some(last) = sel.iter().rposition(|&s| s) else {
            break;
        };
        sel[last] = false;
        dropped.push((
            last as u32,
            "dropped by the greedy rule: not enough free interpolators".to_string(),
        ));
    }
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
    if !matches!(cx.cost, crate::cost::CostModel::Paper) {
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
                        dropped.push((
                            i as u32,
                            format!("not worth it under the {} cost model", cx.cost.name()),
                        ));
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
            && du
                .reads(i)
                .iter()
                .any(|r| r.def.is_some_and(|d| !sel[d as usize]))
        {
            sel[i] = false;
        }
    }
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
                    let read_outside = du
                        .uses(i, c)
                        .iter()
                        .any(|u| !sel[u.inst as usize] && live_use(cx, du, u));
                    let uniform = m.kinds[i][c as usize] == crate::analysis::movable::Kind::Uniform
                        || recomputable(cx, i);
                    if read_outside && !uniform {
                        d[c as usize] += 1;
                    }
                }
            }
            d
        })
        .collect()
}

/// Whether a use needs its value where the packing sees it: the reading instruction's read
/// feeds a destination lane somebody uses (the packer's `live_reads`). A value only a dead
/// instruction reads takes no interpolator, so counting it would over-state demand and let
/// the search prune a choice that fits.
fn live_use(
    cx: &Context,
    du: &crate::analysis::defuse::DefUse,
    u: &crate::analysis::defuse::Use,
) -> bool {
    let k = u.inst as usize;
    let live = live_lanes_of(cx, du, k);
    du.reads(k)
        .get(u.read as usize)
        .is_none_or(|r| !r.lanes.intersect(live).is_empty())
}

/// The destination lanes of fragment instruction `k` somebody uses (all, without a data
/// destination), as the packer counts them.
fn live_lanes_of(cx: &Context, du: &crate::analysis::defuse::DefUse, k: usize) -> WriteMask {
    let inst = &cx.fp.insts[k];
    if inst.info().has_dst {
        crate::analysis::movable::live_lanes(du, k, inst)
    } else {
        WriteMask::ALL
    }
}

/// Transported non-uniform components of an arbitrary selection, by component position.
fn demand_of(cx: &Context, sel: &[bool]) -> [u32; 4] {
    let mut d = [0u32; 4];
    let Some(du) = &cx.analysis.fp_du else {
        return d;
    };
    let m = &cx.analysis.movability;
    for (i, _) in sel.iter().enumerate().filter(|(_, s)| **s) {
        for (c, dc) in d.iter_mut().enumerate() {
            if m.kinds[i][c] != crate::analysis::movable::Kind::Uniform
                && !recomputable(cx, i)
                && du
                    .uses(i, c as u8)
                    .iter()
                    .any(|u| !sel[u.inst as usize] && live_use(cx, du, u))
            {
                *dc += 1;
            }
        }
    }
    d
}

/// Whether fragment instruction `i` may be recomputed in the fragment program instead of
/// transported when interpolators run out (`fp_to_vp::pack`): its transported values, like
/// uniform ones, do not certainly take interpolator capacity.
fn recomputable(cx: &Context, i: usize) -> bool {
    crate::passes::remat::recomputable(&cx.fp.insts[i])
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
///
/// Depth-first over the groups, including each before excluding it, pruned by [`Bound`];
/// every leaf is a real evaluation. Groups that save nothing are then taken back out where
/// that is cheaper ([`drop_idle`]).
pub fn optimal(
    cx: &Context,
    groups: &Groups,
    budget: u32,
    incumbent: Option<&Choice>,
) -> Result<Choice, Rejected> {
    let n = cx.fp.insts.len();
    let g = groups.len();
    // The bound counts only what moving saves; SLP and the peepholes also remove fragment
    // instructions after the motion, so with them on the search enumerates unpruned.
    let paper = matches!(cx.cost, crate::cost::CostModel::Paper)
        && !cx.slp
        && cx.peepholes == crate::options::Peepholes::default();
    let mut ev = Evaluator {
        cx,
        memo: FastMap::default(),
        count: 0,
    };
    let f0 = cx.fp.slots().total() as f64;
    let mut best: Option<(Vec<bool>, Arc<Evaluated>)> = None;
    if let Some(c) = incumbent {
        consider(&mut best, c.selected.clone(), c.result.clone());
    }
    let none = vec![false; n];
    if let Ok(r) = ev.eval(&none) {
        consider(&mut best, none, r);
    }
    let bound = Bound::new(cx, groups);
    let max_nodes = 200_000u32;
    let mut nodes = 0u32;
    let mut proven = true;
    /// A search node: next group, groups chosen, demand, savings.
    type Node = (usize, Vec<bool>, [u32; 4], f64);
    let mut stack: Vec<Node> = vec![(0, vec![false; g], [0; 4], 0.0)];
    while let Some((d, chosen, dem, saved)) = stack.pop() {
        nodes += 1;
        if ev.count >= budget || nodes >= max_nodes {
            proven = false;
            break;
        }
        if paper
            && let Some((_, b)) = &best
            && f0 - saved - bound.helpers(d, &chosen, &dem) - bound.reachable(d, &dem) >= b.cost.0
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
        let without = (d + 1, without, dem, saved);
        // Include first, unless the group cannot save anything (then leaving it costs no
        // fragment slots and keeps the vertex program and interpolators smaller).
        let include_first = bound.value[d] > 0.0;
        if include_first {
            stack.push(without.clone());
        }
        let more: [u32; 4] = std::array::from_fn(|c| dem[c] + bound.demand[d][c]);
        if fits(&bound.cap, &more) {
            let mut with = chosen.clone();
            with[d] = true;
            stack.push((d + 1, with, more, saved + bound.value[d]));
        }
        if !include_first {
            stack.push(without);
        }
    }
    drop_idle(cx, groups, &bound.value, &mut ev, budget, &mut best);
    proven &= packings_settled(cx, &ev, best.as_ref().map(|b| b.1.cost.0), paper, f0);
    let Some((selected, result)) = best else {
        return nothing(cx).map(|r| Choice {
            selected: vec![false; n],
            result: Arc::new(r),
            proven,
            evaluations: ev.count,
            dropped: Vec::new(),
        });
    };
    let dropped = left_behind(cx, &selected, |_| {
        "the exact search found that moving it does not fit or does not pay".into()
    });
    Ok(Choice {
        selected,
        result,
        proven,
        evaluations: ev.count,
        dropped,
    })
}

/// Whether no evaluated choice could beat `best` with a better packing: every evaluation's
/// packing was decided exactly (the greedy split fallback, and a packer out of nodes,
/// leave room), or under the paper's model even saving every slot it moves could not reach
/// `best` (moving saves at most the moved instructions' slots).
fn packings_settled(cx: &Context, ev: &Evaluator, best: Option<f64>, paper: bool, f0: f64) -> bool {
    let Some(best) = best else {
        return true;
    };
    ev.memo.iter().all(|(sel, r)| {
        let doubtful = match r {
            Ok(e) => !e.exact_packing,
            Err(Rejected::Infeasible(fp_to_vp::Infeasible::PackingUnknown)) => true,
            Err(_) => false,
        };
        if !doubtful {
            return true;
        }
        let saved: f64 = (0..sel.len())
            .filter(|&i| sel[i])
            .map(|i| f64::from(fp_slots(cx, i)))
            .sum();
        paper && f0 - saved >= best
    })
}

/// Keeps `r` when it is cheaper than the best so far.
fn consider(best: &mut Option<(Vec<bool>, Arc<Evaluated>)>, sel: Vec<bool>, r: Arc<Evaluated>) {
    if best.as_ref().is_none_or(|(_, b)| r.cost < b.cost) {
        *best = Some((sel, r));
    }
}

/// The bound cannot separate ties in fragment slots: groups that save nothing are taken
/// back out of the best choice (all together, else one by one) when that is cheaper.
fn drop_idle(
    cx: &Context,
    groups: &Groups,
    value: &[f64],
    ev: &mut Evaluator,
    budget: u32,
    best: &mut Option<(Vec<bool>, Arc<Evaluated>)>,
) {
    let Some((sel, _)) = best.as_ref() else {
        return;
    };
    let idle: Vec<usize> = (0..groups.len())
        .filter(|&k| value[k] <= 0.0)
        .filter(|&k| groups.members[k].iter().all(|&i| sel[i as usize]))
        .collect();
    let without = |sel: &[bool], ks: &[usize]| {
        let mut t = sel.to_vec();
        for &k in ks {
            for &i in &groups.members[k] {
                t[i as usize] = false;
            }
        }
        drop_dependents(cx, &mut t);
        t
    };
    let mut tries: Vec<Vec<usize>> = vec![idle.clone()];
    if idle.len() > 1 {
        tries.extend(idle.iter().map(|&k| vec![k]));
    }
    for ks in tries {
        if ks.is_empty() || ev.count >= budget {
            continue;
        }
        let base = best.as_ref().expect("best exists").0.clone();
        let trial = without(&base, &ks);
        if trial == base {
            continue;
        }
        if let Ok(r) = ev.eval(&trial) {
            let before = best.as_ref().map(|(_, b)| b.cost);
            consider(best, trial, r);
            if best.as_ref().map(|(_, b)| b.cost) != before && ks.len() > 1 {
                break;
            }
        }
    }
}

/// The exact search's bound: moving a group saves at most the fragment slots of its
/// closure, and groups share the free interpolator components, so the savings still
/// reachable are at most a fractional knapsack of the undecided groups (value: slots,
/// weight: transported components) into the components left. Groups whose transported values
/// are all uniform weigh nothing. Helpers several groups share count once, and only while
/// every group that needs them may still move or a free component could carry their value
/// to those left.
///
/// Feasibility and the bound count non-uniform values only: uniform ones may be recomputed
/// in the fragment program instead of transported, so the capacity they would take is not
/// certainly taken (and a group whose uniform values are recomputed still saves the rest).
struct Bound {
    cap: Capacity,
    /// Transported non-uniform components of each group, by position.
    demand: Vec<[u32; 4]>,
    /// Fragment slots each group alone saves.
    value: Vec<f64>,
    /// Instructions several groups own, and what moving each saves.
    shared: Vec<usize>,
    net_slot: Vec<f64>,
    /// `owners[i]`: the groups whose closure holds instruction `i`.
    owners: Vec<Vec<usize>>,
    /// Direct readers of each movable instruction, with the components they read.
    readers: Vec<Vec<(usize, [bool; 4])>>,
    movable: Vec<bool>,
    /// Knapsack weights (total, then per position when positions are fixed) and the groups
    /// in order of value per weight for each.
    weights: Vec<Vec<f64>>,
    orders: Vec<Vec<usize>>,
}

impl Bound {
    fn new(cx: &Context, groups: &Groups) -> Bound {
        let n = cx.fp.insts.len();
        let g = groups.len();
        let cap = capacity(cx);
        let demand = group_demand(cx, groups);
        let movable: Vec<bool> = (0..n).map(|i| cx.analysis.movability.movable(i)).collect();
        // Who moves what: an instruction one group owns counts in that group's value; one
        // several groups own is shared and counted once, in `helpers`, while some owner may
        // still move.
        let closures: Vec<Vec<bool>> = (0..g).map(|k| groups.closure([k], n)).collect();
        let owners: Vec<Vec<usize>> = (0..n)
            .map(|i| (0..g).filter(|&k| closures[k][i]).collect())
            .collect();
        let net_slot = net_slots(cx, &movable);
        let mut value = vec![0.0f64; g];
        let mut shared: Vec<usize> = Vec::new();
        for i in 0..n {
            match owners[i].as_slice() {
                [] => {}
                [k] => value[*k] += net_slot[i],
                _ => shared.push(i),
            }
        }
        // Each constraint alone bounds the reachable savings: the total of free components,
        // and (when components keep their positions) each position's free slots. The bound
        // is the smallest of those fractional knapsacks.
        let mut weights = vec![
            demand
                .iter()
                .map(|d| d.iter().sum::<u32>() as f64)
                .collect::<Vec<f64>>(),
        ];
        if !cap.any_slot {
            for c in 0..4 {
                weights.push(demand.iter().map(|d| d[c] as f64).collect());
            }
        }
        let orders = weights
            .iter()
            .map(|w| {
                let mut o: Vec<usize> = (0..g).collect();
                let r = |k: usize| {
                    if w[k] == 0.0 {
                        f64::INFINITY
                    } else {
                        value[k] / w[k]
                    }
                };
                hoist_asm::sort::by(&mut o, |&a, &b| r(b).total_cmp(&r(a)));
                o
            })
            .collect();
        Bound {
            cap,
            demand,
            value,
            shared,
            net_slot,
            owners,
            readers: readers(cx, &movable),
            movable,
            weights,
            orders,
        }
    }

    /// Savings of the shared helpers still reachable at depth `d`. An instruction certainly
    /// stays in the fragment program when it is not movable or every owner has been decided
    /// against. A movable one is also pinned there when a reader that certainly stays (or is
    /// pinned) reads a component with no free interpolator component left to carry it. Room
    /// is measured against the non-uniform demand only: that much capacity is certainly used,
    /// while uniform values may be recomputed instead. Shared instructions save their slots
    /// only while some owner may move and they are not pinned.
    fn helpers(&self, d: usize, chosen: &[bool], dem: &[u32; 4]) -> f64 {
        let cap = &self.cap;
        let room = |c: usize| {
            if cap.any_slot {
                cap.total > dem.iter().sum::<u32>()
            } else {
                cap.per_comp[c] > dem[c]
            }
        };
        let left = |i: usize| self.owners[i].iter().all(|&k| k < d && !chosen[k]);
        let n = self.movable.len();
        let mut pinned = vec![false; n];
        for i in (0..n).rev().filter(|&i| self.movable[i]) {
            pinned[i] = self.readers[i].iter().any(|&(j, comps)| {
                let stays = !self.movable[j] || left(j) || pinned[j];
                stays && (0..4).any(|c| comps[c] && !room(c))
            });
        }
        self.shared
            .iter()
            .filter(|&&i| !left(i) && !pinned[i])
            .map(|&i| self.net_slot[i])
            .sum::<f64>()
    }

    /// The fractional knapsacks of the groups from `from` on into the room `dem` leaves.
    fn reachable(&self, from: usize, dem: &[u32; 4]) -> f64 {
        let knapsack = |order: &[usize], w: &[f64], mut room: f64| -> f64 {
            let mut v = 0.0;
            for &k in order {
                if k < from {
                    continue;
                }
                if w[k] <= room {
                    v += self.value[k];
                    room -= w[k];
                } else if room > 0.0 {
                    v += self.value[k] * room / w[k];
                    room = 0.0;
                }
            }
            v
        };
        let mut best = f64::INFINITY;
        for (j, (order, w)) in self.orders.iter().zip(&self.weights).enumerate() {
            let room = if j == 0 {
                self.cap.total.saturating_sub(dem.iter().sum::<u32>())
            } else {
                self.cap.per_comp[j - 1].saturating_sub(dem[j - 1])
            };
            best = best.min(knapsack(order, w, room as f64));
        }
        best
    }
}

/// Fragment slots moving each instruction saves. Materialisation: a staying instruction that
/// reads one register partly from staying code and partly from moved code needs a `mov`
/// putting the moved part back in that register, and one `mov` writes each component once.
/// So for each such register and one component position (the one with the most distinct
/// moved writers), every distinct moved writer costs one slot of what moving it saves.
fn net_slots(cx: &Context, movable: &[bool]) -> Vec<f64> {
    let n = cx.fp.insts.len();
    let mut net_slot: Vec<f64> = (0..n).map(|i| fp_slots(cx, i) as f64).collect();
    let Some(du) = cx.analysis.fp_du.as_ref() else {
        return net_slot;
    };
    let mut feeds: Vec<(hoist_asm::Reg, [Vec<u32>; 4])> = Vec::new();
    for j in (0..n).filter(|&j| !movable[j]) {
        let live = live_lanes_of(cx, du, j);
        for k in 0..cx.fp.insts[j].src.len() as u8 {
            let reads: Vec<_> = du
                .reads(j)
                .iter()
                .filter(|r| r.src == k && r.reg.file == hoist_asm::RegFile::Temp)
                .filter(|r| !r.lanes.intersect(live).is_empty())
                .collect();
            if !reads
                .iter()
                .any(|r| r.def.is_none_or(|d| !movable[d as usize]))
            {
                continue;
            }
            for r in reads {
                let Some(d) = r.def.filter(|&d| movable[d as usize]) else {
                    continue;
                };
                let at = match feeds.iter().position(|(reg, _)| *reg == r.reg) {
                    Some(at) => at,
                    None => {
                        feeds.push((r.reg, Default::default()));
                        feeds.len() - 1
                    }
                };
                let defs = &mut feeds[at].1[r.comp as usize];
                if !defs.contains(&d) {
                    defs.push(d);
                }
            }
        }
    }
    for (_, per_comp) in &feeds {
        let widest = per_comp
            .iter()
            .max_by_key(|d| d.len())
            .expect("four components");
        for &d in widest {
            net_slot[d as usize] = (net_slot[d as usize] - 1.0).max(0.0);
        }
    }
    net_slot
}

/// Direct readers of each movable instruction, with the components they read.
fn readers(cx: &Context, movable: &[bool]) -> Vec<Vec<(usize, [bool; 4])>> {
    let n = cx.fp.insts.len();
    let mut readers: Vec<Vec<(usize, [bool; 4])>> = vec![Vec::new(); n];
    let Some(du) = cx.analysis.fp_du.as_ref() else {
        return readers;
    };
    for (i, out) in readers.iter_mut().enumerate().filter(|(i, _)| movable[*i]) {
        for c in 0..4u8 {
            for u in du.uses(i, c) {
                let j = u.inst as usize;
                match out.iter_mut().find(|(w, _)| *w == j) {
                    Some((_, comps)) => comps[c as usize] = true,
                    None => {
                        let mut comps = [false; 4];
                        comps[c as usize] = true;
                        out.push((j, comps));
                    }
                }
            }
        }
    }
    readers
}

/// Movable instructions a choice leaves in the fragment program, each with why.
fn left_behind(
    cx: &Context,
    selected: &[bool],
    why: impl Fn(usize) -> String,
) -> Vec<(u32, String)> {
    (0..selected.len())
        .filter(|&i| cx.analysis.movability.movable(i) && !selected[i])
        .map(|i| (i as u32, why(i)))
        .collect()
}

/// Largest group count [`exhaustive`] enumerates.
pub const EXHAUSTIVE_GROUPS: usize = 16;

/// Evaluates the closure of every subset of groups and keeps the cheapest; `None` when there
/// are more than [`EXHAUSTIVE_GROUPS`] groups.
pub fn exhaustive(cx: &Context, groups: &Groups) -> Option<Result<Choice, Rejected>> {
    let n = cx.fp.insts.len();
    let g = groups.len();
    if g > EXHAUSTIVE_GROUPS {
        return None;
    }
    let mut ev = Evaluator {
        cx,
        memo: FastMap::default(),
        count: 0,
    };
    let mut best: Option<(Vec<bool>, Arc<Evaluated>)> = None;
    let mut last_err = None;
    for mask in 0u32..1 << g {
        let sel = groups.closure((0..g).filter(|k| mask & 1 << k != 0), n);
        match ev.eval(&sel) {
            Ok(r) => {
                if best.as_ref().is_none_or(|(_, b)| r.cost < b.cost) {
                    best = Some((sel, r));
                }
            }
            Err(e) => last_err = Some(e),
        }
    }
    Some(match best {
        Some((selected, result)) => {
            let dropped = left_behind(cx, &selected, |_| {
                "every subset was tried: moving it does not pay".into()
            });
            let paper = matches!(cx.cost, crate::cost::CostModel::Paper)
                && !cx.slp
                && cx.peepholes == crate::options::Peepholes::default();
            let f0 = cx.fp.slots().total() as f64;
            let proven = packings_settled(cx, &ev, Some(result.cost.0), paper, f0);
            Ok(Choice {
                selected,
                result,
                proven,
                evaluations: ev.count,
                dropped,
            })
        }
        None => Err(last_err.expect("at least one subset was evaluated")),
    })
}

/// The first `k` groups (the paper's stepwise series).
pub fn stepwise(cx: &Context, groups: &Groups, k: usize) -> Result<Choice, Rejected> {
    let first: Vec<usize> = (0..k.min(groups.len())).collect();
    fixed(cx, groups, &first, &|g| {
        format!("stepwise: group {g} is not applied yet")
    })
}

/// Exactly the groups in `which` (with the helpers they need); `why(g)` says why a group
/// left out stays.
pub fn fixed(
    cx: &Context,
    groups: &Groups,
    which: &[usize],
    why: &dyn Fn(usize) -> String,
) -> Result<Choice, Rejected> {
    let n = cx.fp.insts.len();
    let sel = groups.closure(which.iter().copied().filter(|&g| g < groups.len()), n);
    let result = Arc::new(evaluate(cx, &sel)?);
    let dropped = left_behind(cx, &sel, |i| match groups.of[i] {
        Some(g) => why(g + 1),
        None => "a helper no applied group needs".into(),
    });
    Ok(Choice {
        selected: sel,
        result,
        proven: false,
        evaluations: 1,
        dropped,
    })
}

/// Free interpolator capacity of the pair: with relocation, every component except those
/// instructions that cannot move read (an upper bound: relocation may free the rest);
/// without, what the existing interpolants leave.
pub fn capacity(cx: &Context) -> Capacity {
    let (Some(vp_du), Some(fp_du)) = (&cx.analysis.vp_du, &cx.analysis.fp_du) else {
        return Capacity {
            per_comp: [0; 4],
            total: 0,
            any_slot: false,
        };
    };
    let input = cx.input(vp_du, fp_du, cx.vp_limits);
    let per_comp = if cx.relocate {
        let movable: Vec<bool> = (0..cx.fp.insts.len())
            .map(|i| cx.analysis.movability.movable(i))
            .collect();
        fp_to_vp::relaxed_capacity(&input, &movable)
    } else {
        let mut per_comp = [0u32; 4];
        for m in fp_to_vp::free_components(&input) {
            for c in m.iter() {
                per_comp[c as usize] += 1;
            }
        }
        per_comp
    };
    Capacity {
        per_comp,
        total: per_comp.iter().sum(),
        any_slot: fp_to_vp::swizzle_free(cx.fp.profile),
    }
}

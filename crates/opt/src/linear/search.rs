//! The whole search: structured seeds (strides, colour classes, symmetry orbits),
//! annealing from the original order and from the best seed, then branch and bound under
//! the best cost found, with the method that won. Every candidate is costed as the search
//! sees it ([`Packing::searching`]: a Gauss-Seidel group's inner order chosen); the
//! answer is reported in canonical form, except for a Gauss-Seidel system, whose order of
//! groups and of variables inside them is part of the answer (the sweep's order).

use super::anneal::{Rng, Schedule, anneal, colour_seeds, seeds};
use super::cost::{Grouping, Packing, Parts};
use super::exact::{branch_and_bound, lower_bound};
use super::profile_cost::{ProfileCost, profile_costs};
use super::symmetry::symmetry_seeds;
use super::system::System;
use serde::Serialize;

/// Branch and bound runs up to this many variables; above, the bound alone is reported
/// (at m = 64 its first level alone has C(63, 3) = 39 711 children).
pub const EXACT_MAX_VARS: usize = 40;

/// How hard to search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    pub seed: u64,
    pub schedule: Schedule,
    /// Annealing runs from each starting point (0: none, the seeds alone).
    pub restarts: usize,
    /// Branch-and-bound nodes (0: no exact search).
    pub exact_budget: u64,
}

impl SearchOptions {
    /// The structured seeds alone (no annealing, no branch and bound): a first answer in
    /// a few milliseconds, for a page that shows it while the whole search runs.
    pub fn seeds_only() -> SearchOptions {
        SearchOptions {
            restarts: 0,
            exact_budget: 0,
            ..SearchOptions::default()
        }
    }
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            seed: 0x5EED_0003,
            schedule: Schedule::default(),
            restarts: 1,
            exact_budget: 1_000_000,
        }
    }
}

/// One method's best cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub method: String,
    pub cost: u32,
}

/// The search's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Solution {
    pub cost_before: u32,
    pub parts_before: Parts,
    pub cost_after: u32,
    pub parts_after: Parts,
    pub grouping: Grouping,
    /// No grouping costs less: the optimum when `proven_optimal`, else Σ⌈nnz/4⌉.
    pub lower_bound: u32,
    pub proven_optimal: bool,
    /// The first method (in the order of `candidates`) that reached `cost_after`.
    pub method: String,
    pub candidates: Vec<Candidate>,
    pub anneal_moves: u64,
    pub exact_nodes: u64,
    /// The count on real profiles (`profile_cost`), for the original order and the answer.
    pub profiles_before: Vec<ProfileCost>,
    pub profiles_after: Vec<ProfileCost>,
}

/// Searches for the cheapest grouping of `sys`.
pub fn optimize(sys: &System, opts: &SearchOptions) -> Solution {
    let original = Grouping::identity(sys.m);
    let before = Packing::new(sys, &original);
    let mut found: Vec<(String, u32, Grouping)> =
        vec![("original order".into(), before.total(), original.clone())];
    for (label, g) in seeds(sys.m)
        .into_iter()
        .chain(colour_seeds(sys))
        .chain(symmetry_seeds(sys))
    {
        let p = Packing::searching(sys, &g);
        found.push((label, p.total(), p.grouping()));
    }
    let best_seed = found[1..]
        .iter()
        .min_by_key(|f| f.1)
        .map(|f| (f.0.clone(), f.2.clone()));
    let mut starts = vec![("original order".to_string(), original)];
    starts.extend(best_seed);
    let mut rng = Rng::new(opts.seed);
    let mut moves = 0;
    for (label, start) in starts {
        for _ in 0..opts.restarts {
            let a = anneal(sys, &start, &opts.schedule, &mut rng);
            moves += a.moves;
            found.push((format!("annealing from {label}"), a.cost, a.grouping));
        }
    }
    let (mut best, mut grouping, mut method) = found
        .iter()
        .min_by_key(|f| f.1)
        .map(|f| (f.1, f.2.clone(), f.0.clone()))
        .unwrap_or_default();
    let bound = lower_bound(sys);
    let (mut proven, mut nodes) = (best == bound, 0);
    if !proven && opts.exact_budget > 0 && sys.m <= EXACT_MAX_VARS {
        let ex = branch_and_bound(sys, best, opts.exact_budget);
        nodes = ex.nodes;
        proven = ex.proven;
        if let Some(g) = ex.grouping {
            (best, grouping, method) = (ex.cost, g, "branch and bound".into());
            found.push((method.clone(), best, grouping.clone()));
        }
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    for (m, c, _) in &found {
        match candidates.iter_mut().find(|x| x.method == *m) {
            Some(x) => x.cost = x.cost.min(*c),
            None => candidates.push(Candidate {
                method: m.clone(),
                cost: *c,
            }),
        }
    }
    let grouping = if sys.gauss_seidel() {
        grouping
    } else {
        grouping.canonical()
    };
    let after = Packing::new(sys, &grouping);
    let (profiles_before, profiles_after) = (
        profile_costs(sys, &Grouping::identity(sys.m)),
        profile_costs(sys, &grouping),
    );
    Solution {
        cost_before: before.total(),
        parts_before: before.parts(),
        cost_after: after.total(),
        parts_after: after.parts(),
        grouping,
        lower_bound: if proven { best } else { bound },
        proven_optimal: proven,
        method,
        candidates,
        anneal_moves: moves,
        exact_nodes: nodes,
        profiles_before,
        profiles_after,
    }
}

//! Which discretisation of §3.1's 2D wave equation is the paper's? Its matrix was lost in
//! the OCR; Table 2 keeps (a) 462 scalar operations and (b) 82 instructions in the natural
//! order (then 63 after the transformation). This enumerates plausible readings and prints
//! those that match either number, with our search's cost on the ones matching both.
//!
//! w^(k+1) = λ²(w_{i±1,j} + w_{i,j±1}) + 2(1 − 2λ²)·w_ij − w^(k−1) on an nx × ny grid of
//! unknowns (i fastest, nx·ny ≤ 64, padded to a multiple of 4), with:
//! - boundaries: neighbours outside dropped (zero Dirichlet; a Neumann mirror or copy has
//!   the same zero pattern, only coefficients change), or periodic along x, y or both;
//! - a ring of boundary nodes among the unknowns or not: held fixed (w^(k+1) = w^k, one
//!   diagonal entry, no b) or zero (empty rows);
//! - the diagonal kept (λ² ≠ 1/2) or dropped (λ² = 1/2);
//! - b = −w^(k−1) counted on every interior row, or not counted (folded elsewhere).
//!
//! Run with `cargo run -p hoist-opt --example wave2d_variants` (add `--search` to run the
//! default search on every variant matching (a) or (b)). `wave2d_readings` in
//! `tests/linear_results.rs` checks the summary the results' note quotes.

use hoist_opt::linear::{Grouping, SearchOptions, cost, optimize};

fn main() {
    let search = std::env::args().any(|a| a == "--search");
    let all = hoist_opt::linear::paper::wave2d_readings();
    println!("{} readings enumerated", all.len());
    println!("| reading | unknowns | nnz | ops (a) | before (b) | after (ours) | bound |");
    println!("|---|---|---|---|---|---|---|");
    for r in &all {
        let sys = &r.system;
        let ops = sys.scalar_ops();
        let before = cost(sys, &Grouping::identity(sys.m));
        if ops != 462 && before != 82 {
            continue;
        }
        let after = if search || (ops == 462 && before == 82) {
            let s = optimize(sys, &SearchOptions::default());
            format!("{} | {}", s.cost_after, s.lower_bound)
        } else {
            "— | —".to_string()
        };
        println!(
            "| {} | {} | {} | {ops} | {before} | {after} |",
            r.label,
            sys.vars,
            sys.nnz()
        );
    }
    let both = all
        .iter()
        .filter(|r| {
            r.system.scalar_ops() == 462 && cost(&r.system, &Grouping::identity(r.system.m)) == 82
        })
        .count();
    println!("readings matching both (a) = 462 and (b) = 82: {both}");
}

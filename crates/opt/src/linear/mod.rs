//! SIMD packing of linear expressions y = A·x + b (seed 003: Bajaj, Ihm, Min and Oh,
//! "SIMD Optimization of Linear Expressions for Programmable Graphics Hardware", CGF 23(4),
//! 2004).
//!
//! On 4-wide hardware, x and y live four to a register. A is cut into 4×4 blocks; each
//! block is evaluated column-major (MUL + MADs with swizzles) or row-major (masked DP4s),
//! whichever is cheaper, and the partial results are summed (§2.3.1). Renaming variables
//! (the same permutation on rows and columns, §2.3.2) changes which non-zeros share a
//! block, hence the instruction count; the search picks the permutation. Only the
//! partition of the variables into groups of four matters.
//!
//! - [`system`]: the system, its text format (one row per line) and limits;
//! - [`paper`]: the paper's systems (Table 2, Figs. 2, 10, 13, 14) with its numbers;
//! - [`cost`]: c_c, c_r, C^T, C^sum with their parts, kept current under swaps in O(n);
//! - [`anneal`]: the paper's simulated annealing (§2.3.3) and the strided seeds;
//! - [`symmetry`]: seeds from the orbits of the pattern's symmetry groups of order 4;
//! - [`exact`]: the lower bound and a branch and bound that proves optimality;
//! - [`emit`]: ARB and D3D9 vertex code for a grouping, with what the model leaves out;
//! - [`search`]: all of them together, reporting which method won;
//! - [`profile_cost`]: the count on ARB fragment, ps_2_0, ARB vertex and the paper's
//!   vs_1_1 setup beside the model's;
//! - [`recover`]: a system recovered from straight-line ARB/D3D9 code by symbolic execution.

pub mod anneal;
pub mod cost;
pub mod emit;
pub mod exact;
pub mod paper;
pub mod profile_cost;
pub mod recover;
pub mod search;
pub mod symmetry;
pub mod system;

pub use cost::{Grouping, Packing, Parts, cost};
pub use search::{SearchOptions, Solution, optimize};
pub use system::{ParseError, System, parse};

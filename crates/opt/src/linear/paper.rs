//! The seed paper's systems, rebuilt from its descriptions, with the costs it reports.
//!
//! Where the paper leaves a choice, the choice taken is stated at the generator. The
//! coefficients only matter for execution (the cost depends on the zero pattern alone).

use super::system::System;

/// One of the paper's systems with the costs the paper reports before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaperCase {
    pub name: &'static str,
    pub source: &'static str,
    pub before: u32,
    pub after: u32,
    /// Table 2, column (a), where the paper gives it.
    pub scalar_ops: Option<u32>,
    /// Table 2, column (e): the GeForce FX instruction count, where the paper gives it.
    pub column_e: Option<u32>,
}

pub const CASES: [PaperCase; 7] = [
    PaperCase {
        name: "wave2d",
        source: "Table 2, 2D wave (§3.1, Fig. 5)",
        before: 82,
        after: 63,
        scalar_ops: Some(462),
        column_e: Some(81),
    },
    PaperCase {
        name: "runge-kutta",
        source: "Table 2, Runge-Kutta (§3.2)",
        before: 80,
        after: 56,
        scalar_ops: Some(360),
        column_e: Some(120),
    },
    PaperCase {
        name: "gauss-seidel",
        source: "Table 2, Gauss-Seidel (§3.3, Fig. 7)",
        before: 112,
        after: 72,
        scalar_ops: Some(576),
        column_e: Some(87),
    },
    PaperCase {
        name: "fig2",
        source: "Fig. 2, one Runge-Kutta coefficient set",
        before: 20,
        after: 14,
        scalar_ops: None,
        column_e: None,
    },
    PaperCase {
        name: "fig10",
        source: "Fig. 10, 2D Poisson S block (§4.1.1)",
        before: 6,
        after: 4,
        scalar_ops: None,
        column_e: None,
    },
    PaperCase {
        name: "fig13",
        source: "Fig. 13, 3D Poisson S block (§4.1.2)",
        before: 38,
        after: 20,
        scalar_ops: None,
        column_e: None,
    },
    PaperCase {
        name: "fig14",
        source: "Fig. 14, 2D wave S* block (§4.2)",
        before: 38,
        after: 24,
        scalar_ops: None,
        column_e: None,
    },
];

pub fn names() -> Vec<&'static str> {
    CASES.iter().map(|c| c.name).collect()
}

pub fn case(name: &str) -> Option<PaperCase> {
    CASES.iter().copied().find(|c| c.name == name)
}

/// The paper's system called `name` (one of [`names`]).
pub fn system(name: &str) -> Option<System> {
    Some(match name {
        "wave2d" => wave2d(),
        "runge-kutta" => runge_kutta(4),
        "gauss-seidel" => gauss_seidel(),
        "fig2" => runge_kutta(1),
        "fig10" => tridiagonal("fig10", 8, None, 0.25, 1.0 / 3.0),
        "fig13" => tridiagonal("fig13", 40, None, 1.0 / 6.0, 0.2),
        "fig14" => tridiagonal("fig14", 32, Some(1.0), 0.25, 0.25),
        _ => return None,
    })
}

/// Fig. 2: five cars, each the bounce/pitch block [0 9 0 0; 1 2 3 4; 0 0 0 9; 5 6 7 8]
/// with b = (0, 1, 0, 2), block-diagonal in array-of-structures order. The figure's
/// digits stand for non-zero reals; we use digit/10. Table 2's Runge-Kutta row evaluates
/// the same expression for the four coefficient sets a, b, c, d in order (they cannot be
/// merged: each needs the previous one's result), so it is `repeat 4`.
fn runge_kutta(repeat: u32) -> System {
    const CAR: [[f64; 4]; 4] = [
        [0.0, 0.9, 0.0, 0.0],
        [0.1, 0.2, 0.3, 0.4],
        [0.0, 0.0, 0.0, 0.9],
        [0.5, 0.6, 0.7, 0.8],
    ];
    const B: [f64; 4] = [0.0, 0.1, 0.0, 0.2];
    let mut rows = Vec::new();
    let mut b = Vec::new();
    for car in 0..5 {
        for (r, coefs) in CAR.iter().enumerate() {
            rows.push(
                coefs
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0.0)
                    .map(|(c, v)| (4 * car + c, *v))
                    .collect(),
            );
            b.push(B[r]);
        }
    }
    let name = if repeat == 1 { "fig2" } else { "runge-kutta" };
    System::new(name, rows, b, false, repeat)
}

/// §3.1: w_{k+1} = λ²(w_{i±1,j} + w_{i,j±1}) + 2(1 − 2λ²)·w_ij − w_{k−1} on an 8×8 grid,
/// lexicographic order (i fastest), λ² = 1/4. Choices: zero Dirichlet boundaries
/// (neighbours outside the grid drop out) and the diagonal kept (λ² ≠ 1/2); b = −w_{k−1}
/// is a non-zero vector everywhere. This gives 288 non-zeros and a before cost of 92, not
/// the paper's 82 (see docs/linear-results.md).
fn wave2d() -> System {
    let (w, lam2) = (8usize, 0.25);
    let mut rows = Vec::new();
    for j in 0..w {
        for i in 0..w {
            let mut row = vec![(i + w * j, 2.0 * (1.0 - 2.0 * lam2))];
            let nbrs = [
                (i + 1, j),
                (i.wrapping_sub(1), j),
                (i, j + 1),
                (i, j.wrapping_sub(1)),
            ];
            for (a, c) in nbrs {
                if a < w && c < w {
                    row.push((a + w * c, lam2));
                }
            }
            hoist_asm::sort::by_key(&mut row, |e| e.0);
            rows.push(row);
        }
    }
    System::new("wave2d", rows, vec![-1.0; w * w], false, 1)
}

/// §3.3: Gauss-Seidel for the 7-point Poisson stencil on a 4×4×4 grid, lexicographic
/// order, zero Dirichlet boundaries: x ← −D⁻¹L·x_new − D⁻¹U·x_old + D⁻¹b, coefficient 1/6.
/// The paper's grid (fluid cells of a 40×10×10 grid) is not given; this grid has the
/// paper's 64 unknowns and gives its 576 scalar operations.
fn gauss_seidel() -> System {
    let n = 4usize;
    let idx = |i: usize, j: usize, k: usize| i + n * j + n * n * k;
    let mut rows = Vec::new();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let mut row = Vec::new();
                for (a, b, c) in [
                    (i.wrapping_sub(1), j, k),
                    (i + 1, j, k),
                    (i, j.wrapping_sub(1), k),
                    (i, j + 1, k),
                    (i, j, k.wrapping_sub(1)),
                    (i, j, k + 1),
                ] {
                    if a < n && b < n && c < n {
                        row.push((idx(a, b, c), 1.0 / 6.0));
                    }
                }
                hoist_asm::sort::by_key(&mut row, |e| e.0);
                rows.push(row);
            }
        }
    }
    System::new("gauss-seidel", rows, vec![1.0 / 6.0; n * n * n], true, 1)
}

/// The S blocks of the Jacobi iterations (Fig. 10, 13) and of the wave (Fig. 14): one
/// grid line, tridiagonal. `diag` is the diagonal (None: zero, as in −D⁻¹(L+U)); `off` the
/// neighbours' coefficient, `end` theirs in the first and last rows (the Neumann
/// boundary's smaller denominator); b non-zero everywhere.
fn tridiagonal(name: &str, m: usize, diag: Option<f64>, off: f64, end: f64) -> System {
    let rows = (0..m)
        .map(|r| {
            let c = if r == 0 || r + 1 == m { end } else { off };
            let mut row = Vec::new();
            if r > 0 {
                row.push((r - 1, c));
            }
            if let Some(d) = diag {
                row.push((r, d));
            }
            if r + 1 < m {
                row.push((r + 1, c));
            }
            row
        })
        .collect();
    System::new(name, rows, vec![-0.25; m], false, 1)
}

/// One reading of §3.1's lost matrix ([`wave2d_readings`]).
#[derive(Clone, Debug)]
pub struct Reading {
    pub label: String,
    pub system: System,
}

/// How a wave grid treats its edge (see [`wave2d_readings`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ring {
    None,
    Fixed,
    Zero,
}

/// Plausible discretisations of §3.1 (the OCR lost the matrix): every nx × ny grid of at
/// most 64 unknowns (i fastest), periodic along none, x, y or both axes (a Neumann mirror
/// or copy has the Dirichlet zero pattern), a ring of boundary nodes among the unknowns or
/// not (held fixed: w^(k+1) = w^k; or zero: empty rows), the diagonal kept (λ² = 1/4) or
/// dropped (λ² = 1/2), and b = −w^(k−1) on every interior row or left out.
pub fn wave2d_readings() -> Vec<Reading> {
    let mut out = Vec::new();
    for nx in 1..=64usize {
        for ny in 1..=64 / nx {
            if nx * ny < 4 {
                continue;
            }
            for periodic in 0..4u8 {
                for ring in [Ring::None, Ring::Fixed, Ring::Zero] {
                    if ring != Ring::None && (nx < 3 || ny < 3 || periodic != 0) {
                        continue;
                    }
                    for diag in [true, false] {
                        for with_b in [true, false] {
                            out.push(wave_reading(nx, ny, periodic, ring, diag, with_b));
                        }
                    }
                }
            }
        }
    }
    out
}

fn wave_reading(
    nx: usize,
    ny: usize,
    periodic: u8,
    ring: Ring,
    diag: bool,
    with_b: bool,
) -> Reading {
    let lam2 = if diag { 0.25 } else { 0.5 };
    let edge =
        |i: usize, j: usize| ring != Ring::None && (i == 0 || j == 0 || i + 1 == nx || j + 1 == ny);
    let (px, py) = (periodic & 1 == 1, periodic & 2 == 2);
    let (mut rows, mut b) = (Vec::new(), Vec::new());
    for j in 0..ny {
        for i in 0..nx {
            if edge(i, j) {
                rows.push(if ring == Ring::Fixed {
                    vec![(i + nx * j, 1.0)]
                } else {
                    Vec::new()
                });
                b.push(0.0);
                continue;
            }
            let mut row = Vec::new();
            if diag {
                row.push((i + nx * j, 2.0 * (1.0 - 2.0 * lam2)));
            }
            let step = |v: usize, d: isize, n: usize, wrap: bool| {
                let w = v as isize + d;
                if (0..n as isize).contains(&w) {
                    Some(w as usize)
                } else if wrap && n > 2 {
                    Some(w.rem_euclid(n as isize) as usize)
                } else {
                    None
                }
            };
            for d in [-1isize, 1] {
                if let Some(a) = step(i, d, nx, px) {
                    row.push((a + nx * j, lam2));
                }
                if let Some(c) = step(j, d, ny, py) {
                    row.push((i + nx * c, lam2));
                }
            }
            hoist_asm::sort::by_key(&mut row, |e| e.0);
            row.dedup_by_key(|e| e.0);
            rows.push(row);
            b.push(if with_b { -1.0 } else { 0.0 });
        }
    }
    let ring_label = match ring {
        Ring::None => "",
        Ring::Fixed => ", boundary ring held fixed",
        Ring::Zero => ", boundary ring zero",
    };
    let per = ["", ", periodic x", ", periodic y", ", periodic x and y"][usize::from(periodic)];
    let label = format!(
        "{nx}×{ny}{per}{ring_label}, diagonal {}, b {}",
        if diag { "kept" } else { "dropped" },
        if with_b { "counted" } else { "left out" }
    );
    Reading {
        label,
        system: System::new("wave2d", rows, b, false, 1),
    }
}

//! A linear system y = Σ_t A_t·x + b and its text format.
//!
//! One row per line: `col:coef` entries separated by spaces, and optionally `b:coef`.
//! Directives: `name NAME`, `repeat K` (the expression is evaluated K times per step, as
//! the four Runge-Kutta coefficient sets are), `split lower` (Gauss-Seidel, seed §3.3: an
//! entry a_rc reads the updated value x_c^(k+1) when c is evaluated before r, and forms a
//! second term whose diagonal blocks are row-major). `#` starts a comment. Sizes are capped
//! so hostile input is refused with a message, never a panic.
//!
//! The split follows the evaluation order. The rows as given are split in their own order
//! ([`System::terms`]: the original iteration); a grouping evaluates the variables in its
//! order, and [`System::layered`] splits them by it: a_rc is in the updated-values term iff
//! c's position comes before r's. That is the paper's reading: it transforms the system and
//! iterates Gauss-Seidel on the transformed one ("Figure 7(b) shows an equivalent iteration
//! obtained after the transformation"; "each unknown is updated as soon as a newer
//! estimate of that unknown is computed"), and the row-major diagonal blocks exist so that
//! "the elements of x^(k+1) be computed in sequential order". Every order converges to the
//! same solution of x = A·x + b, in its own number of steps.

use std::fmt;

/// Largest number of variables accepted (before padding to a multiple of four).
pub const MAX_VARS: usize = 256;
/// Largest `repeat`.
pub const MAX_REPEAT: u32 = 64;
const MAX_INPUT: usize = 1 << 20;

/// One matrix of the expression, stored by rows over the original variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// `rows[r]` holds `(column, coefficient)` pairs, columns ascending, coefficients ≠ 0.
    pub rows: Vec<Vec<(usize, f64)>>,
    /// Whether the constant vector b is summed into this term's block rows.
    pub with_b: bool,
    /// Diagonal blocks must be row-major (Gauss-Seidel's updated values, seed §3.3).
    pub row_major_diagonal: bool,
}

impl Term {
    pub fn nnz(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }
}

/// y = Σ_t A_t·x + b over `m` variables (a multiple of four; padding rows are empty).
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    pub name: String,
    /// Variables as given, before padding.
    pub vars: usize,
    /// Variables after padding to a multiple of four.
    pub m: usize,
    pub terms: Vec<Term>,
    pub b: Vec<f64>,
    /// Evaluations of the expression per step (the costs are multiplied by it).
    pub repeat: u32,
}

impl System {
    /// A system from dense rows (`a[r][c]`), padded to a multiple of four.
    pub fn from_dense(name: &str, a: &[Vec<f64>], b: &[f64]) -> System {
        let rows = a
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .filter(|(_, v)| **v != 0.0)
                    .map(|(c, v)| (c, *v))
                    .collect()
            })
            .collect();
        System::new(name, rows, b.to_vec(), false, 1)
    }

    /// A system from sparse rows; `split` moves the entries left of the diagonal into a
    /// second, Gauss-Seidel term (in this order; a grouping re-splits by its order,
    /// [`System::layered`]).
    pub fn new(
        name: &str,
        rows: Vec<Vec<(usize, f64)>>,
        mut b: Vec<f64>,
        split: bool,
        repeat: u32,
    ) -> System {
        let vars = rows.len();
        let m = vars.div_ceil(4).max(1) * 4;
        let mut rows = rows;
        rows.resize(m, Vec::new());
        b.resize(m, 0.0);
        let terms = if split {
            let lower = rows
                .iter()
                .enumerate()
                .map(|(r, row)| row.iter().copied().filter(|(c, _)| *c < r).collect())
                .collect();
            let rest = rows
                .iter()
                .enumerate()
                .map(|(r, row)| row.iter().copied().filter(|(c, _)| *c >= r).collect())
                .collect();
            vec![
                Term {
                    rows: lower,
                    with_b: false,
                    row_major_diagonal: true,
                },
                Term {
                    rows: rest,
                    with_b: true,
                    row_major_diagonal: false,
                },
            ]
        } else {
            vec![Term {
                rows,
                with_b: true,
                row_major_diagonal: false,
            }]
        };
        System {
            name: name.to_string(),
            vars,
            m,
            terms,
            b,
            repeat,
        }
    }

    /// Blocks of four variables.
    pub fn groups(&self) -> usize {
        self.m / 4
    }

    pub fn nnz(&self) -> usize {
        self.terms.iter().map(Term::nnz).sum()
    }

    /// Scalar additions and multiplications of the plain evaluation (Table 2, column a):
    /// one multiplication per non-zero, one addition fewer per non-zero row, one more per
    /// non-zero b, times `repeat`.
    pub fn scalar_ops(&self) -> u64 {
        let mut ops = 0u64;
        for r in 0..self.m {
            let n: usize = self.terms.iter().map(|t| t.rows[r].len()).sum();
            ops += (2 * n).saturating_sub(1) as u64 * u64::from(n > 0);
            ops += u64::from(self.b[r] != 0.0);
            if n == 0 && self.b[r] != 0.0 {
                ops -= 1;
            }
        }
        ops * u64::from(self.repeat)
    }

    /// The coefficient a_rc of the whole expression (the terms summed).
    pub fn coef(&self, r: usize, c: usize) -> f64 {
        self.terms
            .iter()
            .flat_map(|t| t.rows[r].iter())
            .filter(|(cc, _)| *cc == c)
            .map(|(_, v)| v)
            .sum()
    }

    /// Whether this is a Gauss-Seidel system (`split lower`): its split follows the order.
    pub fn gauss_seidel(&self) -> bool {
        self.terms.len() == 2 && self.terms[0].row_major_diagonal
    }

    /// Every term's entries of each row together, columns ascending.
    pub fn whole_rows(&self) -> Vec<Vec<(usize, f64)>> {
        (0..self.m)
            .map(|r| {
                let mut row: Vec<(usize, f64)> = self
                    .terms
                    .iter()
                    .flat_map(|t| t.rows[r].iter().copied())
                    .collect();
                hoist_asm::sort::by_key(&mut row, |e| e.0);
                row
            })
            .collect()
    }

    /// The terms as evaluated in the order `perm` (`perm[p]` is the variable at position p):
    /// for a Gauss-Seidel system, a_rc is in the updated-values term (the first) iff c's
    /// position comes before r's (module header); other systems' terms do not depend on it.
    pub fn layered(&self, perm: &[usize]) -> Vec<Term> {
        if !self.gauss_seidel() {
            return self.terms.clone();
        }
        let mut pos = vec![0; self.m];
        for (p, &v) in perm.iter().enumerate() {
            pos[v] = p;
        }
        let whole = self.whole_rows();
        let pick = |before: bool| -> Vec<Vec<(usize, f64)>> {
            whole
                .iter()
                .enumerate()
                .map(|(r, row)| {
                    row.iter()
                        .copied()
                        .filter(|(c, _)| (pos[*c] < pos[r]) == before)
                        .collect()
                })
                .collect()
        };
        vec![
            Term {
                rows: pick(true),
                ..self.terms[0].clone()
            },
            Term {
                rows: pick(false),
                ..self.terms[1].clone()
            },
        ]
    }

    /// The system in the text format (`parse` reads it back).
    pub fn to_text(&self) -> String {
        let mut s = format!("name {}\n", self.name);
        if self.repeat != 1 {
            s += &format!("repeat {}\n", self.repeat);
        }
        if self.terms.len() == 2 {
            s += "split lower\n";
        }
        for r in 0..self.vars {
            let mut entries: Vec<(usize, f64)> = self
                .terms
                .iter()
                .flat_map(|t| t.rows[r].iter().copied())
                .collect();
            hoist_asm::sort::by_key(&mut entries, |e| e.0);
            let mut parts: Vec<String> = entries.iter().map(|(c, v)| format!("{c}:{v}")).collect();
            if self.b[r] != 0.0 {
                parts.push(format!("b:{}", self.b[r]));
            }
            s += &(if parts.is_empty() {
                "-".to_string()
            } else {
                parts.join(" ")
            });
            s.push('\n');
        }
        s
    }
}

/// Why a text could not be read: the line (1-based) and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

fn number(s: &str, line: usize) -> Result<f64, ParseError> {
    let v: f64 = s
        .parse()
        .map_err(|_| err(line, format!("`{s}` is not a number")))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(err(line, format!("`{s}` is not finite")))
    }
}

type Row = (Vec<(usize, f64)>, f64);

fn parse_row(text: &str, line: usize) -> Result<Row, ParseError> {
    let mut entries = Vec::new();
    let mut b = 0.0;
    if text == "-" {
        return Ok((entries, b));
    }
    for tok in text.split_whitespace() {
        let (k, v) = tok
            .split_once(':')
            .ok_or_else(|| err(line, format!("`{tok}` is not `column:coefficient`")))?;
        let v = number(v, line)?;
        if k == "b" {
            b = v;
            continue;
        }
        let c: usize = k
            .parse()
            .map_err(|_| err(line, format!("`{k}` is not a column index")))?;
        if c >= MAX_VARS {
            return Err(err(
                line,
                format!("column {c} exceeds the limit {MAX_VARS}"),
            ));
        }
        if entries.iter().any(|(cc, _)| *cc == c) {
            return Err(err(line, format!("column {c} is given twice")));
        }
        if v != 0.0 {
            entries.push((c, v));
        }
    }
    hoist_asm::sort::by_key(&mut entries, |e| e.0);
    Ok((entries, b))
}

/// Reads a system in the text format (module header).
pub fn parse(text: &str) -> Result<System, ParseError> {
    if text.len() > MAX_INPUT {
        return Err(err(0, format!("input exceeds {MAX_INPUT} bytes")));
    }
    let (mut name, mut repeat, mut split) = ("system".to_string(), 1u32, false);
    let (mut rows, mut b) = (Vec::new(), Vec::new());
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.split('#').next().unwrap_or("").trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("name ") {
            name = rest.trim().chars().take(64).collect();
        } else if let Some(rest) = t.strip_prefix("repeat ") {
            repeat = rest
                .trim()
                .parse()
                .ok()
                .filter(|r| (1..=MAX_REPEAT).contains(r))
                .ok_or_else(|| err(line, format!("repeat must be 1..={MAX_REPEAT}")))?;
        } else if t == "split lower" {
            split = true;
        } else {
            if rows.len() == MAX_VARS {
                return Err(err(line, format!("more than {MAX_VARS} rows")));
            }
            let (r, bv) = parse_row(t, line)?;
            rows.push(r);
            b.push(bv);
        }
    }
    if rows.is_empty() {
        return Err(err(0, "no rows"));
    }
    let n = rows.len();
    if let Some((r, c)) = rows
        .iter()
        .enumerate()
        .find_map(|(r, row)| row.iter().find(|(c, _)| *c >= n).map(|(c, _)| (r, *c)))
    {
        return Err(err(
            0,
            format!("row {r} names column {c}, but there are only {n} rows (the matrix is square)"),
        ));
    }
    Ok(System::new(&name, rows, b, split, repeat))
}

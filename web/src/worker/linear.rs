//! The playground's "Linear expression" mode (seed 003): a system y = A·x + b packed into
//! 4-wide instructions by `hoist_opt::linear`, shown as heat maps, costs and code, and
//! proven by execution.
//!
//! [`LinearDoc`] is the mode's part of the document (the system's text, the example it came
//! from, the dialect of the code). [`read`] parses the text under the page's size limit (the
//! main thread's diagnostics); [`run`] is the worker's job: the search
//! (`linear::optimize`), the code of both groupings (`linear::emit`), and the verdict: both
//! programs run in the executor (`hoist_raster::probe::run_vertices`, as
//! `crates/opt/tests/linear_exec.rs` does) on seeded random x, their y compared with each
//! other (up to the permutation) and with A·x + b in f64. The examples are the paper's
//! systems (`linear::paper`) and a Jacobi variant of its Gauss-Seidel Poisson system.

pub use crate::doc::examples::linear_example_doc as example_doc;
pub use crate::doc::linear_doc::*;
pub use crate::worker::linear_converge::ConvergenceView;
pub use crate::worker::linear_recover::RecoveredView;
use hoist_opt::linear::anneal::Rng;
use hoist_opt::linear::emit::{self, Emitted};
use hoist_opt::linear::{self, Grouping, Packing, Parts, SearchOptions, System, paper};
use serde::{Deserialize, Serialize};

/// Random x vectors the verdict runs (one vertex each).
pub const VECTORS: usize = 8;
/// Relative tolerance of a row: of Σ|a_rc·x_c| + |b_r| (f32 coefficients, sums reordered).
pub const REL_TOL: f64 = 1e-5;
/// Absolute slack added to every row's tolerance.
pub const ABS_TOL: f64 = 1e-6;
const X_SEED: u64 = 0x11C0_FFEE;

/// A problem as the editor's diagnostic, at its line (the whole text for line 0).
fn diagnostic(text: &str, p: Problem) -> hoist_asm::Diagnostic {
    let span = u32::try_from(p.line)
        .ok()
        .filter(|l| *l > 0)
        .map_or(hoist_asm::Span::NONE, |l| {
            crate::worker::scene_text::line_span(text, l)
        });
    hoist_asm::Diagnostic::error(hoist_asm::Code::LINEAR, p.message, span)
}

/// The text as the page's editor shows it. A system: no program, [`read`]'s problem (if
/// any) as a diagnostic on its line. A program: its parse, and when it parses, why no
/// system can be recovered from it (flow control, too many variables) at its line.
pub fn editor_side(doc: &LinearDoc) -> crate::worker::analysis::Side {
    let text = &doc.text;
    if doc.input == Input::Program && hoist_asm::detect_profile(text).is_some() {
        let mut side = crate::worker::analysis::Side::parse(text, None);
        if side.program.is_some()
            && !side.diagnostics.iter().any(|d| d.is_error())
            && let Err(p) = crate::worker::linear_recover::recover(text, &doc.register)
        {
            side.diagnostics.push(diagnostic(text, p));
        }
        return side;
    }
    let problem = match doc.input {
        Input::System => read(text).err(),
        Input::Program => crate::worker::linear_recover::recover(text, &doc.register).err(),
    };
    crate::worker::analysis::Side::only_diagnostics(
        problem.map(|p| diagnostic(text, p)).into_iter().collect(),
    )
}

/// How a block of A is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Eval {
    ColumnMajor,
    RowMajor,
    /// A Gauss-Seidel block row/column pair with one term of each.
    Mixed,
}

impl Eval {
    pub fn name(self) -> &'static str {
        match self {
            Eval::ColumnMajor => "column-major",
            Eval::RowMajor => "row-major",
            Eval::Mixed => "column- and row-major terms",
        }
    }
}

/// A non-empty 4×4 block of A under a grouping (block row `i`, block column `j`), its
/// terms together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockView {
    pub i: u16,
    pub j: u16,
    /// C^T summed over the terms (one evaluation).
    pub cost: u32,
    pub eval: Eval,
}

/// The cost with its parts (`linear::Parts`, which only serializes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    pub blocks: u32,
    pub sums: u32,
    pub column_major_blocks: u32,
    pub row_major_blocks: u32,
    pub repeat: u32,
    pub total: u32,
}

impl From<Parts> for Cost {
    fn from(p: Parts) -> Cost {
        Cost {
            blocks: p.blocks,
            sums: p.sums,
            column_major_blocks: p.column_major_blocks,
            row_major_blocks: p.row_major_blocks,
            repeat: p.repeat,
            total: p.total,
        }
    }
}

/// One grouping's side: its order, blocks, cost and code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// `order[p]`: the variable at position p (group p / 4, lane p % 4).
    pub order: Vec<usize>,
    pub blocks: Vec<BlockView>,
    pub cost: Cost,
    /// The program body (declarations and instructions).
    pub code: String,
    pub instructions: usize,
    /// Instructions beyond the model's cost (`linear::emit` names why).
    pub extra: usize,
    /// The MOVs that write y back in the original order (`emit::unpermute`), and how many
    /// exceed the one per output any order needs; in `code` when the document asks.
    #[serde(default)]
    pub unpermute_moves: usize,
    #[serde(default)]
    pub unpermute_extra: usize,
}

/// A method the search tried, and its best cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    pub method: String,
    pub cost: u32,
}

/// The paper's figures for an unedited example.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaperFigures {
    pub source: String,
    pub before: u32,
    pub after: u32,
}

/// Both programs run on the same x: how far their y are apart and from A·x + b.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub vectors: usize,
    pub rows: usize,
    /// Largest |y_original − y_packed| over rows and vectors (y by variable).
    pub max_delta: f64,
    /// Largest |y − (A·x + b)| of each program.
    pub max_error: [f64; 2],
    /// The row closest to (or furthest over) its tolerance, its largest deviation (between
    /// the programs or from A·x + b; NaN when a program computed NaN) and its tolerance.
    pub worst_row: usize,
    pub worst_delta: f64,
    pub worst_tolerance: f64,
    /// Every row of both programs is within its tolerance of the other and of A·x + b.
    pub equivalent: bool,
    /// Why a program could not run (then nothing else is meaningful).
    pub error: Option<String>,
}

impl Verdict {
    /// The verdict in a few words, for the page and `hoistReport()`.
    pub fn headline(&self) -> String {
        match &self.error {
            Some(e) => format!("not run: {e}"),
            None if self.equivalent => format!(
                "equivalent within {REL_TOL:e} × Σ|a·x| + {ABS_TOL:e} (max |Δ| {})",
                sci(self.max_delta)
            ),
            None => format!(
                "DIFFERENT at row {} (|Δ| {:.3e} > {:.3e})",
                self.worst_row, self.worst_delta, self.worst_tolerance
            ),
        }
    }
}

/// The worker's answer for a system.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub name: String,
    pub vars: usize,
    pub m: usize,
    pub nnz: usize,
    pub scalar_ops: u64,
    pub repeat: u32,
    /// (row, column, a_rc) of every non-zero, the terms summed.
    pub entries: Vec<(u16, u16, f64)>,
    pub before: Side,
    pub after: Side,
    pub lower_bound: u32,
    pub proven_optimal: bool,
    pub method: String,
    pub methods: Vec<Method>,
    pub anneal_moves: u64,
    pub exact_nodes: u64,
    pub paper: Option<PaperFigures>,
    pub d3d9: bool,
    pub verdict: Verdict,
    /// Instruction counts on real profiles, original order and packed
    /// (`linear::profile_cost`).
    #[serde(default)]
    pub profiles: Vec<ProfileRow>,
    /// For a program input: the recovered system, its variables and its check.
    #[serde(default)]
    pub recovered: Option<RecoveredView>,
    /// The code ends with the un-permute MOVs, and the verdict ran it.
    #[serde(default)]
    pub unpermute: bool,
    /// The seeds' answer, shown while the whole search runs; its result follows in the
    /// next event of the same job.
    pub searching: bool,
    /// The convergence was asked for and follows in a second event (same job).
    #[serde(default)]
    pub converging: bool,
    /// Both programs iterated to the fixed point ([`convergence`]).
    #[serde(default)]
    pub convergence: Option<Result<ConvergenceView, String>>,
}

/// One profile's instruction count before and after, with what the model leaves out there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRow {
    pub profile: String,
    pub before: u32,
    pub after: u32,
    pub rule: String,
}

/// The system of a document: its text read, or recovered from its program (with the
/// recovery's view, checked against the program in the executor).
pub fn load(doc: &LinearDoc) -> Result<(System, Option<RecoveredView>), String> {
    match doc.input {
        Input::System => read(&doc.text)
            .map(|s| (s, None))
            .map_err(|p| p.to_string()),
        Input::Program => {
            let (prog, rec) = crate::worker::linear_recover::recover(&doc.text, &doc.register)
                .map_err(|p| p.to_string())?;
            let view = crate::worker::linear_recover::view(&prog, &rec);
            Ok((rec.system, Some(view)))
        }
    }
}

/// The worker's job: search, code, verdict. `Err`: the text is not a system the page packs.
pub fn run(doc: &LinearDoc) -> Result<Outcome, String> {
    run_with(doc, &SearchOptions::default())
}

/// The job's first answer: the structured seeds' best grouping with its code and verdict,
/// marked `searching` (the whole search follows in the same job, [`run`]).
pub fn run_seeds(doc: &LinearDoc) -> Result<Outcome, String> {
    run_with(doc, &SearchOptions::seeds_only()).map(|mut o| {
        o.searching = true;
        o.converging = false;
        o
    })
}

fn run_with(doc: &LinearDoc, opts: &SearchOptions) -> Result<Outcome, String> {
    let (sys, recovered) = load(doc)?;
    let sol = linear::optimize(&sys, opts);
    let identity = Grouping::identity(sys.m);
    let before = side(&sys, &identity, doc);
    let after = side(&sys, &sol.grouping, doc);
    let verdict = verdict(&sys, &sol.grouping, doc.d3d9, doc.unpermute);
    let paper = (doc.is_example_text() && doc.input.is_system())
        .then(|| doc.example.as_deref().and_then(paper::case))
        .flatten()
        .map(|c| PaperFigures {
            source: c.source.to_string(),
            before: c.before,
            after: c.after,
        });
    Ok(Outcome {
        name: sys.name.clone(),
        vars: sys.vars,
        m: sys.m,
        nnz: sys.nnz(),
        scalar_ops: sys.scalar_ops(),
        repeat: sys.repeat,
        entries: entries(&sys),
        before,
        after,
        lower_bound: sol.lower_bound,
        proven_optimal: sol.proven_optimal,
        method: sol.method.clone(),
        methods: sol
            .candidates
            .iter()
            .map(|c| Method {
                method: c.method.clone(),
                cost: c.cost,
            })
            .collect(),
        anneal_moves: sol.anneal_moves,
        exact_nodes: sol.exact_nodes,
        paper,
        d3d9: doc.d3d9,
        verdict,
        profiles: sol
            .profiles_before
            .iter()
            .zip(&sol.profiles_after)
            .map(|(b, a)| ProfileRow {
                profile: b.profile.to_string(),
                before: b.instructions,
                after: a.instructions,
                rule: a.rule.to_string(),
            })
            .collect(),
        recovered,
        unpermute: doc.unpermute,
        converging: doc.converge && doc.input.is_system(),
        convergence: None,
        searching: false,
    })
}

/// The convergence of a document's system under the packed order `order`
/// (`crate::worker::linear_converge`). A program's recovered system is no iteration: refused.
pub fn converge(doc: &LinearDoc, order: &[usize]) -> Result<ConvergenceView, String> {
    if !doc.input.is_system() {
        return Err(
            "a system recovered from a program maps inputs to outputs; it is not iterated".into(),
        );
    }
    let sys = read(&doc.text).map_err(|p| p.to_string())?;
    let g = Grouping {
        perm: order.to_vec(),
    };
    if g.perm.len() != sys.m {
        return Err("the grouping does not belong to this system".into());
    }
    crate::worker::linear_converge::convergence(&sys, &g)
}

fn entries(sys: &System) -> Vec<(u16, u16, f64)> {
    let mut out = Vec::with_capacity(sys.nnz());
    for r in 0..sys.vars {
        let mut row: Vec<(usize, f64)> = sys
            .terms
            .iter()
            .flat_map(|t| t.rows[r].iter().copied())
            .collect();
        hoist_asm::sort::by_key(&mut row, |e| e.0);
        for (c, v) in row {
            match out.last_mut() {
                Some((lr, lc, lv)) if usize::from(*lr) == r && usize::from(*lc) == c => *lv += v,
                _ => out.push((r as u16, c as u16, v)),
            }
        }
    }
    out
}

fn side(sys: &System, g: &Grouping, doc: &LinearDoc) -> Side {
    let pk = Packing::new(sys, g);
    let n = sys.groups();
    let mut blocks = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let parts: Vec<_> = (0..sys.terms.len())
                .map(|t| pk.block_at(t, i, j))
                .filter(|b| b.cc > 0)
                .collect();
            if parts.is_empty() {
                continue;
            }
            let rm = parts.iter().filter(|b| b.row_major).count();
            let eval = match rm {
                0 => Eval::ColumnMajor,
                r if r == parts.len() => Eval::RowMajor,
                _ => Eval::Mixed,
            };
            blocks.push(BlockView {
                i: i as u16,
                j: j as u16,
                cost: parts.iter().map(|b| b.cost()).sum(),
                eval,
            });
        }
    }
    let e = code(sys, g, doc.d3d9);
    let outputs: Vec<usize> = (0..n).collect();
    let u = emit::unpermute(g, &outputs, doc.d3d9);
    let mut code = e.body;
    if doc.unpermute {
        code += &u.text;
    }
    Side {
        order: g.perm.clone(),
        blocks,
        cost: pk.parts().into(),
        code,
        instructions: e.instructions,
        extra: e.extra,
        unpermute_moves: u.moves,
        unpermute_extra: u.extra,
    }
}

fn code(sys: &System, g: &Grouping, d3d9: bool) -> Emitted {
    if d3d9 {
        emit::d3d9(sys, g)
    } else {
        emit::arb(sys, g)
    }
}

/// The seeded random x vectors of the verdict (by variable, padding included).
pub fn vectors(m: usize) -> Vec<Vec<f64>> {
    let mut rng = Rng::new(X_SEED);
    (0..VECTORS)
        .map(|_| (0..m).map(|_| rng.unit() * 2.0 - 1.0).collect())
        .collect()
}

/// Runs the program of grouping `g` on `xs` in the executor: y per vector, by variable
/// (`hoist_verify::linear::Runner`, which the tests and the command line use too).
/// `fixed`: the program ends with the un-permute MOVs, and y is read from the outputs in
/// the original order, with no permutation applied.
pub fn execute(
    sys: &System,
    g: &Grouping,
    xs: &[Vec<f64>],
    d3d9: bool,
    fixed: bool,
) -> Result<Vec<Vec<f64>>, String> {
    Ok(hoist_verify::linear::Runner::new(sys, g, d3d9, fixed)?.run(xs))
}

/// Runs the original and the packed program on [`vectors`] and compares their y.
pub fn verdict(sys: &System, packed: &Grouping, d3d9: bool, fixed: bool) -> Verdict {
    let xs = vectors(sys.m);
    let run = |g: &Grouping| execute(sys, g, &xs, d3d9, fixed);
    let (orig, pack) = match (run(&Grouping::identity(sys.m)), run(packed)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            return Verdict {
                error: Some(e),
                ..Verdict::default()
            };
        }
    };
    compare(sys, &xs, &orig, &pack)
}

/// The verdict of two runs' y against each other and against A·x + b in f64.
pub fn compare(sys: &System, xs: &[Vec<f64>], orig: &[Vec<f64>], pack: &[Vec<f64>]) -> Verdict {
    let mut v = Verdict {
        vectors: xs.len(),
        rows: sys.vars,
        equivalent: true,
        ..Verdict::default()
    };
    let mut worst_ratio = -1.0;
    for (k, x) in xs.iter().enumerate() {
        for r in 0..sys.vars {
            let terms = sys.terms.iter().flat_map(|t| t.rows[r].iter());
            let want: f64 = terms.clone().map(|(c, a)| a * x[*c]).sum::<f64>() + sys.b[r];
            let scale: f64 = terms.map(|(c, a)| (a * x[*c]).abs()).sum::<f64>() + sys.b[r].abs();
            let tol = REL_TOL * scale + ABS_TOL;
            let (o, p) = (orig[k][r], pack[k][r]);
            let delta = (o - p).abs();
            let errs = [(o - want).abs(), (p - want).abs()];
            v.max_delta = v.max_delta.max(delta);
            v.max_error = [v.max_error[0].max(errs[0]), v.max_error[1].max(errs[1])];
            // NaN fails every comparison: it is never within tolerance.
            let within = delta <= tol && errs.iter().all(|e| *e <= tol);
            v.equivalent &= within;
            let bad = [delta, errs[0], errs[1]].into_iter().fold(0.0f64, |m, e| {
                if m.is_nan() || e.is_nan() {
                    f64::NAN
                } else {
                    m.max(e)
                }
            });
            let ratio = if bad.is_nan() {
                f64::INFINITY
            } else {
                bad / tol
            };
            if ratio > worst_ratio {
                worst_ratio = ratio;
                v.worst_row = r;
                v.worst_delta = bad;
                v.worst_tolerance = tol;
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_systems_and_round_trip_as_text() {
        for e in EXAMPLES {
            let d = LinearDoc::example(e.name, false).unwrap();
            assert!(d.is_example_text());
            let (s, rec) = load(&d).unwrap_or_else(|m| panic!("{}: {m}", e.name));
            assert!(s.vars <= MAX_PAGE_VARS, "{}", e.name);
            assert_eq!(rec.is_some(), e.input() == Input::Program, "{}", e.name);
            if e.input() == Input::System {
                assert_eq!(system(e.name), Some(s), "{}", e.name);
            }
        }
        let j = system("jacobi").unwrap();
        let gs = system("gauss-seidel").unwrap();
        assert_eq!((j.terms.len(), gs.terms.len()), (1, 2));
        assert_eq!(j.nnz(), gs.nnz());
        for r in 0..gs.vars {
            for c in 0..gs.vars {
                assert_eq!(j.coef(r, c), gs.coef(r, c));
            }
        }
    }

    #[test]
    fn limits_and_errors_name_their_line() {
        let p = read("name t\n0:1 1:2\n1:x\n").unwrap_err();
        assert_eq!(p.line, 3, "{p:?}");
        let big: String = (0..MAX_PAGE_VARS + 3).map(|r| format!("{r}:1\n")).collect();
        let text = format!("# comment\nname big\n{big}");
        let p = read(&text).unwrap_err();
        assert_eq!(p.line, MAX_PAGE_VARS + 3, "{p:?}");
        assert!(p.message.contains("up to 64 variables"), "{p:?}");
        assert!(read(&"1".repeat(MAX_TEXT + 1)).is_err());
        let mut d = LinearDoc {
            text: "x".repeat(MAX_TEXT + 1),
            example: Some("nonesuch".into()),
            register: "r1".into(),
            ..LinearDoc::default()
        };
        assert!(d.sanitize().is_err());
        d.text = "0:1".into();
        d.sanitize().unwrap();
        assert_eq!(d.example, None);
        assert_eq!(d.register, "", "a system has no register");
        d.input = Input::Program;
        d.register = "r".repeat(crate::worker::linear_recover::MAX_REGISTER + 1);
        assert!(d.sanitize().is_err());
        d.register = " oC0 ".into();
        d.sanitize().unwrap();
    }

    #[test]
    fn the_editor_marks_the_broken_line() {
        use hoist_asm::diag::LineIndex;
        let text = "name t\n0:1 1:2\n  1:x  \n";
        let doc = |text: &str, input| LinearDoc {
            text: text.into(),
            input,
            ..LinearDoc::default()
        };
        let d = editor_side(&doc(text, Input::System)).diagnostics;
        assert_eq!(d.len(), 1);
        // The editor shows `error[linear]`.
        assert_eq!(d[0].code.to_string(), "linear");
        let at = LineIndex::new(text).line_col(d[0].span.start as usize);
        assert_eq!((at.line, at.col), (3, 3));
        assert_eq!(
            &text[d[0].span.start as usize..d[0].span.end as usize],
            "1:x"
        );
        assert!(editor_side(&LinearDoc::default()).diagnostics.is_empty());
        assert_eq!(editor_side(&doc("", Input::System)).diagnostics.len(), 1);
        // A program: its parse errors, and a refusal of the recovery at its line.
        let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\nmov r0, v0\nrep i0\nadd r0, r0, v0\nendrep\nmov o0, r0\n";
        let d = editor_side(&doc(vs, Input::Program)).diagnostics;
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            LineIndex::new(vs).line_col(d[0].span.start as usize).line,
            5
        );
        assert!(d[0].message.contains("flow control"), "{d:?}");
        let bad = "!!ARBvp1.0\nMOV result.position, vertex.nonesuch;\nEND\n";
        let d = editor_side(&doc(bad, Input::Program)).diagnostics;
        assert!(d.iter().any(|d| d.is_error()), "{d:?}");
        assert_eq!(
            editor_side(&doc("0:1\n", Input::Program)).diagnostics.len(),
            1
        );
        let ok = LinearDoc::example("yuv-texture", false).unwrap();
        assert!(editor_side(&ok).diagnostics.is_empty());
    }

    #[test]
    fn compare_finds_the_worst_row() {
        let sys = read("0:1 b:1\n1:2\n").unwrap();
        let xs = vec![vec![0.5, 0.25, 0.0, 0.0]];
        let good = vec![vec![1.5, 0.5, 0.0, 0.0]];
        let v = compare(&sys, &xs, &good, &good);
        assert!(v.equivalent && v.max_delta == 0.0, "{v:?}");
        let bad = vec![vec![1.5, 0.75, 0.0, 0.0]];
        let v = compare(&sys, &xs, &good, &bad);
        assert!(!v.equivalent);
        assert_eq!(v.worst_row, 1);
        assert!(
            v.headline().starts_with("DIFFERENT at row 1"),
            "{}",
            v.headline()
        );
        let nan = vec![vec![f64::NAN, 0.5, 0.0, 0.0]];
        let v = compare(&sys, &xs, &nan, &good);
        assert!(!v.equivalent);
        assert_eq!(v.worst_row, 0);
    }

    fn quick() -> SearchOptions {
        SearchOptions {
            exact_budget: 20_000,
            schedule: linear::anneal::Schedule {
                moves_per_var: 1,
                ..linear::anneal::Schedule::default()
            },
            ..SearchOptions::default()
        }
    }

    /// Every example, packed by the page's job, agrees with its original and with A·x + b
    /// in both dialects; the unedited paper systems carry the paper's figures.
    #[test]
    fn every_example_packs_and_agrees_in_both_dialects() {
        for e in EXAMPLES {
            let doc = LinearDoc::example(e.name, false).unwrap();
            let o = run(&doc).unwrap();
            assert!(o.verdict.equivalent, "{}: {}", e.name, o.verdict.headline());
            assert_eq!(o.verdict.rows, o.vars);
            assert!(o.after.cost.total <= o.before.cost.total);
            assert!(o.lower_bound <= o.after.cost.total);
            assert_eq!(
                o.proven_optimal,
                o.lower_bound == o.after.cost.total || o.proven_optimal
            );
            let blocks: u32 = o.after.blocks.iter().map(|b| b.cost).sum();
            assert_eq!(blocks, o.after.cost.blocks, "{}", e.name);
            assert_eq!(
                o.paper.is_some(),
                paper::case(e.name).is_some(),
                "{}",
                e.name
            );
            let (sys, rec) = load(&doc).unwrap();
            let g = Grouping {
                perm: o.after.order.clone(),
            };
            let v = verdict(&sys, &g, true, false);
            assert!(v.equivalent, "{} (D3D9): {}", e.name, v.headline());
            for d3d9 in [false, true] {
                let v = verdict(&sys, &g, d3d9, true);
                assert!(
                    v.equivalent,
                    "{} (un-permuted, d3d9 {d3d9}): {}",
                    e.name,
                    v.headline()
                );
            }
            if let Some(r) = rec {
                assert!(r.check.agrees(), "{}: {}", e.name, r.check.headline());
                assert_eq!(r.check.probes, crate::worker::linear_recover::PROBES);
            }
        }
        let fig13 = run(&LinearDoc::example("fig13", true).unwrap()).unwrap();
        assert_eq!((fig13.before.cost.total, fig13.after.cost.total), (38, 20));
        assert!(fig13.proven_optimal && fig13.after.code.contains("mad "));
    }

    /// Seeded random systems (sizes, densities, b, Gauss-Seidel splits, repeats): the
    /// packed code of the search's grouping agrees with the original in both dialects.
    #[test]
    fn random_systems_agree_after_packing() {
        let mut rng = Rng::new(0xC0DE_0011);
        for case in 0..24 {
            let n = 1 + rng.below(28);
            let density = 0.05 + rng.unit() * 0.5;
            let mut text = format!("name random{case}\n");
            if rng.below(4) == 0 {
                text += "split lower\n";
            }
            if rng.below(5) == 0 {
                text += &format!("repeat {}\n", 1 + rng.below(4));
            }
            for _ in 0..n {
                let mut row = Vec::new();
                for c in 0..n {
                    if rng.unit() < density {
                        row.push(format!("{c}:{:.3}", rng.unit() * 4.0 - 2.0));
                    }
                }
                if rng.below(2) == 0 {
                    row.push(format!("b:{:.3}", rng.unit() - 0.5));
                }
                text += &if row.is_empty() {
                    "-".to_string()
                } else {
                    row.join(" ")
                };
                text += "\n";
            }
            let sys = read(&text).unwrap_or_else(|p| panic!("{p}\n{text}"));
            let sol = linear::optimize(&sys, &quick());
            for d3d9 in [false, true] {
                let v = verdict(&sys, &sol.grouping, d3d9, false);
                assert!(v.equivalent, "{text}\n(d3d9 {d3d9}): {}", v.headline());
            }
        }
    }
}

//! The linear mode's "program" input (seed 003, issue 11): a straight-line ARB or Direct3D 9
//! vertex/fragment program whose outputs (or one named register) are y = A·x + b over its
//! inputs, host-set constants and the results of non-affine instructions
//! (`hoist_opt::linear::recover`, as `hoist linear FILE [--register R]` uses it).
//!
//! [`recover`] parses the text under the page's limits and recovers the system, with every
//! refusal (a parse error, flow control, too many variables) at its line. [`check`] proves
//! the recovery by execution, as `crates/opt/tests/linear_recover.rs` does: the program runs
//! in the executor on [`PROBES`] seeded random invocations (attributes, interpolants,
//! host-set constants, generated textures); each variable's value in the same invocations
//! is read by a probe (an input or constant by a MOV into an output, "the result of line
//! N" by the program cut after line N), and every row must equal A·x + b in f64 within
//! 1e-4 of Σ|a·x| + |b| plus 1e-5. Killed fragments and invocations where a variable the
//! rows use is not finite are left out and counted.

use crate::doc::linear_doc::{MAX_PAGE_VARS, MAX_TEXT, Problem};
use hoist_asm::{ParseOptions, Program};
use hoist_opt::linear::recover::{self, Origin, Recovered, Rows};
use hoist_raster::ATTRIBS;
use serde::{Deserialize, Serialize};

pub use crate::doc::linear_doc::MAX_REGISTER;
pub use hoist_verify::linear_recover::{PROBES, Probes, check};

/// One variable (column) of a recovered system, as the page lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariableView {
    /// `vertex.color.x`, `line 7 TEX .y`.
    pub name: String,
    /// The source line of a non-affine result (1-based); None for an input or constant.
    pub line: Option<usize>,
}

/// The recovered system as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveredView {
    /// `rows[r]` names row r (`result.color.y`); rows beyond are padding.
    pub rows: Vec<String>,
    /// Each row as its affine form over the named variables (`y3 = oC0.w = 1·c0.w`).
    pub forms: Vec<String>,
    pub variables: Vec<VariableView>,
    /// Variables that are results of non-affine instructions.
    pub nonlinear: usize,
    /// The system in the mode's text format.
    pub text: String,
    pub check: Probes,
}

/// The 1-based line a recovery message names (`line N: …`, `… by line N`).
fn line_of(message: &str) -> usize {
    let digits = |s: &str| -> Option<usize> {
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    message
        .match_indices("line ")
        .find_map(|(i, w)| digits(&message[i + w.len()..]))
        .unwrap_or(0)
}

/// Parses `text` and recovers the system of its outputs (`register` empty) or of the
/// register named `register`, held to the page's limits.
pub fn recover(text: &str, register: &str) -> Result<(Program, Recovered), Problem> {
    let whole = |message: String| Problem { line: 0, message };
    if text.len() > MAX_TEXT {
        return Err(whole(format!("the text exceeds {} KiB", MAX_TEXT / 1024)));
    }
    if hoist_asm::detect_profile(text).is_none() {
        return Err(Problem {
            line: 1,
            message: "no program header: start with !!ARBvp1.0, !!ARBfp1.0, vs_… or ps_…".into(),
        });
    }
    let parsed = hoist_asm::parse(text, &ParseOptions::default());
    let diags = parsed.diagnostics.clone();
    let prog = parsed.into_result().map_err(|_| {
        diags.iter().find(|d| d.is_error()).map_or_else(
            || whole("the program does not parse".into()),
            |d| Problem {
                line: d.position(text).line as usize,
                message: d.message.clone(),
            },
        )
    })?;
    let register = register.trim();
    let rows = if register.is_empty() {
        Rows::Outputs
    } else {
        Rows::Register(recover::register_named(&prog, register).ok_or_else(|| {
            whole(format!(
                "the program writes no register called `{register}`"
            ))
        })?)
    };
    let rec = recover::recover(&prog, text, rows).map_err(|e| {
        let line = line_of(&e.0);
        let prefix = format!("line {line}: ");
        Problem {
            line,
            message: e.0.strip_prefix(&prefix).unwrap_or(&e.0).to_string(),
        }
    })?;
    if rec.system.vars > MAX_PAGE_VARS {
        return Err(whole(format!(
            "{} rows and {} variables: the playground packs up to {MAX_PAGE_VARS} (x travels in \
             {ATTRIBS} vertex attributes of four)",
            rec.rows.len(),
            rec.variables.len()
        )));
    }
    Ok((prog, rec))
}

/// The page's view of `rec`, checked against `prog` in the executor.
pub fn view(prog: &Program, rec: &Recovered) -> RecoveredView {
    RecoveredView {
        rows: rec.rows.iter().map(|r| r.name.clone()).collect(),
        forms: forms(rec),
        variables: rec
            .variables
            .iter()
            .map(|v| VariableView {
                name: v.name.clone(),
                line: match v.origin {
                    Origin::Result { line, .. } => Some(line),
                    Origin::Register { .. } => None,
                },
            })
            .collect(),
        nonlinear: rec.nonlinear,
        text: rec.system.to_text(),
        check: check(prog, rec),
    }
}

/// Each row as `y_r = name = Σ a·variable + b`, the numbers in their shortest f32
/// spelling (the coefficients come from f32 literals; the system keeps them in f64).
fn forms(rec: &Recovered) -> Vec<String> {
    let num = |v: f64| format!("{}", v as f32);
    let sys = &rec.system;
    rec.rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let mut parts: Vec<String> = sys.terms[0].rows[r]
                .iter()
                .map(|(c, a)| format!("{}·{}", num(*a), rec.variables[*c].name))
                .collect();
            if sys.b[r] != 0.0 || parts.is_empty() {
                parts.push(num(sys.b[r]));
            }
            format!("y{r} = {} = {}", row.name, parts.join(" + "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_their_line() {
        assert_eq!(line_of("line 12: flow control — only"), 12);
        assert_eq!(line_of("more than 256 variables by line 7"), 7);
        assert_eq!(line_of("the program writes no output"), 0);
        let flow = "!!ARBvp1.0\nTEMP t;\nMOV t, vertex.position;\nBRA end;\nend:\nMOV result.position, t;\nEND\n";
        if let Err(p) = recover(flow, "") {
            assert!(p.line > 0, "{p:?}");
        }
        let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\nmov r0, v0\nif_lt r0.x, r0.y\nmov r0, -r0\nendif\nmov o0, r0\n";
        let p = recover(vs, "").unwrap_err();
        assert_eq!(p.line, 5, "{p:?}");
        assert!(p.message.starts_with("flow control"), "{p:?}");
        assert!(p.to_string().starts_with("line 5: flow control"), "{p}");
        let p = recover(
            "!!ARBvp1.0\nMOV result.position, vertex.nonesuch;\nEND\n",
            "",
        )
        .unwrap_err();
        assert_eq!(p.line, 2, "{p:?}");
        assert_eq!(recover("0:1\n", "").unwrap_err().line, 1);
        let p = recover(
            "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n",
            "r9",
        )
        .unwrap_err();
        assert!(p.message.contains("`r9`"), "{p:?}");
    }

    #[test]
    fn a_wrong_system_is_caught_by_the_probes() {
        let src = "!!ARBvp1.0\nPARAM k = {2, 3, 4, 5};\nMAD result.position, vertex.position, k, k;\nEND\n";
        let (prog, mut rec) = recover(src, "").unwrap();
        let ok = check(&prog, &rec);
        assert!(ok.agrees() && ok.probes == PROBES, "{ok:?}");
        let v = view(&prog, &rec);
        assert_eq!(
            crate::worker::linear::read(&v.text).unwrap(),
            rec.system,
            "{}",
            v.text
        );
        assert_eq!(v.rows[0], "result.position.x");
        assert!(v.forms[0].contains("2·vertex.position.x"), "{:?}", v.forms);
        rec.system.b[1] += 0.5;
        let bad = check(&prog, &rec);
        assert!(!bad.agrees(), "{bad:?}");
        assert!(bad.headline().contains("DISAGREES"), "{}", bad.headline());
    }
}

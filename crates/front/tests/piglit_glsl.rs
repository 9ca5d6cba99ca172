//! piglit's GLSL shader_tests (`../shared/corpus/piglit-glsl`: the 870 vertex + fragment
//! tests of GLSL 1.10–1.50, ES 1.00 and ES 3.00), run as `hoist run` runs them: the GLSL
//! pair compiled through naga to ARB (or D3D9 where ARB cannot hold it), the `uniform`
//! lines as parameters, the probes written by piglit's authors checked on the executor's
//! image. Every test that compiles and runs must pass all its probes; the others are
//! counted by reason. `docs/piglit-glsl.md` is the table this test writes
//! (`BLESS=1 cargo test -p hoist-front --test piglit_glsl` regenerates it; the test fails
//! when it is stale). Skips with a notice when `../shared` is absent.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

use hoist_front::Options;
use hoist_raster::scene::{self, RunOptions};
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Tests that compile and run but differ from piglit's expectation for a documented
/// reason: (test, reason). The test asserts they still fail, so a fix is noticed.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "spec/glsl-1.30/execution/vs-mix-bvec4-infnan.shader_test",
    "ARB vertex programs have no compare-and-select: a select is a·c + b·(1 − c), and an \
     infinite or NaN operand on the side not selected makes it NaN",
)];

/// What happened to one test.
#[derive(Clone, Debug)]
enum Outcome {
    /// Compiled, ran, every probe passed (probes, dialect).
    Pass(usize, &'static str),
    /// Compiled and ran, some probe failed.
    Fail(String),
    /// Did not fit, with the reason (grouped).
    Refused(String),
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("corpus dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "shader_test") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A message reduced to its kind: names in quotes or backticks, numbers and what follows
/// a colon of naga's detail dropped, so one reason groups many tests.
fn reason(code: &str, msg: &str) -> String {
    let mut s = String::new();
    let mut quote: Option<char> = None;
    for ch in msg.chars() {
        match (quote, ch) {
            (None, '`' | '"' | '\'') => {
                quote = Some(ch);
                s.push_str("`…`");
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            // A number on its own (not a digit inside a word such as `d3d9`).
            (None, c)
                if c.is_ascii_digit()
                    && (s.ends_with('N')
                        || !s.chars().next_back().is_some_and(|p| p.is_alphanumeric())) =>
            {
                if !s.ends_with('N') {
                    s.push('N');
                }
            }
            (None, c) => s.push(c),
        }
    }
    let s = s.lines().next().unwrap_or("").trim().to_string();
    let s = match s.find(" at ") {
        Some(p) if code == "F0001" => s[..p].to_string(),
        _ => s,
    };
    let s: String = s.chars().take(140).collect();
    format!("{code}: {s}")
}

fn run_one(text: &str) -> Outcome {
    let opts = RunOptions::default();
    let parsed = match hoist_front::scene::parse(text, &opts.caps, &Options::default()) {
        Ok(p) => p,
        Err(d) => return Outcome::Refused(reason(&d[0].code.to_string(), &d[0].message)),
    };
    let dialect = match parsed.translated.as_ref().map(|t| t.compiled.dialect) {
        Some(hoist_asm::Dialect::D3d9) => "D3D9",
        _ => "ARB",
    };
    match scene::run(&parsed.scene, &opts) {
        Ok(r) => {
            let failed: Vec<String> = r
                .probes
                .iter()
                .filter(|p| !p.pass)
                .map(|p| p.to_string())
                .collect();
            if failed.is_empty() {
                Outcome::Pass(r.probes.len(), dialect)
            } else {
                Outcome::Fail(format!("{dialect}: {}", failed.join("; ")))
            }
        }
        Err(e) => Outcome::Refused(reason("run", &e.to_string())),
    }
}

fn group(rel: &str) -> String {
    let mut parts = rel.split('/');
    let _ = parts.next();
    parts.next().unwrap_or("").to_string()
}

#[test]
fn piglit_glsl_tests_that_compile_pass_their_probes() {
    let Some(dir) = oracles::shared("corpus/piglit-glsl/tests") else {
        oracles::skip("../shared/corpus/piglit-glsl is absent");
        return;
    };
    let all = files(&dir);
    let mut results: Vec<(String, Outcome)> = Vec::new();
    for f in &all {
        let rel = f
            .strip_prefix(&dir)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned();
        let text = String::from_utf8_lossy(&std::fs::read(f).expect("read")).into_owned();
        if std::env::var_os("HOIST_PIGLIT_VERBOSE").is_some() {
            eprintln!("{rel}");
        }
        let o = catch_unwind(AssertUnwindSafe(|| run_one(&text)))
            .unwrap_or_else(|_| Outcome::Fail("PANIC".into()));
        results.push((rel, o));
    }
    let doc = report(&results);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/piglit-glsl.md");
    if std::env::var("BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, &doc).expect("write docs/piglit-glsl.md");
    }
    let known = |f: &str| KNOWN_DIFFERENCES.iter().any(|(k, _)| *k == f);
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(f, o)| match o {
            Outcome::Fail(m) if !known(f) => Some(format!("{f}: {m}")),
            _ => None,
        })
        .collect();
    for (k, why) in KNOWN_DIFFERENCES {
        let o = results.iter().find(|(f, _)| f == k).map(|(_, o)| o);
        assert!(
            matches!(o, Some(Outcome::Fail(_))),
            "{k} was a known difference ({why}) and is now {o:?}: update KNOWN_DIFFERENCES"
        );
    }
    let pass = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Pass(..)))
        .count();
    let failing = results
        .iter()
        .filter(|(_, o)| matches!(o, Outcome::Fail(_)))
        .count();
    println!(
        "piglit GLSL: {} tests, {pass} compile and pass, {failing} fail ({} of them known \
         differences), {} refused",
        results.len(),
        KNOWN_DIFFERENCES.len(),
        results.len() - pass - failing
    );
    assert!(
        failures.is_empty(),
        "{} tests compile but fail probes:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == doc,
        "docs/piglit-glsl.md is stale: BLESS=1 cargo test -p hoist-front --test piglit_glsl"
    );
}

/// The generated document: totals, by directory, reasons with counts and an example.
fn report(results: &[(String, Outcome)]) -> String {
    let total = results.len();
    let mut by_dir: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut reasons: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let (mut pass, mut fail, mut probes, mut d3d9) = (0, 0, 0, 0);
    for (f, o) in results {
        let e = by_dir.entry(group(f)).or_default();
        e[0] += 1;
        match o {
            Outcome::Pass(n, d) => {
                pass += 1;
                probes += n;
                e[1] += 1;
                if *d == "D3D9" {
                    d3d9 += 1;
                }
            }
            Outcome::Fail(_) => {
                fail += 1;
                e[2] += 1;
            }
            Outcome::Refused(r) => {
                e[3] += 1;
                reasons.entry(r.clone()).or_default().push(f);
            }
        }
    }
    let mut s = String::from("# piglit's GLSL shader tests through hoist-front\n\n");
    s.push_str(
        "Generated by `crates/front/tests/piglit_glsl.rs` (`BLESS=1 cargo test -p hoist-front \
         --test piglit_glsl` regenerates it; the test fails when it is stale). The corpus is \
         `../shared/corpus/piglit-glsl`: every piglit `shader_test` of GLSL 1.10–1.50, ES 1.00 \
         and ES 3.00 with a vertex and a fragment stage. Each runs as `hoist run` runs it: \
         the GLSL pair through naga to ARB assembly (D3D9 `vs_3_0`/`ps_3_0` where ARB cannot \
         hold it), `uniform` lines as parameters, and piglit's probes checked on the \
         executor's image. Every test that compiles and runs must pass all its probes.\n\n",
    );
    s.push_str(&format!(
        "**{total} tests: {pass} compile and pass all their {probes} probes ({} as ARB, {d3d9} \
         as D3D9), {fail} fail, {} do not fit.**\n\n",
        pass - d3d9,
        total - pass - fail
    ));
    s.push_str("| directory | tests | pass | fail | do not fit |\n|---|---|---|---|---|\n");
    for (d, c) in &by_dir {
        s.push_str(&format!(
            "| {d} | {} | {} | {} | {} |\n",
            c[0], c[1], c[2], c[3]
        ));
    }
    s.push_str("\n## Known differences\n\nTests that compile and run but do not give piglit's values, for a reason of the target:\n\n");
    for (k, why) in KNOWN_DIFFERENCES {
        s.push_str(&format!("- `{k}`: {why}.\n"));
    }
    s.push_str("\n## Why the others do not fit\n\n");
    s.push_str(
        "Reasons as the front end or the scene reader gives them (names and numbers \
         elided), most frequent first, with one example each. `F0001`/`F0002`: naga \
         rejects the (adapted) GLSL; `F0010`: the adaptation of legacy GLSL; `F0100`: what \
         the assembly targets cannot express; `F0202`–`F0206`: the scene (several \
         compilation units, `link error` tests, commands and sections the scene runner does \
         not have); `run`: the executor.\n\n",
    );
    s.push_str("| tests | reason | example |\n|---|---|---|\n");
    let mut rs: Vec<(&String, &Vec<&str>)> = reasons.iter().collect();
    rs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    for (r, fs) in rs {
        let r = r.replace('|', "\\|");
        s.push_str(&format!("| {} | {r} | `{}` |\n", fs.len(), fs[0]));
    }
    s
}

//! Conformance of the ARB front end against piglit's ARB material in `../shared`:
//!
//! - `asmparsertest/shaders/ARBvp1.0` and `ARBfp1.0`: a file containing `# FAIL` must be
//!   rejected; a file that names an `OPTION` outside the ARB set (`NV_*`, ...) needs an
//!   extension Hoist does not implement and is counted as skipped; every other file must
//!   parse. Files are parsed as the profile of their directory.
//! - `spec/arb_*/**.shader_test`: every `[vertex program]` / `[fragment program]` section
//!   must parse.
//!
//! Every accepted program must survive `parse(print(p))`. The counts are asserted exactly
//! and printed (`--nocapture`). Without `../shared` (a user's clone) the test is a no-op.

use hoist_asm::{Limits, ParseOptions, Profile, parse, print};
use std::path::{Path, PathBuf};

#[path = "../../../tests/support/oracles.rs"]
mod oracles;
use oracles::skip;

fn shared() -> Option<PathBuf> {
    oracles::shared("corpus/piglit/tests").filter(|p| p.is_dir())
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// Options named by `OPTION` lines that are not ARB options.
fn foreign_options(src: &str) -> Vec<String> {
    src.lines()
        .filter_map(|l| {
            let code = l.split('#').next().unwrap_or("");
            let mut words = code.split_whitespace();
            (words.next() == Some("OPTION"))
                .then(|| words.next().unwrap_or("").trim_end_matches(';').to_string())
        })
        .filter(|name| !name.starts_with("ARB_"))
        .collect()
}

fn first_error(src: &str, diags: &[hoist_asm::Diagnostic]) -> String {
    diags
        .iter()
        .find(|d| d.is_error())
        .map(|d| {
            let at = d.position(src);
            format!("{}:{}: [{}] {}", at.line, at.col, d.code, d.message)
        })
        .unwrap_or_else(|| "no error".into())
}

/// Parses, prints, reparses; returns why it failed, if it did.
fn accept(src: &str, profile: Profile, limits: &Limits) -> Result<(), String> {
    let opts = ParseOptions {
        profile: Some(profile),
        limits: Some(limits.clone()),
    };
    let parsed = parse(src, &opts);
    let diags = parsed.diagnostics.clone();
    let p = parsed.into_result().map_err(|_| first_error(src, &diags))?;
    let text = print(&p);
    let again = parse(&text, &opts);
    let again_diags = again.diagnostics.clone();
    let q = again.into_result().map_err(|_| {
        format!(
            "printed program does not parse: {}\n{text}",
            first_error(&text, &again_diags)
        )
    })?;
    if !q.eq_ignoring_spans(&p) {
        return Err(format!("round trip changed the program:\n{text}"));
    }
    if print(&q) != text {
        return Err("printing is not idempotent".into());
    }
    Ok(())
}

#[derive(Default, Debug, PartialEq)]
struct Counts {
    accepted: usize,
    rejected: usize,
    skipped: usize,
}

fn asmparser(root: &Path, dir: &str, profile: Profile, wrong: &mut Vec<String>) -> Counts {
    let mut list = Vec::new();
    files(
        &root.join("asmparsertest/shaders").join(dir),
        "txt",
        &mut list,
    );
    let mut c = Counts::default();
    let limits = profile.limits();
    for f in list {
        let src = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        let name = format!("{dir}/{}", f.file_name().unwrap().to_string_lossy());
        if src.contains("# FAIL") {
            let opts = ParseOptions {
                profile: Some(profile),
                limits: None,
            };
            if parse(&src, &opts).into_result().is_ok() {
                wrong.push(format!("{name}: marked FAIL but accepted"));
            }
            c.rejected += 1;
        } else if !foreign_options(&src).is_empty() {
            c.skipped += 1;
        } else {
            if let Err(why) = accept(&src, profile, &limits) {
                wrong.push(format!("{name}: {why}"));
            }
            c.accepted += 1;
        }
    }
    c
}

/// The `[vertex program]` / `[fragment program]` sections of a shader_test file.
fn sections(src: &str) -> Vec<(Profile, String)> {
    let mut out: Vec<(Profile, String)> = Vec::new();
    let mut cur: Option<(Profile, String)> = None;
    for line in src.lines() {
        if line.starts_with('[') {
            out.extend(cur.take());
            cur = match line.trim() {
                "[vertex program]" => Some((Profile::ArbVp1, String::new())),
                "[fragment program]" => Some((Profile::ArbFp1, String::new())),
                _ => None,
            };
        } else if let Some((_, text)) = &mut cur {
            text.push_str(line);
            text.push('\n');
        }
    }
    out.extend(cur);
    out
}

/// Limits of Mesa's software drivers, which piglit's ARB tests are written against
/// (`big-param` binds 1021 local parameters).
fn mesa_limits(profile: Profile) -> Limits {
    Limits {
        source: "Mesa software rasterizer".into(),
        consts: 1024,
        env_params: 256,
        local_params: 1024,
        ..profile.limits()
    }
}

#[test]
fn piglit_arb_corpus() {
    let Some(root) = shared() else {
        skip("the piglit corpus is not next to the repository (../shared)");
        return;
    };
    let mut wrong = Vec::new();
    let vp = asmparser(&root, "ARBvp1.0", Profile::ArbVp1, &mut wrong);
    let fp = asmparser(&root, "ARBfp1.0", Profile::ArbFp1, &mut wrong);

    let mut tests = Vec::new();
    for d in ["arb_vertex_program", "arb_fragment_program"] {
        files(&root.join("spec").join(d), "shader_test", &mut tests);
    }
    let (mut vp_sections, mut fp_sections, mut default_limit_failures) = (0, 0, Vec::new());
    for f in &tests {
        let src = std::fs::read_to_string(f).unwrap();
        for (profile, text) in sections(&src) {
            match profile {
                Profile::ArbVp1 => vp_sections += 1,
                _ => fp_sections += 1,
            }
            let name = f.strip_prefix(&root).unwrap().display().to_string();
            if let Err(why) = accept(&text, profile, &mesa_limits(profile)) {
                wrong.push(format!("{name} [{profile}]: {why}"));
            }
            if accept(&text, profile, &profile.limits()).is_err() {
                default_limit_failures.push(name);
            }
        }
    }

    println!("ARBvp1.0 asmparsertest: {vp:?}");
    println!("ARBfp1.0 asmparsertest: {fp:?}");
    println!(
        "spec shader_test: {} files, {vp_sections} vertex and {fp_sections} fragment sections parsed",
        tests.len()
    );
    println!("over the default (R300) limits, accepted with Mesa's: {default_limit_failures:?}");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(
        vp,
        Counts {
            accepted: 30,
            rejected: 71,
            skipped: 16
        }
    );
    assert_eq!(
        fp,
        Counts {
            accepted: 17,
            rejected: 90,
            skipped: 10
        }
    );
    assert_eq!(tests.len(), 80);
    assert_eq!((vp_sections, fp_sections), (80, 18));
    assert_eq!(
        default_limit_failures,
        vec!["spec/arb_vertex_program/big-param.shader_test"]
    );
}

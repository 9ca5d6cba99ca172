//! Direct3D 9 front end, printer and rules over the programs in `tests/d3d9/`.
//!
//! Every `*.vsh`/`*.psh` must parse without errors, validate, and survive
//! `parse(print(p)) == p`. Files under `tests/d3d9/bad/` must fail; their first line is
//! `; expect: CODE CODE ...` listing every error code the file must produce.

use hoist_asm::{ParseOptions, Profile, detect_profile, parse, print};
use std::path::Path;

fn files(dir: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("vsh" | "psh")))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn good_programs_parse_validate_and_round_trip() {
    let all = files("tests/d3d9");
    assert!(all.len() >= 4);
    for (name, src) in all {
        let parsed = parse(&src, &ParseOptions::default());
        let errs: Vec<_> = parsed
            .errors()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        assert!(errs.is_empty(), "{name}: {errs:#?}");
        let p = parsed.program.unwrap();
        let text = print(&p);
        let again = parse(&text, &ParseOptions::default());
        let errs: Vec<_> = again
            .errors()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        assert!(errs.is_empty(), "{name} reprinted:\n{text}\n{errs:#?}");
        let q = again.program.unwrap();
        assert!(
            p.eq_ignoring_spans(&q),
            "{name}: round trip differs\n{text}"
        );
        assert_eq!(print(&q), text, "{name}: printing is not a fixed point");
    }
}

#[test]
fn bad_programs_report_the_expected_errors() {
    let all = files("tests/d3d9/bad");
    assert!(!all.is_empty());
    let mut failures: Vec<String> = Vec::new();
    for (name, src) in all {
        let first = src.lines().next().unwrap();
        let want: Vec<&str> = first
            .strip_prefix("; expect:")
            .unwrap_or_else(|| panic!("{name}: first line must be `; expect: ...`"))
            .split_whitespace()
            .collect();
        let profile = detect_profile(&src).or(Some(Profile::Vs2_0));
        let parsed = parse(
            &src,
            &ParseOptions {
                profile,
                limits: None,
            },
        );
        let got: Vec<String> = parsed.errors().map(|d| d.code.to_string()).collect();
        assert!(
            parsed.program.is_none(),
            "{name}: parsed although it has errors"
        );
        let msgs: Vec<String> = parsed
            .errors()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
        for w in &want {
            if !got.iter().any(|g| g == w) {
                failures.push(format!("{name}: expected {w}, got {msgs:#?}"));
            }
        }
        for g in &got {
            if !want.iter().any(|w| w == g) {
                failures.push(format!("{name}: unexpected {g} in {msgs:#?}"));
            }
        }
        for d in parsed.errors() {
            assert!(!d.span.is_none(), "{name}: {} has no span", d.code);
            assert!(
                d.span.end as usize <= src.len(),
                "{name}: span past the end"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

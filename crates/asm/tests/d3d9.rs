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

/// D3D9 keeps a vertex shader's samplers apart from the pixel shader's: a vs_3_0 `s#` is
/// unit `VERTEX_SAMPLER_BASE + #` in the IR, a ps `s#` unit `#`, and both print back as
/// `s#`; diagnostics name the register as written.
#[test]
fn vertex_samplers_have_their_own_units() {
    use hoist_asm::Stage;
    use hoist_asm::ir::{TexTarget, VERTEX_SAMPLER_BASE, sampler_index, sampler_unit, unit_name};
    let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord o1\ndcl_2d s0\n\
              dcl_cube s3\ntexldl r0, v0, s0\ntexldl r1, v0, s3\nmov o0, v0\nadd o1, r0, r1\n";
    let p = parse(vs, &ParseOptions::default()).program.unwrap();
    let decls: Vec<(u8, TexTarget)> = p.samplers.iter().map(|s| (s.unit, s.target)).collect();
    assert_eq!(decls, [(16, TexTarget::T2D), (19, TexTarget::Cube)]);
    let used: Vec<u8> = p
        .insts
        .iter()
        .filter_map(|i| i.tex.map(|t| t.unit))
        .collect();
    assert_eq!(used, [16, 19]);
    let text = print(&p);
    for line in [
        "dcl_2d s0",
        "dcl_cube s3",
        "texldl r0, v0, s0",
        "texldl r1, v0, s3",
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
    assert!(!text.contains("s16") && !text.contains("s19"), "{text}");

    let ps = "ps_3_0\ndcl_texcoord v0\ndcl_2d s0\ntexld r0, v0, s0\nmov oC0, r0\n";
    let q = parse(ps, &ParseOptions::default()).program.unwrap();
    assert_eq!(q.samplers[0].unit, 0);
    assert_eq!(q.insts[0].tex.unwrap().unit, 0);

    // The vertex sampler limit (4) counts registers, not units.
    let over =
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_2d s4\ntexldl r0, v0, s4\nmov o0, r0\n";
    let msgs: Vec<String> = parse(over, &ParseOptions::default())
        .errors()
        .map(|d| d.message.clone())
        .collect();
    assert!(!msgs.is_empty() && msgs.iter().all(|m| !m.contains("16") && !m.contains("20")));
    let undeclared =
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_2d s0\ntexldl r0, v0, s1\nmov o0, r0\n";
    let msgs: Vec<String> = parse(undeclared, &ParseOptions::default())
        .errors()
        .map(|d| d.message.clone())
        .collect();
    assert!(msgs.iter().any(|m| m.contains("s1")), "{msgs:?}");

    assert_eq!(sampler_unit(Stage::Vertex, 2), VERTEX_SAMPLER_BASE + 2);
    assert_eq!(sampler_index(Stage::Vertex, VERTEX_SAMPLER_BASE + 2), 2);
    assert_eq!(sampler_unit(Stage::Fragment, 2), 2);
    assert_eq!(unit_name(3), "unit 3");
    assert_eq!(unit_name(17), "vertex sampler s1 (unit 17)");
}

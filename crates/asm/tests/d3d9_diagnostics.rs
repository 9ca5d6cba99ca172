//! The full text of the Direct3D 9 diagnostics: every file under `tests/d3d9/bad/` is
//! parsed and its diagnostics rendered as `hoist check` prints them (code, message, label,
//! related spans, notes, hint); the result must equal `tests/d3d9/bad.diagnostics`.
//! `BLESS=1 cargo test -p hoist-asm --test d3d9_diagnostics` rewrites that file.

#[path = "../../../tests/support/golden.rs"]
mod golden;
use hoist_asm::{ParseOptions, Profile, detect_profile, diag, parse};
use std::path::Path;

fn rendered() -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/d3d9/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("vsh" | "psh")))
        .collect();
    files.sort();
    let mut out = String::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let profile = detect_profile(&src).or(Some(Profile::Vs2_0));
        let parsed = parse(
            &src,
            &ParseOptions {
                profile,
                limits: None,
            },
        );
        out.push_str(&format!("==> {name}\n"));
        out.push_str(&diag::render(&parsed.diagnostics, &name, &src, false));
    }
    out
}

#[test]
fn bad_programs_render_the_expected_diagnostics() {
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/d3d9/bad.diagnostics");
    golden::check(
        &expected,
        &rendered(),
        "cargo test -p hoist-asm --test d3d9_diagnostics",
    );
}

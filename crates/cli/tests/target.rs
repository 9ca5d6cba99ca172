//! ARB targets end to end: a long ARB fragment program exceeds the R300's limits (E0301 with
//! a hint naming the smallest target it fits), parses and optimizes, validated, under a
//! larger target, and `--target` reaches `check`, `opt` and `render`.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ArbTarget, ParseOptions, Stage};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";

/// An ARB fragment program of `n` instructions (`n - 3` of them a MAD chain) using `temps`
/// temporaries; its first instruction reads only an interpolant, so it can move.
fn long_fp(n: usize, temps: usize) -> String {
    let names: Vec<String> = (0..temps).map(|i| format!("t{i}")).collect();
    let mut s = format!(
        "!!ARBfp1.0\nPARAM k = {{ 0.5, 0.25, 0.125, 1 }};\nTEMP a, {};\n",
        names.join(", ")
    );
    s.push_str("MUL a, fragment.texcoord[0], k;\n");
    s.push_str("TEX t0, a, texture[0], 2D;\n");
    for i in 0..n - 3 {
        let (d, src) = (&names[(i + 1) % temps], &names[i % temps]);
        s.push_str(&format!("MAD {d}, {src}, k, a;\n"));
    }
    s.push_str(&format!(
        "MOV result.color, {};\nEND\n",
        names[(n - 3) % temps]
    ));
    s
}

fn parse(src: &str, target: ArbTarget) -> hoist_asm::Parsed {
    hoist_asm::parse(src, &ParseOptions::default().with_target(src, target))
}

fn codes(p: &hoist_asm::Parsed) -> Vec<String> {
    p.diagnostics.iter().map(|d| d.code.to_string()).collect()
}

#[test]
fn a_long_fragment_program_needs_a_larger_target() {
    let fp = long_fp(500, 2);
    let r300 = parse(&fp, ArbTarget::R300);
    // Over the total (96) and the ALU (64) limits, named after the R300.
    assert_eq!(codes(&r300), ["E0301", "E0301"]);
    assert!(r300.diagnostics[0].notes[0].contains("R300"));
    assert_eq!(
        hoist_asm::fitting_target(&fp, None, ArbTarget::R300),
        Some(ArbTarget::Nv40)
    );
    for t in [ArbTarget::Nv40, ArbTarget::G80] {
        let p = parse(&fp, t).into_result().expect("fits");
        assert_eq!(p.insts.len(), 500);
    }
    // 40 temporaries: over NV40's 32 as well, so only G80 fits.
    let many = long_fp(500, 40);
    assert_eq!(codes(&parse(&many, ArbTarget::Nv40)), ["E0302"]);
    assert_eq!(
        hoist_asm::fitting_target(&many, None, ArbTarget::R300),
        Some(ArbTarget::G80)
    );
    assert!(parse(&many, ArbTarget::G80).diagnostics.is_empty());
}

#[test]
fn a_long_fragment_program_optimizes_validated_under_g80() {
    let fp_src = long_fp(500, 2);
    let vp = parse(VP, ArbTarget::G80).into_result().unwrap();
    let fp = parse(&fp_src, ArbTarget::G80).into_result().unwrap();
    let opts = hoist_opt::Options {
        vp_limits: Some(ArbTarget::G80.limits(Stage::Vertex)),
        fp_limits: Some(ArbTarget::G80.limits(Stage::Fragment)),
        ..hoist_opt::Options::default()
    };
    let cfg = hoist_verify::Config::default();
    let v = hoist_verify::optimize(&vp, &fp, &opts, Some(&cfg)).expect("optimizes");
    assert_eq!(v.status, hoist_verify::Status::Validated, "{:?}", v.report);
    // The interpolant-only MUL moves to the vertex program.
    assert!(v.outcome.fp.insts.len() < fp.insts.len());
    assert!(v.outcome.fp.insts.len() > 96);
}

/// A scratch directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hoist-target-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn hoist(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_takes_a_target_and_hints_the_one_that_fits() {
    let dir = scratch("check");
    std::fs::write(dir.join("long.fp"), long_fp(500, 2)).unwrap();
    std::fs::write(dir.join("temps.fp"), long_fp(500, 40)).unwrap();
    std::fs::write(dir.join("a.psh"), "ps_2_0\nmov oC0, c0\n").unwrap();

    let out = hoist(&["check", "long.fp"], &dir);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("E0301"), "{err}");
    assert!(err.contains("limits: ATI Radeon 9700 (R300)"), "{err}");
    assert!(err.contains("fits under --target nv40"), "{err}");
    assert_eq!(
        hoist(&["check", "--target", "r300", "long.fp"], &dir).stderr,
        out.stderr
    );

    let out = hoist(&["check", "--target", "nv40", "long.fp"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("long.fp: ok (!!ARBfp1.0, 500 instructions"));

    let err = text(&hoist(&["check", "temps.fp"], &dir).stderr);
    assert!(err.contains("fits under --target g80"), "{err}");
    let out = hoist(&["check", "--target", "nv40", "temps.fp"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("E0302"));
    let out = hoist(&["check", "--target", "g80", "temps.fp"], &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // D3D9: the profile fixes the limits; an explicit --target is ignored with a warning.
    let plain = hoist(&["check", "a.psh"], &dir);
    assert_eq!(plain.status.code(), Some(0));
    assert!(plain.stderr.is_empty());
    let out = hoist(&["check", "--target", "g80", "a.psh"], &dir);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, plain.stdout);
    assert!(
        text(&out.stderr).contains("warning: --target g80 does not apply to a.psh"),
        "{}",
        text(&out.stderr)
    );

    let out = hoist(&["check", "--target", "r420", "long.fp"], &dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown target `r420`"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn opt_takes_a_target_for_the_parser_and_the_optimizer() {
    let dir = scratch("opt");
    std::fs::write(dir.join("pass.vp"), VP).unwrap();
    std::fs::write(dir.join("long.fp"), long_fp(500, 2)).unwrap();
    let args = ["opt", "--vp", "pass.vp", "--fp", "long.fp"];

    let out = hoist(&args, &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("fits under --target nv40"));

    let out = hoist(&[&args[..], &["--target", "g80"]].concat(), &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("validation: passed"), "{report}");
    assert!(report.contains("-> "), "nothing moved: {report}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_takes_a_target() {
    let dir = scratch("render");
    std::fs::write(dir.join("pass.vp"), VP).unwrap();
    std::fs::write(dir.join("long.fp"), long_fp(500, 2)).unwrap();
    let args = [
        "render", "--vp", "pass.vp", "--fp", "long.fp", "--size", "8x8", "--out", "a.pfm",
    ];
    let out = hoist(&args, &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("fits under --target nv40"));
    assert!(!dir.join("a.pfm").exists());

    let out = hoist(&[&args[..], &["--target", "nv40"]].concat(), &dir);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.join("a.pfm").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_subcommand_documents_the_target() {
    for sub in ["check", "opt", "render"] {
        let out = hoist(&[sub, "--help"], &std::env::temp_dir());
        let help = text(&out.stdout);
        assert!(help.contains("--target"), "{sub}");
        assert!(help.contains("D3D9"), "{sub}");
    }
}

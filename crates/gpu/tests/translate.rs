//! Every pair translates, and naga validates both variants: the examples, the piglit
//! corpus, generated pairs of both dialects, and the parsers' all-opcode programs.

mod common;

use hoist_asm::Program;
use hoist_gpu::{Options, Output, translate};

fn variants() -> Vec<Options> {
    let mut v = vec![Options::default()];
    v.push(Options {
        two_side: true,
        color_sum: true,
        output: Output::Unorm8,
        ..Options::default()
    });
    v.push(Options {
        vertex_clamp: false,
        output: Output::Clamp,
        ..Options::default()
    });
    v
}

fn check(name: &str, vp: Option<&Program>, fp: Option<&Program>, failures: &mut Vec<String>) {
    for o in variants() {
        if let Err(e) = translate(vp, fp, &o) {
            failures.push(format!("{name} {o:?}: {e}"));
            return;
        }
    }
}

#[test]
fn every_example_translates() {
    let mut failures = Vec::new();
    let mut n = 0;
    for f in common::examples() {
        let s = common::scene(&f);
        for (pname, pair) in &s.programs {
            let vp = pair.vertex.as_ref().map(|p| &p.program);
            let fp = pair.fragment.as_ref().map(|p| &p.program);
            check(&format!("{} [{pname}]", f.display()), vp, fp, &mut failures);
            n += 1;
        }
    }
    println!("{n} example pairs");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_piglit_corpus_translates() {
    let Some((_, files)) = common::piglit() else {
        common::oracles::skip("../shared/corpus/piglit is not next to the repository");
        return;
    };
    assert_eq!(files.len(), 80);
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let s = hoist_raster::scene::parse(&text, &hoist_raster::Caps::default()).unwrap();
        for pair in s.programs.values() {
            let vp = pair.vertex.as_ref().map(|p| &p.program);
            let fp = pair.fragment.as_ref().map(|p| &p.program);
            check(&f.display().to_string(), vp, fp, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn generated_pairs_of_both_dialects_translate() {
    let mut failures = Vec::new();
    for seed in 0..40 {
        for d3d9 in [false, true] {
            let (label, vp, fp) = common::generated(seed, d3d9);
            check(&label, Some(&vp), Some(&fp), &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The parsers' programs with every opcode, flow control and register file of each D3D9
/// profile and of ARB, each with fixed function on the other side.
#[test]
fn every_opcode_program_translates() {
    let dir = common::root().join("crates/asm/tests");
    let mut failures = Vec::new();
    let mut n = 0;
    for sub in ["d3d9", "d3d9_arb"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
            let path = e.path();
            let Some(ext) = path.extension().and_then(|x| x.to_str()) else {
                continue;
            };
            if !["vsh", "psh", "vp", "fp"].contains(&ext) {
                continue;
            }
            let p = common::parse(&std::fs::read_to_string(&path).unwrap());
            let name = path.display().to_string();
            n += 1;
            // A program the executor refuses is refused here too, with a message.
            if let Err(e) = hoist_raster::compile::compile(&p) {
                let (vp, fp) = match p.stage() {
                    hoist_asm::Stage::Vertex => (Some(&p), None),
                    hoist_asm::Stage::Fragment => (None, Some(&p)),
                };
                match translate(vp, fp, &Options::default()) {
                    Err(t) => println!("{name}: refused as the executor refuses it ({e}): {t}"),
                    Ok(_) => failures.push(format!(
                        "{name}: the executor refuses it ({e}), the translation does not"
                    )),
                }
                continue;
            }
            match p.stage() {
                hoist_asm::Stage::Vertex => check(&name, Some(&p), None, &mut failures),
                hoist_asm::Stage::Fragment => check(&name, None, Some(&p), &mut failures),
            }
        }
    }
    assert!(n >= 9, "{n} programs");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The fuzzers' regression inputs (programs that once broke a parser or the optimizer):
/// every one that parses and that the executor runs translates; none panics.
#[test]
fn the_fuzz_regressions_translate() {
    let mut n = 0;
    let mut failures = Vec::new();
    for dir in ["parse", "optimize"] {
        let Ok(rd) = std::fs::read_dir(common::root().join("fuzz/regressions").join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).to_string();
            let opts =
                hoist_asm::ParseOptions::default().with_target(&text, hoist_asm::ArbTarget::G80);
            let Some(p) = hoist_asm::parse(&text, &opts).program else {
                continue;
            };
            let (vp, fp) = match p.stage() {
                hoist_asm::Stage::Vertex => (Some(&p), None),
                hoist_asm::Stage::Fragment => (None, Some(&p)),
            };
            let runs = hoist_raster::compile::compile(&hoist_raster::fog::lower(&p)).is_ok();
            match (translate(vp, fp, &Options::default()), runs) {
                (Ok(_), true) | (Err(_), false) => n += 1,
                (Err(err), true) => failures.push(format!("{}: {err}", e.path().display())),
                (Ok(_), false) => {
                    failures.push(format!("{}: the executor refuses it", e.path().display()))
                }
            }
        }
    }
    println!("{n} fuzz regression programs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn what_wgsl_cannot_say_is_refused_with_a_message() {
    let recursive = common::parse("ps_3_0\ncall l0\nmov oC0, c0\nret\nlabel l0\ncall l0\nret\n");
    let e = translate(None, Some(&recursive), &Options::default()).unwrap_err();
    assert!(e.message.contains("calls itself"), "{e}");
    // Ten nested calls: the executor skips those below depth 8.
    let mut deep = String::from("ps_3_0\ncall l0\nmov oC0, c0\nret\n");
    for l in 0..10 {
        deep.push_str(&format!("label l{l}\n"));
        if l < 9 {
            deep.push_str(&format!("call l{}\n", l + 1));
        }
        deep.push_str("ret\n");
    }
    let e = translate(None, Some(&common::parse(&deep)), &Options::default()).unwrap_err();
    assert!(e.message.contains("nest 10 deep"), "{e}");
    assert_eq!(e.inst, Some(0));
    let fp = common::parse("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n");
    let e = translate(Some(&fp), None, &Options::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("fragment program was given as the vertex program")
    );
    // ps_3_0's ten interpolants fit the fifteen both APIs guarantee, also with back colours.
    let mut many = String::from("ps_3_0\n");
    for i in 0..10 {
        many.push_str(&format!("dcl_texcoord{i} v{i}\n"));
    }
    many.push_str("mov r0, v0\n");
    for i in 1..10 {
        many.push_str(&format!("add r0, r0, v{i}\n"));
    }
    many.push_str("mov oC0, r0\n");
    let ok = translate(None, Some(&common::parse(&many)), &Options::default());
    assert!(ok.is_ok(), "ten interpolants fit");
    let two = Options {
        two_side: true,
        ..Options::default()
    };
    assert!(translate(None, Some(&common::parse(&many)), &two).is_ok());
}

#[test]
#[ignore]
fn dump() {
    let f = std::env::var("DUMP").unwrap();
    let s = common::scene(std::path::Path::new(&f));
    let pair = &s.programs[""];
    let t = translate(
        pair.vertex.as_ref().map(|p| &p.program),
        pair.fragment.as_ref().map(|p| &p.program),
        &Options::default(),
    )
    .unwrap();
    println!(
        "{}\n=====VS\n{}\n=====FS\n{}\n{}",
        t.wgsl,
        t.glsl_vs,
        t.glsl_fs,
        serde_json::to_string_pretty(&t.bindings).unwrap()
    );
}

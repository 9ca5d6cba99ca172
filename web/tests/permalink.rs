//! Permalinks the fuzzer found or started from (`fuzz/regressions/permalink/`: every
//! built-in example as a state link, plus the minimised corpus) decode without a panic and
//! round-trip; and the seed links are what the current encoder writes for the examples.
#![cfg(not(target_arch = "wasm32"))]

use hoist_web::doc::codec::{Link, check_round_trip, decode, encode};
use hoist_web::doc::examples::{EXAMPLES, load};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/permalink")
}

#[test]
fn fuzz_findings_stay_fixed() {
    let mut n = 0;
    for entry in std::fs::read_dir(dir()).expect("fuzz/regressions/permalink") {
        let path = entry.expect("entry").path();
        let data = std::fs::read(&path).expect("readable");
        let r = std::panic::catch_unwind(|| check_round_trip(&data));
        assert!(r.is_ok(), "{} panics", path.display());
        n += 1;
    }
    assert!(n > 0, "no permalink inputs");
    println!("fuzz regressions permalink: {n} inputs");
}

/// Writes the seed links when `BLESS=1`; otherwise each example's link must be there and
/// decode to the example's document.
#[test]
fn every_example_has_a_seed_link() {
    for e in EXAMPLES {
        let doc = load(e);
        let path = dir().join(format!("example-{}", e.id.replace('/', "-")));
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&path, encode(&doc)).expect("writable");
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing (BLESS=1 writes it)", path.display()));
        match decode(&text) {
            Ok(Link::State(d)) => assert_eq!(*d, doc, "{}", path.display()),
            other => panic!("{}: {other:?}", path.display()),
        }
    }
}

/// The linear-expression mode in links: every linear example (gallery id and state link,
/// whose seed is written like the scene examples'), an edited system in D3D9, and hostile
/// values; code-motion documents do not mention the mode, so their links are unchanged.
#[test]
fn linear_documents_round_trip() {
    use hoist_web::doc::codec::encode_example;
    use hoist_web::doc::{Doc, Mode};
    use hoist_web::worker::linear::{self, LinearDoc};
    for e in linear::EXAMPLES {
        let id = linear::example_id(e.name);
        let doc = hoist_web::doc::examples::load_id(&id).expect("a linear example");
        assert_eq!(doc.mode, Mode::Linear);
        assert_eq!(decode(&encode_example(&id)), Ok(Link::Example(id.clone())));
        let path = dir().join(format!("example-{}", id.replace('/', "-")));
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&path, encode(&doc)).expect("writable");
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing (BLESS=1 writes it)", path.display()));
        assert_eq!(
            decode(&text),
            Ok(Link::State(Box::new(doc.clone()))),
            "{id}"
        );
        assert_eq!(
            decode(&encode(&doc)),
            Ok(Link::State(Box::new(doc))),
            "{id}"
        );
    }
    let mut doc = Doc {
        mode: Mode::Linear,
        linear: Some(LinearDoc {
            text: "name mine\n0:1 1:-2.5 b:3\n1:0.25\n".into(),
            example: Some("fig13".into()),
            d3d9: true,
            unpermute: true,
            converge: true,
            ..LinearDoc::default()
        }),
        ..Doc::default()
    };
    assert_eq!(
        decode(&encode(&doc)),
        Ok(Link::State(Box::new(doc.clone())))
    );
    // A program whose system is recovered, with a register: kind, text and register
    // survive; a system drops a register it cannot use.
    let program = LinearDoc {
        text: linear::example_text("yuv-texture").expect("a program example"),
        example: None,
        input: linear::Input::Program,
        register: "r3".into(),
        ..LinearDoc::default()
    };
    let prog_doc = Doc {
        mode: Mode::Linear,
        linear: Some(program.clone()),
        ..Doc::default()
    };
    assert_eq!(
        decode(&encode(&prog_doc)),
        Ok(Link::State(Box::new(prog_doc.clone())))
    );
    let mut stray = prog_doc.clone();
    stray.linear.as_mut().unwrap().input = linear::Input::System;
    match decode(&encode(&stray)) {
        Ok(Link::State(d)) => assert_eq!(d.linear.unwrap().register, ""),
        other => panic!("{other:?}"),
    }
    let mut long = prog_doc;
    long.linear.as_mut().unwrap().register = "r".repeat(1000);
    assert!(matches!(
        decode(&encode(&long)),
        Err(hoist_web::doc::codec::DecodeError::Invalid(m)) if m.contains("register")
    ));
    // Hostile: an unknown example is dropped, an oversized system refused, an unknown mode
    // is malformed.
    doc.linear.as_mut().unwrap().example = Some("../../etc".into());
    match decode(&encode(&doc)) {
        Ok(Link::State(d)) => assert_eq!(d.linear.unwrap().example, None),
        other => panic!("{other:?}"),
    }
    doc.linear.as_mut().unwrap().text = "0:1\n".repeat(linear::MAX_TEXT / 4 + 1);
    assert!(matches!(
        decode(&encode(&doc)),
        Err(hoist_web::doc::codec::DecodeError::Invalid(m)) if m.contains("linear system")
    ));
    let json = serde_json::to_string(&Doc::default())
        .unwrap()
        .replace("\"scene\"", "\"mode\":\"quantum\",\"scene\"");
    assert!(serde_json::from_str::<Doc>(&json).is_err());
    for e in EXAMPLES {
        let json = serde_json::to_string(&load(e)).unwrap();
        assert!(
            !json.contains("\"mode\"") && !json.contains("\"linear\""),
            "{}",
            e.id
        );
    }
}

/// "pack vectors (SLP)" travels in the link; a link written before the option existed
/// decodes with it off.
#[test]
fn slp_option_round_trips() {
    let mut doc = load(&EXAMPLES[0]);
    let without = encode(&doc);
    doc.opts.slp = true;
    doc.opts.schedule = true;
    doc.opts.fit = true;
    doc.opts.peepholes = true;
    let with = encode(&doc);
    assert_ne!(with, without);
    match decode(&with) {
        Ok(Link::State(d)) => assert!(d.opts.slp && *d == doc),
        other => panic!("{other:?}"),
    }
    match decode(&without) {
        Ok(Link::State(d)) => assert!(!d.opts.slp),
        other => panic!("{other:?}"),
    }
}

/// The cost model in links: every choice round-trips and the paper's is not written; a
/// link from before the choice existed, with the `modern` flag, still loads (`true` as
/// modern, `false` as paper); an unknown model is a clear error.
#[test]
fn cost_choice_round_trips_and_old_links_load() {
    use base64::Engine;
    use hoist_web::doc::codec::DecodeError;
    use hoist_web::doc::cost::CostChoice;
    let raw = |json: &str| {
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(packed);
        format!("v1.{b64}")
    };
    let doc = load(&EXAMPLES[0]);
    for c in CostChoice::ALL {
        let mut d = doc.clone();
        d.opts.cost = c;
        assert_eq!(decode(&encode(&d)), Ok(Link::State(Box::new(d))), "{c:?}");
    }
    let json = serde_json::to_string(&doc).unwrap();
    assert!(!json.contains("\"cost\"") && !json.contains("\"modern\""));
    for (flag, want) in [("true", CostChoice::Modern), ("false", CostChoice::Paper)] {
        let old = json.replace("\"opts\":{", &format!("\"opts\":{{\"modern\":{flag},"));
        assert_ne!(old, json);
        match decode(&raw(&old)) {
            Ok(Link::State(d)) => {
                assert_eq!(d.opts.cost, want);
                assert_eq!(decode(&encode(&d)), Ok(Link::State(d.clone())));
            }
            other => panic!("{other:?}"),
        }
    }
    let bad = json.replace("\"opts\":{", "\"opts\":{\"cost\":\"r9000\",");
    assert!(matches!(
        decode(&raw(&bad)),
        Err(DecodeError::Json(m)) if m.contains("unknown cost model")
    ));
}

/// Source mode in links: the source (language, texts, entry points, dialect, target, scene)
/// round-trips and the compiled pair is not written (the page compiles it again); a
/// document without a source writes no `source` key, so older links are unchanged.
#[test]
fn source_documents_keep_the_source_not_the_assembly() {
    use hoist_web::doc::source::{self, Lang, SourceDoc};
    use hoist_web::doc::{Doc, MAX_PROGRAM};
    let mut doc = load(
        EXAMPLES
            .iter()
            .find(|e| e.id == "wgsl/lighting")
            .expect("the example"),
    );
    let src = doc.source.clone().expect("a source example");
    // The compiled pair, as the page holds it, is left out of the link.
    let with_pair = Doc {
        vp: "!!ARBvp1.0\nEND\n".into(),
        fp: "!!ARBfp1.0\nEND\n".into(),
        scene: Some("[test]\ndraw quad\n".into()),
        vp_profile: Some("arbvp1".into()),
        ..doc.clone()
    };
    assert_eq!(encode(&with_pair), encode(&doc));
    assert_eq!(
        decode(&encode(&with_pair)),
        Ok(Link::State(Box::new(doc.clone())))
    );
    // Every field of the source survives.
    let full = SourceDoc {
        lang: Lang::Glsl,
        wgsl: "// kept for later\n".into(),
        glsl_vs: source::BLANK_GLSL.0.into(),
        glsl_fs: source::BLANK_GLSL.1.replace("0.25", "0.125 ✓"),
        vertex: Some("vs_main".into()),
        fragment: Some("fs_main".into()),
        dialect: Some(hoist_asm::Dialect::D3d9),
        target: Some(hoist_asm::ArbTarget::Nv40),
        scene: Some("[test]\nuniform vec2 u_scale 1 2\ndraw rect tex -1 -1 2 2 0 0 1 1\n".into()),
    };
    doc.source = Some(full.clone());
    match decode(&encode(&doc)) {
        Ok(Link::State(d)) => assert_eq!(d.source.as_ref(), Some(&full)),
        other => panic!("{other:?}"),
    }
    // Hostile: an oversized shader is refused, an entry point that is no name is dropped.
    let mut long = doc.clone();
    long.source.as_mut().unwrap().glsl_vs = "x".repeat(MAX_PROGRAM + 1);
    assert!(matches!(
        decode(&encode(&long)),
        Err(hoist_web::doc::codec::DecodeError::Invalid(m)) if m.contains("GLSL vertex shader")
    ));
    let mut odd = doc.clone();
    odd.source.as_mut().unwrap().vertex = Some("a b\"</script>".into());
    match decode(&encode(&odd)) {
        Ok(Link::State(d)) => assert_eq!(d.source.unwrap().vertex, None),
        other => panic!("{other:?}"),
    }
    assert_eq!(src.lang, Lang::Wgsl);
    // Assembly documents say nothing of sources.
    for e in EXAMPLES
        .iter()
        .filter(|e| !e.id.starts_with("wgsl/") && !e.id.starts_with("glsl/"))
    {
        let json = serde_json::to_string(&load(e)).unwrap();
        assert!(!json.contains("\"source\""), "{}", e.id);
    }
}

//! The compiled executor in headless Chromium against the interpreter, bit for bit (`cargo
//! test --target wasm32-unknown-unknown -p hoist-web`, with CHROMEDRIVER set): fragment
//! programs compiled by `hoist_raster::jit` and loaded by the page's runtime
//! (`hoist_web::worker::jit::Browser`, the one the worker installs) on programs of the random
//! generator (both dialects) and on every example of the gallery through the worker's own
//! job runner; refusals are counted and printed. A forced refusal and a forced throw still
//! draw the interpreter's image, and say so.

#![cfg(target_arch = "wasm32")]

use hoist_raster::jit::Exec;
use hoist_raster::{Params, RenderConfig, StageParams};
use hoist_verify::generate::{self, Flavor};
use hoist_web::doc::examples;
use hoist_web::worker::engine::{Event, Job, Runner};
use hoist_web::worker::executor::{Executor, Force};
use hoist_web::worker::jit;
use std::collections::BTreeMap;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    js_sys::Date::now()
}

/// Lets the page answer the test driver between long synchronous pieces (a busy machine
/// otherwise makes chromedriver time out waiting for the renderer).
async fn pause() {
    gloo::timers::future::TimeoutFuture::new(0).await;
}

fn bits(img: &hoist_raster::Image) -> Vec<u32> {
    img.pixels.iter().flatten().map(|v| v.to_bits()).collect()
}

/// Deterministic parameter values for every `env`/`local` slot a generated program reads.
fn params(seed: u64) -> Params {
    let stage = |salt: u64| {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        };
        let mut s = StageParams::default();
        for i in 0..96u16 {
            s.env.insert(i, [next(), next(), next(), next()]);
            s.local.insert(i, [next(), next(), next(), next()]);
        }
        s
    };
    Params {
        vertex: stage(1),
        fragment: stage(2),
    }
}

/// What one program pair gave: compiled code ran, or the reason it did not.
fn render_both(vs: &str, fs: &str, seed: u64) -> Result<Result<(), String>, String> {
    let parse = |s: &str| {
        let p = hoist_asm::parse(s, &hoist_asm::ParseOptions::default());
        p.program.ok_or_else(|| format!("{:?}", p.diagnostics))
    };
    let (vp, fp) = (parse(vs)?, parse(fs)?);
    let mut cfg = RenderConfig {
        width: 24,
        height: 20,
        textures: generate::textures(&fp),
        params: params(seed),
        ..RenderConfig::default()
    };
    let a = hoist_raster::render(Some(&vp), Some(&fp), &cfg).map_err(|e| e.to_string())?;
    let _ = jit::take_log();
    cfg.exec = Exec::Compiled;
    let b = hoist_raster::render(Some(&vp), Some(&fp), &cfg).map_err(|e| e.to_string())?;
    let log = jit::take_log();
    assert_eq!(
        bits(&a.image),
        bits(&b.image),
        "seed {seed}: compiled differs"
    );
    assert_eq!(a.stats, b.stats, "seed {seed}: statistics differ");
    let kernel = hoist_raster::compile::compile(&fp).map_err(|e| e.to_string())?;
    Ok(match hoist_raster::jit::compile(&kernel) {
        Err(r) => Err(r.to_string()),
        Ok(_) if log.failures.is_empty() && log.fallback_batches == 0 => {
            assert!(log.compiled_batches > 0, "seed {seed}: no compiled batch");
            Ok(())
        }
        Ok(_) => Err(format!("{:?}", log.failures)),
    })
}

/// Generated pairs of both dialects: compiled equals interpreted, bit for bit.
#[wasm_bindgen_test]
async fn generated_programs_compiled_equal_the_interpreter() {
    jit::install(now);
    // Every kernel compiled: these draws are small enough that the page's prediction
    // would leave most of them to the interpreter.
    jit::configure(Some(Force::Compile));
    for flavor in [Flavor::Arb, Flavor::D3d9] {
        let mut refusals: BTreeMap<String, u32> = BTreeMap::new();
        let (mut compiled, mut total) = (0, 0);
        for seed in 0..60 {
            let p = generate::pair(seed, flavor);
            match render_both(&p.vp, &p.fp, seed) {
                Ok(Ok(())) => compiled += 1,
                Ok(Err(why)) => {
                    let key: String = why.chars().take(60).collect();
                    *refusals.entry(key).or_default() += 1;
                }
                Err(e) => panic!("{}: {e}", p.label),
            }
            total += 1;
            pause().await;
        }
        console_log!(
            "COMPILED {flavor:?}: {compiled} of {total} generated fragment programs compiled and bit-identical; refused: {refusals:?}"
        );
        // The compiler handles nearly everything the generator makes (a regression to
        // refusing would make the comparison above vacuous).
        assert!(
            compiled * 10 >= total * 9,
            "{flavor:?}: only {compiled} of {total} compiled: {refusals:?}"
        );
    }
}

fn run_doc(
    doc: hoist_web::doc::Doc,
    force: Option<Force>,
) -> Box<hoist_web::worker::render::Rendered> {
    jit::configure(force);
    let mut r = Runner::new(
        Job {
            id: 1,
            doc,
            images: Default::default(),
            fail: None,
            force,
            fresh: true,
            validation_delay_ms: 0,
            band_workers: None,
        },
        Box::new(now),
    );
    let rendered = r.run_to_end().into_iter().find_map(|e| match e {
        Event::Rendered { rendered, .. } => Some(rendered),
        _ => None,
    });
    jit::configure(None);
    rendered.expect("rendered")
}

fn images(r: &hoist_web::worker::render::Rendered) -> [Option<Vec<u32>>; 2] {
    [
        r.original.as_ref().ok().map(|x| bits(&x.image)),
        r.optimized
            .as_ref()
            .and_then(|o| o.as_ref().ok())
            .map(|x| bits(&x.image)),
    ]
}

fn executor(r: &hoist_web::worker::render::Rendered) -> Option<Executor> {
    r.original.as_ref().ok().and_then(|x| x.executor.clone())
}

/// Every example of the gallery (at most 64×64), through the worker's job runner: both
/// images compiled equal both images interpreted.
#[wasm_bindgen_test]
async fn every_example_renders_the_same_compiled() {
    jit::install(now);
    let (mut compiled, mut refused) = (Vec::new(), Vec::new());
    for e in examples::EXAMPLES {
        let mut doc = examples::load(e);
        // A source example's pair, compiled as the page's front worker compiles it.
        if let Some(src) = doc.source.clone() {
            let c = hoist_web::worker::front::compile(&src)
                .result
                .unwrap_or_else(|errs| panic!("{}: {errs:?}", e.id));
            hoist_web::worker::front::derive(&mut doc, &c);
        }
        doc.inputs.width = doc.inputs.width.min(64);
        doc.inputs.height = doc.inputs.height.min(64);
        let a = run_doc(doc.clone(), Some(Force::Interpret));
        let b = run_doc(doc, Some(Force::Compile));
        assert_eq!(images(&a), images(&b), "{}: compiled differs", e.id);
        assert!(images(&a)[0].is_some(), "{}: nothing rendered", e.id);
        match executor(&b) {
            Some(Executor::Compiled) => compiled.push(e.id),
            Some(Executor::Interpreter(why)) => refused.push(format!("{}: {why}", e.id)),
            None => panic!("{}: no executor named", e.id),
        }
        assert!(
            matches!(executor(&a), Some(Executor::Interpreter(w)) if w.contains("off")),
            "{}",
            e.id
        );
        pause().await;
    }
    assert!(refused.is_empty(), "examples interpreted: {refused:#?}");
    console_log!(
        "COMPILED examples: {} of {} compiled and bit-identical: {compiled:?}; interpreted: {refused:#?}",
        compiled.len(),
        examples::EXAMPLES.len()
    );
}

/// The page's default, the executor each draw is predicted to finish sooner with: the
/// same pixels as the interpreter's, and an interpreted draw says why.
#[wasm_bindgen_test]
fn the_predicted_choice_draws_the_interpreters_pixels() {
    jit::install(now);
    for id in [
        "paper/fig3",
        "paper/gauss13",
        "paper/sort-arb",
        "fluid/advect",
    ] {
        let mut doc = examples::load(examples::find(id).expect("example"));
        doc.inputs.width = 64;
        doc.inputs.height = 64;
        let a = run_doc(doc.clone(), Some(Force::Interpret));
        let c = run_doc(doc, None);
        assert_eq!(images(&a), images(&c), "{id}: the predicted choice differs");
        match executor(&c) {
            Some(Executor::Interpreter(why)) => {
                assert!(why.contains("predicted faster"), "{id}: {why}")
            }
            Some(Executor::Compiled) => {}
            None => panic!("{id}: no executor named"),
        }
    }
}

/// A forced refusal and a forced throw: the interpreter draws the same images, and the
/// render says why it was the interpreter.
#[wasm_bindgen_test]
fn a_refusal_or_a_throw_falls_back_to_the_same_image() {
    jit::install(now);
    let doc = examples::load_id(examples::DEFAULT).expect("fig3");
    let reference = run_doc(doc.clone(), Some(Force::Interpret));
    let fp = hoist_asm::parse(&doc.fp, &hoist_asm::ParseOptions::default())
        .program
        .expect("fig3 parses");
    let kernel = hoist_raster::compile::compile(&fp).expect("kernel");
    let compiles = hoist_raster::jit::compile(&kernel).is_ok();
    for (force, why) in [
        (Force::Refuse, "forced refusal"),
        (Force::Throw, "WebAssembly.Module"),
    ] {
        let r = run_doc(doc.clone(), Some(force));
        assert_eq!(images(&r), images(&reference), "{force:?}");
        match executor(&r) {
            // A kernel the compiler refuses never reaches the runtime: its refusal is the reason.
            Some(Executor::Interpreter(w)) => {
                assert!(!compiles || w.contains(why), "{force:?}: {w}")
            }
            other => panic!("{force:?}: {other:?}"),
        }
    }
}

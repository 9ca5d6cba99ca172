//! One rule and one wording for an agreement that proves little (issue 27, items 4 and 9):
//! the page's verdict for the four gallery examples whose image is constant is the
//! headline `hoist opt` prints for them (`hoist_verify::verdict`, `crates/cli/tests/
//! verdict.rs`), computed here from `hoist run`'s images of the same scenes; a varied
//! image keeps its plain verdict on both.
#![cfg(not(target_arch = "wasm32"))]

use hoist_raster::scene::{self, RunOptions};
use hoist_web::doc::examples;
use hoist_web::worker::engine::{Event, Job, Runner};
use hoist_web::worker::render::{self, Rendered};
use std::time::Instant;

fn page(id: &str) -> Box<Rendered> {
    let doc = examples::load(examples::find(id).unwrap());
    let t0 = Instant::now();
    let job = Job {
        id: 1,
        doc,
        images: Default::default(),
        fail: None,
        force: None,
        fresh: false,
        validation_delay_ms: 0,
        band_workers: None,
    };
    let mut r = Runner::new(job, Box::new(move || t0.elapsed().as_secs_f64() * 1e3));
    r.run_to_end()
        .into_iter()
        .find_map(|e| match e {
            Event::Rendered { rendered, .. } => Some(rendered),
            _ => None,
        })
        .expect("a render")
}

/// The CLI's line for the window of an example's scene: the original run's image
/// against itself (the optimized run is bit-identical for these, as `hoist opt` says).
fn cli_line(id: &str) -> String {
    let e = examples::find(id).unwrap();
    let sc = scene::parse(e.scene, &hoist_raster::Caps::default()).unwrap();
    let r = scene::run(&sc, &RunOptions::default()).unwrap();
    let img = &r.targets["window"];
    let v = hoist_raster::compare(img, img);
    let w = hoist_verify::verdict::Wording {
        verdict: &v,
        equivalent: true,
    };
    hoist_verify::verdict::agreement(&w, [img, img])
}

#[test]
fn the_page_and_the_cli_word_constant_images_alike() {
    for id in [
        "graphics/ambient",
        "graphics/diffuse",
        "fluid/clear",
        "fluid/actuallyrender",
    ] {
        let r = page(id);
        let v = render::rendered_view(&r, 0.0, None).unwrap();
        assert_eq!(v.kind, render::VerdictKind::ProvesLittle, "{id}: {v:?}");
        assert_eq!(v.headline, "proves little: the image is constant", "{id}");
        assert!(
            v.detail.ends_with("(the verdict alone: bit-identical)"),
            "{id}: {v:?}"
        );
        let cli = cli_line(id);
        assert_eq!(
            cli,
            format!("{} (the verdict alone: bit-identical)", v.headline)
        );
    }
    let r = page("paper/fig3");
    let v = render::rendered_view(&r, 0.0, None).unwrap();
    assert_eq!(
        (v.kind, v.headline.as_str()),
        (render::VerdictKind::Identical, "bit-identical")
    );
    assert_eq!(cli_line("paper/fig3"), "bit-identical");
}

//! The example scenes in `crates/raster/scenes/` run and all their probes pass; the
//! incremental scene job produces the same images as a run to the end.

use hoist_raster::Caps;
use hoist_raster::scene::{self, RunOptions, SceneJob};
use std::path::Path;

fn scenes() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "shader_test"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn example_scenes_pass() {
    let all = scenes();
    assert!(all.len() >= 3);
    for (name, text) in &all {
        let sc = scene::parse(text, &Caps::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = scene::run(&sc, &RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!r.probes.is_empty(), "{name} has no probes");
        for p in &r.probes {
            assert!(p.pass, "{name}: {p}");
        }
    }
}

#[test]
fn paper_pairs_render_something_and_agree() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/paper_convolution.shader_test"),
    )
    .unwrap();
    let sc = scene::parse(&text, &Caps::default()).unwrap();
    assert_eq!(sc.programs.len(), 2);
    let r = scene::run(&sc, &RunOptions::default()).unwrap();
    let img = &r.targets["original"];
    let st = img.stats();
    // A 1/4-1/2-1/4 blur of uniform noise: values spread over (0, 1), mean near 1/2.
    assert!(st.min[0] > 0.0 && st.max[0] < 1.0 && (st.mean[0] - 0.5).abs() < 0.01);
    assert_eq!(r.stats.fragment_instructions, 65536 * (16 + 7));
    // Replacing the optimized pair with the original one is what the optimizer does.
    let mut sc2 = sc.clone();
    let orig = sc.programs[""].fragment.clone().unwrap().program;
    sc2.set_program("figure5", orig);
    let vp = sc.programs[""].vertex.clone().unwrap().program;
    sc2.set_program("figure5", vp);
    let r2 = scene::run(&sc2, &RunOptions::default()).unwrap();
    assert_eq!(r2.stats.fragment_instructions, 65536 * 32);
    assert!(r2.probes[0].pass);
}

#[test]
fn incremental_scene_job_matches_a_full_run() {
    for (name, text) in scenes() {
        let sc = scene::parse(&text, &Caps::default()).unwrap();
        let full = scene::run(&sc, &RunOptions::default()).unwrap();
        let mut job = SceneJob::new(sc, RunOptions::default()).unwrap();
        let mut steps = 0;
        while !job.step(3).done {
            steps += 1;
        }
        assert!(steps > 1, "{name}");
        let inc = job.finish().unwrap();
        for (t, img) in &full.targets {
            assert_eq!(img.hash(), inc.targets[t].hash(), "{name}: {t}");
        }
    }
}

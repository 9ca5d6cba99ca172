//! A scene's last draw shared between workers (`scene::split`) gives the image, the probes
//! and the statistics of one worker, bit for bit, whatever order the helpers' bands arrive
//! in: every example scene and every piglit ARB scene, with 2 and 3 parts, under several
//! schedules (helpers all done before the lead starts, interleaved band by band, some
//! never arriving, arriving twice or in reverse).

use hoist_raster::Caps;
use hoist_raster::scene::split::{Chunk, Role};
use hoist_raster::scene::{self, RunOptions, Scene, SceneJob, SceneResult};
use std::path::Path;

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

fn scenes() -> Vec<(String, Scene)> {
    let mut files =
        oracles::shader_tests(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"));
    match oracles::shared("corpus/piglit/tests/spec").filter(|p| p.is_dir()) {
        Some(p) => files.extend(oracles::shader_tests(&p)),
        None => oracles::skip("../shared/corpus/piglit is not next to the repository"),
    }
    files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let s = scene::parse(&text, &Caps::default()).ok()?;
            Some((f.display().to_string(), s))
        })
        .collect()
}

/// How the helpers' bands reach the lead.
#[derive(Clone, Copy, Debug)]
enum Schedule {
    /// Every helper finishes before the lead takes its first step.
    AllFirst,
    /// One band from each helper in turn between the lead's steps of one band.
    Interleaved,
    /// Helper 1's bands in reverse order and each twice; the other helpers never answer.
    ReversedTwice,
    /// No helper answers.
    Silent,
}

fn helper_chunks(sc: &Scene, part: u32, parts: u32) -> Vec<Chunk> {
    let mut job = SceneJob::new(sc.clone(), RunOptions::default()).unwrap();
    job.split(Role::Helper { part, parts });
    let mut out = Vec::new();
    let mut steps = 0;
    while !job.progress().done {
        job.step(3);
        out.extend(job.take_chunks());
        steps += 1;
        assert!(steps < 1_000_000);
    }
    out
}

fn shared_run(sc: &Scene, parts: u32, schedule: Schedule) -> (SceneResult, u32) {
    let mut helpers: Vec<Vec<Chunk>> = (1..parts).map(|p| helper_chunks(sc, p, parts)).collect();
    let mut job = SceneJob::new(sc.clone(), RunOptions::default()).unwrap();
    job.split(Role::Lead { parts });
    match schedule {
        Schedule::AllFirst => {
            for c in helpers.drain(..).flatten() {
                job.merge(c);
            }
        }
        Schedule::ReversedTwice => {
            let mut h1 = helpers.swap_remove(0);
            h1.reverse();
            helpers = vec![h1.iter().flat_map(|c| [c.clone(), c.clone()]).collect()];
        }
        Schedule::Silent => helpers.clear(),
        Schedule::Interleaved => {}
    }
    let mut queues: Vec<std::collections::VecDeque<Chunk>> =
        helpers.into_iter().map(Into::into).collect();
    while !job.progress().done {
        job.step(1);
        for q in &mut queues {
            if let Some(c) = q.pop_front() {
                job.merge(c);
            }
        }
    }
    let (helped, total) = job.helped();
    assert!(helped <= total);
    (job.finish().unwrap(), helped)
}

fn same(name: &str, what: &str, a: &SceneResult, b: &SceneResult) {
    assert_eq!(a.stats, b.stats, "{name} ({what}): statistics");
    assert_eq!(a.probes, b.probes, "{name} ({what}): probes");
    assert_eq!(a.targets.len(), b.targets.len(), "{name} ({what}): targets");
    for (t, ia) in &a.targets {
        let ib = &b.targets[t];
        assert_eq!((ia.width, ia.height), (ib.width, ib.height));
        let bits = |i: &hoist_raster::Image| -> Vec<u32> {
            i.pixels.iter().flatten().map(|v| v.to_bits()).collect()
        };
        assert!(
            bits(ia) == bits(ib),
            "{name} ({what}): target `{t}` differs from one worker's"
        );
    }
}

#[test]
fn shared_draws_match_one_worker_bit_for_bit() {
    let scenes = scenes();
    assert!(scenes.len() >= 40, "only {} scenes parsed", scenes.len());
    let mut helped_total = 0u64;
    for (name, sc) in &scenes {
        let Ok(one) = scene::run(sc, &RunOptions::default()) else {
            continue;
        };
        for (parts, schedule) in [
            (2, Schedule::Interleaved),
            (3, Schedule::AllFirst),
            (3, Schedule::Interleaved),
            (3, Schedule::ReversedTwice),
            (2, Schedule::Silent),
        ] {
            let (shared, helped) = shared_run(sc, parts, schedule);
            same(name, &format!("{parts} parts, {schedule:?}"), &one, &shared);
            if let Schedule::Silent = schedule {
                assert_eq!(helped, 0);
            }
            helped_total += u64::from(helped);
        }
    }
    assert!(helped_total > 0, "no helper's band was ever merged");
}

#[test]
fn a_chunk_that_does_not_fit_is_ignored() {
    let (_, sc) = scenes()
        .into_iter()
        .find(|(n, _)| n.ends_with("paper/fig3.shader_test"))
        .expect("fig3");
    let one = scene::run(&sc, &RunOptions::default()).unwrap();
    let mut chunks = helper_chunks(&sc, 1, 2);
    assert!(!chunks.is_empty());
    let mut job = SceneJob::new(sc.clone(), RunOptions::default()).unwrap();
    job.split(Role::Lead { parts: 2 });
    while !job.progress().done && !job.stealing() {
        job.step(1);
    }
    let mut bad = chunks.remove(0);
    bad.color.pop();
    assert!(!job.merge(bad), "a short band was merged");
    let mut far = chunks[0].clone();
    far.band = 1 << 20;
    assert!(!job.merge(far), "a band past the target was merged");
    let r = job.finish().unwrap();
    same("fig3", "malformed chunks", &one, &r);
}

//! Renders shared with helper workers (`hoist_raster::scene::split`): the worker that runs
//! the job (the lead) hands each helper the scene, and the helpers shade their ranges of
//! its last draw and send the bands back, which the lead merges into its own run
//! ([`crate::worker::render::Task`]). The lead never waits: what a helper has not sent
//! when the lead's own range is done, the lead shades itself.
//!
//! The helpers are more instances of the worker's own bundle, started by the worker
//! (`crate::wire::bands` in the browser) after a job that wanted them has finished, so
//! they never slow the page's first verdict; a render uses the ones that are ready. A
//! [`Pool`] is installed per thread; without one (natively, unless a test installs one)
//! every render is one worker's.
//!
//! Sharing pays only when the draw is large: the helper replays the whole scene (textures,
//! earlier draws, the vertex stage) and the bands travel back as copies. [`helpers_for`]
//! asks for a render's [`work`] (area × the longest fragment program) of at least
//! [`WORTH`] fragment instructions, [`WORTH_TWO`] on two processors; a test switch can
//! force a number of helpers for every scene.

use crate::worker::executor::Force;
use hoist_raster::Caps;
use hoist_raster::scene::split::Chunk;
use hoist_raster::scene::{Command, Scene};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Fragment instructions (window area × longest fragment program) from which a render is
/// shared with helpers.
pub const WORTH: u64 = 2_000_000;

/// Fragment instructions from which a render is shared on a machine of two processors:
/// gauss13 at 1024² (66 M) is, at 512² (17 M) it is not.
pub const WORTH_TWO: u64 = 32_000_000;

/// Most helpers started, whatever the machine reports.
pub const MAX_HELPERS: u32 = 7;

/// A message from the lead to a helper.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum BandRequest {
    /// Shade part `part` of `parts` of `scene`'s last draw; run `run` supersedes the others.
    Run {
        run: u64,
        part: u32,
        parts: u32,
        scene: Box<Scene>,
        caps: Box<Caps>,
        images: BTreeMap<String, Vec<u8>>,
        force: Option<Force>,
    },
    /// Stop run `run` (the lead has all its bands, or dropped it).
    Stop { run: u64 },
}

/// A message from a helper to the lead.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum BandEvent {
    /// The helper is up and listening.
    Ready,
    /// Bands of run `run`.
    Chunks { run: u64, chunks: Vec<Chunk> },
    /// Run `run` could not be shaded here (the lead shades those bands).
    Failed { run: u64, message: String },
}

/// Where a render's helpers come from.
pub trait Pool {
    /// Hands `scene` to the helpers that are ready: the run's id and the number of parts
    /// (the lead's included), or `None` when nobody helps.
    fn begin(
        &mut self,
        scene: &Scene,
        caps: &Caps,
        images: &BTreeMap<String, Vec<u8>>,
    ) -> Option<(u64, u32)>;
    /// The bands of run `run` that arrived since the last call.
    fn take(&mut self, run: u64) -> Vec<Chunk>;
    /// Run `run` needs nothing more.
    fn end(&mut self, run: u64);
}

thread_local! {
    static POOL: RefCell<Option<Box<dyn Pool>>> = const { RefCell::new(None) };
}

/// Installs this thread's pool (`None`: renders are not shared).
pub fn install(pool: Option<Box<dyn Pool>>) {
    POOL.with(|p| *p.borrow_mut() = pool);
}

fn with_pool<R>(f: impl FnOnce(&mut dyn Pool) -> Option<R>) -> Option<R> {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        match p.as_mut() {
            Some(pool) => f(pool.as_mut()),
            None => None,
        }
    })
}

/// A render shared with helpers: its run and parts. Dropping it ends the run
/// ([`Pool::end`]), also when a job is superseded halfway.
#[derive(Debug)]
pub struct Share {
    pub run: u64,
    pub parts: u32,
}

impl Share {
    /// The helpers' bands that arrived since the last call.
    pub fn take(&self) -> Vec<Chunk> {
        with_pool(|p| Some(p.take(self.run))).unwrap_or_default()
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        with_pool(|p| {
            p.end(self.run);
            Some(())
        });
    }
}

/// Starts sharing a render (see [`Pool::begin`]).
pub fn begin(scene: &Scene, caps: &Caps, images: &BTreeMap<String, Vec<u8>>) -> Option<Share> {
    with_pool(|p| p.begin(scene, caps, images)).map(|(run, parts)| Share { run, parts })
}

/// A render's size for sharing: the largest window or target's area times the longest
/// fragment program, 0 when the scene draws nothing.
pub fn work(scene: &Scene) -> u64 {
    let longest = scene
        .programs
        .values()
        .filter_map(|p| p.fragment.as_ref())
        .map(|sp| sp.program.insts.len() as u64)
        .max()
        .unwrap_or(0);
    let mut area = u64::from(scene.window.0) * u64::from(scene.window.1);
    for (_, c) in &scene.commands {
        if let Command::Window(_, w, h) | Command::NewTarget(_, _, w, h) = c {
            area = area.max(u64::from(*w) * u64::from(*h));
        }
    }
    let draws = scene
        .commands
        .iter()
        .any(|(_, c)| matches!(c, Command::Draw(_)));
    if draws { area * longest } else { 0 }
}

/// How many helpers a render of `work` ([`work`]) uses: `forced` (a test switch), else
/// two fewer than the machine's logical processors (one for the lead, one for the page's
/// own thread and the browser, which paint while a render runs) when the render is worth
/// sharing, at most [`MAX_HELPERS`]. On two processors one helper shares the renders of at
/// least [`WORTH_TWO`]: there it competes with the page's thread, and it paid only on large
/// renders once the page stopped laying out and painting its panels below the output on
/// every frame (BENCHMARKS.md, "Renders over several workers").
pub fn helpers_for(forced: Option<u32>, processors: u32, work: u64) -> u32 {
    let n = match (forced, processors) {
        (Some(n), _) => n,
        (None, 0..=1) => 0,
        (None, 2) => u32::from(work >= WORTH_TWO),
        (None, p) if work >= WORTH => p - 2,
        (None, _) => 0,
    };
    n.min(MAX_HELPERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::engine::{Event, Job, Runner};
    use crate::worker::render::{Rendered, RunResult};
    use hoist_raster::scene::split::Role;
    use hoist_raster::scene::{RunOptions, SceneJob};

    /// Helpers replayed on this thread when a run begins; their bands are handed over
    /// `per_take` at a time, so the lead merges some and takes the rest itself.
    struct Replay {
        parts: u32,
        run: u64,
        chunks: Vec<Chunk>,
        per_take: usize,
        begun: u32,
    }

    impl Pool for Replay {
        fn begin(
            &mut self,
            scene: &Scene,
            caps: &Caps,
            images: &BTreeMap<String, Vec<u8>>,
        ) -> Option<(u64, u32)> {
            self.run += 1;
            self.begun += 1;
            self.chunks.clear();
            // What a helper receives: the scene through the worker's wire format.
            let bytes = crate::worker::engine::pack(scene).ok()?;
            let scene: Scene = crate::worker::engine::unpack(&bytes).ok()?;
            for part in 1..self.parts {
                let opts = RunOptions {
                    caps: caps.clone(),
                    images: images.clone(),
                    tolerance: None,
                };
                let mut job = SceneJob::new(scene.clone(), opts).ok()?;
                job.split(Role::Helper {
                    part,
                    parts: self.parts,
                });
                while !job.progress().done {
                    job.step(4);
                    self.chunks.extend(job.take_chunks());
                }
            }
            Some((self.run, self.parts))
        }

        fn take(&mut self, run: u64) -> Vec<Chunk> {
            if run != self.run {
                return Vec::new();
            }
            let n = self.per_take.min(self.chunks.len());
            self.chunks.drain(..n).collect()
        }

        fn end(&mut self, run: u64) {
            if run == self.run {
                self.chunks.clear();
            }
        }
    }

    fn rendered(id: &str) -> Option<Box<Rendered>> {
        let doc = crate::doc::examples::load(crate::doc::examples::find(id)?);
        let t0 = std::time::Instant::now();
        let job = Job {
            id: 1,
            doc,
            images: Default::default(),
            fail: None,
            force: None,
            fresh: true,
            validation_delay_ms: 0,
            band_workers: None,
        };
        let mut r = Runner::new(job, Box::new(move || t0.elapsed().as_secs_f64() * 1e3));
        r.run_to_end().into_iter().find_map(|e| match e {
            Event::Rendered { rendered, .. } => Some(rendered),
            _ => None,
        })
    }

    fn bits(r: &RunResult) -> Option<(Vec<u32>, hoist_raster::Stats, (usize, usize))> {
        let run = r.as_ref().ok()?;
        let px = run.image.pixels.iter().flatten().map(|v| v.to_bits());
        Some((px.collect(), run.stats, run.probes))
    }

    /// The page's renders with helpers give one worker's images, statistics and probes.
    #[test]
    fn renders_with_helpers_match_one_worker() {
        let mut helped = 0;
        for id in [
            "paper/fig3",
            "paper/gauss13",
            "paper/sort",
            "fluid/advect",
            "graphics/dot3",
        ] {
            install(None);
            let one = rendered(id).unwrap_or_else(|| panic!("{id}: no render"));
            for (parts, per_take) in [(2, 1), (3, 2)] {
                install(Some(Box::new(Replay {
                    parts,
                    run: 0,
                    chunks: Vec::new(),
                    per_take,
                    begun: 0,
                })));
                let shared = rendered(id).unwrap();
                install(None);
                assert_eq!(
                    bits(&one.original),
                    bits(&shared.original),
                    "{id}: original"
                );
                let opt = |r: &Rendered| r.optimized.as_ref().map(bits);
                assert_eq!(opt(&one), opt(&shared), "{id}: optimized");
                for r in [&shared.original, shared.optimized.as_ref().unwrap()] {
                    helped += r.as_ref().map_or(0, |r| r.helped);
                }
            }
            assert_eq!(one.original.as_ref().map(|r| r.helped), Ok(0));
        }
        assert!(helped > 0, "no helper's band reached a render");
    }

    /// Every example's scenes, original and optimized, cross to a helper unchanged: the
    /// programs printed and parsed again, everything else as it is.
    #[test]
    fn scenes_cross_the_wire_unchanged() {
        let mut programs = 0;
        for ex in crate::doc::examples::EXAMPLES {
            let d = crate::doc::examples::load(ex);
            let a = crate::worker::analysis::analyze(&d);
            let Ok(Some(plan)) = crate::worker::render::plan(&d, &a, &Default::default()) else {
                continue;
            };
            for sc in std::iter::once(&plan.original).chain(plan.optimized.as_ref()) {
                let bytes = crate::worker::engine::pack(sc).unwrap();
                let back: Scene = crate::worker::engine::unpack(&bytes)
                    .unwrap_or_else(|e| panic!("{}: {e}", ex.id));
                assert_eq!(back.commands, sc.commands, "{}", ex.id);
                assert_eq!((back.window, &back.meta), (sc.window, &sc.meta));
                assert_eq!(back.programs.len(), sc.programs.len());
                for (name, pair) in &sc.programs {
                    let b = &back.programs[name];
                    for (x, y) in [(&pair.vertex, &b.vertex), (&pair.fragment, &b.fragment)] {
                        assert_eq!(x.is_some(), y.is_some());
                        if let (Some(x), Some(y)) = (x, y) {
                            assert!(
                                x.program.eq_ignoring_spans(&y.program),
                                "{}: program `{name}` changed on the wire",
                                ex.id
                            );
                            assert_eq!((&x.source, x.line), (&y.source, y.line));
                            programs += 1;
                        }
                    }
                }
            }
        }
        assert!(programs > 60, "only {programs} programs crossed");
    }

    /// A shared run's shading times (the lead's, beside its helpers) refine neither
    /// executor's rate; a run drawn alone does.
    #[test]
    fn shared_runs_do_not_calibrate_the_executor_choice() {
        fn clock() -> f64 {
            thread_local!(static T0: std::time::Instant = std::time::Instant::now());
            T0.with(|t| t.elapsed().as_secs_f64() * 1e3)
        }
        hoist_raster::jit::choose::set_clock(Some(clock));
        install(Some(Box::new(Replay {
            parts: 2,
            run: 0,
            chunks: Vec::new(),
            per_take: 1,
            begun: 0,
        })));
        let seen = || {
            let s = crate::worker::choose::calibration().seen;
            s[0] + s[1]
        };
        let before = seen();
        rendered("paper/gauss13").expect("a render");
        assert_eq!(seen(), before, "shared runs refined a rate");
        install(None);
        rendered("paper/gauss13").expect("a render");
        hoist_raster::jit::choose::set_clock(None);
        assert!(seen() > before, "runs drawn alone refine the rates");
    }

    #[test]
    fn small_renders_are_not_shared() {
        let d = crate::doc::examples::load(crate::doc::examples::find("paper/gauss13").unwrap());
        let a = crate::worker::analysis::analyze(&d);
        let sc = crate::worker::render::plan(&d, &a, &Default::default())
            .unwrap()
            .unwrap()
            .original;
        assert!(work(&sc) >= WORTH, "gauss13 at 256² is worth sharing");
        let mut small = sc.clone();
        small.window = (16, 16);
        small
            .commands
            .retain(|(_, c)| !matches!(c, Command::Window(..)));
        assert!(work(&small) < WORTH);
        let w = work(&sc);
        assert_eq!(
            w,
            256 * 256
                * sc.programs[""]
                    .fragment
                    .as_ref()
                    .unwrap()
                    .program
                    .insts
                    .len() as u64
        );
        assert_eq!(
            helpers_for(None, 2, w),
            0,
            "a 256² render is not shared on two processors"
        );
        assert_eq!(helpers_for(None, 2, 1024 * 1024 * 63), 1);
        assert_eq!(helpers_for(None, 4, w), 2);
        assert_eq!(helpers_for(None, 4, work(&small)), 0);
        assert_eq!(helpers_for(None, 64, w), MAX_HELPERS);
        assert_eq!(helpers_for(Some(3), 1, 0), 3);
        assert_eq!(helpers_for(Some(0), 8, u64::MAX), 0);
        assert_eq!(helpers_for(None, 0, u64::MAX), 0);
        assert_eq!(helpers_for(None, 1, u64::MAX), 0);
    }
}

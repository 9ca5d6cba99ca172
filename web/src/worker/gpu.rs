//! The GPU view's plans (issue 23): what the page's GPU worker (`wire::gpu`, started only
//! when the view first runs, so hoist-gpu and naga stay out of what the page loads up
//! front) builds for a document. It parses and optimizes the document as the job's worker
//! does (the same deterministic optimizer and validation, so the same pair), takes the very
//! scenes the exact executor renders (`render::plan`: the document's size, textures,
//! parameters, mirrors) and turns each into a `hoist_gpu::plan::Plan`, the work
//! `crates/gpu/js/runner.mjs` does on WebGPU or WebGL2. For timing the same scenes are
//! planned at another window size (up to [`MAX_TIMING_SIZE`] square). The last document's
//! analysis is kept, so a timing request after the render's does not optimize again.

use crate::doc::Doc;
use crate::worker::analysis::{self, Analysis};
use crate::worker::render::{self, Images};
use hoist_gpu::options::{Options, Output};
use hoist_raster::TargetFormat;
use hoist_raster::scene::{Command, RunOptions, Scene};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Largest timing window (each side).
pub const MAX_TIMING_SIZE: u32 = 4096;

/// A request to the GPU worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GpuJob {
    /// The document revision whose exact render the GPU's is held against.
    pub id: u64,
    /// The page's request number; the reply carries it back.
    pub request: u64,
    pub doc: Doc,
    /// User pictures by unit (PNG bytes); they travel beside the serialized request.
    #[serde(skip)]
    pub images: Images,
    /// Plan the window at this size (timing) instead of the document's.
    pub timing: Option<(u32, u32)>,
}

/// The plans of one document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuPlans {
    /// The original and the optimized scene as runner.mjs reads them (JSON); `None`: there
    /// is no optimized pair.
    pub original: String,
    pub optimized: Option<String>,
    /// The target shown and compared, and its size.
    pub display: String,
    pub size: (u32, u32),
    /// Largest |Δ| of an agreement with the exact image (`hoist_gpu::check`).
    pub tolerance: f32,
    /// Where a GPU may differ from the executor for the displayed pairs: (id, in words).
    pub differences: Vec<(String, String)>,
    /// Milliseconds the worker took, and whether it optimized (or reused its last analysis).
    pub ms: f64,
    pub optimized_again: bool,
}

/// The GPU worker's answer to a request (`wire::gpu` carries it as CBOR beside the request
/// number).
pub type GpuReply = Result<GpuPlans, String>;

/// The last document analysed.
struct Cached {
    id: u64,
    doc: Doc,
    images: Images,
    analysis: Analysis,
}

/// The GPU worker's state: its last analysis.
#[derive(Default)]
pub struct Planner {
    last: Option<Cached>,
}

/// The format of the target a scene shows (a window without `window` is RGBA8).
fn display_format(sc: &Scene, display: &str) -> TargetFormat {
    let mut f = TargetFormat::Rgba8;
    for (_, c) in &sc.commands {
        match c {
            Command::Window(w, ..) if display == "window" => f = *w,
            Command::NewTarget(n, w, ..) if n == display => f = *w,
            _ => {}
        }
    }
    f
}

/// The classes of `hoist_gpu::differences` that apply to the optimized pair of any of
/// `scenes`, in the list's order.
fn differences(scenes: &[&Scene], format: TargetFormat) -> Vec<(String, String)> {
    let opts = Options {
        output: match format {
            TargetFormat::Rgba8 => Output::Unorm8,
            TargetFormat::Rgba32F => Output::Float,
        },
        ..Options::default()
    };
    let mut found = Vec::new();
    for sc in scenes {
        if let Some(pair) = sc.programs.get(sc.optimize_target()) {
            let vp = pair.vertex.as_ref().map(|p| &p.program);
            let fp = pair.fragment.as_ref().map(|p| &p.program);
            found.extend(hoist_gpu::differences::applying(vp, fp, &opts));
        }
    }
    hoist_gpu::differences::ALL
        .iter()
        .filter(|d| found.contains(d))
        .map(|d| (d.id.to_string(), d.what.to_string()))
        .collect()
}

fn json(plan: &hoist_gpu::plan::Plan) -> Result<String, String> {
    serde_json::to_string(plan).map_err(|e| format!("the plan could not be written: {e}"))
}

impl Planner {
    /// The analysis of `job`'s document: the last one when it is the same document.
    fn analysis(&mut self, job: &GpuJob) -> (&Cached, bool) {
        let hit = self
            .last
            .as_ref()
            .is_some_and(|c| c.id == job.id && c.doc == job.doc && c.images == job.images);
        if !hit {
            let mut a = analysis::parse(&job.doc);
            a.outcome = analysis::optimize(&job.doc, &a)
                .and_then(Result::ok)
                .map(|v| Rc::new(v.outcome));
            self.last = Some(Cached {
                id: job.id,
                doc: job.doc.clone(),
                images: job.images.clone(),
                analysis: a,
            });
        }
        (self.last.as_ref().expect("just set"), !hit)
    }

    /// The plans of a request (`clock` gives milliseconds).
    pub fn answer(&mut self, job: &GpuJob, clock: &dyn Fn() -> f64) -> Result<GpuPlans, String> {
        let t0 = clock();
        let side = 1..=MAX_TIMING_SIZE;
        if let Some((w, h)) = job.timing
            && !(side.contains(&w) && side.contains(&h))
        {
            return Err(format!(
                "a timing window of {w}×{h}: each side must be 1 to {MAX_TIMING_SIZE}"
            ));
        }
        let (c, again) = self.analysis(job);
        let mut doc = c.doc.clone();
        if let Some((w, h)) = job.timing {
            doc.inputs.width = w;
            doc.inputs.height = h;
        }
        let plan = render::plan(&doc, &c.analysis, &c.images)?
            .ok_or("nothing to render until both programs parse")?;
        let opts = RunOptions {
            caps: render::caps(),
            images: plan.images.clone(),
            tolerance: None,
        };
        let gpu = |sc: &Scene, which: &str| {
            hoist_gpu::plan::plan(sc, &opts)
                .map_err(|e| format!("the GPU cannot draw the {which} pair here: {e}"))
                .and_then(|p| json(&p))
        };
        let original = gpu(&plan.original, "original")?;
        let optimized = plan
            .optimized
            .as_ref()
            .map(|sc| gpu(sc, "optimized"))
            .transpose()?;
        let format = display_format(&plan.original, &plan.display);
        let scenes: Vec<&Scene> = std::iter::once(&plan.original)
            .chain(plan.optimized.as_ref())
            .collect();
        Ok(GpuPlans {
            original,
            optimized,
            size: (doc.inputs.width, doc.inputs.height),
            tolerance: match format {
                TargetFormat::Rgba8 => hoist_gpu::check::RGBA8_TOLERANCE,
                TargetFormat::Rgba32F => hoist_gpu::check::FLOAT_TOLERANCE,
            },
            differences: differences(&scenes, format),
            display: plan.display,
            ms: clock() - t0,
            optimized_again: again,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::examples;
    use serde_json::Value;

    fn clock() -> f64 {
        0.0
    }

    fn job(id: u64, name: &str, timing: Option<(u32, u32)>) -> GpuJob {
        GpuJob {
            id,
            request: id,
            doc: examples::load(examples::find(name).unwrap()),
            images: Images::new(),
            timing,
        }
    }

    fn window(plan: &str) -> (u64, u64, usize) {
        let v: Value = serde_json::from_str(plan).unwrap();
        let cmds = v["commands"].as_array().unwrap();
        let t = cmds
            .iter()
            .find(|c| c["op"] == "target" && c["name"] == "window")
            .unwrap();
        let draws = cmds.iter().filter(|c| c["op"] == "draw").count();
        (
            t["width"].as_u64().unwrap(),
            t["height"].as_u64().unwrap(),
            draws,
        )
    }

    /// Figure 3: both pairs planned at the document's size; the optimized plan's fragment
    /// shader is shorter (the address arithmetic moved out) and its vertex shader longer.
    #[test]
    fn figure_3_is_planned_both_ways_at_the_documents_size() {
        let mut p = Planner::default();
        let j = job(3, "paper/fig3", None);
        let g = p.answer(&j, &clock).unwrap();
        assert!(g.optimized_again);
        assert_eq!(g.display, "window");
        assert_eq!(g.size, (j.doc.inputs.width, j.doc.inputs.height));
        assert_eq!(g.tolerance, hoist_gpu::check::FLOAT_TOLERANCE);
        let (w, h, draws) = window(&g.original);
        assert_eq!((w, h, draws), (256, 256, 1));
        let opt = g.optimized.as_deref().unwrap();
        assert_eq!(window(opt), (256, 256, 1));
        // The fragment shader's instructions (one comment each): 16 → 7 slots.
        let fragment = |plan: &str| {
            let v: Value = serde_json::from_str(plan).unwrap();
            let wgsl = v["programs"][0]["wgsl"].as_str().unwrap().to_string();
            let body = &wgsl[wgsl.find("fn f_main()").unwrap()..];
            let body = &body[..body.find("\n}").unwrap()];
            body.lines()
                .filter(|l| l.trim_start().starts_with("// "))
                .count()
        };
        let (a, b) = (fragment(&g.original), fragment(opt));
        assert!(b < a && b > 0, "fragment instructions {a} -> {b}");
        let ids: Vec<&str> = g.differences.iter().map(|d| d.0.as_str()).collect();
        assert!(ids.contains(&"texture-filtering") && ids.contains(&"interpolation"));
        assert!(!ids.contains(&"cube-maps") && !ids.contains(&"rgba8-targets"));
    }

    /// A timing request for the same revision reuses the analysis and plans the window at
    /// the asked size; sizes out of range are refused in words.
    #[test]
    fn timing_reuses_the_analysis_and_resizes_the_window() {
        let mut p = Planner::default();
        p.answer(&job(7, "paper/gauss13", None), &clock).unwrap();
        let t = p
            .answer(&job(7, "paper/gauss13", Some((4096, 4096))), &clock)
            .unwrap();
        assert!(!t.optimized_again);
        assert_eq!(t.size, (4096, 4096));
        assert_eq!(window(&t.original).0, 4096);
        assert_eq!(window(t.optimized.as_deref().unwrap()).1, 4096);
        for bad in [(4097, 16), (0, 16), (16, 5000)] {
            let e = p
                .answer(&job(7, "paper/gauss13", Some(bad)), &clock)
                .unwrap_err();
            assert!(e.contains("each side must be 1 to 4096"), "{e}");
        }
        // Another revision optimizes again.
        let again = p.answer(&job(8, "paper/gauss13", None), &clock).unwrap();
        assert!(again.optimized_again);
    }

    #[test]
    fn a_broken_pair_or_scene_is_an_error_in_words() {
        let mut p = Planner::default();
        let mut j = job(1, "paper/fig3", None);
        j.doc.fp = "ps_2_0\nmov oC0, r0,\n".into();
        let e = p.answer(&j, &clock).unwrap_err();
        assert!(e.contains("parse"), "{e}");
        let mut j = job(2, "paper/fig3", None);
        j.doc.scene = Some("[test]\ndraw sideways\n".into());
        let e = p.answer(&j, &clock).unwrap_err();
        assert!(e.starts_with("scene:"), "{e}");
    }

    #[test]
    fn replies_survive_serialization() {
        let mut p = Planner::default();
        let g: GpuReply = p.answer(&job(3, "paper/fig3", None), &clock);
        let bytes = crate::worker::engine::to_bytes(&g).unwrap();
        let back: GpuReply = crate::worker::engine::from_bytes(&bytes).unwrap();
        assert_eq!(back, g);
        assert!(back.is_ok());
        let e: GpuReply = Err("superseded".into());
        let back: GpuReply =
            crate::worker::engine::from_bytes(&crate::worker::engine::to_bytes(&e).unwrap())
                .unwrap();
        assert_eq!(back, e);
        assert!(crate::worker::engine::from_bytes::<GpuReply>(&bytes[..bytes.len() / 2]).is_err());
    }
}

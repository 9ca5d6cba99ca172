//! The GPU view's logic (issue 23), as plain values the component draws: which API runs
//! (WebGPU where the browser has it, WebGL2 otherwise, or a note that neither exists), the
//! GPU's images held against the exact executor's in words (max |Δ|, where, within which
//! tolerance), and the timings summarised (medians, interquartile spread, the ratio, and
//! what a ratio of about 1 means). The exact executor judges the verdict; nothing here
//! changes it.

use crate::worker::gpu::GpuPlans;
use hoist_gpu::check::Agreement;
use hoist_raster::image::Image;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The API the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApiChoice {
    /// WebGPU where the browser has it, WebGL2 otherwise.
    #[default]
    Auto,
    WebGpu,
    WebGl2,
}

impl ApiChoice {
    pub fn id(self) -> &'static str {
        match self {
            ApiChoice::Auto => "auto",
            ApiChoice::WebGpu => "webgpu",
            ApiChoice::WebGl2 => "webgl2",
        }
    }

    pub fn from_id(s: &str) -> ApiChoice {
        match s {
            "webgpu" => ApiChoice::WebGpu,
            "webgl2" => ApiChoice::WebGl2,
            _ => ApiChoice::Auto,
        }
    }
}

/// What runner.mjs's `detect()` found.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Detected {
    /// The WebGPU adapter's name, or the WebGL2 renderer's, where the API works.
    #[serde(default)]
    pub webgpu: Option<String>,
    #[serde(default)]
    pub webgl2: Option<String>,
    /// WebGPU's `timestamp-query`, WebGL2's `EXT_disjoint_timer_query_webgl2`.
    #[serde(default)]
    pub timestamps: bool,
    #[serde(default)]
    pub timer: bool,
    /// Why an API is missing, by API.
    #[serde(default)]
    pub why: BTreeMap<String, String>,
}

/// An API to run on: its runner name, its name for people and the device's name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chosen {
    pub api: &'static str,
    pub label: &'static str,
    pub adapter: String,
}

fn why(d: &Detected, api: &str) -> String {
    d.why
        .get(api)
        .cloned()
        .unwrap_or_else(|| "not offered".into())
}

/// The API to run on, or why there is none.
pub fn choose(choice: ApiChoice, d: &Detected) -> Result<Chosen, String> {
    let webgpu = d.webgpu.as_ref().map(|a| Chosen {
        api: "webgpu",
        label: "WebGPU",
        adapter: a.clone(),
    });
    let webgl2 = d.webgl2.as_ref().map(|a| Chosen {
        api: "webgl2",
        label: "WebGL2",
        adapter: a.clone(),
    });
    match choice {
        ApiChoice::Auto => webgpu.or(webgl2).ok_or_else(|| {
            format!(
                "Neither WebGPU nor WebGL2 with float render targets is available in this \
                 browser (WebGPU: {}; WebGL2: {}), so the GPU view cannot render here. The \
                 exact executor's render and its verdict above do not need either.",
                why(d, "webgpu"),
                why(d, "webgl2")
            )
        }),
        ApiChoice::WebGpu => {
            webgpu.ok_or_else(|| format!("WebGPU is not available here: {}", why(d, "webgpu")))
        }
        ApiChoice::WebGl2 => webgl2.ok_or_else(|| {
            format!(
                "WebGL2 with float render targets is not available here: {}",
                why(d, "webgl2")
            )
        }),
    }
}

const CHANNELS: [&str; 4] = ["R", "G", "B", "A"];

/// A tolerance as the documents state it (1/255 for RGBA8 targets).
pub fn tolerance_words(t: f32) -> String {
    if (t - hoist_gpu::check::RGBA8_TOLERANCE).abs() < 1e-9 {
        "1/255".into()
    } else {
        format!("{t:e}")
    }
}

fn fmt4(v: [f32; 4]) -> String {
    format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3])
}

/// The agreement of a GPU image with the exact one, for people and for scripts.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgreeView {
    pub agrees: bool,
    pub max_abs: f32,
    /// (x, y, channel) of the largest |Δ|, rows from the bottom as the executor counts.
    pub at: Option<(u32, u32, String)>,
    pub tolerance: f32,
    /// Pixels over the tolerance, of all.
    pub over: u64,
    pub pixels: u64,
    pub words: String,
}

/// Words for an agreement at `tolerance` (max |Δ| and where; NaN against a number counts
/// as infinite).
pub fn agree_view(a: &Agreement, tolerance: f32) -> AgreeView {
    let agrees = a.max_abs <= tolerance;
    let at = a.at.map(|(x, y, c)| (x, y, CHANNELS[c.min(3)].to_string()));
    let place = match &at {
        Some((x, y, c)) => format!(
            " at ({x}, {y}) channel {c}: exact {}, GPU {}",
            fmt4(a.exact),
            fmt4(a.gpu)
        ),
        None => String::new(),
    };
    let tol = tolerance_words(tolerance);
    let words = if a.max_abs == 0.0 {
        "identical: every channel of every pixel is the executor's".to_string()
    } else if agrees {
        format!("agrees within {tol}: max |Δ| = {:.3e}{place}", a.max_abs)
    } else {
        format!(
            "differs: max |Δ| = {:.3e}{place}; {} of {} pixels over {tol}",
            a.max_abs, a.over, a.pixels
        )
    };
    AgreeView {
        agrees,
        max_abs: a.max_abs,
        at,
        tolerance,
        over: a.over,
        pixels: a.pixels,
        words,
    }
}

/// The timing knobs runner.mjs's `time()` takes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TimingSpec {
    /// Interleaved rounds kept (each times original and optimized once), after `warmup`.
    pub rounds: u32,
    pub warmup: u32,
    /// Draws of the plan per sample (a sample's time is divided by it).
    pub repeat: u32,
}

impl TimingSpec {
    pub const NORMAL: TimingSpec = TimingSpec {
        rounds: 15,
        warmup: 2,
        repeat: 1,
    };
    /// The heavier variant: many draws per sample, out of the fixed cost of a submit.
    pub const HEAVIER: TimingSpec = TimingSpec {
        rounds: 9,
        warmup: 1,
        repeat: 12,
    };
}

/// What runner.mjs's `time()` returns.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct RawTiming {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub api: String,
    #[serde(default)]
    pub adapter: Option<String>,
    #[serde(default)]
    pub method: String,
    /// ms per pass of the plan's draws by the GPU's clock, original then optimized.
    #[serde(default)]
    pub gpu: Option<Vec<Vec<f64>>>,
    /// The same by wall time around a finish.
    #[serde(default)]
    pub wall: Vec<Vec<f64>>,
    #[serde(default)]
    pub quantized: bool,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub draws: Vec<u32>,
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
    #[serde(default)]
    pub repeat: u32,
}

/// A sample's median and interquartile range.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stat {
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    pub n: usize,
}

/// Quartiles by linear interpolation between order statistics.
pub fn stat(xs: &[f64]) -> Option<Stat> {
    let mut s: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    hoist_asm::sort::by(&mut s, f64::total_cmp);
    let q = |p: f64| {
        let at = p * (s.len() - 1) as f64;
        let (i, f) = (at.floor() as usize, at.fract());
        s[i] + (s[(i + 1).min(s.len() - 1)] - s[i]) * f
    };
    Some(Stat {
        median: q(0.5),
        q1: q(0.25),
        q3: q(0.75),
        n: s.len(),
    })
}

/// A timing as the view states it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimingView {
    pub api: String,
    pub adapter: Option<String>,
    /// `timestamp-query`, `EXT_disjoint_timer_query_webgl2` or `wall`, and in words.
    pub method: String,
    pub method_words: String,
    pub original: Stat,
    pub optimized: Stat,
    /// optimized / original medians.
    pub ratio: f64,
    /// The interquartile ranges overlap: the ratio is 1 within the spread.
    pub same: bool,
    pub width: u32,
    pub height: u32,
    pub repeat: u32,
    /// "on your GPU: original X ms, optimized Y ms (ratio)".
    pub headline: String,
    pub explanation: String,
    pub notes: Vec<String>,
}

fn ms(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.1} ms")
    } else if x >= 0.1 {
        format!("{x:.2} ms")
    } else {
        format!("{:.1} µs", x * 1e3)
    }
}

fn wall_words(api: &str) -> &'static str {
    if api == "webgl2" {
        "wall time around a finish (gl.finish and a readPixels of 1 pixel): no \
         EXT_disjoint_timer_query_webgl2 here"
    } else {
        "wall time around a finish (submit, then onSubmittedWorkDone): no timestamp-query here"
    }
}

/// Medians and spreads of a timing, the ratio, the method in words and the explanation.
pub fn summarize(raw: &RawTiming) -> Result<TimingView, String> {
    if let Some(e) = &raw.error {
        return Err(e.clone());
    }
    let pair =
        |v: &[Vec<f64>]| -> Option<[Stat; 2]> { Some([stat(v.first()?)?, stat(v.get(1)?)?]) };
    let mut notes = Vec::new();
    if let Some(n) = &raw.note {
        notes.push(n.clone());
    }
    let by_gpu = raw.gpu.as_deref().and_then(pair);
    let (method, method_words, stats) = match by_gpu {
        Some(s) if s[0].median > 0.0 && s[1].median > 0.0 => {
            let words = if raw.method == "timestamp-query" {
                "GPU timestamps (WebGPU timestamp-query) at the start of the first pass and \
                 the end of the last"
            } else {
                "GPU time elapsed (EXT_disjoint_timer_query_webgl2)"
            };
            if raw.quantized {
                notes.push(
                    "the browser rounds GPU timestamps to 0.1 ms; the heavier variant \
                     measures many draws at once"
                        .into(),
                );
            }
            (raw.method.clone(), words.to_string(), s)
        }
        gpu => {
            let s = pair(raw.wall.as_slice()).ok_or("the timing returned no samples")?;
            let words = if gpu.is_some() {
                notes.push(
                    "the GPU's clock read 0 (below the browser's timestamp resolution): wall \
                     time is shown instead"
                        .into(),
                );
                "wall time around a finish (the GPU's timestamps were below their resolution)"
            } else {
                wall_words(&raw.api)
            };
            ("wall".to_string(), words.to_string(), s)
        }
    };
    let [a, b] = stats;
    let ratio = b.median / a.median;
    let same = a.q1 <= b.q3 && b.q1 <= a.q3;
    let on = raw
        .adapter
        .as_ref()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    let headline = format!(
        "on your GPU{on}: original {}, optimized {} ({ratio:.3}×)",
        ms(a.median),
        ms(b.median)
    );
    let explanation = if same {
        "The ratio is 1 within the spread: the fragment instructions the optimization removed \
         do not show. At this size a draw costs about the same whatever its shader does: a \
         fixed cost per draw (the submit, the pass, rasterizer setup), or memory — writing \
         16-byte RGBA32F pixels, fetching texels — bounds it, not the arithmetic (the draw \
         is bandwidth- or fetch-bound, not ALU-bound). The heavier variant (more pixels, \
         repeated draws) gets out of the fixed costs."
            .to_string()
    } else if ratio < 1.0 {
        format!(
            "The optimized pair takes {:.0}% less time: this GPU is bound by the fragment \
             program's arithmetic here, which the code motion reduced.",
            (1.0 - ratio) * 100.0
        )
    } else {
        format!(
            "The optimized pair takes {:.0}% more time: the moved work (more vertex work, \
             more interpolants) costs this GPU more than the fragment instructions it saves.",
            (ratio - 1.0) * 100.0
        )
    };
    let draws = raw.draws.first().copied().unwrap_or(1);
    if draws > 1 {
        notes.push(format!(
            "the scene has {draws} draws; a time is for all of them once"
        ));
    }
    Ok(TimingView {
        api: raw.api.clone(),
        adapter: raw.adapter.clone(),
        method,
        method_words,
        original: a,
        optimized: b,
        ratio,
        same,
        width: raw.width,
        height: raw.height,
        repeat: raw.repeat,
        headline,
        explanation,
        notes,
    })
}

/// One pair's GPU render and its agreement with the exact image.
#[derive(Clone, Debug)]
pub struct GpuRun {
    pub image: Rc<Image>,
    pub agree: Option<AgreeView>,
}

/// The view's state for one revision.
#[derive(Clone, Debug, Default)]
pub struct View {
    pub open: bool,
    pub choice: ApiChoice,
    /// `None`: not asked yet.
    pub detected: Option<Result<Rc<Detected>, String>>,
    /// The revision the results below belong to.
    pub rev: u64,
    pub chosen: Option<Chosen>,
    /// What is under way ("building the GPU plans…"), or `None`.
    pub status: Option<String>,
    pub error: Option<String>,
    pub plans: Option<Rc<GpuPlans>>,
    pub runs: [Option<Result<GpuRun, String>>; 2],
    /// The side of the timing window (0: the document's size).
    pub size: u32,
    pub timing: Option<Result<Rc<TimingView>, String>>,
    pub timing_busy: bool,
}

/// A change of the view (results carry their revision; older ones are dropped).
#[derive(Clone, Debug)]
pub enum Msg {
    Toggle,
    Choose(ApiChoice),
    Size(u32),
    Detected(Result<Rc<Detected>, String>),
    /// A render of revision `rev` starts on `chosen`.
    Start(u64, Chosen),
    Status(u64, String),
    Planned(u64, Rc<GpuPlans>),
    Ran(u64, usize, Result<GpuRun, String>),
    Failed(u64, String),
    Timing(u64),
    Timed(u64, Result<Rc<TimingView>, String>),
}

impl View {
    pub fn apply(&mut self, m: Msg) {
        match m {
            Msg::Toggle => self.open = !self.open,
            Msg::Choose(c) => {
                self.choice = c;
                // The next render runs on the new choice.
                self.rev = 0;
            }
            Msg::Size(s) => self.size = s,
            Msg::Detected(d) => self.detected = Some(d),
            Msg::Start(rev, chosen) => {
                *self = View {
                    open: self.open,
                    choice: self.choice,
                    detected: self.detected.take(),
                    size: self.size,
                    rev,
                    chosen: Some(chosen),
                    ..View::default()
                };
            }
            Msg::Status(rev, s) if rev == self.rev => self.status = Some(s),
            Msg::Planned(rev, p) if rev == self.rev => self.plans = Some(p),
            Msg::Ran(rev, k, r) if rev == self.rev && k < 2 => {
                self.runs[k] = Some(r);
                let expected = match &self.plans {
                    Some(p) if p.optimized.is_none() => 1,
                    _ => 2,
                };
                if self.runs.iter().flatten().count() >= expected {
                    self.status = None;
                }
            }
            Msg::Failed(rev, e) if rev == self.rev => {
                self.error = Some(e);
                self.status = None;
            }
            Msg::Timing(rev) if rev == self.rev => {
                self.timing_busy = true;
                self.timing = None;
            }
            Msg::Timed(rev, t) if rev == self.rev => {
                self.timing_busy = false;
                self.timing = Some(t);
            }
            _ => {}
        }
    }

    /// Why the view cannot run (no API, or the runner could not load), once detected.
    pub fn unavailable(&self) -> Option<String> {
        match self.detected.as_ref()? {
            Err(e) => Some(format!("the GPU runner could not be loaded: {e}")),
            Ok(d) => choose(self.choice, d).err(),
        }
    }

    /// The report for `hoistReport()`; `rev` is the page's render revision and `ready`
    /// whether that render is finished (the results are current when they belong to it).
    pub fn report(&self, rev: u64, ready: bool) -> GpuReport {
        let agree = |k: usize| {
            self.runs[k]
                .as_ref()
                .and_then(|r| r.as_ref().ok())
                .and_then(|r| r.agree.clone())
        };
        let err = |k: usize| {
            self.runs[k]
                .as_ref()
                .and_then(|r| r.as_ref().err().cloned())
        };
        GpuReport {
            open: self.open,
            current: ready && self.rev == rev,
            api: self.chosen.as_ref().map(|c| c.api.to_string()),
            adapter: self.chosen.as_ref().map(|c| c.adapter.clone()),
            unavailable: self.unavailable(),
            busy: self.status.is_some() || self.timing_busy,
            error: self.error.clone(),
            agreement: [agree(0), agree(1)],
            run_errors: [err(0), err(1)],
            differences: self
                .plans
                .as_ref()
                .map(|p| p.differences.iter().map(|d| d.0.clone()).collect())
                .unwrap_or_default(),
            timing: self
                .timing
                .as_ref()
                .and_then(|t| t.as_ref().ok())
                .map(|t| (**t).clone()),
            timing_error: self.timing.as_ref().and_then(|t| t.as_ref().err().cloned()),
        }
    }
}

/// The view for `hoistReport().gpu` (scripts, the end-to-end test).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuReport {
    pub open: bool,
    /// The results below belong to the page's current render.
    pub current: bool,
    pub api: Option<String>,
    pub adapter: Option<String>,
    pub unavailable: Option<String>,
    pub busy: bool,
    pub error: Option<String>,
    /// Original, optimized.
    pub agreement: [Option<AgreeView>; 2],
    pub run_errors: [Option<String>; 2],
    pub differences: Vec<String>,
    pub timing: Option<TimingView>,
    pub timing_error: Option<String>,
}

thread_local! {
    static REPORT: RefCell<GpuReport> = RefCell::new(GpuReport::default());
}

/// Keeps the view's report for `hoistReport()`.
pub fn set_report(r: GpuReport) {
    REPORT.with(|x| *x.borrow_mut() = r);
}

pub fn report() -> GpuReport {
    REPORT.with(|x| x.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detected(webgpu: bool, webgl2: bool) -> Detected {
        Detected {
            webgpu: webgpu.then(|| "google swiftshader".into()),
            webgl2: webgl2.then(|| "ANGLE (SwiftShader)".into()),
            why: BTreeMap::from([
                ("webgpu".into(), "no WebGPU adapter".into()),
                ("webgl2".into(), "no WebGL2 in this browser".into()),
            ]),
            ..Detected::default()
        }
    }

    #[test]
    fn webgpu_first_then_webgl2_then_a_note() {
        let c = choose(ApiChoice::Auto, &detected(true, true)).unwrap();
        assert_eq!(
            (c.api, c.adapter.as_str()),
            ("webgpu", "google swiftshader")
        );
        let c = choose(ApiChoice::Auto, &detected(false, true)).unwrap();
        assert_eq!(c.api, "webgl2");
        let c = choose(ApiChoice::WebGl2, &detected(true, true)).unwrap();
        assert_eq!(c.label, "WebGL2");
        let e = choose(ApiChoice::Auto, &detected(false, false)).unwrap_err();
        assert!(e.starts_with("Neither WebGPU nor WebGL2"), "{e}");
        assert!(e.contains("no WebGPU adapter") && e.contains("no WebGL2 in this browser"));
        let e = choose(ApiChoice::WebGpu, &detected(false, true)).unwrap_err();
        assert_eq!(e, "WebGPU is not available here: no WebGPU adapter");
        // The runner's answer as JavaScript gives it.
        let d: Detected = serde_json::from_str(
            r#"{"webgpu":null,"webgl2":"ANGLE","timestamps":false,"timer":true,"why":{"webgpu":"no WebGPU in this browser"}}"#,
        )
        .unwrap();
        assert_eq!(choose(ApiChoice::Auto, &d).unwrap().api, "webgl2");
        assert!(d.timer);
    }

    fn img(px: Vec<[f32; 4]>, w: u32) -> Image {
        Image {
            width: w,
            height: px.len() as u32 / w,
            pixels: px,
        }
    }

    #[test]
    fn agreements_in_words() {
        let exact = img(vec![[0.5, 0.25, 0.0, 1.0]; 4], 2);
        let mut gpu = exact.clone();
        let a = hoist_gpu::check::agreement(&exact, &gpu, 2e-3).unwrap();
        let v = agree_view(&a, 2e-3);
        assert!(v.agrees && v.at.is_none());
        assert!(v.words.starts_with("identical"), "{}", v.words);
        gpu.pixels[3][1] = 0.2505;
        let a = hoist_gpu::check::agreement(&exact, &gpu, 2e-3).unwrap();
        let v = agree_view(&a, 2e-3);
        assert!(v.agrees);
        assert_eq!(v.at, Some((1, 1, "G".into())));
        assert!(
            v.words
                .starts_with("agrees within 2e-3: max |Δ| = 5.000e-4 at (1, 1) channel G"),
            "{}",
            v.words
        );
        gpu.pixels[2][3] = f32::NAN;
        let a = hoist_gpu::check::agreement(&exact, &gpu, 2e-3).unwrap();
        let v = agree_view(&a, 2e-3);
        assert!(!v.agrees && v.max_abs.is_infinite());
        assert_eq!(v.at, Some((0, 1, "A".into())));
        assert!(
            v.words.ends_with("; 1 of 4 pixels over 2e-3"),
            "{}",
            v.words
        );
        assert_eq!(tolerance_words(hoist_gpu::check::RGBA8_TOLERANCE), "1/255");
    }

    #[test]
    fn quartiles() {
        let s = stat(&[4.0, 1.0, 3.0, 2.0, 5.0]).unwrap();
        assert_eq!((s.median, s.q1, s.q3, s.n), (3.0, 2.0, 4.0, 5));
        let s = stat(&[1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.q1, s.q3), (1.5, 1.25, 1.75));
        assert!(stat(&[]).is_none() && stat(&[f64::NAN]).is_none());
    }

    fn raw(gpu: Option<[Vec<f64>; 2]>, wall: [Vec<f64>; 2]) -> RawTiming {
        RawTiming {
            api: "webgpu".into(),
            adapter: Some("google swiftshader".into()),
            method: if gpu.is_some() {
                "timestamp-query"
            } else {
                "wall"
            }
            .into(),
            gpu: gpu.map(|g| g.to_vec()),
            wall: wall.to_vec(),
            draws: vec![1, 1],
            width: 256,
            height: 256,
            repeat: 1,
            ..RawTiming::default()
        }
    }

    #[test]
    fn a_ratio_within_the_spread_is_explained() {
        let t = summarize(&raw(
            Some([vec![2.0, 2.1, 1.9, 2.0], vec![1.98, 2.02, 2.1, 1.95]]),
            [vec![5.0; 4], vec![5.0; 4]],
        ))
        .unwrap();
        assert_eq!(t.method, "timestamp-query");
        assert!(t.same, "{t:?}");
        assert!(
            t.headline.starts_with(
                "on your GPU (google swiftshader): original 2.00 ms, optimized 2.00 ms (1.000×)"
            ),
            "{}",
            t.headline
        );
        assert!(t.explanation.contains("not ALU-bound"), "{}", t.explanation);
        // Clearly apart: ALU-bound, and the ratio says by how much.
        let t = summarize(&raw(
            Some([vec![10.0, 10.2, 9.9, 10.1], vec![6.0, 6.1, 5.9, 6.05]]),
            [vec![5.0; 4], vec![5.0; 4]],
        ))
        .unwrap();
        assert!(!t.same && (t.ratio - 6.025 / 10.05).abs() < 1e-9);
        assert!(
            t.explanation
                .starts_with("The optimized pair takes 40% less time"),
            "{}",
            t.explanation
        );
    }

    #[test]
    fn wall_time_when_the_gpu_clock_is_missing_or_too_coarse() {
        let t = summarize(&raw(None, [vec![3.0, 3.2, 2.9], vec![3.1, 3.0, 3.3]])).unwrap();
        assert_eq!(t.method, "wall");
        assert!(
            t.method_words.contains("onSubmittedWorkDone"),
            "{}",
            t.method_words
        );
        let mut r = raw(None, [vec![3.0], vec![3.1]]);
        r.api = "webgl2".into();
        assert!(
            summarize(&r)
                .unwrap()
                .method_words
                .contains("readPixels of 1 pixel")
        );
        // Timestamps rounded to 0 by the browser: wall time, and a note why.
        let mut r = raw(
            Some([vec![0.0; 3], vec![0.0; 3]]),
            [vec![1.0; 3], vec![1.1; 3]],
        );
        r.quantized = true;
        let t = summarize(&r).unwrap();
        assert_eq!(t.method, "wall");
        assert!(
            t.notes
                .iter()
                .any(|n| n.contains("below the browser's timestamp resolution"))
        );
        let e = summarize(&RawTiming {
            error: Some("out of GPU memory".into()),
            ..RawTiming::default()
        })
        .unwrap_err();
        assert_eq!(e, "out of GPU memory");
        assert!(summarize(&RawTiming::default()).is_err());
    }

    #[test]
    fn results_of_an_older_revision_are_dropped() {
        let mut v = View::default();
        let c = choose(ApiChoice::Auto, &detected(true, false)).unwrap();
        v.apply(Msg::Start(4, c.clone()));
        v.apply(Msg::Status(4, "planning".into()));
        v.apply(Msg::Start(5, c));
        v.apply(Msg::Ran(4, 0, Err("old".into())));
        v.apply(Msg::Status(4, "old".into()));
        assert!(v.runs[0].is_none() && v.status.is_none());
        v.apply(Msg::Ran(5, 0, Err("shader rejected".into())));
        let r = v.report(5, true);
        assert_eq!(r.run_errors[0].as_deref(), Some("shader rejected"));
        assert_eq!(r.api.as_deref(), Some("webgpu"));
        assert!(r.current && !v.report(6, true).current && !v.report(5, false).current);
    }
}

//! The optimizer and the renderer as jobs: what the page's worker runs, as plain logic.
//!
//! A [`Job`] is a document revision and the user's pictures. [`Runner`] turns it into
//! [`Event`]s, one bounded piece of work per [`Runner::step`]: first the parse, the
//! optimizer and its validation in one go ([`Event::Optimized`]), then the two renders a
//! few bands at a time ([`Runner::progress`] between steps), and last both images with
//! their verdict and heat map ([`Event::Rendered`]). A plan over the work cap
//! ([`work::check`]) fails before anything renders. A document in the linear-expression
//! mode is two steps instead: the seeds' answer (`linear::run_seeds`) and the whole search
//! (`linear::run`), each an [`Event::Linear`]. The runner only needs a clock, so it
//! runs natively in tests; `worker` (wasm) moves jobs and events between the page and the
//! worker thread, and `bridge` is the page's end.

use crate::doc::Doc;
use crate::worker::analysis::{self, OptResult};
use crate::worker::guidance;
use crate::worker::render::{self, Images, Phase, Rendered, Task};
use crate::worker::work;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Work of one document revision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The document revision; every event of the job carries it back.
    pub id: u64,
    pub doc: Doc,
    /// User pictures by unit (PNG bytes); they travel beside the serialized job.
    #[serde(skip)]
    pub images: Images,
    /// Test-only: fail on purpose (see `app::TEST_FAILURE_KEY`); never set by the document.
    pub fail: Option<Fail>,
    /// Test-only: make the compiled executor refuse (see `app::TEST_EXECUTOR_KEY`).
    #[serde(default)]
    pub force: Option<crate::worker::executor::Force>,
    /// Draw both runs again rather than reuse kept ones ("time again").
    #[serde(default)]
    pub fresh: bool,
    /// Test-only: validation's answer this many ms after the images (see
    /// `app::TEST_VALIDATION_DELAY_KEY`).
    #[serde(default)]
    pub validation_delay_ms: u32,
    /// Test-only: this many helper workers share every render (see
    /// `app::TEST_BAND_WORKERS_KEY`; `None`: one per spare processor, large renders only).
    #[serde(default)]
    pub band_workers: Option<u32>,
}

/// A forced failure of the worker, for tests of the page's recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fail {
    /// A Rust panic in the job (the panic hook reports it).
    Panic,
    /// A JavaScript exception out of the job (no panic hook involved).
    Throw,
}

/// Messages to the worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Request {
    /// Start a job; it supersedes (cancels) the one under way.
    Run(Box<Job>),
    /// Stop the job under way: its results would be dropped anyway.
    Cancel,
    /// Trace pixel (`x`, `y`) of job `id`'s render (the pixel debugger): answered with
    /// [`Event::Traced`] from the plan the finished job kept.
    Trace { id: u64, x: u32, y: u32 },
    /// The linear mode's debugger: x vector `vector` (0-based) traced through the code of
    /// the groupings `orders` (original, packed) of `doc`'s system; answered with
    /// [`Event::LinearTraced`].
    LinearTrace {
        id: u64,
        doc: Box<crate::worker::linear::LinearDoc>,
        orders: Box<[Vec<usize>; 2]>,
        vector: usize,
    },
}

/// Messages from the worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Event {
    /// The worker is up and listening.
    Ready,
    /// The optimizer's validated result as the page shows it (`None`: the pair does not
    /// parse) and the time parse, optimization, validation and annotation took (ms).
    Optimized {
        id: u64,
        result: Option<OptResult>,
        ms: f64,
    },
    /// Render progress in [0, 1].
    Progress { id: u64, fraction: f64 },
    /// Both renders, compared.
    Rendered { id: u64, rendered: Box<Rendered> },
    /// Nothing could be rendered (a broken scene, a pair that does not parse).
    RenderFailed { id: u64, error: String },
    /// The worker died: its panic message, or why it could not run.
    Crashed { message: String },
    /// A linear-expression job's result (`crate::worker::linear::run`) and its time (ms).
    Linear {
        id: u64,
        result: Box<Result<crate::worker::linear::Outcome, String>>,
        ms: f64,
    },
    /// A traced pixel of job `id`'s render (`crate::worker::debug`).
    Traced {
        id: u64,
        x: u32,
        y: u32,
        view: Box<Result<crate::worker::debug::DebugView, String>>,
    },
    /// A traced x vector of job `id`'s linear system (`crate::worker::linear_debug`).
    LinearTraced {
        id: u64,
        vector: usize,
        view: Box<Result<crate::worker::linear_debug::LinearDebugView, String>>,
    },
    /// Validation's answer for the result sent unvalidated ([`analysis::Optimized::validating`])
    /// and the time it took (ms). A failed validation is a new `Optimized` instead.
    Validated {
        id: u64,
        validation: Box<analysis::Validation>,
        ms: f64,
    },
    /// Job `id` has nothing more to do: the worker is idle (the page sends the next job at
    /// once then, without a pause).
    Finished { id: u64 },
}

/// The bytes of a message (CBOR: compact, fast to decode, and every `f32` — NaN and
/// infinities included — survives, which JSON would not allow).
pub fn to_bytes<T: Serialize>(v: &T) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    ciborium::into_writer(v, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// A message from its bytes.
pub fn from_bytes<T: DeserializeOwned>(b: &[u8]) -> Result<T, String> {
    ciborium::from_reader(b).map_err(|e| e.to_string())
}

/// The bytes of a message between the page and its worker (postcard: fields in order, no
/// names; every `f32`, NaN and infinities included, survives). A format without field names
/// needs far less decoding code in each bundle than CBOR's maps; what travels this way must
/// not skip fields when serializing (the document skips defaults except inside
/// [`crate::doc::with_every_field`], which a request is encoded in).
pub fn pack<T: Serialize>(v: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(v).map_err(|e| e.to_string())
}

/// A field whose type postcard cannot read (an internally tagged enum, which needs a
/// self-describing format: `hoist_opt::Fate`, `hoist_verify::Status`, kept so for the CLI's
/// JSON), as CBOR bytes inside a packed message: `#[serde(with = "crate::worker::engine::cbor")]`.
pub mod cbor {
    use serde::de::{DeserializeOwned, Error as _};
    use serde::ser::Error as _;
    use serde::{Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        let b = super::to_bytes(v).map_err(S::Error::custom)?;
        s.serialize_bytes(&b)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        let b = bytes(d)?;
        super::from_bytes(&b).map_err(D::Error::custom)
    }

    fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        d.deserialize_bytes(V)
    }
}

/// A message to the page from its bytes ([`pack`]).
pub fn unpack<T: DeserializeOwned>(b: &[u8]) -> Result<T, String> {
    postcard::from_bytes(b).map_err(|e| e.to_string())
}

/// The job id of a packed [`Event`] without decoding it (`None`: not a job's event, or
/// unreadable): the variant's index and the id, its first field, are the message's first
/// two varints.
pub fn event_id(b: &[u8]) -> Option<u64> {
    fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *b.get(*at)?;
            *at += 1;
            v |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte < 0x80 {
                return Some(v);
            }
        }
        None
    }
    let mut at = 0;
    // Variants in declaration order: Ready, Optimized, Progress, Rendered, RenderFailed,
    // Crashed, Linear, Traced, LinearTraced, Validated, Finished; all but Ready and Crashed
    // start with the job's id.
    match varint(b, &mut at)? {
        1 | 2 | 3 | 4 | 6 | 7 | 8 | 9 | 10 => varint(b, &mut at),
        _ => None,
    }
}

/// A linear step's answer: the outcome, or why the text is not a system the page packs.
type LinearResult = Result<crate::worker::linear::Outcome, String>;

/// Rendering time per step before a worker looks at its messages again (ms).
pub const SLICE_MS: f64 = 25.0;

/// How long a job's events may wait to go to the page together with the next ones (ms).
/// Each message costs the page a render of the app and a paint (20–40 ms each here,
/// BENCHMARKS.md "Live feedback"), so results that follow one another within this long are
/// sent as one: a small pair's optimization, images and validation arrive together.
pub const HOLD_MS: f64 = 30.0;

thread_local! {
    /// How long this worker's last validation took (ms; NaN: none yet).
    static VALIDATION_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NAN) };
}

/// Events held back to go with the next ones ([`HOLD_MS`]).
#[derive(Default)]
pub struct Held {
    events: Vec<Event>,
    since: f64,
}

impl Held {
    /// Holds `events`, produced at `now`.
    pub fn add(&mut self, events: Vec<Event>, now: f64) {
        if self.events.is_empty() {
            self.since = now;
        }
        self.events.extend(events);
    }

    /// Whether the held events must go now: waiting for a next step that takes
    /// `next_ms` would keep the oldest past [`HOLD_MS`].
    pub fn due(&self, now: f64, next_ms: f64) -> bool {
        // NaN (no estimate) counts as too long.
        let wait = now - self.since + next_ms;
        !self.events.is_empty() && (wait.is_nan() || wait > HOLD_MS)
    }

    pub fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
}

enum Stage {
    Optimize,
    Render {
        task: Box<Task>,
        ms: [f64; 2],
        bands: u32,
    },
    /// A DIFFERENT render waits for its guidance: one candidate render per step.
    Guide {
        rendered: Box<Rendered>,
        known: BTreeMap<Vec<usize>, bool>,
        renders: u32,
    },
    /// The images were sent; validation of the optimized pair comes next (and then the
    /// guidance of the render kept here, a DIFFERENT one).
    Validate {
        different: Option<Box<Rendered>>,
    },
    /// A linear system's seeds answered; the whole search is next.
    Search,
    /// A linear result that asked for its convergence, which the next step adds.
    Converge(Box<crate::worker::linear::Outcome>, f64),
    Done,
}

/// What the guidance of a DIFFERENT render needs from the job's optimization.
#[derive(Default)]
struct Context {
    analysis: Option<analysis::Analysis>,
    /// Instructions validation made stay, so candidates are rebuilt as the result was.
    stays: Vec<(u32, String)>,
    display: String,
    images: BTreeMap<String, Vec<u8>>,
    /// The render plan, kept for the pixel debugger ([`Runner::trace_context`]).
    plan: Option<render::Plan>,
}

/// Runs one job, a piece per [`Runner::step`].
pub struct Runner {
    id: u64,
    fresh: bool,
    doc: Doc,
    images: Images,
    clock: Box<dyn Fn() -> f64>,
    stage: Stage,
    cx: Context,
}

impl Runner {
    /// A runner for `job`; `clock` gives milliseconds.
    pub fn new(job: Job, clock: Box<dyn Fn() -> f64>) -> Runner {
        Runner {
            id: job.id,
            fresh: job.fresh,
            doc: job.doc,
            images: job.images,
            clock,
            stage: Stage::Optimize,
            cx: Context::default(),
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    /// What the next [`Runner::step`] with `budget_ms` is expected to take (ms; infinite
    /// when unknown): a render or guidance step its budget at most, validation what this
    /// worker's last one took.
    pub fn next_step_ms(&self, budget_ms: f64) -> f64 {
        match &self.stage {
            Stage::Render { .. } | Stage::Guide { .. } => budget_ms,
            Stage::Validate { .. } => VALIDATION_MS.with(std::cell::Cell::get),
            Stage::Done => 0.0,
            Stage::Optimize | Stage::Search | Stage::Converge(..) => f64::INFINITY,
        }
    }

    /// Whether the next step is validation's.
    pub fn validates_next(&self) -> bool {
        matches!(self.stage, Stage::Validate { .. })
    }

    pub fn is_done(&self) -> bool {
        matches!(self.stage, Stage::Done)
    }

    /// The linear result again, with both programs iterated to the fixed point (the time
    /// is still the packing's; the iteration's is in the result).
    #[inline(never)]
    fn converge(&mut self) -> Vec<Event> {
        let Stage::Converge(mut o, ms) = std::mem::replace(&mut self.stage, Stage::Done) else {
            return Vec::new();
        };
        let linear = self.doc.linear.clone().unwrap_or_default();
        let t0 = (self.clock)();
        o.convergence = Some(
            crate::worker::linear::converge(&linear, &o.after.order).map(|mut c| {
                c.ms = (self.clock)() - t0;
                c
            }),
        );
        o.converging = false;
        vec![Event::Linear {
            id: self.id,
            result: Box::new(Ok(*o)),
            ms,
        }]
    }

    /// The render's progress event.
    pub fn progress(&self) -> Event {
        let fraction = match &self.stage {
            Stage::Optimize => 0.0,
            Stage::Render { task, .. } => task.fraction(),
            Stage::Guide { .. } | Stage::Validate { .. } | Stage::Search | Stage::Converge(..) => {
                0.999
            }
            Stage::Done => 1.0,
        };
        Event::Progress {
            id: self.id,
            fraction,
        }
    }

    /// The next piece of work: the optimizer (in one go), or about `budget_ms` of
    /// rendering (at least one step). Returns the events it produced.
    ///
    /// Each stage is a function of its own, kept out of line: inlined together they made one
    /// 39 KB function, which V8 re-optimized whole (~200 ms of a core) as soon as its render
    /// loop ran hot.
    pub fn step(&mut self, budget_ms: f64) -> Vec<Event> {
        match &self.stage {
            Stage::Optimize if self.doc.mode == crate::doc::Mode::Linear => self.linear(),
            Stage::Converge(..) => self.converge(),
            Stage::Search => self.search(),
            Stage::Optimize => self.optimize(),
            Stage::Validate { .. } => self.validate(),
            Stage::Render { .. } => self.render(budget_ms),
            Stage::Guide { .. } => self.guide(),
            Stage::Done => Vec::new(),
        }
    }

    /// A linear-mode document's first step: the seeds' answer (code and verdict) at once;
    /// the whole search is the next step ([`Runner::search`]).
    #[inline(never)]
    fn linear(&mut self) -> Vec<Event> {
        let (result, ms) = self.timed_linear(crate::worker::linear::run_seeds);
        self.stage = if result.is_ok() {
            Stage::Search
        } else {
            Stage::Done
        };
        vec![Event::Linear {
            id: self.id,
            result,
            ms,
        }]
    }

    /// The whole search, its code and verdict replacing the seeds' answer.
    #[inline(never)]
    fn search(&mut self) -> Vec<Event> {
        let (result, ms) = self.timed_linear(crate::worker::linear::run);
        self.stage = match result.as_ref() {
            Ok(o) if o.converging => Stage::Converge(Box::new(o.clone()), ms),
            _ => Stage::Done,
        };
        vec![Event::Linear {
            id: self.id,
            result,
            ms,
        }]
    }

    /// `run` on the document's linear system, and how long it took (ms).
    fn timed_linear(
        &self,
        run: fn(&crate::worker::linear::LinearDoc) -> LinearResult,
    ) -> (Box<LinearResult>, f64) {
        let t0 = (self.clock)();
        let linear = self.doc.linear.clone().unwrap_or_default();
        let result = Box::new(run(&linear));
        (result, (self.clock)() - t0)
    }

    /// The parse and the optimizer, then the render's plan.
    #[inline(never)]
    fn optimize(&mut self) -> Vec<Event> {
        let id = self.id;
        let t0 = (self.clock)();
        let parsed = analysis::parse(&self.doc);
        // The images first, validation after them: the optimizer's result unvalidated
        // unless a hand edit is shown (its pair is judged by the render alone).
        let full = if self.doc.hand.is_none() {
            analysis::optimize_unvalidated(&self.doc, &parsed)
        } else {
            analysis::optimize(&self.doc, &parsed)
        };
        let (a, result) = self.optimized(parsed, full);
        let ms = (self.clock)() - t0;
        self.plan_render(a, vec![Event::Optimized { id, result, ms }])
    }

    /// About `budget_ms` of the renders (at least one step); once both are done, the
    /// images and what comes after them.
    #[inline(never)]
    fn render(&mut self, budget_ms: f64) -> Vec<Event> {
        let Stage::Render { task, ms, bands } = &mut self.stage else {
            return Vec::new();
        };
        let start = (self.clock)();
        while !task.is_done() {
            let t0 = (self.clock)();
            let phase = task.step(*bands);
            let dt = (self.clock)() - t0;
            match phase {
                Phase::Original => ms[0] += dt,
                Phase::Optimized => ms[1] += dt,
                Phase::Done => {}
            }
            if let Some(o) = task.observed.take() {
                crate::worker::choose::observe(&o);
            }
            // Helpers' bands arrive as messages: let them in before taking another one.
            if task.stealing() {
                break;
            }
            // Aim at steps of a quarter of the budget or so.
            if dt < budget_ms / 4.0 {
                *bands = (*bands * 2).min(4096);
            } else if dt > budget_ms {
                *bands = (*bands / 2).max(1);
            }
            if (self.clock)() - start >= budget_ms {
                break;
            }
        }
        if !task.is_done() {
            return Vec::new();
        }
        let rendered = Rendered::of_task(task, ms[0], ms[1]);
        self.rendered(rendered)
    }

    /// Both renders done: their weakness, then the images now (their verdict word once
    /// validation answers), a DIFFERENT render's guidance, or the end of the job.
    #[inline(never)]
    fn rendered(&mut self, rendered: Rendered) -> Vec<Event> {
        let id = self.id;
        let mut rendered = rendered.with_display(self.doc.inputs.view);
        let unset = self
            .cx
            .analysis
            .as_ref()
            .is_some_and(|a| guidance::unset(&self.doc, a));
        rendered.weak =
            guidance::weakness(rendered.images(), unset, !rendered.unsupplied.is_empty());
        let different = rendered.verdict.as_ref().is_some_and(|v| {
            render::verdict_view(v, self.doc.inputs.tolerance).kind
                == render::VerdictKind::Different
        });
        let validating = (self.cx.analysis.as_ref())
            .and_then(|a| a.optimized.as_ref())
            .is_some_and(|o| o.validating);
        if validating {
            self.stage = Stage::Validate {
                different: different.then(|| Box::new(rendered.clone())),
            };
            return vec![Event::Rendered {
                id,
                rendered: Box::new(rendered),
            }];
        }
        if different {
            self.stage = Stage::Guide {
                rendered: Box::new(rendered),
                known: BTreeMap::new(),
                renders: 0,
            };
            return Vec::new();
        }
        self.stage = Stage::Done;
        vec![Event::Rendered {
            id,
            rendered: Box::new(rendered),
        }]
    }

    /// The analysis of an optimizer result (keeping validation's rejections for the
    /// guidance's candidates) and what the page gets of it.
    #[inline(never)]
    fn optimized(
        &mut self,
        parsed: analysis::Analysis,
        full: Option<analysis::FullResult>,
    ) -> (analysis::Analysis, Option<OptResult>) {
        let result = analysis::page_result(&self.doc, &parsed, full.as_ref());
        let mut a = parsed.with_result(&self.doc, result.clone(), None);
        if let Some(Ok(v)) = &full {
            self.cx.stays = v
                .rejected
                .iter()
                .flat_map(|r| r.instructions.iter().map(|&i| (i, r.failure.to_string())))
                .collect();
        }
        a.outcome = full.and_then(Result::ok).map(|v| Rc::new(v.outcome));
        (a, result)
    }

    /// Plans the renders of analysis `a` after the events `out` (a broken scene or pair
    /// ends the job with its reason).
    #[inline(never)]
    fn plan_render(&mut self, a: analysis::Analysis, mut out: Vec<Event>) -> Vec<Event> {
        let id = self.id;
        let t1 = (self.clock)();
        match render::plan(&self.doc, &a, &self.images)
            .and_then(|p| p.map(|p| work::check(&p).map(|_| p)).transpose())
        {
            Ok(Some(plan)) => {
                self.cx.display = plan.display.clone();
                self.cx.images = plan.images.clone();
                self.cx.plan = Some(plan.clone());
                let setup = (self.clock)() - t1;
                self.stage = Stage::Render {
                    task: Box::new(if self.fresh {
                        Task::new(plan)
                    } else {
                        Task::reusing(plan)
                    }),
                    ms: [setup, 0.0],
                    bands: 1,
                };
            }
            Ok(None) => {
                out.push(Event::RenderFailed {
                    id,
                    error: "nothing to render until both programs parse".into(),
                });
                self.stage = Stage::Done;
            }
            Err(error) => {
                out.push(Event::RenderFailed { id, error });
                self.stage = Stage::Done;
            }
        }
        self.cx.analysis = Some(a);
        out
    }

    /// Validation of the result whose images were just sent: its answer, then the
    /// guidance of a DIFFERENT render; or, when it fails, the optimizer again with
    /// validation (which keeps the failing groups in the fragment program) and the
    /// optimized image drawn again (the original is a kept run).
    #[inline(never)]
    fn validate(&mut self) -> Vec<Event> {
        let id = self.id;
        let Stage::Validate { different } = std::mem::replace(&mut self.stage, Stage::Done) else {
            return Vec::new();
        };
        let t0 = (self.clock)();
        let Some(a) = self.cx.analysis.take() else {
            return Vec::new();
        };
        let answer = a.outcome.as_ref().and_then(|o| analysis::validate(&a, o));
        if let Some(v) = answer {
            let mut a = a;
            if let Some(o) = a.optimized.take() {
                a.optimized = Some(Rc::new(o.validated(&v)));
            }
            self.cx.analysis = Some(a);
            if let Some(rendered) = different {
                self.stage = Stage::Guide {
                    rendered,
                    known: BTreeMap::new(),
                    renders: 0,
                };
            }
            let ms = (self.clock)() - t0;
            VALIDATION_MS.with(|c| c.set(ms));
            return vec![Event::Validated {
                id,
                validation: Box::new(v),
                ms,
            }];
        }
        let parsed = analysis::parse(&self.doc);
        let full = analysis::optimize(&self.doc, &parsed);
        let (a, result) = self.optimized(parsed, full);
        let ms = (self.clock)() - t0;
        self.plan_render(a, vec![Event::Optimized { id, result, ms }])
    }

    /// One step of a DIFFERENT render's guidance: a candidate render of the bisection, or
    /// the finished guidance with the render.
    #[inline(never)]
    fn guide(&mut self) -> Vec<Event> {
        let Runner {
            stage,
            doc,
            images,
            cx,
            ..
        } = self;
        let Stage::Guide {
            rendered,
            known,
            renders,
        } = stage
        else {
            return Vec::new();
        };
        let Some(a) = cx.analysis.as_ref() else {
            *stage = Stage::Done;
            return Vec::new();
        };
        let mut g = guidance::Guidance::default();
        if let (Some(h), Some(o)) = (&doc.hand, a.optimized.as_ref()) {
            let lines = (
                guidance::changed_lines(&o.vp.text, &h.vp),
                guidance::changed_lines(&o.fp.text, &h.fp),
            );
            g.note = Some(if lines.0.is_empty() && lines.1.is_empty() {
                "your hand edit is the optimizer's output: the optimizer's result differs here"
                    .into()
            } else {
                "the optimized side is your hand edit: the lines you changed are marked".into()
            });
            g.hand_lines = Some(lines);
        } else if let Some(o) = a.outcome.as_ref() {
            let moved = guidance::moved_groups(o);
            match guidance::bisect(&moved, known) {
                _ if moved.is_empty() => {
                    g.note = Some(
                        "no group moved: the difference comes from the clean-up of code that                          stayed"
                            .into(),
                    )
                }
                guidance::Step::Need(groups) if *renders < guidance::MAX_BISECT_RENDERS => {
                    *renders += 1;
                    let differs = candidate_differs(doc, images, cx, a, &groups, rendered);
                    match differs {
                        Ok(d) => {
                            known.insert(groups, d);
                            return Vec::new();
                        }
                        Err(e) => g.note = Some(format!("the search for the culprit stopped: {e}")),
                    }
                }
                guidance::Step::Need(_) => {
                    g.note = Some(format!(
                        "the search for the culprit stopped after {} renders (the playground's                          cap)",
                        guidance::MAX_BISECT_RENDERS
                    ))
                }
                guidance::Step::Found(k) => g.culprit = Some(guidance::culprit(a, o, k)),
                guidance::Step::NotFound => {
                    g.note = Some(
                        "no single group differs on its own: only moves together do".into(),
                    )
                }
            }
        }
        if let Some(v) = &rendered.verdict {
            g.cancellation = guidance::cancellation(doc, a, v);
        }
        let mut rendered = std::mem::replace(rendered, Box::new(Rendered::empty()));
        rendered.guidance = Some(g);
        *stage = Stage::Done;
        vec![Event::Rendered {
            id: self.id,
            rendered,
        }]
    }

    /// What the pixel debugger needs of this job once it rendered (`None`: nothing rendered).
    pub fn trace_context(&self) -> Option<crate::worker::debug::Context> {
        let a = self.cx.analysis.as_ref()?;
        let plan = self.cx.plan.clone()?;
        let printed = |p: &hoist_asm::Program| {
            hoist_opt::annotate::SourceLines(
                (hoist_asm::print_with_spans(p).insts.iter())
                    .map(|s| s.line as u32 + 1)
                    .collect(),
            )
        };
        let (outcome, ovp, ofp) = match (&a.hand, &a.outcome) {
            (Some((v, f)), _) => (None, v.lines.clone(), f.lines.clone()),
            (None, Some(o)) => (Some(o.clone()), printed(&o.vp), printed(&o.fp)),
            (None, None) => (None, Default::default(), Default::default()),
        };
        Some(crate::worker::debug::Context {
            id: self.id,
            plan,
            outcome,
            lines: [a.vp.lines.clone(), a.fp.lines.clone(), ovp, ofp],
        })
    }

    /// Runs to the end (tests): every event, in order.
    pub fn run_to_end(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        while !self.is_done() {
            out.extend(self.step(f64::INFINITY));
        }
        out
    }
}

/// Whether the optimized pair with only `groups` moved renders DIFFERENT from the
/// original image at the document's tolerance.
fn candidate_differs(
    doc: &Doc,
    images: &Images,
    cx: &Context,
    a: &analysis::Analysis,
    groups: &[usize],
    rendered: &Rendered,
) -> Result<bool, String> {
    let (v, f) = a.original_pair().ok_or("no pair")?;
    let [Some(original), _] = rendered.images() else {
        return Err("the original did not render".into());
    };
    let frags = f64::from(doc.inputs.width) * f64::from(doc.inputs.height);
    let mut opts = doc
        .opts
        .to_options(v.profile, f.profile, analysis::QUAD_VERTICES as f64, frags);
    opts.stay.extend(cx.stays.iter().cloned());
    let opt = hoist_opt::Optimizer::new(v, f, &opts).map_err(|e| e.to_string())?;
    let out = opt.with_groups(groups)?;
    let base = render::base_scene(doc, &a.targets, images)?;
    let sc = hoist_verify::scene::with_optimized(&base, &out);
    let run = hoist_raster::scene::run(
        &sc,
        &hoist_raster::scene::RunOptions {
            caps: render::caps(),
            images: cx.images.clone(),
            tolerance: None,
        },
    )
    .map_err(|e| e.to_string())?;
    let img = run
        .targets
        .get(&cx.display)
        .ok_or("the scene lost its display target")?;
    let v = hoist_raster::compare(original, img);
    Ok(render::verdict_view(&v, doc.inputs.tolerance).kind == render::VerdictKind::Different)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::analysis::Optimized;
    use crate::worker::render::{VerdictKind, verdict_view};
    use std::time::Instant;

    fn clock() -> Box<dyn Fn() -> f64> {
        let t0 = Instant::now();
        Box::new(move || t0.elapsed().as_secs_f64() * 1e3)
    }

    fn job(id: u64, doc: Doc) -> Job {
        Job {
            id,
            doc,
            images: Images::new(),
            fail: None,
            force: None,
            fresh: false,
            validation_delay_ms: 0,
            band_workers: None,
        }
    }

    #[test]
    fn a_linear_document_is_the_seeds_answer_then_the_whole_search() {
        let doc = Doc {
            mode: crate::doc::Mode::Linear,
            linear: crate::worker::linear::LinearDoc::example("wave2d", false),
            ..Doc::default()
        };
        let events = Runner::new(job(7, doc), clock()).run_to_end();
        let [
            Event::Linear {
                id: 7,
                result: first,
                ..
            },
            Event::Linear {
                id: 7,
                result: whole,
                ..
            },
        ] = events.as_slice()
        else {
            panic!("{events:?}");
        };
        let (first, whole) = (
            first.as_ref().as_ref().unwrap(),
            whole.as_ref().as_ref().unwrap(),
        );
        assert!(first.searching && !whole.searching);
        // The seeds' answer is checked code of its own; the search never does worse, and
        // only it anneals.
        assert!(first.verdict.equivalent, "{}", first.verdict.headline());
        assert!(whole.verdict.equivalent, "{}", whole.verdict.headline());
        assert_eq!(first.before.cost.total, whole.before.cost.total);
        assert!(whole.after.cost.total <= first.after.cost.total);
        assert_eq!((first.anneal_moves, first.exact_nodes), (0, 0));
        assert!(whole.anneal_moves > 0);
        assert!(whole.methods.len() > first.methods.len());
        let bytes = pack(&events[0]).unwrap();
        assert!(matches!(
            unpack::<Event>(&bytes),
            Ok(Event::Linear { id: 7, result, .. }) if result.as_ref().as_ref().is_ok_and(|o| o.searching)
        ));
        assert_eq!(event_id(&bytes), Some(7));
        let fig13 = Doc {
            mode: crate::doc::Mode::Linear,
            linear: crate::worker::linear::LinearDoc::example("fig13", false),
            ..Doc::default()
        };
        let events = Runner::new(job(8, fig13), clock()).run_to_end();
        let Some(Event::Linear { result, .. }) = events.last() else {
            panic!("{events:?}");
        };
        let o = result.as_ref().as_ref().unwrap();
        assert_eq!((o.before.cost.total, o.after.cost.total), (38, 20));
        // A broken system is one error, with no search after it.
        let broken = Doc {
            mode: crate::doc::Mode::Linear,
            linear: Some(crate::worker::linear::LinearDoc {
                text: "0:1\n1:oops\n".into(),
                ..Default::default()
            }),
            ..Doc::default()
        };
        let events = Runner::new(job(8, broken), clock()).run_to_end();
        let [Event::Linear { result, .. }] = events.as_slice() else {
            panic!("{events:?}");
        };
        assert!(result.as_ref().as_ref().unwrap_err().starts_with("line 2:"));
    }

    /// Convergence asked for: the seeds' answer, the search's result, then the same result
    /// with both programs iterated to the fixed point, each in a step of its own (a newer
    /// job cancels the rest).
    #[test]
    fn a_linear_convergence_is_a_step_after_the_search() {
        let mut linear = crate::worker::linear::LinearDoc::example("fig10", false).unwrap();
        linear.converge = true;
        let doc = Doc {
            mode: crate::doc::Mode::Linear,
            linear: Some(linear),
            ..Doc::default()
        };
        let mut r = Runner::new(job(9, doc), clock());
        let seeds = r.step(SLICE_MS);
        let [Event::Linear { id: 9, result, .. }] = seeds.as_slice() else {
            panic!("{seeds:?}");
        };
        let o = result.as_ref().as_ref().unwrap();
        assert!(o.searching && !o.converging && !r.is_done());
        let first = r.step(SLICE_MS);
        let [Event::Linear { id: 9, result, .. }] = first.as_slice() else {
            panic!("{first:?}");
        };
        let o = result.as_ref().as_ref().unwrap();
        assert!(o.converging && !o.searching && o.convergence.is_none() && !r.is_done());
        let second = r.step(SLICE_MS);
        assert!(r.is_done());
        let [Event::Linear { id: 9, result, .. }] = second.as_slice() else {
            panic!("{second:?}");
        };
        let o2 = result.as_ref().as_ref().unwrap();
        assert!(!o2.converging);
        assert_eq!(o2.after, o.after);
        let c = o2.convergence.as_ref().unwrap().as_ref().unwrap();
        assert!(c.agrees(), "{}", c.headline());
        assert!(
            c.original.steps > 1 && c.original.steps < crate::worker::linear_converge::MAX_STEPS
        );
        // A program's recovered system is not iterated, and says so.
        let mut prog = crate::worker::linear::LinearDoc::example("colour-matrix", false).unwrap();
        prog.converge = true;
        assert!(crate::worker::linear::converge(&prog, &o.after.order).is_err());
        let doc = Doc {
            mode: crate::doc::Mode::Linear,
            linear: Some(prog),
            ..Doc::default()
        };
        assert_eq!(Runner::new(job(10, doc), clock()).run_to_end().len(), 2);
    }

    fn fig3() -> Doc {
        let mut d = crate::doc::examples::load(crate::doc::examples::find("paper/fig3").unwrap());
        d.inputs.width = 64;
        d.inputs.height = 32;
        d
    }

    fn rendered_of(r: &mut Runner) -> Box<Rendered> {
        r.run_to_end()
            .into_iter()
            .find_map(|e| match e {
                Event::Rendered { rendered, .. } => Some(rendered),
                _ => None,
            })
            .expect("rendered")
    }

    fn pixels(r: &Rendered) -> Vec<Vec<u32>> {
        r.images()
            .iter()
            .flatten()
            .map(|i| i.pixels.iter().flatten().map(|c| c.to_bits()).collect())
            .collect()
    }

    /// A job whose scenes are a kept run's reuses its images (a comment edit); one that
    /// changes a program draws that run again; "time again" (`Job::fresh`) draws both.
    #[test]
    fn unchanged_runs_are_reused_and_fresh_jobs_draw_again() {
        let first = rendered_of(&mut Runner::new(job(1, fig3()), clock()));
        assert_eq!(first.reused, [false, false]);
        let mut commented = fig3();
        commented.fp.push_str("// a comment\n");
        let again = rendered_of(&mut Runner::new(job(2, commented.clone()), clock()));
        assert_eq!(again.reused, [true, true]);
        assert_eq!(pixels(&again), pixels(&first));
        let mut fresh = job(3, commented);
        fresh.fresh = true;
        let drawn = rendered_of(&mut Runner::new(fresh, clock()));
        assert_eq!(drawn.reused, [false, false]);
        assert_eq!(pixels(&drawn), pixels(&first));
        // Another size is another scene.
        let mut wider = fig3();
        wider.inputs.width = 48;
        let wider = rendered_of(&mut Runner::new(job(4, wider), clock()));
        assert_eq!(wider.reused, [false, false]);
        assert_eq!(wider.original.as_ref().unwrap().image.width, 48);
        // A changed constant changes the original's scene and the optimized one's.
        let mut edited = fig3();
        assert!(edited.fp.contains("0.5"), "{}", edited.fp);
        edited.fp = edited.fp.replacen("0.5", "0.25", 1);
        let edited = rendered_of(&mut Runner::new(job(5, edited), clock()));
        assert_eq!(edited.reused, [false, false]);
        assert_ne!(pixels(&edited), pixels(&first));
    }

    #[test]
    fn held_events_wait_for_the_next_step_only_while_the_oldest_stays_within_the_hold() {
        let progress = |id| Event::Progress { id, fraction: 0.5 };
        let mut h = Held::default();
        assert!(!h.due(0.0, f64::INFINITY), "nothing held, nothing due");
        h.add(vec![progress(1)], 10.0);
        assert!(!h.due(15.0, HOLD_MS - 5.0));
        assert!(h.due(15.0, HOLD_MS - 4.0));
        assert!(h.due(15.0, f64::NAN), "no estimate: send");
        assert!(h.due(15.0, f64::INFINITY));
        // The oldest sets the age.
        h.add(vec![progress(2)], 30.0);
        assert!(!h.due(35.0, HOLD_MS - 25.0));
        assert!(h.due(35.0, HOLD_MS - 24.0));
        let taken = h.take();
        assert!(matches!(
            taken[..],
            [Event::Progress { id: 1, .. }, Event::Progress { id: 2, .. }]
        ));
        assert!(!h.due(1e9, 1e9));
        h.add(Vec::new(), 50.0);
        assert!(!h.due(1e9, 1e9), "an empty step holds nothing");
    }

    #[test]
    fn the_next_step_is_estimated_from_its_stage_and_this_threads_last_validation() {
        VALIDATION_MS.with(|c| c.set(f64::NAN));
        let mut r = Runner::new(job(8, fig3()), clock());
        assert_eq!(
            r.next_step_ms(SLICE_MS),
            f64::INFINITY,
            "the optimizer: unknown"
        );
        r.step(SLICE_MS);
        assert_eq!(
            r.next_step_ms(SLICE_MS),
            SLICE_MS,
            "a render step: its budget"
        );
        while !matches!(r.stage, Stage::Validate { .. }) {
            r.step(SLICE_MS);
        }
        assert!(
            r.next_step_ms(SLICE_MS).is_nan(),
            "no validation measured yet"
        );
        let out = r.step(SLICE_MS);
        let Some(Event::Validated { ms, .. }) = out.first() else {
            panic!("{out:?}")
        };
        assert!(r.is_done());
        assert_eq!(r.next_step_ms(SLICE_MS), 0.0);
        let mut next = Runner::new(job(9, fig3()), clock());
        while !matches!(next.stage, Stage::Validate { .. }) {
            next.step(SLICE_MS);
        }
        assert_eq!(
            next.next_step_ms(SLICE_MS),
            *ms,
            "the last validation's time"
        );
    }

    #[test]
    fn a_job_optimizes_validates_then_renders() {
        let mut r = Runner::new(job(7, fig3()), clock());
        let first = r.step(SLICE_MS);
        let Some(Event::Optimized {
            id: 7,
            result: Some(Ok(v)),
            ms,
        }) = first.first()
        else {
            panic!("{first:?}")
        };
        assert!(*ms >= 0.0);
        // The result comes before validation, marked so (no verdict word until it answers).
        assert!(v.validating && v.report.is_none(), "{:?}", v.status);
        assert!(v.after.fp_slots.total() < 16);
        let optimized = v.clone();
        // Rendering comes in small steps, with progress in between.
        let mut fractions = Vec::new();
        let mut events = Vec::new();
        while !r.is_done() {
            if let Event::Progress { fraction, .. } = r.progress() {
                fractions.push(fraction);
            }
            events.extend(r.step(0.0));
        }
        assert!(fractions.len() > 2, "{fractions:?}");
        assert!(fractions.windows(2).all(|w| w[0] <= w[1]), "{fractions:?}");
        // The images, then validation's answer for the result they were drawn from.
        let [
            Event::Rendered { id: 7, rendered },
            Event::Validated {
                id: 7, validation, ..
            },
        ] = &events[..]
        else {
            panic!("{events:?}")
        };
        let done = optimized.validated(validation);
        assert!(done.status.is_validated() && !done.validating);
        let report = done.report.as_ref().expect("a report");
        assert!(report.input_sets > 0 && report.vertices > 0 && report.fragments > 0);
        let t = analysis::trust(&analysis::parse(&fig3()).with_result(
            &fig3(),
            Some(Ok(optimized)),
            None,
        ))
        .unwrap();
        assert!(t.pending && !t.validated && t.summary == "validating…");
        assert_eq!(
            render::rendered_view(rendered, 0.0, Some(&t)).unwrap().kind,
            VerdictKind::Validating
        );
        let v = rendered.verdict.as_ref().expect("a verdict");
        assert_eq!(verdict_view(v, 0.0).kind, VerdictKind::Identical);
        assert_eq!(rendered.heat.len(), 64 * 32 * 4);
        assert!(rendered.heat.chunks(4).all(|p| p == [0, 0, 0, 255]));
        // The canvas pixels come made for the document's mapping, and are made again for
        // another one.
        let view = fig3().inputs.view;
        assert_eq!(rendered.display.view, Some(view));
        let image = &rendered.original.as_ref().unwrap().image;
        assert_eq!(
            rendered.display.original,
            render::display_rgba(image, &view)
        );
        let [a, b] = rendered.canvas_pixels(&view);
        assert!(matches!(a, Some(std::borrow::Cow::Borrowed(_))) && b.is_some());
        let other = crate::doc::ViewMap { hi: 2.0, ..view };
        let [a, _] = rendered.canvas_pixels(&other);
        assert_eq!(
            a.unwrap().as_ref(),
            render::display_rgba(image, &other).as_slice()
        );
    }

    #[test]
    fn broken_programs_and_scenes_are_events_not_panics() {
        let mut d = fig3();
        d.fp = "ps_2_0\nmov oC0, r0,\n".into();
        let ev = Runner::new(job(1, d), clock()).run_to_end();
        assert!(
            matches!(&ev[0], Event::Optimized { result: None, .. }),
            "{ev:?}"
        );
        assert!(matches!(&ev[1], Event::RenderFailed { error, .. } if error.contains("parse")));

        let mut d = fig3();
        d.scene = Some("[test]\ndraw sideways\n".into());
        let ev = Runner::new(job(2, d), clock()).run_to_end();
        assert!(matches!(
            &ev[0],
            Event::Optimized {
                result: Some(Ok(_)),
                ..
            }
        ));
        assert!(
            matches!(&ev[1], Event::RenderFailed { id: 2, error } if error.starts_with("scene:")),
            "{ev:?}"
        );

        let mut d = fig3();
        d.vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n".into();
        let ev = Runner::new(job(3, d), clock()).run_to_end();
        assert!(
            matches!(
                &ev[0],
                Event::Optimized {
                    result: Some(Err(_)),
                    ..
                }
            ),
            "{ev:?}"
        );
    }

    #[test]
    fn jobs_and_events_survive_serialization() {
        let mut j = job(5, fig3());
        j.fail = Some(Fail::Panic);
        let bytes =
            crate::doc::with_every_field(|| pack(&Request::Run(Box::new(j.clone())))).unwrap();
        let Request::Run(b) = unpack(&bytes).unwrap() else {
            panic!()
        };
        assert_eq!((b.id, b.fail, &b.doc), (5, Some(Fail::Panic), &j.doc));
        // A validated result (a job's first one is sent before validation).
        let a = analysis::parse(&j.doc);
        let full = analysis::optimize(&j.doc, &a);
        let Some(Ok(orig)) = analysis::page_result(&j.doc, &a, full.as_ref()) else {
            panic!()
        };
        let ev = Event::Optimized {
            id: 5,
            result: Some(Ok(orig.clone())),
            ms: 1.0,
        };
        let Event::Optimized {
            result: Some(Ok(v)),
            ..
        } = unpack::<Event>(&pack(&ev).unwrap()).unwrap()
        else {
            panic!()
        };
        assert_eq!(v, orig);
        assert_eq!(v.fp.text, orig.fp.text);
        assert_eq!(v.fates, orig.fates);
        // Non-finite numbers survive (JSON would refuse them).
        let mut w = (*orig).clone();
        w.report.as_mut().unwrap().max_affine_error = f64::INFINITY;
        w.report.as_mut().unwrap().max_render_diff = f32::NAN;
        let back: Optimized = unpack(&pack(&w).unwrap()).unwrap();
        let r = back.report.unwrap();
        assert!(r.max_affine_error.is_infinite() && r.max_render_diff.is_nan());
        // Garbage is an error.
        assert!(unpack::<Request>(&[0xff, 0x00, 0x13]).is_err());
        assert!(unpack::<Request>(&bytes[..bytes.len() / 2]).is_err());
        let packed = pack(&ev).unwrap();
        assert!(unpack::<Event>(&[0xff, 0x00, 0x13]).is_err());
        assert!(unpack::<Event>(&packed[..packed.len() / 2]).is_err());
    }

    /// A job crosses positionally (postcard) with every field of its document, defaults
    /// included: each gallery example, and a document whose every optional part is set and
    /// whose every skippable field is off its default, read back equal. Written as links
    /// are (defaults left out), the same job does not: the guard is what makes it work.
    #[test]
    fn every_documents_job_crosses_with_every_field() {
        use crate::doc::cost::CostChoice;
        use crate::doc::examples::{EXAMPLES, load};
        let send = |d: &Doc| {
            let r = Request::Run(Box::new(job(9, d.clone())));
            let bytes = crate::doc::with_every_field(|| pack(&r)).unwrap();
            match unpack::<Request>(&bytes) {
                Ok(Request::Run(j)) => j.doc,
                other => panic!("{other:?}"),
            }
        };
        let mut docs: Vec<Doc> = EXAMPLES.iter().map(load).collect();
        let mut d = fig3();
        d.hand_kept = Some(crate::doc::HandEdit {
            vp: "v".into(),
            fp: "f".into(),
            base: Some(7),
        });
        d.title = Some("t".into());
        d.mode = crate::doc::Mode::Linear;
        let mut linear = crate::worker::linear::LinearDoc::example("fig10", false).unwrap();
        linear.example = Some("fig10".into());
        linear.input = crate::doc::linear_doc::Input::Program;
        linear.register = "r0".into();
        (linear.unpermute, linear.converge) = (true, true);
        d.linear = Some(linear);
        d.source = Some(crate::doc::source::SourceDoc {
            wgsl: "w".into(),
            glsl_vs: "v".into(),
            glsl_fs: "f".into(),
            vertex: Some("vs".into()),
            fragment: Some("fs".into()),
            dialect: Some(hoist_asm::Dialect::D3d9),
            target: Some(hoist_asm::ArbTarget::Nv40),
            scene: Some("s".into()),
            ..Default::default()
        });
        d.host_state = Some(crate::doc::HostState {
            dialect: hoist_asm::Dialect::Arb,
            uniforms: Vec::new(),
        });
        d.opts.cost = CostChoice::R600;
        (d.opts.slp, d.opts.schedule, d.opts.fit, d.opts.peepholes) = (true, true, true, true);
        d.opts.target = hoist_asm::ArbTarget::Nv40;
        docs.push(d);
        for d in &docs {
            assert_eq!(&send(d), d, "{:?}", d.example);
        }
        let linky = pack(&Request::Run(Box::new(job(9, fig3())))).unwrap();
        assert!(!matches!(unpack::<Request>(&linky), Ok(Request::Run(j)) if j.doc == fig3()));
    }

    /// The worker's decoder on damaged requests: every byte of a job set to each of a few
    /// values, and every prefix, decodes or fails; none panics.
    #[test]
    fn damaged_requests_are_errors_not_panics() {
        let good =
            crate::doc::with_every_field(|| pack(&Request::Run(Box::new(job(9, fig3()))))).unwrap();
        let mut decoded = 0;
        for at in 0..good.len() {
            for v in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut b = good.clone();
                b[at] = v;
                decoded += usize::from(unpack::<Request>(&b).is_ok());
            }
            assert!(unpack::<Request>(&good[..at]).is_err());
        }
        assert!(decoded < good.len() * 5);
    }

    /// Every event a whole job sends (optimization, progress, render, and the failures)
    /// packs and unpacks to itself, and its id is read without decoding it.
    #[test]
    fn every_event_packs_to_itself_and_names_its_job() {
        let mut events = Runner::new(job(300, fig3()), clock()).run_to_end();
        let mut r = Runner::new(job(301, fig3()), clock());
        r.step(SLICE_MS);
        events.push(r.progress());
        events.push(Event::RenderFailed {
            id: 302,
            error: "scene: line 3".into(),
        });
        events.push(Event::Crashed {
            message: "boom ✓".into(),
        });
        events.push(Event::Ready);
        // The pixel debugger's answers: a trace, and a refusal.
        let mut r = Runner::new(job(305, fig3()), clock());
        r.run_to_end();
        let cx = r.trace_context().unwrap();
        for (x, y) in [(5, 5), (640, 5)] {
            events.push(Event::Traced {
                id: 305,
                x,
                y,
                view: Box::new(crate::worker::debug::trace(&cx, x, y)),
            });
        }
        // The linear debugger's answers: a trace, and a refusal.
        let ld = crate::worker::linear::LinearDoc::example(crate::worker::linear::DEFAULT, false)
            .unwrap();
        let o = crate::worker::linear::run(&ld).unwrap();
        let orders = [o.before.order.clone(), o.after.order.clone()];
        for vector in [2, 9] {
            events.push(Event::LinearTraced {
                id: 306,
                vector,
                view: Box::new(crate::worker::linear_debug::view(&ld, &orders, vector)),
            });
        }
        // A hand edit that differs: the render carries its guidance.
        let mut hand = fig3();
        let fp = hand.fp.replace("mov oC0, r0", "mov oC0, r1");
        assert_ne!(fp, hand.fp);
        hand.hand = Some(crate::doc::HandEdit {
            vp: hand.vp.clone(),
            fp,
            base: None,
        });
        events.extend(Runner::new(job(303, hand), clock()).run_to_end());
        // The linear mode: a recovered program, and a system iterated to its fixed point.
        for (name, converge) in [("colour-matrix", false), ("fig10", true)] {
            let mut l = crate::worker::linear::LinearDoc::example(name, false).unwrap();
            l.converge = converge;
            let doc = Doc {
                mode: crate::doc::Mode::Linear,
                linear: Some(l),
                ..Doc::default()
            };
            events.extend(Runner::new(job(304, doc), clock()).run_to_end());
        }
        events.push(Event::Finished { id: 305 });
        assert!(
            events.iter().any(
                |e| matches!(e, Event::Rendered { rendered, .. } if rendered.guidance.is_some())
            ),
            "no render with guidance"
        );
        let kinds: Vec<String> = events
            .iter()
            .map(|e| {
                format!("{e:?}")
                    .split([' ', '{', '('])
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        for k in [
            "Optimized",
            "Validated",
            "Progress",
            "Rendered",
            "RenderFailed",
            "Crashed",
            "Ready",
            "Traced",
            "LinearTraced",
            "Finished",
        ] {
            assert!(kinds.iter().any(|x| x == k), "no {k} in {kinds:?}");
        }
        for e in &events {
            let bytes = pack(e).unwrap();
            let back: Event = unpack(&bytes).unwrap_or_else(|m| panic!("{m}: {e:?}"));
            assert_eq!(pack(&back).unwrap(), bytes, "{e:?}");
            let id = match e {
                Event::Optimized { id, .. }
                | Event::Progress { id, .. }
                | Event::Validated { id, .. }
                | Event::Rendered { id, .. }
                | Event::RenderFailed { id, .. }
                | Event::Linear { id, .. }
                | Event::Traced { id, .. }
                | Event::LinearTraced { id, .. }
                | Event::Finished { id } => Some(*id),
                Event::Ready | Event::Crashed { .. } => None,
            };
            assert_eq!(event_id(&bytes), id, "{e:?}");
        }
    }

    /// Fig. 3 at 1024 × 1024 with `draws` full-screen draws in its scene.
    fn many_draws(draws: u32) -> Doc {
        let mut d = fig3();
        d.inputs.width = 1024;
        d.inputs.height = 1024;
        let scene = d.scene.take().unwrap();
        d.scene = Some(format!(
            "{scene}\nrepeat {draws}\ndraw rect -1 -1 2 2\nend\n"
        ));
        d
    }

    #[test]
    fn a_job_over_the_work_cap_is_refused_before_rendering() {
        let mut r = Runner::new(job(4, many_draws(12_000)), clock());
        let t0 = Instant::now();
        let ev = r.step(SLICE_MS);
        assert!(t0.elapsed().as_secs_f64() < 30.0);
        assert!(r.is_done(), "{ev:?}");
        let Some(Event::RenderFailed { id: 4, error }) = ev.last() else {
            panic!("{ev:?}")
        };
        assert!(
            error.contains("draws 12001 times with a 1024×1024 window"),
            "{error}"
        );
        assert!(error.contains("25.2 G pixels"), "{error}");
        assert!(error.contains("cap of 4.3 G pixels"), "{error}");
        // Under the cap the same scene starts rendering, a slice at a time.
        let mut r = Runner::new(job(5, many_draws(500)), clock());
        let ev = r.step(SLICE_MS);
        assert!(matches!(ev[..], [Event::Optimized { .. }]), "{ev:?}");
        r.step(SLICE_MS);
        let Event::Progress { fraction, .. } = r.progress() else {
            panic!()
        };
        assert!(!r.is_done() && fraction < 0.5, "{fraction}");
    }
}

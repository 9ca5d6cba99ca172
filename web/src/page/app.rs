//! The page: layout, and the effects that connect the reducer to the browser — the first
//! document (link, local storage or default), the debounced parse of every revision and its
//! job for the worker (`bridge`: optimization, validation and rendering off the page's
//! thread; a job in flight is cancelled as soon as the user moves on, and a dead worker is
//! replaced by the next job), persistence of the last document once the page is quiet,
//! link changes and the "Copy link" button.

use crate::page::components::Shared;
use crate::page::components::bindings::BindingsPanel;
use crate::page::components::dag::DagView;
use crate::page::components::debugger::Debugger;
use crate::page::components::deferred::{Deferred, use_render_count};
use crate::page::components::document::{DocBar, doc_title, export_handler, use_target_handler};
use crate::page::components::editor::Editor;
use crate::page::components::examples::{About, Gallery};
use crate::page::components::export::ExportPanel;
use crate::page::components::gpu::GpuPanel;
use crate::page::components::handnote::hand_note;
use crate::page::components::inputs::InputsPanel;
use crate::page::components::liveness::LivenessPanel;
use crate::page::components::machine::MachinePanel;
use crate::page::components::optimized::OptimizedView;
use crate::page::components::options::OptionsPanel;
use crate::page::components::output::Output;
use crate::page::components::present::Presenter;
use crate::page::components::scene::SceneEditor;
use crate::page::components::source::{SourcePanel, input_switch};
use crate::page::components::stats::StatsPanel;
use crate::page::components::stepper::Stepper;
use crate::page::components::summary::summary_bar;
use crate::page::components::varyings::VaryingsPanel;
use crate::page::source_map::{self, Focus, Lit};
use crate::page::state::{
    Action, Notice, STORAGE_KEY, SourceEdit, SourceStatus, State, initial_doc,
};
use crate::wire::bridge::{self, Engine, OnEvent, OnFail, Starter};
use crate::wire::front::{FrontEngine, FrontStarter, OnAnswer};
use crate::worker::analysis::{self, Analysis, Side};
use crate::worker::engine::{Event, Fail, Job};
use crate::worker::front::FrontJob;
use crate::worker::render;
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::future::TimeoutFuture;
use hoist_asm::Stage;
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::platform::spawn_local;
use yew::prelude::*;

use crate::page::pause::{pause_ms, search_pause_ms};

/// Measurement-only switch, never set by a document: while local storage holds this key,
/// its value (ms, at most 2000) replaces the pause (`tests/e2e/latency.mjs` compares pauses
/// with one build).
pub const TEST_DEBOUNCE_KEY: &str = "hoist-test-debounce-ms";

fn debounce_ms(doc: &crate::doc::Doc, measured_ms: Option<f64>, search_ms: Option<f64>) -> u32 {
    let forced = LocalStorage::raw()
        .get_item(TEST_DEBOUNCE_KEY)
        .ok()
        .flatten()
        .and_then(|v| v.parse::<u32>().ok());
    forced.map_or_else(
        || {
            if doc.mode.is_code() {
                pause_ms(doc.vp.lines().count() + doc.fp.lines().count(), measured_ms)
            } else {
                search_pause_ms(search_ms)
            }
        },
        |v| v.min(2000),
    )
}

/// Quiet time after the analysis of the current text before the document is saved (ms).
const PERSIST_MS: u32 = 1000;

/// A job still optimizing after this long (ms) is not waited for: the next job gets a
/// fresh worker (the optimizer cannot be interrupted, a worker can be terminated).
const RESTART_MS: f64 = 1500.0;

/// The worker's loader script (`web/hoist-worker-loader.js`, next to the page in `dist/`).
pub const WORKER_URL: &str = "./hoist-worker-loader.js";

/// Test-only switch, never set by a document: while local storage holds this key, every
/// job fails on purpose — value `throw`: a JavaScript exception in the worker; `load`: a
/// worker started from a script that does not exist (takes effect when a worker starts);
/// anything else: a Rust panic in the worker. The end-to-end test uses it to check that the
/// page survives a dead worker.
pub const TEST_FAILURE_KEY: &str = "hoist-test-worker-panic";

/// The value of a test-only switch (these keys), when local storage holds one.
fn test_switch(key: &str) -> Option<String> {
    LocalStorage::raw().get_item(key).ok().flatten()
}

fn test_failure() -> Option<String> {
    test_switch(TEST_FAILURE_KEY)
}

/// Test-only switch, never set by a document: while local storage holds this key, the
/// worker's compiled executor is forced off — value `refuse`: every module is refused;
/// `throw`: `WebAssembly.Module` throws on broken bytes; `interpret`: compiled execution off.
/// The end-to-end test uses it to check that the interpreter then draws the same image.
pub const TEST_EXECUTOR_KEY: &str = "hoist-test-executor";

/// Test-only switch, never set by a document: while local storage holds this key (a number
/// of milliseconds), the worker sends the images at once and validation's answer that much
/// later, so a test sees the page between the two however fast validation is.
pub const TEST_VALIDATION_DELAY_KEY: &str = "hoist-test-validation-delay";

/// Test-only switch, never set by a document: while local storage holds this key (a
/// number), that many helper workers share every render, large or small (0: the worker
/// draws alone), so a test can compare images drawn by one worker and by several.
pub const TEST_BAND_WORKERS_KEY: &str = "hoist-test-band-workers";

fn test_executor() -> Option<crate::worker::executor::Force> {
    use crate::worker::executor::Force;
    match test_switch(TEST_EXECUTOR_KEY)?.as_str() {
        "refuse" => Some(Force::Refuse),
        "throw" => Some(Force::Throw),
        "interpret" => Some(Force::Interpret),
        "compile" => Some(Force::Compile),
        _ => None,
    }
}

/// What the page says when its worker died.
pub fn engine_failure_message(why: &str) -> String {
    format!("the optimizer stopped unexpectedly: {why} — your programs are kept; edit to try again")
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The page's address with `fragment`.
fn url_with(fragment: &str) -> String {
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let base = base.split('#').next().unwrap_or("").to_string();
    format!("{base}#{fragment}")
}

fn replace_url(fragment: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{fragment}")),
        );
    }
}

thread_local! {
    /// The state last drawn, for `window.hoistReport()`.
    static LATEST: RefCell<Option<UseReducerHandle<State>>> = const { RefCell::new(None) };
}

/// What `window.hoistReport()` returns: the page's figures as data, for scripts, the
/// devtools console and the end-to-end test.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    link: String,
    example: Option<String>,
    /// The document's render size (width, height).
    size: [u32; 2],
    current: bool,
    before: Option<hoist_opt::Stats>,
    after: Option<hoist_opt::Stats>,
    fates: Vec<hoist_opt::Fate>,
    problem: Option<String>,
    /// The verdict's headline; none while validation runs.
    verdict: Option<String>,
    /// The images are drawn and validation has not answered yet ("validating…").
    validating: bool,
    /// How the optimized pair was checked, and the groups validation rejected.
    validation: Option<String>,
    validated: bool,
    rejected: Vec<String>,
    /// Why the worker stopped, while that is shown.
    engine_error: Option<String>,
    rendering: bool,
    /// The scene's probes in the original run: passed, failed.
    probes: Option<[usize; 2]>,
    /// Each probe of the original run: pass, expected, got, where (`worker::probes`).
    probe_list: Vec<crate::worker::probes::ProbeView>,
    /// The user stopped the current text's job.
    stopped: bool,
    render_ms: Option<[f64; 2]>,
    /// Which executor drew the original and the optimized image (`crate::worker::executor`).
    executor: Option<[Option<String>; 2]>,
    /// Bands of each render's last draw shaded by helper workers (`crate::worker::bands`).
    helped: Option<[u32; 2]>,
    optimizer_ms: f64,
    /// What causes a DIFFERENT verdict (culprit group, cancellation), once known.
    guidance: Option<crate::worker::guidance::Guidance>,
    /// Texture units sampled with a target no texture fits (`render::unsupplied`).
    unsupplied: Vec<String>,
    /// The linear-expression mode (`crate::page::components::linear::report`).
    linear: crate::page::components::linear::Report,
    /// Merges of the vector-packing pass (vertex, fragment), when it ran.
    slp_merges: Option<[u32; 2]>,
    /// Peak live temporaries: vertex and fragment, original and optimized.
    liveness: Option<LiveReport>,
    /// Both pairs on an R600-family GPU (the Machine panel).
    machine: Option<crate::worker::machine::MachineReport>,
    /// The selection's cost model and what it minimises.
    cost: crate::doc::cost::CostReport,
    /// The interpolator maps before and after, and the varying passes' effects.
    varyings: Option<crate::worker::varyings::VaryingView>,
    /// Source mode: the compile, its diagnostics, bindings, moved work and what is lit.
    source: Option<SourceReport>,
    /// The GPU view: API, agreement with the exact images, timing.
    gpu: crate::page::gpu::GpuReport,
    /// The pixel debugger: its pixel, the row stepped to, and the trace (or why none).
    debug: Option<DebugReport>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DebugReport {
    pixel: [u32; 2],
    row: usize,
    view: Option<Result<crate::worker::debug::DebugView, String>>,
}

/// A place in a source editor, with its 1-based line and column and what is there.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SourceSpot {
    editor: &'static str,
    line: u32,
    col: u32,
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SourceReport {
    lang: &'static str,
    /// `compiling`, `failed` or `ready`.
    status: &'static str,
    dialect: Option<String>,
    target: Option<String>,
    /// Diagnostics at their spots (`text`: the message).
    errors: Vec<SourceSpot>,
    bindings: Option<crate::worker::front::BindingView>,
    /// Moved expressions (`text`: the source expression); `all`: every instruction moved.
    moved: Vec<(SourceSpot, bool)>,
    /// The expression the focus lights up, and the lit lines of the generated and the
    /// optimized programs (0-based: vertex, fragment).
    lit: Option<SourceSpot>,
    lit_generated: [Vec<usize>; 2],
    lit_optimized: [Vec<usize>; 2],
}

fn spot(
    src: &crate::doc::source::SourceDoc,
    place: crate::doc::source::Place,
    at: usize,
    text: String,
) -> SourceSpot {
    let lc =
        hoist_asm::diag::LineIndex::new(src.text(place)).line_col(at.min(src.text(place).len()));
    SourceSpot {
        editor: place.editor_id(),
        line: lc.line,
        col: lc.col,
        text,
    }
}

fn source_report(s: &State) -> Option<SourceReport> {
    let src = s.doc.source.as_ref()?;
    let answer = s.front.as_ref().filter(|f| f.source == *src);
    let errors = answer
        .and_then(|f| f.output.as_ref().ok())
        .and_then(|o| o.result.as_ref().err())
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    let at = if d.diagnostic.span.is_none() {
                        0
                    } else {
                        d.diagnostic.span.start as usize
                    };
                    spot(src, d.place, at, d.diagnostic.message.clone())
                })
                .collect()
        })
        .unwrap_or_default();
    let c = s.compiled();
    let (lit, moved) = source_lit(s, s.analysis.as_deref());
    let text_of = |r: &source_map::SrcRange| {
        src.text(r.place)
            .get(r.range.clone())
            .unwrap_or("")
            .to_string()
    };
    let o = s
        .analysis
        .as_ref()
        .and_then(|a| a.optimized.as_ref())
        .filter(|_| s.is_current());
    let lit_optimized = match (c, o) {
        (Some(c), Some(o)) => [&o.vp, &o.fp].map(|a| {
            (0..a.lines.len())
                .filter(|&i| lit.optimized(c, a, i))
                .collect()
        }),
        _ => Default::default(),
    };
    Some(SourceReport {
        lang: src.lang.name(),
        status: match s.source_status() {
            SourceStatus::Compile => "compiling",
            SourceStatus::Failed => "failed",
            _ => "ready",
        },
        dialect: c.map(|c| format!("{:?}", c.dialect)),
        target: c.and_then(|c| c.target).map(|t| t.id().to_string()),
        errors,
        bindings: c.map(|c| c.table.clone()),
        moved: moved
            .iter()
            .map(|m| {
                (
                    spot(src, m.at.place, m.at.range.start, text_of(&m.at)),
                    m.all,
                )
            })
            .collect(),
        lit: lit
            .source
            .as_ref()
            .map(|r| spot(src, r.place, r.range.start, text_of(r))),
        lit_generated: [lit.vp.clone(), lit.fp.clone()],
        lit_optimized,
    })
}

/// Peak register pressure of the four programs (`hoist live`'s `peak`), with the limits.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LiveReport {
    vp_before: Option<u32>,
    fp_before: Option<u32>,
    vp_after: Option<u32>,
    fp_after: Option<u32>,
    vp_limit: u16,
    fp_limit: u16,
}

fn live_report(s: &State, a: &Analysis) -> LiveReport {
    let limit = |p: Option<hoist_asm::Profile>| p.map_or(0, |p| s.doc.opts.limits_of(p).temps);
    let peak = |side: &analysis::Side| {
        side.program
            .as_ref()
            .map(|p| hoist_opt::analysis::liveness::Liveness::counts(p, 0).peak)
    };
    let after = |k: usize| {
        a.optimized
            .as_ref()
            .and_then(|o| o.liveness.get(k).map(|g| g.peak))
    };
    LiveReport {
        vp_before: peak(&a.vp),
        fp_before: peak(&a.fp),
        vp_after: after(0),
        fp_after: after(1),
        vp_limit: limit(a.vp.profile),
        fp_limit: limit(a.fp.profile),
    }
}

fn report() -> Result<JsValue, JsValue> {
    LATEST.with(|l| {
        let Some(s) = l.borrow().clone() else {
            return Ok(JsValue::NULL);
        };
        let a = s.analysis.as_ref();
        let trust = a.and_then(|a| analysis::trust(a));
        let r = Report {
            link: s.link(),
            example: s.doc.example.clone(),
            size: [s.doc.inputs.width, s.doc.inputs.height],
            current: s.is_current(),
            before: a.and_then(|a| a.before),
            after: a.and_then(|a| a.after),
            fates: a
                .and_then(|a| a.optimized.as_ref())
                .map(|o| o.fates.clone())
                .unwrap_or_default(),
            problem: a.and_then(|a| a.problem.clone()),
            // No verdict word before validation earned it.
            verdict: s.rendered.as_ref().and_then(|r| {
                render::rendered_view(r, s.doc.inputs.tolerance, trust.as_ref())
                    .filter(|v| v.kind != render::VerdictKind::Validating)
                    .map(|v| v.headline)
            }),
            validating: trust.as_ref().is_some_and(|t| t.pending),
            guidance: s.rendered.as_ref().and_then(|r| r.guidance.clone()),
            unsupplied: s
                .rendered
                .as_ref()
                .map(|r| r.unsupplied.clone())
                .unwrap_or_default(),
            validation: trust.as_ref().map(|t| t.summary.clone()),
            validated: trust.as_ref().is_some_and(|t| t.validated),
            rejected: trust.map(|t| t.rejected).unwrap_or_default(),
            engine_error: s.engine_error.clone(),
            rendering: s.progress.is_some(),
            probes: s
                .rendered
                .as_ref()
                .and_then(|r| r.original.as_ref().ok().map(|o| [o.probes.0, o.probes.1])),
            probe_list: s
                .rendered
                .as_ref()
                .and_then(|r| r.original.as_ref().ok())
                .map(|o| o.probe_list.clone())
                .unwrap_or_default(),
            stopped: s.is_stopped(),
            render_ms: s.rendered.as_ref().map(|r| [r.ms_original, r.ms_optimized]),
            executor: s.rendered.as_ref().map(|r| {
                let name = |x: Option<&render::RunResult>| {
                    x.and_then(|x| x.as_ref().ok())
                        .and_then(|x| x.executor.as_ref())
                        .map(ToString::to_string)
                };
                [name(Some(&r.original)), name(r.optimized.as_ref())]
            }),
            helped: s.rendered.as_ref().map(|r| {
                let n = |x: Option<&render::RunResult>| {
                    x.and_then(|x| x.as_ref().ok()).map_or(0, |x| x.helped)
                };
                [n(Some(&r.original)), n(r.optimized.as_ref())]
            }),
            optimizer_ms: s.analysis_ms,
            linear: crate::page::components::linear::report(&s),
            slp_merges: a
                .and_then(|a| a.optimized.as_ref())
                .and_then(|o| o.slp_merges),
            liveness: a.map(|a| live_report(&s, a)),
            machine: a
                .and_then(|a| a.optimized.as_ref())
                .map(|o| o.machine.report()),
            cost: s.doc.opts.cost.report(),
            varyings: a
                .and_then(|a| a.optimized.as_ref())
                .map(|o| (*o.varyings).clone()),
            source: source_report(&s),
            gpu: crate::page::gpu::report(),
            debug: s.debug_pixel.map(|(x, y)| DebugReport {
                pixel: [x, y],
                row: s.debug_row,
                view: s.debug_view().map(|t| (*t.view).clone()),
            }),
        };
        serde_wasm_bindgen::to_value(&r).map_err(Into::into)
    })
}

/// `next` for an editor, or `kept` when the editor would show the same of it: the same
/// diagnostics, dialect and whether the text parsed.
fn stable_side(kept: Option<Shared<Side>>, next: Option<&Rc<Side>>) -> Option<Shared<Side>> {
    match (kept, next) {
        (Some(k), Some(n))
            if Rc::ptr_eq(&k.0, n)
                || (k.diagnostics == n.diagnostics
                    && k.profile == n.profile
                    && k.program.is_some() == n.program.is_some()) =>
        {
            Some(k)
        }
        (_, n) => n.map(|n| Shared(n.clone())),
    }
}

/// Properties of the page.
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    /// Where jobs run: a worker unless given (component tests pass `bridge::inline`).
    #[prop_or_default]
    pub engine: Option<Starter>,
    /// Where source mode compiles: a worker unless given (`wire::front::inline` in tests).
    #[prop_or_default]
    pub front: Option<FrontStarter>,
}

/// The page's engine: a worker, unless the test switch asks for one that cannot load.
fn worker_engine(on_event: OnEvent, on_fail: OnFail) -> Engine {
    let url = match test_failure().as_deref() {
        Some("load") => "./hoist-worker-missing.js",
        _ => WORKER_URL,
    };
    bridge::worker(url, on_event, on_fail)
}

/// Starts an engine whose events and failure become actions.
fn start_engine(start: Starter, dispatch: UseReducerDispatcher<State>) -> Engine {
    let d = dispatch.clone();
    let on_event: OnEvent = Rc::new(move |e: Event| match e {
        Event::Optimized { id, result, ms } => d.dispatch(Action::Optimized(id, result, ms)),
        Event::Validated { id, validation, ms } => {
            d.dispatch(Action::Validated(id, Rc::from(validation), ms))
        }
        Event::Progress { id, fraction } => d.dispatch(Action::Progress(id, fraction)),
        Event::Rendered { id, rendered } => d.dispatch(Action::Rendered(id, Rc::from(rendered))),
        Event::RenderFailed { id, error } => d.dispatch(Action::RenderFailed(id, error)),
        Event::Linear { id, result, ms } => d.dispatch(Action::Linear(id, result.map(Rc::new), ms)),
        Event::Traced { id, x, y, view } => {
            d.dispatch(Action::Traced(crate::page::state::Traced {
                rev: id,
                pixel: (x, y),
                view: Rc::from(view),
            }))
        }
        Event::LinearTraced { id, vector, view } => {
            d.dispatch(Action::LinearTraced(crate::page::state::LinearTraced {
                rev: id,
                vector,
                view: Rc::from(view),
            }))
        }
        // The bridge keeps Finished (whether the worker is idle).
        Event::Ready | Event::Crashed { .. } | Event::Finished { .. } => {}
    });
    let on_fail: OnFail = Rc::new(move |id: u64, why: String| {
        web_sys::console::warn_1(&format!("hoist: the worker stopped: {why}").into());
        dispatch.dispatch(Action::EngineFailed(id, engine_failure_message(&why)));
    });
    (start.0)(on_event, on_fail)
}

/// The first document (link, local storage or default), in the reducer.
#[hook]
fn use_page_state() -> UseReducerHandle<State> {
    let state = use_reducer(|| {
        INITIAL
            .with(|i| i.borrow_mut().take())
            .unwrap_or_else(initial_state)
    });
    LATEST.with(|l| *l.borrow_mut() = Some(state.clone()));
    state
}

/// The page's state as it opens: the link's document, else the stored one, else the
/// default example.
fn initial_state() -> State {
    let stored: Option<String> = LocalStorage::get(STORAGE_KEY).ok();
    let (doc, notice) = initial_doc(&location_hash(), stored.as_deref());
    let mut s = State::new(doc);
    s.debug_pixel = crate::doc::codec::pixel(&location_hash());
    s.keep_address = notice.as_ref().is_some_and(|n| n.error);
    s.notice = notice;
    s
}

thread_local! {
    /// The state [`start`] made (and sent the first job of) for the app's first render.
    static INITIAL: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// The job [`use_jobs`] sends for `state`'s revision (`None`: source mode's compile comes
/// first, or the compile failed).
fn job_of(state: &State) -> Option<Job> {
    if matches!(
        state.source_status(),
        SourceStatus::Compile | SourceStatus::Failed
    ) {
        return None;
    }
    Some(Job {
        id: state.rev,
        doc: (*state.doc).clone(),
        images: state.images.clone(),
        fail: match test_failure().as_deref() {
            None | Some("load") => None,
            Some("throw") => Some(Fail::Throw),
            Some(_) => Some(Fail::Panic),
        },
        force: test_executor(),
        validation_delay_ms: test_switch(TEST_VALIDATION_DELAY_KEY)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        band_workers: test_switch(TEST_BAND_WORKERS_KEY).and_then(|v| v.parse().ok()),
        // "Time again" draws both pairs again instead of reusing the kept runs.
        fresh: state.rerun_rev == state.rev,
    })
}

/// Links followed while the page is open.
#[hook]
fn use_hash_changes(dispatch: UseReducerDispatcher<State>) {
    use_effect_with((), move |_| {
        let listener = web_sys::window().map(|w| {
            gloo::events::EventListener::new(&w, "hashchange", move |_| {
                dispatch.dispatch(Action::Hash(location_hash()));
            })
        });
        move || drop(listener)
    });
}

/// Every new revision: the job under way is cancelled at once; after a pause in typing
/// the text is parsed here (diagnostics) and the job goes to the worker, a fresh one if
/// the last one died.
#[hook]
fn use_jobs(state: &UseReducerHandle<State>, start: Starter, front_start: FrontStarter) {
    let engine = use_mut_ref(|| None::<Engine>);
    let front = use_front(front_start, state.dispatcher());
    let stop_engine = engine.clone();
    // The handle holds this render's state: the job is made from it only when a new
    // revision's effect runs, not on every render.
    let snapshot = state.clone();
    let dispatch = state.dispatcher();
    // What the last job cost: the page's parse and the worker's optimization (`pause_ms`).
    let parse_ms = use_mut_ref(|| f64::NAN);
    let worker_ms = (state.analysis_ms > 0.0).then_some(state.analysis_ms + state.validation_ms);
    let measured = {
        let p = *parse_ms.borrow();
        worker_ms.map(|w| w + if p.is_nan() { 0.0 } else { p })
    };
    let searched = (state.linear_ms > 0.0).then_some(state.linear_ms);
    {
        // The pixel debugger's trace, asked for once the current text's render is done.
        let engine = engine.clone();
        use_effect_with(state.debug_request(), move |req| {
            if let (Some((rev, x, y)), Some(e)) = (*req, engine.borrow().as_ref()) {
                e.trace(rev, x, y);
            }
        });
    }
    {
        // The linear debugger's trace, asked for once the current system's result is there.
        let engine = engine.clone();
        let orders = match &state.linear {
            Some(Ok(o)) => Some([o.before.order.clone(), o.after.order.clone()]),
            _ => None,
        };
        let ldoc = state.doc.linear.clone();
        use_effect_with(state.linear_debug_request(), move |req| {
            if let (Some((rev, v)), Some(e), Some(orders), Some(ldoc)) =
                (*req, engine.borrow().as_ref(), orders, ldoc)
            {
                e.linear_trace(rev, ldoc, orders, v);
            }
        });
    }
    use_effect_with(state.rev, move |&rev| {
        // A worker with nothing under way takes the job at once; a busy one (it finishes
        // the step it is in before it sees the job) after a pause that follows its cost.
        let idle = match engine.borrow().as_ref() {
            Some(e) => {
                let idle = e.is_idle();
                e.cancel();
                idle
            }
            None => true,
        };
        let cancel = Rc::new(Cell::new(false));
        let c = cancel.clone();
        spawn_local(async move {
            let (doc, status) = (&snapshot.doc, snapshot.source_status());
            // Source mode's compiles wait for the typing to pause as before.
            let at_once = idle && !matches!(status, SourceStatus::Compile);
            let pause = if rev <= 1 || at_once {
                0
            } else {
                debounce_ms(doc, measured, searched)
            };
            if pause > 0 {
                TimeoutFuture::new(pause).await;
            }
            if c.get() {
                return;
            }
            match (status, &doc.source) {
                (SourceStatus::Compile, Some(source)) => {
                    return front(FrontJob {
                        id: rev,
                        source: source.clone(),
                    });
                }
                (SourceStatus::Failed, _) => return,
                _ => {}
            }
            {
                let mut slot = engine.borrow_mut();
                let replace = slot.as_ref().is_none_or(|e| {
                    e.is_dead() || e.optimizing_ms().is_some_and(|ms| ms > RESTART_MS)
                });
                if replace {
                    // Dropping the old engine terminates its worker.
                    *slot = Some(start_engine(start, dispatch.clone()));
                }
                if let (Some(e), Some(job)) = (slot.as_ref(), job_of(&snapshot)) {
                    e.run(job);
                }
            }
            // The editors' diagnostics, parsed here while the worker has the job.
            let t0 = crate::wire::bridge::now();
            let parsed = analysis::parse(doc);
            *parse_ms.borrow_mut() = crate::wire::bridge::now() - t0;
            dispatch.dispatch(Action::Parsed(rev, Rc::new(parsed)));
        });
        move || cancel.set(true)
    });
    use_stop(state.stops, stop_engine);
}

/// Source mode's compiles: the front worker is started on the first one (its bundle is
/// loaded then, not with the page) and again after it died; its answer for the newest
/// source becomes an action.
#[hook]
fn use_front(start: FrontStarter, dispatch: UseReducerDispatcher<State>) -> Rc<dyn Fn(FrontJob)> {
    let engine = use_mut_ref(|| None::<FrontEngine>);
    let sent = use_mut_ref(|| None::<(u64, crate::doc::source::SourceDoc)>);
    Rc::new(move |job: FrontJob| {
        *sent.borrow_mut() = Some((job.id, job.source.clone()));
        let mut slot = engine.borrow_mut();
        if slot.as_ref().is_none_or(FrontEngine::is_dead) {
            let (d, sent) = (dispatch.clone(), sent.clone());
            let on: OnAnswer = Rc::new(move |id, r| {
                let src = sent.borrow().clone().filter(|(s, _)| *s == id);
                if let Some((_, src)) = src {
                    d.dispatch(Action::Source(SourceEdit::Compiled(
                        Box::new(src),
                        r.map(Rc::new),
                    )));
                }
            });
            *slot = Some((start.0)(on));
        }
        if let Some(e) = slot.as_ref() {
            e.compile(job);
        }
    })
}

/// Stop: the job under way ends at once. A render stops at its next slice (the worker is
/// told to cancel); an optimization cannot be interrupted, so its worker is terminated and
/// the next job starts a fresh one.
#[hook]
fn use_stop(stops: u64, engine: Rc<RefCell<Option<Engine>>>) {
    use_effect_with(stops, move |&stops| {
        if stops > 0 {
            let mut slot = engine.borrow_mut();
            if slot.as_ref().is_some_and(|e| e.optimizing_ms().is_some()) {
                // Dropping the engine terminates its worker.
                *slot = None;
            } else if let Some(e) = slot.as_ref() {
                e.cancel();
            }
        }
    });
}

/// Writes the document to local storage and the address bar (unless the address holds a
/// refused link, kept there to be repaired).
fn persist(s: &State) {
    let link = s.link();
    let _ = LocalStorage::set(STORAGE_KEY, &link);
    if !s.keep_address {
        replace_url(&link);
    }
}

/// Persistence of the analysed document once the page is quiet ([`PERSIST_MS`] after the
/// analysis of the current text, or when the page is left): encoding the link and
/// replacing the address take milliseconds a keystroke should not wait for.
#[hook]
fn use_persistence(state: &UseReducerHandle<State>) {
    let s = state.clone();
    use_effect_with(
        (state.analysis_rev, state.rev, state.debug_pixel),
        move |&(analysed, rev, _)| {
            let timer = (analysed > 0 && analysed == rev)
                .then(|| gloo::timers::callback::Timeout::new(PERSIST_MS, move || persist(&s)));
            move || drop(timer)
        },
    );
    use_effect_with((), |_| {
        let listener = web_sys::window().map(|w| {
            gloo::events::EventListener::new(&w, "pagehide", |_| {
                LATEST.with(|l| {
                    if let Some(s) = l.borrow().as_ref().filter(|s| s.analysis_rev > 0) {
                        persist(s);
                    }
                });
            })
        });
        move || drop(listener)
    });
}

/// The page's callbacks, the same from one render to the next, so that a panel
/// re-renders only when what it shows changes (not on every progress event).
struct Handlers {
    dispatch: Callback<Action>,
    vp: Callback<String>,
    fp: Callback<String>,
    hand_vp: Callback<String>,
    hand_fp: Callback<String>,
    vp_profile: Callback<Option<String>>,
    fp_profile: Callback<Option<String>>,
    origin: Callback<Option<u32>>,
    scene: Callback<String>,
}

#[hook]
fn use_handlers(state: &UseReducerHandle<State>) -> Handlers {
    let dispatch = {
        let d = state.dispatcher();
        use_callback((), move |a: Action, _| d.dispatch(a))
    };
    Handlers {
        vp: use_callback(dispatch.clone(), |s: String, d| d.emit(Action::SetVp(s))),
        fp: use_callback(dispatch.clone(), |s: String, d| d.emit(Action::SetFp(s))),
        hand_vp: use_callback(dispatch.clone(), |s: String, d| {
            d.emit(Action::SetHandVp(s))
        }),
        hand_fp: use_callback(dispatch.clone(), |s: String, d| {
            d.emit(Action::SetHandFp(s))
        }),
        vp_profile: use_callback(dispatch.clone(), |p: Option<String>, d| {
            d.emit(Action::SetProfile(true, p))
        }),
        fp_profile: use_callback(dispatch.clone(), |p: Option<String>, d| {
            d.emit(Action::SetProfile(false, p))
        }),
        origin: use_callback(dispatch.clone(), |l: Option<u32>, d| {
            d.emit(Action::OriginLine(l))
        }),
        scene: use_callback(dispatch.clone(), |s: String, d| d.emit(Action::SetScene(s))),
        dispatch,
    }
}

/// "Copy link": the link goes to the address bar, the field next to the button and the
/// clipboard.
fn copy_link(
    state: &UseReducerHandle<State>,
    shown: &UseStateHandle<Option<String>>,
    dispatch: &Callback<Action>,
) -> Callback<MouseEvent> {
    let (state, shown, dispatch) = (state.clone(), shown.clone(), dispatch.clone());
    Callback::from(move |_| {
        let frag = state.link();
        replace_url(&frag);
        let url = url_with(&frag);
        shown.set(Some(url.clone()));
        let dispatch = dispatch.clone();
        let clip = web_sys::window().map(|w| w.navigator().clipboard());
        spawn_local(async move {
            let ok = match clip {
                Some(c) => wasm_bindgen_futures::JsFuture::from(c.write_text(&url))
                    .await
                    .is_ok(),
                None => false,
            };
            dispatch.emit(Action::Notice(Some(Notice {
                text: if ok {
                    "Link copied to the clipboard.".into()
                } else {
                    "Copy the link from the field next to the button.".into()
                },
                error: false,
            })));
        });
    })
}

/// The editors' parses, kept (the same `Shared`) while what an editor shows of them is
/// unchanged, so a parse that only confirms the text re-renders no editor: original vertex
/// and fragment programs, hand-edited vertex and fragment programs.
#[hook]
fn use_sides(state: &State) -> [Option<Shared<Side>>; 4] {
    let sides = use_mut_ref(<[Option<Shared<Side>>; 4]>::default);
    let latest = state.latest_parse();
    let hand = latest.and_then(|p| p.hand.as_ref());
    let next = [
        latest.map(|p| &p.vp),
        latest.map(|p| &p.fp),
        hand.map(|h| &h.0),
        hand.map(|h| &h.1),
    ];
    let mut kept = sides.borrow_mut();
    for (kept, next) in kept.iter_mut().zip(next) {
        *kept = stable_side(kept.take(), next);
    }
    kept.clone()
}

/// The page's header: title, Examples and Copy link.
fn top_bar(
    gallery_open: &UseStateHandle<bool>,
    opener: &NodeRef,
    link_shown: Option<&String>,
    on_copy: Callback<MouseEvent>,
) -> Html {
    let on_toggle_gallery = {
        let open = gallery_open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    html! {
        <header class="top">
            <div class="brand">
                <span class="logo" aria-hidden="true">{ "⤒" }</span>
                <h1>{ "Hoist" }</h1>
                <span class="tagline">{ "move fragment work to the vertex program — and prove it pixel by pixel" }</span>
            </div>
            <div class="actions">
                <button type="button" id="examples-button" ref={opener.clone()} aria-expanded={gallery_open.to_string()}
                    aria-controls="gallery" onclick={on_toggle_gallery}>{ "Examples" }</button>
                <button type="button" id="copy-link" onclick={on_copy}>{ "Copy link" }</button>
                if let Some(u) = link_shown {
                    <input id="permalink" class="permalink" type="text" readonly=true value={u.clone()}
                        aria-label="Permalink" onfocus={Callback::from(|e: FocusEvent| {
                            if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() { i.select(); }
                        })} />
                }
            </div>
        </header>
    }
}

/// While the gallery is open, Escape closes it and gives the focus back to the button that
/// opened it.
#[hook]
fn use_gallery_escape(open: &UseStateHandle<bool>, opener: &NodeRef) {
    let (handle, opener) = (open.clone(), opener.clone());
    use_effect_with(**open, move |&is_open| {
        let listener = is_open
            .then(web_sys::window)
            .flatten()
            .and_then(|w| w.document())
            .map(|d| {
                gloo::events::EventListener::new(&d, "keydown", move |e| {
                    let escape = e
                        .dyn_ref::<web_sys::KeyboardEvent>()
                        .is_some_and(|k| k.key() == "Escape");
                    if escape {
                        handle.set(false);
                        if let Some(b) = opener.cast::<web_sys::HtmlElement>() {
                            let _ = b.focus();
                        }
                    }
                })
            });
        move || drop(listener)
    });
}

/// The message at the top, with its dismiss button.
fn notice_bar(n: &Notice, dispatch: &Callback<Action>) -> Html {
    let d = dispatch.clone();
    html! {
        <div class={classes!("notice", n.error.then_some("error"))} role={if n.error { "alert" } else { "status" }}>
            <span>{ n.text.clone() }</span>
            <button type="button" class="link" aria-label="Dismiss"
                onclick={Callback::from(move |_| d.emit(Action::Notice(None)))}>{ "×" }</button>
        </div>
    }
}

/// The optimized column: the hand editors, the annotated programs, or why there are none.
fn optimized_side(
    state: &State,
    a: Option<&Analysis>,
    sides: &[Option<Shared<Side>>; 4],
    h: &Handlers,
) -> Html {
    if let Some(hand) = &state.doc.hand {
        return html! {
            <>
                <p class="hint">{ "Hand-edit mode: move instructions yourself; the renderer judges the result." }</p>
                <Editor id="hand-vp" title="Vertex program (yours)" value={hand.vp.clone()}
                    stage={Stage::Vertex} side={sides[2].clone()} onchange={h.hand_vp.clone()} />
                <Editor id="hand-fp" title="Fragment program (yours)" value={hand.fp.clone()}
                    stage={Stage::Fragment} side={sides[3].clone()} onchange={h.hand_fp.clone()} />
            </>
        };
    }
    match (a, a.and_then(|a| a.optimized.as_ref())) {
        (Some(_), Some(o)) => {
            let (lit, focus) = optimized_links(state, o, h);
            html! {
                <>
                    <OptimizedView id="vp" title={format!("Vertex program ({})", o.vp_profile.header())}
                        lines={Shared(o.vp.clone())} dialect={o.vp_profile.dialect()}
                        on_origin={h.origin.clone()} profile={o.vp_profile} other={o.fp_profile}
                        lit={lit[0].clone()} on_focus={focus[0].clone()} />
                    <OptimizedView id="fp" title={format!("Fragment program ({})", o.fp_profile.header())}
                        lines={Shared(o.fp.clone())} dialect={o.fp_profile.dialect()}
                        on_origin={h.origin.clone()} profile={o.fp_profile} other={o.vp_profile}
                        lit={lit[1].clone()} on_focus={focus[1].clone()} />
                </>
            }
        }
        (Some(an), None) => {
            html! { <p class="message" id="opt-problem">{ an.problem.clone().unwrap_or_default() }</p> }
        }
        (None, _) => match (&state.engine_error, state.source_status()) {
            (Some(e), _) => html! { <p class="message bad" id="opt-problem">{ e.clone() }</p> },
            (None, SourceStatus::Failed) => html! {
                <p class="message" id="opt-problem">{ "The source does not compile: nothing to optimize until it does." }</p>
            },
            (None, SourceStatus::Compile) => {
                html! { <p class="muted">{ "Compiling the source…" }</p> }
            }
            (None, _) => html! { <p class="muted">{ "Optimizing…" }</p> },
        },
    }
}

/// What the focus lights up in source mode, while the analysis is the current source's.
fn source_lit(state: &State, a: Option<&Analysis>) -> (Lit, Rc<Vec<source_map::Moved>>) {
    let o = a
        .and_then(|a| a.optimized.as_ref())
        .filter(|_| state.is_current());
    let Some(c) = state.compiled() else {
        return (Lit::default(), Rc::default());
    };
    let lit = state.source_focus.map_or_else(Lit::default, |f| {
        source_map::lit(c, f, o.map(|o| [&*o.vp, &*o.fp]))
    });
    let moved = o.map_or_else(Vec::new, |o| source_map::moved(c, &o.fates));
    (lit, Rc::new(moved))
}

/// Where a hovered or focused line of an optimized program goes (its index).
type OnLine = Option<Callback<Option<usize>>>;

/// Source mode's links on the optimized programs: each line lit or not, and where a
/// hovered line goes (nothing outside source mode).
fn optimized_links(
    state: &State,
    o: &analysis::Optimized,
    h: &Handlers,
) -> ([Vec<bool>; 2], [OnLine; 2]) {
    let Some(c) = state.compiled().filter(|_| state.is_current()) else {
        return Default::default();
    };
    let (lit, _) = source_lit(state, state.analysis.as_deref());
    let lines = |a: &hoist_opt::annotate::Annotated| {
        (0..a.lines.len())
            .map(|i| lit.optimized(c, a, i))
            .collect::<Vec<_>>()
    };
    let focus = |stage: Stage| {
        let d = h.dispatch.clone();
        Some(Callback::from(move |i: Option<usize>| {
            d.emit(Action::SourceFocus(i.map(|i| Focus::Optimized(stage, i))))
        }))
    };
    (
        [lines(&o.vp), lines(&o.fp)],
        [focus(Stage::Vertex), focus(Stage::Fragment)],
    )
}

/// The original column in source mode: the source editors, the generated programs, the
/// scene around the sources.
fn source_column(state: &State, a: Option<&Analysis>, dispatch: &Callback<Action>) -> Html {
    let Some(src) = &state.doc.source else {
        return html! {};
    };
    let (lit, moved) = source_lit(state, a);
    // The panel keeps the source's scene as written (the compiler's diagnostics point into
    // it); it says what drawing it at the document's size changes, as Export writes it.
    let i = &state.doc.inputs;
    let sized = (src.scene.as_deref())
        .map(|t| crate::doc::scene_size::at_size(t, i.width, i.height).notes)
        .unwrap_or_default();
    let scene_diags: Vec<hoist_asm::Diagnostic> = state
        .front
        .as_ref()
        .filter(|f| f.source == *src)
        .and_then(|f| f.output.as_ref().ok())
        .and_then(|o| o.result.as_ref().err())
        .map(|ds| {
            ds.iter()
                .filter(|d| d.place == crate::doc::source::Place::Scene)
                .map(|d| d.diagnostic.clone())
                .collect()
        })
        .unwrap_or_default();
    let d = dispatch.clone();
    let on_scene = Callback::from(move |t: String| {
        d.emit(Action::Source(SourceEdit::Text(
            crate::doc::source::Place::Scene,
            t,
        )))
    });
    html! {
        <>
            <SourcePanel source={Rc::new(src.clone())} front={state.front.clone().map(Shared)}
                vp={AttrValue::from(state.doc.vp.clone())} fp={AttrValue::from(state.doc.fp.clone())}
                {lit} {moved} dispatch={dispatch.clone()} />
            <SceneEditor text={src.scene.clone().map(AttrValue::from)} onchange={on_scene}
                source_diagnostics={Some(scene_diags)} sized={sized} />
        </>
    }
}

/// Why the output has nothing to show: the render's error, or a source that does not
/// compile.
fn output_error(state: &State) -> Option<AttrValue> {
    state
        .render_error
        .clone()
        .or_else(|| {
            (state.source_status() == SourceStatus::Failed).then(|| {
                "the source does not compile: its diagnostics are marked in the editor".into()
            })
        })
        .map(AttrValue::from)
}

/// The temp limits the liveness panel draws (vertex, fragment).
fn live_limits(state: &State, a: Option<&Analysis>) -> [u16; 2] {
    let limit = |p: Option<hoist_asm::Profile>| p.map_or(0, |p| state.doc.opts.limits_of(p).temps);
    [
        limit(a.and_then(|a| a.vp.profile)),
        limit(a.and_then(|a| a.fp.profile)),
    ]
}

/// The stepwise slider's reach, from the analysis.
fn reach_of(state: &State) -> Option<crate::worker::reach::Reach> {
    state
        .analysis
        .as_ref()
        .and_then(|a| a.optimized.as_ref())
        .and_then(|o| o.reach.clone())
}

/// The pixel debugger, while it is open on a pixel.
fn debugger_view(
    state: &State,
    dispatch: &Callback<Action>,
    on_line: &Callback<Option<u32>>,
) -> Html {
    let Some(pixel) = state.debug_pixel else {
        return html! {};
    };
    html! {
        <Debugger {pixel} traced={state.debug_view().cloned()} row={state.debug_row}
            dispatch={dispatch.clone()} on_line={on_line.clone()} />
    }
}

/// The dependence graph's view: the graph, or why there is none yet.
fn dag_view(a: Option<&Analysis>, line: Option<u32>, on_line: Callback<Option<u32>>) -> Html {
    let graph = a
        .and_then(|a| a.optimized.as_ref())
        .map(|o| Shared(o.dag.clone()));
    let message = match a {
        None => "…".to_string(),
        Some(a) if a.fp.program.is_none() => "the fragment program has errors".into(),
        Some(a) => a.problem.clone().unwrap_or_default(),
    };
    html! { <DagView {graph} message={message} {line} {on_line} /> }
}

/// The scene of the document, parsed once per scene text (for the Inputs panel).
#[hook]
fn use_scene(text: Option<String>) -> Option<Shared<hoist_raster::scene::Scene>> {
    let scene = use_memo(text, |t| {
        t.as_ref().and_then(|t| {
            hoist_raster::scene::parse(t, &render::caps())
                .ok()
                .map(Rc::new)
        })
    });
    (*scene).clone().map(Shared)
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_page_state();
    let gallery_open = use_state(|| false);
    let opener = use_node_ref();
    use_gallery_escape(&gallery_open, &opener);
    let link_shown = use_state(|| None::<String>);
    use_hash_changes(state.dispatcher());
    let front = FrontStarter(crate::wire::front::worker);
    use_jobs(
        &state,
        props.engine.unwrap_or(Starter(worker_engine)),
        props.front.unwrap_or(front),
    );
    use_persistence(&state);
    let h = use_handlers(&state);
    let sides = use_sides(&state);
    let src_line = use_state_eq(|| None::<u32>);
    let presenting = use_state_eq(|| false);
    let set_presenting = |on: bool| {
        let p = presenting.clone();
        Callback::from(move |_: ()| p.set(on))
    };
    let reach = reach_of(&state);
    let on_src_line = {
        let l = src_line.clone();
        use_callback((), move |n: Option<u32>, _| l.set(n))
    };
    let scene = use_scene(state.doc.scene.clone());
    let on_copy = copy_link(&state, &link_shown, &h.dispatch);
    let on_export = export_handler(&state);
    let on_target = use_target_handler(&state);
    let on_pick = Callback::from({
        let open = gallery_open.clone();
        move |_| open.set(false)
    });
    let a = state.analysis.clone().map(Shared::from);
    let hand_on = state.doc.hand.is_some();
    let on_hand = {
        let d = h.dispatch.clone();
        Callback::from(move |_| d.emit(Action::HandEdit(!hand_on)))
    };
    let engine_error = state.engine_error.clone().map(AttrValue::from);
    let trust = a.as_ref().and_then(|a| analysis::trust(a));
    let error = output_error(&state);
    let rendered = state.rendered.clone().map(Shared::from);
    let stale = !state.is_current();
    let generation = use_render_count();

    html! {
        <div class={classes!("app", stale.then_some("stale"))}>
            { top_bar(&gallery_open, &opener, link_shown.as_ref(), on_copy) }
            if state.doc.mode.is_code() {
                { summary_bar(&state) }
            }
            if *gallery_open {
                <Gallery current={state.doc.example.clone().map(AttrValue::from)} onpick={on_pick} />
            }
            if let Some(n) = &state.notice {
                { notice_bar(n, &h.dispatch) }
            }
            <DocBar title={doc_title(&state.doc)} dispatch={h.dispatch.clone()} onexport={on_export} />
            { crate::page::components::linear::mode_switch(state.doc.mode, &h.dispatch) }
            if state.doc.mode == crate::doc::Mode::Linear {
                { crate::page::components::linear::page(&state, &h.dispatch) }
            } else {
            if let Some(id) = &state.doc.example {
                <About id={id.clone()} change={state.example_change().map(AttrValue::from)} />
            }
            <main class="layout">
                <section class="col" aria-label="Original programs">
                    <h2>{ "Original" }</h2>
                    { input_switch(state.doc.source.as_ref().map(|s| s.lang), &h.dispatch) }
                    if state.doc.source.is_some() {
                        { source_column(&state, a.as_deref(), &h.dispatch) }
                    } else {
                        <Editor id="vp" title="Vertex program" value={state.doc.vp.clone()} stage={Stage::Vertex}
                            side={sides[0].clone()} onchange={h.vp.clone()}
                            profile={state.doc.vp_profile.clone().map(AttrValue::from)} onprofile={h.vp_profile.clone()}
                            ontarget={on_target.clone()}
                            other={a.as_ref().and_then(|a| a.fp.profile)} />
                        <Editor id="fp" title="Fragment program" value={state.doc.fp.clone()} stage={Stage::Fragment}
                            side={sides[1].clone()} onchange={h.fp.clone()}
                            profile={state.doc.fp_profile.clone().map(AttrValue::from)} onprofile={h.fp_profile.clone()}
                            highlight_line={state.origin_line} on_line={on_src_line.clone()} ontarget={on_target.clone()}
                            other={a.as_ref().and_then(|a| a.vp.profile)} />
                        <SceneEditor text={state.doc.scene.clone().map(AttrValue::from)} size={Some((state.doc.inputs.width, state.doc.inputs.height))} onchange={h.scene.clone()} />
                    }
                </section>
                <section class="col" aria-label="Optimized programs">
                    <h2>
                        { "Optimized" }
                        <label class="toggle">
                            <input type="checkbox" id="hand-edit" checked={hand_on} onchange={on_hand} />
                            { " edit by hand" }
                        </label>
                    </h2>
                    <Stepper opts={state.doc.opts.clone()} groups={a.as_ref().map_or(0, |a| a.groups())}
                        reach={reach.clone()}
                        dispatch={h.dispatch.clone()} />
                    { hand_note(&state.doc, state.is_current(), &h.dispatch) }
                    { optimized_side(&state, a.as_deref(), &sides, &h) }
                </section>
                <Output rendered={rendered.clone()} progress={state.progress}
                    optimizing={state.is_optimizing()} stopped={state.is_stopped()} trust={trust} engine_error={engine_error}
                    view={state.doc.inputs.view} tolerance={state.doc.inputs.tolerance}
                    error={error} dispatch={h.dispatch.clone()}
                    fp_source={Some(AttrValue::from(state.doc.fp.clone()))}
                    previous={state.shows_previous_render()} />
                { debugger_view(&state, &h.dispatch, &on_src_line) }
                <Deferred {generation}>
                    if state.doc.source.is_some() {
                        <BindingsPanel front={state.front.clone().map(Shared)}
                            current={state.compiled().is_some()} />
                    }
                    <GpuPanel rendered={rendered.clone()} rev={state.analysis_rev}
                        ready={state.is_current() && state.progress.is_none() && rendered.is_some()
                            && !state.is_stopped() && state.engine_error.is_none()}
                        doc={Shared(state.doc.clone())} images={state.images.clone()} view={state.doc.inputs.view} />
                    <div class="panels">
                        <StatsPanel analysis={a.clone()} rendered={rendered}
                            width={state.doc.inputs.width} height={state.doc.inputs.height}
                            analysis_ms={state.analysis_ms} validation_ms={state.validation_ms} cost={state.doc.opts.cost} interp_cost={state.doc.opts.interp_cost} timings={state.timings.clone()} dispatch={h.dispatch.clone()} />
                        <OptionsPanel opts={state.doc.opts.clone()}
                            vp_profile={a.as_ref().and_then(|a| a.vp.profile)}
                            fp_profile={a.as_ref().and_then(|a| a.fp.profile)} dispatch={h.dispatch.clone()} />
                        <InputsPanel analysis={a.clone()} inputs={state.doc.inputs.clone()} {scene}
                            image_names={state.image_names.clone()} dispatch={h.dispatch.clone()} />
                    </div>
                    <MachinePanel view={a.as_ref().and_then(|a| a.optimized.as_ref()).map(|o| Shared(o.machine.clone()))} />
                    <VaryingsPanel view={a.as_ref().and_then(|a| a.optimized.as_ref()).map(|o| Shared(o.varyings.clone()))} />
                    { dag_view(a.as_deref(), *src_line, h.origin.clone()) }
                    <LivenessPanel analysis={a.clone()} limits={live_limits(&state, a.as_deref())}
                        lines={[state.doc.vp.lines().count() as u32, state.doc.fp.lines().count() as u32]} />
                    <ExportPanel analysis={a.clone()} on_present={set_presenting(true)} />
                </Deferred>
            </main>
            }
            if *presenting {
                <Presenter analysis={a.clone()} opts={state.doc.opts.clone()} groups={a.as_ref().map_or(0, |a| a.groups())}
                    {reach} pending={state.progress.is_some() || stale} dispatch={h.dispatch.clone()}
                    on_close={set_presenting(false)} />
            }
            <footer class="foot">
                { "Hoist implements the code motion of T. Ikeda, F. Ino and K. Hagihara, “A Code Motion Technique \
                   for Accelerating General-Purpose Computation on the GPU” (IPDPS 2006). Everything runs in this page: \
                   nothing is sent anywhere." }
            </footer>
        </div>
    }
}

/// `window.hoistImageHashes()`: the FNV-1a hash of each float image shown (original,
/// optimized; every channel's bits, little-endian), `null` where there is none. Apart
/// from `hoistReport()`, which scripts call often: hashing a large image takes a while.
fn image_hashes() -> JsValue {
    let hash = |r: Option<&render::RunResult>| -> JsValue {
        let Some(run) = r.and_then(|r| r.as_ref().ok()) else {
            return JsValue::NULL;
        };
        let bytes: Vec<u8> = run
            .image
            .pixels
            .iter()
            .flatten()
            .flat_map(|v| v.to_bits().to_le_bytes())
            .collect();
        format!("{:016x}", hoist_asm::hash::fnv1a(&bytes)).into()
    };
    LATEST.with(|l| {
        let l = l.borrow();
        let r = l.as_ref().and_then(|s| s.rendered.clone());
        let a = js_sys::Array::new();
        a.push(&hash(r.as_ref().map(|r| &r.original)));
        a.push(&hash(r.as_ref().and_then(|r| r.optimized.as_ref())));
        a.into()
    })
}

/// Mounts the app on the page body and installs `window.hoistReport()` and
/// `window.hoistImageHashes()`.
pub fn start() {
    if let Some(w) = web_sys::window() {
        let f = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(report);
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("hoistReport"), f.as_ref());
        let h = Closure::<dyn Fn() -> JsValue>::new(image_hashes);
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("hoistImageHashes"), h.as_ref());
        // The page keeps the functions for its whole life.
        f.forget();
        h.forget();
    }
    // The first job goes to the worker before the app draws: the worker's cold first job
    // and the page's first render (its bundle's code compiled as it first runs, the first
    // layout) then overlap.
    let state = initial_state();
    let sent = state.doc.mode.is_code()
        && job_of(&state).is_some_and(|job| bridge::send_first(WORKER_URL, job));
    INITIAL.with(|i| *i.borrow_mut() = Some(state));
    let render = || {
        yew::Renderer::<App>::new().render();
    };
    if sent {
        // One turn of the event loop first, so that the job leaves the page now
        // (`bridge::send_first`), not after the first render and layout.
        gloo::timers::callback::Timeout::new(0, render).forget();
    } else {
        render();
    }
}

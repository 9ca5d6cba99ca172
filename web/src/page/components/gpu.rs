//! The GPU view (issue 23): the current pair, original and optimized, rendered on the
//! visitor's GPU with the exact executor's inputs — WebGPU where the browser has it, WebGL2
//! otherwise, a note where neither exists — beside the exact images, with the agreement
//! (max |Δ| and where), the classes of difference that apply, and timings of both pairs.
//! Hidden until shown: nothing of it (the GPU worker, `runner.mjs`) loads before. It never
//! changes the verdict; the exact executor judges.

use super::Shared;
use super::output::{clear, put};
use crate::doc::{Doc, ViewMap};
use crate::page::gpu::{
    self, ApiChoice, Chosen, GpuRun, Msg, TimingSpec, TimingView, View, agree_view, choose,
    summarize, tolerance_words,
};
use crate::page::runner;
use crate::page::state::Rendered;
use crate::wire::gpu::GpuWorker;
use crate::worker::gpu::{GpuJob, GpuPlans, MAX_TIMING_SIZE};
use crate::worker::render::{self, Images};
use hoist_raster::image::Image;
use std::cell::RefCell;
use std::rc::Rc;
use yew::platform::spawn_local;
use yew::prelude::*;

#[derive(Properties)]
pub struct GpuProps {
    pub rendered: Option<Shared<Rendered>>,
    /// The revision `rendered` belongs to, and whether it is the current text's finished
    /// render (the view renders on the GPU only then).
    pub rev: u64,
    pub ready: bool,
    pub doc: Shared<Doc>,
    /// The user's pictures (not compared: a new picture is a new revision).
    pub images: Images,
    pub view: ViewMap,
}

impl PartialEq for GpuProps {
    fn eq(&self, o: &GpuProps) -> bool {
        self.rendered == o.rendered
            && self.rev == o.rev
            && self.ready == o.ready
            && self.doc == o.doc
            && self.view == o.view
    }
}

impl Reducible for View {
    type Action = Msg;
    fn reduce(self: Rc<Self>, m: Msg) -> Rc<Self> {
        let mut v = (*self).clone();
        v.apply(m);
        Rc::new(v)
    }
}

/// The GPU worker (started on first use, again after it died) and the request counter.
#[derive(Default)]
struct Worker {
    worker: Option<Rc<GpuWorker>>,
    requests: u64,
}

type WorkerRef = Rc<RefCell<Worker>>;

/// What a request needs of the props (cloned into effects and handlers).
#[derive(Clone)]
struct Ask {
    rev: u64,
    doc: Shared<Doc>,
    images: Images,
}

impl Ask {
    fn of(p: &GpuProps) -> Ask {
        Ask {
            rev: p.rev,
            doc: p.doc.clone(),
            images: p.images.clone(),
        }
    }
}

impl Worker {
    /// The worker (started if need be) and a request for `ask`'s document.
    fn job(cell: &WorkerRef, ask: &Ask, timing: Option<(u32, u32)>) -> (Rc<GpuWorker>, GpuJob) {
        let mut w = cell.borrow_mut();
        if w.worker.as_ref().is_none_or(|x| x.is_dead()) {
            w.worker = Some(Rc::new(GpuWorker::start()));
        }
        w.requests += 1;
        let job = GpuJob {
            id: ask.rev,
            request: w.requests,
            doc: (*ask.doc).clone(),
            images: ask.images.clone(),
            timing,
        };
        (w.worker.clone().expect("started"), job)
    }
}

/// One pair on the GPU: its display target read back, held against the exact image.
async fn run_one(
    chosen: &Chosen,
    plan: &str,
    plans: &GpuPlans,
    exact: Option<&Image>,
) -> Result<GpuRun, String> {
    let img = runner::run(chosen.api, plan, &plans.display).await?;
    let agree = exact
        .map(|e| hoist_gpu::check::agreement(e, &img, plans.tolerance))
        .transpose()?
        .map(|a| agree_view(&a, plans.tolerance));
    Ok(GpuRun {
        image: Rc::new(img),
        agree,
    })
}

async fn render_task(
    worker: Rc<GpuWorker>,
    job: GpuJob,
    chosen: Chosen,
    exact: Shared<Rendered>,
    d: UseReducerDispatcher<View>,
) {
    let rev = job.id;
    d.dispatch(Msg::Status(rev, "building the GPU plans…".into()));
    let plans = match worker.plans(&job).await {
        Ok(p) => Rc::new(p),
        Err(e) => return d.dispatch(Msg::Failed(rev, e)),
    };
    d.dispatch(Msg::Planned(rev, plans.clone()));
    d.dispatch(Msg::Status(rev, format!("rendering on {}…", chosen.label)));
    let images = exact.images();
    for (k, plan) in [Some(&plans.original), plans.optimized.as_ref()]
        .into_iter()
        .enumerate()
    {
        if let Some(plan) = plan {
            let r = run_one(&chosen, plan, &plans, images[k]).await;
            d.dispatch(Msg::Ran(rev, k, r));
        }
    }
}

/// Plans at the timing size, then times the original against the optimized pair.
async fn timing_of(
    worker: &GpuWorker,
    job: &GpuJob,
    chosen: &Chosen,
    spec: &TimingSpec,
) -> Result<Rc<TimingView>, String> {
    let plans = worker.plans(job).await?;
    let opt = plans
        .optimized
        .as_deref()
        .ok_or("there is no optimized pair to time")?;
    let raw = runner::time(chosen.api, [plans.original.as_str(), opt], spec).await?;
    summarize(&raw).map(Rc::new)
}

async fn timing_task(
    worker: Rc<GpuWorker>,
    job: GpuJob,
    chosen: Chosen,
    spec: TimingSpec,
    d: UseReducerDispatcher<View>,
) {
    d.dispatch(Msg::Timing(job.id));
    let result = timing_of(&worker, &job, &chosen, &spec).await;
    d.dispatch(Msg::Timed(job.id, result));
}

/// Asks the runner which APIs exist the first time the view opens.
#[hook]
fn use_detect(v: &UseReducerHandle<View>) {
    let d = v.dispatcher();
    let asked = v.detected.is_some();
    use_effect_with(v.open, move |&open| {
        if open && !asked {
            spawn_local(async move {
                d.dispatch(Msg::Detected(runner::detect().await.map(Rc::new)));
            });
        }
    });
}

/// Renders both pairs on the GPU for each finished render while the view is open.
#[hook]
fn use_gpu_render(p: &GpuProps, v: &UseReducerHandle<View>, worker: &WorkerRef) {
    let chosen = match (&v.detected, v.open && p.ready) {
        (Some(Ok(d)), true) => choose(v.choice, d).ok(),
        _ => None,
    };
    let go = chosen.is_some() && p.rendered.is_some() && v.rev != p.rev;
    let (d, ask, exact, worker) = (
        v.dispatcher(),
        Ask::of(p),
        p.rendered.clone(),
        worker.clone(),
    );
    use_effect_with((p.rev, go), move |&(_, go)| {
        if let (true, Some(exact), Some(chosen)) = (go, exact, chosen) {
            let (w, job) = Worker::job(&worker, &ask, None);
            d.dispatch(Msg::Start(job.id, chosen.clone()));
            spawn_local(render_task(w, job, chosen, exact, d));
        }
    });
}

/// Draws the exact and the GPU images (original, optimized) when either or the mapping
/// changes.
#[hook]
fn use_gpu_canvases(p: &GpuProps, v: &View) -> [NodeRef; 4] {
    let refs: [NodeRef; 4] = [
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
    ];
    let gpu: [Option<Rc<Image>>; 2] = v
        .runs
        .clone()
        .map(|r| r.and_then(|r| r.ok()).map(|r| r.image));
    // The canvases exist once the view is open and has found an API.
    let mounted = (v.open, v.detected.is_some(), v.rev);
    let key = (
        p.rendered.clone(),
        gpu.clone().map(|i| i.map(|i| Rc::as_ptr(&i) as usize)),
        p.view,
        mounted,
    );
    let (r, rendered) = (refs.clone(), p.rendered.clone());
    use_effect_with(key, move |(_, _, view, _)| {
        let exact = rendered.as_ref().map(|x| x.canvas_pixels(view));
        let images = rendered.as_ref().map(|x| x.images());
        for k in 0..2 {
            let (e, g) = (&r[2 * k], &r[2 * k + 1]);
            match (
                images.as_ref().and_then(|i| i[k]),
                exact.as_ref().and_then(|p| p[k].as_ref()),
            ) {
                (Some(i), Some(px)) => put(e, i.width, i.height, px),
                _ => clear(e),
            }
            // The exact images' mapping (RGB opaque when their alpha is 0 everywhere).
            let shown = render::shown_view(images.unwrap_or([None, None]), *view);
            match &gpu[k] {
                Some(i) => put(g, i.width, i.height, &render::display_rgba(i, &shown)),
                None => clear(g),
            }
        }
    });
    refs
}

fn pair_figure(v: &View, k: usize, refs: &[NodeRef; 4]) -> Html {
    let id = ["original", "optimized"][k];
    let line = match &v.runs[k] {
        Some(Ok(r)) => match &r.agree {
            Some(a) => html! {
                <p id={format!("gpu-agree-{id}")} class={classes!("gpu-agree", if a.agrees { "ok" } else { "bad" })}>
                    { a.words.clone() }</p>
            },
            None => {
                html! { <p id={format!("gpu-agree-{id}")} class="muted">{ "no exact image to compare with" }</p> }
            }
        },
        Some(Err(e)) => {
            html! { <p id={format!("gpu-agree-{id}")} class="gpu-agree bad">{ format!("the GPU could not render it: {e}") }</p> }
        }
        None if k == 1 && v.plans.as_ref().is_some_and(|p| p.optimized.is_none()) => {
            html! { <p id={format!("gpu-agree-{id}")} class="muted">{ "no optimized pair" }</p> }
        }
        None => html! { <p id={format!("gpu-agree-{id}")} class="muted">{ "…" }</p> },
    };
    html! {
        <div class="gpu-pair">
            <h3>{ format!("{} pair", if k == 0 { "Original" } else { "Optimized" }) }</h3>
            <div class="gpu-canvases">
                <figure><canvas ref={refs[2 * k].clone()} id={format!("gpu-exact-{id}")}
                    aria-label={format!("{id}: the exact executor's image")}></canvas>
                    <figcaption>{ "exact executor" }</figcaption></figure>
                <figure><canvas ref={refs[2 * k + 1].clone()} id={format!("gpu-image-{id}")}
                    aria-label={format!("{id}: the GPU's image")}></canvas>
                    <figcaption>{ v.chosen.as_ref().map_or("GPU", |c| c.label) }</figcaption></figure>
            </div>
            { line }
        </div>
    }
}

fn differences(v: &View) -> Html {
    let Some(p) = &v.plans else {
        return html! {};
    };
    html! {
        <details class="gpu-differences" id="gpu-differences">
            <summary>{ format!(
                "Agreement: max |Δ| ≤ {} on every channel. Where a GPU may differ from the executor for these pairs: {}",
                tolerance_words(p.tolerance),
                if p.differences.is_empty() { "nowhere listed".to_string() }
                else { p.differences.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(", ") },
            ) }</summary>
            <ul>
                { for p.differences.iter().map(|(id, what)| html! { <li><strong>{ id.clone() }</strong>{ ": " }{ what.clone() }</li> }) }
            </ul>
            <p class="muted">{ "The measured figures and why each class differs: docs/gpu-translation.md." }</p>
        </details>
    }
}

fn stat_row(name: &str, s: &gpu::Stat) -> Html {
    html! {
        <tr><th>{ name.to_string() }</th><td>{ format!("{:.4}", s.median) }</td>
            <td>{ format!("{:.4} – {:.4}", s.q1, s.q3) }</td><td>{ s.n.to_string() }</td></tr>
    }
}

fn timing_result(t: &TimingView) -> Html {
    html! {
        <div id="gpu-timing">
            <p id="gpu-timing-headline" class="gpu-headline">{ t.headline.clone() }</p>
            <table class="gpu-timing-table">
                <tr><th></th><th>{ "median (ms)" }</th><th>{ "interquartile range" }</th><th>{ "samples" }</th></tr>
                { stat_row("original", &t.original) }
                { stat_row("optimized", &t.optimized) }
            </table>
            <p id="gpu-timing-method" class="muted">{ format!(
                "{}×{}, {} draw(s) per sample, original and optimized interleaved; measured by {}.",
                t.width, t.height, t.repeat, t.method_words) }</p>
            <p id="gpu-timing-why">{ t.explanation.clone() }</p>
            { for t.notes.iter().map(|n| html! { <p class="muted">{ n.clone() }</p> }) }
        </div>
    }
}

fn timing(p: &GpuProps, v: &UseReducerHandle<View>, worker: &WorkerRef) -> Html {
    let can = v.chosen.is_some()
        && v.plans.as_ref().is_some_and(|x| x.optimized.is_some())
        && !v.timing_busy
        && v.rev == p.rev;
    let size = if v.size == 0 {
        (p.doc.inputs.width, p.doc.inputs.height)
    } else {
        (v.size, v.size)
    };
    let click = |spec: TimingSpec| {
        let (v, worker, ask) = (v.clone(), worker.clone(), Ask::of(p));
        Callback::from(move |_: MouseEvent| {
            if let (true, Some(c)) = (can, v.chosen.clone()) {
                let (w, job) = Worker::job(&worker, &ask, Some(size));
                spawn_local(timing_task(w, job, c, spec, v.dispatcher()));
            }
        })
    };
    let on_size = {
        let d = v.dispatcher();
        Callback::from(move |e: Event| {
            d.dispatch(Msg::Size(super::event_value(&e).parse().unwrap_or(0)))
        })
    };
    let sizes = [512u32, 1024, 2048, MAX_TIMING_SIZE];
    html! {
        <div class="gpu-timing">
            <h3>{ "Timing" }</h3>
            <div class="gpu-controls">
                <label>{ "size " }
                    <select id="gpu-size" onchange={on_size} aria-label="Timing size">
                        <option value="0" selected={v.size == 0}>{ format!("the document's ({}×{})", p.doc.inputs.width, p.doc.inputs.height) }</option>
                        { for sizes.iter().map(|s| html! { <option value={s.to_string()} selected={v.size == *s}>{ format!("{s}×{s}") }</option> }) }
                    </select>
                </label>
                <button type="button" id="gpu-time" disabled={!can} onclick={click(TimingSpec::NORMAL)}
                    title="Time one draw of each pair, many times, interleaved">{ "Time both pairs" }</button>
                <button type="button" id="gpu-heavier" disabled={!can} onclick={click(TimingSpec::HEAVIER)}
                    title="12 draws per sample: out of the fixed cost of a submit">{ "Heavier: 12 draws per sample" }</button>
                if v.timing_busy { <span class="busy" role="status">{ "timing…" }</span> }
            </div>
            { match &v.timing {
                Some(Ok(t)) => timing_result(t),
                Some(Err(e)) => html! { <p class="message bad" id="gpu-timing-error">{ format!("the timing failed: {e}") }</p> },
                None => html! {},
            } }
        </div>
    }
}

fn api_select(v: &UseReducerHandle<View>) -> Html {
    let d = v.dispatcher();
    let on = Callback::from(move |e: Event| {
        d.dispatch(Msg::Choose(ApiChoice::from_id(&super::event_value(&e))))
    });
    let opts = [
        (ApiChoice::Auto, "WebGPU, else WebGL2"),
        (ApiChoice::WebGpu, "WebGPU"),
        (ApiChoice::WebGl2, "WebGL2"),
    ];
    html! {
        <label>{ "API " }
            <select id="gpu-api" onchange={on} aria-label="GPU API">
                { for opts.iter().map(|(c, l)| html! { <option value={c.id()} selected={v.choice == *c}>{ *l }</option> }) }
            </select>
        </label>
    }
}

fn body(p: &GpuProps, v: &UseReducerHandle<View>, worker: &WorkerRef, refs: &[NodeRef; 4]) -> Html {
    let device = v
        .chosen
        .as_ref()
        .map(|c| format!("{} on {}", c.label, c.adapter));
    html! {
        <>
            <p class="muted">{ "Both pairs drawn by your browser's GPU with the exact executor's inputs (size, \
                textures, parameters). The exact executor judges the verdict; this is evidence beside it." }</p>
            <div class="gpu-controls">
                { api_select(v) }
                if let Some(dev) = device { <span id="gpu-device">{ dev }</span> }
                if let Some(s) = &v.status { <span class="busy" role="status" id="gpu-status">{ s.clone() }</span> }
            </div>
            { match (v.detected.as_ref(), v.unavailable()) {
                (None, _) => html! { <p class="muted" id="gpu-status">{ "looking for WebGPU and WebGL2…" }</p> },
                (Some(_), Some(why)) => html! { <p class="message" id="gpu-unavailable">{ why }</p> },
                (Some(_), None) => html! {
                    <>
                        if let Some(e) = &v.error { <p class="message bad" id="gpu-error">{ e.clone() }</p> }
                        if !p.ready { <p class="muted">{ "waiting for the exact render of the current text…" }</p> }
                        <div class="gpu-pairs">{ pair_figure(v, 0, refs) }{ pair_figure(v, 1, refs) }</div>
                        { differences(v) }
                        { timing(p, v, worker) }
                    </>
                },
            } }
        </>
    }
}

#[function_component(GpuPanel)]
pub fn gpu_panel(p: &GpuProps) -> Html {
    let v = use_reducer(View::default);
    let worker: WorkerRef = use_mut_ref(Worker::default);
    gpu::set_report(v.report(p.rev, p.ready));
    use_detect(&v);
    use_gpu_render(p, &v, &worker);
    let refs = use_gpu_canvases(p, &v);
    let toggle = {
        let d = v.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::Toggle))
    };
    html! {
        <section class="panel gpu" id="gpu">
            <h2>
                { "Your GPU" }
                <button type="button" class="link" id="gpu-toggle" aria-expanded={v.open.to_string()}
                    onclick={toggle}>{ if v.open { "hide" } else { "show" } }</button>
            </h2>
            if v.open { { body(p, &v, &worker, &refs) } }
        </section>
    }
}

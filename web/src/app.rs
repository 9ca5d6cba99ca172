//! The page: layout, and the effects that connect the reducer to the browser — the first
//! document (link, local storage or default), the debounced analysis, the chunked render
//! loop (cancelled as soon as the user moves on), persistence of the last document, link
//! changes and the "Copy link" button.

use crate::analysis::analyze;
use crate::components::Shared;
use crate::components::dag::DagView;
use crate::components::editor::Editor;
use crate::components::examples::{About, Gallery};
use crate::components::inputs::InputsPanel;
use crate::components::optimized::OptimizedView;
use crate::components::options::OptionsPanel;
use crate::components::output::Output;
use crate::components::stats::StatsPanel;
use crate::render::{self, Phase, Task};
use crate::state::{Action, Notice, Rendered, STORAGE_KEY, State, initial_doc};
use gloo::storage::{LocalStorage, Storage};
use gloo::timers::future::TimeoutFuture;
use hoist_asm::Stage;
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::platform::spawn_local;
use yew::prelude::*;

/// Pause after the last keystroke before re-optimizing (ms).
const DEBOUNCE_MS: u32 = 220;
/// Work per slice of the render loop before yielding to the browser (ms).
const SLICE_MS: f64 = 12.0;

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
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
    current: bool,
    before: Option<hoist_opt::Stats>,
    after: Option<hoist_opt::Stats>,
    fates: Vec<hoist_opt::Fate>,
    problem: Option<String>,
    verdict: Option<String>,
    render_ms: Option<[f64; 2]>,
    optimizer_ms: f64,
}

fn report() -> Result<JsValue, JsValue> {
    LATEST.with(|l| {
        let Some(s) = l.borrow().clone() else {
            return Ok(JsValue::NULL);
        };
        let a = s.analysis.as_ref();
        let r = Report {
            link: s.link(),
            example: s.doc.example.clone(),
            current: s.is_current(),
            before: a.and_then(|a| a.before),
            after: a.and_then(|a| a.after),
            fates: a
                .and_then(|a| a.optimized.as_ref())
                .map(|o| o.outcome.fates.clone())
                .unwrap_or_default(),
            problem: a.and_then(|a| a.problem.clone()),
            verdict: s.rendered.as_ref().and_then(|r| {
                r.verdict
                    .as_ref()
                    .map(|v| render::verdict_view(v, s.doc.inputs.tolerance).headline)
            }),
            render_ms: s.rendered.as_ref().map(|r| [r.ms_original, r.ms_optimized]),
            optimizer_ms: s.analysis_ms,
        };
        serde_wasm_bindgen::to_value(&r).map_err(Into::into)
    })
}

/// Renders both pairs of the analysis of revision `rev`, yielding to the browser between
/// slices, until done or `cancel` is set.
async fn render_loop(
    rev: u64,
    state: UseReducerHandle<State>,
    dispatch: UseReducerDispatcher<State>,
    cancel: Rc<Cell<bool>>,
) {
    let Some(a) = state.analysis.clone() else {
        return;
    };
    TimeoutFuture::new(0).await;
    if cancel.get() {
        return;
    }
    let start = now();
    let plan = match render::plan(&state.doc, &a, &state.images) {
        Ok(Some(p)) => p,
        Ok(None) => {
            dispatch.dispatch(Action::RenderFailed(
                rev,
                "nothing to render until both programs parse".into(),
            ));
            return;
        }
        Err(e) => {
            dispatch.dispatch(Action::RenderFailed(rev, e));
            return;
        }
    };
    let mut task = Task::new(plan);
    let (mut ms_orig, mut ms_opt) = (now() - start, 0.0);
    let mut bands = 1u32;
    while !task.is_done() {
        let slice = now();
        while !task.is_done() && now() - slice < SLICE_MS {
            let t0 = now();
            let phase = task.step(bands);
            let dt = now() - t0;
            match phase {
                Phase::Original => ms_orig += dt,
                Phase::Optimized => ms_opt += dt,
                Phase::Done => {}
            }
            if dt < SLICE_MS / 4.0 {
                bands = (bands * 2).min(4096);
            } else if dt > SLICE_MS {
                bands = (bands / 2).max(1);
            }
        }
        if task.is_done() {
            break;
        }
        dispatch.dispatch(Action::Progress(rev, task.fraction()));
        TimeoutFuture::new(0).await;
        if cancel.get() {
            return;
        }
    }
    let original = task
        .original
        .take()
        .unwrap_or_else(|| Err("not rendered".into()));
    let optimized = task.optimized.take();
    let verdict = match (&original, &optimized) {
        (Ok(a), Some(Ok(b))) => Some(hoist_raster::compare(&a.image, &b.image)),
        _ => None,
    };
    dispatch.dispatch(Action::Rendered(
        rev,
        Rc::new(Rendered {
            original,
            optimized,
            verdict,
            ms_original: ms_orig,
            ms_optimized: ms_opt,
        }),
    ));
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| {
        let stored: Option<String> = LocalStorage::get(STORAGE_KEY).ok();
        let (doc, notice) = initial_doc(&location_hash(), stored.as_deref());
        let mut s = State::new(doc);
        s.notice = notice;
        s
    });
    LATEST.with(|l| *l.borrow_mut() = Some(state.clone()));
    let gallery_open = use_state(|| false);
    let link_shown = use_state(|| None::<String>);

    // Links followed while the page is open.
    {
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                gloo::events::EventListener::new(&w, "hashchange", move |_| {
                    dispatch.dispatch(Action::Hash(location_hash()));
                })
            });
            move || drop(listener)
        });
    }

    // Debounced analysis of every new revision.
    {
        let doc = state.doc.clone();
        let dispatch = state.dispatcher();
        use_effect_with(state.rev, move |&rev| {
            let cancel = Rc::new(Cell::new(false));
            let c = cancel.clone();
            spawn_local(async move {
                TimeoutFuture::new(if rev <= 1 { 0 } else { DEBOUNCE_MS }).await;
                if c.get() {
                    return;
                }
                let t0 = now();
                let a = analyze(&doc);
                let ms = now() - t0;
                if !c.get() {
                    dispatch.dispatch(Action::Analyzed(rev, Rc::new(a), ms));
                }
            });
            move || cancel.set(true)
        });
    }

    // Render loop per analysis; persistence of the analysed document.
    {
        let s = state.clone();
        let dispatch = state.dispatcher();
        use_effect_with(state.analysis_rev, move |&rev| {
            let cancel = Rc::new(Cell::new(false));
            if rev > 0 {
                let link = s.link();
                let _ = LocalStorage::set(STORAGE_KEY, &link);
                replace_url(&link);
                spawn_local(render_loop(rev, s, dispatch, cancel.clone()));
            }
            move || cancel.set(true)
        });
    }

    let d = state.dispatcher();
    let dispatch = Callback::from(move |a: Action| d.dispatch(a));
    let act = |f: fn(String) -> Action| {
        let d = dispatch.clone();
        Callback::from(move |s: String| d.emit(f(s)))
    };

    let on_copy = {
        let (state, shown, dispatch) = (state.clone(), link_shown.clone(), dispatch.clone());
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
    };
    let on_toggle_gallery = {
        let open = gallery_open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    let on_pick = {
        let open = gallery_open.clone();
        Callback::from(move |_| open.set(false))
    };
    let on_origin = {
        let d = dispatch.clone();
        Callback::from(move |l: Option<u32>| d.emit(Action::OriginLine(l)))
    };
    let on_profile = |vertex: bool| {
        let d = dispatch.clone();
        Callback::from(move |p: Option<String>| d.emit(Action::SetProfile(vertex, p)))
    };

    let a = state.analysis.clone().map(Shared::from);
    let side = |f: fn(&crate::analysis::Analysis) -> &crate::analysis::Side| {
        a.as_ref().map(|a| Shared(Rc::new(f(a).clone())))
    };
    let hand = state.doc.hand.clone();
    let hand_on = hand.is_some();
    let on_hand = {
        let d = dispatch.clone();
        Callback::from(move |_| d.emit(Action::HandEdit(!hand_on)))
    };

    let optimized_side = match (&hand, &a) {
        (Some(h), _) => {
            let hv = a
                .as_ref()
                .and_then(|a| a.hand.as_ref())
                .map(|h| Shared(Rc::new(h.0.clone())));
            let hf = a
                .as_ref()
                .and_then(|a| a.hand.as_ref())
                .map(|h| Shared(Rc::new(h.1.clone())));
            html! {
                <>
                    <p class="hint">{ "Hand-edit mode: move instructions yourself; the renderer judges the result." }</p>
                    <Editor id="hand-vp" title="Vertex program (yours)" value={h.vp.clone()}
                        stage={Stage::Vertex} side={hv} onchange={act(Action::SetHandVp)} />
                    <Editor id="hand-fp" title="Fragment program (yours)" value={h.fp.clone()}
                        stage={Stage::Fragment} side={hf} onchange={act(Action::SetHandFp)} />
                </>
            }
        }
        (None, Some(an)) => match &an.optimized {
            Some(o) => {
                let fp_lines = Shared(Rc::new(an.fp.inst_lines.clone()));
                html! {
                    <>
                        <OptimizedView id="vp" title={format!("Vertex program ({})", o.outcome.vp.profile.header())}
                            lines={Shared(Rc::new(o.vp_view.clone()))} dialect={o.outcome.vp.dialect()}
                            fp_lines={fp_lines.clone()} on_origin={on_origin.clone()} />
                        <OptimizedView id="fp" title={format!("Fragment program ({})", o.outcome.fp.profile.header())}
                            lines={Shared(Rc::new(o.fp_view.clone()))} dialect={o.outcome.fp.dialect()}
                            fp_lines={fp_lines} on_origin={on_origin.clone()} />
                    </>
                }
            }
            None => {
                html! { <p class="message" id="opt-problem">{ an.problem.clone().unwrap_or_default() }</p> }
            }
        },
        (None, None) => html! { <p class="muted">{ "Optimizing…" }</p> },
    };

    let scene = {
        let text = state.doc.scene.clone();
        use_memo(text, |t| {
            t.as_ref().and_then(|t| {
                hoist_raster::scene::parse(t, &render::caps())
                    .ok()
                    .map(Rc::new)
            })
        })
    };
    let scene = (*scene).clone().map(Shared);
    let error = state.render_error.clone().map(AttrValue::from);
    let stale = !state.is_current();

    html! {
        <div class={classes!("app", stale.then_some("stale"))}>
            <header class="top">
                <div class="brand">
                    <span class="logo" aria-hidden="true">{ "⤒" }</span>
                    <h1>{ "Hoist" }</h1>
                    <span class="tagline">{ "move fragment work to the vertex program — and prove it pixel by pixel" }</span>
                </div>
                <div class="actions">
                    <button type="button" id="examples-button" aria-expanded={gallery_open.to_string()}
                        aria-controls="gallery" onclick={on_toggle_gallery}>{ "Examples" }</button>
                    <button type="button" id="copy-link" onclick={on_copy}>{ "Copy link" }</button>
                    if let Some(u) = &*link_shown {
                        <input id="permalink" class="permalink" type="text" readonly=true value={u.clone()}
                            aria-label="Permalink" onfocus={Callback::from(|e: FocusEvent| {
                                if let Some(i) = e.target_dyn_into::<web_sys::HtmlInputElement>() { i.select(); }
                            })} />
                    }
                </div>
            </header>
            if *gallery_open {
                <Gallery current={state.doc.example.clone().map(AttrValue::from)} onpick={on_pick} />
            }
            if let Some(n) = &state.notice {
                <div class={classes!("notice", n.error.then_some("error"))} role={if n.error { "alert" } else { "status" }}>
                    <span>{ n.text.clone() }</span>
                    <button type="button" class="link" aria-label="Dismiss"
                        onclick={{ let d = dispatch.clone(); Callback::from(move |_| d.emit(Action::Notice(None))) }}>{ "×" }</button>
                </div>
            }
            if let Some(id) = &state.doc.example {
                <About id={id.clone()} pristine={state.is_pristine_example()} />
            }
            <main class="layout">
                <section class="col" aria-label="Original programs">
                    <h2>{ "Original" }</h2>
                    <Editor id="vp" title="Vertex program" value={state.doc.vp.clone()} stage={Stage::Vertex}
                        side={side(|a| &a.vp)} onchange={act(Action::SetVp)}
                        profile={state.doc.vp_profile.clone().map(AttrValue::from)} onprofile={on_profile(true)} />
                    <Editor id="fp" title="Fragment program" value={state.doc.fp.clone()} stage={Stage::Fragment}
                        side={side(|a| &a.fp)} onchange={act(Action::SetFp)}
                        profile={state.doc.fp_profile.clone().map(AttrValue::from)} onprofile={on_profile(false)}
                        highlight_line={state.origin_line} />
                </section>
                <section class="col" aria-label="Optimized programs">
                    <h2>
                        { "Optimized" }
                        <label class="toggle">
                            <input type="checkbox" id="hand-edit" checked={hand_on} onchange={on_hand} />
                            { " edit by hand" }
                        </label>
                    </h2>
                    { optimized_side }
                </section>
                <Output rendered={state.rendered.clone().map(Shared::from)} progress={state.progress}
                    view={state.doc.inputs.view} tolerance={state.doc.inputs.tolerance}
                    error={error} dispatch={dispatch.clone()} />
                <div class="panels">
                    <StatsPanel analysis={a.clone()} rendered={state.rendered.clone().map(Shared::from)}
                        width={state.doc.inputs.width} height={state.doc.inputs.height}
                        analysis_ms={state.analysis_ms} />
                    <OptionsPanel opts={state.doc.opts.clone()} groups={a.as_ref().map_or(0, |a| a.groups())}
                        vp_profile={a.as_ref().and_then(|a| a.vp.profile)}
                        fp_profile={a.as_ref().and_then(|a| a.fp.profile)} dispatch={dispatch.clone()} />
                    <InputsPanel analysis={a.clone()} inputs={state.doc.inputs.clone()} {scene}
                        image_names={state.image_names.clone()} dispatch={dispatch.clone()} />
                </div>
                <DagView analysis={a} source={state.doc.fp.clone()} />
            </main>
            <footer class="foot">
                { "Hoist implements the code motion of T. Ikeda, F. Ino and K. Hagihara, “A Code Motion Technique \
                   for Accelerating General-Purpose Computation on the GPU” (IPDPS 2006). Everything runs in this page: \
                   nothing is sent anywhere." }
            </footer>
        </div>
    }
}

/// Mounts the app on the page body and installs `window.hoistReport()`.
pub fn start() {
    if let Some(w) = web_sys::window() {
        let f = Closure::<dyn Fn() -> Result<JsValue, JsValue>>::new(report);
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("hoistReport"), f.as_ref());
        // The page keeps the function for its whole life.
        f.forget();
    }
    yew::Renderer::<App>::new().render();
}

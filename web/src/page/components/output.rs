//! Rendered output: original, optimized and difference heat map on canvases (their pixels
//! made by the worker for the current mapping, see `render::Display`), the verdict
//! and next to it how far the optimized pair was validated (with the groups validation
//! rejected), the float → colour mapping, a pixel inspector, the worker's progress with a
//! Stop button, what a stopped job left, and what happened when the worker stopped.

use super::{Shared, event_value, verdict};
use crate::doc::numbers;
use crate::doc::{Channel, ViewMap};
use crate::page::state::{Action, Rendered};
use crate::worker::analysis::Trust;
use crate::worker::render::{self, VerdictKind};
use wasm_bindgen::{Clamped, JsCast};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct OutputProps {
    pub rendered: Option<Shared<Rendered>>,
    pub progress: Option<f64>,
    /// The worker is optimizing and validating the current text.
    #[prop_or_default]
    pub optimizing: bool,
    /// The user stopped the current text's job.
    #[prop_or_default]
    pub stopped: bool,
    /// How far the optimized pair is trusted (`None`: there is none).
    #[prop_or_default]
    pub trust: Option<Trust>,
    /// The worker stopped: the message to show instead of a verdict.
    #[prop_or_default]
    pub engine_error: Option<AttrValue>,
    pub view: ViewMap,
    pub tolerance: f32,
    /// Why nothing rendered (broken scene) or why there is no optimized side.
    #[prop_or_default]
    pub error: Option<AttrValue>,
    pub dispatch: Callback<Action>,
    /// The original fragment program's text (for the culprit's lines).
    #[prop_or_default]
    pub fp_source: Option<AttrValue>,
    /// The render shown is an earlier one than the current text's
    /// (`State::shows_previous_render`): dimmed, its verdict withheld.
    #[prop_or_default]
    pub previous: bool,
}

pub(crate) fn put(canvas: &NodeRef, w: u32, h: u32, rgba: &[u8]) {
    let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() else {
        return;
    };
    c.set_width(w);
    c.set_height(h);
    let Ok(Some(ctx)) = c.get_context("2d") else {
        return;
    };
    let Ok(ctx) = ctx.dyn_into::<web_sys::CanvasRenderingContext2d>() else {
        return;
    };
    if let Ok(data) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(Clamped(rgba), w, h) {
        let _ = ctx.put_image_data(&data, 0.0, 0.0);
    }
}

pub(crate) fn clear(canvas: &NodeRef) {
    if let Some(c) = canvas.cast::<web_sys::HtmlCanvasElement>() {
        c.set_width(1);
        c.set_height(1);
    }
}

/// A warning when loops were cut off by the per-batch instruction budget.
fn truncation(r: &Option<Shared<Rendered>>) -> Option<String> {
    let r = r.as_ref()?;
    let count = |x: Option<&render::RunResult>| {
        x.and_then(|x| x.as_ref().ok())
            .map_or(0, |x| x.stats.truncated_batches)
    };
    let n = count(Some(&r.original)) + count(r.optimized.as_ref());
    (n > 0).then(|| {
        format!(
            "{n} batch(es) of 64 pixels reached the playground's limit of {} instructions per \
             pixel; their loops were cut short, so the images show partial results",
            render::MAX_BATCH_INSTRUCTIONS
        )
    })
}

fn fmt_px(v: [f32; 4]) -> String {
    v.map(|x| format!("{x:.6}")).join(", ")
}

/// Draws the images (and the heat map) whenever the render or the mapping changes.
#[hook]
fn use_canvases(rendered: Option<Shared<Rendered>>, view: ViewMap) -> [NodeRef; 3] {
    let c_orig = use_node_ref();
    let c_opt = use_node_ref();
    let c_diff = use_node_ref();
    {
        let (c_orig, c_opt, c_diff) = (c_orig.clone(), c_opt.clone(), c_diff.clone());
        use_effect_with((rendered, view), move |(r, view)| match r {
            Some(r) => {
                let [a, b] = r.canvas_pixels(view);
                let [ia, ib] = [
                    r.original.as_ref().ok().map(|x| &x.image),
                    r.optimized
                        .as_ref()
                        .and_then(|x| x.as_ref().ok())
                        .map(|x| &x.image),
                ];
                for (canvas, img, px) in [(&c_orig, ia, a), (&c_opt, ib, b)] {
                    match (img, px) {
                        (Some(i), Some(px)) => put(canvas, i.width, i.height, &px),
                        _ => clear(canvas),
                    }
                }
                match (ia, ib) {
                    (Some(a), Some(_)) if !r.heat.is_empty() => {
                        put(&c_diff, a.width, a.height, &r.heat)
                    }
                    (Some(a), Some(b)) => put(&c_diff, a.width, a.height, &render::heat_map(a, b)),
                    _ => clear(&c_diff),
                }
            }
            None => {
                clear(&c_orig);
                clear(&c_opt);
                clear(&c_diff);
            }
        });
    }
    [c_orig, c_opt, c_diff]
}

/// The verdict, or why there is none.
fn verdict(p: &OutputProps) -> Html {
    let verdict = p
        .rendered
        .as_ref()
        .and_then(|r| render::rendered_view(r, p.tolerance, p.trust.as_ref()));
    match (&p.engine_error, &verdict, &p.rendered) {
        _ if p.stopped => html! {
            <div class="verdict none"><strong id="verdict">{ "no verdict" }</strong>
                <span class="verdict-detail">{ "stopped before the render finished" }</span></div>
        },
        (Some(_), _, _) => html! {
            <div class="verdict none"><strong id="verdict">{ "no verdict" }</strong>
                <span class="verdict-detail">{ "the optimizer stopped" }</span></div>
        },
        _ if p.previous => html! {
            <div class="verdict none pending"><strong id="verdict">{ crate::page::summary::PENDING }</strong>
                <span class="verdict-detail">{ "the images below are the previous render's, dimmed; \
                    its verdict is withheld until the current text's render finishes" }</span></div>
        },
        (None, Some(v), _) => {
            let g = p.rendered.as_ref().and_then(|r| r.guidance.as_ref());
            let different = v.kind == VerdictKind::Different;
            html! {
                <>
                    <div class={classes!("verdict", v.kind.class())}>
                        <strong id="verdict">{ v.headline.clone() }</strong>
                        <span class="verdict-detail">{ v.detail.clone() }</span>
                    </div>
                    { verdict::guidance(g, different, p.fp_source.as_deref(), &p.dispatch,
                        verdict::worst(p.rendered.as_deref()).map(|w| (w.0, w.1))) }
                </>
            }
        }
        (None, None, Some(r)) => {
            let why = r
                .optimized
                .as_ref()
                .and_then(|o| o.as_ref().err().cloned())
                .map(|e| format!("the optimized pair did not render: {e}"))
                .or_else(|| {
                    r.original
                        .as_ref()
                        .err()
                        .map(|e| format!("the original pair did not render: {e}"))
                })
                .unwrap_or_else(|| "no optimized pair to compare".into());
            html! {
                <div class="verdict none"><strong id="verdict">{ "no verdict" }</strong>
                    <span class="verdict-detail">{ why }</span></div>
            }
        }
        (None, None, None) => html! {
            <div class="verdict none"><strong id="verdict">
                { if p.error.is_some() { "no verdict" } else { "waiting for the first render" } }
            </strong></div>
        },
    }
}

/// How far the optimized pair was validated, and the groups validation rejected.
fn trust(p: &OutputProps) -> Html {
    let (None, Some(t)) = (&p.engine_error, &p.trust) else {
        return html! {};
    };
    let class = if t.hand {
        "hand"
    } else if t.validated {
        "ok"
    } else {
        "warn"
    };
    html! {
        <>
            <p id="validation" class={classes!("validation", class)}>{ t.summary.clone() }</p>
            if !t.rejected.is_empty() {
                <ul id="rejected" class="rejected">
                    { for t.rejected.iter().map(|r| html! { <li>{ r.clone() }</li> }) }
                </ul>
            }
        </>
    }
}

/// The render's progress bar, or the optimizer at work, with the Stop button.
fn progress(p: &OutputProps) -> Html {
    let stop = || {
        let d = p.dispatch.clone();
        html! {
            <button type="button" id="stop" class="stop" title="Stop this job (edit or Run again to start over)"
                onclick={Callback::from(move |_| d.emit(Action::Stop))}>{ "Stop" }</button>
        }
    };
    match (p.progress, p.optimizing) {
        (Some(f), _) => html! {
            <>
                <div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax="100"
                    aria-valuenow={format!("{:.0}", f * 100.0)} aria-label="Rendering">
                    <div class="bar" style={format!("transform: scaleX({:.3})", f)}></div>
                    <span>{ format!("rendering… {:.0}%", f * 100.0) }</span>
                </div>
                { stop() }
            </>
        },
        (None, true) => html! {
            <>
                <span class="busy" role="status">{ "optimizing and validating…" }</span>
                { stop() }
            </>
        },
        (None, false) => html! {},
    }
}

/// What a stopped job left: a message and a way to run it again.
fn stopped(p: &OutputProps) -> Html {
    if !p.stopped {
        return html! {};
    }
    let d = p.dispatch.clone();
    html! {
        <p class="message stopped" id="stopped" role="status">
            { "Stopped before the job for this text finished: there are no images or verdict for it. " }
            <button type="button" id="rerun" onclick={Callback::from(move |_| d.emit(Action::Rerun))}>{ "Run again" }</button>
        </p>
    }
}

/// A finite number typed into a field, checked by `accept` (its message shown otherwise).
fn number_field(
    err: &UseStateHandle<Option<String>>,
    accept: impl Fn(f32) -> Result<(), String> + 'static,
) -> Callback<Event> {
    let err = err.clone();
    Callback::from(move |e: Event| {
        match numbers::parse_finite(&event_value(&e)).and_then(&accept) {
            Ok(()) => err.set(None),
            Err(m) => err.set(Some(m)),
        }
    })
}

/// The float → colour mapping (channel, range) and the tolerance.
fn mapping(p: &OutputProps, range_error: &UseStateHandle<Option<String>>) -> Html {
    let on_channel = {
        let (d, view) = (p.dispatch.clone(), p.view);
        Callback::from(move |e: Event| {
            let v = event_value(&e);
            if let Some(c) = Channel::ALL.iter().find(|c| c.name() == v) {
                d.emit(Action::SetView(ViewMap {
                    channel: *c,
                    ..view
                }));
            }
        })
    };
    let range_input = |is_lo: bool| {
        let (d, view) = (p.dispatch.clone(), p.view);
        number_field(range_error, move |x| {
            let v = if is_lo {
                ViewMap { lo: x, ..view }
            } else {
                ViewMap { hi: x, ..view }
            };
            if v.hi > v.lo {
                d.emit(Action::SetView(v));
                Ok(())
            } else {
                Err("the range needs low < high".into())
            }
        })
    };
    let on_tol = {
        let d = p.dispatch.clone();
        number_field(range_error, move |x| {
            if x >= 0.0 {
                d.emit(Action::SetTolerance(x));
                Ok(())
            } else {
                Err("the tolerance cannot be negative".into())
            }
        })
    };
    html! {
        <div class="mapping">
            <label>{ "channel " }
                <select onchange={on_channel} aria-label="Displayed channels">
                    { for Channel::ALL.iter().map(|c| html! {
                        <option value={c.name()} selected={*c == p.view.channel}>{ c.name() }</option>
                    }) }
                </select>
            </label>
            <label>{ "range " }
                <input type="text" class="num" aria-label="Range low" value={p.view.lo.to_string()} onchange={range_input(true)} />
                { " … " }
                <input type="text" class="num" aria-label="Range high" value={p.view.hi.to_string()} onchange={range_input(false)} />
            </label>
            <label title="Largest |Δ| still called equivalent">{ "tolerance " }
                <input type="text" class="num" aria-label="Tolerance" value={format!("{:e}", p.tolerance)} onchange={on_tol} />
            </label>
            if let Some(e) = &**range_error {
                <span class="field-error" role="alert">{ e.clone() }</span>
            }
        </div>
    }
}

/// The pixel under the pointer (origin bottom-left) of the canvas an event is on.
fn pixel_at(e: &MouseEvent) -> Option<(u32, u32)> {
    let c = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlCanvasElement>().ok())?;
    let (cw, ch) = (
        c.client_width().max(1) as f64,
        c.client_height().max(1) as f64,
    );
    let x = (f64::from(e.offset_x()) / cw * f64::from(c.width())).floor();
    let row = (f64::from(e.offset_y()) / ch * f64::from(c.height())).floor();
    let h = f64::from(c.height());
    (x >= 0.0 && row >= 0.0 && row < h && x < f64::from(c.width()))
        .then_some((x as u32, (h - 1.0 - row) as u32))
}

/// The pixel under the pointer, on any of the canvases.
fn on_probe(probe: &UseStateHandle<Option<(u32, u32)>>) -> Callback<MouseEvent> {
    let probe = probe.clone();
    Callback::from(move |e: MouseEvent| {
        if let Some(p) = pixel_at(&e) {
            probe.set(Some(p));
        }
    })
}

/// Both float values of the probed pixel.
fn inspector(probe: Option<(u32, u32)>, rendered: Option<&Rendered>) -> Html {
    let (Some((x, y)), Some(r)) = (probe, rendered) else {
        return html! { <p class="inspector muted">{ "Point at an image to read its float values (origin bottom-left)." }</p> };
    };
    let a = r.original.as_ref().ok().and_then(|o| o.image.get(x, y));
    let b = r
        .optimized
        .as_ref()
        .and_then(|o| o.as_ref().ok())
        .and_then(|o| o.image.get(x, y));
    html! {
        <p class="inspector">
            { format!("pixel ({x}, {y}) — original: ") }
            <code>{ a.map(fmt_px).unwrap_or_else(|| "–".into()) }</code>
            { " optimized: " }
            <code>{ b.map(fmt_px).unwrap_or_else(|| "–".into()) }</code>
        </p>
    }
}

#[function_component(Output)]
pub fn output(p: &OutputProps) -> Html {
    let [c_orig, c_opt, c_diff] = use_canvases(p.rendered.clone(), p.view);
    let probe = use_state(|| None::<(u32, u32)>);
    let range_error = use_state(|| None::<String>);
    let onmove = on_probe(&probe);
    let onleave = {
        let probe = probe.clone();
        Callback::from(move |_| probe.set(None))
    };
    let w = verdict::worst(p.rendered.as_deref());
    // A click opens the pixel debugger on the pixel under the pointer.
    let onclick = {
        let d = p.dispatch.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(px) = pixel_at(&e) {
                d.emit(Action::Debug(Some(px)));
            }
        })
    };
    html! {
        <section class="panel output" id="output" aria-label="Rendered output">
            <header class="panel-head">
                <h2>{ "Rendered output" }</h2>
                { progress(p) }
            </header>
            { verdict(p) }
            if !p.previous { { super::probes::probes(p.rendered.as_deref()) } }
            { stopped(p) }
            { trust(p) }
            if let Some(e) = &p.engine_error {
                <p class="message bad" id="engine-error" role="alert">{ e.clone() }</p>
            }
            if let Some(e) = &p.error {
                <p class="message bad">{ e.clone() }</p>
            }
            if let Some(w) = truncation(&p.rendered) {
                <p class="message" id="truncated">{ w }</p>
            }
            <div class={classes!("canvases", p.previous.then_some("previous"))}>
                <figure>
                    <div class="canvas-wrap">
                        <canvas ref={c_orig} onclick={onclick.clone()} id="canvas-original" onmousemove={onmove.clone()} onmouseleave={onleave.clone()}></canvas>
                        { verdict::marker(w, "original") }
                    </div>
                    <figcaption>{ "original" }</figcaption>
                </figure>
                <figure>
                    <div class="canvas-wrap">
                        <canvas ref={c_opt} onclick={onclick.clone()} id="canvas-optimized" onmousemove={onmove.clone()} onmouseleave={onleave.clone()}></canvas>
                        { verdict::marker(w, "optimized") }
                    </div>
                    <figcaption>{ "optimized" }</figcaption>
                </figure>
                <figure>
                    <div class="canvas-wrap">
                        <canvas ref={c_diff} onclick={onclick} id="canvas-diff" onmousemove={onmove} onmouseleave={onleave}></canvas>
                        { verdict::marker(w, "diff") }
                    </div>
                    <figcaption>
                        { "|Δ| heat map (black: identical) " }
                        <span class="heat-legend" title="log scale; magenta: NaN on one side only">
                            { "1e-7" }<span class="heat-bar"></span>{ "≥ 1" }
                        </span>
                    </figcaption>
                </figure>
            </div>
            if let Some((x, y, _, _)) = w {
                <p class="worst-note" id="worst-note">{ format!("marked on all three images: the worst pixel ({x}, {y})") }</p>
            }
            if let Some(n) = p.rendered.as_ref().and_then(|r| render::alpha_note(r.images(), p.view)) {
                <p class="worst-note" id="alpha-note">{ n }</p>
            }
            { inspector(*probe, p.rendered.as_deref()) }
            <p class="muted inspector-hint">{ "Click a pixel to open the pixel debugger on it." }</p>
            { mapping(p, &range_error) }
        </section>
    }
}

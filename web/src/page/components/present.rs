//! Presentation mode: one figure at a time in large type over the whole page (the same
//! figures the export writes). ←/→ or PageUp/PageDown step through the views, ↑/↓ through
//! the groups (the stepwise k, clamped to what fits), Escape leaves.

use super::Shared;
use super::export::{View, svg_of};
use super::stepper::at_step;
use crate::doc::OptState;
use crate::page::state::Action;
use crate::worker::analysis::Analysis;
use crate::worker::reach::Reach;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PresentProps {
    pub analysis: Option<Shared<Analysis>>,
    pub opts: OptState,
    pub groups: usize,
    pub reach: Option<Reach>,
    /// Whether a render for the current text is under way (the images view says so).
    pub pending: bool,
    pub dispatch: Callback<Action>,
    pub on_close: Callback<()>,
}

/// What a key does: a view step, a group step, or leaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    View(i32),
    Group(i32),
    Leave,
}

pub fn key(k: &str) -> Option<Key> {
    match k {
        "ArrowRight" | "PageDown" | " " => Some(Key::View(1)),
        "ArrowLeft" | "PageUp" => Some(Key::View(-1)),
        "ArrowUp" | "+" => Some(Key::Group(1)),
        "ArrowDown" | "-" => Some(Key::Group(-1)),
        "Escape" => Some(Key::Leave),
        _ => None,
    }
}

fn on_key(p: &PresentProps, view: &UseStateHandle<usize>, max: usize) -> Callback<KeyboardEvent> {
    let (view, d, close, o) = (
        view.clone(),
        p.dispatch.clone(),
        p.on_close.clone(),
        p.opts.clone(),
    );
    let groups = p.groups;
    Callback::from(move |e: KeyboardEvent| {
        let Some(k) = key(&e.key()) else {
            return;
        };
        e.prevent_default();
        match k {
            Key::View(s) => {
                let n = View::ALL.len() as i32;
                view.set(((*view as i32 + s).rem_euclid(n)) as usize);
            }
            Key::Group(s) => {
                let cur = if o.stepwise { o.steps as usize } else { groups };
                let next = (cur as i64 + i64::from(s)).clamp(0, max as i64) as usize;
                d.emit(Action::SetOpts(at_step(&o, next)));
            }
            Key::Leave => leave(&close),
        }
    })
}

/// Leaves, and gives the focus back to the button that opened presentation mode.
fn leave(close: &Callback<()>) {
    close.emit(());
    let button = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("present-open"))
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
    if let Some(b) = button {
        let _ = b.focus();
    }
}

#[function_component(Presenter)]
pub fn presenter(p: &PresentProps) -> Html {
    let view = use_state(|| 0usize);
    let root = use_node_ref();
    {
        let root = root.clone();
        use_effect_with((), move |_| {
            if let Some(r) = root.cast::<web_sys::HtmlElement>() {
                let _ = r.focus();
            }
        });
    }
    let max = p.reach.as_ref().map_or(p.groups, Reach::max);
    let onkeydown = on_key(p, &view, max);
    let v = View::ALL[*view % View::ALL.len()];
    let figure = match svg_of(v, p.analysis.as_deref()) {
        Ok(svg) => Html::from_html_unchecked(AttrValue::from(svg)),
        Err(why) => html! { <p class="present-empty">{ why }</p> },
    };
    let k = if p.opts.stepwise {
        format!("k = {} of {}", (p.opts.steps as usize).min(max), p.groups)
    } else {
        crate::page::summary::all_groups(p.groups, max)
    };
    let close = p.on_close.clone();
    html! {
        <div class="present" id="present" role="dialog" aria-modal="true" aria-label="Presentation"
            tabindex="-1" ref={root} {onkeydown}>
            <header class="present-head">
                <span class="present-title" id="present-title">
                    { format!("{}/{} · {}", *view % View::ALL.len() + 1, View::ALL.len(), v.title()) }</span>
                <span class="present-k" id="present-k">{ k }</span>
                if let Some(m) = p.reach.as_ref().and_then(Reach::message) {
                    <span class="present-limit">{ m }</span>
                }
                if p.pending && v == View::Images {
                    <span class="present-limit">{ "rendering…" }</span>
                }
                <button type="button" class="present-close" aria-label="Leave presentation"
                    onclick={Callback::from(move |_| leave(&close))}>{ "×" }</button>
            </header>
            <div class={classes!("present-body", matches!(v, View::Fragment | View::Vertex).then_some("code"))}
                id="present-body">{ figure }</div>
            <footer class="present-foot">{ "←/→ views · ↑/↓ groups · Esc leaves" }</footer>
        </div>
    }
}

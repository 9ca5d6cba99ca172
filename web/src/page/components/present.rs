//! Presentation mode: one figure at a time in large type over the whole page (the same
//! figures the export writes), scaled to fit the screen. ←/→ or PageUp/PageDown (a
//! presenter's clicker) step through the views, ↑/↓ through the groups (the stepwise k,
//! clamped to what fits), Shift+↑/↓ scroll a figure taller than the screen, Escape leaves.

use super::Shared;
use super::export::{HELP, View, svg_of};
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

/// What a key does: a view step, a group step, a scroll of the figure, or leaving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    View(i32),
    Group(i32),
    /// Scrolls the figure by this many tenths of its visible height.
    Scroll(i32),
    Leave,
}

pub fn key(k: &str, shift: bool) -> Option<Key> {
    match (k, shift) {
        ("ArrowUp", true) => Some(Key::Scroll(-3)),
        ("ArrowDown", true) => Some(Key::Scroll(3)),
        ("ArrowRight" | "PageDown" | " ", _) => Some(Key::View(1)),
        ("ArrowLeft" | "PageUp", _) => Some(Key::View(-1)),
        ("ArrowUp" | "+", _) => Some(Key::Group(1)),
        ("ArrowDown" | "-", _) => Some(Key::Group(-1)),
        ("Escape", _) => Some(Key::Leave),
        _ => None,
    }
}

/// Scrolls the presented figure by `tenths` of its visible height.
fn scroll(tenths: i32) {
    let body = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("present-body"));
    if let Some(b) = body {
        let step = f64::from(b.client_height()) * f64::from(tenths) / 10.0;
        b.set_scroll_top(b.scroll_top() + step as i32);
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
        let Some(k) = key(&e.key(), e.shift_key()) else {
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
            Key::Scroll(t) => scroll(t),
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
    // A code figure fits the screen, but its type stays at least 12 px: a longer program
    // scrolls (Shift+↑/↓).
    let min_h = p
        .analysis
        .as_deref()
        .and_then(|a| a.optimized.as_deref())
        .and_then(|o| match v {
            View::Fragment => Some(o.fp.lines.len()),
            View::Vertex => Some(o.vp.lines.len()),
            _ => None,
        })
        .map(|n| {
            format!(
                "--code-min-h: {:.0}px",
                crate::page::figure::code_min_height(n)
            )
        });
    let code = min_h.is_some().then_some("code");
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
            <div class={classes!("present-body", code)}
                id="present-body" style={min_h}>{ figure }</div>
            <footer class="present-foot" id="present-keys">{ HELP }</footer>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_arrows_scroll_and_plain_arrows_step() {
        assert_eq!(key("ArrowDown", true), Some(Key::Scroll(3)));
        assert_eq!(key("ArrowUp", true), Some(Key::Scroll(-3)));
        assert_eq!(key("ArrowDown", false), Some(Key::Group(-1)));
        assert_eq!(key("PageDown", false), Some(Key::View(1)));
        assert_eq!(key("PageUp", true), Some(Key::View(-1)));
        assert!(HELP.contains("Shift+↑/↓ scroll"));
    }
}

//! Instruction help as the page shows it (`crate::page::ophelp`): a tooltip at the pointer over
//! an opcode, and a help line under a view for the instruction under the caret or focus.

use crate::page::ophelp::Help;
use yew::prelude::*;

/// Help to show, and where the pointer is (`None`: a help line, not a tooltip).
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    pub help: Help,
    pub at: Option<(i32, i32)>,
}

fn body(h: &Help) -> Html {
    html! {
        <>
            <b class="op-name">{ h.name.clone() }</b>{ format!(" — {}", h.what) }
            <span class="op-cost">{ h.cost.clone() }</span>
            if !h.notes.is_empty() {
                <ul class="op-notes">{ for h.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }</ul>
            }
        </>
    }
}

/// Where the tooltip goes: below and right of the pointer, or above / left of it near the
/// bottom / right edge of the window, so it stays on screen.
fn placement(x: i32, y: i32) -> String {
    let window = web_sys::window();
    let size = |v: Option<Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>>| {
        v.and_then(Result::ok)
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0) as i32
    };
    let w = size(window.as_ref().map(web_sys::Window::inner_width));
    let h = size(window.as_ref().map(web_sys::Window::inner_height));
    let horizontal = if w > 0 && x > w - 500 {
        format!("right:{}px", (w - x + 14).max(4))
    } else {
        format!("left:{}px", x + 14)
    };
    let vertical = if h > 0 && y > h * 3 / 5 {
        format!("bottom:{}px", h - y + 14)
    } else {
        format!("top:{}px", y + 18)
    };
    format!("{horizontal};{vertical}")
}

/// The tooltip (fixed, next to the pointer) or the help line.
pub fn view(s: Option<&Shown>, id: &str) -> Html {
    match s {
        Some(Shown {
            help,
            at: Some((x, y)),
        }) => html! {
            <div class="op-tip" role="tooltip" id={format!("{id}-tip")}
                style={placement(*x, *y)}>{ body(help) }</div>
        },
        Some(Shown { help, at: None }) => html! {
            <div class="op-help-line" id={format!("{id}-help")} aria-live="polite">{ body(help) }</div>
        },
        None => Html::default(),
    }
}

//! Instruction help as the page shows it (`crate::ophelp`): a tooltip at the pointer over
//! an opcode, and a help line under a view for the instruction under the caret or focus.

use crate::ophelp::Help;
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

/// The tooltip (fixed, next to the pointer) or the help line.
pub fn view(s: Option<&Shown>, id: &str) -> Html {
    match s {
        Some(Shown {
            help,
            at: Some((x, y)),
        }) => html! {
            <div class="op-tip" role="tooltip" id={format!("{id}-tip")}
                style={format!("left:{}px;top:{}px", x + 14, y + 18)}>{ body(help) }</div>
        },
        Some(Shown { help, at: None }) => html! {
            <div class="op-help-line" id={format!("{id}-help")} aria-live="polite">{ body(help) }</div>
        },
        None => Html::default(),
    }
}

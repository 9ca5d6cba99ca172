//! The summary line under the header (`crate::page::summary`), visible without scrolling.

use crate::page::state::State;
use crate::page::summary::summarize;
use yew::prelude::*;

fn figures(id: &str, stage: &str, f: Option<(u32, u32)>) -> Html {
    let text = match f {
        Some((b, a)) => format!("{stage} {b} → {a}"),
        None => format!("{stage} –"),
    };
    html! { <span id={id.to_string()} class="summary-figures">{ text }</span> }
}

/// The summary line.
pub fn summary_bar(s: &State) -> Html {
    let m = summarize(s);
    html! {
        <p class="summary" id="summary" role="status" aria-label="Result">
            { figures("summary-fp", "F", m.fp) }
            <span class="sep" aria-hidden="true">{ " · " }</span>
            { figures("summary-vp", "V", m.vp) }
            <span class="sep" aria-hidden="true">{ " · " }</span>
            if let Some(t) = m.target {
                <span id="summary-target" title="ARB target">{ t }</span>
                <span class="sep" aria-hidden="true">{ " · " }</span>
            }
            <span id="summary-verdict" class={classes!("summary-verdict", m.class)}>{ m.verdict }</span>
        </p>
    }
}

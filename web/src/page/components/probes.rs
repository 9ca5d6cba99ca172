//! The scene's probes beside the verdict: each probe of the file with pass or fail, what
//! it expects, what the original and the optimized run drew there and where
//! (`crate::worker::probes`), open when one fails.

use crate::worker::probes::ProbeView;
use crate::worker::render::Rendered;
use yew::prelude::*;

fn counts(list: &[ProbeView]) -> String {
    let failed = list.iter().filter(|p| !p.pass).count();
    format!("{} passed, {failed} failed", list.len() - failed)
}

fn mark(p: &ProbeView) -> Html {
    let (class, word) = if p.pass {
        ("probe-pass", "pass")
    } else {
        ("probe-fail", "FAIL")
    };
    html! { <span class={class}>{ word }</span> }
}

fn row(o: &ProbeView, t: Option<&ProbeView>) -> Html {
    let got = |p: &ProbeView| p.got.clone().unwrap_or_else(|| p.detail.clone());
    let optimized = match t {
        Some(t) if t.got == o.got && t.pass == o.pass => {
            html! { <span class="muted">{ "the same" }</span> }
        }
        Some(t) => html! { <>{ mark(t) }{ " " }<code>{ got(t) }</code></> },
        None => html! { <span class="muted">{ "–" }</span> },
    };
    html! {
        <tr class="probe" data-pass={o.pass.to_string()} data-line={o.line.to_string()}>
            <td>{ mark(o) }</td>
            <td title={o.command.clone()}>{ format!("line {}: {}", o.line, o.at) }</td>
            <td><code>{ o.expected.clone() }</code></td>
            <td><code>{ got(o) }</code>
                if !o.pass && !o.detail.is_empty() {
                    <div class="muted probe-detail">{ o.detail.clone() }</div>
                }
            </td>
            <td>{ optimized }</td>
        </tr>
    }
}

/// The probes of a finished render (nothing when the scene has none).
pub fn probes(r: Option<&Rendered>) -> Html {
    let Some(o) = r.and_then(|r| r.original.as_ref().ok()) else {
        return html! {};
    };
    if o.probe_list.is_empty() {
        return html! {};
    }
    let t = r
        .and_then(|r| r.optimized.as_ref())
        .and_then(|t| t.as_ref().ok())
        .map(|t| &t.probe_list);
    let failed = o.probe_list.iter().any(|p| !p.pass);
    let rows: Html = (o.probe_list.iter().enumerate())
        .map(|(i, p)| row(p, t.and_then(|t| t.get(i))))
        .collect();
    html! {
        <details class={classes!("probes", failed.then_some("failed"))} id="probes" open={failed}>
            <summary>
                { "The scene's probes: " }
                <b id="probes-original">{ format!("original {}", counts(&o.probe_list)) }</b>
                if let Some(t) = t {
                    <span id="probes-optimized">{ format!(" · optimized {}", counts(t)) }</span>
                }
            </summary>
            <table class="probe-table">
                <thead><tr>
                    <th></th><th>{ "where" }</th><th>{ "expected" }</th>
                    <th>{ "original drew" }</th><th>{ "optimized drew" }</th>
                </tr></thead>
                <tbody>{ rows }</tbody>
            </table>
        </details>
    }
}

//! What a DIFFERENT verdict comes with (`crate::worker::guidance`): the culprit group and its source
//! lines (each a link that highlights the line in the original fragment program), the lines
//! a hand edit changed, a cancellation explained with the tolerance and the stepwise slider
//! at hand, the worst pixel marked on the three images and, with the culprit, an action
//! that opens the pixel debugger there.

use crate::page::state::Action;
use crate::worker::guidance::{Culprit, Guidance, tolerance_above};
use crate::worker::render::Rendered;
use hoist_raster::image::Verdict;
use yew::prelude::*;

/// The worst pixel of a render that differs: (x, y) from the bottom left, and the size.
pub fn worst(r: Option<&Rendered>) -> Option<(u32, u32, u32, u32)> {
    let r = r?;
    let Some(Verdict::Differs { x, y, .. }) = r.verdict.as_ref() else {
        return None;
    };
    let img = r.original.as_ref().ok()?;
    Some((*x, *y, img.image.width, img.image.height))
}

/// The marker of the worst pixel over one canvas.
pub fn marker(w: Option<(u32, u32, u32, u32)>, which: &str) -> Html {
    let Some((x, y, iw, ih)) = w else {
        return html! {};
    };
    let left = (f64::from(x) + 0.5) / f64::from(iw.max(1)) * 100.0;
    let top = (f64::from(ih.saturating_sub(1) - y.min(ih.saturating_sub(1))) + 0.5)
        / f64::from(ih.max(1))
        * 100.0;
    html! {
        <span class="worst-marker" id={format!("worst-{which}")}
            style={format!("left: {left:.3}%; top: {top:.3}%")}
            title={format!("worst pixel ({x}, {y})")}>
            <span class="worst-label">{ format!("({x}, {y})") }</span>
        </span>
    }
}

fn line_links(lines: &[u32], source: Option<&str>, dispatch: &Callback<Action>) -> Html {
    let text = |l: u32| {
        source
            .and_then(|s| s.lines().nth(l as usize - 1))
            .map(|t| t.trim().to_string())
            .unwrap_or_default()
    };
    lines
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            let d = dispatch.clone();
            let onclick = Callback::from(move |_| d.emit(Action::OriginLine(Some(l))));
            let d = dispatch.clone();
            let onmouseenter = Callback::from(move |_| d.emit(Action::OriginLine(Some(l))));
            html! {
                <>
                    if i > 0 { { ", " } }
                    <button type="button" class="link line-link" data-line={l.to_string()}
                        {onclick} {onmouseenter} title={text(l)}>{ format!("line {l}") }</button>
                    <code class="line-text">{ format!(" {}", text(l)) }</code>
                </>
            }
        })
        .collect()
}

fn culprit(
    c: &Culprit,
    source: Option<&str>,
    dispatch: &Callback<Action>,
    worst: Option<(u32, u32)>,
) -> Html {
    let debug = worst.map(|(x, y)| {
        let d = dispatch.clone();
        let onclick = Callback::from(move |_| d.emit(Action::Debug(Some((x, y)))));
        html! {
            <button type="button" id="debug-worst" class="link" {onclick}>
                { format!("step through the worst pixel ({x}, {y}) in the debugger") }
            </button>
        }
    });
    html! {
        <p id="culprit" class="culprit">
            { format!("caused by group {}: ", c.group + 1) }
            { line_links(&c.lines, source, dispatch) }
            { " — found by rendering subsets of the moved groups at these inputs: the images \
                differ once this group moves to the vertex program. " }
            { debug.unwrap_or_default() }
        </p>
    }
}

fn hand(lines: &(Vec<u32>, Vec<u32>)) -> Html {
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let mut parts = Vec::new();
    let noun = |v: &[u32]| if v.len() == 1 { "line" } else { "lines" };
    if !lines.1.is_empty() {
        parts.push(format!("fragment {} {}", noun(&lines.1), list(&lines.1)));
    }
    if !lines.0.is_empty() {
        parts.push(format!("vertex {} {}", noun(&lines.0), list(&lines.0)));
    }
    if parts.is_empty() {
        return html! {};
    }
    html! {
        <p id="hand-lines" class="culprit">
            { format!("your hand edit changed the optimizer's output at {}: the difference comes from there", parts.join(" and ")) }
        </p>
    }
}

/// The guidance of a DIFFERENT render (nothing until the worker has sent it).
pub fn guidance(
    g: Option<&Guidance>,
    different: bool,
    source: Option<&str>,
    dispatch: &Callback<Action>,
    worst: Option<(u32, u32)>,
) -> Html {
    let Some(g) = g.filter(|_| different) else {
        return html! {};
    };
    let use_tol = g.cancellation.as_ref().map(|c| {
        let t = tolerance_above(c.delta);
        let d = dispatch.clone();
        (t, Callback::from(move |_| d.emit(Action::SetTolerance(t))))
    });
    html! {
        <div id="guidance" class="guidance" role="note">
            if let Some(c) = &g.culprit { { culprit(c, source, dispatch, worst) } }
            if let Some(h) = &g.hand_lines { { hand(h) } }
            if let Some(n) = &g.note {
                <p id="guidance-note" class="muted">{ n.clone() }</p>
            }
            if let Some(c) = &g.cancellation {
                <p id="cancellation" class="cancellation">{ c.text.clone() }</p>
                <p class="guidance-actions">
                    if let Some((t, onclick)) = use_tol {
                        <button type="button" id="use-tolerance" {onclick}>
                            { format!("accept differences up to {t:e} (tolerance)") }
                        </button>
                    }
                    <a href="#steps" id="to-stepwise" class="link">
                        { "or move the groups one at a time with the stepwise slider" }
                    </a>
                </p>
            }
        </div>
    }
}

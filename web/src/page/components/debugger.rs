//! The pixel debugger's panel: the trace of one pixel (`crate::worker::debug`) in both
//! programs, row by row — the covering triangle's vertices, the interpolation, each fragment
//! instruction with what the optimized pair computed for it (a moved instruction's three
//! vertex values and their blend on the row it replaced), the outputs and the final pixel.
//! The first divergence is marked. Focused, ArrowDown/ArrowUp (or j/k) step through the
//! rows; the original fragment editor's line and the dependence graph's node follow. Values
//! show as floats, or their exact bits in hex on demand; NaN and infinities are marked.

use crate::doc::numbers::fmt_f32;
use crate::page::state::{Action, Traced};
use crate::worker::debug::{Cell, Part, Row};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DebuggerProps {
    pub pixel: (u32, u32),
    /// The trace, once the worker sent it for the current text.
    pub traced: Option<Traced>,
    pub row: usize,
    pub dispatch: Callback<Action>,
    /// Lights a line of the fragment program (the dependence graph's node follows it).
    pub on_line: Callback<Option<u32>>,
}

/// One component as a float (or its bits in hex), a NaN or infinity marked.
pub(super) fn comp(b: u32, hex: bool) -> Html {
    let f = f32::from_bits(b);
    let text = if hex {
        format!("0x{b:08x}")
    } else {
        fmt_f32(f)
    };
    let odd = (!f.is_finite()).then_some("nonfinite");
    html! { <span class={classes!("comp", odd)}>{ text }</span> }
}

fn cell_html(c: &Cell, hex: bool) -> Html {
    if c.mask == 0 {
        return html! { <span class="cell muted">{ format!("{}: not run", c.who) }</span> };
    }
    let comps: Html = (0..4)
        .filter(|k| c.mask & (1 << k) != 0)
        .enumerate()
        .map(|(n, k)| {
            html! { <>{ if n > 0 { ", " } else { "" } }{ comp(c.bits[k], hex) }</> }
        })
        .collect();
    html! { <span class="cell">{ format!("{}: (", c.who) }{ comps }{ ")" }</span> }
}

fn part_class(p: Option<Part>) -> &'static str {
    match p {
        Some(Part::Vertex) => "part-vertex",
        Some(Part::Interpolation) => "part-interp",
        Some(Part::Fragment) => "part-fragment",
        Some(Part::Output) | None => "part-output",
    }
}

fn row_html(
    i: usize,
    r: &Row,
    current: bool,
    diverges: bool,
    hex: bool,
    select: &Callback<usize>,
) -> Html {
    let side = |s: usize| {
        let cells: Html = r.values[s].iter().map(|c| cell_html(c, hex)).collect();
        html! {
            <>
                <td class="line">{ r.line[s].map(|l| l.to_string()).unwrap_or_default() }</td>
                <td class="op"><code>{ r.op[s].clone() }</code></td>
                <td class="values">{ cells }</td>
            </>
        }
    };
    let onclick = {
        let select = select.clone();
        Callback::from(move |_| select.emit(i))
    };
    let notes = (!r.notes.is_empty()).then(|| {
        html! { <tr class="debug-notes"><td colspan="6">{ r.notes.join(" · ") }</td></tr> }
    });
    html! {
        <>
            <tr id={format!("debug-row-{i}")}
                class={classes!("debug-row", part_class(r.part), r.moved.then_some("moved"),
                    diverges.then_some("diverges"), current.then_some("current"))}
                aria-current={current.then_some("step")} {onclick}>
                { side(0) }{ side(1) }
            </tr>
            { notes.unwrap_or_default() }
        </>
    }
}

/// Scrolls an element into view only as far as needed (`block: "nearest"`).
fn scroll_nearest(el: &web_sys::Element) {
    let o = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&o, &"block".into(), &"nearest".into());
    if let Ok(f) = js_sys::Reflect::get(el, &"scrollIntoView".into())
        && let Some(f) = f.dyn_ref::<js_sys::Function>()
    {
        let _ = f.call1(el, &o);
    }
}

/// The row `key` leads to from `row` of `n` (`None`: not a stepping key).
pub fn step(key: &str, row: usize, n: usize) -> Option<usize> {
    match key {
        "ArrowDown" | "j" => Some((row + 1).min(n.saturating_sub(1))),
        "ArrowUp" | "k" => Some(row.saturating_sub(1)),
        "Home" => Some(0),
        "End" => Some(n.saturating_sub(1)),
        _ => None,
    }
}

#[function_component(Debugger)]
pub fn debugger(p: &DebuggerProps) -> Html {
    let hex = use_state_eq(|| false);
    let view = p.traced.as_ref().map(|t| t.view.clone());
    let rows = view
        .as_ref()
        .and_then(|v| v.as_ref().as_ref().ok())
        .map(|v| v.rows.clone());
    let n = rows.as_ref().map_or(0, Vec::len);
    let row = p.row.min(n.saturating_sub(1));
    // The editor line and the graph's node follow the current row.
    {
        let line = rows
            .as_ref()
            .and_then(|r| r.get(row))
            .and_then(|r| r.fp_line);
        let (d, on_line) = (p.dispatch.clone(), p.on_line.clone());
        use_effect_with((line, row, n), move |&(line, row, _)| {
            if n > 0 {
                d.emit(Action::OriginLine(line));
                on_line.emit(line);
                if let Some(el) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id(&format!("debug-row-{row}")))
                {
                    scroll_nearest(&el);
                }
            }
        });
    }
    let onkeydown = {
        let d = p.dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            if let Some(r) = step(&e.key(), row, n) {
                e.prevent_default();
                d.emit(Action::DebugRow(r));
            }
        })
    };
    let select = {
        let d = p.dispatch.clone();
        Callback::from(move |i: usize| d.emit(Action::DebugRow(i)))
    };
    let onhex = {
        let hex = hex.clone();
        Callback::from(move |_| hex.set(!*hex))
    };
    let onclose = {
        let d = p.dispatch.clone();
        Callback::from(move |_| {
            d.emit(Action::OriginLine(None));
            d.emit(Action::Debug(None));
        })
    };
    let (x, y) = p.pixel;
    let body = match view.as_deref() {
        None => {
            html! { <p class="muted" id="debug-pending">{ "tracing this pixel once the render is done…" }</p> }
        }
        Some(Err(e)) => html! { <p class="message bad" id="debug-error">{ e.clone() }</p> },
        Some(Ok(v)) => {
            let div = v.divergence.as_ref().map(|d| d.0);
            let body: Html = v
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| row_html(i, r, i == row, div == Some(i), *hex, &select))
                .collect();
            html! {
                <>
                    if let Some(n) = &v.note { <p class="message" id="debug-note">{ n.clone() }</p> }
                    if let Some((_, t)) = &v.divergence {
                        <p class="message bad" id="debug-divergence">{ t.clone() }</p>
                    } else if v.note.is_none() {
                        <p class="message" id="debug-divergence">{ "no divergence: every aligned row agrees within the tolerance" }</p>
                    }
                    <table class="debug-rows">
                        <thead><tr><th>{ "line" }</th><th>{ "original" }</th><th>{ "values" }</th>
                            <th>{ "line" }</th><th>{ "optimized" }</th><th>{ "values" }</th></tr></thead>
                        <tbody>{ body }</tbody>
                    </table>
                </>
            }
        }
    };
    html! {
        <section class="panel debugger" id="debugger" tabindex="0" aria-label="Pixel debugger" {onkeydown}>
            <header class="panel-head">
                <h2>{ format!("Pixel debugger: pixel ({x}, {y})") }</h2>
                <label class="toggle"><input type="checkbox" id="debug-hex" checked={*hex} onchange={onhex} />{ " exact bits (hex)" }</label>
                <button type="button" id="debug-close" onclick={onclose}>{ "Close" }</button>
            </header>
            <p class="muted">{ "↓/↑ or j/k step through the rows; the fragment editor and the dependence graph follow. Moved rows show the vertex program's three values and their blend." }</p>
            { body }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::step;

    #[test]
    fn keys_step_within_the_rows() {
        assert_eq!(step("ArrowDown", 0, 3), Some(1));
        assert_eq!(step("j", 2, 3), Some(2));
        assert_eq!(step("ArrowUp", 0, 3), Some(0));
        assert_eq!(step("k", 2, 3), Some(1));
        assert_eq!(step("End", 0, 3), Some(2));
        assert_eq!(step("x", 1, 3), None);
    }
}

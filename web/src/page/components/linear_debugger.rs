//! The linear mode's debugger panel: one of the verdict's x vectors (1..8) stepped through
//! the original and the packed code side by side (`crate::worker::linear_debug`), each
//! instruction's destination per lane with what the lane holds in the system (an input
//! x_j, a partial sum or a term of y_i, the final y_i), then y of both programs against
//! A·x + b. ArrowDown/ArrowUp or j/k step (as in the pixel debugger); values show as
//! floats or, on a toggle, their exact bits; NaN and infinities are marked.

use super::debugger::comp;
use crate::page::state::{Action, LinearTraced};
use crate::worker::linear::VECTORS;
use crate::worker::linear_debug::{LaneCell, LinearDebugView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LinearDebuggerProps {
    /// The x vector it is open on (0-based), if open.
    pub vector: Option<usize>,
    pub row: usize,
    pub traced: Option<LinearTraced>,
    pub dispatch: Callback<Action>,
}

fn side(c: Option<&LaneCell>, hex: bool) -> Html {
    let Some(c) = c else {
        return html! { <><td class="op"></td><td class="lanes"></td></> };
    };
    let lanes: Html = (0..4)
        .filter(|l| c.mask & (1 << l) != 0)
        .map(|l| {
            html! {
                <span class="lane" data-lane={l.to_string()}>
                    { format!("{}: ", ['x', 'y', 'z', 'w'][l]) }{ comp(c.bits[l], hex) }
                    <span class="lane-label">{ format!(" {}", c.labels[l]) }</span>
                </span>
            }
        })
        .collect();
    html! { <><td class="op"><code>{ c.op.clone() }</code></td><td class="lanes">{ lanes }</td></> }
}

fn view_html(v: &LinearDebugView, row: usize, hex: bool, select: &Callback<usize>) -> Html {
    let rows: Html = v
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let current = i == row;
            let s = select.clone();
            html! {
                <tr id={format!("lindebug-row-{i}")} class={classes!("lindebug-row", current.then_some("current"))}
                    aria-current={current.then_some("step")} onclick={Callback::from(move |_| s.emit(i))}>
                    { side(r[0].as_ref(), hex) }{ side(r[1].as_ref(), hex) }
                </tr>
            }
        })
        .collect();
    let finals: Html = v
        .finals
        .iter()
        .map(|f| {
            let d = |s: usize| format!("{:+.3e}", f.difference[s]);
            html! {
                <tr class="lindebug-final" id={format!("lindebug-y-{}", f.var)}>
                    <td>{ format!("y{}", f.var) }</td>
                    <td>{ comp(f.bits[0], hex) }</td><td>{ comp(f.bits[1], hex) }</td>
                    <td>{ format!("{}", f.want) }</td><td>{ d(0) }</td><td>{ d(1) }</td>
                </tr>
            }
        })
        .collect();
    html! {
        <>
            <table class="debug-rows lindebug-rows">
                <thead><tr><th>{ "original order" }</th><th>{ "lanes" }</th>
                    <th>{ "packed" }</th><th>{ "lanes" }</th></tr></thead>
                <tbody>{ rows }</tbody>
            </table>
            <table class="lindebug-finals">
                <thead><tr><th>{ "y" }</th><th>{ "original" }</th><th>{ "packed" }</th>
                    <th>{ "A·x + b (f64)" }</th><th>{ "original − A·x − b" }</th><th>{ "packed − A·x − b" }</th></tr></thead>
                <tbody>{ finals }</tbody>
            </table>
        </>
    }
}

#[function_component(LinearDebugger)]
pub fn linear_debugger(p: &LinearDebuggerProps) -> Html {
    let hex = use_state_eq(|| false);
    let d = p.dispatch.clone();
    let Some(vector) = p.vector else {
        let open = Callback::from(move |_| d.emit(Action::LinearDebug(Some(0))));
        return html! {
            <section class="panel lindebug" id="lindebug">
                <button type="button" id="lindebug-open" onclick={open}>{ "Step through the lanes…" }</button>
            </section>
        };
    };
    let view = p.traced.as_ref().map(|t| t.view.clone());
    let n = view
        .as_ref()
        .and_then(|v| v.as_ref().as_ref().ok())
        .map_or(0, |v| v.rows.len());
    let row = p.row.min(n.saturating_sub(1));
    let onkeydown = {
        let d = d.clone();
        Callback::from(move |e: KeyboardEvent| {
            if let Some(r) = crate::page::components::debugger::step(&e.key(), row, n) {
                e.prevent_default();
                d.emit(Action::LinearDebugRow(r));
            }
        })
    };
    let select = {
        let d = d.clone();
        Callback::from(move |i: usize| d.emit(Action::LinearDebugRow(i)))
    };
    let onvector = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            if let Ok(k) = crate::page::components::event_value(&e).parse::<usize>() {
                d.emit(Action::LinearDebug(Some(k.saturating_sub(1))));
            }
        })
    };
    let onhex = {
        let hex = hex.clone();
        Callback::from(move |_| hex.set(!*hex))
    };
    let onclose = Callback::from(move |_| d.emit(Action::LinearDebug(None)));
    let options: Html = (1..=VECTORS)
        .map(|k| html! { <option value={k.to_string()} selected={k == vector + 1}>{ format!("x vector {k}") }</option> })
        .collect();
    let body = match view.as_deref() {
        None => html! { <p class="muted" id="lindebug-pending">{ "tracing…" }</p> },
        Some(Err(e)) => html! { <p class="message bad" id="lindebug-error">{ e.clone() }</p> },
        Some(Ok(v)) => view_html(v, row, *hex, &select),
    };
    html! {
        <section class="panel lindebug debugger" id="lindebug" tabindex="0" aria-label="Lane debugger" {onkeydown}>
            <header class="panel-head">
                <h2>{ "Lanes of the packed system" }</h2>
                <select id="lindebug-vector" aria-label="x vector" onchange={onvector}>{ options }</select>
                <label class="toggle"><input type="checkbox" id="lindebug-hex" checked={*hex} onchange={onhex} />{ " exact bits (hex)" }</label>
                <button type="button" id="lindebug-close" onclick={onclose}>{ "Close" }</button>
            </header>
            <p class="muted">{ "Both programs run in the executor on the chosen x; ↓/↑ or j/k step through their instructions. Each lane says what it holds: an input x, a partial sum or a term of a y, the final y." }</p>
            { body }
        </section>
    }
}

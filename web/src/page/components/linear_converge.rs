//! The linear mode's convergence section (seed 003 §3.3): for a system, a button that has
//! the worker iterate x ← A·x + b with the original and the packed code to the fixed point
//! (`crate::worker::linear_converge`), and the steps and differences of both, as the Convergence
//! table of docs/linear-results.md.

use crate::page::state::Action;
use crate::worker::linear::{LinearDoc, Outcome, sci};
use crate::worker::linear_converge::{ConvergenceView, ITERATIVE, Iteration, MAX_STEPS, TOLERANCE};
use yew::prelude::*;

fn row(label: &str, i: &Iteration) -> Html {
    html! {
        <tr>
            <th scope="row">{ label.to_string() }</th>
            <td>{ i.steps }</td><td>{ sci(i.last_step) }</td>
            <td>{ i.error.map_or("—".to_string(), sci) }</td>
            <td>{ if i.converged() { "yes" } else { "no" } }</td>
        </tr>
    }
}

fn table(c: &ConvergenceView) -> Html {
    html! {
        <>
            <p class="headline" id="linear-converge-headline">{ c.headline() }</p>
            <table class="linear-table" id="linear-converge-table">
                <thead><tr><th></th><th>{ "steps" }</th><th>{ "last step" }</th><th>{ "max |x − x*|" }</th><th>{ "converged" }</th></tr></thead>
                <tbody>{ row("original order", &c.original) }{ row("packed", &c.packed) }</tbody>
            </table>
            <p class="muted small">{ format!(
                "max |x_original − x_packed| {} · {:.0} ms in the worker. x* solved in f64 by Gaussian elimination.",
                sci(c.between), c.ms) }</p>
        </>
    }
}

/// The section, for a system (a recovered one maps inputs to outputs: not iterated).
pub fn section(o: &Outcome, doc: &LinearDoc, dispatch: &Callback<Action>) -> Html {
    if !doc.input.is_system() {
        return Html::default();
    }
    let toggle = {
        let (d, doc) = (dispatch.clone(), doc.clone());
        Callback::from(move |_| {
            d.emit(Action::SetLinear(LinearDoc {
                converge: !doc.converge,
                ..doc.clone()
            }))
        })
    };
    let iterative = doc
        .example
        .as_deref()
        .is_some_and(|e| ITERATIVE.contains(&e));
    let good = matches!(&o.convergence, Some(Ok(c)) if c.agrees());
    let body = match &o.convergence {
        _ if !doc.converge => Html::default(),
        Some(Ok(c)) => table(c),
        Some(Err(e)) => {
            html! { <p class="message bad" id="linear-converge-headline">{ e.clone() }</p> }
        }
        None if o.converging => {
            html! { <p class="muted working" id="linear-converging">{ "iterating in the worker…" }</p> }
        }
        None => Html::default(),
    };
    html! {
        <section class={classes!("linear-converge", (doc.converge && o.convergence.is_some()).then_some(if good { "good" } else { "bad" }))}
            id="linear-converge" aria-label="Convergence">
            <h2>{ "Convergence" }</h2>
            <p class="muted">{ format!(
                "Iterate x ← A·x + b from x₀ = 0 with the original and the packed ARB code in the executor until \
                 max |x_k+1 − x_k| ≤ {TOLERANCE:e} (at most {MAX_STEPS} steps), and compare both with the fixed point. \
                 Every term reads the current x, so a Gauss-Seidel split iterates as Jacobi.{}",
                if iterative { "" } else { " This system is not one of the iterative examples (gauss-seidel, jacobi, fig10, fig13): its iteration need not converge." }) }</p>
            <button type="button" id="linear-converge-button" onclick={toggle} aria-pressed={doc.converge.to_string()}>
                { if doc.converge { "Stop iterating" } else { "Iterate to convergence" } }
            </button>
            { body }
        </section>
    }
}

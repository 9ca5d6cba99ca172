//! The stepwise slider, beside the optimized programs so both show while scrubbing: apply
//! only the first k movable groups. It stops at the last k that fits (`crate::worker::reach`) and
//! says why the next one does not, in the optimizer's words. Below it, what each group moves
//! and whether it fits (applied, fits, or past the first one that does not fit).

use super::{event_checked, event_value};
use crate::doc::OptState;
use crate::page::state::Action;
use crate::worker::reach::{Fit, Reach};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StepperProps {
    pub opts: OptState,
    /// Movable groups of the current pair.
    pub groups: usize,
    /// How far the slider may go (`None` while unknown: the whole range).
    pub reach: Option<Reach>,
    pub dispatch: Callback<Action>,
}

/// The options with stepwise on at `k`.
pub fn at_step(o: &OptState, k: usize) -> OptState {
    OptState {
        steps: k as u32,
        stepwise: true,
        ..o.clone()
    }
}

fn on_steps(p: &StepperProps, max: usize) -> Callback<InputEvent> {
    let (d, o) = (p.dispatch.clone(), p.opts.clone());
    Callback::from(move |e: InputEvent| {
        if let Ok(k) = event_value(&e).parse::<usize>() {
            d.emit(Action::SetOpts(at_step(&o, k.min(max))));
        }
    })
}

/// The warning for a k past what fits (a link or an older document may hold one).
fn past_end(p: &StepperProps, r: &Reach, k: usize) -> Html {
    let (d, o, fit) = (p.dispatch.clone(), p.opts.clone(), r.max());
    let onclick = Callback::from(move |_| d.emit(Action::SetOpts(at_step(&o, fit))));
    html! {
        <p class="step-past" role="alert">
            { format!("k = {k} does not fit, so nothing moves. ") }
            <button type="button" class="link" id="steps-fit" {onclick}>{ format!("Use k = {fit}") }</button>
        </p>
    }
}

/// A range of 1-based group numbers: "8", "8–12".
fn span(a: usize, b: usize) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}–{b}")
    }
}

/// The list of groups: what each moves, and where it stands for the k shown.
fn groups_list(r: &Reach, applied: usize) -> Html {
    if r.moves.is_empty() {
        return Html::default();
    }
    let n = r.moves.len();
    let f = r.feasible.min(n);
    let summary = match (f < n, r.unchecked) {
        (false, _) => format!("What the {} move", crate::page::summary::count(n, "group")),
        (true, false) if f == 0 => format!("What the {n} groups move: none fits"),
        (true, false) => format!(
            "What the {n} groups move: {} fit, {} do{} not fit after group{} {}",
            span(1, f),
            span(f + 1, n),
            if f + 1 == n { "es" } else { "" },
            if f == 1 { "" } else { "s" },
            span(1, f)
        ),
        (true, true) => format!(
            "What the {n} groups move: {} checked, {} not checked in advance",
            span(1, f),
            span(f + 1, n)
        ),
    };
    let items: Html = r
        .moves
        .iter()
        .enumerate()
        .map(|(g, what)| {
            let (class, state) = match r.fit_of(g) {
                Fit::Fits if g < applied => ("applied", "applied".to_string()),
                Fit::Fits => ("fits", "fits, not applied".to_string()),
                Fit::Beyond if f == 0 => ("beyond", "does not fit".to_string()),
                Fit::Beyond => (
                    "beyond",
                    format!(
                        "does not fit after group{} {}",
                        if f == 1 { "" } else { "s" },
                        span(1, f)
                    ),
                ),
                Fit::Unchecked => ("beyond", "not checked".to_string()),
            };
            html! {
                <li class={class} id={format!("step-group-{}", g + 1)}>
                    <span class="step-group-what">{ format!("{}. {what}", g + 1) }</span>
                    <span class="visually-hidden">{ ", " }</span>
                    <span class="step-group-state">{ state }</span>
                </li>
            }
        })
        .collect();
    html! {
        <details class="step-groups" id="steps-groups">
            <summary id="steps-groups-summary">{ summary }</summary>
            <ol>{ items }</ol>
        </details>
    }
}

#[function_component(Stepper)]
pub fn stepper(p: &StepperProps) -> Html {
    let o = &p.opts;
    let max = p.reach.as_ref().map_or(p.groups, Reach::max);
    let k = o.steps as usize;
    let shown = k.min(max);
    let on_toggle = {
        let (d, o) = (p.dispatch.clone(), p.opts.clone());
        Callback::from(move |e: Event| {
            d.emit(Action::SetOpts(OptState {
                stepwise: event_checked(&e),
                ..o.clone()
            }))
        })
    };
    let count = if o.stepwise {
        format!("{shown} of {}", p.groups)
    } else {
        crate::page::summary::all_groups(p.groups, max)
    };
    let limit = p.reach.as_ref().and_then(Reach::message);
    let applied = if o.stepwise { shown } else { max };
    html! {
        <>
        <div class="stepper" id="stepper">
            <label><input type="checkbox" id="stepwise" checked={o.stepwise} onchange={on_toggle} />
                { " stepwise: first k groups" }</label>
            <input type="range" id="steps" min="0" max={max.to_string()} value={shown.to_string()}
                disabled={max == 0} oninput={on_steps(p, max)} aria-label="Groups applied"
                aria-describedby="steps-limit" />
            <output for="steps" id="steps-count">{ count }</output>
            if let Some(m) = limit {
                <span class="step-limit" id="steps-limit">{ m }</span>
            }
            if let Some(r) = p.reach.as_ref().filter(|r| o.stepwise && k > r.max()) {
                { past_end(p, r, k) }
            }
        </div>
        { p.reach.as_ref().map(|r| groups_list(r, applied)).unwrap_or_default() }
        </>
    }
}

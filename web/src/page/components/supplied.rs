//! "What the draw supplies": every vertex attribute the vertex programs read with the value
//! the draw gives it (per vertex from the quad, or the current value, editable), the GL
//! matrices they read (modelview and projection editable), and the buttons that randomise
//! the inputs (seeded, shown) or put the defaults back.

use super::{Shared, event_value};
use crate::doc::Inputs;
use crate::doc::numbers;
use crate::page::state::Action;
use crate::worker::analysis::Analysis;
use crate::worker::supplied::{self, Attribute, Edit, MatrixUse};
use std::collections::BTreeMap;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SuppliedProps {
    pub analysis: Shared<Analysis>,
    pub inputs: Inputs,
    /// The document draws the bare quad (no scene of its own).
    pub quad: bool,
    pub dispatch: Callback<Action>,
}

type Errors = UseStateHandle<BTreeMap<String, String>>;

fn set_error(errors: &Errors, key: &str, e: Option<String>) {
    let mut m = (**errors).clone();
    match e {
        Some(e) => m.insert(key.to_string(), e),
        None => m.remove(key),
    };
    errors.set(m);
}

fn show(errors: &Errors, key: &str) -> Html {
    errors
        .get(key)
        .map(|e| html! { <span class="field-error" role="alert">{ e.clone() }</span> })
        .unwrap_or_default()
}

/// A vec4 field that sends `edit(value)` when the text is four finite numbers.
fn vec4_field(
    key: String,
    label: String,
    value: [f32; 4],
    errors: &Errors,
    d: &Callback<Action>,
    edit: impl Fn([f32; 4]) -> Edit + 'static,
) -> Html {
    let onchange = {
        let (d, errors, key) = (d.clone(), errors.clone(), key.clone());
        Callback::from(
            move |e: Event| match numbers::parse_vec4(&event_value(&e)) {
                Ok(v) => {
                    set_error(&errors, &key, None);
                    d.emit(Action::Supplied(edit(v)));
                }
                Err(m) => set_error(&errors, &key, Some(m)),
            },
        )
    };
    html! {
        <input id={key} type="text" class="vec" value={numbers::format_vec4(value)}
            {onchange} aria-label={label} />
    }
}

fn reset_button(d: &Callback<Action>, edit: Edit) -> Html {
    let d = d.clone();
    let onclick = Callback::from(move |_| d.emit(Action::Supplied(edit.clone())));
    html! {
        <button type="button" class="link" {onclick} title="Back to what the draw supplies by default">
            { "reset" }
        </button>
    }
}

fn attribute_row(a: &Attribute, errors: &Errors, d: &Callback<Action>) -> Html {
    let key = format!("attrib-{}", a.slot);
    let slot = a.slot;
    html! {
        <div class="param supplied-attrib" data-slot={slot.to_string()}>
            <label for={key.clone()}>{ format!("vertex {}", a.name) }</label>
            if let Some(how) = a.per_vertex {
                <span class="muted per-vertex">{ how }</span>
            } else {
                { vec4_field(key.clone(), format!("Vertex {}", a.name), a.value, errors, d,
                    move |v| Edit::Attrib(slot, v)) }
                if a.overridden {
                    { reset_button(d, Edit::ResetAttrib(slot)) }
                } else {
                    <span class="muted">{ "default" }</span>
                }
            }
            { show(errors, &key) }
        </div>
    }
}

fn matrix_rows(m: &MatrixUse, errors: &Errors, d: &Callback<Action>) -> Html {
    let rows = m.rows;
    html! {
        <fieldset class="unit supplied-matrix">
            <legend>{ format!("matrix: {}", m.name) }</legend>
            { for (0..4).map(|r| {
                let key = format!("matrix-{}-{r}", m.name.split(' ').next().unwrap_or("m"));
                html! {
                    <div class="param">
                        <label for={key.clone()}>{ format!("row[{r}]") }</label>
                        if let Some(proj) = m.editable {
                            { vec4_field(key.clone(), format!("{} row {r}", m.name), rows[r], errors, d,
                                move |v| { let mut x = rows; x[r] = v; Edit::Matrix(proj, x) }) }
                        } else {
                            <code>{ numbers::format_vec4(rows[r]) }</code>
                        }
                        { show(errors, &key) }
                    </div>
                }
            }) }
            if let (Some(p), true) = (m.editable, m.overridden) {
                { reset_button(d, Edit::ResetMatrix(p)) }
            } else if m.editable.is_none() {
                <p class="muted">{ "derived: edit the modelview or projection matrix it is made of" }</p>
            }
        </fieldset>
    }
}

#[function_component(SuppliedInputs)]
pub fn supplied_inputs(p: &SuppliedProps) -> Html {
    let errors: Errors = use_state(BTreeMap::new);
    let a = &*p.analysis;
    let attrs = supplied::attributes(a, &p.inputs, p.quad);
    let mats = supplied::matrices(a, &p.inputs);
    let d = &p.dispatch;
    let randomise = {
        let d = d.clone();
        Callback::from(move |_| d.emit(Action::Supplied(Edit::Randomize)))
    };
    let defaults = {
        let d = d.clone();
        Callback::from(move |_| d.emit(Action::Supplied(Edit::Defaults)))
    };
    html! {
        <div class="supplied" id="supplied">
            <h3>{ "What the draw supplies" }</h3>
            <div class="row">
                <button type="button" id="randomise" onclick={randomise}
                    title="Random parameter values, attribute values and noise textures (seeded), then check again">
                    { if p.inputs.seed.is_some() { "randomise again" } else { "randomise inputs" } }
                </button>
                <button type="button" id="defaults" onclick={defaults}
                    title="Drop every parameter, attribute, matrix and texture setting">{ "defaults" }</button>
                if let Some(s) = p.inputs.seed {
                    <span class="muted" id="seed">{ format!("random inputs, seed {s}") }</span>
                }
            </div>
            if attrs.is_empty() {
                <p class="muted">{ "The vertex programs read no vertex attribute." }</p>
            }
            { for attrs.iter().map(|x| attribute_row(x, &errors, d)) }
            { for mats.iter().map(|m| matrix_rows(m, &errors, d)) }
        </div>
    }
}

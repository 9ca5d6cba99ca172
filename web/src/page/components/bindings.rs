//! Source mode's binding table (`hoist_front::bindings::Bindings`): where each vertex input,
//! interpolant, uniform and texture of the source went in the assembly — generic attributes,
//! texture coordinates with their interpolation (and what was refused or emulated),
//! `program.local`/`c#` slots, texture units with their targets — and the compiler's notes.

use super::Shared;
use crate::page::state::FrontResult;
use hoist_asm::Dialect;
use hoist_front::bindings::{Bindings, UniformSlot};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BindingsProps {
    /// The front worker's last answer.
    pub front: Option<Shared<FrontResult>>,
    /// Whether that answer is for the current source.
    pub current: bool,
}

/// The registers of a uniform's slots, in the dialect's words.
fn slots(u: &UniformSlot, dialect: Dialect) -> String {
    let last = u.slot + u.slots.max(1) - 1;
    let one = |n: u16| match dialect {
        Dialect::Arb => format!("program.local[{n}]"),
        Dialect::D3d9 => format!("c{n}"),
    };
    if last == u.slot {
        one(u.slot)
    } else {
        format!("{} … {}", one(u.slot), one(last))
    }
}

fn rows(b: &Bindings) -> Html {
    b.rows
        .iter()
        .map(|r| {
            html! {
                <tr class={format!("bind-{}", r.kind)}>
                    <td>{ r.kind.clone() }</td>
                    <td>{ r.stage.clone() }</td>
                    <td><code>{ r.name.clone() }</code></td>
                    <td><code>{ r.source.clone() }</code></td>
                    <td><code>{ r.register.clone() }</code></td>
                    <td>{ r.detail.clone() }</td>
                </tr>
            }
        })
        .collect()
}

fn uniforms(b: &Bindings, dialect: Dialect) -> Html {
    if b.uniforms.is_empty() {
        return html! {};
    }
    let body: Html = b
        .uniforms
        .iter()
        .map(|u| {
            let how = match (&u.state, &u.init) {
                (Some(s), _) => format!("set from {s} before each draw"),
                (None, Some(v)) => format!("initial value {v:?}"),
                (None, None) => "the scene's uniform line, or the Inputs panel".into(),
            };
            html! {
                <tr class="bind-slot">
                    <td><code>{ u.name.clone() }</code></td>
                    <td><code>{ u.ty.clone() }</code></td>
                    <td><code>{ slots(u, dialect) }</code></td>
                    <td>{ how }</td>
                </tr>
            }
        })
        .collect();
    html! {
        <table class="bind-table" id="bind-uniforms">
            <caption>{ "Uniforms → parameter slots (both stages)" }</caption>
            <thead><tr><th>{ "uniform" }</th><th>{ "type" }</th><th>{ "slots" }</th><th>{ "value" }</th></tr></thead>
            <tbody>{ body }</tbody>
        </table>
    }
}

fn textures(b: &Bindings) -> Html {
    if b.textures.is_empty() {
        return html! {};
    }
    let body: Html = b
        .textures
        .iter()
        .map(|t| {
            html! {
                <tr class="bind-unit">
                    <td><code>{ t.name.clone() }</code></td>
                    <td>{ format!("@group({}) @binding({})", t.group, t.binding) }</td>
                    <td>{ format!("unit {}", t.unit) }</td>
                    <td>{ t.target.clone() }</td>
                </tr>
            }
        })
        .collect();
    html! {
        <table class="bind-table" id="bind-textures">
            <caption>{ "Textures → units" }</caption>
            <thead><tr><th>{ "texture" }</th><th>{ "binding" }</th><th>{ "unit" }</th><th>{ "target" }</th></tr></thead>
            <tbody>{ body }</tbody>
        </table>
    }
}

#[function_component(BindingsPanel)]
pub fn bindings_panel(p: &BindingsProps) -> Html {
    let compiled = p
        .front
        .as_deref()
        .and_then(|f| f.output.as_ref().ok())
        .and_then(|o| o.result.as_ref().ok());
    let Some(c) = compiled else {
        return html! {
            <details class="panel bindings" id="bindings" open=true>
                <summary>{ "Binding table" }</summary>
                <p class="muted">{ "The source has not compiled yet." }</p>
            </details>
        };
    };
    let b = &c.bindings;
    html! {
        <details class={classes!("panel", "bindings", (!p.current).then_some("stale"))} id="bindings" open=true>
            <summary>{ format!("Binding table ({} rows)", b.rows.len()) }</summary>
            <table class="bind-table" id="bind-rows">
                <caption>{ "Source → assembly" }</caption>
                <thead><tr><th>{ "kind" }</th><th>{ "stage" }</th><th>{ "name" }</th>
                    <th>{ "in the source" }</th><th>{ "register" }</th><th>{ "detail" }</th></tr></thead>
                <tbody>{ rows(b) }</tbody>
            </table>
            { uniforms(b, c.dialect) }
            { textures(b) }
            if !b.notes.is_empty() {
                <ul class="bind-notes" id="bind-notes">
                    { for b.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }
                </ul>
            }
        </details>
    }
}

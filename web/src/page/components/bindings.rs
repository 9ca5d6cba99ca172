//! Source mode's binding table (`worker::front::BindingView`, in words): where each vertex input,
//! interpolant, uniform and texture of the source went in the assembly — generic attributes,
//! texture coordinates with their interpolation (and what was refused or emulated),
//! `program.local`/`c#` slots, texture units with their targets — and the compiler's notes.

use super::Shared;
use crate::page::state::FrontResult;
use crate::worker::front::BindingView;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BindingsProps {
    /// The front worker's last answer.
    pub front: Option<Shared<FrontResult>>,
    /// Whether that answer is for the current source.
    pub current: bool,
}

/// A table of rows of words, `code` columns in monospace.
fn table<const N: usize>(
    id: &str,
    caption: &str,
    head: [&str; N],
    rows: &[[String; N]],
    class: &str,
    code: &[usize],
) -> Html {
    if rows.is_empty() {
        return html! {};
    }
    let body: Html = rows
        .iter()
        .map(|r| {
            let cells: Html = r
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if code.contains(&i) {
                        html! { <td><code>{ c.clone() }</code></td> }
                    } else {
                        html! { <td>{ c.clone() }</td> }
                    }
                })
                .collect();
            let class = if class.is_empty() {
                format!("bind-{}", r[0])
            } else {
                class.to_string()
            };
            html! { <tr {class}>{ cells }</tr> }
        })
        .collect();
    html! {
        <table class="bind-table" id={id.to_string()}>
            <caption>{ caption.to_string() }</caption>
            <thead><tr>{ for head.iter().map(|h| html! { <th>{ h.to_string() }</th> }) }</tr></thead>
            <tbody>{ body }</tbody>
        </table>
    }
}

fn view(b: &BindingView) -> Html {
    html! {
        <>
            { table("bind-rows", "Source → assembly", ["kind", "stage", "name", "in the source", "register", "detail"],
                &b.rows, "", &[2, 3, 4]) }
            { table("bind-uniforms", "Uniforms → parameter slots (both stages)", ["uniform", "type", "slots", "value"],
                &b.uniforms, "bind-slot", &[0, 1, 2]) }
            { table("bind-textures", "Textures → units", ["texture", "binding", "unit", "target"],
                &b.textures, "bind-unit", &[0]) }
            if !b.notes.is_empty() {
                <ul class="bind-notes" id="bind-notes">
                    { for b.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }
                </ul>
            }
        </>
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
    html! {
        <details class={classes!("panel", "bindings", (!p.current).then_some("stale"))} id="bindings" open=true>
            <summary>{ format!("Binding table ({} rows)", c.table.rows.len()) }</summary>
            { view(&c.table) }
        </details>
    }
}

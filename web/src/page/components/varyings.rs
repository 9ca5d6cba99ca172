//! The Interpolators panel: per interpolator register, what its x, y, z and w carry and
//! under which qualifier, in the original and in the optimized fragment program, and what
//! each varying pass did, with the reasons naming the pass (`crate::worker::varyings`).

use super::Shared;
use crate::worker::varyings::{Cell, Interpolator, PassEffect, VaryingView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct VaryingsProps {
    pub view: Option<Shared<VaryingView>>,
}

fn cell(c: Option<&Cell>) -> Html {
    let Some(c) = c else {
        return html! { <td class="var-cell var-unread">{ "–" }</td> };
    };
    let class = classes!(
        "var-cell",
        c.moved.then_some("var-moved"),
        c.relocated.then_some("var-relocated")
    );
    html! {
        <td class={class} title={c.source.clone()}>
            <span class="var-value">{ c.value.clone() }</span>
            <span class="var-source">{ c.source.clone() }</span>
        </td>
    }
}

fn map(id: &str, title: &str, regs: &[Interpolator]) -> Html {
    html! {
        <div class="var-map">
            <h3>{ title.to_string() }</h3>
            <table class="var-table" id={id.to_string()}>
                <thead><tr>
                    <th>{ "interpolator" }</th><th>{ "x" }</th><th>{ "y" }</th>
                    <th>{ "z" }</th><th>{ "w" }</th><th>{ "qualifier" }</th>
                </tr></thead>
                <tbody>
                    { for regs.iter().map(|r| html! {
                        <tr>
                            <th scope="row" class="code">{ r.name.clone() }</th>
                            { for r.comps.iter().map(|c| cell(c.as_ref())) }
                            <td class="var-qualifier">{ r.qualifier.clone() }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn effect(p: &PassEffect) -> Html {
    html! {
        <li id={format!("var-pass-{}", p.pass)}>
            <span class={classes!("var-summary", (p.done > 0).then_some("var-did"))}>{ p.summary.clone() }</span>
            if !p.steps.is_empty() {
                <ul>
                    { for p.steps.iter().map(|s| html! {
                        <li class={if s.done { "var-done" } else { "var-refused" }}>{ s.text.clone() }</li>
                    }) }
                </ul>
            }
        </li>
    }
}

#[function_component(VaryingsPanel)]
pub fn varyings_panel(p: &VaryingsProps) -> Html {
    let Some(v) = &p.view else {
        return html! {
            <section class="panel varyings" id="varyings"><h2>{ "Interpolators" }</h2>
                <p class="muted">{ "…" }</p></section>
        };
    };
    let [(rb, cb), (ra, ca)] = v.counts();
    html! {
        <section class="panel varyings" id="varyings">
            <h2>{ "Interpolators" }</h2>
            <p class="hint" id="var-counts">{ format!(
                "Registers read: {rb} → {ra}; components: {cb} → {ca}. Each cell is what the \
                 fragment program receives there (hover for how the vertex program fills it); \
                 moved instructions are named by their line.") }</p>
            <div class="var-maps">
                { map("var-before", "Original", &v.before) }
                { map("var-after", "Optimized", &v.after) }
            </div>
            <h3>{ "Varying passes" }</h3>
            <ul class="var-passes" id="var-passes">{ for v.passes.iter().map(effect) }</ul>
        </section>
    }
}

//! The examples gallery: cards grouped by category, each a short permalink (`#ex=<id>`)
//! that loads the example when followed.

use crate::doc::codec;
use crate::doc::examples::{Category, EXAMPLES};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ExamplesProps {
    /// The example the document started from.
    pub current: Option<AttrValue>,
    /// Called when a card is followed (to close the gallery).
    pub onpick: Callback<()>,
}

/// DOM id of an example's card.
pub fn card_id(id: &str) -> String {
    format!("ex-{}", id.replace(['/', '.'], "-"))
}

#[function_component(Gallery)]
pub fn gallery(p: &ExamplesProps) -> Html {
    let groups: Html = Category::ALL
        .iter()
        .filter(|c| EXAMPLES.iter().any(|e| e.category == **c))
        .map(|c| {
            let cards: Html = EXAMPLES
                .iter()
                .filter(|e| e.category == *c)
                .map(|e| {
                    let onpick = p.onpick.clone();
                    let current = p.current.as_deref() == Some(e.id);
                    let m = e.meta();
                    html! {
                        <li>
                            <a class={classes!("card", current.then_some("current"))} id={card_id(e.id)}
                                href={format!("#{}", codec::encode_example(e.id))} title={m.description.clone()}
                                onclick={Callback::from(move |_| onpick.emit(()))}>
                                <span class="card-title">{ m.title.clone() }</span>
                                if let Some(t) = m.paper_text() {
                                    <span class="card-blurb">{ format!("paper: {t}") }</span>
                                }
                                <span class="card-link">{ format!("#{}", codec::encode_example(e.id)) }</span>
                            </a>
                        </li>
                    }
                })
                .collect();
            html! {
                <div class="gallery-group">
                    <h3>{ c.title() }</h3>
                    <ul>{ cards }</ul>
                </div>
            }
        })
        .collect();
    html! { <nav class="gallery" id="gallery" aria-label="Examples">{ groups }{ linear_group(p) }</nav> }
}

/// The linear-expression mode's examples (seed 003), each a link `#ex=linear/<name>`.
fn linear_group(p: &ExamplesProps) -> Html {
    let cards: Html = crate::worker::linear::EXAMPLES
        .iter()
        .filter(|e| e.gallery)
        .map(|e| {
            let id = crate::worker::linear::example_id(e.name);
            let onpick = p.onpick.clone();
            let current = p.current.as_deref() == Some(id.as_str());
            let paper = hoist_opt::linear::paper::case(e.name)
                .map(|c| format!("paper: cost {} → {}", c.before, c.after));
            html! {
                <li>
                    <a class={classes!("card", current.then_some("current"))} id={card_id(&id)}
                        href={format!("#{}", codec::encode_example(&id))} title={e.caption}
                        onclick={Callback::from(move |_| onpick.emit(()))}>
                        <span class="card-title">{ e.title }</span>
                        if let Some(t) = paper { <span class="card-blurb">{ t }</span> }
                        <span class="card-link">{ format!("#{}", codec::encode_example(&id)) }</span>
                    </a>
                </li>
            }
        })
        .collect();
    html! {
        <div class="gallery-group">
            <h3>{ "Linear expressions (SIMD packing)" }</h3>
            <ul>{ cards }</ul>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct AboutProps {
    pub id: AttrValue,
    /// How the document differs from the example (`State::example_change`), if it does.
    pub change: Option<AttrValue>,
}

/// What the current example is about (its scene's `[hoist]` description and note).
#[function_component(About)]
pub fn about(p: &AboutProps) -> Html {
    let Some(e) = crate::doc::examples::find(&p.id) else {
        return html! {};
    };
    let m = e.meta();
    html! {
        <details class="about" id="about" open=true>
            <summary>
                <b>{ m.title.clone() }</b>
                if let Some(t) = m.paper_text() {
                    <span class="muted">{ format!(" — the paper reports {t}") }</span>
                }
                if let Some(c) = &p.change {
                    <span class="muted" id="about-change">{ format!(" {c}") }</span>
                }
            </summary>
            if !m.description.is_empty() { <p>{ m.description.clone() }</p> }
            if !m.note.is_empty() {
                <details class="note">
                    <summary>{ "What Hoist does with it" }</summary>
                    <p class="muted">{ m.note.clone() }</p>
                </details>
            }
        </details>
    }
}

//! The examples gallery: cards grouped by category, each a short permalink (`#ex=<id>`)
//! that loads the example when followed.

use crate::codec;
use crate::examples::{Category, EXAMPLES};
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
                    html! {
                        <li>
                            <a class={classes!("card", current.then_some("current"))} id={card_id(e.id)}
                                href={format!("#{}", codec::encode_example(e.id))}
                                onclick={Callback::from(move |_| onpick.emit(()))}>
                                <span class="card-title">{ e.title }</span>
                                <span class="card-blurb">{ e.blurb }</span>
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
    html! { <nav class="gallery" id="gallery" aria-label="Examples">{ groups }</nav> }
}

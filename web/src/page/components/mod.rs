//! The panels of the page, one file each. Components only draw: they take domain values
//! (analysis, render results, document parts) and send [`crate::page::state::Action`]s.

pub mod bindings;
pub mod dag;
pub mod debugger;
pub mod deferred;
pub mod document;
pub mod editor;
pub mod examples;
pub mod export;
pub mod gpu;
pub mod handnote;
pub mod inputs;
pub mod linear;
pub mod linear_converge;
pub mod linear_debugger;
pub mod linear_heat;
pub mod linear_recover;
pub mod liveness;
pub mod machine;
pub mod ophelp;
pub mod optimized;
pub mod options;
pub mod output;
pub mod present;
pub mod probes;
pub mod scene;
pub mod source;
pub mod stats;
pub mod stepper;
pub mod summary;
pub mod supplied;
pub mod varyings;
pub mod verdict;

use std::ops::Deref;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A shared value compared by identity, for props (analyses are large and not `PartialEq`).
#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> From<Rc<T>> for Shared<T> {
    fn from(r: Rc<T>) -> Self {
        Shared(r)
    }
}

/// The value of the input, select or textarea an event came from.
/// The file input of a `change` event and the first file picked in it.
pub fn picked_file(e: &Event) -> Option<(web_sys::HtmlInputElement, web_sys::File)> {
    let input = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())?;
    let file = input.files().and_then(|f| f.get(0))?;
    Some((input, file))
}

pub fn event_value(e: &Event) -> String {
    let Some(t) = e.target() else {
        return String::new();
    };
    if let Some(i) = t.dyn_ref::<web_sys::HtmlInputElement>() {
        i.value()
    } else if let Some(s) = t.dyn_ref::<web_sys::HtmlSelectElement>() {
        s.value()
    } else if let Some(a) = t.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        a.value()
    } else {
        String::new()
    }
}

/// Whether the checkbox an event came from is checked.
pub fn event_checked(e: &Event) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .is_some_and(|i| i.checked())
}

/// Draws highlighted lines (`crate::page::highlight::lines`) as spans.
pub fn segs_html(segs: &[crate::page::highlight::Seg]) -> Html {
    segs.iter()
        .map(|s| {
            if s.class.is_empty() {
                html! { { s.text.clone() } }
            } else {
                html! { <span class={s.class.clone()}>{ s.text.clone() }</span> }
            }
        })
        .collect()
}

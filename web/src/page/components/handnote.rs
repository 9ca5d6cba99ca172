//! What the optimized column says about a hand edit: that it is stale when the original
//! changed since it was started (with a way to start again from the optimizer's output),
//! or that an edit put aside by unchecking "edit by hand" is kept (with a way to drop it).

use crate::doc::Doc;
use crate::doc::handedit;
use crate::page::state::Action;
use yew::prelude::*;

/// The note for `doc`'s hand edit, if there is anything to say; `ready`: the optimizer's
/// output for the current original is in (restarting waits for it).
pub fn hand_note(doc: &Doc, ready: bool, dispatch: &Callback<Action>) -> Html {
    let emit = |a: Action| {
        let d = dispatch.clone();
        Callback::from(move |_: MouseEvent| d.emit(a.clone()))
    };
    if doc.hand.is_some() && handedit::is_stale(doc) {
        return html! {
            <p class="hand-note stale" id="hand-stale" role="status">
                { "The original changed since you started this hand edit: it no longer derives from the optimizer's current output. " }
                <button type="button" class="link" id="hand-restart" disabled={!ready}
                    onclick={emit(Action::HandRestart)}>
                    { if ready { "Start again from the optimizer's output" } else { "Start again (optimizing…)" } }</button>
            </p>
        };
    }
    if doc.hand.is_none() && doc.hand_kept.is_some() {
        return html! {
            <p class="hand-note" id="hand-kept" role="status">
                { "Your hand edit is kept: check “edit by hand” to return to it. " }
                <button type="button" class="link" id="hand-discard" onclick={emit(Action::HandDiscard)}>
                    { "Discard it" }</button>
            </p>
        };
    }
    Html::default()
}

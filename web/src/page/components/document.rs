//! The document bar: what the document is (an untitled pair, an imported file), and the
//! actions on the whole document — New, Import a `.shader_test` (picked, or dropped anywhere
//! on the page), Export it as one (`crate::page::scenefile`).

use crate::page::scenefile;
use crate::page::state::{Action, Notice, State};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Files being read (kept alive until they are).
type Readers = std::rc::Rc<std::cell::RefCell<Vec<gloo::file::callbacks::FileReader>>>;

#[derive(Properties, PartialEq)]
pub struct DocBarProps {
    /// The document's title when it is not an example (the example has its own panel).
    pub title: Option<AttrValue>,
    pub dispatch: Callback<Action>,
    /// Downloads the current document as a `.shader_test`.
    pub onexport: Callback<MouseEvent>,
}

fn notice(d: &Callback<Action>, text: String) {
    d.emit(Action::Notice(Some(Notice { text, error: true })));
}

/// Reads a picked or dropped file and imports it.
fn read_file(file: web_sys::File, d: &Callback<Action>, readers: &Readers) {
    let file = gloo::file::File::from(file);
    let name = file.name();
    if file.size() > scenefile::MAX_FILE as u64 {
        notice(
            d,
            format!(
                "Could not import {name}: it is larger than {} KiB",
                scenefile::MAX_FILE / 1024
            ),
        );
        return;
    }
    let d = d.clone();
    let reader = gloo::file::callbacks::read_as_text(&file, move |r| match r {
        Ok(text) => d.emit(Action::Import(text, Some(name))),
        Err(e) => notice(
            &d,
            format!("Could not import {name}: it is not a text file ({e})"),
        ),
    });
    readers.borrow_mut().push(reader);
}

/// Dropping a file (or scene text) anywhere on the page but a file input imports it.
#[hook]
fn use_drop_import(d: Callback<Action>, readers: Readers) {
    use_effect_with((), move |_| {
        let doc = web_sys::window().and_then(|w| w.document());
        let listeners = doc.map(|doc| {
            let over = gloo::events::EventListener::new_with_options(
                &doc,
                "dragover",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                |e| e.prevent_default(),
            );
            let drop = gloo::events::EventListener::new_with_options(
                &doc,
                "drop",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |e| {
                    let on_input = e
                        .target()
                        .is_some_and(|t| t.dyn_ref::<web_sys::HtmlInputElement>().is_some());
                    let Some(dt) = e
                        .dyn_ref::<web_sys::DragEvent>()
                        .and_then(|e| e.data_transfer())
                    else {
                        return;
                    };
                    if on_input {
                        return;
                    }
                    if let Some(f) = dt.files().and_then(|f| f.get(0)) {
                        e.prevent_default();
                        if f.type_().starts_with("image/") {
                            notice(&d, format!("{} is a picture: drop it on a texture unit's PNG… input                                 (Inputs panel); the page imports .shader_test files", f.name()));
                        } else {
                            read_file(f, &d, &readers);
                        }
                    } else if let Ok(t) = dt.get_data("text/plain")
                        && scenefile::looks_like_scene(&t)
                    {
                        e.prevent_default();
                        d.emit(Action::Import(t, None));
                    }
                },
            );
            (over, drop)
        });
        move || drop(listeners)
    });
}

/// Offers `text` as a download named `name`.
pub fn download(name: &str, text: &str) -> Result<(), String> {
    let blob = gloo::file::Blob::new_with_options(text, Some("text/plain"));
    let url = gloo::file::ObjectUrl::from(blob);
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a = doc
        .create_element("a")
        .map_err(|_| "cannot create a link")?;
    let _ = a.set_attribute("href", &url);
    let _ = a.set_attribute("download", name);
    let a: web_sys::HtmlElement = a.dyn_into().map_err(|_| "not an element")?;
    a.click();
    // The URL is revoked when it drops: a minute later, long after the download started.
    gloo::timers::callback::Timeout::new(60_000, move || drop(url)).forget();
    Ok(())
}

/// The Export button's handler: the document at the time of the click, as a file.
pub fn export_handler(state: &UseReducerHandle<State>) -> Callback<MouseEvent> {
    let state = state.clone();
    Callback::from(move |_| {
        let text = scenefile::export(&state.doc, &state.image_names);
        let name = scenefile::file_name(&state.doc);
        if let Err(e) = download(&name, &text) {
            state.dispatch(Action::Notice(Some(Notice {
                text: format!("Could not export: {e}"),
                error: true,
            })));
        }
    })
}

#[function_component(DocBar)]
pub fn doc_bar(p: &DocBarProps) -> Html {
    let readers: Readers = use_mut_ref(Vec::new);
    use_drop_import(p.dispatch.clone(), readers.clone());
    let on_new = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.emit(Action::New))
    };
    let on_pick = {
        let (d, readers) = (p.dispatch.clone(), readers.clone());
        Callback::from(move |e: Event| {
            let Some((input, f)) = super::picked_file(&e) else {
                return;
            };
            read_file(f, &d, &readers);
            // The same file picked again imports again.
            input.set_value("");
        })
    };
    html! {
        <div class="docbar" id="docbar">
            if let Some(t) = &p.title {
                <b id="doc-title">{ t.clone() }</b>
            }
            <button type="button" id="new-doc" onclick={on_new}
                title="A new pass-through pair on the GPGPU quad, to replace with your programs">{ "New" }</button>
            <label class="button" id="import-label" title="Import a piglit .shader_test (or drop one on the page)">
                { "Import .shader_test…" }
                <input type="file" id="import-file" class="visually-hidden" accept=".shader_test,.txt,text/plain"
                    onchange={on_pick} />
            </label>
            <button type="button" id="export" onclick={p.onexport.clone()}
                title="Download programs, scene, textures, parameters and size as a .shader_test that `hoist run` accepts">
                { "Export .shader_test" }</button>
            <span class="muted hint">{ "or paste a .shader_test into an editor, or drop one on the page" }</span>
        </div>
    }
}

/// The bar's title: none for an example (its panel names it), else the document's.
pub fn doc_title(doc: &crate::doc::Doc) -> Option<AttrValue> {
    doc.example
        .is_none()
        .then(|| AttrValue::from(doc.title.clone().unwrap_or_else(|| "Untitled".into())))
}

/// Switches the document's ARB target (the editors' one-click offer); the same callback
/// while the options stay the same, so the editors do not redraw for it.
#[hook]
pub fn use_target_handler(state: &UseReducerHandle<State>) -> Callback<hoist_asm::ArbTarget> {
    let d = state.dispatcher();
    use_callback(
        state.doc.opts.clone(),
        move |t, opts: &crate::doc::OptState| {
            let mut o = opts.clone();
            o.target = t;
            d.dispatch(Action::SetOpts(o));
        },
    )
}

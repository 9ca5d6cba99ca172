//! Content drawn one paint behind the page: the panels below the output. A result's render
//! (a worker message, a keystroke) first builds and paints what answers it (the editors,
//! the images, the verdict); the panels follow in a task after that frame. On a page
//! load the panels are not built before the first paint at all.
//!
//! While the content shown is behind the page, an empty `#panels-pending` element is in the
//! document: scripts that read the panels wait for it to go.

use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use yew::prelude::*;

#[derive(Properties)]
pub struct DeferredProps {
    /// The parent's render count: a new one means new content.
    pub generation: u64,
    pub children: Html,
}

impl PartialEq for DeferredProps {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation
    }
}

/// Runs `f` in a task after the next frame has painted (a frame callback queues it). A
/// page in the background runs no frames: its panels catch up when it is shown.
fn after_paint(f: impl FnOnce() + 'static) {
    if let Some(w) = web_sys::window() {
        let once = Closure::once_into_js(move || Timeout::new(0, f).forget());
        let _ = w.request_animation_frame(once.unchecked_ref());
    }
}

/// How many times the calling component has rendered: the generation it gives [`Deferred`].
#[hook]
pub fn use_render_count() -> u64 {
    let n = use_mut_ref(|| 0u64);
    let mut n = n.borrow_mut();
    *n += 1;
    *n
}

#[function_component(Deferred)]
pub fn deferred(p: &DeferredProps) -> Html {
    let shown = use_state(|| None::<(u64, Html)>);
    // The newest content waiting for its frame; one callback at a time takes it.
    let waiting = use_mut_ref(|| None::<(u64, Html)>);
    let behind = shown.as_ref().is_none_or(|(g, _)| *g != p.generation);
    {
        let (shown, waiting) = (shown.clone(), waiting.clone());
        let content = p.children.clone();
        use_effect_with(p.generation, move |g| {
            if waiting.replace(Some((*g, content))).is_none() {
                after_paint(move || {
                    if let Some(next) = waiting.take() {
                        shown.set(Some(next));
                    }
                });
            }
        });
    }
    html! {
        <>
            if behind {
                <span id="panels-pending" hidden=true />
            }
            { shown.as_ref().map(|(_, h)| h.clone()).unwrap_or_default() }
        </>
    }
}

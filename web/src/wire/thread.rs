//! What the page's workers share about their own thread (wasm only): the global scope,
//! the clock, and a yield to the event loop that is not clamped like a zero-delay timer.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel};

/// A channel and the resolvers of the yields waiting on it.
type Yielder = (MessageChannel, Rc<RefCell<Vec<js_sys::Function>>>);

thread_local! {
    /// A channel to yield through (a zero-delay timer would be clamped to 4 ms).
    static YIELD: RefCell<Option<Yielder>> = const { RefCell::new(None) };
}

pub fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

thread_local! {
    /// The scope's `performance`, looked up once (the render loop reads the clock per step).
    static PERFORMANCE: Option<web_sys::Performance> =
        js_sys::Reflect::get(&js_sys::global(), &"performance".into())
            .ok()
            .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
}

pub fn now() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map_or_else(js_sys::Date::now, |p| p.now()))
}

/// Lets the worker's event loop run (and deliver new requests) before going on.
pub async fn yield_now() {
    let promise = YIELD.with(|y| {
        let mut y = y.borrow_mut();
        if y.is_none() {
            let ch = MessageChannel::new().ok()?;
            let waiting: Rc<RefCell<Vec<js_sys::Function>>> = Rc::default();
            let w = waiting.clone();
            let on = Closure::<dyn Fn()>::new(move || {
                for f in w.borrow_mut().drain(..) {
                    let _ = f.call0(&JsValue::NULL);
                }
            });
            ch.port1().set_onmessage(Some(on.as_ref().unchecked_ref()));
            // The channel lives as long as the worker.
            on.forget();
            *y = Some((ch, waiting));
        }
        let (ch, waiting) = y.as_ref()?;
        let promise = js_sys::Promise::new(&mut |resolve, _| waiting.borrow_mut().push(resolve));
        ch.port2().post_message(&JsValue::NULL).ok()?;
        Some(promise)
    });
    match promise {
        Some(p) => {
            let _ = JsFuture::from(p).await;
        }
        None => gloo::timers::future::TimeoutFuture::new(0).await,
    }
}

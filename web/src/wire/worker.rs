//! The worker thread (`src/bin/hoist-worker.rs` starts it): receives [`Request`]s, runs
//! each job with [`Runner`] and posts its [`Event`]s back, yielding to its own event loop
//! between slices of work so that a newer job (or a cancel) is seen within about
//! [`SLICE_MS`]; a superseded job stops there and posts nothing more. Events that follow
//! one another closely go as one message ([`Held`]), and a finished job says so
//! ([`Event::Finished`]: the page sends its next job without a pause). A panic hook posts
//! [`Event::Crashed`] with the panic message before the worker dies, so the page can say
//! what happened; the page notices throws and load failures from the worker's error event.

use super::thread::{now, scope, yield_now};
use crate::wire;
use crate::worker::engine::{Event, Fail, Held, Job, Request, Runner, SLICE_MS};
use std::cell::{Cell, RefCell};
use wasm_bindgen::prelude::*;
use web_sys::MessageEvent;

/// Minimum time between two progress events (ms).
const PROGRESS_MS: f64 = 200.0;

thread_local! {
    /// The id of the job to work on (0: none); older jobs stop at their next yield.
    static CURRENT: Cell<u64> = const { Cell::new(0) };
    /// What the last job whose images were drawn left for the pixel debugger.
    static LAST: RefCell<Option<crate::worker::debug::Context>> = const { RefCell::new(None) };
}

fn post(e: Event) {
    post_all(vec![e]);
}

/// Posts `events` as one message (one event's message, or `[message, message, …]`), so the
/// page handles them in one task and draws once.
fn post_all(events: Vec<Event>) {
    let (batch, transfer) = (js_sys::Array::new(), js_sys::Array::new());
    for e in events {
        match wire::encode_event(e) {
            Ok(p) => {
                batch.push(&p.message);
                for t in p.transfer.iter() {
                    transfer.push(&t);
                }
            }
            Err(e) => {
                return post(Event::Crashed {
                    message: format!("a result could not be encoded: {e}"),
                });
            }
        }
    }
    let message = match batch.length() {
        0 => return,
        1 => batch.get(0),
        _ => batch.into(),
    };
    if let Err(e) = scope().post_message_with_transfer(&message, &transfer) {
        web_sys::console::error_2(&"hoist worker: cannot post".into(), &e);
    }
}

fn current(id: u64) -> bool {
    CURRENT.with(Cell::get) == id
}

async fn run(job: Job) {
    let id = job.id;
    // Requests that queued up behind the last job are read first: only the newest runs.
    yield_now().await;
    if !current(id) {
        return;
    }
    match job.fail {
        Some(Fail::Panic) => panic!("forced failure (test switch) in job {id}"),
        Some(Fail::Throw) => wasm_bindgen::throw_str("forced exception (test switch)"),
        None => {}
    }
    crate::worker::jit::configure(job.force);
    crate::wire::bands::configure(job.band_workers);
    let delay = job.validation_delay_ms;
    let mut r = Runner::new(job, Box::new(now));
    let mut last = now();
    // Events that follow one another closely go as one message (`Held`).
    let mut held = Held::default();
    while !r.is_done() {
        let out = r.step(SLICE_MS);
        // The pixel debugger's context, kept whenever images are drawn (every render ends
        // in `Rendered`): it may ask as soon as they are shown, while validation or a
        // DIFFERENT render's guidance still runs.
        if out.iter().any(|e| matches!(e, Event::Rendered { .. })) {
            LAST.with(|l| *l.borrow_mut() = r.trace_context());
        }
        held.add(out, now());
        if r.is_done() {
            break;
        }
        if delay > 0 && r.validates_next() {
            post_all(held.take());
            gloo::timers::future::TimeoutFuture::new(delay).await;
        } else if held.due(now(), r.next_step_ms(SLICE_MS)) {
            post_all(held.take());
        }
        if now() - last >= PROGRESS_MS {
            post_all(held.take());
            post(r.progress());
            last = now();
        }
        yield_now().await;
        if !current(id) {
            return;
        }
    }
    held.add(vec![Event::Finished { id }], now());
    post_all(held.take());
    // Idle now: start the helpers this job's renders wanted.
    crate::wire::bands::spawn_wanted();
}

/// The pixel debugger's answer for job `id` (its render must have finished).
fn trace(id: u64, x: u32, y: u32) -> Event {
    let view = LAST.with(|l| match l.borrow().as_ref() {
        Some(cx) if cx.id == id => crate::worker::debug::trace(cx, x, y),
        _ => Err("the render of this text has not finished".into()),
    });
    Event::Traced {
        id,
        x,
        y,
        view: Box::new(view),
    }
}

fn on_message(e: MessageEvent) {
    match wire::decode_request(e.data()) {
        Ok(Request::Run(job)) => {
            CURRENT.with(|c| c.set(job.id));
            wasm_bindgen_futures::spawn_local(run(*job));
        }
        Ok(Request::Cancel) => CURRENT.with(|c| c.set(0)),
        Ok(Request::Trace { id, x, y }) => post(trace(id, x, y)),
        Ok(Request::LinearTrace {
            id,
            doc,
            orders,
            vector,
        }) => post(Event::LinearTraced {
            id,
            vector,
            view: Box::new(crate::worker::linear_debug::view(&doc, &orders, vector)),
        }),
        Err(e) => post(Event::Crashed {
            message: format!("a request could not be read: {e}"),
        }),
    }
}

/// Starts the worker: panic hook, message handler, and [`Event::Ready`].
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("hoist worker: {message}").into());
        post(Event::Crashed { message });
    }));
    let handler = Closure::<dyn Fn(MessageEvent)>::new(on_message);
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
    crate::worker::jit::install(now);
    crate::wire::bands::install();
    post(Event::Ready);
}

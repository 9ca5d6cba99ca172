//! Source mode's worker and the page's end of it. The front worker is a bundle of its own
//! (`src/bin/hoist-front.rs`, loaded by `web/hoist-front-loader.js`): naga, the WGSL and GLSL
//! compiler, is large, and the page loads it only when source mode is first used. It
//! compiles a source document (`crate::worker::front::compile`) and answers with the pair,
//! the binding table and the spans, which the page puts into the document for the main
//! worker's usual job.
//!
//! A message is a [`FrontJob`] (CBOR) or a [`FrontEvent`] (postcard) in a byte array. A compile is
//! quick and cannot be interrupted: the page sends only the newest source and drops
//! answers to older ones. A panic (reported by the worker's hook), an uncaught exception
//! or a script that does not load kills the engine, which says so once; the next compile
//! starts a fresh one. [`inline`] compiles on the page's own thread (the component tests:
//! their runner serves no worker script); only code that names it links naga into a bundle.

use crate::worker::engine::{from_bytes, pack, to_bytes, unpack};
use crate::worker::front::{FrontJob, Output};
use js_sys::Uint8Array;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// The front worker's loader script (`web/hoist-front-loader.js`, next to the page).
pub const FRONT_URL: &str = "./hoist-front-loader.js";

/// Messages from the front worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FrontEvent {
    Ready,
    Done { id: u64, output: Box<Output> },
    Crashed { message: String },
}

/// A job in CBOR (the source document skips empty fields), an answer in postcard (which
/// the page decodes with little code: `worker::engine::pack`).
fn job_bytes(j: &FrontJob) -> Result<JsValue, String> {
    Ok(Uint8Array::from(to_bytes(j)?.as_slice()).into())
}

fn answer_bytes(e: &FrontEvent) -> Result<JsValue, String> {
    Ok(Uint8Array::from(pack(e)?.as_slice()).into())
}

fn raw(v: &JsValue) -> Result<Vec<u8>, String> {
    Ok(v.dyn_ref::<Uint8Array>()
        .ok_or("a message that is not bytes")?
        .to_vec())
}

// ---- the worker's end ----

fn post(e: &FrontEvent) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    match answer_bytes(e) {
        Ok(m) => {
            let _ = scope.post_message(&m);
        }
        Err(err) => {
            if !matches!(e, FrontEvent::Crashed { .. }) {
                post(&FrontEvent::Crashed {
                    message: format!("an answer could not be encoded: {err}"),
                });
            }
        }
    }
}

fn on_job(e: MessageEvent) {
    match raw(&e.data()).and_then(|b| from_bytes::<FrontJob>(&b)) {
        Ok(job) => post(&FrontEvent::Done {
            id: job.id,
            output: Box::new(crate::worker::front::compile(&job.source)),
        }),
        Err(err) => post(&FrontEvent::Crashed {
            message: format!("a request could not be read: {err}"),
        }),
    }
}

/// Starts the front worker: panic hook, message handler, and [`FrontEvent::Ready`].
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("hoist front worker: {message}").into());
        post(&FrontEvent::Crashed { message });
    }));
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let handler = Closure::<dyn Fn(MessageEvent)>::new(on_job);
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
    post(&FrontEvent::Ready);
}

// ---- the page's end ----

/// Receives a compile's answer: the job's id and its output, or why the worker died.
pub type OnAnswer = Rc<dyn Fn(u64, Result<Output, String>)>;

/// How an app starts its front engine: [`worker`] on the page, [`inline`] in tests. (All
/// starters compare equal: chosen once per app.)
#[derive(Clone, Copy)]
pub struct FrontStarter(pub fn(OnAnswer) -> FrontEngine);

impl PartialEq for FrontStarter {
    fn eq(&self, _: &FrontStarter) -> bool {
        true
    }
}

struct Shared {
    on_answer: OnAnswer,
    dead: Cell<bool>,
    ready: Cell<bool>,
    /// The newest job sent before the worker was ready.
    pending: RefCell<Option<FrontJob>>,
    last: Cell<u64>,
    worker: RefCell<Option<web_sys::Worker>>,
}

impl Shared {
    fn fail(&self, why: String) {
        if self.dead.replace(true) {
            return;
        }
        if let Some(w) = self.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
        (self.on_answer)(self.last.get(), Err(why));
    }

    fn send(&self, job: FrontJob) {
        if self.dead.get() {
            return;
        }
        if !self.ready.get() {
            *self.pending.borrow_mut() = Some(job);
            return;
        }
        let sent = job_bytes(&job).and_then(|m| {
            self.worker
                .borrow()
                .as_ref()
                .map_or(Ok(()), |w| w.post_message(&m).map_err(|e| format!("{e:?}")))
        });
        if let Err(e) = sent {
            self.fail(format!("a compile could not be sent: {e}"));
        }
    }

    fn receive(&self, data: JsValue) {
        // The loader script reports a failed start as a plain string.
        if let Some(s) = data.as_string() {
            return self.fail(s);
        }
        match raw(&data).and_then(|b| unpack::<FrontEvent>(&b)) {
            Ok(FrontEvent::Ready) => {
                self.ready.set(true);
                let pending = self.pending.borrow_mut().take();
                if let Some(j) = pending {
                    self.send(j);
                }
            }
            Ok(FrontEvent::Done { id, output }) if id == self.last.get() => {
                (self.on_answer)(id, Ok(*output))
            }
            Ok(FrontEvent::Done { .. }) => {}
            Ok(FrontEvent::Crashed { message }) => self.fail(message),
            Err(e) => self.fail(format!("an answer could not be read: {e}")),
        }
    }
}

/// A running (or dead) front engine. Dropping it terminates its worker.
pub struct FrontEngine {
    shared: Rc<Shared>,
    /// Inline mode's compiler (only [`inline`] names it, so only its callers link naga).
    inline: Option<fn(&crate::doc::source::SourceDoc) -> Output>,
    _handlers: Vec<Closure<dyn Fn(web_sys::Event)>>,
}

impl FrontEngine {
    fn new(
        on_answer: OnAnswer,
        inline: Option<fn(&crate::doc::source::SourceDoc) -> Output>,
    ) -> FrontEngine {
        FrontEngine {
            shared: Rc::new(Shared {
                on_answer,
                dead: Cell::new(false),
                ready: Cell::new(inline.is_some()),
                pending: RefCell::new(None),
                last: Cell::new(0),
                worker: RefCell::new(None),
            }),
            inline,
            _handlers: Vec::new(),
        }
    }

    pub fn is_dead(&self) -> bool {
        self.shared.dead.get()
    }

    /// Compiles `job`'s source; its answer supersedes the ones under way.
    pub fn compile(&self, job: FrontJob) {
        self.shared.last.set(job.id);
        let Some(compile) = self.inline else {
            return self.shared.send(job);
        };
        let s = self.shared.clone();
        wasm_bindgen_futures::spawn_local(async move {
            gloo::timers::future::TimeoutFuture::new(0).await;
            if s.last.get() == job.id && !s.dead.get() {
                let out = compile(&job.source);
                (s.on_answer)(job.id, Ok(out));
            }
        });
    }
}

impl Drop for FrontEngine {
    fn drop(&mut self) {
        self.shared.dead.set(true);
        if let Some(w) = self.shared.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
    }
}

/// A front engine on a dedicated worker started from `url`.
pub fn worker_at(url: &str, on_answer: OnAnswer) -> FrontEngine {
    let mut e = FrontEngine::new(on_answer, None);
    match web_sys::Worker::new(url) {
        Ok(w) => {
            let s = e.shared.clone();
            let on_message = Closure::<dyn Fn(web_sys::Event)>::new(move |ev: web_sys::Event| {
                if let Some(m) = ev.dyn_ref::<MessageEvent>() {
                    s.receive(m.data());
                }
            });
            let s = e.shared.clone();
            let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |ev: web_sys::Event| {
                ev.prevent_default();
                let why = match ev.dyn_ref::<web_sys::ErrorEvent>() {
                    Some(err) if !err.message().is_empty() => err.message(),
                    _ => "its script could not be loaded".into(),
                };
                s.fail(format!("the compiler failed: {why}"));
            });
            w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            e._handlers = vec![on_message, on_error];
            *e.shared.worker.borrow_mut() = Some(w);
        }
        Err(err) => {
            let s = e.shared.clone();
            let message = format!("the compiler could not be started: {err:?}");
            wasm_bindgen_futures::spawn_local(async move { s.fail(message) });
        }
    }
    e
}

/// The page's front engine: a worker from [`FRONT_URL`].
pub fn worker(on_answer: OnAnswer) -> FrontEngine {
    worker_at(FRONT_URL, on_answer)
}

/// A front engine on the page's own thread (component tests).
pub fn inline(on_answer: OnAnswer) -> FrontEngine {
    FrontEngine::new(on_answer, Some(crate::worker::front::compile))
}

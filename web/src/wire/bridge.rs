//! The page's end of the worker: [`Engine`] starts it, sends it jobs (holding the newest
//! until the worker says it is ready), turns its messages into [`Event`]s, and notices when
//! it dies — a panic (reported by the worker's hook), an uncaught exception, a script or
//! module that does not load, a message that cannot be read. A dead engine is terminated
//! and reports once through `on_fail`; the page starts a fresh one for the next job.
//!
//! A message is decoded in its own task and its event handled in the next one, so that a
//! keystroke waiting in between runs first (the browser puts input ahead of other tasks).
//!
//! A job cannot be interrupted while the optimizer runs (only between render slices); when a
//! new job comes while the last one has been optimizing for long, the page replaces the
//! worker instead ([`Engine::optimizing_ms`]).
//!
//! `index.html` starts the page's first worker before the page's own bundle has loaded (so
//! the two bundles load and compile at once) and keeps what it says until the page listens;
//! the first engine adopts it ([`early_worker`]). The page's first job goes to that worker
//! before the page draws anything ([`send_first`]), so the worker's cold first job runs
//! beside the page's first render; the engine that adopts the worker takes that job as
//! sent when the page's first job is the same one.
//!
//! [`inline`] runs the same jobs on the page's own thread, through the same message
//! encoding (the component tests use it: their runner serves no worker script). Only code
//! that names it links the optimizer and the renderer into the page's own bundle.

use crate::wire;
use crate::worker::engine::{Event, Fail, Job, Request, Runner, SLICE_MS};
use gloo::timers::future::TimeoutFuture;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::MessageEvent;

/// Where jobs run.
#[derive(Clone, Copy)]
enum Mode {
    /// A dedicated worker.
    Worker,
    /// The page's own thread, with this job loop (component tests; no pixel debugger: its
    /// tracer, reached from here, linked the whole executor into the page, +163 KB gzip).
    Inline(fn(Job, Rc<Shared>, Rc<Cell<u64>>)),
}

/// How an app starts its engine: [`worker`] on the page, [`inline`] in component tests.
/// (Chosen once per app: all starters compare equal.)
#[derive(Clone, Copy)]
pub struct Starter(pub fn(OnEvent, OnFail) -> Engine);

impl PartialEq for Starter {
    fn eq(&self, _: &Starter) -> bool {
        true
    }
}

/// An engine on a dedicated worker started from `url`.
pub fn worker(url: &str, on_event: OnEvent, on_fail: OnFail) -> Engine {
    Engine::start(Mode::Worker, Some(url), on_event, on_fail)
}

/// An engine on the page's own thread (component tests).
pub fn inline(on_event: OnEvent, on_fail: OnFail) -> Engine {
    let run = |job, shared, current| {
        wasm_bindgen_futures::spawn_local(run_inline(job, shared, current));
    };
    Engine::start(Mode::Inline(run), None, on_event, on_fail)
}

thread_local! {
    /// The job [`send_first`] posted to the early worker: its url, the job, when.
    static FIRST: RefCell<Option<(String, Job, f64)>> = const { RefCell::new(None) };
}

/// Posts the page's first job to the worker `index.html` started for `url`, and says
/// whether it did (not when there is no such worker: the engine sends the job as usual).
/// The worker's loader keeps it until the worker's handler is set.
///
/// Chromium holds a message to a dedicated worker in the page until the page's thread has
/// run the task that says the worker's script has loaded; the caller should let the page's
/// thread go back to its event loop before any long work, or the job waits behind it (the
/// first render and layout: ~290 ms measured, BENCHMARKS.md).
pub fn send_first(url: &str, job: Job) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let early = js_sys::Reflect::get(&window, &JsValue::from_str("hoistEarlyWorker"));
    let Some(early) = early.ok().filter(|e| e.is_object()) else {
        return false;
    };
    let field = |k: &str| js_sys::Reflect::get(&early, &JsValue::from_str(k)).ok();
    if field("url").and_then(|u| u.as_string()).as_deref() != Some(url) {
        return false;
    }
    let Some(worker) = field("worker").and_then(|w| w.dyn_into::<web_sys::Worker>().ok()) else {
        return false;
    };
    let Ok(packed) = wire::encode_request(&Request::Run(Box::new(job.clone()))) else {
        return false;
    };
    let sent = worker
        .post_message_with_transfer(&packed.message, &packed.transfer)
        .is_ok();
    if sent {
        FIRST.with(|f| *f.borrow_mut() = Some((url.to_string(), job, now())));
    }
    sent
}

/// Receives the events of jobs.
pub type OnEvent = Rc<dyn Fn(Event)>;
/// Receives the id of the last job sent and why the engine died.
pub type OnFail = Rc<dyn Fn(u64, String)>;

struct Shared {
    on_event: OnEvent,
    on_fail: OnFail,
    dead: Cell<bool>,
    ready: Cell<bool>,
    /// The newest request sent before the worker was ready.
    pending: RefCell<Option<Request>>,
    last_job: Cell<u64>,
    /// When the last job reached the worker, until its optimization arrives.
    optimizing_since: Cell<Option<f64>>,
    /// Whether the last job sent has finished (or none was sent): the next goes at once.
    idle: Cell<bool>,
    /// Events decoded and not handled yet (handled together, in a microtask of their own).
    queue: RefCell<VecDeque<Event>>,
    worker: RefCell<Option<web_sys::Worker>>,
    /// Why the engine died before any job was sent (told with the first job).
    unreported: RefCell<Option<String>>,
    /// The job [`send_first`] gave the adopted worker, until the page's first job.
    first: RefCell<Option<Job>>,
}

impl Shared {
    fn fail(&self, message: String) {
        if self.dead.replace(true) {
            return;
        }
        if let Some(w) = self.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.set_onmessageerror(None);
            w.terminate();
        }
        // Before the first job the page has nothing to show it on (the early worker can die
        // while the page is still loading): it is told with that job.
        match self.last_job.get() {
            0 => *self.unreported.borrow_mut() = Some(message),
            id => (self.on_fail)(id, message),
        }
    }

    fn send(&self, r: Request) {
        if self.dead.get() {
            return;
        }
        if !self.ready.get() {
            // Only the newest job matters; a cancel drops the one waiting (a trace waits
            // for nothing: no job has rendered yet).
            match r {
                Request::Run(_) => *self.pending.borrow_mut() = Some(r),
                Request::Cancel => drop(self.pending.borrow_mut().take()),
                Request::Trace { .. } | Request::LinearTrace { .. } => {}
            }
            return;
        }
        let packed = match wire::encode_request(&r) {
            Ok(p) => p,
            Err(e) => return self.fail(format!("a job could not be encoded: {e}")),
        };
        let sent = self
            .worker
            .borrow()
            .as_ref()
            .map(|w| w.post_message_with_transfer(&packed.message, &packed.transfer));
        match sent {
            Some(Err(e)) => self.fail(format!("a job could not be sent: {}", describe(&e))),
            Some(Ok(())) if matches!(r, Request::Run(_)) => {
                self.optimizing_since.set(Some(now()));
            }
            _ => {}
        }
    }

    /// Hands the queued events to the page, in order (unless the engine died meanwhile).
    fn drain(&self) {
        loop {
            let next = self.queue.borrow_mut().pop_front();
            match next {
                Some(e) if !self.dead.get() => (self.on_event)(e),
                Some(_) => {}
                None => break,
            }
        }
    }

    fn receive(self: &Rc<Self>, data: JsValue) {
        // The loader script reports a failed start as a plain string.
        if let Some(s) = data.as_string() {
            return self.fail(s);
        }
        // A batch (`wire::worker::post_all`): an array of messages.
        if let Some(a) = data.dyn_ref::<js_sys::Array>()
            && a.length() > 0
            && a.get(0).is_array()
        {
            return a.iter().for_each(|m| self.receive(m));
        }
        // A superseded job's results are dropped unread.
        if wire::event_id(&data).is_some_and(|id| id != self.last_job.get()) {
            return;
        }
        match wire::decode_event(data) {
            Ok(Event::Ready) => {
                self.ready.set(true);
                let pending = self.pending.borrow_mut().take();
                if let Some(r) = pending {
                    self.send(r);
                }
            }
            Ok(Event::Crashed { message }) => self.fail(message),
            Ok(Event::Finished { .. }) => self.idle.set(true),
            Ok(e) => {
                if matches!(e, Event::Optimized { .. } | Event::Linear { .. }) {
                    self.optimizing_since.set(None);
                }
                let mut queue = self.queue.borrow_mut();
                if queue.is_empty() {
                    // A microtask: the events of one message (a batch) are handled together,
                    // before the browser draws the page again.
                    let s = self.clone();
                    wasm_bindgen_futures::spawn_local(async move { s.drain() });
                }
                queue.push_back(e);
            }
            Err(e) => self.fail(format!("a message from the worker could not be read: {e}")),
        }
    }
}

fn describe(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| {
            v.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{v:?}"))
}

/// A running (or dead) engine. Dropping it terminates its worker.
pub struct Engine {
    mode: Mode,
    shared: Rc<Shared>,
    _handlers: Vec<Closure<dyn Fn(web_sys::Event)>>,
    /// Inline mode: the id of the job to work on (0: none).
    current: Rc<Cell<u64>>,
}

impl Engine {
    /// Starts an engine. A worker that cannot even be created dies at once (and says so
    /// through `on_fail` once the page has sent its first job).
    fn start(mode: Mode, url: Option<&str>, on_event: OnEvent, on_fail: OnFail) -> Engine {
        let shared = Rc::new(Shared {
            on_event,
            on_fail,
            dead: Cell::new(false),
            ready: Cell::new(matches!(mode, Mode::Inline(..))),
            pending: RefCell::new(None),
            last_job: Cell::new(0),
            optimizing_since: Cell::new(None),
            idle: Cell::new(true),
            queue: RefCell::new(VecDeque::new()),
            worker: RefCell::new(None),
            unreported: RefCell::new(None),
            first: RefCell::new(None),
        });
        let mut handlers = Vec::new();
        if let Some(url) = url {
            let (made, early) = match early_worker(url) {
                Some((w, events)) => (Ok(w), Some(events)),
                None => (web_sys::Worker::new(url), None),
            };
            match made {
                Ok(w) => {
                    let s = shared.clone();
                    let on_message =
                        Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
                            if let Some(m) = e.dyn_ref::<MessageEvent>() {
                                s.receive(m.data());
                            }
                        });
                    let s = shared.clone();
                    let on_error =
                        Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
                            // Handled here: the page says what happened.
                            e.prevent_default();
                            let why = match e.dyn_ref::<web_sys::ErrorEvent>() {
                                Some(err) if !err.message().is_empty() => err.message(),
                                _ => "its script could not be loaded".into(),
                            };
                            s.fail(format!("the worker failed: {why}"));
                        });
                    let s = shared.clone();
                    let on_message_error = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
                        s.fail("a message from the worker could not be received".into());
                    });
                    w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
                    w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
                    w.set_onmessageerror(Some(on_message_error.as_ref().unchecked_ref()));
                    // The job it was given before the page drew: its events are current.
                    let first = FIRST.with(|f| f.borrow_mut().take());
                    if let (Some((u, job, at)), Some(_)) = (first, &early)
                        && u == url
                    {
                        shared.last_job.set(job.id);
                        shared.idle.set(false);
                        shared.optimizing_since.set(Some(at));
                        *shared.first.borrow_mut() = Some(job);
                    }
                    // What the early worker said before the page listened, in order.
                    for e in early.iter().flat_map(|a| a.iter()) {
                        let handler = match e.unchecked_ref::<web_sys::Event>().type_().as_str() {
                            "message" => &on_message,
                            "messageerror" => &on_message_error,
                            _ => &on_error,
                        };
                        let f: &js_sys::Function = handler.as_ref().unchecked_ref();
                        let _ = f.call1(&JsValue::NULL, &e);
                    }
                    handlers = vec![on_message, on_error, on_message_error];
                    *shared.worker.borrow_mut() = Some(w);
                }
                Err(e) => {
                    // Reported once the page has sent its first job (it listens then).
                    let message = format!("the worker could not be started: {}", describe(&e));
                    let s = shared.clone();
                    wasm_bindgen_futures::spawn_local(async move { s.fail(message) });
                }
            }
        }
        Engine {
            mode,
            shared,
            _handlers: handlers,
            current: Rc::new(Cell::new(0)),
        }
    }

    pub fn is_dead(&self) -> bool {
        self.shared.dead.get()
    }

    /// How long the last job has been optimizing in the worker (`None`: it is not, or the
    /// worker is not up yet).
    pub fn optimizing_ms(&self) -> Option<f64> {
        self.shared.optimizing_since.get().map(|t| now() - t)
    }

    /// Whether the worker has finished the last job sent (or was sent none): a new job
    /// does not wait behind anything then.
    pub fn is_idle(&self) -> bool {
        self.shared.idle.get() && !self.shared.dead.get()
    }

    /// Starts a job; it supersedes the one under way.
    pub fn run(&self, job: Job) {
        let first = self.shared.first.borrow_mut().take();
        if first.is_some_and(|f| f == job) {
            // The worker has it already ([`send_first`]).
            return;
        }
        self.shared.last_job.set(job.id);
        self.shared.idle.set(false);
        if let Some(why) = self.shared.unreported.take() {
            return (self.shared.on_fail)(job.id, why);
        }
        match self.mode {
            Mode::Worker => self.shared.send(Request::Run(Box::new(job))),
            Mode::Inline(run) => {
                self.current.set(job.id);
                run(job, self.shared.clone(), self.current.clone());
            }
        }
    }

    /// Asks for the trace of pixel (`x`, `y`) of job `id`'s render ([`Event::Traced`]).
    pub fn trace(&self, id: u64, x: u32, y: u32) {
        match self.mode {
            Mode::Worker => self.shared.send(Request::Trace { id, x, y }),
            Mode::Inline(_) => {}
        }
    }

    /// Asks for the linear debugger's trace of x vector `vector` through the code of the
    /// groupings `orders` of `doc`'s system, for revision `id` ([`Event::LinearTraced`]).
    pub fn linear_trace(
        &self,
        id: u64,
        doc: crate::worker::linear::LinearDoc,
        orders: [Vec<usize>; 2],
        vector: usize,
    ) {
        match self.mode {
            Mode::Worker => self.shared.send(Request::LinearTrace {
                id,
                doc: Box::new(doc),
                orders: Box::new(orders),
                vector,
            }),
            Mode::Inline(_) => {}
        }
    }

    /// Stops the job under way.
    pub fn cancel(&self) {
        match self.mode {
            Mode::Worker => self.shared.send(Request::Cancel),
            Mode::Inline(..) => self.current.set(0),
        }
    }
}

/// The worker `index.html` started with the page for `url`, and the events it sent before
/// the page listened (`window.hoistEarlyWorker`: `{ url, worker, events }`); taken once. One
/// started for another script (a test switch asked for a missing one) is stopped.
fn early_worker(url: &str) -> Option<(web_sys::Worker, js_sys::Array)> {
    let window = web_sys::window()?;
    let key = JsValue::from_str("hoistEarlyWorker");
    let early = js_sys::Reflect::get(&window, &key).ok()?;
    if early.is_undefined() || early.is_null() {
        return None;
    }
    let _ = js_sys::Reflect::delete_property(&window, &key);
    let field = |k: &str| js_sys::Reflect::get(&early, &JsValue::from_str(k)).ok();
    let worker: web_sys::Worker = field("worker")?.dyn_into().ok()?;
    let events: js_sys::Array = field("events")?.dyn_into().ok()?;
    if field("url")?.as_string().as_deref() != Some(url) {
        worker.set_onmessage(None);
        worker.set_onerror(None);
        worker.set_onmessageerror(None);
        worker.terminate();
        return None;
    }
    Some((worker, events))
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.current.set(0);
        if let Some(w) = self.shared.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.set_onmessageerror(None);
            w.terminate();
        }
        self.shared.dead.set(true);
    }
}

/// The page's clock (ms).
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// A job on the page's thread, its events through the worker's encoding.
async fn run_inline(job: Job, shared: Rc<Shared>, current: Rc<Cell<u64>>) {
    let id = job.id;
    TimeoutFuture::new(0).await;
    if current.get() != id || shared.dead.get() {
        return;
    }
    if let Some(f) = job.fail {
        let what = match f {
            Fail::Panic => "forced failure (test switch)",
            Fail::Throw => "forced exception (test switch)",
        };
        return shared.fail(format!("{what} in job {id}"));
    }
    let relay = |e: Event| match wire::encode_event(e) {
        Ok(p) => shared.receive(p.message),
        Err(e) => shared.fail(e),
    };
    let mut r = Runner::new(job, Box::new(now));
    while !r.is_done() {
        for e in r.step(SLICE_MS / 2.0) {
            relay(e);
        }
        if !r.is_done() {
            relay(r.progress());
        }
        TimeoutFuture::new(0).await;
        if current.get() != id || shared.dead.get() {
            return;
        }
    }
    relay(Event::Finished { id });
}

//! The GPU view's worker, both ends. The page starts it ([`GpuWorker::start`]) the first
//! time the view renders, from `hoist-gpu-worker-loader.js`, so its bundle (hoist-gpu with
//! naga, and the optimizer again) is fetched only then and never delays the page.
//! [`GpuWorker::plans`] sends a [`GpuJob`] (CBOR header, the user's pictures transferred
//! beside it, as the job worker's requests travel) and resolves with its [`GpuReply`];
//! [`start_worker`] is the worker's end (`src/bin/hoist-gpu-worker.rs`): it answers the
//! newest request with `worker::gpu::Planner` and skips requests a newer one superseded.
//! The worker posts `[kind, request, payload]`: `["ready", 0]`, `["reply", n, CBOR of the
//! reply]`, `["crashed", 0, message]`, so the page routes a reply without decoding it and
//! decodes it once. A dead worker fails what waits on it and is started afresh for the next
//! request.

use super::{Packed, bytes, header, pack, unpack};
use crate::worker::engine::{from_bytes, to_bytes};
use crate::worker::gpu::{GpuJob, GpuPlans, GpuReply, Planner};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// The GPU worker's loader script (`web/hoist-gpu-worker-loader.js`, next to the page).
pub const GPU_WORKER_URL: &str = "./hoist-gpu-worker-loader.js";

pub fn encode_job(j: &GpuJob) -> Result<Packed, String> {
    let units: Vec<u8> = j.images.keys().copied().collect();
    let buffers = j
        .images
        .values()
        .map(|b| js_sys::Uint8Array::from(b.as_slice()).into())
        .collect();
    Ok(pack(header(&(j, units))?, buffers))
}

pub fn decode_job(v: JsValue) -> Result<GpuJob, String> {
    let (header, buffers) = unpack(v)?;
    let (mut j, units): (GpuJob, Vec<u8>) = from_bytes(&bytes(&header)?)?;
    if units.len() != buffers.len() {
        return Err("pictures and their units do not match".into());
    }
    for (u, b) in units.into_iter().zip(&buffers) {
        j.images.insert(u, Rc::new(bytes(b)?));
    }
    Ok(j)
}

/// A message of the worker: its kind, request number and payload.
fn route(v: &JsValue) -> Option<(String, u64, JsValue)> {
    let a = v.dyn_ref::<js_sys::Array>()?;
    Some((a.get(0).as_string()?, a.get(1).as_f64()? as u64, a.get(2)))
}

struct Shared {
    worker: RefCell<Option<web_sys::Worker>>,
    ready: Cell<bool>,
    /// Requests sent before the worker was ready.
    queued: RefCell<Vec<Packed>>,
    /// Resolvers of the requests waiting for their reply, by request number.
    waiting: RefCell<BTreeMap<u64, js_sys::Function>>,
    dead: RefCell<Option<String>>,
}

impl Shared {
    fn fail(&self, why: String) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
        let waiting = std::mem::take(&mut *self.waiting.borrow_mut());
        for f in waiting.values() {
            let _ = f.call1(&JsValue::NULL, &JsValue::from_str(&why));
        }
        *self.dead.borrow_mut() = Some(why);
    }

    fn post(&self, p: &Packed) {
        let sent = self
            .worker
            .borrow()
            .as_ref()
            .map(|w| w.post_message_with_transfer(&p.message, &p.transfer));
        if let Some(Err(e)) = sent {
            self.fail(format!("a request could not be sent: {e:?}"));
        }
    }

    fn receive(&self, data: JsValue) {
        if let Some(s) = data.as_string() {
            return self.fail(s);
        }
        match route(&data) {
            Some((kind, _, _)) if kind == "ready" => {
                self.ready.set(true);
                let queued = std::mem::take(&mut *self.queued.borrow_mut());
                for p in &queued {
                    self.post(p);
                }
            }
            Some((kind, request, payload)) if kind == "reply" => {
                let f = self.waiting.borrow_mut().remove(&request);
                if let Some(f) = f {
                    let _ = f.call1(&JsValue::NULL, &payload);
                }
            }
            Some((kind, _, message)) if kind == "crashed" => self.fail(format!(
                "the GPU worker failed: {}",
                message.as_string().unwrap_or_default()
            )),
            _ => self.fail("a message from the GPU worker could not be read".into()),
        }
    }
}

/// The page's end of the GPU worker. Dropping it terminates the worker.
pub struct GpuWorker {
    shared: Rc<Shared>,
    _handlers: Vec<Closure<dyn Fn(web_sys::Event)>>,
}

impl GpuWorker {
    pub fn start() -> GpuWorker {
        let shared = Rc::new(Shared {
            worker: RefCell::new(None),
            ready: Cell::new(false),
            queued: RefCell::new(Vec::new()),
            waiting: RefCell::new(BTreeMap::new()),
            dead: RefCell::new(None),
        });
        let mut handlers = Vec::new();
        match web_sys::Worker::new(GPU_WORKER_URL) {
            Ok(w) => {
                let s = shared.clone();
                let on_message =
                    Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
                        if let Some(m) = e.dyn_ref::<MessageEvent>() {
                            s.receive(m.data());
                        }
                    });
                let s = shared.clone();
                let on_error = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
                    e.prevent_default();
                    let why = match e.dyn_ref::<web_sys::ErrorEvent>() {
                        Some(err) if !err.message().is_empty() => err.message(),
                        _ => "its script could not be loaded".into(),
                    };
                    s.fail(format!("the GPU worker failed: {why}"));
                });
                w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
                w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
                handlers = vec![on_message, on_error];
                *shared.worker.borrow_mut() = Some(w);
            }
            Err(e) => {
                *shared.dead.borrow_mut() = Some(format!("the GPU worker could not start: {e:?}"))
            }
        }
        GpuWorker {
            shared,
            _handlers: handlers,
        }
    }

    pub fn is_dead(&self) -> bool {
        self.shared.dead.borrow().is_some()
    }

    /// The plans of `job`, once the worker answers.
    pub async fn plans(&self, job: &GpuJob) -> Result<GpuPlans, String> {
        if let Some(why) = self.shared.dead.borrow().clone() {
            return Err(why);
        }
        let packed = encode_job(job)?;
        let shared = self.shared.clone();
        let request = job.request;
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            shared.waiting.borrow_mut().insert(request, resolve);
        });
        if self.shared.ready.get() {
            self.shared.post(&packed);
        } else {
            self.shared.queued.borrow_mut().push(packed);
        }
        let v = JsFuture::from(promise)
            .await
            .map_err(|e| format!("{e:?}"))?;
        // A failure resolves with its message, a reply with its bytes.
        if let Some(why) = v.as_string() {
            return Err(why);
        }
        let reply: GpuReply = from_bytes(&bytes(&v)?)?;
        reply
    }
}

impl Drop for GpuWorker {
    fn drop(&mut self) {
        if let Some(w) = self.shared.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
    }
}

// ---- the worker's end ------------------------------------------------------------------

thread_local! {
    static PLANNER: RefCell<Planner> = RefCell::new(Planner::default());
    /// The newest request received; older ones still queued are answered "superseded".
    static NEWEST: Cell<u64> = const { Cell::new(0) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn now() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

fn post(kind: &str, request: u64, payload: JsValue) {
    let msg = js_sys::Array::of3(&kind.into(), &(request as f64).into(), &payload);
    let transfer = js_sys::Array::new();
    if let Some(b) = payload.dyn_ref::<js_sys::Uint8Array>() {
        transfer.push(&b.buffer());
    }
    if let Err(e) = scope().post_message_with_transfer(&msg, &transfer) {
        web_sys::console::error_2(&"hoist GPU worker: cannot post".into(), &e);
    }
}

fn crashed(message: &str) {
    post("crashed", 0, message.into());
}

async fn answer(job: GpuJob) {
    // Requests that queued up behind this one are read first: only the newest is planned.
    gloo::timers::future::TimeoutFuture::new(0).await;
    let reply: GpuReply = if NEWEST.with(Cell::get) != job.request {
        Err("superseded by a newer request".to_string())
    } else {
        PLANNER.with(|p| p.borrow_mut().answer(&job, &now))
    };
    match to_bytes(&reply) {
        Ok(b) => post(
            "reply",
            job.request,
            js_sys::Uint8Array::from(b.as_slice()).into(),
        ),
        Err(e) => crashed(&format!("a reply could not be encoded: {e}")),
    }
}

fn on_message(e: MessageEvent) {
    match decode_job(e.data()) {
        Ok(job) => {
            NEWEST.with(|n| n.set(job.request));
            wasm_bindgen_futures::spawn_local(answer(job));
        }
        Err(e) => crashed(&format!("a request could not be read: {e}")),
    }
}

/// Starts the GPU worker: panic hook, message handler, and its "ready".
pub fn start_worker() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("hoist GPU worker: {message}").into());
        crashed(&message);
    }));
    let handler = Closure::<dyn Fn(MessageEvent)>::new(on_message);
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
    post("ready", 0, JsValue::UNDEFINED);
}

//! The helper workers of shared renders, both ends (`crate::worker::bands`; wasm only).
//!
//! **The lead** (the page's worker) starts its helpers as nested workers ([`LOADER`], a
//! bundle of their own: the renderer and the scene's decoder, not the optimizer) after a
//! job that wanted them has finished
//! ([`spawn_wanted`]), so their download and compile never compete with a verdict. Each
//! says [`BandEvent::Ready`]; a render is shared with the ready ones only. Their bands
//! arrive on each helper's message handler and wait in an inbox until the lead's render
//! takes them between its steps. A helper that throws or dies is dropped (its bands are
//! the lead's); another is started after the next job that wants one.
//!
//! **A helper** runs the request's scene to its last draw and shades its range a few
//! bands per step, posting them after each step and yielding between steps, so a newer
//! run or a stop is seen at once.
//!
//! Messages are the worker's format (`crate::wire`): a postcard header, and each band's
//! rows beside it as two transferred `Float32Array`s (colour, depth), not serialized.

use super::thread::{now, scope, yield_now};
use super::{Packed, bytes, pack, unpack};
use crate::worker::bands::{self, BandEvent, BandRequest, Pool};
use crate::worker::engine;
use hoist_raster::Caps;
use hoist_raster::scene::split::{Chunk, Role};
use hoist_raster::scene::{RunOptions, Scene, SceneJob};
use js_sys::{Array, Float32Array, Uint8Array};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker, WorkerOptions};

/// A helper's loader, beside the worker's (`src/bin/hoist-band.rs`).
pub const LOADER: &str = "hoist-band-loader.js";

/// The name helpers are started with (the browser's tools show it).
pub const HELPER_NAME: &str = "hoist-band";

/// Milliseconds of shading a helper aims at between two posts.
const HELPER_STEP_MS: f64 = 6.0;

pub fn encode_event(mut e: BandEvent) -> Result<Packed, String> {
    let mut buffers: Vec<JsValue> = Vec::new();
    if let BandEvent::Chunks { chunks, .. } = &mut e {
        for c in chunks {
            buffers.push(Float32Array::from(c.color.as_flattened()).into());
            buffers.push(Float32Array::from(c.depth.as_slice()).into());
            c.color = Vec::new();
            c.depth = Vec::new();
        }
    }
    let header = Uint8Array::from(engine::pack(&e)?.as_slice()).into();
    Ok(pack(header, buffers))
}

pub fn decode_event(v: JsValue) -> Result<BandEvent, String> {
    let (header, buffers) = unpack(v)?;
    let mut e: BandEvent = engine::unpack(&bytes(&header)?)?;
    if let BandEvent::Chunks { chunks, .. } = &mut e {
        if buffers.len() != chunks.len() * 2 {
            return Err("bands and their rows do not match".into());
        }
        for (c, b) in chunks.iter_mut().zip(buffers.chunks(2)) {
            fn f(v: &JsValue) -> Result<&Float32Array, &'static str> {
                v.dyn_ref::<Float32Array>()
                    .ok_or("a band's rows are missing")
            }
            let color = f(&b[0])?;
            let n = color.length() as usize;
            if !n.is_multiple_of(4) {
                return Err("a band's colour rows are not RGBA".into());
            }
            // Straight into the pixels: one copy out of the message, not two.
            c.color = vec![[0.0; 4]; n / 4];
            color.copy_to(c.color.as_flattened_mut());
            c.depth = f(&b[1])?.to_vec();
        }
    }
    Ok(e)
}

fn post_to(w: &Worker, r: &BandRequest) {
    match engine::pack(r) {
        Ok(b) => {
            let msg = Array::of1(&Uint8Array::from(b.as_slice()).into());
            let _ = w.post_message(&msg);
        }
        Err(e) => web_sys::console::error_1(&format!("hoist: a band request: {e}").into()),
    }
}

struct Helper {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    dead: Rc<Cell<bool>>,
    /// Keeps the handlers alive as long as the worker.
    _handlers: [Closure<dyn Fn(JsValue)>; 2],
}

#[derive(Default)]
struct Lead {
    helpers: Vec<Helper>,
    /// Forced by the job's test switch; `None`: one per spare processor.
    forced: Option<u32>,
    /// A render wanted more helpers than are running.
    wanted: bool,
    run: u64,
    /// Helpers taking part in the run under way (indices into `helpers`).
    sharing: Vec<usize>,
    inbox: Rc<RefCell<Vec<(u64, Chunk)>>>,
}

thread_local! {
    static LEAD: RefCell<Lead> = RefCell::default();
    /// A helper's run under way (0: none).
    static HELPER_RUN: Cell<u64> = const { Cell::new(0) };
}

fn processors() -> u32 {
    js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
        .ok()
        .and_then(|n| js_sys::Reflect::get(&n, &"hardwareConcurrency".into()).ok())
        .and_then(|v| v.as_f64())
        .map_or(1, |v| v as u32)
}

impl Lead {
    /// The helpers to keep running: as many as the largest render would use.
    fn want(&self) -> u32 {
        bands::helpers_for(self.forced, processors(), u64::MAX)
    }

    fn spawn(&mut self) -> Result<(), String> {
        let url = js_sys::Reflect::get(&js_sys::global(), &"location".into())
            .and_then(|l| js_sys::Reflect::get(&l, &"href".into()))
            .ok()
            .and_then(|h| h.as_string())
            .ok_or("this worker has no location")?;
        let url = web_sys::Url::new_with_base(LOADER, &url)
            .map_err(|e| format!("a helper's address: {e:?}"))?
            .href();
        let opts = WorkerOptions::new();
        opts.set_name(HELPER_NAME);
        let worker = Worker::new_with_options(&url, &opts)
            .map_err(|e| format!("a helper could not start: {e:?}"))?;
        let (ready, dead) = (Rc::new(Cell::new(false)), Rc::new(Cell::new(false)));
        let inbox = self.inbox.clone();
        let (r, d) = (ready.clone(), dead.clone());
        let on_message = Closure::<dyn Fn(JsValue)>::new(move |e: JsValue| {
            let data = e.unchecked_into::<MessageEvent>().data();
            match decode_event(data) {
                Ok(BandEvent::Ready) => r.set(true),
                Ok(BandEvent::Chunks { run, chunks }) => {
                    inbox
                        .borrow_mut()
                        .extend(chunks.into_iter().map(|c| (run, c)));
                }
                Ok(BandEvent::Failed { run, message }) => {
                    web_sys::console::warn_1(&format!("hoist helper, run {run}: {message}").into());
                    if run == 0 {
                        d.set(true);
                    }
                }
                // The loader reports a failed start as a string.
                Err(message) => {
                    web_sys::console::warn_1(&format!("hoist helper: {message}").into());
                    d.set(true);
                }
            }
        });
        let d = dead.clone();
        let on_error = Closure::<dyn Fn(JsValue)>::new(move |_| d.set(true));
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        self.helpers.push(Helper {
            worker,
            ready,
            dead,
            _handlers: [on_message, on_error],
        });
        Ok(())
    }

    /// Drops dead helpers (none may be sharing a run then: called between runs).
    fn bury(&mut self) {
        self.helpers.retain(|h| {
            if h.dead.get() {
                h.worker.terminate();
            }
            !h.dead.get()
        });
    }
}

/// The lead's [`Pool`]: a handle on this thread's [`Lead`].
struct Browser;

impl Pool for Browser {
    fn begin(
        &mut self,
        scene: &Scene,
        caps: &Caps,
        images: &BTreeMap<String, Vec<u8>>,
    ) -> Option<(u64, u32)> {
        LEAD.with(|l| {
            let mut l = l.borrow_mut();
            let want = bands::helpers_for(l.forced, processors(), bands::work(scene)) as usize;
            if want == 0 {
                return None;
            }
            l.bury();
            if l.helpers.len() < want {
                l.wanted = true;
            }
            let sharing: Vec<usize> = (0..l.helpers.len())
                .filter(|&i| l.helpers[i].ready.get())
                .take(want)
                .collect();
            if sharing.is_empty() {
                return None;
            }
            l.run += 1;
            let (run, parts) = (l.run, sharing.len() as u32 + 1);
            let force = crate::worker::jit::forced();
            for (k, &i) in sharing.iter().enumerate() {
                let request = BandRequest::Run {
                    run,
                    part: k as u32 + 1,
                    parts,
                    scene: Box::new(scene.clone()),
                    caps: Box::new(caps.clone()),
                    images: images.clone(),
                    force,
                };
                post_to(&l.helpers[i].worker, &request);
            }
            l.sharing = sharing;
            l.inbox.borrow_mut().clear();
            Some((run, parts))
        })
    }

    fn take(&mut self, run: u64) -> Vec<Chunk> {
        LEAD.with(|l| {
            let l = l.borrow();
            let mut inbox = l.inbox.borrow_mut();
            inbox
                .drain(..)
                .filter(|(r, _)| *r == run)
                .map(|(_, c)| c)
                .collect()
        })
    }

    fn end(&mut self, run: u64) {
        LEAD.with(|l| {
            let mut l = l.borrow_mut();
            if l.run != run {
                return;
            }
            for &i in &l.sharing {
                if let Some(h) = l.helpers.get(i) {
                    post_to(&h.worker, &BandRequest::Stop { run });
                }
            }
            l.sharing.clear();
            l.inbox.borrow_mut().clear();
        });
    }
}

/// Installs the lead's pool on this (the page's worker's) thread.
pub fn install() {
    bands::install(Some(Box::new(Browser)));
}

/// The job's helper count (its test switch; `None`: automatic).
pub fn configure(forced: Option<u32>) {
    LEAD.with(|l| {
        let mut l = l.borrow_mut();
        if l.forced != forced {
            l.forced = forced;
            l.wanted = true;
        }
    });
}

/// Starts the helpers the last renders wanted (after a job, when the worker is idle), and
/// stops those a smaller forced count no longer uses.
pub fn spawn_wanted() {
    LEAD.with(|l| {
        let mut l = l.borrow_mut();
        if !std::mem::take(&mut l.wanted) {
            return;
        }
        l.bury();
        let want = l.want() as usize;
        while l.helpers.len() > want {
            if let Some(h) = l.helpers.pop() {
                h.worker.terminate();
            }
        }
        while l.helpers.len() < want {
            if let Err(e) = l.spawn() {
                web_sys::console::warn_1(&e.into());
                break;
            }
        }
    });
}

/// Helpers ready now (for the page's report).
pub fn ready() -> u32 {
    LEAD.with(|l| l.borrow().helpers.iter().filter(|h| h.ready.get()).count() as u32)
}

// ---- the helper's end ----

fn post_event(e: BandEvent) {
    match encode_event(e) {
        Ok(p) => {
            let _ = scope().post_message_with_transfer(&p.message, &p.transfer);
        }
        Err(e) => web_sys::console::error_1(&format!("hoist helper: {e}").into()),
    }
}

async fn helper_run(
    run: u64,
    part: u32,
    parts: u32,
    scene: Scene,
    opts: RunOptions,
    force: Option<crate::worker::executor::Force>,
) {
    // Requests that queued up are read first: only the newest runs.
    yield_now().await;
    if HELPER_RUN.get() != run {
        return;
    }
    crate::worker::jit::configure(force);
    let mut job = match SceneJob::new(scene, opts) {
        Ok(j) => j,
        Err(e) => {
            return post_event(BandEvent::Failed {
                run,
                message: e.to_string(),
            });
        }
    };
    job.split(Role::Helper { part, parts });
    let mut step = 1u32;
    while !job.progress().done {
        let t0 = now();
        job.step(step);
        let dt = now() - t0;
        if dt < HELPER_STEP_MS / 2.0 {
            step = (step * 2).min(4096);
        } else if dt > HELPER_STEP_MS * 2.0 {
            step = (step / 2).max(1);
        }
        let chunks = job.take_chunks();
        if !chunks.is_empty() {
            post_event(BandEvent::Chunks { run, chunks });
        }
        yield_now().await;
        if HELPER_RUN.get() != run {
            return;
        }
    }
}

fn on_request(e: MessageEvent) {
    let request = unpack(e.data())
        .and_then(|(h, _)| bytes(&h))
        .and_then(|b| engine::unpack::<BandRequest>(&b));
    match request {
        Ok(BandRequest::Run {
            run,
            part,
            parts,
            scene,
            caps,
            images,
            force,
        }) => {
            HELPER_RUN.set(run);
            let opts = RunOptions {
                caps: *caps,
                images,
                tolerance: None,
            };
            wasm_bindgen_futures::spawn_local(helper_run(run, part, parts, *scene, opts, force));
        }
        Ok(BandRequest::Stop { run }) => {
            if HELPER_RUN.get() == run {
                HELPER_RUN.set(0);
            }
        }
        Err(message) => post_event(BandEvent::Failed { run: 0, message }),
    }
}

/// Starts this worker as a helper: panic hook, request handler, [`BandEvent::Ready`].
pub fn start_helper() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("hoist helper: {message}").into());
        post_event(BandEvent::Failed { run: 0, message });
    }));
    let handler = Closure::<dyn Fn(MessageEvent)>::new(on_request);
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
    crate::worker::jit::install(now);
    post_event(BandEvent::Ready);
}

//! How [`Request`]s and [`Event`]s cross between the page and its worker: the messages
//! here, the page's end in [`bridge`], the worker's in [`worker`] (wasm only); source
//! mode's compiler, a worker of its own loaded on first use, in [`front`]; the GPU view's
//! worker, both ends, in [`gpu`].
//!
//! A message is a JavaScript array `[header, ...buffers]` of byte and float arrays whose
//! buffers are transferred, not copied: the header is the request or the event in postcard
//! ([`crate::worker::engine::pack`]: fields in order, no names, so each side decodes with far
//! less code than CBOR's maps; the request is written with every document field,
//! [`crate::doc::with_every_field`]), one buffer
//! instead of a graph of JavaScript objects to clone and walk, and bulk data travels beside
//! it as is: the user's pictures (PNG bytes)
//! of a job, the two float images, the heat map and the canvas pixels of a render. Decoding never panics:
//! anything malformed is an `Err` with a message.

pub mod bands;
pub mod bridge;
pub mod front;
pub mod gpu;
pub mod thread;
pub mod worker;

use crate::worker::engine::{Event, Request, to_bytes};
use crate::worker::render::{Rendered, RunResult};
use hoist_raster::image::Image;
use js_sys::{Array, Float32Array, Uint8Array};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

/// A message and the buffers to transfer with it.
pub struct Packed {
    pub message: JsValue,
    pub transfer: Array,
}

fn header<T: serde::Serialize>(v: &T) -> Result<JsValue, String> {
    Ok(Uint8Array::from(to_bytes(v)?.as_slice()).into())
}

fn pack(header: JsValue, buffers: Vec<JsValue>) -> Packed {
    let message = Array::new();
    let transfer = Array::new();
    for b in std::iter::once(header).chain(buffers) {
        if let Some(t) = b.dyn_ref::<Uint8Array>() {
            transfer.push(&t.buffer());
        } else if let Some(t) = b.dyn_ref::<Float32Array>() {
            transfer.push(&t.buffer());
        }
        message.push(&b);
    }
    Packed {
        message: message.into(),
        transfer,
    }
}

/// The header and the buffers of a message.
fn unpack(v: JsValue) -> Result<(JsValue, Vec<JsValue>), String> {
    let a: Array = v
        .dyn_into()
        .map_err(|_| "a message that is not an array".to_string())?;
    if a.length() == 0 {
        return Err("an empty message".into());
    }
    Ok((a.get(0), (1..a.length()).map(|i| a.get(i)).collect()))
}

fn bytes(v: &JsValue) -> Result<Vec<u8>, String> {
    v.dyn_ref::<Uint8Array>()
        .map(Uint8Array::to_vec)
        .ok_or_else(|| "a byte buffer is missing".to_string())
}

/// The id of a job's event without decoding it, to drop a superseded job's results unread
/// (`None`: not a job's event, or unreadable).
pub fn event_id(v: &JsValue) -> Option<u64> {
    let (header, _) = unpack(v.clone()).ok()?;
    crate::worker::engine::event_id(&bytes(&header).ok()?)
}

pub fn encode_request(r: &Request) -> Result<Packed, String> {
    let images: Vec<(u8, Rc<Vec<u8>>)> = match r {
        Request::Run(job) => job.images.iter().map(|(u, b)| (*u, b.clone())).collect(),
        Request::Cancel | Request::Trace { .. } | Request::LinearTrace { .. } => Vec::new(),
    };
    let units: Vec<u8> = images.iter().map(|(u, _)| *u).collect();
    let buffers = images
        .iter()
        .map(|(_, b)| Uint8Array::from(b.as_slice()).into())
        .collect();
    // Positional, as events are: the worker decodes it with far less code than CBOR's maps.
    let bytes = crate::doc::with_every_field(|| crate::worker::engine::pack(&(r, units)))?;
    Ok(pack(Uint8Array::from(bytes.as_slice()).into(), buffers))
}

pub fn decode_request(v: JsValue) -> Result<Request, String> {
    let (header, buffers) = unpack(v)?;
    let (mut r, units): (Request, Vec<u8>) = crate::worker::engine::unpack(&bytes(&header)?)?;
    if units.len() != buffers.len() {
        return Err("pictures and their units do not match".into());
    }
    if let Request::Run(job) = &mut r {
        let mut images = BTreeMap::new();
        for (u, b) in units.into_iter().zip(&buffers) {
            images.insert(u, Rc::new(bytes(b)?));
        }
        job.images = images;
    }
    Ok(r)
}

fn image_of(r: &mut Option<RunResult>) -> Option<&mut Image> {
    r.as_mut()?.as_mut().ok().map(|run| &mut run.image)
}

/// The images of a render, in transport order: original, optimized.
fn images_of(r: &mut Rendered) -> [Option<&mut Image>; 2] {
    let original = r.original.as_mut().ok().map(|run| &mut run.image);
    [original, image_of(&mut r.optimized)]
}

pub fn encode_event(mut e: Event) -> Result<Packed, String> {
    let mut buffers: Vec<JsValue> = Vec::new();
    if let Event::Rendered { rendered, .. } = &mut e {
        for img in images_of(rendered).into_iter().flatten() {
            buffers.push(Float32Array::from(img.pixels.as_flattened()).into());
            img.pixels = Vec::new();
        }
        let d = &mut rendered.display;
        for px in [&mut rendered.heat, &mut d.original, &mut d.optimized] {
            buffers.push(Uint8Array::from(px.as_slice()).into());
            *px = Vec::new();
        }
    }
    let header: JsValue = Uint8Array::from(crate::worker::engine::pack(&e)?.as_slice()).into();
    Ok(pack(header, buffers))
}

pub fn decode_event(v: JsValue) -> Result<Event, String> {
    let (header, buffers) = unpack(v)?;
    let mut e: Event = crate::worker::engine::unpack(&bytes(&header)?)?;
    if let Event::Rendered { rendered, .. } = &mut e {
        let mut next = buffers.iter();
        for img in images_of(rendered).into_iter().flatten() {
            let f = next
                .next()
                .and_then(|b| b.dyn_ref::<Float32Array>())
                .ok_or("an image is missing")?;
            let n = img.width as usize * img.height as usize;
            if f.length() as usize != n * 4 {
                return Err("an image has the wrong size".into());
            }
            let mut px = vec![[0.0f32; 4]; n];
            f.copy_to(px.as_flattened_mut());
            img.pixels = px;
        }
        rendered.heat = bytes(next.next().ok_or("the heat map is missing")?)?;
        let d = &mut rendered.display;
        for px in [&mut d.original, &mut d.optimized] {
            *px = bytes(next.next().ok_or("canvas pixels are missing")?)?;
        }
    }
    Ok(e)
}

//! The document layer: what a playground document is and what it holds, on the core crates
//! only. [`model`] is the document ([`Doc`], re-exported here) and its invariants; [`codec`]
//! its permalinks; [`examples`] the gallery; [`cost`] the cost-model choice; [`limits`] the
//! sizes a link or a file may bring in; [`handedit`] a hand edit's fingerprint;
//! [`scene_rules`] the playground's caps and what a scene's commands mean to the document;
//! [`scene_size`] the scene text at the document's size (what render, Scene panel and Export read);
//! [`linear_doc`] and [`linear_programs`] the linear mode's part; [`source`] source mode's
//! (WGSL or GLSL in, compiled by the front worker); [`numbers`] input validation. Nothing here knows the worker or the page.

pub mod codec;
pub mod cost;
pub mod examples;
pub mod handedit;
pub mod limits;
pub mod linear_doc;
pub mod linear_programs;
pub mod model;
pub mod numbers;
pub mod scene_rules;
pub mod scene_size;
pub mod source;

pub use model::*;

use std::cell::Cell;

thread_local! {
    static POSITIONAL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a serialization) with every field of the document written, even those at
/// their defaults: the worker's messages are positional (postcard, no field names), where a
/// field left out would shift the ones after it. Links and files leave defaults out.
pub fn with_every_field<R>(f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            POSITIONAL.set(false);
        }
    }
    POSITIONAL.set(true);
    let _reset = Reset;
    f()
}

/// `skip_serializing_if` of a document field: leave it out at its default (a link or file
/// that lacks it reads back the default), except inside [`with_every_field`].
pub fn at_default<T: Default + PartialEq>(v: &T) -> bool {
    !POSITIONAL.get() && *v == T::default()
}

/// [`at_default`] of an optional field.
pub fn none<T>(v: &Option<T>) -> bool {
    !POSITIONAL.get() && v.is_none()
}

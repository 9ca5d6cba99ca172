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

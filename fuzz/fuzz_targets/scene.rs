//! Scene files (piglit shader_runner plus Hoist's extensions) parsed and run under small
//! caps: bad input is an error, never a panic or an endless run.
//! The body is `hoist_verify::fuzz::scene`, which `crates/verify/tests/fuzz.rs` also runs on
//! `fuzz/regressions/scene/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_verify::fuzz::scene(data));

//! The pixel trace on whatever the front ends accept: a program pair (split at the first `@@`
//! line) rendered at most 12×12, one pixel traced (the control byte picks the size and the
//! pixel); the trace must end with the rendered value bit for bit and round-trip through
//! serde. The body is `hoist_verify::fuzz::trace`, which `crates/verify/tests/fuzz.rs` also
//! runs on `fuzz/regressions/trace/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_verify::fuzz::trace(data));

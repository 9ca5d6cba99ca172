//! The executor on whatever the front ends accept: a program pair (split at the first `@@`
//! line) rendered at a size of at most 16×16 with textures on the units it samples, and
//! probed per vertex and per fragment. Programs with loops run under the instruction
//! budget, so nothing can hang.
//! The body is `hoist_verify::fuzz::execute`, which `crates/verify/tests/fuzz.rs` also runs on
//! `fuzz/regressions/execute/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_verify::fuzz::execute(data));

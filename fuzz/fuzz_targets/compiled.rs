//! Compiled kernels against the interpreter on whatever the front ends accept: a program
//! pair (split at the first `@@` line) run both ways, kernel by kernel and rendered 8×8,
//! under textures drawn from the control byte; any bit difference is a crash.
//! The body is `hoist_verify::fuzz::compiled`, which `crates/verify/tests/fuzz.rs` also runs
//! on `fuzz/regressions/compiled/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_verify::fuzz::compiled(data));

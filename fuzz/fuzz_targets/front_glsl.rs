//! Fuzzes the GLSL front end (`hoist_front::fuzz::glsl`: vertex and fragment text split at
//! the first NUL); `crates/front/tests/fuzz.rs` replays `fuzz/regressions/front_glsl/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_front::fuzz::glsl(data));

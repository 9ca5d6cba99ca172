//! Fuzzes the WGSL front end (`hoist_front::fuzz::wgsl`): parse, validate, lower for both
//! dialects, check the text parses back; `crates/front/tests/fuzz.rs` replays
//! `fuzz/regressions/front_wgsl/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_front::fuzz::wgsl(data));

//! The optimizer's entry point as the page and the command line use it: a control byte
//! choosing options, then two programs split at the first `@@` line), parsed, optimized,
//! validated, printed and parsed back. Any panic is a bug; so is a printed program that does
//! not parse back to itself.
//! The body is `hoist_verify::fuzz::optimize`, which `crates/verify/tests/fuzz.rs` also runs on
//! `fuzz/regressions/optimize/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_verify::fuzz::optimize(data));

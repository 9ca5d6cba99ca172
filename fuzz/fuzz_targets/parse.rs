//! Fuzzes `hoist_asm::parse` with the profile detected and forced to every profile; any
//! program that parses must print and parse back to an equal program.
//! The body is `hoist_verify::fuzz::parse`, which `crates/verify/tests/fuzz.rs` also runs on
//! `fuzz/regressions/parse/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_verify::fuzz::parse(data));

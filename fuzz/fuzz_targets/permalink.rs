//! Permalinks are untrusted input: any fragment decodes to a document or an error, and a
//! decoded document encodes and decodes back to itself. The body is
//! `hoist_web::doc::codec::check_round_trip`, which `web/tests/permalink.rs` also runs on
//! `fuzz/regressions/permalink/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hoist_web::doc::codec::check_round_trip(data));

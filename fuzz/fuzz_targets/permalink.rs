//! Permalinks are untrusted input: any fragment decodes to a document or an error, and a
//! decoded document encodes and decodes back to itself.
#![no_main]

use hoist_web::codec::{Link, decode, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(Link::State(doc)) = decode(&text) {
        let again = decode(&encode(&doc)).expect("a re-encoded document decodes");
        assert_eq!(again, Link::State(doc), "the round trip changed the document");
    }
});

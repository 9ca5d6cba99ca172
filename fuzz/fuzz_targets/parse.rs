//! Fuzzes `hoist_asm::parse` with the profile detected and forced to every profile; any
//! program that parses must print and parse back to an equal program.
#![no_main]

use hoist_asm::{ParseOptions, Profile, parse, print};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let forced = Profile::ALL.into_iter().map(Some);
    for profile in std::iter::once(None).chain(forced) {
        let parsed = parse(
            &src,
            &ParseOptions {
                profile,
                limits: None,
            },
        );
        let Some(p) = parsed.program else { continue };
        let text = print(&p);
        let again = parse(
            &text,
            &ParseOptions {
                profile: Some(p.profile),
                limits: None,
            },
        );
        let q = again
            .program
            .unwrap_or_else(|| panic!("printed program rejected:\n{text}"));
        assert!(
            q.eq_ignoring_spans(&p),
            "round trip changed the program:\n{text}"
        );
    }
});

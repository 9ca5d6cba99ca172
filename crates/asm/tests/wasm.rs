//! The language crate inside WebAssembly (run by `cargo test --target wasm32-unknown-unknown`
//! in Node): the example programs parse, print and parse back to the same IR, and broken
//! input yields diagnostics, exactly as natively.
#![cfg(target_arch = "wasm32")]

use hoist_asm::ParseOptions;
use wasm_bindgen_test::wasm_bindgen_test;

const PROGRAMS: [&str; 6] = [
    include_str!("../../../examples/paper/fig3.vsh"),
    include_str!("../../../examples/paper/fig3.psh"),
    include_str!("../../../examples/paper/gauss13.vsh"),
    include_str!("../../../examples/paper/gauss13.psh"),
    include_str!("../../../examples/paper/gauss13.vp"),
    include_str!("../../../examples/paper/gauss13.fp"),
];

#[wasm_bindgen_test]
fn examples_round_trip() {
    for text in PROGRAMS {
        let p = hoist_asm::parse(text, &ParseOptions::default())
            .into_result()
            .expect("parses");
        let again = hoist_asm::parse(&hoist_asm::print(&p), &ParseOptions::default())
            .into_result()
            .expect("reparses");
        assert!(again.eq_ignoring_spans(&p));
    }
}

#[wasm_bindgen_test]
fn errors_are_diagnostics() {
    let parsed = hoist_asm::parse("ps_2_0\nmov r0, t9\nfoo\n", &ParseOptions::default());
    assert!(parsed.program.is_none());
    assert!(parsed.diagnostics.len() >= 2, "{:?}", parsed.diagnostics);
    let text = hoist_asm::diag::render(
        &parsed.diagnostics,
        "x.psh",
        "ps_2_0\nmov r0, t9\nfoo\n",
        false,
    );
    assert!(text.contains("x.psh:2"), "{text}");
}

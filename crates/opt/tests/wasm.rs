//! The optimizer inside WebAssembly (Node): the paper's Figure 3 becomes Figure 5 there too,
//! with the same numbers as natively.
#![cfg(target_arch = "wasm32")]

use hoist_asm::ParseOptions;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn figure_3_becomes_figure_5() {
    let parse = |t: &str| {
        hoist_asm::parse(t, &ParseOptions::default())
            .into_result()
            .expect("parses")
    };
    let vp = parse(include_str!("../../../examples/paper/fig3.vsh"));
    let fp = parse(include_str!("../../../examples/paper/fig3.psh"));
    let out = hoist_opt::optimize(&vp, &fp, &hoist_opt::Options::default()).expect("optimizes");
    assert_eq!(
        (out.before.fp_slots.total(), out.after.fp_slots.total()),
        (16, 7)
    );
    assert!(out.after.vp_slots.total() <= 14);
    assert!(out.rules.iter().all(|r| r.fp_slots == 7));
}

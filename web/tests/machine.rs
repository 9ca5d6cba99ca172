//! The Machine panel's model (`hoist_web::machine`): every gallery example's pair, original
//! and optimized, on the R600 model — figures in range, listings with slot letters, and the
//! code motion never adding fragment ALU groups or fetches on the machine for the paper's
//! examples it improves.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Program};
use hoist_web::examples::{EXAMPLES, split_scene};
use hoist_web::machine;

fn parse(text: &str) -> Option<Program> {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .ok()
}

#[test]
fn every_example_has_a_machine_view() {
    let mut improved = 0;
    for ex in EXAMPLES {
        let Some(s) = split_scene(ex.scene) else {
            continue;
        };
        let (Some(vp), Some(fp)) = (parse(&s.vp), parse(&s.fp)) else {
            continue;
        };
        let out = hoist_opt::optimize(&vp, &fp, &hoist_opt::Options::default()).unwrap();
        let v = machine::view(Some((&vp, &fp)), &out.vp, &out.fp);
        let r = v.report();
        let before = r.fp_before.as_ref().unwrap();
        for s in [
            before,
            &r.fp_after,
            r.vp_before.as_ref().unwrap(),
            &r.vp_after,
        ] {
            assert!((0.0..=1.0).contains(&s.slot_utilization), "{}", ex.id);
            assert!((0.0..=1.0).contains(&s.fetch_utilization), "{}", ex.id);
        }
        assert!(
            v.fp_after.listing.contains(": "),
            "{}: listing without slots",
            ex.id
        );
        assert_eq!(
            r.fp_after.fetches, before.fetches,
            "{}: motion never moves fetches",
            ex.id
        );
        if r.fp_after.alu_groups < before.alu_groups {
            improved += 1;
        }
    }
    assert!(
        improved >= 5,
        "only {improved} examples lose fragment ALU groups"
    );
}

//! The Machine panel's model (`hoist_web::worker::machine`): every gallery example's pair, original
//! and optimized, on the R600 model — figures in range, listings with slot letters, and the
//! code motion never adding fragment ALU groups or fetches on the machine for the paper's
//! examples it improves; under the page's R600 and R700 cost choices, the selection never
//! ends above the price of the original pair and the view shows the model's chip.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Program};
use hoist_web::doc::examples::{EXAMPLES, split_scene};
use hoist_web::worker::machine;

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
        let opts = hoist_opt::Options::default();
        let out = hoist_opt::optimize(&vp, &fp, &opts).unwrap();
        let v = machine::view(Some((&vp, &fp)), &out.vp, &out.fp, &opts.cost);
        assert_eq!(v.priced, None, "{}: priced under the paper's model", ex.id);
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

/// The cost choice of the Options panel reaches the optimizer: under r600 and r700 every
/// example's selection is priced by the machine model no higher than the original pair,
/// on the chosen chip, and at least one example moves work for a lower price.
#[test]
fn machine_cost_choices_price_the_selection() {
    use hoist_web::doc::Doc;
    use hoist_web::doc::cost::CostChoice;
    let mut cheaper = 0;
    for choice in [CostChoice::R600, CostChoice::R700] {
        for ex in EXAMPLES {
            let Some(s) = split_scene(ex.scene) else {
                continue;
            };
            let (Some(vp), Some(fp)) = (parse(&s.vp), parse(&s.fp)) else {
                continue;
            };
            let mut doc = Doc::default();
            doc.opts.cost = choice;
            let frags = f64::from(doc.inputs.width * doc.inputs.height);
            let opts = doc.opts.to_options(vp.profile, fp.profile, 4.0, frags);
            assert_eq!(hoist_web::worker::analysis::cost_model(&doc), opts.cost);
            assert!(
                matches!(opts.cost, hoist_opt::CostModel::R600 { chip, .. } if Some(chip) == choice.chip())
            );
            let out = hoist_opt::optimize(&vp, &fp, &opts).unwrap();
            let v = machine::view(Some((&vp, &fp)), &out.vp, &out.fp, &opts.cost);
            assert_eq!(Some(v.chip), choice.chip(), "{}", ex.id);
            let p = v.priced.expect("priced under the machine model");
            let before = p.before.unwrap();
            assert!(
                p.after <= before,
                "{} on {:?}: {} > {before}",
                ex.id,
                choice,
                p.after
            );
            if p.after < before {
                cheaper += 1;
            }
        }
    }
    assert!(cheaper > 0, "the machine model never preferred a motion");
}

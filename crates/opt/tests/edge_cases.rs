//! Inputs the optimizer must handle without an error or a panic: flow control, nothing to
//! move, programs at their limits.

mod common;

use common::*;
use hoist_opt::{Fate, Options};

#[test]
fn flow_control_means_nothing_moves_with_a_reason() {
    let vp = parse(
        "vs_3_0\ndefi i0, 3, 0, 0, 0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\n\
         dcl_texcoord o1\nmov r0, v1\nrep i0\nadd r0, r0, v1\nendrep\nmov o0, v0\nmov o1, r0\n",
    );
    let fp = parse(
        "ps_3_0\ndcl_texcoord v0\ndcl_2d s0\nadd r0, v0, v0\ntexld r1, r0, s0\nmov oC0, r1\n",
    );
    for opts in [
        Options::default(),
        Options {
            mirror_params: true,
            steps: Some(2),
            ..Options::default()
        },
    ] {
        let out =
            hoist_opt::optimize(&vp, &fp, &opts).expect("a pair with flow control is not an error");
        assert_eq!(out.after.fp_slots.total(), out.before.fp_slots.total());
        assert!(
            out.fates
                .iter()
                .all(|f| matches!(f, Fate::Stays { reason } if reason.condition() == "flow")),
            "{:?}",
            out.fates
        );
        check_output(&out);
    }
}

#[test]
fn nothing_movable_returns_the_pair_unchanged() {
    let vp = parse(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
    );
    let fp = parse(
        "!!ARBfp1.0\nTEMP t;\nTEX t, fragment.texcoord[0], texture[0], 2D;\nMUL result.color, t, t;\nEND\n",
    );
    let out = hoist_opt::optimize(&vp, &fp, &Options::default()).expect("optimizes");
    assert_eq!(hoist_asm::print(&out.fp), hoist_asm::print(&fp));
    assert_eq!(hoist_asm::print(&out.vp), hoist_asm::print(&vp));
    assert!(out.groups.is_empty());
}

#[test]
fn mismatched_dialects_and_stages_are_errors_not_panics() {
    let vp = parse("!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n");
    let fp = parse("ps_2_0\nmov oC0, c0\n");
    assert!(hoist_opt::optimize(&vp, &fp, &Options::default()).is_err());
    assert!(hoist_opt::optimize(&vp, &vp, &Options::default()).is_err());
}

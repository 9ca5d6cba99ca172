//! Inputs the optimizer must handle without an error or a panic: flow control, nothing to
//! move, programs at their limits.
#![cfg(not(target_arch = "wasm32"))]

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

/// Ops the vertex profile lacks move as emulations when their operands allow motion, and
/// the result renders the same.
#[test]
fn fragment_only_ops_are_lowered_into_the_vertex_program() {
    use hoist_opt::{AddedFor, Prov};
    let cases = [
        (
            "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
            "!!ARBfp1.0\nTEMP a, b, t;\n\
             LRP a, {0.25, 0.5, 0.75, 1}, fragment.texcoord[0], {0.1, 0.2, 0.3, 0.4};\n\
             CMP b, {-1, 1, -1, 1}, fragment.texcoord[0].yxyx, a;\n\
             TEX t, a, texture[0], 2D;\nTEX a, b, texture[1], 2D;\nADD result.color, t, a;\nEND\n",
        ),
        (
            "vs_1_1\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n",
            "ps_2_0\ndef c0, 0.25, 0.5, 0.75, 1\ndef c1, 0.1, 0.2, 0.3, 0.4\ndef c2, -1, 1, -1, 1\n\
             dcl t0\ndcl_2d s0\ndcl_2d s1\n\
             lrp r0, c0, t0, c1\ndp2add r1.x, t0, c0, c1.x\nmov r1.y, t0.x\ncmp r2, c2, t0, r0\n\
             texld r3, r0, s0\ntexld r4, r1, s1\ntexld r5, r2, s0\nadd r3, r3, r4\nadd r3, r3, r5\nmov oC0, r3\n",
        ),
    ];
    for (vps, fps) in cases {
        let (vp, fp) = (parse(vps), parse(fps));
        let (out, verdict, range) = prove(&vp, &fp, &Options::default(), smooth_config(32));
        let lowered = out
            .vp_lines
            .iter()
            .filter(|l| {
                matches!(
                    l.prov,
                    Prov::Added {
                        why: AddedFor::Lowering,
                        ..
                    }
                )
            })
            .count();
        assert!(lowered > 0, "no lowering in\n{}", hoist_asm::print(&out.vp));
        for op in [
            hoist_asm::Op::Lrp,
            hoist_asm::Op::Cmp,
            hoist_asm::Op::CmpGe,
            hoist_asm::Op::Dp2add,
        ] {
            assert!(
                !out.vp.insts.iter().any(|i| i.op == op),
                "{op:?} left in the vertex program"
            );
        }
        assert!(out.after.fp_slots.total() < out.before.fp_slots.total());
        assert!(
            verdict.max_abs_diff() <= 1e-6 * range.max(1.0),
            "{verdict:?}"
        );
    }
}

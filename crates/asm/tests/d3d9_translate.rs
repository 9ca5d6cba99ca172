//! D3D9 <-> ARB translation over the paper's programs, the D3D9 test programs and two ARB
//! programs that use every ARB instruction the targets can express.

use hoist_asm::ir::{ConstBinding, Program, RegFile, WriteMask};
use hoist_asm::translate::{to_arb, to_d3d9};
use hoist_asm::{Op, ParseOptions, Profile, parse, print, validate};

fn load(name: &str) -> Program {
    let path = format!("{}/tests/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    let r = parse(&src, &ParseOptions::default());
    let msgs: Vec<String> = r
        .errors()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    r.program.unwrap_or_else(|| panic!("{name}: {msgs:#?}"))
}

/// Printing in its own dialect and parsing back gives the same program, and it validates.
fn round_trips(p: &Program, what: &str) {
    let diags = validate::check(p, &p.profile.limits());
    assert!(diags.iter().all(|d| !d.is_error()), "{what}: {diags:#?}");
    let text = print(p);
    let r = parse(
        &text,
        &ParseOptions {
            profile: Some(p.profile),
            limits: None,
        },
    );
    let msgs: Vec<String> = r
        .errors()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    let q = r
        .program
        .unwrap_or_else(|| panic!("{what}:\n{text}\n{msgs:#?}"));
    assert!(
        p.eq_ignoring_spans(&q),
        "{what}: round trip differs\n{text}"
    );
}

#[test]
fn paper_programs_translate_to_arb_and_back() {
    for name in [
        "d3d9/fig3a.vsh",
        "d3d9/fig3b.psh",
        "d3d9/fig5a.vsh",
        "d3d9/fig5b.psh",
    ] {
        let p = load(name);
        let a = to_arb(&p).unwrap_or_else(|e| panic!("{name}: {e:#?}"));
        assert_eq!(a.stage(), p.stage());
        round_trips(&a, &format!("{name} as ARB"));
        let back = to_d3d9(&a, p.profile).unwrap_or_else(|e| {
            let why: Vec<_> = e.iter().map(|d| &d.message).collect();
            panic!("{name} back: {why:#?}")
        });
        round_trips(&back, &format!("{name} back to D3D9"));
    }
}

#[test]
fn figure_3b_maps_operands_as_documented() {
    let p = load("d3d9/fig3b.psh");
    let a = to_arb(&p).unwrap();
    assert_eq!(a.profile, Profile::ArbFp1);
    // c# keep their slots as program.env[#].
    assert_eq!(a.consts[3].binding, ConstBinding::Env(3));
    // Same instruction count: every Figure 3(b) instruction has a one-to-one ARB form.
    assert_eq!(a.insts.len(), p.insts.len());
    let tex: Vec<_> = a.insts.iter().filter(|i| i.op == Op::Tex).collect();
    assert_eq!(tex.len(), 3);
    assert!(tex.iter().all(|i| i.tex.unwrap().unit == 0));
    let text = print(&a);
    assert!(text.contains("TEX"), "{text}");
    assert!(text.contains("fragment.texcoord[0]"), "{text}");
    assert!(text.contains("result.color"), "{text}");
}

#[test]
fn every_translatable_test_program_goes_to_arb_and_back() {
    for name in ["d3d9/all_vs_1_1.vsh", "d3d9/all_ps_2_0.psh"] {
        let p = load(name);
        let a = to_arb(&p).unwrap_or_else(|e| panic!("{name}: {e:#?}"));
        round_trips(&a, &format!("{name} as ARB"));
        let back = to_d3d9(&a, p.profile).unwrap_or_else(|e| {
            let why: Vec<_> = e.iter().map(|d| &d.message).collect();
            panic!("{name} back: {why:#?}")
        });
        round_trips(&back, &format!("{name} back to D3D9"));
    }
}

#[test]
fn untranslatable_constructs_are_named() {
    for (name, needle) in [
        ("d3d9/all_vs_2_0.vsh", "flow control"),
        ("d3d9/all_vs_2_x.vsh", "predicat"),
        ("d3d9/all_vs_3_0.vsh", "texldl"),
        ("d3d9/all_ps_2_x.psh", "texldd"),
        ("d3d9/all_ps_3_0.psh", "vPos"),
    ] {
        let errs = to_arb(&load(name)).expect_err(name);
        assert!(errs.iter().all(|d| d.code == "E2401"), "{name}: {errs:#?}");
        assert!(
            errs.iter().any(|d| d.message.contains(needle)),
            "{name}: no error mentions {needle}: {errs:#?}"
        );
    }
}

#[test]
fn macros_and_cmp_expand_as_documented() {
    let src = "vs_2_0\ndcl_position v0\nm4x4 oPos, v0, c4\nmova a0.x, v0.y\nmov oT0, c[a0.x + 2]\n";
    let p = parse(src, &ParseOptions::default()).into_result().unwrap();
    let a = to_arb(&p).unwrap();
    let dp4: Vec<_> = a.insts.iter().filter(|i| i.op == Op::Dp4).collect();
    assert_eq!(dp4.len(), 4);
    for (k, i) in dp4.iter().enumerate() {
        assert_eq!(i.dst.as_ref().unwrap().mask, WriteMask::single(k as u8));
        assert_eq!(i.src[1].reg.index, 4 + k as u16);
    }
    // mova rounds to nearest: ADD 0.5 then ARL (floor).
    let arl = a.insts.iter().position(|i| i.op == Op::Arl).unwrap();
    assert_eq!(a.insts[arl - 1].op, Op::Add);
    assert_eq!(a.literal(a.insts[arl - 1].src[1].reg.index), Some([0.5; 4]));
    let rel = &a.insts.last().unwrap().src[0];
    let rel = rel.rel.unwrap();
    assert_eq!(
        rel.offset as u16 + a.insts.last().unwrap().src[0].reg.index,
        2
    );
    round_trips(&a, "m4x4/mova as ARB");

    let src = "ps_2_0\ndcl t0\ncmp r0, t0, c0, c1\ntexkill t0\nmov oDepth, r0.y\nmov oC0, r0\n";
    let p = parse(src, &ParseOptions::default()).into_result().unwrap();
    let a = to_arb(&p).unwrap();
    let cmp = &a.insts[0];
    assert_eq!(cmp.op, Op::Cmp);
    assert_eq!(
        (cmp.src[1].reg.index, cmp.src[2].reg.index),
        (1, 0),
        "operands swapped"
    );
    let kil = &a.insts[1];
    assert_eq!(kil.op, Op::Kil);
    assert_eq!(kil.src[0].swizzle.comps(), [0, 1, 2, 2]);
    let depth = a.insts[2].dst.as_ref().unwrap();
    assert_eq!(
        (depth.reg.file, depth.mask),
        (RegFile::DepthOut, WriteMask::Z)
    );
    assert_eq!(
        a.insts[2].src[0].swizzle.get(2),
        1,
        "lane z reads what lane x read"
    );
    round_trips(&a, "cmp/texkill/oDepth as ARB");
}

#[test]
fn arb_programs_translate_to_every_d3d9_target() {
    let vp = load("d3d9_arb/ops.vp");
    for target in [Profile::Vs1_1, Profile::Vs2_0, Profile::Vs2_x] {
        let d = to_d3d9(&vp, target).unwrap_or_else(|e| panic!("{target}: {e:#?}"));
        round_trips(&d, &format!("ops.vp as {target}"));
        let again = to_arb(&d).unwrap_or_else(|e| panic!("{target} to ARB: {e:#?}"));
        round_trips(&again, &format!("ops.vp via {target}"));
    }
    let fp = load("d3d9_arb/ops.fp");
    for target in [Profile::Ps2_0, Profile::Ps2_x] {
        let d = to_d3d9(&fp, target).unwrap_or_else(|e| panic!("{target}: {e:#?}"));
        round_trips(&d, &format!("ops.fp as {target}"));
        let again = to_arb(&d).unwrap_or_else(|e| panic!("{target} to ARB: {e:#?}"));
        round_trips(&again, &format!("ops.fp via {target}"));
    }
    let e = to_d3d9(&fp, Profile::Vs2_0).expect_err("stage mismatch");
    assert_eq!(e[0].code, "E2401");
    let e = to_d3d9(&vp, Profile::Vs3_0).expect_err("3_0 target");
    assert!(e[0].message.contains("vs_3_0"));
}

#[test]
fn arb_state_and_local_parameters_are_refused() {
    let src = "!!ARBvp1.0\nPARAM m[4] = { state.matrix.mvp };\nMOV result.position, program.local[0];\nDP4 result.color.x, m[0], vertex.position;\nEND\n";
    let p = parse(src, &ParseOptions::default()).into_result().unwrap();
    let errs = to_d3d9(&p, Profile::Vs2_0).expect_err("state");
    assert!(
        errs.iter().any(|d| d.message.contains("program.local")),
        "{errs:#?}"
    );
    assert!(
        errs.iter().any(|d| d.message.contains("state")),
        "{errs:#?}"
    );
}

/// `expp` after vs_1_1 and every `logp` replicate one value (the "expp - vs" and "logp - vs"
/// pages), so they become EX2/LG2; ARB's four-part EXP/LOG has a D3D9 form only for a
/// z-only write, or as vs_1_1 `expp`. `nrm` of a zero vector stays zero through MAX.
#[test]
fn partial_exponentials_and_normalize_keep_their_d3d9_meaning() {
    let ops = |src: &str| -> Vec<Op> {
        let p = parse(src, &ParseOptions::default()).into_result().unwrap();
        to_arb(&p).unwrap().insts.iter().map(|i| i.op).collect()
    };
    let body = "dcl_position v0\nexpp r0, v0.x\nlogp r1, v0.y\nnrm r2.xyz, v0\nadd r0, r0, r1\nmov r2.w, v0.w\nadd oPos, r0, r2\n";
    // `logp` ignores the sign of its input, ARB's LG2 does not: ABS first.
    assert_eq!(
        ops(&format!("vs_2_0\n{body}"))[..7],
        [
            Op::Ex2,
            Op::Abs,
            Op::Lg2,
            Op::Dp3,
            Op::Max,
            Op::Rsq,
            Op::Mul
        ]
    );
    let v11 = "vs_1_1\ndcl_position v0\nexpp r0, v0.x\nlogp r1, v0.y\nadd oPos, r0, r1\n";
    assert_eq!(ops(v11)[..3], [Op::Exp, Op::Abs, Op::Lg2]);
    let arb = |m: &str| {
        format!(
            "!!ARBvp1.0\nTEMP t;\nEXP t{m}, vertex.position.x;\nLOG t{m}, vertex.position.y;\nMOV result.position, t.z;\nEND\n"
        )
    };
    let full = parse(&arb(""), &ParseOptions::default())
        .into_result()
        .unwrap();
    for target in [Profile::Vs1_1, Profile::Vs2_0, Profile::Vs2_x] {
        let e = to_d3d9(&full, target).expect_err("a four-part LOG");
        assert!(
            e.iter().any(|d| d.message.contains("`LOG`")),
            "{target}: {e:?}"
        );
        assert_eq!(
            e.iter().any(|d| d.message.contains("`EXP`")),
            target != Profile::Vs1_1,
            "{target}: {e:?}"
        );
    }
    let z = parse(&arb(".z"), &ParseOptions::default())
        .into_result()
        .unwrap();
    let d = to_d3d9(&z, Profile::Vs2_0).unwrap();
    let ops: Vec<Op> = d.insts.iter().map(|i| i.op).collect();
    assert_eq!(ops[..2], [Op::Ex2, Op::Lg2]);
}

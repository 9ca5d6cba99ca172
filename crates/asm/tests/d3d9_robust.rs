//! The D3D9 front end on hostile input, on programs that passes modified, and the
//! diagnostics' shape.

use hoist_asm::ir::{
    ConstBinding, ConstSlot, Dst, Inst, Literal, Reg, RegFile, Span, Src, Swizzle, WriteMask,
};
use hoist_asm::{Op, ParseOptions, Profile, parse, print};
use std::time::Instant;

fn parse_as(src: &str, p: Profile) -> hoist_asm::Parsed {
    parse(
        src,
        &ParseOptions {
            profile: Some(p),
            limits: None,
        },
    )
}

#[test]
fn header_must_match_the_requested_profile() {
    let r = parse_as("vs_2_0\nmov oC0, c0\n", Profile::Ps2_0);
    assert!(r.program.is_none());
    assert_eq!(r.errors().next().unwrap().code, "E2002");
    let r = parse_as("; only a comment\n", Profile::Ps2_0);
    assert_eq!(r.errors().next().unwrap().code, "E2001");
    for header in ["vs.1.1", "VS_1_1", "vs_1_1 ; comment"] {
        let src = format!("{header}\ndcl_position v0\nMOV oPos, V0\n");
        let r = parse_as(&src, Profile::Vs1_1);
        assert!(r.program.is_some(), "{header}: {:#?}", r.diagnostics);
    }
    let r = parse_as("mov oC0, c0\n", Profile::Ps2_0);
    assert!(r.errors().any(|d| d.code == "E2001"));
}

#[test]
fn several_errors_are_reported_with_spans_and_hints() {
    let src = "ps_2_0\nmov r0, t0\nmovv r1, c0\nmov r2, c0.xq\nmov oC0, r0\n";
    let r = parse_as(src, Profile::Ps2_0);
    let codes: Vec<String> = r.errors().map(|d| d.code.to_string()).collect();
    assert_eq!(codes, ["E2050", "E2010", "E2024"]);
    for d in r.errors() {
        assert!(d.hint.is_some(), "{} has no hint", d.code);
        let text = &src[d.span.range()];
        assert!(!text.is_empty(), "{}", d.code);
    }
    assert_eq!(&src[r.diagnostics[0].span.range()], "t0");
    // Operand rules are reported together with syntax errors.
    let src = "vs_1_1\ndcl_position v0\nmad r0, v0, c0, c1\nmov oPos, r0.xq\n";
    let codes: Vec<String> = parse_as(src, Profile::Vs1_1)
        .errors()
        .map(|d| d.code.to_string())
        .collect();
    assert_eq!(codes, ["E2101", "E2024"]);
    assert_eq!(
        r.diagnostics[1].hint.as_deref(),
        Some("did you mean `mov`?")
    );
}

#[test]
fn junk_nul_crlf_and_huge_inputs_neither_panic_nor_hang() {
    let mut junk = String::from("ps_2_0\r\n");
    for i in 0..20_000u32 {
        let c = char::from_u32((i * 7919) % 0x2_0000).unwrap_or('\u{0}');
        junk.push(c);
        if i % 37 == 0 {
            junk.push_str("\r\n");
        }
    }
    let r = parse_as(&junk, Profile::Ps2_0);
    assert!(r.program.is_none());
    assert!(r.diagnostics.len() <= 102, "{}", r.diagnostics.len());
    assert_eq!(r.diagnostics.last().unwrap().code, "E2099");

    let bytes: Vec<u8> = (0..50_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let _ = parse_as(&String::from_utf8_lossy(&bytes), Profile::Vs1_1);
    let _ = parse_as("vs_1_1\n\0\0\0mov oPos, v0\0", Profile::Vs1_1);
    let _ = parse_as(
        "vs_1_1\nmov oPos, c[a0.x + 99999999999999999999]\n",
        Profile::Vs1_1,
    );
    let _ = parse_as("vs_1_1\nmov oPos, c[[[[", Profile::Vs1_1);
    let _ = parse_as("vs_1_1\n/*", Profile::Vs1_1);

    // ~10 MB of valid instructions: parsed (and rejected for its length) in linear time. The
    // bounds below are hang guards (quadratic parsing would take hours), not speed tests:
    // a shared, loaded machine takes well over the unloaded few seconds.
    let mut big = String::from("vs_2_0\ndcl_position v0\n");
    let line = "add r0, r0, c0 ; comment\n";
    big.push_str("mov r0, v0\n");
    while big.len() < 10_000_000 {
        big.push_str(line);
    }
    big.push_str("mov oPos, r0\n");
    let t = Instant::now();
    let r = parse_as(&big, Profile::Vs2_0);
    assert!(t.elapsed().as_secs() < 300, "{:?}", t.elapsed());
    assert!(
        r.errors().any(|d| d.code == "E0301"),
        "slot limit should be exceeded"
    );

    // Deeply nested blocks and many calls: the flow rules stay linear.
    let mut deep = String::from("vs_2_x\ndefi i0, 1, 0, 0, 0\ndcl_position v0\nmov oPos, v0\n");
    for _ in 0..300_000 {
        deep.push_str("rep i0\n");
    }
    for k in 0..100_000 {
        deep.push_str(&format!("call l{}\n", k % 2000));
    }
    let t = Instant::now();
    let r = parse_as(&deep, Profile::Vs2_x);
    assert!(t.elapsed().as_secs() < 300, "{:?}", t.elapsed());
    assert!(r.errors().any(|d| d.code == "E2114"));
}

/// Figure 3(a) edited the way the code-motion pass edits it (Figure 5(a)): new temps, a
/// new constant, new outputs without dcl lines. Printing and parsing it back gives the
/// same program.
#[test]
fn programs_modified_by_a_pass_round_trip() {
    let src = include_str!("d3d9/fig3a.vsh");
    let mut p = parse_as(src, Profile::Vs1_1).into_result().unwrap();
    // A new def in a fresh slot, beyond the highest used register.
    let slot = 6;
    while p.consts.len() <= slot {
        let n = p.consts.len() as u16;
        p.consts.push(ConstSlot {
            binding: ConstBinding::Env(n),
            span: Span::NONE,
        });
    }
    p.consts[slot] = ConstSlot {
        binding: ConstBinding::Literal(Literal::vec4([-0.25, 0.0, 1.5, 1.0])),
        span: Span::NONE,
    };
    p.num_temps = 2;
    let v1 = Src::new(Reg::new(RegFile::Input, 1));
    let c6 = Src::new(Reg::new(RegFile::Const, 6));
    p.insts.push(Inst::new(
        Op::Add,
        Some(Dst::new(Reg::new(RegFile::Temp, 0), WriteMask::XY)),
        [v1, c6.clone()],
    ));
    p.insts.push(Inst::new(
        Op::Mov,
        Some(Dst::new(Reg::new(RegFile::Temp, 1), WriteMask::ALL)),
        [c6.swizzled(Swizzle::splat(3)).negated()],
    ));
    for (t, src) in [(1u16, 0u16), (2, 1)] {
        let reg = Reg::new(RegFile::TexCrdOut, t);
        p.io.push(hoist_asm::ir::IoDecl {
            reg,
            semantic: hoist_asm::ir::Semantic::TexCoord(t as u8),
            mask: WriteMask::ALL,
            interp: Default::default(),
            pp: false,
            explicit: false,
            span: Span::NONE,
        });
        p.insts.push(Inst::new(
            Op::Mov,
            Some(Dst::new(reg, WriteMask::XY)),
            [Src::new(Reg::new(RegFile::Temp, src))],
        ));
    }
    let diags = hoist_asm::validate::check(&p, &Profile::Vs1_1.limits());
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:#?}");
    let text = print(&p);
    let q = parse_as(&text, Profile::Vs1_1).into_result().unwrap();
    assert!(p.eq_ignoring_spans(&q), "{text}");
    assert!(text.contains("def c6, -0.25, 0, 1.5, 1"), "{text}");
    assert!(text.contains("mov r1, -c6.w"), "{text}");
    assert!(!text.contains("dcl_texcoord1"), "{text}");
}

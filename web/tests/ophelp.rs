//! Instruction help covers every opcode both parsers accept, in every profile, with the
//! slot cost the profile table gives; and every instruction of the piglit ARB corpus (text
//! we did not write) gets help.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ops::Cond;
use hoist_asm::{Dialect, Op, Profile};
use hoist_web::page::ophelp::{self, lookup};
use std::collections::HashSet;

/// Every mnemonic the parsers accept, by dialect (conditional forms spelled out).
fn accepted() -> Vec<(Dialect, String, Op)> {
    let mut out: Vec<(Dialect, String, Op)> = hoist_asm::arb::arb_ops()
        .map(|(op, n)| (Dialect::Arb, n.to_string(), op))
        .collect();
    for &(n, op) in hoist_asm::d3d9::regs::MNEMONICS {
        out.push((Dialect::D3d9, n.to_string(), op));
        if matches!(op, Op::If | Op::Break | Op::Setp(_)) {
            for c in Cond::ALL {
                let cop = match op {
                    Op::If => Op::Ifc(c),
                    Op::Break => Op::Breakc(c),
                    _ => Op::Setp(c),
                };
                out.push((Dialect::D3d9, format!("{n}_{}", c.suffix()), cop));
            }
        }
    }
    out
}

/// The number of slots a cost line names for `p`, or `None` for "not available".
fn slots_named(cost: &str, p: Profile) -> Option<u8> {
    let at = cost.find(&format!(" in {}", p.header()))?;
    let head = &cost[..at];
    if head.ends_with("not available") {
        return None;
    }
    let word = head.rsplit(' ').nth(1)?;
    Some(word.parse().expect("a number of slots"))
}

#[test]
fn every_accepted_opcode_has_help_with_the_profiles_cost() {
    let all = accepted();
    assert!(all.len() > 80, "{}", all.len());
    for (dialect, name, op) in &all {
        for p in Profile::ALL.into_iter().filter(|p| p.dialect() == *dialect) {
            let h = lookup(name, p, Some(p.partner()))
                .unwrap_or_else(|| panic!("no help for {name} in {}", p.header()));
            assert!(!h.what.is_empty());
            assert!(
                h.name.eq_ignore_ascii_case(name) || (*op == Op::Mova && name == "mov"),
                "{name} → {}",
                h.name
            );
            assert_eq!(
                slots_named(&h.cost, p),
                p.slots(*op),
                "{name} in {}: {}",
                p.header(),
                h.cost
            );
            assert_eq!(
                slots_named(&h.cost, p.partner()),
                p.partner().slots(*op),
                "{name}, other stage: {}",
                h.cost
            );
        }
    }
}

#[test]
fn descriptions_are_written_per_operation() {
    let mut seen = HashSet::new();
    for op in Op::all() {
        let w = ophelp::what(op);
        assert!(w.len() > 10, "{op:?}: {w}");
        // Conditional forms share one description per family.
        if !matches!(op, Op::Ifc(_) | Op::Breakc(_) | Op::Setp(_)) {
            assert!(seen.insert(w), "{op:?} repeats another op's text: {w}");
        }
    }
}

#[test]
fn modifiers_conditions_and_restrictions() {
    let h = lookup("MAD_SAT", Profile::ArbFp1, None).unwrap();
    assert_eq!(h.name, "MAD");
    assert!(
        h.notes.iter().any(|n| n.contains("clamped to [0, 1]")),
        "{h:?}"
    );
    let h = lookup("if_lt", Profile::Ps3_0, None).unwrap();
    assert_eq!(h.name, "if_lt");
    assert!(h.cost.contains("3 slots in ps_3_0"), "{}", h.cost);
    let h = lookup("rcp_pp", Profile::Ps2_0, Some(Profile::Vs1_1)).unwrap();
    assert!(
        h.notes.iter().any(|n| n.contains("replicate swizzle")),
        "{h:?}"
    );
    assert!(
        h.notes.iter().any(|n| n.contains(".yzxw")),
        "ps_2_0 swizzles: {h:?}"
    );
    assert!(
        h.notes.iter().any(|n| n.contains("partial precision")),
        "{h:?}"
    );
    let h = lookup("texld", Profile::Ps2_0, Some(Profile::Vs1_1)).unwrap();
    assert!(h.cost.contains("not available in vs_1_1"), "{}", h.cost);
    assert!(h.notes.iter().any(|n| n.contains("4 deep")), "{h:?}");
    let h = lookup("TEX", Profile::ArbFp1, None).unwrap();
    assert!(h.notes.iter().any(|n| n.contains("indirection")), "{h:?}");
    let h = lookup("RSQ", Profile::ArbVp1, None).unwrap();
    assert!(h.notes.iter().any(|n| n.contains("one component")), "{h:?}");
    // vs_1_1's exp is a ten-slot macro (Microsoft's table, in the profile).
    let h = lookup("exp", Profile::Vs1_1, None).unwrap();
    assert!(h.cost.contains("10 slots in vs_1_1"), "{}", h.cost);
    assert!(
        lookup("dcl_texcoord0", Profile::Vs2_0, None)
            .unwrap()
            .cost
            .contains("none")
    );
    assert!(lookup("PARAM", Profile::ArbVp1, None).is_some());
    assert!(lookup("r0", Profile::Ps2_0, None).is_none());
    assert!(lookup("texld", Profile::ArbFp1, None).is_none(), "not ARB");
}

#[test]
fn words_and_line_opcodes() {
    let line = "  mad_sat r0.xy, t0, c1";
    assert_eq!(ophelp::word_at(line, 4), Some((2, 9)));
    assert_eq!(ophelp::word_at(line, 1), None);
    assert_eq!(ophelp::word_at(line, 100), None);
    assert_eq!(ophelp::line_opcode(line), Some("mad_sat"));
    assert_eq!(ophelp::line_opcode("   "), None);
    assert_eq!(ophelp::line_opcode("MUL result.color, a, b;"), Some("MUL"));
}

/// Every instruction of the piglit ARB programs gets help in its program's profile.
#[test]
fn the_piglit_corpus_is_covered() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/piglit");
    if !dir.exists() {
        assert!(
            std::env::var("HOIST_REQUIRE_ORACLES").as_deref() != Ok("1"),
            "HOIST_REQUIRE_ORACLES=1, but ../shared/corpus/piglit is missing"
        );
        println!("SKIP: ../shared/corpus/piglit is missing");
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "shader_test") {
                files.push(p);
            }
        }
    }
    let (mut programs, mut insts) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for part in text.split("\n[").filter(|s| s.contains("program]")) {
            let body = part.split_once('\n').map_or("", |b| b.1);
            let Some(profile) = hoist_asm::detect_profile(body) else {
                continue;
            };
            let parsed = hoist_asm::parse(body, &Default::default());
            let Ok(p) = parsed.into_result() else {
                continue;
            };
            programs += 1;
            for i in &p.insts {
                let name = ophelp::spelled(i.op, profile.dialect());
                let h = lookup(&name, profile, None);
                assert!(h.is_some(), "{}: {name}", f.display());
                insts += 1;
            }
        }
    }
    println!("piglit: {programs} programs, {insts} instructions with help");
    assert!(
        programs > 20 && insts > 100,
        "{programs} programs, {insts} instructions"
    );
}

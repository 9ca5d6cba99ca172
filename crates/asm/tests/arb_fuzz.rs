//! Robustness of the ARB front end: random bytes and mutated programs never panic, every
//! accepted program round-trips through the printer, and pathological inputs (huge,
//! deeply nested, unterminated, binary) finish with diagnostics.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Profile, parse, print};
use proptest::prelude::*;

const SEEDS: &[&str] = &[
    "!!ARBvp1.0\nATTRIB p = vertex.position;\nPARAM m[4] = { state.matrix.mvp };\nTEMP r;\n\
     DP4 r.x, m[0], p;\nDP4 r.y, m[1], p;\nMOV result.position, r;\nMUL result.color, vertex.color, 0.5;\nEND\n",
    "!!ARBvp1.0\nPARAM a[3] = { program.env[0..1], {1, 2} };\nADDRESS A0;\nARL A0.x, vertex.attrib[4].w;\n\
     MOV result.texcoord[1], a[A0.x - 1];\nSWZ result.color, vertex.normal, -x, 0, 1, w;\nEND\n",
    "!!ARBfp1.0\nOPTION ARB_precision_hint_fastest;\nTEMP t, u;\nTEX t, fragment.texcoord[0], texture[0], 2D;\n\
     TXP u, t, texture[1], CUBE; # dependent\nLRP_SAT t, t.x, u, fragment.color;\nKIL -t.w;\nMOV result.color, t;\nEND\n",
    "!!ARBfp1.0\nPARAM c = state.fog.color;\nTEMP a;\nSCS a.xy, fragment.position.x;\nCMP a, a, c, {0.25}.x;\n\
     POW result.color.r, a.x, 2.5.x;\nEND\n",
    "!!ARBvp1.0\nOPTION ARB_position_invariant;\nTEMP t;\nALIAS u = t;\nEXP t, vertex.fogcoord.x;\n\
     LOG u.xw, -t.z;\nLIT result.color, u;\nEND\n",
];

const TOKENS: &[&str] = &[
    "MOV",
    "TEMP",
    "PARAM",
    "ADD",
    "SWZ",
    "{",
    "}",
    "[",
    "]",
    ",",
    ";",
    ".",
    "..",
    "-",
    "+",
    "x",
    "xyzw",
    "0",
    "1",
    "1e5",
    ".5",
    "vertex.position",
    "result.color",
    "state.matrix.mvp",
    "program.env[3]",
    "A0.x",
    "ADDRESS",
    "ALIAS",
    "# c\n",
    "\n",
    "END",
    "_SAT",
    "texture[1]",
    "2D",
    "fragment.texcoord[2]",
    "$t0",
    "r0",
    "|",
    "\0",
    "é",
    "OPTION ARB_fog_exp;",
    "!!ARBvp1.0",
    "99999999999999999999",
    "1e999",
    "=",
];

/// Parses under every profile option and checks accepted programs round-trip.
fn check(src: &str) {
    let opts = [None, Some(Profile::ArbVp1), Some(Profile::ArbFp1)];
    for profile in opts {
        let parsed = parse(
            src,
            &ParseOptions {
                profile,
                limits: None,
            },
        );
        if let Some(p) = parsed.program {
            let text = print(&p);
            let again = parse(
                &text,
                &ParseOptions {
                    profile: Some(p.profile),
                    limits: None,
                },
            );
            let q = again.program.unwrap_or_else(|| {
                panic!(
                    "printed program rejected:\n{text}\n{:#?}",
                    again.diagnostics
                )
            });
            assert!(
                q.eq_ignoring_spans(&p),
                "round trip changed:\n{src}\n---\n{text}"
            );
        }
    }
}

fn mutate(seed: &str, edits: &[(u8, usize, usize)]) -> String {
    let mut s: Vec<u8> = seed.as_bytes().to_vec();
    for &(op, pos, k) in edits {
        let at = pos % (s.len() + 1);
        match op % 4 {
            0 => {
                let t = TOKENS[k % TOKENS.len()].as_bytes();
                s.splice(at..at, t.iter().copied());
            }
            1 => {
                let end = (at + k % 12).min(s.len());
                s.drain(at..end);
            }
            2 if at < s.len() => s[at] = b" ;,.[]{}-+xw0123456789"[k % 22],
            _ => {
                let line_start = s[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let line_end = s[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(s.len(), |i| at + i + 1);
                let line = s[line_start..line_end].to_vec();
                s.splice(line_end..line_end, line);
            }
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
        let mut with_header = b"!!ARBfp1.0\n".to_vec();
        with_header.extend(&bytes);
        check(&String::from_utf8_lossy(&with_header));
    }

    #[test]
    fn mutated_programs_round_trip(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..6),
    ) {
        check(&mutate(SEEDS[seed], &edits));
    }
}

#[test]
fn seeds_are_valid() {
    for s in SEEDS {
        let p = parse(s, &ParseOptions::default());
        assert!(p.program.is_some(), "{s}\n{:#?}", p.diagnostics);
        check(s);
    }
}

#[test]
fn pathological_inputs_finish() {
    let big_ok = format!(
        "!!ARBvp1.0\nTEMP t;\n{}MOV result.position, t;\nEND\n",
        "ADD t, t, 0.5;\n".repeat(400_000)
    );
    let p = parse(&big_ok, &ParseOptions::default());
    assert!(p.program.is_none());
    assert_eq!(
        p.diagnostics.iter().filter(|d| d.is_error()).count(),
        1,
        "one limit error"
    );

    let cases = [
        format!("!!ARBvp1.0\nPARAM p = {};\nEND", "{".repeat(1_000_000)),
        format!("!!ARBfp1.0\n{}", "\0".repeat(10_000_000)),
        format!("!!ARBvp1.0\nMOV r, {}", "9".repeat(2_000_000)),
        format!("!!ARBvp1.0\nMOV r, 1.{}e99999999999", "5".repeat(100_000)),
        format!("!!ARBvp1.0\n{}", "MOV a, b".repeat(500_000)),
        format!(
            "!!ARBvp1.0\nTEMP {};\n{}END",
            (0..50_000)
                .map(|i| format!("t{i}"))
                .collect::<Vec<_>>()
                .join(","),
            "MOV u, w;\n".repeat(50_000)
        ),
        "!!ARBvp1.0\nPARAM a[] = { program.env[0..65535] };\nEND".to_string(),
        "!!ARBvp1.0\n# unterminated comment".to_string(),
        "!!ARBvp1.0\nPARAM a[] = { {1, 2".to_string(),
        "!!ARBvp1.0\nMOV result.color, a[A0.x + ".to_string(),
        "!!".to_string(),
        "\u{feff}!!ARBfp1.0\r\nMOV result.color, fragment.color;\r\nEND".to_string(),
    ];
    for src in &cases {
        let p = parse(src, &ParseOptions::default());
        assert!(!p.diagnostics.is_empty() || p.program.is_some());
        assert!(
            p.diagnostics.len() <= 102,
            "{} diagnostics",
            p.diagnostics.len()
        );
        if let Some(p) = p.program {
            check(&print(&p));
        }
    }
}

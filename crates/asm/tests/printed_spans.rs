//! `print_with_spans`: every instruction's line and operand ranges point at what the
//! printer wrote there, in both dialects, over the whole example corpus.

use hoist_asm::{ParseOptions, Program, print, print_with_lines, print_with_spans};

fn parse(src: &str) -> Program {
    let p = hoist_asm::parse(src, &ParseOptions::default());
    p.into_result().expect("parses")
}

/// The operand texts of instruction `i`: destination, then sources.
fn operands(p: &Program, i: usize) -> (Option<String>, Vec<String>) {
    let printed = print_with_spans(p);
    let s = &printed.insts[i];
    let line = printed.text.lines().nth(s.line).unwrap();
    (
        s.dst.clone().map(|r| line[r].to_string()),
        s.src.iter().map(|r| line[r.clone()].to_string()).collect(),
    )
}

#[test]
fn d3d9_sources_skip_the_sampler() {
    let p = parse(
        "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexld r1, v0, s0\n\
         texldd r2, v0, s0, v0.x, -v0.y ; a, b\nmad_sat r0, r1, c2.wzyx, -r2_abs\n\
         setp_gt p0, r0, c0\n(p0.x) mov r3, r0\nmov oC0, r0\n",
    );
    assert_eq!(operands(&p, 0), (Some("r1".into()), vec!["v0".to_string()]));
    assert_eq!(operands(&p, 1).1, ["v0", "v0.x", "-v0.y"]);
    assert_eq!(operands(&p, 2).1, ["r1", "c2.wzyx", "-r2_abs"]);
    assert_eq!(operands(&p, 4), (Some("r3".into()), vec!["r0".to_string()]));
}

#[test]
fn arb_sources_skip_texture_words_and_selectors() {
    let p = parse(
        "!!ARBfp1.0\nTEMP R0, R1;\nPARAM k = {1, 2, 3, 4};\n\
         TEX R0, fragment.texcoord[0], texture[1], 2D;\nSWZ R1, R0, x, -y, 0, 1;\n\
         MAD_SAT result.color.xyz, R0, k, {0.5, 0, 0, 1};\nKIL -R1;\nEND\n",
    );
    assert_eq!(
        operands(&p, 0),
        (Some("R0".into()), vec!["fragment.texcoord[0]".to_string()])
    );
    assert_eq!(operands(&p, 1), (Some("R1".into()), vec!["R0".to_string()]));
    let (dst, src) = operands(&p, 2);
    assert_eq!(dst.as_deref(), Some("result.color.xyz"));
    assert_eq!(src[..2], ["R0", "k"]);
    assert_eq!(operands(&p, 3), (None, vec!["-R1".to_string()]));
}

#[test]
fn spans_agree_with_the_text_over_the_corpus() {
    let mut seen = 0;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/paper");
    {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            let ext = path.extension().and_then(|x| x.to_str()).unwrap_or("");
            if !["vsh", "psh", "vp", "fp"].contains(&ext) {
                continue;
            }
            let src = std::fs::read_to_string(&path).unwrap();
            let Some(p) = hoist_asm::parse(&src, &ParseOptions::default()).program else {
                continue;
            };
            let printed = print_with_spans(&p);
            assert_eq!(printed.text, print(&p));
            assert_eq!(printed.insts.len(), p.insts.len());
            let (_, lines) = print_with_lines(&p);
            assert_eq!(
                lines,
                printed.insts.iter().map(|s| s.line).collect::<Vec<_>>()
            );
            let text: Vec<&str> = printed.text.lines().collect();
            for (inst, s) in p.insts.iter().zip(&printed.insts) {
                let line = text[s.line];
                assert_eq!(s.dst.is_some(), inst.dst.is_some(), "{line}");
                assert_eq!(s.src.len(), inst.src.len(), "{line}");
                // Operands are non-empty, trimmed, in order and apart.
                let mut end = 0;
                for r in s.dst.iter().chain(&s.src) {
                    let t = &line[r.clone()];
                    assert!(
                        r.start > end && !t.is_empty() && t.trim() == t,
                        "{line}: {t:?}"
                    );
                    end = r.end;
                }
                seen += 1;
            }
        }
    }
    assert!(seen > 40, "{seen} instructions checked");
}

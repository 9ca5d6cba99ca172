//! Error codes of the Direct3D 9 front end and operand rules, and small constructors.
//!
//! Syntax and name errors (`E20xx`) come from the parser and lowering; operand rules
//! (`E21xx`) come from [`super::rules`], which runs over the IR so that optimizer output
//! is checked by the same code as parsed programs.
//!
//! | code | meaning |
//! |---|---|
//! | E2001 | missing or misplaced version line |
//! | E2002 | version line does not match the requested profile |
//! | E2003 | unsupported version (ps_1_x, vs_1_0, ...) |
//! | E2010 | unknown instruction |
//! | E2011 | instruction not available in this version |
//! | E2012 | unknown or misplaced instruction modifier |
//! | E2013 | wrong number of operands |
//! | E2020 | syntax error |
//! | E2021 | unknown register name |
//! | E2022 | register number out of range |
//! | E2023 | register type not available in this version, or not allowed in this operand |
//! | E2024 | malformed swizzle |
//! | E2025 | malformed write mask |
//! | E2026 | malformed relative address |
//! | E2027 | source modifier that does not exist in this version (`_bx2`, `1-r0`, ...) |
//! | E2030 | malformed `def`/`defi`/`defb` |
//! | E2031 | constant defined twice |
//! | E2040 | malformed `dcl` |
//! | E2041 | register declared twice |
//! | E2042 | `dcl` after the first instruction |
//! | E2050 | input register used without `dcl` |
//! | E2051 | sampler used without `dcl_*` |
//! | E2060 | preprocessor directive |
//! | E2061 | unterminated `/*` comment |
//! | E2099 | too many errors |
//! | E2101 | register read-port limit (distinct registers of one type per instruction) |
//! | E2102 | replicate swizzle required |
//! | E2103 | swizzle not available in ps_2_0 |
//! | E2104 | texture instruction operand restrictions |
//! | E2105 | dependent texture read limit |
//! | E2106 | `_sat` not allowed here |
//! | E2107 | `_pp` in a vertex shader |
//! | E2108 | write mask not allowed for this instruction or register |
//! | E2109 | operand register restrictions (same register as dst, must be a temporary, ...) |
//! | E2110 | register type cannot be read or written by this operand |
//! | E2111 | `_abs` modifier rules |
//! | E2112 | declaration required or inconsistent |
//! | E2113 | read of components the `dcl` does not declare |
//! | E2114 | flow-control structure (nesting, labels, `ret`) |
//! | E2115 | predication rules |
//! | E2116 | relative addressing rules |
//! | E2117 | read of an uninitialized temporary |
//! | E2118 | required output not written |
//! | W2119 | ps_2_0/2_x: no colour written |
//! | E2120 | loop counter used outside a loop |
//! | E2130 | IR constant/declaration not expressible in D3D9 (a pass bug) |

use crate::diag::Diagnostic;
use crate::ir::Span;

/// Stop collecting after this many errors (the rest are summarized by E2099).
pub const MAX_ERRORS: usize = 100;

pub fn err(code: &str, msg: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(code, msg, span)
}

pub fn syntax(msg: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error("E2020", msg, span)
}

/// Closest name in `names` to `word` (edit distance at most 2), for "did you mean" hints.
pub fn suggest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.len() > 32 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for n in names {
        let d = distance(word, n);
        if d <= 2 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, n));
        }
    }
    best.map(|(_, n)| n)
}

fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn suggestions() {
        assert_eq!(super::suggest("texdl", ["texld", "mov"]), Some("texld"));
        assert_eq!(super::suggest("zzzzzz", ["texld", "mov"]), None);
    }
}

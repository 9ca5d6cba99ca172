//! Lexer: splits D3D9 shader assembly into lines of tokens.
//!
//! One pass over the bytes, linear in the input. Statements end at line breaks; `;` and
//! `//` comments run to the end of the line and are kept per line (a trailing comment
//! becomes [`crate::ir::Inst::comment`]); `/* */` comments are skipped. Anything the
//! grammar cannot use (NUL, control characters, non-ASCII) becomes a [`Tok::Junk`] token
//! so the parser can report it with a span instead of failing.

use crate::ir::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident,
    /// Decimal number: digits, optional fraction, optional exponent (no sign).
    Number,
    Comma,
    Dot,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Plus,
    Minus,
    Bang,
    /// A `#` at the start of a line (preprocessor directive).
    Hash,
    /// A character the grammar has no use for.
    Junk,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn span(&self) -> Span {
        Span::new(self.start, self.end)
    }

    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        &src[self.start..self.end]
    }
}

/// The tokens of one source line, and its comment if any.
#[derive(Clone, Debug, Default)]
pub struct Line {
    pub tokens: Vec<Token>,
    /// Comment text (without its marker, trimmed) and the span of the whole comment.
    pub comment: Option<(String, Span)>,
}

/// A `/* ...` comment that never ends.
#[derive(Clone, Copy, Debug)]
pub struct Unterminated(pub Span);

/// Splits `src` into lines. Lines without tokens or comment are dropped.
pub fn lex(src: &str) -> (Vec<Line>, Option<Unterminated>) {
    let b = src.as_bytes();
    let mut lines = Vec::new();
    let mut cur = Line::default();
    let mut unterminated = None;
    let mut i = 0;
    let n = b.len();
    // Skip a UTF-8 byte order mark.
    if src.starts_with('\u{feff}') {
        i = 3;
    }
    let push = |cur: &mut Line, lines: &mut Vec<Line>| {
        if !cur.tokens.is_empty() || cur.comment.is_some() {
            lines.push(std::mem::take(cur));
        }
    };
    while i < n {
        let c = b[i];
        match c {
            b'\n' => {
                push(&mut cur, &mut lines);
                i += 1;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b';' => {
                let end = memchr_nl(b, i);
                set_comment(&mut cur, src, i, i + 1, end);
                i = end;
            }
            b'/' if i + 1 < n && b[i + 1] == b'/' => {
                let end = memchr_nl(b, i);
                set_comment(&mut cur, src, i, i + 2, end);
                i = end;
            }
            b'/' if i + 1 < n && b[i + 1] == b'*' => {
                let start = i;
                let mut j = i + 2;
                loop {
                    if j + 1 >= n {
                        unterminated.get_or_insert(Unterminated(Span::new(start, n)));
                        j = n;
                        break;
                    }
                    if b[j] == b'*' && b[j + 1] == b'/' {
                        j += 2;
                        break;
                    }
                    j += 1;
                }
                i = j;
            }
            b'#' if cur.tokens.is_empty() => {
                cur.tokens.push(tok(Tok::Hash, i, i + 1));
                i += 1;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let s = i;
                while i < n && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                cur.tokens.push(tok(Tok::Ident, s, i));
            }
            b'0'..=b'9' => {
                let s = i;
                i = scan_number(b, i);
                cur.tokens.push(tok(Tok::Number, s, i));
            }
            b'.' if i + 1 < n && b[i + 1].is_ascii_digit() && starts_value(&cur, src) => {
                let s = i;
                i = scan_number(b, i);
                cur.tokens.push(tok(Tok::Number, s, i));
            }
            _ => {
                let kind = match c {
                    b',' => Tok::Comma,
                    b'.' => Tok::Dot,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'+' => Tok::Plus,
                    b'-' => Tok::Minus,
                    b'!' => Tok::Bang,
                    _ => Tok::Junk,
                };
                // Keep junk tokens on character boundaries so spans slice cleanly.
                let mut e = i + 1;
                while e < n && !src.is_char_boundary(e) {
                    e += 1;
                }
                cur.tokens.push(tok(kind, i, e));
                i = e;
            }
        }
    }
    push(&mut cur, &mut lines);
    (lines, unterminated)
}

fn tok(kind: Tok, start: usize, end: usize) -> Token {
    Token { kind, start, end }
}

/// A `.5` is a number only where a value may start (after `,`, `-`, `+` or `[`), so that
/// `r0.x` still lexes as a register, a dot and a swizzle.
fn starts_value(cur: &Line, _src: &str) -> bool {
    matches!(
        cur.tokens.last().map(|t| t.kind),
        Some(Tok::Comma | Tok::Minus | Tok::Plus | Tok::LBracket)
    )
}

fn scan_number(b: &[u8], mut i: usize) -> usize {
    let n = b.len();
    while i < n && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < n && b[i] == b'.' {
        i += 1;
        while i < n && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < n && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < n && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < n && b[j].is_ascii_digit() {
            while j < n && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    // A trailing `f` (C float suffix) belongs to the number.
    if i < n && (b[i] == b'f' || b[i] == b'F') {
        i += 1;
    }
    i
}

fn memchr_nl(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| from + p)
}

fn set_comment(cur: &mut Line, src: &str, start: usize, text_start: usize, end: usize) {
    let mut e = end;
    while e > text_start && !src.is_char_boundary(e) {
        e -= 1;
    }
    let text = src[text_start..e].trim().to_string();
    if cur.comment.is_none() {
        cur.comment = Some((text, Span::new(start, end)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Vec<Tok>> {
        lex(src)
            .0
            .iter()
            .map(|l| l.tokens.iter().map(|t| t.kind).collect())
            .collect()
    }

    #[test]
    fn registers_swizzles_and_numbers() {
        use Tok::*;
        assert_eq!(
            kinds("add r0.xy, -c[a0.x + 5], .5\r\n"),
            vec![vec![
                Ident, Ident, Dot, Ident, Comma, Minus, Ident, LBracket, Ident, Dot, Ident, Plus,
                Number, RBracket, Comma, Number
            ]]
        );
    }

    #[test]
    fn comments_are_kept_per_line() {
        let (lines, u) = lex("mov r0, c0 ; hello \n// whole line\n/* a\n b */ nop");
        assert!(u.is_none());
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].comment.as_ref().unwrap().0, "hello");
        assert!(lines[1].tokens.is_empty());
        assert_eq!(lines[2].tokens.len(), 1);
    }

    #[test]
    fn junk_and_unterminated_comments() {
        let (lines, u) = lex("\u{0}é /* never");
        assert!(u.is_some());
        assert!(lines[0].tokens.iter().all(|t| t.kind == Tok::Junk));
        assert_eq!(lines[0].tokens[1].text("\u{0}é /* never"), "é");
    }
}

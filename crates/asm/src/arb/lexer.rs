//! Streaming lexer for ARB program text. Every byte of input yields a token or is
//! whitespace/comment, so any input (binary junk, NUL bytes, CRLF) lexes in one linear pass.
//!
//! Numbers follow the spec's `<floatConstant>`, with one disambiguation: a `.` right after
//! digits starts a swizzle when a letter follows (`3.14159.x`, `2.x`) and a range when
//! another `.` follows (`0..3`). Digits running into letters (`2D`) form a [`Tok::Word`].

use crate::ir::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident,
    Int,
    Float,
    /// Digits followed by letters: `1D`, `2D`, `3D` (texture targets), else an error.
    Word,
    /// `!!...` program header.
    Header,
    Semi,
    Comma,
    Dot,
    DotDot,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Eq,
    Plus,
    Minus,
    Pipe,
    /// A run of characters that are not part of the language.
    Invalid,
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

impl Token {
    pub fn span(self) -> Span {
        Span {
            start: self.start,
            end: self.end,
        }
    }

    pub fn text(self, src: &str) -> &str {
        &src[self.start as usize..self.end as usize]
    }
}

pub fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

pub fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

pub struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str, start: usize) -> Lexer<'a> {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: start.min(src.len()),
        }
    }

    /// Skips whitespace and `#` comments (which end at a newline or carriage return).
    fn skip_trivia(&mut self) {
        while self.pos < self.bytes.len() {
            let b = self.bytes[self.pos];
            if is_space(b) {
                self.pos += 1;
            } else if b == b'#' {
                while self.pos < self.bytes.len() && !matches!(self.bytes[self.pos], b'\n' | b'\r')
                {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn peek_at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    fn digits(&mut self) -> usize {
        let s = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        self.pos - s
    }

    fn exponent_follows(&self, i: usize) -> bool {
        matches!(self.peek_at(i), b'e' | b'E')
            && (self.peek_at(i + 1).is_ascii_digit()
                || (matches!(self.peek_at(i + 1), b'+' | b'-')
                    && self.peek_at(i + 2).is_ascii_digit()))
    }

    fn number(&mut self) -> Tok {
        let mut float = false;
        self.digits();
        if self.peek_at(self.pos) == b'.' {
            let next = self.peek_at(self.pos + 1);
            let take = if next == b'.' {
                false
            } else if next.is_ascii_digit() || self.exponent_follows(self.pos + 1) {
                true
            } else {
                !is_ident_start(next)
            };
            if take {
                float = true;
                self.pos += 1;
                self.digits();
            }
        }
        if self.exponent_follows(self.pos) {
            float = true;
            self.pos += 1;
            if matches!(self.peek_at(self.pos), b'+' | b'-') {
                self.pos += 1;
            }
            self.digits();
        }
        if self.pos < self.bytes.len() && is_ident_char(self.bytes[self.pos]) {
            while self.pos < self.bytes.len() && is_ident_char(self.bytes[self.pos]) {
                self.pos += 1;
            }
            return Tok::Word;
        }
        if float { Tok::Float } else { Tok::Int }
    }

    pub fn next_token(&mut self) -> Token {
        self.skip_trivia();
        let start = self.pos;
        let kind = if self.pos >= self.bytes.len() {
            Tok::Eof
        } else {
            let b = self.bytes[self.pos];
            match b {
                b';' => self.one(Tok::Semi),
                b',' => self.one(Tok::Comma),
                b'[' => self.one(Tok::LBracket),
                b']' => self.one(Tok::RBracket),
                b'{' => self.one(Tok::LBrace),
                b'}' => self.one(Tok::RBrace),
                b'=' => self.one(Tok::Eq),
                b'+' => self.one(Tok::Plus),
                b'-' => self.one(Tok::Minus),
                b'|' => self.one(Tok::Pipe),
                b'.' if self.peek_at(self.pos + 1) == b'.' => {
                    self.pos += 2;
                    Tok::DotDot
                }
                b'.' if self.peek_at(self.pos + 1).is_ascii_digit() => self.number(),
                b'.' => self.one(Tok::Dot),
                b'0'..=b'9' => self.number(),
                b'!' if self.peek_at(self.pos + 1) == b'!' => {
                    self.pos += 2;
                    while self.pos < self.bytes.len()
                        && (is_ident_char(self.bytes[self.pos]) || self.bytes[self.pos] == b'.')
                    {
                        self.pos += 1;
                    }
                    Tok::Header
                }
                _ if is_ident_start(b) => {
                    while self.pos < self.bytes.len() && is_ident_char(self.bytes[self.pos]) {
                        self.pos += 1;
                    }
                    Tok::Ident
                }
                _ => {
                    self.invalid_run();
                    Tok::Invalid
                }
            }
        };
        Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
        }
    }

    fn one(&mut self, t: Tok) -> Tok {
        self.pos += 1;
        t
    }

    /// Consumes a run of characters that start no token (whole UTF-8 characters).
    fn invalid_run(&mut self) {
        loop {
            let c = self.src[self.pos..].chars().next();
            match c {
                Some(c) => self.pos += c.len_utf8(),
                None => break,
            }
            if self.pos >= self.bytes.len() {
                break;
            }
            let b = self.bytes[self.pos];
            let starts_token = is_space(b)
                || is_ident_char(b)
                || matches!(
                    b,
                    b';' | b','
                        | b'['
                        | b']'
                        | b'{'
                        | b'}'
                        | b'='
                        | b'+'
                        | b'-'
                        | b'|'
                        | b'.'
                        | b'#'
                )
                || (b == b'!' && self.peek_at(self.pos + 1) == b'!');
            if starts_token {
                break;
            }
        }
    }
}

/// The text of a `#` comment that follows `end` on the same line, without the `#`.
pub fn trailing_comment(src: &str, end: usize) -> Option<&str> {
    let bytes = src.as_bytes();
    let mut i = end;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    if bytes.get(i) != Some(&b'#') {
        return None;
    }
    let start = i + 1;
    let mut j = start;
    while j < bytes.len() && !matches!(bytes[j], b'\n' | b'\r') {
        j += 1;
    }
    Some(src[start..j].trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        let mut lx = Lexer::new(src, 0);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token();
            if t.kind == Tok::Eof {
                break;
            }
            out.push((t.kind, t.text(src)));
        }
        out
    }

    #[test]
    fn numbers_swizzles_and_ranges() {
        use Tok::*;
        assert_eq!(
            kinds("3.14159.x 2.x 0..3 1.5e-3 .5 5. 1e5 2D {0.5}.x"),
            vec![
                (Float, "3.14159"),
                (Dot, "."),
                (Ident, "x"),
                (Int, "2"),
                (Dot, "."),
                (Ident, "x"),
                (Int, "0"),
                (DotDot, ".."),
                (Int, "3"),
                (Float, "1.5e-3"),
                (Float, ".5"),
                (Float, "5."),
                (Float, "1e5"),
                (Word, "2D"),
                (LBrace, "{"),
                (Float, "0.5"),
                (RBrace, "}"),
                (Dot, "."),
                (Ident, "x"),
            ]
        );
    }

    #[test]
    fn comments_junk_and_headers() {
        use Tok::*;
        assert_eq!(
            kinds("!!ARBvp1.0 # hi\r\nMOV\u{0}\u{1}é r0; $a_1"),
            vec![
                (Header, "!!ARBvp1.0"),
                (Ident, "MOV"),
                (Invalid, "\u{0}\u{1}é"),
                (Ident, "r0"),
                (Semi, ";"),
                (Ident, "$a_1"),
            ]
        );
        assert_eq!(trailing_comment("MOV a, b; # note \nX", 9), Some("note"));
        assert_eq!(trailing_comment("MOV a, b;\n# not mine", 9), None);
    }
}

//! Syntax highlighting of ARB and Direct3D 9 assembly, and the line/segment model the
//! code views draw.
//!
//! [`tokens`] classifies every non-blank piece of a program; [`lines`] cuts the text into
//! lines of styled [`Seg`]ments, overlaying marks (diagnostic squiggles, changed operands)
//! on top of the token classes. Unknown text is kept as plain text: highlighting never
//! fails and never drops characters, so the overlay always lines up with the textarea.

use hoist_asm::Dialect;
use hoist_asm::ir::TexTarget;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Comment,
    Header,
    /// Declarations and directives: `PARAM TEMP … END`, `def dcl_*`, texture targets.
    Keyword,
    Opcode,
    Register,
    Number,
    Swizzle,
    /// ARB names.
    Ident,
    Punct,
}

impl Kind {
    pub fn class(self) -> &'static str {
        match self {
            Kind::Comment => "tk-com",
            Kind::Header => "tk-hdr",
            Kind::Keyword => "tk-kw",
            Kind::Opcode => "tk-op",
            Kind::Register => "tk-reg",
            Kind::Number => "tk-num",
            Kind::Swizzle => "tk-sw",
            Kind::Ident => "tk-id",
            Kind::Punct => "tk-p",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub range: Range<usize>,
    pub kind: Kind,
}

const ARB_KEYWORDS: [&str; 8] = [
    "PARAM", "TEMP", "ATTRIB", "OUTPUT", "ALIAS", "ADDRESS", "OPTION", "END",
];
const ARB_BINDINGS: [&str; 6] = [
    "vertex", "fragment", "result", "state", "program", "texture",
];

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `w` names a D3D9 register (`r0`, `c12`, `oPos`, `vFace`, ...).
fn is_d3d_register(w: &str) -> bool {
    let named = [
        "oPos", "oFog", "oPts", "oDepth", "vPos", "vFace", "aL", "a0", "p0",
    ];
    if named.iter().any(|n| n.eq_ignore_ascii_case(w)) {
        return true;
    }
    let lower = w.to_ascii_lowercase();
    for prefix in ["ot", "od", "oc", "r", "c", "v", "t", "s", "i", "b", "o"] {
        if let Some(rest) = lower.strip_prefix(prefix)
            && !rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_digit())
        {
            return true;
        }
    }
    false
}

fn is_swizzle(w: &str) -> bool {
    (1..=4).contains(&w.len())
        && (w.bytes().all(|b| b"xyzw".contains(&b)) || w.bytes().all(|b| b"rgba".contains(&b)))
}

/// Classifies the program text. `dialect` decides comment markers and statement ends; for
/// text that is neither, pass the detected dialect or [`Dialect::D3d9`].
pub fn tokens(src: &str, dialect: Dialect) -> Vec<Token> {
    let mut s = Scan {
        src,
        b: src.as_bytes(),
        arb: dialect == Dialect::Arb,
        i: 0,
        stmt: true,
        seen_header: false,
        after_reg: false,
        out: Vec::new(),
    };
    while s.i < s.b.len() {
        let c = s.b[s.i];
        if c == b'\n' {
            if !s.arb {
                s.stmt = true;
            }
            s.after_reg = false;
            s.i += 1;
        } else if c.is_ascii_whitespace() {
            s.i += 1;
        } else if !(s.comment(c) || s.header(c) || s.number(c) || s.swizzle(c) || s.word(c)) {
            s.punct(c);
        }
    }
    s.out
}

/// Whether `w` names a texture target (`2D`, `CUBE`, ...; ARB spells them out).
fn is_target(w: &str) -> bool {
    TexTarget::from_arb_name(w).is_some()
}

/// The scanner's state: position, and what the text so far says about the next word.
struct Scan<'a> {
    src: &'a str,
    b: &'a [u8],
    arb: bool,
    i: usize,
    /// The next word starts a statement (opcode or declaration).
    stmt: bool,
    seen_header: bool,
    /// The previous token was a register (a following `.xy` is a swizzle).
    after_reg: bool,
    out: Vec<Token>,
}

impl Scan<'_> {
    fn push(&mut self, range: Range<usize>, kind: Kind) {
        self.out.push(Token { range, kind });
    }

    /// A line or block comment.
    fn comment(&mut self, c: u8) -> bool {
        let (b, start) = (self.b, self.i);
        let line_comment = if self.arb {
            c == b'#'
        } else {
            c == b';' || (c == b'/' && b.get(start + 1) == Some(&b'/'))
        };
        if line_comment {
            let end = self.src[start..].find('\n').map_or(b.len(), |e| start + e);
            self.i = end;
        } else if c == b'/' && b.get(start + 1) == Some(&b'*') {
            self.i = self.src[start + 2..]
                .find("*/")
                .map_or(b.len(), |e| start + 2 + e + 2);
        } else {
            return false;
        }
        self.push(start..self.i, Kind::Comment);
        true
    }

    /// An ARB header (`!!ARBfp1.0`).
    fn header(&mut self, c: u8) -> bool {
        if c != b'!' || !self.src[self.i..].starts_with("!!") {
            return false;
        }
        let start = self.i;
        while self.i < self.b.len() && !self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
        self.push(start..self.i, Kind::Header);
        self.seen_header = true;
        self.stmt = true;
        true
    }

    /// A number, or a word that starts with a digit (`2D`).
    fn number(&mut self, c: u8) -> bool {
        let b = self.b;
        let start = self.i;
        let dot_number = c == b'.' && b.get(start + 1).is_some_and(u8::is_ascii_digit);
        if !(c.is_ascii_digit() || (dot_number && !self.after_reg)) {
            return false;
        }
        let mut j = start;
        while j < b.len() && (is_word(b[j]) || b[j] == b'.') {
            j += 1;
        }
        if is_target(&self.src[start..j]) {
            self.push(start..j, Kind::Keyword);
            self.i = j;
            return true;
        }
        self.i = scan_number(b, start);
        self.push(start..self.i, Kind::Number);
        self.after_reg = false;
        true
    }

    /// `.xyzw` after a register (or a named component).
    fn swizzle(&mut self, c: u8) -> bool {
        if c != b'.' || !self.after_reg {
            return false;
        }
        let start = self.i;
        let mut j = start + 1;
        while j < self.b.len() && is_word(self.b[j]) {
            j += 1;
        }
        let kind = if is_swizzle(&self.src[start + 1..j]) {
            Kind::Swizzle
        } else {
            Kind::Register
        };
        self.push(start..j, kind);
        self.i = j;
        true
    }

    /// A word: a D3D9 header, an ARB binding, an opcode or declaration, a register, a
    /// texture target or a name.
    fn word(&mut self, c: u8) -> bool {
        if !is_word(c) {
            return false;
        }
        let (b, start) = (self.b, self.i);
        let mut j = start;
        while j < b.len() && is_word(b[j]) {
            j += 1;
        }
        if self.d3d_header(j) {
            return true;
        }
        let w = &self.src[start..j];
        let kind;
        if self.arb && (ARB_BINDINGS.contains(&w) && b.get(j) == Some(&b'.') || w == "texture") {
            j = self.binding_end(j);
            kind = Kind::Register;
        } else if self.stmt {
            kind = self.statement_kind(w);
            self.stmt = false;
        } else if is_target(w) {
            kind = Kind::Keyword;
        } else if !self.arb && is_d3d_register(w) {
            kind = Kind::Register;
        } else {
            kind = Kind::Ident;
        }
        self.push(start..j, kind);
        self.after_reg = matches!(kind, Kind::Register | Kind::Ident);
        self.i = j;
        true
    }

    /// A D3D9 version line at the start (headers may use dots: `ps.2.0`); `word_end` ends
    /// the first word.
    fn d3d_header(&mut self, word_end: usize) -> bool {
        if self.arb || self.seen_header || !self.stmt {
            return false;
        }
        let mut k = word_end;
        while k < self.b.len() && (is_word(self.b[k]) || self.b[k] == b'.') {
            k += 1;
        }
        let word = self.src[self.i..k].replace('.', "_").to_ascii_lowercase();
        if hoist_asm::detect_profile(&word).is_none() {
            return false;
        }
        self.push(self.i..k, Kind::Header);
        self.seen_header = true;
        self.i = k;
        true
    }

    /// The end of an ARB binding (`vertex.texcoord[0]`, `state.matrix.mvp.row[1]`,
    /// `texture[0]`) whose first word ends at `j`, before a trailing swizzle.
    fn binding_end(&self, mut j: usize) -> usize {
        let b = self.b;
        while j < b.len() && (is_word(b[j]) || b"[].".contains(&b[j])) {
            if b[j] == b'.' {
                let mut k = j + 1;
                while k < b.len() && is_word(b[k]) {
                    k += 1;
                }
                let after = b.get(k).copied().unwrap_or(b' ');
                if is_swizzle(&self.src[j + 1..k]) && !b"[.".contains(&after) {
                    break;
                }
            }
            j += 1;
        }
        j
    }

    /// The first word of a statement: a declaration keyword or an opcode.
    fn statement_kind(&self, w: &str) -> Kind {
        let base = w.split('_').next().unwrap_or(w);
        let declaration = if self.arb {
            ARB_KEYWORDS.contains(&w)
        } else {
            matches!(
                base.to_ascii_lowercase().as_str(),
                "def" | "defi" | "defb" | "dcl"
            )
        };
        if declaration {
            Kind::Keyword
        } else {
            Kind::Opcode
        }
    }

    /// Punctuation. `;` ends an ARB statement; D3D9 predicates `(p0.x)` precede opcodes.
    fn punct(&mut self, c: u8) {
        let i = self.i;
        if self.arb && c == b';' {
            self.stmt = true;
        }
        if !self.arb && c == b'(' && self.stmt {
            let end = self.src[i..].find(')').map_or(self.b.len(), |e| i + e + 1);
            self.push(i..end, Kind::Register);
            self.i = end;
            return;
        }
        self.after_reg = c == b']';
        self.push(i..i + 1, Kind::Punct);
        self.i += self.src[i..].chars().next().map_or(1, char::len_utf8);
    }
}

fn scan_number(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    // Swallow a stray suffix so a malformed literal stays one token.
    while i < b.len() && is_word(b[i]) {
        i += 1;
    }
    i
}

/// The largest char boundary of `s` at or below `i` (spans may be stale after an edit).
pub fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A styled piece of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seg {
    pub text: String,
    /// Space-separated CSS classes (token class, then mark classes).
    pub class: String,
}

/// A mark over a byte range (may span lines): `class` is added to the covered segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub range: Range<usize>,
    pub class: &'static str,
}

/// Cuts `src` into lines of segments with token classes and marks. An empty mark range
/// marks one character (or a visible placeholder at the end of a line).
pub fn lines(src: &str, toks: &[Token], marks: &[Mark]) -> Vec<Vec<Seg>> {
    // Boundaries: token edges, mark edges, line breaks.
    let n = src.len();
    let tok_kind = |pos: usize| -> Option<Kind> {
        // Tokens are sorted; find the one covering pos.
        let i = toks.partition_point(|t| t.range.end <= pos);
        toks.get(i)
            .filter(|t| t.range.start <= pos && pos < t.range.end)
            .map(|t| t.kind)
    };
    let mark_ranges: Vec<(Range<usize>, &'static str)> = marks
        .iter()
        .map(|m| {
            let s = floor_boundary(src, m.range.start);
            let mut e = floor_boundary(src, m.range.end).max(s);
            if e == s && s < n && src.as_bytes()[s] != b'\n' {
                e = s + src[s..].chars().next().map_or(1, char::len_utf8);
            }
            (s..e, m.class)
        })
        .collect();
    let marks_at = |pos: usize| -> Vec<&'static str> {
        mark_ranges
            .iter()
            .filter(|(r, _)| r.start <= pos && pos < r.end)
            .map(|(_, c)| *c)
            .collect()
    };
    let mut out = vec![Vec::new()];
    let mut cur_class: Option<String> = None;
    let mut buf = String::new();
    for (pos, ch) in src.char_indices() {
        if ch == '\n' {
            if let Some(c) = cur_class.take() {
                out.last_mut().unwrap().push(Seg {
                    text: std::mem::take(&mut buf),
                    class: c,
                });
            }
            out.push(Vec::new());
            continue;
        }
        let mut class = tok_kind(pos).map_or(String::new(), |k| k.class().to_string());
        for m in marks_at(pos) {
            if !class.is_empty() {
                class.push(' ');
            }
            class.push_str(m);
        }
        if cur_class.as_ref() != Some(&class) {
            if let Some(c) = cur_class.take() {
                out.last_mut().unwrap().push(Seg {
                    text: std::mem::take(&mut buf),
                    class: c,
                });
            }
            cur_class = Some(class);
        }
        buf.push(ch);
    }
    if let Some(c) = cur_class.take() {
        out.last_mut().unwrap().push(Seg {
            text: buf,
            class: c,
        });
    }
    // Marks that start at the end of a line (e.g. "expected an operand" at end of input)
    // get a visible placeholder so the squiggle shows.
    let idx = hoist_asm::diag::LineIndex::new(src);
    for (r, class) in &mark_ranges {
        if r.is_empty() {
            let lc = idx.line_col(r.start);
            if let Some(line) = out.get_mut(lc.line as usize - 1) {
                line.push(Seg {
                    text: " ".into(),
                    class: format!("tk-end {class}"),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str, d: Dialect) -> Vec<(String, Kind)> {
        tokens(src, d)
            .into_iter()
            .map(|t| (src[t.range].to_string(), t.kind))
            .collect()
    }

    #[test]
    fn d3d9_line() {
        let k = kinds(
            "ps_2_0\ndef c0, 0.25, 0, 0, 0\ntexld r2, r0, s0 ; fetch\n",
            Dialect::D3d9,
        );
        let find = |s: &str| k.iter().find(|(t, _)| t == s).map(|(_, k)| *k);
        assert_eq!(find("ps_2_0"), Some(Kind::Header));
        assert_eq!(find("def"), Some(Kind::Keyword));
        assert_eq!(find("0.25"), Some(Kind::Number));
        assert_eq!(find("texld"), Some(Kind::Opcode));
        assert_eq!(find("r2"), Some(Kind::Register));
        assert_eq!(find("s0"), Some(Kind::Register));
        assert_eq!(find("; fetch"), Some(Kind::Comment));
    }

    #[test]
    fn d3d9_swizzles_modifiers_and_predicates() {
        let k = kinds("vs_2_x\n(p0.x) mul_sat r0.xy, -c3.x, oT0\n", Dialect::D3d9);
        let find = |s: &str| k.iter().find(|(t, _)| t == s).map(|(_, k)| *k);
        assert_eq!(find("(p0.x)"), Some(Kind::Register));
        assert_eq!(find("mul_sat"), Some(Kind::Opcode));
        assert_eq!(find(".xy"), Some(Kind::Swizzle));
        assert_eq!(find("c3"), Some(Kind::Register));
        assert_eq!(find("oT0"), Some(Kind::Register));
    }

    #[test]
    fn arb_statements_bindings_and_comments() {
        let src = "!!ARBfp1.0\n# c\nPARAM k = {0.5, 1, 2, 3};\nTEMP a;\n\
                   TEX a, fragment.texcoord[0], texture[0], 2D;\nMOV result.color, a.xyzw;\nEND\n";
        let k = kinds(src, Dialect::Arb);
        let find = |s: &str| k.iter().find(|(t, _)| t == s).map(|(_, k)| *k);
        assert_eq!(find("!!ARBfp1.0"), Some(Kind::Header));
        assert_eq!(find("# c"), Some(Kind::Comment));
        assert_eq!(find("PARAM"), Some(Kind::Keyword));
        assert_eq!(find("TEX"), Some(Kind::Opcode));
        assert_eq!(find("fragment.texcoord[0]"), Some(Kind::Register));
        assert_eq!(find("texture[0]"), Some(Kind::Register));
        assert_eq!(find("2D"), Some(Kind::Keyword));
        // Every target the IR knows, by its ARB name.
        let k = kinds(
            "!!ARBfp1.0\nTEX a, b, texture[1], SHADOWRECT;\n",
            Dialect::Arb,
        );
        assert!(
            k.contains(&("SHADOWRECT".to_string(), Kind::Keyword)),
            "{k:?}"
        );
        assert_eq!(find("result.color"), Some(Kind::Register));
        assert_eq!(find(".xyzw"), Some(Kind::Swizzle));
        assert_eq!(find("END"), Some(Kind::Keyword));
        assert_eq!(find("a"), Some(Kind::Ident));
    }

    #[test]
    fn lines_keep_every_character_and_apply_marks() {
        let src = "ps_2_0\nmov oC0, r0 ; é\n\nbad";
        let toks = tokens(src, Dialect::D3d9);
        let marks = [Mark {
            range: 11..14,
            class: "sq",
        }];
        let ls = lines(src, &toks, &marks);
        assert_eq!(ls.len(), 4);
        for (l, want) in ls.iter().zip(src.split('\n')) {
            let text: String = l.iter().map(|s| s.text.as_str()).collect();
            assert_eq!(text, want);
        }
        let marked: Vec<&Seg> = ls[1].iter().filter(|s| s.class.contains("sq")).collect();
        assert_eq!(marked[0].text, "oC0");
        assert!(marked[0].class.contains("tk-reg"));
    }

    #[test]
    fn never_panics_on_odd_text_and_stale_marks() {
        let alphabet: Vec<char> = "ab0.;#/*!\n ,[]{}()é✓😀_-+\tx".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        for _ in 0..2000 {
            let len = next(40);
            let src: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            for d in [Dialect::Arb, Dialect::D3d9] {
                let toks = tokens(&src, d);
                let marks: Vec<Mark> = (0..next(3))
                    .map(|_| {
                        let a = next(src.len() + 8);
                        Mark {
                            range: a..a + next(6),
                            class: "m",
                        }
                    })
                    .collect();
                let ls = lines(&src, &toks, &marks);
                let text: String = ls
                    .iter()
                    .map(|l| {
                        l.iter()
                            .filter(|s| !s.class.contains("tk-end"))
                            .map(|s| s.text.as_str())
                            .collect::<String>()
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                assert_eq!(text, src);
            }
        }
    }

    #[test]
    fn empty_mark_at_end_of_line_is_visible() {
        let src = "mov r0,\n";
        let ls = lines(
            src,
            &tokens(src, Dialect::D3d9),
            &[Mark {
                range: 7..7,
                class: "sq",
            }],
        );
        assert!(ls[0].iter().any(|s| s.class.contains("tk-end")));
    }
}

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
use std::rc::Rc;

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

/// What the scan of a line starts from, carried over line breaks: whether the next word
/// starts a statement, whether the header was seen, whether a block comment is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineState {
    stmt: bool,
    seen_header: bool,
    in_comment: bool,
}

impl LineState {
    /// The state at the start of a text.
    pub const START: LineState = LineState {
        stmt: true,
        seen_header: false,
        in_comment: false,
    };
}

/// Classifies one line (without its line break), starting from `state`; returns its tokens
/// (offsets within the line) and the state the next line starts from.
pub fn line_tokens(line: &str, dialect: Dialect, state: LineState) -> (Vec<Token>, LineState) {
    let mut s = Scan {
        src: line,
        b: line.as_bytes(),
        arb: dialect == Dialect::Arb,
        i: 0,
        stmt: state.stmt,
        seen_header: state.seen_header,
        in_comment: state.in_comment,
        after_reg: false,
        out: Vec::new(),
    };
    if s.in_comment {
        s.block_comment_from(0);
    }
    while s.i < s.b.len() {
        let c = s.b[s.i];
        if c.is_ascii_whitespace() {
            s.i += 1;
        } else if !(s.comment(c) || s.header(c) || s.number(c) || s.swizzle(c) || s.word(c)) {
            s.punct(c);
        }
    }
    let next = LineState {
        stmt: s.stmt || !s.arb,
        seen_header: s.seen_header,
        in_comment: s.in_comment,
    };
    (s.out, next)
}

/// Classifies one line of a scene (piglit's shader_runner format): `#` comments, section
/// headers, the command word, numbers, the rest as names and punctuation.
pub fn scene_line_tokens(line: &str) -> Vec<Token> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut first = true;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let kind = if c == b'#' {
            i = b.len();
            Kind::Comment
        } else if c == b'[' && first {
            i = line.find(']').map_or(b.len(), |e| e + 1);
            Kind::Header
        } else if c.is_ascii_digit()
            || ((c == b'-' || c == b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = scan_number(b, i + 1);
            Kind::Number
        } else if is_word(c) {
            while i < b.len() && (is_word(b[i]) || b[i] == b'.') {
                i += 1;
            }
            if first { Kind::Opcode } else { Kind::Ident }
        } else {
            i += line[i..].chars().next().map_or(1, char::len_utf8);
            Kind::Punct
        };
        first = false;
        out.push(Token {
            range: start..i,
            kind,
        });
    }
    out
}

/// Classifies the program text. `dialect` decides comment markers and statement ends; for
/// text that is neither, pass the detected dialect or [`Dialect::D3d9`]. The text is
/// scanned line by line ([`line_tokens`]), so no token crosses a line break.
pub fn tokens(src: &str, dialect: Dialect) -> Vec<Token> {
    let mut state = LineState::START;
    let mut out = Vec::new();
    let mut offset = 0;
    for line in src.split('\n') {
        let (toks, next) = line_tokens(line, dialect, state);
        out.extend(toks.into_iter().map(|t| Token {
            range: t.range.start + offset..t.range.end + offset,
            kind: t.kind,
        }));
        state = next;
        offset += line.len() + 1;
    }
    out
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
    /// Inside a block comment that started on an earlier line.
    in_comment: bool,
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
            self.i = b.len();
            self.push(start..self.i, Kind::Comment);
        } else if c == b'/' && b.get(start + 1) == Some(&b'*') {
            self.in_comment = true;
            self.i = start + 2;
            self.block_comment_from(start);
        } else {
            return false;
        }
        true
    }

    /// The rest of an open block comment from the scan position (its text from `start`):
    /// up to its `*/`, or to the end of the line, where it stays open.
    fn block_comment_from(&mut self, start: usize) {
        match self.src[self.i..].find("*/") {
            Some(e) => {
                self.i += e + 2;
                self.in_comment = false;
            }
            None => self.i = self.b.len(),
        }
        if self.i > start {
            self.push(start..self.i, Kind::Comment);
        }
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

/// A mark within one line: a byte range of the line (empty: a placeholder at its end).
pub type LineMark = (Range<usize>, &'static str);

/// The marks of each line of `src` (index: 0-based line), cut at line breaks. An empty mark
/// range marks one character, or a visible placeholder at the end of a line.
pub fn marks_by_line(src: &str, marks: &[Mark]) -> Vec<Vec<LineMark>> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut out = vec![Vec::new(); starts.len()];
    let n = src.len();
    for m in marks {
        let s = floor_boundary(src, m.range.start);
        let mut e = floor_boundary(src, m.range.end).max(s);
        if e == s && s < n && src.as_bytes()[s] != b'\n' {
            e = s + src[s..].chars().next().map_or(1, char::len_utf8);
        }
        let first = starts.partition_point(|&l| l <= s) - 1;
        for (line, &start) in starts.iter().enumerate().skip(first) {
            let end = starts.get(line + 1).map_or(n, |&next| next - 1);
            if start > e || (start == e && e > s) {
                break;
            }
            let (a, b) = (s.max(start) - start, e.min(end) - start);
            if a < b || s == e {
                out[line].push((a..b, m.class));
            }
        }
    }
    out
}

/// The segments of one line (without its line break): its tokens' classes (offsets within
/// the line), then the classes of the marks over them; an empty mark is a placeholder at
/// the end. Neighbours of the same classes merge.
pub fn line_segs(line: &str, toks: &[Token], marks: &[LineMark]) -> Vec<Seg> {
    let mut cuts: Vec<usize> = vec![0, line.len()];
    for t in toks {
        cuts.extend([t.range.start, t.range.end]);
    }
    for (r, _) in marks {
        cuts.extend([r.start, r.end]);
    }
    cuts.retain(|&c| c <= line.len() && line.is_char_boundary(c));
    hoist_asm::sort::ord(&mut cuts);
    cuts.dedup();
    let mut out: Vec<Seg> = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let i = toks.partition_point(|t| t.range.end <= a);
        let mut class = toks
            .get(i)
            .filter(|t| t.range.start <= a)
            .map_or(String::new(), |t| t.kind.class().to_string());
        for (_, c) in marks.iter().filter(|(r, _)| r.start <= a && a < r.end) {
            if !class.is_empty() {
                class.push(' ');
            }
            class.push_str(c);
        }
        match out.last_mut() {
            Some(last) if last.class == class => last.text.push_str(&line[a..b]),
            _ => out.push(Seg {
                text: line[a..b].to_string(),
                class,
            }),
        }
    }
    for (_, c) in marks.iter().filter(|(r, _)| r.is_empty()) {
        out.push(Seg {
            text: " ".into(),
            class: format!("tk-end {c}"),
        });
    }
    out
}

/// Cuts `src` into lines of segments with token classes and marks (see [`marks_by_line`]).
pub fn lines(src: &str, toks: &[Token], marks: &[Mark]) -> Vec<Vec<Seg>> {
    let marks = marks_by_line(src, marks);
    let mut offset = 0;
    let mut rest = toks;
    src.split('\n')
        .zip(marks)
        .map(|(line, marks)| {
            let end = offset + line.len();
            let n = rest.partition_point(|t| t.range.start < end.max(offset + 1));
            let local: Vec<Token> = rest[..n]
                .iter()
                .filter(|t| t.range.start >= offset && t.range.end <= end)
                .map(|t| Token {
                    range: t.range.start - offset..t.range.end - offset,
                    kind: t.kind,
                })
                .collect();
            rest = &rest[n..];
            offset = end + 1;
            line_segs(line, &local, &marks)
        })
        .collect()
}

/// One line as last highlighted: its text, the scan states around it, its tokens and its
/// segments without marks.
#[derive(Clone, Debug)]
pub struct CachedLine {
    pub text: String,
    entry: LineState,
    exit: LineState,
    pub toks: Vec<Token>,
    pub segs: Rc<Vec<Seg>>,
}

impl CachedLine {
    fn scan(text: &str, dialect: Option<Dialect>, entry: LineState) -> CachedLine {
        let (toks, exit) = match dialect {
            Some(d) => line_tokens(text, d, entry),
            None => (scene_line_tokens(text), entry),
        };
        let segs = Rc::new(line_segs(text, &toks, &[]));
        CachedLine {
            text: text.to_string(),
            entry,
            exit,
            toks,
            segs,
        }
    }
}

/// Highlighting kept from one version of a text to the next: an edit scans again only the
/// lines it changed, and the lines after them whose starting state it changed (an opened
/// block comment, an ARB statement left open); every other line keeps its tokens and its
/// segments (the same `Rc`, so a view can tell it is unchanged by pointer).
#[derive(Debug, Default)]
pub struct Incremental {
    /// The language of the lines kept: a program's dialect, or scene text (`None`).
    lang: Option<Option<Dialect>>,
    lines: Vec<CachedLine>,
}

impl Incremental {
    /// Brings the lines up to `src`, a program in `dialect` or a scene (`None`); returns
    /// how many lines were scanned.
    pub fn update(&mut self, src: &str, dialect: Option<Dialect>) -> usize {
        if self.lang != Some(dialect) {
            self.lines.clear();
            self.lang = Some(dialect);
        }
        let new: Vec<&str> = src.split('\n').collect();
        let old = std::mem::take(&mut self.lines);
        let prefix = old
            .iter()
            .zip(&new)
            .take_while(|(o, n)| o.text == **n)
            .count();
        let room = old.len().min(new.len()) - prefix;
        let suffix = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take(room)
            .take_while(|(o, n)| o.text == **n)
            .count();
        let old_len = old.len();
        let mut old = old.into_iter();
        let mut out: Vec<CachedLine> = old.by_ref().take(prefix).collect();
        let tail = old.skip(old_len - prefix - suffix);
        let mut state = out.last().map_or(LineState::START, |c| c.exit);
        let mut scanned = 0;
        for line in &new[prefix..new.len() - suffix] {
            let c = CachedLine::scan(line, dialect, state);
            state = c.exit;
            out.push(c);
            scanned += 1;
        }
        for c in tail {
            let c = if c.entry == state {
                c
            } else {
                scanned += 1;
                CachedLine::scan(&c.text, dialect, state)
            };
            state = c.exit;
            out.push(c);
        }
        self.lines = out;
        scanned
    }

    pub fn lines(&self) -> &[CachedLine] {
        &self.lines
    }
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

    #[test]
    fn incremental_highlighting_matches_a_full_scan_after_random_edits() {
        let pieces = [
            "a",
            "0.5",
            ";",
            "# c",
            "/*",
            "*/",
            "\n",
            " ",
            "r0",
            ".xy",
            "MOV",
            "ps_2_0",
            "!!ARBfp1.0",
            "é",
            "[",
            "]",
            ",",
            "(",
            ")",
            "//",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as usize
        };
        for d in [Dialect::Arb, Dialect::D3d9] {
            let mut inc = Incremental::default();
            let mut src = String::new();
            for _ in 0..400 {
                let at = floor_boundary(&src, next(src.len() + 1));
                if next(3) == 0 && !src.is_empty() {
                    let end = floor_boundary(&src, at + next(8));
                    src.replace_range(at..end.max(at), "");
                } else {
                    let ins: String = (0..1 + next(4))
                        .map(|_| pieces[next(pieces.len())])
                        .collect();
                    src.insert_str(at, &ins);
                }
                inc.update(&src, Some(d));
                let full = lines(&src, &tokens(&src, d), &[]);
                let got: Vec<Vec<Seg>> = inc.lines().iter().map(|l| (*l.segs).clone()).collect();
                assert_eq!(got, full, "{d:?} {src:?}");
            }
        }
    }

    #[test]
    fn an_edit_scans_only_the_lines_it_changes() {
        let line = "mad r0.y, r0.y, c0.z, c0.y // step\n";
        let mut src = format!("ps_2_0\n{}", line.repeat(2000));
        let mut inc = Incremental::default();
        assert_eq!(inc.update(&src, Some(Dialect::D3d9)), 2002);
        let old: Vec<Rc<Vec<Seg>>> = inc.lines().iter().map(|l| l.segs.clone()).collect();
        src.insert(7 + 40 * line.len() + 3, 'x');
        assert_eq!(inc.update(&src, Some(Dialect::D3d9)), 1);
        let same = inc
            .lines()
            .iter()
            .zip(&old)
            .filter(|(l, o)| Rc::ptr_eq(&l.segs, o))
            .count();
        assert_eq!(same, 2001);
        // A new line is one scan; opening a block comment rescans what it comments out,
        // and closing it rescans the same lines again.
        src.insert_str(7, "add r1, r1, r1\n");
        assert_eq!(inc.update(&src, Some(Dialect::D3d9)), 1);
        src.insert_str(7, "/*");
        assert_eq!(inc.update(&src, Some(Dialect::D3d9)), 2002);
        src.replace_range(7..9, "");
        assert_eq!(inc.update(&src, Some(Dialect::D3d9)), 2002);
        // An ARB statement left open carries over to the next line only.
        let mut arb = "!!ARBfp1.0\nTEMP a;\nMOV a, a;\nMOV a, a;\nEND\n".to_string();
        assert_eq!(inc.update(&arb, Some(Dialect::Arb)), 6);
        arb = arb.replacen("TEMP a;", "TEMP a", 1);
        assert_eq!(inc.update(&arb, Some(Dialect::Arb)), 2);
        assert_eq!(inc.lines()[2].toks[0].kind, Kind::Ident);
    }

    #[test]
    fn scene_lines_are_highlighted() {
        let src = "[test]\n# note\nuniform vec4 k 0.5 -1 2.0e3\ndraw rect -1 -1 2 2\n";
        let mut inc = Incremental::default();
        assert_eq!(inc.update(src, None), 5);
        let kinds: Vec<Vec<(String, Kind)>> = inc
            .lines()
            .iter()
            .map(|l| {
                l.toks
                    .iter()
                    .map(|t| (l.text[t.range.clone()].to_string(), t.kind))
                    .collect()
            })
            .collect();
        assert_eq!(kinds[0], [("[test]".to_string(), Kind::Header)]);
        assert_eq!(kinds[1], [("# note".to_string(), Kind::Comment)]);
        assert_eq!(kinds[2][0], ("uniform".to_string(), Kind::Opcode));
        assert_eq!(kinds[2][3], ("0.5".to_string(), Kind::Number));
        assert_eq!(kinds[2][4], ("-1".to_string(), Kind::Number));
        assert_eq!(kinds[3][1], ("rect".to_string(), Kind::Ident));
        // The same text as a program is another language: scanned again.
        assert_eq!(inc.update(src, Some(Dialect::Arb)), 5);
    }
}

//! Diagnostics: what front ends and validators report, and how it is shown.
//!
//! Front ends raise small error values that hold spans and payloads; each converts to a
//! [`Diagnostic`] in one place. A diagnostic carries everything a user interface needs — a
//! code, a message, the primary span with a label, secondary spans, notes and an optional
//! hint — and [`render`] prints it rustc-style with codespan-reporting. The playground
//! uses [`LineIndex`] to place the same diagnostics inline. A front end returns its
//! program with its diagnostics as [`Parsed`].

use crate::ir::Program;
use crate::span::Span;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, LabelStyle};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// A diagnostic's stable code: for a program, a letter (`E` error, `W` warning) and four
/// digits, `E0102`; for a text that is not a program, one of [`Code::WORDS`] (`scene`, the
/// page's scene editor; `linear`, its linear-system editor). Compared as a value
/// ([`Code::TARGET_LIMIT`] and the like name the codes code looks for); written and read as
/// its text. The front ends write their codes with [`code!`], checked when compiled.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Code(Repr);

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Repr {
    Numbered {
        letter: u8,
        number: u16,
    },
    /// An index into [`Code::WORDS`].
    Word(u8),
}

impl Code {
    /// A program over its ARB target's limits (the CLI and the page offer a larger target).
    pub const TARGET_LIMIT: Code = Code::new("E0301");
    /// More temporaries than the profile's limit (`passes::fit` fixes it).
    pub const TEMP_LIMIT: Code = Code::new("E0302");
    /// The codes that are words, not numbers.
    pub const WORDS: [&'static str; 2] = ["scene", "linear"];
    /// A scene file's error.
    pub const SCENE: Code = Code::new("scene");
    /// A linear system's error.
    pub const LINEAR: Code = Code::new("linear");

    /// The code written `text`; panics unless it is a capital letter and four digits or one
    /// of [`Code::WORDS`] (codes are constants of the front ends).
    pub const fn new(text: &str) -> Code {
        match Code::parse(text) {
            Some(c) => c,
            None => panic!(
                "a diagnostic code is a capital letter and four digits, or a word of Code::WORDS"
            ),
        }
    }

    /// Whether this is a warning's code (`W` and four digits).
    pub const fn is_warning(self) -> bool {
        matches!(self.0, Repr::Numbered { letter: b'W', .. })
    }

    /// A resource limit of the profile (`E03xx`, `checks`): a larger target may fit.
    pub const fn is_limit(self) -> bool {
        matches!(self.0, Repr::Numbered { letter: b'E', number } if number / 100 == 3)
    }

    pub const fn parse(text: &str) -> Option<Code> {
        let b = text.as_bytes();
        let mut w = 0;
        while w < Code::WORDS.len() {
            if same(b, Code::WORDS[w].as_bytes()) {
                return Some(Code(Repr::Word(w as u8)));
            }
            w += 1;
        }
        if b.len() != 5 || !b[0].is_ascii_uppercase() {
            return None;
        }
        let mut number = 0u16;
        let mut i = 1;
        while i < 5 {
            if !b[i].is_ascii_digit() {
                return None;
            }
            number = number * 10 + (b[i] - b'0') as u16;
            i += 1;
        }
        Some(Code(Repr::Numbered {
            letter: b[0],
            number,
        }))
    }
}

/// The [`Code`] written `$text`, made and checked when compiled: `code!("E0102")`.
///
/// ```
/// assert_eq!(hoist_asm::code!("E0102").to_string(), "E0102");
/// ```
///
/// ```compile_fail
/// let _ = hoist_asm::code!("E01"); // not a letter and four digits: does not compile
/// ```
#[macro_export]
macro_rules! code {
    ($text:literal) => {
        const { $crate::diag::Code::new($text) }
    };
}
pub use code;

/// Byte-wise equality, for `const fn`.
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Repr::Numbered { letter, number } => write!(f, "{}{number:04}", letter as char),
            Repr::Word(w) => f.write_str(Code::WORDS[w as usize]),
        }
    }
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// Tests compare a code with its text.
impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        Code::parse(other) == Some(*self)
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        let text = String::deserialize(d)?;
        Code::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a diagnostic code")))
    }
}

/// A message about a span of program text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code, e.g. `E0102`.
    pub code: Code,
    pub message: String,
    pub span: Span,
    /// Label under the primary span.
    pub label: String,
    /// Secondary spans with labels (e.g. "first declared here").
    pub related: Vec<(Span, String)>,
    pub notes: Vec<String>,
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            related: Vec::new(),
            notes: Vec::new(),
            hint: None,
        }
    }

    pub fn warning(code: Code, message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message, span)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.related.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// 1-based line and column of the primary span's start.
    pub fn position(&self, source: &str) -> LineCol {
        LineIndex::new(source).line_col(self.span.start as usize)
    }
}

/// True when any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// The outcome of [`crate::parse`]: a program when there were no errors, and all diagnostics
/// (errors and warnings) in source order.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// The program, or the diagnostics when parsing failed.
    pub fn into_result(self) -> Result<Program, Vec<Diagnostic>> {
        match self.program {
            Some(p) if !has_errors(&self.diagnostics) => Ok(p),
            _ => Err(self.diagnostics),
        }
    }
}

/// 1-based line and column (column counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Byte offsets of line starts, for mapping spans to lines and columns.
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    source: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(source: &'a str) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { source, starts }
    }

    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.source.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let mut end = offset;
        while !self.source.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.source[start..end].chars().count();
        LineCol {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte range of 1-based line `line`, without its line break.
    pub fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let i = line.saturating_sub(1).min(self.starts.len() - 1);
        let start = self.starts[i];
        let mut end = self.starts.get(i + 1).copied().unwrap_or(self.source.len());
        let bytes = self.source.as_bytes();
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        start..end
    }
}

fn clamp_range(span: Span, len: usize) -> std::ops::Range<usize> {
    if span.is_none() {
        return len..len;
    }
    let s = (span.start as usize).min(len);
    let e = (span.end as usize).clamp(s, len);
    s..e
}

fn to_codespan(d: &Diagnostic, len: usize) -> CsDiagnostic<()> {
    let cs = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
        Severity::Note => CsDiagnostic::note(),
    };
    let mut labels = vec![
        Label::new(LabelStyle::Primary, (), clamp_range(d.span, len)).with_message(d.label.clone()),
    ];
    for (s, l) in &d.related {
        labels.push(Label::new(LabelStyle::Secondary, (), clamp_range(*s, len)).with_message(l));
    }
    let mut notes = d.notes.clone();
    if let Some(h) = &d.hint {
        notes.push(format!("help: {h}"));
    }
    cs.with_code(d.code.to_string())
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

/// Renders diagnostics rustc-style. `color` adds ANSI colours.
pub fn render(diags: &[Diagnostic], file_name: &str, source: &str, color: bool) -> String {
    use codespan_reporting::term::termcolor::{Ansi, NoColor};
    let file = SimpleFile::new(file_name, source);
    let config = Config::default();
    let mut out = Vec::new();
    for d in diags {
        let cs = to_codespan(d, source.len());
        let res = if color {
            term::emit(&mut Ansi::new(&mut out), &config, &file, &cs)
        } else {
            term::emit(&mut NoColor::new(&mut out), &config, &file, &cs)
        };
        if res.is_err() {
            out.extend_from_slice(format!("error[{}]: {}\n", d.code, d.message).as_bytes());
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {

    #[test]
    #[cfg(not(target_arch = "wasm32"))] // serde_json is a native dev-dependency
    fn codes_are_values_written_as_text() {
        assert!(Code::TARGET_LIMIT.is_limit() && Code::new("E0306").is_limit());
        assert!(!Code::new("E0201").is_limit() && !Code::new("W0302").is_limit());
        assert!(!Code::SCENE.is_limit());
        let c = Code::new("E0302");
        assert_eq!(c, Code::TEMP_LIMIT);
        assert_ne!(c, Code::TARGET_LIMIT);
        assert_eq!(c.to_string(), "E0302");
        assert_eq!(Code::new("W0007").to_string(), "W0007");
        for bad in ["", "E302", "e0302", "E03020", "E03x2"] {
            assert_eq!(Code::parse(bad), None, "{bad}");
        }
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, "\"E0302\"");
        assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), c);
        assert!(serde_json::from_str::<Code>("\"x\"").is_err());
        // The page's editors of texts that are not programs: words, kept as written.
        for (w, c) in Code::WORDS.iter().zip([Code::SCENE, Code::LINEAR]) {
            assert_eq!(Code::parse(w), Some(c));
            assert_eq!(c.to_string(), *w);
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), c);
            assert_ne!(c, Code::TARGET_LIMIT);
        }
        assert_ne!(Code::SCENE, Code::LINEAR);
        for bad in ["Scene", "scenes", "line"] {
            assert_eq!(Code::parse(bad), None, "{bad}");
        }
    }

    use super::*;

    #[test]
    fn line_col_counts_characters_and_crlf() {
        let src = "ab\r\ncé d\nx";
        let idx = LineIndex::new(src);
        assert_eq!(idx.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(idx.line_col(4), LineCol { line: 2, col: 1 });
        let d = src.find('d').unwrap();
        assert_eq!(idx.line_col(d), LineCol { line: 2, col: 4 });
        assert_eq!(idx.line_range(1), 0..2);
        assert_eq!(idx.line_col(src.len() + 10), LineCol { line: 3, col: 2 });
    }

    #[test]
    fn render_shows_code_message_and_hint() {
        let src = "MOV r0, foo;\n";
        let d = Diagnostic::error(code!("E0001"), "unknown name `foo`", Span::new(8, 11))
            .with_label("not declared")
            .with_hint("declare it with TEMP foo;");
        let out = render(&[d], "t.fp", src, false);
        assert!(out.contains("error[E0001]: unknown name `foo`"), "{out}");
        assert!(out.contains("t.fp:1:9"), "{out}");
        assert!(out.contains("help: declare it with TEMP foo;"), "{out}");
    }

    #[test]
    fn spans_past_the_end_do_not_panic() {
        let d = Diagnostic::error(code!("E0002"), "x", Span::new(100, 200));
        let out = render(&[d], "t", "abc", false);
        assert!(out.contains("E0002"));
    }
}

//! Recursive-descent parser from tokens to the [`ast`](super::ast). It checks the header,
//! parses options, declarations and instructions, and recovers from a syntax error by
//! skipping to the next `;`, so one run reports many errors. Nothing recurses on input
//! nesting, and every loop consumes a token, so parsing is linear and cannot overflow.

use super::ast::*;
use super::error::{ArbError, Spanned};
use super::lexer::{Lexer, Tok, Token, trailing_comment};
use crate::ir::Span;
use crate::profile::Profile;

/// Errors (and warnings) beyond this many stop the parse.
pub const MAX_ERRORS: usize = 100;

pub struct Parser<'a> {
    src: &'a str,
    lx: Lexer<'a>,
    tok: Token,
    pub errors: Vec<Spanned>,
    stopped: bool,
}

fn describe(kind: Tok, text: &str) -> String {
    match kind {
        Tok::Eof => "the end of the program".into(),
        Tok::Semi => "`;`".into(),
        Tok::Invalid => format!(
            "`{}`",
            text.chars().take(16).collect::<String>().escape_debug()
        ),
        _ => format!("`{}`", text.chars().take(32).collect::<String>()),
    }
}

fn parse_u64(text: &str) -> u64 {
    text.bytes().filter(u8::is_ascii_digit).fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    })
}

pub fn parse_f32(text: &str) -> f32 {
    text.parse::<f32>().unwrap_or(0.0)
}

/// Parses a whole program. Returns `None` when the header is missing or wrong (nothing
/// after it would be meaningful).
pub fn parse<'a>(src: &'a str, profile: Profile) -> (Option<Ast<'a>>, Vec<Spanned>) {
    let start = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut p = Parser {
        src,
        lx: Lexer::new(src, start),
        tok: Token {
            kind: Tok::Eof,
            start: 0,
            end: 0,
        },
        errors: Vec::new(),
        stopped: false,
    };
    p.bump();
    let expected = profile.header();
    if p.tok.kind != Tok::Header {
        let found = describe(p.tok.kind, p.text());
        let span = if p.tok.kind == Tok::Eof {
            Span::new(start, start)
        } else {
            p.tok.span()
        };
        p.errors
            .push(ArbError::MissingHeader { found, expected }.at(span));
        return (None, p.errors);
    }
    if p.text() != expected {
        let found = p.text().to_string();
        p.errors
            .push(ArbError::WrongHeader { found, expected }.at(p.tok.span()));
        return (None, p.errors);
    }
    if p.tok.start as usize != start {
        p.errors
            .push(ArbError::LeadingText { expected }.at(Span::new(start, p.tok.start as usize)));
    }
    p.bump();
    let ast = p.program();
    (Some(ast), p.errors)
}

impl<'a> Parser<'a> {
    fn bump(&mut self) {
        self.tok = self.lx.next_token();
    }

    fn text(&self) -> &'a str {
        self.tok.text(self.src)
    }

    fn is_word(&self, w: &str) -> bool {
        self.tok.kind == Tok::Ident && self.text() == w
    }

    fn error(&mut self, e: ArbError, span: Span) {
        if self.stopped {
            return;
        }
        if self.errors.len() >= MAX_ERRORS {
            self.errors
                .push(ArbError::TooManyErrors { max: MAX_ERRORS }.at(span));
            self.stopped = true;
            return;
        }
        self.errors.push(e.at(span));
    }

    fn expected(&mut self, what: &str) {
        if self.tok.kind == Tok::Invalid {
            let text = self.text().chars().take(16).collect();
            self.error(ArbError::InvalidChar { text }, self.tok.span());
            return;
        }
        if self.tok.kind == Tok::Pipe {
            self.error(ArbError::AbsOperator, self.tok.span());
            return;
        }
        let found = describe(self.tok.kind, self.text());
        self.error(
            ArbError::Expected {
                expected: what.into(),
                found,
            },
            self.tok.span(),
        );
    }

    fn expect(&mut self, kind: Tok, what: &str) -> Option<Token> {
        if self.tok.kind == kind {
            let t = self.tok;
            self.bump();
            Some(t)
        } else {
            self.expected(what);
            None
        }
    }

    fn name(&mut self, what: &str) -> Option<Name<'a>> {
        if self.tok.kind == Tok::Ident {
            let n = Name {
                text: self.text(),
                span: self.tok.span(),
            };
            self.bump();
            Some(n)
        } else {
            self.expected(what);
            None
        }
    }

    /// Skips to just after the next `;` (or to `END` / the end of input).
    fn recover(&mut self) {
        loop {
            match self.tok.kind {
                Tok::Eof => return,
                Tok::Semi => {
                    self.bump();
                    return;
                }
                Tok::Ident if self.text() == "END" => return,
                _ => self.bump(),
            }
        }
    }

    fn program(&mut self) -> Ast<'a> {
        let mut ast = Ast {
            options: Vec::new(),
            stmts: Vec::new(),
        };
        while self.is_word("OPTION") {
            if let Some(o) = self.option() {
                ast.options.push(o);
            } else {
                self.recover();
            }
        }
        loop {
            if self.stopped {
                return ast;
            }
            match self.tok.kind {
                Tok::Eof => {
                    self.error(ArbError::MissingEnd, self.tok.span());
                    return ast;
                }
                Tok::Ident if self.text() == "END" => {
                    self.bump();
                    if self.tok.kind != Tok::Eof {
                        let span = Span::new(self.tok.start as usize, self.src.len());
                        self.error(ArbError::AfterEnd, span);
                    }
                    return ast;
                }
                Tok::Ident if self.text() == "OPTION" => {
                    let span = self.tok.span();
                    self.error(ArbError::OptionAfterStatement, span);
                    self.recover();
                }
                _ => match self.statement() {
                    Some(s) => ast.stmts.push(s),
                    None => self.recover(),
                },
            }
        }
    }

    fn option(&mut self) -> Option<OptionStmt<'a>> {
        let start = self.tok.start as usize;
        self.bump();
        let name = self.name("an option name")?;
        let end = self.expect(Tok::Semi, "`;`")?;
        Some(OptionStmt {
            name,
            span: Span::new(start, end.end as usize),
        })
    }

    fn statement(&mut self) -> Option<Stmt<'a>> {
        if self.tok.kind != Tok::Ident {
            self.expected("an instruction or declaration");
            return None;
        }
        let stmt = match self.text() {
            "TEMP" => {
                self.bump();
                Stmt::Temp(self.name_list()?)
            }
            "ADDRESS" => {
                self.bump();
                Stmt::Address(self.name_list()?)
            }
            "ATTRIB" | "OUTPUT" => {
                let attrib = self.text() == "ATTRIB";
                self.bump();
                let name = self.name("a name")?;
                self.expect(Tok::Eq, "`=`")?;
                let binding = self.path()?;
                if attrib {
                    Stmt::Attrib { name, binding }
                } else {
                    Stmt::Output { name, binding }
                }
            }
            "ALIAS" => {
                self.bump();
                let name = self.name("a name")?;
                self.expect(Tok::Eq, "`=`")?;
                let target = self.name("the name to alias")?;
                Stmt::Alias { name, target }
            }
            "PARAM" => return self.param(),
            _ => return self.instruction().map(Stmt::Inst),
        };
        self.expect(Tok::Semi, "`;`")?;
        Some(stmt)
    }

    fn name_list(&mut self) -> Option<Vec<Name<'a>>> {
        let mut names = vec![self.name("a name")?];
        while self.tok.kind == Tok::Comma {
            self.bump();
            names.push(self.name("a name")?);
        }
        Some(names)
    }

    fn param(&mut self) -> Option<Stmt<'a>> {
        let start = self.tok.start as usize;
        self.bump();
        let name = self.name("a name")?;
        let mut array = None;
        if self.tok.kind == Tok::LBracket {
            self.bump();
            let size = match self.tok.kind {
                Tok::Int => {
                    let n = parse_u64(self.text());
                    let s = self.tok.span();
                    self.bump();
                    Some((n, s))
                }
                Tok::RBracket => None,
                _ => {
                    self.expected("an array size or `]`");
                    return None;
                }
            };
            self.expect(Tok::RBracket, "`]`")?;
            array = Some(size);
        }
        self.expect(Tok::Eq, "`=`")?;
        let mut items = Vec::new();
        if array.is_some() {
            self.expect(Tok::LBrace, "`{` starting the array's initialiser list")?;
            loop {
                items.push(self.param_item()?);
                match self.tok.kind {
                    Tok::Comma => self.bump(),
                    Tok::RBrace => {
                        self.bump();
                        break;
                    }
                    _ => {
                        self.expected("`,` or `}`");
                        return None;
                    }
                }
            }
        } else {
            items.push(self.param_item()?);
        }
        let end = self.expect(Tok::Semi, "`;`")?;
        Some(Stmt::Param {
            name,
            array,
            items,
            span: Span::new(start, end.end as usize),
        })
    }

    fn sign(&mut self) -> Option<(bool, Span)> {
        match self.tok.kind {
            Tok::Plus | Tok::Minus => {
                let s = (self.tok.kind == Tok::Minus, self.tok.span());
                self.bump();
                Some(s)
            }
            _ => None,
        }
    }

    fn param_item(&mut self) -> Option<ParamItem<'a>> {
        let sign = self.sign();
        match self.tok.kind {
            Tok::Int | Tok::Float => {
                let mut value = parse_f32(self.text());
                if sign.is_some_and(|s| s.0) {
                    value = -value;
                }
                let span = sign.map_or(self.tok.span(), |s| s.1.join(self.tok.span()));
                self.bump();
                Some(ParamItem::Scalar { value, span })
            }
            Tok::LBrace if sign.is_none() => {
                let (values, span) = self.vector()?;
                Some(ParamItem::Vector { values, span })
            }
            Tok::Ident if sign.is_none() => Some(ParamItem::Binding(self.path()?)),
            _ => {
                self.expected(if sign.is_some() {
                    "a number"
                } else {
                    "a constant, `state.*` or `program.*` binding"
                });
                None
            }
        }
    }

    /// `{ a, b, c, d }` with signed components.
    fn vector(&mut self) -> Option<(Vec<f32>, Span)> {
        let start = self.tok.span();
        self.bump();
        let mut values = Vec::new();
        let mut too_long = None;
        if self.tok.kind == Tok::RBrace {
            let span = start.join(self.tok.span());
            self.bump();
            self.error(ArbError::EmptyVector, span);
            return None;
        }
        loop {
            let sign = self.sign();
            if !matches!(self.tok.kind, Tok::Int | Tok::Float) {
                self.expected("a number");
                return None;
            }
            let mut v = parse_f32(self.text());
            if sign.is_some_and(|s| s.0) {
                v = -v;
            }
            if values.len() == 4 && too_long.is_none() {
                too_long = Some(self.tok.span());
            }
            values.push(v);
            self.bump();
            match self.tok.kind {
                Tok::Comma => self.bump(),
                Tok::RBrace => break,
                _ => {
                    self.expected("`,` or `}`");
                    return None;
                }
            }
        }
        let span = start.join(self.tok.span());
        self.bump();
        if let Some(s) = too_long {
            self.error(ArbError::VectorTooLong, s);
            return None;
        }
        Some((values, span))
    }

    fn path(&mut self) -> Option<Path<'a>> {
        let mut segs = Vec::new();
        loop {
            let name = self.name(if segs.is_empty() {
                "a name or binding"
            } else {
                "a name after `.`"
            })?;
            let mut span = name.span;
            let index = if self.tok.kind == Tok::LBracket {
                let idx = self.index()?;
                span = span.join(idx.span());
                Some(idx)
            } else {
                None
            };
            segs.push(Seg { name, index, span });
            if self.tok.kind != Tok::Dot {
                break;
            }
            self.bump();
        }
        let span = segs[0].span.join(segs[segs.len() - 1].span);
        Some(Path { segs, span })
    }

    fn int(&mut self, what: &str) -> Option<(u64, Span)> {
        match self.tok.kind {
            Tok::Int => {
                let r = (parse_u64(self.text()), self.tok.span());
                self.bump();
                Some(r)
            }
            Tok::Float | Tok::Word => {
                let text = self.text().to_string();
                self.error(
                    ArbError::BadNumber {
                        text,
                        why: "an integer is required here",
                    },
                    self.tok.span(),
                );
                None
            }
            _ => {
                self.expected(what);
                None
            }
        }
    }

    /// `[n]`, `[a..b]` or `[A0.x + n]`, starting at `[`.
    fn index(&mut self) -> Option<Index<'a>> {
        let open = self.tok.span();
        self.bump();
        let idx = match self.tok.kind {
            Tok::Ident => {
                let reg = self.name("an address register")?;
                let mut comp = None;
                if self.tok.kind == Tok::Dot {
                    self.bump();
                    comp = Some(self.name("an address component (`x`)")?);
                }
                let mut offset = 0i64;
                if let Some((neg, _)) = self.sign() {
                    let (n, _) = self.int("an offset")?;
                    let n = n.min(i64::MAX as u64) as i64;
                    offset = if neg { -n } else { n };
                }
                let close = self.expect(Tok::RBracket, "`]`")?;
                Index::Rel {
                    reg,
                    comp,
                    offset,
                    span: open.join(close.span()),
                }
            }
            _ => {
                let (a, _) = self.int("an index")?;
                if self.tok.kind == Tok::DotDot {
                    self.bump();
                    let (b, _) = self.int("the end of the range")?;
                    let close = self.expect(Tok::RBracket, "`]`")?;
                    Index::Range(a, b, open.join(close.span()))
                } else {
                    let close = self.expect(Tok::RBracket, "`]`")?;
                    Index::Int(a, open.join(close.span()))
                }
            }
        };
        Some(idx)
    }

    fn instruction(&mut self) -> Option<InstStmt<'a>> {
        let opcode = self.name("an instruction")?;
        let mut operands = Vec::new();
        if self.tok.kind != Tok::Semi {
            loop {
                operands.push(self.operand()?);
                match self.tok.kind {
                    Tok::Comma => self.bump(),
                    Tok::Semi => break,
                    _ => {
                        self.expected("`,` or `;`");
                        return None;
                    }
                }
            }
        }
        let semi = self.tok;
        self.bump();
        Some(InstStmt {
            opcode,
            operands,
            span: opcode.span.join(semi.span()),
            comment: trailing_comment(self.src, semi.end as usize),
        })
    }

    fn operand(&mut self) -> Option<Operand<'a>> {
        let sign = self.sign();
        let base = match self.tok.kind {
            Tok::Ident => Base::Path(self.path()?),
            Tok::Int | Tok::Float => {
                let raw = self.text();
                let b = Base::Scalar {
                    value: parse_f32(raw),
                    raw,
                    span: self.tok.span(),
                };
                self.bump();
                b
            }
            Tok::LBrace => {
                let (values, span) = self.vector()?;
                Base::Vector { values, span }
            }
            Tok::Word => {
                let n = Name {
                    text: self.text(),
                    span: self.tok.span(),
                };
                self.bump();
                Base::Word(n)
            }
            _ => {
                self.expected("an operand");
                return None;
            }
        };
        let mut suffix = None;
        if !matches!(base, Base::Path(_)) && self.tok.kind == Tok::Dot {
            self.bump();
            suffix = Some(self.name("a swizzle")?);
        }
        let base_span = match &base {
            Base::Path(p) => p.span,
            Base::Scalar { span, .. } | Base::Vector { span, .. } => *span,
            Base::Word(n) => n.span,
        };
        let mut span = sign.map_or(base_span, |s| s.1.join(base_span));
        if let Some(s) = suffix {
            span = span.join(s.span);
        }
        Some(Operand {
            sign,
            base,
            suffix,
            span,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(src: &str) -> Vec<crate::Code> {
        parse(src, Profile::ArbVp1)
            .1
            .iter()
            .map(|e| e.error.code())
            .collect()
    }

    #[test]
    fn parses_declarations_and_instructions() {
        let src = "!!ARBvp1.0\nPARAM a[2] = { program.env[0..1] };\nADDRESS A0;\n\
                   ARL A0.x, vertex.position.w;\nMOV result.position, a[A0.x - 1]; # hi\nEND\n";
        let (ast, errs) = parse(src, Profile::ArbVp1);
        assert!(errs.is_empty(), "{errs:?}");
        let ast = ast.unwrap();
        assert_eq!(ast.stmts.len(), 4);
        match &ast.stmts[3] {
            Stmt::Inst(i) => {
                assert_eq!(i.comment, Some("hi"));
                match &i.operands[1].base {
                    Base::Path(p) => {
                        assert!(matches!(
                            p.segs[0].index,
                            Some(Index::Rel { offset: -1, .. })
                        ))
                    }
                    b => panic!("{b:?}"),
                }
            }
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn header_errors_stop_early() {
        assert_eq!(codes("!!ARBfp1.0\nEND"), vec!["E1002"]);
        assert_eq!(codes("MOV r0, r1;"), vec!["E1001"]);
        assert_eq!(codes(""), vec!["E1001"]);
        assert_eq!(codes("  !!ARBvp1.0 END"), vec!["W1001"]);
    }

    #[test]
    fn recovers_at_semicolons() {
        let src = "!!ARBvp1.0\nMOV r0 r1;\nMOV r0, |r1|;\nMOV r0, {1,2,3,4,5};\nEND junk";
        assert_eq!(codes(src), vec!["E1004", "E1008", "E1217", "W1002"]);
        let (_, errs) = parse("!!ARBvp1.0\nMOV r0 r1;\nEND", Profile::ArbVp1);
        assert_eq!(errs[0].span, Span::new(18, 20));
        assert_eq!(codes("!!ARBvp1.0\nTEMP a;"), vec!["E1005"]);
        assert_eq!(codes("!!ARBvp1.0\nTEMP a;\nOPTION x;\nEND"), vec!["E1007"]);
    }

    #[test]
    fn error_count_is_capped() {
        let src = format!("!!ARBvp1.0\n{}END", "\u{1};".repeat(1000));
        let errs = parse(&src, Profile::ArbVp1).1;
        assert_eq!(errs.len(), MAX_ERRORS + 1);
        assert_eq!(errs.last().unwrap().error.code(), "E1009");
    }
}

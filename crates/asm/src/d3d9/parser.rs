//! Parser: one lexed line to one [`Stmt`] (opcode, optional predicate, operands).
//!
//! The grammar is line-based: `[(!p0.swz)] opcode[_mod...] operand, operand, ...`.
//! Operands are registers with an optional `-`/`!`, relative index `[a0.x + n]`,
//! `_abs` and `.swizzle`/`.mask` suffix, or numbers and words (for `def`/`defb`).
//! Register names are resolved later, in [`super::lower`].

use super::error::{D3d9Error, Spanned};
use super::lexer::{Line, Tok, Token};
use crate::ir::Span;

pub type PResult<T> = Result<T, Spanned>;

/// `[a0.x]`'s register: name, span and component.
type RelReg = (String, Span, Option<(String, Span)>);

/// `[a0.x + 5]`, `[aL]`, `[5 + a0.y]`.
#[derive(Clone, Debug)]
pub struct RelTok {
    pub reg: String,
    pub reg_span: Span,
    pub comp: Option<(String, Span)>,
    pub offset: i64,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct RegOperand {
    pub neg: bool,
    pub bang: bool,
    /// Register name, lowercased, without `_abs` or other `_` modifiers.
    pub name: String,
    pub name_span: Span,
    pub abs: bool,
    /// A `_xxx` source modifier other than `_abs` (ps_1_x `_bx2`, `_bias`, ...).
    pub bad_modifier: Option<(String, Span)>,
    pub rel: Option<RelTok>,
    /// Letters after the `.`: a swizzle or a write mask.
    pub suffix: Option<(String, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Operand {
    Reg(RegOperand),
    Num { text: String, neg: bool, span: Span },
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Reg(r) => r.span,
            Operand::Num { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug)]
pub struct PredTok {
    pub negate: bool,
    pub reg: String,
    pub reg_span: Span,
    pub swizzle: Option<(String, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub pred: Option<PredTok>,
    /// Opcode as written, lowercased (`add_sat`, `dcl_texcoord0`, `if_gt`).
    pub op: String,
    pub op_span: Span,
    pub operands: Vec<Operand>,
    pub span: Span,
    pub comment: Option<String>,
}

struct Cursor<'a> {
    src: &'a str,
    toks: &'a [Token],
    i: usize,
    line_end: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<Token> {
        self.toks.get(self.i).copied()
    }
    fn peek_kind(&self) -> Option<Tok> {
        self.peek().map(|t| t.kind)
    }
    fn next(&mut self) -> Option<Token> {
        let t = self.peek();
        if t.is_some() {
            self.i += 1;
        }
        t
    }
    fn eat(&mut self, k: Tok) -> Option<Token> {
        if self.peek_kind() == Some(k) {
            self.next()
        } else {
            None
        }
    }
    fn here(&self) -> Span {
        match self.peek() {
            Some(t) => t.span(),
            None => Span::new(self.line_end, self.line_end),
        }
    }
    fn text(&self, t: Token) -> &'a str {
        t.text(self.src)
    }
    fn unexpected(&self, wanted: &'static str) -> Spanned {
        let found = self.peek().map(|t| t.text(self.src).to_string());
        D3d9Error::Expected { wanted, found }.at(self.here())
    }
}

/// Parses one line (which has at least one token).
pub fn parse_line(src: &str, line: &Line) -> PResult<Stmt> {
    let toks = &line.tokens;
    let line_end = toks.last().map_or(0, |t| t.end);
    let mut c = Cursor {
        src,
        toks,
        i: 0,
        line_end,
    };
    let first = c.peek().expect("non-empty line");
    if first.kind == Tok::Hash {
        return Err(D3d9Error::Preprocessor.at(Span::new(first.start, line_end)));
    }
    if first.kind == Tok::Plus {
        return Err(D3d9Error::CoIssue.at(first.span()));
    }
    let pred = if c.eat(Tok::LParen).is_some() {
        let start = first.start;
        let negate = c.eat(Tok::Bang).is_some();
        let reg = c.eat(Tok::Ident).ok_or_else(|| c.unexpected("`p0`"))?;
        let swizzle = if c.eat(Tok::Dot).is_some() {
            let s = c.eat(Tok::Ident).ok_or_else(|| c.unexpected("a swizzle"))?;
            Some((c.text(s).to_ascii_lowercase(), s.span()))
        } else {
            None
        };
        let close = c.eat(Tok::RParen).ok_or_else(|| c.unexpected("`)`"))?;
        Some(PredTok {
            negate,
            reg: c.text(reg).to_ascii_lowercase(),
            reg_span: reg.span(),
            swizzle,
            span: Span::new(start, close.end),
        })
    } else {
        None
    };
    let op = c
        .eat(Tok::Ident)
        .ok_or_else(|| c.unexpected("an instruction"))?;
    let mut operands = Vec::new();
    if c.peek().is_some() {
        loop {
            operands.push(parse_operand(&mut c)?);
            match c.peek_kind() {
                None => break,
                Some(Tok::Comma) => {
                    c.next();
                }
                Some(_) => return Err(c.unexpected("`,` or end of line")),
            }
        }
    }
    let start = pred.as_ref().map_or(op.start, |p| p.span.start as usize);
    Ok(Stmt {
        pred,
        op: c.text(op).to_ascii_lowercase(),
        op_span: op.span(),
        operands,
        span: Span::new(start, line_end),
        comment: line.comment.as_ref().map(|(t, _)| t.clone()),
    })
}

fn parse_operand(c: &mut Cursor) -> PResult<Operand> {
    let start = c.here().start as usize;
    let neg = c.eat(Tok::Minus).is_some();
    let bang = !neg && c.eat(Tok::Bang).is_some();
    match c.peek_kind() {
        Some(Tok::Number) => {
            let t = c.next().unwrap();
            if c.peek_kind() == Some(Tok::Minus) {
                return Err(D3d9Error::Invert.at(Span::new(start, c.here().end as usize)));
            }
            Ok(Operand::Num {
                text: c.text(t).to_string(),
                neg,
                span: Span::new(start, t.end),
            })
        }
        Some(Tok::Ident) => {
            let t = c.next().unwrap();
            let raw = c.text(t).to_ascii_lowercase();
            let (name, abs, bad) = split_modifier(&raw, t);
            let rel = if c.peek_kind() == Some(Tok::LBracket) {
                Some(parse_rel(c)?)
            } else {
                None
            };
            let mut abs = abs;
            let mut bad = bad;
            // `c[a0.x]_abs`: the modifier after the bracket lexes as its own identifier.
            if rel.is_some()
                && let Some(m) = c.peek().filter(|t| t.kind == Tok::Ident)
            {
                let text = c.text(m).to_ascii_lowercase();
                if let Some(rest) = text.strip_prefix('_') {
                    c.next();
                    if rest == "abs" {
                        abs = true;
                    } else {
                        bad = Some((text.clone(), m.span()));
                    }
                }
            }
            let mut suffix = None;
            let mut end = c.toks[c.i - 1].end;
            if c.eat(Tok::Dot).is_some() {
                let s = c
                    .eat(Tok::Ident)
                    .ok_or_else(|| c.unexpected("a swizzle or write mask after `.`"))?;
                let text = c.text(s).to_ascii_lowercase();
                // `r0.x_abs` is accepted as a spelling of `r0_abs.x`.
                let (letters, sabs, sbad) = split_modifier(&text, s);
                abs |= sabs;
                if bad.is_none() {
                    bad = sbad;
                }
                suffix = Some((letters, Span::new(s.start, s.start + text.len().min(4))));
                end = s.end;
            }
            Ok(Operand::Reg(RegOperand {
                neg,
                bang,
                name,
                name_span: Span::new(t.start, t.start + raw.find('_').unwrap_or(raw.len())),
                abs,
                bad_modifier: bad,
                rel,
                suffix,
                span: Span::new(start, end),
            }))
        }
        _ => Err(c.unexpected("a register or a number")),
    }
}

/// Splits `r0_abs` into `r0` and its modifiers.
fn split_modifier(raw: &str, t: Token) -> (String, bool, Option<(String, Span)>) {
    let mut parts = raw.split('_');
    let name = parts.next().unwrap_or("").to_string();
    let mut abs = false;
    let mut bad = None;
    let mut off = name.len();
    for p in parts {
        let span = Span::new(t.start + off, t.start + off + 1 + p.len());
        off += 1 + p.len();
        if p == "abs" {
            abs = true;
        } else if bad.is_none() {
            bad = Some((format!("_{p}"), span));
        }
    }
    (name, abs, bad)
}

fn parse_rel(c: &mut Cursor) -> PResult<RelTok> {
    let open = c.next().unwrap();
    let mut reg: Option<RelReg> = None;
    let mut offset: i64 = 0;
    let mut sign = 1i64;
    let mut expect_term = true;
    loop {
        let t = c
            .next()
            .ok_or_else(|| D3d9Error::UnclosedBracket.at(open.span()))?;
        match (t.kind, expect_term) {
            (Tok::RBracket, false) => {
                let (name, span, comp) =
                    reg.ok_or_else(|| D3d9Error::RelNoRegister.at(Span::new(open.start, t.end)))?;
                return Ok(RelTok {
                    reg: name,
                    reg_span: span,
                    comp,
                    offset,
                    span: Span::new(open.start, t.end),
                });
            }
            (Tok::Number, true) => {
                let text = c.text(t);
                let v: i64 = text.parse().map_err(|_| {
                    D3d9Error::RelBadOffset {
                        text: text.to_string(),
                    }
                    .at(t.span())
                })?;
                offset = offset.saturating_add(sign * v).clamp(-1 << 20, 1 << 20);
                expect_term = false;
            }
            (Tok::Ident, true) if sign > 0 && reg.is_none() => {
                let name = c.text(t).to_ascii_lowercase();
                let comp = if c.eat(Tok::Dot).is_some() {
                    let s = c
                        .eat(Tok::Ident)
                        .ok_or_else(|| c.unexpected("an address component"))?;
                    Some((c.text(s).to_ascii_lowercase(), s.span()))
                } else {
                    None
                };
                reg = Some((name, t.span(), comp));
                expect_term = false;
            }
            (Tok::Plus, false) => {
                sign = 1;
                expect_term = true;
            }
            (Tok::Minus, false) => {
                sign = -1;
                expect_term = true;
            }
            _ => {
                return Err(D3d9Error::RelUnexpected {
                    text: c.text(t).to_string(),
                }
                .at(t.span()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3d9::lexer::lex;

    fn stmt(src: &str) -> PResult<Stmt> {
        let (lines, _) = lex(src);
        parse_line(src, &lines[0])
    }

    #[test]
    fn parses_predicated_instruction_with_modifiers() {
        let s = stmt("(!p0.x) add_sat_pp r0.xy, -r1_abs.yzxw, c[a0.x + 5] ; hi").unwrap();
        assert_eq!(s.op, "add_sat_pp");
        let p = s.pred.unwrap();
        assert!(p.negate);
        assert_eq!(p.swizzle.unwrap().0, "x");
        assert_eq!(s.operands.len(), 3);
        let Operand::Reg(r1) = &s.operands[1] else {
            panic!()
        };
        assert!(r1.neg && r1.abs);
        assert_eq!(r1.name, "r1");
        assert_eq!(r1.suffix.as_ref().unwrap().0, "yzxw");
        let Operand::Reg(c) = &s.operands[2] else {
            panic!()
        };
        let rel = c.rel.as_ref().unwrap();
        assert_eq!((rel.reg.as_str(), rel.offset), ("a0", 5));
        assert_eq!(s.comment.as_deref(), Some("hi"));
    }

    #[test]
    fn def_numbers_and_errors() {
        let s = stmt("def c0, -1.5, .25, 1e3, 0").unwrap();
        assert_eq!(s.operands.len(), 5);
        assert!(matches!(&s.operands[1], Operand::Num { neg: true, .. }));
        assert!(stmt("mov r0 r1").is_err());
        assert!(stmt("mov r0, c[a0.x +").is_err());
        assert_eq!(stmt("#define X").unwrap_err().to_diagnostic().code, "E2060");
    }
}

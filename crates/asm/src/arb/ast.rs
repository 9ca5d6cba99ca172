//! Syntax tree of an ARB program, with spans. Bindings (`vertex.texcoord[1]`,
//! `state.matrix.mvp.row[0..3]`) and operands are kept as generic dotted [`Path`]s; the
//! resolver interprets them against the spec's binding tables, which gives it the context
//! for precise messages.

use crate::ir::Span;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Name<'a> {
    pub text: &'a str,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ast<'a> {
    pub options: Vec<OptionStmt<'a>>,
    pub stmts: Vec<Stmt<'a>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct OptionStmt<'a> {
    pub name: Name<'a>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt<'a> {
    Inst(InstStmt<'a>),
    Temp(Vec<Name<'a>>),
    Address(Vec<Name<'a>>),
    Attrib {
        name: Name<'a>,
        binding: Path<'a>,
    },
    Output {
        name: Name<'a>,
        binding: Path<'a>,
    },
    Alias {
        name: Name<'a>,
        target: Name<'a>,
    },
    Param {
        name: Name<'a>,
        /// `Some` for arrays: the written size, if any.
        array: Option<Option<(u64, Span)>>,
        items: Vec<ParamItem<'a>>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParamItem<'a> {
    /// A signed scalar constant, replicated to four components.
    Scalar {
        value: f32,
        span: Span,
    },
    /// `{a, b, c, d}` with 1 to 4 signed components.
    Vector {
        values: Vec<f32>,
        span: Span,
    },
    Binding(Path<'a>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct InstStmt<'a> {
    pub opcode: Name<'a>,
    pub operands: Vec<Operand<'a>>,
    pub span: Span,
    pub comment: Option<&'a str>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand<'a> {
    /// `+` or `-` in front, with `true` for `-`.
    pub sign: Option<(bool, Span)>,
    pub base: Base<'a>,
    /// Swizzle written after a literal (`{0.5}.x`, `3.0.x`); paths keep theirs as a segment.
    pub suffix: Option<Name<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Base<'a> {
    Path(Path<'a>),
    /// An unsigned scalar constant; `raw` is its text.
    Scalar {
        value: f32,
        raw: &'a str,
        span: Span,
    },
    Vector {
        values: Vec<f32>,
        span: Span,
    },
    /// Digits running into letters: `2D`.
    Word(Name<'a>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Path<'a> {
    pub segs: Vec<Seg<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Seg<'a> {
    pub name: Name<'a>,
    pub index: Option<Index<'a>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Index<'a> {
    Int(u64, Span),
    Range(u64, u64, Span),
    /// `A0.x + 3`: register, component (if written), signed offset.
    Rel {
        reg: Name<'a>,
        comp: Option<Name<'a>>,
        offset: i64,
        span: Span,
    },
}

impl Index<'_> {
    pub fn span(&self) -> Span {
        match self {
            Index::Int(_, s) | Index::Range(_, _, s) | Index::Rel { span: s, .. } => *s,
        }
    }
}

impl Path<'_> {
    /// The path as written, normalised (`vertex.texcoord[1]`).
    pub fn display(&self) -> String {
        display_segs(&self.segs)
    }
}

pub fn display_segs(segs: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for (i, seg) in segs.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        s.push_str(seg.name.text);
        match &seg.index {
            Some(Index::Int(n, _)) => s.push_str(&format!("[{n}]")),
            Some(Index::Range(a, b, _)) => s.push_str(&format!("[{a}..{b}]")),
            Some(Index::Rel { reg, offset, .. }) => {
                s.push_str(&format!("[{}.x", reg.text));
                if *offset != 0 {
                    s.push_str(&format!("{offset:+}"));
                }
                s.push(']');
            }
            None => {}
        }
    }
    s
}

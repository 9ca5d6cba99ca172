//! One entry point of a validated `naga::Module` lowered to assembly for one profile.
//!
//! The function is evaluated, not translated statement by statement: every value is a
//! flat list of components ([`crate::value`]) that are literals or lanes of registers, so
//! calls are inlined with their arguments bound, loops whose conditions fold to literals
//! unroll, and an `if` whose condition is not a literal runs both arms on copies of the
//! variables, merged with selects (the arms are pure: what they write to variables is
//! selected, `discard` in an arm becomes a kill of the arm's condition, and a `return` in
//! an arm takes the rest of the function into both arms). On D3D9 a loop whose trip count
//! is not a literal becomes a real `rep` loop: the variables live in registers from
//! there on (stores are `mov`s, loads copy) and a `break` under a condition that is not a
//! literal is a real `if`/`break`. Whatever a target cannot express is a diagnostic at the
//! span of the expression or statement.

mod expr;
mod io;
mod math;
mod stmt;

use crate::bindings::Bindings;
use crate::emit::{Emitter, R};
use crate::value::Val;
use hoist_asm::diag::code;
use hoist_asm::{Diagnostic, Profile, Span};
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{Handle, Module};
use std::collections::HashMap;

/// Everything a lowering can fail with: a diagnostic at a span of the source naga read.
#[derive(Debug)]
pub struct Refusal(pub Diagnostic);

pub type Res<T> = Result<T, Refusal>;

/// What an expression evaluated to.
#[derive(Clone, Debug)]
pub enum Ev {
    Val(Val),
    Ptr(Ptr),
    Image(Handle<naga::GlobalVariable>),
    Sampler(Handle<naga::GlobalVariable>),
}

/// A pointer: components `off..off + len` of a variable.
#[derive(Clone, Copy, Debug)]
pub struct Ptr {
    pub root: Root,
    pub off: usize,
    pub len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Root {
    /// A slot of [`Lower::mem`] (a local or private variable).
    Mem(usize),
    /// A uniform global: its template in [`Lower::uniforms`].
    Uniform(Handle<naga::GlobalVariable>),
}

/// One inlined function.
pub struct Frame<'a> {
    pub fun: &'a naga::Function,
    pub info: &'a FunctionInfo,
    pub cache: Vec<Option<Ev>>,
    pub locals: Vec<usize>,
    pub args: Vec<Ev>,
    pub ret: Option<Val>,
}

/// Control leaving a statement list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

/// The lowering of one entry point.
pub struct Lower<'a> {
    pub module: &'a Module,
    pub info: &'a ModuleInfo,
    pub em: Emitter,
    pub bindings: &'a mut Bindings,
    /// Variables: one flat value per slot.
    pub mem: Vec<Val>,
    /// Slots whose components live in registers (D3D9 real loops), by slot.
    pub pinned: HashMap<usize, Vec<R>>,
    pub globals: HashMap<Handle<naga::GlobalVariable>, usize>,
    pub uniforms: HashMap<Handle<naga::GlobalVariable>, Val>,
    pub frames: Vec<Frame<'a>>,
    /// Conditions of the `if` arms being evaluated (1.0 where the arm runs).
    pub path: Vec<Val>,
    /// Depth of real (D3D9) loops being emitted.
    pub real_loops: u32,
    /// The register a real loop's breaks set (its outer `rep` stops on it).
    pub break_flag: Option<R>,
    /// Budget of statements evaluated (unrolling and inlining), against runaway input.
    pub budget: u64,
    /// Maps naga's spans back to the text the user wrote (GLSL adaptation).
    pub map_span: &'a dyn Fn(Span) -> Span,
    /// Which source this stage's spans point into (for the binding table).
    pub source: crate::api::SourceId,
}

/// Statements and expressions evaluated before a program is refused as too long.
pub const BUDGET: u64 = 200_000;

impl<'a> Lower<'a> {
    pub fn new(
        module: &'a Module,
        info: &'a ModuleInfo,
        profile: Profile,
        bindings: &'a mut Bindings,
        map_span: &'a dyn Fn(Span) -> Span,
        source: crate::api::SourceId,
    ) -> Lower<'a> {
        Lower {
            module,
            info,
            em: Emitter::new(profile),
            bindings,
            mem: Vec::new(),
            pinned: HashMap::new(),
            globals: HashMap::new(),
            uniforms: HashMap::new(),
            frames: Vec::new(),
            path: Vec::new(),
            real_loops: 0,
            break_flag: None,
            budget: BUDGET,
            map_span,
            source,
        }
    }

    /// A diagnostic at naga span `span`.
    pub fn refuse(&self, span: naga::Span, msg: impl Into<String>) -> Refusal {
        let sp = self.span_of(span);
        Refusal(Diagnostic::error(code!("F0100"), msg, sp).with_label("cannot lower this"))
    }

    pub fn span_of(&self, span: naga::Span) -> Span {
        match span.to_range() {
            Some(r) => (self.map_span)(Span::new(r.start, r.end)),
            None => Span::NONE,
        }
    }

    /// Sets the emitter's current span (for the instructions that follow).
    pub fn at(&mut self, span: naga::Span) {
        let s = self.span_of(span);
        self.em.span = (!s.is_none()).then_some((s.start as usize, s.end as usize));
    }

    pub fn frame(&self) -> &Frame<'a> {
        self.frames.last().expect("a frame")
    }

    pub fn frame_mut(&mut self) -> &mut Frame<'a> {
        self.frames.last_mut().expect("a frame")
    }

    /// Span of expression `h` of the current function.
    pub fn espan(&self, h: Handle<naga::Expression>) -> naga::Span {
        self.frame().fun.expressions.get_span(h)
    }

    pub fn tick(&mut self, span: naga::Span) -> Res<()> {
        if self.budget == 0 {
            return Err(self.refuse(
                span,
                "the program does not fit: unrolling and inlining it exceeds the evaluation budget",
            ));
        }
        self.budget -= 1;
        Ok(())
    }
}

/// Number of flat components of a type.
pub fn flat_len(module: &Module, ty: &naga::TypeInner) -> usize {
    use naga::TypeInner as T;
    match ty {
        T::Scalar(_) | T::Atomic(_) => 1,
        T::Vector { size, .. } => *size as usize,
        T::Matrix { columns, rows, .. } => *columns as usize * *rows as usize,
        T::Array { base, size, .. } => {
            let n = match size {
                naga::ArraySize::Constant(n) => n.get() as usize,
                _ => 0,
            };
            n * flat_len(module, &module.types[*base].inner)
        }
        T::Struct { members, .. } => members
            .iter()
            .map(|m| flat_len(module, &module.types[m.ty].inner))
            .sum(),
        _ => 0,
    }
}

/// Offset and length of element `index` of a value of type `ty`.
pub fn element(module: &Module, ty: &naga::TypeInner, index: usize) -> Option<(usize, usize)> {
    use naga::TypeInner as T;
    match ty {
        T::Vector { size, .. } => (index < *size as usize).then_some((index, 1)),
        T::Matrix { columns, rows, .. } => {
            (index < *columns as usize).then_some((index * *rows as usize, *rows as usize))
        }
        T::Array { base, .. } => {
            let n = flat_len(module, &module.types[*base].inner);
            let total = flat_len(module, ty);
            ((index + 1) * n <= total).then_some((index * n, n))
        }
        T::Struct { members, .. } => {
            let mut off = 0;
            for (i, m) in members.iter().enumerate() {
                let n = flat_len(module, &module.types[m.ty].inner);
                if i == index {
                    return Some((off, n));
                }
                off += n;
            }
            None
        }
        _ => None,
    }
}

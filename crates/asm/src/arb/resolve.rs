//! Name resolution and lowering: walks the syntax tree in order, declares names, interprets
//! bindings and operands, and builds the IR [`Program`].
//!
//! IR conventions kept here (the printer relies on them):
//! - temps and address registers are numbered in declaration order; constant slots are
//!   allocated for `PARAM` declarations and inline constants/bindings in order of
//!   appearance (no merging);
//! - `Src::name`/`Dst::name` is `Some` when the author's spelling differs from the
//!   register's canonical one: an `ALIAS`, or an `ATTRIB`/`OUTPUT` name (whose canonical
//!   spelling is the binding). Using a TEMP/ADDRESS/PARAM by its declared name gives `None`;
//! - names starting with `$` are compiler-generated (the printer writes them for registers
//!   without a name): they resolve normally but get no [`Symbol`];
//! - scalar operands become replicated swizzles; `IoDecl`s are sorted by register;
//! - relative addressing keeps `src.reg` at the array's first slot and the offset in
//!   [`RelAddr::offset`].

use super::ast::*;
use super::bindings::{self, Bound, Ctx, stage_name};
use super::error::{ArbError, Spanned, suggest};
use super::parser::MAX_ERRORS;
use crate::ir::*;
use crate::ops::Op;
use crate::profile::{Limits, Profile};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Decl {
    Temp(u16),
    Address(u16),
    Attrib(Reg),
    Output(Reg),
    Param {
        base: u16,
        len: u16,
        array: bool,
    },
    /// Declared by a statement that had errors: uses are dropped silently.
    Poisoned,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    sym: Option<SymId>,
    decl: Decl,
    span: Span,
    alias: bool,
}

/// How an instruction's operands are shaped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Vector(usize),
    Scalar(usize),
    Swz,
    Arl,
    Sample,
    Kil,
}

fn form(op: Op) -> Form {
    use Op::*;
    match op {
        Abs | Flr | Frc | Lit | Mov => Form::Vector(1),
        Ex2 | Exp | Lg2 | Log | Rcp | Rsq | Cos | Sin | Scs => Form::Scalar(1),
        Pow => Form::Scalar(2),
        Mad | Cmp | Lrp => Form::Vector(3),
        Swz => Form::Swz,
        Arl => Form::Arl,
        Tex | Txb | Txp => Form::Sample,
        Kil => Form::Kil,
        _ => Form::Vector(2),
    }
}

/// Every ARB opcode, with its spelling.
pub fn arb_ops() -> impl Iterator<Item = (Op, &'static str)> {
    Op::all().filter_map(|op| op.info().arb.map(|n| (op, n)))
}

const NV_OPS: &[&str] = &[
    "ARA", "ARR", "BRA", "CAL", "RET", "SSG", "SEQ", "SFL", "SGT", "SLE", "SNE", "STR", "POPA",
    "PUSHA", "DDX", "DDY", "PK2H", "PK2US", "PK4B", "PK4UB", "UP2H", "UP2US", "UP4B", "UP4UB",
    "RFL", "X2D", "TXD", "TXL", "NRM", "DIV", "DP2", "DP2A", "BRK", "REP", "ENDREP", "IF", "ELSE",
    "ENDIF", "RCC", "TXF", "TXQ",
];

/// The NV extension an unknown opcode belongs to, if it looks like one.
fn nv_opcode(name: &str, stage: Stage) -> Option<&'static str> {
    let ext = match stage {
        Stage::Vertex => "NV_vertex_program2",
        Stage::Fragment => "NV_fragment_program",
    };
    let base = name
        .strip_suffix("_SSAT")
        .or_else(|| name.strip_suffix("_SAT"))
        .unwrap_or(name);
    let known = |n: &str| NV_OPS.contains(&n) || arb_ops().any(|(_, a)| a == n);
    if known(base) {
        return Some(ext);
    }
    let no_cc = base.strip_suffix('C').unwrap_or(base);
    for cand in [no_cc, no_cc.strip_suffix(['R', 'H', 'X']).unwrap_or(no_cc)] {
        if cand != name && !cand.is_empty() && known(cand) {
            return Some(ext);
        }
    }
    None
}

const VP_RESERVED: &[&str] = &[
    "ABS", "ADD", "ADDRESS", "ALIAS", "ARL", "ATTRIB", "DP3", "DP4", "DPH", "DST", "END", "EX2",
    "EXP", "FLR", "FRC", "LG2", "LIT", "LOG", "MAD", "MAX", "MIN", "MOV", "MUL", "OPTION",
    "OUTPUT", "PARAM", "POW", "RCP", "RSQ", "SGE", "SLT", "SUB", "SWZ", "TEMP", "XPD", "program",
    "result", "state", "vertex",
];

const FP_RESERVED: &[&str] = &[
    "ALIAS", "ATTRIB", "END", "OPTION", "OUTPUT", "PARAM", "TEMP", "fragment", "program", "result",
    "state", "texture", "KIL",
];

pub fn is_reserved(profile: Profile, name: &str) -> bool {
    match profile.stage() {
        Stage::Vertex => VP_RESERVED.contains(&name),
        Stage::Fragment => {
            if FP_RESERVED.contains(&name) {
                return true;
            }
            let base = name.strip_suffix("_SAT").unwrap_or(name);
            arb_ops().any(|(op, n)| n == base && profile.has(op) && op != Op::Kil)
        }
    }
}

/// Maps a known option name to the IR option.
pub fn option_from_name(name: &str) -> Option<ArbOption> {
    Some(match name {
        "ARB_position_invariant" => ArbOption::PositionInvariant,
        "ARB_precision_hint_fastest" => ArbOption::PrecisionHintFastest,
        "ARB_precision_hint_nicest" => ArbOption::PrecisionHintNicest,
        "ARB_fog_exp" => ArbOption::FogExp,
        "ARB_fog_exp2" => ArbOption::FogExp2,
        "ARB_fog_linear" => ArbOption::FogLinear,
        "ARB_draw_buffers" => ArbOption::DrawBuffers,
        "ARB_fragment_program_shadow" => ArbOption::FragmentProgramShadow,
        _ => return None,
    })
}

pub fn option_name(o: &ArbOption) -> &'static str {
    match o {
        ArbOption::PositionInvariant => "ARB_position_invariant",
        ArbOption::PrecisionHintFastest => "ARB_precision_hint_fastest",
        ArbOption::PrecisionHintNicest => "ARB_precision_hint_nicest",
        ArbOption::FogExp => "ARB_fog_exp",
        ArbOption::FogExp2 => "ARB_fog_exp2",
        ArbOption::FogLinear => "ARB_fog_linear",
        ArbOption::DrawBuffers => "ARB_draw_buffers",
        ArbOption::FragmentProgramShadow => "ARB_fragment_program_shadow",
    }
}

pub fn option_stage(o: &ArbOption) -> Stage {
    match o {
        ArbOption::PositionInvariant => Stage::Vertex,
        _ => Stage::Fragment,
    }
}

/// Options that exclude each other: fog modes, precision hints.
pub fn option_group(o: &ArbOption) -> Option<u8> {
    match o {
        ArbOption::FogExp | ArbOption::FogExp2 | ArbOption::FogLinear => Some(0),
        ArbOption::PrecisionHintFastest | ArbOption::PrecisionHintNicest => Some(1),
        _ => None,
    }
}

/// True for names like `NV_vertex_program2` or `ATI_draw_buffers`: a vendor prefix.
fn is_vendor_extension(name: &str) -> bool {
    match name.split_once('_') {
        Some((vendor, rest)) => {
            vendor.len() >= 2
                && !rest.is_empty()
                && vendor
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        }
        None => false,
    }
}

pub fn tex_target_from_name(name: &str) -> Option<TexTarget> {
    TexTarget::from_arb_name(name)
}

pub fn is_shadow(t: TexTarget) -> bool {
    matches!(
        t,
        TexTarget::Shadow1D | TexTarget::Shadow2D | TexTarget::ShadowRect
    )
}

struct Resolver<'a, 'l> {
    profile: Profile,
    stage: Stage,
    limits: &'l Limits,
    prog: Program,
    errors: Vec<Spanned>,
    budget: usize,
    names: HashMap<&'a str, Entry>,
    /// Declared names in order, for deterministic suggestions.
    order: Vec<&'a str>,
    io_seen: HashMap<Reg, (Semantic, Span)>,
    /// Slots of inline constants and bindings, so repeated ones share a slot.
    inline_slots: HashMap<SlotKey, u16>,
}

/// Identity of an inline constant or binding (literals by bits and written form).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum SlotKey {
    Literal(u8, [u32; 4]),
    Env(u16),
    Local(u16),
    State(crate::state::StateRef),
}

pub(super) fn slot_key(b: &ConstBinding) -> SlotKey {
    match b {
        ConstBinding::Literal(l) => SlotKey::Literal(
            match l.form {
                LiteralForm::Scalar => 0,
                LiteralForm::Vector(n) => n,
            },
            l.value.map(f32::to_bits),
        ),
        ConstBinding::Env(n) => SlotKey::Env(*n),
        ConstBinding::Local(n) => SlotKey::Local(*n),
        ConstBinding::State(s) => SlotKey::State(*s),
    }
}

type R<T> = Result<T, Spanned>;

/// Lowers a parsed program. `budget` is how many more errors may be reported.
pub fn resolve(
    ast: &Ast<'_>,
    profile: Profile,
    limits: &Limits,
    budget: usize,
) -> (Program, Vec<Spanned>) {
    let mut r = Resolver {
        profile,
        stage: profile.stage(),
        limits,
        prog: Program::new(profile),
        errors: Vec::new(),
        budget,
        names: HashMap::new(),
        order: Vec::new(),
        io_seen: HashMap::new(),
        inline_slots: HashMap::new(),
    };
    r.options(&ast.options);
    for stmt in &ast.stmts {
        if r.errors.len() >= r.budget {
            let span = stmt_span(stmt);
            r.errors
                .push(ArbError::TooManyErrors { max: MAX_ERRORS }.at(span));
            break;
        }
        if let Err(e) = r.statement(stmt) {
            r.push_err(e);
        }
    }
    crate::sort::by_key(&mut r.prog.io, |d| d.reg);
    (r.prog, r.errors)
}

fn stmt_span(s: &Stmt) -> Span {
    match s {
        Stmt::Inst(i) => i.span,
        Stmt::Temp(n) | Stmt::Address(n) => n.first().map_or(Span::NONE, |n| n.span),
        Stmt::Attrib { name, .. } | Stmt::Output { name, .. } | Stmt::Alias { name, .. } => {
            name.span
        }
        Stmt::Param { span, .. } => *span,
    }
}

fn literal(values: &[f32]) -> Literal {
    let mut v = [0.0, 0.0, 0.0, 1.0];
    for (d, s) in v.iter_mut().zip(values) {
        *d = *s;
    }
    Literal {
        value: v,
        form: LiteralForm::Vector(values.len().clamp(1, 4) as u8),
    }
}

fn scalar(v: f32) -> Literal {
    Literal {
        value: [v; 4],
        form: LiteralForm::Scalar,
    }
}

impl<'a> Resolver<'a, '_> {
    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            stage: self.stage,
            limits: self.limits,
            draw_buffers: self.prog.has_option(&ArbOption::DrawBuffers),
            position_invariant: self.prog.has_option(&ArbOption::PositionInvariant),
        }
    }

    /// True when `word` starts a binding here. The other stage's root (`vertex` in a
    /// fragment program) is an ordinary name there, so it counts only when undeclared, to
    /// report `fragment.color` in a vertex program as a wrong-stage binding.
    fn is_root(&self, word: &str) -> bool {
        match word {
            "result" | "state" | "program" => true,
            "vertex" => self.stage == Stage::Vertex || !self.names.contains_key(word),
            "fragment" => self.stage == Stage::Fragment || !self.names.contains_key(word),
            _ => false,
        }
    }

    fn push_err(&mut self, e: Spanned) {
        if e.error != ArbError::Poisoned {
            self.errors.push(e);
        }
    }

    fn options(&mut self, opts: &[OptionStmt<'_>]) {
        let mut seen: Vec<(ArbOption, Span)> = Vec::new();
        for o in opts {
            let name = o.name.text;
            let Some(opt) = option_from_name(name) else {
                let e = if !name.starts_with("ARB_") && is_vendor_extension(name) {
                    ArbError::UnsupportedExtension {
                        name: name.to_string(),
                        what: "this option",
                    }
                } else {
                    ArbError::UnknownOption {
                        name: name.to_string(),
                    }
                };
                self.push_err(e.at(o.name.span));
                continue;
            };
            if option_stage(&opt) != self.stage {
                self.push_err(
                    ArbError::OptionWrongStage {
                        name: name.to_string(),
                        stage: stage_name(self.stage),
                    }
                    .at(o.name.span),
                );
                continue;
            }
            if seen.iter().any(|(s, _)| *s == opt) {
                continue;
            }
            if let Some(g) = option_group(&opt)
                && let Some((other, first)) = seen.iter().find(|(s, _)| option_group(s) == Some(g))
            {
                let e = ArbError::OptionConflict {
                    name: name.to_string(),
                    other: option_name(other).to_string(),
                    first: *first,
                };
                self.push_err(e.at(o.name.span));
                continue;
            }
            seen.push((opt.clone(), o.name.span));
            self.prog.options.push(opt);
        }
    }

    /// Checks and records a new name; `Err` when it cannot be declared.
    fn declare(&mut self, name: Name<'a>, decl: Decl, kind: Option<SymKind>, alias: bool) -> R<()> {
        if is_reserved(self.profile, name.text) {
            return Err(ArbError::Reserved {
                name: name.text.to_string(),
            }
            .at(name.span));
        }
        if let Some(prev) = self.names.get(name.text) {
            return Err(ArbError::Redeclared {
                name: name.text.to_string(),
                first: prev.span,
            }
            .at(name.span));
        }
        let sym = match kind {
            Some(kind) if !name.text.starts_with('$') => {
                let id = self.prog.symbols.len() as SymId;
                self.prog.symbols.push(Symbol {
                    name: name.text.to_string(),
                    kind,
                    span: name.span,
                });
                Some(id)
            }
            _ => None,
        };
        self.names.insert(
            name.text,
            Entry {
                sym,
                decl,
                span: name.span,
                alias,
            },
        );
        self.order.push(name.text);
        Ok(())
    }

    /// Declares `name` as poisoned after a failed declaration, so later uses stay quiet.
    fn poison(&mut self, name: Name<'a>) {
        if !is_reserved(self.profile, name.text) {
            self.names.entry(name.text).or_insert(Entry {
                sym: None,
                decl: Decl::Poisoned,
                span: name.span,
                alias: false,
            });
        }
    }

    fn statement(&mut self, stmt: &Stmt<'a>) -> R<()> {
        match stmt {
            Stmt::Inst(i) => self.instruction(i),
            Stmt::Temp(names) => {
                for &n in names {
                    if self.prog.num_temps == u16::MAX {
                        self.poison(n);
                        continue;
                    }
                    let idx = self.prog.num_temps;
                    match self.declare(n, Decl::Temp(idx), Some(SymKind::Temp(idx)), false) {
                        Ok(()) => self.prog.num_temps += 1,
                        Err(e) => self.push_err(e),
                    }
                }
                Ok(())
            }
            Stmt::Address(names) => {
                if self.stage != Stage::Vertex {
                    for &n in names {
                        self.poison(n);
                    }
                    return Err(ArbError::InstructionWrongStage {
                        name: "ADDRESS".into(),
                        stage: "fragment",
                    }
                    .at(names[0].span));
                }
                for &n in names {
                    if self.prog.num_addrs == u16::MAX {
                        self.poison(n);
                        continue;
                    }
                    let idx = self.prog.num_addrs;
                    match self.declare(n, Decl::Address(idx), Some(SymKind::Address(idx)), false) {
                        Ok(()) => self.prog.num_addrs += 1,
                        Err(e) => self.push_err(e),
                    }
                }
                Ok(())
            }
            Stmt::Attrib { name, binding } | Stmt::Output { name, binding } => {
                let attrib = matches!(stmt, Stmt::Attrib { .. });
                match self.io_binding(binding, attrib) {
                    Ok(reg) => {
                        let (decl, kind) = if attrib {
                            (Decl::Attrib(reg), SymKind::Attrib(reg))
                        } else {
                            (Decl::Output(reg), SymKind::Output(reg))
                        };
                        self.declare(*name, decl, Some(kind), false)
                    }
                    Err(e) => {
                        self.poison(*name);
                        Err(e)
                    }
                }
            }
            Stmt::Alias { name, target } => {
                let Some(t) = self.names.get(target.text).copied() else {
                    self.poison(*name);
                    return Err(self.unknown_name(*target, false));
                };
                let kind = t.sym.map(SymKind::Alias);
                self.declare(*name, t.decl, kind, true)
            }
            Stmt::Param {
                name,
                array,
                items,
                span,
            } => match self.param(array, items) {
                Ok(slots) => {
                    if self.prog.consts.len() + slots.len() > u16::MAX as usize {
                        self.poison(*name);
                        return Ok(());
                    }
                    let base = self.prog.consts.len() as u16;
                    let len = slots.len() as u16;
                    self.prog.consts.extend(slots);
                    let is_array = array.is_some();
                    let _ = span;
                    self.declare(
                        *name,
                        Decl::Param {
                            base,
                            len,
                            array: is_array,
                        },
                        Some(SymKind::Param {
                            base,
                            len,
                            array: is_array,
                        }),
                        false,
                    )
                }
                Err(e) => {
                    self.poison(*name);
                    Err(e)
                }
            },
        }
    }

    fn unknown_name(&self, name: Name, decl_hint: bool) -> Spanned {
        let suggestion = suggest(name.text, self.order.iter().copied());
        ArbError::UnknownName {
            name: name.text.to_string(),
            suggestion,
            decl_hint,
        }
        .at(name.span)
    }

    /// Records an input/output register use, checking conventional/generic aliasing.
    fn use_io(&mut self, reg: Reg, semantic: Semantic, span: Span) -> R<()> {
        if let Some(&(first, first_span)) = self.io_seen.get(&reg) {
            if first != semantic {
                let text = |s| bindings::input_text(self.stage, reg, s);
                return Err(ArbError::ConflictingAttributes {
                    first: text(first),
                    second: text(semantic),
                    first_span,
                }
                .at(span));
            }
            return Ok(());
        }
        self.io_seen.insert(reg, (semantic, span));
        self.prog.io.push(IoDecl::implied(reg, semantic, span));
        Ok(())
    }

    /// `ATTRIB`/`OUTPUT` right-hand side.
    fn io_binding(&mut self, path: &Path<'a>, attrib: bool) -> R<Reg> {
        let root = path.segs[0].name;
        if !self.is_root(root.text) {
            return Err(ArbError::NotABinding {
                what: "a name",
                expected: if attrib {
                    "a `vertex.*` or `fragment.*` binding"
                } else {
                    "a `result.*` binding"
                },
            }
            .at(root.span));
        }
        let it = bindings::interpret(&path.segs, self.ctx())?;
        if let Some(extra) = path.segs.get(it.used) {
            return Err(self.unexpected_after(extra));
        }
        match (it.bound, attrib) {
            (Bound::Input { reg, semantic }, true) | (Bound::Output { reg, semantic }, false) => {
                self.use_io(reg, semantic, it.span)?;
                Ok(reg)
            }
            _ => Err(ArbError::NotABinding {
                what: "this binding",
                expected: if attrib {
                    "a `vertex.*` or `fragment.*` attribute"
                } else {
                    "a `result.*` binding"
                },
            }
            .at(it.span)),
        }
    }

    fn unexpected_after(&self, seg: &Seg) -> Spanned {
        ArbError::Expected {
            expected: "`;` after the binding".into(),
            found: format!("`.{}`", seg.name.text),
        }
        .at(seg.span)
    }

    fn param(
        &mut self,
        array: &Option<Option<(u64, Span)>>,
        items: &[ParamItem<'a>],
    ) -> R<Vec<ConstSlot>> {
        let mut slots = Vec::new();
        for item in items {
            match item {
                ParamItem::Scalar { value, span } => slots.push(ConstSlot {
                    binding: ConstBinding::Literal(scalar(*value)),
                    span: *span,
                }),
                ParamItem::Vector { values, span } => slots.push(ConstSlot {
                    binding: ConstBinding::Literal(literal(values)),
                    span: *span,
                }),
                ParamItem::Binding(path) => {
                    let root = path.segs[0].name;
                    if !self.is_root(root.text) {
                        return Err(ArbError::NotABinding {
                            what: "a name",
                            expected: "a constant, `state.*` or `program.*` binding",
                        }
                        .at(root.span));
                    }
                    let it = bindings::interpret(&path.segs, self.ctx())?;
                    if let Some(extra) = path.segs.get(it.used) {
                        return Err(self.unexpected_after(extra));
                    }
                    match it.bound {
                        Bound::Params { refs, multi } => {
                            if multi && array.is_none() {
                                return Err(ArbError::ArrayBindingInSingle {
                                    path: path.display(),
                                }
                                .at(it.span));
                            }
                            slots.extend(refs.into_iter().map(|binding| ConstSlot {
                                binding,
                                span: it.span,
                            }));
                        }
                        Bound::Input { .. } => {
                            return Err(ArbError::NotAParamSource {
                                what: "an attribute",
                            }
                            .at(it.span));
                        }
                        Bound::Output { .. } => {
                            return Err(ArbError::NotAParamSource {
                                what: "a result register",
                            }
                            .at(it.span));
                        }
                    }
                }
            }
        }
        if let Some(Some((n, span))) = array {
            if *n == 0 {
                return Err(ArbError::ArraySizeZero.at(*span));
            }
            if *n != slots.len() as u64 {
                return Err(ArbError::ArraySizeMismatch {
                    declared: *n,
                    actual: slots.len() as u64,
                }
                .at(*span));
            }
        }
        Ok(slots)
    }

    /// The slot of an inline constant or binding: shared with an identical earlier one.
    fn new_slot(&mut self, binding: ConstBinding, span: Span) -> R<u16> {
        let key = slot_key(&binding);
        if let Some(&s) = self.inline_slots.get(&key) {
            return Ok(s);
        }
        if self.prog.consts.len() >= u16::MAX as usize {
            return Err(ArbError::NotABinding {
                what: "another constant",
                expected: "fewer than 65535 parameter slots",
            }
            .at(span));
        }
        self.prog.consts.push(ConstSlot { binding, span });
        let s = self.prog.consts.len() as u16 - 1;
        self.inline_slots.insert(key, s);
        Ok(s)
    }

    fn instruction(&mut self, inst: &InstStmt<'a>) -> R<()> {
        let name = inst.opcode.text;
        let (base, sat) = match name.strip_suffix("_SAT") {
            Some(b) => (b, true),
            None => (name, false),
        };
        let found = arb_ops().find(|(_, n)| *n == base).map(|(op, _)| op);
        let op = match found {
            Some(Op::Kil) if sat => None,
            o => o,
        };
        let Some(op) = op else {
            return Err(self.unknown_instruction(inst.opcode));
        };
        if !self.profile.has(op) {
            return Err(ArbError::InstructionWrongStage {
                name: base.to_string(),
                stage: stage_name(self.stage),
            }
            .at(inst.opcode.span));
        }
        if sat && self.stage == Stage::Vertex {
            return Err(ArbError::SatInVertex {
                name: name.to_string(),
            }
            .at(inst.opcode.span));
        }
        let f = form(op);
        let want = match f {
            Form::Vector(n) | Form::Scalar(n) => n + 1,
            Form::Swz => 6,
            Form::Arl => 2,
            Form::Sample => 4,
            Form::Kil => 1,
        };
        let ops = &inst.operands;
        if ops.len() != want {
            let span = ops
                .get(want)
                .map_or(inst.span, |o| o.span.join(ops[ops.len() - 1].span));
            return Err(ArbError::OperandCount {
                op: name.to_string(),
                expected: want,
                found: ops.len(),
            }
            .at(span));
        }
        let mut out = Inst::new(op, None, []);
        out.sat = sat;
        out.span = inst.span;
        out.comment = inst.comment.filter(|c| !c.is_empty()).map(str::to_string);
        // Every operand is checked, so one instruction can report several errors.
        let mut ok = true;
        macro_rules! take {
            ($e:expr) => {
                match $e {
                    Ok(v) => Some(v),
                    Err(e) => {
                        self.push_err(e);
                        ok = false;
                        None
                    }
                }
            };
        }
        let scalar = matches!(f, Form::Scalar(_) | Form::Arl);
        let (dst_op, srcs): (Option<&Operand<'a>>, &[Operand<'a>]) = match f {
            Form::Vector(n) | Form::Scalar(n) => (Some(&ops[0]), &ops[1..=n]),
            Form::Kil => (None, &ops[..1]),
            Form::Arl | Form::Swz | Form::Sample => (Some(&ops[0]), &ops[1..2]),
        };
        if let Some(d) = dst_op {
            let d = if f == Form::Arl {
                self.arl_dst(d)
            } else {
                self.dst(d)
            };
            out.dst = take!(d);
        }
        for o in srcs {
            if f == Form::Swz && (o.sign.is_some() || o.suffix.is_some()) {
                take!(Err::<(), _>(ArbError::SwzSourceModifier.at(o.span)));
                continue;
            }
            let s = self.src(o, scalar, name);
            if let Some(s) = take!(s) {
                if f == Form::Swz && !s.swizzle.is_identity() {
                    take!(Err::<(), _>(ArbError::SwzSourceModifier.at(o.span)));
                }
                out.src.push(s);
            }
        }
        match f {
            Form::Swz => {
                let e = self.ext_swizzle(&ops[2..6]);
                out.ext_swizzle = take!(e);
            }
            Form::Sample => {
                let unit = self.tex_unit(&ops[2]);
                let unit = take!(unit);
                let target = self.tex_target(&ops[3]);
                let target = take!(target);
                if let (Some(unit), Some(target)) = (unit, target) {
                    out.tex = Some(TexRef { unit, target });
                }
            }
            _ => {}
        }
        if !ok {
            return Ok(());
        }
        self.prog.insts.push(out);
        Ok(())
    }

    fn unknown_instruction(&self, n: Name) -> Spanned {
        if n.text == "ADDRESS" {
            return ArbError::InstructionWrongStage {
                name: "ADDRESS".into(),
                stage: stage_name(self.stage),
            }
            .at(n.span);
        }
        if let Some(ext) = nv_opcode(n.text, self.stage) {
            return ArbError::InstructionNeedsExtension {
                name: n.text.to_string(),
                ext,
            }
            .at(n.span);
        }
        let names: Vec<&str> = arb_ops()
            .filter(|(op, _)| self.profile.has(*op))
            .map(|(_, n)| n)
            .collect();
        let suggestion = if self.names.contains_key(n.text) {
            None
        } else {
            suggest(n.text, names)
        };
        ArbError::UnknownInstruction {
            name: n.text.to_string(),
            suggestion,
        }
        .at(n.span)
    }

    /// Looks up a declared name used as an operand.
    fn lookup(&self, name: Name, dst: bool) -> R<Entry> {
        match self.names.get(name.text) {
            Some(e) => Ok(*e),
            None => Err(self.unknown_name(name, dst)),
        }
    }

    fn poisoned(span: Span) -> Spanned {
        ArbError::Poisoned.at(span)
    }

    fn dst(&mut self, o: &Operand<'a>) -> R<Dst> {
        if let Some((_, s)) = o.sign {
            return Err(ArbError::DestinationSign.at(s));
        }
        let Base::Path(path) = &o.base else {
            return Err(ArbError::NotABinding {
                what: "a constant",
                expected: "a TEMP or `result.*` register as destination",
            }
            .at(o.span));
        };
        let first = &path.segs[0];
        let (reg, name, rest) = if self.is_root(first.name.text) {
            let it = bindings::interpret(&path.segs, self.ctx())?;
            match it.bound {
                Bound::Output { reg, semantic } => {
                    self.use_io(reg, semantic, it.span)?;
                    (reg, None, &path.segs[it.used..])
                }
                Bound::Input { .. } => {
                    return Err(ArbError::NotWritable {
                        name: path.display(),
                        what: "an attribute",
                    }
                    .at(it.span));
                }
                Bound::Params { .. } => {
                    return Err(ArbError::NotWritable {
                        name: path.display(),
                        what: "a program parameter",
                    }
                    .at(it.span));
                }
            }
        } else {
            let e = self.lookup(first.name, true)?;
            if let Some(i) = &first.index {
                return Err(ArbError::NotAnArray {
                    name: first.name.text.to_string(),
                }
                .at(i.span()));
            }
            let reg = match e.decl {
                Decl::Temp(i) => Reg::new(RegFile::Temp, i),
                Decl::Output(r) => r,
                Decl::Poisoned => return Err(Self::poisoned(o.span)),
                Decl::Attrib(_) => {
                    return Err(ArbError::NotWritable {
                        name: first.name.text.to_string(),
                        what: "an attribute",
                    }
                    .at(first.name.span));
                }
                Decl::Param { .. } => {
                    return Err(ArbError::NotWritable {
                        name: first.name.text.to_string(),
                        what: "a program parameter",
                    }
                    .at(first.name.span));
                }
                Decl::Address(_) => {
                    return Err(ArbError::AddressAsValue {
                        name: first.name.text.to_string(),
                    }
                    .at(first.name.span));
                }
            };
            let name = if e.alias || matches!(e.decl, Decl::Output(_)) {
                e.sym
            } else {
                None
            };
            (reg, name, &path.segs[1..])
        };
        let mask = self.mask(rest)?;
        let mut d = Dst::new(reg, mask);
        d.name = name;
        d.span = o.span;
        Ok(d)
    }

    fn arl_dst(&mut self, o: &Operand<'a>) -> R<Dst> {
        if let Some((_, s)) = o.sign {
            return Err(ArbError::DestinationSign.at(s));
        }
        let Base::Path(path) = &o.base else {
            return Err(ArbError::ArlDestination {
                why: "not an address register",
            }
            .at(o.span));
        };
        let first = &path.segs[0];
        let e = match self.names.get(first.name.text) {
            Some(e) => *e,
            None if self.is_root(first.name.text) => {
                return Err(ArbError::ArlDestination {
                    why: "only address registers can be loaded by ARL",
                }
                .at(path.span));
            }
            None => return Err(self.unknown_name(first.name, false)),
        };
        let idx = match e.decl {
            Decl::Address(i) => i,
            Decl::Poisoned => return Err(Self::poisoned(o.span)),
            _ => {
                return Err(ArbError::ArlDestination {
                    why: "only address registers can be loaded by ARL",
                }
                .at(first.name.span));
            }
        };
        if first.index.is_some() || path.segs.len() > 2 {
            return Err(ArbError::ArlDestination {
                why: "unexpected index or suffix",
            }
            .at(path.span));
        }
        match path.segs.get(1) {
            Some(s) if s.name.text == "x" && s.index.is_none() => {}
            Some(s) => {
                return Err(ArbError::ArlDestination {
                    why: "only the `.x` component of an address register can be written",
                }
                .at(s.span));
            }
            None => {
                return Err(ArbError::ArlDestination {
                    why: "the write mask `.x` is required",
                }
                .at(path.span));
            }
        }
        let mut d = Dst::new(Reg::new(RegFile::Address, idx), WriteMask::X);
        d.name = if e.alias { e.sym } else { None };
        d.span = o.span;
        Ok(d)
    }

    fn comp_of(&self, c: u8) -> Option<(u8, bool)> {
        let fp = self.stage == Stage::Fragment;
        match c {
            b'x' => Some((0, false)),
            b'y' => Some((1, false)),
            b'z' => Some((2, false)),
            b'w' => Some((3, false)),
            b'r' if fp => Some((0, true)),
            b'g' if fp => Some((1, true)),
            b'b' if fp => Some((2, true)),
            b'a' if fp => Some((3, true)),
            _ => None,
        }
    }

    fn mask(&self, rest: &[Seg]) -> R<WriteMask> {
        let Some(seg) = rest.first() else {
            return Ok(WriteMask::ALL);
        };
        if let Some(extra) = rest.get(1) {
            return Err(self.unexpected_after(extra));
        }
        let text = seg.name.text;
        let bad = |why| {
            ArbError::BadWriteMask {
                text: text.to_string(),
                why,
            }
            .at(seg.span)
        };
        if seg.index.is_some() {
            return Err(bad("a write mask takes no index"));
        }
        let mut m = 0u8;
        let mut last: Option<u8> = None;
        let mut set: Option<bool> = None;
        for c in text.bytes() {
            let Some((i, rgba)) = self.comp_of(c) else {
                return Err(bad(if self.stage == Stage::Vertex {
                    "components are x, y, z and w"
                } else {
                    "components are x, y, z, w or r, g, b, a"
                }));
            };
            if set.is_some_and(|s| s != rgba) {
                return Err(bad("xyzw and rgba names cannot be mixed"));
            }
            set = Some(rgba);
            if last.is_some_and(|l| i <= l) {
                return Err(bad("components must be in order, each at most once"));
            }
            last = Some(i);
            m |= 1 << i;
        }
        Ok(WriteMask(m))
    }

    /// Parses a swizzle suffix; `None` when absent.
    fn swizzle(&self, seg: Option<&Seg>, suffix: Option<Name>) -> R<Option<Vec<u8>>> {
        let (text, span, has_index) = match (seg, suffix) {
            (Some(s), _) => (s.name.text, s.span, s.index.is_some()),
            (None, Some(n)) => (n.text, n.span, false),
            (None, None) => return Ok(None),
        };
        let bad = |why| {
            ArbError::BadSwizzle {
                text: text.to_string(),
                why,
            }
            .at(span)
        };
        if has_index {
            return Err(bad("a swizzle takes no index"));
        }
        if text.len() != 1 && text.len() != 4 {
            return Err(bad("a swizzle has one or four components"));
        }
        let mut comps = Vec::with_capacity(4);
        let mut set: Option<bool> = None;
        for c in text.bytes() {
            let Some((i, rgba)) = self.comp_of(c) else {
                return Err(bad(if self.stage == Stage::Vertex {
                    "components are x, y, z and w"
                } else {
                    "components are x, y, z, w or r, g, b, a"
                }));
            };
            if set.is_some_and(|s| s != rgba) {
                return Err(bad("xyzw and rgba names cannot be mixed"));
            }
            set = Some(rgba);
            comps.push(i);
        }
        Ok(Some(comps))
    }

    fn src(&mut self, o: &Operand<'a>, scalar_op: bool, opname: &str) -> R<Src> {
        let negate = o.sign.is_some_and(|s| s.0);
        let (mut src, swz_seg): (Src, Option<&Seg>) = match &o.base {
            Base::Path(path) => self.src_path(path)?,
            Base::Scalar { value, span, .. } => {
                let slot = self.new_slot(ConstBinding::Literal(scalar(*value)), *span)?;
                (Src::new(Reg::new(RegFile::Const, slot)), None)
            }
            Base::Vector { values, span } => {
                let slot = self.new_slot(ConstBinding::Literal(literal(values)), *span)?;
                (Src::new(Reg::new(RegFile::Const, slot)), None)
            }
            Base::Word(n) => {
                return Err(ArbError::BadNumber {
                    text: n.text.to_string(),
                    why: "digits followed by letters",
                }
                .at(n.span));
            }
        };
        let swz = self.swizzle(swz_seg, o.suffix)?;
        if scalar_op {
            match &swz {
                Some(c) if c.len() == 1 => src.swizzle = Swizzle::splat(c[0]),
                _ => {
                    let base = &o.span;
                    let example = match (&o.base, swz_seg) {
                        (Base::Path(p), Some(_)) => {
                            format!("{}.x", display_segs(&p.segs[..p.segs.len() - 1]))
                        }
                        (Base::Path(p), None) => format!("{}.x", p.display()),
                        _ => "value.x".to_string(),
                    };
                    return Err(ArbError::ScalarOperand {
                        op: opname.to_string(),
                        example,
                    }
                    .at(*base));
                }
            }
        } else if let Some(c) = swz {
            src.swizzle = if c.len() == 1 {
                Swizzle::splat(c[0])
            } else {
                Swizzle::new(c[0], c[1], c[2], c[3])
            };
        }
        src.negate = negate;
        src.span = o.span;
        Ok(src)
    }

    /// A source path: binding, or name with optional array index; returns the source and
    /// the segment holding its swizzle, if any.
    fn src_path<'p>(&mut self, path: &'p Path<'a>) -> R<(Src, Option<&'p Seg<'a>>)> {
        let first = &path.segs[0];
        let (src, used) = if self.is_root(first.name.text) {
            let it = bindings::interpret(&path.segs, self.ctx())?;
            let src = match it.bound {
                Bound::Input { reg, semantic } => {
                    self.use_io(reg, semantic, it.span)?;
                    Src::new(reg)
                }
                Bound::Output { .. } => {
                    return Err(ArbError::NotReadable {
                        name: path.display(),
                        what: "a result register",
                    }
                    .at(it.span));
                }
                Bound::Params { mut refs, multi } => {
                    if multi || refs.len() != 1 {
                        return Err(ArbError::ArrayBindingInSingle {
                            path: display_segs(&path.segs[..it.used]),
                        }
                        .at(it.span));
                    }
                    let slot = self.new_slot(refs.remove(0), it.span)?;
                    Src::new(Reg::new(RegFile::Const, slot))
                }
            };
            (src, it.used)
        } else {
            let e = self.lookup(first.name, false)?;
            let mut src = match e.decl {
                Decl::Temp(i) => Src::new(Reg::new(RegFile::Temp, i)),
                Decl::Attrib(r) => Src::new(r),
                Decl::Poisoned => return Err(Self::poisoned(path.span)),
                Decl::Output(_) => {
                    return Err(ArbError::NotReadable {
                        name: first.name.text.to_string(),
                        what: "a result register",
                    }
                    .at(first.name.span));
                }
                Decl::Address(_) => {
                    return Err(ArbError::AddressAsValue {
                        name: first.name.text.to_string(),
                    }
                    .at(first.name.span));
                }
                Decl::Param { base, len, array } => self.param_use(first, base, len, array)?,
            };
            if !matches!(e.decl, Decl::Param { .. })
                && let Some(i) = &first.index
            {
                return Err(ArbError::NotAnArray {
                    name: first.name.text.to_string(),
                }
                .at(i.span()));
            }
            src.name = if e.alias || matches!(e.decl, Decl::Attrib(_)) {
                e.sym
            } else {
                None
            };
            (src, 1)
        };
        let rest = &path.segs[used..];
        if let Some(extra) = rest.get(1) {
            return Err(self.unexpected_after(extra));
        }
        Ok((src, rest.first()))
    }

    fn param_use(&mut self, seg: &Seg<'a>, base: u16, len: u16, array: bool) -> R<Src> {
        let name = seg.name.text.to_string();
        if !array {
            if let Some(i) = &seg.index {
                return Err(ArbError::NotAnArray { name }.at(i.span()));
            }
            return Ok(Src::new(Reg::new(RegFile::Const, base)));
        }
        match &seg.index {
            None => Err(ArbError::ArrayNeedsIndex { name }.at(seg.span)),
            Some(Index::Int(k, s)) => {
                if *k >= len as u64 {
                    return Err(ArbError::IndexOutOfRange {
                        name,
                        index: *k,
                        len: len as u32,
                    }
                    .at(*s));
                }
                Ok(Src::new(Reg::new(RegFile::Const, base + *k as u16)))
            }
            Some(Index::Range(_, _, s)) => Err(ArbError::NotABinding {
                what: "a range",
                expected: "a single index",
            }
            .at(*s)),
            Some(Index::Rel {
                reg,
                comp,
                offset,
                span,
            }) => {
                if self.stage != Stage::Vertex {
                    return Err(ArbError::RelativeNotAllowed {
                        why: "fragment programs have no address registers",
                    }
                    .at(*span));
                }
                let e = match self.names.get(reg.text) {
                    Some(e) => *e,
                    None => return Err(self.unknown_name(*reg, false)),
                };
                let a = match e.decl {
                    Decl::Address(a) => a,
                    Decl::Poisoned => return Err(Self::poisoned(*span)),
                    _ => {
                        return Err(ArbError::NotAnAddress {
                            name: reg.text.to_string(),
                        }
                        .at(reg.span));
                    }
                };
                match comp {
                    Some(c) if c.text == "x" => {}
                    Some(c) => return Err(ArbError::BadAddressComponent.at(c.span)),
                    None => return Err(ArbError::BadAddressComponent.at(reg.span)),
                }
                if i16::try_from(*offset).is_err() {
                    return Err(ArbError::RelOffsetRange { offset: *offset }.at(*span));
                }
                if !(-64..=63).contains(offset) {
                    self.errors
                        .push(ArbError::RelOffsetOutsideSpec { offset: *offset }.at(*span));
                }
                let mut src = Src::new(Reg::new(RegFile::Const, base));
                src.rel = Some(RelAddr {
                    reg: Reg::new(RegFile::Address, a),
                    comp: 0,
                    lo: base,
                    hi: base + len,
                    offset: *offset as i16,
                });
                Ok(src)
            }
        }
    }

    fn ext_swizzle(&self, ops: &[Operand<'a>]) -> R<ExtSwizzle> {
        let mut e = ExtSwizzle {
            sel: [ExtSel::Zero; 4],
            neg: [false; 4],
        };
        let mut set: Option<bool> = None;
        for (i, o) in ops.iter().enumerate() {
            let text = || {
                ArbError::BadExtSwizzle {
                    text: match &o.base {
                        Base::Path(p) => p.display(),
                        Base::Scalar { raw, .. } => raw.to_string(),
                        Base::Vector { .. } => "{...}".into(),
                        Base::Word(n) => n.text.to_string(),
                    },
                }
                .at(o.span)
            };
            if o.suffix.is_some() {
                return Err(text());
            }
            e.neg[i] = o.sign.is_some_and(|s| s.0);
            e.sel[i] = match &o.base {
                Base::Scalar { raw, .. } if *raw == "0" => ExtSel::Zero,
                Base::Scalar { raw, .. } if *raw == "1" => ExtSel::One,
                Base::Path(p) if p.segs.len() == 1 && p.segs[0].index.is_none() => {
                    let t = p.segs[0].name.text.as_bytes();
                    match (t.len(), t.first().and_then(|&c| self.comp_of(c))) {
                        (1, Some((c, rgba))) => {
                            if set.is_some_and(|s| s != rgba) {
                                return Err(text());
                            }
                            set = Some(rgba);
                            ExtSel::Comp(c)
                        }
                        _ => return Err(text()),
                    }
                }
                _ => return Err(text()),
            };
        }
        Ok(e)
    }

    fn tex_unit(&self, o: &Operand<'a>) -> R<u8> {
        let Base::Path(p) = &o.base else {
            return Err(ArbError::BadTextureUnit.at(o.span));
        };
        if o.sign.is_some() || p.segs.len() != 1 || p.segs[0].name.text != "texture" {
            return Err(ArbError::BadTextureUnit.at(o.span));
        }
        match &p.segs[0].index {
            None => Ok(0),
            Some(Index::Int(n, s)) => {
                let max = self.limits.samplers as u64;
                if *n >= max {
                    return Err(ArbError::BindingIndexRange {
                        what: "texture image unit",
                        index: *n,
                        max: max as u32,
                    }
                    .at(*s));
                }
                Ok(*n as u8)
            }
            Some(i) => Err(ArbError::BadTextureUnit.at(i.span())),
        }
    }

    fn tex_target(&self, o: &Operand<'a>) -> R<TexTarget> {
        let text = match &o.base {
            Base::Word(n) => n.text,
            Base::Path(p) if p.segs.len() == 1 && p.segs[0].index.is_none() => p.segs[0].name.text,
            _ => "?",
        };
        let t = match tex_target_from_name(text) {
            Some(t) if o.sign.is_none() && o.suffix.is_none() => t,
            _ => {
                return Err(ArbError::BadTextureTarget {
                    text: text.to_string(),
                }
                .at(o.span));
            }
        };
        if is_shadow(t) && !self.prog.has_option(&ArbOption::FragmentProgramShadow) {
            return Err(ArbError::ShadowNeedsOption {
                target: text.to_string(),
            }
            .at(o.span));
        }
        Ok(t)
    }
}

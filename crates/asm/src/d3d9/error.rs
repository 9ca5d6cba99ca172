//! Errors of the Direct3D 9 front end and operand rules: small values holding spans and
//! payloads, raised where they are found and turned into [`Diagnostic`]s (code, message,
//! label, related spans, notes, hint) in one place, [`D3d9Error::to_diagnostic`].
//!
//! Syntax and name errors (`E20xx`) come from the parser and lowering; operand rules
//! (`E21xx`) come from [`super::rules`], which runs over the IR so that optimizer output
//! is checked by the same code as parsed programs.
//!
//! | code | meaning |
//! |---|---|
//! | E2001 | missing or misplaced version line |
//! | E2002 | version line does not match the requested profile |
//! | E2003 | unsupported version (ps_1_x, vs_1_0, ...) |
//! | E2010 | unknown instruction |
//! | E2011 | instruction not available in this version |
//! | E2012 | unknown or misplaced instruction modifier |
//! | E2013 | wrong number of operands |
//! | E2020 | syntax error |
//! | E2021 | unknown register name |
//! | E2022 | register number out of range |
//! | E2023 | register type not available in this version, or not allowed in this operand |
//! | E2024 | malformed swizzle |
//! | E2025 | malformed write mask |
//! | E2026 | malformed relative address |
//! | E2027 | source modifier that does not exist in this version (`_bx2`, `1-r0`, ...) |
//! | E2030 | malformed `def`/`defi`/`defb` |
//! | E2031 | constant defined twice |
//! | E2040 | malformed `dcl` |
//! | E2041 | register declared twice |
//! | E2042 | `dcl` after the first instruction |
//! | E2043 | two inputs or outputs declared with one semantic |
//! | E2050 | input register used without `dcl` |
//! | E2051 | sampler used without `dcl_*` |
//! | E2060 | preprocessor directive |
//! | E2061 | unterminated `/*` comment |
//! | E2099 | too many errors |
//! | E2101 | register read-port limit (distinct registers of one type per instruction) |
//! | E2102 | replicate swizzle required |
//! | E2103 | swizzle not available in ps_2_0 |
//! | E2104 | texture instruction operand restrictions |
//! | E2105 | dependent texture read limit |
//! | E2106 | `_sat` not allowed here |
//! | E2107 | `_pp` in a vertex shader |
//! | E2108 | write mask not allowed for this instruction or register |
//! | E2109 | operand register restrictions (same register as dst, must be a temporary, ...) |
//! | E2110 | register type cannot be read or written by this operand |
//! | E2111 | `_abs` modifier rules |
//! | E2112 | declaration required or inconsistent |
//! | E2113 | read of components the `dcl` does not declare |
//! | E2114 | flow-control structure (nesting, labels, `ret`) |
//! | E2115 | predication rules |
//! | E2116 | relative addressing rules |
//! | E2117 | read of an uninitialized temporary |
//! | E2118 | required output not written |
//! | W2119 | ps_2_0/2_x: no colour written |
//! | E2120 | loop counter used outside a loop |
//! | E2130 | IR constant/declaration not expressible in D3D9 (a pass bug) |

use super::printer::{mask_text, swizzle_text};
use super::regs::{DefKind, OLD_MNEMONICS, op_name, reg_name};
use crate::diag::{Code, Diagnostic, code};
use crate::ir::{
    ConstBinding, Dialect, Reg, RegFile, Semantic, Span, Swizzle, TexTarget, WriteMask,
};
use crate::ops::Op;
use crate::profile::{Profile, src_count};

/// Stop collecting after this many errors (the rest are summarized by E2099).
pub const MAX_ERRORS: usize = 100;

/// A flow-control block, as the structure errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowBlock {
    If,
    Else,
    Loop,
    Rep,
}

impl FlowBlock {
    /// The instruction that closes this block.
    fn closer(self) -> &'static str {
        match self {
            FlowBlock::If | FlowBlock::Else => "endif",
            FlowBlock::Loop => "endloop",
            FlowBlock::Rep => "endrep",
        }
    }
}

/// One problem found in a Direct3D 9 program. Registers, opcodes and profiles are kept as
/// values and spelled out only by [`D3d9Error::to_diagnostic`].
#[derive(Clone, Debug, PartialEq)]
pub enum D3d9Error {
    // ---- lines, version, syntax (lexer, parser, lowering) --------------------------------
    UnclosedComment,
    TooManyErrors {
        more: usize,
    },
    EmptyProgram {
        profile: Profile,
    },
    MissingVersion {
        profile: Profile,
    },
    MisplacedVersion,
    VersionMismatch {
        found: Profile,
        profile: Profile,
    },
    UnsupportedVersion {
        word: String,
    },
    TextAfterVersion,
    Expected {
        wanted: &'static str,
        found: Option<String>,
    },
    Preprocessor,
    CoIssue,
    Invert,
    UnclosedBracket,
    RelNoRegister,
    RelBadOffset {
        text: String,
    },
    RelUnexpected {
        text: String,
    },

    // ---- registers and operands (lowering) ------------------------------------------------
    NotARegister {
        name: String,
        profile: Profile,
    },
    FileNotInProfile {
        shown: String,
        file: RegFile,
        profile: Profile,
    },
    NeedsNumber {
        name: String,
    },
    OutOfRange {
        shown: String,
        file: RegFile,
        count: u32,
        profile: Profile,
        limits: String,
    },
    Undeclared {
        reg: Reg,
        profile: Profile,
    },
    BadSwizzle {
        text: String,
    },
    BadMask {
        text: String,
    },
    PredicateNotP0,
    ExpectedSampler,
    NotASampler {
        reg: Reg,
        op: Op,
        text: String,
    },
    SamplerModifiers,
    SamplerSwizzle {
        profile: Profile,
    },
    SamplerUndeclared {
        reg: Reg,
    },
    ExpectedRegister,
    LiteralOperand,
    WrongRegisterType {
        expected: &'static [RegFile],
        reg: Reg,
    },
    OperandModifiers,
    OperandSwizzle,
    BadAddressComponent {
        text: String,
    },
    AddressNeedsComponent,
    LoopComponent,
    CannotIndex {
        reg: Reg,
    },
    RelOutOfRange {
        offset: i64,
        count: u32,
    },
    BadSourceModifier {
        modifier: String,
        profile: Profile,
    },
    ExpectedDestination,
    DestinationModifiers,
    WriteInput {
        reg: Reg,
    },
    NotWritable {
        reg: Reg,
    },
    BangOnData,
    ReadOutput {
        reg: Reg,
    },
    MatrixPastEnd {
        first: Reg,
        last: Reg,
    },

    // ---- def ------------------------------------------------------------------------------
    DefModifiers {
        kind: DefKind,
    },
    PredicatedDef,
    DefNeedsRegister {
        kind: DefKind,
    },
    DefOperandCount {
        kind: DefKind,
        found: usize,
    },
    DefWrongRegister {
        kind: DefKind,
    },
    DefinedTwice {
        reg: Reg,
        first: Option<Span>,
    },
    DefNotNumber,
    DefNotInteger,
    DefNotBool,

    // ---- dcl ------------------------------------------------------------------------------
    PredicatedDcl,
    DclAfterInstruction {
        first: Span,
    },
    DclOperandCount,
    DclNeedsRegister,
    DclModifiers,
    UsageIndex {
        index: String,
    },
    UnknownDeclaration {
        word: String,
        suggestion: Option<&'static str>,
    },
    SamplerNeedsType {
        reg: Reg,
    },
    SamplerDclExtra,
    SamplerDeclaredTwice {
        reg: Reg,
        first: Span,
    },
    TypeOnNonSampler,
    UsageNotAllowed {
        reg: Reg,
        profile: Profile,
    },
    MiscUsage,
    NeedsUsage {
        reg: Reg,
    },
    NotDeclarable {
        reg: Reg,
        pixel: bool,
    },
    DclPartialPrecision,
    CentroidNotInput,
    DeclaredTwice {
        reg: Reg,
        first: Span,
    },
    SameSemantic {
        first_reg: Reg,
        reg: Reg,
        first: Span,
    },

    // ---- instruction words (lowering) ------------------------------------------------------
    UnknownInstruction {
        name: String,
        suggestion: Option<&'static str>,
    },
    SetpNeedsCondition,
    UnknownModifier {
        modifier: String,
        op: &'static str,
    },
    NotInProfile {
        op: Op,
        profile: Profile,
    },
    MovToA0 {
        operands: String,
    },
    OperandCount {
        text: String,
        op: Op,
        profile: Profile,
        expected: usize,
        found: usize,
    },

    // ---- declarations over the IR (rules) ---------------------------------------------------
    ImplicitDecl {
        reg: Reg,
        profile: Profile,
    },
    BadSemantic {
        reg: Reg,
        semantic: Semantic,
        profile: Profile,
    },
    VposMask,
    BadConstBinding {
        slot: usize,
        binding: Box<ConstBinding>,
    },
    SamplerNotDeclared {
        unit: u8,
    },
    SamplerTargetMismatch {
        unit: u8,
        used: TexTarget,
        declared: TexTarget,
        decl: Span,
    },
    SamplerTarget {
        unit: u8,
        target: TexTarget,
    },

    // ---- one instruction (rules) -------------------------------------------------------------
    ReadPorts {
        op: Op,
        profile: Profile,
        file: RegFile,
        count: usize,
        max: usize,
        reg: Reg,
        others: Vec<Span>,
    },
    NeedsReplicate {
        op: Op,
        profile: Profile,
        src: usize,
    },
    Ps20Swizzle {
        swizzle: Swizzle,
    },
    TexWholeTemp {
        op: Op,
        profile: Profile,
    },
    TexCoordFile {
        op: Op,
        profile: Profile,
    },
    TexCoordModifier {
        op: Op,
        profile: Profile,
    },
    TexkillOperand,
    SatInVertex {
        profile: Profile,
    },
    SatOnOp {
        op: Op,
        profile: Profile,
    },
    SatOnOutput {
        profile: Profile,
    },
    PpInVertex,
    MaskNotAllowed {
        mask: WriteMask,
        op: Op,
    },
    ScalarRegisterMask {
        reg: Reg,
    },
    Vs11AddressMask,
    WritesUndeclared {
        reg: Reg,
        decl: Span,
    },
    MustWriteTemp {
        op: Op,
        profile: Profile,
    },
    CrsSourceIsDst {
        reg: Reg,
    },
    CrsSwizzle,
    NrmSameRegister,
    PowSameRegister,
    MatrixVectorIsDst {
        op: Op,
        profile: Profile,
    },
    MatrixModifier {
        op: Op,
        profile: Profile,
    },
    MatrixRowIsDst {
        op: Op,
        profile: Profile,
    },
    SincosConstants {
        profile: Profile,
    },
    SgnScratch,
    MovaDestination,
    NotDataSource {
        reg: Reg,
        op: Op,
        profile: Profile,
    },
    NotWritableBy {
        reg: Reg,
        op: Op,
        profile: Profile,
    },
    AbsNotSm3 {
        profile: Profile,
    },
    NoPredication {
        profile: Profile,
    },
    FlowPredicated {
        op: Op,
        profile: Profile,
    },
    SincosPredicate,
    NoPredicateRegister {
        profile: Profile,
    },
    RelativeNotAllowed {
        profile: Profile,
    },
    ReadsUndeclared {
        reg: Reg,
        extra: WriteMask,
        wanted: WriteMask,
        decl: Span,
    },

    // ---- whole program (rules) -----------------------------------------------------------------
    AbsMixed {
        without: Span,
    },
    LabelTwice {
        label: u16,
    },
    AfterRet,
    IfDepth {
        max: usize,
    },
    Vs20IfBool,
    SecondElse {
        open: Span,
    },
    ElseWithoutIf,
    LoopDepth {
        max: usize,
        profile: Profile,
    },
    BreakOutsideLoop,
    LabelInBlock,
    LabelBeforeRet,
    RetInBlock,
    UndefinedLabel {
        label: u16,
    },
    Unclosed {
        block: FlowBlock,
    },
    WrongClose {
        closer: FlowBlock,
        open: Span,
    },
    CloseWithoutOpen {
        closer: FlowBlock,
    },
    SubroutineWithoutRet,
    LoopCounterOutside,
    DependentRead {
        order: i32,
        max: i32,
        profile: Profile,
        limits: String,
    },
    A0Uninitialized,
    Uninitialized {
        temp: usize,
        missing: WriteMask,
    },
    NoPosition,
    NoColor,
}

/// An error with its primary span.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned {
    pub error: D3d9Error,
    pub span: Span,
}

impl Spanned {
    pub fn to_diagnostic(&self) -> Diagnostic {
        self.error.to_diagnostic(self.span)
    }
}

impl D3d9Error {
    /// Binds the error to its primary span.
    pub fn at(self, span: Span) -> Spanned {
        Spanned { error: self, span }
    }

    /// The stable code of this error.
    pub fn code(&self) -> Code {
        use D3d9Error::*;
        match self {
            EmptyProgram { .. } | MissingVersion { .. } | MisplacedVersion => code!("E2001"),
            VersionMismatch { .. } => code!("E2002"),
            UnsupportedVersion { .. } => code!("E2003"),
            UnknownInstruction { .. } => code!("E2010"),
            NotInProfile { .. } => code!("E2011"),
            DefModifiers { .. } | SetpNeedsCondition | UnknownModifier { .. } => code!("E2012"),
            DclPartialPrecision | CentroidNotInput => code!("E2012"),
            DefOperandCount { .. } | DclOperandCount | OperandCount { .. } => code!("E2013"),
            TextAfterVersion | Expected { .. } | CoIssue | Invert | UnclosedBracket => {
                code!("E2020")
            }
            PredicatedDef | PredicatedDcl => code!("E2020"),
            NotARegister { .. } | NeedsNumber { .. } => code!("E2021"),
            OutOfRange { .. } | MatrixPastEnd { .. } => code!("E2022"),
            FileNotInProfile { .. } | MovToA0 { .. } | ExpectedSampler | NotASampler { .. } => {
                code!("E2023")
            }
            ExpectedRegister | LiteralOperand | WrongRegisterType { .. } | OperandModifiers => {
                code!("E2023")
            }
            ExpectedDestination | DestinationModifiers | BangOnData => code!("E2023"),
            BadSwizzle { .. } | OperandSwizzle => code!("E2024"),
            BadMask { .. } => code!("E2025"),
            RelNoRegister | RelBadOffset { .. } | RelUnexpected { .. } => code!("E2026"),
            BadAddressComponent { .. } | AddressNeedsComponent | LoopComponent => code!("E2026"),
            CannotIndex { .. } | RelOutOfRange { .. } => code!("E2026"),
            BadSourceModifier { .. } => code!("E2027"),
            DefNeedsRegister { .. } | DefWrongRegister { .. } | DefNotNumber => code!("E2030"),
            DefNotInteger | DefNotBool => code!("E2030"),
            DefinedTwice { .. } => code!("E2031"),
            DclNeedsRegister | DclModifiers | UsageIndex { .. } | UnknownDeclaration { .. } => {
                code!("E2040")
            }
            SamplerNeedsType { .. } | SamplerDclExtra | TypeOnNonSampler => code!("E2040"),
            UsageNotAllowed { .. } | MiscUsage | NeedsUsage { .. } | NotDeclarable { .. } => {
                code!("E2040")
            }
            SamplerDeclaredTwice { .. } | DeclaredTwice { .. } => code!("E2041"),
            DclAfterInstruction { .. } => code!("E2042"),
            SameSemantic { .. } => code!("E2043"),
            Undeclared { .. } => code!("E2050"),
            SamplerUndeclared { .. } => code!("E2051"),
            Preprocessor => code!("E2060"),
            UnclosedComment => code!("E2061"),
            TooManyErrors { .. } => code!("E2099"),
            ReadPorts { .. } => code!("E2101"),
            NeedsReplicate { .. } => code!("E2102"),
            Ps20Swizzle { .. } => code!("E2103"),
            SamplerModifiers | SamplerSwizzle { .. } | TexWholeTemp { .. } => code!("E2104"),
            TexCoordFile { .. } | TexCoordModifier { .. } | TexkillOperand => code!("E2104"),
            DependentRead { .. } => code!("E2105"),
            SatInVertex { .. } | SatOnOp { .. } | SatOnOutput { .. } => code!("E2106"),
            PpInVertex => code!("E2107"),
            MaskNotAllowed { .. } | ScalarRegisterMask { .. } | Vs11AddressMask => code!("E2108"),
            MustWriteTemp { .. } | CrsSourceIsDst { .. } | CrsSwizzle | NrmSameRegister => {
                code!("E2109")
            }
            PowSameRegister | MatrixVectorIsDst { .. } | MatrixModifier { .. } => code!("E2109"),
            MatrixRowIsDst { .. } | SincosConstants { .. } | SgnScratch | MovaDestination => {
                code!("E2109")
            }
            WriteInput { .. } | NotWritable { .. } | ReadOutput { .. } => code!("E2110"),
            NotDataSource { .. } | NotWritableBy { .. } => code!("E2110"),
            AbsNotSm3 { .. } | AbsMixed { .. } => code!("E2111"),
            ImplicitDecl { .. } | VposMask | SamplerNotDeclared { .. } => code!("E2112"),
            SamplerTargetMismatch { .. } => code!("E2112"),
            WritesUndeclared { .. } | ReadsUndeclared { .. } => code!("E2113"),
            LabelTwice { .. } | AfterRet | IfDepth { .. } | Vs20IfBool | SecondElse { .. } => {
                code!("E2114")
            }
            ElseWithoutIf | LoopDepth { .. } | BreakOutsideLoop | LabelInBlock => code!("E2114"),
            LabelBeforeRet | RetInBlock | UndefinedLabel { .. } | Unclosed { .. } => code!("E2114"),
            WrongClose { .. } | CloseWithoutOpen { .. } | SubroutineWithoutRet => code!("E2114"),
            PredicateNotP0 | NoPredication { .. } | FlowPredicated { .. } => code!("E2115"),
            SincosPredicate | NoPredicateRegister { .. } => code!("E2115"),
            RelativeNotAllowed { .. } => code!("E2116"),
            A0Uninitialized | Uninitialized { .. } => code!("E2117"),
            NoPosition => code!("E2118"),
            NoColor => code!("W2119"),
            LoopCounterOutside => code!("E2120"),
            BadSemantic { .. } | BadConstBinding { .. } | SamplerTarget { .. } => code!("E2130"),
        }
    }

    pub fn is_warning(&self) -> bool {
        self.code().is_warning()
    }

    /// Message, label, related spans, notes and hint, in the words of a shader author.
    // Long by design: one short arm per variant, so every message of the dialect is here.
    pub fn to_diagnostic(&self, span: Span) -> Diagnostic {
        use D3d9Error::*;
        let d = |message: &str| {
            if self.is_warning() {
                Diagnostic::warning(self.code(), message, span)
            } else {
                Diagnostic::error(self.code(), message, span)
            }
        };
        let write_hint = "write `c[a0.x + n]` (or `c[aL + n]` inside a loop)";
        let sat_hint = "saturate in a temporary, e.g. \
            `mov_sat r#, ...`, where allowed";
        let n = |op: &Op, p: &Profile| op_name(*op, *p);
        match self {
            // Lines, version, syntax.
            UnclosedComment => d("this `/*` comment is never closed")
                .with_label("comment starts here")
                .with_hint("close it with `*/`"),
            TooManyErrors { more } => d(&format!("{more} more errors not shown")),
            EmptyProgram { profile } => d("the program is empty: it has no version line")
                .with_hint(format!("start the program with `{}`", profile.header())),
            MissingVersion { profile } => d("the first statement must be the version line")
                .with_label("expected a version here")
                .with_hint(format!("start the program with `{}`", profile.header())),
            MisplacedVersion => {
                d("the version line must come first, and only once").with_label("misplaced version")
            }
            VersionMismatch { found, profile } => d(&format!(
                "the program says `{}` but is being read as {profile}",
                found.header()
            ))
            .with_label("version line")
            .with_hint(format!(
                "change the version line to `{}` \
                    or select the {found} profile",
                profile.header()
            )),
            UnsupportedVersion { word } => d(&format!("`{word}` is not supported"))
                .with_label("unsupported version")
                .with_hint(
                    "Hoist reads vs_1_1, vs_2_0, vs_2_x, \
                        vs_3_0, ps_2_0, ps_2_x and ps_3_0",
                ),
            TextAfterVersion => d("unexpected text after the version"),
            Expected { wanted, found } => match found {
                Some(t) => d(&format!("expected {wanted}, found `{}`", t.escape_debug())),
                None => d(&format!("expected {wanted}, found end of line")),
            }
            .with_label(format!("expected {wanted}")),
            Preprocessor => d("preprocessor directives are not supported")
                .with_hint("expand macros and #include files before loading the program"),
            CoIssue => d("co-issued instructions (`+`) exist only in ps_1_x")
                .with_hint("remove the `+` and write the instruction on its own"),
            Invert => d("`1 - register` (invert) exists only in ps_1_x")
                .with_hint("compute 1 - x with `add r#, -x, c#` and a `def` of 1"),
            UnclosedBracket => d("unclosed `[`").with_label("opened here"),
            RelNoRegister => {
                d("relative address without an address register").with_hint(write_hint)
            }
            RelBadOffset { text } => d(&format!("`{text}` is not an integer offset")),
            RelUnexpected { text } => d(&format!(
                "unexpected `{}` in a relative address",
                text.escape_debug()
            ))
            .with_hint(write_hint),

            // Registers and operands.
            NotARegister { name, profile } => {
                let e = d(&format!("`{name}` is not a register")).with_label("unknown register");
                not_a_register(e, name, *profile)
            }
            FileNotInProfile {
                shown,
                file,
                profile,
            } => d(&format!("{profile} has no `{shown}` register"))
                .with_label("not in this version")
                .with_hint(file_hint(*file, *profile)),
            NeedsNumber { name } => d(&format!("`{name}` needs a register number"))
                .with_hint(format!("write `{name}0`, `{name}1`, ...")),
            OutOfRange {
                shown,
                file,
                count,
                profile,
                limits,
            } => d(&format!("`{shown}` is out of range"))
                .with_label(format!("{profile} has {}", file_range(*file, *count)))
                .with_note(format!("limits: {limits}")),
            Undeclared { reg, profile } => {
                d(&format!("`{}` is used but not declared", reg_name(*reg)))
                    .with_label("needs a dcl")
                    .with_hint(declare_hint(*reg, *profile))
            }
            BadSwizzle { text } => d(&format!("`.{text}` is not a swizzle"))
                .with_label("bad swizzle")
                .with_hint(
                    "a swizzle is 1 to 4 letters of xyzw \
                        (or rgba), e.g. `.x`, `.xy`, `.wzyx`",
                ),
            BadMask { text } => d(&format!("`.{text}` is not a write mask"))
                .with_label("bad write mask")
                .with_hint(
                    "a write mask lists components in order \
                        without repeats, e.g. `.xy`, `.xzw`",
                ),
            PredicateNotP0 => d("instructions are predicated on p0"),
            ExpectedSampler => d("expected a sampler (s#)"),
            NotASampler { reg, op, text } => d(&format!("`{}` is not a sampler", reg_name(*reg)))
                .with_hint(format!("the form is `{}`", tex_form(*op, text))),
            SamplerModifiers => d("a sampler takes no modifiers"),
            SamplerSwizzle { profile } => d(&format!("a sampler takes no swizzle in {profile}")),
            SamplerUndeclared { reg } => d(&format!(
                "sampler `{}` is used but not declared",
                reg_name(*reg)
            ))
            .with_label("needs dcl_2d, dcl_cube or dcl_volume")
            .with_hint(format!(
                "add `dcl_2d {}` before the first instruction",
                reg_name(*reg)
            )),
            ExpectedRegister => d("expected a register"),
            LiteralOperand => d("expected a register")
                .with_hint("put literal values in a constant register with `def`"),
            WrongRegisterType { expected, reg } => d(&format!(
                "expected {}, found `{}`",
                expected
                    .iter()
                    .map(|f| reg_kind(*f))
                    .collect::<Vec<_>>()
                    .join(" or "),
                reg_name(*reg)
            ))
            .with_label("wrong register type"),
            OperandModifiers => d("this operand takes no modifiers"),
            OperandSwizzle => d("this operand takes no swizzle"),
            BadAddressComponent { text } => d(&format!("`{text}` is not an address component"))
                .with_hint("write a0.x (vs_2_0 and later also a0.y, a0.z, a0.w)"),
            AddressNeedsComponent => {
                d("the address register needs a component").with_hint("write `a0.x`")
            }
            LoopComponent => d("aL takes no component"),
            CannotIndex { reg } => d(&format!("`{}` cannot index registers", reg_name(*reg)))
                .with_hint("index with a0.x (or aL inside a loop)"),
            RelOutOfRange { offset, count } => d(&format!(
                "offset {offset} is outside the register file (0..{})",
                count.saturating_sub(1)
            )),
            BadSourceModifier { modifier, profile } => d(&format!(
                "source modifier `{modifier}` does not exist in {profile}"
            ))
            .with_hint("Direct3D 9 shaders have `-` (negate) and, in 3_0, `_abs`"),
            ExpectedDestination => d("expected a destination register"),
            DestinationModifiers => d("a destination register takes no source modifiers")
                .with_hint("negate or take |x| on a source instead"),
            WriteInput { reg } => d(&format!(
                "`{}` is an input and cannot be written",
                reg_name(*reg)
            ))
            .with_label("read-only register")
            .with_hint("write the value to a temporary (r#) instead"),
            NotWritable { reg } => d(&format!("`{}` cannot be written", reg_name(*reg)))
                .with_label("read-only register")
                .with_hint("write to a temporary (r#) or an output register"),
            BangOnData => d("`!` applies only to the predicate register"),
            ReadOutput { reg } => d(&format!(
                "`{}` is an output and cannot be read",
                reg_name(*reg)
            ))
            .with_label("write-only register")
            .with_hint("keep the value in a temporary (r#) and read that"),
            MatrixPastEnd { first, last } => d(&format!(
                "the matrix {}..{} runs past the last register",
                reg_name(*first),
                reg_name(*last)
            )),

            // def.
            DefModifiers { kind } => d(&format!("`{}` takes no modifiers", kind.word())),
            PredicatedDef => d("`def` cannot be predicated"),
            DefNeedsRegister { kind } => d(&format!(
                "`{}` needs a register and {}",
                kind.word(),
                def_values(*kind)
            ))
            .with_hint(format!("for example `{}`", def_example(*kind))),
            DefOperandCount { kind, found } => d(&format!(
                "`{}` takes a register and {}, found {found} operands",
                kind.word(),
                def_values(*kind)
            ))
            .with_hint(format!("for example `{}`", def_example(*kind))),
            DefWrongRegister { kind } => d(&format!(
                "`{}` defines a {} register",
                kind.word(),
                reg_kind(kind.file())
            ))
            .with_hint(format!("for example `{}`", def_example(*kind))),
            DefinedTwice { reg, first } => {
                let e = d(&format!("`{}` is defined twice", reg_name(*reg)));
                match first {
                    Some(f) => e.with_related(*f, "first defined here"),
                    None => e,
                }
            }
            DefNotNumber => d("expected a number").with_label("not a number"),
            DefNotInteger => d("expected an integer").with_label("not an integer"),
            DefNotBool => d("expected `true` or `false`"),

            // dcl.
            PredicatedDcl => d("`dcl` cannot be predicated"),
            DclAfterInstruction { first } => {
                d("declarations must come before the first instruction")
                    .with_related(*first, "first instruction")
                    .with_hint("move this dcl above the instructions")
            }
            DclOperandCount => d("`dcl` takes exactly one register")
                .with_hint("for example `dcl_texcoord0 v1` or `dcl_2d s0`"),
            DclNeedsRegister => d("`dcl` needs a register"),
            DclModifiers => d("a declared register takes no modifiers"),
            UsageIndex { index } => d(&format!("usage index `{index}` is out of range (0..15)")),
            UnknownDeclaration { word, suggestion } => {
                let e = d(&format!("unknown declaration `_{word}`"))
                    .with_label("not a usage or sampler type");
                match suggestion {
                    Some(s) => e.with_hint(format!("did you mean `_{s}`?")),
                    None => e,
                }
            }
            SamplerNeedsType { reg } => {
                d("a sampler declaration needs a texture type").with_hint(format!(
                    "write `dcl_2d {}`, `dcl_cube` or `dcl_volume`",
                    reg_name(*reg)
                ))
            }
            SamplerDclExtra => d("a sampler declaration takes only its texture type"),
            SamplerDeclaredTwice { reg, first } => {
                d(&format!("`{}` is declared twice", reg_name(*reg)))
                    .with_related(*first, "first declared here")
            }
            TypeOnNonSampler => d("a texture type can only be declared for a sampler (s#)"),
            UsageNotAllowed { reg, profile } => d(&format!("{profile} declarations take no usage"))
                .with_hint(format!("write `dcl {}`", reg_name(*reg))),
            MiscUsage => d("vPos and vFace are declared with plain `dcl`"),
            NeedsUsage { reg } => d(&format!("`{}` needs a usage", reg_name(*reg)))
                .with_hint(format!("for example `dcl_texcoord0 {}`", reg_name(*reg))),
            NotDeclarable { reg, pixel } => d(&format!("`{}` cannot be declared", reg_name(*reg)))
                .with_label("no dcl for this register")
                .with_note(if *pixel {
                    "pixel shaders declare inputs (v#, \
                        t#, vPos, vFace) and samplers"
                } else {
                    "vertex shaders declare inputs (v#), \
                        samplers and vs_3_0 outputs (o#)"
                }),
            DclPartialPrecision => d("`_pp` exists only in pixel shaders"),
            CentroidNotInput => d("`_centroid` applies to pixel shader inputs"),
            DeclaredTwice { reg, first } => d(&format!("`{}` is declared twice", reg_name(*reg)))
                .with_related(*first, "first declared here")
                .with_note("Hoist keeps one declaration per register"),
            SameSemantic {
                first_reg,
                reg,
                first,
            } => d(&format!(
                "`{}` and `{}` are declared with the same semantic",
                reg_name(*first_reg),
                reg_name(*reg)
            ))
            .with_related(*first, "first declared here")
            .with_note(
                "each input and output semantic links \
                    one register to the other stage",
            ),

            // Instruction words.
            UnknownInstruction { name, suggestion } => {
                let e =
                    d(&format!("unknown instruction `{name}`")).with_label("unknown instruction");
                match suggestion {
                    _ if OLD_MNEMONICS.contains(&name.as_str()) => {
                        e.with_note(format!("`{name}` is a ps_1_x instruction"))
                    }
                    Some(s) => e.with_hint(format!("did you mean `{s}`?")),
                    None => e,
                }
            }
            SetpNeedsCondition => d("`setp` needs a comparison").with_hint(
                "write `setp_gt`, `setp_lt`, `setp_ge`, \
                    `setp_le`, `setp_eq` or `setp_ne`",
            ),
            UnknownModifier { modifier, op } => {
                d(&format!("unknown modifier `_{modifier}` on `{op}`"))
                    .with_hint(modifier_hint(modifier))
            }
            NotInProfile { op, profile } => not_in_profile(
                d(&format!(
                    "`{}` is not available in {profile}",
                    n(op, profile)
                )),
                *op,
                *profile,
            ),
            MovToA0 { operands } => d("a0 is written with `mova` from vs_2_0 on")
                .with_hint(format!("write `mova {operands}`")),
            OperandCount {
                text,
                op,
                profile,
                expected,
                found,
            } => d(&format!(
                "`{text}` takes {expected} operand{}, found {found}",
                if *expected == 1 { "" } else { "s" }
            ))
            .with_hint(format!("the form is `{}`", form(*op, text, *profile))),

            // Declarations over the IR.
            ImplicitDecl { reg, profile } => d(&format!(
                "`{}` must be declared with dcl in {profile}",
                reg_name(*reg)
            ))
            .with_note("the IoDecl of this register has explicit: false"),
            BadSemantic {
                reg,
                semantic,
                profile,
            } => d(&format!(
                "`{}` cannot carry the semantic {semantic:?} in {profile}",
                reg_name(*reg)
            ))
            .with_note("a pass gave this register a semantic D3D9 cannot declare"),
            VposMask => {
                d("vPos must be declared with mask .x, .y or .xy").with_hint("write `dcl vPos.xy`")
            }
            BadConstBinding { slot, binding } => d(&format!(
                "constant slot c{slot} has a binding \
                    D3D9 cannot express: {binding:?}"
            ))
            .with_note(
                "D3D9 constants are `def` literals of \
                    four values or host-set c# (Env(#))",
            ),
            SamplerNotDeclared { unit } => d(&format!("sampler s{unit} is not declared"))
                .with_hint(format!("add `dcl_2d s{unit}`")),
            SamplerTargetMismatch {
                unit,
                used,
                declared,
                decl,
            } => d(&format!(
                "s{unit} is sampled as {used:?} but declared {declared:?}"
            ))
            .with_related(*decl, "declared here"),
            SamplerTarget { unit, target } => d(&format!(
                "sampler s{unit} has target \
                    {target:?}, which D3D9 cannot declare"
            )),

            // One instruction.
            ReadPorts {
                op,
                profile,
                file,
                count,
                max,
                reg,
                others,
            } => {
                let e = d(&format!(
                    "`{}` reads {count} different {} registers; \
                        {profile} allows {max} per instruction",
                    n(op, profile),
                    port_kind(*file)
                ))
                .with_label("one too many")
                .with_hint(format!(
                    "copy one of them to a temporary first (`mov r#, {}`)",
                    reg_name(*reg)
                ));
                others
                    .iter()
                    .fold(e, |e, s| e.with_related(*s, "also read here"))
            }
            NeedsReplicate { op, profile, src } => d(&format!(
                "`{}` needs a replicate swizzle on source {src}",
                n(op, profile)
            ))
            .with_label("pick one component")
            .with_hint("write `.x`, `.y`, `.z` or `.w`"),
            Ps20Swizzle { swizzle } => d(&format!(
                "ps_2_0 has no `.{}` swizzle",
                swizzle_text(*swizzle)
            ))
            .with_label("arbitrary swizzles need ps_2_x")
            .with_note(
                "ps_2_0 swizzles: .xyzw, .yzxw, .zxyw, \
                    .wzyx and replicates (.x, .y, .z, .w)",
            ),
            TexWholeTemp { op, profile } => d(&format!(
                "`{}` in {profile} writes a whole temporary register",
                n(op, profile)
            ))
            .with_hint("sample into r# without a write mask, then copy what you need"),
            TexCoordFile { op, profile } => d(&format!(
                "the coordinate of `{}` must be t# or r# in {profile}",
                n(op, profile)
            ))
            .with_hint("copy the coordinate to a temporary first"),
            TexCoordModifier { op, profile } => d(&format!(
                "the coordinate of `{}` takes no modifier{} in {profile}",
                n(op, profile),
                if sm3(*profile) { "" } else { " or swizzle" }
            ))
            .with_hint("compute the coordinate into a temporary first"),
            TexkillOperand => d("texkill takes a plain register (r# or t#)")
                .with_hint("compute the tested value into a temporary first"),
            SatInVertex { profile } => d(&format!(
                "vertex shaders have `_sat` only from vs_3_0 ({profile})"
            ))
            .with_hint(sat_hint),
            SatOnOp { op, profile } => {
                d(&format!("`{}` cannot take `_sat`", n(op, profile))).with_hint(sat_hint)
            }
            SatOnOutput { profile } => d(&format!(
                "in {profile}, `_sat` cannot be used \
                    when writing an output register"
            ))
            .with_hint(sat_hint),
            PpInVertex => d("`_pp` exists only in pixel shaders"),
            MaskNotAllowed { mask, op } => d(&format!(
                "write mask `.{}` not allowed: {}",
                mask_text(*mask),
                mask_rule(*op)
            ))
            .with_label("bad write mask"),
            ScalarRegisterMask { reg } => d(&format!(
                "`{}` is a scalar register: no write mask",
                reg_name(*reg)
            )),
            Vs11AddressMask => d("vs_1_1 has only a0.x"),
            WritesUndeclared { reg, decl } => d(&format!(
                "writes components of `{}` that its dcl does not declare",
                reg_name(*reg)
            ))
            .with_related(*decl, "declared here"),
            MustWriteTemp { op, profile } => restriction(d(&format!(
                "`{}` must write a temporary register",
                n(op, profile)
            ))),
            CrsSourceIsDst { reg } => restriction(d(&format!(
                "crs: source `{}` is the destination register",
                reg_name(*reg)
            ))),
            CrsSwizzle => restriction(d("crs sources take no swizzle")),
            NrmSameRegister => restriction(d("nrm: the destination cannot be the source register")),
            PowSameRegister => {
                restriction(d("pow: the destination cannot be the exponent's register"))
            }
            MatrixVectorIsDst { op, profile } => restriction(d(&format!(
                "{}: the destination cannot be the vector's register",
                n(op, profile)
            ))),
            MatrixModifier { op, profile } => restriction(d(&format!(
                "{}: the matrix operand takes no modifier or swizzle",
                n(op, profile)
            ))),
            MatrixRowIsDst { op, profile } => restriction(d(&format!(
                "{}: the destination is one of the matrix rows",
                n(op, profile)
            ))),
            SincosConstants { profile } => restriction(d(&format!(
                "sincos in {profile}: sources 1 and 2 are two \
                    different c# holding D3DSINCOSCONST1 and 2"
            ))),
            SgnScratch => restriction(d(
                "sgn: sources 1 and 2 are two different scratch temporaries",
            )),
            MovaDestination => restriction(d("mova writes the address register a0")),
            NotDataSource { reg, op, profile } => d(&format!(
                "`{}` cannot be read by `{}`",
                reg_name(*reg),
                n(op, profile)
            ))
            .with_label("not a data source")
            .with_note(data_source_note(reg.file)),
            NotWritableBy { reg, op, profile } => d(&format!(
                "`{}` cannot be written by `{}`",
                reg_name(*reg),
                n(op, profile)
            ))
            .with_hint(if reg.file == RegFile::Address {
                "write a0 with mova"
            } else {
                "write p0 with setp_*"
            }),
            AbsNotSm3 { profile } => d(&format!(
                "the `_abs` source modifier exists only in 3_0 ({profile})"
            ))
            .with_hint("use the `abs` instruction into a temporary"),
            NoPredication { profile } => d(&format!("{profile} has no predication")),
            FlowPredicated { op, profile } => {
                d(&format!("`{}` cannot be predicated", n(op, profile))).with_hint(
                    "use the predicate forms: if p0.x, \
                        breakp p0.x, callnz l#, p0.x",
                )
            }
            SincosPredicate => d("predicated sincos needs a replicate swizzle on p0"),
            NoPredicateRegister { profile } => d(&format!("{profile} has no predicate register")),
            RelativeNotAllowed { profile } => d(&format!(
                "relative addressing not allowed here in {profile}"
            ))
            .with_note(relative_note(*profile)),
            ReadsUndeclared {
                reg,
                extra,
                wanted,
                decl,
            } => d(&format!(
                "reads `{}.{}`, which its dcl does not declare",
                reg_name(*reg),
                mask_text(*extra)
            ))
            .with_related(*decl, "declared here")
            .with_hint(format!(
                "declare more components (`dcl {}.{}`) or change the swizzle",
                reg_name(*reg),
                mask_text(*wanted)
            )),

            // Whole program.
            AbsMixed { without } => d("constant registers are read both with and without `_abs`")
                .with_related(*without, "read without _abs here")
                .with_note("in 3_0 shaders either every c# read uses _abs or none does"),
            LabelTwice { label } => d(&format!("label l{label} is defined twice")),
            AfterRet => d("instruction after `ret` outside a subroutine").with_hint(
                "the main program ends with ret; \
                    subroutines start with label l#",
            ),
            IfDepth { max } => d(&format!("if blocks nested deeper than {max}")),
            Vs20IfBool => d("vs_2_0 `if` tests a boolean constant b#"),
            SecondElse { open } => {
                d("second `else` in one if block").with_related(*open, "if block")
            }
            ElseWithoutIf => d("`else` without an open `if`"),
            LoopDepth { max, profile } => d(&format!(
                "loop/rep blocks nested deeper than {max} in {profile}"
            )),
            BreakOutsideLoop => d("`break` outside a loop or rep block"),
            LabelInBlock => d("`label` inside a flow-control block"),
            LabelBeforeRet => d("`label` before the main program's `ret`")
                .with_hint("end the main program with ret, then write the subroutines"),
            RetInBlock => d("`ret` inside a flow-control block"),
            UndefinedLabel { label } => d(&format!("call to undefined label l{label}")),
            Unclosed { block } => d(&format!(
                "{} block is never closed with {}",
                match block {
                    FlowBlock::If | FlowBlock::Else => "if",
                    FlowBlock::Loop => "loop",
                    FlowBlock::Rep => "rep",
                },
                block.closer()
            )),
            WrongClose { closer, open } => d(&format!(
                "`{}` closes a different kind of block",
                closer.closer()
            ))
            .with_related(*open, "innermost open block"),
            CloseWithoutOpen { closer } => {
                d(&format!("`{}` without an open block", closer.closer()))
            }
            SubroutineWithoutRet => d("the last subroutine does not end with `ret`"),
            LoopCounterOutside => d("aL is used outside a loop block")
                .with_hint("aL holds the counter of the enclosing loop aL, i# block"),
            DependentRead {
                order,
                max,
                profile,
                limits,
            } => d(&format!(
                "this texture read is dependent to \
                    order {order}; {profile} allows {max}"
            ))
            .with_note(
                "a read is first-order when its coordinate is r# or its destination \
                    was written before; each texture \
result it depends on adds one",
            )
            .with_note(format!("limits: {limits}")),
            A0Uninitialized => d("a0 is used before it is written")
                .with_hint("set it with mova (vs_1_1: mov a0.x, ...) first"),
            Uninitialized { temp, missing } => d(&format!(
                "reads `r{temp}.{}` before it is written",
                mask_text(*missing)
            ))
            .with_label("uninitialized"),
            NoPosition => d("the vertex shader never writes oPos").with_hint(
                "every vertex shader must write the \
                    position, e.g. `m4x4 oPos, v0, c0`",
            ),
            NoColor => d("the pixel shader writes no colour (oC#)"),
        }
    }
}

fn sm3(p: Profile) -> bool {
    matches!(p, Profile::Vs3_0 | Profile::Ps3_0)
}

/// What a register of `file` is called in operand-kind messages.
fn reg_kind(f: RegFile) -> &'static str {
    match f {
        RegFile::Const => "constant (c#)",
        RegFile::ConstInt => "integer constant (i#)",
        RegFile::ConstBool => "boolean constant (b#)",
        RegFile::Label => "label (l#)",
        RegFile::Loop => "the loop counter (aL)",
        RegFile::Predicate => "the predicate register (p0)",
        RegFile::Sampler => "sampler (s#)",
        _ => "register",
    }
}

fn port_kind(f: RegFile) -> &'static str {
    match f {
        RegFile::Const => "constant",
        RegFile::Input => "input",
        _ => "texture coordinate",
    }
}

fn def_values(k: DefKind) -> &'static str {
    match k {
        DefKind::Def => "four numbers",
        DefKind::Defi => "four integers",
        DefKind::Defb => "`true` or `false`",
    }
}

fn def_example(k: DefKind) -> &'static str {
    match k {
        DefKind::Def => "def c0, 1.0, 0.5, 0.0, 1.0",
        DefKind::Defi => "defi i0, 4, 0, 1, 0",
        DefKind::Defb => "defb b0, true",
    }
}

fn not_a_register(d: Diagnostic, name: &str, p: Profile) -> Diagnostic {
    match name {
        "opos" | "ofog" | "opts" | "od0" | "ot0" => d,
        _ if name.starts_with('o') && p == Profile::Vs3_0 => {
            d.with_hint("vs_3_0 outputs are o0..o11, declared with dcl_<usage>")
        }
        _ => d,
    }
}

fn file_hint(file: RegFile, p: Profile) -> &'static str {
    match file {
        RegFile::TexCoord if p == Profile::Ps3_0 => {
            "ps_3_0 reads interpolants from v# registers declared with dcl_texcoord#"
        }
        RegFile::RastOut | RegFile::AttrOut | RegFile::TexCrdOut => {
            "vs_3_0 writes o# registers declared with dcl_position/dcl_texcoord#/..."
        }
        RegFile::Predicate => "the predicate register p0 exists in vs_2_x/ps_2_x and 3_0",
        RegFile::ConstInt | RegFile::ConstBool | RegFile::Label | RegFile::Loop => {
            "flow control needs vs_2_0 (ps_2_x for pixel shaders) or later"
        }
        _ => "see the Registers page of this shader version",
    }
}

/// `r0..r31`: the registers of a file with `count` of them.
fn file_range(file: RegFile, count: u32) -> String {
    let first = reg_name(Reg::new(file, 0));
    let last = if count > 0 {
        reg_name(Reg::new(file, (count - 1).min(u16::MAX as u32) as u16))
    } else {
        "none".into()
    };
    format!("{first}..{last}")
}

fn declare_hint(reg: Reg, p: Profile) -> String {
    let name = reg_name(reg);
    match (reg.file, p) {
        (RegFile::Input, Profile::Ps2_0 | Profile::Ps2_x) => format!("add `dcl {name}`"),
        (RegFile::TexCoord, _) => {
            format!("add `dcl {name}` (with a mask such as `.xy` if fewer components are used)")
        }
        (RegFile::Input, _) => format!("add a declaration such as `dcl_texcoord0 {name}`"),
        (RegFile::Output, _) => format!("add a declaration such as `dcl_texcoord0 {name}`"),
        (RegFile::Misc, _) => format!("add `dcl {name}`"),
        _ => format!("declare {name}"),
    }
}

fn modifier_hint(modifier: &str) -> &'static str {
    match modifier {
        "x2" | "x4" | "x8" | "d2" | "d4" | "d8" => {
            "result scaling modifiers exist only in ps_1_x; multiply instead"
        }
        "centroid" => "`_centroid` is written on the dcl of the input",
        "gt" | "lt" | "ge" | "le" | "eq" | "ne" => "comparisons apply to if, break and setp",
        _ => "instructions take `_sat` and (pixel shaders) `_pp`",
    }
}

fn not_in_profile(d: Diagnostic, op: Op, p: Profile) -> Diagnostic {
    let d = d.with_label(format!("not a {p} instruction"));
    let have: Vec<&str> = Profile::ALL
        .iter()
        .filter(|q| q.dialect() == Dialect::D3d9 && q.has(op))
        .map(|q| q.header())
        .collect();
    let d = if have.is_empty() {
        match op {
            Op::Cnd => d.with_note("cnd exists only in ps_1_x; use cmp (src0 >= 0 ? src1 : src2)"),
            _ => d.with_note("no Direct3D 9 version Hoist reads has it"),
        }
    } else {
        d.with_note(format!("available in: {}", have.join(", ")))
    };
    if op == Op::Mov && p != Profile::Vs1_1 {
        d.with_hint("use mova to write a0")
    } else {
        d
    }
}

/// The operand form of a texture instruction, as written (`texld_pp`).
fn tex_form(op: Op, text: &str) -> String {
    if op == Op::Texldd {
        format!("{text} dst, src0, s#, src2, src3")
    } else {
        format!("{text} dst, src0, s#")
    }
}

/// The operand form an instruction takes, for operand-count errors.
fn form(op: Op, text: &str, p: Profile) -> String {
    match op {
        Op::Tex | Op::Txb | Op::Txp | Op::Texldl | Op::Texldd => tex_form(op, text),
        Op::Texkil => "texkill r# (or t#)".into(),
        Op::If => "if b# (or if p0.x)".into(),
        Op::Callnz => "callnz l#, b# (or p0.x)".into(),
        Op::Call => "call l#".into(),
        Op::Label => "label l#".into(),
        Op::Loop => "loop aL, i#".into(),
        Op::Rep => "rep i#".into(),
        Op::Breakp => "breakp p0.x".into(),
        Op::Ifc(_) | Op::Breakc(_) => format!("{text} src0, src1"),
        _ => {
            let nsrc = src_count(op, p);
            let dst = if op.info().has_dst { "dst" } else { "" };
            let srcs: String = (0..nsrc).map(|i| format!(", src{i}")).collect();
            format!("{text} {dst}{srcs}")
                .replace(" , ", " ")
                .trim()
                .to_string()
        }
    }
}

fn restriction(d: Diagnostic) -> Diagnostic {
    d.with_label("not allowed")
}

fn mask_rule(op: Op) -> &'static str {
    match op {
        Op::Sincos => "sincos writes .x, .y or .xy",
        Op::Xpd => "crs writes a subset of .xyz",
        Op::M3x2 => "m3x2 writes .xy",
        Op::M3x3 | Op::M4x3 => "m3x3 and m4x3 write .xyz",
        Op::M3x4 | Op::M4x4 => "m3x4 and m4x4 write all of .xyzw",
        _ => "vs_1_1 frc writes .y or .xy",
    }
}

fn data_source_note(file: RegFile) -> &'static str {
    match file {
        RegFile::Misc => "vFace may only be compared, with setp_*, if_* or break_*",
        RegFile::Address => "a0 is only used as a relative index, c[a0.x + n]",
        RegFile::ConstInt | RegFile::ConstBool => "i# and b# are read only by flow control",
        _ => "this register is not a data source",
    }
}

fn relative_note(p: Profile) -> &'static str {
    match p {
        Profile::Vs1_1 => "vs_1_1 indexes only constants, with a0.x",
        Profile::Vs2_0 | Profile::Vs2_x => "vs_2_0/vs_2_x index only constants, with a0 or aL",
        Profile::Vs3_0 => "vs_3_0 indexes c# and v# (a0 or aL) and o# (aL)",
        Profile::Ps3_0 => "ps_3_0 indexes only v#, with aL",
        _ => "pixel shaders before ps_3_0 have no relative addressing",
    }
}

/// Closest name in `names` to `word` (edit distance at most 2), for "did you mean" hints.
pub fn suggest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.len() > 32 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for n in names {
        let d = distance(word, n);
        if d <= 2 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, n));
        }
    }
    best.map(|(_, n)| n)
}

fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(suggest("texdl", ["texld", "mov"]), Some("texld"));
        assert_eq!(suggest("zzzzzz", ["texld", "mov"]), None);
    }

    #[test]
    fn errors_stay_small() {
        // Errors are raised in bulk on junk input: keep them to spans and small payloads.
        assert!(std::mem::size_of::<D3d9Error>() <= 64);
        assert!(std::mem::size_of::<Spanned>() <= 72);
    }

    #[test]
    fn text_lives_in_one_place() {
        let d = D3d9Error::DefinedTwice {
            reg: Reg::new(RegFile::Const, 3),
            first: Some(Span::new(0, 1)),
        }
        .to_diagnostic(Span::new(5, 6));
        assert_eq!(d.code, "E2031");
        assert_eq!(d.message, "`c3` is defined twice");
        assert_eq!(
            d.related,
            vec![(Span::new(0, 1), "first defined here".to_string())]
        );
        let w = D3d9Error::NoColor.to_diagnostic(Span::new(0, 0));
        assert_eq!(w.severity, crate::diag::Severity::Warning);
    }
}

//! Errors of the ARB front end: small values holding spans and payloads, turned into
//! [`Diagnostic`]s (code, message, label, hint) in one place, [`ArbError::to_diagnostic`].
//! Codes are stable: `E10xx` syntax and options, `E11xx` names and operands, `E12xx`
//! bindings, `E13xx` whole-program rules; warnings use `W1xxx`.

use crate::diag::{Code, Diagnostic, code};
use crate::ir::Span;

/// One problem found in an ARB program.
#[derive(Clone, Debug, PartialEq)]
pub enum ArbError {
    MissingHeader {
        found: String,
        expected: &'static str,
    },
    WrongHeader {
        found: String,
        expected: &'static str,
    },
    LeadingText {
        expected: &'static str,
    },
    InvalidChar {
        text: String,
    },
    Expected {
        expected: String,
        found: String,
    },
    MissingEnd,
    AfterEnd,
    BadNumber {
        text: String,
        why: &'static str,
    },
    OptionAfterStatement,
    AbsOperator,
    TooManyErrors {
        max: usize,
    },

    UnknownOption {
        name: String,
    },
    UnsupportedExtension {
        name: String,
        what: &'static str,
    },
    OptionWrongStage {
        name: String,
        stage: &'static str,
    },
    OptionConflict {
        name: String,
        other: String,
        first: Span,
    },

    UnknownInstruction {
        name: String,
        suggestion: Option<String>,
    },
    InstructionNeedsExtension {
        name: String,
        ext: &'static str,
    },
    InstructionWrongStage {
        name: String,
        stage: &'static str,
    },
    SatInVertex {
        name: String,
    },
    OperandCount {
        op: String,
        expected: usize,
        found: usize,
    },
    ScalarOperand {
        op: String,
        example: String,
    },
    BadSwizzle {
        text: String,
        why: &'static str,
    },
    BadWriteMask {
        text: String,
        why: &'static str,
    },
    BadExtSwizzle {
        text: String,
    },
    SwzSourceModifier,
    BadTextureTarget {
        text: String,
    },
    ShadowNeedsOption {
        target: String,
    },
    BadTextureUnit,
    ArlDestination {
        why: &'static str,
    },
    DestinationSign,

    UnknownName {
        name: String,
        suggestion: Option<String>,
        decl_hint: bool,
    },
    Redeclared {
        name: String,
        first: Span,
    },
    Reserved {
        name: String,
    },
    NotWritable {
        name: String,
        what: &'static str,
    },
    NotReadable {
        name: String,
        what: &'static str,
    },
    NotAnArray {
        name: String,
    },
    ArrayNeedsIndex {
        name: String,
    },
    IndexOutOfRange {
        name: String,
        index: u64,
        len: u32,
    },
    RelativeNotAllowed {
        why: &'static str,
    },
    BadAddressComponent,
    RelOffsetRange {
        offset: i64,
    },
    RelOffsetOutsideSpec {
        offset: i64,
    },
    NotAnAddress {
        name: String,
    },
    AddressAsValue {
        name: String,
    },
    NotAParamSource {
        what: &'static str,
    },

    UnknownBinding {
        path: String,
        expected: String,
        suggestion: Option<String>,
    },
    BindingIndexRange {
        what: &'static str,
        index: u64,
        max: u32,
    },
    BindingNeedsIndex {
        path: String,
        example: String,
    },
    BindingNoIndex {
        path: String,
    },
    BindingWrongStage {
        path: String,
        stage: &'static str,
    },
    IncompleteBinding {
        path: String,
        expected: String,
    },
    ArrayBindingInSingle {
        path: String,
    },
    RangeReversed {
        lo: u64,
        hi: u64,
    },
    ArraySizeMismatch {
        declared: u64,
        actual: u64,
    },
    ArraySizeZero,
    ConflictingAttributes {
        first: String,
        second: String,
        first_span: Span,
    },
    PositionInvariantWrite,
    UnsupportedBinding {
        path: String,
        why: &'static str,
    },
    DrawBuffersNeedsOption,
    WeightIndex {
        index: u64,
    },
    NotABinding {
        what: &'static str,
        expected: &'static str,
    },
    EmptyVector,
    VectorTooLong,
    /// A use of a name whose declaration failed; never reported (the declaration was).
    Poisoned,

    NotExpressible {
        what: &'static str,
    },
    RelAddrRule {
        why: &'static str,
    },
    AddressWrite {
        why: &'static str,
    },
    LimitWithOption {
        what: &'static str,
        used: u64,
        max: u64,
        option: &'static str,
    },
    TexTargetConflict {
        unit: u8,
        first: &'static str,
        second: &'static str,
        first_span: Span,
    },
    TexIndirections {
        used: u32,
        max: u32,
    },
    TooManyAttributes {
        used: u32,
        max: u32,
    },
    RelativeArrayDuplicate {
        binding: String,
        array: String,
        /// The other relatively addressed array that binds it (`None`: the same one).
        other: Option<String>,
        first: Span,
    },
}

impl ArbError {
    /// Binds the error to a span.
    pub fn at(self, span: Span) -> Spanned {
        Spanned { error: self, span }
    }
}

/// An error with its primary span.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned {
    pub error: ArbError,
    pub span: Span,
}

impl Spanned {
    pub fn to_diagnostic(&self) -> Diagnostic {
        self.error.to_diagnostic(self.span)
    }
}

fn list(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `expected` helper for binding errors.
pub fn one_of(words: &[&str]) -> String {
    list(words)
}

impl ArbError {
    /// The stable code of this error.
    pub fn code(&self) -> Code {
        use ArbError::*;
        match self {
            MissingHeader { .. } => code!("E1001"),
            WrongHeader { .. } => code!("E1002"),
            LeadingText { .. } => code!("W1001"),
            InvalidChar { .. } => code!("E1003"),
            Expected { .. } => code!("E1004"),
            MissingEnd => code!("E1005"),
            AfterEnd => code!("W1002"),
            BadNumber { .. } => code!("E1006"),
            OptionAfterStatement => code!("E1007"),
            AbsOperator => code!("E1008"),
            TooManyErrors { .. } => code!("E1009"),
            UnknownOption { .. } => code!("E1020"),
            UnsupportedExtension { .. } => code!("E1021"),
            OptionWrongStage { .. } => code!("E1022"),
            OptionConflict { .. } => code!("E1023"),
            UnknownInstruction { .. } => code!("E1030"),
            InstructionNeedsExtension { .. } => code!("E1031"),
            InstructionWrongStage { .. } => code!("E1032"),
            SatInVertex { .. } => code!("E1033"),
            OperandCount { .. } => code!("E1034"),
            ScalarOperand { .. } => code!("E1035"),
            BadSwizzle { .. } => code!("E1036"),
            BadWriteMask { .. } => code!("E1037"),
            BadExtSwizzle { .. } => code!("E1038"),
            SwzSourceModifier => code!("E1039"),
            BadTextureTarget { .. } => code!("E1040"),
            ShadowNeedsOption { .. } => code!("E1041"),
            BadTextureUnit => code!("E1042"),
            ArlDestination { .. } => code!("E1043"),
            DestinationSign => code!("E1044"),
            UnknownName { .. } => code!("E1100"),
            Redeclared { .. } => code!("E1101"),
            Reserved { .. } => code!("E1102"),
            NotWritable { .. } => code!("E1103"),
            NotReadable { .. } => code!("E1104"),
            NotAnArray { .. } => code!("E1105"),
            ArrayNeedsIndex { .. } => code!("E1106"),
            IndexOutOfRange { .. } => code!("E1107"),
            RelativeNotAllowed { .. } => code!("E1108"),
            BadAddressComponent => code!("E1109"),
            RelOffsetRange { .. } => code!("E1110"),
            RelOffsetOutsideSpec { .. } => code!("W1003"),
            NotAnAddress { .. } => code!("E1111"),
            AddressAsValue { .. } => code!("E1112"),
            NotAParamSource { .. } => code!("E1113"),
            UnknownBinding { .. } => code!("E1200"),
            BindingIndexRange { .. } => code!("E1201"),
            BindingNeedsIndex { .. } => code!("E1202"),
            BindingNoIndex { .. } => code!("E1203"),
            BindingWrongStage { .. } => code!("E1204"),
            IncompleteBinding { .. } => code!("E1205"),
            ArrayBindingInSingle { .. } => code!("E1206"),
            RangeReversed { .. } => code!("E1207"),
            ArraySizeMismatch { .. } => code!("E1208"),
            ArraySizeZero => code!("E1209"),
            ConflictingAttributes { .. } => code!("E1210"),
            PositionInvariantWrite => code!("E1211"),
            UnsupportedBinding { .. } => code!("E1212"),
            DrawBuffersNeedsOption => code!("E1213"),
            WeightIndex { .. } => code!("E1214"),
            NotABinding { .. } => code!("E1215"),
            EmptyVector => code!("E1216"),
            VectorTooLong => code!("E1217"),
            Poisoned => code!("E1299"),
            NotExpressible { .. } => code!("E1300"),
            RelAddrRule { .. } => code!("E1301"),
            AddressWrite { .. } => code!("E1302"),
            LimitWithOption { .. } => code!("E1303"),
            TexTargetConflict { .. } => code!("E1304"),
            TexIndirections { .. } => code!("W1305"),
            TooManyAttributes { .. } => code!("E1306"),
            RelativeArrayDuplicate { .. } => code!("E1307"),
        }
    }

    pub fn is_warning(&self) -> bool {
        self.code().is_warning()
    }

    /// Message, label, hint and related spans, in the words of a shader author.
    pub fn to_diagnostic(&self, span: Span) -> Diagnostic {
        use ArbError::*;
        let (message, label, hint) = self.text();
        let mut d = if self.is_warning() {
            Diagnostic::warning(self.code(), message, span)
        } else {
            Diagnostic::error(self.code(), message, span)
        }
        .with_label(label);
        if let Some(h) = hint {
            d = d.with_hint(h);
        }
        match self {
            Redeclared { first, .. } => d = d.with_related(*first, "first declared here"),
            OptionConflict { first, .. } => d = d.with_related(*first, "first option here"),
            ConflictingAttributes { first_span, .. } => {
                d = d.with_related(*first_span, "first used here")
            }
            TexTargetConflict { first_span, .. } => {
                d = d.with_related(*first_span, "first target here")
            }
            RelativeArrayDuplicate { first, .. } => d = d.with_related(*first, "first bound here"),
            _ => {}
        }
        d
    }

    /// Message, label and hint.
    // Long by design: one short arm per variant, so every message of the dialect is here.
    fn text(&self) -> (String, String, Option<String>) {
        use ArbError::*;
        match self {
            MissingHeader { found, expected } => (
                format!("expected the program header `{expected}`, found {found}"),
                "the program must start here".into(),
                Some(format!("start the program with `{expected}` and end it with `END`")),
            ),
            WrongHeader { found, expected } => (
                format!("this program is `{found}`, but `{expected}` was expected"),
                "wrong program header".into(),
                Some(format!("use `{expected}`, or parse it as the profile its header names")),
            ),
            LeadingText { expected } => (
                format!("text before `{expected}`"),
                "drivers require the header at the very start".into(),
                Some("remove everything before the header".into()),
            ),
            InvalidChar { text } => (
                format!("unexpected character{} `{}`", if text.chars().count() > 1 { "s" } else { "" }, text.escape_debug()),
                "not part of the ARB assembly language".into(),
                None,
            ),
            Expected { expected, found } => (
                format!("expected {expected}, found {found}"),
                format!("expected {expected}"),
                None,
            ),
            MissingEnd => (
                "the program does not end with `END`".into(),
                "program text ends here".into(),
                Some("add `END` after the last instruction".into()),
            ),
            AfterEnd => (
                "text after `END` is ignored".into(),
                "ignored".into(),
                None,
            ),
            BadNumber { text, why } => (
                format!("invalid number `{text}`: {why}"),
                "invalid number".into(),
                None,
            ),
            OptionAfterStatement => (
                "`OPTION` must come before all other statements".into(),
                "option after a statement".into(),
                Some("move this line directly below the header".into()),
            ),
            AbsOperator => (
                "ARB programs have no absolute-value operand modifier `|x|`".into(),
                "not in ARB_vertex_program / ARB_fragment_program".into(),
                Some("compute it with `ABS tmp, x;` (`|x|` needs NV_vertex_program2 / NV_fragment_program)".into()),
            ),
            TooManyErrors { max } => (
                format!("too many errors; stopped after {max}"),
                "stopped here".into(),
                None,
            ),
            UnknownOption { name } => (
                format!("unknown program option `{name}`"),
                "not an option of ARB_vertex_program or ARB_fragment_program".into(),
                Some(
                    "vertex programs know `ARB_position_invariant`; fragment programs know \
                     `ARB_precision_hint_fastest`, `ARB_precision_hint_nicest`, `ARB_fog_exp`, \
                     `ARB_fog_exp2`, `ARB_fog_linear`, `ARB_draw_buffers` and \
                     `ARB_fragment_program_shadow`"
                        .into(),
                ),
            ),
            UnsupportedExtension { name, what } => (
                format!("the extension `{name}` is not supported"),
                format!("{what} is not part of the ARB languages Hoist implements"),
                Some("Hoist implements ARB_vertex_program and ARB_fragment_program 1.0 with their ARB options only".into()),
            ),
            OptionWrongStage { name, stage } => (
                format!("`{name}` is not an option of {stage} programs"),
                format!("not available in {stage} programs"),
                None,
            ),
            OptionConflict { name, other, .. } => (
                format!("`{name}` conflicts with `{other}`"),
                "conflicting option".into(),
                Some("a program may name only one fog option and one precision hint".into()),
            ),
            UnknownInstruction { name, suggestion } => (
                format!("unknown instruction `{name}`"),
                "not an instruction".into(),
                suggestion.as_ref().map(|s| format!("did you mean `{s}`?")),
            ),
            InstructionNeedsExtension { name, ext } => (
                format!("`{name}` is an instruction of {ext}, which is not supported"),
                "needs an extension".into(),
                Some("Hoist implements the ARB instruction set only".into()),
            ),
            InstructionWrongStage { name, stage } => (
                format!("`{name}` is not available in {stage} programs"),
                format!("not a {stage} program instruction"),
                None,
            ),
            SatInVertex { name } => (
                format!("`{name}`: `_SAT` exists only in fragment programs"),
                "vertex programs cannot saturate".into(),
                Some("drop the `_SAT` suffix, or clamp with MIN/MAX".into()),
            ),
            OperandCount { op, expected, found } => (
                format!("`{op}` takes {expected} operand{}, found {found}", if *expected == 1 { "" } else { "s" }),
                "wrong number of operands".into(),
                None,
            ),
            ScalarOperand { op, example } => (
                format!("`{op}` needs a scalar operand: select one component"),
                "not a single component".into(),
                Some(format!("write it as `{example}`")),
            ),
            BadSwizzle { text, why } => (
                format!("invalid swizzle `.{text}`: {why}"),
                "invalid swizzle".into(),
                Some("use one component (`.x`) or four (`.xyzw`)".into()),
            ),
            BadWriteMask { text, why } => (
                format!("invalid write mask `.{text}`: {why}"),
                "invalid write mask".into(),
                Some("list each written component once, in xyzw order, e.g. `.xz`".into()),
            ),
            BadExtSwizzle { text } => (
                format!("invalid extended swizzle component `{text}`"),
                "expected `0`, `1` or a component".into(),
                Some("each of the four SWZ selectors is an optional sign and one of 0, 1, x, y, z, w".into()),
            ),
            SwzSourceModifier => (
                "the source of `SWZ` takes no sign or swizzle".into(),
                "modifier not allowed here".into(),
                Some("put signs and selectors in the four extended-swizzle components".into()),
            ),
            BadTextureTarget { text } => (
                format!("unknown texture target `{text}`"),
                "not a texture target".into(),
                Some("use `1D`, `2D`, `3D`, `CUBE` or `RECT` (and `SHADOW1D`, `SHADOW2D`, `SHADOWRECT` with ARB_fragment_program_shadow)".into()),
            ),
            ShadowNeedsOption { target } => (
                format!("the texture target `{target}` needs `OPTION ARB_fragment_program_shadow;`"),
                "shadow target".into(),
                Some("add `OPTION ARB_fragment_program_shadow;` below the header".into()),
            ),
            BadTextureUnit => (
                "expected a texture image unit such as `texture[0]`".into(),
                "not a texture unit".into(),
                None,
            ),
            ArlDestination { why } => (
                format!("invalid `ARL` destination: {why}"),
                "expected an address register with mask `.x`".into(),
                Some("write `ARL A0.x, value.x;` after `ADDRESS A0;`".into()),
            ),
            DestinationSign => (
                "a destination cannot be negated".into(),
                "sign not allowed here".into(),
                None,
            ),
            UnknownName { name, suggestion, decl_hint } => (
                format!("unknown name `{name}`"),
                "not declared before this point".into(),
                match (suggestion, decl_hint) {
                    (Some(s), _) => Some(format!("did you mean `{s}`?")),
                    (None, true) => Some(format!("declare it first, e.g. `TEMP {name};`")),
                    (None, false) => None,
                },
            ),
            Redeclared { name, .. } => (
                format!("`{name}` is declared twice"),
                "declared again here".into(),
                Some("choose another name".into()),
            ),
            Reserved { name } => (
                format!("`{name}` is a reserved word and cannot be used as a name"),
                "reserved word".into(),
                Some("choose another name".into()),
            ),
            NotWritable { name, what } => (
                format!("`{name}` is {what} and cannot be written"),
                "read-only".into(),
                Some("write to a TEMP or a `result.*` register".into()),
            ),
            NotReadable { name, what } => (
                format!("`{name}` is {what} and cannot be read"),
                "write-only".into(),
                Some("compute the value in a TEMP, then copy it to the output".into()),
            ),
            NotAnArray { name } => (
                format!("`{name}` is not a parameter array and cannot be indexed"),
                "not an array".into(),
                Some(format!("declare it as an array, e.g. `PARAM {name}[] = {{ ... }};`")),
            ),
            ArrayNeedsIndex { name } => (
                format!("the parameter array `{name}` needs an index"),
                "array used without index".into(),
                Some(format!("write `{name}[0]`")),
            ),
            IndexOutOfRange { name, index, len } => (
                format!("index {index} is out of range for `{name}`, which has {len} element{}", if *len == 1 { "" } else { "s" }),
                "out of range".into(),
                None,
            ),
            RelativeNotAllowed { why } => (
                format!("relative addressing is not allowed here: {why}"),
                "relative address".into(),
                None,
            ),
            BadAddressComponent => (
                "relative addressing must use the `.x` component of an address register".into(),
                "expected `.x`".into(),
                Some("write `arr[A0.x]` or `arr[A0.x + 1]`".into()),
            ),
            RelOffsetRange { offset } => (
                format!("relative offset {offset} is out of range"),
                "offset too large".into(),
                None,
            ),
            RelOffsetOutsideSpec { offset } => (
                format!("relative offset {offset} is outside the range -64..63 of the spec"),
                "accepted, as Mesa does, but other drivers may reject it".into(),
                None,
            ),
            NotAnAddress { name } => (
                format!("`{name}` is not an address register"),
                "not declared with ADDRESS".into(),
                Some("declare one with `ADDRESS A0;` and load it with `ARL A0.x, value.x;`".into()),
            ),
            AddressAsValue { name } => (
                format!("the address register `{name}` can only be used inside `[...]` or as the ARL destination"),
                "address register".into(),
                None,
            ),
            NotAParamSource { what } => (
                format!("{what} cannot be bound to a PARAM"),
                "not a parameter binding".into(),
                Some("PARAM takes constants, `state.*` or `program.env/local[...]`; use ATTRIB for `vertex.*`/`fragment.*`".into()),
            ),
            UnknownBinding { path, expected, suggestion } => (
                format!("unknown binding `{path}`"),
                format!("expected {expected}"),
                suggestion.as_ref().map(|s| format!("did you mean `{s}`?")),
            ),
            BindingIndexRange { what, index, max } => (
                format!("{what} {index} is out of range"),
                format!("must be less than {max}"),
                None,
            ),
            BindingNeedsIndex { path, example } => (
                format!("`{path}` needs an index"),
                "index missing".into(),
                Some(format!("write e.g. `{example}`")),
            ),
            BindingNoIndex { path } => (
                format!("`{path}` takes no index"),
                "unexpected index".into(),
                None,
            ),
            BindingWrongStage { path, stage } => (
                format!("`{path}` is not available in {stage} programs"),
                format!("not a {stage} program binding"),
                None,
            ),
            IncompleteBinding { path, expected } => (
                format!("incomplete binding `{path}`"),
                format!("expected {expected} next"),
                None,
            ),
            ArrayBindingInSingle { path } => (
                format!("`{path}` names several vectors and cannot be used as a single value"),
                "several vectors".into(),
                Some("bind it to an array: `PARAM m[] = { ... };`, or select one row with `.row[n]`".into()),
            ),
            RangeReversed { lo, hi } => (
                format!("range [{lo}..{hi}] is reversed"),
                "first index is greater than the second".into(),
                None,
            ),
            ArraySizeMismatch { declared, actual } => (
                format!("array declared with {declared} element{} but initialised with {actual}", if *declared == 1 { "" } else { "s" }),
                "size does not match".into(),
                Some(format!("write `[{actual}]` or `[]`")),
            ),
            ArraySizeZero => (
                "an array must have at least one element".into(),
                "size 0".into(),
                None,
            ),
            ConflictingAttributes { first, second, .. } => (
                format!("`{second}` and `{first}` may share storage and cannot both be used"),
                "aliases an attribute already used".into(),
                Some("use either the conventional or the generic attribute for this slot".into()),
            ),
            PositionInvariantWrite => (
                "`result.position` cannot be written with `OPTION ARB_position_invariant;`".into(),
                "position is computed by the fixed-function pipeline".into(),
                Some("remove the write, or remove the option".into()),
            ),
            UnsupportedBinding { path, why } => (
                format!("`{path}` is not supported"),
                (*why).into(),
                None,
            ),
            DrawBuffersNeedsOption => (
                "`result.color[n]` needs `OPTION ARB_draw_buffers;`".into(),
                "indexed colour output".into(),
                Some("add `OPTION ARB_draw_buffers;` below the header".into()),
            ),
            WeightIndex { index } => (
                format!("vertex weight {index} is not available"),
                "weights start at 0 and must be a multiple of 4 below 4".into(),
                Some("use `vertex.weight` (weights 0 to 3)".into()),
            ),
            NotABinding { what, expected } => (
                format!("{what} is not allowed here"),
                format!("expected {expected}"),
                None,
            ),
            EmptyVector => (
                "a constant vector needs 1 to 4 components".into(),
                "empty vector".into(),
                None,
            ),
            VectorTooLong => (
                "a constant vector has at most 4 components".into(),
                "too many components".into(),
                None,
            ),
            Poisoned => (
                "use of a name whose declaration failed".into(),
                "see the declaration's error".into(),
                None,
            ),
            NotExpressible { what } => (
                format!("{what} cannot be expressed in ARB assembly"),
                "not an ARB feature".into(),
                None,
            ),
            RelAddrRule { why } => (
                format!("invalid relative addressing: {why}"),
                "relative address".into(),
                None,
            ),
            AddressWrite { why } => (
                format!("invalid address register write: {why}"),
                "address register".into(),
                Some("only `ARL A0.x, value.x;` writes an address register".into()),
            ),
            LimitWithOption { what, used, max, option } => (
                format!("program uses {used} {what}; with `{option}` the limit is {max}"),
                "over the limit".into(),
                Some(format!("the `{option}` option reserves resources for the fixed-function work it adds")),
            ),
            TexTargetConflict { unit, first, second, .. } => (
                format!("texture unit {unit} is sampled as `{second}` here but as `{first}` before"),
                "second texture target".into(),
                Some("a fragment program may use only one target per texture image unit".into()),
            ),
            TexIndirections { used, max } => (
                format!("program needs {used} texture indirections, the hardware limit is {max}"),
                "too many dependent texture reads".into(),
                Some("each texture read whose coordinate was computed in the current phase starts a new phase; \
                      compute coordinates in the vertex program to save phases".into()),
            ),
            RelativeArrayDuplicate { binding, array, other, .. } => (
                match other {
                    None => format!(
                        "`{binding}` is bound twice in `{array}`, which is addressed relatively"
                    ),
                    Some(o) => format!(
                        "`{binding}` is bound in `{array}` and in `{o}`, both addressed relatively"
                    ),
                },
                "bound again".into(),
                Some(
                    "each element of a parameter array read with `[A0.x + n]` must have its own \
                     binding (ARB_vertex_program; Mesa also refuses one binding in two such arrays); \
                     read a repeated value through a second name instead"
                        .into(),
                ),
            ),
            TooManyAttributes { used, max } => (
                format!("program uses {used} attributes, the limit is {max}"),
                "too many attributes".into(),
                None,
            ),
        }
    }
}

/// Levenshtein distance, bounded: returns `None` when above `max`.
pub fn edit_distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

/// The closest candidate to `name` (case-insensitive match first), if any is close.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let max = match name.chars().count() {
        0..=2 => 1,
        3..=5 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates.into_iter().take(4096) {
        if c == name {
            continue;
        }
        let d = if c.eq_ignore_ascii_case(name) {
            0
        } else {
            match edit_distance(name, c, max) {
                Some(d) => d,
                None => continue,
            }
        };
        if best.is_none_or(|(bd, bc)| (d, c) < (bd, bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_is_bounded() {
        assert_eq!(edit_distance("texcord", "texcoord", 2), Some(1));
        assert_eq!(edit_distance("abc", "xyzxyz", 2), None);
        assert_eq!(
            suggest("texcord", ["position", "texcoord"]),
            Some("texcoord".into())
        );
        assert_eq!(suggest("mov", ["MOV", "MUL"]), Some("MOV".into()));
        assert_eq!(suggest("zzzzzz", ["position"]), None);
    }

    #[test]
    fn every_error_has_a_label_and_code() {
        let e = ArbError::Redeclared {
            name: "a".into(),
            first: Span::new(0, 1),
        };
        let d = e.to_diagnostic(Span::new(5, 6));
        assert_eq!(d.code, "E1101");
        assert!(!d.label.is_empty());
        assert_eq!(d.related.len(), 1);
        assert!(
            ArbError::AfterEnd.to_diagnostic(Span::new(0, 0)).severity
                == crate::diag::Severity::Warning
        );
    }
}

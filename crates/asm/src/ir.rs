//! The shared intermediate representation of vertex and fragment assembly programs.
//!
//! One [`Program`] holds one stage of one dialect. Registers are named the way Direct3D 9
//! names them — a [`RegFile`] plus an index — and ARB programs are lowered onto the same
//! files (see the table in the crate docs). Everything the printers need to reproduce the
//! author's spelling (ARB names, inline literals, D3D9 `dcl` lines) is kept in side tables
//! of the program, so passes can rewrite instructions without caring about spelling.
//!
//! Spans are byte offsets into the source the program was parsed from. They are ignored by
//! [`Program::eq_ignoring_spans`], which is what `parse(print(p)) == p` compares.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::fmt;

/// Byte range `start..end` in the program text. `Span::NONE` marks code a pass created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const NONE: Span = Span {
        start: u32::MAX,
        end: u32::MAX,
    };

    pub fn new(start: usize, end: usize) -> Span {
        let clamp = |v: usize| v.min(u32::MAX as usize - 1) as u32;
        Span {
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }

    pub fn is_none(self) -> bool {
        self.start == u32::MAX
    }

    /// The smallest span covering both (a `NONE` side is ignored).
    pub fn join(self, other: Span) -> Span {
        if self.is_none() {
            return other;
        }
        if other.is_none() {
            return self;
        }
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        if self.is_none() {
            0..0
        } else {
            self.start as usize..self.end as usize
        }
    }
}

/// Pipeline stage a program runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    Vertex,
    Fragment,
}

/// Source language family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dialect {
    /// `!!ARBvp1.0` / `!!ARBfp1.0`.
    Arb,
    /// `vs_*` / `ps_*` Direct3D 9 shader assembly.
    D3d9,
}

/// A register file. D3D9 has one file per name prefix; ARB bindings are lowered onto these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RegFile {
    /// `r#`, ARB `TEMP`.
    Temp,
    /// `v#`: vertex attributes; in pixel shaders the colour interpolants (ps_2_0) or all
    /// interpolants (ps_3_0). ARB `vertex.*` and `fragment.color`/`fragment.fogcoord`.
    Input,
    /// `t#`: ps_2_0 texture-coordinate interpolants. ARB `fragment.texcoord[n]`.
    TexCoord,
    /// `c#`, ARB `PARAM` slots and inline literals. See [`ConstBinding`].
    Const,
    /// `i#` integer constants (loop/rep counts).
    ConstInt,
    /// `b#` boolean constants (static `if`/`callnz`).
    ConstBool,
    /// `a0`, ARB `ADDRESS`.
    Address,
    /// `s#`, ARB `texture[n]`.
    Sampler,
    /// `aL`, the loop counter.
    Loop,
    /// `p0`, the predicate register.
    Predicate,
    /// `l#`, subroutine labels (operands of `call`, `callnz` and `label`).
    Label,
    /// `vPos` (0) and `vFace` (1); ARB `fragment.position` is `vPos`.
    Misc,
    /// `oPos` (0), `oFog` (1), `oPts` (2).
    RastOut,
    /// `oD0`, `oD1`; ARB back colours are 2 (primary) and 3 (secondary).
    AttrOut,
    /// `oT#`, ARB `result.texcoord[n]`.
    TexCrdOut,
    /// `o#` (vs_3_0 outputs, declared with semantics).
    Output,
    /// `oC#`, ARB `result.color` (and `result.color[n]` with ARB_draw_buffers).
    ColorOut,
    /// `oDepth`, ARB `result.depth`.
    DepthOut,
}

impl RegFile {
    pub fn is_output(self) -> bool {
        matches!(
            self,
            RegFile::RastOut
                | RegFile::AttrOut
                | RegFile::TexCrdOut
                | RegFile::Output
                | RegFile::ColorOut
                | RegFile::DepthOut
        )
    }

    /// Files whose value is the same for every invocation of a draw.
    pub fn is_uniform(self) -> bool {
        matches!(
            self,
            RegFile::Const | RegFile::ConstInt | RegFile::ConstBool
        )
    }

    /// Files that hold per-invocation inputs (attributes or interpolants).
    pub fn is_input(self) -> bool {
        matches!(self, RegFile::Input | RegFile::TexCoord | RegFile::Misc)
    }
}

/// A register: file plus index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reg {
    pub file: RegFile,
    pub index: u16,
}

impl Reg {
    pub const fn new(file: RegFile, index: u16) -> Reg {
        Reg { file, index }
    }
}

/// Component index: 0 = x (r), 1 = y (g), 2 = z (b), 3 = w (a).
pub type Comp = u8;

pub const COMP_NAMES: [char; 4] = ['x', 'y', 'z', 'w'];

/// A four-component source swizzle, two bits per output component.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Swizzle(pub u8);

impl Swizzle {
    pub const IDENTITY: Swizzle = Swizzle(0b11_10_01_00);

    pub const fn new(x: Comp, y: Comp, z: Comp, w: Comp) -> Swizzle {
        Swizzle((x & 3) | (y & 3) << 2 | (z & 3) << 4 | (w & 3) << 6)
    }

    pub const fn splat(c: Comp) -> Swizzle {
        Swizzle::new(c, c, c, c)
    }

    /// Which register component feeds output component `i`.
    pub const fn get(self, i: Comp) -> Comp {
        (self.0 >> (2 * (i & 3))) & 3
    }

    pub fn comps(self) -> [Comp; 4] {
        [self.get(0), self.get(1), self.get(2), self.get(3)]
    }

    pub fn is_identity(self) -> bool {
        self == Swizzle::IDENTITY
    }

    /// Replicate swizzle (`.x`, `.y`, ...): every lane reads the same component.
    pub fn is_replicate(self) -> bool {
        let c = self.get(0);
        self.comps().iter().all(|&d| d == c)
    }

    /// `self` applied after `inner`: reading `reg.inner.self`.
    pub fn compose(self, inner: Swizzle) -> Swizzle {
        let c = self.comps();
        Swizzle::new(
            inner.get(c[0]),
            inner.get(c[1]),
            inner.get(c[2]),
            inner.get(c[3]),
        )
    }

    /// Register components read when the lanes in `lanes` are used.
    pub fn reads(self, lanes: WriteMask) -> WriteMask {
        let mut m = 0u8;
        for i in lanes.iter() {
            m |= 1 << self.get(i);
        }
        WriteMask(m)
    }
}

impl fmt::Debug for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.comps() {
            write!(f, "{}", COMP_NAMES[c as usize])?;
        }
        Ok(())
    }
}

/// A set of components, bit `i` = component `i`. Used for destination write masks and
/// for per-component read/def sets in analyses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct WriteMask(pub u8);

impl WriteMask {
    pub const NONE: WriteMask = WriteMask(0);
    pub const X: WriteMask = WriteMask(1);
    pub const Y: WriteMask = WriteMask(2);
    pub const Z: WriteMask = WriteMask(4);
    pub const W: WriteMask = WriteMask(8);
    pub const XY: WriteMask = WriteMask(3);
    pub const XYZ: WriteMask = WriteMask(7);
    pub const ALL: WriteMask = WriteMask(15);

    pub const fn has(self, c: Comp) -> bool {
        self.0 & (1 << c) != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 & 15 == 0
    }

    pub const fn is_all(self) -> bool {
        self.0 & 15 == 15
    }

    pub fn count(self) -> u32 {
        (self.0 & 15).count_ones()
    }

    pub fn iter(self) -> impl Iterator<Item = Comp> {
        (0..4u8).filter(move |&c| self.has(c))
    }

    pub const fn union(self, o: WriteMask) -> WriteMask {
        WriteMask(self.0 | o.0)
    }

    pub const fn intersect(self, o: WriteMask) -> WriteMask {
        WriteMask(self.0 & o.0)
    }

    pub const fn minus(self, o: WriteMask) -> WriteMask {
        WriteMask(self.0 & !o.0 & 15)
    }

    pub fn single(c: Comp) -> WriteMask {
        WriteMask(1 << c)
    }
}

impl fmt::Debug for WriteMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "-");
        }
        for c in self.iter() {
            write!(f, "{}", COMP_NAMES[c as usize])?;
        }
        Ok(())
    }
}

/// Relative addressing of a source (`c[a0.x + 5]`, ARB `arr[A0.x + 2]`).
///
/// The effective index is `src.reg.index + addr + offset`, where `addr` is the chosen
/// component of the address register. Reads outside `lo..hi` are undefined in both specs;
/// Hoist defines them to return (0, 0, 0, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RelAddr {
    /// The address register (`Address` or `Loop`).
    pub reg: Reg,
    pub comp: Comp,
    /// Valid range of effective indices (the ARB array, or the whole D3D9 constant file).
    pub lo: u16,
    pub hi: u16,
    /// Constant added to the address. ARB keeps `src.reg.index` at the array's first slot
    /// and the written offset (-64..=63) here, since `arr[A0.x - 2]` may point before
    /// slot 0; D3D9 folds its constant into `src.reg.index` and leaves this 0.
    #[serde(default)]
    pub offset: i16,
}

/// Index of an ARB name in [`Program::symbols`].
pub type SymId = u16;

/// A source operand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Src {
    pub reg: Reg,
    pub rel: Option<RelAddr>,
    pub swizzle: Swizzle,
    pub negate: bool,
    /// D3D9 `_abs` source modifier (2_x/3_0 profiles).
    pub abs: bool,
    /// ARB: the name the author used for this register, if any (printing only).
    pub name: Option<SymId>,
    pub span: Span,
}

impl Src {
    pub fn new(reg: Reg) -> Src {
        Src {
            reg,
            rel: None,
            swizzle: Swizzle::IDENTITY,
            negate: false,
            abs: false,
            name: None,
            span: Span::NONE,
        }
    }

    pub fn swizzled(mut self, s: Swizzle) -> Src {
        self.swizzle = s;
        self
    }

    pub fn negated(mut self) -> Src {
        self.negate = !self.negate;
        self
    }
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dst {
    pub reg: Reg,
    pub mask: WriteMask,
    /// vs_3_0 `o[aL]` style relative output addressing.
    pub rel: Option<RelAddr>,
    pub name: Option<SymId>,
    pub span: Span,
}

impl Dst {
    pub fn new(reg: Reg, mask: WriteMask) -> Dst {
        Dst {
            reg,
            mask,
            rel: None,
            name: None,
            span: Span::NONE,
        }
    }
}

/// Texture target of a texture instruction or sampler declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TexTarget {
    T1D,
    T2D,
    T3D,
    Cube,
    Rect,
    Shadow1D,
    Shadow2D,
    ShadowRect,
}

impl TexTarget {
    pub const ALL: [TexTarget; 8] = [
        TexTarget::T1D,
        TexTarget::T2D,
        TexTarget::T3D,
        TexTarget::Cube,
        TexTarget::Rect,
        TexTarget::Shadow1D,
        TexTarget::Shadow2D,
        TexTarget::ShadowRect,
    ];

    /// The ARB name (`texture[0], 2D`).
    pub fn arb_name(self) -> &'static str {
        match self {
            TexTarget::T1D => "1D",
            TexTarget::T2D => "2D",
            TexTarget::T3D => "3D",
            TexTarget::Cube => "CUBE",
            TexTarget::Rect => "RECT",
            TexTarget::Shadow1D => "SHADOW1D",
            TexTarget::Shadow2D => "SHADOW2D",
            TexTarget::ShadowRect => "SHADOWRECT",
        }
    }

    pub fn from_arb_name(name: &str) -> Option<TexTarget> {
        TexTarget::ALL.into_iter().find(|t| t.arb_name() == name)
    }

    /// The D3D9 sampler declaration word (`dcl_2d`, `dcl_cube`, `dcl_volume`), for the
    /// targets D3D9 has.
    pub fn d3d_name(self) -> Option<&'static str> {
        match self {
            TexTarget::T2D => Some("2d"),
            TexTarget::Cube => Some("cube"),
            TexTarget::T3D => Some("volume"),
            _ => None,
        }
    }

    pub fn from_d3d_name(word: &str) -> Option<TexTarget> {
        TexTarget::ALL
            .into_iter()
            .find(|t| t.d3d_name() == Some(word))
    }
}

/// Which texture image unit a texture instruction samples, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TexRef {
    pub unit: u8,
    pub target: TexTarget,
}

/// One lane of an ARB `SWZ` extended swizzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExtSel {
    Comp(Comp),
    Zero,
    One,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExtSwizzle {
    pub sel: [ExtSel; 4],
    pub neg: [bool; 4],
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inst {
    pub op: crate::ops::Op,
    /// `_SAT` / `_sat`: clamp the result to [0, 1].
    pub sat: bool,
    /// D3D9 `_pp` partial-precision hint. Hoist computes at full precision regardless.
    pub pp: bool,
    pub dst: Option<Dst>,
    pub src: SmallVec<[Src; 3]>,
    /// Texture instructions: unit and target (D3D9 takes the target from `dcl_*`).
    pub tex: Option<TexRef>,
    /// ARB `SWZ` only.
    pub ext_swizzle: Option<ExtSwizzle>,
    /// D3D9 predication (`(p0.x) add ...`), 2_x/3_0 only.
    pub pred: Option<Predicate>,
    /// Trailing comment on the same line, without its marker.
    pub comment: Option<String>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Predicate {
    pub negate: bool,
    pub swizzle: Swizzle,
}

impl Inst {
    pub fn new(op: crate::ops::Op, dst: Option<Dst>, src: impl IntoIterator<Item = Src>) -> Inst {
        Inst {
            op,
            sat: false,
            pp: false,
            dst,
            src: src.into_iter().collect(),
            tex: None,
            ext_swizzle: None,
            pred: None,
            comment: None,
            span: Span::NONE,
        }
    }

    pub fn info(&self) -> &'static crate::ops::OpInfo {
        self.op.info()
    }
}

/// What an input or output register means to the pipeline (D3DDECLUSAGE plus ARB extras).
/// Vertex outputs and fragment inputs are linked by semantic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Semantic {
    Position(u8),
    BlendWeight(u8),
    BlendIndices(u8),
    Normal(u8),
    PointSize(u8),
    TexCoord(u8),
    Tangent(u8),
    Binormal(u8),
    TessFactor(u8),
    PositionT(u8),
    Color(u8),
    Fog(u8),
    Depth(u8),
    Sample(u8),
    /// ARB `vertex.attrib[n]`: a generic attribute with no conventional meaning.
    Generic(u8),
    /// ARB `result.color.back.primary` (0) / `.secondary` (1).
    BackColor(u8),
    /// ARB `fragment.position` / D3D9 `vPos`: window coordinates of the fragment.
    WindowPos,
    /// D3D9 `vFace`.
    Face,
}

/// Interpolation qualifier of a declared input (D3D9 `_centroid`; ARB has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Interp {
    #[default]
    Perspective,
    Centroid,
}

/// A declared input or output register (D3D9 `dcl*`; ARB bindings are recorded here too,
/// so every input/output register of a parsed program has a semantic).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IoDecl {
    pub reg: Reg,
    pub semantic: Semantic,
    /// Components declared (D3D9 `dcl t0.xy`); ALL when not given.
    pub mask: WriteMask,
    pub interp: Interp,
    pub pp: bool,
    /// D3D9: was this written as a `dcl` line (false when implied, as for ARB or vs_1_1 outputs).
    pub explicit: bool,
    pub span: Span,
}

/// A D3D9 `dcl_2d s0` style sampler declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplerDecl {
    pub unit: u8,
    pub target: TexTarget,
    pub span: Span,
}

/// Where the value of a constant register comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ConstBinding {
    /// A literal: ARB inline constant / `PARAM x = {...}`; D3D9 `def`.
    Literal(Literal),
    /// Host-set, shared by all programs of the stage: ARB `program.env[n]`; a D3D9 `c#`
    /// without `def` (set with `SetVertexShaderConstantF`/`SetPixelShaderConstantF`).
    Env(u16),
    /// Host-set per program: ARB `program.local[n]`.
    Local(u16),
    /// ARB `state.*` bindings, tracked from GL state.
    State(crate::state::StateRef),
}

/// A literal vector and how it was written (ARB prints a scalar `0.5` and `{0.5}`
/// differently: the first is replicated, the second fills y,z with 0 and w with 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Literal {
    pub value: [f32; 4],
    pub form: LiteralForm,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LiteralForm {
    /// Written as a bare scalar, replicated to all four components.
    Scalar,
    /// Written as `{a, ...}` with this many components (1..=4).
    Vector(u8),
}

impl Literal {
    pub fn vec4(value: [f32; 4]) -> Literal {
        Literal {
            value,
            form: LiteralForm::Vector(4),
        }
    }
}

/// One slot of the constant file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstSlot {
    pub binding: ConstBinding,
    pub span: Span,
}

/// An ARB name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Symbol {
    pub name: String,
    pub kind: SymKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SymKind {
    /// `TEMP name;` — temp register index.
    Temp(u16),
    /// `ADDRESS name;` — address register index.
    Address(u16),
    /// `ATTRIB name = binding;` — an input register.
    Attrib(Reg),
    /// `OUTPUT name = binding;` — an output register.
    Output(Reg),
    /// `PARAM name = ...;` / `PARAM name[n] = {...};` — constant slots `base..base+len`.
    Param { base: u16, len: u16, array: bool },
    /// `ALIAS name = other;`
    Alias(SymId),
}

/// ARB `OPTION` lines.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArbOption {
    PositionInvariant,
    PrecisionHintFastest,
    PrecisionHintNicest,
    FogExp,
    FogExp2,
    FogLinear,
    DrawBuffers,
    FragmentProgramShadow,
}

/// A vertex or fragment program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub profile: crate::profile::Profile,
    pub options: Vec<ArbOption>,
    /// Declared inputs and outputs with their semantics.
    pub io: Vec<IoDecl>,
    pub samplers: Vec<SamplerDecl>,
    /// The constant file. D3D9: slot `n` is `c#n`. ARB: `PARAM` slots and inline literals
    /// in order of appearance.
    pub consts: Vec<ConstSlot>,
    /// D3D9 `defi` values by register (`None` = host-set).
    pub int_consts: Vec<Option<[i32; 4]>>,
    /// D3D9 `defb` values by register (`None` = host-set).
    pub bool_consts: Vec<Option<bool>>,
    /// Number of temporaries: D3D9 highest `r#` + 1; ARB number of `TEMP` names.
    pub num_temps: u16,
    /// Number of address registers (ARB `ADDRESS` names; D3D9 1 when `a0` is used).
    pub num_addrs: u16,
    /// ARB names, indexed by [`SymId`]. Empty for D3D9.
    pub symbols: Vec<Symbol>,
    pub insts: Vec<Inst>,
}

impl Program {
    pub fn new(profile: crate::profile::Profile) -> Program {
        Program {
            profile,
            options: Vec::new(),
            io: Vec::new(),
            samplers: Vec::new(),
            consts: Vec::new(),
            int_consts: Vec::new(),
            bool_consts: Vec::new(),
            num_temps: 0,
            num_addrs: 0,
            symbols: Vec::new(),
            insts: Vec::new(),
        }
    }

    pub fn stage(&self) -> Stage {
        self.profile.stage()
    }

    pub fn dialect(&self) -> Dialect {
        self.profile.dialect()
    }

    pub fn has_option(&self, o: &ArbOption) -> bool {
        self.options.contains(o)
    }

    /// Semantic of an input or output register, if declared.
    pub fn semantic(&self, reg: Reg) -> Option<Semantic> {
        self.io.iter().find(|d| d.reg == reg).map(|d| d.semantic)
    }

    /// The declaration of an input or output register.
    pub fn io_decl(&self, reg: Reg) -> Option<&IoDecl> {
        self.io.iter().find(|d| d.reg == reg)
    }

    /// The register carrying `semantic`, if declared.
    pub fn reg_for(&self, semantic: Semantic, outputs: bool) -> Option<Reg> {
        self.io
            .iter()
            .find(|d| d.semantic == semantic && d.reg.file.is_output() == outputs)
            .map(|d| d.reg)
    }

    /// Literal value of a constant slot, if it is a literal.
    pub fn literal(&self, slot: u16) -> Option<[f32; 4]> {
        match self.consts.get(slot as usize).map(|c| &c.binding) {
            Some(ConstBinding::Literal(l)) => Some(l.value),
            _ => None,
        }
    }

    /// Follows `ALIAS` chains to the symbol that owns the storage.
    pub fn resolve_symbol(&self, mut id: SymId) -> SymId {
        for _ in 0..self.symbols.len() {
            match self.symbols.get(id as usize).map(|s| &s.kind) {
                Some(SymKind::Alias(t)) => id = *t,
                _ => break,
            }
        }
        id
    }

    /// Slot counts under the program's own profile.
    pub fn slots(&self) -> crate::profile::SlotCount {
        crate::profile::count_slots(self.profile, &self.insts)
    }

    /// Structural equality that ignores spans and comments (what a round trip must keep).
    pub fn eq_ignoring_spans(&self, other: &Program) -> bool {
        let mut a = self.clone();
        let mut b = other.clone();
        a.clear_spans();
        b.clear_spans();
        a == b
    }

    /// Sets every span to [`Span::NONE`] and drops comments.
    pub fn clear_spans(&mut self) {
        for d in &mut self.io {
            d.span = Span::NONE;
        }
        for s in &mut self.samplers {
            s.span = Span::NONE;
        }
        for c in &mut self.consts {
            c.span = Span::NONE;
        }
        for s in &mut self.symbols {
            s.span = Span::NONE;
        }
        for i in &mut self.insts {
            i.span = Span::NONE;
            i.comment = None;
            if let Some(d) = &mut i.dst {
                d.span = Span::NONE;
            }
            for s in &mut i.src {
                s.span = Span::NONE;
            }
        }
    }
}

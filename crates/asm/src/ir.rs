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

use crate::ops::{Op, OpInfo, Shape, tex_coord_lanes};
use crate::profile::{Profile, SlotCount};
use crate::state::StateRef;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

pub use crate::profile::{Dialect, Stage};
pub use crate::reg::{COMP_NAMES, Comp, Reg, RegFile, Swizzle, TexTarget, WriteMask};
pub use crate::span::Span;

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
    pub op: Op,
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
    pub fn new(op: Op, dst: Option<Dst>, src: impl IntoIterator<Item = Src>) -> Inst {
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

    pub fn info(&self) -> &'static OpInfo {
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

impl IoDecl {
    /// A declaration the dialect implies (an ARB binding, a vs_1_1 output): all components,
    /// perspective-correct, no `dcl` line.
    pub fn implied(reg: Reg, semantic: Semantic, span: Span) -> IoDecl {
        IoDecl {
            reg,
            semantic,
            mask: WriteMask::ALL,
            interp: Interp::Perspective,
            pp: false,
            explicit: false,
            span,
        }
    }
}

/// The first texture unit of a vertex program's samplers. D3D9 keeps a vertex shader's
/// samplers apart from the pixel shader's (`D3DVERTEXTEXTURESAMPLER0`–`3` beside sampler
/// stages 0–15), so a vs_3_0 `s#` is unit `VERTEX_SAMPLER_BASE + #` in the IR and a pair's
/// two stages never share a unit by number; printers write `s#` back. (ARB vertex programs
/// do not sample.)
pub const VERTEX_SAMPLER_BASE: u8 = 16;

/// The texture unit of sampler register `s{index}` in a program of `stage`.
pub fn sampler_unit(stage: Stage, index: u8) -> u8 {
    match stage {
        Stage::Vertex => VERTEX_SAMPLER_BASE.saturating_add(index),
        Stage::Fragment => index,
    }
}

/// The sampler register index (`s#`) of texture unit `unit` in a program of `stage`.
pub fn sampler_index(stage: Stage, unit: u8) -> u8 {
    match stage {
        Stage::Vertex => unit.saturating_sub(VERTEX_SAMPLER_BASE),
        Stage::Fragment => unit,
    }
}

/// How people name texture unit `unit`: "unit 3", or "vertex sampler s0 (unit 16)" for
/// the units of D3D9's vertex samplers.
pub fn unit_name(unit: u8) -> String {
    if unit >= VERTEX_SAMPLER_BASE {
        format!(
            "vertex sampler s{} (unit {unit})",
            unit - VERTEX_SAMPLER_BASE
        )
    } else {
        format!("unit {unit}")
    }
}

/// A texture unit as scenes and the CLI write it: `0`..`31`, or `vsN` for D3D9's vertex
/// sampler N (unit [`VERTEX_SAMPLER_BASE`] + N, N < 16).
pub fn parse_unit(s: &str) -> Option<u8> {
    match s.strip_prefix("vs") {
        Some(n) => n
            .parse::<u8>()
            .ok()
            .filter(|n| *n < 16)
            .map(|n| VERTEX_SAMPLER_BASE + n),
        None => s.parse().ok().filter(|u| *u < 32),
    }
}

/// A D3D9 `dcl_2d s0` style sampler declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplerDecl {
    /// The texture unit ([`sampler_unit`] of the register's index).
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
    State(StateRef),
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
    pub profile: Profile,
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
    /// From the first instruction to the last (what a whole-program limit points at).
    pub fn insts_span(&self) -> Span {
        let at = |i: Option<&Inst>| i.map_or(Span::NONE, |i| i.span);
        at(self.insts.first()).join(at(self.insts.last()))
    }

    pub fn new(profile: Profile) -> Program {
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
    pub fn slots(&self) -> SlotCount {
        crate::profile::count_slots(self.profile, self.insts.iter().map(|i| i.op))
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

// ---- lanes: which source components an instruction reads -------------------------------

impl Inst {
    /// Destination lanes this instruction actually defines.
    pub fn dst_lanes(&self) -> WriteMask {
        match &self.dst {
            Some(d) => d.mask,
            None => WriteMask::NONE,
        }
    }

    /// Lanes of source `i` (after its swizzle) needed to compute the destination lanes
    /// `lanes`. Kill and flow ops, which have no data destination, report what they test.
    pub fn src_lanes(&self, i: usize, lanes: WriteMask) -> WriteMask {
        use Shape::*;
        let any = !lanes.is_empty();
        let if_any = |m: WriteMask| if any { m } else { WriteMask::NONE };
        let pick = |pairs: &[(u8, WriteMask)]| {
            let mut m = WriteMask::NONE;
            for &(lane, need) in pairs {
                if lanes.has(lane) {
                    m = m.union(need);
                }
            }
            m
        };
        match self.info().shape {
            Componentwise => match self.op {
                Op::Sgn if i > 0 => WriteMask::NONE,
                _ => lanes,
            },
            Scalar | Arl | ExpPartial | LogPartial | Scs => if_any(WriteMask::X),
            Dot(3) => if_any(WriteMask::XYZ),
            Dot(_) => if_any(WriteMask::ALL),
            Dph => if_any(if i == 0 {
                WriteMask::XYZ
            } else {
                WriteMask::ALL
            }),
            Dp2add => if_any(if i < 2 { WriteMask::XY } else { WriteMask::X }),
            Xpd => pick(&[
                (0, WriteMask(0b110)),
                (1, WriteMask(0b101)),
                (2, WriteMask(0b011)),
            ]),
            Shape::Dst => {
                if i == 0 {
                    pick(&[(1, WriteMask::Y), (2, WriteMask::Z)])
                } else {
                    pick(&[(1, WriteMask::Y), (3, WriteMask::W)])
                }
            }
            Shape::Lit => pick(&[(1, WriteMask::X), (2, WriteMask(0b1011))]),
            Sincos => {
                if i == 0 {
                    if_any(WriteMask::X)
                } else {
                    if_any(WriteMask::ALL)
                }
            }
            Swz => {
                let mut m = WriteMask::NONE;
                if let Some(e) = &self.ext_swizzle {
                    for lane in lanes.iter() {
                        if let ExtSel::Comp(c) = e.sel[lane as usize] {
                            m = m.union(WriteMask::single(c));
                        }
                    }
                }
                m
            }
            Shape::Nrm => if_any(WriteMask::XYZ.union(lanes)),
            Matrix { cols, .. } => if_any(if cols == 4 {
                WriteMask::ALL
            } else {
                WriteMask::XYZ
            }),
            Shape::Tex => {
                let target = self.tex.map(|t| t.target).unwrap_or(TexTarget::T2D);
                match (self.op, i) {
                    (_, 0) => if_any(tex_coord_lanes(self.op, target)),
                    (Op::Texldd, _) => if_any(tex_coord_lanes(Op::Tex, target)),
                    _ => WriteMask::NONE,
                }
            }
            Kill => match self.op {
                Op::Kil => WriteMask::ALL,
                _ => WriteMask::XYZ,
            },
            Flow => WriteMask::ALL,
        }
    }

    /// Registers source `i` spans: a matrix macro's second source covers one register per
    /// row (`m4x4 r0, v0, c4` reads c4..c7); every other source one.
    pub fn src_rows(&self, i: usize) -> u8 {
        if i == 1 {
            self.op.matrix_rows().unwrap_or(1)
        } else {
            1
        }
    }

    /// The registers source `i` reads for destination lanes `lanes`, each with the lanes it
    /// feeds: a matrix macro's row `r` feeds lane `r` (rows feeding no lane are skipped),
    /// any other source all of `lanes`.
    pub fn src_regs(&self, i: usize, lanes: WriteMask) -> impl Iterator<Item = (Reg, WriteMask)> {
        let rows = self.src_rows(i);
        let reg = self.src[i].reg;
        (0..rows).filter_map(move |r| {
            let feeds = if rows > 1 {
                lanes.intersect(WriteMask::single(r))
            } else {
                lanes
            };
            (rows == 1 || !feeds.is_empty()).then(|| {
                (
                    Reg::new(reg.file, reg.index.saturating_add(u16::from(r))),
                    feeds,
                )
            })
        })
    }

    /// Register components of source `i` read to compute destination lanes `lanes`.
    /// Matrix macros read these components from each of their rows.
    pub fn src_reads(&self, i: usize, lanes: WriteMask) -> WriteMask {
        // `SWZ`'s selectors pick lanes of the (swizzled) source like any other operand.
        self.src[i].swizzle.reads(self.src_lanes(i, lanes))
    }

    /// Register components of source `i` read by the whole instruction.
    pub fn reads_of(&self, i: usize) -> WriteMask {
        let lanes = if self.info().has_dst {
            self.dst_lanes()
        } else {
            WriteMask::ALL
        };
        self.src_reads(i, lanes)
    }
}

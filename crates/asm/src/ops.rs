//! The opcode table shared by both dialects.
//!
//! Every operation of ARB_vertex_program / ARB_fragment_program 1.0 and of the Direct3D 9
//! vs/ps 2.0–3.0 models is one [`Op`]. Operations that compute the same function share a
//! variant (ARB `EX2` is D3D9 `exp`); operations that differ, even only at the edges, do
//! not (ARB `CMP` tests `a < 0`, D3D9 `cmp` tests `a >= 0`, which differ on NaN).
//!
//! [`OpInfo`] gives the spellings, operand counts and the [`Shape`]: how destination lanes
//! depend on source lanes. Which profile offers an op, and how many instruction slots it
//! costs there, lives in [`crate::profile`].
//!
//! ## Semantics (summary; the executor is the definition)
//! Lanes are the components of a source *after* its swizzle. `s0`, `s1`, `s2` are sources.
//! - Componentwise: `ABS ADD FLR FRC MAD MAX MIN MOV MUL SGE SLT SUB LRP CMP cmp cnd sgn mova`
//!   compute lane `c` of the result from lane `c` of each source.
//!   `LRP = s0*s1 + (1-s0)*s2`; ARB `CMP = s0 < 0 ? s1 : s2`; D3D9 `cmp = s0 >= 0 ? s1 : s2`;
//!   `cnd = s0 > 0.5 ? s1 : s2`.
//! - Scalar: `RCP RSQ EX2 LG2 POW SIN COS` read lane x of each source and write the result
//!   to every enabled lane.
//! - Dot: `DP3` (xyz), `DP4`, `DPH = s0.xyz·s1.xyz + s1.w`, `dp2add = s0.xy·s1.xy + s2.x`.
//! - Special: `XPD`/`crs` (cross product, xyz), `DST = (1, s0.y*s1.y, s0.z, s1.w)`, `LIT`,
//!   ARB `EXP`/D3D9 `expp` and ARB `LOG`/D3D9 `logp` (partial-precision forms), `SCS` /
//!   `sincos` (x = cos, y = sin), `SWZ` (extended swizzle), `nrm` (`s0 * rsq(s0.xyz·s0.xyz)`),
//!   and the matrix macros `mAxB` (B dot products of `s0` with rows `s1`, `s1+1`, ...).
//! - Texture: `TEX`/`texld`, `TXB`/`texldb` (bias in w), `TXP`/`texldp` (divide by w),
//!   `texldl` (LOD in w), `texldd` (explicit gradients). `KIL`/`texkil` discard the
//!   fragment when a tested lane is negative.

use crate::reg::{TexTarget, WriteMask};
use serde::{Deserialize, Serialize};

/// Comparison of `ifc`, `breakc` and `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Cond {
    Gt,
    Eq,
    Ge,
    Lt,
    Ne,
    Le,
}

impl Cond {
    pub const ALL: [Cond; 6] = [Cond::Gt, Cond::Eq, Cond::Ge, Cond::Lt, Cond::Ne, Cond::Le];

    pub fn suffix(self) -> &'static str {
        match self {
            Cond::Gt => "gt",
            Cond::Eq => "eq",
            Cond::Ge => "ge",
            Cond::Lt => "lt",
            Cond::Ne => "ne",
            Cond::Le => "le",
        }
    }

    pub fn test(self, a: f32, b: f32) -> bool {
        match self {
            Cond::Gt => a > b,
            Cond::Eq => a == b,
            Cond::Ge => a >= b,
            Cond::Lt => a < b,
            Cond::Ne => a != b,
            Cond::Le => a <= b,
        }
    }
}

/// An operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Op {
    Abs,
    Add,
    /// ARB `ARL`: address = floor(s0.x).
    Arl,
    /// D3D9 `mova`: address = round-to-nearest(s0), componentwise.
    Mova,
    /// ARB `CMP`: s0 < 0 ? s1 : s2.
    Cmp,
    /// D3D9 `cmp`: s0 >= 0 ? s1 : s2.
    CmpGe,
    /// D3D9 `cnd`: s0 > 0.5 ? s1 : s2.
    Cnd,
    Cos,
    Dp2add,
    Dp3,
    Dp4,
    Dph,
    Dst,
    /// 2^s0.x, full precision (ARB `EX2`, D3D9 `exp`).
    Ex2,
    /// Partial-precision exponential with four outputs (ARB `EXP`, D3D9 `expp`).
    Exp,
    Flr,
    Frc,
    /// ARB `KIL`.
    Kil,
    /// D3D9 `texkil`.
    Texkil,
    /// log2 |s0.x|, full precision (ARB `LG2`, D3D9 `log`).
    Lg2,
    Lit,
    /// Partial-precision logarithm with four outputs (ARB `LOG`, D3D9 `logp`).
    Log,
    Lrp,
    Mad,
    Max,
    Min,
    Mov,
    Mul,
    Nrm,
    Pow,
    Rcp,
    Rsq,
    Scs,
    Sincos,
    Sge,
    Sgn,
    Sin,
    Slt,
    Sub,
    Swz,
    /// Cross product (ARB `XPD`, D3D9 `crs`).
    Xpd,
    M4x4,
    M4x3,
    M3x4,
    M3x3,
    M3x2,
    Tex,
    Txb,
    Txp,
    Texldd,
    Texldl,
    Dsx,
    Dsy,
    Nop,
    If,
    Ifc(Cond),
    Else,
    Endif,
    Loop,
    Endloop,
    Rep,
    Endrep,
    Break,
    Breakc(Cond),
    Breakp,
    Call,
    Callnz,
    Label,
    Ret,
    Setp(Cond),
}

/// How destination lanes depend on source lanes; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Componentwise,
    Scalar,
    Dot(u8),
    Dph,
    Dp2add,
    Xpd,
    Dst,
    Lit,
    /// ARB `EXP` / D3D9 `expp` (four parts in vs_1_1, a replicated 2^x after it).
    ExpPartial,
    /// ARB `LOG` (four parts) / D3D9 `logp` (a replicated log2|x|).
    LogPartial,
    Scs,
    Sincos,
    Swz,
    Nrm,
    /// `mAxB`: `cols` lanes of s0 dotted with `rows` consecutive registers from s1.
    Matrix {
        cols: u8,
        rows: u8,
    },
    Tex,
    Kill,
    /// ARB `ARL`: lane x of s0.
    Arl,
    /// Flow control and `nop`: no data lanes.
    Flow,
}

/// Broad class of an operation, for slot accounting and motion legality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    Alu,
    Tex,
    Flow,
}

/// Static facts about an [`Op`].
#[derive(Debug)]
pub struct OpInfo {
    pub arb: Option<&'static str>,
    pub d3d: Option<&'static str>,
    /// Number of source operands (D3D9 matrix ops count the matrix as one source).
    pub srcs: u8,
    pub has_dst: bool,
    pub shape: Shape,
    pub class: Class,
}

const fn info(
    arb: Option<&'static str>,
    d3d: Option<&'static str>,
    srcs: u8,
    has_dst: bool,
    shape: Shape,
    class: Class,
) -> OpInfo {
    OpInfo {
        arb,
        d3d,
        srcs,
        has_dst,
        shape,
        class,
    }
}

use Shape::*;

macro_rules! both {
    ($a:literal, $d:literal, $n:expr, $shape:expr) => {
        &const { info(Some($a), Some($d), $n, true, $shape, Class::Alu) }
    };
}
macro_rules! arb {
    ($a:literal, $n:expr, $shape:expr) => {
        &const { info(Some($a), None, $n, true, $shape, Class::Alu) }
    };
}
macro_rules! d3d {
    ($d:literal, $n:expr, $shape:expr) => {
        &const { info(None, Some($d), $n, true, $shape, Class::Alu) }
    };
}
macro_rules! flow {
    ($d:literal, $n:expr) => {
        &const { info(None, Some($d), $n, false, Flow, Class::Flow) }
    };
}

impl Op {
    pub fn info(self) -> &'static OpInfo {
        match self {
            Op::Abs => both!("ABS", "abs", 1, Componentwise),
            Op::Add => both!("ADD", "add", 2, Componentwise),
            Op::Arl => arb!("ARL", 1, Arl),
            Op::Mova => d3d!("mova", 1, Componentwise),
            Op::Cmp => arb!("CMP", 3, Componentwise),
            Op::CmpGe => d3d!("cmp", 3, Componentwise),
            Op::Cnd => d3d!("cnd", 3, Componentwise),
            Op::Cos => arb!("COS", 1, Scalar),
            Op::Dp2add => d3d!("dp2add", 3, Dp2add),
            Op::Dp3 => both!("DP3", "dp3", 2, Dot(3)),
            Op::Dp4 => both!("DP4", "dp4", 2, Dot(4)),
            Op::Dph => arb!("DPH", 2, Dph),
            Op::Dst => both!("DST", "dst", 2, Shape::Dst),
            Op::Ex2 => both!("EX2", "exp", 1, Scalar),
            Op::Exp => both!("EXP", "expp", 1, ExpPartial),
            Op::Flr => arb!("FLR", 1, Componentwise),
            Op::Frc => both!("FRC", "frc", 1, Componentwise),
            Op::Kil => &const { info(Some("KIL"), None, 1, false, Kill, Class::Tex) },
            Op::Texkil => &const { info(None, Some("texkil"), 1, false, Kill, Class::Tex) },
            Op::Lg2 => both!("LG2", "log", 1, Scalar),
            Op::Lit => both!("LIT", "lit", 1, Shape::Lit),
            Op::Log => both!("LOG", "logp", 1, LogPartial),
            Op::Lrp => both!("LRP", "lrp", 3, Componentwise),
            Op::Mad => both!("MAD", "mad", 3, Componentwise),
            Op::Max => both!("MAX", "max", 2, Componentwise),
            Op::Min => both!("MIN", "min", 2, Componentwise),
            Op::Mov => both!("MOV", "mov", 1, Componentwise),
            Op::Mul => both!("MUL", "mul", 2, Componentwise),
            Op::Nrm => d3d!("nrm", 1, Shape::Nrm),
            Op::Pow => both!("POW", "pow", 2, Scalar),
            Op::Rcp => both!("RCP", "rcp", 1, Scalar),
            Op::Rsq => both!("RSQ", "rsq", 1, Scalar),
            Op::Scs => arb!("SCS", 1, Shape::Scs),
            Op::Sincos => d3d!("sincos", 3, Shape::Sincos),
            Op::Sge => both!("SGE", "sge", 2, Componentwise),
            Op::Sgn => d3d!("sgn", 3, Componentwise),
            Op::Sin => arb!("SIN", 1, Scalar),
            Op::Slt => both!("SLT", "slt", 2, Componentwise),
            Op::Sub => both!("SUB", "sub", 2, Componentwise),
            Op::Swz => arb!("SWZ", 1, Shape::Swz),
            Op::Xpd => both!("XPD", "crs", 2, Shape::Xpd),
            Op::M4x4 => d3d!("m4x4", 2, Matrix { cols: 4, rows: 4 }),
            Op::M4x3 => d3d!("m4x3", 2, Matrix { cols: 4, rows: 3 }),
            Op::M3x4 => d3d!("m3x4", 2, Matrix { cols: 3, rows: 4 }),
            Op::M3x3 => d3d!("m3x3", 2, Matrix { cols: 3, rows: 3 }),
            Op::M3x2 => d3d!("m3x2", 2, Matrix { cols: 3, rows: 2 }),
            Op::Tex => &const { info(Some("TEX"), Some("texld"), 1, true, Shape::Tex, Class::Tex) },
            Op::Txb => {
                &const { info(Some("TXB"), Some("texldb"), 1, true, Shape::Tex, Class::Tex) }
            }
            Op::Txp => {
                &const { info(Some("TXP"), Some("texldp"), 1, true, Shape::Tex, Class::Tex) }
            }
            Op::Texldd => &const { info(None, Some("texldd"), 3, true, Shape::Tex, Class::Tex) },
            Op::Texldl => &const { info(None, Some("texldl"), 1, true, Shape::Tex, Class::Tex) },
            Op::Dsx => d3d!("dsx", 1, Componentwise),
            Op::Dsy => d3d!("dsy", 1, Componentwise),
            Op::Nop => &const { info(None, Some("nop"), 0, false, Flow, Class::Alu) },
            Op::If => flow!("if", 1),
            Op::Ifc(_) => flow!("if", 2),
            Op::Else => flow!("else", 0),
            Op::Endif => flow!("endif", 0),
            Op::Loop => flow!("loop", 2),
            Op::Endloop => flow!("endloop", 0),
            Op::Rep => flow!("rep", 1),
            Op::Endrep => flow!("endrep", 0),
            Op::Break => flow!("break", 0),
            Op::Breakc(_) => flow!("break", 2),
            Op::Breakp => flow!("breakp", 1),
            Op::Call => flow!("call", 1),
            Op::Callnz => flow!("callnz", 2),
            Op::Label => flow!("label", 1),
            Op::Ret => flow!("ret", 0),
            Op::Setp(_) => &const { info(None, Some("setp"), 2, true, Componentwise, Class::Alu) },
        }
    }

    /// Every op without a condition, plus each conditional op once per condition.
    pub fn all() -> impl Iterator<Item = Op> {
        const PLAIN: &[Op] = &[
            Op::Abs,
            Op::Add,
            Op::Arl,
            Op::Mova,
            Op::Cmp,
            Op::CmpGe,
            Op::Cnd,
            Op::Cos,
            Op::Dp2add,
            Op::Dp3,
            Op::Dp4,
            Op::Dph,
            Op::Dst,
            Op::Ex2,
            Op::Exp,
            Op::Flr,
            Op::Frc,
            Op::Kil,
            Op::Texkil,
            Op::Lg2,
            Op::Lit,
            Op::Log,
            Op::Lrp,
            Op::Mad,
            Op::Max,
            Op::Min,
            Op::Mov,
            Op::Mul,
            Op::Nrm,
            Op::Pow,
            Op::Rcp,
            Op::Rsq,
            Op::Scs,
            Op::Sincos,
            Op::Sge,
            Op::Sgn,
            Op::Sin,
            Op::Slt,
            Op::Sub,
            Op::Swz,
            Op::Xpd,
            Op::M4x4,
            Op::M4x3,
            Op::M3x4,
            Op::M3x3,
            Op::M3x2,
            Op::Tex,
            Op::Txb,
            Op::Txp,
            Op::Texldd,
            Op::Texldl,
            Op::Dsx,
            Op::Dsy,
            Op::Nop,
            Op::If,
            Op::Else,
            Op::Endif,
            Op::Loop,
            Op::Endloop,
            Op::Rep,
            Op::Endrep,
            Op::Break,
            Op::Breakp,
            Op::Call,
            Op::Callnz,
            Op::Label,
            Op::Ret,
        ];
        PLAIN.iter().copied().chain(
            Cond::ALL
                .into_iter()
                .flat_map(|c| [Op::Ifc(c), Op::Breakc(c), Op::Setp(c)]),
        )
    }

    pub fn is_texture(self) -> bool {
        matches!(self, Op::Tex | Op::Txb | Op::Txp | Op::Texldd | Op::Texldl)
    }

    pub fn is_kill(self) -> bool {
        matches!(self, Op::Kil | Op::Texkil)
    }

    pub fn is_flow(self) -> bool {
        self.info().class == Class::Flow
    }

    /// Number of consecutive registers read from source 1 by a matrix macro.
    pub fn matrix_rows(self) -> Option<u8> {
        match self.info().shape {
            Matrix { rows, .. } => Some(rows),
            _ => None,
        }
    }
}

/// Lanes of the texture coordinate a texture op reads for a target.
pub fn tex_coord_lanes(op: Op, target: TexTarget) -> WriteMask {
    let base = match target {
        TexTarget::T1D => WriteMask::X,
        TexTarget::T2D | TexTarget::Rect => WriteMask::XY,
        TexTarget::T3D | TexTarget::Cube => WriteMask::XYZ,
        TexTarget::Shadow1D => WriteMask(0b101),
        TexTarget::Shadow2D | TexTarget::ShadowRect => WriteMask::XYZ,
    };
    match op {
        Op::Txb | Op::Txp | Op::Texldl => base.union(WriteMask::W),
        _ => base,
    }
}

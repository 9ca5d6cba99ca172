//! Register names, usages, `def` kinds and op spellings shared by the lowering, the
//! printer, the operand rules and the error texts. Which register files each version has,
//! and how many registers, are profile facts ([`crate::profile::file_in_profile`],
//! [`crate::profile::file_count`]), re-exported here.
//!
//! Register availability follows the "Registers - vs_1_1 / vs_2_0 / vs_2_x / vs_3_0" and
//! "ps_2_0 / ps_2_x / ps_3_0 Registers" pages of the DirectX 9 asm reference.

use crate::ir::{Reg, RegFile, Semantic, Stage, TexTarget};
use crate::ops::{Cond, Op};
use crate::profile::Profile;

pub use crate::profile::{file_count, file_in_profile};

/// The three constant definitions: `def c#` (four floats), `defi i#` (four integers) and
/// `defb b#` (one boolean).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Def,
    Defi,
    Defb,
}

impl DefKind {
    pub fn from_word(word: &str) -> Option<DefKind> {
        match word {
            "def" => Some(DefKind::Def),
            "defi" => Some(DefKind::Defi),
            "defb" => Some(DefKind::Defb),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            DefKind::Def => "def",
            DefKind::Defi => "defi",
            DefKind::Defb => "defb",
        }
    }

    /// The register file it defines.
    pub fn file(self) -> RegFile {
        match self {
            DefKind::Def => RegFile::Const,
            DefKind::Defi => RegFile::ConstInt,
            DefKind::Defb => RegFile::ConstBool,
        }
    }

    /// How many values follow the register.
    pub fn values(self) -> usize {
        match self {
            DefKind::Defb => 1,
            _ => 4,
        }
    }
}

/// Canonical spelling of a register (without relative addressing).
pub fn reg_name(r: Reg) -> String {
    use RegFile::*;
    let i = r.index;
    match r.file {
        Temp => format!("r{i}"),
        Input => format!("v{i}"),
        TexCoord => format!("t{i}"),
        Const => format!("c{i}"),
        ConstInt => format!("i{i}"),
        ConstBool => format!("b{i}"),
        Address => format!("a{i}"),
        Sampler => format!("s{i}"),
        Loop => "aL".into(),
        Predicate => format!("p{i}"),
        Label => format!("l{i}"),
        Misc => (if i == 0 { "vPos" } else { "vFace" }).into(),
        RastOut => match i {
            0 => "oPos".into(),
            1 => "oFog".into(),
            _ => "oPts".into(),
        },
        AttrOut => format!("oD{i}"),
        TexCrdOut => format!("oT{i}"),
        Output => format!("o{i}"),
        ColorOut => format!("oC{i}"),
        DepthOut => "oDepth".into(),
    }
}

/// Splits a lowercased register name into its file and number. `None` number means the
/// name had no digits (`c` in `c[a0.x]`, or a named register like `opos`).
pub fn parse_reg_name(name: &str, p: Profile) -> Option<(RegFile, Option<u32>)> {
    use RegFile::*;
    let vs = p.stage() == Stage::Vertex;
    let fixed = match name {
        "opos" => Some((RastOut, 0)),
        "ofog" => Some((RastOut, 1)),
        "opts" => Some((RastOut, 2)),
        "odepth" => Some((DepthOut, 0)),
        "vpos" => Some((Misc, 0)),
        "vface" => Some((Misc, 1)),
        "al" => Some((Loop, 0)),
        _ => None,
    };
    if let Some((f, i)) = fixed {
        return Some((f, Some(i)));
    }
    let digits = name
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(name.len());
    let (prefix, num) = name.split_at(digits);
    let index = if num.is_empty() {
        None
    } else if num.bytes().all(|b| b.is_ascii_digit()) {
        Some(num.parse::<u32>().unwrap_or(u32::MAX))
    } else {
        return None;
    };
    let file = match prefix {
        "r" => Temp,
        "v" => Input,
        "t" => TexCoord,
        "c" => Const,
        "i" => ConstInt,
        "b" => ConstBool,
        "a" => Address,
        "s" => Sampler,
        "p" => Predicate,
        "l" => Label,
        "o" if vs => Output,
        "od" => AttrOut,
        "ot" => TexCrdOut,
        "oc" => ColorOut,
        _ => return None,
    };
    Some((file, index))
}

/// D3DDECLUSAGE names, as written after `dcl_`.
pub const USAGES: [&str; 14] = [
    "position",
    "blendweight",
    "blendindices",
    "normal",
    "psize",
    "texcoord",
    "tangent",
    "binormal",
    "tessfactor",
    "positiont",
    "color",
    "fog",
    "depth",
    "sample",
];

pub fn usage_semantic(usage: &str, index: u8) -> Option<Semantic> {
    use Semantic::*;
    Some(match usage {
        "position" => Position(index),
        "blendweight" => BlendWeight(index),
        "blendindices" => BlendIndices(index),
        "normal" => Normal(index),
        "psize" => PointSize(index),
        "texcoord" => TexCoord(index),
        "tangent" => Tangent(index),
        "binormal" => Binormal(index),
        "tessfactor" => TessFactor(index),
        "positiont" => PositionT(index),
        "color" => Color(index),
        "fog" => Fog(index),
        "depth" => Depth(index),
        "sample" => Sample(index),
        _ => return None,
    })
}

/// `dcl_` usage spelling of a semantic and its index, if it has one.
pub fn semantic_usage(s: Semantic) -> Option<(&'static str, u8)> {
    use Semantic::*;
    Some(match s {
        Position(i) => ("position", i),
        BlendWeight(i) => ("blendweight", i),
        BlendIndices(i) => ("blendindices", i),
        Normal(i) => ("normal", i),
        PointSize(i) => ("psize", i),
        TexCoord(i) => ("texcoord", i),
        Tangent(i) => ("tangent", i),
        Binormal(i) => ("binormal", i),
        TessFactor(i) => ("tessfactor", i),
        PositionT(i) => ("positiont", i),
        Color(i) => ("color", i),
        Fog(i) => ("fog", i),
        Depth(i) => ("depth", i),
        Sample(i) => ("sample", i),
        Generic(_) | BackColor(_) | WindowPos | Face => return None,
    })
}

pub fn sampler_target(word: &str) -> Option<TexTarget> {
    TexTarget::from_d3d_name(word)
}

pub fn target_word(t: TexTarget) -> Option<&'static str> {
    t.d3d_name()
}

/// The semantic an implicitly declared register has (vs_1_1–vs_2_x outputs, pixel
/// shader outputs, ps_2_x `v#`/`t#`).
pub fn implied_semantic(r: Reg) -> Option<Semantic> {
    use RegFile::*;
    let i = r.index as u8;
    Some(match (r.file, r.index) {
        (RastOut, 0) => Semantic::Position(0),
        (RastOut, 1) => Semantic::Fog(0),
        (RastOut, 2) => Semantic::PointSize(0),
        (AttrOut, _) => Semantic::Color(i),
        (TexCrdOut, _) => Semantic::TexCoord(i),
        (ColorOut, _) => Semantic::Color(i),
        (DepthOut, _) => Semantic::Depth(0),
        (TexCoord, _) => Semantic::TexCoord(i),
        _ => return None,
    })
}

/// Whether a register needs a `dcl` line in `p` (and so prints one).
pub fn requires_dcl(r: Reg, p: Profile) -> bool {
    use RegFile::*;
    match r.file {
        Input | TexCoord | Misc | Output => true,
        _ => {
            let _ = p;
            false
        }
    }
}

/// Mnemonics, without modifiers, and what they lower to. Conditional forms are listed
/// separately by [`cond_from`].
pub const MNEMONICS: &[(&str, Op)] = &[
    ("abs", Op::Abs),
    ("add", Op::Add),
    ("cmp", Op::CmpGe),
    ("cnd", Op::Cnd),
    ("crs", Op::Xpd),
    ("dp2add", Op::Dp2add),
    ("dp3", Op::Dp3),
    ("dp4", Op::Dp4),
    ("dst", Op::Dst),
    ("exp", Op::Ex2),
    ("expp", Op::Exp),
    ("frc", Op::Frc),
    ("lit", Op::Lit),
    ("log", Op::Lg2),
    ("logp", Op::Log),
    ("lrp", Op::Lrp),
    ("m3x2", Op::M3x2),
    ("m3x3", Op::M3x3),
    ("m3x4", Op::M3x4),
    ("m4x3", Op::M4x3),
    ("m4x4", Op::M4x4),
    ("mad", Op::Mad),
    ("max", Op::Max),
    ("min", Op::Min),
    ("mov", Op::Mov),
    ("mova", Op::Mova),
    ("mul", Op::Mul),
    ("nop", Op::Nop),
    ("nrm", Op::Nrm),
    ("pow", Op::Pow),
    ("rcp", Op::Rcp),
    ("rsq", Op::Rsq),
    ("sge", Op::Sge),
    ("sgn", Op::Sgn),
    ("sincos", Op::Sincos),
    ("slt", Op::Slt),
    ("sub", Op::Sub),
    ("texld", Op::Tex),
    ("texldb", Op::Txb),
    ("texldp", Op::Txp),
    ("texldd", Op::Texldd),
    ("texldl", Op::Texldl),
    ("texkill", Op::Texkil),
    ("dsx", Op::Dsx),
    ("dsy", Op::Dsy),
    ("if", Op::If),
    ("else", Op::Else),
    ("endif", Op::Endif),
    ("loop", Op::Loop),
    ("endloop", Op::Endloop),
    ("rep", Op::Rep),
    ("endrep", Op::Endrep),
    ("break", Op::Break),
    ("breakp", Op::Breakp),
    ("call", Op::Call),
    ("callnz", Op::Callnz),
    ("label", Op::Label),
    ("ret", Op::Ret),
    ("setp", Op::Setp(Cond::Gt)),
];

/// ps_1_x and D3D8 instructions that are named in errors rather than reported unknown.
pub const OLD_MNEMONICS: &[&str] = &[
    "tex",
    "texcoord",
    "texcrd",
    "texbem",
    "texbeml",
    "texreg2ar",
    "texreg2gb",
    "texreg2rgb",
    "texm3x2pad",
    "texm3x2tex",
    "texm3x3pad",
    "texm3x3tex",
    "texm3x3spec",
    "texm3x3vspec",
    "texdp3",
    "texdp3tex",
    "texm3x2depth",
    "texm3x3",
    "texdepth",
    "bem",
    "phase",
];

pub fn cond_from(s: &str) -> Option<Cond> {
    Cond::ALL.into_iter().find(|c| c.suffix() == s)
}

/// Spelling of an op in `p` (without modifiers).
pub fn op_name(op: Op, p: Profile) -> String {
    match op {
        Op::Ifc(c) => format!("if_{}", c.suffix()),
        Op::Breakc(c) => format!("break_{}", c.suffix()),
        Op::Setp(c) => format!("setp_{}", c.suffix()),
        Op::Mova if p == Profile::Vs1_1 => "mov".into(),
        Op::Texkil => "texkill".into(),
        _ => op
            .info()
            .d3d
            .or(op.info().arb)
            .unwrap_or("?")
            .to_ascii_lowercase(),
    }
}

//! Profiles: which operations a shader model offers, what each costs in instruction slots,
//! and the resource limits programs must respect.
//!
//! Direct3D 9 slot costs are Microsoft's published figures: the "Instruction Slots" column of
//! the per-model instruction tables ("vs_1_1 Instructions", "vs_2_0 Instructions",
//! "ps_2_0 Instructions", ... in the DirectX 9 Asm Shader Reference, and each instruction's
//! own page). ps_2_0 counts arithmetic and texture slots separately (64 + 32).
//!
//! ARB programs count instructions, not slots: every instruction is 1 (the limit queried with
//! `MAX_PROGRAM_INSTRUCTIONS_ARB`; ARB_fragment_program also splits ALU and TEX
//! instructions). Their default limits are those of a named GPU of the era (the R300),
//! editable; [`crate::target::ArbTarget`] names larger implementations.

use crate::ops::{Class, Op};
use crate::reg::RegFile;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Pipeline stage a program runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    Vertex,
    Fragment,
}

/// Whether ps_2_0's source-swizzle rule binds a profile ([`Profile::ps2_0_swizzle_rule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwizzleRule {
    /// Any swizzle.
    None,
    /// Always (ps_2_0).
    Always,
    /// Unless the hardware has the optional arbitrary-swizzle cap (ps_2_x).
    WithoutCap,
}

/// Source language family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dialect {
    /// `!!ARBvp1.0` / `!!ARBfp1.0`.
    Arb,
    /// `vs_*` / `ps_*` Direct3D 9 shader assembly.
    D3d9,
}

#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Profile {
    ArbVp1,
    ArbFp1,
    Vs1_1,
    Vs2_0,
    Vs2_x,
    Vs3_0,
    Ps2_0,
    Ps2_x,
    Ps3_0,
}

impl Profile {
    pub const ALL: [Profile; 9] = [
        Profile::ArbVp1,
        Profile::ArbFp1,
        Profile::Vs1_1,
        Profile::Vs2_0,
        Profile::Vs2_x,
        Profile::Vs3_0,
        Profile::Ps2_0,
        Profile::Ps2_x,
        Profile::Ps3_0,
    ];

    pub fn stage(self) -> Stage {
        match self {
            Profile::ArbVp1 | Profile::Vs1_1 | Profile::Vs2_0 | Profile::Vs2_x | Profile::Vs3_0 => {
                Stage::Vertex
            }
            _ => Stage::Fragment,
        }
    }

    pub fn dialect(self) -> Dialect {
        match self {
            Profile::ArbVp1 | Profile::ArbFp1 => Dialect::Arb,
            _ => Dialect::D3d9,
        }
    }

    /// Which profiles ps_2_0's source-swizzle rule binds (`d3d9::rules::ps2_0_swizzle`):
    /// every ps_2_0 program; a ps_2_x program only on hardware without the optional
    /// arbitrary-swizzle cap, so the validator accepts any swizzle there while code the
    /// optimizer writes keeps to the rule ([`Profile::keeps_ps2_0_swizzles`]).
    pub fn ps2_0_swizzle_rule(self) -> SwizzleRule {
        match self {
            Profile::Ps2_0 => SwizzleRule::Always,
            Profile::Ps2_x => SwizzleRule::WithoutCap,
            _ => SwizzleRule::None,
        }
    }

    /// Whether code written for this profile keeps to ps_2_0's swizzle rule (the rule may
    /// bind it: [`Profile::ps2_0_swizzle_rule`]).
    pub fn keeps_ps2_0_swizzles(self) -> bool {
        self.ps2_0_swizzle_rule() != SwizzleRule::None
    }

    /// The header that starts a program of this profile.
    pub fn header(self) -> &'static str {
        match self {
            Profile::ArbVp1 => "!!ARBvp1.0",
            Profile::ArbFp1 => "!!ARBfp1.0",
            Profile::Vs1_1 => "vs_1_1",
            Profile::Vs2_0 => "vs_2_0",
            Profile::Vs2_x => "vs_2_x",
            Profile::Vs3_0 => "vs_3_0",
            Profile::Ps2_0 => "ps_2_0",
            Profile::Ps2_x => "ps_2_x",
            Profile::Ps3_0 => "ps_3_0",
        }
    }

    /// Short identifier used on command lines and in permalinks.
    pub fn id(self) -> &'static str {
        match self {
            Profile::ArbVp1 => "arbvp1",
            Profile::ArbFp1 => "arbfp1",
            p => p.header(),
        }
    }

    pub fn from_id(s: &str) -> Option<Profile> {
        let s = s.trim().to_ascii_lowercase();
        Profile::ALL.into_iter().find(|p| {
            p.id() == s || p.header().eq_ignore_ascii_case(&s) || p.id().replace('_', "") == s
        })
    }

    /// Version as (major, minor) for D3D9 profiles; `x` versions are (2, 1).
    pub fn d3d_version(self) -> Option<(u8, u8)> {
        match self {
            Profile::Vs1_1 => Some((1, 1)),
            Profile::Vs2_0 | Profile::Ps2_0 => Some((2, 0)),
            Profile::Vs2_x | Profile::Ps2_x => Some((2, 1)),
            Profile::Vs3_0 | Profile::Ps3_0 => Some((3, 0)),
            _ => None,
        }
    }

    /// Slot cost of `op` in this profile, or `None` when the profile lacks it.
    pub fn slots(self, op: Op) -> Option<u8> {
        match self {
            Profile::ArbVp1 => arb_vp_has(op).then_some(1),
            Profile::ArbFp1 => arb_fp_has(op).then_some(1),
            _ => d3d_slots(self, op),
        }
    }

    pub fn has(self, op: Op) -> bool {
        self.slots(op).is_some()
    }

    /// The default resource limits of this profile.
    pub fn limits(self) -> Limits {
        default_limits(self)
    }

    /// The vertex profile that conventionally feeds this fragment profile (and vice versa).
    pub fn partner(self) -> Profile {
        match self {
            Profile::ArbVp1 => Profile::ArbFp1,
            Profile::ArbFp1 => Profile::ArbVp1,
            Profile::Vs1_1 | Profile::Vs2_0 => Profile::Ps2_0,
            Profile::Vs2_x => Profile::Ps2_x,
            Profile::Vs3_0 => Profile::Ps3_0,
            Profile::Ps2_0 => Profile::Vs1_1,
            Profile::Ps2_x => Profile::Vs2_x,
            Profile::Ps3_0 => Profile::Vs3_0,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.header())
    }
}

fn arb_vp_has(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Abs | Add
            | Arl
            | Dp3
            | Dp4
            | Dph
            | Dst
            | Ex2
            | Exp
            | Flr
            | Frc
            | Lg2
            | Lit
            | Log
            | Mad
            | Max
            | Min
            | Mov
            | Mul
            | Pow
            | Rcp
            | Rsq
            | Sge
            | Slt
            | Sub
            | Swz
            | Xpd
    )
}

fn arb_fp_has(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        Abs | Add
            | Cmp
            | Cos
            | Dp3
            | Dp4
            | Dph
            | Dst
            | Ex2
            | Flr
            | Frc
            | Kil
            | Lg2
            | Lit
            | Lrp
            | Mad
            | Max
            | Min
            | Mov
            | Mul
            | Pow
            | Rcp
            | Rsq
            | Scs
            | Sge
            | Sin
            | Slt
            | Sub
            | Swz
            | Tex
            | Txb
            | Txp
            | Xpd
    )
}

/// D3D9 instruction slots per model: the "Instruction slots" column of Microsoft's
/// per-model tables in the DirectX 9 asm shader reference ("Instructions - vs_1_1",
/// "Instructions - vs_2_0", "Instructions - vs_2_x", "Instructions - vs_3_0",
/// "ps_2_0 Instructions", "ps_2_x Instructions", "ps_3_0 Instructions"; MicrosoftDocs/win32
/// `desktop-src/direct3dhlsl/dx9-graphics-reference-asm-{vs,ps}-instructions-*.md`).
///
/// - vs_1_1 writes the address register with `mov a0.x, src` (round to nearest, "Address
///   Register" page); Hoist's IR calls that [`Op::Mova`], so vs_1_1 lists it at `mov`'s
///   1 slot and the printer spells it `mov`.
/// - `cnd` is ps_1_x only ("cnd - ps" page); `cmp` exists only in pixel shaders; there is
///   no `loop`/`endloop` in ps_2_x; `breakp` is 3 slots.
/// - Texture costs that depend on the sampler: ps_3_0 `texld`/`texldp` cost 4 slots on a
///   cube map and `texldl` (ps_3_0 and vs_3_0) 5; ps_2_x costs more when the
///   NOTEXINSTRUCTIONLIMIT cap is set. This table gives the non-cube, cap-clear figures.
fn d3d_slots(p: Profile, op: Op) -> Option<u8> {
    use Op::*;
    use Profile::*;
    let vs = p.stage() == Stage::Vertex;
    let v2 = p != Vs1_1;
    // Flow control: vs_2_0 and later, ps_2_x and later.
    let flow = vs && v2 || matches!(p, Ps2_x | Ps3_0);
    // Dynamic flow control and predication: the 2_x and 3_0 models.
    let x = matches!(p, Vs2_x | Ps2_x | Vs3_0 | Ps3_0);
    let n = match op {
        Add | Dp3 | Dp4 | Mad | Max | Min | Mov | Mul | Rcp | Rsq | Sub | Nop => 1,
        M3x2 => 2,
        M3x3 | M4x3 => 3,
        M3x4 | M4x4 => 4,
        Frc if vs && !v2 => 3,
        Frc => 1,
        Ex2 | Lg2 if vs && !v2 => 10,
        Ex2 | Lg2 => 1,
        // Vertex-only arithmetic.
        Sge | Slt | Dst | Exp | Log if vs => 1,
        Lit if vs => {
            if v2 {
                3
            } else {
                1
            }
        }
        Mova if vs => 1,
        Sgn if vs && v2 => 3,
        // New in vs_2_0 / present from ps_2_0.
        Abs if v2 => 1,
        Xpd | Lrp if v2 => 2,
        Nrm | Pow if v2 => 3,
        Sincos if v2 => 8,
        // Pixel-only arithmetic.
        CmpGe if !vs => 1,
        Dp2add if !vs => 2,
        Dsx | Dsy if !vs && x => 2,
        // Texture instructions.
        Tex if !vs => 1,
        Txb if p == Ps3_0 => 6,
        Txp if p == Ps3_0 => 3,
        Texkil if p == Ps3_0 => 2,
        Txb | Txp | Texkil if !vs => 1,
        Texldd if !vs && x => 3,
        Texldl if matches!(p, Vs3_0 | Ps3_0) => 2,
        // Flow control.
        Call if flow => 2,
        Callnz if flow => 3,
        If | Rep if flow => 3,
        Loop if vs && v2 || p == Ps3_0 => 3,
        Endloop if vs && v2 || p == Ps3_0 => 2,
        Endrep if flow => 2,
        Else | Endif | Ret if flow => 1,
        Label if flow => 0,
        Ifc(_) | Breakc(_) | Breakp if x => 3,
        Break | Setp(_) if x => 1,
        _ => return None,
    };
    Some(n)
}

/// Instruction-slot totals of a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotCount {
    pub alu: u32,
    pub tex: u32,
    pub flow: u32,
}

impl SlotCount {
    pub fn total(&self) -> u32 {
        self.alu + self.tex + self.flow
    }
}

/// Counts the slots of a program's operations under `profile`. Ops the profile lacks count
/// 1 (the validator reports them separately).
pub fn count_slots(profile: Profile, ops: impl IntoIterator<Item = Op>) -> SlotCount {
    let mut c = SlotCount::default();
    for op in ops {
        let n = profile.slots(op).unwrap_or(1) as u32;
        match op.info().class {
            Class::Alu => c.alu += n,
            Class::Tex => c.tex += n,
            Class::Flow => c.flow += n,
        }
    }
    c
}

/// The number of source operands `op` takes in `profile`.
pub fn src_count(op: Op, profile: Profile) -> usize {
    match op {
        Op::Sincos if matches!(profile, Profile::Vs3_0 | Profile::Ps3_0) => 1,
        _ => op.info().srcs as usize,
    }
}

/// Whether the Direct3D 9 register file `file` exists in `p` (the "Registers" pages of each
/// shader model).
pub fn file_in_profile(file: RegFile, p: Profile) -> bool {
    use Profile::*;
    use RegFile::*;
    let vs = matches!(p, Vs1_1 | Vs2_0 | Vs2_x | Vs3_0);
    match file {
        Temp | Const => true,
        Input => true,
        Address => vs,
        ConstInt | ConstBool | Label => !matches!(p, Vs1_1 | Ps2_0),
        Loop => matches!(p, Vs2_0 | Vs2_x | Vs3_0 | Ps3_0),
        Predicate => matches!(p, Vs2_x | Vs3_0 | Ps2_x | Ps3_0),
        Sampler => matches!(p, Vs3_0 | Ps2_0 | Ps2_x | Ps3_0),
        TexCoord => matches!(p, Ps2_0 | Ps2_x),
        Misc => p == Ps3_0,
        RastOut | AttrOut | TexCrdOut => matches!(p, Vs1_1 | Vs2_0 | Vs2_x),
        Output => p == Vs3_0,
        ColorOut | DepthOut => !vs,
    }
}

/// Number of registers of `file` (register numbers are `0..count`).
pub fn file_count(file: RegFile, p: Profile, l: &Limits) -> u32 {
    use RegFile::*;
    match file {
        Temp => l.temps as u32,
        Const => l.consts as u32,
        Input => l.attribs as u32,
        TexCoord | TexCrdOut => l.texcoords as u32,
        AttrOut => l.colors as u32,
        ConstInt | ConstBool => 16,
        Sampler => l.samplers as u32,
        Label => {
            if p == Profile::Vs2_0 {
                16
            } else {
                2048
            }
        }
        ColorOut => 4,
        Output => 12,
        RastOut => 3,
        Misc => 2,
        DepthOut | Address | Loop | Predicate => 1,
    }
}

/// Resource limits. All are editable; [`Profile::limits`] gives the defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Where the defaults come from, shown to users.
    pub source: String,
    /// Total instruction slots (D3D9) or instructions (ARB).
    pub max_slots: u32,
    /// ps_2_0 / ARB fp: arithmetic slots.
    pub max_alu_slots: Option<u32>,
    /// ps_2_0 / ARB fp: texture slots.
    pub max_tex_slots: Option<u32>,
    /// ARB fp: texture indirections (dependent-read phases).
    pub max_tex_indirections: Option<u32>,
    pub temps: u16,
    /// Constant registers (D3D9 `c#`) or ARB parameter slots.
    pub consts: u16,
    /// ARB: `program.env` entries.
    pub env_params: u16,
    /// ARB: `program.local` entries.
    pub local_params: u16,
    /// Vertex attributes (vertex) or input registers (fragment).
    pub attribs: u16,
    /// Texture-coordinate interpolators between the stages.
    pub texcoords: u8,
    /// Colour interpolators between the stages.
    pub colors: u8,
    pub samplers: u8,
    pub address_regs: u8,
}

fn default_limits(p: Profile) -> Limits {
    use Profile::*;
    match p {
        Vs1_1 => Limits {
            source: "vs_1_1 (DirectX 9 minimums)".into(),
            max_slots: 128,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: 12,
            consts: 96,
            env_params: 96,
            local_params: 0,
            attribs: 16,
            texcoords: 8,
            colors: 2,
            samplers: 0,
            address_regs: 1,
        },
        Vs2_0 | Vs2_x => Limits {
            source: format!("{} (DirectX 9 minimums)", p.header()),
            max_slots: 256,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: 12,
            consts: 256,
            env_params: 256,
            local_params: 0,
            attribs: 16,
            texcoords: 8,
            colors: 2,
            samplers: 0,
            address_regs: 1,
        },
        Vs3_0 => Limits {
            source: "vs_3_0 (DirectX 9 minimums)".into(),
            max_slots: 512,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: 32,
            consts: 256,
            env_params: 256,
            local_params: 0,
            attribs: 16,
            texcoords: 10,
            colors: 0,
            samplers: 4,
            address_regs: 1,
        },
        Ps2_0 => Limits {
            source: "ps_2_0 (DirectX 9)".into(),
            max_slots: 96,
            max_alu_slots: Some(64),
            max_tex_slots: Some(32),
            max_tex_indirections: Some(4),
            temps: 12,
            consts: 32,
            env_params: 32,
            local_params: 0,
            attribs: 2,
            texcoords: 8,
            colors: 2,
            samplers: 16,
            address_regs: 0,
        },
        Ps2_x => Limits {
            source: "ps_2_x (DirectX 9 minimums)".into(),
            max_slots: 96,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: 12,
            consts: 32,
            env_params: 32,
            local_params: 0,
            attribs: 2,
            texcoords: 8,
            colors: 2,
            samplers: 16,
            address_regs: 0,
        },
        Ps3_0 => Limits {
            source: "ps_3_0 (DirectX 9 minimums)".into(),
            max_slots: 512,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: 32,
            consts: 224,
            env_params: 224,
            local_params: 0,
            attribs: 10,
            texcoords: 10,
            colors: 0,
            samplers: 16,
            address_regs: 0,
        },
        // ATI Radeon 9700 (R300): ARB_vertex_program limits as reported by its drivers and
        // by Mesa's r300 driver.
        ArbVp1 => Limits {
            source: "ATI Radeon 9700 (R300) ARB_vertex_program".into(),
            max_slots: 256,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: 32,
            consts: 256,
            env_params: 256,
            local_params: 256,
            attribs: 16,
            texcoords: 8,
            colors: 2,
            samplers: 0,
            address_regs: 1,
        },
        ArbFp1 => Limits {
            source: "ATI Radeon 9700 (R300) ARB_fragment_program".into(),
            max_slots: 96,
            max_alu_slots: Some(64),
            max_tex_slots: Some(32),
            max_tex_indirections: Some(4),
            temps: 32,
            consts: 32,
            env_params: 32,
            local_params: 32,
            attribs: 10,
            texcoords: 8,
            colors: 2,
            samplers: 16,
            address_regs: 0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_ids_round_trip() {
        for p in Profile::ALL {
            assert_eq!(Profile::from_id(p.id()), Some(p), "{p}");
            assert_eq!(Profile::from_id(p.header()), Some(p), "{p}");
        }
        assert_eq!(Profile::from_id("ps20"), Some(Profile::Ps2_0));
        assert_eq!(Profile::from_id("nope"), None);
    }

    #[test]
    fn fragment_only_ops_of_the_paper_are_missing_from_vs_1_1() {
        for op in [
            Op::Tex,
            Op::Txb,
            Op::Txp,
            Op::Texkil,
            Op::CmpGe,
            Op::Cnd,
            Op::Dp2add,
        ] {
            assert!(!Profile::Vs1_1.has(op), "{op:?}");
        }
        for op in [Op::Tex, Op::Txb, Op::Txp, Op::Texkil, Op::CmpGe, Op::Dp2add] {
            assert!(Profile::Ps2_0.has(op), "{op:?}");
        }
    }

    #[test]
    fn macro_costs_match_the_issue_figures() {
        assert_eq!(Profile::Vs2_0.slots(Op::M4x4), Some(4));
        assert_eq!(Profile::Vs2_0.slots(Op::Nrm), Some(3));
        assert_eq!(Profile::Ps2_0.slots(Op::Pow), Some(3));
        assert_eq!(Profile::Ps2_0.slots(Op::Lrp), Some(2));
        assert_eq!(Profile::Ps2_0.slots(Op::Xpd), Some(2));
        assert_eq!(Profile::Ps2_0.slots(Op::Sincos), Some(8));
        assert_eq!(Profile::Vs1_1.slots(Op::Ex2), Some(10));
        assert_eq!(Profile::Vs1_1.slots(Op::Lg2), Some(10));
    }
}

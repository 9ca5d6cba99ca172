//! Registers and their components: register files, registers, swizzles, write masks and
//! texture targets. These small value types sit below the opcode table ([`crate::ops`]),
//! the profiles ([`crate::profile`]) and the IR ([`crate::ir`]), which re-exports them.

use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// `c#`, ARB `PARAM` slots and inline literals. See [`crate::ir::ConstBinding`].
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

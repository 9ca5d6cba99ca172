//! Values as the lowering sees them: every naga value (scalar, vector, matrix, array,
//! struct) is a flat list of components in naga's order (matrices column by column), each
//! a known literal or a lane of a register with an optional negation. Booleans are 1.0 and
//! 0.0 and integers are their float value, which is how loops with constant trip counts
//! unroll: their counters stay literals. Registers ([`R`]) are the emitter's, before
//! allocation.

/// A register before allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum R {
    Temp(u32),
    /// Vertex input: generic attribute `n` (ARB `vertex.attrib[n]`, D3D9 `v#` whose usage
    /// aliases slot `n`).
    Attr(u8),
    /// Fragment input interpolant `n` (ARB `fragment.texcoord[n]`, D3D9 `dcl_texcoordn`).
    Vary(u8),
    FragPos,
    Face,
    /// Host-set uniform slot (ARB `program.local[n]`, D3D9 `c#n`).
    Uniform(u16),
    /// Literal pool entry.
    Lit(u16),
    /// ARB state binding, by index into the emitter's `states`.
    State(u16),
    /// The viewport parameter (width, height), until the stage is done: it gets its slot
    /// only when an instruction still reads it then.
    Viewport,
    OutPos,
    OutVary(u8),
    OutColor(u8),
    OutDepth,
    /// D3D9 `i0`, the `rep` count.
    RepCount,
}

/// One component.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum C {
    Lit(f32),
    Reg { reg: R, lane: u8, neg: bool },
}

impl C {
    pub fn lit(self) -> Option<f32> {
        match self {
            C::Lit(v) => Some(v),
            C::Reg { .. } => None,
        }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn neg(self) -> C {
        match self {
            C::Lit(v) => C::Lit(-v),
            C::Reg { reg, lane, neg } => C::Reg {
                reg,
                lane,
                neg: !neg,
            },
        }
    }
}

/// A flat value.
pub type Val = Vec<C>;

/// All components literal: their values.
pub fn lits(v: &[C]) -> Option<Vec<f32>> {
    v.iter().map(|c| c.lit()).collect()
}

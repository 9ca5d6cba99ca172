//! Values as the lowering sees them: every naga value (scalar, vector, matrix, array,
//! struct) is a flat list of components in naga's order (matrices column by column), each
//! a known literal or a lane of a register with an optional negation. Booleans are 1.0 and
//! 0.0 and integers are their float value, which is how loops with constant trip counts
//! unroll: their counters stay literals.

use crate::emit::R;

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

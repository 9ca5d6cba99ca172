//! What the motion takes and what it returns.

use crate::analysis::defuse::DefUse;
use crate::analysis::interp::InterpMap;
use crate::analysis::movable::Movability;
use crate::analysis::varyings::Varyings;
use crate::tracked::{Line, Tracked};
use hoist_asm::ir::{Comp, ConstBinding, Program, Semantic};
use hoist_asm::profile::Limits;
use serde::{Deserialize, Serialize};

/// Everything the motion needs to know about the pair.
pub struct Input<'a> {
    pub vp: &'a Program,
    pub fp: &'a Program,
    pub vp_du: &'a DefUse,
    pub fp_du: &'a DefUse,
    pub interp: &'a InterpMap,
    pub movability: &'a Movability,
    pub vp_limits: &'a Limits,
    pub fp_limits: &'a Limits,
    /// What the fragment inputs carry (constants of unwritten components, qualifiers).
    pub facts: &'a Varyings,
    /// Provenance of the fragment program's instructions (operands earlier passes changed).
    pub fp_lines: &'a [Line],
    /// Fragment copies of vertex parameters made before the motion: moved code reading one
    /// reads the vertex parameter itself.
    pub reverse: &'a [Mirror],
    /// Existing interpolants may be relocated to pack.
    pub relocate: bool,
    /// Uniform-expression varyings: at most this many instructions each, and the price of
    /// an interpolated component when the cost model has one (`CostModel::recompute`).
    pub recompute: (u32, Option<f64>),
    /// Vertex parameters may be copied into the fragment program.
    pub mirror_params: bool,
}

/// What one texture-coordinate interpolator component carries after the motion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Carry {
    pub texcoord: u8,
    pub slot: Comp,
    pub carries: Carried,
}

/// The value in an interpolator component.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Carried {
    /// An interpolant of the original pair, by its semantic and component there.
    Input { semantic: Semantic, comp: Comp },
    /// The result of a moved fragment instruction (a [`Transport`]).
    Moved { inst: u32, comp: Comp },
}

/// A host parameter one program now needs in a copy of its own. Moved code: set `vertex`
/// to the value of `fragment`. With `to_fragment` (a vertex parameter the fragment program
/// now reads instead of an interpolant, `passes::varying_const`): set `fragment` to the
/// value of `vertex`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mirror {
    /// Vertex-program binding (`Env(n)` / `Local(n)`; D3D9 `Env(n)` = vertex `c#n`), or
    /// the binding or GL state copied when `to_fragment`.
    pub vertex: ConstBinding,
    /// The fragment-program binding or GL state copied, or the copy when `to_fragment`.
    pub fragment: ConstBinding,
    /// The copy is in the fragment program.
    #[serde(default)]
    pub to_fragment: bool,
}

/// Where one transported component travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transport {
    /// Fragment instruction that computes it.
    pub inst: u32,
    /// Component of that instruction's destination.
    pub comp: Comp,
    /// Interpolator (texture-coordinate set) and component it travels in.
    pub texcoord: u8,
    pub slot: Comp,
}

/// The pair after motion, before clean-up.
#[derive(Clone, Debug)]
pub struct Motion {
    pub vp: Tracked,
    pub fp: Tracked,
    pub mirrors: Vec<Mirror>,
    pub transports: Vec<Transport>,
    /// Moved instructions also kept in the fragment program (uniform helpers recomputed on
    /// both sides because no interpolator was left to carry them).
    pub duplicated: Vec<u32>,
    /// What every texture-coordinate interpolator component carries.
    pub carries: Vec<Carry>,
    /// Whether the packing was decided exactly (else by the greedy fallback), and whether
    /// it relocated existing interpolants.
    pub exact_packing: bool,
    pub relocated: bool,
    /// What the uniform-expression step did.
    pub changes: Vec<crate::analysis::varyings::Change>,
}

/// Why a selection cannot be moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Infeasible {
    Temporaries {
        needed: u32,
        limit: u32,
    },
    Interpolators {
        needed: u32,
        limit: u32,
    },
    Constants {
        limit: u32,
    },
    Parameters,
    /// A program has flow control.
    FlowControl,
    /// The selection contains an instruction that cannot move.
    Unmovable {
        inst: u32,
    },
    /// No packing was found, but the exact packer ran out of search nodes: one may exist.
    PackingUnknown,
}

impl std::fmt::Display for Infeasible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Infeasible::Temporaries { needed, limit } => {
                write!(f, "needs {needed} vertex temporaries, the limit is {limit}")
            }
            Infeasible::Interpolators { needed, limit } => {
                write!(f, "needs {needed} interpolators, {limit} are free")
            }
            Infeasible::Constants { limit } => {
                write!(f, "needs more than the {limit} vertex constant registers")
            }
            Infeasible::Parameters => {
                write!(f, "no free vertex parameter for a mirrored parameter")
            }
            Infeasible::Unmovable { inst } => write!(f, "instruction {} cannot move", inst + 1),
            Infeasible::FlowControl => write!(f, "a program has flow control"),
            Infeasible::PackingUnknown => write!(
                f,
                "no interpolator packing was found within the packer's search budget"
            ),
        }
    }
}

//! Moves a chosen set of fragment instructions to the end of the vertex program.
//!
//! This is the paper's code motion (steps M1–M4), generalised to both dialects and to
//! per-component values. Given a set `M` of fragment instructions that
//! [`crate::analysis::movable`] found movable and that is closed under dependences (every
//! value an instruction in `M` reads from an earlier instruction is computed in `M`):
//!
//! 1. **Code movement (A2).** The instructions of `M` are appended to the vertex program in
//!    their original order. All vertex temporaries are free there, except the ones that hold
//!    values moved code reads (below); fragment temporaries are renamed onto free vertex
//!    temporaries, keeping the same number when it is free.
//! 2. **Inputs (M2, M3).** A fragment interpolant read by moved code becomes the vertex-side
//!    value that fed it: the register the vertex program copied into the output when that
//!    register still holds the value at the end (M3), otherwise a copy saved into a spare
//!    temporary right after the write (M2). Components that come from different registers
//!    are gathered into one temporary first.
//! 3. **Constants (M1, A1).** Literals move freely (ARB: an inline constant; D3D9: a `def` in
//!    a free `c#`, the same number when free). Host-set parameters move only with "mirror
//!    parameters": the vertex program gets its own copy, and [`Mirror`] tells the host which
//!    vertex parameter to set to which fragment parameter.
//! 4. **Outputs (M4).** Each component of a moved result that a staying instruction reads is
//!    written to a free texture-coordinate interpolator component right after it is computed.
//!    On the fragment side the moved instruction is replaced by a `mov` that reads the
//!    interpolator back into the register it used to write, so every staying instruction
//!    sees exactly the values it saw before. [`super::copy_prop`] then makes the readers use
//!    the interpolator directly and [`super::dce`] drops what became dead.
//!
//! Packing: components are placed so that each staying operand finds all its transported
//! components in one interpolator register. Profiles with arbitrary source swizzles (ARB
//! fragment programs, ps_3_0) may put a component in any free slot (two 2-D addresses share
//! one register as `.xy` and `.zw`); the others keep every component in its own position so
//! the operand's swizzle does not change (ps_2_0 texture coordinates cannot be swizzled).
//!
//! Legality: a moved instruction computes, per vertex, the same function of the same values
//! the fragment instruction computed per fragment; [`crate::analysis::movable`] guarantees the
//! function is affine in interpolated values, so interpolating its per-vertex results gives
//! the per-fragment results. Staying instructions read unchanged values through the
//! materialising `mov`s. Nothing else in either program changes.
//!
//! The steps live in submodules: [`pack`] places transported components, [`inputs`]
//! finds the vertex-side values moved code reads (M2, M3), [`emit`] appends the moved code
//! and its transports (A2, M1, M4) and [`materialize`] rewrites the fragment program.

mod emit;
mod inputs;
mod materialize;
mod pack;

use crate::analysis::defuse::DefUse;
use crate::analysis::interp::InterpMap;
use crate::analysis::movable::Movability;
use crate::tracked::Tracked;
use hoist_asm::ir::{Comp, ConstBinding, Program};
use hoist_asm::profile::Limits;
use serde::{Deserialize, Serialize};

pub use pack::{free_components, swizzle_free};

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
}

/// A host parameter the vertex program now needs: set `vertex` to the value of `fragment`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mirror {
    /// Vertex-program binding (`Env(n)` / `Local(n)`; D3D9 `Env(n)` = vertex `c#n`).
    pub vertex: ConstBinding,
    /// The fragment-program binding or GL state it copies.
    pub fragment: ConstBinding,
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
        }
    }
}

/// Runs the motion for the instructions marked in `selected`.
pub fn run(x: &Input, selected: &[bool]) -> Result<Motion, Infeasible> {
    let needed = pack::transported(x, selected);
    let (place, chans, dup) = pack::place(x, selected, &needed)?;
    let mut temps = inputs::Temps::new(x.vp_limits.temps);
    let (saves, origins) = inputs::vertex_inputs(x, selected, &mut temps)?;
    let vp = inputs::with_saves(x, &saves);
    let mut emitter = emit::Emitter::new(x, vp, temps, &origins);
    let mut transports = Vec::new();
    for (i, inst) in x.fp.insts.iter().enumerate() {
        if selected[i] {
            let vdst = emitter.moved(i, inst)?;
            emitter.transports(i, inst, vdst, &place, &chans, &mut transports);
        }
    }
    let (vp, mirrors) = emitter.finish();
    let fp = materialize::fragment(x, selected, &dup, &place, &chans);
    let duplicated = (0..dup.len())
        .filter(|&i| dup[i])
        .map(|i| i as u32)
        .collect();
    Ok(Motion {
        vp,
        fp,
        mirrors,
        transports,
        duplicated,
    })
}

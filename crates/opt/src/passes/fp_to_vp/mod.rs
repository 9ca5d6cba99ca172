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

mod bins;
mod emit;
mod greedy;
mod inputs;
mod layout;
mod materialize;
mod pack;
pub mod types;

pub use layout::swizzle_free;
pub use pack::{free_components, relaxed_capacity};
pub use types::{Carried, Carry, Infeasible, Input, Mirror, Motion, Transport};

/// Runs the motion for the instructions marked in `selected`.
pub fn run(x: &Input, selected: &[bool]) -> Result<Motion, Infeasible> {
    let needed = pack::transported(x, selected);
    let packed = pack::place(x, selected, &needed)?;
    let relocated = pack::relocated_values(x, &packed);
    let mut temps = inputs::Temps::new(x.vp_limits.temps);
    let (saves, origins) = inputs::vertex_inputs(x, selected, &relocated, &mut temps)?;
    let vp = inputs::with_saves(x, &saves);
    let mut emitter = emit::Emitter::new(x, vp, temps, &origins);
    emitter.relocations(&packed, &relocated)?;
    let mut transports = Vec::new();
    for (i, inst) in x.fp.insts.iter().enumerate() {
        if selected[i] {
            let vdst = emitter.moved(i, inst)?;
            emitter.transports(i, inst, vdst, &packed, &mut transports);
        }
    }
    let (vp, mut mirrors) = emitter.finish();
    let (fp, copies, changes) = materialize::fragment(x, selected, &packed)?;
    mirrors.extend(copies);
    let duplicated = (0..packed.dup.len())
        .filter(|&i| packed.dup[i])
        .map(|i| i as u32)
        .collect();
    Ok(Motion {
        vp,
        fp,
        mirrors,
        transports,
        duplicated,
        carries: pack::carries(x, &packed),
        exact_packing: packed.exact,
        relocated: packed.relocated,
        changes,
    })
}

//! Running a program on given values, without rasterization.
//!
//! Translation validation needs a program's results at chosen points: the vertex program's
//! outputs for given attributes, and the fragment program's outputs — and every intermediate
//! value — for given interpolants. These functions run the compiled kernel on the same
//! [`Machine`] a draw uses, so every value is bit for bit what a draw computes from the same
//! inputs. A draw's vertex stage runs through [`run_vertices`] too.
//!
//! Fragment lanes may form 2×2 quads (`quads`): lanes `4q .. 4q + 3` are then the pixels
//! (0, 0), (1, 0), (0, 1) and (1, 1) of quad `q`, which gives derivatives and texture LOD
//! their meaning.

use crate::compile::LANES;
use crate::draw::{ATTRIBS, Caps, StageParams};
use crate::error::RenderError;
use crate::exec::{ExecEnv, Machine, Mask};
use crate::glstate::GlState;
use crate::program::{
    CompiledProgram, attrib_slot, bool_table, const_table, in_semantic, int_table, out_semantic,
};
use crate::texture::Texture;
use hoist_asm::Reg;
use hoist_asm::ir::{RegFile, Semantic};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a stage reads besides its per-invocation inputs.
#[derive(Clone, Copy)]
pub struct StageEnv<'a> {
    pub params: &'a StageParams,
    pub gl: &'a GlState,
    pub textures: &'a BTreeMap<u8, Arc<Texture>>,
    pub caps: &'a Caps,
}

/// Runs `body` with the execution environment of `cp` under `env`.
fn with_env<T>(
    cp: &CompiledProgram,
    env: &StageEnv,
    quads: bool,
    body: impl FnOnce(&ExecEnv) -> T,
) -> T {
    let k = &cp.kernel;
    let p = &cp.program;
    let consts = const_table(p, k.const_len, env.params, env.gl);
    let ints = int_table(p, env.params);
    let bools = bool_table(p, env.params);
    let texrefs: Vec<Option<&Texture>> = (0..32u8)
        .map(|u| env.textures.get(&u).map(|t| &**t))
        .collect();
    body(&ExecEnv {
        consts: &consts,
        textures: &texrefs,
        shared_textures: &[],
        int_consts: &ints,
        bool_consts: &bools,
        quads,
        max_loop_iterations: env.caps.max_loop_iterations,
        max_call_depth: env.caps.max_call_depth,
        max_batch_instructions: env.caps.max_batch_instructions,
    })
}

fn read(m: &Machine, row: u32, lane: usize) -> [f32; 4] {
    std::array::from_fn(|c| m.regs[row as usize + c][lane])
}

fn write(m: &mut Machine, row: u32, lane: usize, v: [f32; 4]) {
    for (c, x) in v.into_iter().enumerate() {
        m.regs[row as usize + c][lane] = x;
    }
}

/// Results of a batch of vertex-program invocations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vertices {
    /// Per vertex, every output register the program has, in the kernel's order.
    pub outputs: Vec<Vec<(Reg, [f32; 4])>>,
    /// Batches cut off by the instruction budget.
    pub truncated: u64,
    pub instructions: u64,
    pub slots: u64,
}

/// Runs a vertex program once per vertex; `attribs` holds all [`ATTRIBS`] attribute slots
/// of each vertex (what a draw feeds the program's input registers).
pub fn run_vertices(
    cp: &CompiledProgram,
    env: &StageEnv,
    attribs: &[[[f32; 4]; ATTRIBS]],
) -> Vertices {
    run_vertices_observed(cp, env, attribs, &mut crate::exec::Quiet)
}

/// [`run_vertices`] with an observer of every batch (of up to [`LANES`] vertices).
pub fn run_vertices_observed<O: crate::exec::Observer>(
    cp: &CompiledProgram,
    env: &StageEnv,
    attribs: &[[[f32; 4]; ATTRIBS]],
    obs: &mut O,
) -> Vertices {
    let k = &cp.kernel;
    let inputs: Vec<(u32, usize)> = k
        .inputs
        .iter()
        .filter(|(r, _)| r.file == RegFile::Input)
        .map(|&(r, row)| (row, attrib_slot(&cp.program, r)))
        .collect();
    let mut out = Vertices::default();
    with_env(cp, env, false, |xenv| {
        let mut m = Machine::new(k);
        m.bind_consts(k, xenv.consts);
        for batch in attribs.chunks(LANES) {
            m.reset(k);
            for &(row, slot) in &inputs {
                for (l, v) in batch.iter().enumerate() {
                    write(&mut m, row, l, v[slot]);
                }
            }
            let mut live: Mask = [false; LANES];
            live[..batch.len()].fill(true);
            m.run_observed(k, xenv, &live, obs);
            if m.budget_exhausted {
                out.truncated += 1;
                m.budget_exhausted = false;
            }
            for l in 0..batch.len() {
                out.outputs.push(
                    k.outputs
                        .iter()
                        .map(|&(r, row)| (r, read(&m, row, l)))
                        .collect(),
                );
            }
        }
        out.instructions = m.insts_executed;
        out.slots = m.slots_executed;
    });
    out
}

pub use crate::program::UNWRITTEN;

/// The per-vertex values of one vertex's outputs as the rest of the pipeline sees them, by
/// semantic: fog keeps only its first component (the others read 0, 0, 1) and colours are
/// clamped to [0, 1] when `state.vertex_clamp` is on (GL's default).
pub fn varyings<'o>(
    p: &'o hoist_asm::Program,
    outputs: &'o [(Reg, [f32; 4])],
    state: &'o crate::draw::DrawState,
) -> impl Iterator<Item = (Semantic, [f32; 4])> + 'o {
    outputs.iter().filter_map(move |&(reg, v)| {
        let s = out_semantic(p, reg)?;
        let v = match s {
            Semantic::Fog(_) => [v[0], 0.0, 0.0, 1.0],
            Semantic::Color(_) | Semantic::BackColor(_)
                if state.vertex_clamp && reg.file == RegFile::AttrOut =>
            {
                v.map(|x| x.clamp(0.0, 1.0))
            }
            _ => v,
        };
        Some((s, v))
    })
}

/// Results of a batch of fragment-program invocations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fragments {
    /// Per fragment, every output register (colours, depth) in the kernel's order.
    pub outputs: Vec<Vec<(Reg, [f32; 4])>>,
    pub killed: Vec<bool>,
    /// With tracing, per instruction and fragment: the instruction's destination register
    /// right after it ran (all four components; `None` for instructions without one).
    pub trace: Vec<Option<Vec<[f32; 4]>>>,
    pub truncated: u64,
}

/// Runs a fragment program once per lane of `n`, where `input(lane, semantic)` gives each
/// interpolant (window position and facing included). `trace` records every instruction's
/// result; programs with flow control cannot be traced and give an error.
pub fn run_fragments(
    cp: &CompiledProgram,
    env: &StageEnv,
    n: usize,
    quads: bool,
    trace: bool,
    input: &dyn Fn(usize, Semantic) -> [f32; 4],
) -> Result<Fragments, RenderError> {
    let k = &cp.kernel;
    if trace && k.has_flow {
        return Err(RenderError::Program(
            "a program with flow control cannot be traced".into(),
        ));
    }
    if quads && !n.is_multiple_of(4) {
        return Err(RenderError::Config(format!(
            "{n} fragments do not form quads"
        )));
    }
    let mut out = Fragments {
        trace: if trace {
            cp.program
                .insts
                .iter()
                .map(|i| i.dst.as_ref().map(|_| Vec::with_capacity(n)))
                .collect()
        } else {
            Vec::new()
        },
        ..Fragments::default()
    };
    with_env(cp, env, quads, |xenv| {
        let mut m = Machine::new(k);
        m.bind_consts(k, xenv.consts);
        for start in (0..n).step_by(LANES) {
            let len = (n - start).min(LANES);
            m.reset(k);
            for &(reg, row) in &k.inputs {
                let sem = in_semantic(&cp.program, reg);
                for l in 0..len {
                    let v = sem.map_or(UNWRITTEN, |s| input(start + l, s));
                    write(&mut m, row, l, v);
                }
            }
            let mut live: Mask = [false; LANES];
            live[..len].fill(true);
            if trace {
                let traces = &mut out.trace;
                m.run_traced(k, xenv, &live, &mut |i, m: &Machine| {
                    if let Some(t) = &mut traces[i] {
                        let row = k.insts[i].dst;
                        t.extend((0..len).map(|l| read(m, row, l)));
                    }
                });
            } else {
                m.run(k, xenv, &live);
            }
            if m.budget_exhausted {
                out.truncated += 1;
                m.budget_exhausted = false;
            }
            for l in 0..len {
                out.outputs.push(
                    k.outputs
                        .iter()
                        .map(|&(r, row)| (r, read(&m, row, l)))
                        .collect(),
                );
                out.killed.push(m.killed[l]);
            }
        }
    });
    Ok(out)
}

//! A program compiled for the executor, and what its registers mean to a draw: the
//! constant, integer and boolean tables of its parameters, the attribute slot of each
//! vertex input, the semantics of inputs and outputs. Shared by the pipeline
//! ([`crate::raster`]) and the probes ([`crate::probe`]).

use crate::compile::Kernel;
use crate::draw::{ATTRIBS, StageParams};
use crate::error::RenderError;
use crate::glstate::GlState;
use hoist_asm::ir::{ConstBinding, RegFile, Semantic};
use hoist_asm::{Dialect, Program, Reg};

/// What a fragment input reads when no vertex output feeds it.
pub const UNWRITTEN: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A program with its compiled kernel.
#[derive(Clone, Debug)]
pub struct CompiledProgram {
    pub program: Program,
    pub kernel: Kernel,
}

impl CompiledProgram {
    /// Compiles `p` as it executes: an ARB fog option becomes appended instructions
    /// ([`crate::fog`]), which `program` then holds too.
    pub fn new(p: &Program) -> Result<CompiledProgram, RenderError> {
        let program = crate::fog::lower(p);
        Ok(CompiledProgram {
            kernel: crate::compile::compile(&program)?,
            program,
        })
    }
}

/// The constant table of a program for a draw.
pub fn const_table(p: &Program, len: usize, params: &StageParams, gl: &GlState) -> Vec<[f32; 4]> {
    let n = len.max(p.consts.len());
    let mut t = vec![[0.0; 4]; n];
    for (i, v) in t.iter_mut().enumerate() {
        let binding = p.consts.get(i).map(|c| &c.binding);
        *v = match binding {
            Some(ConstBinding::Literal(l)) => l.value,
            Some(ConstBinding::Env(e)) => params.env.get(e).copied().unwrap_or([0.0; 4]),
            Some(ConstBinding::Local(e)) => params.local.get(e).copied().unwrap_or([0.0; 4]),
            Some(ConstBinding::State(s)) => gl.value(s),
            None if p.dialect() == Dialect::D3d9 => {
                params.env.get(&(i as u16)).copied().unwrap_or([0.0; 4])
            }
            None => [0.0; 4],
        };
    }
    t
}

pub fn int_table(p: &Program, params: &StageParams) -> Vec<[i32; 4]> {
    let n = p.int_consts.len().max(16);
    (0..n)
        .map(|i| {
            p.int_consts
                .get(i)
                .copied()
                .flatten()
                .or_else(|| params.ints.get(&(i as u16)).copied())
                .unwrap_or([0; 4])
        })
        .collect()
}

pub fn bool_table(p: &Program, params: &StageParams) -> Vec<bool> {
    let n = p.bool_consts.len().max(16);
    (0..n)
        .map(|i| {
            p.bool_consts
                .get(i)
                .copied()
                .flatten()
                .or_else(|| params.bools.get(&(i as u16)).copied())
                .unwrap_or(false)
        })
        .collect()
}

/// Attribute slot feeding a vertex-program input register.
pub fn attrib_slot(p: &Program, reg: Reg) -> usize {
    let s = match p.semantic(reg) {
        Some(Semantic::Position(_)) => 0,
        Some(Semantic::BlendWeight(_)) => 1,
        Some(Semantic::Normal(_)) => 2,
        Some(Semantic::Color(n)) => 3 + usize::from(n.min(1)),
        Some(Semantic::Fog(_)) => 5,
        Some(Semantic::PointSize(_)) => 6,
        Some(Semantic::BlendIndices(_)) => 7,
        Some(Semantic::TexCoord(n)) => 8 + usize::from(n),
        Some(Semantic::Tangent(_)) => 14,
        Some(Semantic::Binormal(_)) => 15,
        Some(Semantic::Generic(n)) => usize::from(n),
        _ => usize::from(reg.index),
    };
    s.min(ATTRIBS - 1)
}

/// Semantic of a vertex-program output register (declared, or implied by the register).
pub fn out_semantic(p: &Program, reg: Reg) -> Option<Semantic> {
    p.semantic(reg).or(match (reg.file, reg.index) {
        (RegFile::RastOut, 0) => Some(Semantic::Position(0)),
        (RegFile::RastOut, 1) => Some(Semantic::Fog(0)),
        (RegFile::RastOut, 2) => Some(Semantic::PointSize(0)),
        (RegFile::AttrOut, n) if n < 2 => Some(Semantic::Color(n as u8)),
        (RegFile::AttrOut, n) => Some(Semantic::BackColor((n - 2).min(1) as u8)),
        (RegFile::TexCrdOut, n) => Some(Semantic::TexCoord(n as u8)),
        (RegFile::Output, n) => Some(Semantic::Generic(n as u8)),
        _ => None,
    })
}

/// Semantic of a fragment-program input register (declared, or implied by the register).
pub fn in_semantic(p: &Program, reg: Reg) -> Option<Semantic> {
    p.semantic(reg)
        .or(match (reg.file, reg.index, p.dialect()) {
            (RegFile::Input, 2, Dialect::Arb) => Some(Semantic::Fog(0)),
            (RegFile::Input, n, Dialect::Arb) => Some(Semantic::Color(n.min(1) as u8)),
            (RegFile::Input, n, Dialect::D3d9) => Some(Semantic::Color(n as u8)),
            (RegFile::TexCoord, n, _) => Some(Semantic::TexCoord(n as u8)),
            (RegFile::Misc, 0, _) => Some(Semantic::WindowPos),
            (RegFile::Misc, 1, _) => Some(Semantic::Face),
            _ => None,
        })
}

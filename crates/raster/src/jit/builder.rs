//! The code generator's state shared by the module layout ([`super::codegen`]), the
//! instructions ([`super::ops`]) and texture sampling ([`super::texture`]): the `v128`
//! locals of rows and temporaries, the emitted body, the imports and the parameter and
//! local indices of `run`, and the small emitters every part uses.

use crate::compile::{Kernel, R};
use std::collections::HashMap;
use wasm_encoder::{Instruction as I, MemArg};

/// Imported functions, in import order (function indices 0..).
#[derive(Clone, Copy)]
pub(super) enum Import {
    Exp2f = 0,
    Log2f = 1,
    Powf = 2,
    Sinf = 3,
    Cosf = 4,
    Tex = 5,
}

/// Parameters of `run`.
pub(super) const P_IO: u32 = 0;
pub(super) const P_CONSTS: u32 = 1;
pub(super) const P_TEX: u32 = 2;
pub(super) const P_KILL: u32 = 3;
pub(super) const P_SCRATCH: u32 = 4;
pub(super) const P_LANES: u32 = 5;
pub(super) const P_FLAGS: u32 = 6;
/// i32 locals: the chunk's byte offset within a row, and scratch.
pub(super) const L_OFF: u32 = 7;
pub(super) const L_BASE: u32 = 8;
pub(super) const L_I0: u32 = 9;
pub(super) const I32_LOCALS: u32 = 3;
/// i64 scratch.
pub(super) const L_W0: u32 = 10;
/// First `v128` local.
pub(super) const V_FIRST: u32 = 11;

/// The function being generated.
pub(super) struct Gen<'a> {
    pub k: &'a Kernel,
    pub body: Vec<I<'static>>,
    pub rows: HashMap<R, u32>,
    pub n_v128: u32,
    /// Per-instruction temporaries, reused from one instruction to the next.
    pub temps: Vec<u32>,
    pub next_temp: usize,
    /// The kill mask of the chunk.
    pub kill: u32,
    /// All ones when lanes form quads (flags bit 0).
    pub quads: u32,
    /// Texture descriptor words per unit: mode, texels, width, height (i32 locals' v128s
    /// are not needed; these are v128 splats of width/height as f32 and the i32 words).
    pub tex_locals: HashMap<u8, TexLocals>,
    /// The descriptor mode each unit's fetches are compiled for.
    pub modes: super::abi::Modes,
}

/// Locals holding one unit's descriptor, loaded once per call.
#[derive(Clone, Copy)]
pub(super) struct TexLocals {
    pub mode: u32,
    /// The texels' address − 0xB000_0000 (see `texture::fetch`), an i32 splat.
    pub base: u32,
    /// Width and height as f32 splats.
    pub wf: u32,
    pub hf: u32,
    /// Width − 1 and height − 1 as f32 splats.
    pub wm: u32,
    pub hm: u32,
}

pub(super) fn mem(offset: u64, align: u32) -> MemArg {
    MemArg {
        offset,
        align,
        memory_index: 0,
    }
}

impl<'a> Gen<'a> {
    /// The local of a row.
    pub fn row(&mut self, r: R) -> u32 {
        if let Some(&l) = self.rows.get(&r) {
            return l;
        }
        let l = self.new_v128();
        self.rows.insert(r, l);
        l
    }

    pub fn new_v128(&mut self) -> u32 {
        let l = V_FIRST + self.n_v128;
        self.n_v128 += 1;
        l
    }

    /// A temporary valid until the next [`Gen::next_instruction`].
    pub fn temp(&mut self) -> u32 {
        if self.next_temp == self.temps.len() {
            let l = self.new_v128();
            self.temps.push(l);
        }
        self.next_temp += 1;
        self.temps[self.next_temp - 1]
    }

    pub fn is_temp(&self, l: u32) -> bool {
        self.temps.contains(&l)
    }

    pub fn next_instruction(&mut self) {
        self.next_temp = 0;
    }

    pub fn emit(&mut self, i: I<'static>) {
        self.body.push(i);
    }

    pub fn get(&mut self, l: u32) {
        self.body.push(I::LocalGet(l));
    }

    pub fn set(&mut self, l: u32) {
        self.body.push(I::LocalSet(l));
    }

    /// Pushes a splat constant.
    pub fn splat(&mut self, v: f32) {
        let b = u128::from(v.to_bits());
        self.body
            .push(I::V128Const((b | b << 32 | b << 64 | b << 96) as i128));
    }

    /// Pushes an integer splat constant.
    pub fn splat_i(&mut self, v: u32) {
        let b = u128::from(v);
        self.body
            .push(I::V128Const((b | b << 32 | b << 64 | b << 96) as i128));
    }
}

/// `a op b` into a temporary.
pub(super) fn bin(g: &mut Gen, a: u32, b: u32, op: I<'static>) -> u32 {
    let t = g.temp();
    g.get(a);
    g.get(b);
    g.emit(op);
    g.set(t);
    t
}

pub(super) fn un(g: &mut Gen, a: u32, op: I<'static>) -> u32 {
    let t = g.temp();
    g.get(a);
    g.emit(op);
    g.set(t);
    t
}

pub(super) fn konst(g: &mut Gen, v: f32) -> u32 {
    let t = g.temp();
    g.splat(v);
    g.set(t);
    t
}

/// `mask ? a : b`.
pub(super) fn select(g: &mut Gen, mask: u32, a: u32, b: u32) -> u32 {
    let t = g.temp();
    g.get(a);
    g.get(b);
    g.get(mask);
    g.emit(I::V128Bitselect);
    g.set(t);
    t
}

/// [`hoist_asm::semantics::max`]: `b > a ? b : a`, `b` when `a` is NaN.
pub(super) fn max(g: &mut Gen, a: u32, b: u32) -> u32 {
    let gt = bin(g, b, a, I::F32x4Gt);
    let nan = bin(g, a, a, I::F32x4Ne);
    let m = bin(g, gt, nan, I::V128Or);
    select(g, m, b, a)
}

/// [`hoist_asm::semantics::min`]: `b < a ? b : a`, `b` when `a` is NaN.
pub(super) fn min(g: &mut Gen, a: u32, b: u32) -> u32 {
    let lt = bin(g, b, a, I::F32x4Lt);
    let nan = bin(g, a, a, I::F32x4Ne);
    let m = bin(g, lt, nan, I::V128Or);
    select(g, m, b, a)
}

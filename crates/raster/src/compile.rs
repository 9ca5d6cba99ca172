//! Compiles an IR [`Program`] once into a flat [`Kernel`] for the batched executor.
//!
//! Every register component becomes one *row* of a register file (a row holds that
//! component for all [`LANES`] invocations of a batch). Compilation resolves everything that
//! does not change per invocation:
//! - swizzles disappear: a source is four row numbers, one per lane-component;
//! - a constant component (with its negate/abs modifiers folded in) becomes a row that is
//!   broadcast once per draw, so arithmetic never distinguishes uniform from varying data;
//! - modifiers on varying registers and relative addressing become *pre-steps* that fill
//!   scratch rows before the instruction runs;
//! - D3D9 matrix macros keep one instruction with one source per matrix row;
//! - flow control is matched up front (`if`/`else`/`endif`, loops, labels), so the
//!   executor never searches the program, and a malformed structure is an error here.
//!
//! The executor ([`crate::exec`]) then interprets the flat list over whole batches.

use crate::error::RenderError;
use hoist_asm::ir::{ExtSel, RegFile, TexTarget};
use hoist_asm::ops::Cond;
use hoist_asm::{Dialect, Op, Program, Reg, Stage};
use std::collections::HashMap;

/// Invocations per batch: a 16×8 tile of fragments (32 quads) or 128 vertices.
pub const LANES: usize = 64;
/// One register component for every lane of a batch.
pub type Row = [f32; LANES];
/// Index of a row in a machine's register file.
pub type R = u32;

/// Hard ceiling on register-file rows per kernel (bounds memory for hostile indices).
pub const MAX_ROWS: usize = 1 << 14;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TexKind {
    Tex,
    /// Bias in w.
    Txb,
    /// Divide by w.
    Txp,
    /// Explicit LOD in w.
    Lod,
    /// Explicit gradients in sources 1 and 2.
    Grad,
}

/// Condition of a flow-control instruction.
#[derive(Clone, Copy, Debug)]
pub enum FlowCond {
    /// Uniform `b#` (negated when the flag is set).
    Bool(u16, bool),
    /// Per lane: the predicate row is non-zero (negated when the flag is set).
    Pred(R, bool),
    /// Per lane: `a <cond> b`.
    Cmp(Cond, R, R),
}

#[derive(Clone, Copy, Debug)]
pub enum KOp {
    Mov,
    Add,
    Sub,
    Mul,
    Mad,
    Abs,
    Flr,
    Frc,
    Max,
    Min,
    Sge,
    Slt,
    Lrp,
    CmpLt,
    CmpGe,
    Cnd,
    Sgn,
    /// Write to an address register, rounding down (ARL, vs_1_1 `mov a0`).
    AddrFloor,
    /// `mova`: round to nearest.
    AddrRound,
    Rcp,
    Rsq,
    Ex2,
    Lg2,
    Pow,
    Sin,
    Cos,
    Dp3,
    Dp4,
    Dph,
    Dp2add,
    Xpd,
    Dst,
    Lit,
    ExpPartial,
    LogPartial,
    /// x = cos, y = sin.
    SinCos,
    Nrm,
    /// `cols` lanes of source 0 dotted with sources 1.. (one per matrix row).
    Matrix(u8),
    Tex(TexKind, u8, TexTarget),
    /// Discard lanes where any of the tested lane-components of source 0 is negative.
    Kill(u8),
    Dsx,
    Dsy,
    Setp(Cond),
    If(FlowCond),
    Else,
    Endif,
    /// `loop aL, i#`.
    Loop(u16),
    Endloop,
    /// `rep i#`.
    Rep(u16),
    Endrep,
    Break,
    Breakc(FlowCond),
    Call(u16),
    Callnz(u16, FlowCond),
    Label,
    Ret,
    Nop,
}

/// Where a gather reads from.
#[derive(Clone, Copy, Debug)]
pub enum GatherFrom {
    /// The constant table of the draw.
    Consts,
    /// A register file laid out from this row, four rows per register.
    Rows(R),
}

/// Work done before an instruction: fill four scratch rows.
#[derive(Clone, Debug)]
pub enum Pre {
    /// Copy `from` (already swizzled) applying negate/abs.
    Modify {
        from: [R; 4],
        to: R,
        neg: bool,
        abs: bool,
    },
    /// Relative read: register `base + addr[lane]`; outside `lo..hi` reads (0,0,0,0).
    Gather {
        from: GatherFrom,
        base: i32,
        addr: R,
        lo: i32,
        hi: i32,
        swizzle: [u8; 4],
        neg: bool,
        abs: bool,
        to: R,
    },
}

#[derive(Clone, Debug)]
pub struct KInst {
    pub op: KOp,
    pub sat: bool,
    /// Destination components written.
    pub mask: u8,
    /// First row of the destination register.
    pub dst: R,
    /// Sources, one row per lane-component.
    pub src: Vec<[R; 4]>,
    pub pre: Vec<Pre>,
    /// D3D9 predication: predicate rows per destination component, and the negation.
    pub pred: Option<([R; 4], bool)>,
    /// Matching instruction for flow control (else/endif/endloop/label end).
    pub jump: u32,
    /// Second jump target (the `endif` of an `if` with an `else`).
    pub jump2: u32,
    /// Instruction slots this instruction costs in its profile.
    pub slots: u32,
    /// Bit `4·i + c`: lane-component `c` of source `i` is a broadcast constant row, so
    /// arithmetic may read its first lane as a scalar (same value, same rounding).
    pub uniform: u16,
}

/// How a constant row is filled when a draw binds its parameters.
#[derive(Clone, Copy, Debug)]
pub struct ConstFill {
    pub row: R,
    /// `Some((slot, comp))`, or `None` for the immediate.
    pub slot: Option<(u16, u8)>,
    pub imm: f32,
    pub neg: bool,
    pub abs: bool,
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub stage: Stage,
    pub dialect: Dialect,
    pub rows: usize,
    pub insts: Vec<KInst>,
    pub const_fills: Vec<ConstFill>,
    /// Size of the constant table the kernel may read (covers relative ranges).
    pub const_len: usize,
    /// Rows reset to zero before each batch (temps, outputs, address, loop, predicate).
    pub reset: Vec<(R, u32)>,
    /// Input registers and their first row.
    pub inputs: Vec<(Reg, R)>,
    /// Output registers and their first row.
    pub outputs: Vec<(Reg, R)>,
    pub has_flow: bool,
    pub has_kill: bool,
    pub has_derivs: bool,
    pub insts_per_invocation: u64,
    pub slots_per_invocation: u64,
    /// Texture units sampled, with their targets.
    pub samplers: Vec<(u8, TexTarget)>,
    /// Index of the first label (end of the main program), or `insts.len()`.
    pub main_end: usize,
    /// Label number -> instruction index of its `label`.
    pub labels: HashMap<u16, usize>,
    /// Row of the loop counter `aL`, when the program uses it.
    pub loop_row: Option<R>,
    /// Rows some instruction reads (inputs never read need not be interpolated).
    pub reads: Vec<bool>,
}

impl Kernel {
    pub fn input_row(&self, reg: Reg) -> Option<R> {
        self.inputs.iter().find(|(r, _)| *r == reg).map(|(_, b)| *b)
    }

    pub fn output_row(&self, reg: Reg) -> Option<R> {
        self.outputs
            .iter()
            .find(|(r, _)| *r == reg)
            .map(|(_, b)| *b)
    }
}

/// (slot and component or immediate, immediate bits, negate, abs).
type ConstKey = (Option<(u16, u8)>, u32, bool, bool);

struct Builder {
    file_base: HashMap<RegFile, (R, u32)>,
    next: R,
    const_rows: HashMap<ConstKey, R>,
    fills: Vec<ConstFill>,
    scratch: R,
}

const SCRATCH_REGS: u32 = 8;

fn err(msg: impl Into<String>) -> RenderError {
    RenderError::Program(msg.into())
}

impl Builder {
    fn file_row(&self, reg: Reg) -> Result<R, RenderError> {
        let (base, n) = self
            .file_base
            .get(&reg.file)
            .copied()
            .ok_or_else(|| err(format!("register {:?} has no storage", reg)))?;
        if u32::from(reg.index) >= n {
            return Err(err(format!("register {:?} out of range", reg)));
        }
        Ok(base + 4 * u32::from(reg.index))
    }

    fn const_row(&mut self, slot: Option<(u16, u8)>, imm: f32, neg: bool, abs: bool) -> R {
        let key = (slot, imm.to_bits(), neg, abs);
        if let Some(r) = self.const_rows.get(&key) {
            return *r;
        }
        let row = self.next;
        self.next += 1;
        self.fills.push(ConstFill {
            row,
            slot,
            imm,
            neg,
            abs,
        });
        self.const_rows.insert(key, row);
        row
    }

    /// Resolves a source to rows; `k` picks the scratch register used for modifiers.
    fn source(
        &mut self,
        s: &hoist_asm::Src,
        k: u32,
        row_offset: u16,
        pre: &mut Vec<Pre>,
    ) -> Result<[R; 4], RenderError> {
        let sw = s.swizzle.comps();
        let to = self.scratch + 4 * k;
        if k >= SCRATCH_REGS {
            return Err(err("too many sources"));
        }
        if let Some(rel) = &s.rel {
            let addr = self.file_row(rel.reg)? + u32::from(rel.comp & 3);
            let from = match s.reg.file {
                RegFile::Const => GatherFrom::Consts,
                f => {
                    let (b, _) = self
                        .file_base
                        .get(&f)
                        .copied()
                        .ok_or_else(|| err("relative register file has no storage"))?;
                    GatherFrom::Rows(b)
                }
            };
            let (lo, hi) = match from {
                GatherFrom::Consts => (i32::from(rel.lo), i32::from(rel.hi)),
                GatherFrom::Rows(_) => {
                    let n = self.file_base[&s.reg.file].1 as i32;
                    (i32::from(rel.lo).min(n), i32::from(rel.hi).min(n))
                }
            };
            pre.push(Pre::Gather {
                from,
                base: i32::from(s.reg.index) + i32::from(row_offset) + i32::from(rel.offset),
                addr,
                lo,
                hi,
                swizzle: sw,
                neg: s.negate,
                abs: s.abs,
                to,
            });
            return Ok([to, to + 1, to + 2, to + 3]);
        }
        let reg = Reg::new(s.reg.file, s.reg.index.saturating_add(row_offset));
        if reg.file == RegFile::Const {
            let mut rows = [0; 4];
            for (c, r) in rows.iter_mut().enumerate() {
                *r = self.const_row(Some((reg.index, sw[c])), 0.0, s.negate, s.abs);
            }
            return Ok(rows);
        }
        let base = self.file_row(reg)?;
        let rows = sw.map(|c| base + u32::from(c));
        if s.negate || s.abs {
            pre.push(Pre::Modify {
                from: rows,
                to,
                neg: s.negate,
                abs: s.abs,
            });
            return Ok([to, to + 1, to + 2, to + 3]);
        }
        Ok(rows)
    }
}

fn file_size(p: &Program, file: RegFile) -> u32 {
    let mut n: u32 = match file {
        RegFile::Temp => u32::from(p.num_temps),
        RegFile::Address => u32::from(p.num_addrs),
        _ => 0,
    };
    let mut see = |r: Reg| {
        if r.file == file {
            n = n.max(u32::from(r.index) + 1);
        }
    };
    for d in &p.io {
        see(d.reg);
    }
    for i in &p.insts {
        if let Some(d) = &i.dst {
            see(d.reg);
            if let Some(rel) = &d.rel {
                see(rel.reg);
            }
        }
        for (k, s) in i.src.iter().enumerate() {
            let rows = i.src_rows(k);
            if s.reg.file != RegFile::Const {
                if s.rel.is_some() {
                    see(s.reg);
                } else {
                    for r in 0..u16::from(rows) {
                        see(Reg::new(s.reg.file, s.reg.index.saturating_add(r)));
                    }
                }
            }
            if let Some(rel) = &s.rel {
                see(rel.reg);
            }
        }
        if let Some(_p) = &i.pred {
            see(Reg::new(RegFile::Predicate, 0));
        }
    }
    n
}

fn flow_cond(b: &mut Builder, s: &hoist_asm::Src) -> Result<FlowCond, RenderError> {
    match s.reg.file {
        RegFile::ConstBool => Ok(FlowCond::Bool(s.reg.index, s.negate)),
        RegFile::Predicate => {
            let base = b.file_row(s.reg)?;
            Ok(FlowCond::Pred(base + u32::from(s.swizzle.get(0)), s.negate))
        }
        f => Err(err(format!("{f:?} cannot be a flow-control condition"))),
    }
}

/// Compiles a program. Errors describe programs the executor cannot run (malformed flow
/// control, registers without storage, absurd register counts).
pub fn compile(p: &Program) -> Result<Kernel, RenderError> {
    let mut b = Builder {
        file_base: HashMap::new(),
        next: 0,
        const_rows: HashMap::new(),
        fills: Vec::new(),
        scratch: 0,
    };
    let reset = b.allocate_files(p)?;
    let mut flags = Flags::default();
    let mut insts = p
        .insts
        .iter()
        .map(|ins| b.instruction(p, ins, &mut flags))
        .collect::<Result<Vec<KInst>, RenderError>>()?;
    b.mark_uniform_sources(&mut insts);
    if b.next as usize > MAX_ROWS {
        return Err(err("program needs too many registers"));
    }
    let (labels, main_end) = match_flow(p, &mut insts)?;
    let mut const_len = p.consts.len();
    for i in &insts {
        for pr in &i.pre {
            if let Pre::Gather {
                from: GatherFrom::Consts,
                hi,
                ..
            } = pr
            {
                const_len = const_len.max(*hi as usize);
            }
        }
    }
    let (inputs, outputs) = b.io_rows();
    let reads = b.rows_read(&insts);
    let static_insts = p
        .insts
        .iter()
        .filter(|i| !matches!(i.op, Op::Label))
        .count() as u64;
    let static_slots: u64 = insts.iter().map(|i| u64::from(i.slots)).sum();
    Ok(Kernel {
        stage: p.stage(),
        dialect: p.dialect(),
        rows: b.next as usize,
        insts,
        const_fills: b.fills,
        const_len,
        reset,
        inputs,
        outputs,
        has_flow: flags.has_flow,
        has_kill: flags.has_kill,
        has_derivs: flags.has_derivs,
        insts_per_invocation: static_insts,
        slots_per_invocation: static_slots,
        samplers: flags.samplers,
        main_end,
        labels,
        loop_row: b.file_base.get(&RegFile::Loop).map(|x| x.0),
        reads,
    })
}

/// What compiling the instructions found out about the whole program.
#[derive(Default)]
struct Flags {
    has_kill: bool,
    has_derivs: bool,
    has_flow: bool,
    samplers: Vec<(u8, TexTarget)>,
}

/// One instruction's sources being compiled: pre-steps and scratch registers handed out.
#[derive(Default)]
struct Operands {
    pre: Vec<Pre>,
    k: u32,
}

/// The kernel op of an arithmetic instruction (narrowing `mask` where the op writes fewer
/// components), or `None` for texture, kill, derivative and flow-control instructions.
fn arithmetic_op(p: &Program, ins: &hoist_asm::Inst, mask: &mut u8) -> Option<KOp> {
    let to_address = ins
        .dst
        .as_ref()
        .is_some_and(|d| d.reg.file == RegFile::Address);
    let d3d9 = p.dialect() == Dialect::D3d9;
    Some(match ins.op {
        Op::Mov if to_address => KOp::AddrFloor,
        Op::Mov | Op::Swz => KOp::Mov,
        Op::Add => KOp::Add,
        Op::Sub => KOp::Sub,
        Op::Mul => KOp::Mul,
        Op::Mad => KOp::Mad,
        Op::Abs => KOp::Abs,
        Op::Flr => KOp::Flr,
        Op::Frc => KOp::Frc,
        Op::Max => KOp::Max,
        Op::Min => KOp::Min,
        Op::Sge => KOp::Sge,
        Op::Slt => KOp::Slt,
        Op::Lrp => KOp::Lrp,
        Op::Cmp => KOp::CmpLt,
        Op::CmpGe => KOp::CmpGe,
        Op::Cnd => KOp::Cnd,
        Op::Sgn => KOp::Sgn,
        Op::Arl => {
            *mask &= 1;
            KOp::AddrFloor
        }
        Op::Mova => KOp::AddrRound,
        Op::Rcp => KOp::Rcp,
        Op::Rsq => KOp::Rsq,
        Op::Ex2 => KOp::Ex2,
        Op::Lg2 => KOp::Lg2,
        Op::Pow => KOp::Pow,
        Op::Sin => KOp::Sin,
        Op::Cos => KOp::Cos,
        Op::Dp3 => KOp::Dp3,
        Op::Dp4 => KOp::Dp4,
        Op::Dph => KOp::Dph,
        Op::Dp2add => KOp::Dp2add,
        Op::Xpd => {
            *mask &= 7;
            KOp::Xpd
        }
        Op::Dst => KOp::Dst,
        Op::Lit => KOp::Lit,
        Op::Exp if d3d9 && p.profile != hoist_asm::Profile::Vs1_1 => KOp::Ex2,
        Op::Exp => KOp::ExpPartial,
        Op::Log if d3d9 => KOp::Lg2,
        Op::Log => KOp::LogPartial,
        Op::Scs | Op::Sincos => {
            *mask &= 3;
            KOp::SinCos
        }
        Op::Nrm => KOp::Nrm,
        Op::M4x4 | Op::M4x3 | Op::M3x4 | Op::M3x3 | Op::M3x2 => {
            let hoist_asm::ops::Shape::Matrix { cols, rows } = ins.info().shape else {
                unreachable!()
            };
            *mask &= (1u8 << rows) - 1;
            KOp::Matrix(cols)
        }
        _ => return None,
    })
}

impl Builder {
    /// Lays out every register file the program uses; returns the rows reset per batch.
    fn allocate_files(&mut self, p: &Program) -> Result<Vec<(R, u32)>, RenderError> {
        let files = [
            RegFile::Temp,
            RegFile::Input,
            RegFile::TexCoord,
            RegFile::Misc,
            RegFile::Address,
            RegFile::Loop,
            RegFile::Predicate,
            RegFile::RastOut,
            RegFile::AttrOut,
            RegFile::TexCrdOut,
            RegFile::Output,
            RegFile::ColorOut,
            RegFile::DepthOut,
        ];
        let mut reset = Vec::new();
        for f in files {
            let mut n = file_size(p, f);
            if f == RegFile::Loop && n > 0 {
                n = 1;
            }
            if n == 0 {
                continue;
            }
            if (self.next as usize) + 4 * n as usize > MAX_ROWS {
                return Err(err(format!("program needs too many {f:?} registers ({n})")));
            }
            self.file_base.insert(f, (self.next, n));
            if !f.is_input() {
                reset.push((self.next, 4 * n));
            }
            self.next += 4 * n;
        }
        self.scratch = self.next;
        self.next += 4 * SCRATCH_REGS;
        Ok(reset)
    }

    /// Resolves the next source of an instruction to rows.
    fn operand(
        &mut self,
        ops: &mut Operands,
        s: &hoist_asm::Src,
        row_offset: u16,
    ) -> Result<[R; 4], RenderError> {
        let r = self.source(s, ops.k, row_offset, &mut ops.pre);
        ops.k += 1;
        r
    }

    fn instruction(
        &mut self,
        p: &Program,
        ins: &hoist_asm::Inst,
        flags: &mut Flags,
    ) -> Result<KInst, RenderError> {
        let mut ops = Operands::default();
        let mut mask = ins.dst.as_ref().map_or(0, |d| d.mask.0 & 15);
        let op = match arithmetic_op(p, ins, &mut mask) {
            Some(op) => op,
            None => self.special_op(p, ins, &mut ops, flags)?,
        };
        if ins.op.is_flow() || ins.pred.is_some() {
            flags.has_flow = true;
        }
        let mut src = Vec::new();
        if ins.op == Op::Swz {
            src.push(self.swz_rows(ins, &mut ops.pre)?);
        } else if !ins.op.is_flow()
            && !matches!(ins.op, Op::Nop)
            && !matches!(op, KOp::If(_) | KOp::Breakc(_))
        {
            self.data_sources(p, ins, op, &mut ops, &mut src)?;
        }
        let (dst, dst_rel) = match &ins.dst {
            Some(d) => (self.file_row(d.reg)?, d.rel.is_some()),
            None => (0, false),
        };
        if dst_rel {
            return Err(err("relative destination addressing is not supported"));
        }
        let pred = match &ins.pred {
            Some(pr) => {
                let base = self.file_row(Reg::new(RegFile::Predicate, 0))?;
                Some((pr.swizzle.comps().map(|c| base + u32::from(c)), pr.negate))
            }
            None => None,
        };
        Ok(KInst {
            op,
            sat: ins.sat,
            mask,
            dst,
            src,
            pre: ops.pre,
            pred,
            jump: 0,
            jump2: 0,
            slots: p.profile.slots(ins.op).unwrap_or(1) as u32,
            uniform: 0,
        })
    }

    /// Texture, kill, derivative and flow-control instructions.
    fn special_op(
        &mut self,
        p: &Program,
        ins: &hoist_asm::Inst,
        ops: &mut Operands,
        flags: &mut Flags,
    ) -> Result<KOp, RenderError> {
        let mut cmp = |b: &mut Builder, c: Cond| -> Result<FlowCond, RenderError> {
            let a = b.operand(ops, &ins.src[0], 0)?;
            let bb = b.operand(ops, &ins.src[1], 0)?;
            Ok(FlowCond::Cmp(c, a[0], bb[0]))
        };
        Ok(match ins.op {
            Op::Tex | Op::Txb | Op::Txp | Op::Texldl | Op::Texldd => {
                let t = ins
                    .tex
                    .ok_or_else(|| err("texture instruction without a unit"))?;
                if !flags.samplers.contains(&(t.unit, t.target)) {
                    flags.samplers.push((t.unit, t.target));
                }
                let kind = match ins.op {
                    Op::Tex => TexKind::Tex,
                    Op::Txb => TexKind::Txb,
                    Op::Txp => TexKind::Txp,
                    Op::Texldl => TexKind::Lod,
                    _ => TexKind::Grad,
                };
                if p.stage() == Stage::Fragment
                    && matches!(kind, TexKind::Tex | TexKind::Txb | TexKind::Txp)
                {
                    flags.has_derivs = true;
                }
                KOp::Tex(kind, t.unit, t.target)
            }
            Op::Kil | Op::Texkil => {
                flags.has_kill = true;
                KOp::Kill(if ins.op == Op::Kil { 15 } else { 7 })
            }
            Op::Dsx | Op::Dsy => {
                flags.has_derivs = true;
                if ins.op == Op::Dsx {
                    KOp::Dsx
                } else {
                    KOp::Dsy
                }
            }
            Op::Setp(c) => KOp::Setp(c),
            Op::Nop => KOp::Nop,
            Op::If => KOp::If(flow_cond(self, &ins.src[0])?),
            Op::Ifc(c) => KOp::If(cmp(self, c)?),
            Op::Else => KOp::Else,
            Op::Endif => KOp::Endif,
            Op::Loop => KOp::Loop(ins.src.get(1).map_or(0, |s| s.reg.index)),
            Op::Endloop => KOp::Endloop,
            Op::Rep => KOp::Rep(ins.src.first().map_or(0, |s| s.reg.index)),
            Op::Endrep => KOp::Endrep,
            Op::Break => KOp::Break,
            Op::Breakc(c) => KOp::Breakc(cmp(self, c)?),
            Op::Breakp => KOp::Breakc(flow_cond(self, &ins.src[0])?),
            Op::Call => KOp::Call(ins.src.first().map_or(0, |s| s.reg.index)),
            Op::Callnz => KOp::Callnz(
                ins.src.first().map_or(0, |s| s.reg.index),
                flow_cond(
                    self,
                    ins.src
                        .get(1)
                        .ok_or_else(|| err("callnz without condition"))?,
                )?,
            ),
            Op::Label => KOp::Label,
            Op::Ret => KOp::Ret,
            op => return Err(err(format!("{op:?} has no kernel operation"))),
        })
    }

    /// `SWZ`'s four rows: the selected source components, constants 0 and ±1, each negated
    /// lane through its own scratch row.
    fn swz_rows(
        &mut self,
        ins: &hoist_asm::Inst,
        pre: &mut Vec<Pre>,
    ) -> Result<[R; 4], RenderError> {
        let b = self;
        let e = ins
            .ext_swizzle
            .ok_or_else(|| err("SWZ without selectors"))?;
        let s = &ins.src[0];
        let mut rows = [0; 4];
        let base = if s.reg.file == RegFile::Const || s.rel.is_some() {
            None
        } else {
            Some(b.file_row(s.reg)?)
        };
        let plain = {
            let mut t = s.clone();
            t.swizzle = hoist_asm::Swizzle::IDENTITY;
            t.negate = false;
            if s.rel.is_some() {
                Some(b.source(&t, 0, 0, pre)?)
            } else {
                None
            }
        };
        for c in 0..4 {
            // The operand's own negation negates its value, not the constant selectors.
            let neg = e.neg[c] ^ (s.negate && matches!(e.sel[c], ExtSel::Comp(_)));
            let scratch = b.scratch + 4 * (1 + c as u32);
            let negated = |r: R, pre: &mut Vec<Pre>| {
                pre.push(Pre::Modify {
                    from: [r; 4],
                    to: scratch,
                    neg: true,
                    abs: false,
                });
                scratch
            };
            rows[c] = match e.sel[c] {
                ExtSel::Zero => b.const_row(None, 0.0, false, false),
                ExtSel::One => b.const_row(None, if neg { -1.0 } else { 1.0 }, false, false),
                ExtSel::Comp(k) => {
                    // The operand's own swizzle applies first (the IR allows one and a
                    // negation; the ARB text writes neither).
                    let k = s.swizzle.get(k);
                    if let Some(pl) = plain {
                        let r = pl[k as usize];
                        if neg { negated(r, pre) } else { r }
                    } else if let Some(base) = base {
                        let r = base + u32::from(k);
                        if neg { negated(r, pre) } else { r }
                    } else {
                        b.const_row(Some((s.reg.index, k)), 0.0, neg, false)
                    }
                }
            };
        }
        Ok(rows)
    }

    /// The data sources of an ordinary instruction (one per matrix row for matrix macros;
    /// samplers are not data).
    fn data_sources(
        &mut self,
        p: &Program,
        ins: &hoist_asm::Inst,
        op: KOp,
        ops: &mut Operands,
        src: &mut Vec<[R; 4]>,
    ) -> Result<(), RenderError> {
        let n = hoist_asm::validate::src_count(ins.op, p.profile);
        for (i, s) in ins.src.iter().enumerate().take(n) {
            if i == 1 && matches!(op, KOp::Matrix(_)) {
                let rows = ins.op.matrix_rows().unwrap_or(1);
                for r in 0..u16::from(rows) {
                    src.push(self.operand(ops, s, r)?);
                }
            } else if matches!(op, KOp::Tex(..))
                && i > 0
                && !matches!(op, KOp::Tex(TexKind::Grad, ..))
            {
                // D3D9 texld's sampler operand is not data.
            } else if s.reg.file != RegFile::Sampler {
                src.push(self.operand(ops, s, 0)?);
            }
        }
        Ok(())
    }

    /// Marks sources read from broadcast constant rows, which arithmetic may read as scalars.
    fn mark_uniform_sources(&self, insts: &mut [KInst]) {
        let const_rows: std::collections::HashSet<R> = self.fills.iter().map(|f| f.row).collect();
        for i in insts {
            for (k, rows) in i.src.iter().enumerate().take(3) {
                for (c, r) in rows.iter().enumerate() {
                    if const_rows.contains(r) {
                        i.uniform |= 1 << (4 * k + c);
                    }
                }
            }
        }
    }

    /// Input and output registers with their first rows, sorted.
    #[allow(clippy::type_complexity)]
    fn io_rows(&self) -> (Vec<(Reg, R)>, Vec<(Reg, R)>) {
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        for (&f, &(base, n)) in &self.file_base {
            for i in 0..n {
                let reg = Reg::new(f, i as u16);
                if f.is_input() {
                    inputs.push((reg, base + 4 * i));
                } else if f.is_output() {
                    outputs.push((reg, base + 4 * i));
                }
            }
        }
        hoist_asm::sort::ord(&mut inputs);
        hoist_asm::sort::ord(&mut outputs);
        (inputs, outputs)
    }

    /// Rows some instruction reads (inputs never read need not be interpolated).
    fn rows_read(&self, insts: &[KInst]) -> Vec<bool> {
        let mut reads = vec![false; self.next as usize];
        let mut mark = |r: R| {
            if let Some(x) = reads.get_mut(r as usize) {
                *x = true;
            }
        };
        for i in insts {
            for s4 in &i.src {
                s4.iter().for_each(|&r| mark(r));
            }
            if let Some((rows, _)) = &i.pred {
                rows.iter().for_each(|&r| mark(r));
            }
            match i.op {
                KOp::If(FlowCond::Pred(r, _)) | KOp::Breakc(FlowCond::Pred(r, _)) => mark(r),
                KOp::If(FlowCond::Cmp(_, a, c)) | KOp::Breakc(FlowCond::Cmp(_, a, c)) => {
                    mark(a);
                    mark(c);
                }
                KOp::Callnz(_, FlowCond::Pred(r, _)) => mark(r),
                _ => {}
            }
            for pr in &i.pre {
                match pr {
                    Pre::Modify { from, .. } => from.iter().for_each(|&r| mark(r)),
                    Pre::Gather { from, addr, .. } => {
                        mark(*addr);
                        if let GatherFrom::Rows(base) = from {
                            let n = self
                                .file_base
                                .values()
                                .find(|(fb, _)| fb == base)
                                .map_or(0, |(_, n)| *n);
                            for r in *base..*base + 4 * n {
                                mark(r);
                            }
                        }
                    }
                }
            }
        }
        if let Some(r) = self.file_base.get(&RegFile::Loop) {
            mark(r.0);
        }
        reads
    }
}

/// Matches flow control (`if`/`else`/`endif`, loops, labels) and sets the jump targets;
/// returns the label table and the end of the main program. Subroutine bodies end at the
/// next label.
fn match_flow(
    p: &Program,
    insts: &mut [KInst],
) -> Result<(HashMap<u16, usize>, usize), RenderError> {
    let mut stack: Vec<usize> = Vec::new();
    let mut labels = HashMap::new();
    let mut main_end = insts.len();
    for i in 0..insts.len() {
        match insts[i].op {
            KOp::If(_) | KOp::Loop(_) | KOp::Rep(_) => stack.push(i),
            KOp::Else => {
                let &o = stack.last().ok_or_else(|| err("else without if"))?;
                if !matches!(insts[o].op, KOp::If(_)) || insts[o].jump != 0 {
                    return Err(err("else without if"));
                }
                insts[o].jump = i as u32;
            }
            KOp::Endif => {
                let o = stack.pop().ok_or_else(|| err("endif without if"))?;
                if !matches!(insts[o].op, KOp::If(_)) {
                    return Err(err("endif closes a loop"));
                }
                if insts[o].jump == 0 {
                    insts[o].jump = i as u32;
                } else {
                    let e = insts[o].jump as usize;
                    insts[e].jump = i as u32;
                }
                insts[o].jump2 = i as u32;
            }
            KOp::Endloop | KOp::Endrep => {
                let o = stack.pop().ok_or_else(|| err("end of loop without loop"))?;
                let ok = matches!(
                    (insts[o].op, insts[i].op),
                    (KOp::Loop(_), KOp::Endloop) | (KOp::Rep(_), KOp::Endrep)
                );
                if !ok {
                    return Err(err("mismatched loop nesting"));
                }
                insts[o].jump = i as u32;
            }
            KOp::Label => {
                if !stack.is_empty() {
                    return Err(err("label inside flow control"));
                }
                let id = p.insts[i].src.first().map_or(0, |s| s.reg.index);
                main_end = main_end.min(i);
                labels.insert(id, i);
            }
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(err("unterminated flow control"));
    }
    // Subroutine bodies end at the next label.
    let label_pcs: Vec<usize> = {
        let mut v: Vec<usize> = labels.values().copied().collect();
        hoist_asm::sort::ord(&mut v);
        v
    };
    for (n, &pc) in label_pcs.iter().enumerate() {
        insts[pc].jump = label_pcs.get(n + 1).copied().unwrap_or(insts.len()) as u32;
    }
    for i in insts.iter() {
        if let KOp::Call(l) | KOp::Callnz(l, _) = i.op
            && !labels.contains_key(&l)
        {
            return Err(err(format!("call to undefined label l{l}")));
        }
    }
    Ok((labels, main_end))
}

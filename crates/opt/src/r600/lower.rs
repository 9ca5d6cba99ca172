//! IR → R600-like ops on virtual registers.
//!
//! Each ARB/D3D9 instruction becomes the ALU ops and fetches an R600 driver emits for it
//! (the mapping follows the R600/R700 ISA and Mesa's r600 TGSI translation): one op per
//! written lane for componentwise ops (MAD is MULADD, SUB an ADD with a negated operand,
//! ABS a MOV with the absolute-value modifier, SLT a SETGT with swapped operands); DP2/DP3/
//! DP4/DPH and the matrix macros as DOT4 over slots x, y, z and w; the scalar functions as
//! trans-only ops (one MOV per further lane reading PS); SIN/COS/SCS after the range
//! reduction the hardware needs; POW as LOG, MUL, EXP; LRP as ADD then MULADD; texture reads
//! as fetches from a GPR (TXP divides by w first, cube maps go through CUBE). Source
//! negation, absolute value, swizzles and `_sat` are free modifiers.
//!
//! Constant-file literals become instruction literals, or inline constants when they are
//! 0, ±1 or ±0.5. A backward liveness pass then drops ops and fetch components nobody reads,
//! as the driver's compiler would (skipped when the program branches or predicates).

use super::chip::Chip;
use hoist_asm::ir::{ConstBinding, Dst, Inst, Reg, RegFile, Src as IrSrc, WriteMask};
use hoist_asm::ir::{TexTarget, sampler_index};
use hoist_asm::{Dialect, Op, Profile, Program, Stage};
use smallvec::{SmallVec, smallvec};
use std::collections::{BTreeMap, BTreeSet};

/// A virtual register (one per IR register, plus temporaries of the lowering).
pub type VReg = u32;

/// Registers that are not GPRs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Special {
    /// The address register (ARB `ADDRESS`, D3D9 `a0`).
    Address,
    /// The loop counter `aL`.
    Loop,
    /// The predicate (`p0`, and what `ifc`/`breakc` test).
    Predicate,
    /// Integer and boolean constants (`i#`, `b#`), and samplers or labels.
    Other(RegFile, u16),
}

/// The inline constants of the ALU (free: no literal, no port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inline {
    Zero,
    One,
    Half,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Gpr(VReg, u8),
    /// A constant-file element (`rel`: addressed through AR).
    Kcache {
        index: u16,
        chan: u8,
        rel: bool,
    },
    /// A 32-bit literal in the instruction stream.
    Literal(u32),
    Inline(Inline),
    Special(Special, u8),
}

/// A source with its free modifiers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Src {
    pub operand: Operand,
    pub neg: bool,
    pub abs: bool,
}

impl Src {
    pub fn gpr(v: VReg, chan: u8) -> Src {
        Src::of(Operand::Gpr(v, chan))
    }

    pub fn of(operand: Operand) -> Src {
        Src {
            operand,
            neg: false,
            abs: false,
        }
    }

    pub fn inline(k: Inline) -> Src {
        Src::of(Operand::Inline(k))
    }

    pub fn negated(mut self) -> Src {
        self.neg = !self.neg;
        self
    }

    pub fn literal(v: f32) -> Src {
        let (operand, neg) = constant(v);
        Src {
            operand,
            neg,
            abs: false,
        }
    }
}

/// Which slots an op may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Vector slot of its channel, or t.
    Any,
    /// Only the vector slot of its channel (KILL, MOVA, CUBE lanes).
    Vector,
    /// Only t (transcendentals).
    Trans,
    /// x, y, z and w together (DOT4, CUBE).
    Quad,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    None,
    Gpr(VReg),
    Special(Special),
}

/// One ALU op. A `Quad` op has two sources per lane (lane i: `src[2i]`, `src[2i+1]`) and
/// writes the lanes of `mask`; any other op writes `chan` of its destination.
#[derive(Clone, Debug, PartialEq)]
pub struct AluOp {
    pub opcode: &'static str,
    pub unit: Unit,
    pub dest: Dest,
    pub chan: u8,
    pub mask: u8,
    pub src: SmallVec<[Src; 8]>,
    pub clamp: bool,
    /// Index of the IR instruction it came from.
    pub inst: usize,
}

impl AluOp {
    /// The (register, channel) pairs it writes.
    pub fn writes(&self) -> SmallVec<[(VReg, u8); 4]> {
        match self.dest {
            Dest::Gpr(v) if self.unit == Unit::Quad => (0..4)
                .filter(|c| self.mask & 1 << c != 0)
                .map(|c| (v, c))
                .collect(),
            Dest::Gpr(v) => smallvec![(v, self.chan)],
            _ => SmallVec::new(),
        }
    }

    /// The (register, channel) pairs it reads.
    pub fn reads(&self) -> impl Iterator<Item = (VReg, u8)> + '_ {
        self.src.iter().filter_map(|s| match s.operand {
            Operand::Gpr(v, c) => Some((v, c)),
            _ => None,
        })
    }
}

/// One fetch-clause instruction: reads `chans` of `coord`, writes the lanes of `mask`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fetch {
    pub opcode: &'static str,
    pub dst: Option<VReg>,
    pub mask: u8,
    pub coord: VReg,
    /// Which channel of `coord` feeds each address lane (free swizzle).
    pub swizzle: [u8; 4],
    pub chans: u8,
    pub unit: u8,
    pub inst: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Alu(AluOp),
    Fetch(Fetch),
    /// A control-flow instruction (ends the clause).
    Flow(&'static str, usize),
}

/// A lowered program.
#[derive(Clone, Debug, Default)]
pub struct Lowered {
    pub nodes: Vec<Node>,
    /// Registers live on entry (inputs preloaded into GPRs) and on exit (outputs).
    pub inputs: Vec<VReg>,
    pub outputs: Vec<VReg>,
    pub vregs: u32,
    pub notes: Vec<String>,
    pub lower_bound: bool,
    pub stage: Option<Stage>,
}

/// An f32 as an inline constant with a negation, or a literal.
pub fn constant(v: f32) -> (Operand, bool) {
    let neg = v.is_sign_negative();
    match v.abs() {
        0.0 => (Operand::Inline(Inline::Zero), false),
        1.0 => (Operand::Inline(Inline::One), neg),
        0.5 => (Operand::Inline(Inline::Half), neg),
        _ => (Operand::Literal(v.to_bits()), false),
    }
}

struct Builder<'p> {
    p: &'p Program,
    chip: Chip,
    regs: BTreeMap<Reg, VReg>,
    out: Lowered,
    inst: usize,
    no_dce: bool,
    rel: bool,
}

/// Lowers a whole program.
pub fn lower(p: &Program, chip: Chip) -> Lowered {
    let mut b = Builder {
        p,
        chip,
        regs: BTreeMap::new(),
        out: Lowered {
            stage: Some(p.stage()),
            ..Lowered::default()
        },
        inst: 0,
        no_dce: false,
        rel: false,
    };
    for (i, inst) in p.insts.iter().enumerate() {
        b.inst = i;
        if inst.pred.is_some() {
            b.no_dce = true;
        }
        b.lower_inst(inst);
    }
    b.finish()
}

impl Builder<'_> {
    fn finish(mut self) -> Lowered {
        for (reg, v) in &self.regs {
            if reg.file.is_input() {
                self.out.inputs.push(*v);
            } else if reg.file.is_output() {
                self.out.outputs.push(*v);
            }
        }
        if self.no_dce {
            self.out.notes.push(
                "flow control or predication: every instruction is counted once (loops not \
                 unrolled, branches not weighted) and nothing is removed as dead"
                    .into(),
            );
            self.out.lower_bound = true;
        } else {
            dce(&mut self.out);
        }
        if self.rel {
            self.out.notes.push(
                "relative constant reads are counted as one constant-file read each; the AR \
                 load latency and kcache locking of the whole array are not modelled"
                    .into(),
            );
            self.out.lower_bound = true;
        }
        if self.p.stage() == Stage::Vertex && !self.out.inputs.is_empty() {
            self.out.notes.push(
                "vertex inputs are taken as already in GPRs (the fetch shader's vertex fetches \
                 are not counted)"
                    .into(),
            );
        }
        self.out
    }

    fn vreg(&mut self, reg: Reg) -> VReg {
        let next = self.out.vregs;
        let v = *self.regs.entry(reg).or_insert(next);
        if v == next {
            self.out.vregs += 1;
        }
        v
    }

    fn tmp(&mut self) -> VReg {
        self.out.vregs += 1;
        self.out.vregs - 1
    }

    fn special(file: RegFile, index: u16) -> Option<Special> {
        match file {
            RegFile::Address => Some(Special::Address),
            RegFile::Loop => Some(Special::Loop),
            RegFile::Predicate => Some(Special::Predicate),
            RegFile::ConstInt | RegFile::ConstBool | RegFile::Sampler | RegFile::Label => {
                Some(Special::Other(file, index))
            }
            _ => None,
        }
    }

    fn dest(&mut self, d: &Dst) -> Dest {
        match Self::special(d.reg.file, d.reg.index) {
            Some(s) => Dest::Special(s),
            None => Dest::Gpr(self.vreg(d.reg)),
        }
    }

    /// Lane `lane` of an IR source (after its swizzle).
    fn src(&mut self, s: &IrSrc, lane: u8) -> Src {
        let comp = s.swizzle.get(lane);
        let mut out = match s.reg.file {
            RegFile::Const => self.const_src(s, comp),
            f => match Self::special(f, s.reg.index) {
                Some(sp) => Src::of(Operand::Special(sp, comp)),
                None => Src::gpr(self.vreg(s.reg), comp),
            },
        };
        if s.abs {
            out.abs = true;
            out.neg = false;
        }
        if s.negate {
            out.neg = !out.neg;
        }
        out
    }

    fn const_src(&mut self, s: &IrSrc, comp: u8) -> Src {
        if s.rel.is_some() {
            self.rel = true;
            return Src::of(Operand::Kcache {
                index: s.reg.index,
                chan: comp,
                rel: true,
            });
        }
        match self.p.consts.get(s.reg.index as usize).map(|c| &c.binding) {
            Some(ConstBinding::Literal(l)) => Src::literal(l.value[comp as usize]),
            _ => Src::of(Operand::Kcache {
                index: s.reg.index,
                chan: comp,
                rel: false,
            }),
        }
    }

    fn push(&mut self, op: AluOp) {
        self.out.nodes.push(Node::Alu(op));
    }

    fn alu(
        &mut self,
        opcode: &'static str,
        unit: Unit,
        dest: Dest,
        chan: u8,
        src: &[Src],
        clamp: bool,
    ) {
        let inst = self.inst;
        self.push(AluOp {
            opcode,
            unit,
            dest,
            chan,
            mask: 0,
            src: src.iter().copied().collect(),
            clamp,
            inst,
        });
    }

    fn dot4(&mut self, dest: Dest, mask: u8, src: SmallVec<[Src; 8]>, clamp: bool) {
        let inst = self.inst;
        self.push(AluOp {
            opcode: "DOT4",
            unit: Unit::Quad,
            dest,
            chan: 0,
            mask,
            src,
            clamp,
            inst,
        });
    }

    fn lower_inst(&mut self, inst: &Inst) {
        use Op::*;
        match inst.op {
            Mov | Abs | Add | Sub | Mul | Mad | Max | Min | Flr | Frc | Sge | Slt | Cmp | CmpGe => {
                self.componentwise(inst)
            }
            Cnd | Sgn | Lrp => self.two_step(inst),
            Dp3 | Dp4 | Dph | Dp2add => self.dot(inst),
            M4x4 | M4x3 | M3x4 | M3x3 | M3x2 => self.matrix(inst),
            Rcp | Rsq | Ex2 | Lg2 => self.scalar(inst),
            Exp if self.p.dialect() == Dialect::D3d9 && self.p.profile != Profile::Vs1_1 => {
                self.scalar(inst)
            }
            Log if self.p.dialect() == Dialect::D3d9 => self.scalar(inst),
            Exp | Log => self.partial(inst),
            Sin | Cos | Scs | Sincos => self.trig(inst),
            Pow => self.pow(inst),
            Xpd => self.xpd(inst),
            Op::Dst | Lit => self.dst_lit(inst),
            Swz => self.swz(inst),
            Nrm => self.nrm(inst),
            Tex | Txb | Txp | Texldd | Texldl => self.texture(inst),
            Dsx | Dsy => self.gradient(inst),
            Kil | Texkil => self.kill(inst),
            Arl | Mova => self.mova(inst),
            Setp(c) => self.setp(inst, c),
            Nop => {}
            Ifc(c) | Breakc(c) => {
                self.pred_set(inst, c, Dest::Special(Special::Predicate), 0, false);
                self.flow(inst)
            }
            If | Else | Endif | Loop | Endloop | Rep | Endrep | Break | Breakp | Call | Callnz
            | Label | Ret => self.flow(inst),
        }
    }

    fn flow(&mut self, inst: &Inst) {
        self.no_dce = true;
        let name = inst.op.info().d3d.or(inst.op.info().arb).unwrap_or("flow");
        self.out.nodes.push(Node::Flow(name, self.inst));
    }

    fn lanes(inst: &Inst) -> Vec<u8> {
        inst.dst_lanes().iter().collect()
    }

    fn componentwise(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        for lane in Self::lanes(inst) {
            let s: Vec<Src> = (0..inst.src.len())
                .map(|i| self.src(&inst.src[i], lane))
                .collect();
            let (opcode, srcs): (&'static str, Vec<Src>) = match inst.op {
                Op::Mov => ("MOV", vec![s[0]]),
                Op::Abs => (
                    "MOV",
                    vec![Src {
                        abs: true,
                        neg: false,
                        ..s[0]
                    }],
                ),
                Op::Add => ("ADD", vec![s[0], s[1]]),
                Op::Sub => ("ADD", vec![s[0], s[1].negated()]),
                Op::Mul => ("MUL", vec![s[0], s[1]]),
                Op::Mad => ("MULADD", vec![s[0], s[1], s[2]]),
                Op::Max => ("MAX", vec![s[0], s[1]]),
                Op::Min => ("MIN", vec![s[0], s[1]]),
                Op::Flr => ("FLOOR", vec![s[0]]),
                Op::Frc => ("FRACT", vec![s[0]]),
                Op::Sge => ("SETGE", vec![s[0], s[1]]),
                Op::Slt => ("SETGT", vec![s[1], s[0]]),
                Op::Cmp => ("CNDGE", vec![s[0], s[2], s[1]]),
                _ => ("CNDGE", vec![s[0], s[1], s[2]]),
            };
            self.alu(opcode, Unit::Any, dest, lane, &srcs, inst.sat);
        }
    }

    /// CND (ADD, CNDGT), SGN (two SETGT, ADD) and LRP (ADD, MULADD).
    fn two_step(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        for lane in Self::lanes(inst) {
            let s: Vec<Src> = (0..inst.src.len())
                .map(|i| self.src(&inst.src[i], lane))
                .collect();
            let t = self.tmp();
            let tv = Dest::Gpr(t);
            match inst.op {
                Op::Cnd => {
                    let half = Src::inline(Inline::Half).negated();
                    self.alu("ADD", Unit::Any, tv, lane, &[s[0], half], false);
                    let c = [Src::gpr(t, lane), s[1], s[2]];
                    self.alu("CNDGT", Unit::Any, dest, lane, &c, inst.sat);
                }
                Op::Sgn => {
                    let zero = Src::inline(Inline::Zero);
                    let u = self.tmp();
                    self.alu("SETGT", Unit::Any, tv, lane, &[s[0], zero], false);
                    self.alu("SETGT", Unit::Any, Dest::Gpr(u), lane, &[zero, s[0]], false);
                    let c = [Src::gpr(t, lane), Src::gpr(u, lane).negated()];
                    self.alu("ADD", Unit::Any, dest, lane, &c, inst.sat);
                }
                _ => {
                    self.alu("ADD", Unit::Any, tv, lane, &[s[1], s[2].negated()], false);
                    let c = [s[0], Src::gpr(t, lane), s[2]];
                    self.alu("MULADD", Unit::Any, dest, lane, &c, inst.sat);
                }
            }
        }
    }

    fn dot(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let mut src: SmallVec<[Src; 8]> = SmallVec::new();
        for lane in 0..4u8 {
            let (a, b) = match (inst.op, lane) {
                (Op::Dp3, 3) => (Src::inline(Inline::Zero), Src::inline(Inline::Zero)),
                (Op::Dph, 3) => (Src::inline(Inline::One), self.src(&inst.src[1], 3)),
                (Op::Dp2add, 2) => (self.src(&inst.src[2], 0), Src::inline(Inline::One)),
                (Op::Dp2add, 3) => (Src::inline(Inline::Zero), Src::inline(Inline::Zero)),
                _ => (self.src(&inst.src[0], lane), self.src(&inst.src[1], lane)),
            };
            src.push(a);
            src.push(b);
        }
        self.dot4(dest, inst.dst_lanes().0, src, inst.sat);
    }

    /// `mAxB`: one DOT4 per row, writing that row's lane.
    fn matrix(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let cols = if matches!(inst.op, Op::M4x4 | Op::M4x3) {
            4
        } else {
            3
        };
        for row in Self::lanes(inst) {
            let mut m = inst.src[1].clone();
            m.reg.index += row as u16;
            let mut src: SmallVec<[Src; 8]> = SmallVec::new();
            for lane in 0..4u8 {
                if lane < cols {
                    src.push(self.src(&inst.src[0], lane));
                    src.push(self.src(&m, lane));
                } else {
                    src.push(Src::inline(Inline::Zero));
                    src.push(Src::inline(Inline::Zero));
                }
            }
            self.dot4(dest, 1 << row, src, inst.sat);
        }
    }

    /// A trans-only op on lane x of its sources, into every written lane.
    fn trans_into(&mut self, inst: &Inst, opcode: &'static str, src: &[Src]) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let lanes = Self::lanes(inst);
        if let [lane] = lanes[..] {
            self.alu(opcode, Unit::Trans, dest, lane, src, inst.sat);
            return;
        }
        let t = self.tmp();
        self.alu(opcode, Unit::Trans, Dest::Gpr(t), 0, src, false);
        for lane in lanes {
            self.alu("MOV", Unit::Any, dest, lane, &[Src::gpr(t, 0)], inst.sat);
        }
    }

    fn scalar(&mut self, inst: &Inst) {
        let mut s = self.src(&inst.src[0], 0);
        let opcode = match inst.op {
            Op::Rcp => "RECIP_IEEE",
            Op::Rsq => {
                s.abs = true;
                s.neg = false;
                "RECIPSQRT_IEEE"
            }
            Op::Lg2 | Op::Log => {
                s.abs = true;
                s.neg = false;
                "LOG_IEEE"
            }
            _ => "EXP_IEEE",
        };
        self.trans_into(inst, opcode, &[s]);
    }

    fn pow(&mut self, inst: &Inst) {
        let mut a = self.src(&inst.src[0], 0);
        a.abs = true;
        a.neg = false;
        let b = self.src(&inst.src[1], 0);
        let t = self.tmp();
        self.alu("LOG_IEEE", Unit::Trans, Dest::Gpr(t), 0, &[a], false);
        self.alu(
            "MUL",
            Unit::Any,
            Dest::Gpr(t),
            0,
            &[Src::gpr(t, 0), b],
            false,
        );
        self.trans_into(inst, "EXP_IEEE", &[Src::gpr(t, 0)]);
    }

    /// Range reduction to the SIN/COS unit's input range, into a temporary's x.
    fn reduce(&mut self, s: Src) -> Src {
        let t = self.tmp();
        let tv = Dest::Gpr(t);
        let tx = Src::gpr(t, 0);
        let inv = Src::literal(std::f32::consts::FRAC_1_PI * 0.5);
        let half = Src::inline(Inline::Half);
        self.alu("MULADD", Unit::Any, tv, 0, &[s, inv, half], false);
        self.alu("FRACT", Unit::Any, tv, 0, &[tx], false);
        match self.chip {
            Chip::R600 => {
                let tau = Src::literal(std::f32::consts::TAU);
                let npi = Src::literal(-std::f32::consts::PI);
                self.alu("MULADD", Unit::Any, tv, 0, &[tx, tau, npi], false);
            }
            Chip::R700 => {
                let one = Src::inline(Inline::One);
                self.alu(
                    "MULADD",
                    Unit::Any,
                    tv,
                    0,
                    &[tx, one, half.negated()],
                    false,
                );
            }
        }
        tx
    }

    fn trig(&mut self, inst: &Inst) {
        let s = self.src(&inst.src[0], 0);
        let r = self.reduce(s);
        match inst.op {
            Op::Sin => self.trans_into(inst, "SIN", &[r]),
            Op::Cos => self.trans_into(inst, "COS", &[r]),
            _ => {
                let Some(d) = &inst.dst else { return };
                let dest = self.dest(d);
                for lane in Self::lanes(inst).into_iter().filter(|&l| l < 2) {
                    let opcode = if lane == 0 { "COS" } else { "SIN" };
                    self.alu(opcode, Unit::Trans, dest, lane, &[r], inst.sat);
                }
            }
        }
    }

    /// ARB `EXP` and `LOG` (and vs_1_1 `expp`): the four-part forms.
    fn partial(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let s = self.src(&inst.src[0], 0);
        let one = Src::inline(Inline::One);
        let t = self.tmp();
        let tv = Dest::Gpr(t);
        let sat = inst.sat;
        let lanes = Self::lanes(inst);
        if inst.op == Op::Exp {
            for lane in lanes {
                match lane {
                    0 => {
                        self.alu("FLOOR", Unit::Any, tv, 0, &[s], false);
                        self.alu("EXP_IEEE", Unit::Trans, dest, 0, &[Src::gpr(t, 0)], sat);
                    }
                    1 => self.alu("FRACT", Unit::Any, dest, 1, &[s], sat),
                    2 => self.alu("EXP_IEEE", Unit::Trans, dest, 2, &[s], sat),
                    _ => self.alu("MOV", Unit::Any, dest, 3, &[one], sat),
                }
            }
            return;
        }
        let a = Src {
            abs: true,
            neg: false,
            ..s
        };
        self.alu("LOG_IEEE", Unit::Trans, tv, 0, &[a], false);
        for lane in lanes {
            match lane {
                0 => self.alu("FLOOR", Unit::Any, dest, 0, &[Src::gpr(t, 0)], sat),
                1 => {
                    self.alu("FLOOR", Unit::Any, tv, 1, &[Src::gpr(t, 0)], false);
                    let e = Src::gpr(t, 1).negated();
                    self.alu("EXP_IEEE", Unit::Trans, tv, 2, &[e], false);
                    self.alu("MUL", Unit::Any, dest, 1, &[a, Src::gpr(t, 2)], sat);
                }
                2 => self.alu("MOV", Unit::Any, dest, 2, &[Src::gpr(t, 0)], sat),
                _ => self.alu("MOV", Unit::Any, dest, 3, &[one], sat),
            }
        }
    }

    fn xpd(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let t = self.tmp();
        let lanes: Vec<u8> = Self::lanes(inst).into_iter().filter(|&l| l < 3).collect();
        for &c in &lanes {
            let (i, j) = ((c + 1) % 3, (c + 2) % 3);
            let a = self.src(&inst.src[0], i);
            let b = self.src(&inst.src[1], j);
            self.alu("MUL", Unit::Any, Dest::Gpr(t), c, &[a, b], false);
        }
        for &c in &lanes {
            let (i, j) = ((c + 1) % 3, (c + 2) % 3);
            let a = self.src(&inst.src[0], j).negated();
            let b = self.src(&inst.src[1], i);
            let acc = Src::gpr(t, c);
            self.alu("MULADD", Unit::Any, dest, c, &[a, b, acc], inst.sat);
        }
    }

    /// DST (four vector ops) and LIT (MAX, LOG_CLAMPED, MUL_LIT, EXP).
    fn dst_lit(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let one = Src::inline(Inline::One);
        let zero = Src::inline(Inline::Zero);
        let sat = inst.sat;
        for lane in Self::lanes(inst) {
            match (inst.op, lane) {
                (_, 0) => self.alu("MOV", Unit::Any, dest, 0, &[one], sat),
                (Op::Dst, 1) => {
                    let (a, b) = (self.src(&inst.src[0], 1), self.src(&inst.src[1], 1));
                    self.alu("MUL", Unit::Any, dest, 1, &[a, b], sat)
                }
                (Op::Dst, 2) => {
                    let a = self.src(&inst.src[0], 2);
                    self.alu("MOV", Unit::Any, dest, 2, &[a], sat)
                }
                (Op::Dst, _) => {
                    let b = self.src(&inst.src[1], 3);
                    self.alu("MOV", Unit::Any, dest, 3, &[b], sat)
                }
                (_, 1) => {
                    let a = self.src(&inst.src[0], 0);
                    self.alu("MAX", Unit::Any, dest, 1, &[a, zero], sat)
                }
                (_, 2) => {
                    let t = self.tmp();
                    let (x, y, w) = (
                        self.src(&inst.src[0], 0),
                        self.src(&inst.src[0], 1),
                        self.src(&inst.src[0], 3),
                    );
                    self.alu("MAX", Unit::Any, Dest::Gpr(t), 1, &[y, zero], false);
                    let l = [Src::gpr(t, 1)];
                    self.alu("LOG_CLAMPED", Unit::Trans, Dest::Gpr(t), 0, &l, false);
                    let m = [w, Src::gpr(t, 0), x];
                    self.alu("MUL_LIT", Unit::Any, Dest::Gpr(t), 2, &m, false);
                    let e = [Src::gpr(t, 2)];
                    self.alu("EXP_IEEE", Unit::Trans, dest, 2, &e, sat)
                }
                _ => self.alu("MOV", Unit::Any, dest, 3, &[one], sat),
            }
        }
    }

    fn swz(&mut self, inst: &Inst) {
        let (Some(d), Some(e)) = (&inst.dst, inst.ext_swizzle) else {
            return;
        };
        let dest = self.dest(d);
        for lane in Self::lanes(inst) {
            let mut s = match e.sel[lane as usize] {
                hoist_asm::ir::ExtSel::Comp(c) => {
                    let mut one = inst.src[0].clone();
                    one.swizzle = hoist_asm::ir::Swizzle::splat(inst.src[0].swizzle.get(c));
                    self.src(&one, 0)
                }
                hoist_asm::ir::ExtSel::Zero => Src::inline(Inline::Zero),
                hoist_asm::ir::ExtSel::One => Src::inline(Inline::One),
            };
            if e.neg[lane as usize] {
                s = s.negated();
            }
            self.alu("MOV", Unit::Any, dest, lane, &[s], inst.sat);
        }
    }

    fn nrm(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let t = self.tmp();
        let mut src: SmallVec<[Src; 8]> = SmallVec::new();
        for lane in 0..4u8 {
            if lane < 3 {
                src.push(self.src(&inst.src[0], lane));
                src.push(self.src(&inst.src[0], lane));
            } else {
                src.push(Src::inline(Inline::Zero));
                src.push(Src::inline(Inline::Zero));
            }
        }
        self.dot4(Dest::Gpr(t), 1, src, false);
        let r = [Src::gpr(t, 0)];
        self.alu("RECIPSQRT_IEEE", Unit::Trans, Dest::Gpr(t), 1, &r, false);
        for lane in Self::lanes(inst) {
            let a = self.src(&inst.src[0], lane);
            let c = [a, Src::gpr(t, 1)];
            self.alu("MUL", Unit::Any, dest, lane, &c, inst.sat);
        }
    }

    /// The GPR and per-lane channels a fetch reads for `lanes` of source `i`; a source that
    /// is not a plain GPR (a constant, a negated or absolute operand) is moved to one first.
    fn fetch_source(&mut self, inst: &Inst, i: usize, lanes: WriteMask) -> (VReg, [u8; 4], u8) {
        let s = &inst.src[i];
        let plain = !s.negate && !s.abs && s.rel.is_none();
        let gpr = !s.reg.file.is_uniform() && Self::special(s.reg.file, 0).is_none();
        if plain && gpr {
            let v = self.vreg(s.reg);
            return (v, s.swizzle.comps(), s.swizzle.reads(lanes).0);
        }
        let t = self.tmp();
        for lane in lanes.iter() {
            let src = self.src(s, lane);
            self.alu("MOV", Unit::Any, Dest::Gpr(t), lane, &[src], false);
        }
        (t, [0, 1, 2, 3], lanes.0)
    }

    fn push_fetch(
        &mut self,
        opcode: &'static str,
        dst: Option<VReg>,
        mask: u8,
        coord: (VReg, [u8; 4], u8),
        unit: u8,
    ) {
        let inst = self.inst;
        self.out.nodes.push(Node::Fetch(Fetch {
            opcode,
            dst,
            mask,
            coord: coord.0,
            swizzle: coord.1,
            chans: coord.2,
            unit,
            inst,
        }));
    }

    fn texture(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let tex = inst.tex.unwrap_or(hoist_asm::ir::TexRef {
            unit: 0,
            target: TexTarget::T2D,
        });
        // Each R600 shader stage has its own resource table: a vertex sampler's unit
        // (VERTEX_SAMPLER_BASE + #) is the vertex stage's resource #.
        let unit = sampler_index(self.p.stage(), tex.unit);
        let lanes = inst.src_lanes(0, WriteMask::ALL);
        let mut coord = self.fetch_source(inst, 0, lanes);
        if inst.op == Op::Txp {
            coord = self.project(coord, lanes);
        }
        if tex.target == TexTarget::Cube {
            coord = self.cube(coord);
        }
        let shadow = matches!(
            tex.target,
            TexTarget::Shadow1D | TexTarget::Shadow2D | TexTarget::ShadowRect
        );
        if inst.op == Op::Texldd {
            let all = WriteMask::ALL;
            let h = self.fetch_source(inst, 1, all);
            self.push_fetch("SET_GRADIENTS_H", None, 0, h, unit);
            let v = self.fetch_source(inst, 2, all);
            self.push_fetch("SET_GRADIENTS_V", None, 0, v, unit);
        }
        let opcode = match (inst.op, shadow) {
            (Op::Txb, false) => "SAMPLE_LB",
            (Op::Txb, true) => "SAMPLE_C_LB",
            (Op::Texldl, false) => "SAMPLE_L",
            (Op::Texldl, true) => "SAMPLE_C_L",
            (Op::Texldd, false) => "SAMPLE_G",
            (Op::Texldd, true) => "SAMPLE_C_G",
            (_, false) => "SAMPLE",
            (_, true) => "SAMPLE_C",
        };
        let dest = self.vreg(d.reg);
        self.push_fetch(opcode, Some(dest), d.mask.0, coord, unit);
    }

    /// TXP: the coordinate divided by its w before the fetch (RECIP in t, MULs reading PS).
    fn project(&mut self, c: (VReg, [u8; 4], u8), lanes: WriteMask) -> (VReg, [u8; 4], u8) {
        let t = self.tmp();
        let w = Src::gpr(c.0, c.1[3]);
        self.alu("RECIP_IEEE", Unit::Trans, Dest::Gpr(t), 3, &[w], false);
        let mut chans = 1 << 3;
        for lane in lanes.iter().filter(|&l| l < 3) {
            let s = [Src::gpr(c.0, c.1[lane as usize]), Src::gpr(t, 3)];
            self.alu("MUL", Unit::Any, Dest::Gpr(t), lane, &s, false);
            chans |= 1 << lane;
        }
        (t, [0, 1, 2, 3], chans)
    }

    /// Cube maps: CUBE over four slots, RECIP of the major axis, two MULADDs.
    fn cube(&mut self, c: (VReg, [u8; 4], u8)) -> (VReg, [u8; 4], u8) {
        let t = self.tmp();
        let at = |l: usize| Src::gpr(c.0, c.1[l]);
        let src: SmallVec<[Src; 8]> =
            smallvec![at(2), at(1), at(2), at(0), at(0), at(2), at(1), at(2)];
        let inst = self.inst;
        self.push(AluOp {
            opcode: "CUBE",
            unit: Unit::Quad,
            dest: Dest::Gpr(t),
            chan: 0,
            mask: 0b1111,
            src,
            clamp: false,
            inst,
        });
        let z = Src {
            abs: true,
            ..Src::gpr(t, 2)
        };
        self.alu("RECIP_IEEE", Unit::Trans, Dest::Gpr(t), 2, &[z], false);
        for lane in 0..2u8 {
            let s = [Src::gpr(t, lane), Src::gpr(t, 2), Src::literal(1.5)];
            self.alu("MULADD", Unit::Any, Dest::Gpr(t), lane, &s, false);
        }
        (t, [1, 0, 3, 1], 0b1011)
    }

    fn gradient(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let coord = self.fetch_source(inst, 0, d.mask);
        let dest = self.vreg(d.reg);
        let opcode = if inst.op == Op::Dsx {
            "GET_GRADIENTS_H"
        } else {
            "GET_GRADIENTS_V"
        };
        self.push_fetch(opcode, Some(dest), d.mask.0, coord, 0);
    }

    fn kill(&mut self, inst: &Inst) {
        let lanes = if inst.op == Op::Kil { 0..4u8 } else { 0..3u8 };
        for lane in lanes {
            let s = [Src::inline(Inline::Zero), self.src(&inst.src[0], lane)];
            self.alu("KILLGT", Unit::Vector, Dest::None, lane, &s, false);
        }
    }

    fn mova(&mut self, inst: &Inst) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        let opcode = if inst.op == Op::Arl {
            "MOVA_FLOOR"
        } else {
            "MOVA"
        };
        for lane in Self::lanes(inst) {
            let s = [self.src(&inst.src[0], lane)];
            self.alu(opcode, Unit::Vector, dest, lane, &s, false);
        }
    }

    fn pred_set(&mut self, inst: &Inst, c: hoist_asm::ops::Cond, dest: Dest, lane: u8, sat: bool) {
        use hoist_asm::ops::Cond::*;
        let (a, b) = (self.src(&inst.src[0], lane), self.src(&inst.src[1], lane));
        let (opcode, s) = match c {
            Gt => ("PRED_SETGT", [a, b]),
            Ge => ("PRED_SETGE", [a, b]),
            Lt => ("PRED_SETGT", [b, a]),
            Le => ("PRED_SETGE", [b, a]),
            Eq => ("PRED_SETE", [a, b]),
            Ne => ("PRED_SETNE", [a, b]),
        };
        self.alu(opcode, Unit::Vector, dest, lane, &s, sat);
    }

    fn setp(&mut self, inst: &Inst, c: hoist_asm::ops::Cond) {
        let Some(d) = &inst.dst else { return };
        let dest = self.dest(d);
        for lane in Self::lanes(inst) {
            self.pred_set(inst, c, dest, lane, false);
        }
    }
}

/// Drops ops and fetch lanes whose results nobody reads (straight-line programs only).
fn dce(l: &mut Lowered) {
    let mut live: BTreeSet<(VReg, u8)> = BTreeSet::new();
    for &v in &l.outputs {
        live.extend((0..4).map(|c| (v, c)));
    }
    let mut keep = vec![true; l.nodes.len()];
    for (i, node) in l.nodes.iter_mut().enumerate().rev() {
        match node {
            Node::Alu(op) => {
                if let Dest::Gpr(v) = op.dest {
                    if op.unit == Unit::Quad {
                        op.mask &= (0..4)
                            .filter(|&c| live.contains(&(v, c)))
                            .fold(0, |m, c| m | 1 << c);
                        if op.mask == 0 {
                            keep[i] = false;
                            continue;
                        }
                    } else if !live.contains(&(v, op.chan)) {
                        keep[i] = false;
                        continue;
                    }
                }
                for w in op.writes() {
                    live.remove(&w);
                }
                live.extend(op.reads());
            }
            Node::Fetch(f) => {
                if let Some(v) = f.dst {
                    f.mask &= (0..4)
                        .filter(|&c| live.contains(&(v, c)))
                        .fold(0, |m, c| m | 1 << c);
                    if f.mask == 0 {
                        keep[i] = false;
                        continue;
                    }
                    for c in 0..4 {
                        if f.mask & 1 << c != 0 {
                            live.remove(&(v, c));
                        }
                    }
                }
                live.extend(
                    (0..4)
                        .filter(|c| f.chans & 1 << c != 0)
                        .map(|c| (f.coord, c)),
                );
            }
            Node::Flow(..) => {}
        }
    }
    let mut k = keep.into_iter();
    l.nodes.retain(|_| k.next().unwrap_or(true));
}

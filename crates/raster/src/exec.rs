//! The batched structure-of-arrays executor.
//!
//! A [`Machine`] owns one register file of [`Row`]s for a [`Kernel`] and runs the kernel over
//! a batch of [`LANES`] invocations at once: every instruction is dispatched once per batch
//! and its inner loops run over the 64 lanes of each row, which the compiler vectorises
//! (SSE/AVX natively, SIMD128 on wasm). Results go to four result rows first and are then
//! stored through the write mask, `_sat` and (in flow mode) the execution mask, so an
//! instruction may freely read the register it writes.
//!
//! Straight-line programs run without masks. Programs with D3D9 flow control or
//! predication run in *flow mode*: structured execution with a per-lane mask, uniform loop
//! counters (`loop`/`rep` counts come from integer constants) and per-lane `break`/`ret`.
//! Loops run at most [`crate::draw::Caps::max_loop_iterations`] times, calls nest at most
//! [`crate::draw::Caps::max_call_depth`] deep and a batch executes at most
//! [`crate::draw::Caps::max_batch_instructions`] instructions, so no program can hang.

use crate::compile::{
    ConstFill, FlowCond, GatherFrom, KInst, KOp, Kernel, LANES, Pre, Row, TexKind,
};
use crate::texture::{self, Texture};
use hoist_asm::semantics as alu;

pub type Mask = [bool; LANES];

/// What a traced run sees: every instruction before and after it runs, with the lanes that
/// execute it, and the flow-control decisions. [`Quiet`] observes nothing; its calls compile
/// away (`ON` is false), so an untraced run costs what it did before tracing existed.
pub trait Observer {
    const ON: bool = true;
    fn begin(&mut self, _m: &Machine) {}
    /// Before instruction `pc` computes: its operands are in place (source modifiers and
    /// relative addressing applied).
    fn before(&mut self, _pc: usize, _m: &Machine, _env: &ExecEnv, _active: &Mask) {}
    fn after(&mut self, _pc: usize, _m: &Machine, _active: &Mask) {}
    fn flow(&mut self, _pc: usize, _ev: FlowEvent<'_>) {}
}

/// The observer of an untraced run.
pub struct Quiet;

impl Observer for Quiet {
    const ON: bool = false;
}

/// A flow-control decision of a batch, for [`Observer::flow`].
#[derive(Clone, Copy, Debug)]
pub enum FlowEvent<'a> {
    /// `if`: the lanes that take the first branch (the others among `active` the second).
    If { taken: &'a Mask, active: &'a Mask },
    /// The start of loop iteration `iter` (0-based), with `aL`'s value for `loop`.
    Iteration {
        iter: u32,
        counter: Option<f32>,
        active: &'a Mask,
    },
    /// A loop left after `iterations` iterations.
    LoopEnd { iterations: u32, active: &'a Mask },
    /// `break`/`breakc`: the lanes that leave the loop here.
    Break { hit: &'a Mask, active: &'a Mask },
    /// `call`/`callnz`: the lanes that enter the subroutine.
    Call { entered: &'a Mask, active: &'a Mask },
    /// `ret`: the lanes that return.
    Ret { active: &'a Mask },
}

/// What a batch reads besides its registers.
pub struct ExecEnv<'a> {
    /// The constant table (one vec4 per slot), length at least `kernel.const_len`.
    pub consts: &'a [[f32; 4]],
    /// Texture per unit.
    pub textures: &'a [Option<&'a Texture>],
    /// The same textures as shared handles, where the caller has them (else empty): a
    /// compiled kernel keeps them to recognise a texture in a later draw.
    pub shared_textures: &'a [Option<std::sync::Arc<Texture>>],
    pub int_consts: &'a [[i32; 4]],
    pub bool_consts: &'a [bool],
    /// Lanes form 2×2 quads (fragment stage): derivatives and LOD are available.
    pub quads: bool,
    pub max_loop_iterations: u32,
    pub max_call_depth: u32,
    pub max_batch_instructions: u64,
}

/// One register file plus per-batch state.
pub struct Machine {
    /// The register file, one boxed row each, so a result row can be swapped in by pointer.
    pub regs: Vec<Box<Row>>,
    res: [Box<Row>; 4],
    /// Lanes discarded by KIL/texkil.
    pub killed: Mask,
    /// Lane-instructions and lane-slots executed (flow mode counts them dynamically).
    pub insts_executed: u64,
    pub slots_executed: u64,
    /// Set when a batch hit the instruction budget.
    pub budget_exhausted: bool,
    budget_left: u64,
    /// Per-machine state of a compiled-kernel backend ([`crate::jit::CompiledKernel`]).
    pub backend: Option<Box<dyn std::any::Any>>,
}

const ALL: Mask = [true; LANES];

// The lane loops stay out of line, one function per operation: a browser's optimizing tier
// then compiles only the operations a program uses, not one 20 KB `compute` (BENCHMARKS.md,
// issue 27, "the interpreter's tier-up").
#[inline(never)]
fn m1(o: &mut Row, a: &Row, f: impl Fn(f32) -> f32) {
    for l in 0..LANES {
        o[l] = f(a[l]);
    }
}

#[inline(never)]
fn m2(o: &mut Row, a: &Row, b: &Row, f: impl Fn(f32, f32) -> f32) {
    for l in 0..LANES {
        o[l] = f(a[l], b[l]);
    }
}

#[inline(never)]
fn m3(o: &mut Row, a: &Row, b: &Row, c: &Row, f: impl Fn(f32, f32, f32) -> f32) {
    for l in 0..LANES {
        o[l] = f(a[l], b[l], c[l]);
    }
}

fn count(m: &Mask) -> u64 {
    m.iter().filter(|&&b| b).count() as u64
}

fn any(m: &Mask) -> bool {
    m.iter().any(|&b| b)
}

fn and_not(a: &Mask, b: &Mask) -> Mask {
    let mut r = *a;
    for l in 0..LANES {
        r[l] = a[l] && !b[l];
    }
    r
}

fn or(a: &Mask, b: &Mask) -> Mask {
    let mut r = *a;
    for l in 0..LANES {
        r[l] = a[l] || b[l];
    }
    r
}

impl Machine {
    pub fn new(k: &Kernel) -> Machine {
        Machine {
            regs: (0..k.rows).map(|_| Box::new([0.0; LANES])).collect(),
            res: std::array::from_fn(|_| Box::new([0.0; LANES])),
            killed: [false; LANES],
            insts_executed: 0,
            slots_executed: 0,
            budget_exhausted: false,
            budget_left: 0,
            backend: None,
        }
    }

    /// Broadcasts the constant rows for a draw's constant table.
    pub fn bind_consts(&mut self, k: &Kernel, consts: &[[f32; 4]]) {
        for f in &k.const_fills {
            let ConstFill {
                row,
                slot,
                imm,
                neg,
                abs,
            } = *f;
            let mut v = match slot {
                Some((s, c)) => consts.get(s as usize).map_or(0.0, |v| v[c as usize & 3]),
                None => imm,
            };
            if abs {
                v = v.abs();
            }
            if neg {
                v = -v;
            }
            *self.regs[row as usize] = [v; LANES];
        }
    }

    /// Clears temporaries, outputs and address/loop/predicate registers and the kill mask.
    pub fn reset(&mut self, k: &Kernel) {
        for &(base, n) in &k.reset {
            for r in &mut self.regs[base as usize..(base + n) as usize] {
                **r = [0.0; LANES];
            }
        }
        self.killed = [false; LANES];
    }

    /// Runs the kernel over the batch. `live` lanes are counted in the statistics.
    pub fn run(&mut self, k: &Kernel, env: &ExecEnv, live: &Mask) {
        self.run_observed(k, env, live, &mut Quiet);
    }

    /// [`Machine::run`] with an [`Observer`] of every instruction and flow decision.
    pub fn run_observed<O: Observer>(
        &mut self,
        k: &Kernel,
        env: &ExecEnv,
        live: &Mask,
        obs: &mut O,
    ) {
        self.budget_left = env.max_batch_instructions;
        if O::ON {
            obs.begin(self);
        }
        if k.has_flow {
            let mut depth = 0;
            let _ = self.seq(k, env, 0, k.main_end, *live, &mut depth, obs);
        } else {
            let n = count(live);
            self.insts_executed += n * k.insts_per_invocation;
            self.slots_executed += n * k.slots_per_invocation;
            for (i, ins) in k.insts.iter().enumerate() {
                if O::ON {
                    self.operands(ins, env);
                    obs.before(i, self, env, &ALL);
                }
                self.exec_inst(k, ins, env, None);
                if O::ON {
                    obs.after(i, self, &ALL);
                }
            }
        }
    }

    /// [`Machine::run`] for a straight-line kernel, calling `after(i, self)` once instruction
    /// `i` has run (for probes that need every intermediate value).
    pub fn run_traced(
        &mut self,
        k: &Kernel,
        env: &ExecEnv,
        live: &Mask,
        after: &mut dyn FnMut(usize, &Machine),
    ) {
        assert!(!k.has_flow, "flow-control kernels cannot be traced");
        self.budget_left = env.max_batch_instructions;
        let n = count(live);
        self.insts_executed += n * k.insts_per_invocation;
        self.slots_executed += n * k.slots_per_invocation;
        for (i, ins) in k.insts.iter().enumerate() {
            self.exec_inst(k, ins, env, None);
            after(i, self);
        }
    }

    /// Puts an instruction's operands in place (what `exec_inst` does first; doing it twice
    /// is harmless: the rows written are scratch rows no operand reads).
    fn operands(&mut self, ins: &KInst, env: &ExecEnv) {
        for p in &ins.pre {
            self.pre(p, env);
        }
    }

    fn pre(&mut self, p: &Pre, env: &ExecEnv) {
        match p {
            Pre::Modify { from, to, neg, abs } => {
                for c in 0..4 {
                    let src = *self.regs[from[c] as usize];
                    let o = &mut self.regs[*to as usize + c];
                    match (neg, abs) {
                        (true, true) => m1(o, &src, |x| -x.abs()),
                        (true, false) => m1(o, &src, |x| -x),
                        (false, true) => m1(o, &src, |x| x.abs()),
                        (false, false) => **o = src,
                    }
                }
            }
            Pre::Gather {
                from,
                base,
                addr,
                lo,
                hi,
                swizzle,
                neg,
                abs,
                to,
            } => {
                let mut out = [[0.0f32; LANES]; 4];
                let a = &self.regs[*addr as usize];
                for l in 0..LANES {
                    let idx = base.saturating_add(a[l] as i32);
                    if idx < *lo || idx >= *hi {
                        continue;
                    }
                    for c in 0..4 {
                        let comp = swizzle[c] as usize;
                        let mut v = match from {
                            GatherFrom::Consts => {
                                env.consts.get(idx as usize).map_or(0.0, |v| v[comp])
                            }
                            GatherFrom::Rows(b) => self
                                .regs
                                .get(*b as usize + 4 * idx as usize + comp)
                                .map_or(0.0, |r| r[l]),
                        };
                        if *abs {
                            v = v.abs();
                        }
                        if *neg {
                            v = -v;
                        }
                        out[c][l] = v;
                    }
                }
                for (c, row) in out.iter().enumerate() {
                    *self.regs[*to as usize + c] = *row;
                }
            }
        }
    }

    /// Computes an instruction into the result rows. Returns true when the result is a
    /// scalar replicated to every destination component (row 0).
    fn compute(&mut self, k: &Kernel, ins: &KInst, env: &ExecEnv) -> bool {
        let regs = &self.regs;
        let res = &mut self.res;
        let s = &ins.src;
        let mask = ins.mask;
        let d = k.dialect;
        macro_rules! r {
            ($i:expr, $c:expr) => {
                &*regs[s[$i][$c] as usize]
            };
        }
        let uni = |i: usize, c: usize| ins.uniform & (1 << (4 * i + c)) != 0;
        macro_rules! each {
            (|$c:ident| $body:expr) => {
                for $c in 0..4 {
                    if mask & (1 << $c) != 0 {
                        $body;
                    }
                }
            };
        }
        match ins.op {
            KOp::Mov => each!(|c| *res[c] = *r!(0, c)),
            KOp::Add => each!(|c| {
                let (a, b) = (r!(0, c), r!(1, c));
                match (uni(0, c), uni(1, c)) {
                    (_, true) => m1(&mut res[c], a, |x| x + b[0]),
                    (true, false) => m1(&mut res[c], b, |y| a[0] + y),
                    _ => m2(&mut res[c], a, b, |x, y| x + y),
                }
            }),
            KOp::Sub => each!(|c| m2(&mut res[c], r!(0, c), r!(1, c), |a, b| a - b)),
            KOp::Mul => each!(|c| {
                let (a, b) = (r!(0, c), r!(1, c));
                match (uni(0, c), uni(1, c)) {
                    (_, true) => m1(&mut res[c], a, |x| x * b[0]),
                    (true, false) => m1(&mut res[c], b, |y| a[0] * y),
                    _ => m2(&mut res[c], a, b, |x, y| x * y),
                }
            }),
            KOp::Mad => each!(|c| {
                let (a, b, e) = (r!(0, c), r!(1, c), r!(2, c));
                match (uni(0, c), uni(1, c)) {
                    (true, true) => {
                        let p = a[0] * b[0];
                        m1(&mut res[c], e, |z| p + z)
                    }
                    (false, true) => m2(&mut res[c], a, e, |x, z| x * b[0] + z),
                    (true, false) => m2(&mut res[c], b, e, |y, z| a[0] * y + z),
                    _ => m3(&mut res[c], a, b, e, |x, y, z| x * y + z),
                }
            }),
            KOp::Abs => each!(|c| m1(&mut res[c], r!(0, c), |a| a.abs())),
            KOp::Flr | KOp::AddrFloor => each!(|c| m1(&mut res[c], r!(0, c), alu::floor)),
            KOp::AddrRound => each!(|c| m1(&mut res[c], r!(0, c), alu::round_nearest)),
            KOp::Frc => each!(|c| m1(&mut res[c], r!(0, c), alu::frc)),
            KOp::Max => each!(|c| m2(&mut res[c], r!(0, c), r!(1, c), alu::max)),
            KOp::Min => each!(|c| m2(&mut res[c], r!(0, c), r!(1, c), alu::min)),
            KOp::Sge => each!(|c| m2(&mut res[c], r!(0, c), r!(1, c), |a, b| if a >= b {
                1.0
            } else {
                0.0
            })),
            KOp::Slt => each!(|c| m2(&mut res[c], r!(0, c), r!(1, c), |a, b| if a < b {
                1.0
            } else {
                0.0
            })),
            KOp::Lrp => each!(
                |c| m3(&mut res[c], r!(0, c), r!(1, c), r!(2, c), |t, a, b| t * a
                    + (1.0 - t) * b)
            ),
            KOp::CmpLt => each!(
                |c| m3(&mut res[c], r!(0, c), r!(1, c), r!(2, c), |t, a, b| {
                    if t < 0.0 { a } else { b }
                })
            ),
            KOp::CmpGe => each!(
                |c| m3(&mut res[c], r!(0, c), r!(1, c), r!(2, c), |t, a, b| {
                    if t >= 0.0 { a } else { b }
                })
            ),
            KOp::Cnd => each!(
                |c| m3(&mut res[c], r!(0, c), r!(1, c), r!(2, c), |t, a, b| {
                    if t > 0.5 { a } else { b }
                })
            ),
            KOp::Sgn => each!(|c| m1(&mut res[c], r!(0, c), alu::sgn)),
            KOp::Rcp => {
                m1(&mut res[0], r!(0, 0), |x| alu::rcp(x, d));
                return true;
            }
            KOp::Rsq => {
                m1(&mut res[0], r!(0, 0), |x| alu::rsq(x, d));
                return true;
            }
            KOp::Ex2 => {
                m1(&mut res[0], r!(0, 0), alu::ex2);
                return true;
            }
            KOp::Lg2 => {
                m1(&mut res[0], r!(0, 0), |x| alu::lg2(x, d));
                return true;
            }
            KOp::Pow => {
                m2(&mut res[0], r!(0, 0), r!(1, 0), |b, e| alu::pow(b, e, d));
                return true;
            }
            KOp::Sin => {
                m1(&mut res[0], r!(0, 0), alu::sin);
                return true;
            }
            KOp::Cos => {
                m1(&mut res[0], r!(0, 0), alu::cos);
                return true;
            }
            KOp::Dp3
            | KOp::Dp4
            | KOp::Dph
            | KOp::Dp2add
            | KOp::Xpd
            | KOp::Dst
            | KOp::Lit
            | KOp::ExpPartial
            | KOp::LogPartial
            | KOp::SinCos
            | KOp::Nrm
            | KOp::Matrix(_) => return vector_op(ins, regs, res, d),
            KOp::Tex(..) | KOp::Dsx | KOp::Dsy | KOp::Setp(_) => sampling_op(ins, regs, res, env),
            _ => {}
        }
        false
    }

    fn store(&mut self, ins: &KInst, replicate: bool, active: Option<&Mask>) {
        let single = ins.mask.count_ones() == 1;
        for c in 0..4 {
            if ins.mask & (1 << c) == 0 {
                continue;
            }
            let rc = if replicate { 0 } else { c };
            let pmask;
            let active = match (&ins.pred, active) {
                (Some((rows, neg)), a) => {
                    let p = &self.regs[rows[c] as usize];
                    let mut m = a.copied().unwrap_or(ALL);
                    for l in 0..LANES {
                        m[l] = m[l] && ((p[l] != 0.0) != *neg);
                    }
                    pmask = m;
                    Some(&pmask)
                }
                (None, a) => a,
            };
            match active {
                None => {
                    if ins.sat {
                        let r = &mut self.res[rc];
                        for l in 0..LANES {
                            r[l] = alu::sat(r[l]);
                        }
                    }
                    let d = ins.dst as usize + c;
                    if !replicate || single {
                        // The result row becomes the register's row; its old row is reused.
                        std::mem::swap(&mut self.regs[d], &mut self.res[rc]);
                    } else {
                        *self.regs[d] = *self.res[rc];
                    }
                }
                Some(m) => {
                    let src = &self.res[rc];
                    let dst = &mut self.regs[ins.dst as usize + c];
                    for l in 0..LANES {
                        let v = if ins.sat { alu::sat(src[l]) } else { src[l] };
                        if m[l] {
                            dst[l] = v;
                        }
                    }
                }
            }
        }
    }

    fn exec_inst(&mut self, k: &Kernel, ins: &KInst, env: &ExecEnv, active: Option<&Mask>) {
        for p in &ins.pre {
            self.pre(p, env);
        }
        if let KOp::Kill(m) = ins.op {
            for c in 0..4 {
                if m & (1 << c) == 0 {
                    continue;
                }
                let row = &self.regs[ins.src[0][c] as usize];
                for l in 0..LANES {
                    if row[l] < 0.0 && active.is_none_or(|a| a[l]) {
                        self.killed[l] = true;
                    }
                }
            }
            return;
        }
        if matches!(ins.op, KOp::Nop) || ins.mask == 0 {
            return;
        }
        let rep = self.compute(k, ins, env);
        self.store(ins, rep, active);
    }

    fn cond_mask(&self, c: &FlowCond, env: &ExecEnv) -> Mask {
        match *c {
            FlowCond::Bool(i, neg) => {
                [env.bool_consts.get(i as usize).copied().unwrap_or(false) != neg; LANES]
            }
            FlowCond::Pred(row, neg) => {
                let p = &self.regs[row as usize];
                let mut m = [false; LANES];
                for l in 0..LANES {
                    m[l] = (p[l] != 0.0) != neg;
                }
                m
            }
            FlowCond::Cmp(cond, a, b) => {
                let (a, b) = (&self.regs[a as usize], &self.regs[b as usize]);
                let mut m = [false; LANES];
                for l in 0..LANES {
                    m[l] = cond.test(a[l], b[l]);
                }
                m
            }
        }
    }

    fn set_loop(&mut self, k: &Kernel, v: f32) {
        if let Some(r) = k.loop_row {
            *self.regs[r as usize] = [v; LANES];
        }
    }

    fn loop_value(&self, k: &Kernel) -> f32 {
        k.loop_row.map_or(0.0, |r| self.regs[r as usize][0])
    }

    /// An `if` at `pc` for the `active` lanes: both branches run, each for its lanes.
    /// Returns the lanes that executed `break` and those that executed `ret` inside.
    #[allow(clippy::too_many_arguments)]
    fn seq_if<O: Observer>(
        &mut self,
        k: &Kernel,
        env: &ExecEnv,
        pc: usize,
        c: FlowCond,
        active: Mask,
        depth: &mut u32,
        obs: &mut O,
    ) -> (Mask, Mask) {
        let ins = &k.insts[pc];
        for p in &ins.pre {
            self.pre(p, env);
        }
        let m = self.cond_mask(&c, env);
        let mut t = active;
        let mut f = active;
        for l in 0..LANES {
            t[l] = active[l] && m[l];
            f[l] = active[l] && !m[l];
        }
        if O::ON {
            obs.flow(
                pc,
                FlowEvent::If {
                    taken: &t,
                    active: &active,
                },
            );
        }
        let endif = ins.jump2 as usize;
        let else_pc = ins.jump as usize;
        let (b1, r1) = self.seq(k, env, pc + 1, else_pc, t, depth, obs);
        let (b2, r2) = if else_pc != endif {
            self.seq(k, env, else_pc + 1, endif, f, depth, obs)
        } else {
            ([false; LANES], [false; LANES])
        };
        (or(&b1, &b2), or(&r1, &r2))
    }

    /// A `loop`/`rep` at `pc` for the `active` lanes, its count (and `aL`'s start and step)
    /// from the integer constant, at most `max_loop_iterations` times. Returns the lanes
    /// that executed `ret` inside.
    fn seq_loop<O: Observer>(
        &mut self,
        k: &Kernel,
        env: &ExecEnv,
        pc: usize,
        active: Mask,
        depth: &mut u32,
        obs: &mut O,
    ) -> Mask {
        let ins = &k.insts[pc];
        let (ireg, is_loop) = match ins.op {
            KOp::Loop(i) => (i, true),
            KOp::Rep(i) => (i, false),
            _ => unreachable!(),
        };
        let ic = env.int_consts.get(ireg as usize).copied().unwrap_or([0; 4]);
        let iters = ic[0].clamp(0, env.max_loop_iterations as i32) as u32;
        let saved = self.loop_value(k);
        let end_pc = ins.jump as usize;
        let mut live = active;
        let mut ret = [false; LANES];
        let mut ran = 0;
        for it in 0..iters {
            if is_loop {
                let v = ic[1] as i64 + i64::from(it) * ic[2] as i64;
                self.set_loop(k, v as f32);
            }
            if O::ON {
                let counter = is_loop.then(|| self.loop_value(k));
                obs.flow(
                    pc,
                    FlowEvent::Iteration {
                        iter: it,
                        counter,
                        active: &live,
                    },
                );
            }
            ran = it + 1;
            let (b, r) = self.seq(k, env, pc + 1, end_pc, live, depth, obs);
            ret = or(&ret, &r);
            live = and_not(&and_not(&live, &b), &r);
            if !any(&live) || self.budget_exhausted {
                break;
            }
        }
        if O::ON {
            obs.flow(
                pc,
                FlowEvent::LoopEnd {
                    iterations: ran,
                    active: &active,
                },
            );
        }
        if is_loop {
            self.set_loop(k, saved);
        }
        ret
    }

    /// Runs `pc..end` for the `active` lanes. Returns the lanes that executed `break` (to
    /// leave the innermost loop) and those that executed `ret`.
    #[allow(clippy::too_many_arguments)]
    fn seq<O: Observer>(
        &mut self,
        k: &Kernel,
        env: &ExecEnv,
        mut pc: usize,
        end: usize,
        mut active: Mask,
        depth: &mut u32,
        obs: &mut O,
    ) -> (Mask, Mask) {
        let mut brk = [false; LANES];
        let mut ret = [false; LANES];
        while pc < end {
            if !any(&active) {
                break;
            }
            if self.budget_left == 0 {
                self.budget_exhausted = true;
                ret = or(&ret, &active);
                break;
            }
            self.budget_left -= 1;
            let ins = &k.insts[pc];
            let n = count(&active);
            self.insts_executed += n;
            self.slots_executed += n * u64::from(ins.slots);
            match ins.op {
                KOp::If(c) => {
                    let (b, r) = self.seq_if(k, env, pc, c, active, depth, obs);
                    brk = or(&brk, &b);
                    ret = or(&ret, &r);
                    active = and_not(&active, &or(&b, &r));
                    pc = ins.jump2 as usize + 1;
                }
                KOp::Loop(_) | KOp::Rep(_) => {
                    let r = self.seq_loop(k, env, pc, active, depth, obs);
                    ret = or(&ret, &r);
                    active = and_not(&active, &ret);
                    pc = ins.jump as usize + 1;
                }
                KOp::Break => {
                    if O::ON {
                        obs.flow(
                            pc,
                            FlowEvent::Break {
                                hit: &active,
                                active: &active,
                            },
                        );
                    }
                    brk = or(&brk, &active);
                    active = [false; LANES];
                }
                KOp::Breakc(c) => {
                    for p in &ins.pre {
                        self.pre(p, env);
                    }
                    let m = self.cond_mask(&c, env);
                    let mut hit = active;
                    for l in 0..LANES {
                        hit[l] = active[l] && m[l];
                    }
                    if O::ON {
                        obs.flow(
                            pc,
                            FlowEvent::Break {
                                hit: &hit,
                                active: &active,
                            },
                        );
                    }
                    brk = or(&brk, &hit);
                    active = and_not(&active, &hit);
                    pc += 1;
                }
                KOp::Call(label) | KOp::Callnz(label, _) => {
                    let mut m = active;
                    if let KOp::Callnz(_, c) = ins.op {
                        let cm = self.cond_mask(&c, env);
                        for l in 0..LANES {
                            m[l] = m[l] && cm[l];
                        }
                    }
                    if *depth < env.max_call_depth
                        && any(&m)
                        && let Some(&lpc) = k.labels.get(&label)
                    {
                        *depth += 1;
                        if O::ON {
                            obs.flow(
                                pc,
                                FlowEvent::Call {
                                    entered: &m,
                                    active: &active,
                                },
                            );
                        }
                        let body_end = k.insts[lpc].jump as usize;
                        let _ = self.seq(k, env, lpc + 1, body_end, m, depth, obs);
                        *depth -= 1;
                    }
                    pc += 1;
                }
                KOp::Ret => {
                    if O::ON {
                        obs.flow(pc, FlowEvent::Ret { active: &active });
                    }
                    ret = or(&ret, &active);
                    active = [false; LANES];
                }
                KOp::Label => break,
                KOp::Else | KOp::Endif | KOp::Endloop | KOp::Endrep => pc += 1,
                _ => {
                    if O::ON {
                        self.operands(ins, env);
                        obs.before(pc, self, env, &active);
                    }
                    self.exec_inst(k, ins, env, Some(&active));
                    if O::ON {
                        obs.after(pc, self, &active);
                    }
                    pc += 1;
                }
            }
        }
        (brk, ret)
    }
}

/// The vector ops whose lanes depend on one another: dot products (which replicate one
/// result: returns true), cross product, `DST`, `LIT`, the partial `EXP`/`LOG`, sine and
/// cosine pairs, normalisation and matrix macros.
#[inline(never)]
fn vector_op(
    ins: &KInst,
    regs: &[Box<Row>],
    res: &mut [Box<Row>; 4],
    d: hoist_asm::Dialect,
) -> bool {
    let s = &ins.src;
    let mask = ins.mask;
    macro_rules! r {
        ($i:expr, $c:expr) => {
            &*regs[s[$i][$c] as usize]
        };
    }
    match ins.op {
        KOp::Dp3 | KOp::Dp4 | KOp::Dph => {
            let o = &mut res[0];
            let (a0, a1, a2) = (r!(0, 0), r!(0, 1), r!(0, 2));
            let (b0, b1, b2) = (r!(1, 0), r!(1, 1), r!(1, 2));
            for l in 0..LANES {
                o[l] = a0[l] * b0[l] + a1[l] * b1[l] + a2[l] * b2[l];
            }
            match ins.op {
                KOp::Dp4 => {
                    let (a3, b3) = (r!(0, 3), r!(1, 3));
                    for l in 0..LANES {
                        o[l] += a3[l] * b3[l];
                    }
                }
                KOp::Dph => {
                    let b3 = r!(1, 3);
                    for l in 0..LANES {
                        o[l] += b3[l];
                    }
                }
                _ => {}
            }
            return true;
        }
        KOp::Dp2add => {
            let o = &mut res[0];
            let (a0, a1, b0, b1, c0) = (r!(0, 0), r!(0, 1), r!(1, 0), r!(1, 1), r!(2, 0));
            for l in 0..LANES {
                o[l] = a0[l] * b0[l] + a1[l] * b1[l] + c0[l];
            }
            return true;
        }
        KOp::Xpd => {
            let (a, b) = (0, 1);
            for l in 0..LANES {
                let (ax, ay, az) = (r!(a, 0)[l], r!(a, 1)[l], r!(a, 2)[l]);
                let (bx, by, bz) = (r!(b, 0)[l], r!(b, 1)[l], r!(b, 2)[l]);
                res[0][l] = ay * bz - az * by;
                res[1][l] = az * bx - ax * bz;
                res[2][l] = ax * by - ay * bx;
            }
        }
        KOp::Dst => {
            for l in 0..LANES {
                res[0][l] = 1.0;
                res[1][l] = r!(0, 1)[l] * r!(1, 1)[l];
                res[2][l] = r!(0, 2)[l];
                res[3][l] = r!(1, 3)[l];
            }
        }
        KOp::Lit => {
            for l in 0..LANES {
                let v = alu::lit([r!(0, 0)[l], r!(0, 1)[l], r!(0, 2)[l], r!(0, 3)[l]], d);
                for c in 0..4 {
                    res[c][l] = v[c];
                }
            }
        }
        KOp::ExpPartial | KOp::LogPartial => {
            let f = if matches!(ins.op, KOp::ExpPartial) {
                alu::exp_partial
            } else {
                alu::log_partial
            };
            for l in 0..LANES {
                let v = f(r!(0, 0)[l]);
                for c in 0..4 {
                    res[c][l] = v[c];
                }
            }
        }
        KOp::SinCos => {
            m1(&mut res[0], r!(0, 0), alu::cos);
            m1(&mut res[1], r!(0, 0), alu::sin);
        }
        KOp::Nrm => {
            for l in 0..LANES {
                let (x, y, z) = (r!(0, 0)[l], r!(0, 1)[l], r!(0, 2)[l]);
                let f = x * x + y * y + z * z;
                let f = if f != 0.0 {
                    1.0 / f.sqrt()
                } else {
                    alu::FLT_MAX
                };
                for c in 0..4 {
                    res[c][l] = r!(0, c)[l] * f;
                }
            }
        }
        KOp::Matrix(cols) => {
            for row in 0..(s.len() - 1).min(4) {
                if mask & (1 << row) == 0 {
                    continue;
                }
                let o = &mut res[row];
                for l in 0..LANES {
                    let mut acc = r!(0, 0)[l] * r!(1 + row, 0)[l];
                    for c in 1..cols as usize {
                        acc += r!(0, c)[l] * r!(1 + row, c)[l];
                    }
                    o[l] = acc;
                }
            }
        }
        _ => unreachable!("not a vector op"),
    }
    false
}

/// Texture sampling, derivatives and predicate setting.
#[inline(never)]
fn sampling_op(ins: &KInst, regs: &[Box<Row>], res: &mut [Box<Row>; 4], env: &ExecEnv) {
    let s = &ins.src;
    let mask = ins.mask;
    macro_rules! r {
        ($i:expr, $c:expr) => {
            &*regs[s[$i][$c] as usize]
        };
    }
    macro_rules! each {
        (|$c:ident| $body:expr) => {
            for $c in 0..4 {
                if mask & (1 << $c) != 0 {
                    $body;
                }
            }
        };
    }
    match ins.op {
        KOp::Tex(kind, unit, target) => {
            let tex = env.textures.get(unit as usize).copied().flatten();
            let coord = [r!(0, 0), r!(0, 1), r!(0, 2), r!(0, 3)];
            let grads = if kind == TexKind::Grad && s.len() >= 3 {
                Some((
                    [r!(1, 0), r!(1, 1), r!(1, 2), r!(1, 3)],
                    [r!(2, 0), r!(2, 1), r!(2, 2), r!(2, 3)],
                ))
            } else {
                None
            };
            let [o0, o1, o2, o3] = &mut *res;
            texture::sample_batch(
                tex,
                kind,
                target,
                coord,
                grads,
                env.quads,
                [&mut **o0, &mut **o1, &mut **o2, &mut **o3],
            );
        }
        KOp::Dsx | KOp::Dsy => {
            let dy = matches!(ins.op, KOp::Dsy);
            each!(|c| {
                let a = r!(0, c);
                let o = &mut res[c];
                if env.quads {
                    for q in (0..LANES).step_by(4) {
                        let v = if dy { a[q + 2] - a[q] } else { a[q + 1] - a[q] };
                        o[q..q + 4].fill(v);
                    }
                } else {
                    **o = [0.0; LANES];
                }
            })
        }
        KOp::Setp(cond) => {
            each!(
                |c| m2(&mut res[c], r!(0, c), r!(1, c), |a, b| if cond.test(a, b) {
                    1.0
                } else {
                    0.0
                })
            )
        }
        _ => unreachable!("not a sampling op"),
    }
}

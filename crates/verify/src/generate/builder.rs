//! The program builder both dialects share: the state of one program being written
//! (temporaries with per-component state, the pool of readable registers, slot, constant and
//! texture-indirection counts) and the text of one instruction. Source selection is in
//! `source.rs`, constants in `consts.rs`, generic arithmetic in `arith.rs`.
//!
//! Each temporary component records whether it is written and an [`Info`]: a bound on its
//! magnitude, a lower bound on its absolute value (what `RCP`/`RSQ`/`LG2` need) and whether
//! it is uniform, affine in the interpolants (movable) or neither.

use super::common::{Rng, mask_text, push_swizzle};
use hoist_asm::ops::Class as OpClass;
use hoist_asm::{Op, Profile};
use std::rc::Rc;

/// How ARB literals are spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConstStyle {
    /// Mesa: `{0.5, 0, 0, 1}` and `0.5` in the instructions.
    Inline,
    /// `PARAM k0 = {...};`
    Named,
    /// Cg: one `PARAM c[n] = { ... };` table.
    Table,
}

/// Uniform stays uniform; anything else becomes varying (the op is not affine).
pub(crate) fn nonlinear(c: Class) -> Class {
    if c == Class::Uniform {
        Class::Uniform
    } else {
        Class::Varying
    }
}

/// Values above this are not fed to further arithmetic (products stay far from overflow).
pub(crate) const BIG: f32 = 1.0e4;
/// Assumed bound on texels and host-set parameters.
pub(crate) const HOST: f32 = 4.0;

/// How a value depends on the invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    /// The same for every invocation (constants and functions of them).
    Uniform,
    /// Affine in the interpolants: the kind of work the optimizer may move.
    Affine,
    Varying,
}

/// What is known about a value: `|v| <= mag`, `|v| >= lo`, and its [`Class`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Info {
    pub mag: f32,
    pub lo: f32,
    pub class: Class,
}

impl Info {
    pub(crate) const fn new(mag: f32, lo: f32, class: Class) -> Info {
        Info { mag, lo, class }
    }

    pub(crate) fn exact(v: f32) -> Info {
        Info::new(v.abs(), v.abs(), Class::Uniform)
    }

    pub(crate) fn join(self, o: Info) -> Info {
        Info::new(
            self.mag.max(o.mag),
            self.lo.min(o.lo),
            self.class.max(o.class),
        )
    }

    pub(super) fn ok(self, cond: Cond) -> bool {
        match cond {
            Cond::Finite => self.mag <= BIG,
            Cond::Positive => self.lo > 0.0 && self.mag <= BIG,
            Cond::Small(c) => self.mag <= c,
        }
    }
}

/// Which register file (and register) a source reads, for D3D9 read-port limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Port {
    Free,
    Temp(u16),
    Input(u16),
    TexCoord(u16),
    Const(u16),
    /// `c[a0.x + n]`: a constant read, distinct from `c#n`.
    Rel(u16),
}

/// A readable register that is not a temporary: input, constant, literal.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub text: Rc<str>,
    pub port: Port,
    pub avail: u8,
    pub lanes: [Info; 4],
    /// Whether a swizzle may be written after it (false for ARB inline literals).
    pub swz_ok: bool,
    /// The values, for literals.
    pub vals: Option<[f32; 4]>,
}

impl Val {
    pub(crate) fn new(text: impl Into<String>, port: Port, avail: u8, info: Info) -> Val {
        Val {
            text: Rc::from(text.into()),
            port,
            avail,
            lanes: [info; 4],
            swz_ok: true,
            vals: None,
        }
    }

    pub(crate) fn literal(text: impl Into<String>, port: Port, v: [f32; 4]) -> Val {
        Val {
            text: Rc::from(text.into()),
            port,
            avail: 15,
            lanes: v.map(Info::exact),
            swz_ok: true,
            vals: Some(v),
        }
    }
}

/// One temporary: per component, its info once written.
#[derive(Clone, Debug, Default)]
pub(crate) struct Temp {
    pub lanes: [Option<Info>; 4],
    /// ps_2_0 dependent-read order of the texture results flowing into it.
    pub dep: Option<i32>,
    /// Components last written by a texture read.
    pub texel: u8,
}

impl Temp {
    pub(crate) fn avail(&self) -> u8 {
        (0..4)
            .filter(|&c| self.lanes[c].is_some())
            .fold(0, |m, c| m | 1 << c)
    }
}

/// A source operand as it will be printed.
#[derive(Clone, Debug)]
pub(crate) struct Opnd {
    pub text: Rc<str>,
    pub port: Port,
    pub swz: [u8; 4],
    pub neg: bool,
    pub abs: bool,
    /// Over the components read.
    pub info: Info,
    pub dep: Option<i32>,
}

impl Opnd {
    /// An operand that is not a register read (`s0`, `texture[1]`, `2D`).
    pub(crate) fn raw(text: impl Into<String>) -> Opnd {
        Opnd {
            text: Rc::from(text.into()),
            port: Port::Free,
            swz: [0, 1, 2, 3],
            neg: false,
            abs: false,
            info: Info::new(0.0, 0.0, Class::Uniform),
            dep: None,
        }
    }

    pub(crate) fn temp_index(&self) -> Option<u16> {
        match self.port {
            Port::Temp(t) => Some(t),
            _ => None,
        }
    }
}

/// How a source may be swizzled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swz {
    Any,
    /// One component, replicated (scalar operands).
    Scalar,
    /// No swizzle (D3D9 `crs`, ps_2_0 texture coordinates, matrix operands).
    Identity,
}

/// What the value read must satisfy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Cond {
    Finite,
    /// Bounded away from zero (before `RCP`, `RSQ`, `LG2`, `POW`).
    Positive,
    /// `|v| <= c` (before `EX2`, `LIT`, ...).
    Small(f32),
}

/// Which values a source prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    Any,
    /// Uniform or affine values only: work the optimizer can move.
    Movable,
    Uniform,
    /// Texture results and other per-invocation values.
    Varying,
    /// Anything that is not uniform, preferring non-affine values (what outputs read).
    Live,
    /// Affine values first (texture coordinates).
    Coord,
}

/// A source request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Req {
    pub need: u8,
    pub swz: Swz,
    pub cond: Cond,
    pub want: Want,
    /// Negation (and `_abs` where legal) may be added.
    pub mods: bool,
    /// ARB inline literals may be read (not by `SWZ`).
    pub lit_ok: bool,
}

impl Req {
    pub(crate) fn new(need: u8, swz: Swz, want: Want) -> Req {
        Req {
            need,
            swz,
            cond: Cond::Finite,
            want,
            mods: true,
            lit_ok: true,
        }
    }

    pub(crate) fn cond(mut self, c: Cond) -> Req {
        self.cond = c;
        self
    }

    pub(crate) fn plain(mut self) -> Req {
        self.mods = false;
        self
    }
}

/// Registers of each kind an instruction already reads (D3D9 read ports).
#[derive(Clone, Debug, Default)]
pub(crate) struct Ports {
    pub(super) seen: Vec<Port>,
}

impl Ports {
    pub(crate) fn add(&mut self, p: Port) {
        if !self.seen.contains(&p) {
            self.seen.push(p);
        }
    }
}

/// Destination of an instruction.
#[derive(Clone, Debug)]
pub(crate) struct DstReg {
    pub text: Rc<str>,
    pub temp: Option<u16>,
    pub mask: u8,
    /// A scalar register written without a mask (`oFog`, `oDepth`).
    pub bare: bool,
}

impl DstReg {
    pub(crate) fn out(text: impl Into<String>, mask: u8) -> DstReg {
        DstReg {
            text: Rc::from(text.into()),
            temp: None,
            mask,
            bare: false,
        }
    }
}

/// A source candidate: a temporary or a pool entry.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cand {
    Temp(u16),
    Pool(usize),
}

/// Instruction modifiers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mods {
    pub sat: bool,
    pub pp: bool,
}

/// The builder of one program.
pub(crate) struct Gen {
    pub rng: Rng,
    pub prof: Profile,
    pub arb: bool,
    pub temps: Vec<Temp>,
    pub temp_cap: usize,
    /// How temporaries are spelled: `R3`, `r3`, `tmp3`.
    pub temp_prefix: &'static str,
    pub pool: Vec<Val>,
    pub body: Vec<String>,
    pub insts: usize,
    pub alu: u32,
    pub tex: u32,
    /// Slots kept free for the outputs and guards still to come.
    pub reserve: u32,
    /// How often a conditioned source is drawn regardless of the condition and then guarded.
    pub guard_rate: f64,
    /// How often a source ignores its condition altogether (unguarded `RCP` of a value that
    /// may be zero, reads of huge or infinite values): what keeps NaN and Inf in the mix.
    pub loose_rate: f64,
    /// How ARB literals are written.
    pub const_style: ConstStyle,
    /// ARB `PARAM c[n]` table items: a binding, or `None` for a literal entry of the pool.
    pub table: Vec<Option<String>>,
    /// Named ARB literal parameters `k0`, `k1`, ... so far.
    pub named: usize,
    /// The constant register scalars are being packed into.
    pub pack: Option<usize>,
    /// ARB parameter slots used (inline literals, bindings, PARAM entries).
    pub const_slots: usize,
    pub const_cap: usize,
    /// ARB texture-indirection phases: phase count and the temporaries written and
    /// touched by arithmetic in the current phase.
    pub phases: u32,
    pub phase_written: u64,
    pub phase_alu: u64,
    /// Spellings of the temporaries, by index.
    names: Vec<Rc<str>>,
    /// Scratch list of source candidates (kept to reuse its allocation).
    pub(super) cands: Vec<(Cand, u8, u32)>,
    /// Next D3D9 constant register for a `def`, and the end of the `def` range.
    pub next_def: u16,
    pub def_end: u16,
}

impl Gen {
    pub(crate) fn new(rng: Rng, prof: Profile, temp_cap: usize) -> Gen {
        Gen {
            rng,
            prof,
            arb: prof.dialect() == hoist_asm::Dialect::Arb,
            temps: Vec::new(),
            temp_cap,
            temp_prefix: "r",
            pool: Vec::new(),
            body: Vec::new(),
            insts: 0,
            alu: 0,
            tex: 0,
            reserve: 0,
            guard_rate: 0.3,
            loose_rate: 0.05,
            const_style: ConstStyle::Named,
            table: Vec::new(),
            named: 0,
            pack: None,
            const_slots: 0,
            const_cap: usize::from(prof.limits().consts),
            phases: 1,
            phase_written: 0,
            phase_alu: 0,
            names: Vec::new(),
            cands: Vec::new(),
            next_def: 0,
            def_end: 0,
        }
    }

    pub(crate) fn vs(&self) -> bool {
        self.prof.stage() == hoist_asm::Stage::Vertex
    }

    pub(crate) fn sm3(&self) -> bool {
        matches!(self.prof, Profile::Vs3_0 | Profile::Ps3_0)
    }

    pub(crate) fn temp_name(&self, t: u16) -> String {
        format!("{}{t}", self.temp_prefix)
    }

    pub(super) fn temp_text(&self, t: u16) -> Rc<str> {
        self.names[t as usize].clone()
    }

    // ---- budgets ----------------------------------------------------------------------

    /// Whether `op` (plus `extra` slots of guards) fits in what is left above the reserve.
    pub(crate) fn fits(&self, op: Op, extra: u32) -> bool {
        let l = self.prof.limits();
        let n = u32::from(self.prof.slots(op).unwrap_or(1));
        let tex = op.info().class == OpClass::Tex;
        let total = self.alu + self.tex + n + extra + self.reserve;
        let alu_ok = l
            .max_alu_slots
            .is_none_or(|m| self.alu + extra + self.reserve + if tex { 0 } else { n } <= m);
        let tex_ok = l
            .max_tex_slots
            .is_none_or(|m| !tex || self.tex + n + 2 <= m);
        total <= l.max_slots && alu_ok && tex_ok
    }

    // ---- temporaries ------------------------------------------------------------------

    pub(crate) fn new_temp(&mut self) -> Option<u16> {
        (self.temps.len() < self.temp_cap).then(|| {
            let name = self.temp_name(self.temps.len() as u16);
            self.names.push(Rc::from(name));
            self.temps.push(Temp::default());
            (self.temps.len() - 1) as u16
        })
    }

    /// A destination temporary: often a fresh one, else any not in `avoid`.
    pub(crate) fn pick_dst(&mut self, avoid: &[u16]) -> u16 {
        let fresh_p = if self.temps.len() < 3 { 0.8 } else { 0.35 };
        if self.rng.chance(fresh_p)
            && let Some(t) = self.new_temp()
        {
            return t;
        }
        let free: Vec<u16> = (0..self.temps.len() as u16)
            .filter(|t| !avoid.contains(t))
            .collect();
        if free.is_empty() {
            return self.new_temp().unwrap_or_else(|| {
                // Every temporary is an operand: only reached with a cap below 4.
                (self.temps.len() - 1) as u16
            });
        }
        self.rng.pick(&free)
    }

    /// A temporary for a guard or copy: fresh if possible, else one not in `busy`.
    pub(crate) fn scratch(&mut self, busy: &[u16]) -> u16 {
        if let Some(t) = self.new_temp() {
            return t;
        }
        let free: Vec<u16> = (0..self.temps.len() as u16)
            .filter(|t| !busy.contains(t))
            .collect();
        self.rng.pick(&free)
    }

    pub(crate) fn temp_dst(&self, t: u16, mask: u8) -> DstReg {
        DstReg {
            text: self.temp_text(t),
            temp: Some(t),
            mask,
            bare: false,
        }
    }

    // ---- emission ---------------------------------------------------------------------

    pub(crate) fn op_name(&self, op: Op) -> &'static str {
        let info = op.info();
        if self.arb {
            return info.arb.unwrap_or("NOP");
        }
        match op {
            Op::Mova if self.prof == Profile::Vs1_1 => "mov",
            Op::Texkil => "texkill",
            _ => info.d3d.unwrap_or("nop"),
        }
    }

    /// Appends an operand's text (`-r0_abs.yzxw`) to `out`.
    pub(crate) fn push_opnd(&self, out: &mut String, o: &Opnd) {
        match o.text.strip_prefix('-') {
            Some(t) if o.neg => out.push_str(t),
            _ => {
                if o.neg {
                    out.push('-');
                }
                out.push_str(&o.text);
            }
        }
        if o.abs {
            out.push_str("_abs");
        }
        push_swizzle(out, o.swz);
    }

    pub(crate) fn opnd_text(&self, o: &Opnd) -> String {
        let mut s = String::new();
        self.push_opnd(&mut s, o);
        s
    }

    /// Writes one instruction and updates the state of its destination. `info` describes
    /// the value written.
    pub(crate) fn emit(
        &mut self,
        op: Op,
        m: Mods,
        dst: Option<&DstReg>,
        srcs: &[Opnd],
        info: Info,
    ) {
        let mut line = String::with_capacity(48);
        line.push_str(self.op_name(op));
        if m.sat {
            line.push_str(if self.arb { "_SAT" } else { "_sat" });
        }
        if m.pp {
            line.push_str("_pp");
        }
        let mut sep = " ";
        if let Some(d) = dst {
            line.push_str(sep);
            line.push_str(&d.text);
            if !d.bare {
                line.push_str(&mask_text(d.mask));
            }
            sep = ", ";
        }
        for s in srcs {
            line.push_str(sep);
            self.push_opnd(&mut line, s);
            sep = ", ";
        }
        if self.arb {
            line.push(';');
        }
        self.body.push(line);
        self.insts += 1;
        let n = u32::from(self.prof.slots(op).unwrap_or(1));
        let tex = op.info().class == OpClass::Tex;
        if tex {
            self.tex += n;
        } else {
            self.alu += n;
        }
        let info = if m.sat {
            Info::new(1.0, 0.0, info.class)
        } else {
            info
        };
        self.track_phase(op, dst, srcs);
        if let Some(d) = dst
            && let Some(t) = d.temp
        {
            let old = self.temps[t as usize].dep;
            let mut dep = srcs.iter().filter_map(|s| s.dep).max();
            if d.mask & 15 != 15 {
                dep = dep.max(old);
            }
            let tp = &mut self.temps[t as usize];
            if !op.is_texture() {
                tp.dep = dep;
            }
            for c in 0..4 {
                if d.mask & (1 << c) != 0 {
                    tp.lanes[c] = Some(info);
                }
            }
            let live_coord = srcs.first().is_some_and(|c| c.info.class != Class::Uniform);
            if op.is_texture() && live_coord {
                tp.texel |= d.mask;
            } else {
                tp.texel &= !d.mask;
            }
        }
    }

    /// ARB texture indirections (ARB_fragment_program section 3.11.6), as the validator
    /// counts them.
    pub(super) fn track_phase(&mut self, op: Op, dst: Option<&DstReg>, srcs: &[Opnd]) {
        let bit = |t: u16| 1u64 << (t & 63);
        let d = dst.and_then(|d| d.temp);
        if op.info().class == OpClass::Tex {
            let coord = srcs.first().and_then(Opnd::temp_index);
            if self.tex_dependent(coord, d) {
                self.phases += 1;
                self.phase_written = 0;
                self.phase_alu = 0;
            }
            if let Some(t) = d {
                self.phase_written |= bit(t);
            }
        } else {
            if let Some(t) = d {
                self.phase_written |= bit(t);
                self.phase_alu |= bit(t);
            }
            for t in srcs.iter().filter_map(Opnd::temp_index) {
                self.phase_alu |= bit(t);
            }
        }
    }

    /// Whether a texture instruction with this coordinate and destination starts a phase.
    pub(crate) fn tex_dependent(&self, coord: Option<u16>, dst: Option<u16>) -> bool {
        let bit = |t: u16| 1u64 << (t & 63);
        coord.is_some_and(|c| self.phase_written & bit(c) != 0)
            || dst.is_some_and(|t| self.phase_alu & bit(t) != 0)
    }
}

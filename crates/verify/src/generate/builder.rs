//! The program builder both dialects share: temporaries with per-component state, the pool of
//! readable registers, source selection under each profile's operand rules, guards that keep
//! values finite, slot accounting, and the text of one instruction.
//!
//! Each temporary component records whether it is written and an [`Info`]: a bound on its
//! magnitude, a lower bound on its absolute value (what `RCP`/`RSQ`/`LG2` need) and whether
//! it is uniform, affine in the interpolants (movable) or neither. A source is drawn from
//! the registers whose selected components satisfy the instruction's needs; when none does,
//! a guard (`MAX`, `MAD x,x,k`, a clamp, a scale) or a fresh `MOV` of a literal makes one.

use super::{Rng, mask_text, num, swizzle_text};
use hoist_asm::ir::{Dst, Reg, RegFile, WriteMask};
use hoist_asm::ops::{Class as OpClass, Shape};
use hoist_asm::{Inst, Op, Profile};
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

/// Scale factors of the guard that shrinks a value.
const SCALES: [f32; 7] = [
    0.5,
    0.25,
    0.125,
    0.0625,
    1.0 / 256.0,
    1.0 / 1024.0,
    1.0 / 4096.0,
];
/// Bounds of the clamp guard.
const CLAMPS: [f32; 4] = [1.0, 4.0, 16.0, 64.0];

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

    fn ok(self, cond: Cond) -> bool {
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
    seen: Vec<Port>,
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

    fn temp_text(&self, t: u16) -> Rc<str> {
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

    // ---- source selection -------------------------------------------------------------

    fn port_ok(&self, ports: &Ports, p: Port) -> bool {
        if self.arb || ports.seen.contains(&p) {
            return true;
        }
        let ps = !self.vs();
        let count = |f: fn(&Port) -> bool| ports.seen.iter().filter(|q| f(q)).count();
        match p {
            Port::Const(_) | Port::Rel(_) => {
                count(|q| matches!(q, Port::Const(_) | Port::Rel(_))) < if ps { 2 } else { 1 }
            }
            Port::Input(_) => count(|q| matches!(q, Port::Input(_))) < 1,
            Port::TexCoord(_) => count(|q| matches!(q, Port::TexCoord(_))) < 1,
            Port::Free | Port::Temp(_) => true,
        }
    }

    /// Swizzles ps_2_0 allows besides replicates.
    const PS20: [[u8; 4]; 4] = [[0, 1, 2, 3], [1, 2, 0, 3], [2, 0, 1, 3], [3, 2, 1, 0]];

    fn feasible(&self, need: u8, good: u8, rule: Swz, swz_ok: bool) -> bool {
        if good == 0 {
            return false;
        }
        let covers = |s: &[u8; 4]| (0..4).all(|l| need & (1 << l) == 0 || good & (1 << s[l]) != 0);
        match rule {
            Swz::Scalar => swz_ok,
            Swz::Identity => need & !good == 0,
            Swz::Any if !swz_ok => need & !good == 0,
            Swz::Any if self.prof == Profile::Ps2_0 => Self::PS20.iter().any(covers) || good != 0,
            Swz::Any => true,
        }
    }

    /// A swizzle reading only `good` components for the lanes in `need`.
    fn swizzle(&mut self, need: u8, good: u8, rule: Swz, swz_ok: bool) -> [u8; 4] {
        let comps: Vec<u8> = (0..4).filter(|c| good & (1 << c) != 0).collect();
        let covers = |s: &[u8; 4]| (0..4).all(|l| need & (1 << l) == 0 || good & (1 << s[l]) != 0);
        let identity = [0, 1, 2, 3];
        match rule {
            Swz::Scalar => [self.rng.pick(&comps); 4],
            Swz::Identity => identity,
            _ if !swz_ok => identity,
            _ if self.prof == Profile::Ps2_0 => {
                let mut ok: Vec<[u8; 4]> = Self::PS20.into_iter().filter(covers).collect();
                if ok.contains(&identity) && self.rng.chance(0.6) {
                    return identity;
                }
                ok.extend(comps.iter().map(|&c| [c; 4]));
                self.rng.pick(&ok)
            }
            _ => {
                if covers(&identity) && self.rng.chance(0.72) {
                    return identity;
                }
                if self.rng.chance(0.5) {
                    return [self.rng.pick(&comps); 4];
                }
                let mut s = identity;
                for (l, c) in s.iter_mut().enumerate() {
                    if good & (1 << l) == 0 || self.rng.chance(0.3) {
                        *c = self.rng.pick(&comps);
                    }
                }
                s
            }
        }
    }

    fn want_weight(&self, want: Want, class: Class, temp: bool) -> u32 {
        match (want, class) {
            (Want::Uniform, Class::Uniform) => 4,
            (Want::Uniform, _) => 0,
            (Want::Movable, Class::Varying) => 0,
            (Want::Movable, Class::Affine) => 5,
            (Want::Movable, Class::Uniform) => 3,
            (Want::Varying, Class::Varying) => 12,
            (Want::Varying, _) => 1,
            (Want::Live, Class::Varying) => 8,
            (Want::Live, Class::Affine) => 4,
            (Want::Live, Class::Uniform) => 0,
            (Want::Coord, Class::Affine) => 8,
            (Want::Coord, Class::Varying) => 2,
            (Want::Coord, Class::Uniform) => 0,
            (Want::Any, _) if temp => 6,
            (Want::Any, _) => 3,
        }
    }

    /// Picks a source for `req`, emitting a guard or copy first when no register fits.
    pub(crate) fn src(&mut self, req: Req, ports: &mut Ports, busy: &[u16]) -> Opnd {
        #[derive(Clone, Copy)]
        enum Cand {
            Temp(u16),
            Pool(usize),
        }
        let loose = self.rng.chance(0.03);
        let guard_first = req.cond != Cond::Finite && self.rng.chance(self.guard_rate);
        let cond = if loose || guard_first {
            None
        } else {
            Some(req.cond)
        };
        let mut cands: Vec<(Cand, u8, u32)> = Vec::new();
        for (t, temp) in self.temps.iter().enumerate() {
            let good = (0..4).fold(0u8, |m, c| match temp.lanes[c] {
                Some(i) if cond.is_none_or(|k| i.ok(k)) && (loose || i.mag <= BIG) => m | 1 << c,
                _ => m,
            });
            let class = (0..4)
                .filter_map(|c| temp.lanes[c].map(|i| i.class))
                .max()
                .unwrap_or(Class::Varying);
            let w = self.want_weight(req.want, class, true);
            if w > 0 && self.feasible(req.need, good, req.swz, true) {
                cands.push((Cand::Temp(t as u16), good, w));
            }
        }
        for (k, v) in self.pool.iter().enumerate() {
            let good = (0..4).fold(0u8, |m, c| {
                let i = v.lanes[c];
                if v.avail & (1 << c) != 0 && cond.is_none_or(|k| i.ok(k)) && i.mag <= BIG {
                    m | 1 << c
                } else {
                    m
                }
            });
            let class = v
                .lanes
                .iter()
                .map(|i| i.class)
                .max()
                .unwrap_or(Class::Uniform);
            let w = self.want_weight(req.want, class, false);
            if w > 0
                && (req.lit_ok || v.swz_ok)
                && self.port_ok(ports, v.port)
                && self.feasible(req.need, good, req.swz, v.swz_ok)
            {
                cands.push((Cand::Pool(k), good, w));
            }
        }
        if cands.is_empty() {
            let o = self.fresh(req, busy);
            ports.add(o.port);
            return o;
        }
        let weights: Vec<u32> = cands.iter().map(|c| c.2).collect();
        let (cand, good, _) = cands[self.rng.weighted(&weights)];
        let (text, port, swz_ok, lanes, dep) = match cand {
            Cand::Temp(t) => {
                let tp = &self.temps[t as usize];
                let lanes = tp
                    .lanes
                    .map(|i| i.unwrap_or(Info::new(0.0, 0.0, Class::Varying)));
                (self.temp_text(t), Port::Temp(t), true, lanes, tp.dep)
            }
            Cand::Pool(k) => {
                let v = &self.pool[k];
                (v.text.clone(), v.port, v.swz_ok, v.lanes, None)
            }
        };
        let swz = self.swizzle(req.need, good, req.swz, swz_ok);
        let info = (0..4)
            .filter(|l| req.need & (1 << l) != 0)
            .map(|l| lanes[swz[l] as usize])
            .reduce(Info::join)
            .unwrap_or(lanes[swz[0] as usize]);
        let mut o = Opnd {
            text,
            port,
            swz,
            neg: false,
            abs: false,
            info,
            dep,
        };
        if req.mods && self.rng.chance(0.15) {
            o.neg = true;
        }
        if req.mods
            && self.sm3()
            && port != Port::Free
            && !matches!(port, Port::Const(_) | Port::Rel(_))
            && self.rng.chance(0.1)
        {
            o.abs = true;
        }
        if !o.info.ok(req.cond) && !loose {
            let mut b: Vec<u16> = busy.to_vec();
            b.extend(o.temp_index());
            o = self.guard(o, req, &b);
        }
        ports.add(o.port);
        o
    }

    /// A temporary holding a small literal that satisfies `req`, written by a `MOV`.
    fn fresh(&mut self, req: Req, busy: &[u16]) -> Opnd {
        let v = match req.cond {
            Cond::Positive => self.rng.pick(&[0.5, 1.0, 2.0, 0.25]),
            _ => self.rng.pick(&[0.0, 1.0, -1.0, 0.5, 2.0]),
        };
        let t = self.scratch(busy);
        let mut ports = Ports::default();
        let src = self.scalar(v, &mut ports, &[t]);
        let info = src.info;
        let dst = self.temp_dst(t, 15);
        self.emit(Op::Mov, Mods::default(), Some(&dst), &[src], info);
        let swz = if req.swz == Swz::Scalar {
            [self.rng.below(4) as u8; 4]
        } else {
            [0, 1, 2, 3]
        };
        self.read_temp(t, swz, req.need)
    }

    /// An operand reading a temporary.
    pub(crate) fn read_temp(&self, t: u16, swz: [u8; 4], need: u8) -> Opnd {
        let tp = &self.temps[t as usize];
        let info = (0..4)
            .filter(|l| need & (1 << l) != 0)
            .filter_map(|l| tp.lanes[swz[l] as usize])
            .reduce(Info::join)
            .unwrap_or(Info::new(0.0, 0.0, Class::Varying));
        Opnd {
            text: self.temp_text(t),
            port: Port::Temp(t),
            swz,
            neg: false,
            abs: false,
            info,
            dep: tp.dep,
        }
    }

    /// An operand reading all of a pool value.
    pub(crate) fn whole(&self, v: &Val) -> Opnd {
        let info = (0..4)
            .filter(|c| v.avail & (1 << c) != 0)
            .map(|c| v.lanes[c])
            .reduce(Info::join)
            .unwrap_or(v.lanes[0]);
        Opnd {
            text: v.text.clone(),
            port: v.port,
            swz: [0, 1, 2, 3],
            neg: false,
            abs: false,
            info,
            dep: None,
        }
    }

    /// One component of a pool value, replicated.
    pub(crate) fn lane(&self, v: &Val, c: u8) -> Opnd {
        let mut o = self.whole(v);
        o.swz = [c; 4];
        o.info = v.lanes[c as usize];
        o
    }

    /// Rewrites `o` through a guard so that it satisfies `req.cond`.
    fn guard(&mut self, o: Opnd, req: Req, busy: &[u16]) -> Opnd {
        let t = self.scratch(busy);
        let scalar = req.swz == Swz::Scalar;
        let need = if scalar { 1 } else { req.need.max(1) };
        let mask = if scalar { 1 << self.rng.below(4) } else { need };
        let c = mask.trailing_zeros() as u8;
        let src = Opnd {
            swz: if scalar { [o.swz[0]; 4] } else { o.swz },
            ..o
        };
        let dst = self.temp_dst(t, mask);
        let mut b = busy.to_vec();
        b.push(t);
        match req.cond {
            Cond::Positive => self.guard_positive(src, &dst, &b),
            Cond::Small(cap) => self.guard_small(src, &dst, cap, &b),
            Cond::Finite => self.guard_small(src, &dst, BIG, &b),
        }
        let swz = if scalar { [c; 4] } else { [0, 1, 2, 3] };
        self.read_temp(t, swz, if scalar { 1 << c } else { need })
    }

    fn guard_positive(&mut self, src: Opnd, dst: &DstReg, busy: &[u16]) {
        let k = self.rng.pick(&[1.0e-4, 1.0 / 64.0, 0.5, 1.0]);
        let class = nonlinear(src.info.class);
        let mut ports = Ports::default();
        ports.add(src.port);
        let kk = self.scalar(k, &mut ports, busy);
        let m = src.info.mag;
        if m <= 100.0 && self.rng.chance(0.35) {
            let info = Info::new(m * m + k, k, class);
            let s2 = src.clone();
            self.emit(Op::Mad, Mods::default(), Some(dst), &[src, s2, kk], info);
        } else if self.sm3()
            && !matches!(src.port, Port::Const(_) | Port::Rel(_))
            && self.rng.chance(0.4)
        {
            let info = Info::new(m + k, k, class);
            let s = Opnd {
                abs: true,
                neg: false,
                ..src
            };
            self.emit(Op::Add, Mods::default(), Some(dst), &[s, kk], info);
        } else {
            let info = Info::new(m.max(k), k, class);
            self.emit(Op::Max, Mods::default(), Some(dst), &[src, kk], info);
        }
    }

    fn guard_small(&mut self, src: Opnd, dst: &DstReg, cap: f32, busy: &[u16]) {
        let class = src.info.class;
        let mut ports = Ports::default();
        ports.add(src.port);
        let m = src.info.mag;
        let scale = if m.is_finite() && m > 0.0 {
            SCALES.into_iter().find(|s| m * s <= cap)
        } else {
            None
        };
        let frc_ok = cap >= 1.0 && self.prof != Profile::Vs1_1 && self.rng.chance(0.25);
        if let Some(s) = scale.filter(|_| !frc_ok && self.rng.chance(0.6)) {
            let kk = self.scalar(s, &mut ports, busy);
            self.emit(
                Op::Mul,
                Mods::default(),
                Some(dst),
                &[src, kk],
                Info::new(m * s, 0.0, class),
            );
        } else if frc_ok {
            let info = Info::new(1.0, 0.0, nonlinear(class));
            self.emit(Op::Frc, Mods::default(), Some(dst), &[src], info);
        } else {
            let c = CLAMPS.into_iter().rfind(|&c| c <= cap).unwrap_or(CLAMPS[0]);
            let kk = self.scalar(c, &mut ports, busy);
            let info = Info::new(m, 0.0, nonlinear(class));
            self.emit(Op::Min, Mods::default(), Some(dst), &[src, kk], info);
            let t = dst.temp.unwrap_or(0);
            let again = self.read_temp(t, [0, 1, 2, 3], dst.mask);
            let mut p2 = Ports::default();
            p2.add(again.port);
            let mut nk = self.scalar(c, &mut p2, busy);
            nk.neg = !nk.neg;
            let info = Info::new(c, 0.0, nonlinear(class));
            self.emit(Op::Max, Mods::default(), Some(dst), &[again, nk], info);
        }
    }

    /// An operand with `v` in every lane read: a replicated component of a constant register
    /// (shared with other scalars), copied to a temporary when the read ports are taken.
    pub(crate) fn scalar(&mut self, v: f32, ports: &mut Ports, busy: &[u16]) -> Opnd {
        let (k, c) = self.scalar_slot(v);
        let mut o = self.lane(&self.pool[k].clone(), c);
        if self.arb && !self.pool[k].swz_ok {
            o.swz = [0, 1, 2, 3];
        }
        if self.port_ok(ports, o.port) {
            ports.add(o.port);
            return o;
        }
        let t = self.scratch(busy);
        let info = o.info;
        let dst = self.temp_dst(t, 15);
        self.emit(Op::Mov, Mods::default(), Some(&dst), &[o], info);
        self.read_temp(t, [0, 1, 2, 3], 15)
    }

    /// The pool entry and component holding scalar `v`, allocating one if needed.
    fn scalar_slot(&mut self, v: f32) -> (usize, u8) {
        for (k, p) in self.pool.iter().enumerate() {
            if let Some(vals) = p.vals {
                if !p.swz_ok {
                    if vals.iter().all(|x| x.to_bits() == v.to_bits()) {
                        return (k, 0);
                    }
                    continue;
                }
                for c in 0..4u8 {
                    if p.avail & (1 << c) != 0 && vals[c as usize].to_bits() == v.to_bits() {
                        return (k, c);
                    }
                }
            }
        }
        if self.arb && self.const_style == ConstStyle::Inline {
            self.const_slots += 1;
            let mut val = Val::literal(num(v), Port::Free, [v; 4]);
            val.swz_ok = false;
            self.pool.push(val);
            return (self.pool.len() - 1, 0);
        }
        if let Some(k) = self.pack
            && self.pool[k].avail != 15
        {
            let c = (!self.pool[k].avail).trailing_zeros() as u8;
            let e = &mut self.pool[k];
            e.avail |= 1 << c;
            e.lanes[c as usize] = Info::exact(v);
            if let Some(vals) = &mut e.vals {
                vals[c as usize] = v;
            }
            return (k, c);
        }
        let k = self.const_entry([v, 0.0, 0.0, 0.0], 1);
        self.pack = Some(k);
        (k, 0)
    }

    /// A new constant register holding `v` (lanes in `avail` valid), in the pool.
    fn const_entry(&mut self, v: [f32; 4], avail: u8) -> usize {
        let (text, port) = if self.arb {
            self.const_slots += 1;
            match self.const_style {
                ConstStyle::Table => {
                    self.table.push(None);
                    (format!("c[{}]", self.table.len() - 1), Port::Free)
                }
                _ => {
                    self.named += 1;
                    (format!("k{}", self.named - 1), Port::Free)
                }
            }
        } else {
            let c = self.next_def;
            self.next_def += 1;
            (format!("c{c}"), Port::Const(c))
        };
        let mut val = Val::literal(text, port, v);
        val.avail = avail;
        self.pool.push(val);
        self.pool.len() - 1
    }

    /// A vector literal as a register (a D3D9 `def`, an ARB `PARAM` entry or, in the inline
    /// style, an ARB `{...}` operand), shared by equal values; `None` when the budget is spent.
    pub(crate) fn literal(&mut self, v: [f32; 4]) -> Option<Val> {
        if let Some(p) = self
            .pool
            .iter()
            .find(|p| p.avail == 15 && p.vals == Some(v))
        {
            return Some(p.clone());
        }
        if !self.literal_room() {
            return None;
        }
        if self.arb && self.const_style == ConstStyle::Inline && self.rng.chance(0.7) {
            self.const_slots += 1;
            let text = format!(
                "{{{}, {}, {}, {}}}",
                num(v[0]),
                num(v[1]),
                num(v[2]),
                num(v[3])
            );
            let mut val = Val::literal(text, Port::Free, v);
            val.swz_ok = false;
            self.pool.push(val.clone());
            return Some(val);
        }
        let k = self.const_entry(v, 15);
        Some(self.pool[k].clone())
    }

    /// Whether another vector literal fits, keeping room for guard scalars.
    pub(crate) fn literal_room(&self) -> bool {
        if self.arb {
            self.const_slots + 10 <= self.const_cap
        } else {
            self.next_def + 8 <= self.def_end
        }
    }

    /// D3D9: `def`s of consecutive registers (a matrix, an indexed table); returns the first.
    pub(crate) fn def_rows(&mut self, rows: &[[f32; 4]]) -> u16 {
        let base = self.next_def;
        for r in rows {
            self.const_entry(*r, 15);
        }
        base
    }

    /// D3D9: consecutive host-set registers (no `def`); returns the first.
    pub(crate) fn env_regs(&mut self, n: u16) -> u16 {
        let base = self.next_def;
        for c in base..base + n {
            let info = Info::new(HOST, 0.0, Class::Uniform);
            self.pool
                .push(Val::new(format!("c{c}"), Port::Const(c), 15, info));
        }
        self.next_def += n;
        base
    }

    /// Declaration text of a literal register (`{a, b, c, d}`).
    pub(crate) fn vals_text(v: [f32; 4]) -> String {
        format!(
            "{{{}, {}, {}, {}}}",
            num(v[0]),
            num(v[1]),
            num(v[2]),
            num(v[3])
        )
    }

    /// A component of a texture result, replicated, for an alpha-test style kill.
    pub(crate) fn texel(&mut self) -> Option<Opnd> {
        let ts: Vec<u16> = (0..self.temps.len() as u16)
            .filter(|&t| self.temps[t as usize].texel != 0)
            .collect();
        if ts.is_empty() {
            return None;
        }
        let t = self.rng.pick(&ts);
        let m = self.temps[t as usize].texel;
        let comps: Vec<u8> = (0..4).filter(|c| m & (1 << c) != 0).collect();
        let c = self.rng.pick(&comps);
        Some(self.read_temp(t, [c; 4], 1))
    }

    // ---- emission ---------------------------------------------------------------------

    pub(crate) fn op_name(&self, op: Op) -> String {
        let info = op.info();
        if self.arb {
            return info.arb.unwrap_or("NOP").to_string();
        }
        match op {
            Op::Mova if self.prof == Profile::Vs1_1 => "mov".into(),
            Op::Texkil => "texkill".into(),
            _ => info.d3d.unwrap_or("nop").to_string(),
        }
    }

    pub(crate) fn opnd_text(&self, o: &Opnd) -> String {
        let (neg, text) = match o.text.strip_prefix('-') {
            Some(t) if o.neg => ("", t),
            _ => (if o.neg { "-" } else { "" }, &*o.text),
        };
        format!(
            "{}{}{}{}",
            neg,
            text,
            if o.abs { "_abs" } else { "" },
            swizzle_text(o.swz)
        )
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
        let mut line = self.op_name(op);
        if m.sat {
            line.push_str(if self.arb { "_SAT" } else { "_sat" });
        }
        if m.pp {
            line.push_str("_pp");
        }
        let mut args: Vec<String> = Vec::with_capacity(srcs.len() + 1);
        if let Some(d) = dst {
            let mask = if d.bare {
                String::new()
            } else {
                mask_text(d.mask)
            };
            args.push(format!("{}{mask}", d.text));
        }
        args.extend(srcs.iter().map(|s| self.opnd_text(s)));
        if !args.is_empty() {
            line.push(' ');
            line.push_str(&args.join(", "));
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
            if op.is_texture() {
                tp.texel |= d.mask;
            } else {
                tp.texel &= !d.mask;
            }
        }
    }

    /// ARB texture indirections (ARB_fragment_program section 3.11.6), as the validator
    /// counts them.
    fn track_phase(&mut self, op: Op, dst: Option<&DstReg>, srcs: &[Opnd]) {
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

    // ---- generic arithmetic -----------------------------------------------------------

    /// Lanes of source `i` an op reads for destination `mask`, as the IR defines them.
    pub(crate) fn lanes(op: Op, i: usize, mask: u8) -> u8 {
        let r = Reg::new(RegFile::Temp, 0);
        let n = op.info().srcs as usize;
        let inst = Inst::new(
            op,
            Some(Dst::new(r, WriteMask(mask))),
            (0..n).map(|_| hoist_asm::Src::new(r)),
        );
        inst.src_lanes(i, WriteMask(mask)).0 & 15
    }

    /// A destination mask for `op`.
    pub(crate) fn op_mask(&mut self, op: Op) -> u8 {
        let single = 1 << self.rng.below(4);
        let any = self.rng.range(1, 15) as u8;
        let full = if self.rng.chance(0.5) { 15 } else { any };
        match op {
            Op::Sincos | Op::Scs => self.rng.pick(&[1, 2, 3, 3]),
            Op::Xpd => {
                if self.rng.chance(0.7) {
                    7
                } else {
                    self.rng.range(1, 7) as u8
                }
            }
            Op::M3x2 => 3,
            Op::M3x3 | Op::M4x3 => 7,
            Op::M3x4 | Op::M4x4 => 15,
            Op::Frc if self.prof == Profile::Vs1_1 => self.rng.pick(&[2, 3]),
            Op::Nrm => self.rng.pick(&[7, 7, 15]),
            _ => match op.info().shape {
                Shape::Scalar | Shape::Dot(_) | Shape::Dph | Shape::Dp2add => {
                    if self.rng.chance(0.7) { single } else { any }
                }
                _ => full,
            },
        }
    }

    /// Whether source `i` of `op` takes one replicated component in this dialect.
    pub(crate) fn scalar_src(&self, op: Op, i: usize) -> bool {
        match op {
            Op::Pow => true,
            Op::Rcp | Op::Rsq | Op::Ex2 | Op::Lg2 | Op::Exp | Op::Log => i == 0,
            Op::Cos | Op::Sin | Op::Scs | Op::Sincos | Op::Arl => i == 0,
            Op::Dp2add => i == 2,
            _ => false,
        }
    }

    /// The condition source `i` of `op` must meet to keep the result finite.
    pub(crate) fn src_cond(op: Op, i: usize) -> Cond {
        match (op, i) {
            (Op::Rcp | Op::Rsq | Op::Lg2 | Op::Log, 0) => Cond::Positive,
            (Op::Pow, 0) => Cond::Positive,
            (Op::Pow, 1) => Cond::Small(4.0),
            (Op::Ex2 | Op::Exp, 0) => Cond::Small(12.0),
            (Op::Lit, 0) => Cond::Small(1.0),
            (Op::Sin | Op::Cos | Op::Scs | Op::Sincos, 0) => Cond::Small(64.0),
            _ => Cond::Finite,
        }
    }

    /// A generic arithmetic instruction of `op` into a temporary; returns it.
    pub(crate) fn alu(&mut self, op: Op, want: Want) -> u16 {
        let mask = self.op_mask(op);
        let n = op.info().srcs as usize;
        let mut ports = Ports::default();
        let mut busy: Vec<u16> = Vec::new();
        let mut srcs: Vec<Opnd> = Vec::with_capacity(n);
        for i in 0..n {
            let need = Self::lanes(op, i, mask);
            let swz = if self.scalar_src(op, i) {
                Swz::Scalar
            } else if op == Op::Xpd && !self.arb {
                Swz::Identity
            } else {
                Swz::Any
            };
            let w = match (op, i) {
                (Op::Lrp | Op::Cmp | Op::CmpGe, 0) if want == Want::Movable => Want::Uniform,
                _ => want,
            };
            let req = Req::new(need, swz, w).cond(Self::src_cond(op, i));
            let o = self.src(req, &mut ports, &busy);
            busy.extend(o.temp_index());
            srcs.push(o);
        }
        let info = result_info(op, &srcs);
        let avoid: Vec<u16> = match op {
            Op::Xpd | Op::Nrm | Op::Pow => busy.clone(),
            _ if op.matrix_rows().is_some() => busy.clone(),
            _ => Vec::new(),
        };
        let t = self.pick_dst(&avoid);
        let dst = self.temp_dst(t, mask);
        let m = self.mods_for(op, false);
        self.emit(op, m, Some(&dst), &srcs, info);
        t
    }

    /// One instruction of one of `ops` writing `dst` (often an output) with a value bounded
    /// by `mag`.
    pub(crate) fn value_into(&mut self, dst: &DstReg, ops: &[Op], mag: f32, want: Want) {
        let op = self.rng.pick(ops);
        let per = match op {
            Op::Mul | Op::Lrp => mag.sqrt(),
            Op::Mad => (mag / 2.0).sqrt(),
            Op::Add | Op::Sub => mag / 2.0,
            _ => mag,
        };
        let mut ports = Ports::default();
        let mut srcs = Vec::new();
        let mut busy = Vec::new();
        for i in 0..op.info().srcs as usize {
            let need = Self::lanes(op, i, dst.mask);
            let w = if i == 0 { want } else { Want::Any };
            let w = if matches!(op, Op::Lrp | Op::Cmp | Op::CmpGe) && i == 0 {
                Want::Any
            } else {
                w
            };
            let cond = if op == Op::Lrp && i == 0 {
                Cond::Small(1.0)
            } else {
                Cond::Small(per.min(BIG))
            };
            let req = Req::new(need, Swz::Any, w).cond(cond);
            let o = self.src(req, &mut ports, &busy);
            busy.extend(o.temp_index());
            srcs.push(o);
        }
        let info = result_info(op, &srcs);
        let m = self.mods_for(op, dst.temp.is_none());
        self.emit(op, m, Some(dst), &srcs, info);
    }

    /// `MOV`, `MUL` or `MAD` of an attribute that varies across the primitive (`moving`)
    /// with literals: the pass-through and scale/bias of texture coordinates.
    pub(crate) fn passthrough(&mut self, dst: &DstReg, moving: &[Val], mag: f32) {
        let m = moving[self.rng.below(moving.len())].clone();
        let mut src = self.whole(&m);
        if self.rng.chance(0.2) {
            src.swz = self.rng.pick(&[[0, 1, 0, 1], [1, 0, 2, 3], [0, 1, 3, 3]]);
        }
        let s = (mag / 2.0).clamp(0.25, 4.0);
        let scale = [(); 4].map(|_| self.rng.pick(&[1.0f32, 0.5, 2.0, -1.0, 0.25]).clamp(-s, s));
        let bias = [(); 4].map(|_| self.rng.pick(&[0.0, 0.5, -0.5, 0.25, 1.0 / 256.0]));
        let mut ports = Ports::default();
        ports.add(src.port);
        let form = self.rng.below(3);
        let lit = |g: &mut Gen, v: [f32; 4], ports: &mut Ports| {
            let l = g.literal(v)?;
            g.port_ok(ports, l.port).then(|| {
                ports.add(l.port);
                g.whole(&l)
            })
        };
        let mut srcs = vec![src];
        if form > 0
            && let Some(k) = lit(self, scale, &mut ports)
        {
            srcs.push(k);
            if form > 1
                && let Some(b) = lit(self, bias, &mut ports)
            {
                srcs.push(b);
            }
        }
        let op = [Op::Mov, Op::Mul, Op::Mad][srcs.len() - 1];
        let info = result_info(op, &srcs);
        self.emit(op, Mods::default(), Some(dst), &srcs, info);
    }

    /// A dot product (`ops`: `DP3`, `DP4`, `DPH`) of a value with a parameter into `dst`.
    pub(crate) fn dot_into(&mut self, dst: &DstReg, ops: &[Op], mag: f32) {
        let op = self.rng.pick(ops);
        let per = (mag / 4.0).sqrt().min(BIG);
        let mut ports = Ports::default();
        let a = Req::new(Self::lanes(op, 0, 1), Swz::Any, Want::Live).cond(Cond::Small(per));
        let a = self.src(a, &mut ports, &[]);
        let busy: Vec<u16> = a.temp_index().into_iter().collect();
        let b = Req::new(Self::lanes(op, 1, 1), Swz::Any, Want::Uniform).cond(Cond::Small(per));
        let b = self.src(b, &mut ports, &busy);
        let info = result_info(op, &[a.clone(), b.clone()]);
        self.emit(op, Mods::default(), Some(dst), &[a, b], info);
    }

    /// Random `_sat`/`_pp` where the profile allows them.
    pub(crate) fn mods_for(&mut self, op: Op, output: bool) -> Mods {
        let ps = !self.vs();
        let sat_ok = match self.prof {
            Profile::ArbFp1 => true,
            Profile::ArbVp1 => false,
            Profile::Vs3_0 => true,
            Profile::Ps2_0 | Profile::Ps2_x => !output,
            Profile::Ps3_0 => true,
            _ => false,
        } && !matches!(op, Op::Frc | Op::Sincos | Op::Mova | Op::Texkil | Op::Kil)
            && !(op.is_texture() && !self.arb);
        Mods {
            sat: sat_ok && self.rng.chance(0.12),
            pp: ps && !self.arb && self.rng.chance(0.15),
        }
    }
}

/// The value an op produces from operands with the given infos.
pub(crate) fn result_info(op: Op, s: &[Opnd]) -> Info {
    let m = |i: usize| s.get(i).map_or(0.0, |o| o.info.mag);
    let l = |i: usize| s.get(i).map_or(0.0, |o| o.info.lo);
    let inf = f32::INFINITY;
    let (mag, lo) = match op {
        Op::Mov | Op::Abs => (m(0), l(0)),
        Op::Add | Op::Sub => (m(0) + m(1), 0.0),
        Op::Mul => (m(0) * m(1), l(0) * l(1)),
        Op::Mad => (m(0) * m(1) + m(2), 0.0),
        Op::Dp3 | Op::Xpd => (3.0 * m(0) * m(1), 0.0),
        Op::Dp4 => (4.0 * m(0) * m(1), 0.0),
        Op::Dph => (3.0 * m(0) * m(1) + m(1), 0.0),
        Op::Dp2add => (2.0 * m(0) * m(1) + m(2), 0.0),
        Op::Dst => (1f32.max(m(0) * m(1)).max(m(0)).max(m(1)), 0.0),
        Op::Min | Op::Max => (m(0).max(m(1)), 0.0),
        Op::Cmp | Op::CmpGe => (m(1).max(m(2)), l(1).min(l(2))),
        Op::Lrp => (m(0) * m(1) + (1.0 + m(0)) * m(2), 0.0),
        Op::Flr => (m(0) + 1.0, 0.0),
        Op::Frc | Op::Sge | Op::Slt | Op::Sin | Op::Cos | Op::Scs | Op::Sincos | Op::Sgn => {
            (1.0, 0.0)
        }
        Op::Nrm => (1.0, 0.0),
        Op::Ex2 => (m(0).exp2(), (-m(0)).exp2()),
        Op::Exp => (m(0).exp2().max(1.0), 0.0),
        Op::Lg2 | Op::Log if l(0) > 0.0 => {
            let v = m(0).log2().abs().max(l(0).log2().abs());
            (if op == Op::Log { v.max(2.0) } else { v }, 0.0)
        }
        Op::Rcp if l(0) > 0.0 => (1.0 / l(0), 1.0 / m(0)),
        Op::Rsq if l(0) > 0.0 => (1.0 / l(0).sqrt(), 1.0 / m(0).sqrt()),
        Op::Pow if l(0) > 0.0 => {
            let b = m(0).max(1.0 / l(0));
            (b.powf(m(1)).max(1.0), 0.0)
        }
        Op::Lit if m(0) <= 1.0 => (1.0, 0.0),
        Op::Lit => (m(0).powf(m(0).min(128.0)), 0.0),
        Op::Dsx | Op::Dsy => (2.0 * m(0), 0.0),
        _ if op.is_texture() => (HOST, 0.0),
        _ => match op.matrix_rows() {
            Some(_) => (4.0 * m(0) * m(1), 0.0),
            None => (inf, 0.0),
        },
    };
    Info::new(
        if mag.is_nan() { inf } else { mag },
        lo,
        result_class(op, s),
    )
}

/// Uniform when every source is; affine for the ops that are affine in one non-uniform
/// operand; else varying.
pub(crate) fn result_class(op: Op, s: &[Opnd]) -> Class {
    let c = |i: usize| s.get(i).map_or(Class::Uniform, |o| o.info.class);
    let all = s
        .iter()
        .map(|o| o.info.class)
        .max()
        .unwrap_or(Class::Uniform);
    if op.is_texture() || matches!(op, Op::Dsx | Op::Dsy) {
        return Class::Varying;
    }
    if all == Class::Uniform {
        return Class::Uniform;
    }
    let product = |a: Class, b: Class| {
        if a == Class::Uniform || b == Class::Uniform {
            a.max(b)
        } else {
            Class::Varying
        }
    };
    match op {
        Op::Mov | Op::Add | Op::Sub | Op::Swz => all,
        Op::Mul | Op::Dp3 | Op::Dp4 | Op::Dph | Op::Xpd => product(c(0), c(1)),
        Op::Mad | Op::Dp2add => product(c(0), c(1)).max(c(2)),
        Op::Lrp | Op::Cmp | Op::CmpGe if c(0) == Class::Uniform => c(1).max(c(2)),
        _ if op.matrix_rows().is_some() => product(c(0), c(1)),
        _ => Class::Varying,
    }
}

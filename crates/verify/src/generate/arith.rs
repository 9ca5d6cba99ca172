//! Generic arithmetic: destination masks, the lanes each source reads, scalar-operand and
//! conditioning rules per op, whole instructions into temporaries or outputs, and the
//! value ([`Info`]) an op produces.

use super::builder::{
    BIG, Class, Cond, DstReg, Gen, HOST, Info, Mods, Opnd, Ports, Req, Swz, Val, Want,
};
use hoist_asm::ir::{Dst, Reg, RegFile, WriteMask};
use hoist_asm::ops::Shape;
use hoist_asm::{Inst, Op, Profile};

impl Gen {
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
        let profile_sat = match self.prof {
            Profile::ArbFp1 | Profile::Vs3_0 | Profile::Ps3_0 => true,
            Profile::Ps2_0 | Profile::Ps2_x => !output,
            _ => false,
        };
        let sat_ok = profile_sat
            && !matches!(op, Op::Frc | Op::Sincos | Op::Mova | Op::Texkil | Op::Kil)
            && (self.arb || !op.is_texture());
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

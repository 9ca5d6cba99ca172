//! Source selection: which register a source reads and with which swizzle, under each
//! profile's read-port and swizzle rules, and the guards (`MAX`, `MAD x,x,k`, clamps, scales)
//! and copies that make a value fit when no register does.

use super::builder::{
    BIG, Cand, Class, Cond, DstReg, Gen, Info, Mods, Opnd, Port, Ports, Req, Swz, Val, Want,
    nonlinear,
};
use hoist_asm::profile::SwizzleRule;
use hoist_asm::{Op, Profile};

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

impl Gen {
    // ---- source selection -------------------------------------------------------------

    pub(super) fn port_ok(&self, ports: &Ports, p: Port) -> bool {
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

    pub(super) fn feasible(&self, need: u8, good: u8, rule: Swz, swz_ok: bool) -> bool {
        if good == 0 {
            return false;
        }
        let covers = |s: &[u8; 4]| (0..4).all(|l| need & (1 << l) == 0 || good & (1 << s[l]) != 0);
        match rule {
            Swz::Scalar => swz_ok,
            Swz::Identity => need & !good == 0,
            Swz::Any if !swz_ok => need & !good == 0,
            Swz::Any if self.prof.ps2_0_swizzle_rule() == SwizzleRule::Always => {
                Self::PS20.iter().any(covers) || good != 0
            }
            Swz::Any => true,
        }
    }

    /// A swizzle reading only `good` components for the lanes in `need`.
    pub(super) fn swizzle(&mut self, need: u8, good: u8, rule: Swz, swz_ok: bool) -> [u8; 4] {
        let comps: Vec<u8> = (0..4).filter(|c| good & (1 << c) != 0).collect();
        let covers = |s: &[u8; 4]| (0..4).all(|l| need & (1 << l) == 0 || good & (1 << s[l]) != 0);
        let identity = [0, 1, 2, 3];
        match rule {
            Swz::Scalar => [self.rng.pick(&comps); 4],
            Swz::Identity => identity,
            _ if !swz_ok => identity,
            _ if self.prof.ps2_0_swizzle_rule() == SwizzleRule::Always => {
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

    pub(super) fn want_weight(&self, want: Want, class: Class, temp: bool) -> u32 {
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
        let loose = self.rng.chance(self.loose_rate);
        let guard_first = req.cond != Cond::Finite && self.rng.chance(self.guard_rate);
        let cond = if loose || guard_first {
            None
        } else {
            Some(req.cond)
        };
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
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
            self.cands = cands;
            let o = self.fresh(req, busy);
            ports.add(o.port);
            return o;
        }
        let total: u32 = cands.iter().map(|c| c.2).sum();
        let mut r = self.rng.below(total as usize) as u32;
        let mut chosen = cands[cands.len() - 1];
        for &c in &cands {
            if r < c.2 {
                chosen = c;
                break;
            }
            r -= c.2;
        }
        self.cands = cands;
        let (cand, good, _) = chosen;
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
    pub(super) fn fresh(&mut self, req: Req, busy: &[u16]) -> Opnd {
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
    pub(super) fn guard(&mut self, o: Opnd, req: Req, busy: &[u16]) -> Opnd {
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

    pub(super) fn guard_positive(&mut self, src: Opnd, dst: &DstReg, busy: &[u16]) {
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

    pub(super) fn guard_small(&mut self, src: Opnd, dst: &DstReg, cap: f32, busy: &[u16]) {
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
}

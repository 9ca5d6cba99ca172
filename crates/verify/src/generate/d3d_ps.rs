//! Direct3D 9 pixel shaders (ps_2_0, ps_2_x, ps_3_0), the way fxc writes them.
//!
//! Interpolants are `dcl t0.xy` / `dcl v0` (ps_2_x and below) or `dcl_texcoord0 v0.xy`,
//! `dcl_color0 v1`, `dcl vPos.xy` (ps_3_0); samplers are `dcl_2d`/`dcl_cube`/`dcl_volume`.
//! Movable address arithmetic (`add r0.xy, t0, c8` with `def` offsets, `mad` scaling, uniform
//! helpers, `lrp`/`cmp` with uniform selectors) mixes with `texld`/`texldp`/`texldb` (and
//! `texldd`, `texldl` where the profile has them), `texkill` and every arithmetic opcode.
//! ps_2_0/ps_2_x texture coordinates are unswizzled `t#` or `r#` (often `mov r1.xy, t0`
//! feeding `texld r1, r1, s0`), destinations whole temporaries, and ps_2_0 reads stay within
//! four levels of dependency.

use super::arith::result_info;
use super::builder::{
    Class, Cond, DstReg, Gen, HOST, Info, Mods, Opnd, Port, Ports, Req, Swz, Val, Want,
};
use super::common::{Iface, Rng, VKind};
use super::d3d;
use hoist_asm::ir::TexTarget;
use hoist_asm::ops::tex_coord_lanes;
use hoist_asm::{Op, Profile};

/// Affine opcodes for movable chains.
const LINEAR: [Op; 8] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Mad,
    Op::Mov,
    Op::Dp3,
    Op::Dp4,
    Op::Lrp,
];

struct Ps {
    g: Gen,
    dcls: Vec<String>,
    ops: Vec<(Op, u32)>,
    blocks: Vec<u16>,
    sincos: Option<u16>,
    units: Vec<(u8, TexTarget)>,
    interps: Vec<Val>,
    /// Whether this shader may have an alpha test.
    kills: bool,
}

pub(super) fn generate(rng: Rng, prof: Profile, iface: &Iface) -> String {
    let sm3 = prof == Profile::Ps3_0;
    let mut g = Gen::new(rng, prof, if sm3 { 20 } else { 12 });
    g.guard_rate = 0.25;
    let nenv = g.rng.range(1, 4) as u16;
    g.env_regs(nenv);
    let block = if g.rng.chance(0.5) {
        let rows: Vec<[f32; 4]> = (0..4).map(|_| [(); 4].map(|_| g.rng.nice())).collect();
        g.def_rows(&rows)
    } else {
        g.env_regs(4)
    };
    let sincos = (!sm3).then(|| g.def_rows(&d3d::SINCOS));
    g.def_end = prof.limits().consts;
    let ops = d3d::generic_ops(prof);
    let mut ps = Ps {
        g,
        dcls: Vec::new(),
        ops,
        blocks: vec![block],
        sincos,
        units: Vec::new(),
        interps: Vec::new(),
        kills: false,
    };
    ps.kills = ps.g.rng.chance(0.4);
    ps.inputs(iface);
    ps.samplers();
    ps.g.reserve = 8;
    let target = ps.g.rng.range(3, 60);
    let mut step = 0;
    while ps.g.insts < target && ps.g.fits(Op::Mad, 4) {
        ps.step(step as f64 / target as f64);
        step += 1;
    }
    ps.g.reserve = 0;
    ps.outputs();
    ps.finish()
}

impl Ps {
    fn sm3(&self) -> bool {
        self.g.prof == Profile::Ps3_0
    }

    fn inputs(&mut self, iface: &Iface) {
        let sm3 = self.sm3();
        let mut k = 0u16;
        for v in &iface.vars {
            let mask = super::common::mask_text(v.mask);
            let cen = if self.g.rng.chance(0.05) {
                "_centroid"
            } else {
                ""
            };
            let pp = if !sm3 && self.g.rng.chance(0.1) {
                "_pp"
            } else {
                ""
            };
            let (line, text, port) = match v.kind {
                VKind::Tex(n) if !sm3 => (
                    format!("dcl{pp}{cen} t{n}{mask}"),
                    format!("t{n}"),
                    Port::TexCoord(u16::from(n)),
                ),
                VKind::Color(c) if !sm3 => (
                    format!("dcl{pp} v{c}{mask}"),
                    format!("v{c}"),
                    Port::Input(u16::from(c)),
                ),
                _ => {
                    let usage = match v.kind {
                        VKind::Tex(n) => format!("texcoord{n}"),
                        VKind::Color(c) => format!("color{c}"),
                        VKind::Fog => "fog".into(),
                    };
                    k += 1;
                    (
                        format!("dcl_{usage}{cen} v{}{mask}", k - 1),
                        format!("v{}", k - 1),
                        Port::Input(k - 1),
                    )
                }
            };
            self.dcls.push(line);
            let mut val = Val::new(text, port, v.mask, Info::new(v.mag, 0.0, Class::Affine));
            if v.w_pos {
                val.lanes[3].lo = 0.25;
            }
            self.interps.push(val.clone());
            self.g.pool.push(val);
        }
        if iface.wpos && sm3 {
            self.dcls.push("dcl vPos.xy".into());
            let v = Val::new(
                "vPos",
                Port::Free,
                3,
                Info::new(4096.0, 0.0, Class::Varying),
            );
            self.g.pool.push(v);
        }
    }

    fn samplers(&mut self) {
        let n = if self.g.rng.chance(0.1) {
            self.g.rng.range(5, 8)
        } else {
            self.g.rng.range(1, 4)
        };
        let mut free: Vec<u8> = (0..16).collect();
        for i in 0..n {
            let unit = if i == 0 && self.g.rng.chance(0.6) {
                0
            } else {
                free[self.g.rng.below(free.len())]
            };
            free.retain(|&u| u != unit);
            let (t, word) = self.g.rng.pick(&[
                (TexTarget::T2D, "2d"),
                (TexTarget::T2D, "2d"),
                (TexTarget::T2D, "2d"),
                (TexTarget::Cube, "cube"),
                (TexTarget::T3D, "volume"),
            ]);
            self.dcls.push(format!("dcl_{word} s{unit}"));
            self.units.push((unit, t));
        }
    }

    fn step(&mut self, phase: f64) {
        let p = self.g.prof;
        let w = [
            ((1.0 - phase) * 10.0) as u32 + 1,
            if self.g.fits(Op::Tex, 3) { 6 } else { 0 },
            9,
            u32::from(
                self.kills
                    && self.g.fits(Op::Texkil, 3)
                    && !self.g.body.iter().any(|l| l.starts_with("texkill")),
            ),
            1,
            u32::from(p.has(Op::Sincos)),
            u32::from(p.has(Op::Texldd) && self.g.fits(Op::Texldd, 3)),
            u32::from(p.has(Op::Texldl) && self.g.fits(Op::Texldl, 3)),
            1,
        ];
        match self.g.rng.weighted(&w) {
            0 => self.movable(),
            1 => {
                let op = self
                    .g
                    .rng
                    .pick(&[Op::Tex, Op::Tex, Op::Tex, Op::Txp, Op::Txb]);
                self.tex(op);
            }
            2 => {
                let want = if self.g.rng.chance(0.5) {
                    Want::Varying
                } else {
                    Want::Any
                };
                d3d::generic(&mut self.g, &self.ops, want);
            }
            3 => self.texkill(),
            4 => {
                let base = self.blocks[0];
                d3d::matrix(&mut self.g, base, None);
            }
            5 => d3d::sincos(&mut self.g, self.sincos),
            6 => self.tex(Op::Texldd),
            7 => self.tex(Op::Texldl),
            _ if self.g.rng.chance(0.3) => self.g.emit(
                Op::Nop,
                Mods::default(),
                None,
                &[],
                Info::new(0.0, 0.0, Class::Uniform),
            ),
            _ => {
                d3d::generic(&mut self.g, &self.ops, Want::Movable);
            }
        }
    }

    /// Address arithmetic and uniform helpers the optimizer can move.
    fn movable(&mut self) {
        let tc: Vec<Val> = self
            .interps
            .iter()
            .filter(|v| v.avail & 3 == 3)
            .cloned()
            .collect();
        match self.g.rng.below(6) {
            0 | 1 if !tc.is_empty() && self.g.literal_room() => {
                let v = tc[self.g.rng.below(tc.len())].clone();
                let d = self
                    .g
                    .rng
                    .pick(&[1.0 / 256.0, 1.0 / 512.0, 0.0039, 1.0 / 64.0]);
                let s = if self.g.rng.chance(0.5) { d } else { -d };
                let off = if self.g.rng.chance(0.5) {
                    [s, 0.0, 0.0, 0.0]
                } else {
                    [0.0, s, 0.0, 0.0]
                };
                let mut srcs = vec![self.g.whole(&v)];
                if self.g.rng.chance(0.4) {
                    let sc = [(); 4].map(|_| self.g.rng.pick(&[1.0, 2.0, 0.5, 0.25]));
                    if let Some(l) = self.g.literal(sc) {
                        srcs.push(self.g.whole(&l));
                    }
                }
                if let Some(l) = self.g.literal(off) {
                    srcs.push(self.g.whole(&l));
                }
                let op = [Op::Mov, Op::Add, Op::Mad][srcs.len() - 1];
                let mask = if v.avail == 15 && self.g.rng.chance(0.3) {
                    15
                } else {
                    3
                };
                let info = result_info(op, &srcs);
                let t = self.g.pick_dst(&[]);
                let dst = self.g.temp_dst(t, mask);
                let m = self.g.mods_for(op, false);
                self.g.emit(op, m, Some(&dst), &srcs, info);
            }
            2 => {
                let op = self.g.rng.pick(&[
                    Op::Rcp,
                    Op::Rsq,
                    Op::Mul,
                    Op::Add,
                    Op::Ex2,
                    Op::Pow,
                    Op::Lg2,
                ]);
                self.g.alu(op, Want::Uniform);
            }
            3 => {
                let op = self.g.rng.pick(&[Op::Dp3, Op::Dp4, Op::Dp2add]);
                self.g.alu(op, Want::Movable);
            }
            4 => {
                let op = self.g.rng.pick(&[Op::Lrp, Op::CmpGe]);
                self.g.alu(op, Want::Movable);
            }
            _ => {
                let op = self.g.rng.pick(&LINEAR);
                self.g.alu(op, Want::Movable);
            }
        }
    }

    fn target(&mut self) -> (u8, TexTarget) {
        self.units[self.g.rng.below(self.units.len())]
    }

    /// ps_2_0 dependent-read order of a read with this coordinate and destination.
    fn order(&self, coord: Option<u16>, dst: u16) -> i32 {
        let dep = |t: u16| self.g.temps[t as usize].dep.map_or(1, |k| (k + 1).max(1));
        let mut o = coord.map_or(0, dep);
        if self.g.temps[dst as usize].avail() != 0 {
            o = o.max(dep(dst));
        }
        o
    }

    /// `texld`, `texldp`, `texldb`, `texldd` or `texldl` into a temporary.
    fn tex(&mut self, op: Op) {
        let (unit, target) = self.target();
        let lanes = tex_coord_lanes(op, target).0;
        let need_w = op == Op::Txp;
        let Some(coord) = self.coord(lanes, need_w) else {
            return;
        };
        let mut ports = Ports::default();
        ports.add(coord.port);
        let mut grads = Vec::new();
        if op == Op::Texldd {
            let gl = tex_coord_lanes(Op::Tex, target).0;
            for _ in 0..2 {
                let req = Req::new(gl, Swz::Any, Want::Any).cond(Cond::Small(16.0));
                let busy: Vec<u16> = coord.temp_index().into_iter().collect();
                grads.push(self.g.src(req, &mut ports, &busy));
            }
        }
        let mut t = self.g.pick_dst(&[]);
        let limited = self.g.prof == Profile::Ps2_0;
        if limited && self.order(coord.temp_index(), t) > 3 {
            match self.g.new_temp() {
                Some(n) => t = n,
                None => return,
            }
            if self.order(coord.temp_index(), t) > 3 {
                return;
            }
        }
        let order = self.order(coord.temp_index(), t);
        let mask = if !self.sm3() || self.g.rng.chance(0.8) {
            15
        } else {
            self.g.rng.range(1, 15) as u8
        };
        let dst = self.g.temp_dst(t, mask);
        let mut srcs = vec![coord, Opnd::raw(format!("s{unit}"))];
        srcs.extend(grads);
        let m = Mods {
            sat: false,
            pp: self.g.rng.chance(0.15),
        };
        self.g.emit(
            op,
            m,
            Some(&dst),
            &srcs,
            Info::new(HOST, 0.0, Class::Varying),
        );
        self.g.temps[t as usize].dep = Some(order);
    }

    /// A texture coordinate reading `lanes` (w bounded away from zero when `need_w`): any
    /// operand in ps_3_0; an unswizzled `t#` or `r#` before, often a `mov r#.xy, t#` copy.
    fn coord(&mut self, lanes: u8, need_w: bool) -> Option<Opnd> {
        let w_ok = |lo: f32| !need_w || lo > 0.0;
        if self.sm3() && self.g.rng.chance(0.6) && !need_w {
            let mut ports = Ports::default();
            let want = if self.g.rng.chance(0.3) {
                Want::Varying
            } else {
                Want::Coord
            };
            return Some(
                self.g
                    .src(Req::new(lanes, Swz::Any, want).plain(), &mut ports, &[]),
            );
        }
        let direct: Vec<Val> = self
            .interps
            .iter()
            .filter(|v| v.avail & lanes == lanes && w_ok(v.lanes[3].lo))
            .filter(|v| self.g.prof == Profile::Ps3_0 || matches!(v.port, Port::TexCoord(_)))
            .cloned()
            .collect();
        let temps: Vec<u16> = (0..self.g.temps.len() as u16)
            .filter(|&t| {
                let tp = &self.g.temps[t as usize];
                (0..4).all(|c| lanes & (1 << c) == 0 || tp.lanes[c].is_some_and(|i| i.mag <= 1.0e4))
                    && (!need_w || tp.lanes[3].is_some_and(|i| w_ok(i.lo)))
            })
            .collect();
        let pick = self.g.rng.weighted(&[
            if direct.is_empty() { 0 } else { 4 },
            if temps.is_empty() { 0 } else { 3 },
            3,
        ]);
        match pick {
            0 => {
                let k = self.g.rng.below(direct.len());
                Some(self.g.whole(&direct[k]))
            }
            1 => {
                let t = self.g.rng.pick(&temps);
                Some(self.g.read_temp(t, [0, 1, 2, 3], lanes))
            }
            _ => {
                let copy = if need_w { lanes & 7 } else { lanes };
                let mut ports = Ports::default();
                let want = if self.g.rng.chance(0.3) {
                    Want::Varying
                } else {
                    Want::Coord
                };
                let s = self.g.src(Req::new(copy, Swz::Any, want), &mut ports, &[]);
                let busy: Vec<u16> = s.temp_index().into_iter().collect();
                let t = self.g.scratch(&busy);
                let d = self.g.temp_dst(t, copy);
                let info = s.info;
                self.g.emit(Op::Mov, Mods::default(), Some(&d), &[s], info);
                if need_w {
                    let mut ports = Ports::default();
                    let k = self.g.rng.pick(&[0.5f32, 1.0, 2.0]);
                    let w = self.g.scalar(k, &mut ports, &[t]);
                    let dw = self.g.temp_dst(t, 8);
                    let wi = w.info;
                    self.g.emit(Op::Mov, Mods::default(), Some(&dw), &[w], wi);
                }
                Some(self.g.read_temp(t, [0, 1, 2, 3], lanes))
            }
        }
    }

    /// `texkill` of a thresholded texel (`add r0, r1.w, -c0.x`) or of an interpolant.
    fn texkill(&mut self) {
        let direct: Vec<Val> = self
            .interps
            .iter()
            .filter(|v| v.avail & 7 == 7)
            .cloned()
            .collect();
        let texel = self.g.texel();
        let src = match texel {
            Some(v) if direct.is_empty() || self.g.rng.chance(0.8) => {
                let mut ports = Ports::default();
                let mask = if self.g.rng.chance(0.5) { 15 } else { 7 };
                let busy: Vec<u16> = v.temp_index().into_iter().collect();
                let k = self.g.rng.pick(&[0.25f32, 0.1, 0.1, 0.5]);
                let mut kk = self.g.scalar(k, &mut ports, &busy);
                kk.neg = true;
                let t = self.g.scratch(&busy);
                let d = self.g.temp_dst(t, mask);
                let info = result_info(Op::Add, &[v.clone(), kk.clone()]);
                self.g
                    .emit(Op::Add, Mods::default(), Some(&d), &[v, kk], info);
                self.g.read_temp(t, [0, 1, 2, 3], 7)
            }
            _ if !direct.is_empty() => {
                let k = self.g.rng.below(direct.len());
                self.g.whole(&direct[k])
            }
            _ => return,
        };
        self.g.emit(
            Op::Texkil,
            Mods::default(),
            None,
            &[src],
            Info::new(0.0, 0.0, Class::Varying),
        );
    }

    fn outputs(&mut self) {
        let dst = DstReg::out("oC0", 15);
        let ops = [
            Op::Mov,
            Op::Mov,
            Op::Mov,
            Op::Mul,
            Op::Mad,
            Op::Add,
            Op::CmpGe,
        ];
        if self.sm3() && self.g.rng.chance(0.3) {
            let mut lanes = vec![0u8, 1, 2, 3];
            if self.g.rng.chance(0.4) {
                lanes.reverse();
            }
            for c in lanes {
                let d = DstReg {
                    mask: 1 << c,
                    ..dst.clone()
                };
                self.g.value_into(&d, &ops, 1.0e9, Want::Live);
            }
        } else {
            self.g.value_into(&dst, &ops, 1.0e9, Want::Live);
        }
        if self.g.rng.chance(0.1) {
            let d = DstReg {
                bare: true,
                ..DstReg::out("oDepth", 1)
            };
            let mut ports = Ports::default();
            let v = self
                .g
                .src(Req::new(1, Swz::Scalar, Want::Varying), &mut ports, &[]);
            let info = v.info;
            self.g.emit(Op::Mov, Mods::default(), Some(&d), &[v], info);
        }
    }

    fn finish(mut self) -> String {
        let mut decls = d3d::defs(&self.g);
        decls.append(&mut self.dcls);
        let comment = self.g.rng.chance(0.2);
        d3d::text(self.g.prof.header(), comment, &decls, &self.g.body)
    }
}

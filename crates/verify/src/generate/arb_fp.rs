//! `!!ARBfp1.0` fragment programs of 3–60 instructions.
//!
//! Early steps favour work the optimizer can move: neighbour offsets and scaled texture
//! coordinates from interpolants and literals, uniform helpers (`RCP r.w, c.x`), dot
//! products of interpolants with parameters, `LRP`/`CMP` with uniform selectors. Later
//! steps favour texture reads (`TEX`/`TXP`/`TXB` on 1D/2D/3D/CUBE/RECT units, one target per
//! unit, at most four indirections) and math on their results, non-linear ops on
//! interpolants and `KIL`. The colour is written whole or per component, often `_SAT`, and
//! sometimes `result.depth` too.

use super::arb;
use super::arith::result_info;
use super::builder::{
    Class, DstReg, Gen, HOST, Info, Mods, Opnd, Port, Ports, Req, Swz, Val, Want,
};
use super::common::{Iface, Reach, Rng, VKind};
use hoist_asm::ir::TexTarget;
use hoist_asm::ops::tex_coord_lanes;
use hoist_asm::{Op, Profile};
use hoist_raster::texture::is_shadow;

/// The ARBfp1.0 arithmetic opcodes of the generic step.
const OPS: [(Op, u32); 28] = [
    (Op::Abs, 3),
    (Op::Add, 8),
    (Op::Cmp, 3),
    (Op::Cos, 2),
    (Op::Dp3, 7),
    (Op::Dp4, 4),
    (Op::Dph, 3),
    (Op::Dst, 2),
    (Op::Ex2, 2),
    (Op::Flr, 2),
    (Op::Frc, 2),
    (Op::Lg2, 2),
    (Op::Lit, 2),
    (Op::Lrp, 4),
    (Op::Mad, 9),
    (Op::Max, 3),
    (Op::Min, 3),
    (Op::Mov, 5),
    (Op::Mul, 9),
    (Op::Pow, 2),
    (Op::Rcp, 3),
    (Op::Rsq, 3),
    (Op::Scs, 2),
    (Op::Sge, 2),
    (Op::Sin, 2),
    (Op::Slt, 2),
    (Op::Sub, 4),
    (Op::Xpd, 2),
];

/// Affine and uniform-only opcodes for movable chains.
const LINEAR: [Op; 9] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::Mad,
    Op::Mov,
    Op::Dp3,
    Op::Dp4,
    Op::Dph,
    Op::Lrp,
];

struct Fp<'a> {
    g: Gen,
    iface: &'a Iface,
    lines: Vec<String>,
    options: Vec<&'static str>,
    outs: Vec<(String, String)>,
    units: Vec<(u8, TexTarget)>,
    /// Interpolants: the value and, for texture coordinates, whether w is positive.
    interps: Vec<Val>,
    /// Whether this program may have an alpha test.
    kills: bool,
    /// Whether units may take shadow targets ([`Reach::Shadow`]).
    shadow: bool,
}

pub(super) fn generate(rng: Rng, iface: &Iface, reach: Reach) -> String {
    let mut g = Gen::new(rng, Profile::ArbFp1, 0);
    g.temp_cap = g.rng.range(6, 16);
    arb::style(&mut g);
    g.reserve = 6;
    let mut fp = Fp {
        g,
        iface,
        lines: Vec::new(),
        options: Vec::new(),
        outs: Vec::new(),
        units: Vec::new(),
        interps: Vec::new(),
        kills: false,
        shadow: reach == Reach::Shadow,
    };
    fp.kills = fp.g.rng.chance(0.4);
    fp.setup();
    let target = fp.g.rng.range(3, 54);
    let mut step = 0;
    while fp.g.insts < target && fp.g.fits(Op::Mad, 4) {
        let phase = step as f64 / target as f64;
        fp.step(phase);
        step += 1;
    }
    fp.g.reserve = 0;
    fp.outputs();
    fp.finish()
}

impl Fp<'_> {
    fn setup(&mut self) {
        let g = &mut self.g;
        if g.rng.chance(0.3) {
            self.options.push(
                g.rng
                    .pick(&["ARB_precision_hint_fastest", "ARB_precision_hint_nicest"]),
            );
        }
        for v in &self.iface.vars {
            let binding = match v.kind {
                VKind::Tex(n) => format!("fragment.texcoord[{n}]"),
                VKind::Color(0) => "fragment.color".into(),
                VKind::Color(_) => "fragment.color.secondary".into(),
                VKind::Fog => "fragment.fogcoord".into(),
            };
            let text = if g.rng.chance(0.2) {
                let name = format!("a{}", self.lines.len());
                self.lines.push(format!("ATTRIB {name} = {binding};"));
                name
            } else {
                binding
            };
            let mut val = Val::new(
                text,
                Port::Free,
                v.mask,
                Info::new(v.mag, 0.0, Class::Affine),
            );
            if v.w_pos {
                val.lanes[3].lo = 0.25;
            }
            self.interps.push(val.clone());
            g.pool.push(val);
        }
        if self.iface.wpos {
            let v = Val::new(
                "fragment.position",
                Port::Free,
                15,
                Info::new(4096.0, 0.0, Class::Varying),
            );
            g.pool.push(v);
        }
        for _ in 0..g.rng.range(1, 4) {
            let b = if g.rng.chance(0.5) {
                arb::program_param(g)
            } else {
                state_binding(g)
            };
            arb::uniform(g, b, &mut self.lines);
        }
        for _ in 0..g.rng.range(0, 3) {
            let v = [(); 4].map(|_| g.rng.nice());
            g.literal(v);
        }
        let nunits = if g.rng.chance(0.1) {
            g.rng.range(5, 8)
        } else {
            g.rng.range(1, 4)
        };
        let mut free: Vec<u8> = (0..16).collect();
        for i in 0..nunits {
            let unit = if i == 0 && g.rng.chance(0.6) {
                0
            } else {
                free[g.rng.below(free.len())]
            };
            free.retain(|&u| u != unit);
            let target = [
                TexTarget::T2D,
                TexTarget::T2D,
                TexTarget::T2D,
                TexTarget::T1D,
                TexTarget::T3D,
                TexTarget::Cube,
                TexTarget::Cube,
                TexTarget::Rect,
            ];
            let mut t = g.rng.pick(&target);
            // Drawn only with shadow targets on, so other pairs keep their draws.
            if self.shadow && g.rng.chance(0.35) {
                t = match t {
                    TexTarget::T1D => TexTarget::Shadow1D,
                    TexTarget::Rect => TexTarget::ShadowRect,
                    TexTarget::T2D => TexTarget::Shadow2D,
                    other => other,
                };
            }
            self.units.push((unit, t));
        }
        if self.units.iter().any(|u| is_shadow(u.1)) {
            self.options.push("ARB_fragment_program_shadow");
        }
        if g.rng.chance(0.15) {
            self.lines.push("OUTPUT oCol = result.color;".into());
            self.outs.push(("oCol".into(), "result.color".into()));
        }
    }

    fn step(&mut self, phase: f64) {
        let w_movable = ((1.0 - phase) * 10.0) as u32 + 1;
        let w_tex = if self.g.fits(Op::Tex, 2) { 5 } else { 0 };
        let w_kil = u32::from(
            self.kills
                && self.g.fits(Op::Kil, 2)
                && !self.g.body.iter().any(|l| l.starts_with("KIL")),
        );
        let weights = [w_movable, w_tex, 8, w_kil, 1];
        match self.g.rng.weighted(&weights) {
            0 => self.movable(),
            1 => self.tex(),
            2 => {
                let w: Vec<u32> = OPS.iter().map(|o| o.1).collect();
                let op = OPS[self.g.rng.weighted(&w)].0;
                let want = if self.g.rng.chance(0.5) {
                    Want::Varying
                } else {
                    Want::Any
                };
                self.g.alu(op, want);
            }
            3 => self.kil(),
            _ => {
                arb::swz(&mut self.g, Want::Any);
            }
        }
    }

    /// Work the optimizer can move to the vertex program.
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
                let d =
                    self.g
                        .rng
                        .pick(&[1.0 / 256.0, 1.0 / 512.0, 0.0039, 1.0 / 64.0, 2.0 / 256.0]);
                let s = if self.g.rng.chance(0.5) { d } else { -d };
                let off = if self.g.rng.chance(0.5) {
                    [s, 0.0, 0.0, 0.0]
                } else {
                    [0.0, s, 0.0, 0.0]
                };
                let op = if self.g.rng.chance(0.5) {
                    Op::Add
                } else {
                    Op::Mad
                };
                let mut srcs = vec![self.g.whole(&v)];
                if op == Op::Mad {
                    let sc = [(); 4].map(|_| self.g.rng.pick(&[1.0, 2.0, 0.5, 0.25]));
                    if let Some(l) = self.g.literal(sc) {
                        srcs.push(self.g.whole(&l));
                    }
                }
                if let Some(l) = self.g.literal(off) {
                    srcs.push(self.g.whole(&l));
                }
                let op = if srcs.len() == 3 {
                    Op::Mad
                } else if srcs.len() == 2 {
                    Op::Add
                } else {
                    Op::Mov
                };
                let mask = if v.avail == 15 && self.g.rng.chance(0.5) {
                    15
                } else {
                    v.avail & 3
                };
                let info = result_info(op, &srcs);
                let t = self.g.pick_dst(&[]);
                let dst = self.g.temp_dst(t, mask);
                self.g.emit(op, Mods::default(), Some(&dst), &srcs, info);
            }
            2 => self.uniform_helper(),
            3 => {
                let op = self.g.rng.pick(&[Op::Dp3, Op::Dp4, Op::Dph]);
                let mut ports = Ports::default();
                let a = self.g.src(
                    Req::new(Gen::lanes(op, 0, 1), Swz::Any, Want::Movable),
                    &mut ports,
                    &[],
                );
                let b = self.g.src(
                    Req::new(Gen::lanes(op, 1, 1), Swz::Any, Want::Uniform),
                    &mut ports,
                    &[],
                );
                let srcs = [a, b];
                let info = result_info(op, &srcs);
                let t = self.g.pick_dst(&[]);
                let c = self.g.rng.below(4);
                let dst = self.g.temp_dst(t, 1 << c);
                self.g.emit(op, Mods::default(), Some(&dst), &srcs, info);
            }
            4 => {
                let op = self.g.rng.pick(&[Op::Lrp, Op::Cmp]);
                self.g.alu(op, Want::Movable);
            }
            _ => {
                let op = self.g.rng.pick(&LINEAR);
                self.g.alu(op, Want::Movable);
            }
        }
    }

    /// `RCP r.w, c.x` and other functions of constants only.
    fn uniform_helper(&mut self) {
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

    fn tex(&mut self) {
        let (unit, target) = self.units[self.g.rng.below(self.units.len())];
        let mut op = self
            .g
            .rng
            .pick(&[Op::Tex, Op::Tex, Op::Tex, Op::Txp, Op::Txb]);
        let want = if self.g.rng.chance(0.3) {
            Want::Varying
        } else {
            Want::Coord
        };
        let mut coord = None;
        if op == Op::Txp {
            coord = self.projective(target);
            if coord.is_none() {
                op = Op::Tex;
            }
        }
        let lanes = tex_coord_lanes(op, target).0;
        let coord = match coord {
            Some(c) => c,
            None => {
                let mut ports = Ports::default();
                self.g.src(Req::new(lanes, Swz::Any, want), &mut ports, &[])
            }
        };
        let mut t = self.g.pick_dst(&[]);
        if self.g.tex_dependent(coord.temp_index(), Some(t)) && self.g.phases >= 4 {
            let bit = |t: u16| 1u64 << (t & 63);
            let clean: Vec<u16> = (0..self.g.temps.len() as u16)
                .filter(|&x| self.g.phase_alu & bit(x) == 0)
                .collect();
            t = match self.g.new_temp() {
                Some(n) => n,
                None if !clean.is_empty() => self.g.rng.pick(&clean),
                None => return,
            };
            if self.g.tex_dependent(coord.temp_index(), Some(t)) {
                return;
            }
        }
        let mask = if self.g.rng.chance(0.8) {
            15
        } else {
            self.g.rng.range(1, 15) as u8
        };
        let dst = self.g.temp_dst(t, mask);
        let tname = match target {
            TexTarget::T1D => "1D",
            TexTarget::T3D => "3D",
            TexTarget::Cube => "CUBE",
            TexTarget::Rect => "RECT",
            TexTarget::Shadow1D => "SHADOW1D",
            TexTarget::Shadow2D => "SHADOW2D",
            TexTarget::ShadowRect => "SHADOWRECT",
            _ => "2D",
        };
        let srcs = [
            coord,
            Opnd::raw(format!("texture[{unit}]")),
            Opnd::raw(tname),
        ];
        let m = self.g.mods_for(op, false);
        self.g.emit(
            op,
            m,
            Some(&dst),
            &srcs,
            Info::new(HOST, 0.0, Class::Varying),
        );
    }

    /// A coordinate for `TXP` with w bounded away from zero: an interpolant whose vertex
    /// program writes a positive w, or a temporary assembled with one.
    fn projective(&mut self, target: TexTarget) -> Option<Opnd> {
        let lanes = tex_coord_lanes(Op::Tex, target).0;
        let direct: Vec<Val> = self
            .interps
            .iter()
            .filter(|v| v.avail == 15 && v.lanes[3].lo > 0.0)
            .cloned()
            .collect();
        if !direct.is_empty() && self.g.rng.chance(0.7) {
            let v = direct[self.g.rng.below(direct.len())].clone();
            return Some(self.g.whole(&v));
        }
        if self.g.phases >= 4 {
            return None;
        }
        let mut ports = Ports::default();
        let c = self
            .g
            .src(Req::new(lanes, Swz::Any, Want::Movable), &mut ports, &[]);
        let busy: Vec<u16> = c.temp_index().into_iter().collect();
        let t = self.g.scratch(&busy);
        let d = self.g.temp_dst(t, lanes);
        let info = c.info;
        self.g.emit(Op::Mov, Mods::default(), Some(&d), &[c], info);
        let mut ports = Ports::default();
        let k = self.g.rng.pick(&[0.5, 1.0, 2.0]);
        let w = self.g.scalar(k, &mut ports, &[t]);
        let dw = self.g.temp_dst(t, 8);
        let wi = w.info;
        self.g.emit(Op::Mov, Mods::default(), Some(&dw), &[w], wi);
        Some(self.g.read_temp(t, [0, 1, 2, 3], lanes | 8))
    }

    /// An alpha test: `SUB t.x, texel.w, threshold; KIL t.x`, or `KIL` of a texel.
    fn kil(&mut self) {
        let Some(v) = self.g.texel() else {
            return;
        };
        let src = if self.g.rng.chance(0.8) {
            let mut ports = Ports::default();
            let busy: Vec<u16> = v.temp_index().into_iter().collect();
            let k = self.g.rng.pick(&[0.25, 0.1, 0.1, 0.5]);
            let kk = self.g.scalar(k, &mut ports, &busy);
            let t = self.g.scratch(&busy);
            let c = self.g.rng.below(4) as u8;
            let d = self.g.temp_dst(t, 1 << c);
            let info = result_info(Op::Sub, &[v.clone(), kk.clone()]);
            self.g
                .emit(Op::Sub, Mods::default(), Some(&d), &[v, kk], info);
            self.g.read_temp(t, [c; 4], 1 << c)
        } else {
            v
        };
        self.g.emit(
            Op::Kil,
            Mods::default(),
            None,
            &[src],
            Info::new(0.0, 0.0, Class::Varying),
        );
    }

    fn outputs(&mut self) {
        let dst = arb::out(&self.outs, "result.color", 15);
        if self.g.rng.chance(0.35) {
            let mut lanes: Vec<u8> = vec![0, 1, 2, 3];
            if self.g.rng.chance(0.4) {
                lanes.reverse();
            }
            for c in lanes {
                let d = DstReg {
                    mask: 1 << c,
                    ..dst.clone()
                };
                self.color_into(&d);
            }
        } else {
            self.color_into(&dst);
        }
        if self.g.rng.chance(0.12) {
            let d = DstReg::out("result.depth", 4);
            let mut ports = Ports::default();
            let v = self
                .g
                .src(Req::new(4, Swz::Scalar, Want::Varying), &mut ports, &[]);
            let info = Info::new(1.0, 0.0, Class::Varying);
            self.g.emit(
                Op::Mov,
                Mods {
                    sat: true,
                    pp: false,
                },
                Some(&d),
                &[v],
                info,
            );
        }
    }

    fn color_into(&mut self, dst: &DstReg) {
        let ops = [
            Op::Mov,
            Op::Mov,
            Op::Mul,
            Op::Mad,
            Op::Add,
            Op::Lrp,
            Op::Cmp,
        ];
        self.g.value_into(dst, &ops, 1.0e9, Want::Live);
    }

    fn finish(self) -> String {
        let mut text = String::from("!!ARBfp1.0\n");
        for l in arb::declarations(&self.g, &self.options, &self.lines) {
            text.push_str(&l);
            text.push('\n');
        }
        for l in &self.g.body {
            text.push_str(l);
            text.push('\n');
        }
        text.push_str("END\n");
        text
    }
}

/// A fragment-stage `state.*` vector.
fn state_binding(g: &mut Gen) -> String {
    let n = g.rng.below(4);
    match g.rng.below(7) {
        0 => format!("state.texenv[{n}].color"),
        1 => "state.depth.range".into(),
        2 => format!("state.fog.{}", g.rng.pick(&["color", "params"])),
        3 => format!(
            "state.material.{}",
            g.rng.pick(&["diffuse", "ambient", "specular", "shininess"])
        ),
        4 => format!(
            "state.light[{n}].{}",
            g.rng.pick(&["diffuse", "position", "half"])
        ),
        5 => format!(
            "state.lightprod[{n}].{}",
            g.rng.pick(&["diffuse", "specular"])
        ),
        _ => format!(
            "state.matrix.{}.row[{}]",
            g.rng.pick(&["modelview", "projection", "texture[0]"]),
            g.rng.below(4)
        ),
    }
}

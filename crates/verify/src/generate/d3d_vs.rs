//! Direct3D 9 vertex shaders (vs_1_1, vs_2_0, vs_2_x, vs_3_0), the way fxc writes them.
//!
//! Inputs are `dcl_<usage>` attributes; constants are a `def`'d position matrix at c0–c3,
//! host-set registers, a `def`'d table for `c[a0.x + n]` reads (vs_1_1 `mov a0.x`, later
//! `mova`) and packed literals. Position is `m4x4 oPos, v0, c0`, four `dp4`s in any order,
//! through a temporary or a plain `mov`. The body draws every arithmetic opcode the profile
//! has, matrix macros, `sincos`, `sgn`, `nop` and, in vs_3_0, `texldl`. Outputs are written
//! whole, per component or as dot products, one constant register per instruction; vs_3_0
//! declares its outputs with semantics (`dcl_texcoord0 o1.xy`).

use super::builder::{
    BIG, Class, Cond, DstReg, Gen, HOST, Info, Mods, Opnd, Port, Ports, Req, Swz, Val, Want,
};
use super::common::{Iface, Rng, VKind};
use super::d3d;
use hoist_asm::ops::tex_coord_lanes;
use hoist_asm::{Op, Profile};

struct Vs {
    g: Gen,
    dcls: Vec<String>,
    ops: Vec<(Op, u32)>,
    /// Bases of four-row constant blocks for matrix macros.
    blocks: Vec<u16>,
    /// The `c[a0 + n]` table: base and length.
    table: (u16, u16),
    sincos: Option<u16>,
    samplers: Vec<u8>,
    /// Outputs to write: register, mask, bound, positive w.
    pending: Vec<(String, u8, f32, bool)>,
    position: String,
    /// `v#` of the position and of texcoord0, if declared.
    pos_reg: Val,
    tc0: Option<Val>,
    /// vs_3_0 output registers declared as texture coordinates.
    texcoord_outs: Vec<String>,
    /// How each output register is filled (`varyings`), when not computed.
    forms: Vec<(String, super::common::VForm)>,
}

pub(super) fn generate(rng: Rng, prof: Profile, iface: &Iface) -> String {
    let cap = if prof == Profile::Vs3_0 { 20 } else { 12 };
    let mut g = Gen::new(rng, prof, cap);
    g.guard_rate = 0.2;
    let rows = position_matrix(&mut g);
    let mvp = g.def_rows(&rows);
    let nenv = g.rng.range(2, 8) as u16;
    g.env_regs(nenv);
    let mut blocks = vec![mvp];
    if g.rng.chance(0.5) {
        let rows: Vec<[f32; 4]> = (0..4).map(|_| [(); 4].map(|_| g.rng.nice())).collect();
        blocks.push(g.def_rows(&rows));
    } else {
        blocks.push(g.env_regs(4));
    }
    let len = g.rng.range(3, 8);
    let rows: Vec<[f32; 4]> = (0..len).map(|_| [(); 4].map(|_| g.rng.nice())).collect();
    let table = (g.def_rows(&rows), len as u16);
    let sincos = (prof.has(Op::Sincos) && prof != Profile::Vs3_0).then(|| g.def_rows(&d3d::SINCOS));
    g.def_end = prof.limits().consts;
    let ops = d3d::generic_ops(prof);
    let pos_reg = Val::new(
        "v0",
        Port::Input(0),
        15,
        Info::new(1.0, 0.0, Class::Varying),
    );
    let mut vs = Vs {
        g,
        dcls: Vec::new(),
        ops,
        blocks,
        table,
        sincos,
        samplers: Vec::new(),
        pending: Vec::new(),
        position: "oPos".into(),
        pos_reg,
        tc0: None,
        texcoord_outs: Vec::new(),
        forms: Vec::new(),
    };
    vs.inputs();
    vs.outputs(iface);
    vs.g.reserve = 4 * vs.pending.len() as u32 + 6;
    let target = vs.g.rng.range(5, 80);
    vs.position();
    while vs.g.insts < target && vs.g.fits(Op::M4x4, 4) {
        vs.step();
    }
    vs.g.reserve = 0;
    while let Some((r, m, b, w)) = vs.pending.pop() {
        vs.write(&r, m, b, w);
    }
    vs.finish()
}

/// Rows of the object-to-clip matrix: identity, sometimes with a small scale or shift that
/// keeps the quad covering most of the target.
fn position_matrix(g: &mut Gen) -> Vec<[f32; 4]> {
    let s = if g.rng.chance(0.3) {
        g.rng.pick(&[1.0, 1.25, 0.75])
    } else {
        1.0
    };
    let d = if g.rng.chance(0.2) {
        g.rng.pick(&[0.0, 0.125, -0.125])
    } else {
        0.0
    };
    vec![
        [s, 0.0, 0.0, d],
        [0.0, s, 0.0, -d],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

impl Vs {
    /// `dcl_position v#` and a random set of other attributes.
    fn inputs(&mut self) {
        let g = &mut self.g;
        let mut usages: Vec<&str> = vec!["position", "texcoord0"];
        for u in [
            "normal",
            "texcoord1",
            "texcoord2",
            "color0",
            "color1",
            "tangent",
            "binormal",
            "blendweight",
            "blendindices",
        ] {
            if g.rng.chance(0.3) {
                usages.push(u);
            }
        }
        if g.rng.chance(0.3) {
            usages.retain(|&u| u != "texcoord0");
        }
        for i in (1..usages.len()).rev() {
            let j = g.rng.below(i + 1);
            usages.swap(i, j);
        }
        for (k, u) in usages.iter().enumerate() {
            self.dcls.push(format!("dcl_{u} v{k}"));
            let mag = if matches!(
                *u,
                "position" | "texcoord0" | "color0" | "color1" | "normal"
            ) {
                1.0
            } else {
                HOST
            };
            let class = if matches!(*u, "position" | "texcoord0") {
                Class::Varying
            } else {
                Class::Uniform
            };
            let v = Val::new(
                format!("v{k}"),
                Port::Input(k as u16),
                15,
                Info::new(mag, 0.0, class),
            );
            if *u == "position" {
                self.pos_reg = v.clone();
            }
            if *u == "texcoord0" {
                self.tc0 = Some(v.clone());
            }
            g.pool.push(v);
        }
        if g.prof == Profile::Vs3_0 && g.rng.chance(0.4) {
            for s in 0..g.rng.range(1, 2) as u8 {
                let t = g.rng.pick(&["2d", "2d", "cube", "volume"]);
                self.dcls.push(format!("dcl_{t} s{s}"));
                self.samplers.push(s);
            }
        }
    }

    /// The output registers: those the pixel shader reads and a few more.
    fn outputs(&mut self, iface: &Iface) {
        let sm3 = self.g.prof == Profile::Vs3_0;
        let mut outs: Vec<(String, u8, f32, bool)> = Vec::new();
        let mut forms = Vec::new();
        for v in &iface.vars {
            let (usage, mask) = match v.kind {
                VKind::Tex(n) => (format!("texcoord{n}"), v.mask),
                VKind::Color(c) => (format!("color{c}"), v.mask),
                VKind::Fog => ("fog".to_string(), 1),
            };
            let reg = match v.kind {
                _ if sm3 => usage,
                VKind::Tex(n) => format!("oT{n}"),
                VKind::Color(c) => format!("oD{c}"),
                VKind::Fog => "oFog".into(),
            };
            outs.push((reg, mask, v.mag, v.w_pos));
            forms.push(v.form);
        }
        for (reg, usage) in [("oFog", "fog"), ("oPts", "psize")] {
            let taken = outs.iter().any(|o| o.0 == reg || o.0 == usage);
            if !taken && self.g.rng.chance(0.12) {
                outs.push((
                    if sm3 {
                        usage.to_string()
                    } else {
                        reg.to_string()
                    },
                    1,
                    BIG,
                    false,
                ));
            }
        }
        if !sm3 && !outs.iter().any(|o| o.0 == "oD1") && self.g.rng.chance(0.1) {
            outs.push(("oD1".into(), 15, BIG, false));
        }
        if sm3 {
            outs.truncate(11);
            let n = outs.len() + 1;
            let mut regs: Vec<usize> = (0..n.max(self.g.rng.range(n, 12))).collect();
            if self.g.rng.chance(0.5) {
                for i in (1..regs.len()).rev() {
                    let j = self.g.rng.below(i + 1);
                    regs.swap(i, j);
                }
            }
            self.position = format!("o{}", regs[0]);
            self.dcls.push(format!("dcl_position o{}", regs[0]));
            for (k, o) in outs.iter_mut().enumerate() {
                let r = format!("o{}", regs[k + 1]);
                let mask = if o.1 == 15 {
                    String::new()
                } else {
                    super::common::mask_text(o.1)
                };
                self.dcls.push(format!("dcl_{} {r}{mask}", o.0));
                if o.0.starts_with("texcoord") {
                    self.texcoord_outs.push(r.clone());
                }
                o.0 = r;
            }
        }
        self.forms = outs
            .iter()
            .zip(&forms)
            .map(|(o, f)| (o.0.clone(), *f))
            .collect();
        for i in (1..outs.len()).rev() {
            let j = self.g.rng.below(i + 1);
            outs.swap(i, j);
        }
        self.pending = outs;
    }

    fn position(&mut self) {
        let dst = DstReg::out(self.position.clone(), 15);
        let pos = self.g.whole(&self.pos_reg.clone());
        let base = self.blocks[0];
        let rows = self
            .g
            .pool
            .iter()
            .find(|p| p.port == Port::Const(base))
            .cloned();
        let info = Info::new(4.0, 0.0, Class::Varying);
        match (self.g.rng.below(10), rows) {
            (0 | 1, _) | (_, None) => {
                self.g
                    .emit(Op::Mov, Mods::default(), Some(&dst), &[pos], info)
            }
            (2..=4, Some(_)) => {
                let mut order = [0u16, 1, 2, 3];
                if self.g.rng.chance(0.4) {
                    order.reverse();
                }
                for c in order {
                    let row = self
                        .g
                        .pool
                        .iter()
                        .find(|p| p.port == Port::Const(base + c))
                        .cloned();
                    let Some(row) = row else { continue };
                    let r = self.g.whole(&row);
                    let d = DstReg {
                        mask: 1 << c,
                        ..dst.clone()
                    };
                    self.g
                        .emit(Op::Dp4, Mods::default(), Some(&d), &[pos.clone(), r], info);
                }
            }
            (5, Some(rows)) => {
                let t = self.g.new_temp().unwrap_or(0);
                let m = self.g.whole(&rows);
                let td = self.g.temp_dst(t, 15);
                self.g
                    .emit(Op::M4x4, Mods::default(), Some(&td), &[pos, m], info);
                let r = self.g.read_temp(t, [0, 1, 2, 3], 15);
                self.g
                    .emit(Op::Mov, Mods::default(), Some(&dst), &[r], info);
            }
            (_, Some(rows)) => {
                let m = self.g.whole(&rows);
                self.g
                    .emit(Op::M4x4, Mods::default(), Some(&dst), &[pos, m], info);
            }
        }
    }

    fn step(&mut self) {
        if !self.pending.is_empty() && self.g.rng.chance(0.1) {
            let (r, m, b, w) = self.pending.pop().expect("pending output");
            self.write(&r, m, b, w);
            return;
        }
        let prof = self.g.prof;
        match self.g.rng.below(24) {
            0 | 1 => {
                let base = self.g.rng.pick(&self.blocks);
                d3d::matrix(&mut self.g, base, None);
            }
            2 if prof.has(Op::Sincos) => d3d::sincos(&mut self.g, self.sincos),
            3 if prof.has(Op::Sgn) => d3d::sgn(&mut self.g),
            4 | 5 => self.relative(),
            6 if !self.samplers.is_empty() => self.texldl(),
            7 if self.g.rng.chance(0.2) => self.g.emit(
                Op::Nop,
                Mods::default(),
                None,
                &[],
                Info::new(0.0, 0.0, Class::Uniform),
            ),
            _ => {
                d3d::generic(&mut self.g, &self.ops, Want::Any);
            }
        }
    }

    /// `mova a0.x, i` (vs_1_1: `mov a0.x, i`) with `i` in a known range, then a read of
    /// `c[a0.x + n]` inside the table.
    fn relative(&mut self) {
        if !self.g.fits(Op::Mova, 6) {
            return;
        }
        let vs11 = self.g.prof == Profile::Vs1_1;
        let comp = if vs11 { 0 } else { self.g.rng.below(4) as u8 };
        let (src, hi) = self.index();
        let mut src = src;
        src.swz = [src.swz[0]; 4];
        let dst = DstReg::out("a0", 1 << comp);
        self.g.emit(
            Op::Mova,
            Mods::default(),
            Some(&dst),
            &[src],
            Info::new(1.0, 0.0, Class::Varying),
        );
        let (base, len) = self.table;
        if i32::from(len) < hi + 1 {
            return;
        }
        let k = self.g.rng.below((i32::from(len) - hi) as usize) as u16;
        let c = base + k;
        self.g.pool.retain(|v| !matches!(v.port, Port::Rel(_)));
        let text = format!("c[a0.{} + {c}]", super::common::XYZW[comp as usize]);
        let info = Info::new(2.0, 0.0, Class::Varying);
        let val = Val::new(text, Port::Rel(c), 15, info);
        self.g.pool.push(val.clone());
        let op = self
            .g
            .rng
            .pick(&[Op::Mov, Op::Mul, Op::Add, Op::Dp4, Op::Mad]);
        let mut ports = Ports::default();
        ports.add(Port::Rel(c));
        let mut srcs = vec![self.g.whole(&val)];
        for i in 1..op.info().srcs as usize {
            let need = Gen::lanes(op, i, 15);
            srcs.push(
                self.g
                    .src(Req::new(need, Swz::Any, Want::Any), &mut ports, &[]),
            );
        }
        if op == Op::Mad && self.g.rng.chance(0.5) {
            srcs.swap(0, 1);
        }
        let mask = if op == Op::Dp4 {
            1 << self.g.rng.below(4)
        } else {
            15
        };
        let info = super::arith::result_info(op, &srcs);
        let t = self.g.pick_dst(&[]);
        let d = self.g.temp_dst(t, mask);
        self.g.emit(op, Mods::default(), Some(&d), &srcs, info);
    }

    /// A value in `[0, hi]` at every vertex of the quad, for the address register.
    fn index(&mut self) -> (Opnd, i32) {
        let tc = self.tc0.clone();
        match (self.g.rng.below(3), tc) {
            (0, Some(tc)) => {
                let c = self.g.rng.below(2) as u8;
                (self.g.lane(&tc, c), 1)
            }
            (1, Some(tc)) => {
                let k = self.g.rng.pick(&[2.0f32, 3.0]);
                let t = self.g.scratch(&[]);
                let mut ports = Ports::default();
                let c = self.g.rng.below(2) as u8;
                let a = self.g.lane(&tc, c);
                ports.add(a.port);
                let kk = self.g.scalar(k, &mut ports, &[t]);
                let d = self.g.temp_dst(t, 1);
                self.g.emit(
                    Op::Mul,
                    Mods::default(),
                    Some(&d),
                    &[a, kk],
                    Info::new(k, 0.0, Class::Varying),
                );
                (self.g.read_temp(t, [0; 4], 1), k as i32)
            }
            _ => {
                let t = self.g.scratch(&[]);
                let mut ports = Ports::default();
                let c = self.g.rng.below(2) as u8;
                let a = self.g.lane(&self.pos_reg.clone(), c);
                ports.add(a.port);
                let h = self.g.scalar(0.5, &mut ports, &[t]);
                let d = self.g.temp_dst(t, 1);
                let info = Info::new(1.0, 0.0, Class::Varying);
                self.g
                    .emit(Op::Mad, Mods::default(), Some(&d), &[a, h.clone(), h], info);
                (self.g.read_temp(t, [0; 4], 1), 1)
            }
        }
    }

    /// vs_3_0 vertex texture fetch: `texldl r#, coord, s#` (LOD in w).
    fn texldl(&mut self) {
        let s = self.g.rng.pick(&self.samplers);
        let line = self
            .dcls
            .iter()
            .find(|l| l.ends_with(&format!(" s{s}")))
            .cloned()
            .unwrap_or_default();
        let target = if line.contains("cube") {
            hoist_asm::ir::TexTarget::Cube
        } else if line.contains("volume") {
            hoist_asm::ir::TexTarget::T3D
        } else {
            hoist_asm::ir::TexTarget::T2D
        };
        let lanes = tex_coord_lanes(Op::Texldl, target).0;
        let mut ports = Ports::default();
        let c = self.g.src(
            Req::new(lanes, Swz::Any, Want::Any)
                .plain()
                .cond(Cond::Small(16.0)),
            &mut ports,
            &[],
        );
        let t = self.g.pick_dst(&[]);
        let mask = if self.g.rng.chance(0.7) {
            15
        } else {
            self.g.rng.range(1, 15) as u8
        };
        let d = self.g.temp_dst(t, mask);
        let srcs = [c, Opnd::raw(format!("s{s}"))];
        self.g.emit(
            Op::Texldl,
            Mods::default(),
            Some(&d),
            &srcs,
            Info::new(HOST, 0.0, Class::Varying),
        );
    }

    fn write(&mut self, reg: &str, mask: u8, bound: f32, w_pos: bool) {
        let scalar = matches!(reg, "oFog" | "oPts");
        let dst = DstReg {
            bare: scalar,
            ..DstReg::out(reg, mask)
        };
        if self.special(reg, &dst, bound, w_pos) {
            return;
        }
        let lanes: Vec<u8> = (0..4).filter(|c| mask & (1 << c) != 0).collect();
        let ops = [Op::Mov, Op::Mov, Op::Mul, Op::Mad, Op::Add, Op::Max];
        let form = self.g.rng.below(10);
        let moving: Vec<Val> = std::iter::once(self.pos_reg.clone())
            .chain(self.tc0.clone())
            .collect();
        let tex = reg.starts_with("oT") || self.texcoord_outs.contains(&reg.to_string());
        if tex && self.g.rng.chance(0.45) {
            self.g.passthrough(&dst, &moving, bound);
        } else if lanes.len() == 1 || form < 4 {
            self.g.value_into(&dst, &ops, bound, Want::Live);
        } else if form < 7 {
            for &c in &lanes {
                let d = DstReg {
                    mask: 1 << c,
                    ..dst.clone()
                };
                self.g.value_into(&d, &ops, bound, Want::Live);
            }
        } else {
            let mut order = lanes.clone();
            if self.g.rng.chance(0.6) {
                order.reverse();
            }
            for &c in &order {
                let d = DstReg {
                    mask: 1 << c,
                    ..dst.clone()
                };
                self.g.dot_into(&d, &[Op::Dp3, Op::Dp4], bound);
            }
        }
        if w_pos && mask & 8 != 0 {
            self.positive_w(&dst);
        }
    }

    /// `w` in [1/4, 2]: a projective coordinate.
    fn positive_w(&mut self, dst: &DstReg) {
        let d = DstReg {
            mask: 8,
            ..dst.clone()
        };
        let mut ports = Ports::default();
        let k = self.g.rng.pick(&[0.25f32, 0.5, 1.0, 2.0]);
        let w = self.g.scalar(k, &mut ports, &[]);
        let info = w.info;
        self.g.emit(Op::Mov, Mods::default(), Some(&d), &[w], info);
    }

    /// An output of a special form (`varyings`), with the other output of its pair.
    fn special(&mut self, reg: &str, dst: &DstReg, bound: f32, w_pos: bool) -> bool {
        use super::common::VForm;
        let Some(form) = self.forms.iter().find(|(r, _)| r == reg).map(|(_, f)| *f) else {
            return false;
        };
        let partner = match form {
            VForm::Shared(_) => {
                let other = self
                    .forms
                    .iter()
                    .find(|(r, f)| *f == form && r != reg)
                    .map(|(r, _)| r.clone());
                other.and_then(|o| {
                    let k = self.pending.iter().position(|p| p.0 == o)?;
                    let (r, m, _, _) = self.pending.remove(k);
                    Some(DstReg::out(r, m))
                })
            }
            _ => None,
        };
        let done = super::varyings::write(&mut self.g, dst, form, bound, partner.as_ref());
        if done
            && w_pos
            && dst.mask & 8 != 0
            && !matches!(form, VForm::Unwritten | VForm::Constant(_))
        {
            self.positive_w(dst);
            if let Some(p) = &partner {
                self.positive_w(p);
            }
        }
        done
    }

    fn finish(mut self) -> String {
        let mut decls = d3d::defs(&self.g);
        decls.append(&mut self.dcls);
        let comment = self.g.rng.chance(0.2);
        d3d::text(self.g.prof.header(), comment, &decls, &self.g.body)
    }
}

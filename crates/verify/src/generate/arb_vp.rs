//! `!!ARBvp1.0` vertex programs of 5–80 instructions, the way Cg and Mesa write them.
//!
//! Position comes from `DP4` rows of `state.matrix.mvp` (inline, through `PARAM mvp[4]` or
//! via modelview then projection), a plain `MOV`, or `OPTION ARB_position_invariant`. The
//! body draws every ARBvp1.0 opcode over conventional and generic attributes, `state.*`,
//! `program.env`/`program.local` and literals; `ARL` feeds `arr[A0.x + k]` reads kept inside
//! their array. Interpolants are written whole, one component at a time, or as dot products
//! into components in reverse order, within the magnitude the fragment program assumes.

use super::arb;
use super::builder::{
    BIG, Class, Cond, DstReg, Gen, HOST, Info, Mods, Port, Ports, Req, Swz, Val, Want,
};
use super::common::{Iface, Rng, VKind, Varying};
use hoist_asm::{Op, Profile};

/// The ARBvp1.0 opcodes the generic step draws (ARL and SWZ have their own steps).
const OPS: [(Op, u32); 25] = [
    (Op::Abs, 3),
    (Op::Add, 8),
    (Op::Dp3, 8),
    (Op::Dp4, 6),
    (Op::Dph, 3),
    (Op::Dst, 2),
    (Op::Ex2, 2),
    (Op::Exp, 2),
    (Op::Flr, 2),
    (Op::Frc, 2),
    (Op::Lg2, 2),
    (Op::Lit, 2),
    (Op::Log, 2),
    (Op::Mad, 10),
    (Op::Max, 4),
    (Op::Min, 4),
    (Op::Mov, 8),
    (Op::Mul, 10),
    (Op::Pow, 2),
    (Op::Rcp, 3),
    (Op::Rsq, 3),
    (Op::Sge, 2),
    (Op::Slt, 2),
    (Op::Sub, 4),
    (Op::Xpd, 2),
];

/// Ops that write an output in one instruction.
const VALUE_OPS: [Op; 6] = [Op::Mov, Op::Mov, Op::Mul, Op::Mad, Op::Add, Op::Max];

struct Vp<'a> {
    g: Gen,
    iface: &'a Iface,
    /// Declaration lines besides the constant table and temporaries.
    lines: Vec<String>,
    options: Vec<&'static str>,
    /// `OUTPUT` aliases (name, binding).
    outs: Vec<(String, String)>,
    /// Parameter arrays that relative reads may index: (name, length).
    arrays: Vec<(String, usize)>,
    address: bool,
    /// Interpolant writes still to do.
    pending: Vec<Task>,
    /// Attribute bindings and the values reading them.
    inputs: Vec<(String, Val)>,
    /// How the position is computed (see [`Vp::position`]).
    pos_form: usize,
}

/// An output to write: binding, mask, magnitude bound, and whether w must be positive.
#[derive(Clone, Debug)]
struct Task {
    binding: String,
    mask: u8,
    mag: f32,
    w_pos: bool,
    form: super::common::VForm,
}

pub(super) fn generate(rng: Rng, iface: &Iface) -> String {
    let mut g = Gen::new(rng, Profile::ArbVp1, 0);
    g.temp_cap = g.rng.range(6, 20);
    arb::style(&mut g);
    let mut vp = Vp {
        g,
        iface,
        lines: Vec::new(),
        options: Vec::new(),
        outs: Vec::new(),
        arrays: Vec::new(),
        address: false,
        pending: Vec::new(),
        inputs: Vec::new(),
        pos_form: 0,
    };
    vp.pos_form = vp.g.rng.below(10);
    if vp.pos_form == 0 {
        vp.options.push("ARB_position_invariant");
    }
    vp.inputs();
    vp.uniforms();
    vp.tasks();
    let target = vp.g.rng.range(5, 80).max(vp.pending.len() * 2 + 2);
    vp.position();
    while vp.g.insts + 4 * vp.pending.len() < target {
        vp.step();
    }
    while let Some(t) = vp.pending.pop() {
        vp.write(&t);
    }
    vp.finish()
}

impl Vp<'_> {
    /// Vertex attributes: position, normal, colours, fog, weight, texture coordinates and
    /// generic attributes in slots no conventional attribute aliases.
    fn inputs(&mut self) {
        let g = &mut self.g;
        let mut conv: Vec<(&str, usize, f32)> = vec![("vertex.position", 0, 1.0)];
        for (name, slot) in [
            ("vertex.normal", 2),
            ("vertex.color", 3),
            ("vertex.color.secondary", 4),
            ("vertex.fogcoord", 5),
            ("vertex.weight", 1),
        ] {
            if g.rng.chance(0.4) {
                conv.push((name, slot, 1.0));
            }
        }
        let ntex = g.rng.range(1, 3);
        let mut used: Vec<usize> = conv.iter().map(|c| c.1).collect();
        let mut inputs: Vec<(String, f32)> = conv.iter().map(|c| (c.0.to_string(), c.2)).collect();
        for n in 0..ntex {
            let n = if n == 0 { 0 } else { g.rng.below(8) };
            if !used.contains(&(8 + n)) {
                used.push(8 + n);
                inputs.push((format!("vertex.texcoord[{n}]"), 1.0));
            }
        }
        for _ in 0..g.rng.below(3) {
            let slot = g.rng.pick(&[6, 7, 6, 7, 12, 13, 14, 15]);
            if !used.contains(&slot) {
                used.push(slot);
                inputs.push((format!("vertex.attrib[{slot}]"), HOST));
            }
        }
        for (binding, mag) in inputs {
            let text = if self.g.rng.chance(0.3) {
                let name = alias_name(&binding);
                self.lines.push(format!("ATTRIB {name} = {binding};"));
                name
            } else {
                binding.clone()
            };
            let moving = binding == "vertex.position" || binding == "vertex.texcoord[0]";
            let class = if moving {
                Class::Varying
            } else {
                Class::Uniform
            };
            let v = Val::new(text, Port::Free, 15, Info::new(mag, 0.0, class));
            self.g.pool.push(v.clone());
            self.inputs.push((binding, v));
        }
    }

    /// Uniforms, literal tables and parameter arrays.
    fn uniforms(&mut self) {
        let n = self.g.rng.range(1, 5);
        for _ in 0..n {
            let b = if self.g.rng.chance(0.5) {
                arb::program_param(&mut self.g)
            } else {
                state_binding(&mut self.g)
            };
            arb::uniform(&mut self.g, b, &mut self.lines);
        }
        for _ in 0..self.g.rng.range(1, 4) {
            let v = [(); 4].map(|_| self.g.rng.nice());
            self.g.literal(v);
        }
        if self.g.rng.chance(0.35) {
            let len = self.g.rng.range(3, 8);
            let items: Vec<String> = (0..len)
                .map(|i| {
                    if i % 3 == 2 {
                        format!("program.env[{}]", 8 + i)
                    } else {
                        let v = [(); 4].map(|_| self.g.rng.nice());
                        Gen::vals_text(v)
                    }
                })
                .collect();
            let name = "arr".to_string();
            self.lines
                .push(format!("PARAM {name}[{len}] = {{ {} }};", items.join(", ")));
            self.g.const_slots += len;
            self.arrays.push((name.clone(), len));
            let info = Info::new(HOST, 0.0, Class::Uniform);
            let k = self.g.rng.below(len);
            self.g
                .pool
                .push(Val::new(format!("{name}[{k}]"), Port::Free, 15, info));
        }
    }

    /// The interpolants the fragment program reads, plus some it does not.
    fn tasks(&mut self) {
        for v in &self.iface.vars {
            self.pending.push(task_of(v));
        }
        let extra = [
            ("result.pointsize", 1u8, BIG),
            ("result.fogcoord", 1, BIG),
            ("result.color.secondary", 15, BIG),
            ("result.color.back", 15, BIG),
        ];
        for (b, mask, mag) in extra {
            let have = self.pending.iter().any(|t| t.binding == b);
            if !have && self.g.rng.chance(0.15) {
                self.pending.push(Task {
                    binding: b.into(),
                    mask,
                    mag,
                    w_pos: false,
                    form: super::common::VForm::Computed,
                });
            }
        }
        for n in 0..8u8 {
            let b = format!("result.texcoord[{n}]");
            if !self.pending.iter().any(|t| t.binding == b) && self.g.rng.chance(0.05) {
                self.pending.push(Task {
                    binding: b,
                    mask: 15,
                    mag: BIG,
                    w_pos: false,
                    form: super::common::VForm::Computed,
                });
            }
        }
        for i in (1..self.pending.len()).rev() {
            let j = self.g.rng.below(i + 1);
            self.pending.swap(i, j);
        }
        if self.pos_form != 0 && self.g.rng.chance(0.1) {
            self.lines.push("OUTPUT oPos = result.position;".into());
            self.outs.push(("oPos".into(), "result.position".into()));
        }
        for t in &self.pending {
            if t.binding != "result.pointsize" && self.g.rng.chance(0.15) {
                let name = format!("o{}", self.outs.len());
                self.lines.push(format!("OUTPUT {name} = {};", t.binding));
                self.outs.push((name, t.binding.clone()));
            }
        }
    }

    fn input(&self, binding: &str) -> Option<Val> {
        self.inputs
            .iter()
            .find(|(b, _)| b == binding)
            .map(|(_, v)| v.clone())
    }

    /// The clip-space position.
    fn position(&mut self) {
        let Some(pos) = self.input("vertex.position") else {
            return;
        };
        let pos = self.g.whole(&pos);
        let dst = arb::out(&self.outs, "result.position", 15);
        let info = Info::new(4.0, 0.0, Class::Varying);
        match self.pos_form {
            0 => {}
            1 => self
                .g
                .emit(Op::Mov, Mods::default(), Some(&dst), &[pos], info),
            2 | 3 => {
                self.lines
                    .push("PARAM mvp[4] = { state.matrix.mvp };".into());
                self.g.const_slots += 4;
                self.arrays.push(("mvp".into(), 4));
                let rows: Vec<String> = (0..4).map(|i| format!("mvp[{i}]")).collect();
                self.rows_into(&dst, &rows, pos, false);
            }
            4 => {
                let t = self.g.new_temp().unwrap_or(0);
                let tmp = self.g.temp_dst(t, 15);
                let rows: Vec<String> = (0..4)
                    .map(|i| format!("state.matrix.modelview.row[{i}]"))
                    .collect();
                self.rows_into(&tmp, &rows, pos, false);
                let eye = self.g.read_temp(t, [0, 1, 2, 3], 15);
                let rows: Vec<String> = (0..4)
                    .map(|i| format!("state.matrix.projection.row[{i}]"))
                    .collect();
                self.rows_into(&dst, &rows, eye, true);
            }
            _ => {
                let rows: Vec<String> = (0..4)
                    .map(|i| format!("state.matrix.mvp.row[{i}]"))
                    .collect();
                let rev = self.g.rng.chance(0.3);
                self.rows_into(&dst, &rows, pos, rev);
            }
        }
    }

    /// `DP4 dst.c, rows[c], v` for each component.
    fn rows_into(&mut self, dst: &DstReg, rows: &[String], v: super::builder::Opnd, rev: bool) {
        let mut order: Vec<usize> = (0..rows.len()).collect();
        if rev {
            order.reverse();
        }
        for c in order {
            let row = Val::new(
                rows[c].clone(),
                Port::Free,
                15,
                Info::new(HOST, 0.0, Class::Uniform),
            );
            let r = self.g.whole(&row);
            let d = DstReg {
                mask: 1 << c,
                ..dst.clone()
            };
            let (a, b) = if self.g.rng.chance(0.5) {
                (r, v.clone())
            } else {
                (v.clone(), r)
            };
            let info = super::arith::result_info(Op::Dp4, &[a.clone(), b.clone()]);
            self.g
                .emit(Op::Dp4, Mods::default(), Some(&d), &[a, b], info);
        }
    }

    fn step(&mut self) {
        if !self.pending.is_empty() && self.g.rng.chance(0.12) {
            let t = self.pending.pop().expect("pending output");
            self.write(&t);
            return;
        }
        match self.g.rng.below(20) {
            0 => {
                arb::swz(&mut self.g, Want::Any);
            }
            1 if !self.arrays.is_empty() || !self.g.table.is_empty() => self.relative(),
            2 => self.normalize(),
            _ => {
                let w: Vec<u32> = OPS.iter().map(|o| o.1).collect();
                let op = OPS[self.g.rng.weighted(&w)].0;
                self.g.alu(op, Want::Any);
            }
        }
    }

    /// `DP3 t.w, v, v; RSQ t.w, t.w; MUL t.xyz, v, t.w`.
    fn normalize(&mut self) {
        let mut ports = Ports::default();
        let v = self.g.src(
            Req::new(7, Swz::Any, Want::Any).cond(Cond::Small(64.0)),
            &mut ports,
            &[],
        );
        let busy: Vec<u16> = v.temp_index().into_iter().collect();
        let t = self.g.scratch(&busy);
        let len2 = super::arith::result_info(Op::Dp3, &[v.clone(), v.clone()]);
        let dw = self.g.temp_dst(t, 8);
        self.g.emit(
            Op::Dp3,
            Mods::default(),
            Some(&dw),
            &[v.clone(), v.clone()],
            len2,
        );
        let w = self.g.read_temp(t, [3; 4], 8);
        let mut ports = Ports::default();
        ports.add(w.port);
        let eps = self.g.scalar(1.0e-4, &mut ports, &[t]);
        let info = Info::new(len2.mag.max(1.0e-4), 1.0e-4, Class::Varying);
        self.g
            .emit(Op::Max, Mods::default(), Some(&dw), &[w, eps], info);
        let w = self.g.read_temp(t, [3; 4], 8);
        let inv = Info::new(100.0, 0.0, Class::Varying);
        self.g.emit(Op::Rsq, Mods::default(), Some(&dw), &[w], inv);
        let s = self.g.read_temp(t, [3; 4], 8);
        let dst = self.g.temp_dst(t, 7);
        self.g.emit(
            Op::Mul,
            Mods::default(),
            Some(&dst),
            &[v, s],
            Info::new(1.0, 0.0, Class::Varying),
        );
    }

    /// `ARL A0.x, i` with `i` in a known range, then reads of `arr[A0.x + k]` inside `arr`.
    fn relative(&mut self) {
        let (name, len) =
            if !self.arrays.is_empty() && (self.g.table.is_empty() || self.g.rng.chance(0.5)) {
                self.arrays[self.g.rng.below(self.arrays.len())].clone()
            } else {
                ("c".to_string(), self.g.table.len())
            };
        let (lo, hi) = self.address_value();
        if len < (hi - lo + 1) as usize {
            return;
        }
        let kmin = -lo;
        let kmax = (len as i32 - 1 - hi).min(63);
        let k = kmin + self.g.rng.below((kmax - kmin + 1) as usize) as i32;
        let text = match k {
            0 => format!("{name}[A0.x]"),
            k if k > 0 => format!("{name}[A0.x + {k}]"),
            k => format!("{name}[A0.x - {}]", -k),
        };
        self.g.pool.retain(|v| !v.text.contains("A0.x"));
        let val = Val::new(text, Port::Free, 15, Info::new(HOST, 0.0, Class::Varying));
        self.g.pool.push(val.clone());
        let op = self
            .g
            .rng
            .pick(&[Op::Mov, Op::Mad, Op::Dp4, Op::Mul, Op::Add]);
        let mut ports = Ports::default();
        let mut srcs = vec![self.g.whole(&val)];
        for i in 1..op.info().srcs as usize {
            let need = Gen::lanes(op, i, 15);
            srcs.push(
                self.g
                    .src(Req::new(need, Swz::Any, Want::Any), &mut ports, &[]),
            );
        }
        let mask = if op == Op::Dp4 {
            1 << self.g.rng.below(4)
        } else {
            15
        };
        let info = super::arith::result_info(op, &srcs);
        let t = self.g.pick_dst(&[]);
        let dst = self.g.temp_dst(t, mask);
        self.g.emit(op, Mods::default(), Some(&dst), &srcs, info);
    }

    /// Emits `ARL A0.x, ...` (after an index computation) and returns the range of A0.x.
    fn address_value(&mut self) -> (i32, i32) {
        self.address = true;
        let tc = self.input("vertex.texcoord[0]");
        let pos = self
            .input("vertex.position")
            .expect("position is always bound");
        let (src, lo, hi) = match (self.g.rng.below(3), tc) {
            (0, Some(tc)) => {
                let c = self.g.rng.below(2) as u8;
                (self.g.lane(&tc, c), 0, 1)
            }
            (1, Some(tc)) => {
                let k = self.g.rng.pick(&[2.0f32, 3.0]);
                let t = self.g.scratch(&[]);
                let mut ports = Ports::default();
                let c = self.g.rng.below(2) as u8;
                let a = self.g.lane(&tc, c);
                let kk = self.g.scalar(k, &mut ports, &[t]);
                let d = self.g.temp_dst(t, 1);
                self.g.emit(
                    Op::Mul,
                    Mods::default(),
                    Some(&d),
                    &[a, kk],
                    Info::new(k, 0.0, Class::Varying),
                );
                (self.g.read_temp(t, [0; 4], 1), 0, k as i32)
            }
            _ => {
                let t = self.g.scratch(&[]);
                let mut ports = Ports::default();
                let c = self.g.rng.below(2) as u8;
                let a = self.g.lane(&pos, c);
                let h = self.g.scalar(0.5, &mut ports, &[t]);
                let d = self.g.temp_dst(t, 1);
                let info = Info::new(1.0, 0.0, Class::Varying);
                self.g
                    .emit(Op::Mad, Mods::default(), Some(&d), &[a, h.clone(), h], info);
                (self.g.read_temp(t, [0; 4], 1), 0, 1)
            }
        };
        let dst = DstReg::out("A0", 1);
        self.g.emit(
            Op::Arl,
            Mods::default(),
            Some(&dst),
            &[src],
            Info::new(1.0, 0.0, Class::Varying),
        );
        (lo, hi)
    }

    /// Writes one output: whole, per component, or as dot products into its components.
    fn write(&mut self, t: &Task) {
        let dst = arb::out(&self.outs, &t.binding, t.mask);
        if self.special(t, &dst) {
            return;
        }
        let lanes: Vec<u8> = (0..4).filter(|c| t.mask & (1 << c) != 0).collect();
        let form = self.g.rng.below(10);
        let moving: Vec<Val> = self
            .inputs
            .iter()
            .filter(|(b, _)| b == "vertex.position" || b == "vertex.texcoord[0]")
            .map(|(_, v)| v.clone())
            .collect();
        if t.binding.starts_with("result.texcoord") && self.g.rng.chance(0.45) {
            self.g.passthrough(&dst, &moving, t.mag);
        } else if lanes.len() == 1 || form < 4 {
            self.g.value_into(&dst, &VALUE_OPS, t.mag, Want::Live);
        } else if form < 7 {
            for &c in &lanes {
                let d = DstReg {
                    mask: 1 << c,
                    ..dst.clone()
                };
                self.g.value_into(&d, &VALUE_OPS, t.mag, Want::Live);
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
                self.g.dot_into(&d, &[Op::Dp3, Op::Dp4, Op::Dph], t.mag);
            }
        }
        if t.w_pos {
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

    /// An interpolant of a special form (`varyings`), with the other output of its pair.
    fn special(&mut self, t: &Task, dst: &DstReg) -> bool {
        let partner = match t.form {
            super::common::VForm::Shared(_) => self
                .pending
                .iter()
                .position(|p| p.form == t.form && p.binding != t.binding)
                .map(|k| self.pending.remove(k))
                .map(|p| arb::out(&self.outs, &p.binding, p.mask)),
            _ => None,
        };
        let done = super::varyings::write(&mut self.g, dst, t.form, t.mag, partner.as_ref());
        let own_w = matches!(
            t.form,
            super::common::VForm::Unwritten | super::common::VForm::Constant(_)
        );
        if done && t.w_pos && !own_w {
            self.positive_w(dst);
        }
        done
    }

    fn finish(mut self) -> String {
        if self.address {
            self.lines.push("ADDRESS A0;".into());
        }
        let mut text = String::from("!!ARBvp1.0\n");
        if self.g.rng.chance(0.2) {
            text.push_str("# generated by hoist-verify\n");
        }
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

fn task_of(v: &Varying) -> Task {
    let binding = match v.kind {
        VKind::Tex(n) => format!("result.texcoord[{n}]"),
        VKind::Color(0) => "result.color".into(),
        VKind::Color(_) => "result.color.secondary".into(),
        VKind::Fog => "result.fogcoord".into(),
    };
    let mask = if v.kind == VKind::Fog { 1 } else { v.mask };
    Task {
        binding,
        mask,
        mag: v.mag,
        w_pos: v.w_pos && mask & 8 != 0,
        form: v.form,
    }
}

fn alias_name(binding: &str) -> String {
    let base = binding
        .trim_start_matches("vertex.")
        .replace(['[', ']', '.'], "");
    format!("i{base}")
}

/// A vertex-stage `state.*` vector.
fn state_binding(g: &mut Gen) -> String {
    let n = g.rng.below(4);
    match g.rng.below(9) {
        0 => format!(
            "state.light[{n}].{}",
            g.rng.pick(&[
                "diffuse",
                "ambient",
                "specular",
                "position",
                "half",
                "attenuation",
                "spot.direction"
            ])
        ),
        1 => format!(
            "state.material.{}",
            g.rng
                .pick(&["diffuse", "ambient", "specular", "emission", "shininess"])
        ),
        2 => format!(
            "state.lightprod[{n}].{}",
            g.rng.pick(&["diffuse", "ambient", "specular"])
        ),
        3 => format!(
            "state.lightmodel.{}",
            g.rng.pick(&["ambient", "scenecolor"])
        ),
        4 => format!("state.fog.{}", g.rng.pick(&["color", "params"])),
        5 => format!(
            "state.texgen[{n}].{}.{}",
            g.rng.pick(&["eye", "object"]),
            g.rng.pick(&["s", "t", "r", "q"])
        ),
        6 => format!("state.clip[{n}].plane"),
        7 => format!("state.point.{}", g.rng.pick(&["size", "attenuation"])),
        _ => format!(
            "state.matrix.{}{}.row[{}]",
            g.rng
                .pick(&["modelview", "projection", "mvp", "texture[1]", "program[2]"]),
            g.rng.pick(&["", ".inverse", ".transpose", ".invtrans"]),
            g.rng.below(4)
        ),
    }
}

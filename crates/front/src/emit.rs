//! The assembly one lowered stage becomes, before it is text: instructions over virtual
//! temporaries, a literal pool and named uniform, state and I/O registers, each
//! instruction with the source span it came from.
//!
//! [`Emitter`] builds the list (materialising mixed operands into temporaries, keeping
//! each instruction within the dialect's read-port rules); [`Emitter::print`] allocates the
//! temporaries onto as few registers as their live ranges need (a range that meets a
//! D3D9 `rep` block partly is stretched over the whole block) and writes ARB or D3D9 text
//! with one instruction per line, in order, so instruction `i` of the parsed program is
//! entry `i` of [`Emitter::spans`].

pub use crate::value::R;
use crate::value::{C, Val};
use hoist_asm::ir::TexTarget;
use hoist_asm::ops::Cond;
use hoist_asm::{Dialect, Op, Profile, Stage};
use std::fmt::Write;

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opnd {
    pub reg: R,
    pub swz: [u8; 4],
    pub neg: bool,
}

impl Opnd {
    pub fn lane(self, l: u8) -> Opnd {
        let c = self.swz[usize::from(l & 3)];
        Opnd {
            swz: [c; 4],
            ..self
        }
    }
}

/// One instruction.
#[derive(Clone, Debug)]
pub struct EInst {
    pub op: Op,
    pub sat: bool,
    pub dst: Option<(R, u8)>,
    pub src: Vec<Opnd>,
    pub tex: Option<(u8, TexTarget)>,
    pub span: Option<(usize, usize)>,
}

/// Instructions of one stage under construction.
pub struct Emitter {
    pub profile: Profile,
    pub insts: Vec<EInst>,
    next_temp: u32,
    lits: Vec<Vec<f32>>,
    /// ARB state bindings (`state.matrix.mvp.row[0]`), by [`R::State`] index.
    pub states: Vec<String>,
    /// Uniform slots: (slot, name for the ARB `PARAM`).
    pub uniforms: Vec<(u16, String)>,
    /// Highest uniform slot + 1 (D3D9 literals follow them).
    pub uniform_slots: u16,
    /// The span of the source construct being lowered.
    pub span: Option<(usize, usize)>,
    /// Texture units used, with targets.
    pub units: Vec<(u8, TexTarget)>,
    /// Interpolants a fragment program reads that are declared centroid (D3D9).
    pub centroid: Vec<u8>,
    /// Components of each output written (for the declarations).
    pub outputs: Vec<(R, u8)>,
    /// Inputs read, with the components read.
    pub inputs: Vec<(R, u8)>,
}

impl Emitter {
    pub fn new(profile: Profile) -> Emitter {
        Emitter {
            profile,
            insts: Vec::new(),
            next_temp: 0,
            lits: Vec::new(),
            states: Vec::new(),
            uniforms: Vec::new(),
            uniform_slots: 0,
            span: None,
            units: Vec::new(),
            centroid: Vec::new(),
            outputs: Vec::new(),
            inputs: Vec::new(),
        }
    }

    pub fn dialect(&self) -> Dialect {
        self.profile.dialect()
    }

    pub fn stage(&self) -> Stage {
        self.profile.stage()
    }

    pub fn has(&self, op: Op) -> bool {
        self.profile.has(op)
    }

    pub fn temp(&mut self) -> R {
        self.next_temp += 1;
        R::Temp(self.next_temp - 1)
    }

    /// The register and lane holding literal `v` (added to the pool when new).
    pub fn lit(&mut self, v: f32) -> (R, u8) {
        for (i, e) in self.lits.iter().enumerate() {
            if let Some(l) = e.iter().position(|x| x.to_bits() == v.to_bits()) {
                return (R::Lit(i as u16), l as u8);
            }
        }
        let n = self.lits.len();
        match self.lits.last_mut() {
            Some(e) if e.len() < 4 => {
                e.push(v);
                (R::Lit(n as u16 - 1), e.len() as u8 - 1)
            }
            _ => {
                self.lits.push(vec![v]);
                (R::Lit(self.lits.len() as u16 - 1), 0)
            }
        }
    }

    /// A literal vector as one operand: an entry holding all its values, or a new one.
    fn lit_opnd(&mut self, vals: &[f32]) -> Opnd {
        let mut distinct: Vec<f32> = Vec::new();
        for v in vals {
            if !distinct.iter().any(|d| d.to_bits() == v.to_bits()) {
                distinct.push(*v);
            }
        }
        let find = |e: &Vec<f32>, v: f32| e.iter().position(|x| x.to_bits() == v.to_bits());
        let entry = self
            .lits
            .iter()
            .position(|e| distinct.iter().all(|v| find(e, *v).is_some()));
        let idx = match entry {
            Some(i) => i,
            None => {
                // Extend the last entry when the new values fit beside its own.
                let fits = self.lits.last().is_some_and(|e| {
                    e.len() + distinct.iter().filter(|v| find(e, **v).is_none()).count() <= 4
                });
                if fits {
                    let e = self.lits.last_mut().expect("checked");
                    for v in &distinct {
                        if find(e, *v).is_none() {
                            e.push(*v);
                        }
                    }
                } else {
                    self.lits.push(distinct.clone());
                }
                self.lits.len() - 1
            }
        };
        let e = &self.lits[idx];
        let mut swz = [0u8; 4];
        for (i, s) in swz.iter_mut().enumerate() {
            let v = vals[i.min(vals.len() - 1)];
            *s = find(e, v).expect("in entry") as u8;
        }
        Opnd {
            reg: R::Lit(idx as u16),
            swz,
            neg: false,
        }
    }

    /// One operand reading `v` (1 to 4 components), materialised into a temporary when its
    /// components come from different registers or signs.
    pub fn opnd(&mut self, v: &[C]) -> Opnd {
        assert!(
            !v.is_empty() && v.len() <= 4,
            "operand of {} lanes",
            v.len()
        );
        if v.iter().all(|c| matches!(c, C::Lit(_))) {
            let vals: Vec<f32> = v
                .iter()
                .map(|c| match c {
                    C::Lit(x) => *x,
                    C::Reg { .. } => unreachable!(),
                })
                .collect();
            return self.lit_opnd(&vals);
        }
        if let C::Reg { reg, neg, .. } = v[0]
            && v.iter()
                .all(|c| matches!(c, C::Reg { reg: r, neg: n, .. } if *r == reg && *n == neg))
        {
            let mut swz = [0u8; 4];
            for (i, s) in swz.iter_mut().enumerate() {
                if let C::Reg { lane, .. } = v[i.min(v.len() - 1)] {
                    *s = lane;
                }
            }
            self.note_input(reg, &swz[..v.len()]);
            return Opnd { reg, swz, neg };
        }
        let t = self.materialize(v);
        Opnd {
            reg: t,
            swz: [0, 1, 2, 3],
            neg: false,
        }
    }

    fn note_input(&mut self, reg: R, lanes: &[u8]) {
        if matches!(reg, R::Attr(_) | R::Vary(_) | R::FragPos | R::Face) {
            let m = lanes.iter().fold(0u8, |m, l| m | 1 << l);
            match self.inputs.iter_mut().find(|(r, _)| *r == reg) {
                Some((_, mm)) => *mm |= m,
                None => self.inputs.push((reg, m)),
            }
        }
    }

    /// Copies `v` into a new temporary (lanes 0..len) with one `MOV` per source register.
    pub fn materialize(&mut self, v: &[C]) -> R {
        let t = self.temp();
        let mut done = [false; 4];
        for i in 0..v.len() {
            if done[i] {
                continue;
            }
            let same = |c: &C| match (c, &v[i]) {
                (C::Lit(_), C::Lit(_)) => true,
                (C::Reg { reg: a, neg: n, .. }, C::Reg { reg: b, neg: m, .. }) => a == b && n == m,
                _ => false,
            };
            let mut mask = 0u8;
            let mut comps = [v[i]; 4];
            for j in i..v.len() {
                if !done[j] && same(&v[j]) {
                    done[j] = true;
                    mask |= 1 << j;
                    comps[j] = v[j];
                }
            }
            // Lanes outside the mask repeat a lane inside it (any value will do).
            let fill = comps[i];
            let lanes: Vec<C> = (0..4)
                .map(|j| if mask & 1 << j != 0 { comps[j] } else { fill })
                .collect();
            let src = self.opnd(&lanes);
            self.push(Op::Mov, Some((t, mask)), vec![src]);
        }
        t
    }

    /// Appends an instruction at the current span, keeping D3D9's read ports.
    pub fn push(&mut self, op: Op, dst: Option<(R, u8)>, mut src: Vec<Opnd>) -> usize {
        if self.dialect() == Dialect::D3d9 && !op.is_flow() {
            self.read_ports(&mut src);
        }
        if self.dialect() == Dialect::D3d9 && op.is_texture() {
            // D3D9 texture coordinates (and gradients) take no modifier: negate in a copy.
            for s in src.iter_mut().filter(|s| s.neg) {
                let t = self.temp();
                self.push(Op::Mov, Some((t, 15)), vec![*s]);
                *s = Opnd {
                    reg: t,
                    swz: [0, 1, 2, 3],
                    neg: false,
                };
            }
        }
        if self.dialect() == Dialect::D3d9 && op == Op::Xpd {
            // D3D9 `crs` sources take no swizzle: copy a swizzled one to a temporary.
            for s in src.iter_mut() {
                if s.swz[..3] == [0, 1, 2] {
                    s.swz = [0, 1, 2, 3];
                    continue;
                }
                let t = self.temp();
                let copy = Opnd { neg: false, ..*s };
                self.push(Op::Mov, Some((t, 7)), vec![copy]);
                *s = Opnd {
                    reg: t,
                    swz: [0, 1, 2, 3],
                    neg: s.neg,
                };
            }
        }
        if let Some((r, m)) = dst
            && matches!(r, R::OutPos | R::OutVary(_) | R::OutColor(_) | R::OutDepth)
        {
            match self.outputs.iter_mut().find(|(o, _)| *o == r) {
                Some((_, mm)) => *mm |= m,
                None => self.outputs.push((r, m)),
            }
        }
        self.insts.push(EInst {
            op,
            sat: false,
            dst,
            src,
            tex: None,
            span: self.span,
        });
        self.insts.len() - 1
    }

    /// D3D9: at most two constant registers per pixel instruction and one per vertex
    /// instruction, one input register of each kind; extras are copied to temporaries.
    fn read_ports(&mut self, src: &mut [Opnd]) {
        let max_const = if self.stage() == Stage::Fragment {
            2
        } else {
            1
        };
        let is_const = |r: R| matches!(r, R::Uniform(_) | R::Lit(_) | R::Viewport);
        let is_input = |r: R| matches!(r, R::Attr(_) | R::Vary(_));
        let mut consts: Vec<R> = Vec::new();
        let mut inputs: Vec<R> = Vec::new();
        for s in src.iter_mut() {
            let (list, max) = if is_const(s.reg) {
                (&mut consts, max_const)
            } else if is_input(s.reg) {
                (&mut inputs, 1)
            } else {
                continue;
            };
            if list.contains(&s.reg) {
                continue;
            }
            if list.len() < max {
                list.push(s.reg);
                continue;
            }
            let t = self.temp();
            let copy = Opnd {
                reg: s.reg,
                swz: [0, 1, 2, 3],
                neg: false,
            };
            self.insts.push(EInst {
                op: Op::Mov,
                sat: false,
                dst: Some((t, 15)),
                src: vec![copy],
                tex: None,
                span: self.span,
            });
            s.reg = t;
        }
    }

    /// Computes `op` into a new temporary's lanes `0..n` and returns them.
    pub fn def(&mut self, op: Op, src: Vec<Opnd>, n: usize) -> Val {
        let t = self.temp();
        let mask = ((1u16 << n) - 1) as u8;
        self.push(op, Some((t, mask)), src);
        lanes(t, n)
    }

    pub fn set_sat(&mut self, at: usize) {
        self.insts[at].sat = true;
    }

    pub fn set_tex(&mut self, at: usize, unit: u8, target: TexTarget) {
        self.insts[at].tex = Some((unit, target));
        if !self.units.iter().any(|(u, _)| *u == unit) {
            self.units.push((unit, target));
        }
    }

    /// Flow-control instruction (D3D9).
    pub fn flow(&mut self, op: Op, src: Vec<Opnd>) {
        self.push(op, None, src);
    }

    pub fn ifc(&mut self, cond: Opnd) {
        let zero = self.opnd(&[C::Lit(0.0)]);
        self.push(Op::Ifc(Cond::Ne), None, vec![cond.lane(0), zero.lane(0)]);
    }

    /// Removes instructions whose result nobody reads: a write to a temporary that no
    /// instruction reads anywhere (whatever the control flow), repeated until none is left.
    /// The lowering computes some values it ends up not needing (the `1 − c` of an arm
    /// without a `discard`, a select's unused operand, a texture fetch whose result a
    /// literal condition discarded).
    pub fn dce(&mut self) {
        loop {
            let mut read = vec![false; self.next_temp as usize];
            for i in &self.insts {
                for s in &i.src {
                    if let R::Temp(t) = s.reg {
                        read[t as usize] = true;
                    }
                }
            }
            let before = self.insts.len();
            self.insts
                .retain(|i| !matches!(i.dst, Some((R::Temp(t), _)) if !read[t as usize]));
            if self.insts.len() == before {
                return;
            }
        }
    }

    /// Whether an instruction reads `reg`.
    pub fn reads(&self, reg: R) -> bool {
        self.insts
            .iter()
            .any(|i| i.src.iter().any(|s| s.reg == reg))
    }

    /// Replaces register `from` by `to` in every operand.
    pub fn replace(&mut self, from: R, to: R) {
        for i in &mut self.insts {
            for s in &mut i.src {
                if s.reg == from {
                    s.reg = to;
                }
            }
        }
    }

    /// Source spans by instruction, in the order printed.
    pub fn spans(&self) -> Vec<Option<(usize, usize)>> {
        self.insts.iter().map(|i| i.span).collect()
    }
}

/// Lanes `0..n` of register `r`.
pub fn lanes(r: R, n: usize) -> Val {
    (0..n as u8)
        .map(|lane| C::Reg {
            reg: r,
            lane,
            neg: false,
        })
        .collect()
}

/// D3D9 declaration usage of vertex attribute slot `n` (the ARB aliasing table).
pub fn d3d_attr_usage(n: u8) -> String {
    match n {
        0 => "position".into(),
        1 => "blendweight".into(),
        2 => "normal".into(),
        3 => "color0".into(),
        4 => "color1".into(),
        5 => "fog".into(),
        6 => "psize".into(),
        7 => "blendindices".into(),
        n => format!("texcoord{}", n - 8),
    }
}

// ---- register allocation and printing -------------------------------------------------

impl Emitter {
    /// Physical register of each virtual temporary, and the count.
    fn allocate(&self) -> (Vec<u16>, u16) {
        let n = self.next_temp as usize;
        let mut start = vec![usize::MAX; n];
        let mut end = vec![0usize; n];
        for (i, inst) in self.insts.iter().enumerate() {
            let regs = inst
                .dst
                .iter()
                .map(|d| d.0)
                .chain(inst.src.iter().map(|s| s.reg));
            for r in regs {
                if let R::Temp(t) = r {
                    let t = t as usize;
                    start[t] = start[t].min(i);
                    end[t] = end[t].max(i);
                }
            }
        }
        // Stretch ranges that cross a loop's boundary over the whole loop.
        let mut stack = Vec::new();
        let mut loops = Vec::new();
        for (i, inst) in self.insts.iter().enumerate() {
            match inst.op {
                Op::Rep | Op::Loop => stack.push(i),
                Op::Endrep | Op::Endloop => {
                    if let Some(s) = stack.pop() {
                        loops.push((s, i));
                    }
                }
                _ => {}
            }
        }
        loop {
            let mut changed = false;
            for &(ls, le) in &loops {
                for t in 0..n {
                    if start[t] == usize::MAX {
                        continue;
                    }
                    let inside = |x: usize| x > ls && x < le;
                    let meets = inside(start[t]) || inside(end[t]);
                    if meets && (start[t] < ls || end[t] > le || !inside(start[t])) {
                        let (s, e) = (start[t].min(ls), end[t].max(le));
                        changed |= (s, e) != (start[t], end[t]);
                        start[t] = s;
                        end[t] = e;
                    } else if inside(start[t]) && inside(end[t]) {
                        // A value defined and used inside the loop may be read on the next
                        // iteration before it is written again only through a variable's
                        // home register, which is defined before the loop.
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&t| start[t] != usize::MAX).collect();
        order.sort_by_key(|&t| start[t]);
        let mut phys = vec![0u16; n];
        let mut free_at: Vec<usize> = Vec::new();
        for t in order {
            let slot = free_at.iter().position(|&e| e < start[t]);
            let p = match slot {
                Some(p) => p,
                None => {
                    free_at.push(0);
                    free_at.len() - 1
                }
            };
            free_at[p] = end[t];
            phys[t] = p as u16;
        }
        (phys, free_at.len() as u16)
    }

    /// The program text (ARB or D3D9).
    pub fn print(&self, title: &str) -> String {
        let (phys, count) = self.allocate();
        let mut out = String::new();
        let names = Names {
            phys: &phys,
            em: self,
        };
        match self.dialect() {
            Dialect::Arb => self.arb_header(&mut out, title, count),
            Dialect::D3d9 => self.d3d_header(&mut out, title),
        }
        for inst in &self.insts {
            out.push_str(&names.inst(inst));
            out.push('\n');
        }
        if self.dialect() == Dialect::Arb {
            out.push_str("END\n");
        }
        out
    }

    fn arb_header(&self, out: &mut String, title: &str, temps: u16) {
        out.push_str(self.profile.header());
        out.push('\n');
        let _ = writeln!(out, "# {title}");
        if self.units.iter().any(|(_, t)| is_shadow(*t)) {
            out.push_str("OPTION ARB_fragment_program_shadow;\n");
        }
        if self
            .outputs
            .iter()
            .any(|(r, _)| matches!(r, R::OutColor(n) if *n > 0))
        {
            out.push_str("OPTION ARB_draw_buffers;\n");
        }
        for (slot, name) in &self.uniforms {
            let _ = writeln!(out, "PARAM {name} = program.local[{slot}];");
        }
        for (i, s) in self.states.iter().enumerate() {
            let _ = writeln!(out, "PARAM s{i} = {s};");
        }
        for (i, e) in self.lits.iter().enumerate() {
            let vals: Vec<String> = (0..4)
                .map(|k| fmt_f32(e.get(k).copied().unwrap_or(0.0)))
                .collect();
            let _ = writeln!(out, "PARAM k{i} = {{{}}};", vals.join(", "));
        }
        if temps > 0 {
            let names: Vec<String> = (0..temps).map(|t| format!("r{t}")).collect();
            let _ = writeln!(out, "TEMP {};", names.join(", "));
        }
    }

    fn d3d_header(&self, out: &mut String, title: &str) {
        out.push_str(self.profile.header());
        out.push('\n');
        let _ = writeln!(out, "// {title}");
        for (i, e) in self.lits.iter().enumerate() {
            let vals: Vec<String> = (0..4)
                .map(|k| fmt_f32(e.get(k).copied().unwrap_or(0.0)))
                .collect();
            let _ = writeln!(
                out,
                "def c{}, {}",
                self.uniform_slots as usize + i,
                vals.join(", ")
            );
        }
        if self.insts.iter().any(|i| i.op == Op::Rep) {
            out.push_str("defi i0, 255, 0, 0, 0\n");
        }
        let mut inputs = self.inputs.clone();
        inputs.sort();
        for (r, _) in &inputs {
            match r {
                R::Attr(n) => {
                    let _ = writeln!(out, "dcl_{} v{n}", d3d_attr_usage(*n));
                }
                R::Vary(n) => {
                    let c = if self.centroid.contains(n) {
                        "_centroid"
                    } else {
                        ""
                    };
                    let _ = writeln!(out, "dcl_texcoord{n}{c} v{n}");
                }
                R::FragPos => out.push_str("dcl vPos.xy\n"),
                R::Face => out.push_str("dcl vFace\n"),
                _ => {}
            }
        }
        if self.stage() == Stage::Vertex {
            let mut outs = self.outputs.clone();
            outs.sort();
            for (r, _) in &outs {
                match r {
                    R::OutPos => out.push_str("dcl_position o0\n"),
                    R::OutVary(n) => {
                        let _ = writeln!(out, "dcl_texcoord{n} o{}", u16::from(*n) + 1);
                    }
                    _ => {}
                }
            }
        }
        let mut units = self.units.clone();
        units.sort_by_key(|u| u.0);
        for (u, t) in units {
            let name = t.d3d_name().unwrap_or("2d");
            let _ = writeln!(out, "dcl_{name} s{u}");
        }
    }
}

pub fn is_shadow(t: TexTarget) -> bool {
    matches!(
        t,
        TexTarget::Shadow1D | TexTarget::Shadow2D | TexTarget::ShadowRect
    )
}

/// Shortest text that reads back as the same `f32` (finite values only reach here).
pub fn fmt_f32(v: f32) -> String {
    let s = format!("{v:?}");
    if s.contains('e') {
        // The assembly lexers read plain decimals; `{}` never uses an exponent.
        format!("{v}")
    } else {
        s
    }
}

struct Names<'a> {
    phys: &'a [u16],
    em: &'a Emitter,
}

impl Names<'_> {
    fn reg(&self, r: R) -> String {
        let arb = self.em.dialect() == Dialect::Arb;
        match (r, arb) {
            (R::Temp(t), _) => format!("r{}", self.phys[t as usize]),
            (R::Attr(n), true) => format!("vertex.attrib[{n}]"),
            (R::Attr(n), false) => format!("v{n}"),
            (R::Vary(n), true) => format!("fragment.texcoord[{n}]"),
            (R::Vary(n), false) => format!("v{n}"),
            (R::FragPos, true) => "fragment.position".into(),
            (R::FragPos, false) => "vPos".into(),
            (R::Face, _) => "vFace".into(),
            (R::Uniform(s), true) => self
                .em
                .uniforms
                .iter()
                .find(|(slot, _)| *slot == s)
                .map_or_else(|| format!("program.local[{s}]"), |(_, n)| n.clone()),
            (R::Uniform(s), false) => format!("c{s}"),
            (R::Lit(i), true) => format!("k{i}"),
            (R::Lit(i), false) => format!("c{}", self.em.uniform_slots + i),
            (R::State(i), _) => format!("s{i}"),
            (R::OutPos, true) => "result.position".into(),
            (R::OutPos, false) => "o0".into(),
            (R::OutVary(n), true) => format!("result.texcoord[{n}]"),
            (R::OutVary(n), false) => format!("o{}", u16::from(n) + 1),
            (R::OutColor(0), true) => "result.color".into(),
            (R::OutColor(n), true) => format!("result.color[{n}]"),
            (R::OutColor(n), false) => format!("oC{n}"),
            (R::OutDepth, true) => "result.depth".into(),
            (R::OutDepth, false) => "oDepth".into(),
            (R::RepCount, _) => "i0".into(),
            (R::Viewport, _) => "hoist_viewport".into(),
        }
    }

    fn src(&self, s: &Opnd) -> String {
        let mut t = String::new();
        if s.neg {
            t.push('-');
        }
        t.push_str(&self.reg(s.reg));
        if s.reg != R::RepCount && s.reg != R::Face {
            t.push_str(&swizzle(s.swz));
        }
        t
    }

    fn inst(&self, i: &EInst) -> String {
        let arb = self.em.dialect() == Dialect::Arb;
        let info = i.op.info();
        let name = if arb { info.arb } else { info.d3d }.unwrap_or("?");
        let mut name = name.to_string();
        if let Op::Ifc(c) | Op::Breakc(c) = i.op {
            name = format!("{name}_{}", c.suffix());
        }
        if i.sat {
            name.push_str(if arb { "_SAT" } else { "_sat" });
        }
        let mut ops: Vec<String> = Vec::new();
        if let Some((r, m)) = i.dst {
            let mut d = self.reg(r);
            if m != 15 && (arb || r != R::OutDepth) {
                d.push('.');
                for c in 0..4 {
                    if m & 1 << c != 0 {
                        d.push(['x', 'y', 'z', 'w'][c]);
                    }
                }
            }
            ops.push(d);
        }
        for (k, s) in i.src.iter().enumerate() {
            ops.push(self.src(s));
            if k == 0
                && let Some((u, _)) = i.tex
                && !arb
            {
                ops.push(format!("s{u}"));
            }
        }
        if let Some((u, t)) = i.tex {
            if arb {
                ops.push(format!("texture[{u}]"));
                ops.push(t.arb_name().into());
            } else if i.src.is_empty() {
                ops.push(format!("s{u}"));
            }
        }
        let mut line = if ops.is_empty() {
            name
        } else {
            format!("{name} {}", ops.join(", "))
        };
        if arb {
            line.push(';');
        }
        line
    }
}

fn swizzle(s: [u8; 4]) -> String {
    const N: [char; 4] = ['x', 'y', 'z', 'w'];
    if s == [0, 1, 2, 3] {
        String::new()
    } else if s.iter().all(|&c| c == s[0]) {
        format!(".{}", N[usize::from(s[0])])
    } else {
        let mut t = String::from(".");
        for c in s {
            t.push(N[usize::from(c)]);
        }
        t
    }
}

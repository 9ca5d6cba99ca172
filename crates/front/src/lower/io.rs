//! The entry point's interface: arguments and results onto attributes, interpolants and
//! outputs; uniform globals onto parameter slots; private globals onto variables.

use super::{Ev, Lower, Res, flat_len};
use crate::bindings::UniformSlot;
use crate::emit::{R, lanes};
use crate::value::{C, Val};
use hoist_asm::ops::Cond;
use hoist_asm::{Dialect, Op, Stage};
use naga::{Binding, BuiltIn, Handle, Interpolation, Sampling, TypeInner};

impl<'a> Lower<'a> {
    fn stage_name(&self) -> &'static str {
        match self.em.stage() {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }

    /// The value of each entry-point argument.
    pub fn entry_args(&mut self, ep: &naga::EntryPoint) -> Res<Vec<Ev>> {
        let mut args = Vec::new();
        for a in &ep.function.arguments {
            let ty = &self.module.types[a.ty].inner;
            let name = a.name.clone().unwrap_or_default();
            let v = match (&a.binding, ty) {
                (Some(b), _) => self.input(b, ty, &name)?,
                (None, TypeInner::Struct { members, .. }) => {
                    let mut v = Val::new();
                    for m in members {
                        let mty = &self.module.types[m.ty].inner;
                        let mname = format!("{name}.{}", m.name.clone().unwrap_or_default());
                        let b = m.binding.as_ref().ok_or_else(|| {
                            self.refuse(naga::Span::default(), "entry argument without a binding")
                        })?;
                        v.extend(self.input(b, mty, &mname)?);
                    }
                    v
                }
                _ => {
                    return Err(
                        self.refuse(naga::Span::default(), "entry argument without a binding")
                    );
                }
            };
            args.push(Ev::Val(v));
        }
        Ok(args)
    }

    fn input(&mut self, b: &Binding, ty: &TypeInner, name: &str) -> Res<Val> {
        let n = flat_len(self.module, ty);
        let stage = self.stage_name();
        let arb = self.em.dialect() == Dialect::Arb;
        if n > 4 {
            return Err(self.refuse(
                naga::Span::default(),
                format!("input `{name}` is not a scalar or vector"),
            ));
        }
        match (b, self.em.stage()) {
            (Binding::Location { location, .. }, Stage::Vertex) => {
                let l = self.small(*location, name)?;
                let reg = if arb {
                    format!("vertex.attrib[{l}]")
                } else {
                    format!("v{l} (dcl_{})", crate::emit::d3d_attr_usage(l))
                };
                let detail = if l == 0 {
                    "generic attribute 0 aliases the position"
                } else {
                    ""
                };
                self.bindings.row_with(
                    "attribute",
                    stage,
                    name,
                    &format!("@location({l})"),
                    &reg,
                    detail,
                );
                if !self.bindings.attributes.iter().any(|a| a.location == l) {
                    self.bindings
                        .attributes
                        .push(crate::bindings::AttributeSlot {
                            name: name.into(),
                            location: l,
                            components: n as u8,
                        });
                }
                Ok(lanes(R::Attr(l), n))
            }
            (
                Binding::Location {
                    location,
                    interpolation,
                    sampling,
                    ..
                },
                Stage::Fragment,
            ) => {
                let l = self.small(*location, name)?;
                let detail = self.interpolation(*interpolation, *sampling, l, name)?;
                let reg = if arb {
                    format!("fragment.texcoord[{l}]")
                } else {
                    format!("v{l} (dcl_texcoord{l})")
                };
                self.bindings.row_with(
                    "varying",
                    stage,
                    name,
                    &format!("@location({l})"),
                    &reg,
                    &detail,
                );
                let v = lanes(R::Vary(l), n);
                if *interpolation == Some(Interpolation::Linear) {
                    // Perspective-correct interpolation of v·w, times 1/w at the fragment.
                    let w = C::Reg {
                        reg: R::FragPos,
                        lane: 3,
                        neg: false,
                    };
                    let wv = vec![w; n];
                    return self.mul(&v, &wv);
                }
                Ok(v)
            }
            (Binding::BuiltIn(BuiltIn::Position { .. }), Stage::Fragment) => {
                self.frag_position(name, n)
            }
            (Binding::BuiltIn(BuiltIn::FrontFacing), Stage::Fragment) => self.front_facing(name),
            (Binding::BuiltIn(bi), _) => Err(self.refuse(
                naga::Span::default(),
                format!("the built-in {bi:?} has no equivalent in the assembly targets"),
            )),
        }
    }

    /// The fragment position in the source's convention: GLSL's `gl_FragCoord` counts y
    /// up from the bottom, WGSL's `position` down from the top, both at pixel centres.
    /// ARB's `fragment.position` is GLSL's; D3D9's `vPos` holds the integer pixel with y
    /// from the top and no z or w. Where the two differ in y, the flip needs the target's
    /// height: a parameter the host sets before each draw ([`Self::viewport`]).
    fn frag_position(&mut self, name: &str, n: usize) -> Res<Val> {
        let arb = self.em.dialect() == Dialect::Arb;
        let wgsl = self.source == crate::api::SourceId::Wgsl;
        let reg = if arb { "fragment.position" } else { "vPos" };
        let detail = match (arb, wgsl) {
            (true, false) => "window coordinates, y up from the bottom: the same",
            (false, true) => "vPos + 0.5: pixel centres, y down from the top",
            (true, true) => "y flipped to WGSL's (down from the top) with the target's height",
            (false, false) => {
                "vPos + 0.5, y flipped to GLSL's (up from the bottom) with the target's height"
            }
        };
        let stage = self.stage_name();
        self.bindings
            .row_with("builtin", stage, name, "position", reg, detail);
        let mut v = if arb {
            lanes(R::FragPos, 4)
        } else {
            self.bindings
                .note("D3D9's vPos has no z and w: the fragment position's z reads 0.5 and w 1");
            let xy = self.add(&lanes(R::FragPos, 2), &[C::Lit(0.5)])?;
            vec![xy[0], xy[1], C::Lit(0.5), C::Lit(1.0)]
        };
        if arb == wgsl {
            let h = C::Reg {
                reg: R::Viewport,
                lane: 1,
                neg: false,
            };
            v[1] = self.sub(&[h], &[v[1]])?[0];
        }
        v.truncate(n);
        Ok(v)
    }

    /// The slot of the viewport parameter (width, height of the render target), which the
    /// host sets before each draw (`UniformSlot::state` is `viewport`), given to
    /// [`R::Viewport`] when the stage's instructions still read it.
    pub fn place_viewport(&mut self) {
        if self.em.reads(R::Viewport) {
            let slot = self.viewport_slot();
            self.em.replace(R::Viewport, R::Uniform(slot));
        }
    }

    fn viewport_slot(&mut self) -> u16 {
        let name = "hoist.viewport";
        let slot = match self.bindings.uniforms.iter().find(|u| u.name == name) {
            Some(u) => u.slot,
            None => {
                let slot = self.bindings.next_slot();
                self.bindings.uniforms.push(UniformSlot {
                    name: name.into(),
                    group: 0,
                    binding: 0,
                    offset: 0,
                    ty: "vec2<f32>".into(),
                    slot,
                    slots: 1,
                    lanes: 2,
                    init: None,
                    state: Some("viewport".into()),
                });
                slot
            }
        };
        if !self.em.uniforms.iter().any(|(s, _)| *s == slot) {
            self.em.uniforms.push((slot, "hoist_viewport".into()));
        }
        self.em.uniform_slots = self.em.uniform_slots.max(slot + 1);
        let stage = self.stage_name();
        let label = if self.em.dialect() == Dialect::Arb {
            format!("program.local[{slot}]")
        } else {
            format!("c{slot}")
        };
        self.bindings.row_with(
            "builtin",
            stage,
            name,
            "viewport",
            &label,
            "the render target's width and height, which the host sets before each draw",
        );
        slot
    }

    /// `front_facing` / `gl_FrontFacing`: 1.0 on front faces, from D3D9's `vFace` (which
    /// may only be compared: `if_gt vFace, 0`). ARB fragment programs have no facing.
    fn front_facing(&mut self, name: &str) -> Res<Val> {
        if self.em.dialect() == Dialect::Arb {
            return Err(self.refuse(
                naga::Span::default(),
                "front_facing (gl_FrontFacing): ARB fragment programs have no facing register; \
                 D3D9's vFace has it (--dialect d3d9)",
            ));
        }
        self.bindings.row_with(
            "builtin",
            "fragment",
            name,
            "front_facing",
            "vFace",
            "1 on front (counter-clockwise) faces, else 0: if_gt vFace, 0",
        );
        let t = self.em.materialize(&[C::Lit(0.0)]);
        let face = self.em.opnd(&[C::Reg {
            reg: R::Face,
            lane: 0,
            neg: false,
        }]);
        let zero = self.em.opnd(&[C::Lit(0.0)]);
        self.em.flow(Op::Ifc(Cond::Gt), vec![face, zero.lane(0)]);
        let one = self.em.opnd(&[C::Lit(1.0)]);
        self.em.push(Op::Mov, Some((t, 1)), vec![one]);
        self.em.flow(Op::Endif, vec![]);
        Ok(vec![C::Reg {
            reg: t,
            lane: 0,
            neg: false,
        }])
    }

    fn small(&self, location: u32, name: &str) -> Res<u8> {
        let max = if self.em.stage() == Stage::Vertex {
            16
        } else {
            8
        };
        if location >= max {
            return Err(self.refuse(
                naga::Span::default(),
                format!("`{name}` is at location {location}; the target has {max} of them"),
            ));
        }
        Ok(location as u8)
    }

    /// What an interpolation qualifier becomes, or why it cannot.
    fn interpolation(
        &mut self,
        interp: Option<Interpolation>,
        sampling: Option<Sampling>,
        l: u8,
        name: &str,
    ) -> Res<String> {
        let arb = self.em.dialect() == Dialect::Arb;
        let mut detail = String::from("perspective");
        match interp {
            Some(Interpolation::Flat) => {
                return Err(self.refuse(
                    naga::Span::default(),
                    format!(
                        "`{name}` is flat: ARB and D3D9 9.0 interpolants are always interpolated \
                         (no provoking-vertex value)"
                    ),
                ));
            }
            Some(Interpolation::Linear) if !arb => {
                return Err(self.refuse(
                    naga::Span::default(),
                    format!(
                        "`{name}` is linear (no perspective): emulated for ARB only (vPos has no \
                         w); use --dialect arb"
                    ),
                ));
            }
            Some(Interpolation::Linear) => {
                detail = "linear, emulated: the vertex program writes v·w and the fragment \
                          program multiplies by fragment.position.w (1/w)"
                    .into();
            }
            _ => {}
        }
        match sampling {
            Some(Sampling::Centroid) if !arb => {
                self.em.centroid.push(l);
                detail.push_str(", centroid (dcl _centroid)");
            }
            Some(Sampling::Centroid | Sampling::Sample) => {
                detail.push_str(", at the pixel centre (no multisampling: centroid = centre)");
                self.bindings.note(
                    "centroid/sample interpolation: Hoist renders without multisampling, where \
                     it is the pixel centre",
                );
            }
            _ => {}
        }
        Ok(detail)
    }

    /// Writes the entry point's result to the outputs.
    pub fn entry_result(&mut self, ep: &naga::EntryPoint, v: &Val) -> Res<()> {
        let Some(res) = &ep.function.result else {
            return Ok(());
        };
        let ty = &self.module.types[res.ty].inner;
        let mut outs: Vec<(Binding, String, usize, usize)> = Vec::new();
        match (&res.binding, ty) {
            (Some(b), _) => outs.push((b.clone(), "result".into(), 0, flat_len(self.module, ty))),
            (None, TypeInner::Struct { members, .. }) => {
                let mut off = 0;
                for m in members {
                    let n = flat_len(self.module, &self.module.types[m.ty].inner);
                    if let Some(b) = &m.binding {
                        outs.push((b.clone(), m.name.clone().unwrap_or_default(), off, n));
                    }
                    off += n;
                }
            }
            _ => {}
        }
        let pos_w = outs.iter().find_map(|(b, _, off, _)| {
            matches!(b, Binding::BuiltIn(BuiltIn::Position { .. })).then(|| v[off + 3])
        });
        for (b, name, off, n) in outs {
            self.output(&b, &name, &v[off..off + n], pos_w)?;
        }
        Ok(())
    }

    fn output(&mut self, b: &Binding, name: &str, v: &[C], pos_w: Option<C>) -> Res<()> {
        let stage = self.stage_name();
        let arb = self.em.dialect() == Dialect::Arb;
        let (reg, label, src) = match (b, self.em.stage()) {
            (Binding::BuiltIn(BuiltIn::Position { .. }), Stage::Vertex) => (
                R::OutPos,
                if arb {
                    "result.position"
                } else {
                    "o0 (dcl_position)"
                }
                .to_string(),
                "position".to_string(),
            ),
            (
                Binding::Location {
                    location,
                    interpolation,
                    ..
                },
                Stage::Vertex,
            ) => {
                let l = self.small(*location, name)?;
                let mut v: Val = v.to_vec();
                if *interpolation == Some(Interpolation::Linear) && arb {
                    let w = pos_w.ok_or_else(|| {
                        self.refuse(
                            naga::Span::default(),
                            "linear interpolation needs the position",
                        )
                    })?;
                    let wv = vec![w; v.len()];
                    v = self.mul(&v, &wv)?;
                }
                let label = if arb {
                    format!("result.texcoord[{l}]")
                } else {
                    format!("o{} (dcl_texcoord{l})", u16::from(l) + 1)
                };
                self.bindings
                    .row("varying", stage, name, &format!("@location({l})"), &label);
                self.store_out(R::OutVary(l), &v);
                return Ok(());
            }
            (Binding::Location { location, .. }, Stage::Fragment) => {
                let l = *location as u8;
                if l > 3 {
                    return Err(self.refuse(naga::Span::default(), "at most four colour outputs"));
                }
                let label = match (arb, l) {
                    (true, 0) => "result.color".to_string(),
                    (true, l) => format!("result.color[{l}]"),
                    (false, l) => format!("oC{l}"),
                };
                (R::OutColor(l), label, format!("@location({l})"))
            }
            (Binding::BuiltIn(BuiltIn::FragDepth), Stage::Fragment) => {
                let label = if arb { "result.depth.z" } else { "oDepth" };
                self.bindings
                    .row("output", stage, name, "frag_depth", label);
                let c = [v[0]; 4];
                let src = self.em.opnd(&c);
                let mask = if arb { 4 } else { 15 };
                self.em.push(Op::Mov, Some((R::OutDepth, mask)), vec![src]);
                return Ok(());
            }
            (Binding::BuiltIn(BuiltIn::PointSize), Stage::Vertex) => {
                self.bindings
                    .note("the point size output is ignored (Hoist draws triangles)");
                return Ok(());
            }
            (Binding::BuiltIn(bi), _) => {
                return Err(self.refuse(
                    naga::Span::default(),
                    format!("the output built-in {bi:?} has no equivalent in the assembly targets"),
                ));
            }
        };
        self.bindings.row("output", stage, name, &src, &label);
        self.store_out(reg, v);
        Ok(())
    }

    fn store_out(&mut self, reg: R, v: &[C]) {
        let n = v.len().min(4);
        if n == 0 {
            return;
        }
        let src = self.em.opnd(&v[..n]);
        let mask = ((1u16 << n) - 1) as u8;
        self.em.push(Op::Mov, Some((reg, mask)), vec![src]);
    }

    /// The slots of a uniform global, allocated on first use (shared by both stages).
    pub fn uniform(&mut self, h: Handle<naga::GlobalVariable>) -> Res<Val> {
        if let Some(v) = self.uniforms.get(&h) {
            return Ok(v.clone());
        }
        let g = &self.module.global_variables[h];
        // GLSL's blocks without an instance name (and the adapted loose uniforms) expose
        // their members by name: no prefix.
        let name = g.name.clone().unwrap_or_default();
        let (group, binding) = g.binding.as_ref().map_or((0, 0), |b| (b.group, b.binding));
        let mut leaves = Vec::new();
        self.leaves(g.ty, &name, 0, &mut leaves);
        let mut init = self.uniform_init(g.ty)?;
        let mut v = Val::new();
        for (lname, ty, offset) in leaves {
            let lname = lname.replace(crate::adapt::BOOL_PREFIX, "");
            let n = flat_len(self.module, &self.module.types[ty].inner);
            let leaf_init: Option<Vec<f32>> = init.as_mut().and_then(|vals| {
                let take = n.min(vals.len());
                let head: Vec<f32> = vals.drain(..take).collect();
                (head.len() == n).then_some(head)
            });
            let lname = lname.trim_start_matches('.').to_string();
            let inner = &self.module.types[ty].inner;
            let (cols, rows) = match inner {
                TypeInner::Scalar(_) => (1, 1),
                TypeInner::Vector { size, .. } => (1, *size as u8),
                TypeInner::Matrix { columns, rows, .. } => (*columns as u16, *rows as u8),
                _ => {
                    return Err(self.refuse(
                        naga::Span::default(),
                        format!("uniform `{lname}` has a type the targets cannot hold"),
                    ));
                }
            };
            if let Some(state) = self.state_matrix(&lname, cols, rows)? {
                v.extend(state);
                continue;
            }
            let existing = self
                .bindings
                .uniforms
                .iter()
                .find(|u| u.name == lname)
                .map(|u| u.slot);
            let next = existing.unwrap_or_else(|| self.bindings.next_slot());
            for c in 0..cols {
                for r in 0..rows {
                    v.push(C::Reg {
                        reg: R::Uniform(next + c),
                        lane: r,
                        neg: false,
                    });
                }
            }
            if existing.is_none() {
                self.bindings.uniforms.push(UniformSlot {
                    name: lname.clone(),
                    group,
                    binding,
                    offset,
                    ty: type_name(self.module, ty),
                    slot: next,
                    slots: cols,
                    lanes: rows,
                    init: leaf_init,
                    state: None,
                });
            }
            for c in 0..cols {
                let label = if self.em.dialect() == Dialect::Arb {
                    format!("program.local[{}]", next + c)
                } else {
                    format!("c{}", next + c)
                };
                let pname = arb_name(&lname, cols > 1, c);
                if !self.em.uniforms.iter().any(|(s, _)| *s == next + c) {
                    self.em.uniforms.push((next + c, pname));
                }
                self.em.uniform_slots = self.em.uniform_slots.max(next + c + 1);
                let stage = self.stage_name();
                self.bindings.row(
                    "uniform",
                    stage,
                    &if cols > 1 {
                        format!("{lname}[{c}]")
                    } else {
                        lname.clone()
                    },
                    &format!("@group({group}) @binding({binding})"),
                    &label,
                );
            }
        }
        self.uniforms.insert(h, v.clone());
        Ok(v)
    }

    /// The initial value of an adapted loose GLSL uniform (a block with one member `x`,
    /// whose initializer `adapt` kept as the constant `hoist_init_x`), flat.
    fn uniform_init(&mut self, ty: naga::Handle<naga::Type>) -> Res<Option<Vec<f32>>> {
        let TypeInner::Struct { members, .. } = &self.module.types[ty].inner else {
            return Ok(None);
        };
        let [m] = members.as_slice() else {
            return Ok(None);
        };
        let want = format!(
            "{}{}",
            crate::adapt::INIT_PREFIX,
            m.name.as_deref().unwrap_or("")
        );
        let Some((_, c)) = self
            .module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(want.as_str()))
        else {
            return Ok(None);
        };
        let v = self.const_expr(c.init)?;
        Ok(crate::value::lits(&v))
    }

    /// The legacy GLSL matrices (`hoist_gl_*`, see `adapt`) as ARB state rows.
    fn state_matrix(&mut self, name: &str, cols: u16, rows: u8) -> Res<Option<Val>> {
        let Some(gl) = name.strip_prefix("hoist_") else {
            return Ok(None);
        };
        let Some((_, arb)) = crate::adapt::STATE_MATRICES.iter().find(|(n, _)| *n == gl) else {
            return Ok(None);
        };
        if self.em.dialect() != Dialect::Arb {
            return Ok(Some(self.state_constants(gl, arb, cols, rows)));
        }
        let base = self.em.states.len() as u16;
        for r in 0..rows {
            self.em.states.push(format!("{arb}.row[{r}]"));
        }
        let stage = self.stage_name();
        self.bindings.row("builtin", stage, gl, gl, arb);
        let mut v = Val::new();
        for c in 0..cols {
            for r in 0..u16::from(rows) {
                v.push(C::Reg {
                    reg: R::State(base + r),
                    lane: c as u8,
                    neg: false,
                });
            }
        }
        Ok(Some(v))
    }

    /// D3D9 has no OpenGL state: the matrix's rows go in constants (one per row), which
    /// the host sets from the state before each draw (`hoist_front::scene` does).
    fn state_constants(&mut self, gl: &str, arb: &str, cols: u16, rows: u8) -> Val {
        let existing = self
            .bindings
            .uniforms
            .iter()
            .find(|u| u.name == gl)
            .map(|u| u.slot);
        let base = existing.unwrap_or_else(|| self.bindings.next_slot());
        if existing.is_none() {
            self.bindings.uniforms.push(UniformSlot {
                name: gl.to_string(),
                group: 0,
                binding: 0,
                offset: 0,
                ty: format!("rows of {arb}"),
                slot: base,
                slots: u16::from(rows),
                lanes: cols as u8,
                init: None,
                state: Some(arb.to_string()),
            });
        }
        for r in 0..u16::from(rows) {
            if !self.em.uniforms.iter().any(|(s, _)| *s == base + r) {
                self.em.uniforms.push((base + r, format!("{gl}_row{r}")));
            }
        }
        self.em.uniform_slots = self.em.uniform_slots.max(base + u16::from(rows));
        let stage = self.stage_name();
        let last = base + u16::from(rows) - 1;
        self.bindings.row_with(
            "builtin",
            stage,
            gl,
            gl,
            &format!("c{base}..c{last}"),
            &format!("the rows of {arb}, which the host sets before each draw"),
        );
        let mut v = Val::new();
        for c in 0..cols {
            for r in 0..u16::from(rows) {
                v.push(C::Reg {
                    reg: R::Uniform(base + r),
                    lane: c as u8,
                    neg: false,
                });
            }
        }
        v
    }

    /// Scalar, vector and matrix leaves of a type with names and byte offsets.
    fn leaves(
        &self,
        ty: Handle<naga::Type>,
        name: &str,
        base: u32,
        out: &mut Vec<(String, Handle<naga::Type>, u32)>,
    ) {
        match &self.module.types[ty].inner {
            TypeInner::Struct { members, .. } => {
                for m in members {
                    let n = format!("{name}.{}", m.name.clone().unwrap_or_default());
                    self.leaves(m.ty, &n, base + m.offset, out);
                }
            }
            TypeInner::Array {
                base: b,
                size: naga::ArraySize::Constant(n),
                stride,
            } => {
                for i in 0..n.get() {
                    self.leaves(*b, &format!("{name}[{i}]"), base + i * stride, out);
                }
            }
            _ => out.push((name.to_string(), ty, base)),
        }
    }

    /// Slot of each private global (WGSL `var<private>`, GLSL's globals).
    pub fn private_global(&mut self, h: Handle<naga::GlobalVariable>) -> Res<usize> {
        if let Some(s) = self.globals.get(&h) {
            return Ok(*s);
        }
        let g = &self.module.global_variables[h];
        let n = flat_len(self.module, &self.module.types[g.ty].inner);
        let v = match g.init {
            Some(init) => self.const_expr(init)?,
            None => vec![C::Lit(0.0); n],
        };
        self.mem.push(v);
        let s = self.mem.len() - 1;
        self.globals.insert(h, s);
        Ok(s)
    }
}

/// A WGSL-style name of a type, for the binding table.
pub fn type_name(module: &naga::Module, ty: Handle<naga::Type>) -> String {
    let scalar = |s: &naga::Scalar| match s.kind {
        naga::ScalarKind::Float => "f32",
        naga::ScalarKind::Sint => "i32",
        naga::ScalarKind::Uint => "u32",
        naga::ScalarKind::Bool => "bool",
        naga::ScalarKind::AbstractInt | naga::ScalarKind::AbstractFloat => "abstract",
    };
    match &module.types[ty].inner {
        TypeInner::Scalar(s) => scalar(s).into(),
        TypeInner::Vector { size, scalar: s } => format!("vec{}<{}>", *size as u8, scalar(s)),
        TypeInner::Matrix {
            columns,
            rows,
            scalar: s,
        } => {
            format!("mat{}x{}<{}>", *columns as u8, *rows as u8, scalar(s))
        }
        other => format!("{other:?}"),
    }
}

/// An ARB `PARAM` name for a uniform leaf (letters, digits and `_`).
fn arb_name(name: &str, matrix: bool, col: u16) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    s = s.trim_matches('_').to_string();
    if matrix {
        s = format!("{s}_c{col}");
    }
    format!("u_{s}")
}

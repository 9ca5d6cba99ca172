//! Expressions: values, pointers, constants, operators and the builtins.

use super::{Ev, Lower, Ptr, Res, Root, element, flat_len};
use crate::value::{C, Val, lits};
use hoist_asm::Op;
use hoist_asm::ir::TexTarget;
use naga::{BinaryOperator as B, Expression as E, Handle, MathFunction as M, TypeInner};

impl<'a> Lower<'a> {
    /// The value of expression `h` in the current frame (evaluated once, then cached).
    pub fn ev(&mut self, h: Handle<naga::Expression>) -> Res<Ev> {
        if let Some(Some(e)) = self.frame().cache.get(h.index()) {
            return Ok(e.clone());
        }
        let e = self.eval(h)?;
        let cache = &mut self.frame_mut().cache;
        if cache.len() <= h.index() {
            cache.resize(h.index() + 1, None);
        }
        cache[h.index()] = Some(e.clone());
        Ok(e)
    }

    pub fn val(&mut self, h: Handle<naga::Expression>) -> Res<Val> {
        match self.ev(h)? {
            Ev::Val(v) => Ok(v),
            Ev::Ptr(p) => self.load(p, self.espan(h)),
            _ => Err(self.refuse(self.espan(h), "a texture or sampler used as a value")),
        }
    }

    /// The type of expression `h`.
    pub fn ty(&self, h: Handle<naga::Expression>) -> &'a TypeInner {
        let info: &'a naga::valid::FunctionInfo = self.frame().info;
        info[h].ty.inner_with(&self.module.types)
    }

    /// The type a pointer expression points at.
    fn pointee(&self, h: Handle<naga::Expression>) -> TypeInner {
        match self.ty(h) {
            TypeInner::Pointer { base, .. } => self.module.types[*base].inner.clone(),
            TypeInner::ValuePointer {
                size: Some(size),
                scalar,
                ..
            } => TypeInner::Vector {
                size: *size,
                scalar: *scalar,
            },
            TypeInner::ValuePointer {
                size: None, scalar, ..
            } => TypeInner::Scalar(*scalar),
            other => other.clone(),
        }
    }

    fn eval(&mut self, h: Handle<naga::Expression>) -> Res<Ev> {
        let span = self.espan(h);
        self.tick(span)?;
        let fun = self.frame().fun;
        let expr = &fun.expressions[h];
        let saved = self.em.span;
        self.at(span);
        let r = self.eval_inner(h, expr, span);
        self.em.span = saved;
        r
    }

    fn eval_inner(&mut self, h: Handle<naga::Expression>, expr: &E, span: naga::Span) -> Res<Ev> {
        let v = match *expr {
            E::Literal(l) => vec![C::Lit(self.literal(l, span)?)],
            E::Constant(c) => self.const_expr(self.module.constants[c].init)?,
            E::ZeroValue(ty) => {
                vec![C::Lit(0.0); flat_len(self.module, &self.module.types[ty].inner)]
            }
            E::Compose { ref components, .. } => {
                let mut v = Val::new();
                for c in components {
                    v.extend(self.val(*c)?);
                }
                v
            }
            E::Splat { size, value } => {
                let x = self.val(value)?;
                vec![x[0]; size as usize]
            }
            E::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let x = self.val(vector)?;
                (0..size as usize).map(|i| x[pattern[i] as usize]).collect()
            }
            E::FunctionArgument(i) => return Ok(self.frame().args[i as usize].clone()),
            E::GlobalVariable(g) => return self.global(g, span),
            E::LocalVariable(l) => {
                let slot = self.frame().locals[l.index()];
                let len = self.mem[slot].len();
                return Ok(Ev::Ptr(Ptr {
                    root: Root::Mem(slot),
                    off: 0,
                    len,
                }));
            }
            E::Load { pointer } => match self.ev(pointer)? {
                Ev::Ptr(p) => self.load(p, span)?,
                other => return Ok(other),
            },
            E::Access { base, index } => {
                let i = self.val(index)?;
                let Some(i) = i[0].lit() else {
                    return Err(self.refuse(
                        span,
                        "dynamic indexing: the index is not a constant after unrolling, and the \
                         target has no indexed registers here",
                    ));
                };
                return self.index(base, i as usize, span);
            }
            E::AccessIndex { base, index } => return self.index(base, index as usize, span),
            E::Unary { op, expr } => self.unary(op, expr, span)?,
            E::Binary { op, left, right } => self.binary(op, left, right, span)?,
            E::Select {
                condition,
                accept,
                reject,
            } => {
                let c = self.val(condition)?;
                let a = self.val(accept)?;
                let b = self.val(reject)?;
                self.select(&c, &a, &b)?
            }
            E::Math {
                fun,
                arg,
                arg1,
                arg2,
                ..
            } => self.math(fun, arg, arg1, arg2, span)?,
            E::Relational { fun, argument } => {
                let x = self.val(argument)?;
                match fun {
                    naga::RelationalFunction::All => self.fold_all(&x, true)?,
                    naga::RelationalFunction::Any => self.fold_all(&x, false)?,
                    _ => return Err(self.refuse(span, "isnan/isinf have no assembly equivalent")),
                }
            }
            E::As {
                expr,
                kind,
                convert,
            } => self.cast(expr, kind, convert, span)?,
            E::Derivative { axis, expr, .. } => self.derivative(axis, expr, span)?,
            E::ImageSample { .. } => self.sample(expr, span)?,
            E::CallResult(_) => {
                return Err(self.refuse(span, "call result used before the call"));
            }
            E::ImageLoad { .. } | E::ImageQuery { .. } => {
                return Err(self.refuse(
                    span,
                    "texel fetches and texture queries (integer coordinates, sizes) have no \
                     ARB/D3D9 equivalent",
                ));
            }
            E::Override(_) => return Err(self.refuse(span, "pipeline-overridable constants")),
            _ => return Err(self.refuse(span, "this expression has no ARB/D3D9 equivalent")),
        };
        let _ = h;
        Ok(Ev::Val(v))
    }

    fn global(&mut self, g: Handle<naga::GlobalVariable>, span: naga::Span) -> Res<Ev> {
        let gv = &self.module.global_variables[g];
        match gv.space {
            naga::AddressSpace::Uniform => {
                let len = self.uniform(g)?.len();
                Ok(Ev::Ptr(Ptr {
                    root: Root::Uniform(g),
                    off: 0,
                    len,
                }))
            }
            naga::AddressSpace::Private | naga::AddressSpace::Function => {
                let slot = self.private_global(g)?;
                let len = self.mem[slot].len();
                Ok(Ev::Ptr(Ptr {
                    root: Root::Mem(slot),
                    off: 0,
                    len,
                }))
            }
            naga::AddressSpace::Handle => match self.module.types[gv.ty].inner {
                TypeInner::Image { .. } => Ok(Ev::Image(g)),
                TypeInner::Sampler { .. } => Ok(Ev::Sampler(g)),
                _ => Err(self.refuse(span, "an unsupported handle")),
            },
            naga::AddressSpace::Storage { .. } => Err(self.refuse(
                span,
                "storage buffers have no equivalent in vertex/fragment assembly",
            )),
            _ => Err(self.refuse(span, "this address space has no equivalent in assembly")),
        }
    }

    pub fn load(&mut self, p: Ptr, _span: naga::Span) -> Res<Val> {
        match p.root {
            Root::Uniform(g) => Ok(self.uniform(g)?[p.off..p.off + p.len].to_vec()),
            Root::Mem(slot) => {
                let v = self.mem[slot][p.off..p.off + p.len].to_vec();
                if self.pinned.contains_key(&slot) {
                    // A home register may change later: copy what it holds now.
                    let mut out = Val::new();
                    for chunk in v.chunks(4) {
                        let t = self.em.materialize(chunk);
                        out.extend(crate::emit::lanes(t, chunk.len()));
                    }
                    return Ok(out);
                }
                Ok(v)
            }
        }
    }

    fn index(&mut self, base: Handle<naga::Expression>, i: usize, span: naga::Span) -> Res<Ev> {
        match self.ev(base)? {
            Ev::Ptr(p) => {
                let ty = self.pointee(base);
                let (off, len) = element(self.module, &ty, i)
                    .ok_or_else(|| self.refuse(span, "index out of range"))?;
                Ok(Ev::Ptr(Ptr {
                    root: p.root,
                    off: p.off + off,
                    len,
                }))
            }
            Ev::Val(v) => {
                let ty = self.ty(base).clone();
                let (off, len) = element(self.module, &ty, i)
                    .ok_or_else(|| self.refuse(span, "index out of range"))?;
                Ok(Ev::Val(v[off..off + len].to_vec()))
            }
            _ => Err(self.refuse(span, "arrays of textures or samplers")),
        }
    }

    /// A constant expression of the module's global arena.
    pub fn const_expr(&mut self, h: Handle<naga::Expression>) -> Res<Val> {
        let span = self.module.global_expressions.get_span(h);
        Ok(match self.module.global_expressions[h] {
            E::Literal(l) => vec![C::Lit(self.literal(l, span)?)],
            E::Constant(c) => self.const_expr(self.module.constants[c].init)?,
            E::ZeroValue(ty) => {
                vec![C::Lit(0.0); flat_len(self.module, &self.module.types[ty].inner)]
            }
            E::Compose { ref components, .. } => {
                let mut v = Val::new();
                for c in components.clone() {
                    v.extend(self.const_expr(c)?);
                }
                v
            }
            E::Splat { size, value } => vec![self.const_expr(value)?[0]; size as usize],
            _ => return Err(self.refuse(span, "this constant expression")),
        })
    }

    fn unary(
        &mut self,
        op: naga::UnaryOperator,
        e: Handle<naga::Expression>,
        span: naga::Span,
    ) -> Res<Val> {
        let x = self.val(e)?;
        match op {
            naga::UnaryOperator::Negate => Ok(x.iter().map(|c| c.neg()).collect()),
            naga::UnaryOperator::LogicalNot => self.not(&x),
            naga::UnaryOperator::BitwiseNot => match lits(&x) {
                Some(l) => Ok(l.iter().map(|v| C::Lit(!(*v as i32) as f32)).collect()),
                None => Err(self.refuse(span, "integer bit operations have no float equivalent")),
            },
        }
    }

    fn binary(
        &mut self,
        op: B,
        l: Handle<naga::Expression>,
        r: Handle<naga::Expression>,
        span: naga::Span,
    ) -> Res<Val> {
        let (lt, rt) = (self.ty(l).clone(), self.ty(r).clone());
        let a = self.val(l)?;
        let b = self.val(r)?;
        let int = matches!(
            scalar_kind(&lt),
            Some(naga::ScalarKind::Sint | naga::ScalarKind::Uint)
        );
        match op {
            B::Add => self.add(&a, &b),
            B::Subtract => self.sub(&a, &b),
            B::Multiply => self.multiply(&lt, &rt, &a, &b),
            B::Divide if int => {
                let q = self.div(&a, &b)?;
                self.trunc(&q)
            }
            B::Divide => self.div(&a, &b),
            B::Modulo => {
                let q = self.div(&a, &b)?;
                let t = self.trunc(&q)?;
                let bt = self.mul(&b, &t)?;
                self.sub(&a, &bt)
            }
            B::Less => self.lt(&a, &b),
            B::Greater => self.lt(&b, &a),
            B::LessEqual => self.ge(&b, &a),
            B::GreaterEqual => self.ge(&a, &b),
            B::Equal => self.eq(&a, &b),
            B::NotEqual => {
                let e = self.eq(&a, &b)?;
                self.not(&e)
            }
            B::LogicalAnd => self.mul(&a, &b),
            B::LogicalOr => self.max(&a, &b),
            B::And | B::InclusiveOr | B::ExclusiveOr
                if matches!(scalar_kind(&lt), Some(naga::ScalarKind::Bool)) =>
            {
                match op {
                    B::And => self.mul(&a, &b),
                    B::InclusiveOr => self.max(&a, &b),
                    _ => {
                        let d = self.sub(&a, &b)?;
                        self.abs(&d)
                    }
                }
            }
            _ => match (lits(&a), lits(&b)) {
                (Some(x), Some(y)) => Ok(int_fold(op, &x, &y)),
                _ => Err(self.refuse(span, "integer bit operations have no float equivalent")),
            },
        }
    }

    /// `*` with naga's typing: scalar × vector/matrix, matrix × vector, vector × matrix,
    /// matrix × matrix.
    fn multiply(&mut self, lt: &TypeInner, rt: &TypeInner, a: &[C], b: &[C]) -> Res<Val> {
        match (lt, rt) {
            (TypeInner::Matrix { columns, rows, .. }, TypeInner::Vector { .. }) => {
                self.mat_vec(a, *columns as usize, *rows as usize, b)
            }
            (TypeInner::Vector { .. }, TypeInner::Matrix { columns, rows, .. }) => {
                let (c, r) = (*columns as usize, *rows as usize);
                let mut out = Val::new();
                for j in 0..c {
                    out.extend(self.dot(b.get(j * r..(j + 1) * r).unwrap_or(&[]), a)?);
                }
                Ok(out)
            }
            (TypeInner::Matrix { columns, rows, .. }, TypeInner::Matrix { columns: c2, .. }) => {
                let (c, r) = (*columns as usize, *rows as usize);
                let mut out = Val::new();
                for j in 0..*c2 as usize {
                    let col = &b[j * c..(j + 1) * c];
                    out.extend(self.mat_vec(a, c, r, col)?);
                }
                Ok(out)
            }
            _ => self.mul(a, b),
        }
    }

    /// Matrix (columns of `rows` components) times vector: `DP` per row when each row is
    /// one register's lanes (state matrices), else `MUL` + `MAD` over the columns.
    pub fn mat_vec(&mut self, m: &[C], cols: usize, rows: usize, v: &[C]) -> Res<Val> {
        let row = |i: usize| -> Vec<C> { (0..cols).map(|j| m[j * rows + i]).collect() };
        let one_reg = |r: &[C]| match r[0] {
            C::Reg { reg, neg, .. } => r
                .iter()
                .all(|c| matches!(c, C::Reg { reg: x, neg: n, .. } if *x == reg && *n == neg)),
            C::Lit(_) => false,
        };
        if (0..rows).all(|i| one_reg(&row(i))) && cols >= 3 {
            let mut out = Val::new();
            for i in 0..rows {
                out.extend(self.dot(&row(i), v)?);
            }
            return Ok(out);
        }
        let mut acc = self.mul(&m[..rows], &[v[0]])?;
        for j in 1..cols {
            acc = self.mad(&m[j * rows..(j + 1) * rows], &[v[j]], &acc)?;
        }
        Ok(acc)
    }

    pub fn trunc(&mut self, a: &[C]) -> Res<Val> {
        if let Some(l) = lits(a) {
            return Ok(l.iter().map(|x| C::Lit(x.trunc())).collect());
        }
        let s = self.sign(a)?;
        let m = self.abs(a)?;
        let f = self.floor(&m)?;
        self.mul(&s, &f)
    }

    fn fold_all(&mut self, x: &[C], all: bool) -> Res<Val> {
        let mut acc = vec![x[0]];
        for c in &x[1..] {
            acc = if all {
                self.mul(&acc, &[*c])?
            } else {
                self.max(&acc, &[*c])?
            };
        }
        Ok(acc)
    }

    fn cast(
        &mut self,
        e: Handle<naga::Expression>,
        kind: naga::ScalarKind,
        convert: Option<u8>,
        span: naga::Span,
    ) -> Res<Val> {
        let from = scalar_kind(self.ty(e));
        let x = self.val(e)?;
        use naga::ScalarKind as K;
        if convert.is_none() && from != Some(kind) {
            return Err(self.refuse(span, "bit casts have no float equivalent"));
        }
        match (from, kind) {
            (Some(K::Float), K::Sint | K::Uint) => self.trunc(&x),
            (_, K::Bool) => {
                let z = self.eq(&x, &[C::Lit(0.0)])?;
                self.not(&z)
            }
            _ => Ok(x),
        }
    }

    fn derivative(
        &mut self,
        axis: naga::DerivativeAxis,
        e: Handle<naga::Expression>,
        span: naga::Span,
    ) -> Res<Val> {
        let x = self.val(e)?;
        if !self.em.has(Op::Dsx) {
            return Err(self.refuse(
                span,
                "derivatives exist only in D3D9 pixel shaders (dsx/dsy): compile with --dialect d3d9",
            ));
        }
        match axis {
            naga::DerivativeAxis::X => self.cw(Op::Dsx, &[&x], |_| 0.0),
            // WGSL's y runs down the framebuffer, the executor's (GL's, GLSL's) up.
            naga::DerivativeAxis::Y if self.source == crate::api::SourceId::Wgsl => {
                let d = self.cw(Op::Dsy, &[&x], |_| 0.0)?;
                Ok(d.iter().map(|c| c.neg()).collect())
            }
            naga::DerivativeAxis::Y => self.cw(Op::Dsy, &[&x], |_| 0.0),
            naga::DerivativeAxis::Width => {
                let dx = self.cw(Op::Dsx, &[&x], |_| 0.0)?;
                let dy = self.cw(Op::Dsy, &[&x], |_| 0.0)?;
                let ax = self.abs(&dx)?;
                let ay = self.abs(&dy)?;
                self.add(&ax, &ay)
            }
        }
    }

    fn math(
        &mut self,
        fun: M,
        a0: Handle<naga::Expression>,
        a1: Option<Handle<naga::Expression>>,
        a2: Option<Handle<naga::Expression>>,
        span: naga::Span,
    ) -> Res<Val> {
        let x = self.val(a0)?;
        let y = match a1 {
            Some(h) => self.val(h)?,
            None => Val::new(),
        };
        let z = match a2 {
            Some(h) => self.val(h)?,
            None => Val::new(),
        };
        let ln2 = std::f32::consts::LN_2;
        match fun {
            M::Abs => self.abs(&x),
            M::Min => self.min(&x, &y),
            M::Max => self.max(&x, &y),
            M::Clamp => {
                let m = self.max(&x, &y)?;
                self.min(&m, &z)
            }
            M::Saturate => self.sat(&x),
            M::Sin => self.trig(&x, true, span),
            M::Cos => self.trig(&x, false, span),
            M::Tan => {
                let s = self.trig(&x, true, span)?;
                let c = self.trig(&x, false, span)?;
                self.div(&s, &c)
            }
            M::Radians => self.mul(&x, &[C::Lit(std::f32::consts::PI / 180.0)]),
            M::Degrees => self.mul(&x, &[C::Lit(180.0 / std::f32::consts::PI)]),
            M::Floor => self.floor(&x),
            M::Ceil => {
                let n: Val = x.iter().map(|c| c.neg()).collect();
                let f = self.floor(&n)?;
                Ok(f.iter().map(|c| c.neg()).collect())
            }
            M::Fract => self.fract(&x),
            M::Trunc => self.trunc(&x),
            M::Round => self.round(&x),
            M::Exp => {
                let s = self.mul(&x, &[C::Lit(std::f32::consts::LOG2_E)])?;
                self.per_lane(Op::Ex2, &[&s], |v| v[0].exp2())
            }
            M::Exp2 => self.per_lane(Op::Ex2, &[&x], |v| v[0].exp2()),
            M::Log => {
                let l = self.per_lane(Op::Lg2, &[&x], |v| v[0].abs().log2())?;
                self.mul(&l, &[C::Lit(ln2)])
            }
            M::Log2 => self.per_lane(Op::Lg2, &[&x], |v| v[0].abs().log2()),
            M::Pow => self.per_lane(Op::Pow, &[&x, &y], |v| v[0].powf(v[1])),
            M::Dot => self.dot(&x, &y),
            M::Cross => {
                if let (Some(a), Some(b)) = (lits(&x), lits(&y)) {
                    return Ok(vec![
                        C::Lit(a[1] * b[2] - a[2] * b[1]),
                        C::Lit(a[2] * b[0] - a[0] * b[2]),
                        C::Lit(a[0] * b[1] - a[1] * b[0]),
                    ]);
                }
                let src = vec![self.em.opnd(&x), self.em.opnd(&y)];
                Ok(self.em.def(Op::Xpd, src, 3))
            }
            M::Length => {
                if x.len() == 1 {
                    return self.abs(&x);
                }
                let d = self.dot(&x, &x)?;
                self.sqrt(&d)
            }
            M::Distance => {
                let d = self.sub(&x, &y)?;
                if d.len() == 1 {
                    return self.abs(&d);
                }
                let dd = self.dot(&d, &d)?;
                self.sqrt(&dd)
            }
            M::Normalize => {
                let d = self.dot(&x, &x)?;
                let r = self.rsq(&d)?;
                self.mul(&x, &r)
            }
            M::FaceForward => {
                let d = self.dot(&z, &y)?;
                let c = self.lt(&d, &[C::Lit(0.0)])?;
                let n: Val = x.iter().map(|c| c.neg()).collect();
                self.select(&c, &x, &n)
            }
            M::Reflect => {
                let d = self.dot(&y, &x)?;
                let d2 = self.mul(&d, &[C::Lit(2.0)])?;
                let nd: Val = d2.iter().map(|c| c.neg()).collect();
                self.mad(&y, &nd, &x)
            }
            M::Sign => self.sign(&x),
            M::Fma => self.mad(&x, &y, &z),
            M::Mix => self.mix(&x, &y, &z),
            M::Step => self.ge(&y, &x),
            M::SmoothStep => {
                let num = self.sub(&z, &x)?;
                let den = self.sub(&y, &x)?;
                let q = self.div(&num, &den)?;
                let t = self.sat(&q)?;
                let k = self.mad(&t, &[C::Lit(-2.0)], &[C::Lit(3.0)])?;
                let tt = self.mul(&t, &t)?;
                self.mul(&tt, &k)
            }
            M::Sqrt => self.sqrt(&x),
            M::InverseSqrt => self.rsq(&x),
            M::Transpose => {
                let TypeInner::Matrix { columns, rows, .. } = *self.ty(a0) else {
                    return Err(self.refuse(span, "transpose of a non-matrix"));
                };
                let (c, r) = (columns as usize, rows as usize);
                Ok((0..r)
                    .flat_map(|i| (0..c).map(move |j| (i, j)))
                    .map(|(i, j)| x[j * r + i])
                    .collect())
            }
            other => Err(self.refuse(
                span,
                format!("the builtin {other:?} has no lowering to the assembly targets"),
            )),
        }
    }

    /// `mix(x, y, a)`: `LRP` where the profile has it, else `x + a·(y − x)`.
    fn mix(&mut self, x: &[C], y: &[C], a: &[C]) -> Res<Val> {
        if self.em.has(Op::Lrp) && lits(x).is_none() || lits(y).is_none() && self.em.has(Op::Lrp) {
            return self.cw(Op::Lrp, &[a, y, x], |v| v[0] * v[1] + (1.0 - v[0]) * v[2]);
        }
        let d = self.sub(y, x)?;
        self.mad(a, &d, x)
    }

    /// WGSL `round`: to nearest, ties to even.
    fn round(&mut self, x: &[C]) -> Res<Val> {
        if let Some(l) = lits(x) {
            return Ok(l.iter().map(|v| C::Lit(v.round_ties_even())).collect());
        }
        let t = self.add(x, &[C::Lit(0.5)])?;
        let f = self.floor(&t)?;
        let tie = self.eq(&t, &f)?;
        let half = self.mul(&f, &[C::Lit(0.5)])?;
        let fr = self.fract(&half)?;
        let odd = self.mul(&fr, &[C::Lit(2.0)])?;
        let fix = self.mul(&tie, &odd)?;
        self.sub(&f, &fix)
    }

    fn sample(&mut self, e: &E, span: naga::Span) -> Res<Val> {
        let E::ImageSample {
            image,
            sampler,
            gather,
            coordinate,
            array_index,
            offset,
            level,
            depth_ref,
            ..
        } = *e
        else {
            unreachable!()
        };
        if gather.is_some() || array_index.is_some() || offset.is_some() {
            return Err(self.refuse(
                span,
                "texture gathers, arrays and offsets have no ARB/D3D9 equivalent",
            ));
        }
        let Ev::Image(img) = self.ev(image)? else {
            return Err(self.refuse(span, "the texture is not a global"));
        };
        let _ = self.ev(sampler)?;
        let TypeInner::Image { dim, class, .. } =
            self.module.types[self.module.global_variables[img].ty].inner
        else {
            return Err(self.refuse(span, "not a texture"));
        };
        let shadow = matches!(class, naga::ImageClass::Depth { .. });
        let target = match (dim, shadow) {
            (naga::ImageDimension::D1, false) => TexTarget::T1D,
            (naga::ImageDimension::D2, false) => TexTarget::T2D,
            (naga::ImageDimension::D3, false) => TexTarget::T3D,
            (naga::ImageDimension::Cube, false) => TexTarget::Cube,
            (naga::ImageDimension::D1, true) => TexTarget::Shadow1D,
            (naga::ImageDimension::D2, true) => TexTarget::Shadow2D,
            _ => return Err(self.refuse(span, "cube depth textures have no ARB/D3D9 target")),
        };
        let arb = self.em.dialect() == hoist_asm::Dialect::Arb;
        if shadow && (!arb || depth_ref.is_none()) {
            return Err(self.refuse(
                span,
                "depth textures sample only with a comparison, and only in ARB (SHADOW targets)",
            ));
        }
        let gv = &self.module.global_variables[img];
        let name = gv.name.clone().unwrap_or_default();
        let (group, binding) = gv.binding.as_ref().map_or((0, 0), |b| (b.group, b.binding));
        let unit = self.bindings.unit(&name, group, binding, target.arb_name());
        let stage = if self.is_vertex() {
            "vertex"
        } else {
            "fragment"
        };
        let reg = if arb {
            format!("texture[{unit}], {}", target.arb_name())
        } else {
            format!("s{unit} (dcl_{})", target.d3d_name().unwrap_or("2d"))
        };
        self.bindings.row(
            "texture",
            stage,
            &name,
            &format!("@group({group}) @binding({binding})"),
            &reg,
        );
        let mut coord = self.val(coordinate)?;
        if let Some(d) = depth_ref {
            coord.truncate(2);
            coord.push(C::Lit(0.0));
            coord[2] = self.val(d)?[0];
        }
        let (op, extra): (Op, Option<Val>) = match level {
            naga::SampleLevel::Auto => (Op::Tex, None),
            naga::SampleLevel::Zero if arb => {
                self.bindings.note("textureSampleLevel(…, 0) is read as TEX in ARB: the same when the texture has one level");
                (Op::Tex, None)
            }
            naga::SampleLevel::Zero => (Op::Texldl, Some(vec![C::Lit(0.0)])),
            naga::SampleLevel::Exact(l) if !arb => (Op::Texldl, Some(self.val(l)?)),
            naga::SampleLevel::Exact(l) if self.val(l)?[0].lit() == Some(0.0) => {
                self.bindings.note("textureSampleLevel(…, 0) is read as TEX in ARB: the same when the texture has one level");
                (Op::Tex, None)
            }
            naga::SampleLevel::Bias(b) => (Op::Txb, Some(self.val(b)?)),
            naga::SampleLevel::Gradient { x, y } if self.em.has(Op::Texldd) => {
                let gx = self.val(x)?;
                let gy = self.val(y)?;
                return self.tex_grad(coord, gx, gy, unit, target);
            }
            _ => return Err(self.refuse(span, "explicit levels and gradients need D3D9 (texldl/texldd): compile with --dialect d3d9")),
        };
        if self.is_vertex() && !self.em.has(op) {
            return Err(self.refuse(span, "texture sampling in the vertex stage needs D3D9 vs_3_0 with an explicit level (textureSampleLevel)"));
        }
        if let Some(w) = extra {
            while coord.len() < 3 {
                coord.push(C::Lit(0.0));
            }
            coord.truncate(3);
            coord.push(w[0]);
        }
        let src = self.em.opnd(&coord[..coord.len().min(4)]);
        let t = self.em.temp();
        let at = self.em.push(op, Some((t, 15)), vec![src]);
        self.em.set_tex(at, unit, target);
        let v = crate::emit::lanes(t, 4);
        Ok(if shadow { v[..1].to_vec() } else { v })
    }

    fn tex_grad(&mut self, coord: Val, gx: Val, gy: Val, unit: u8, target: TexTarget) -> Res<Val> {
        let src = vec![self.em.opnd(&coord), self.em.opnd(&gx), self.em.opnd(&gy)];
        let t = self.em.temp();
        let at = self.em.push(Op::Texldd, Some((t, 15)), src);
        self.em.set_tex(at, unit, target);
        Ok(crate::emit::lanes(t, 4))
    }
}

/// The largest integer magnitude a float register holds exactly (2^24).
pub const EXACT_INT: f64 = 16_777_216.0;

impl Lower<'_> {
    /// A literal's value; an integer too large for a float register to hold exactly is
    /// refused (integers live in float registers, exact within ±2^24).
    fn literal(&self, l: naga::Literal, span: naga::Span) -> Res<f32> {
        use naga::Literal as L;
        let int = match l {
            L::U32(v) => Some(f64::from(v)),
            L::I32(v) => Some(f64::from(v)),
            L::U64(v) => Some(v as f64),
            L::I64(v) => Some(v as f64),
            L::AbstractInt(v) => Some(v as f64),
            L::U16(_) | L::I16(_) | L::F64(_) | L::F32(_) | L::F16(_) | L::Bool(_) => None,
            L::AbstractFloat(_) => None,
        };
        if let Some(v) = int
            && v.abs() > EXACT_INT
        {
            return Err(self.refuse(
                span,
                format!(
                    "the integer {v} is beyond ±2^24: integers live in float registers, exact \
                     only up to 2^24 (no 32-bit wrap-around)"
                ),
            ));
        }
        Ok(literal(l))
    }
}

pub fn literal(l: naga::Literal) -> f32 {
    use naga::Literal as L;
    match l {
        L::F64(v) => v as f32,
        L::F32(v) => v,
        L::F16(v) => f32::from(v),
        L::U16(v) => f32::from(v),
        L::I16(v) => f32::from(v),
        L::U32(v) => v as f32,
        L::I32(v) => v as f32,
        L::U64(v) => v as f32,
        L::I64(v) => v as f32,
        L::Bool(b) => f32::from(u8::from(b)),
        L::AbstractInt(v) => v as f32,
        L::AbstractFloat(v) => v as f32,
    }
}

fn scalar_kind(t: &TypeInner) -> Option<naga::ScalarKind> {
    match t {
        TypeInner::Scalar(s)
        | TypeInner::Vector { scalar: s, .. }
        | TypeInner::Matrix { scalar: s, .. } => Some(s.kind),
        _ => None,
    }
}

fn int_fold(op: B, x: &[f32], y: &[f32]) -> Val {
    let n = x.len().max(y.len());
    let at = |v: &[f32], i: usize| if v.len() == 1 { v[0] } else { v[i] } as i64 as i32;
    (0..n)
        .map(|i| {
            let (a, b) = (at(x, i), at(y, i));
            C::Lit(match op {
                B::And => a & b,
                B::InclusiveOr => a | b,
                B::ExclusiveOr => a ^ b,
                B::ShiftLeft => a.wrapping_shl(b as u32),
                B::ShiftRight => a.wrapping_shr(b as u32),
                _ => 0,
            } as f32)
        })
        .collect()
}

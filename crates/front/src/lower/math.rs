//! Arithmetic on flat values: each operation folds literals, broadcasts scalars, splits
//! long values into four-lane instructions and picks the instruction the profile has
//! (`SLT`/`SGE` or `cmp`, `FLR` or `frc`, `LRP` or `MAD`, ...).

use super::{Lower, Res};
use crate::value::{C, Val, lits};
use hoist_asm::{Op, Stage};

type Fold = fn(&[f32]) -> f32;

impl<'a> Lower<'a> {
    /// A componentwise instruction over values broadcast to the longest.
    pub fn cw(&mut self, op: Op, args: &[&[C]], fold: Fold) -> Res<Val> {
        let n = args.iter().map(|a| a.len()).max().unwrap_or(0);
        let at = |a: &[C], i: usize| if a.len() == 1 { a[0] } else { a[i] };
        let mut out = Val::with_capacity(n);
        let mut i = 0;
        while i < n {
            let k = (n - i).min(4);
            let chunk: Vec<Vec<C>> = args
                .iter()
                .map(|a| (i..i + k).map(|j| at(a, j)).collect())
                .collect();
            if chunk.iter().all(|c| lits(c).is_some()) {
                for j in 0..k {
                    let xs: Vec<f32> = chunk.iter().map(|c| c[j].lit().unwrap_or(0.0)).collect();
                    out.push(C::Lit(fold(&xs)));
                }
            } else {
                let src = chunk.iter().map(|c| self.em.opnd(c)).collect();
                out.extend(self.em.def(op, src, k));
            }
            i += k;
        }
        Ok(out)
    }

    /// A scalar instruction (reads lane x) applied to each component.
    pub fn per_lane(&mut self, op: Op, args: &[&[C]], fold: Fold) -> Res<Val> {
        let n = args.iter().map(|a| a.len()).max().unwrap_or(0);
        let mut out = Val::with_capacity(n);
        for i in 0..n {
            let xs: Vec<C> = args
                .iter()
                .map(|a| if a.len() == 1 { a[0] } else { a[i] })
                .collect();
            if let Some(l) = lits(&xs) {
                out.push(C::Lit(fold(&l)));
                continue;
            }
            let src = xs.iter().map(|c| self.em.opnd(&[*c])).collect();
            out.extend(self.em.def(op, src, 1));
        }
        Ok(out)
    }

    pub fn add(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        if b.iter().all(|c| c.lit() == Some(0.0)) && a.len() >= b.len() {
            return Ok(a.to_vec());
        }
        self.cw(Op::Add, &[a, b], |x| x[0] + x[1])
    }

    pub fn sub(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        let nb: Val = b.iter().map(|c| c.neg()).collect();
        self.add(a, &nb)
    }

    pub fn mul(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        self.cw(Op::Mul, &[a, b], |x| x[0] * x[1])
    }

    pub fn mad(&mut self, a: &[C], b: &[C], c: &[C]) -> Res<Val> {
        self.cw(Op::Mad, &[a, b, c], |x| x[0] * x[1] + x[2])
    }

    pub fn min(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        self.cw(Op::Min, &[a, b], |x| x[0].min(x[1]))
    }

    pub fn max(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        self.cw(Op::Max, &[a, b], |x| x[0].max(x[1]))
    }

    pub fn abs(&mut self, a: &[C]) -> Res<Val> {
        self.cw(Op::Abs, &[a], |x| x[0].abs())
    }

    pub fn rcp(&mut self, a: &[C]) -> Res<Val> {
        self.per_lane(Op::Rcp, &[a], |x| 1.0 / x[0])
    }

    pub fn rsq(&mut self, a: &[C]) -> Res<Val> {
        self.per_lane(Op::Rsq, &[a], |x| 1.0 / x[0].abs().sqrt())
    }

    pub fn sqrt(&mut self, a: &[C]) -> Res<Val> {
        if let Some(l) = lits(a) {
            return Ok(l.iter().map(|x| C::Lit(x.sqrt())).collect());
        }
        let r = self.rsq(a)?;
        self.rcp(&r)
    }

    pub fn div(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        if let (Some(x), Some(y)) = (lits(a), lits(b)) {
            let n = x.len().max(y.len());
            let at = |v: &[f32], i: usize| if v.len() == 1 { v[0] } else { v[i] };
            return Ok((0..n).map(|i| C::Lit(at(&x, i) / at(&y, i))).collect());
        }
        let r = self.rcp(b)?;
        self.mul(a, &r)
    }

    pub fn floor(&mut self, a: &[C]) -> Res<Val> {
        if self.em.has(Op::Flr) {
            return self.cw(Op::Flr, &[a], |x| x[0].floor());
        }
        let f = self.fract(a)?;
        self.sub(a, &f)
    }

    pub fn fract(&mut self, a: &[C]) -> Res<Val> {
        self.cw(Op::Frc, &[a], |x| x[0] - x[0].floor())
    }

    pub fn sat(&mut self, a: &[C]) -> Res<Val> {
        if let Some(l) = lits(a) {
            return Ok(l.iter().map(|x| C::Lit(x.clamp(0.0, 1.0))).collect());
        }
        if self.em.dialect() == hoist_asm::Dialect::Arb && self.is_vertex() {
            // ARB vertex programs have no `_SAT`.
            let m = self.max(a, &[C::Lit(0.0)])?;
            return self.min(&m, &[C::Lit(1.0)]);
        }
        let mut out = Val::new();
        for chunk in a.chunks(4) {
            let src = self.em.opnd(chunk);
            let v = self.em.def(Op::Mov, vec![src], chunk.len());
            let at = self.em.insts.len() - 1;
            self.em.set_sat(at);
            out.extend(v);
        }
        Ok(out)
    }

    /// 1.0 where `a < b`, else 0.0.
    pub fn lt(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        if self.em.has(Op::Slt) {
            return self.cw(Op::Slt, &[a, b], |x| f32::from(u8::from(x[0] < x[1])));
        }
        // D3D9 pixel shaders: cmp (a - b >= 0 ? 0 : 1).
        let d = self.sub(a, b)?;
        self.cmp_ge(&d, &[C::Lit(0.0)], &[C::Lit(1.0)])
    }

    /// 1.0 where `a >= b`, else 0.0.
    pub fn ge(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        if self.em.has(Op::Sge) {
            return self.cw(Op::Sge, &[a, b], |x| f32::from(u8::from(x[0] >= x[1])));
        }
        let d = self.sub(a, b)?;
        self.cmp_ge(&d, &[C::Lit(1.0)], &[C::Lit(0.0)])
    }

    /// D3D9 `cmp`: `s >= 0 ? x : y`.
    fn cmp_ge(&mut self, s: &[C], x: &[C], y: &[C]) -> Res<Val> {
        self.cw(
            Op::CmpGe,
            &[s, x, y],
            |v| if v[0] >= 0.0 { v[1] } else { v[2] },
        )
    }

    pub fn eq(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        let x = self.ge(a, b)?;
        let y = self.ge(b, a)?;
        self.mul(&x, &y)
    }

    pub fn not(&mut self, a: &[C]) -> Res<Val> {
        let na: Val = a.iter().map(|c| c.neg()).collect();
        self.add(&[C::Lit(1.0)], &na)
    }

    /// `c ? a : b` per component, `c` being 1.0 or 0.0.
    pub fn select(&mut self, c: &[C], a: &[C], b: &[C]) -> Res<Val> {
        if let Some(l) = lits(c)
            && l.iter().all(|x| *x == l[0])
        {
            return Ok(if l[0] != 0.0 { a } else { b }.to_vec());
        }
        if a == b {
            return Ok(a.to_vec());
        }
        let nc: Val = c.iter().map(|x| x.neg()).collect();
        if self.em.has(Op::Cmp) {
            return self.cw(
                Op::Cmp,
                &[&nc, a, b],
                |v| if v[0] < 0.0 { v[1] } else { v[2] },
            );
        }
        if self.em.has(Op::CmpGe) {
            return self.cw(Op::CmpGe, &[&nc, b, a], |v| {
                if v[0] >= 0.0 { v[1] } else { v[2] }
            });
        }
        // Vertex programs have no compare-and-select: a·c + b·(1 − c), exact for finite values.
        self.bindings.note(
            "selects in vertex programs are a·c + b·(1 − c) (no CMP there): exact unless an \
             operand is infinite or NaN",
        );
        let ta = self.mul(a, c)?;
        let one_c = self.not(c)?;
        self.mad(b, &one_c, &ta)
    }

    pub fn dot(&mut self, a: &[C], b: &[C]) -> Res<Val> {
        let n = a.len().min(b.len());
        if let (Some(x), Some(y)) = (lits(a), lits(b)) {
            return Ok(vec![C::Lit((0..n).map(|i| x[i] * y[i]).sum())]);
        }
        match n {
            1 => self.mul(&a[..1], &b[..1]),
            2 => {
                let p = self.mul(&a[..2], &b[..2])?;
                self.add(&p[..1], &p[1..2])
            }
            3 | 4 => {
                let op = if n == 3 { Op::Dp3 } else { Op::Dp4 };
                let src = vec![self.em.opnd(&a[..n]), self.em.opnd(&b[..n])];
                Ok(self.em.def(op, src, 1))
            }
            _ => Err(self.refuse(naga::Span::default(), "dot product of this size")),
        }
    }

    /// `sin` or `cos` of each component.
    pub fn trig(&mut self, a: &[C], sin: bool, span: naga::Span) -> Res<Val> {
        if let Some(l) = lits(a) {
            return Ok(l
                .iter()
                .map(|x| C::Lit(if sin { x.sin() } else { x.cos() }))
                .collect());
        }
        let op = if sin { Op::Sin } else { Op::Cos };
        if self.em.has(op) {
            return self.per_lane(op, &[a], |x| x[0]);
        }
        if !self.em.has(Op::Sincos) {
            return Err(self.refuse(
                span,
                "sin and cos do not exist in ARB vertex programs: compile with --dialect d3d9",
            ));
        }
        let mut out = Val::new();
        for c in a {
            let src = self.em.opnd(&[*c]);
            let t = self.em.temp();
            let mask = if sin { 2 } else { 1 };
            self.em.push(Op::Sincos, Some((t, mask)), vec![src.lane(0)]);
            out.push(C::Reg {
                reg: t,
                lane: u8::from(sin),
                neg: false,
            });
        }
        Ok(out)
    }

    /// `sign` per component: (0 < x) − (x < 0).
    pub fn sign(&mut self, a: &[C]) -> Res<Val> {
        let p = self.lt(&[C::Lit(0.0)], a)?;
        let n = self.lt(a, &[C::Lit(0.0)])?;
        self.sub(&p, &n)
    }

    pub fn is_vertex(&self) -> bool {
        self.em.stage() == Stage::Vertex
    }
}

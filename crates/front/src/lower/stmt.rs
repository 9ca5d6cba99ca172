//! Statements: stores, calls (inlined), `if` (both arms, merged by selects), loops
//! (unrolled while their conditions fold, a D3D9 `rep` otherwise), `discard`, `return`.

use super::{Ev, Flow, Frame, Lower, Ptr, Res, Root, flat_len};
use crate::emit::{R, lanes};
use crate::value::{C, Val};
use hoist_asm::{Dialect, Op};
use naga::{Handle, Statement as S};

/// Iterations a loop may unroll to.
const MAX_UNROLL: usize = 1024;

impl<'a> Lower<'a> {
    /// Runs entry point `ep` and writes its outputs.
    pub fn run_entry(
        &mut self,
        ep: &'a naga::EntryPoint,
        info: &'a naga::valid::FunctionInfo,
    ) -> Res<()> {
        // Private globals get their slots first: a slot made inside one arm of an `if`
        // would not exist in the other arm's copy of the variables.
        for (h, g) in self.module.global_variables.iter() {
            if matches!(
                g.space,
                naga::AddressSpace::Private | naga::AddressSpace::Function
            ) {
                self.private_global(h)?;
            }
        }
        let args = self.entry_args(ep)?;
        let ret = self.call(&ep.function, info, args)?;
        let v = ret.unwrap_or_default();
        self.entry_result(ep, &v)
    }

    /// Inlines `fun` with `args`; returns its result.
    pub fn call(
        &mut self,
        fun: &'a naga::Function,
        info: &'a naga::valid::FunctionInfo,
        args: Vec<Ev>,
    ) -> Res<Option<Val>> {
        if self.frames.len() > 64 {
            return Err(self.refuse(naga::Span::default(), "calls nest too deeply"));
        }
        let mut locals = Vec::new();
        for (_, l) in fun.local_variables.iter() {
            let n = flat_len(self.module, &self.module.types[l.ty].inner);
            self.mem.push(vec![C::Lit(0.0); n]);
            locals.push(self.mem.len() - 1);
        }
        self.frames.push(Frame {
            fun,
            info,
            cache: vec![None; fun.expressions.len()],
            locals,
            args,
            ret: None,
        });
        // Initialisers are evaluated where the variable is declared: at the start.
        for (i, (_, l)) in fun.local_variables.iter().enumerate() {
            if let Some(init) = l.init {
                let v = self.val(init)?;
                let slot = self.frame().locals[i];
                self.mem[slot] = v;
            }
        }
        let body: Vec<&'a S> = fun.body.iter().collect();
        let spans: Vec<naga::Span> = fun.body.span_iter().map(|(_, s)| *s).collect();
        let r = self.list(&body, &spans);
        let frame = self.frames.pop().expect("pushed");
        match r? {
            Flow::Break | Flow::Continue => {
                Err(self.refuse(naga::Span::default(), "break outside a loop"))
            }
            _ => Ok(frame.ret),
        }
    }

    /// A statement list; `spans` holds each statement's span.
    fn list(&mut self, stmts: &[&'a S], spans: &[naga::Span]) -> Res<Flow> {
        for (i, s) in stmts.iter().enumerate() {
            let span = spans.get(i).copied().unwrap_or_default();
            self.tick(span)?;
            if let S::If {
                condition,
                accept,
                reject,
            } = s
            {
                let c = self.val(*condition)?;
                let returns = has_return(accept) || has_return(reject);
                if c[0].lit().is_none() && returns {
                    // The rest of this list runs after either arm: take it into both.
                    let rest = &stmts[i + 1..];
                    let rest_spans = spans.get(i + 1..).unwrap_or(&[]);
                    return self.if_dynamic(&c, accept, reject, Some((rest, rest_spans)), span);
                }
            }
            let f = self.stmt(s, span)?;
            if f != Flow::Normal {
                return Ok(f);
            }
        }
        Ok(Flow::Normal)
    }

    fn block(&mut self, b: &'a naga::Block) -> Res<Flow> {
        let stmts: Vec<&'a S> = b.iter().collect();
        let spans: Vec<naga::Span> = b.span_iter().map(|(_, s)| *s).collect();
        self.list(&stmts, &spans)
    }

    fn stmt(&mut self, s: &'a S, span: naga::Span) -> Res<Flow> {
        self.at(span);
        match s {
            S::Emit(range) => {
                for h in range.clone() {
                    self.ev(h)?;
                }
            }
            S::Block(b) => return self.block(b),
            S::If {
                condition,
                accept,
                reject,
            } => {
                let c = self.val(*condition)?;
                return match c[0].lit() {
                    Some(x) if x != 0.0 => self.block(accept),
                    Some(_) => self.block(reject),
                    None => self.if_dynamic(&c, accept, reject, None, span),
                };
            }
            S::Switch { selector, cases } => {
                let v = self.val(*selector)?;
                let Some(x) = v[0].lit() else {
                    return Err(self.refuse(
                        span,
                        "a switch on a value that is not a constant after unrolling",
                    ));
                };
                let mut on = false;
                for case in cases {
                    on |= match case.value {
                        naga::SwitchValue::I32(i) => i as f32 == x,
                        naga::SwitchValue::U32(u) => u as f32 == x,
                        naga::SwitchValue::Default => true,
                    };
                    if on {
                        match self.block(&case.body)? {
                            Flow::Break => return Ok(Flow::Normal),
                            Flow::Normal if case.fall_through => continue,
                            Flow::Normal => return Ok(Flow::Normal),
                            f => return Ok(f),
                        }
                    }
                }
            }
            S::Loop {
                body,
                continuing,
                break_if,
            } => return self.looped(body, continuing, *break_if, span),
            S::Break => {
                if self.real_loops > 0 && !self.path.is_empty() {
                    return Err(self.refuse(span, "break under a condition inside a real loop"));
                }
                return Ok(Flow::Break);
            }
            S::Continue => return Ok(Flow::Continue),
            S::Return { value } => {
                if !self.path.is_empty() && self.real_loops > 0 {
                    return Err(self.refuse(span, "return inside a real loop"));
                }
                let v = match value {
                    Some(h) => Some(self.val(*h)?),
                    None => None,
                };
                self.frame_mut().ret = v;
                return Ok(Flow::Return);
            }
            S::Kill => self.kill(span)?,
            S::Store { pointer, value } => {
                let v = self.val(*value)?;
                let Ev::Ptr(p) = self.ev(*pointer)? else {
                    return Err(self.refuse(span, "a store to something that is not a variable"));
                };
                self.store(p, &v, span)?;
            }
            S::Call {
                function,
                arguments,
                result,
            } => {
                let mut args = Vec::new();
                for a in arguments {
                    args.push(self.ev(*a)?);
                }
                let fun = &self.module.functions[*function];
                let info = &self.info[*function];
                let r = self.call(fun, info, args)?;
                if let (Some(h), Some(v)) = (result, r) {
                    let cache = &mut self.frame_mut().cache;
                    cache[h.index()] = Some(Ev::Val(v));
                }
            }
            S::ControlBarrier(_) | S::MemoryBarrier(_) => {}
            _ => {
                return Err(self.refuse(
                    span,
                    "this statement has no equivalent in vertex/fragment assembly",
                ));
            }
        }
        Ok(Flow::Normal)
    }

    fn store(&mut self, p: Ptr, v: &[C], span: naga::Span) -> Res<()> {
        let Root::Mem(slot) = p.root else {
            return Err(self.refuse(span, "a store to a uniform"));
        };
        if let Some(homes) = self.pinned.get(&slot).cloned() {
            // Real loops: the variable lives in registers; write them.
            let mut k = 0;
            while k < p.len {
                let comp = p.off + k;
                let chunk_end = ((comp / 4 + 1) * 4).min(p.off + p.len);
                let n = chunk_end - comp;
                let home = homes[comp / 4];
                let mut mask = 0u8;
                let mut lanes_v = Vec::new();
                for j in 0..n {
                    mask |= 1 << ((comp + j) % 4);
                    lanes_v.push(v[k + j]);
                }
                // Operand lanes must line up with the mask's lanes.
                let mut full = vec![lanes_v[0]; 4];
                for j in 0..n {
                    full[(comp + j) % 4] = lanes_v[j];
                }
                let src = self.em.opnd(&full);
                self.em.push(Op::Mov, Some((home, mask)), vec![src]);
                k += n;
            }
            return Ok(());
        }
        self.mem[slot].splice(p.off..p.off + p.len, v.iter().copied());
        Ok(())
    }

    fn kill(&mut self, span: naga::Span) -> Res<()> {
        if self.is_vertex() {
            return Err(self.refuse(span, "discard in a vertex shader"));
        }
        let cond = self.path_cond()?;
        let nc = cond.neg();
        let src = self.em.opnd(&[nc, nc, nc, nc]);
        let op = if self.em.dialect() == Dialect::Arb {
            Op::Kil
        } else {
            Op::Texkil
        };
        self.em.push(op, None, vec![src]);
        Ok(())
    }

    /// 1.0 where every enclosing arm runs.
    fn path_cond(&mut self) -> Res<C> {
        let mut acc = C::Lit(1.0);
        for c in self.path.clone() {
            acc = self.mul(&[acc], &c[..1])?[0];
        }
        Ok(acc)
    }

    /// Both arms on copies of the variables, merged with selects on `c`.
    fn if_dynamic(
        &mut self,
        c: &[C],
        accept: &'a naga::Block,
        reject: &'a naga::Block,
        rest: Option<(&[&'a S], &[naga::Span])>,
        span: naga::Span,
    ) -> Res<Flow> {
        if self.real_loops > 0 {
            return self.if_real(c, accept, reject, span);
        }
        let c = vec![c[0]];
        let before = self.mem.clone();
        let ret_before = self.frame().ret.clone();
        let arm =
            |me: &mut Self, b: &'a naga::Block, cond: Val| -> Res<(Flow, Vec<Val>, Option<Val>)> {
                me.path.push(cond);
                let mut stmts: Vec<&'a S> = b.iter().collect();
                let mut spans: Vec<naga::Span> = b.span_iter().map(|(_, s)| *s).collect();
                if let Some((r, rs)) = rest {
                    stmts.extend_from_slice(r);
                    spans.extend_from_slice(rs);
                }
                let f = me.list(&stmts, &spans);
                me.path.pop();
                let f = f?;
                Ok((f, me.mem.clone(), me.frame().ret.clone()))
            };
        let (fa, ma, ra) = arm(self, accept, c.clone())?;
        self.mem = before.clone();
        self.frame_mut().ret = ret_before;
        let nc = self.not(&c)?;
        let (fb, mb, rb) = arm(self, reject, nc)?;
        if fa != fb {
            return Err(self.refuse(span, "the arms of this `if` leave differently (break, continue or return under a condition that is not a constant): use --dialect d3d9 or a select"));
        }
        if fa == Flow::Break || fa == Flow::Continue {
            return Err(self.refuse(span, "break/continue under a condition that is not a constant after unrolling: this loop needs --dialect d3d9"));
        }
        // Merge the variables each arm changed.
        let mut merged = Vec::with_capacity(ma.len());
        for (slot, (a, b)) in ma.iter().zip(&mb).enumerate() {
            let _ = slot;
            if a == b {
                merged.push(a.clone());
                continue;
            }
            let mut out = a.clone();
            let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            for chunk in diff.chunks(4) {
                let av: Val = chunk.iter().map(|&i| a[i]).collect();
                let bv: Val = chunk.iter().map(|&i| b[i]).collect();
                let s = self.select(&c, &av, &bv)?;
                for (k, &i) in chunk.iter().enumerate() {
                    out[i] = s[k];
                }
            }
            merged.push(out);
        }
        // Slots created inside the arms (inlined calls) are gone with their frames.
        merged.extend(mb.iter().skip(merged.len()).cloned());
        self.mem = merged;
        let ret = match (ra, rb) {
            (Some(a), Some(b)) => Some(self.select(&c, &a, &b)?),
            (a, b) => a.or(b),
        };
        self.frame_mut().ret = ret;
        Ok(fa)
    }

    /// D3D9 inside a real loop: `if_ne c, 0` … `else` … `endif`, variables pinned.
    fn if_real(
        &mut self,
        c: &[C],
        accept: &'a naga::Block,
        reject: &'a naga::Block,
        span: naga::Span,
    ) -> Res<Flow> {
        // `if (c) { break; }` is `break_ne c, 0`.
        let only_break = |b: &naga::Block| b.iter().all(|s| matches!(s, S::Break | S::Emit(_)));
        if only_break(accept) && reject.is_empty() && accept.iter().any(|s| matches!(s, S::Break)) {
            let cond = self.em.opnd(&c[..1]);
            self.real_break(Some(cond));
            return Ok(Flow::Normal);
        }
        let cond = self.em.opnd(&c[..1]);
        self.em.ifc(cond);
        let fa = self.real_arm(accept, span)?;
        if !reject.is_empty() {
            self.em.flow(Op::Else, vec![]);
            let fb = self.real_arm(reject, span)?;
            if fb != Flow::Normal {
                return Err(self.refuse(span, "break/return in an else arm inside a real loop"));
            }
        }
        self.em.flow(Op::Endif, vec![]);
        if fa != Flow::Normal {
            return Err(self.refuse(
                span,
                "break/continue/return mixed with other statements under a condition inside a loop",
            ));
        }
        Ok(Flow::Normal)
    }

    fn real_arm(&mut self, b: &'a naga::Block, span: naga::Span) -> Res<Flow> {
        let stmts: Vec<&'a S> = b.iter().collect();
        for s in stmts {
            if let S::Break = s {
                self.real_break(None);
                continue;
            }
            match self.stmt(s, span)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    /// Unrolls while the conditions fold; on D3D9 falls back to a `rep` loop.
    fn looped(
        &mut self,
        body: &'a naga::Block,
        cont: &'a naga::Block,
        break_if: Option<Handle<naga::Expression>>,
        span: naga::Span,
    ) -> Res<Flow> {
        let saved_mem = self.mem.clone();
        let saved_insts = self.em.insts.len();
        let saved_budget = self.budget;
        match self.unroll(body, cont, break_if, span) {
            Ok(f) => Ok(f),
            Err(e) if self.em.dialect() == Dialect::D3d9 && self.real_loops == 0 => {
                self.mem = saved_mem;
                self.em.insts.truncate(saved_insts);
                self.budget = saved_budget;
                self.clear_cache_after(body, cont);
                self.real_loop(body, cont, break_if, span).map_err(|_| e)
            }
            Err(e) => Err(e),
        }
    }

    fn unroll(
        &mut self,
        body: &'a naga::Block,
        cont: &'a naga::Block,
        break_if: Option<Handle<naga::Expression>>,
        span: naga::Span,
    ) -> Res<Flow> {
        for _ in 0..MAX_UNROLL {
            self.clear_cache_after(body, cont);
            match self.block(body)? {
                Flow::Break => return Ok(Flow::Normal),
                Flow::Return => return Ok(Flow::Return),
                Flow::Normal | Flow::Continue => {}
            }
            self.block(cont)?;
            if let Some(b) = break_if {
                let c = self.val(b)?;
                match c[0].lit() {
                    Some(x) if x != 0.0 => return Ok(Flow::Normal),
                    Some(_) => {}
                    None => {
                        return Err(self.refuse(
                            span,
                            "a loop whose exit condition is not a constant: needs --dialect d3d9",
                        ));
                    }
                }
            }
        }
        Err(self.refuse(
            span,
            format!("the loop does not end within {MAX_UNROLL} unrolled iterations"),
        ))
    }

    /// Forgets the cached values of the expressions a loop's blocks emit.
    fn clear_cache_after(&mut self, body: &naga::Block, cont: &naga::Block) {
        let mut hs = Vec::new();
        collect_emitted(body, &mut hs);
        collect_emitted(cont, &mut hs);
        let cache = &mut self.frame_mut().cache;
        for h in hs {
            if let Some(c) = cache.get_mut(h) {
                *c = None;
            }
        }
    }

    /// D3D9 `rep i0` (255 iterations at most), every variable in registers.
    fn real_loop(
        &mut self,
        body: &'a naga::Block,
        cont: &'a naga::Block,
        break_if: Option<Handle<naga::Expression>>,
        span: naga::Span,
    ) -> Res<Flow> {
        self.pin_all();
        self.bindings.note(
            "loops whose trip count is not a constant run as two nested D3D9 `rep` loops \
             (255 × 255 = 65025 iterations at most)",
        );
        let count = crate::emit::Opnd {
            reg: R::RepCount,
            swz: [0, 1, 2, 3],
            neg: false,
        };
        // A `rep` runs at most 255 times: an inner `rep` runs the body, and the outer one
        // repeats it until a break set the flag.
        let flag = self.em.materialize(&[C::Lit(0.0)]);
        let outer_flag = self.break_flag.replace(flag);
        self.em.flow(Op::Rep, vec![count]);
        self.em.flow(Op::Rep, vec![count]);
        self.real_loops += 1;
        let r = (|| {
            let f = self.real_arm(body, span)?;
            if f == Flow::Return {
                return Err(self.refuse(span, "return inside a real loop"));
            }
            self.real_arm(cont, span)?;
            if let Some(b) = break_if {
                let c = self.val(b)?;
                let cond = self.em.opnd(&c[..1]);
                self.real_break(Some(cond));
            }
            Ok(())
        })();
        self.real_loops -= 1;
        self.break_flag = outer_flag;
        r?;
        self.em.flow(Op::Endrep, vec![]);
        let f = self.em.opnd(&lanes(flag, 1));
        let zero = self.em.opnd(&[C::Lit(0.0)]);
        self.em.flow(
            Op::Breakc(hoist_asm::ops::Cond::Ne),
            vec![f.lane(0), zero.lane(0)],
        );
        self.em.flow(Op::Endrep, vec![]);
        if self.real_loops == 0 {
            // Past the outermost real loop no back edge reads the homes: the variables
            // are values again (their homes' lanes), and a store is no `mov` into a home,
            // which an `if` evaluated on both arms would otherwise clobber.
            self.pinned.clear();
        }
        Ok(Flow::Normal)
    }

    /// Leaves the real loop (when `cond` is not zero): the break flag records it, so the
    /// outer `rep` of the pair stops too.
    fn real_break(&mut self, cond: Option<crate::emit::Opnd>) {
        let flag = self.break_flag;
        match cond {
            Some(c) => {
                if let Some(f) = flag {
                    self.em.push(Op::Mov, Some((f, 1)), vec![c.lane(0)]);
                }
                let zero = self.em.opnd(&[C::Lit(0.0)]);
                self.em.flow(
                    Op::Breakc(hoist_asm::ops::Cond::Ne),
                    vec![c.lane(0), zero.lane(0)],
                );
            }
            None => {
                if let Some(f) = flag {
                    let one = self.em.opnd(&[C::Lit(1.0)]);
                    self.em.push(Op::Mov, Some((f, 1)), vec![one]);
                }
                self.em.flow(Op::Break, vec![]);
            }
        }
    }

    /// Moves every variable into home registers (stores become `mov`s from here on).
    fn pin_all(&mut self) {
        for slot in 0..self.mem.len() {
            if self.pinned.contains_key(&slot) || self.mem[slot].is_empty() {
                continue;
            }
            let v = self.mem[slot].clone();
            let mut homes = Vec::new();
            let mut nv = Val::new();
            for chunk in v.chunks(4) {
                let t = self.em.materialize(chunk);
                homes.push(t);
                nv.extend(lanes(t, chunk.len()));
            }
            self.mem[slot] = nv;
            self.pinned.insert(slot, homes);
        }
    }
}

fn has_return(b: &naga::Block) -> bool {
    b.iter().any(|s| match s {
        S::Return { .. } => true,
        S::Block(b) => has_return(b),
        S::If { accept, reject, .. } => has_return(accept) || has_return(reject),
        _ => false,
    })
}

fn collect_emitted(b: &naga::Block, out: &mut Vec<usize>) {
    for s in b.iter() {
        match s {
            S::Emit(r) => out.extend(r.clone().map(|h| h.index())),
            S::Block(b) => collect_emitted(b, out),
            S::If { accept, reject, .. } => {
                collect_emitted(accept, out);
                collect_emitted(reject, out);
            }
            S::Loop {
                body, continuing, ..
            } => {
                collect_emitted(body, out);
                collect_emitted(continuing, out);
            }
            S::Switch { cases, .. } => {
                for c in cases {
                    collect_emitted(&c.body, out);
                }
            }
            S::Call {
                result: Some(h), ..
            } => out.push(h.index()),
            _ => {}
        }
    }
}

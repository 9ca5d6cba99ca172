//! The translator's shared state: the program being built, literal slots, scratch
//! temporaries, and the helpers both directions use.

use crate::diag::{Code, Diagnostic, code};
use crate::ir::*;
use crate::ops::{Op, Shape};
use crate::profile::Profile;
use std::collections::HashMap;

const CODE: Code = code!("E2401");

pub(super) fn refuse(what: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::error(CODE, what, span).with_label("not expressible in the target language")
}

pub(super) fn lit_src(slot: u16) -> Src {
    Src::new(Reg::new(RegFile::Const, slot))
}

pub(super) fn splat_of(s: &Src, lane: Comp) -> Src {
    let mut t = s.clone();
    t.swizzle = Swizzle::splat(s.swizzle.get(lane));
    t
}

/// Makes lane `to` of every componentwise source read what lane `from` read.
pub(super) fn move_lane(inst: &mut Inst, from: Comp, to: Comp) {
    if inst.info().shape != Shape::Componentwise {
        return;
    }
    for s in inst.src.iter_mut() {
        let mut c = s.swizzle.comps();
        c[to as usize] = c[from as usize];
        s.swizzle = Swizzle::new(c[0], c[1], c[2], c[3]);
    }
}

pub(super) struct Tx<'a> {
    pub(super) from: &'a Program,
    pub(super) out: Program,
    pub(super) errs: Vec<Diagnostic>,
    pub(super) lit_slots: HashMap<[u32; 4], u16>,
    /// D3D9 target only: next free `c#` for literals.
    pub(super) next_c: u16,
    pub(super) max_c: u16,
    /// Scratch temporaries live only within the expansion of one source instruction, so
    /// they are numbered from `from.num_temps` again for each one ...
    pub(super) scratch: u16,
    /// ... after the source's own temporaries that are dead across the instruction.
    pub(super) free: Vec<u16>,
}

impl<'a> Tx<'a> {
    pub(super) fn new(from: &'a Program, target: Profile) -> Tx<'a> {
        let mut out = Program::new(target);
        out.num_temps = from.num_temps;
        Tx {
            from,
            out,
            errs: Vec::new(),
            lit_slots: HashMap::new(),
            next_c: 0,
            max_c: 0,
            scratch: 0,
            free: Vec::new(),
        }
    }

    /// The translated program, or the refusals, or the errors the target's validation finds.
    pub(super) fn finish(self) -> Result<Program, Vec<Diagnostic>> {
        if !self.errs.is_empty() {
            return Err(self.errs);
        }
        let diags = crate::validate::check(&self.out, &self.out.profile.limits());
        if crate::diag::has_errors(&diags) {
            return Err(diags);
        }
        Ok(self.out)
    }

    pub(super) fn temp(&mut self) -> Reg {
        let k = self.scratch as usize;
        self.scratch += 1;
        if let Some(&f) = self.free.get(k) {
            return Reg::new(RegFile::Temp, f);
        }
        let r = Reg::new(
            RegFile::Temp,
            self.from.num_temps + (k - self.free.len()) as u16,
        );
        self.out.num_temps = self.out.num_temps.max(r.index + 1);
        r
    }

    /// A constant slot holding `v` (shared between uses).
    pub(super) fn lit(&mut self, v: [f32; 4]) -> Src {
        let key = v.map(f32::to_bits);
        if let Some(&s) = self.lit_slots.get(&key) {
            return lit_src(s);
        }
        let slot = if self.out.dialect() == Dialect::D3d9 {
            while (self.next_c as usize) < self.out.consts.len()
                && !matches!(
                    self.out.consts[self.next_c as usize].binding,
                    ConstBinding::Env(_)
                )
                || self.used_env(self.next_c)
            {
                self.next_c += 1;
            }
            let s = self.next_c;
            self.next_c += 1;
            while self.out.consts.len() <= s as usize {
                let n = self.out.consts.len() as u16;
                self.out.consts.push(ConstSlot {
                    binding: ConstBinding::Env(n),
                    span: Span::NONE,
                });
            }
            self.out.consts[s as usize].binding = ConstBinding::Literal(Literal::vec4(v));
            self.max_c = self.max_c.max(s + 1);
            s
        } else {
            self.out.consts.push(ConstSlot {
                binding: ConstBinding::Literal(Literal::vec4(v)),
                span: Span::NONE,
            });
            (self.out.consts.len() - 1) as u16
        };
        self.lit_slots.insert(key, slot);
        lit_src(slot)
    }

    /// D3D9 target: whether `c#n` is taken by a host-set ARB `program.env[n]`.
    pub(super) fn used_env(&self, n: u16) -> bool {
        self.from
            .consts
            .iter()
            .any(|c| c.binding == ConstBinding::Env(n))
    }

    pub(super) fn push(&mut self, i: Inst) {
        self.out.insts.push(i);
    }

    pub(super) fn mk(&self, op: Op, dst: Dst, src: Vec<Src>, at: &Inst) -> Inst {
        let mut i = Inst::new(op, Some(dst), src);
        i.span = at.span;
        i
    }

    /// Builds `io` in the order the target's front end numbers declarations: for ARB,
    /// inputs by first use and then outputs by first use; for D3D9, first use (explicit
    /// declarations are moved first by [`crate::d3d9::canonicalize`]).
    pub(super) fn finish_io(&mut self, decls: &HashMap<Reg, IoDecl>) {
        let mut order: Vec<Reg> = Vec::new();
        let arb = self.out.dialect() == Dialect::Arb;
        for pass in 0..2 {
            for i in &self.out.insts {
                for r in i
                    .src
                    .iter()
                    .map(|s| s.reg)
                    .chain(i.dst.iter().map(|d| d.reg))
                {
                    let keep = !arb || (pass == 0) == r.file.is_input();
                    if keep && decls.contains_key(&r) && !order.contains(&r) {
                        order.push(r);
                    }
                }
            }
        }
        let mut rest: Vec<Reg> = decls
            .keys()
            .copied()
            .filter(|r| !order.contains(r))
            .collect();
        crate::sort::ord(&mut rest);
        order.extend(rest);
        if arb {
            // The ARB front end keeps declarations sorted by register.
            crate::sort::ord(&mut order);
        }
        self.out.io = order.iter().map(|r| decls[r].clone()).collect();
    }
}

/// For straight-line programs: per instruction, the source temporaries that an expansion
/// may use as scratch (not read or written by the instruction, dead after it).
pub(super) fn free_temps(p: &Program) -> Vec<Vec<u16>> {
    let n = p.num_temps as usize;
    if p.insts.iter().any(|i| i.op.is_flow()) {
        return vec![Vec::new(); p.insts.len()];
    }
    let mut live = vec![false; n];
    let mut out = vec![Vec::new(); p.insts.len()];
    for (k, inst) in p.insts.iter().enumerate().rev() {
        let mut busy = live.clone();
        if let Some(d) = &inst.dst
            && d.reg.file == RegFile::Temp
            && (d.reg.index as usize) < n
        {
            busy[d.reg.index as usize] = true;
            if d.mask.is_all() && inst.pred.is_none() {
                live[d.reg.index as usize] = false;
            }
        }
        for (j, s) in inst.src.iter().enumerate() {
            if s.reg.file == RegFile::Temp {
                let rows = inst.src_rows(j) as usize;
                for r in 0..rows {
                    if let Some(x) = live.get_mut(s.reg.index as usize + r) {
                        *x = true;
                    }
                    if let Some(x) = busy.get_mut(s.reg.index as usize + r) {
                        *x = true;
                    }
                }
            }
        }
        out[k] = (0..n as u16).filter(|&r| !busy[r as usize]).collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lane_rewires_componentwise_sources() {
        let mut i = Inst::new(
            Op::Mov,
            Some(Dst::new(Reg::new(RegFile::DepthOut, 0), WriteMask::X)),
            [Src::new(Reg::new(RegFile::Temp, 0)).swizzled(Swizzle::new(3, 1, 2, 0))],
        );
        move_lane(&mut i, 0, 2);
        assert_eq!(i.src[0].swizzle.get(2), 3);
    }
}

//! Constant registers: literals as D3D9 `def`s, ARB `PARAM` entries or inline operands,
//! scalars packed four to a register, and D3D9 host-set and `def`'d register blocks.

use super::builder::{Class, ConstStyle, Gen, HOST, Info, Mods, Opnd, Port, Ports, Val};
use super::common::num;
use hoist_asm::Op;

impl Gen {
    /// An operand with `v` in every lane read: a replicated component of a constant register
    /// (shared with other scalars), copied to a temporary when the read ports are taken.
    pub(crate) fn scalar(&mut self, v: f32, ports: &mut Ports, busy: &[u16]) -> Opnd {
        let (k, c) = self.scalar_slot(v);
        let mut o = self.lane(&self.pool[k].clone(), c);
        if self.arb && !self.pool[k].swz_ok {
            o.swz = [0, 1, 2, 3];
        }
        if self.port_ok(ports, o.port) {
            ports.add(o.port);
            return o;
        }
        let t = self.scratch(busy);
        let info = o.info;
        let dst = self.temp_dst(t, 15);
        self.emit(Op::Mov, Mods::default(), Some(&dst), &[o], info);
        self.read_temp(t, [0, 1, 2, 3], 15)
    }

    /// The pool entry and component holding scalar `v`, allocating one if needed.
    pub(super) fn scalar_slot(&mut self, v: f32) -> (usize, u8) {
        for (k, p) in self.pool.iter().enumerate() {
            if let Some(vals) = p.vals {
                if !p.swz_ok {
                    if vals.iter().all(|x| x.to_bits() == v.to_bits()) {
                        return (k, 0);
                    }
                    continue;
                }
                for c in 0..4u8 {
                    if p.avail & (1 << c) != 0 && vals[c as usize].to_bits() == v.to_bits() {
                        return (k, c);
                    }
                }
            }
        }
        if self.arb
            && self.const_style == ConstStyle::Inline
            && self.const_slots + 12 < self.const_cap
        {
            self.const_slots += 1;
            let mut val = Val::literal(num(v), Port::Free, [v; 4]);
            val.swz_ok = false;
            self.pool.push(val);
            return (self.pool.len() - 1, 0);
        }
        if let Some(k) = self.pack
            && self.pool[k].avail != 15
        {
            let c = (!self.pool[k].avail).trailing_zeros() as u8;
            let e = &mut self.pool[k];
            e.avail |= 1 << c;
            e.lanes[c as usize] = Info::exact(v);
            if let Some(vals) = &mut e.vals {
                vals[c as usize] = v;
            }
            return (k, c);
        }
        debug_assert!(
            if self.arb {
                self.const_slots < self.const_cap
            } else {
                self.next_def < self.def_end
            },
            "no constant register left for a scalar"
        );
        let k = self.const_entry([v, 0.0, 0.0, 0.0], 1);
        self.pack = Some(k);
        (k, 0)
    }

    /// A new constant register holding `v` (lanes in `avail` valid), in the pool.
    pub(super) fn const_entry(&mut self, v: [f32; 4], avail: u8) -> usize {
        let (text, port) = if self.arb {
            self.const_slots += 1;
            match self.const_style {
                ConstStyle::Table => {
                    self.table.push(None);
                    (format!("c[{}]", self.table.len() - 1), Port::Free)
                }
                _ => {
                    self.named += 1;
                    (format!("k{}", self.named - 1), Port::Free)
                }
            }
        } else {
            let c = self.next_def;
            self.next_def += 1;
            (format!("c{c}"), Port::Const(c))
        };
        let mut val = Val::literal(text, port, v);
        val.avail = avail;
        self.pool.push(val);
        self.pool.len() - 1
    }

    /// A vector literal as a register (a D3D9 `def`, an ARB `PARAM` entry or, in the inline
    /// style, an ARB `{...}` operand), shared by equal values; `None` when the budget is spent.
    pub(crate) fn literal(&mut self, v: [f32; 4]) -> Option<Val> {
        if let Some(p) = self
            .pool
            .iter()
            .find(|p| p.avail == 15 && p.vals == Some(v))
        {
            return Some(p.clone());
        }
        if !self.literal_room() {
            return None;
        }
        if self.arb && self.const_style == ConstStyle::Inline && self.rng.chance(0.7) {
            self.const_slots += 1;
            let text = format!(
                "{{{}, {}, {}, {}}}",
                num(v[0]),
                num(v[1]),
                num(v[2]),
                num(v[3])
            );
            let mut val = Val::literal(text, Port::Free, v);
            val.swz_ok = false;
            self.pool.push(val.clone());
            return Some(val);
        }
        let k = self.const_entry(v, 15);
        Some(self.pool[k].clone())
    }

    /// Whether another vector literal fits, keeping room for guard scalars.
    pub(crate) fn literal_room(&self) -> bool {
        if self.arb {
            self.const_slots + 10 <= self.const_cap
        } else {
            self.next_def + 8 <= self.def_end
        }
    }

    /// D3D9: `def`s of consecutive registers (a matrix, an indexed table); returns the first.
    pub(crate) fn def_rows(&mut self, rows: &[[f32; 4]]) -> u16 {
        let base = self.next_def;
        for r in rows {
            self.const_entry(*r, 15);
        }
        base
    }

    /// D3D9: consecutive host-set registers (no `def`); returns the first.
    pub(crate) fn env_regs(&mut self, n: u16) -> u16 {
        let base = self.next_def;
        for c in base..base + n {
            let info = Info::new(HOST, 0.0, Class::Uniform);
            self.pool
                .push(Val::new(format!("c{c}"), Port::Const(c), 15, info));
        }
        self.next_def += n;
        base
    }

    /// Declaration text of a literal register (`{a, b, c, d}`).
    pub(crate) fn vals_text(v: [f32; 4]) -> String {
        format!(
            "{{{}, {}, {}, {}}}",
            num(v[0]),
            num(v[1]),
            num(v[2]),
            num(v[3])
        )
    }
}

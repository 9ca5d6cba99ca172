//! Canonical ARB printer. `parse(print(p))` reproduces `p` (up to spans) because the
//! printer replays the parser's numbering rules:
//!
//! - declarations are written in symbol order, temps/address registers in index order, and
//!   constant slots in slot order, interleaved with the instructions as needed;
//! - a constant slot without a name is written inline where it is used (`0.5`, `{1, 0}`,
//!   `program.env[3]`) when it has exactly one use and that use is where the parser would
//!   allocate it; otherwise it gets a generated `PARAM $c<slot>` declaration (a `$c` array
//!   when it is addressed relatively);
//! - registers without a name get generated `$t<i>`, `$a<i>`, `$v<i>`/`$o<i>` names, which
//!   the parser treats as anonymous (no symbol).

use super::bindings::{input_text, matrix_text, output_text, state_text};
use super::resolve::{option_name, slot_key};
use crate::ir::*;
use crate::ops::Op;
use crate::printed::{InstSpans, Operands, Printed, Role};
use crate::state::StateRef;
use std::collections::HashSet;
use std::fmt::Write;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Owned by a PARAM symbol.
    Named(SymId),
    /// Printed at its single use.
    Inline,
    /// `PARAM $c<slot> = ...;`
    Single,
    /// Part of `PARAM $c<lo>[hi - lo] = {...};`.
    InArray(u16, u16),
}

/// Formats a float so that it parses back to the same `f32`.
pub fn fmt_f32(v: f32) -> String {
    if v.is_nan() {
        "0.0".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "1e39".into()
        } else {
            "-1e39".into()
        }
    } else {
        format!("{v:?}")
    }
}

fn vector_text(l: &Literal) -> String {
    let n = match l.form {
        LiteralForm::Vector(n) => n.clamp(1, 4) as usize,
        LiteralForm::Scalar => 4,
    };
    let parts: Vec<String> = l.value[..n].iter().map(|v| fmt_f32(*v)).collect();
    format!("{{{}}}", parts.join(", "))
}

fn replicated(l: &Literal) -> bool {
    l.value.iter().all(|v| v.to_bits() == l.value[0].to_bits())
}

/// A literal as written in a declaration (signed scalars allowed).
fn decl_literal(l: &Literal) -> String {
    match l.form {
        LiteralForm::Scalar if replicated(l) => fmt_f32(l.value[0]),
        _ => vector_text(l),
    }
}

fn inline_ok(b: &ConstBinding) -> bool {
    match b {
        ConstBinding::Literal(l) => match l.form {
            LiteralForm::Scalar => {
                replicated(l) && !l.value[0].is_sign_negative() && !l.value[0].is_nan()
            }
            LiteralForm::Vector(_) => true,
        },
        _ => true,
    }
}

fn binding_text(b: &ConstBinding, decl: bool) -> String {
    match b {
        ConstBinding::Literal(l) if decl => decl_literal(l),
        ConstBinding::Literal(l) => match l.form {
            LiteralForm::Scalar => fmt_f32(l.value[0]),
            LiteralForm::Vector(_) => vector_text(l),
        },
        ConstBinding::Env(n) => format!("program.env[{n}]"),
        ConstBinding::Local(n) => format!("program.local[{n}]"),
        ConstBinding::State(s) => state_text(*s),
    }
}

/// The initialiser list of a parameter array over `slots`, merging matrix rows and
/// env/local ranges back into the forms the parser expands.
fn array_items(slots: &[ConstSlot]) -> String {
    let mut items = Vec::new();
    let mut i = 0;
    while i < slots.len() {
        let b = &slots[i].binding;
        let run = |f: &dyn Fn(usize) -> bool| {
            let mut n = 1;
            while i + n < slots.len() && f(n) {
                n += 1;
            }
            n
        };
        match b {
            ConstBinding::State(StateRef::Matrix(m, md, r)) => {
                let n = run(&|k| {
                    slots[i + k].binding
                        == ConstBinding::State(StateRef::Matrix(*m, *md, r + k as u8))
                });
                let base = matrix_text(*m, *md);
                items.push(match (r, n) {
                    (0, 4) => base,
                    (_, 1) => format!("{base}.row[{r}]"),
                    _ => format!("{base}.row[{r}..{}]", *r as usize + n - 1),
                });
                i += n;
            }
            ConstBinding::Env(e) | ConstBinding::Local(e) => {
                let env = matches!(b, ConstBinding::Env(_));
                let n = run(&|k| {
                    let want = e.checked_add(k as u16);
                    match &slots[i + k].binding {
                        ConstBinding::Env(x) if env => Some(*x) == want,
                        ConstBinding::Local(x) if !env => Some(*x) == want,
                        _ => false,
                    }
                });
                let kind = if env { "env" } else { "local" };
                items.push(if n == 1 {
                    format!("program.{kind}[{e}]")
                } else {
                    format!("program.{kind}[{e}..{}]", *e as usize + n - 1)
                });
                i += n;
            }
            _ => {
                items.push(binding_text(b, true));
                i += 1;
            }
        }
    }
    format!("{{ {} }}", items.join(", "))
}

struct Printer<'p> {
    /// Lines written so far, and where each instruction is.
    nlines: usize,
    insts: Vec<InstSpans>,
    p: &'p Program,
    out: String,
    /// Pending `TEMP a, b` / `ADDRESS a` line being extended.
    pending: Option<(&'static str, String)>,
    next_sym: usize,
    next_slot: usize,
    next_temp: usize,
    next_addr: usize,
    modes: Vec<Mode>,
    temp_owner: Vec<Option<SymId>>,
    addr_owner: Vec<Option<SymId>>,
}

/// Prints a program as ARB assembly.
pub fn print(p: &Program) -> String {
    print_with_spans(p).text
}

/// Prints a program with the line and operand spans of every instruction.
pub fn print_with_spans(p: &Program) -> Printed {
    let nsyms = p.symbols.len();
    let mut temp_owner = vec![None; p.num_temps as usize];
    let mut addr_owner = vec![None; p.num_addrs as usize];
    let mut modes = vec![Mode::Single; p.consts.len()];
    let mut named = vec![false; p.consts.len()];
    for (id, s) in p.symbols.iter().enumerate().take(nsyms) {
        let id = id as SymId;
        match s.kind {
            SymKind::Temp(i) => {
                if let Some(o @ None) = temp_owner.get_mut(i as usize) {
                    *o = Some(id);
                }
            }
            SymKind::Address(i) => {
                if let Some(o @ None) = addr_owner.get_mut(i as usize) {
                    *o = Some(id);
                }
            }
            SymKind::Param { base, len, .. } => {
                for s in base as usize..(base as usize + len as usize).min(p.consts.len()) {
                    if !named[s] {
                        named[s] = true;
                        modes[s] = Mode::Named(id);
                    }
                }
            }
            _ => {}
        }
    }
    let mut uses = vec![0u32; p.consts.len()];
    for inst in &p.insts {
        for s in &inst.src {
            if s.reg.file != RegFile::Const {
                continue;
            }
            let i = s.reg.index as usize;
            if let Some(rel) = s.rel {
                let (lo, hi) = (rel.lo as usize, (rel.hi as usize).min(p.consts.len()));
                if lo < hi && (lo..hi).all(|k| !named[k] && !matches!(modes[k], Mode::InArray(..)))
                {
                    for m in &mut modes[lo..hi] {
                        *m = Mode::InArray(rel.lo, hi as u16);
                    }
                }
                for u in uses.iter_mut().take(hi).skip(lo) {
                    *u = u32::MAX;
                }
            } else if i < uses.len() {
                uses[i] = uses[i].saturating_add(1);
            }
        }
    }
    // The parser shares one slot among identical inline constants, so only the first
    // slot with a given binding can be written inline.
    let mut inline_keys = HashSet::new();
    for (k, m) in modes.iter_mut().enumerate() {
        let b = &p.consts[k].binding;
        if *m == Mode::Single
            && (1..u32::MAX).contains(&uses[k])
            && inline_ok(b)
            && inline_keys.insert(slot_key(b))
        {
            *m = Mode::Inline;
        }
    }
    let mut pr = Printer {
        nlines: 0,
        insts: Vec::with_capacity(p.insts.len()),
        p,
        out: String::new(),
        pending: None,
        next_sym: 0,
        next_slot: 0,
        next_temp: 0,
        next_addr: 0,
        modes,
        temp_owner,
        addr_owner,
    };
    pr.run();
    Printed {
        text: pr.out,
        insts: pr.insts,
    }
}

impl Printer<'_> {
    fn line(&mut self, s: &str) {
        self.flush();
        self.out.push_str(s);
        self.out.push('\n');
        self.nlines += 1;
    }

    fn flush(&mut self) {
        if let Some((_, l)) = self.pending.take() {
            self.out.push_str(&l);
            self.out.push_str(";\n");
            self.nlines += 1;
        }
    }

    /// Adds a name to a `TEMP`/`ADDRESS` line.
    fn list_decl(&mut self, kw: &'static str, name: &str) {
        match &mut self.pending {
            Some((k, l)) if *k == kw => {
                l.push_str(", ");
                l.push_str(name);
            }
            _ => {
                self.flush();
                self.pending = Some((kw, format!("{kw} {name}")));
            }
        }
    }

    fn run(&mut self) {
        let p = self.p;
        self.line(p.profile.header());
        for o in &p.options {
            self.line(&format!("OPTION {};", option_name(o)));
        }
        self.eager_declarations();
        for inst in &p.insts {
            self.prepare(inst);
            let (text, dst, src) = self.inst_text(inst);
            self.line(&text);
            self.insts.push(InstSpans {
                line: self.nlines - 1,
                dst,
                src,
            });
        }
        self.emit_symbols_through(p.symbols.len());
        self.place_slots(p.consts.len());
        self.fill_temps(p.num_temps as usize);
        self.fill_addrs(p.num_addrs as usize);
        self.unused_io();
        self.line("END");
    }

    /// Writes the leading declarations up front, stopping at the first PARAM that must
    /// come after an instruction (because an inline constant before it gets a lower slot).
    fn eager_declarations(&mut self) {
        while let Some(s) = self.p.symbols.get(self.next_sym) {
            if let SymKind::Param { base, .. } = s.kind {
                let end = (base as usize).min(self.modes.len());
                let gap = &self.modes[self.next_slot.min(end)..end];
                if gap.contains(&Mode::Inline) {
                    break;
                }
            }
            self.emit_symbols_through(self.next_sym + 1);
        }
        while self.next_temp < self.temp_owner.len()
            && self.temp_owner[self.next_temp].is_none_or(|s| (s as usize) < self.next_sym)
        {
            self.fill_temps(self.next_temp + 1);
        }
        while self.next_addr < self.addr_owner.len()
            && self.addr_owner[self.next_addr].is_none_or(|s| (s as usize) < self.next_sym)
        {
            self.fill_addrs(self.next_addr + 1);
        }
    }

    fn emit_symbols_through(&mut self, end: usize) {
        while self.next_sym < end.min(self.p.symbols.len()) {
            let id = self.next_sym;
            self.next_sym += 1;
            self.emit_symbol(id);
        }
    }

    fn emit_symbol(&mut self, id: usize) {
        let p = self.p;
        let s = &p.symbols[id];
        match s.kind {
            SymKind::Temp(i) => {
                self.fill_temps(i as usize);
                self.list_decl("TEMP", &s.name);
                self.next_temp = self.next_temp.max(i as usize + 1);
            }
            SymKind::Address(i) => {
                self.fill_addrs(i as usize);
                self.list_decl("ADDRESS", &s.name);
                self.next_addr = self.next_addr.max(i as usize + 1);
            }
            SymKind::Attrib(reg) => {
                let t = self.input_binding(reg);
                self.line(&format!("ATTRIB {} = {t};", s.name));
            }
            SymKind::Output(reg) => {
                self.line(&format!("OUTPUT {} = {};", s.name, output_text(reg)))
            }
            SymKind::Alias(t) => {
                let target = p.symbols.get(t as usize).map_or("?", |t| t.name.as_str());
                self.line(&format!("ALIAS {} = {target};", s.name));
            }
            SymKind::Param { base, len, array } => {
                self.place_unnamed(base as usize);
                let end = (base as usize + len as usize).min(p.consts.len());
                let slots = &p.consts[(base as usize).min(end)..end];
                let text = if array || slots.len() != 1 {
                    format!(
                        "PARAM {}[{}] = {};",
                        s.name,
                        slots.len(),
                        array_items(slots)
                    )
                } else {
                    format!(
                        "PARAM {} = {};",
                        s.name,
                        binding_text(&slots[0].binding, true)
                    )
                };
                self.line(&text);
                self.next_slot = self.next_slot.max(end);
            }
        }
    }

    /// Declares anonymous temps below `end` (emitting named ones in symbol order).
    fn fill_temps(&mut self, end: usize) {
        while self.next_temp < end.min(self.temp_owner.len()) {
            let i = self.next_temp;
            match self.temp_owner[i] {
                Some(sym) if (sym as usize) >= self.next_sym => {
                    self.emit_symbols_through(sym as usize + 1)
                }
                Some(_) => self.next_temp += 1,
                None => {
                    self.list_decl("TEMP", &format!("$t{i}"));
                    self.next_temp += 1;
                }
            }
        }
    }

    fn fill_addrs(&mut self, end: usize) {
        while self.next_addr < end.min(self.addr_owner.len()) {
            let i = self.next_addr;
            match self.addr_owner[i] {
                Some(sym) if (sym as usize) >= self.next_sym => {
                    self.emit_symbols_through(sym as usize + 1)
                }
                Some(_) => self.next_addr += 1,
                None => {
                    self.list_decl("ADDRESS", &format!("$a{i}"));
                    self.next_addr += 1;
                }
            }
        }
    }

    /// Places slots below `end`, stopping at named slots (their symbol places them).
    fn place_unnamed(&mut self, end: usize) {
        while self.next_slot < end.min(self.modes.len()) {
            if matches!(self.modes[self.next_slot], Mode::Named(_)) {
                return;
            }
            self.place_one();
        }
    }

    /// Places every slot below `end`.
    fn place_slots(&mut self, end: usize) {
        while self.next_slot < end.min(self.modes.len()) {
            let before = self.next_slot;
            if let Mode::Named(sym) = self.modes[self.next_slot] {
                self.emit_symbols_through(sym as usize + 1);
                if self.next_slot == before {
                    self.next_slot += 1;
                }
            } else {
                self.place_one();
            }
        }
    }

    /// Declares the unnamed slot at `next_slot`.
    fn place_one(&mut self) {
        let s = self.next_slot;
        let p = self.p;
        match self.modes[s] {
            Mode::InArray(lo, hi) if lo as usize == s => {
                let slots = &p.consts[lo as usize..hi as usize];
                let text = format!("PARAM $c{lo}[{}] = {};", slots.len(), array_items(slots));
                self.line(&text);
                self.next_slot = hi as usize;
            }
            _ => {
                self.modes[s] = Mode::Single;
                let text = format!(
                    "PARAM $c{s} = {};",
                    binding_text(&p.consts[s].binding, true)
                );
                self.line(&text);
                self.next_slot += 1;
            }
        }
    }

    /// Declares everything `inst` refers to and decides which of its constants go inline.
    fn prepare(&mut self, inst: &Inst) {
        let p = self.p;
        let mut cands = Vec::new();
        let regs = inst
            .dst
            .iter()
            .map(|d| (d.reg, d.name, None))
            .chain(inst.src.iter().map(|s| (s.reg, s.name, s.rel)));
        for (reg, name, rel) in regs {
            if let Some(id) = name {
                self.emit_symbols_through(id as usize + 1);
            }
            if let Some(r) = rel
                && r.reg.file == RegFile::Address
            {
                self.need_addr(r.reg.index as usize);
            }
            match reg.file {
                RegFile::Temp if name.is_none() => self.need_temp(reg.index as usize),
                RegFile::Address if name.is_none() => self.need_addr(reg.index as usize),
                RegFile::Const => {
                    let s = reg.index as usize;
                    match (rel, self.modes.get(s).copied()) {
                        (Some(r), _) => self.place_slots((r.hi as usize).max(s + 1)),
                        (None, Some(Mode::Inline)) => cands.push(s),
                        (None, Some(Mode::InArray(_, hi))) => self.place_slots(hi as usize),
                        (None, Some(_)) => self.place_slots(s + 1),
                        (None, None) => {}
                    }
                }
                _ => {}
            }
        }
        // Inline slots already allocated by an earlier use are shared, not new.
        let mut first_uses = HashSet::new();
        cands.retain(|&s| {
            s >= self.next_slot && self.modes[s] == Mode::Inline && first_uses.insert(s)
        });
        if cands.is_empty() {
            return;
        }
        let first = cands[0];
        let consecutive = cands.iter().enumerate().all(|(k, &s)| s == first + k);
        if consecutive && first >= self.next_slot {
            self.place_slots(first);
            if self.next_slot == first {
                self.next_slot = first + cands.len();
                return;
            }
        }
        for &s in &cands {
            if self.modes[s] == Mode::Inline {
                self.modes[s] = Mode::Single;
            }
        }
        let last = *cands.iter().max().unwrap_or(&first);
        self.place_slots(last + 1);
        let _ = p;
    }

    fn need_temp(&mut self, i: usize) {
        match self.temp_owner.get(i).copied().flatten() {
            Some(sym) => self.emit_symbols_through(sym as usize + 1),
            None => self.fill_temps(i + 1),
        }
    }

    fn need_addr(&mut self, i: usize) {
        match self.addr_owner.get(i).copied().flatten() {
            Some(sym) => self.emit_symbols_through(sym as usize + 1),
            None => self.fill_addrs(i + 1),
        }
    }

    fn input_binding(&self, reg: Reg) -> String {
        let sem = self.p.semantic(reg).unwrap_or(Semantic::Position(0));
        input_text(self.p.stage(), reg, sem)
    }

    fn unused_io(&mut self) {
        let p = self.p;
        let mut seen: HashSet<Reg> = HashSet::new();
        for s in &p.symbols {
            if let SymKind::Attrib(r) | SymKind::Output(r) = s.kind {
                seen.insert(r);
            }
        }
        for inst in &p.insts {
            seen.extend(inst.dst.iter().map(|d| d.reg));
            seen.extend(inst.src.iter().map(|s| s.reg));
        }
        for d in &p.io {
            if seen.contains(&d.reg) {
                continue;
            }
            let text = if d.reg.file.is_output() {
                format!("OUTPUT $o{} = {};", reg_key(d.reg), output_text(d.reg))
            } else {
                format!(
                    "ATTRIB $v{} = {};",
                    reg_key(d.reg),
                    self.input_binding(d.reg)
                )
            };
            self.line(&text);
        }
    }

    fn sym_name(&self, id: SymId) -> &str {
        self.p
            .symbols
            .get(id as usize)
            .map_or("?", |s| s.name.as_str())
    }

    fn rel_text(&self, rel: &RelAddr, extra: i32) -> String {
        let a = match self
            .addr_owner
            .get(rel.reg.index as usize)
            .copied()
            .flatten()
        {
            Some(id) => self.sym_name(id).to_string(),
            None => format!("$a{}", rel.reg.index),
        };
        let off = rel.offset as i32 + extra;
        match off {
            0 => format!("{a}.x"),
            o if o > 0 => format!("{a}.x + {o}"),
            o => format!("{a}.x - {}", -o),
        }
    }

    /// Text of a register reference, without swizzle or mask.
    fn reg_text(&self, reg: Reg, name: Option<SymId>, rel: Option<&RelAddr>) -> String {
        let p = self.p;
        let index_into = |label: &str, base: u16| match rel {
            Some(r) => format!(
                "{label}[{}]",
                self.rel_text(r, reg.index as i32 - base as i32)
            ),
            None => format!("{label}[{}]", reg.index as i32 - base as i32),
        };
        if let Some(id) = name {
            let target = p.resolve_symbol(id);
            return match p.symbols.get(target as usize).map(|s| &s.kind) {
                Some(SymKind::Param {
                    base, array: true, ..
                }) => index_into(self.sym_name(id), *base),
                _ => self.sym_name(id).to_string(),
            };
        }
        let i = reg.index as usize;
        match reg.file {
            RegFile::Temp => match self.temp_owner.get(i).copied().flatten() {
                Some(id) => self.sym_name(id).to_string(),
                None => format!("$t{i}"),
            },
            RegFile::Address => match self.addr_owner.get(i).copied().flatten() {
                Some(id) => self.sym_name(id).to_string(),
                None => format!("$a{i}"),
            },
            RegFile::Const => match (self.modes.get(i).copied(), rel) {
                (Some(Mode::Named(id)), _) => match p.symbols[id as usize].kind {
                    SymKind::Param {
                        base, array: true, ..
                    } => index_into(self.sym_name(id), base),
                    _ => self.sym_name(id).to_string(),
                },
                (Some(Mode::InArray(lo, _)), _) => index_into(&format!("$c{lo}"), lo),
                (_, Some(r)) => index_into(&format!("$c{}", r.lo), r.lo),
                (Some(Mode::Inline), None) => binding_text(&p.consts[i].binding, false),
                _ => format!("$c{i}"),
            },
            f if f.is_output() => output_text(reg),
            _ => self.input_binding(reg),
        }
    }

    fn src_text(&self, s: &Src, scalar: bool) -> String {
        let mut t = String::new();
        if s.negate {
            t.push('-');
        }
        t.push_str(&self.reg_text(s.reg, s.name, s.rel.as_ref()));
        let c = s.swizzle.comps();
        let names = COMP_NAMES;
        if scalar || s.swizzle.is_replicate() {
            let _ = write!(t, ".{}", names[c[0] as usize]);
        } else if !s.swizzle.is_identity() {
            t.push('.');
            for k in c {
                t.push(names[k as usize]);
            }
        }
        t
    }

    fn dst_text(&self, d: &Dst) -> String {
        let mut t = self.reg_text(d.reg, d.name, None);
        if !d.mask.is_all() {
            t.push('.');
            for c in d.mask.iter() {
                t.push(COMP_NAMES[c as usize]);
            }
        }
        t
    }

    /// An instruction's line and the byte ranges of its destination and sources in it.
    fn inst_text(&self, inst: &Inst) -> (String, Option<Range<usize>>, Vec<Range<usize>>) {
        let info = inst.info();
        let mut t = info.arb.or(info.d3d).unwrap_or("NOP").to_string();
        if inst.sat {
            t.push_str("_SAT");
        }
        let scalar = matches!(
            inst.op,
            Op::Ex2
                | Op::Exp
                | Op::Lg2
                | Op::Log
                | Op::Rcp
                | Op::Rsq
                | Op::Cos
                | Op::Sin
                | Op::Scs
                | Op::Pow
                | Op::Arl
        );
        let mut parts = Operands::default();
        if let Some(d) = &inst.dst {
            parts.push(Role::Dst, self.dst_text(d));
        }
        for s in &inst.src {
            if inst.op == Op::Swz {
                let mut plain = s.clone();
                plain.swizzle = Swizzle::IDENTITY;
                plain.negate = false;
                parts.push(Role::Src, self.src_text(&plain, false));
            } else {
                parts.push(Role::Src, self.src_text(s, scalar));
            }
        }
        if let Some(e) = &inst.ext_swizzle {
            // The source is printed plain: its swizzle and sign go into the component
            // selectors.
            let (sw, negate) = inst
                .src
                .first()
                .map_or((Swizzle::IDENTITY, false), |s| (s.swizzle, s.negate));
            for k in 0..4 {
                let (sel, flip) = match e.sel[k] {
                    ExtSel::Zero => ("0".to_string(), false),
                    ExtSel::One => ("1".to_string(), false),
                    ExtSel::Comp(c) => (COMP_NAMES[sw.get(c & 3) as usize].to_string(), negate),
                };
                let sel = if e.neg[k] ^ flip {
                    format!("-{sel}")
                } else {
                    sel
                };
                parts.push(Role::Other, sel);
            }
        }
        if let Some(tex) = inst.tex {
            parts.push(Role::Other, format!("texture[{}]", tex.unit));
            parts.push(Role::Other, tex.target.arb_name().into());
        }
        let (dst, src) = parts.write(&mut t);
        t.push(';');
        if let Some(c) = &inst.comment {
            let c = c.replace(['\n', '\r'], " ");
            let _ = write!(t, " # {}", c.trim());
        }
        (t, dst, src)
    }
}

/// A short unique key for generated input/output names.
fn reg_key(r: Reg) -> String {
    format!("{}_{}", r.file as u8, r.index)
}

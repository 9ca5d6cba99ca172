//! Register liveness per component, as a grid of instruction rows × register components
//! (seed 002, CUDAvis §5.3: `-` empty, `l` live, `r` read, `w` written, `a` both).
//!
//! A component is *live* at an instruction when some path from the program's start writes
//! it before the instruction (forward "maybe defined") and some path from the instruction
//! reads it before writing it again (backward liveness). Both are solved to a fixed point on
//! a control-flow graph with one node per instruction, so the vs_2_0+/ps_3_0 flow control
//! (`if`/`else`, `loop`/`rep`, `break`, `call`/`ret`) is handled like straight-line code:
//! loops feed their end back to their start (a value read early in the body and written
//! later stays live around the back edge), and a return goes to every caller's next
//! instruction. A write kills only the components of its mask, and only when it is not
//! predicated. Outputs are live at the end of the program.
//!
//! The row counts the temporaries with any non-empty cell, which is the pressure a
//! register allocator must meet: a value is held from its write to its last read, and a
//! dead write still needs a register at its row. The peak is compared with the profile's
//! temp limit, which a program over it fails to assemble against.

use hoist_asm::ir::{Comp, Inst, Program, Reg, RegFile, WriteMask};
use hoist_asm::{Dialect, Op};
use serde::Serialize;

/// What a cell of the grid says about one register component at one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cell {
    Empty,
    Live,
    Read,
    Written,
    Both,
}

/// The characters a grid is printed with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Legend {
    /// CUDAvis: `-` empty, `l` live, `r` read, `w` written, `a` both.
    #[default]
    Thesis,
    /// Radeon GPU Analyzer's livereg: `:` live, `v` read, `^` written, `x` both (`.` empty).
    Rga,
}

impl Legend {
    pub fn char(self, c: Cell) -> char {
        let t = match self {
            Legend::Thesis => ['-', 'l', 'r', 'w', 'a'],
            Legend::Rga => ['.', ':', 'v', '^', 'x'],
        };
        t[c as usize]
    }

    pub fn from_name(s: &str) -> Option<Legend> {
        match s {
            "thesis" => Some(Legend::Thesis),
            "rga" => Some(Legend::Rga),
            _ => None,
        }
    }
}

/// The value a cell holds: the instructions whose writes reach it and its reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Value {
    pub defs: Vec<u32>,
    pub uses: Vec<u32>,
}

impl Value {
    /// The last read in program order.
    pub fn last_use(&self) -> Option<u32> {
        self.uses.iter().copied().max()
    }
}

/// The liveness grid of one program.
#[derive(Clone, Debug, PartialEq)]
pub struct Liveness {
    /// Columns: the temporaries, then the address, predicate and output registers the
    /// instructions use, four components each.
    pub regs: Vec<Reg>,
    pub names: Vec<String>,
    cells: Vec<Cell>,
    /// Per row: temporaries with any non-empty cell, and their non-empty components.
    pub temps: Vec<u32>,
    pub components: Vec<u32>,
    pub peak: u32,
    /// The first row at the peak (`None` for an empty program).
    pub peak_row: Option<usize>,
    pub peak_components: u32,
    /// The profile's temp limit.
    pub limit: u16,
    /// Temporaries the program declares (D3D9: highest `r#` + 1), which the profile checks.
    pub declared: u16,
    reach: Vec<Vec<u32>>,
    reads_at: Vec<Vec<u32>>,
    bits: usize,
}

/// A fixed-size set of (register, component) bits.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, b: usize) {
        self.0[b / 64] |= 1 << (b % 64);
    }
    fn has(&self, b: usize) -> bool {
        (self.0[b / 64] >> (b % 64)) & 1 == 1
    }
    fn union_with(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn minus(&self, o: &Bits) -> Bits {
        Bits(self.0.iter().zip(&o.0).map(|(a, b)| a & !b).collect())
    }
}

/// Files shown in the grid.
fn tracked(f: RegFile) -> bool {
    matches!(f, RegFile::Temp | RegFile::Address | RegFile::Predicate) || f.is_output()
}

/// Register components `inst` reads, by register.
pub fn inst_reads(inst: &Inst) -> Vec<(Reg, WriteMask)> {
    let mut out: Vec<(Reg, WriteMask)> = Vec::new();
    let mut add = |reg: Reg, m: WriteMask| {
        if m.is_empty() {
            return;
        }
        match out.iter_mut().find(|(r, _)| *r == reg) {
            Some((_, old)) => *old = old.union(m),
            None => out.push((reg, m)),
        }
    };
    let lanes = if inst.info().has_dst {
        inst.dst_lanes()
    } else {
        WriteMask::ALL
    };
    for (k, s) in inst.src.iter().enumerate() {
        for (reg, l) in inst.src_regs(k, lanes) {
            add(reg, inst.src_reads(k, l));
        }
        if let Some(rel) = &s.rel {
            add(rel.reg, WriteMask::single(rel.comp));
        }
    }
    if let Some(d) = &inst.dst
        && let Some(rel) = &d.rel
    {
        add(rel.reg, WriteMask::single(rel.comp));
    }
    if let Some(p) = &inst.pred {
        add(Reg::new(RegFile::Predicate, 0), p.swizzle.reads(lanes));
    }
    out
}

/// Successors of each instruction in the per-instruction control-flow graph; `n` is the
/// program's exit. Unmatched flow (which validation rejects) falls through.
fn successors(insts: &[Inst]) -> Vec<Vec<usize>> {
    let n = insts.len();
    let mut succ: Vec<Vec<usize>> = (0..n).map(|i| vec![i + 1]).collect();
    let mut opens: Vec<usize> = Vec::new();
    let mut loops: Vec<usize> = Vec::new();
    let mut else_of: Vec<Option<usize>> = vec![None; n];
    let mut breaks: Vec<(usize, usize)> = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        match inst.op {
            Op::If | Op::Ifc(_) | Op::Loop | Op::Rep => {
                opens.push(i);
                if matches!(inst.op, Op::Loop | Op::Rep) {
                    loops.push(i);
                }
            }
            Op::Else => {
                if let Some(&o) = opens.last() {
                    else_of[o] = Some(i);
                }
            }
            Op::Endif => {
                if let Some(o) = opens.pop() {
                    match else_of[o] {
                        Some(e) => {
                            succ[o] = vec![o + 1, e + 1];
                            succ[e] = vec![i];
                        }
                        None => succ[o] = vec![o + 1, i],
                    }
                }
            }
            Op::Endloop | Op::Endrep => {
                if let Some(o) = opens.pop() {
                    loops.pop();
                    succ[o] = vec![o + 1, i + 1];
                    succ[i] = vec![o + 1, i + 1];
                    for &(b, _) in breaks.iter().filter(|(_, l)| *l == o) {
                        if insts[b].op == Op::Break {
                            succ[b] = vec![i + 1];
                        } else {
                            succ[b] = vec![b + 1, i + 1];
                        }
                    }
                }
            }
            Op::Break | Op::Breakc(_) | Op::Breakp => {
                if let Some(&l) = loops.last() {
                    breaks.push((i, l));
                }
            }
            _ => {}
        }
    }
    link_calls(insts, &mut succ);
    succ
}

/// Calls go to their label; a `ret` after a label returns to the next instruction of
/// every call of it; the main program's `ret` ends it.
fn link_calls(insts: &[Inst], succ: &mut [Vec<usize>]) {
    let n = insts.len();
    let label_of = |i: usize| insts[i].src.first().map(|s| s.reg.index);
    let labels: Vec<(u16, usize)> = (0..n)
        .filter(|&i| insts[i].op == Op::Label)
        .filter_map(|i| label_of(i).map(|l| (l, i)))
        .collect();
    let mut current: Option<u16> = None;
    for i in 0..n {
        match insts[i].op {
            Op::Label => current = label_of(i),
            Op::Ret => {
                succ[i] = match current {
                    None => vec![n],
                    Some(l) => (0..n)
                        .filter(|&c| matches!(insts[c].op, Op::Call | Op::Callnz))
                        .filter(|&c| label_of(c) == Some(l))
                        .map(|c| c + 1)
                        .collect(),
                };
            }
            Op::Call | Op::Callnz => {
                if let Some(&(_, at)) = labels.iter().find(|(l, _)| Some(*l) == label_of(i)) {
                    succ[i] = if insts[i].op == Op::Call {
                        vec![at + 1]
                    } else {
                        vec![i + 1, at + 1]
                    };
                }
            }
            _ => {}
        }
    }
}

/// Per-instruction facts as bits.
struct Facts {
    reads: Vec<Bits>,
    writes: Vec<Bits>,
    kills: Vec<Bits>,
    exit: Bits,
}

impl Liveness {
    /// The grid of `p` against the temp limit `limit`, with the values under its cells.
    pub fn compute(p: &Program, limit: u16) -> Liveness {
        Liveness::build(p, limit, true)
    }

    /// The grid and its counts only ([`Liveness::value`] answers `None`), for passes that
    /// compare schedules.
    pub fn counts(p: &Program, limit: u16) -> Liveness {
        Liveness::build(p, limit, false)
    }

    fn build(p: &Program, limit: u16, values: bool) -> Liveness {
        let regs = columns(p);
        let bits = regs.len() * 4;
        let col = |r: Reg| regs.iter().position(|&x| x == r);
        let facts = facts(p, bits, &col);
        let succ = successors(&p.insts);
        let n = p.insts.len();
        let (live_in, live_out) = backward(&facts, &succ, bits);
        let def_in = forward(&facts, &succ, bits);
        let mut cells = vec![Cell::Empty; n * bits];
        for i in 0..n {
            for b in 0..bits {
                let (r, w) = (facts.reads[i].has(b), facts.writes[i].has(b));
                cells[i * bits + b] = match (r, w) {
                    (true, true) => Cell::Both,
                    (true, false) => Cell::Read,
                    (false, true) => Cell::Written,
                    _ if live_in[i].has(b) && live_out[i].has(b) && def_in[i].has(b) => Cell::Live,
                    _ => Cell::Empty,
                };
            }
        }
        let (reach, reads_at) = if values {
            reaching(&facts, &succ, bits)
        } else {
            (Vec::new(), Vec::new())
        };
        let names = regs.iter().map(|&r| reg_label(p, r)).collect();
        let mut l = Liveness {
            regs,
            names,
            cells,
            temps: Vec::new(),
            components: Vec::new(),
            peak: 0,
            peak_row: None,
            peak_components: 0,
            limit,
            declared: p.num_temps,
            reach,
            reads_at,
            bits,
        };
        l.count();
        l
    }

    fn count(&mut self) {
        let temps = self
            .regs
            .iter()
            .take_while(|r| r.file == RegFile::Temp)
            .count();
        for i in 0..self.rows() {
            let row = &self.cells[i * self.bits..(i + 1) * self.bits];
            let busy = |k: usize| (0..4).filter(|c| row[k * 4 + c] != Cell::Empty).count();
            let t = (0..temps).filter(|&k| busy(k) > 0).count() as u32;
            let c = (0..temps).map(busy).sum::<usize>() as u32;
            if self.peak_row.is_none() || t > self.peak {
                self.peak = t;
                self.peak_row = Some(i);
            }
            self.peak_components = self.peak_components.max(c);
            self.temps.push(t);
            self.components.push(c);
        }
    }

    pub fn rows(&self) -> usize {
        self.cells.len().checked_div(self.bits).unwrap_or(0)
    }

    /// The cell of instruction `row`, register column `reg`, component `comp`.
    pub fn cell(&self, row: usize, reg: usize, comp: Comp) -> Cell {
        self.cells[row * self.bits + reg * 4 + comp as usize]
    }

    /// Whether the peak exceeds the limit (no numbering of the registers fits).
    pub fn over_limit(&self) -> bool {
        self.peak > u32::from(self.limit)
    }

    /// Whether the program fails its profile's temp limit as written (its declared
    /// temporaries exceed it), although the peak may fit.
    pub fn fails_limit(&self) -> bool {
        self.declared > self.limit
    }

    /// One row as text: four characters per register, registers separated by spaces.
    pub fn row_text(&self, row: usize, legend: Legend) -> String {
        let mut s = String::with_capacity(self.regs.len() * 5);
        for k in 0..self.regs.len() {
            if k > 0 {
                s.push(' ');
            }
            for c in 0..4 {
                s.push(legend.char(self.cell(row, k, c)));
            }
        }
        s
    }

    /// The value in a cell: the writes that reach it (or the cell's own write) and the reads
    /// of those writes. `None` for an empty cell.
    pub fn value(&self, row: usize, reg: usize, comp: Comp) -> Option<Value> {
        let cell = self.cell(row, reg, comp);
        let b = reg * 4 + comp as usize;
        let defs: Vec<u32> = match cell {
            Cell::Empty => return None,
            Cell::Written | Cell::Both => vec![row as u32],
            _ => self.reach.get(row * self.bits + b)?.clone(),
        };
        let mut uses: Vec<u32> = (0..self.rows())
            .filter(|&j| {
                self.reads_at
                    .get(j * self.bits + b)
                    .is_some_and(|r| r.iter().any(|d| defs.contains(d)))
            })
            .map(|j| j as u32)
            .collect();
        if cell == Cell::Read && uses.is_empty() {
            uses.push(row as u32);
        }
        hoist_asm::sort::ord(&mut uses);
        Some(Value { defs, uses })
    }
}

fn columns(p: &Program) -> Vec<Reg> {
    let mut regs: Vec<Reg> = Vec::new();
    for inst in &p.insts {
        let written = inst.dst.as_ref().map(|d| d.reg);
        for r in inst_reads(inst).into_iter().map(|(r, _)| r).chain(written) {
            if tracked(r.file) && !regs.contains(&r) {
                regs.push(r);
            }
        }
    }
    hoist_asm::sort::ord(&mut regs);
    regs
}

fn facts(p: &Program, bits: usize, col: &dyn Fn(Reg) -> Option<usize>) -> Facts {
    let n = p.insts.len();
    let mut f = Facts {
        reads: vec![Bits::new(bits); n],
        writes: vec![Bits::new(bits); n],
        kills: vec![Bits::new(bits); n],
        exit: Bits::new(bits),
    };
    for (i, inst) in p.insts.iter().enumerate() {
        for (r, m) in inst_reads(inst) {
            if let Some(k) = col(r) {
                m.iter().for_each(|c| f.reads[i].set(k * 4 + c as usize));
            }
        }
        if let Some(d) = &inst.dst
            && let Some(k) = col(d.reg)
        {
            for c in d.mask.iter() {
                f.writes[i].set(k * 4 + c as usize);
                if inst.pred.is_none() && d.rel.is_none() {
                    f.kills[i].set(k * 4 + c as usize);
                }
            }
        }
    }
    for r in p.insts.iter().filter_map(|i| i.dst.as_ref()).map(|d| d.reg) {
        if let (true, Some(k)) = (r.file.is_output(), col(r)) {
            (0..4).for_each(|c| f.exit.set(k * 4 + c));
        }
    }
    f
}

fn backward(f: &Facts, succ: &[Vec<usize>], bits: usize) -> (Vec<Bits>, Vec<Bits>) {
    let n = succ.len();
    let mut live_in = vec![Bits::new(bits); n];
    let mut live_out = vec![Bits::new(bits); n];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut out = Bits::new(bits);
            for &s in &succ[i] {
                out.union_with(if s >= n { &f.exit } else { &live_in[s] });
            }
            let mut inn = out.minus(&f.kills[i]);
            inn.union_with(&f.reads[i]);
            if inn != live_in[i] || out != live_out[i] {
                changed = true;
                live_in[i] = inn;
                live_out[i] = out;
            }
        }
    }
    (live_in, live_out)
}

fn predecessors(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut pred = vec![Vec::new(); succ.len()];
    for (i, ss) in succ.iter().enumerate() {
        for &s in ss.iter().filter(|&&s| s < succ.len()) {
            pred[s].push(i);
        }
    }
    pred
}

/// Components some path has written before each instruction.
fn forward(f: &Facts, succ: &[Vec<usize>], bits: usize) -> Vec<Bits> {
    let n = succ.len();
    let pred = predecessors(succ);
    let mut def_in = vec![Bits::new(bits); n];
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            let mut inn = Bits::new(bits);
            for &p in &pred[i] {
                inn.union_with(&def_in[p]);
                inn.union_with(&f.writes[p]);
            }
            if inn != def_in[i] {
                changed = true;
                def_in[i] = inn;
            }
        }
    }
    def_in
}

/// Reaching writes per (instruction, bit), and per read the writes it may see.
fn reaching(f: &Facts, succ: &[Vec<usize>], bits: usize) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let n = succ.len();
    let pred = predecessors(succ);
    let mut reach: Vec<Vec<u32>> = vec![Vec::new(); n * bits];
    let out_of = |reach: &Vec<Vec<u32>>, p: usize, b: usize| -> Vec<u32> {
        if f.kills[p].has(b) {
            return vec![p as u32];
        }
        let mut v = reach[p * bits + b].clone();
        if f.writes[p].has(b) {
            v.push(p as u32);
        }
        v
    };
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            for b in 0..bits {
                let mut v: Vec<u32> = pred[i].iter().flat_map(|&p| out_of(&reach, p, b)).collect();
                hoist_asm::sort::ord(&mut v);
                v.dedup();
                if v != reach[i * bits + b] {
                    changed = true;
                    reach[i * bits + b] = v;
                }
            }
        }
    }
    let reads_at = (0..n * bits)
        .map(|k| {
            if f.reads[k / bits].has(k % bits) {
                reach[k].clone()
            } else {
                Vec::new()
            }
        })
        .collect();
    (reach, reads_at)
}

/// The column's name: the ARB `TEMP`/`ADDRESS`/`OUTPUT` name when there is one, the D3D9
/// spelling otherwise.
fn reg_label(p: &Program, r: Reg) -> String {
    use hoist_asm::ir::SymKind;
    if p.dialect() == Dialect::Arb {
        let named = p.symbols.iter().find(|s| match s.kind {
            SymKind::Temp(t) => r == Reg::new(RegFile::Temp, t),
            SymKind::Address(a) => r == Reg::new(RegFile::Address, a),
            SymKind::Output(o) => r == o,
            _ => false,
        });
        if let Some(s) = named {
            return s.name.clone();
        }
    }
    hoist_asm::d3d9::regs::reg_name(r)
}

impl Liveness {
    /// The grid as text: a header of column names, then per instruction its row number,
    /// live temporaries, grid row and printed text; then the peak against the limit.
    pub fn listing(&self, p: &Program, legend: Legend) -> String {
        use std::fmt::Write;
        let (text, lines) = hoist_asm::print_with_lines(p);
        let printed: Vec<&str> = text.lines().collect();
        let widths: Vec<usize> = self
            .names
            .iter()
            .map(|n| n.chars().count().max(4))
            .collect();
        let mut out = String::from("   #  live ");
        for (n, w) in self.names.iter().zip(&widths) {
            let _ = write!(out, " {n:<w$}");
        }
        out = out.trim_end().to_string();
        out.push('\n');
        for row in 0..self.rows() {
            let mark = if Some(row) == self.peak_row { '>' } else { ' ' };
            let _ = write!(out, "{mark}{:>3}  {:>4} ", row + 1, self.temps[row]);
            for (k, w) in widths.iter().enumerate() {
                let cells: String = (0..4).map(|c| legend.char(self.cell(row, k, c))).collect();
                let _ = write!(out, " {cells:<w$}");
            }
            let inst = lines
                .get(row)
                .and_then(|&l| printed.get(l))
                .map_or("", |s| s.trim());
            let _ = writeln!(out, "  {inst}");
        }
        let _ = writeln!(
            out,
            "peak {} temporar{} ({} components){}, limit {}{}{}",
            self.peak,
            if self.peak == 1 { "y" } else { "ies" },
            self.peak_components,
            self.peak_row
                .map_or(String::new(), |r| format!(" at row {}", r + 1)),
            self.limit,
            if self.over_limit() {
                ": OVER THE LIMIT"
            } else {
                ""
            },
            if self.fails_limit() && !self.over_limit() {
                format!(" ({} declared: over the limit as numbered)", self.declared)
            } else {
                String::new()
            }
        );
        out
    }
}

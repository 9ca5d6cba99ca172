//! Per-component def-use chains for straight-line programs.
//!
//! Every instruction reads a list of register components ([`Read`]), each tagged with the
//! instruction whose write reaches it (or `None` when the value comes from outside the
//! program: an input, a constant, or a temporary never written before). Writes are per
//! destination component. Matrix macros read one register per row, and relative addressing
//! adds a read of the address component, so the lists are exact for every op.
//!
//! Programs with flow control are rejected by [`DefUse::compute`] (none of vs_1_1, ps_2_0
//! or ARB 1.0 fragment programs has any); callers report why nothing moved.

use hoist_asm::ir::{Comp, Program, Reg, RegFile, WriteMask};

/// One register component read by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    /// Which source operand (index into `Inst::src`).
    pub src: u8,
    pub reg: Reg,
    pub comp: Comp,
    /// The destination lanes of the reading instruction that need this component
    /// (all lanes for kill, flow and relative-address reads).
    pub lanes: WriteMask,
    /// The instruction whose write reaches this read, if any.
    pub def: Option<u32>,
}

/// A use of one component written by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    pub inst: u32,
    /// Index into that instruction's `reads`.
    pub read: u32,
}

/// Def-use facts for one program, stored flat: one array of reads ordered by instruction and
/// one of uses ordered by (defining instruction, component), each with an offset table.
#[derive(Clone, Debug, Default)]
pub struct DefUse {
    reads: Vec<Read>,
    read_start: Vec<u32>,
    uses: Vec<Use>,
    use_start: Vec<u32>,
    /// Final writes to each (register, component) at program end.
    pub final_defs: Vec<(Reg, Comp, u32)>,
}

/// Why a program cannot be analysed as straight-line code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotStraightLine {
    pub inst: usize,
}

const NO_DEF: u32 = u32::MAX;

impl DefUse {
    pub fn compute(p: &Program) -> Result<DefUse, NotStraightLine> {
        if let Some(i) = p.insts.iter().position(|i| i.op.is_flow()) {
            return Err(NotStraightLine { inst: i });
        }
        let n = p.insts.len();
        let mut reads: Vec<Read> = Vec::with_capacity(n * 6);
        let mut read_start: Vec<u32> = Vec::with_capacity(n + 1);
        // Last writer of each register's components; programs touch few registers, so a
        // linear scan beats hashing.
        let mut last: Vec<(Reg, [u32; 4])> = Vec::with_capacity(32);
        let slot = |last: &mut Vec<(Reg, [u32; 4])>, reg: Reg| -> usize {
            match last.iter().position(|(r, _)| *r == reg) {
                Some(k) => k,
                None => {
                    last.push((reg, [NO_DEF; 4]));
                    last.len() - 1
                }
            }
        };
        for inst in &p.insts {
            let first = reads.len();
            read_start.push(first as u32);
            push_reads(inst, &mut reads);
            for r in &mut reads[first..] {
                if defines_in_program(r.reg.file) {
                    r.def = last
                        .iter()
                        .find(|(reg, _)| *reg == r.reg)
                        .map(|(_, d)| d[r.comp as usize])
                        .filter(|&d| d != NO_DEF);
                }
            }
            if let Some(d) = &inst.dst {
                let k = slot(&mut last, d.reg);
                for c in d.mask.iter() {
                    last[k].1[c as usize] = (read_start.len() - 1) as u32;
                }
            }
        }
        read_start.push(reads.len() as u32);

        // Uses, bucketed by (defining instruction, component) with a counting sort that keeps
        // them in program order.
        let mut use_start = vec![0u32; 4 * n + 1];
        for r in &reads {
            if let Some(d) = r.def {
                use_start[4 * d as usize + r.comp as usize + 1] += 1;
            }
        }
        for b in 1..use_start.len() {
            use_start[b] += use_start[b - 1];
        }
        let mut fill = use_start.clone();
        let mut uses = vec![Use { inst: 0, read: 0 }; reads.len()];
        for i in 0..n {
            let (a, b) = (read_start[i] as usize, read_start[i + 1] as usize);
            for (ri, r) in reads[a..b].iter().enumerate() {
                if let Some(d) = r.def {
                    let bucket = &mut fill[4 * d as usize + r.comp as usize];
                    uses[*bucket as usize] = Use {
                        inst: i as u32,
                        read: ri as u32,
                    };
                    *bucket += 1;
                }
            }
        }
        uses.truncate(use_start[4 * n] as usize);

        let mut finals: Vec<_> = last
            .iter()
            .flat_map(|&(r, d)| {
                (0..4u8)
                    .filter(move |&c| d[c as usize] != NO_DEF)
                    .map(move |c| (r, c, d[c as usize]))
            })
            .collect();
        hoist_asm::sort::ord(&mut finals);
        Ok(DefUse {
            reads,
            read_start,
            uses,
            use_start,
            final_defs: finals,
        })
    }

    /// Number of instructions analysed.
    pub fn len(&self) -> usize {
        self.read_start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Register components instruction `i` reads.
    pub fn reads(&self, i: usize) -> &[Read] {
        &self.reads[self.read_start[i] as usize..self.read_start[i + 1] as usize]
    }

    /// Reads of component `c` written by instruction `i`, in program order.
    pub fn uses(&self, i: usize, c: Comp) -> &[Use] {
        let b = 4 * i + c as usize;
        &self.uses[self.use_start[b] as usize..self.use_start[b + 1] as usize]
    }

    /// Reads of any component written by instruction `i` (grouped by component).
    pub fn uses_of(&self, i: usize) -> &[Use] {
        &self.uses[self.use_start[4 * i] as usize..self.use_start[4 * i + 4] as usize]
    }

    /// Instructions reading a value written by `inst`.
    pub fn users(&self, inst: usize) -> impl Iterator<Item = u32> + '_ {
        self.uses_of(inst).iter().map(|u| u.inst)
    }

    /// Whether the component written by `inst` is live at program end (an output).
    pub fn is_final(&self, inst: usize, comp: Comp) -> Option<Reg> {
        self.final_defs
            .iter()
            .find(|&&(r, c, i)| i as usize == inst && c == comp && r.file.is_output())
            .map(|&(r, _, _)| r)
    }
}

/// Files whose registers are written by instructions (and so have in-program definitions).
pub fn defines_in_program(f: RegFile) -> bool {
    matches!(
        f,
        RegFile::Temp | RegFile::Address | RegFile::Predicate | RegFile::Loop
    ) || f.is_output()
}

/// Appends the register components `inst` reads, each with the destination lanes that need
/// it (definitions are filled in by the caller).
fn push_reads(inst: &hoist_asm::Inst, reads: &mut Vec<Read>) {
    let first = reads.len();
    let info = inst.info();
    let componentwise = info.shape == hoist_asm::ops::Shape::Componentwise
        && !matches!(inst.op, hoist_asm::Op::Sgn | hoist_asm::Op::Swz);
    let lanes_all = if info.has_dst {
        inst.dst_lanes()
    } else {
        WriteMask::ALL
    };
    for (k, s) in inst.src.iter().enumerate() {
        for (reg, lanes) in inst.src_regs(k, lanes_all) {
            if componentwise {
                // Lane l reads component swizzle[l] of the same source.
                for lane in lanes.iter() {
                    let c = s.swizzle.get(lane);
                    match reads[first..]
                        .iter_mut()
                        .find(|r| r.src == k as u8 && r.reg == reg && r.comp == c)
                    {
                        Some(r) => r.lanes = r.lanes.union(WriteMask::single(lane)),
                        None => reads.push(Read {
                            src: k as u8,
                            reg,
                            comp: c,
                            lanes: WriteMask::single(lane),
                            def: None,
                        }),
                    }
                }
                continue;
            }
            for lane in lanes.iter() {
                let need = inst.src_reads(k, WriteMask::single(lane));
                for c in need.iter() {
                    if let Some(r) = reads[first..]
                        .iter_mut()
                        .find(|r| r.src == k as u8 && r.reg == reg && r.comp == c)
                    {
                        r.lanes = r.lanes.union(WriteMask::single(lane));
                        continue;
                    }
                    reads.push(Read {
                        src: k as u8,
                        reg,
                        comp: c,
                        lanes: WriteMask::single(lane),
                        def: None,
                    });
                }
            }
        }
        if let Some(rel) = &s.rel {
            reads.push(Read {
                src: k as u8,
                reg: rel.reg,
                comp: rel.comp,
                lanes: lanes_all,
                def: None,
            });
        }
    }
}

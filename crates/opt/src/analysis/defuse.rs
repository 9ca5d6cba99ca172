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

/// Def-use facts for one program.
#[derive(Clone, Debug, Default)]
pub struct DefUse {
    /// `reads[i]`: register components instruction `i` reads.
    pub reads: Vec<Vec<Read>>,
    /// `uses[i][c]`: reads of component `c` written by instruction `i`.
    pub uses: Vec<[Vec<Use>; 4]>,
    /// Final writes to each (register, component) at program end.
    pub final_defs: Vec<(Reg, Comp, u32)>,
}

/// Why a program cannot be analysed as straight-line code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotStraightLine {
    pub inst: usize,
}

impl DefUse {
    pub fn compute(p: &Program) -> Result<DefUse, NotStraightLine> {
        if let Some(i) = p.insts.iter().position(|i| i.op.is_flow()) {
            return Err(NotStraightLine { inst: i });
        }
        let n = p.insts.len();
        let mut du = DefUse {
            reads: Vec::with_capacity(n),
            uses: (0..n).map(|_| Default::default()).collect(),
            final_defs: Vec::new(),
        };
        // Last writer of each (register, component), kept in a small open-addressed map.
        let mut last: crate::fxhash::FastMap<(Reg, Comp), u32> = Default::default();
        for (i, inst) in p.insts.iter().enumerate() {
            let mut reads = Vec::new();
            let lanes_all = if inst.info().has_dst {
                inst.dst_lanes()
            } else {
                WriteMask::ALL
            };
            for (k, s) in inst.src.iter().enumerate() {
                let rows = if k == 1 {
                    inst.op.matrix_rows().unwrap_or(1)
                } else {
                    1
                };
                for row in 0..rows {
                    // A matrix macro's row r feeds destination lane r.
                    let lanes = if rows > 1 {
                        lanes_all.intersect(WriteMask::single(row))
                    } else {
                        lanes_all
                    };
                    if rows > 1 && lanes.is_empty() {
                        continue;
                    }
                    let reg = Reg::new(s.reg.file, s.reg.index.saturating_add(row as u16));
                    for lane in lanes.iter() {
                        let need = inst.src_reads(k, WriteMask::single(lane));
                        for c in need.iter() {
                            if let Some(r) = reads.iter_mut().find(|r: &&mut Read| {
                                r.src == k as u8 && r.reg == reg && r.comp == c
                            }) {
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
            for r in &mut reads {
                if defines_in_program(r.reg.file) {
                    r.def = last.get(&(r.reg, r.comp)).copied();
                }
            }
            for (ri, r) in reads.iter().enumerate() {
                if let Some(d) = r.def {
                    du.uses[d as usize][r.comp as usize].push(Use {
                        inst: i as u32,
                        read: ri as u32,
                    });
                }
            }
            du.reads.push(reads);
            if let Some(d) = &inst.dst {
                for c in d.mask.iter() {
                    last.insert((d.reg, c), i as u32);
                }
            }
        }
        let mut finals: Vec<_> = last.into_iter().map(|((r, c), i)| (r, c, i)).collect();
        finals.sort();
        du.final_defs = finals;
        Ok(du)
    }

    /// Instructions whose writes reach component `c` of the value `(inst, c)` readers.
    pub fn users(&self, inst: usize) -> impl Iterator<Item = u32> + '_ {
        self.uses[inst]
            .iter()
            .flat_map(|u| u.iter().map(|u| u.inst))
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

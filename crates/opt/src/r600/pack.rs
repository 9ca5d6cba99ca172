//! The bundle packer: ALU ops into VLIW-5 instruction groups, with the R600/R700 rules.
//!
//! - Slots x, y, z, w and t. A vector op takes the slot of the channel it writes, or t;
//!   a trans-only op takes t; DOT4 and CUBE take x, y, z and w together. No two ops of a
//!   group write the same channel of the same register.
//! - A result is not readable in the group that writes it: an op is placed only after the
//!   groups of the ops it reads from (a reader and a later writer may share a group: reads
//!   happen first). The next group reads it through PV (vector slots, by channel) or PS
//!   (t), which takes no GPR read port.
//! - At most 4 distinct literals per group; each pair takes a 64-bit slot of the clause.
//!   The inline constants 0, 1.0, 0.5 (and their negations) are free.
//! - Read ports: a group reads GPRs in 3 cycles, one register per channel per cycle; each
//!   slot's bank swizzle picks the cycle of each operand (6 for vector slots, 4 for t), and
//!   a source 1 equal to source 0 shares its read. The constant file has 4 ports on R600
//!   (one element each) and 2 on R700 (one pair of elements each). The t slot reads at most
//!   2 constants (constant file, literal or inline), and its GPR and PV/PS operands must
//!   then use a cycle at or after the number of constants. The packer searches every
//!   assignment of bank swizzles; a group is closed when none fits.
//!
//! The order is a list schedule in program order: each group takes, from the first
//! [`WINDOW`] unplaced ops of the clause, every one whose operands are ready and that fits.

use super::chip::Chip;
use super::lower::{AluOp, Dest, Operand, Special, Src, Unit, VReg};
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// How many unplaced ops the packer looks at when filling a group.
pub const WINDOW: usize = 128;

/// The slots' names.
pub const SLOT_NAMES: [char; 5] = ['x', 'y', 'z', 'w', 't'];

/// An operand as the group reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Read {
    Src(Operand),
    /// The previous group's vector result in this channel.
    Pv(u8),
    /// The previous group's t result.
    Ps,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RSrc {
    pub read: Read,
    pub neg: bool,
    pub abs: bool,
}

/// One filled slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    /// Index of the op in the lowered program.
    pub node: usize,
    /// For DOT4/CUBE: which lane of the op this slot computes.
    pub lane: u8,
    pub src: SmallVec<[RSrc; 3]>,
    /// The bank swizzle the packer chose (0..6 vector, 0..4 t).
    pub bank: u8,
    /// Whether the slot writes its result to a GPR (or special register).
    pub write: bool,
}

/// One instruction group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub slots: [Option<Placed>; 5],
    /// Distinct literals, in order of use.
    pub literals: Vec<u32>,
}

impl Group {
    pub fn filled(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// 64-bit literal slots the group adds to its clause.
    pub fn literal_slots(&self) -> usize {
        self.literals.len().div_ceil(2)
    }

    /// Instruction slots plus literal slots (what counts against the clause's 128).
    pub fn clause_slots(&self) -> usize {
        self.filled() + self.literal_slots()
    }
}

/// Where each (register, channel) written by the previous group sits: PV channel or PS.
pub type Forward = BTreeMap<(VReg, u8), Read>;

/// The forwarding map of a finished group (`op` gives the op of a node).
pub fn forwards<'a>(group: &Group, op: impl Fn(usize) -> &'a AluOp) -> Forward {
    let mut f = Forward::new();
    for (slot, p) in group.slots.iter().enumerate() {
        let Some(p) = p else { continue };
        let op = op(p.node);
        if let (true, Dest::Gpr(v)) = (p.write, op.dest) {
            let read = if slot == 4 {
                Read::Ps
            } else {
                Read::Pv(slot as u8)
            };
            f.insert((v, p.lane), read);
        }
    }
    f
}

/// The cycle each source reads in, per bank swizzle: vector slots VEC_012 .. VEC_210.
pub const CYCLES: [[u8; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 2, 0],
    [1, 0, 2],
    [2, 0, 1],
    [2, 1, 0],
];

/// The t slot's: SCL_210, SCL_122, SCL_212, SCL_221.
pub const T_CYCLES: [[u8; 3]; 4] = [[2, 1, 0], [1, 2, 2], [2, 1, 2], [2, 2, 1]];

#[derive(Clone, Default)]
struct Ports {
    gpr: [[Option<VReg>; 4]; 3],
    cfile: SmallVec<[(u16, u8); 4]>,
}

impl Ports {
    fn gpr(&mut self, v: VReg, chan: u8, cycle: u8) -> bool {
        let slot = &mut self.gpr[cycle as usize][chan as usize];
        match slot {
            None => {
                *slot = Some(v);
                true
            }
            Some(w) => *w == v,
        }
    }

    fn cfile(&mut self, chip: Chip, index: u16, chan: u8) -> bool {
        let elem = match chip {
            Chip::R600 => chan,
            Chip::R700 => chan / 2,
        };
        if self.cfile.contains(&(index, elem)) {
            return true;
        }
        if self.cfile.len() < chip.cfile_ports() {
            self.cfile.push((index, elem));
            return true;
        }
        false
    }
}

fn is_const(r: &Read) -> bool {
    matches!(
        r,
        Read::Src(Operand::Kcache { .. } | Operand::Literal(_) | Operand::Inline(_))
    )
}

/// Reserves the ports of one slot under bank swizzle `bank`.
fn reserve(ports: &mut Ports, chip: Chip, slot: usize, src: &[RSrc], bank: usize) -> bool {
    let cycles = if slot == 4 {
        T_CYCLES[bank]
    } else {
        CYCLES[bank]
    };
    let consts = if slot == 4 {
        src.iter().filter(|s| is_const(&s.read)).count() as u8
    } else {
        0
    };
    if consts > 2 {
        return false;
    }
    for (i, s) in src.iter().enumerate() {
        match s.read {
            Read::Src(Operand::Gpr(v, c)) => {
                if slot < 4 && i == 1 && src[0].read == s.read {
                    continue;
                }
                if cycles[i] < consts || !ports.gpr(v, c, cycles[i]) {
                    return false;
                }
            }
            Read::Src(Operand::Kcache { index, chan, .. }) if !ports.cfile(chip, index, chan) => {
                return false;
            }
            Read::Pv(_) | Read::Ps if cycles[i] < consts => return false,
            _ => {}
        }
    }
    true
}

/// Finds bank swizzles for every filled slot, or None when the group's reads do not fit.
fn bank_swizzles(slots: &[Option<Placed>; 5], chip: Chip) -> Option<[u8; 5]> {
    fn go(
        slots: &[Option<Placed>; 5],
        chip: Chip,
        at: usize,
        ports: &Ports,
        out: &mut [u8; 5],
    ) -> bool {
        if at == 5 {
            return true;
        }
        let Some(p) = &slots[at] else {
            return go(slots, chip, at + 1, ports, out);
        };
        let choices = if at == 4 { 4 } else { 6 };
        for bank in 0..choices {
            let mut next = ports.clone();
            if reserve(&mut next, chip, at, &p.src, bank) && go(slots, chip, at + 1, &next, out) {
                out[at] = bank as u8;
                return true;
            }
        }
        false
    }
    let mut out = [0u8; 5];
    go(slots, chip, 0, &Ports::default(), &mut out).then_some(out)
}

fn resolve(s: &Src, fwd: &Forward) -> RSrc {
    let read = match s.operand {
        Operand::Gpr(v, c) => fwd.get(&(v, c)).copied().unwrap_or(Read::Src(s.operand)),
        o => Read::Src(o),
    };
    RSrc {
        read,
        neg: s.neg,
        abs: s.abs,
    }
}

/// What an op writes: GPR channels and special registers (keys above the virtual
/// registers).
pub fn writes_of(op: &AluOp) -> SmallVec<[(u32, u8); 4]> {
    match op.dest {
        Dest::Special(s) => {
            let key = match s {
                Special::Address => u32::MAX,
                Special::Loop => u32::MAX - 1,
                Special::Predicate => u32::MAX - 2,
                Special::Other(..) => u32::MAX - 3,
            };
            smallvec::smallvec![(key, op.chan)]
        }
        _ => op.writes(),
    }
}

/// The group being filled.
#[derive(Clone)]
pub struct Filling<'a> {
    pub group: Group,
    chip: Chip,
    fwd: &'a Forward,
    written: SmallVec<[(u32, u8); 8]>,
}

impl<'a> Filling<'a> {
    pub fn new(chip: Chip, fwd: &'a Forward) -> Filling<'a> {
        Filling {
            group: Group::default(),
            chip,
            fwd,
            written: SmallVec::new(),
        }
    }

    /// The slots `op` may take, in order of preference.
    fn candidates(op: &AluOp) -> SmallVec<[usize; 2]> {
        match op.unit {
            Unit::Quad => smallvec::smallvec![0],
            Unit::Trans => smallvec::smallvec![4],
            Unit::Vector => smallvec::smallvec![op.chan as usize],
            Unit::Any => smallvec::smallvec![op.chan as usize, 4],
        }
    }

    /// Places `op` (node `node`) if it fits; returns whether it did.
    pub fn try_place(&mut self, node: usize, op: &AluOp) -> bool {
        let writes = writes_of(op);
        if writes.iter().any(|w| self.written.contains(w)) {
            return false;
        }
        let mut literals = self.group.literals.clone();
        for s in &op.src {
            if let Operand::Literal(bits) = s.operand
                && !literals.contains(&bits)
            {
                literals.push(bits);
            }
        }
        if literals.len() > 4 {
            return false;
        }
        for first in Self::candidates(op) {
            let mut slots = self.group.slots.clone();
            if !self.fill(&mut slots, first, node, op) {
                continue;
            }
            if let Some(banks) = bank_swizzles(&slots, self.chip) {
                for (slot, b) in slots.iter_mut().zip(banks) {
                    if let Some(p) = slot {
                        p.bank = b;
                    }
                }
                self.group.slots = slots;
                self.group.literals = literals;
                self.written.extend(writes);
                return true;
            }
        }
        false
    }

    /// Places `op` into an empty group without the read-port check (an op whose own reads
    /// exceed a group's ports; the driver would split it with a MOV).
    pub fn force(&mut self, node: usize, op: &AluOp) {
        let mut slots = self.group.slots.clone();
        let first = Self::candidates(op)[0];
        if self.fill(&mut slots, first, node, op) {
            self.group.slots = slots;
            for s in &op.src {
                if let Operand::Literal(bits) = s.operand
                    && !self.group.literals.contains(&bits)
                {
                    self.group.literals.push(bits);
                }
            }
            self.written.extend(writes_of(op));
        }
    }

    fn fill(&self, slots: &mut [Option<Placed>; 5], first: usize, node: usize, op: &AluOp) -> bool {
        if op.unit == Unit::Quad {
            if slots[..4].iter().any(Option::is_some) {
                return false;
            }
            for lane in 0..4u8 {
                let l = lane as usize;
                let src = op.src[2 * l..2 * l + 2]
                    .iter()
                    .map(|s| resolve(s, self.fwd))
                    .collect();
                slots[l] = Some(Placed {
                    node,
                    lane,
                    src,
                    bank: 0,
                    write: op.mask & 1 << lane != 0,
                });
            }
            return true;
        }
        if slots[first].is_some() {
            return false;
        }
        slots[first] = Some(Placed {
            node,
            lane: op.chan,
            src: op.src.iter().map(|s| resolve(s, self.fwd)).collect(),
            bank: 0,
            write: op.dest != Dest::None,
        });
        true
    }
}

/// One clause (or control-flow instruction) of the program.
#[derive(Clone, Debug, PartialEq)]
pub enum Clause {
    Alu(Vec<Group>),
    /// Fetches, as indices into [`Lowered::nodes`].
    Tex(Vec<usize>),
    Flow(&'static str),
}

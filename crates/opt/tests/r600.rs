//! The R600 machine model (`hoist_opt::r600`).
//!
//! - Filetests with expected bundles, one per packing rule: `tests/filetests/r600/*.test`
//!   (`; test r600 chip=r600|r700`, `=== program`, `=== expected`; `BLESS=1 cargo test -p
//!   hoist-opt --test r600` rewrites the expected sections).
//! - Every op either parser accepts lowers (enumerated from `Op::all`).
//! - Generated programs of both dialects and stages, on both chips, obey every rule, checked
//!   here independently of the packer: each op scheduled once, slots, dependences, PV/PS,
//!   literals, the recorded bank swizzles against the read ports, clause limits, and the GPR
//!   allocation by executing the schedule symbolically.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ir::{
    Dst, ExtSel, ExtSwizzle, Inst, Reg, RegFile, Src, TexRef, TexTarget, WriteMask,
};
use hoist_asm::{Op, ParseOptions, Profile, Program};
use hoist_opt::r600::lower::{Dest, Node, Operand, Unit};
use hoist_opt::r600::pack::Read;
use hoist_opt::r600::{self, Chip, Clause, Machine};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[path = "../../../tests/support/golden.rs"]
mod golden;

fn parse(text: &str) -> Program {
    match hoist_asm::parse(text, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => panic!("does not parse: {d:?}\n{text}"),
    }
}

/// What a filetest prints: the listing, the figures, the notes.
fn describe(m: &Machine) -> String {
    let s = &m.stats;
    let mut out = r600::stats::listing(m);
    out.push_str(&format!(
        "groups {} slots {} literal-slots {} fetches {} components {} gprs {} clauses {}\n",
        s.alu_groups,
        s.slots_filled,
        s.literal_slots,
        s.fetches,
        s.fetch_components,
        s.gprs,
        s.clauses
    ));
    for n in &m.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

fn run_filetest(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let (head, rest) = text.split_once("=== program\n").expect("a program section");
    let (program, _) = rest.split_once("=== expected\n").unwrap_or((rest, ""));
    let chip = head
        .lines()
        .find_map(|l| l.strip_prefix("; test r600"))
        .and_then(|l| l.trim().strip_prefix("chip="))
        .and_then(Chip::from_id)
        .unwrap_or(Chip::R600);
    let m = r600::compile(&parse(program), chip);
    check_rules(&m).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let got = format!("{head}=== program\n{program}=== expected\n{}", describe(&m));
    golden::check(path, &got, "cargo test -p hoist-opt --test r600");
}

#[test]
fn filetests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests/r600");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "test"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the rules' filetests are missing");
    for f in files {
        run_filetest(&f);
    }
}

/// One instruction of `op` with temporaries as operands, in a profile that has it.
fn one_op(op: Op) -> Option<Program> {
    let profile = Profile::ALL.into_iter().find(|p| p.has(op))?;
    let info = op.info();
    let mut p = Program::new(profile);
    p.num_temps = 8;
    let srcs = (0..info.srcs).map(|i| Src::new(Reg::new(RegFile::Temp, 1 + i as u16)));
    let dst = info
        .has_dst
        .then(|| Dst::new(Reg::new(RegFile::Temp, 0), WriteMask::ALL));
    let mut inst = Inst::new(op, dst, srcs);
    if op.is_texture() {
        inst.tex = Some(TexRef {
            unit: 0,
            target: TexTarget::T2D,
        });
    }
    if op == Op::Swz {
        inst.ext_swizzle = Some(ExtSwizzle {
            sel: [ExtSel::Comp(1), ExtSel::Zero, ExtSel::One, ExtSel::Comp(0)],
            neg: [false, true, false, false],
        });
    }
    if matches!(op, Op::Mova | Op::Arl) {
        inst.dst = Some(Dst::new(Reg::new(RegFile::Address, 0), WriteMask::X));
    }
    if matches!(op, Op::Setp(_)) {
        inst.dst = Some(Dst::new(Reg::new(RegFile::Predicate, 0), WriteMask::ALL));
    }
    // Results must be read, or the lowering drops them as dead: write an output.
    if let Some(d) = &mut inst.dst
        && d.reg.file == RegFile::Temp
    {
        d.reg = Reg::new(RegFile::ColorOut, 0);
        if profile.stage() == hoist_asm::Stage::Vertex {
            d.reg = Reg::new(RegFile::TexCrdOut, 0);
        }
    }
    p.insts.push(inst);
    Some(p)
}

#[test]
fn every_op_of_both_parsers_lowers() {
    let mut seen = 0;
    for op in Op::all() {
        let info = op.info();
        if info.arb.is_none() && info.d3d.is_none() {
            continue;
        }
        // Ops no profile offers (`cnd` is ps_1_x only) are not accepted by either parser.
        let Some(p) = one_op(op) else { continue };
        for chip in Chip::ALL {
            let m = r600::compile(&p, chip);
            check_rules(&m).unwrap_or_else(|e| panic!("{op:?} on {chip}: {e}"));
            let (alu, fetch, flow) =
                m.lowered
                    .nodes
                    .iter()
                    .fold((0, 0, 0), |(a, f, c), n| match n {
                        Node::Alu(_) => (a + 1, f, c),
                        Node::Fetch(_) => (a, f + 1, c),
                        Node::Flow(..) => (a, f, c + 1),
                    });
            let ok = match op {
                Op::Nop => alu + fetch + flow == 0,
                _ if op.is_flow() => flow == 1,
                _ if op.is_texture() || matches!(op, Op::Dsx | Op::Dsy) => fetch >= 1,
                _ => alu >= 1 && fetch == 0,
            };
            assert!(
                ok,
                "{op:?} on {chip}: {alu} ALU ops, {fetch} fetches, {flow} flow"
            );
        }
        seen += 1;
    }
    assert!(seen > 60, "only {seen} ops enumerated");
}

/// The lowering facts, on single instructions.
#[test]
fn lowering_shapes() {
    let count = |op: Op| {
        let m = r600::compile(&one_op(op).unwrap(), Chip::R600);
        let mut names = Vec::new();
        for n in &m.lowered.nodes {
            if let Node::Alu(a) = n {
                names.push((a.opcode, a.unit));
            }
        }
        (names, m.stats.alu_groups)
    };
    let (dp3, g) = count(Op::Dp3);
    assert_eq!(dp3, [("DOT4", Unit::Quad)]);
    assert_eq!(g, 1);
    let (pow, g) = count(Op::Pow);
    let pow_ops: Vec<_> = pow.iter().map(|p| p.0).collect();
    assert_eq!(&pow_ops[..3], ["LOG_IEEE", "MUL", "EXP_IEEE"]);
    assert!(g >= 3, "POW takes 3 groups, got {g}");
    let (lrp, _) = count(Op::Lrp);
    assert_eq!(lrp.len(), 8, "LRP is 2 ops per lane");
    let (scs, _) = count(Op::Scs);
    let trans: Vec<_> = scs
        .iter()
        .filter(|p| p.1 == Unit::Trans)
        .map(|p| p.0)
        .collect();
    assert_eq!(trans, ["COS", "SIN"]);
    for op in [Op::Rcp, Op::Rsq, Op::Ex2, Op::Lg2, Op::Sin, Op::Cos] {
        let (ops, _) = count(op);
        assert!(
            ops.iter().any(|p| p.1 == Unit::Trans),
            "{op:?} is trans-only"
        );
    }
    let (mad, _) = count(Op::Mad);
    assert!(mad.iter().all(|p| p.0 == "MULADD"));
}

type Pos = (usize, usize);

/// Where each node was scheduled: (clause, group or fetch index).
fn positions(m: &Machine) -> Result<Vec<Pos>, String> {
    let mut pos: Vec<Option<Pos>> = vec![None; m.lowered.nodes.len()];
    let mut set = |n: usize, p: Pos| -> Result<(), String> {
        match pos[n] {
            Some(q) if q != p => Err(format!("node {n} scheduled twice: {q:?} and {p:?}")),
            _ => {
                pos[n] = Some(p);
                Ok(())
            }
        }
    };
    let mut flow = 0;
    for (k, c) in m.clauses.iter().enumerate() {
        match c {
            Clause::Alu(groups) => {
                for (g, grp) in groups.iter().enumerate() {
                    for p in grp.slots.iter().flatten() {
                        set(p.node, (k, g))?;
                    }
                }
            }
            Clause::Tex(f) => {
                for (i, &n) in f.iter().enumerate() {
                    set(n, (k, i))?;
                }
            }
            Clause::Flow(_) => {
                let n = m
                    .lowered
                    .nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| matches!(n, Node::Flow(..)))
                    .nth(flow)
                    .map(|(i, _)| i)
                    .ok_or("a flow clause without its instruction")?;
                flow += 1;
                set(n, (k, 0))?;
            }
        }
    }
    pos.into_iter()
        .enumerate()
        .map(|(i, p)| {
            p.ok_or(format!(
                "node {i} ({:?}) never scheduled",
                m.lowered.nodes[i]
            ))
        })
        .collect()
}

type Loc = (u32, u8);

fn node_reads(n: &Node) -> Vec<Loc> {
    match n {
        Node::Alu(a) => a.reads().collect(),
        Node::Fetch(f) => (0..4)
            .filter(|c| f.chans & 1 << c != 0)
            .map(|c| (f.coord, c))
            .collect(),
        Node::Flow(..) => vec![],
    }
}

fn node_writes(n: &Node) -> Vec<Loc> {
    match n {
        Node::Alu(a) => a.writes().into_vec(),
        Node::Fetch(f) => match f.dst {
            Some(v) => (0..4)
                .filter(|c| f.mask & 1 << c != 0)
                .map(|c| (v, c))
                .collect(),
            None => vec![],
        },
        Node::Flow(..) => vec![],
    }
}

/// Program-order dependences are kept: a reader after its writer (a later group, or a
/// later clause for a fetch reading a fetch), an overwrite not before a read.
fn check_order(m: &Machine, pos: &[Pos]) -> Result<(), String> {
    let mut last: BTreeMap<Loc, usize> = BTreeMap::new();
    let mut readers: BTreeMap<Loc, Vec<usize>> = BTreeMap::new();
    for (i, n) in m.lowered.nodes.iter().enumerate() {
        for l in node_reads(n) {
            if let Some(&w) = last.get(&l) {
                let fetch_pair =
                    matches!(n, Node::Fetch(_)) && matches!(m.lowered.nodes[w], Node::Fetch(_));
                let ok = if fetch_pair {
                    pos[w].0 < pos[i].0
                } else {
                    pos[w] < pos[i]
                };
                if !ok {
                    return Err(format!(
                        "node {i} reads {l:?} at {:?}, written at {:?}",
                        pos[i], pos[w]
                    ));
                }
            }
            readers.entry(l).or_default().push(i);
        }
        for l in node_writes(n) {
            if let Some(&w) = last.get(&l)
                && pos[w] >= pos[i]
            {
                return Err(format!(
                    "node {i} overwrites {l:?} at {:?} before {:?}",
                    pos[i], pos[w]
                ));
            }
            for r in readers.remove(&l).unwrap_or_default() {
                if r != i && pos[r] > pos[i] {
                    return Err(format!(
                        "node {i} overwrites {l:?} before node {r} reads it"
                    ));
                }
            }
            last.insert(l, i);
        }
    }
    Ok(())
}

/// The ISA's bank swizzles: VEC_012 .. VEC_210, then the t slot's SCL_210 .. SCL_221.
const CYCLES: [[u8; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 2, 0],
    [1, 0, 2],
    [2, 0, 1],
    [2, 1, 0],
];
const T_CYCLES: [[u8; 3]; 4] = [[2, 1, 0], [1, 2, 2], [2, 1, 2], [2, 2, 1]];

/// The recorded bank swizzles respect the read ports (3 cycles × 4 channels, the
/// constant-file ports, the t slot's constant rule).
fn check_ports(chip: Chip, g: &hoist_opt::r600::pack::Group) -> Result<(), String> {
    let mut gpr: BTreeMap<(u8, u8), u32> = BTreeMap::new();
    let mut cfile: BTreeSet<(u16, u8)> = BTreeSet::new();
    for (slot, p) in g.slots.iter().enumerate() {
        let Some(p) = p else { continue };
        if (slot == 4 && p.bank > 3) || p.bank > 5 {
            return Err(format!("slot {slot} has bank swizzle {}", p.bank));
        }
        let is_const = |r: &Read| {
            matches!(
                r,
                Read::Src(Operand::Kcache { .. } | Operand::Literal(_) | Operand::Inline(_))
            )
        };
        let consts = if slot == 4 {
            p.src.iter().filter(|s| is_const(&s.read)).count() as u8
        } else {
            0
        };
        if consts > 2 {
            return Err("t reads more than 2 constants".into());
        }
        for (i, s) in p.src.iter().enumerate() {
            let cycle = if slot == 4 {
                T_CYCLES[p.bank as usize][i]
            } else {
                CYCLES[p.bank as usize][i]
            };
            match s.read {
                Read::Src(Operand::Gpr(v, c)) => {
                    if slot < 4 && i == 1 && p.src[0].read == s.read {
                        continue;
                    }
                    if cycle < consts {
                        return Err("t reads a GPR in a constant's cycle".into());
                    }
                    if *gpr.entry((cycle, c)).or_insert(v) != v {
                        return Err(format!("two GPRs read in cycle {cycle} channel {c}"));
                    }
                }
                Read::Src(Operand::Kcache { index, chan, .. }) => {
                    cfile.insert(match chip {
                        Chip::R600 => (index, chan),
                        Chip::R700 => (index, chan / 2),
                    });
                }
                Read::Pv(_) | Read::Ps if cycle < consts => {
                    return Err("t reads PV/PS in a constant's cycle".into());
                }
                _ => {}
            }
        }
    }
    if cfile.len() > chip.cfile_ports() {
        return Err(format!("{} constant-file reads in a group", cfile.len()));
    }
    Ok(())
}

/// Slots, literals, PV/PS and ports of every group; clause limits.
fn check_groups(m: &Machine, forced: bool) -> Result<(), String> {
    for c in &m.clauses {
        match c {
            Clause::Tex(f) if f.len() > m.chip.max_fetches() => {
                return Err(format!("{} fetches in a TEX clause", f.len()));
            }
            Clause::Alu(groups) => {
                let slots: usize = groups.iter().map(|g| g.clause_slots()).sum();
                if slots > 128 {
                    return Err(format!("an ALU clause of {slots} slots"));
                }
                let mut prev: BTreeMap<Loc, Read> = BTreeMap::new();
                for g in groups {
                    check_group(m, g, &prev, forced)?;
                    if !forced {
                        check_ports(m.chip, g)?;
                    }
                    prev.clear();
                    for (slot, p) in g.slots.iter().enumerate() {
                        let Some(p) = p else { continue };
                        if let (true, Some(Dest::Gpr(v))) = (p.write, m.alu(p.node).map(|a| a.dest))
                        {
                            prev.insert(
                                (v, p.lane),
                                if slot == 4 {
                                    Read::Ps
                                } else {
                                    Read::Pv(slot as u8)
                                },
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_group(
    m: &Machine,
    g: &hoist_opt::r600::pack::Group,
    prev: &BTreeMap<Loc, Read>,
    forced: bool,
) -> Result<(), String> {
    let mut lits = BTreeSet::new();
    let mut written = BTreeSet::new();
    for (slot, p) in g.slots.iter().enumerate() {
        let Some(p) = p else { continue };
        let a = m.alu(p.node).ok_or("a fetch in an ALU group")?;
        let ok = match a.unit {
            Unit::Quad => slot < 4 && p.lane as usize == slot,
            Unit::Trans => slot == 4,
            Unit::Vector => slot == a.chan as usize,
            Unit::Any => slot == 4 || slot == a.chan as usize,
        };
        if !ok {
            return Err(format!(
                "{} ({:?}, channel {}) in slot {slot}",
                a.opcode, a.unit, a.chan
            ));
        }
        let orig: Vec<_> = if a.unit == Unit::Quad {
            a.src[2 * slot..2 * slot + 2].to_vec()
        } else {
            a.src.to_vec()
        };
        for (s, r) in orig.iter().zip(&p.src) {
            if let Operand::Literal(b) = s.operand {
                lits.insert(b);
            }
            let want = match s.operand {
                Operand::Gpr(v, c) => prev.get(&(v, c)).copied().unwrap_or(Read::Src(s.operand)),
                o => Read::Src(o),
            };
            if r.read != want {
                return Err(format!(
                    "{}: source {:?} read as {:?}, want {want:?}",
                    a.opcode, s.operand, r.read
                ));
            }
        }
        if p.write
            && let Dest::Gpr(v) = a.dest
            && !written.insert((v, p.lane))
        {
            return Err("two writes of one channel in a group".into());
        }
    }
    if (lits.len() > 4 && !forced) || lits.len() != g.literals.len() {
        return Err(format!(
            "{} literals in a group (recorded {})",
            lits.len(),
            g.literals.len()
        ));
    }
    Ok(())
}

/// Executes the schedule on the allocated GPRs symbolically: every read finds the value of
/// the register it means, every output ends in its GPR.
fn check_allocation(m: &Machine, pos: &[Pos]) -> Result<(), String> {
    let gpr = |v: u32| m.gpr.get(v as usize).copied().flatten();
    let mut holder: BTreeMap<(u16, u8), u32> = BTreeMap::new();
    for &v in &m.lowered.inputs {
        if let Some(r) = gpr(v) {
            for c in 0..4 {
                holder.insert((r, c), v);
            }
        }
    }
    let mut order: Vec<usize> = (0..pos.len()).collect();
    order.sort_by_key(|&i| (pos[i], i));
    let mut defined: BTreeSet<Loc> = m
        .lowered
        .inputs
        .iter()
        .flat_map(|&v| (0..4).map(move |c| (v, c)))
        .collect();
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j < order.len() && pos[order[j]] == pos[order[i]] {
            j += 1;
        }
        let step = &order[i..j];
        for &n in step {
            for (v, c) in node_reads(&m.lowered.nodes[n]) {
                if !defined.contains(&(v, c)) {
                    continue;
                }
                let r = gpr(v).ok_or(format!("register {v} read without a GPR"))?;
                if holder.get(&(r, c)) != Some(&v) {
                    return Err(format!(
                        "node {n} reads register {v}.{c} from R{r}, which holds {:?}",
                        holder.get(&(r, c))
                    ));
                }
            }
        }
        for &n in step {
            for (v, c) in node_writes(&m.lowered.nodes[n]) {
                let r = gpr(v).ok_or(format!("register {v} written without a GPR"))?;
                holder.insert((r, c), v);
                defined.insert((v, c));
            }
        }
        i = j;
    }
    for &v in &m.lowered.outputs {
        for c in 0..4 {
            if defined.contains(&(v, c)) && holder.get(&(gpr(v).unwrap_or(u16::MAX), c)) != Some(&v)
            {
                return Err(format!("output register {v}.{c} overwritten"));
            }
        }
    }
    Ok(())
}

fn check_stats(m: &Machine) -> Result<(), String> {
    let s = &m.stats;
    let unit = |x: f64| (0.0..=1.0).contains(&x);
    if !unit(s.slot_utilization) || !unit(s.fetch_utilization) {
        return Err(format!("utilisation out of range: {s:?}"));
    }
    if s.slots_filled > 5 * s.alu_groups || s.fetch_components > 4 * s.fetches {
        return Err(format!("more filled than there is: {s:?}"));
    }
    Ok(())
}

fn check_rules(m: &Machine) -> Result<(), String> {
    let pos = positions(m)?;
    check_order(m, &pos)?;
    let forced = m.notes.iter().any(|n| n.contains("than a group has"));
    check_groups(m, forced)?;
    check_allocation(m, &pos)?;
    check_stats(m)
}

#[test]
fn generated_programs_obey_every_rule() {
    use hoist_verify::generate::{Flavor, pair};
    let n: u64 = std::env::var("R600_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    let mut programs = 0;
    for seed in 0..n {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = pair(seed, flavor);
            for text in [&p.vp, &p.fp] {
                let prog = parse(text);
                for chip in Chip::ALL {
                    let m = r600::compile(&prog, chip);
                    check_rules(&m).unwrap_or_else(|e| {
                        panic!(
                            "{} on {chip}: {e}\n{text}\n{}",
                            p.label,
                            r600::stats::listing(&m)
                        )
                    });
                }
                programs += 1;
            }
        }
    }
    assert_eq!(programs, 4 * n);
}

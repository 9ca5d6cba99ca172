//! The printed forms of a [`Machine`]: a ShaderAnalyzer-like report of its figures
//! ([`super::figures`]) and the bundled listing with slot letters.

use super::chip::Chip;
use super::clause::{Clause, Machine};
pub use super::figures::{Bottleneck, Stats};
use super::lower::{Dest, Inline, Node, Operand, Special};
use super::pack::{RSrc, Read, SLOT_NAMES};
use std::fmt::Write;

fn chip_name(c: Chip) -> &'static str {
    match c {
        Chip::R600 => "R600 (RV670, Radeon HD 3870)",
        Chip::R700 => "R700 (RV770, Radeon HD 4870)",
    }
}

/// A ShaderAnalyzer-like report: the figures, then the notes.
pub fn report(m: &Machine) -> String {
    let s = &m.stats;
    let mut out = String::new();
    let stage = match m.stage {
        hoist_asm::Stage::Vertex => "vertex",
        hoist_asm::Stage::Fragment => "pixel",
    };
    let _ = writeln!(out, "; {} {stage} shader", chip_name(m.chip));
    let _ = writeln!(
        out,
        "Number of instructions: {} ALU, {} TEX",
        s.alu_groups, s.fetches
    );
    let _ = writeln!(
        out,
        "ALU slots: {} of {} ({:.1}%), literal slots {}",
        s.slots_filled,
        5 * s.alu_groups,
        100.0 * s.slot_utilization,
        s.literal_slots
    );
    let _ = writeln!(
        out,
        "Fetch components: {} of {} ({:.1}%)",
        s.fetch_components,
        4 * s.fetches,
        100.0 * s.fetch_utilization
    );
    let r = s
        .alu_fetch_ratio
        .map_or("- (no fetches)".into(), |r| format!("{r:.2}"));
    let _ = writeln!(out, "ALU:Fetch ratio: {r}");
    let _ = writeln!(
        out,
        "Temp registers used: {} (GPRs); {} wavefronts ({} threads) per SIMD from a pool of {}",
        s.gprs,
        s.wavefronts,
        s.threads,
        m.chip.gpr_pool(m.stage)
    );
    let _ = writeln!(
        out,
        "Clauses: {} ({} ALU, {} TEX), {} flow-control",
        s.clauses, s.alu_clauses, s.tex_clauses, s.flow_instructions
    );
    let b = match s.bottleneck {
        Bottleneck::Alu => "ALU ops",
        Bottleneck::Fetch => "fetches",
        Bottleneck::None => "none",
    };
    let _ = writeln!(
        out,
        "Estimated cycles per wavefront: {} (ALU {}, fetch {}); bottleneck: {b}",
        s.estimated_cycles, s.alu_cycles, s.fetch_cycles
    );
    for n in &m.notes {
        let _ = writeln!(out, "Note (counts are lower bounds): {n}");
    }
    out
}

fn chan(c: u8) -> char {
    ['x', 'y', 'z', 'w'][c as usize & 3]
}

fn gpr(m: &Machine, v: u32) -> String {
    match m.gpr.get(v as usize).copied().flatten() {
        Some(g) => format!("R{g}"),
        None => "R?".into(),
    }
}

fn special(s: Special) -> String {
    match s {
        Special::Address => "AR".into(),
        Special::Loop => "aL".into(),
        Special::Predicate => "P0".into(),
        Special::Other(f, i) => format!("{f:?}{i}"),
    }
}

fn operand(m: &Machine, o: Operand) -> String {
    match o {
        Operand::Gpr(v, c) => format!("{}.{}", gpr(m, v), chan(c)),
        Operand::Kcache {
            index,
            chan: c,
            rel,
        } => match rel {
            true => format!("C[AR+{index}].{}", chan(c)),
            false => format!("C{index}.{}", chan(c)),
        },
        Operand::Literal(bits) => format!("{}f", f32::from_bits(bits)),
        Operand::Inline(Inline::Zero) => "0.0".into(),
        Operand::Inline(Inline::One) => "1.0".into(),
        Operand::Inline(Inline::Half) => "0.5".into(),
        Operand::Special(sp, c) => format!("{}.{}", special(sp), chan(c)),
    }
}

fn source(m: &Machine, s: &RSrc) -> String {
    let body = match s.read {
        Read::Src(o) => operand(m, o),
        Read::Pv(c) => format!("PV.{}", chan(c)),
        Read::Ps => "PS".into(),
    };
    let body = if s.abs { format!("|{body}|") } else { body };
    if s.neg { format!("-{body}") } else { body }
}

fn alu_line(m: &Machine, slot: usize, p: &super::pack::Placed) -> String {
    let Some(op) = m.alu(p.node) else {
        return String::new();
    };
    let dst = match (p.write, op.dest) {
        (true, Dest::Gpr(v)) => format!("{}.{}", gpr(m, v), chan(p.lane)),
        (true, Dest::Special(s)) => format!("{}.{}", special(s), chan(p.lane)),
        _ => "____".into(),
    };
    let srcs: Vec<String> = p.src.iter().map(|s| source(m, s)).collect();
    let clamp = if op.clamp { " CLAMP" } else { "" };
    format!(
        "{}: {:<15}{}, {}{clamp}",
        SLOT_NAMES[slot],
        op.opcode,
        dst,
        srcs.join(", ")
    )
}

/// The bundled listing: clauses, groups with their slot letters, fetches.
pub fn listing(m: &Machine) -> String {
    let mut out = String::new();
    let mut n = 0;
    for (k, c) in m.clauses.iter().enumerate() {
        match c {
            Clause::Alu(groups) => {
                let slots: usize = groups.iter().map(|g| g.clause_slots()).sum();
                let count = groups.len();
                let _ = writeln!(
                    out,
                    "{k:02} ALU: {count} group{}, {slots} slot{}",
                    if count == 1 { "" } else { "s" },
                    if slots == 1 { "" } else { "s" }
                );
                for g in groups {
                    let mut first = true;
                    for (slot, p) in g.slots.iter().enumerate() {
                        let Some(p) = p else { continue };
                        let num = if first {
                            format!("{n:>4}")
                        } else {
                            "    ".into()
                        };
                        first = false;
                        let _ = writeln!(out, "  {num}  {}", alu_line(m, slot, p));
                    }
                    if !g.literals.is_empty() {
                        let l: Vec<String> = g
                            .literals
                            .iter()
                            .map(|b| format!("{}f", f32::from_bits(*b)))
                            .collect();
                        let _ = writeln!(out, "        literals: {}", l.join(", "));
                    }
                    n += 1;
                }
            }
            Clause::Tex(fetches) => {
                let count = fetches.len();
                let _ = writeln!(
                    out,
                    "{k:02} TEX: {count} fetch{}",
                    if count == 1 { "" } else { "es" }
                );
                for &f in fetches {
                    if let Node::Fetch(f) = &m.lowered.nodes[f] {
                        let mask: String = (0..4)
                            .map(|c| if f.mask & 1 << c != 0 { chan(c) } else { '_' })
                            .collect();
                        let dst = f
                            .dst
                            .map_or("____".into(), |v| format!("{}.{mask}", gpr(m, v)));
                        let swz: String = f.swizzle.iter().map(|&c| chan(c)).collect();
                        let _ = writeln!(
                            out,
                            "  {n:>4}  {:<15}{dst}, {}.{swz}, t{}",
                            f.opcode,
                            gpr(m, f.coord),
                            f.unit
                        );
                    }
                    n += 1;
                }
            }
            Clause::Flow(name) => {
                let _ = writeln!(out, "{k:02} CF: {name}");
            }
        }
    }
    out
}

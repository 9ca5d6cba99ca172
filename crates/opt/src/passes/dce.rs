//! Dead-code elimination, per component.
//!
//! Walks backwards keeping the set of live (register, component) pairs; an instruction
//! whose written components are all dead and which has no side effect (kill) is removed,
//! when `removable` allows it. Outputs are live when `live_out` says so: fragment colour and
//! depth always; a vertex interpolant only when the fragment program still reads it. That is
//! what removes interpolators that became unused after motion. Removing an instruction whose
//! results nobody reads cannot change any output, except which output registers exist,
//! which decides what an unwritten interpolant reads: a write holding such a register the
//! fragment program reads stays (`analysis::presence`).

use crate::analysis::defuse::{DefUse, defines_in_program};
use crate::analysis::presence;
use crate::fxhash::FastSet as HashSet;
use crate::tracked::{Line, Tracked};
use hoist_asm::ir::{Comp, Program, Reg, RegFile, Semantic};

/// Returns whether anything was removed.
pub fn run(
    t: &mut Tracked,
    live_out: &dyn Fn(Reg, Comp) -> bool,
    removable: &dyn Fn(&Line) -> bool,
) -> bool {
    let Ok(du) = DefUse::compute(&t.program) else {
        return false;
    };
    let mut live: HashSet<(Reg, Comp)> = HashSet::default();
    // Output components a later instruction writes again: an earlier write of them is dead
    // (outputs are write-only; the last write is what leaves the program).
    let mut overwritten: HashSet<(Reg, Comp)> = HashSet::default();
    let mut dead = vec![false; t.program.insts.len()];
    for i in (0..t.program.insts.len()).rev() {
        let inst = &t.program.insts[i];
        let side_effect = inst.op.is_kill() || inst.op.is_flow();
        let needed = match &inst.dst {
            None => true,
            Some(d) => {
                side_effect
                    || d.rel.is_some()
                    || d.mask.iter().any(|c| {
                        if d.reg.file.is_output() {
                            (live_out(d.reg, c) && !overwritten.contains(&(d.reg, c)))
                                || live.contains(&(d.reg, c))
                        } else {
                            live.contains(&(d.reg, c)) || !defines_in_program(d.reg.file)
                        }
                    })
            }
        };
        if !needed && removable(&t.lines[i]) {
            dead[i] = true;
            continue;
        }
        if let Some(d) = &inst.dst
            && d.rel.is_none()
            && !inst.op.is_flow()
            && inst.pred.is_none()
        {
            for c in d.mask.iter() {
                live.remove(&(d.reg, c));
                if d.reg.file.is_output() {
                    overwritten.insert((d.reg, c));
                }
            }
        }
        for r in du.reads(i) {
            live.insert((r.reg, r.comp));
        }
    }
    let any = dead.iter().any(|&d| d);
    if any {
        t.retain(|i| !dead[i]);
    }
    any
}

/// Vertex outputs still needed when `fp` is the fragment program: non-interpolant outputs
/// always, interpolants (texture coordinates, colours, generic outputs) when `fp` reads
/// that component of their semantic, and one write holding each output register whose
/// unwritten `w` `fp` reads ([`presence::keeper`]).
pub fn interpolants_read(vp: &Program, fp: &Program) -> impl Fn(Reg, Comp) -> bool + use<> {
    let mut read: Vec<(Semantic, Comp)> = Vec::new();
    for inst in &fp.insts {
        let lanes = if inst.info().has_dst {
            inst.dst_lanes()
        } else {
            hoist_asm::WriteMask::ALL
        };
        for (k, s) in inst.src.iter().enumerate() {
            if let Some(sem) = fp.semantic(s.reg) {
                for c in inst.src_reads(k, lanes).iter() {
                    read.push((sem, c));
                }
            }
        }
    }
    let io: Vec<(Reg, Option<Semantic>)> =
        vp.io.iter().map(|d| (d.reg, Some(d.semantic))).collect();
    let read_live = move |reg: Reg, c: Comp| {
        let sem = io
            .iter()
            .find(|(r, _)| *r == reg)
            .and_then(|(_, s)| *s)
            .or(match reg.file {
                RegFile::TexCrdOut => Some(Semantic::TexCoord(reg.index as u8)),
                RegFile::AttrOut if reg.index < 2 => Some(Semantic::Color(reg.index as u8)),
                _ => None,
            });
        match sem {
            Some(s @ (Semantic::TexCoord(_) | Semantic::Color(_) | Semantic::Generic(_))) => {
                read.contains(&(s, c))
            }
            _ => true,
        }
    };
    // Writes that keep an unwritten register the fragment program reads in the program
    // (`analysis::presence`): without them its `w` would read 1 instead of 0.
    let keepers: Vec<(Reg, Comp)> = presence::needs(vp, fp)
        .into_iter()
        .filter_map(|n| presence::keeper(vp, n, &read_live))
        .collect();
    move |reg: Reg, c: Comp| read_live(reg, c) || keepers.contains(&(reg, c))
}

//! Legalisation of moved vertex code against the profile's operand rules.
//!
//! Fragment instructions may read several constant registers at once, but some vertex
//! profiles allow fewer per instruction (vs_1_1 reads one constant register; ARB vertex
//! programs one program parameter). When the profile's rules reject the program, each added
//! or moved instruction that reads more than one distinct constant register gets its extra
//! constants copied into fresh temporaries first. A copy does not change any value.

use crate::tracked::{AddedFor, Line, Tracked};
use hoist_asm::ir::{Dst, Inst, Program, Reg, RegFile, Src, WriteMask};
use hoist_asm::ops::Op;
use hoist_asm::profile::Limits;

fn rules_ok(p: &Program, limits: &Limits) -> bool {
    let d = match p.dialect() {
        hoist_asm::Dialect::Arb => hoist_asm::arb::check_rules(p, limits),
        hoist_asm::Dialect::D3d9 => hoist_asm::d3d9::check_rules(p, limits),
    };
    !d.iter().any(|d| d.is_error())
}

/// Returns whether anything changed.
pub fn run(t: &mut Tracked, limits: &Limits) -> bool {
    if rules_ok(&t.program, limits) {
        return false;
    }
    let mut out = Tracked {
        program: t.program.clone(),
        lines: Vec::new(),
    };
    out.program.insts.clear();
    let mut next_temp = t.program.num_temps;
    let mut changed = false;
    for (inst, line) in t.program.insts.iter().zip(&t.lines) {
        let mut inst = inst.clone();
        let mut line = *line;
        if !line.is_original() {
            let mut seen: Vec<u16> = Vec::new();
            for k in 0..inst.src.len() {
                let s = &inst.src[k];
                if s.reg.file != RegFile::Const
                    || s.rel.is_some()
                    || inst.op.matrix_rows().is_some() && k == 1
                {
                    continue;
                }
                if seen.is_empty() || seen.contains(&s.reg.index) {
                    seen.push(s.reg.index);
                    continue;
                }
                if next_temp >= limits.temps {
                    break;
                }
                let t_reg = Reg::new(RegFile::Temp, next_temp);
                next_temp += 1;
                out.push(
                    Inst::new(
                        Op::Mov,
                        Some(Dst::new(t_reg, WriteMask::ALL)),
                        [Src::new(s.reg)],
                    ),
                    Line::added(AddedFor::Legalize, None),
                );
                let s = &mut inst.src[k];
                s.reg = t_reg;
                s.name = None;
                line.mark_src(k);
                changed = true;
            }
        }
        out.push(inst, line);
    }
    if changed {
        for i in t.program.num_temps..next_temp {
            crate::edit::ensure_temp(&mut out.program, i);
        }
        *t = out;
    }
    changed
}

//! Fresh destinations for texture reads, to respect ps_2_0's dependent-read limit.
//!
//! Without the `NODEPENDENTREADLIMIT` cap, a ps_2_0 texture instruction may be dependent to
//! at most third order, where a read is first-order when its coordinate is `r#` *or its
//! destination register was written before*, and each texture result that flows into the
//! registers it reads or writes adds an order (Microsoft, "texld - ps_2_0 and up"). Motion
//! can raise orders: the moved code often included the full-width writes that used to cut
//! the chain between consecutive reads into one register.
//!
//! This pass walks the texture reads in order and, when a read's order is over the limit,
//! gives it a destination register whose old contents are dead (preferring one never
//! written, which adds no order), renaming every later read of that result. The program
//! computes the same values in different registers, so its outputs are unchanged.

use crate::analysis::defuse::DefUse;
use crate::tracked::Tracked;
use hoist_asm::ir::{Program, RegFile};

/// Renames texture destinations until every read is within `max_order`, using temporaries
/// below `temps`. Returns whether anything changed.
pub fn run(t: &mut Tracked, max_order: i32, temps: u16) -> bool {
    let mut progress = false;
    // Each round fixes the first offending read; a program has few texture reads.
    for _ in 0..t.program.insts.len() {
        let ords = hoist_asm::d3d9::rules::texture_read_orders(&t.program);
        let Some(i) = ords.iter().position(|o| o.is_some_and(|o| o > max_order)) else {
            break;
        };
        let Ok(du) = DefUse::compute(&t.program) else {
            break;
        };
        let Some(best) = pick(&t.program, &du, i, temps) else {
            break;
        };
        rename(t, &du, i, best);
        progress = true;
    }
    progress
}

/// A register that can take the result of texture read `i`: its old contents are not read
/// after `i`, and nothing writes it before the last read of `i`'s result.
fn pick(p: &Program, du: &DefUse, i: usize, temps: u16) -> Option<u16> {
    let cur = p.insts[i].dst.as_ref()?.reg.index;
    let last_use = du
        .uses_of(i)
        .iter()
        .map(|u| u.inst as usize)
        .max()
        .unwrap_or(i);
    let ever_written = |r: u16| {
        p.insts[..i].iter().any(|w| {
            w.dst
                .as_ref()
                .is_some_and(|d| d.reg == hoist_asm::Reg::new(RegFile::Temp, r))
        })
    };
    let usable = |r: u16| {
        let reg = hoist_asm::Reg::new(RegFile::Temp, r);
        let old_read_later = (i + 1..du.len())
            .flat_map(|j| du.reads(j))
            .any(|rd| rd.reg == reg && rd.def.is_none_or(|d| (d as usize) < i));
        let clobbered = p.insts[i + 1..=last_use.max(i)]
            .iter()
            .any(|w| w.dst.as_ref().is_some_and(|d| d.reg == reg));
        r != cur && !old_read_later && !clobbered
    };
    let fresh = (0..temps).find(|&r| !ever_written(r) && usable(r));
    fresh.or_else(|| (0..temps).find(|&r| usable(r)))
}

fn rename(t: &mut Tracked, du: &DefUse, i: usize, to: u16) {
    let uses: Vec<_> = du.uses_of(i).to_vec();
    let d = t.program.insts[i]
        .dst
        .as_mut()
        .expect("texture read has a destination");
    let from = d.reg;
    d.reg.index = to;
    d.name = None;
    t.lines[i].mark_dst();
    for u in uses {
        let j = u.inst as usize;
        let k = du.reads(j)[u.read as usize].src as usize;
        let s = &mut t.program.insts[j].src[k];
        if s.reg == from {
            s.reg.index = to;
            s.name = None;
            t.lines[j].mark_src(k);
        }
    }
    crate::edit::ensure_temp(&mut t.program, to);
}

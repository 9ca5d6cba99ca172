//! The fragment program after motion: each moved instruction becomes a `mov` that reads
//! its transported components back into the register it used to write, so every staying
//! instruction sees exactly the values it saw before (copy propagation then reads the
//! interpolators directly).

use super::pack::{Channel, Placement};
use super::types::Input;
use crate::edit;
use crate::tracked::{AddedFor, Line, Tracked};
use hoist_asm::ir::{Comp, Dst, Inst, Src, Swizzle, WriteMask};
use hoist_asm::ops::Op;

/// The fragment program with the moved instructions (except helpers kept in both programs,
/// `dup`) replaced by reads of their interpolators.
pub(super) fn fragment(
    x: &Input,
    selected: &[bool],
    dup: &[bool],
    place: &Placement,
    chans: &[Channel],
) -> Tracked {
    let fp = x.fp;
    let mut fpt = Tracked::new(fp.clone());
    fpt.program.insts.clear();
    fpt.lines.clear();
    for (i, inst) in fp.insts.iter().enumerate() {
        if !selected[i] || dup[i] {
            fpt.push(inst.clone(), Line::original(i));
            continue;
        }
        let dst = inst
            .dst
            .as_ref()
            .expect("moved instruction has a destination");
        let mut per_chan: Vec<(usize, WriteMask, [Comp; 4])> = Vec::new();
        for c in dst.mask.iter() {
            if let Some(&(ch, slot)) = place.get(&(i as u32, c)) {
                if let Some(e) = per_chan.iter_mut().find(|e| e.0 == ch) {
                    e.1 = e.1.union(WriteMask::single(c));
                    e.2[c as usize] = slot;
                } else {
                    let mut sw = [0, 1, 2, 3];
                    sw[c as usize] = slot;
                    per_chan.push((ch, WriteMask::single(c), sw));
                }
            }
        }
        for (ch, mask, sw) in per_chan {
            let input = chans[ch].input;
            let src = Src::new(input).swizzled(Swizzle::new(sw[0], sw[1], sw[2], sw[3]));
            let mut d = Dst::new(dst.reg, mask);
            d.name = dst.name;
            let mut m = Inst::new(Op::Mov, Some(d), [src]);
            m.pp = inst.pp;
            fpt.push(m, Line::added(AddedFor::Materialize, Some(i)));
            let used = WriteMask(
                sw.iter()
                    .enumerate()
                    .filter(|(l, _)| mask.has(*l as u8))
                    .fold(0, |m, (_, &s)| m | 1 << s),
            );
            edit::declare_io(&mut fpt.program, input, chans[ch].semantic, used);
        }
    }
    fpt
}

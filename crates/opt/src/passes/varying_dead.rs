//! Dead varyings, both sides.
//!
//! **Fragment side** ([`run`]): an operand that reads only components of an interpolant no
//! vertex output writes reads the value the pipeline delivers for them instead — a literal:
//! (0, 0, 0, 1) when the vertex program has no output of that semantic, 0 for a component
//! of an output it has but never writes (`analysis::varyings`, which follows the executor).
//! The interpolator is then free, and instructions that only read it become movable.
//!
//! **Vertex side** ([`run_vertex`]): a write to an interpolant output the fragment program
//! does not read (at that component) is removed, as are instructions only such writes
//! needed (the pipeline's dead-code pass with the fragment program's reads as live-out).
//!
//! Legality: the fragment program reads exactly the values it read before, bit for bit (the
//! literal is the delivered value; a colour's is clamped as the pipeline clamps it); a
//! removed vertex write fed nothing the fragment program reads. A rewrite the profile's
//! operand rules refuse (ps_2_0 texture coordinates must be `t#` or `r#` registers) is not
//! made, and is reported with its reason.

use crate::analysis::varyings::{Change, PassCx, Source, input_name};
use crate::edit;
use crate::tracked::Tracked;
use hoist_asm::ir::{RegFile, Src};

/// Rewrites fragment operands that read only unwritten interpolant components; returns
/// whether anything changed, and records each rewrite or refusal in `log`.
pub fn run(t: &mut Tracked, cx: &PassCx, log: &mut Vec<Change>) -> bool {
    let mut progress = false;
    let du = crate::analysis::defuse::DefUse::compute(&t.program).ok();
    for j in 0..t.program.insts.len() {
        for k in 0..t.program.insts[j].src.len() {
            let inst = &t.program.insts[j];
            let s = inst.src[k].clone();
            if !matches!(s.reg.file, RegFile::TexCoord | RegFile::Input) {
                continue;
            }
            let reads = edit::operand_reads(&t.program, du.as_ref(), j, k);
            let unwritten = |c| matches!(cx.facts.source(s.reg, c), Source::Unwritten { .. });
            if reads.is_empty() || !reads.iter().all(unwritten) {
                continue;
            }
            let mut value = [0.0f32; 4];
            for c in reads.iter() {
                value[c as usize] = cx.facts.constant(s.reg, c).unwrap_or(0.0);
            }
            let name = input_name(&t.program, s.reg, reads);
            let done = literal_operand(t, j, k, value, cx);
            let shown: Vec<String> = reads
                .iter()
                .map(|c| value[c as usize].to_string())
                .collect();
            log.push(Change {
                pass: "varying_dead".into(),
                input: name,
                inst: Some(j as u32),
                done,
                what: if done {
                    format!("never written: reads ({}) directly", shown.join(", "))
                } else {
                    "never written, but the profile does not accept a constant in this operand"
                        .into()
                },
            });
            progress |= done;
        }
    }
    progress
}

/// Makes operand `k` of instruction `j` read `value` (at the register positions it reads)
/// from a literal slot, when the profile accepts it; marks the line.
pub(crate) fn literal_operand(
    t: &mut Tracked,
    j: usize,
    k: usize,
    value: [f32; 4],
    cx: &PassCx,
) -> bool {
    let old = t.program.insts[j].src[k].clone();
    let max = cx.fp_limits.consts;
    let done = edit::try_operand(&mut t.program, j, k, cx.fp_limits, |p| {
        let slot = edit::literal_slot(p, value, max, None, &[])?;
        let mut s = Src::new(hoist_asm::ir::Reg::new(RegFile::Const, slot));
        s.swizzle = old.swizzle;
        s.negate = old.negate;
        s.abs = old.abs;
        Some(s)
    });
    if done {
        t.lines[j].mark_src(k);
    }
    done
}

/// Removes vertex writes of interpolants `fp` does not read, and what only they needed.
pub fn run_vertex(vp: &mut Tracked, fp: &hoist_asm::Program) -> bool {
    let live = crate::passes::dce::interpolants_read(&vp.program, fp);
    crate::passes::dce::run(vp, &live, &|_| true)
}

//! What the interpolator packing decides, shared by its steps: the interpolator registers
//! (channels), the values they carry, and a choice's packing; with the reads that matter
//! (those feeding a lane somebody uses).

use super::types::Input;
use crate::analysis::varyings::Qualifier;
use hoist_asm::ir::{Comp, Reg, Semantic, WriteMask};
use hoist_asm::profile::Profile;

/// Interpolator register `k` as the two programs name it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Channel {
    pub(super) out: Reg,
    pub(super) input: Reg,
    pub(super) semantic: Semantic,
    /// Components no staying instruction reads where they are (free for new values when
    /// existing ones stay).
    pub(super) free: WriteMask,
    /// Its interpolants cannot be relocated (written through relative addressing, or read
    /// through a matrix row or relative address).
    pub(super) frozen: bool,
}

/// A value an interpolator carries: a moved instruction's result lane, or an existing
/// interpolant component (fragment input register, component).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Val {
    Moved(u32, Comp),
    Existing(Reg, Comp),
}

/// The packing of one choice.
#[derive(Clone, Debug)]
pub(super) struct Packed {
    pub(super) chans: Vec<Channel>,
    /// What each channel carries, slot by slot.
    pub(super) content: Vec<[Option<Val>; 4]>,
    /// Staying operands (instruction, source) that read one channel directly.
    pub(super) operands: Vec<(u32, u8, usize)>,
    /// Moved instructions also kept in the fragment program.
    pub(super) dup: Vec<bool>,
    /// Whether the exact packer decided it (not the greedy fallback).
    pub(super) exact: bool,
    /// Whether existing values were relocated.
    pub(super) relocated: bool,
    /// The qualifier each channel's values share (`None`: unused, or uniform values only).
    pub(super) class: Vec<Option<Qualifier>>,
    /// Uniform-expression interpolants recomputed in the fragment program.
    pub(super) recompute: Vec<crate::passes::varying_uniform::Plan>,
}

impl Packed {
    /// Every (channel, slot) carrying `v`, the first being where readers through `mov`s
    /// read it.
    pub(super) fn places(&self, v: Val) -> Vec<(usize, Comp)> {
        let mut out = Vec::new();
        for (ch, slots) in self.content.iter().enumerate() {
            for (s, x) in slots.iter().enumerate() {
                if *x == Some(v) {
                    out.push((ch, s as Comp));
                }
            }
        }
        out
    }
}

/// The channel whose fragment input is `reg`.
pub(super) fn channel_of(chans: &[Channel], reg: Reg) -> Option<usize> {
    chans.iter().position(|c| c.input == reg)
}

/// The reads of fragment instruction `i` that feed a lane somebody uses.
pub(super) fn live_reads<'a>(
    x: &'a Input,
    i: usize,
) -> impl Iterator<Item = &'a crate::analysis::defuse::Read> + 'a {
    let live = live_of(x, i);
    x.fp_du
        .reads(i)
        .iter()
        .filter(move |r| !r.lanes.intersect(live).is_empty())
}

/// The destination lanes of fragment instruction `i` somebody uses (all, for instructions
/// without a data destination).
pub(super) fn live_of(x: &Input, i: usize) -> WriteMask {
    let inst = &x.fp.insts[i];
    if inst.info().has_dst {
        crate::analysis::movable::live_lanes(x.fp_du, i, inst)
    } else {
        WriteMask::ALL
    }
}

/// Whether the fragment profile lets an operand read interpolator components in any order.
pub fn swizzle_free(fp: Profile) -> bool {
    matches!(fp, Profile::ArbFp1 | Profile::Ps3_0)
}

pub(super) fn texcoord_of(c: &Channel) -> u8 {
    match c.semantic {
        Semantic::TexCoord(k) => k,
        _ => 0,
    }
}

/// An existing interpolant component the vertex program must write again: (channel, slot,
/// fragment input register, component). Those away from their old place, and those nothing
/// wrote (their value depends on which output registers the vertex program has, which the
/// motion may change, so it is written explicitly).
pub(super) type Relocation = (usize, Comp, Reg, Comp);

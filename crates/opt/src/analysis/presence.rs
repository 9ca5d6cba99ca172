//! Which vertex output registers must stay in the program so that the fragment program's
//! reads of *unwritten* interpolant components keep their value.
//!
//! The executor (`hoist_raster::compile::file_size`, `raster::fragment_inputs`) gives a
//! vertex program every register of an output file up to the highest one it declares or
//! names. A fragment input whose output register exists but is never written reads 0; one
//! whose register does not exist reads `probe::UNWRITTEN`, (0, 0, 0, 1). The two differ in
//! `w` only. So a pass that drops the last write or declaration of a register at or above
//! an unwritten one (dead-code elimination of an unread `oD1` write, `prune_io` dropping
//! a `dcl_color o4` nothing writes) turns the fragment program's `w` from 0 into 1.
//!
//! [`needs`] lists the registers whose presence a fragment read depends on; dead-code
//! elimination keeps a write that holds each ([`keeper`]), and the pipeline keeps a
//! declaration that does ([`holding_decl`]). Declarations hold a register only where the
//! program text keeps them: ARB's (printed as `OUTPUT`) and vs_3_0's `dcl`; vs_1_1 and
//! vs_2_x name an output only by writing it. The register semantics the executor reads
//! ([`implied_semantic`], [`out_semantic`]) live here too; `varyings` re-exports them.

use hoist_asm::ir::{Comp, Program, Reg, RegFile, Semantic};
use hoist_asm::profile::Profile;

const W: Comp = 3;

/// The output files whose registers the executor allocates by extent.
const OUTPUT_FILES: [RegFile; 4] = [
    RegFile::RastOut,
    RegFile::AttrOut,
    RegFile::TexCrdOut,
    RegFile::Output,
];

/// A fragment input's semantic when no declaration names it (as the executor reads it).
pub fn implied_semantic(fp: &Program, reg: Reg) -> Option<Semantic> {
    match (reg.file, reg.index, fp.dialect()) {
        (RegFile::Input, 2, hoist_asm::Dialect::Arb) => Some(Semantic::Fog(0)),
        (RegFile::Input, n, hoist_asm::Dialect::Arb) => Some(Semantic::Color(n.min(1) as u8)),
        (RegFile::Input, n, hoist_asm::Dialect::D3d9) => Some(Semantic::Color(n as u8)),
        (RegFile::TexCoord, n, _) => Some(Semantic::TexCoord(n as u8)),
        (RegFile::Misc, 0, _) => Some(Semantic::WindowPos),
        (RegFile::Misc, 1, _) => Some(Semantic::Face),
        _ => None,
    }
}

/// The semantic of a vertex output register, declared or implied by the register (as the
/// executor reads it).
pub fn out_semantic(p: &Program, reg: Reg) -> Option<Semantic> {
    p.semantic(reg).or(match (reg.file, reg.index) {
        (RegFile::RastOut, 0) => Some(Semantic::Position(0)),
        (RegFile::RastOut, 1) => Some(Semantic::Fog(0)),
        (RegFile::RastOut, 2) => Some(Semantic::PointSize(0)),
        (RegFile::AttrOut, n) if n < 2 => Some(Semantic::Color(n as u8)),
        (RegFile::AttrOut, n) => Some(Semantic::BackColor((n - 2).min(1) as u8)),
        (RegFile::TexCrdOut, n) => Some(Semantic::TexCoord(n as u8)),
        (RegFile::Output, n) => Some(Semantic::Generic(n as u8)),
        _ => None,
    })
}

/// One past the highest register of `file` that `vp` declares or names.
pub fn extent(vp: &Program, file: RegFile) -> u16 {
    let mut n = 0u16;
    let mut see = |r: Reg| {
        if r.file == file {
            n = n.max(r.index + 1);
        }
    };
    vp.io.iter().for_each(|d| see(d.reg));
    for i in &vp.insts {
        if let Some(d) = &i.dst {
            see(d.reg);
        }
        i.src.iter().for_each(|s| see(s.reg));
    }
    n
}

/// The output register of semantic `sem` the executor gives `vp`, if it has one.
pub fn output_reg(vp: &Program, sem: Semantic) -> Option<Reg> {
    OUTPUT_FILES.into_iter().find_map(|f| {
        (0..extent(vp, f))
            .map(|k| Reg::new(f, k))
            .find(|&r| out_semantic(vp, r) == Some(sem))
    })
}

/// Whether a declaration by itself keeps an output register in the program's text.
pub fn declarations_hold(vp: &Program) -> bool {
    vp.dialect() == hoist_asm::Dialect::Arb || vp.profile == Profile::Vs3_0
}

/// Output registers of `vp` that exist, are never written at `w`, and whose semantic `fp`
/// reads at `w`: each must stay (some register of its file at or above it must stay
/// declared or named), or the fragment program's `w` changes from 0 to 1.
pub fn needs(vp: &Program, fp: &Program) -> Vec<Reg> {
    let mut out = Vec::new();
    for inst in &fp.insts {
        let lanes = if inst.info().has_dst {
            inst.dst_lanes()
        } else {
            hoist_asm::WriteMask::ALL
        };
        for (k, s) in inst.src.iter().enumerate() {
            if !s.reg.file.is_input() || !inst.src_reads(k, lanes).iter().any(|c| c == W) {
                continue;
            }
            let sem = fp.semantic(s.reg).or_else(|| implied_semantic(fp, s.reg));
            let Some(sem @ (Semantic::Color(_) | Semantic::TexCoord(_) | Semantic::Generic(_))) =
                sem
            else {
                continue;
            };
            let Some(r) = output_reg(vp, sem) else {
                continue;
            };
            if !writes_w(vp, r) && !out.contains(&r) {
                out.push(r);
            }
        }
    }
    out
}

fn writes_w(vp: &Program, r: Reg) -> bool {
    vp.insts
        .iter()
        .filter_map(|i| i.dst.as_ref())
        .any(|d| d.reg == r && d.mask.iter().any(|c| c == W))
}

/// The declaration that holds `need` in `vp` when declarations hold registers: the lowest
/// declared register of its file at or above it.
pub fn holding_decl(vp: &Program, need: Reg) -> Option<Reg> {
    if !declarations_hold(vp) {
        return None;
    }
    vp.io
        .iter()
        .map(|d| d.reg)
        .filter(|r| r.file == need.file && r.index >= need.index)
        .min_by_key(|r| r.index)
}

/// Whether an instruction of `vp` names a register of `need`'s file at or above it.
pub fn held_by_instructions(vp: &Program, need: Reg) -> bool {
    vp.insts.iter().any(|i| {
        i.dst
            .iter()
            .map(|d| d.reg)
            .chain(i.src.iter().map(|s| s.reg))
            .any(|r| r.file == need.file && r.index >= need.index)
    })
}

/// The output component dead-code elimination keeps to hold `need` when no declaration
/// does and no write `live` keeps anyway holds it: the first written component of the
/// lowest written register at or above it.
pub fn keeper(vp: &Program, need: Reg, live: &dyn Fn(Reg, Comp) -> bool) -> Option<(Reg, Comp)> {
    if holding_decl(vp, need).is_some() {
        return None;
    }
    let writes: Vec<(Reg, Comp)> = vp
        .insts
        .iter()
        .filter_map(|i| i.dst.as_ref())
        .filter(|d| d.reg.file == need.file && d.reg.index >= need.index && d.rel.is_none())
        .flat_map(|d| d.mask.iter().map(move |c| (d.reg, c)))
        .collect();
    if writes.iter().any(|&(r, c)| live(r, c)) {
        return None;
    }
    writes.into_iter().min_by_key(|&(r, c)| (r.index, c))
}

//! Small, dialect-aware edits of a program's side tables: temporaries, constant slots and
//! input/output declarations. Passes use these instead of touching the tables directly, so
//! the result stays printable in its dialect (ARB temporaries need names; a D3D9 literal
//! needs a free `c#` for its `def`).

use hoist_asm::ir::{
    ConstBinding, ConstSlot, Dialect, Interp, IoDecl, Literal, LiteralForm, Program, Reg, RegFile,
    Semantic, Span, SymKind, Symbol, WriteMask,
};

/// Makes temporary `index` exist (ARB: declares fresh `TEMP` names up to it).
pub fn ensure_temp(p: &mut Program, index: u16) {
    while p.num_temps <= index {
        let t = p.num_temps;
        if p.dialect() == Dialect::Arb {
            let name = fresh_name(p, "h");
            p.symbols.push(Symbol {
                name,
                kind: SymKind::Temp(t),
                span: Span::NONE,
            });
        }
        p.num_temps += 1;
    }
}

fn fresh_name(p: &Program, prefix: &str) -> String {
    (0..)
        .map(|i| format!("{prefix}{i}"))
        .find(|n| !p.symbols.iter().any(|s| &s.name == n))
        .expect("an unused name exists")
}

/// Constant registers a D3D9 program reads or defines.
fn d3d_used_consts(p: &Program) -> Vec<bool> {
    let mut used = read_slots(p);
    for (u, c) in used.iter_mut().zip(&p.consts) {
        *u |= matches!(c.binding, ConstBinding::Literal(_));
    }
    used
}

/// The constant slots a program's instructions read: every row of a matrix operand, the
/// whole declared range of a relatively addressed one.
fn read_slots(p: &Program) -> Vec<bool> {
    let mut read = vec![false; p.consts.len()];
    for inst in &p.insts {
        for (k, s) in inst.src.iter().enumerate() {
            if s.reg.file != RegFile::Const {
                continue;
            }
            let (lo, hi) = match &s.rel {
                Some(rel) => (rel.lo as usize, rel.hi as usize),
                None => {
                    let i = s.reg.index as usize;
                    (i, i + inst.src_rows(k) as usize)
                }
            };
            for r in read.iter_mut().take(hi).skip(lo) {
                *r = true;
            }
        }
    }
    read
}

/// A constant slot holding `value`, reusing an identical literal when there is one.
/// D3D9: a `def` in a free register below `max`. Returns `None` when the file is full.
pub fn literal_slot(
    p: &mut Program,
    value: [f32; 4],
    max: u16,
    prefer: Option<u16>,
    avoid: &[u16],
) -> Option<u16> {
    let same = |c: &ConstSlot| match &c.binding {
        ConstBinding::Literal(l) => {
            l.value
                .iter()
                .zip(&value)
                .all(|(a, b)| a.to_bits() == b.to_bits())
                && (p.dialect() == Dialect::D3d9 || l.form == LiteralForm::Vector(4))
        }
        _ => false,
    };
    if let Some(i) = p.consts.iter().position(same) {
        // ARB: only reuse anonymous slots, so a named PARAM keeps its meaning when printed.
        if p.dialect() == Dialect::D3d9 || !slot_is_named(p, i as u16) {
            return Some(i as u16);
        }
    }
    let binding = ConstBinding::Literal(Literal::vec4(value));
    match p.dialect() {
        Dialect::Arb => {
            if p.consts.len() >= max as usize {
                return None;
            }
            p.consts.push(ConstSlot {
                binding,
                span: Span::NONE,
            });
            Some(p.consts.len() as u16 - 1)
        }
        Dialect::D3d9 => {
            let slot = free_d3d_const_avoiding(p, max, prefer, avoid)?;
            p.consts[slot as usize].binding = binding;
            Some(slot)
        }
    }
}

fn slot_is_named(p: &Program, slot: u16) -> bool {
    p.symbols.iter().any(|s| match s.kind {
        SymKind::Param { base, len, .. } => slot >= base && slot < base + len,
        _ => false,
    })
}

/// A free D3D9 constant register (neither read nor defined), preferring `prefer`. Grows the
/// dense table with host-set (`Env`) fillers as needed.
pub fn free_d3d_const(p: &mut Program, max: u16, prefer: Option<u16>) -> Option<u16> {
    free_d3d_const_avoiding(p, max, prefer, &[])
}

/// [`free_d3d_const`], also avoiding registers already handed out (a host-set register
/// looks free until an instruction reads it).
pub fn free_d3d_const_avoiding(
    p: &mut Program,
    max: u16,
    prefer: Option<u16>,
    avoid: &[u16],
) -> Option<u16> {
    let used = d3d_used_consts(p);
    let is_free = |i: u16| !used.get(i as usize).copied().unwrap_or(false) && !avoid.contains(&i);
    let slot = match prefer {
        Some(i) if i < max && is_free(i) => i,
        _ => (0..max).find(|&i| is_free(i))?,
    };
    while p.consts.len() <= slot as usize {
        let n = p.consts.len() as u16;
        p.consts.push(ConstSlot {
            binding: ConstBinding::Env(n),
            span: Span::NONE,
        });
    }
    Some(slot)
}

/// A constant slot bound to a host parameter or GL state. ARB: a new slot; D3D9: a free
/// register (preferring `prefer`) left host-set.
pub fn binding_slot(
    p: &mut Program,
    binding: ConstBinding,
    max: u16,
    prefer: Option<u16>,
    avoid: &[u16],
) -> Option<u16> {
    match p.dialect() {
        Dialect::Arb => {
            if let Some(i) = p.consts.iter().position(|c| c.binding == binding) {
                return Some(i as u16);
            }
            if p.consts.len() >= max as usize {
                return None;
            }
            p.consts.push(ConstSlot {
                binding,
                span: Span::NONE,
            });
            Some(p.consts.len() as u16 - 1)
        }
        Dialect::D3d9 => {
            let slot = free_d3d_const_avoiding(p, max, prefer, avoid)?;
            p.consts[slot as usize].binding = ConstBinding::Env(slot);
            Some(slot)
        }
    }
}

/// The host parameters (`Env` or `Local` bindings) a program's instructions read.
pub fn host_params(p: &Program) -> Vec<ConstBinding> {
    let mut v: Vec<ConstBinding> = match p.dialect() {
        Dialect::D3d9 => d3d_used_consts(p)
            .iter()
            .enumerate()
            .filter(|&(i, &u)| {
                u && !matches!(
                    p.consts.get(i).map(|c| &c.binding),
                    Some(ConstBinding::Literal(_))
                )
            })
            .map(|(i, _)| ConstBinding::Env(i as u16))
            .collect(),
        Dialect::Arb => {
            let read = read_slots(p);
            p.consts
                .iter()
                .zip(read)
                .filter(|(c, r)| {
                    *r && matches!(c.binding, ConstBinding::Env(_) | ConstBinding::Local(_))
                })
                .map(|(c, _)| c.binding.clone())
                .collect()
        }
    };
    v.dedup();
    v
}

/// Host parameter indices a program already uses (`Env` or `Local`).
pub fn used_params(p: &Program, local: bool) -> Vec<u16> {
    let mut v: Vec<u16> = p
        .consts
        .iter()
        .filter_map(|c| match c.binding {
            ConstBinding::Env(n) if !local => Some(n),
            ConstBinding::Local(n) if local => Some(n),
            _ => None,
        })
        .collect();
    hoist_asm::sort::ord(&mut v);
    v.dedup();
    v
}

/// Declares (or widens) an input/output register.
pub fn declare_io(p: &mut Program, reg: Reg, semantic: Semantic, mask: WriteMask) {
    if let Some(d) = p.io.iter_mut().find(|d| d.reg == reg) {
        d.mask = d.mask.union(mask);
        return;
    }
    let explicit = matches!(
        (p.dialect(), reg.file),
        (
            Dialect::D3d9,
            RegFile::TexCoord | RegFile::Input | RegFile::Output
        )
    );
    // Implicit declarations (vs_1_1 outputs, ARB bindings) always cover every component.
    let mask = if explicit { mask } else { WriteMask::ALL };
    p.io.push(IoDecl {
        reg,
        semantic,
        mask,
        interp: Interp::Perspective,
        pp: false,
        explicit,
        span: Span::NONE,
    });
}

/// Drops constant slots nobody reads any more: D3D9 `def`s a pass added go back to host-set
/// registers (trailing ones disappear; the author's own `def`s stay); ARB anonymous slots —
/// inline operands, not declarations — are removed and references renumbered.
pub fn prune_added_consts(p: &mut Program, original: &Program) {
    let mut read = vec![false; p.consts.len()];
    for inst in &p.insts {
        for (k, s) in inst.src.iter().enumerate() {
            if s.reg.file != RegFile::Const {
                continue;
            }
            if let Some(rel) = &s.rel {
                read.iter_mut()
                    .take(rel.hi as usize)
                    .skip(rel.lo as usize)
                    .for_each(|r| *r = true);
                continue;
            }
            let rows = inst.src_rows(k);
            for r in 0..rows as usize {
                if let Some(x) = read.get_mut(s.reg.index as usize + r) {
                    *x = true;
                }
            }
        }
    }
    let added: Vec<bool> = (0..p.consts.len())
        .map(|i| {
            original
                .consts
                .get(i)
                .is_none_or(|c| c.binding != p.consts[i].binding)
        })
        .collect();
    match p.dialect() {
        Dialect::D3d9 => {
            for i in 0..p.consts.len() {
                if !read[i] && added[i] {
                    p.consts[i].binding = ConstBinding::Env(i as u16);
                }
            }
            while p.consts.len() > original.consts.len()
                && p.consts
                    .last()
                    .is_some_and(|c| matches!(c.binding, ConstBinding::Env(_)))
                && !read[p.consts.len() - 1]
            {
                p.consts.pop();
            }
        }
        Dialect::Arb => {
            // Anonymous ARB slots are inline operands, not declarations: drop every unread one.
            let _ = &added;
            let keep: Vec<bool> = (0..p.consts.len())
                .map(|i| read[i] || slot_is_named(p, i as u16))
                .collect();
            if keep.iter().all(|&k| k) {
                return;
            }
            let mut map = vec![0u16; p.consts.len()];
            let mut next = 0u16;
            for i in 0..p.consts.len() {
                map[i] = next;
                if keep[i] {
                    next += 1;
                }
            }
            let mut i = 0;
            p.consts.retain(|_| {
                i += 1;
                keep[i - 1]
            });
            for inst in &mut p.insts {
                for s in &mut inst.src {
                    if s.reg.file == RegFile::Const {
                        s.reg.index = map[s.reg.index as usize];
                    }
                }
            }
        }
    }
}

/// Replaces operand `k` of instruction `j` with `src` when the result breaks no more of the
/// profile's rules under `limits` than the program did; otherwise leaves the program as it
/// was. Returns whether the operand was replaced. `prepare` may add what `src` names (a
/// literal slot, a parameter) and returns `src`, or `None` when it cannot.
pub fn try_operand(
    p: &mut Program,
    j: usize,
    k: usize,
    limits: &hoist_asm::profile::Limits,
    prepare: impl FnOnce(&mut Program) -> Option<hoist_asm::ir::Src>,
) -> bool {
    let errors = |p: &Program| {
        hoist_asm::validate::check(p, limits)
            .iter()
            .filter(|d| d.is_error())
            .count()
    };
    let before = errors(p);
    let saved = p.clone();
    let Some(src) = prepare(p) else {
        *p = saved;
        return false;
    };
    p.insts[j].src[k] = src;
    if hoist_asm::check_inst(p, &p.insts[j]).is_empty() && errors(p) <= before {
        return true;
    }
    *p = saved;
    false
}

/// The register components operand `k` of instruction `i` reads for the lanes somebody
/// uses (none for a matrix macro's rows, which span several registers). Without def-use
/// facts (`du`: flow control), every lane counts.
pub fn operand_reads(
    p: &Program,
    du: Option<&crate::analysis::defuse::DefUse>,
    i: usize,
    k: usize,
) -> WriteMask {
    let inst = &p.insts[i];
    if inst.src_rows(k) > 1 || inst.src[k].rel.is_some() {
        return WriteMask::NONE;
    }
    match du {
        Some(du) => {
            let lanes = if inst.info().has_dst
                && inst
                    .dst
                    .as_ref()
                    .is_some_and(|d| d.reg.file == RegFile::Temp)
            {
                crate::analysis::movable::live_lanes(du, i, inst)
            } else if inst.info().has_dst {
                inst.dst_lanes()
            } else {
                WriteMask::ALL
            };
            inst.src_reads(k, lanes)
        }
        None => inst.reads_of(k),
    }
}

//! The host side of the module ABI: where the row file, constants, texture descriptors,
//! kill mask and scratch space go in linear memory, moving a [`Machine`]'s rows in and
//! out, the texture descriptors, and the general sampler behind the `env.tex` import.

use crate::compile::{Kernel, LANES, TexKind};
use crate::exec::{ExecEnv, Machine};
use crate::texture::{Filter, MipFilter, TexFormat, TexShape, Texture, Wrap};
use hoist_asm::ir::TexTarget;

/// Texture units with a descriptor.
pub const UNITS: usize = 32;
/// Bytes per texture descriptor.
pub const DESC_BYTES: usize = 32;
/// Bytes of scratch space.
pub const SCRATCH_BYTES: usize = 256;
/// Descriptor modes: sample through the `env.tex` import.
pub const MODE_GENERIC: i32 = 0;
/// 2D, one level, nearest, clamp to edge (inline).
pub const MODE_NEAREST_CLAMP: i32 = 1;
/// 2D, one level, nearest, repeat (inline).
pub const MODE_NEAREST_REPEAT: i32 = 2;
/// 2D, one level, bilinear, clamp to edge (inline).
pub const MODE_LINEAR_CLAMP: i32 = 3;
/// 2D, one level, bilinear, repeat (inline).
pub const MODE_LINEAR_REPEAT: i32 = 4;

/// Not a descriptor mode: a module compiled with it for a unit reads the unit's mode at run
/// time and branches on it at every fetch ([`Modes`]).
pub const MODE_ANY: i32 = -1;

/// The descriptor mode a module's fetches of each unit were compiled for: one fetch path
/// each, with no branch on the descriptor (the branches, and the general sampler's call on
/// every fetch's path, had made V8 keep the texels in memory and take the slower code).
/// [`MODE_ANY`] keeps the branch. A host runs such a module only for batches whose
/// descriptors match ([`mode_fits`]) and interprets the others.
pub type Modes = [i32; UNITS];

/// Every unit read at run time.
pub const ANY_MODES: Modes = [MODE_ANY; UNITS];

/// The modes of the units `k` samples inline (2D fetches), from the textures a draw binds;
/// [`MODE_ANY`] for the others, so kernels that differ only in textures they never sample
/// inline share a module.
pub fn modes_for(k: &Kernel, textures: &[Option<&Texture>]) -> Modes {
    let mut m = ANY_MODES;
    for &(u, t) in &k.samplers {
        if usize::from(u) < UNITS && inline_target(t) {
            m[usize::from(u)] = textures
                .get(usize::from(u))
                .copied()
                .flatten()
                .map_or(MODE_GENERIC, inline_mode);
        }
    }
    m
}

/// Whether a module compiled for `modes` computes the interpreter's result for a unit staged
/// with descriptor `desc`.
pub fn mode_fits(modes: &Modes, unit: usize, desc: &TexDesc) -> bool {
    modes
        .get(unit)
        .is_none_or(|&m| m == MODE_ANY || m == desc.mode)
}

/// One texture unit as the module sees it: little-endian i32 words `mode`, `texels` (byte
/// offset of `width·height` RGBA f32 texels, row by row), `width`, `height`, then padding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TexDesc {
    pub mode: i32,
    pub texels: u32,
    pub width: u32,
    pub height: u32,
}

impl TexDesc {
    /// The inline mode a texture allows (its texels at byte offset `texels`), or
    /// [`MODE_GENERIC`].
    pub fn for_texture(tex: Option<&Texture>, texels: u32) -> TexDesc {
        let Some(t) = tex else {
            return TexDesc::default();
        };
        let mode = inline_mode(t);
        if mode == MODE_GENERIC {
            return TexDesc::default();
        }
        let l = &t.levels[0];
        TexDesc {
            mode,
            texels,
            width: l.width,
            height: l.height,
        }
    }

    pub fn to_bytes(self) -> [u8; DESC_BYTES] {
        let mut b = [0u8; DESC_BYTES];
        b[0..4].copy_from_slice(&self.mode.to_le_bytes());
        b[4..8].copy_from_slice(&self.texels.to_le_bytes());
        b[8..12].copy_from_slice(&self.width.to_le_bytes());
        b[12..16].copy_from_slice(&self.height.to_le_bytes());
        b
    }
}

/// The inline mode of a texture: a 2D colour texture, one level used, one filter for
/// minification and magnification (so the level of detail cannot change the result), every
/// texel present and fewer than 2^22 of them (indices stay exact in f32 arithmetic).
pub fn inline_mode(t: &Texture) -> i32 {
    let Some(l) = t.levels.first() else {
        return MODE_GENERIC;
    };
    let s = t.sampler;
    let n = u64::from(l.width) * u64::from(l.height);
    let ok = t.shape == TexShape::D2
        && t.format != TexFormat::Depth
        && l.depth == 1
        && l.width > 0
        && l.height > 0
        && (s.mip == MipFilter::None || t.levels.len() == 1)
        && s.min == s.mag
        && n < 1 << 22
        && l.texels.len() as u64 >= n;
    if !ok {
        return MODE_GENERIC;
    }
    match (s.min, s.wrap) {
        (Filter::Nearest, Wrap::ClampToEdge) => MODE_NEAREST_CLAMP,
        (Filter::Nearest, Wrap::Repeat) => MODE_NEAREST_REPEAT,
        (Filter::Linear, Wrap::ClampToEdge) => MODE_LINEAR_CLAMP,
        (Filter::Linear, Wrap::Repeat) => MODE_LINEAR_REPEAT,
    }
}

/// Whether fetches through `target` may use a unit's inline mode. Only `2D` fetches are
/// compiled inline; every other target calls `env.tex`, whatever the unit's descriptor says.
pub fn inline_target(target: TexTarget) -> bool {
    target == TexTarget::T2D
}

/// Whether the host must keep unit `unit`'s texture for the general sampler (`env.tex`):
/// its descriptor is [`MODE_GENERIC`], or the kernel also samples the unit through a target
/// that is never inline (a `SHADOW2D`, `1D` or `RECT` fetch of a 2D texture).
pub fn needs_general(k: &Kernel, unit: u8, desc: &TexDesc) -> bool {
    desc.mode == MODE_GENERIC
        || k.samplers
            .iter()
            .any(|&(u, t)| u == unit && !inline_target(t))
}

/// Byte offsets of the blocks of one call, from the start of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub io: usize,
    pub consts: usize,
    pub tex: usize,
    pub kill: usize,
    pub scratch: usize,
    /// End of the fixed blocks; texels may follow.
    pub bytes: usize,
}

impl Layout {
    pub fn new(k: &Kernel) -> Layout {
        let io = 0;
        let consts = io + k.rows * LANES * 4;
        let tex = consts + (k.const_len * 16).next_multiple_of(16);
        let kill = tex + UNITS * DESC_BYTES;
        let scratch = kill + LANES * 4;
        Layout {
            io,
            consts,
            tex,
            kill,
            scratch,
            bytes: scratch + SCRATCH_BYTES,
        }
    }
}

fn put_f32s(mem: &mut [u8], at: usize, v: &[f32]) {
    let dst = &mut mem[at..at + 4 * v.len()];
    for (d, x) in dst.chunks_exact_mut(4).zip(v) {
        d.copy_from_slice(&x.to_le_bytes());
    }
}

/// Writes rows `rows` of `m` (a module's [`super::Module::inputs`]) into `mem` (the block at
/// offset 0 laid out by `layout`).
pub fn stage_inputs(m: &Machine, rows: &[crate::compile::R], mem: &mut [u8], layout: &Layout) {
    for &r in rows {
        let r = r as usize;
        put_f32s(mem, layout.io + r * LANES * 4, &m.regs[r][..]);
    }
}

/// Writes the constant table (padded with zeros to `const_len`).
pub fn stage_consts(k: &Kernel, env: &ExecEnv, mem: &mut [u8], layout: &Layout) {
    for i in 0..k.const_len {
        let v = env.consts.get(i).copied().unwrap_or([0.0; 4]);
        put_f32s(mem, layout.consts + 16 * i, &v);
    }
}

/// Reads the output rows and the kill mask back into `m`.
pub fn unstage(m: &mut Machine, k: &Kernel, mem: &[u8], layout: &Layout, lanes: usize) {
    let lanes = lanes.min(LANES);
    for &(_, base) in &k.outputs {
        for r in base as usize..base as usize + 4 {
            let at = layout.io + r * LANES * 4;
            let src = &mem[at..at + 4 * lanes];
            for (x, b) in m.regs[r][..lanes].iter_mut().zip(src.chunks_exact(4)) {
                *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }
    if k.has_kill {
        let src = &mem[layout.kill..layout.kill + 4 * lanes];
        for (x, b) in m.killed[..lanes].iter_mut().zip(src.chunks_exact(4)) {
            *x = b != [0; 4];
        }
    }
}

/// Adds what [`Machine::run`] counts for a straight-line kernel.
pub fn count(m: &mut Machine, k: &Kernel, live: &crate::exec::Mask) {
    let n = live.iter().filter(|&&b| b).count() as u64;
    m.insts_executed += n * k.insts_per_invocation;
    m.slots_executed += n * k.slots_per_invocation;
}

pub fn kind_code(k: TexKind) -> i32 {
    match k {
        TexKind::Tex => 0,
        TexKind::Txb => 1,
        TexKind::Txp => 2,
        TexKind::Lod => 3,
        TexKind::Grad => 4,
    }
}

pub fn kind_from_code(c: i32) -> TexKind {
    match c {
        1 => TexKind::Txb,
        2 => TexKind::Txp,
        3 => TexKind::Lod,
        4 => TexKind::Grad,
        _ => TexKind::Tex,
    }
}

const TARGETS: [TexTarget; 8] = [
    TexTarget::T1D,
    TexTarget::T2D,
    TexTarget::T3D,
    TexTarget::Cube,
    TexTarget::Rect,
    TexTarget::Shadow1D,
    TexTarget::Shadow2D,
    TexTarget::ShadowRect,
];

pub fn target_code(t: TexTarget) -> i32 {
    TARGETS
        .iter()
        .position(|&x| x == t)
        .map_or(-1, |i| i as i32)
}

pub fn target_from_code(c: i32) -> Option<TexTarget> {
    TARGETS.get(usize::try_from(c).ok()?).copied()
}

/// A texture's identity while it is alive and unchanged: its address and texel count.
pub fn texture_key(t: &Texture) -> (usize, usize) {
    (
        std::ptr::from_ref(t) as usize,
        t.levels.first().map_or(0, |l| l.texels.len()),
    )
}

/// One `env.tex` call on memory `mem` (offsets relative to it): reads the quad at `quad`,
/// samples it with [`sample_quad`] and writes the result at `out`; does nothing when
/// either lies outside `mem`.
pub fn tex_call(
    mem: &mut [u8],
    tex: Option<&Texture>,
    (kind, target): (i32, i32),
    quad: usize,
    out: usize,
    quads: bool,
) {
    if mem.len() < quad + 192 || mem.len() < out + 64 {
        return;
    }
    let input: [f32; 48] = std::array::from_fn(|i| {
        let b = &mem[quad + 4 * i..quad + 4 * i + 4];
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    });
    let r = sample_quad(tex, kind, target, &input, quads);
    for (d, v) in mem[out..out + 64].chunks_exact_mut(4).zip(r) {
        d.copy_from_slice(&v.to_le_bytes());
    }
}

/// The general sampler for one quad (the `env.tex` import): `quad` holds coordinates, x
/// and y gradients as `[c][lane]`; returns `[c][lane]`. Same code as the interpreter: the
/// quad is replicated over a whole batch and [`crate::texture::sample_batch`] samples it.
pub fn sample_quad(
    tex: Option<&Texture>,
    kind: i32,
    target: i32,
    quad: &[f32; 48],
    quads: bool,
) -> [f32; 16] {
    let Some(target) = target_from_code(target) else {
        return [0.0; 16];
    };
    let kind = kind_from_code(kind);
    let rows: [[f32; LANES]; 12] =
        std::array::from_fn(|r| std::array::from_fn(|l| quad[4 * r + (l & 3)]));
    let mut out = [[0.0f32; LANES]; 4];
    let grads = (kind == TexKind::Grad).then(|| {
        (
            [&rows[4], &rows[5], &rows[6], &rows[7]],
            [&rows[8], &rows[9], &rows[10], &rows[11]],
        )
    });
    let [o0, o1, o2, o3] = &mut out;
    crate::texture::sample_batch(
        tex,
        kind,
        target,
        [&rows[0], &rows[1], &rows[2], &rows[3]],
        grads,
        quads,
        [o0, o1, o2, o3],
    );
    std::array::from_fn(|i| out[i / 4][i % 4])
}

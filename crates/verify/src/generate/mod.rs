//! Random vertex/fragment program pairs, written the way compilers write them.
//!
//! [`pair`] is the input source of the soak, the fuzzers and the property tests. Each pair
//! is a vertex program and a fragment program of one dialect that link (every interpolant
//! the fragment program reads is written by the vertex program), parse and validate under
//! the profile's default limits, and render with `hoist_raster::render`. Programs are valid
//! by construction: the generator tracks, per temporary component, whether it is written and
//! a bound on its magnitude, and it counts slots, constants, read ports and texture
//! indirections as it goes.
//!
//! What is generated, per dialect:
//! - ARB (`arb_vp.rs`, `arb_fp.rs`): every ARBvp1.0/ARBfp1.0 opcode; Cg-style `PARAM c[n]`
//!   tables and Mesa-style inline literals; `state.*`, `program.env`/`program.local`,
//!   `ATTRIB`/`OUTPUT` aliases, relative addressing, position by `DP4` rows, `PARAM mvp[4]`,
//!   `MOV` or `ARB_position_invariant`; `_SAT`, precision hints, five texture targets, `KIL`.
//! - Direct3D 9 (`d3d_vs.rs`, `d3d_ps.rs`): vs_1_1+ps_2_0, vs_2_0+ps_2_0, vs_2_x+ps_2_x and
//!   vs_3_0+ps_3_0 with every arithmetic and texture opcode each profile has, `def`/`dcl`
//!   forms, `_pp`/`_sat`/`_abs`, matrix macros, `sincos`, `mova`/`c[a0.x + n]`, and the
//!   ps_2_0 operand, swizzle, read-port and dependent-read rules.
//!
//! Fragment programs mix work the optimizer can move to the vertex program (texture address
//! arithmetic on interpolants and constants, uniform helpers, uniform selectors) with work
//! it cannot (texture reads and math on their results, non-linear ops on interpolants, kills).
//! Non-linear ops are usually guarded the way shaders guard them (`MAX` before `RSQ`/`LG2`/`POW`,
//! clamps before `EX2`), so values stay finite, assuming host-set parameters and texels lie in
//! [-4, 4].
//!
//! Not generated, on purpose:
//! - D3D9 flow control and predication (`if`…`ret`, `setp`, `(p0)`): the optimizer refuses
//!   programs with flow control (straight-line code only), so they would test only that.
//! - `OPTION ARB_fog_linear/exp/exp2`: the parser accepts them but the executor does not apply
//!   fog, so a pair using them would not render what a GL implementation renders.
//! - Shadow targets (`SHADOW1D`, `SHADOW2D`, `SHADOWRECT`) only with [`Reach::Shadow`]
//!   ([`pair_with`], the soak's pairs): [`pair`] keeps the programs every seed had before
//!   they existed, which other crates' tests were written against.

mod arb;
mod arb_fp;
mod arb_vp;
mod arith;
mod builder;
mod consts;
mod d3d;
mod d3d_ps;
mod d3d_vs;
mod source;

use hoist_asm::{Profile, Program};
use hoist_raster::{Filter, Sampler, Texture, Wrap};
use rand::rngs::SmallRng;
use rand::{Rng as _, RngCore, SeedableRng};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A generated vertex/fragment program pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub vp: String,
    pub fp: String,
    /// short description, e.g. "arb seed 17"
    pub label: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    Arb,
    D3d9,
}

/// The D3D9 profile pairs [`pair`] chooses from (vertex, fragment).
pub const D3D9_PROFILES: [(Profile, Profile); 4] = [
    (Profile::Vs1_1, Profile::Ps2_0),
    (Profile::Vs2_0, Profile::Ps2_0),
    (Profile::Vs2_x, Profile::Ps2_x),
    (Profile::Vs3_0, Profile::Ps3_0),
];

/// What the generators may draw beyond the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reach {
    #[default]
    Plain,
    /// ARB fragment programs may also sample through shadow targets (with
    /// `OPTION ARB_fragment_program_shadow`).
    Shadow,
}

/// Deterministic in `seed`.
pub fn pair(seed: u64, flavor: Flavor) -> Pair {
    pair_with(seed, flavor, Reach::Plain)
}

/// [`pair`] with what `reach` adds; `Reach::Plain` is [`pair`].
pub fn pair_with(seed: u64, flavor: Flavor, reach: Reach) -> Pair {
    let salt = match flavor {
        Flavor::Arb => 0x4152_4256_5046_5031,
        Flavor::D3d9 => 0x4433_4439_5653_5053,
    };
    let mut rng = Rng::new(seed ^ salt);
    match flavor {
        Flavor::Arb => {
            let iface = Iface::random(&mut rng, Profile::ArbFp1);
            let fp = arb_fp::generate(rng.fork(), &iface, reach);
            let vp = arb_vp::generate(rng.fork(), &iface);
            Pair {
                vp,
                fp,
                label: format!("arb seed {seed}"),
            }
        }
        Flavor::D3d9 => {
            let (vs, ps) = D3D9_PROFILES[rng.below(D3D9_PROFILES.len())];
            let iface = Iface::random(&mut rng, ps);
            let fp = d3d_ps::generate(rng.fork(), ps, &iface);
            let vp = d3d_vs::generate(rng.fork(), vs, &iface);
            Pair {
                vp,
                fp,
                label: format!("d3d9 {vs}+{ps} seed {seed}"),
            }
        }
    }
}

/// A texture for every unit `program` samples, of the shape its target needs: an 8-texel
/// smooth RGBA32F ramp in [0, 1], filtered bilinearly and clamped, so that texture reads
/// return varied values (with no texture a unit reads (0, 0, 0, 1)).
pub fn textures(program: &Program) -> BTreeMap<u8, Arc<Texture>> {
    let mut m = BTreeMap::new();
    for t in program.insts.iter().filter_map(|i| i.tex) {
        m.entry(t.unit).or_insert_with(|| {
            let k = f32::from(t.unit) / 64.0;
            let sampler = Sampler::new(Filter::Linear, Wrap::ClampToEdge);
            let mut texel = |x: u32, y: u32, z: u32| {
                let (x, y, z) = (x as f32 / 7.0, y as f32 / 7.0, z as f32 / 7.0);
                [x, y, 0.5 * (1.0 - x) + 0.5 * z, 0.25 + 0.5 * x * y + k]
            };
            Arc::new(Texture::for_target(t.target, 8, sampler, &mut texel))
        });
    }
    m
}

/// The random source: a thin layer over `SmallRng` with the draws the generators need.
pub(crate) struct Rng(SmallRng);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(SmallRng::seed_from_u64(seed))
    }

    /// An independent generator for a sub-task, so that one program's draws do not shift
    /// the other's.
    pub(crate) fn fork(&mut self) -> Rng {
        Rng::new(self.0.next_u64())
    }

    /// Uniform in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.random_range(0..n.max(1))
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: usize, hi: usize) -> usize {
        self.0.random_range(lo..=hi.max(lo))
    }

    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.0.random_bool(p.clamp(0.0, 1.0))
    }

    pub(crate) fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }

    /// Index drawn with the given weights (all zero: uniform).
    pub(crate) fn weighted(&mut self, w: &[u32]) -> usize {
        let total: u64 = w.iter().map(|&x| u64::from(x)).sum();
        if total == 0 {
            return self.below(w.len());
        }
        let mut r = self.0.random_range(0..total);
        for (i, &x) in w.iter().enumerate() {
            if r < u64::from(x) {
                return i;
            }
            r -= u64::from(x);
        }
        w.len() - 1
    }

    /// A constant of the kind shaders contain: simple fractions, texel offsets or a
    /// three-decimal value in [-2, 2].
    pub(crate) fn nice(&mut self) -> f32 {
        match self.below(6) {
            0 => self.pick(&[0.0, 1.0, -1.0, 0.5, 2.0, 0.25, -0.5, 4.0]),
            1 => self.pick(&[1.0 / 256.0, -1.0 / 256.0, 1.0 / 512.0, 1.0 / 64.0, 0.0039]),
            2 => self.pick(&[0.2126, 0.7152, 0.0722, 0.299, 0.587, 0.114, 0.3333]),
            _ => (self.0.random_range(-2000..=2000) as f32) / 1000.0,
        }
    }
}

/// Component letters.
pub(crate) const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// `.xyz`-style write mask text; empty for the full mask.
pub(crate) fn mask_text(m: u8) -> String {
    if m & 15 == 15 {
        return String::new();
    }
    let mut s = String::from(".");
    s.extend((0..4).filter(|c| m & (1 << c) != 0).map(|c| XYZW[c]));
    s
}

/// Appends swizzle text: nothing for identity, one letter for a replicate, else four.
pub(crate) fn push_swizzle(out: &mut String, s: [u8; 4]) {
    if s == [0, 1, 2, 3] {
        return;
    }
    out.push('.');
    if s.iter().all(|&c| c == s[0]) {
        out.push(XYZW[s[0] as usize]);
    } else {
        out.extend(s.iter().map(|&c| XYZW[c as usize]));
    }
}

/// A float as both assemblers read it (no exponent, shortest round-trip digits).
pub(crate) fn num(v: f32) -> String {
    let v = if v == 0.0 { 0.0 } else { v };
    let s = format!("{v}");
    if s.contains('.') { s } else { format!("{s}.0") }
}

/// What an interpolant carries from the vertex to the fragment program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VKind {
    /// Texture coordinate set n.
    Tex(u8),
    /// Primary (0) or secondary (1) colour.
    Color(u8),
    /// Fog coordinate (x only).
    Fog,
}

/// One interpolant: which components the fragment program may read and a bound on their
/// magnitude, which the vertex program must respect.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Varying {
    pub kind: VKind,
    pub mask: u8,
    pub mag: f32,
    /// The vertex program writes w in [1/4, mag] (projective coordinates for `TXP`).
    pub w_pos: bool,
}

/// The interface of a pair: the interpolants the vertex program writes.
#[derive(Clone, Debug)]
pub(crate) struct Iface {
    pub vars: Vec<Varying>,
    /// The fragment program reads the window position (`fragment.position`/`vPos`).
    pub wpos: bool,
}

impl Iface {
    /// Interpolants for a fragment profile: one to four texture-coordinate sets usually,
    /// sometimes up to the profile's limit, with colours and the fog coordinate.
    fn random(rng: &mut Rng, fp: Profile) -> Iface {
        let limits = fp.limits();
        let max_tex = usize::from(limits.texcoords.min(8));
        let ntex = if rng.chance(0.12) {
            rng.range(5, max_tex)
        } else {
            rng.range(1, 4)
        };
        let mut sets: Vec<u8> = (0..8).collect();
        if rng.chance(0.7) {
            sets.truncate(ntex);
        } else {
            for i in (1..sets.len()).rev() {
                sets.swap(i, rng.below(i + 1));
            }
            sets.truncate(ntex);
            sets.sort_unstable();
        }
        let mut vars: Vec<Varying> = sets
            .into_iter()
            .map(|n| {
                let mask = match rng.below(5) {
                    0 | 1 => 0b0011,
                    2 => 0b0111,
                    _ => 0b1111,
                };
                Varying {
                    kind: VKind::Tex(n),
                    mask,
                    mag: if rng.chance(0.6) { 4.0 } else { 16.0 },
                    w_pos: mask & 8 != 0 && rng.chance(0.6),
                }
            })
            .collect();
        let sm3 = fp == Profile::Ps3_0;
        let colors = usize::from(if sm3 { 2 } else { limits.colors });
        for c in 0..colors {
            if rng.chance(if c == 0 { 0.5 } else { 0.25 }) {
                let mask = if rng.chance(0.7) { 0b1111 } else { 0b0111 };
                vars.push(Varying {
                    kind: VKind::Color(c as u8),
                    mask,
                    mag: 1.0,
                    w_pos: false,
                });
            }
        }
        let inputs = match fp {
            Profile::ArbFp1 | Profile::Ps3_0 => usize::from(limits.attribs),
            _ => usize::MAX,
        };
        let fog_ok = matches!(fp, Profile::ArbFp1 | Profile::Ps3_0);
        if fog_ok && rng.chance(0.25) {
            vars.push(Varying {
                kind: VKind::Fog,
                mask: if fp == Profile::ArbFp1 {
                    0b1111
                } else {
                    0b0001
                },
                mag: 16.0,
                w_pos: false,
            });
        }
        let wpos = matches!(fp, Profile::ArbFp1 | Profile::Ps3_0) && rng.chance(0.2);
        let cap = inputs.saturating_sub(usize::from(wpos));
        vars.truncate(cap);
        Iface { vars, wpos }
    }
}

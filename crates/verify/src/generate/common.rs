//! What the generators share: the random source, operand text (masks, swizzles, numbers)
//! and the interface a vertex program offers its fragment program.

use hoist_asm::Profile;
use rand::rngs::SmallRng;
use rand::{Rng as _, RngCore, SeedableRng};

/// What the generators may draw beyond the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reach {
    #[default]
    Plain,
    /// ARB fragment programs may also sample through shadow targets (with
    /// `OPTION ARB_fragment_program_shadow`).
    Shadow,
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

    /// An independent generator that leaves this one's draws as they were.
    pub(crate) fn side(&self, salt: u64) -> Rng {
        Rng::new(self.0.clone().next_u64() ^ salt)
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

/// How the vertex program fills one interpolant (`varyings` writes the special forms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum VForm {
    /// Whatever the generator computes.
    Computed,
    /// A literal.
    Constant([f32; 4]),
    /// A copy of a host parameter.
    Parameter,
    /// A value of parameters and literals only.
    Uniform,
    /// Not written at all.
    Unwritten,
    /// The same value as the other interpolant of pair `n` (written together).
    Shared(u8),
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
    /// How the vertex program fills it (`varyings`).
    pub form: VForm,
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
    pub(crate) fn random(rng: &mut Rng, fp: Profile) -> Iface {
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
            hoist_asm::sort::ord(&mut sets);
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
                    form: VForm::Computed,
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
                    form: VForm::Computed,
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
                form: VForm::Computed,
            });
        }
        let wpos = matches!(fp, Profile::ArbFp1 | Profile::Ps3_0) && rng.chance(0.2);
        let cap = inputs.saturating_sub(usize::from(wpos));
        vars.truncate(cap);
        Iface { vars, wpos }
    }
}

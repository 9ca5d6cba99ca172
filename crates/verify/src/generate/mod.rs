//! Random vertex/fragment program pairs, written the way compilers write them.
//!
//! [`pair`] is the input source of the soak, the fuzzers and the property tests. Each pair
//! is a vertex program and a fragment program of one dialect that link (every interpolant
//! the fragment program reads is written by the vertex program, except the few left
//! unwritten on purpose, see [`varyings`]), parse and validate under
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
//! Interpolants are also written the ways compilers leave them for Mesa's
//! `nir_opt_varyings` to clean up ([`varyings`]): constants, parameter copies, values of
//! parameters only, two outputs with one value, outputs nobody reads and inputs nobody
//! writes; pixel shaders declare some inputs `_centroid` or `_pp`.
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
//!   [`flow::pair`] makes such pairs for the executor's tests (the pixel trace's).
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
mod common;
mod consts;
mod d3d;
mod d3d_ps;
mod d3d_vs;
pub mod flow;
mod source;
mod varyings;

pub use common::Reach;
use common::{Iface, Rng};
use hoist_asm::{Profile, Program};
use hoist_raster::{Filter, Sampler, Texture, Wrap};
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

/// A random interface with some interpolants given a special form ([`varyings`]), drawn
/// from a side stream so that the pair's other draws stay as they were.
fn interface(rng: &mut Rng, fp: Profile) -> Iface {
    let mut iface = Iface::random(rng, fp);
    varyings::decorate(&mut rng.side(0x5641_5259), &mut iface.vars);
    iface
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
            let iface = interface(&mut rng, Profile::ArbFp1);
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
            let iface = interface(&mut rng, ps);
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

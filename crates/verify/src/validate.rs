//! Translation validation: an optimized pair is run against the original on seeded inputs.
//!
//! Code motion is legal when (1) at every vertex, each transported value is what the
//! fragment program would compute there, (2) each transported value is affine in the
//! interpolants, so interpolating it gives the per-fragment value, and (3) the fragment
//! program, given the same values, computes the same outputs. Each of these is checked
//! separately, which makes the first two exact or tightly bounded and the third bit-exact,
//! with no rounding amplified by discontinuous operations (`FLR`, compares, `KIL`, nearest
//! filtering) to blur the verdict:
//!
//! - [`Check::Vertex`]: both vertex programs run on every vertex of the input set; every
//!   output the optimized fragment program reads must be bit-identical to the original
//!   vertex output, or, in a transport slot, to the original fragment program's value of the
//!   transported instruction with the vertex's outputs as interpolants. The position must be
//!   bit-identical.
//! - [`Check::Affine`]: at random points inside each triangle, the interpolated transported
//!   values must match the fragment program's values at the interpolated inputs, within
//!   2⁻¹⁶ of the magnitude of the values involved (reassociation rounding; anything
//!   non-affine misses by far more).
//! - [`Check::Fragment`]: on 2×2 quads inside each triangle, the optimized fragment program,
//!   fed the original interpolants plus the exact transported values, must give bit-identical
//!   outputs and the same kills as the original.
//! - [`Check::Render`]: both pairs are rendered at a small size with smooth textures; more
//!   than 10% of the pixels off by more than 1% of the value range is a failure. This is the
//!   end-to-end backstop for gross errors (rasterization, clipping, linkage by semantic,
//!   which break most pixels); it is loose on purpose, because rounding differences of
//!   interpolated values are legitimate and discontinuities amplify them (a projective
//!   divide, a cube-face choice, or a `KIL` of a value that is exactly zero along a whole
//!   column of pixel centres), while the three checks above are exact and catch the subtle
//!   errors.
//!
//! Input sets ([`input_sets`]): the standard GPGPU quad with random parameters; a 3×3 grid
//! with random values in every vertex attribute; and the grid with each vertex's position
//! scaled by a random w in [0.5, 3], so perspective-correct interpolation is not affine in
//! screen space. Every set has random program parameters (both stages, `env` and `local`,
//! D3D9 `c#`), mirrored parameters copied as the optimizer asked, and random textures of
//! every target either fragment program samples. Programs run on Hoist's own executor
//! ([`hoist_raster::probe`]); nothing here knows the optimizer's internals beyond the
//! [`Outcome`] it returns.

use hoist_asm::Program;
use hoist_asm::ir::{ConstBinding, Dialect, RegFile, Semantic, TexTarget, WriteMask, unit_name};
use hoist_opt::Outcome;
use hoist_raster::probe::{self, StageEnv};
use hoist_raster::raster::{CompiledProgram, geometry_vertices, in_semantic};
use hoist_raster::texture::{TexShape, format_for_target};
use hoist_raster::{
    ATTRIBS, Caps, DrawState, Filter, Geometry, Mesh, MipFilter, Params, RenderConfig, Sampler,
    StageParams, TexFormat, Texture, Wrap,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Settings of a validation run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Seed of the random inputs.
    pub seed: u64,
    /// Width and height of the rendered check.
    pub render_size: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 0x05EE_D0F4_0157,
            render_size: 24,
        }
    }
}

/// Which check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    Vertex,
    Affine,
    Fragment,
    Render,
    /// The host parameters the optimized pair asks for contradict each other or the
    /// original pair's (one register would need two values).
    Parameters,
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Check::Vertex => "per-vertex",
            Check::Affine => "interpolation",
            Check::Fragment => "fragment",
            Check::Render => "render",
            Check::Parameters => "host parameter",
        })
    }
}

/// A disagreement between the original and the optimized pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub check: Check,
    /// The input set, e.g. "perspective grid (seed 17)".
    pub input: String,
    /// What differed, where, expected against found.
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} check on the {}: {}",
            self.check, self.input, self.detail
        )
    }
}

/// What a validation run checked, and the first failure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub input_sets: u32,
    pub vertices: u32,
    /// Transported values checked (per vertex and per interior point).
    pub values: u32,
    pub fragments: u32,
    pub pixels: u32,
    /// Largest interpolation error relative to the magnitude of the values involved.
    pub max_affine_error: f64,
    /// Largest absolute pixel difference of the rendered check.
    pub max_render_diff: f32,
    /// The textures every input set supplies, by unit, for the target each unit is
    /// sampled as ("unit 0 (CUBE): six 8×8 faces of noise, six 16×16 smooth faces").
    #[serde(default)]
    pub textures: Vec<String>,
    pub failure: Option<Failure>,
}

/// One seeded set of inputs.
pub struct InputSet {
    pub name: String,
    pub state: DrawState,
    pub params: Params,
    /// Noise textures (exact checks) and smooth ones (rendered check), by unit.
    pub textures: BTreeMap<u8, Arc<Texture>>,
    pub smooth: BTreeMap<u8, Arc<Texture>>,
    pub vertices: Vec<[[f32; 4]; ATTRIBS]>,
    pub indices: Vec<u32>,
}

/// The four programs of a check, compiled.
struct Compiled {
    vp: CompiledProgram,
    fp: CompiledProgram,
    source: CompiledProgram,
    opt_vp: CompiledProgram,
    opt_fp: CompiledProgram,
}

/// Validates `out` against the original pair. `Err` when the executor cannot run the
/// programs (the result is then not validated).
pub fn validate(vp: &Program, fp: &Program, out: &Outcome, cfg: &Config) -> Result<Report, String> {
    let compile = |p: &Program| CompiledProgram::new(p).map_err(|e| e.to_string());
    let c = Compiled {
        vp: compile(vp)?,
        fp: compile(fp)?,
        source: compile(&out.source_fp)?,
        opt_vp: compile(&out.vp)?,
        opt_fp: compile(&out.fp)?,
    };
    if let Some(f) = parameter_conflict(vp, fp, out) {
        return Ok(Report {
            failure: Some(f),
            ..Report::default()
        });
    }
    let traceable = !c.source.kernel.has_flow;
    let (targets, conflict) = sampled_targets(&c);
    if let Some(why) = conflict {
        return Err(why);
    }
    let mut report = Report {
        textures: targets.iter().map(|&(u, t)| texture_line(u, t)).collect(),
        ..Report::default()
    };
    for set in input_sets(&c, cfg.seed) {
        report.input_sets += 1;
        let opt_params = mirrored(&set.params, &set.state.gl, out);
        let run = SetRun {
            c: &c,
            out,
            set: &set,
            opt_params: &opt_params,
        };
        let verdict = run
            .vertex_and_affine(&mut report, traceable)
            .and_then(|()| run.fragments(&mut report, traceable))
            .and_then(|()| run.render(&mut report, cfg.render_size));
        if let Err(f) = verdict {
            report.failure = Some(f);
            break;
        }
    }
    Ok(report)
}

/// Vertex parameters of the optimized pair: the original ones plus the mirrored copies
/// (of host parameters, literals, or GL state only a fragment program can name). Rendering
/// an optimized pair outside a scene takes its parameters from here.
pub fn mirrored(params: &Params, gl: &hoist_raster::GlState, out: &Outcome) -> Params {
    let mut p = params.clone();
    let value = |b: &ConstBinding, stage: &StageParams| {
        match b {
            ConstBinding::Env(n) => stage.env.get(n).copied(),
            ConstBinding::Local(n) => stage.local.get(n).copied(),
            ConstBinding::Literal(l) => Some(l.value),
            ConstBinding::State(s) => Some(gl.value(s)),
        }
        .unwrap_or([0.0; 4])
    };
    let set = |stage: &mut StageParams, b: &ConstBinding, v: [f32; 4]| match b {
        ConstBinding::Env(n) => {
            stage.env.insert(*n, v);
        }
        ConstBinding::Local(n) => {
            stage.local.insert(*n, v);
        }
        _ => {}
    };
    // Fragment copies of vertex parameters first: moved code may read them.
    for m in out.mirrors.iter().filter(|m| m.to_fragment) {
        let v = value(&m.vertex, &params.vertex);
        set(&mut p.fragment, &m.fragment, v);
    }
    for m in out.mirrors.iter().filter(|m| !m.to_fragment) {
        let v = value(&m.fragment, &p.fragment);
        set(&mut p.vertex, &m.vertex, v);
    }
    p
}

/// The host parameters (`Env`, `Local`) a program's instructions read.
fn read_params(p: &Program) -> Vec<ConstBinding> {
    let mut read = vec![false; p.consts.len()];
    for inst in &p.insts {
        for (k, s) in inst.src.iter().enumerate() {
            if s.reg.file != RegFile::Const {
                continue;
            }
            let (lo, hi) = match &s.rel {
                Some(r) => (r.lo as usize, r.hi as usize),
                None => {
                    let i = s.reg.index as usize;
                    (i, i + inst.src_rows(k) as usize)
                }
            };
            read.iter_mut().take(hi).skip(lo).for_each(|r| *r = true);
        }
    }
    p.consts
        .iter()
        .zip(read)
        .filter(|(c, r)| *r && matches!(c.binding, ConstBinding::Env(_) | ConstBinding::Local(_)))
        .map(|(c, _)| c.binding.clone())
        .collect()
}

/// A copy the optimized pair asks the host for that lands on a parameter the original
/// pair reads for itself, or two copies into one parameter from different sources: the
/// host cannot give one register two values, so no render could show it.
fn parameter_conflict(vp: &Program, fp: &Program, out: &Outcome) -> Option<Failure> {
    let (own_vp, own_fp) = (read_params(vp), read_params(fp));
    let fail = |detail: String| Failure {
        check: Check::Parameters,
        input: "copies the host sets".into(),
        detail,
    };
    for (i, m) in out.mirrors.iter().enumerate() {
        let (target, source, own, stage, optimized) = if m.to_fragment {
            (&m.fragment, &m.vertex, &own_fp, "fragment", &out.fp)
        } else {
            (&m.vertex, &m.fragment, &own_vp, "vertex", &out.vp)
        };
        if !matches!(target, ConstBinding::Env(_) | ConstBinding::Local(_)) {
            continue;
        }
        if let ConstBinding::Env(n) = *target
            && optimized.dialect() == Dialect::D3d9
            && let Some(ConstBinding::Literal(l)) =
                optimized.consts.get(n as usize).map(|c| &c.binding)
        {
            return Some(fail(format!(
                "the {stage} register c{n} is to hold a copy of {source:?}, but the optimized {stage} program defines it as {:?}",
                l.value
            )));
        }
        if own.contains(target) {
            return Some(fail(format!(
                "the {stage} parameter {target:?} is to hold a copy of {source:?}, but the original {stage} program reads it as its own"
            )));
        }
        if let Some(o) = out.mirrors[..i].iter().find(|o| {
            o.to_fragment == m.to_fragment
                && (if m.to_fragment {
                    &o.fragment
                } else {
                    &o.vertex
                }) == target
                && (if m.to_fragment {
                    &o.vertex
                } else {
                    &o.fragment
                }) != source
        }) {
            let other = if m.to_fragment {
                &o.vertex
            } else {
                &o.fragment
            };
            return Some(fail(format!(
                "the {stage} parameter {target:?} is to hold copies of both {other:?} and {source:?}"
            )));
        }
    }
    None
}

/// The three input sets of a seed.
fn input_sets(c: &Compiled, seed: u64) -> Vec<InputSet> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut sets = Vec::new();
    for (k, name) in ["standard quad", "random-attribute grid", "perspective grid"]
        .into_iter()
        .enumerate()
    {
        let state = DrawState::default();
        let (vertices, indices) = match k {
            0 => geometry_vertices(&Geometry::Quad, &state, &Caps::default())
                .expect("the quad is valid"),
            _ => grid(&mut rng, k == 2),
        };
        let params = Params {
            vertex: random_params(&mut rng, &[&c.vp.program, &c.opt_vp.program]),
            fragment: random_params(&mut rng, &[&c.fp.program, &c.opt_fp.program]),
        };
        let (textures, smooth) = random_textures(&mut rng, c);
        sets.push(InputSet {
            name: format!("{name} (seed {seed})"),
            state,
            params,
            textures,
            smooth,
            vertices,
            indices,
        });
    }
    sets
}

/// A 3×3 grid over the viewport with random values in every attribute; `perspective`
/// scales each position by a random w in [0.5, 3].
fn grid(rng: &mut SmallRng, perspective: bool) -> (Vec<[[f32; 4]; ATTRIBS]>, Vec<u32>) {
    let mut vertices = Vec::new();
    for j in 0..3 {
        for i in 0..3 {
            let mut v: [[f32; 4]; ATTRIBS] = std::array::from_fn(|_| random_vec(rng));
            let w = if perspective {
                rng.random_range(0.5..3.0f32)
            } else {
                1.0
            };
            let (x, y) = (i as f32 - 1.0, j as f32 - 1.0);
            v[0] = [x * w, y * w, rng.random_range(-0.5..0.5f32) * w, w];
            vertices.push(v);
        }
    }
    let mut indices = Vec::new();
    for j in 0..2u32 {
        for i in 0..2u32 {
            let a = j * 3 + i;
            indices.extend([a, a + 1, a + 3, a + 3, a + 1, a + 4]);
        }
    }
    (vertices, indices)
}

fn random_vec(rng: &mut SmallRng) -> [f32; 4] {
    std::array::from_fn(|_| rng.random_range(-2.0..2.0f32))
}

/// Random values for every host parameter the programs read.
fn random_params(rng: &mut SmallRng, programs: &[&Program]) -> StageParams {
    let mut p = StageParams::default();
    for prog in programs {
        for (i, slot) in prog.consts.iter().enumerate() {
            match slot.binding {
                ConstBinding::Env(n) => {
                    p.env.entry(n).or_insert_with(|| random_vec(rng));
                }
                ConstBinding::Local(n) => {
                    p.local.entry(n).or_insert_with(|| random_vec(rng));
                }
                _ => {}
            }
            if prog.dialect() == Dialect::D3d9 && !matches!(slot.binding, ConstBinding::Literal(_))
            {
                p.env.entry(i as u16).or_insert_with(|| random_vec(rng));
            }
        }
    }
    p
}

/// A noise texture and a smooth one for every (unit, target) the programs sample.
type TextureSets = (BTreeMap<u8, Arc<Texture>>, BTreeMap<u8, Arc<Texture>>);

/// Edges of the noise textures (exact checks) and of the smooth ones (rendered check).
const TEXTURE_SIZES: (u32, u32) = (8, 16);

/// Width, height and depth of [`Texture::for_target`]'s texture of edge `size`.
fn extent(t: TexTarget, size: u32) -> (u32, u32, u32) {
    match TexShape::of_target(t) {
        TexShape::D1 => (size, 1, 1),
        TexShape::D2 | TexShape::Rect => (size, size, 1),
        TexShape::D3 => (size, size, size),
        TexShape::Cube => (size, size, 6),
    }
}

/// The target each unit is sampled as, by unit; `Some(why)` when a unit is sampled with
/// targets no one texture fits (its other lookups would read (0, 0, 0, 1), so nothing
/// could be validated about them).
fn sampled_targets(c: &Compiled) -> (Vec<(u8, TexTarget)>, Option<String>) {
    let mut units: BTreeMap<u8, TexTarget> = BTreeMap::new();
    for k in [&c.vp, &c.fp, &c.opt_vp, &c.opt_fp] {
        for &(unit, target) in &k.kernel.samplers {
            let first = *units.entry(unit).or_insert(target);
            if TexShape::of_target(first) != TexShape::of_target(target) {
                let why = format!(
                    "texture {} is sampled as {} and as {}, and a unit holds one \
                     texture: the {} lookups would read (0, 0, 0, 1)",
                    unit_name(unit),
                    first.arb_name(),
                    target.arb_name(),
                    target.arb_name()
                );
                return (Vec::new(), Some(why));
            }
        }
    }
    (units.into_iter().collect(), None)
}

/// One unit's supplied textures in words: "unit 0: CUBE six 8×8 faces (noise), CUBE six
/// 16×16 faces (smooth)".
fn texture_line(unit: u8, t: TexTarget) -> String {
    let shape = TexShape::of_target(t);
    let words = |size| {
        let (w, h, d) = extent(t, size);
        shape.describe_extent(w, h, d)
    };
    let (shadow, stored) = match format_for_target(t, TexFormat::Rgba32F).describe() {
        Some(d) => (format!(" ({})", t.arb_name()), format!(", {d}")),
        None => (String::new(), String::new()),
    };
    format!(
        "{}{shadow}: {} (noise), {} (smooth){stored}",
        unit_name(unit),
        words(TEXTURE_SIZES.0),
        words(TEXTURE_SIZES.1)
    )
}

fn random_textures(rng: &mut SmallRng, c: &Compiled) -> TextureSets {
    let (units, _) = sampled_targets(c);
    let (mut noise, mut smooth) = (BTreeMap::new(), BTreeMap::new());
    for (unit, target) in units {
        let sampler = Sampler {
            min: Filter::Nearest,
            mag: Filter::Nearest,
            mip: MipFilter::Nearest,
            wrap: Wrap::Repeat,
            ..Sampler::default()
        };
        // Shadow targets get depth textures with compare mode (`format_for_target`).
        let storage = format_for_target(target, TexFormat::Rgba32F);
        let t = Texture::for_target(target, TEXTURE_SIZES.0, sampler, &mut |_, _, _| {
            std::array::from_fn(|_| rng.random_range(0.0..1.0f32))
        });
        noise.insert(unit, Arc::new(storage.apply(t)));
        let phase: [f32; 4] = std::array::from_fn(|_| rng.random_range(0.0..6.0f32));
        let sampler = Sampler::new(Filter::Linear, Wrap::ClampToEdge);
        let t = Texture::for_target(target, TEXTURE_SIZES.1, sampler, &mut |x, y, z| {
            // A smooth function of where the texel is (for cube maps, of its direction, so
            // that it stays smooth across faces).
            let p = if target == TexTarget::Cube {
                cube_direction(TEXTURE_SIZES.1, x, y, z)
            } else {
                let n = TEXTURE_SIZES.1 as f32;
                [x as f32 / n, y as f32 / n, z as f32 / n]
            };
            std::array::from_fn(|i| 0.5 + 0.4 * (phase[i] + 2.0 * p[0] + 1.5 * p[1] + p[2]).sin())
        });
        smooth.insert(unit, Arc::new(storage.apply(t)));
    }
    (noise, smooth)
}

/// The direction of texel `(x, y)` of cube face `face` (+X, -X, +Y, -Y, +Z, -Z; the GL
/// face orientations), unnormalised.
fn cube_direction(size: u32, x: u32, y: u32, face: u32) -> [f32; 3] {
    let s = 2.0 * (x as f32 + 0.5) / size as f32 - 1.0;
    let t = 2.0 * (y as f32 + 0.5) / size as f32 - 1.0;
    match face {
        0 => [1.0, -t, -s],
        1 => [-1.0, -t, s],
        2 => [s, 1.0, t],
        3 => [s, -1.0, -t],
        4 => [s, -t, 1.0],
        _ => [-s, -t, -1.0],
    }
}

/// Values at one point, by semantic.
type Varyings = Vec<(Semantic, [f32; 4])>;

fn lookup(v: &Varyings, s: Semantic) -> [f32; 4] {
    v.iter()
        .rev()
        .find(|(x, _)| *x == s)
        .map_or(probe::UNWRITTEN, |(_, v)| *v)
}

/// `a` and `b` are the same value (bit for bit, any NaN equal to any NaN).
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// [`same`], but +0 equals -0: interpolation never delivers the sign of a zero vertex
/// value (`1·(-0) + 0·x + 0·y` is +0), so it cannot matter for a transported value.
fn equal(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn show(v: f32) -> String {
    format!("{v:e}")
}

/// Synthetic window position and facing of a fragment (the same for both programs).
fn fixed_input(s: Semantic, lane: usize) -> Option<[f32; 4]> {
    match s {
        Semantic::WindowPos => Some([lane as f32 + 0.5, 0.5, 0.5, 1.0]),
        Semantic::Face => Some([1.0, 0.0, 0.0, 0.0]),
        _ => None,
    }
}

/// Fragment inputs the optimized fragment program reads, by semantic and component: the
/// components some used lane needs (a `mov r1, t0` whose `r1.zw` nobody reads does not
/// read `t0.zw`; whatever arrives there cannot change an output).
fn reads_of(p: &Program) -> Vec<(Semantic, WriteMask)> {
    let mut out: Vec<(Semantic, WriteMask)> = Vec::new();
    let du = hoist_opt::analysis::defuse::DefUse::compute(p).ok();
    for (i, inst) in p.insts.iter().enumerate() {
        for (k, s) in inst.src.iter().enumerate() {
            if !s.reg.file.is_input() || s.reg.file == RegFile::Misc {
                continue;
            }
            let Some(sem) = in_semantic(p, s.reg) else {
                continue;
            };
            let m = if s.rel.is_some() || inst.src_rows(k) > 1 {
                inst.reads_of(k)
            } else {
                hoist_opt::edit::operand_reads(p, du.as_ref(), i, k)
            };
            match out.iter_mut().find(|(x, _)| *x == sem) {
                Some(e) => e.1 = e.1.union(m),
                None => out.push((sem, m)),
            }
        }
    }
    out
}

/// One input set's checks.
struct SetRun<'a> {
    c: &'a Compiled,
    out: &'a Outcome,
    set: &'a InputSet,
    opt_params: &'a Params,
}

impl SetRun<'_> {
    /// The original interpolant the optimized fragment program's input `sem`.`c` carries
    /// (`Outcome::varyings`: the packing may have relocated it); itself when none says so.
    fn original_of(&self, sem: Semantic, c: u8) -> (Semantic, u8) {
        match self.out.varyings.carried(sem, c) {
            hoist_opt::passes::fp_to_vp::Carried::Input { semantic, comp } => (semantic, comp),
            hoist_opt::passes::fp_to_vp::Carried::Moved { .. } => (sem, c),
        }
    }

    fn env<'e>(&'e self, params: &'e StageParams, smooth: bool) -> StageEnv<'e> {
        StageEnv {
            params,
            gl: &self.set.state.gl,
            textures: if smooth {
                &self.set.smooth
            } else {
                &self.set.textures
            },
            caps: &CAPS,
        }
    }

    fn fail(&self, check: Check, detail: String) -> Failure {
        Failure {
            check,
            input: self.set.name.clone(),
            detail,
        }
    }

    /// Per-vertex outputs of a vertex program, as the fragment stage sees them.
    fn vertex_varyings(&self, cp: &CompiledProgram, params: &StageParams) -> Vec<Varyings> {
        let run = probe::run_vertices(cp, &self.env(params, false), &self.set.vertices);
        run.outputs
            .iter()
            .map(|o| probe::varyings(&cp.program, o, &self.set.state).collect())
            .collect()
    }

    /// Runs the source fragment program traced at `points`; returns the trace.
    /// The source program reads the fragment copies of vertex parameters the varying
    /// passes made, so it runs with the optimized pair's fragment parameters.
    fn trace(&self, points: &[Varyings], quads: bool) -> Result<probe::Fragments, Failure> {
        let env = self.env(&self.opt_params.fragment, false);
        probe::run_fragments(&self.c.source, &env, points.len(), quads, true, &|l, s| {
            fixed_input(s, l).unwrap_or_else(|| lookup(&points[l], s))
        })
        .map_err(|e| self.fail(Check::Fragment, format!("the executor refused: {e}")))
    }

    /// The value transport `t` should carry at lane `l` of a trace.
    fn expected(
        trace: &probe::Fragments,
        t: &hoist_opt::passes::fp_to_vp::Transport,
        l: usize,
    ) -> f32 {
        trace.trace[t.inst as usize]
            .as_ref()
            .map_or(f32::NAN, |v| v[l][t.comp as usize])
    }

    fn vertex_and_affine(&self, report: &mut Report, traceable: bool) -> Result<(), Failure> {
        let orig = self.vertex_varyings(&self.c.vp, &self.set.params.vertex);
        let opt = self.vertex_varyings(&self.c.opt_vp, &self.opt_params.vertex);
        report.vertices += orig.len() as u32;
        for (v, (o, p)) in orig.iter().zip(&opt).enumerate() {
            let (a, b) = (
                lookup(o, Semantic::Position(0)),
                lookup(p, Semantic::Position(0)),
            );
            if (0..4).any(|c| !same(a[c], b[c])) {
                return Err(self.fail(
                    Check::Vertex,
                    format!("vertex {v}: position {b:?}, the original computes {a:?}"),
                ));
            }
        }
        if !traceable {
            return self.untransported(&orig, &opt);
        }
        // Interior points: two random weightings per triangle.
        let mut rng = SmallRng::seed_from_u64(self.set.vertices.len() as u64);
        let mut points = orig.clone();
        let mut weights = Vec::new();
        for tri in self.set.indices.chunks_exact(3) {
            for _ in 0..2 {
                let w = random_weights(&mut rng);
                points.push(interpolate(&orig, tri, w));
                weights.push((tri, w));
            }
        }
        let trace = self.trace(&points, false)?;
        self.at_vertices(report, &orig, &opt, &trace)?;
        self.affine(report, &opt, &trace, &weights, orig.len())
    }

    /// Without a trace (flow control: nothing moved) the optimized fragment program must read
    /// exactly the original interpolants.
    fn untransported(&self, orig: &[Varyings], opt: &[Varyings]) -> Result<(), Failure> {
        if !self.out.transports.is_empty() {
            return Err(self.fail(
                Check::Vertex,
                "values were transported out of a program that cannot be traced".into(),
            ));
        }
        self.compare_reads(orig, opt, &|_, _, _| None)
    }

    /// Every interpolant the optimized fragment program reads, at every vertex.
    fn compare_reads(
        &self,
        orig: &[Varyings],
        opt: &[Varyings],
        transported: &dyn Fn(usize, Semantic, u8) -> Option<(f32, String)>,
    ) -> Result<(), Failure> {
        // As it executes: an ARB fog option's appended code reads the fog coordinate.
        let reads = reads_of(&self.c.opt_fp.program);
        for (v, (o, p)) in orig.iter().zip(opt).enumerate() {
            for &(sem, mask) in &reads {
                let b = lookup(p, sem);
                for c in mask.iter() {
                    let (want, what) = transported(v, sem, c).unwrap_or_else(|| {
                        let (s, k) = self.original_of(sem, c);
                        (
                            lookup(o, s)[k as usize],
                            format!(
                                "the original vertex output {s:?}.{}",
                                hoist_asm::ir::COMP_NAMES[k as usize]
                            ),
                        )
                    });
                    let got = b[c as usize];
                    if !equal(want, got) {
                        return Err(self.fail(
                            Check::Vertex,
                            format!(
                                "vertex {v}: {sem:?}.{} is {}, {what} is {}",
                                hoist_asm::ir::COMP_NAMES[c as usize],
                                show(got),
                                show(want)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn at_vertices(
        &self,
        report: &mut Report,
        orig: &[Varyings],
        opt: &[Varyings],
        trace: &probe::Fragments,
    ) -> Result<(), Failure> {
        report.values += (orig.len() * self.out.transports.len()) as u32;
        let transported = |v: usize, sem: Semantic, c: u8| {
            let t = self
                .out
                .transports
                .iter()
                .find(|t| Semantic::TexCoord(t.texcoord) == sem && t.slot == c)?;
            Some((
                Self::expected(trace, t, v),
                format!(
                    "the fragment program's value of instruction {} .{} there",
                    t.inst + 1,
                    hoist_asm::ir::COMP_NAMES[t.comp as usize]
                ),
            ))
        };
        self.compare_reads(orig, opt, &transported)
    }

    fn affine(
        &self,
        report: &mut Report,
        opt: &[Varyings],
        trace: &probe::Fragments,
        weights: &[(&[u32], [f64; 3])],
        first: usize,
    ) -> Result<(), Failure> {
        let moved: Vec<usize> = self
            .out
            .fates
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f, hoist_opt::Fate::Moved { .. }))
            .map(|(i, _)| i)
            .collect();
        for (k, (tri, w)) in weights.iter().enumerate() {
            let lane = first + k;
            // Magnitude of everything the moved code computes at the corners and here.
            let mut scale = 1.0f64;
            for &i in &moved {
                if let Some(v) = &trace.trace[i] {
                    for l in tri.iter().map(|&t| t as usize).chain([lane]) {
                        for x in v[l] {
                            if x.is_finite() {
                                scale = scale.max(f64::from(x.abs()));
                            }
                        }
                    }
                }
            }
            for t in &self.out.transports {
                report.values += 1;
                let want = Self::expected(trace, t, lane);
                let sem = Semantic::TexCoord(t.texcoord);
                let got = (0..3)
                    .map(|j| w[j] * f64::from(lookup(&opt[tri[j] as usize], sem)[t.slot as usize]))
                    .sum::<f64>() as f32;
                let ok = if want.is_finite() && got.is_finite() {
                    let err = f64::from((want - got).abs()) / scale;
                    report.max_affine_error = report.max_affine_error.max(err);
                    err <= 1.0 / 65536.0
                } else {
                    equal(want, got) || (want.is_nan() && !got.is_finite())
                };
                if !ok {
                    return Err(self.fail(
                        Check::Affine,
                        format!(
                            "inside triangle {:?} at weights ({:.3}, {:.3}, {:.3}): instruction {} .{} interpolates to {}, the fragment program computes {}",
                            tri,
                            w[0],
                            w[1],
                            w[2],
                            t.inst + 1,
                            hoist_asm::ir::COMP_NAMES[t.comp as usize],
                            show(got),
                            show(want)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn fragments(&self, report: &mut Report, traceable: bool) -> Result<(), Failure> {
        let orig = self.vertex_varyings(&self.c.vp, &self.set.params.vertex);
        // One 2×2 quad per triangle, a hundredth of the triangle per pixel step.
        let mut rng = SmallRng::seed_from_u64(0x51DE ^ self.set.vertices.len() as u64);
        let mut points = Vec::new();
        for tri in self.set.indices.chunks_exact(3) {
            let w = random_weights(&mut rng);
            for (dx, dy) in [(0.0, 0.0), (0.01, 0.0), (0.0, 0.01), (0.01, 0.01)] {
                let w = [w[0] - dx - dy, w[1] + dx, w[2] + dy];
                points.push(interpolate(&orig, tri, w));
            }
        }
        report.fragments += points.len() as u32;
        let fenv = self.env(&self.set.params.fragment, false);
        let input =
            |l: usize, s: Semantic| fixed_input(s, l).unwrap_or_else(|| lookup(&points[l], s));
        let refused = |e: hoist_raster::RenderError| {
            self.fail(Check::Fragment, format!("the executor refused: {e}"))
        };
        let want = probe::run_fragments(&self.c.fp, &fenv, points.len(), true, false, &input)
            .map_err(refused)?;
        let trace = if traceable && !self.out.transports.is_empty() {
            Some(self.trace(&points, true)?)
        } else {
            None
        };
        let transports = &self.out.transports;
        let opt_input = |l: usize, s: Semantic| {
            let mut v = input(l, s);
            for (c, x) in v.iter_mut().enumerate() {
                let (from, k) = self.original_of(s, c as u8);
                if (from, k) != (s, c as u8) {
                    *x = input(l, from)[k as usize];
                }
            }
            if let (Semantic::TexCoord(k), Some(tr)) = (s, &trace) {
                for t in transports.iter().filter(|t| t.texcoord == k) {
                    v[t.slot as usize] = Self::expected(tr, t, l);
                }
            }
            v
        };
        let oenv = self.env(&self.opt_params.fragment, false);
        let got =
            probe::run_fragments(&self.c.opt_fp, &oenv, points.len(), true, false, &opt_input)
                .map_err(refused)?;
        for l in 0..points.len() {
            if want.killed[l] != got.killed[l] {
                return Err(self.fail(
                    Check::Fragment,
                    format!(
                        "fragment {l}: the original {} it, the optimized program {}",
                        if want.killed[l] { "kills" } else { "keeps" },
                        if got.killed[l] { "kills" } else { "keeps" }
                    ),
                ));
            }
            if want.killed[l] {
                continue;
            }
            for &(reg, a) in &want.outputs[l] {
                let b = got.outputs[l]
                    .iter()
                    .find(|(r, _)| *r == reg)
                    .map(|(_, v)| *v);
                let Some(b) = b else {
                    return Err(self.fail(
                        Check::Fragment,
                        format!("the optimized program no longer writes {reg:?}"),
                    ));
                };
                if (0..4).any(|c| !same(a[c], b[c])) {
                    return Err(self.fail(
                        Check::Fragment,
                        format!("fragment {l}: {reg:?} is {b:?}, the original computes {a:?}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn render(&self, report: &mut Report, size: u32) -> Result<(), Failure> {
        let mut cfg = RenderConfig {
            width: size,
            height: size,
            textures: self.set.smooth.clone(),
            params: self.set.params.clone(),
            geometry: Geometry::Mesh(Mesh {
                vertices: self.set.vertices.clone(),
                indices: self.set.indices.clone(),
            }),
            state: self.set.state.clone(),
            caps: CAPS.clone(),
            ..RenderConfig::default()
        };
        let refused = |e: hoist_raster::RenderError| {
            self.fail(Check::Render, format!("the executor refused: {e}"))
        };
        let a = hoist_raster::render(Some(&self.c.vp.program), Some(&self.c.fp.program), &cfg)
            .map_err(refused)?;
        cfg.params = self.opt_params.clone();
        let b = hoist_raster::render(
            Some(&self.c.opt_vp.program),
            Some(&self.c.opt_fp.program),
            &cfg,
        )
        .map_err(refused)?;
        let range = a.image.magnitude().max(1.0);
        let tol = 1e-2 * range;
        let mut bad = 0usize;
        let mut worst = (0usize, 0f32);
        for (i, (p, q)) in a.image.pixels.iter().zip(&b.image.pixels).enumerate() {
            let d = (0..4)
                .map(|c| {
                    if same(p[c], q[c]) {
                        0.0
                    } else if p[c].is_finite() && q[c].is_finite() {
                        (p[c] - q[c]).abs()
                    } else {
                        f32::INFINITY
                    }
                })
                .fold(0f32, f32::max);
            if d > worst.1 {
                worst = (i, d);
            }
            if d > tol {
                bad += 1;
            }
        }
        let n = a.image.pixels.len();
        report.pixels += n as u32;
        report.max_render_diff = report.max_render_diff.max(worst.1);
        if bad * 10 > n {
            let (x, y) = (worst.0 % size as usize, worst.0 / size as usize);
            return Err(self.fail(
                Check::Render,
                format!(
                    "{bad} of {n} pixels differ by more than {tol:e}; the worst, ({x}, {y}), is {:?} against the original's {:?}",
                    b.image.pixels[worst.0], a.image.pixels[worst.0]
                ),
            ));
        }
        Ok(())
    }
}

/// Caps of the checks: small, so no program can make validation slow.
static CAPS: std::sync::LazyLock<Caps> = std::sync::LazyLock::new(|| Caps {
    max_batch_instructions: 1 << 16,
    ..Caps::default()
});

fn random_weights(rng: &mut SmallRng) -> [f64; 3] {
    let a: f64 = rng.random_range(0.05..0.9);
    let b: f64 = rng.random_range(0.05..(0.95 - a).max(0.06));
    [a, b, 1.0 - a - b]
}

/// The interpolants at barycentric weights `w` of triangle `tri` (in f64, then rounded, as
/// the rasterizer does).
fn interpolate(at: &[Varyings], tri: &[u32], w: [f64; 3]) -> Varyings {
    let mut sems: Vec<Semantic> = Vec::new();
    for &v in tri {
        for (s, _) in &at[v as usize] {
            if !sems.contains(s) {
                sems.push(*s);
            }
        }
    }
    sems.into_iter()
        .map(|s| {
            let v = std::array::from_fn(|c| {
                (0..3)
                    .map(|j| w[j] * f64::from(lookup(&at[tri[j] as usize], s)[c]))
                    .sum::<f64>() as f32
            });
            (s, v)
        })
        .collect()
}

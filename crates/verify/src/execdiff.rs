//! Compiled execution against the interpreter, bit for bit: the check the soak runs on
//! every pair and the `compiled` fuzz target runs on every input.
//!
//! A pair is checked twice: each program's kernel (both stages, so vs_3_0 vertex texture
//! fetches too) runs one batch of random and edge-value inputs through the interpreter and
//! through the compiled module ([`kernel`]), and the pair is rendered both ways
//! ([`render`], the path the page and `hoist render` take, with its texture staging).
//! The textures are drawn per pair ([`textures`]): the target's shape or a 2D single-level
//! texture where the target takes one (the compiled code's inline path), nearest, linear or
//! mixed filters, clamp or repeat, no, nearest or linear mipmaps, RGBA32F, RGBA8 or depth,
//! with compare mode and depth texture mode drawn for depth textures. Floats compare by
//! their bits; two NaNs are equal whatever their payloads.
//!
//! [`ExecTally`] counts what was compared and drawn (fetches by dialect, stage, opcode and
//! target; write masks; swizzled and negated coordinates; texture kinds).

use hoist_asm::ir::TexTarget;
use hoist_asm::{Dialect, Op, Program, Stage};
use hoist_raster::compile::{LANES, compile};
use hoist_raster::exec::{ExecEnv, Machine};
use hoist_raster::jit::{self, Exec, Refusal};
use hoist_raster::raster::const_table;
use hoist_raster::texture::{CompareFunc, DepthMode, TexShape};
use hoist_raster::{
    Filter, GlState, MipFilter, RenderConfig, Sampler, StageParams, TexFormat, Texture, Wrap,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What was compared and drawn, and every difference found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExecTally {
    /// Pairs rendered both ways.
    pub renders: u64,
    /// Kernels run both ways.
    pub kernels: u64,
    /// Kernels the compiler refused (flow control, ...), by reason.
    pub refused: BTreeMap<String, u64>,
    /// Every difference, described.
    pub differences: Vec<String>,
    /// Fetches drawn: "ARB fragment TXP SHADOW2D", "D3D9 vertex texldl 2D", ...
    pub fetches: BTreeMap<String, u64>,
    /// Fetch write masks drawn (1..=15).
    pub masks: BTreeMap<u8, u64>,
    /// Fetch coordinates: "identity", "swizzled", "negated", "swizzled and negated".
    pub coords: BTreeMap<&'static str, u64>,
    /// Textures drawn: "colour", "colour, flat 2D", "depth", "depth, compare", ...
    pub textures: BTreeMap<String, u64>,
}

impl ExecTally {
    pub fn merge(&mut self, o: ExecTally) {
        self.renders += o.renders;
        self.kernels += o.kernels;
        add_all(&mut self.refused, o.refused);
        self.differences.extend(o.differences);
        add_all(&mut self.fetches, o.fetches);
        add_all(&mut self.masks, o.masks);
        add_all(&mut self.coords, o.coords);
        add_all(&mut self.textures, o.textures);
    }

    /// The summary line and the counts, one table per line.
    pub fn summary(&self, name: &str) -> String {
        let list = |m: &mut dyn Iterator<Item = (String, u64)>| {
            m.map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let refused: u64 = self.refused.values().sum();
        format!(
            "{name} compiled against interpreted: {} renders and {} kernels compared, {} differences; {refused} kernels refused ({})\n  fetches drawn: {}\n  write masks drawn: {}\n  coordinates: {}\n  textures: {}",
            self.renders,
            self.kernels,
            self.differences.len(),
            list(&mut self.refused.iter().map(|(k, v)| (k.clone(), *v))),
            list(&mut self.fetches.iter().map(|(k, v)| (k.clone(), *v))),
            list(&mut self.masks.iter().map(|(k, v)| (format!("{k:04b}"), *v))),
            list(&mut self.coords.iter().map(|(k, v)| (k.to_string(), *v))),
            list(&mut self.textures.iter().map(|(k, v)| (k.clone(), *v))),
        )
    }

    /// Counts the fetches of a program.
    pub fn count_fetches(&mut self, p: &Program) {
        let stage = match p.stage() {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        };
        for i in &p.insts {
            let Some(t) = i.tex else { continue };
            let (dialect, name) = fetch_name(p.profile.dialect(), i.op);
            let target = match p.profile.dialect() {
                Dialect::Arb => t.target.arb_name(),
                Dialect::D3d9 => t.target.d3d_name().unwrap_or(t.target.arb_name()),
            };
            *self
                .fetches
                .entry(format!("{dialect} {stage} {name} {target}"))
                .or_default() += 1;
            *self
                .masks
                .entry(i.dst.as_ref().map_or(15, |d| d.mask.0))
                .or_default() += 1;
            let s = &i.src[0];
            let swz = !s.swizzle.is_identity();
            let key = match (swz, s.negate) {
                (false, false) => "identity",
                (true, false) => "swizzled",
                (false, true) => "negated",
                (true, true) => "swizzled and negated",
            };
            *self.coords.entry(key).or_default() += 1;
        }
    }
}

fn add_all<K: Ord>(a: &mut BTreeMap<K, u64>, b: BTreeMap<K, u64>) {
    for (k, v) in b {
        *a.entry(k).or_default() += v;
    }
}

fn fetch_name(d: Dialect, op: Op) -> (&'static str, &'static str) {
    match d {
        Dialect::Arb => (
            "ARB",
            match op {
                Op::Txp => "TXP",
                Op::Txb => "TXB",
                _ => "TEX",
            },
        ),
        Dialect::D3d9 => (
            "D3D9",
            match op {
                Op::Txp => "texldp",
                Op::Txb => "texldb",
                Op::Texldl => "texldl",
                Op::Texldd => "texldd",
                _ => "texld",
            },
        ),
    }
}

/// The units both programs sample, with the first target each is sampled through.
fn units(programs: &[&Program]) -> Vec<(u8, TexTarget)> {
    let mut v: Vec<(u8, TexTarget)> = Vec::new();
    for p in programs {
        for t in p.insts.iter().filter_map(|i| i.tex) {
            if !v.iter().any(|u| u.0 == t.unit) {
                v.push((t.unit, t.target));
            }
        }
    }
    v
}

/// A seeded random texture for every unit the programs sample (see the module header);
/// each texture's kind is counted in `tally`.
pub fn textures(
    programs: &[&Program],
    seed: u64,
    tally: &mut ExecTally,
) -> BTreeMap<u8, Arc<Texture>> {
    let mut m = BTreeMap::new();
    for (unit, target) in units(programs) {
        let mut rng = SmallRng::seed_from_u64(seed ^ (u64::from(unit) << 56) ^ 0x7E57_u64);
        let (t, kind) = texture(target, &mut rng);
        *tally.textures.entry(kind).or_default() += 1;
        m.insert(unit, Arc::new(t));
    }
    m
}

fn filter(rng: &mut SmallRng) -> Filter {
    if rng.random_bool(0.5) {
        Filter::Linear
    } else {
        Filter::Nearest
    }
}

/// One random texture for `target` and a word for its kind.
pub fn texture(target: TexTarget, rng: &mut SmallRng) -> (Texture, String) {
    let min = filter(rng);
    let mag = if rng.random_bool(0.8) {
        min
    } else {
        filter(rng)
    };
    let sampler = Sampler {
        min,
        mag,
        mip: [MipFilter::None, MipFilter::Nearest, MipFilter::Linear][rng.random_range(0..3)],
        wrap: if rng.random_bool(0.5) {
            Wrap::Repeat
        } else {
            Wrap::ClampToEdge
        },
        ..Sampler::default()
    };
    let takes_2d = !matches!(target, TexTarget::T3D | TexTarget::Cube);
    let flat = takes_2d && rng.random_bool(if target == TexTarget::T2D { 0.5 } else { 0.3 });
    let (w, h) = (rng.random_range(1..9u32), rng.random_range(1..9u32));
    let size = [1, 2, 3, 5, 8][rng.random_range(0..5)];
    let mut texel = |_: u32, _: u32, _: u32| -> [f32; 4] {
        std::array::from_fn(|_| rng.random_range(-0.25f32..1.25))
    };
    let mut t = if flat {
        let texels = (0..w * h).map(|_| texel(0, 0, 0)).collect();
        Texture::new_2d(w, h, texels, TexFormat::Rgba32F, sampler)
    } else {
        Texture::for_target(target, size, sampler, &mut texel)
    };
    let shape = if flat || t.shape == TexShape::D2 {
        "2D"
    } else {
        match t.shape {
            TexShape::D1 => "1D",
            TexShape::Rect => "RECT",
            TexShape::D3 => "3D",
            TexShape::Cube => "CUBE",
            TexShape::D2 => "2D",
        }
    };
    let flat_word = if flat { ", one level" } else { "" };
    let kind = match rng.random_range(0..20) {
        0..=8 => format!("colour {shape}{flat_word}"),
        9..=11 => {
            t.format = TexFormat::Rgba8;
            t.quantize();
            format!("colour RGBA8 {shape}{flat_word}")
        }
        12..=14 => {
            let mode = DepthMode::ALL[rng.random_range(0..4)];
            t = t.into_depth(None, mode);
            format!("depth {shape}{flat_word}")
        }
        _ => {
            let f = CompareFunc::ALL[rng.random_range(0..8)];
            let mode = DepthMode::ALL[rng.random_range(0..4)];
            t = t.into_depth(Some(f), mode);
            format!("depth with compare {shape}{flat_word}")
        }
    };
    (t, kind)
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// An input value: mostly in [-0.6, 1.6] (w in [-1, 3]), one in sixteen an edge value.
fn input(rng: &mut SmallRng, w: bool) -> f32 {
    const EDGES: [f32; 10] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        0.5,
        -2.5,
    ];
    if rng.random_range(0..16) == 0 {
        EDGES[rng.random_range(0..EDGES.len())]
    } else if w {
        rng.random_range(-1.0..3.0)
    } else {
        rng.random_range(-0.6..1.6)
    }
}

/// Runs one batch of `p` through the interpreter and the compiled module; the first
/// difference, or the compiler's refusal.
pub fn kernel(
    p: &Program,
    textures: &BTreeMap<u8, Arc<Texture>>,
    seed: u64,
) -> Result<Option<String>, Refusal> {
    let k = compile(p).map_err(|e| Refusal::Unsupported(e.to_string()))?;
    let compiled = jit::prepare(&k)?;
    let consts = const_table(p, k.const_len, &StageParams::default(), &GlState::default());
    let texrefs: Vec<Option<&Texture>> =
        (0..32u8).map(|u| textures.get(&u).map(|t| &**t)).collect();
    let env = ExecEnv {
        consts: &consts,
        textures: &texrefs,
        shared_textures: &[],
        int_consts: &[],
        bool_consts: &[],
        quads: p.stage() == Stage::Fragment,
        max_loop_iterations: 255,
        max_call_depth: 8,
        max_batch_instructions: 1 << 22,
    };
    let mut a = Machine::new(&k);
    let mut b = Machine::new(&k);
    for m in [&mut a, &mut b] {
        m.bind_consts(&k, &consts);
        m.reset(&k);
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    for &(_, row) in &k.inputs {
        for c in 0..4 {
            let r = row as usize + c;
            let v: [f32; LANES] = std::array::from_fn(|_| input(&mut rng, c == 3));
            *a.regs[r] = v;
            *b.regs[r] = v;
        }
    }
    let live = [true; LANES];
    a.run(&k, &env, &live);
    compiled.run(&mut b, &k, &env, &live);
    for &(reg, row) in &k.outputs {
        for c in 0..4 {
            let r = row as usize + c;
            if let Some(l) = (0..LANES).find(|&l| !same(a.regs[r][l], b.regs[r][l])) {
                return Ok(Some(format!(
                    "{:?} kernel, {reg:?} component {c} lane {l}: interpreter {:?} ({:#010x}), compiled {:?} ({:#010x})",
                    p.stage(),
                    a.regs[r][l],
                    a.regs[r][l].to_bits(),
                    b.regs[r][l],
                    b.regs[r][l].to_bits()
                )));
            }
        }
    }
    if a.killed != b.killed {
        return Ok(Some(format!("{:?} kernel: kill masks differ", p.stage())));
    }
    if (a.insts_executed, a.slots_executed) != (b.insts_executed, b.slots_executed) {
        return Ok(Some(format!("{:?} kernel: statistics differ", p.stage())));
    }
    Ok(None)
}

/// Renders the pair on a `size`×`size` target both ways; the first differing pixel. A
/// pair the executor cannot render is no difference (both ways fail alike).
pub fn render(
    vp: Option<&Program>,
    fp: Option<&Program>,
    textures: &BTreeMap<u8, Arc<Texture>>,
    size: u32,
) -> Result<Option<String>, String> {
    let mut cfg = RenderConfig {
        width: size,
        height: size,
        textures: textures.clone(),
        ..RenderConfig::default()
    };
    cfg.caps.max_batch_instructions = 1 << 16;
    cfg.exec = Exec::Interp;
    let a = hoist_raster::render(vp, fp, &cfg).map_err(|e| e.to_string())?;
    cfg.exec = Exec::Compiled;
    let b = hoist_raster::render(vp, fp, &cfg).map_err(|e| e.to_string())?;
    if a.stats != b.stats {
        return Ok(Some(format!(
            "render statistics differ: {:?} against {:?}",
            a.stats, b.stats
        )));
    }
    for (i, (p, q)) in a.image.pixels.iter().zip(&b.image.pixels).enumerate() {
        if let Some(c) = (0..4).find(|&c| !same(p[c], q[c])) {
            return Ok(Some(format!(
                "render pixel ({}, {}) component {c}: interpreter {:?}, compiled {:?}",
                i as u32 % size,
                i as u32 / size,
                p[c],
                q[c]
            )));
        }
    }
    Ok(None)
}

/// Checks a pair both ways (both kernels, then a 16×16 render) with textures drawn from
/// `seed`; counts everything in `tally`, differences prefixed with `label`.
pub fn check_pair(label: &str, vp: &Program, fp: &Program, seed: u64, tally: &mut ExecTally) {
    let tex = textures(&[vp, fp], seed, tally);
    for (i, p) in [vp, fp].into_iter().enumerate() {
        tally.count_fetches(p);
        match kernel(p, &tex, seed ^ (i as u64 + 1)) {
            Ok(None) => tally.kernels += 1,
            Ok(Some(d)) => {
                tally.kernels += 1;
                tally.differences.push(format!("{label}: {d}"));
            }
            Err(r) => {
                let why = match r {
                    Refusal::Unsupported(s) => s
                        .split_once("): ")
                        .map_or(s.clone(), |(_, w)| w.to_string()),
                    other => other.to_string(),
                };
                *tally.refused.entry(why).or_default() += 1;
            }
        }
    }
    match render(Some(vp), Some(fp), &tex, 16) {
        Ok(None) => tally.renders += 1,
        Ok(Some(d)) => {
            tally.renders += 1;
            tally.differences.push(format!("{label}: {d}"));
        }
        Err(_) => {}
    }
}

//! What a pair's two shaders exchange with the host and with each other: the register
//! files the executor gives each program (and so the translation), the vertex attributes
//! read, the varyings by semantic, the constant tables, the texture bindings; and the binding
//! table the host reads ([`Bindings`], serialised for scripts and the page).
//!
//! Every rule here is the executor's (`hoist_raster::compile`, `program`, `raster`): the same
//! file sizes (every register up to the highest index an instruction or declaration names,
//! reset to zero per invocation), the same attribute slots, the same linking of vertex
//! outputs to fragment inputs by semantic (the last output register of a semantic wins; an
//! input nothing writes reads (0, 0, 0, 1)), back colours with two-sided lighting.

use crate::options::Options;
use hoist_asm::ir::{ConstBinding, RegFile, Semantic, TexTarget};
use hoist_asm::{Dialect, Op, Program, Reg, Stage};
use hoist_raster::program::{attrib_slot, in_semantic};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Bind group 0: uniform buffers (binding numbers below); group 1: textures, the k-th of the
/// pair's texture list at binding 2k and its sampler at 2k + 1.
pub const GROUP_UNIFORMS: u32 = 0;
pub const GROUP_TEXTURES: u32 = 1;
pub const BINDING_VERTEX_CONSTS: u32 = 0;
pub const BINDING_FRAGMENT_CONSTS: u32 = 1;
pub const BINDING_DRAW: u32 = 2;
pub const BINDING_VERTEX_INTS: u32 = 3;
pub const BINDING_FRAGMENT_INTS: u32 = 4;
/// The draw block: `size` (target width, height, 0, 0), `special` (NaN, +inf, −inf, 0: the
/// values WGSL cannot write as constants), `mvp` (4 rows), `tex` (8 texture matrices × 4
/// rows), all `vec4<f32>`; then `cmp` (16 × `vec4<u32>`, [`compare_words`] of each
/// texture binding).
pub const DRAW_VEC4S: u32 = 2 + 4 + 32 + 16;

/// What a shadow binding's lookup does in the shader (`cmp[k]` of the draw block): x the
/// compare function (0 off: the texture is sampled as it is; 1 + `CompareFunc::ALL`'s
/// index), y the depth mode (`DepthMode::ALL`'s index; the depth is in w for ALPHA, in x
/// otherwise), z 1 for linear filtering, w 1 for repeat.
pub fn compare_words(
    compare: Option<hoist_asm::semantics::CompareFunc>,
    mode: hoist_asm::semantics::DepthMode,
    linear: bool,
    repeat: bool,
) -> [u32; 4] {
    use hoist_asm::semantics::{CompareFunc, DepthMode};
    let f = compare.map_or(0, |f| {
        1 + CompareFunc::ALL.iter().position(|&x| x == f).unwrap_or(0) as u32
    });
    let m = DepthMode::ALL.iter().position(|&x| x == mode).unwrap_or(0) as u32;
    [f, m, u32::from(linear), u32::from(repeat)]
}

/// Whether `t` is a shadow target (a depth texture bound to it may compare).
pub fn is_shadow(t: TexTarget) -> bool {
    matches!(
        t,
        TexTarget::Shadow1D | TexTarget::Shadow2D | TexTarget::ShadowRect
    )
}
/// The integer block: `i` (16 × `vec4<i32>`, D3D9 `i#`), `b` (16 × `vec4<u32>`, `b#` in x).
pub const INT_VEC4S: u32 = 32;
/// WebGPU's guaranteed inter-stage variables and WebGL2's varying vectors (15) bound this.
pub const MAX_VARYINGS: usize = 15;
/// WebGPU's guaranteed sampled textures per stage.
pub const MAX_TEXTURES: usize = 16;

/// The binding table of a translated pair.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bindings {
    /// Vertex inputs: `@location(n)` / `layout(location = n)` is attribute slot n (ARB
    /// aliasing: 0 position, 1 weight, 2 normal, 3 colour, 4 secondary colour, 5 fog,
    /// 8 + n texcoord n; D3D9 by declared usage).
    pub attributes: Vec<Attribute>,
    /// Interpolants between the stages, by location.
    pub varyings: Vec<Varying>,
    pub uniforms: Vec<UniformBlock>,
    pub textures: Vec<TextureBinding>,
    /// The fragment stage writes depth (WebGPU then needs a depth attachment).
    pub frag_depth: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attribute {
    pub location: u32,
    pub semantic: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Varying {
    pub location: u32,
    pub semantic: String,
}

/// One uniform buffer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UniformBlock {
    /// `vertex_consts`, `fragment_consts`, `draw`, `vertex_ints`, `fragment_ints`.
    pub name: String,
    pub group: u32,
    pub binding: u32,
    /// Size in bytes (std140 / WGSL uniform layout: every member a 16-byte vector).
    pub bytes: u32,
    /// The GLSL ES uniform block names (one per stage that reads it).
    pub glsl: Vec<String>,
    /// For a constant table: where each slot's value comes from.
    pub slots: Vec<ConstSource>,
}

/// Where one constant slot's value comes from (the host fills the table as the executor's
/// `const_table` does).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstSource {
    pub slot: u16,
    /// `literal`, `env`, `local` or `state` (D3D9 `c#` without `def` are `env`).
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<[f32; 4]>,
    /// The ARB spelling of a state binding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// One texture binding: a unit sampled through one view dimension.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextureBinding {
    pub unit: u8,
    /// The IR target (ARB name: `2D`, `CUBE`, `SHADOW2D`, ...).
    pub target: String,
    /// `2d`, `3d` or `cube` (1D, RECT and shadow targets sample 2D textures).
    pub view: String,
    /// `vertex`, `fragment`.
    pub stages: Vec<String>,
    pub group: u32,
    pub texture: u32,
    pub sampler: u32,
    /// The GLSL ES sampler uniforms (one per stage that samples it).
    pub glsl: Vec<String>,
}

/// The view dimension a target samples through.
pub fn view_of(t: TexTarget) -> &'static str {
    match t {
        TexTarget::T3D => "3d",
        TexTarget::Cube => "cube",
        _ => "2d",
    }
}

/// The executor's register files of `p` and their sizes: every register up to the highest
/// index a declaration or an instruction names (raster's `compile::file_size`).
pub(crate) fn file_sizes(p: &Program) -> BTreeMap<RegFile, u16> {
    let mut n: BTreeMap<RegFile, u16> = BTreeMap::new();
    let mut see = |r: Reg| {
        let e = n.entry(r.file).or_insert(0);
        *e = (*e).max(r.index.saturating_add(1));
    };
    for d in &p.io {
        see(d.reg);
    }
    for i in &p.insts {
        if let Some(d) = &i.dst {
            see(d.reg);
            if let Some(rel) = &d.rel {
                see(rel.reg);
            }
        }
        for (k, s) in i.src.iter().enumerate() {
            if s.reg.file != RegFile::Const {
                if s.rel.is_some() {
                    see(s.reg);
                } else {
                    for r in 0..u16::from(i.src_rows(k)) {
                        see(Reg::new(s.reg.file, s.reg.index.saturating_add(r)));
                    }
                }
            }
            if let Some(rel) = &s.rel {
                see(rel.reg);
            }
        }
        if i.pred.is_some() {
            see(Reg::new(RegFile::Predicate, 0));
        }
    }
    let temps = n.entry(RegFile::Temp).or_insert(0);
    *temps = (*temps).max(p.num_temps);
    let addrs = n.entry(RegFile::Address).or_insert(0);
    *addrs = (*addrs).max(p.num_addrs);
    n.retain(|_, v| *v > 0);
    if let Some(l) = n.get_mut(&RegFile::Loop) {
        *l = 1;
    }
    n
}

/// The data sources of an instruction (D3D9 sampler operands are not data).
pub(crate) fn data_srcs(p: &Program, i: &hoist_asm::Inst) -> Vec<usize> {
    let n = hoist_asm::profile::src_count(i.op, p.profile);
    (0..i.src.len().min(n))
        .filter(|&k| i.src[k].reg.file != RegFile::Sampler)
        .collect()
}

/// What one program reads: registers read directly, files read relatively, the size of its
/// constant table, whether it reads `i#`/`b#`, the textures it samples.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scan {
    pub sizes: BTreeMap<RegFile, u16>,
    pub read: BTreeSet<Reg>,
    pub rel_files: BTreeSet<RegFile>,
    pub const_len: usize,
    pub ints: bool,
    pub textures: Vec<(u8, TexTarget)>,
}

impl Scan {
    pub fn new(p: &Program) -> Scan {
        let mut s = Scan {
            sizes: file_sizes(p),
            const_len: p.consts.len(),
            ..Scan::default()
        };
        for i in &p.insts {
            if let Some(t) = i.tex
                && !s.textures.contains(&(t.unit, t.target))
            {
                s.textures.push((t.unit, t.target));
            }
            for (k, src) in i.src.iter().enumerate() {
                s.source(i, k, src);
            }
            if i.op == Op::Loop || i.op == Op::Rep {
                s.ints = true;
            }
        }
        s
    }

    fn source(&mut self, i: &hoist_asm::Inst, k: usize, src: &hoist_asm::Src) {
        match src.reg.file {
            RegFile::ConstInt | RegFile::ConstBool => self.ints = true,
            RegFile::Const => match &src.rel {
                Some(rel) => self.const_len = self.const_len.max(usize::from(rel.hi)),
                None => {
                    let top = usize::from(src.reg.index) + usize::from(i.src_rows(k));
                    self.const_len = self.const_len.max(top);
                }
            },
            f => {
                if src.rel.is_some() {
                    self.rel_files.insert(f);
                } else {
                    for r in 0..u16::from(i.src_rows(k)) {
                        self.read
                            .insert(Reg::new(f, src.reg.index.saturating_add(r)));
                    }
                }
            }
        }
        if let Some(rel) = &src.rel {
            self.read.insert(rel.reg);
        }
    }

    pub fn size(&self, f: RegFile) -> u16 {
        self.sizes.get(&f).copied().unwrap_or(0)
    }

    /// Registers of `files` the program has, in the executor's order.
    pub fn regs(&self, files: &[RegFile]) -> Vec<Reg> {
        let mut v = Vec::new();
        for (&f, &n) in &self.sizes {
            if files.contains(&f) {
                v.extend((0..n).map(|i| Reg::new(f, i)));
            }
        }
        v
    }

    /// Whether the program reads register `r` (directly or through a relative read).
    pub fn reads(&self, r: Reg) -> bool {
        self.read.contains(&r) || self.rel_files.contains(&r.file)
    }
}

/// Where a fragment input register gets its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FragSrc {
    /// Varying locations: front, and back with two-sided lighting.
    Vary(u32, Option<u32>),
    WindowPos,
    Face,
    Unwritten,
}

/// The interface of a pair.
#[derive(Clone, Debug, Default)]
pub(crate) struct Iface {
    /// Varying semantics by location.
    pub varyings: Vec<Semantic>,
    /// Fragment input registers and their sources (a fixed-function fragment stage has none).
    pub finputs: Vec<(Reg, FragSrc)>,
    /// Fixed-function fragment colours: primary, secondary (colour sum).
    pub ff_colors: (Option<FragSrc>, Option<FragSrc>),
    /// Attribute slots the vertex stage reads.
    pub attributes: BTreeSet<usize>,
    /// Vertex input registers and their slots.
    pub vinputs: Vec<(Reg, usize)>,
    /// Texture bindings of the pair in binding order.
    pub textures: Vec<(u8, TexTarget)>,
    pub vscan: Option<Scan>,
    pub fscan: Option<Scan>,
}

fn slot_of(sems: &mut Vec<Semantic>, s: Semantic) -> u32 {
    match sems.iter().position(|&x| x == s) {
        Some(i) => i as u32,
        None => {
            sems.push(s);
            (sems.len() - 1) as u32
        }
    }
}

fn two_side(sems: &mut Vec<Semantic>, s: Semantic, opts: &Options) -> FragSrc {
    let front = slot_of(sems, s);
    let back = match s {
        Semantic::Color(n) if opts.two_side && n < 2 => Some(slot_of(sems, Semantic::BackColor(n))),
        _ => None,
    };
    FragSrc::Vary(front, back)
}

impl Iface {
    pub fn new(vp: Option<&Program>, fp: Option<&Program>, opts: &Options) -> Iface {
        let mut f = Iface {
            vscan: vp.map(Scan::new),
            fscan: fp.map(Scan::new),
            ..Iface::default()
        };
        let mut sems = Vec::new();
        match (fp, &f.fscan) {
            (Some(p), Some(scan)) => {
                for reg in scan.regs(&[RegFile::Input, RegFile::TexCoord, RegFile::Misc]) {
                    if !scan.reads(reg) {
                        continue;
                    }
                    let src = match in_semantic(p, reg) {
                        Some(Semantic::WindowPos) => FragSrc::WindowPos,
                        Some(Semantic::Face) => FragSrc::Face,
                        Some(s) => two_side(&mut sems, s, opts),
                        None => FragSrc::Unwritten,
                    };
                    f.finputs.push((reg, src));
                }
            }
            _ => {
                f.ff_colors.0 = Some(two_side(&mut sems, Semantic::Color(0), opts));
                if opts.color_sum {
                    f.ff_colors.1 = Some(two_side(&mut sems, Semantic::Color(1), opts));
                }
            }
        }
        f.varyings = sems;
        f.vertex_inputs(vp);
        for scan in [&f.vscan, &f.fscan].into_iter().flatten() {
            for t in &scan.textures {
                if !f.textures.contains(t) {
                    f.textures.push(*t);
                }
            }
        }
        f
    }

    fn vertex_inputs(&mut self, vp: Option<&Program>) {
        match (vp, &self.vscan) {
            (Some(p), Some(scan)) => {
                for reg in scan.regs(&[RegFile::Input]) {
                    if scan.reads(reg) {
                        let slot = attrib_slot(p, reg);
                        self.vinputs.push((reg, slot));
                        self.attributes.insert(slot);
                    }
                }
                if p.has_option(&hoist_asm::ir::ArbOption::PositionInvariant) {
                    self.attributes.insert(0);
                }
            }
            _ => {
                self.attributes.insert(0);
                for s in &self.varyings {
                    match *s {
                        Semantic::Color(n) | Semantic::BackColor(n) => {
                            self.attributes.insert(3 + usize::from(n.min(1)));
                        }
                        Semantic::TexCoord(n) if n < 8 => {
                            self.attributes.insert(8 + usize::from(n));
                        }
                        Semantic::Fog(_) => {
                            self.attributes.insert(5);
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// The binding table (GLSL names are filled in once naga has named them).
    pub fn bindings(&self, vp: Option<&Program>, fp: Option<&Program>) -> Bindings {
        let mut b = Bindings {
            attributes: self
                .attributes
                .iter()
                .map(|&s| Attribute {
                    location: s as u32,
                    semantic: slot_name(s),
                })
                .collect(),
            varyings: self
                .varyings
                .iter()
                .enumerate()
                .map(|(i, s)| Varying {
                    location: i as u32,
                    semantic: semantic_name(*s),
                })
                .collect(),
            ..Bindings::default()
        };
        let consts = |name: &str, binding, p: &Program, scan: &Scan| UniformBlock {
            name: name.into(),
            group: GROUP_UNIFORMS,
            binding,
            bytes: 16 * scan.const_len.max(1) as u32,
            glsl: Vec::new(),
            slots: const_sources(p, scan.const_len),
        };
        if let (Some(p), Some(s)) = (vp, &self.vscan) {
            b.uniforms
                .push(consts("vertex_consts", BINDING_VERTEX_CONSTS, p, s));
        }
        if let (Some(p), Some(s)) = (fp, &self.fscan) {
            b.uniforms
                .push(consts("fragment_consts", BINDING_FRAGMENT_CONSTS, p, s));
        }
        b.uniforms.push(UniformBlock {
            name: "draw".into(),
            group: GROUP_UNIFORMS,
            binding: BINDING_DRAW,
            bytes: 16 * DRAW_VEC4S,
            glsl: Vec::new(),
            slots: Vec::new(),
        });
        for (name, binding, scan) in [
            ("vertex_ints", BINDING_VERTEX_INTS, &self.vscan),
            ("fragment_ints", BINDING_FRAGMENT_INTS, &self.fscan),
        ] {
            if scan.as_ref().is_some_and(|s| s.ints) {
                b.uniforms.push(UniformBlock {
                    name: name.into(),
                    group: GROUP_UNIFORMS,
                    binding,
                    bytes: 16 * INT_VEC4S,
                    glsl: Vec::new(),
                    slots: Vec::new(),
                });
            }
        }
        b.textures = self.texture_bindings();
        b.frag_depth = fp.is_some()
            && self
                .fscan
                .as_ref()
                .is_some_and(|s| s.size(RegFile::DepthOut) > 0);
        b
    }

    fn texture_bindings(&self) -> Vec<TextureBinding> {
        self.textures
            .iter()
            .enumerate()
            .map(|(k, &(unit, target))| {
                let mut stages = Vec::new();
                for (name, scan) in [("vertex", &self.vscan), ("fragment", &self.fscan)] {
                    if scan
                        .as_ref()
                        .is_some_and(|s| s.textures.contains(&(unit, target)))
                    {
                        stages.push(name.to_string());
                    }
                }
                TextureBinding {
                    unit,
                    target: target.arb_name().to_string(),
                    view: view_of(target).to_string(),
                    stages,
                    group: GROUP_TEXTURES,
                    texture: 2 * k as u32,
                    sampler: 2 * k as u32 + 1,
                    glsl: Vec::new(),
                }
            })
            .collect()
    }
}

/// Each slot of a constant table of `len` slots (what raster's `const_table` reads).
fn const_sources(p: &Program, len: usize) -> Vec<ConstSource> {
    (0..len.max(p.consts.len()))
        .map(|i| {
            let mut c = ConstSource {
                slot: i as u16,
                source: "env".into(),
                index: None,
                value: None,
                state: None,
            };
            match p.consts.get(i).map(|c| &c.binding) {
                Some(ConstBinding::Literal(l)) => {
                    c.source = "literal".into();
                    c.value = Some(l.value);
                }
                Some(ConstBinding::Env(e)) => c.index = Some(*e),
                Some(ConstBinding::Local(e)) => {
                    c.source = "local".into();
                    c.index = Some(*e);
                }
                Some(ConstBinding::State(s)) => {
                    c.source = "state".into();
                    c.state = Some(hoist_asm::arb::state_text(*s));
                }
                None if p.dialect() == Dialect::D3d9 => c.index = Some(i as u16),
                None => c.source = "zero".into(),
            }
            c
        })
        .collect()
}

/// The conventional name of an attribute slot.
pub fn slot_name(s: usize) -> String {
    match s {
        0 => "position".into(),
        1 => "weight".into(),
        2 => "normal".into(),
        3 => "color".into(),
        4 => "secondary_color".into(),
        5 => "fog".into(),
        6 => "point_size".into(),
        7 => "blend_indices".into(),
        n @ 8..=13 => format!("texcoord{}", n - 8),
        14 => "tangent".into(),
        15 => "binormal".into(),
        n => format!("attrib{n}"),
    }
}

/// A semantic in words (`texcoord3`, `color0`, `back_color1`, `fog`).
pub fn semantic_name(s: Semantic) -> String {
    let (w, n) = match s {
        Semantic::Position(n) => ("position", n),
        Semantic::BlendWeight(n) => ("blend_weight", n),
        Semantic::BlendIndices(n) => ("blend_indices", n),
        Semantic::Normal(n) => ("normal", n),
        Semantic::PointSize(n) => ("point_size", n),
        Semantic::TexCoord(n) => ("texcoord", n),
        Semantic::Tangent(n) => ("tangent", n),
        Semantic::Binormal(n) => ("binormal", n),
        Semantic::TessFactor(n) => ("tess_factor", n),
        Semantic::PositionT(n) => ("position_t", n),
        Semantic::Color(n) => ("color", n),
        Semantic::Fog(n) => ("fog", n),
        Semantic::Depth(n) => ("depth", n),
        Semantic::Sample(n) => ("sample", n),
        Semantic::Generic(n) => ("generic", n),
        Semantic::BackColor(n) => ("back_color", n),
        Semantic::WindowPos => return "window_position".into(),
        Semantic::Face => return "face".into(),
    };
    format!("{w}{n}")
}

/// The stage of a program as a word.
pub fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}

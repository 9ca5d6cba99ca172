//! The pixel trace: one pixel of one draw, from the vertices through the interpolators to the
//! value the target holds, for the pixel debugger (`hoist debug`, the page's debugger).
//!
//! Nothing here computes an operation: the draw is prepared by [`PreparedDraw`] as a render
//! prepares it, the covering triangle's vertices run through [`probe`](crate::probe)'s vertex
//! runner, and the pixel's whole 8×8 tile runs through [`PreparedDraw::run_fragments`] with
//! the same coverage mask, so derivatives, LOD and the batch's instruction budget are the
//! render's. An [`Observer`] watches the interpreter ([`Machine::run_observed`]): it records
//! every instruction's result at the traced lanes, the flow decisions (branches, loop
//! iterations with `aL`, breaks, calls), predicates, kills, and texture fetches through
//! [`texture::explain`](crate::texture::explain) (the sampler's own path for the value, and
//! the texels it reads with their weights). Every triangle covering the pixel is shaded in draw order, and the
//! depth test and colour write are applied as the back end applies them, so the traced final
//! value is the rendered one bit for bit (the property test in `tests/trace.rs`).
//!
//! A render pays nothing for this: the observer of an untraced run is [`crate::exec::Quiet`],
//! whose calls compile away (BENCHMARKS.md, "Pixel trace"). Values are [`Bits`], serialized
//! as their bits.

use crate::compile::{KOp, Kernel, TexKind};
use crate::draw::{ATTRIBS, RenderConfig, Stats};
use crate::error::RenderError;
use crate::exec::{ExecEnv, FlowEvent, Machine, Mask, Observer};
use crate::probe::{StageEnv, run_vertices_observed};
use crate::raster::{
    BAND, CompiledProgram, DrawInput, FragSrc, LANE_XY, PreparedDraw, Shaded, Staged, TILE_W, Tri,
    clipped_window, coverage, fragment_depth, in_semantic, vary_slot,
};
use crate::texture::{FetchTrace, Texture, explain};
use crate::value::{Bits, Bits64, Vec4, vec4};
use hoist_asm::ir::Interp;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One pixel of a draw, traced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PixelTrace {
    pub x: u32,
    pub y: u32,
    /// The triangle whose fragment the trace shows: the last one that wrote the pixel, or,
    /// when none did (killed, or failing the depth test), the last one covering it.
    pub primitive: Primitive,
    /// The vertex program at the primitive's three vertices (values per vertex); empty for
    /// fixed function.
    pub vertex: Vec<Step>,
    pub interpolation: Interpolation,
    /// The fragment program at the pixel (one value each); empty for fixed function.
    pub fragment: Vec<Step>,
    /// The fragment program's output registers (or the fixed-function colour).
    pub outputs: Vec<Output>,
    /// Every triangle covering the pixel, in draw order, with what became of its fragment.
    pub candidates: Vec<Candidate>,
    /// The value the target holds at the pixel after the draw.
    pub pixel: Vec4,
}

/// The triangle of a trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Primitive {
    /// Triangle number in the draw's index list.
    pub index: u32,
    /// Its three vertex numbers.
    pub vertices: [u32; 3],
    /// Clipping cut it: the corners below are the clipped polygon's fan triangle.
    pub clipped: bool,
    pub front: bool,
    /// Window position (x, y), depth and 1/w of the three corners the rasterizer used.
    pub window: [[Bits64; 2]; 3],
    pub depth: [Bits64; 3],
    pub inv_w: [Bits64; 3],
}

/// Interpolation at the pixel centre.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interpolation {
    /// Screen-space barycentric weights of the three corners at the pixel centre.
    pub barycentric: [Bits64; 3],
    /// Perspective-correct weights (barycentric ÷ w, normalised).
    pub perspective: [Bits64; 3],
    /// The three corners have the same w: varyings interpolate affinely.
    pub affine: bool,
    pub inputs: Vec<Interpolated>,
}

/// One fragment input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interpolated {
    /// The input's semantic (`TexCoord(0)`, `Color(0)`, `WindowPos`, ...).
    pub semantic: String,
    /// Where its value comes from: `varying`, `back varying` (two-sided lighting, back
    /// face), `window position`, `facing`, `unwritten`.
    pub source: String,
    /// The declared qualifier (`centroid`); the rasterizer samples every input at the
    /// pixel centre.
    pub qualifier: Option<String>,
    /// The varying at the three corners (for varyings).
    pub vertices: Option<[Vec4; 3]>,
    /// The value the fragment program reads.
    pub value: Vec4,
}

/// One output register of the fragment stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Output {
    pub register: String,
    pub value: Vec4,
}

/// A triangle covering the pixel and what became of its fragment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub primitive: u32,
    pub killed: bool,
    /// The fragment's depth, and whether it passed, when the depth test is on.
    pub depth: Option<(Bits, bool)>,
    /// It wrote the target.
    pub wrote: bool,
}

/// One executed instruction, or one flow decision, of a traced stage. Per-invocation
/// fields hold one entry per traced invocation (three vertices, or the one fragment);
/// `None` where that invocation did not run it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The instruction's index in the program.
    pub inst: u32,
    /// The instruction as printed.
    pub op: String,
    /// Flow-control nesting depth of the instruction.
    pub nesting: u32,
    /// Destination components written (bit 0 = x); 0 for instructions without one.
    pub mask: u8,
    /// The destination register after the instruction (all four components).
    pub values: Vec<Option<Vec4>>,
    /// D3D9 predication: the predicate per destination component.
    pub pred: Vec<Option<[bool; 4]>>,
    /// Texture fetches: what each invocation read.
    pub fetch: Vec<Option<FetchTrace>>,
    /// `KIL`/`texkill`: whether the invocation is discarded after it.
    pub killed: Vec<Option<bool>>,
    pub flow: Option<Flow>,
}

/// A flow-control decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Flow {
    /// `if`: the first branch taken.
    If {
        taken: Vec<Option<bool>>,
    },
    /// The start of loop iteration `iter` (0-based), with `aL` for `loop`.
    Iteration {
        iter: u32,
        counter: Option<Bits>,
        running: Vec<bool>,
    },
    /// The loop was left after `iterations` iterations.
    LoopEnd {
        iterations: u32,
    },
    /// `break`/`breakc`: the invocation leaves the loop.
    Break {
        hit: Vec<Option<bool>>,
    },
    /// `call`/`callnz`: the invocation enters the subroutine.
    Call {
        entered: Vec<Option<bool>>,
    },
    Ret,
}

fn read(m: &Machine, row: u32, lane: usize) -> Vec4 {
    std::array::from_fn(|c| Bits(m.regs[row as usize + c][lane]))
}

/// The printed text and the nesting depth of every instruction of a program.
struct Listing {
    text: Vec<String>,
    nesting: Vec<u32>,
}

impl Listing {
    fn of(cp: &CompiledProgram) -> Listing {
        let printed = hoist_asm::print_with_spans(&cp.program);
        let lines: Vec<&str> = printed.text.lines().collect();
        let text = printed
            .insts
            .iter()
            .map(|s| lines.get(s.line).map_or("", |l| l.trim()).to_string())
            .collect();
        let mut depth = 0u32;
        let nesting = cp
            .kernel
            .insts
            .iter()
            .map(|i| match i.op {
                KOp::If(_) | KOp::Loop(_) | KOp::Rep(_) => {
                    depth += 1;
                    depth - 1
                }
                KOp::Else => depth.saturating_sub(1),
                KOp::Endif | KOp::Endloop | KOp::Endrep => {
                    depth = depth.saturating_sub(1);
                    depth
                }
                KOp::Label => {
                    depth = 0;
                    0
                }
                _ => depth,
            })
            .collect();
        Listing { text, nesting }
    }
}

/// The observer that records a stage at some lanes of its batch.
struct Recorder<'a> {
    cp: &'a CompiledProgram,
    listing: &'a Listing,
    lanes: Vec<usize>,
    steps: Vec<Step>,
    pending: Option<Step>,
    /// Per traced lane, the kernel's input registers as loaded.
    inputs: Vec<Vec<Vec4>>,
}

impl<'a> Recorder<'a> {
    fn new(cp: &'a CompiledProgram, listing: &'a Listing, lanes: Vec<usize>) -> Recorder<'a> {
        Recorder {
            cp,
            listing,
            lanes,
            steps: Vec::new(),
            pending: None,
            inputs: Vec::new(),
        }
    }

    fn k(&self) -> &Kernel {
        &self.cp.kernel
    }

    fn step(&self, pc: usize) -> Step {
        Step {
            inst: pc as u32,
            op: self.listing.text.get(pc).cloned().unwrap_or_default(),
            nesting: self.listing.nesting.get(pc).copied().unwrap_or(0),
            mask: 0,
            values: Vec::new(),
            pred: Vec::new(),
            fetch: Vec::new(),
            killed: Vec::new(),
            flow: None,
        }
    }

    fn per<T>(&self, active: &Mask, f: impl Fn(usize) -> T) -> Vec<Option<T>> {
        self.lanes
            .iter()
            .map(|&l| active[l].then(|| f(l)))
            .collect()
    }

    fn any(&self, active: &Mask) -> bool {
        self.lanes.iter().any(|&l| active[l])
    }

    fn fetch(&self, pc: usize, m: &Machine, env: &ExecEnv, lane: usize) -> Option<FetchTrace> {
        let ins = &self.k().insts[pc];
        let KOp::Tex(kind, unit, target) = ins.op else {
            return None;
        };
        let tex: Option<&Texture> = env.textures.get(unit as usize).copied().flatten();
        let rows = |i: usize| -> [&crate::compile::Row; 4] {
            std::array::from_fn(|c| &*m.regs[ins.src[i][c] as usize])
        };
        let grads = (kind == TexKind::Grad && ins.src.len() >= 3).then(|| (rows(1), rows(2)));
        Some(explain(tex, kind, target, rows(0), grads, env.quads, lane))
    }
}

impl Observer for Recorder<'_> {
    fn begin(&mut self, m: &Machine) {
        let k = &self.cp.kernel;
        self.inputs = self
            .lanes
            .iter()
            .map(|&l| k.inputs.iter().map(|&(_, row)| read(m, row, l)).collect())
            .collect();
    }

    fn before(&mut self, pc: usize, m: &Machine, env: &ExecEnv, active: &Mask) {
        if !self.any(active) {
            return;
        }
        let ins = &self.k().insts[pc];
        let mut step = self.step(pc);
        if matches!(ins.op, KOp::Tex(..)) {
            step.fetch = self
                .per(active, |l| self.fetch(pc, m, env, l))
                .into_iter()
                .map(Option::flatten)
                .collect();
        }
        if let Some((rows, neg)) = ins.pred {
            step.pred = self.per(active, |l| {
                std::array::from_fn(|c| (m.regs[rows[c] as usize][l] != 0.0) != neg)
            });
        }
        self.pending = Some(step);
    }

    fn after(&mut self, pc: usize, m: &Machine, active: &Mask) {
        let Some(mut step) = self.pending.take() else {
            return;
        };
        let ins = &self.k().insts[pc];
        let has_dst = self
            .cp
            .program
            .insts
            .get(pc)
            .is_some_and(|i| i.dst.is_some());
        if has_dst && ins.mask != 0 {
            step.mask = ins.mask;
            step.values = self.per(active, |l| read(m, ins.dst, l));
        }
        if matches!(ins.op, KOp::Kill(_)) {
            step.killed = self.per(active, |l| m.killed[l]);
        }
        self.steps.push(step);
    }

    fn flow(&mut self, pc: usize, ev: FlowEvent<'_>) {
        let (flow, active) = match ev {
            FlowEvent::If { taken, active } => (
                Flow::If {
                    taken: self.per(active, |l| taken[l]),
                },
                active,
            ),
            FlowEvent::Iteration {
                iter,
                counter,
                active,
            } => (
                Flow::Iteration {
                    iter,
                    counter: counter.map(Bits),
                    running: self.lanes.iter().map(|&l| active[l]).collect(),
                },
                active,
            ),
            FlowEvent::LoopEnd { iterations, active } => (Flow::LoopEnd { iterations }, active),
            FlowEvent::Break { hit, active } => (
                Flow::Break {
                    hit: self.per(active, |l| hit[l]),
                },
                active,
            ),
            FlowEvent::Call { entered, active } => (
                Flow::Call {
                    entered: self.per(active, |l| entered[l]),
                },
                active,
            ),
            FlowEvent::Ret { active } => (Flow::Ret, active),
        };
        if self.any(active) {
            let mut step = self.step(pc);
            step.flow = Some(flow);
            self.steps.push(step);
        }
    }
}

/// What shading one covering triangle gave at the pixel.
struct Shade {
    steps: Vec<Step>,
    inputs: Vec<Vec4>,
    outputs: Vec<Output>,
    color: [f32; 4],
    depth: f32,
    killed: bool,
}

/// Where the pixel sits: its tile's corner, its band's end row and its lane.
struct Place {
    tx: i32,
    by0: i32,
    by1: i32,
    lane: usize,
}

impl Place {
    fn of(x: u32, y: u32, height: u32) -> Place {
        let (tx, by0) = (x - x % TILE_W, y - y % BAND);
        let (lx, ly) = &LANE_XY;
        let lane = (0..lx.len())
            .find(|&l| lx[l] == x - tx && ly[l] == y - by0)
            .unwrap_or(0);
        Place {
            tx: tx as i32,
            by0: by0 as i32,
            by1: (by0 + BAND).min(height) as i32,
            lane,
        }
    }
}

/// Shades the pixel's tile for triangle `tri` (covering lanes `cov`), recording the pixel.
fn shade(
    draw: &PreparedDraw,
    listing: Option<&Listing>,
    tri: &Tri,
    at: &Place,
    cov: &Mask,
) -> Shade {
    let tile = draw.tile_planes(tri, at.tx, at.by0);
    let l = at.lane;
    let (shaded, steps, inputs, outputs): (Shaded, _, _, _) = match (&draw.fp, listing) {
        (Some(cp), Some(listing)) => {
            let texrefs: Vec<Option<&Texture>> =
                draw.textures.iter().map(|t| t.as_deref()).collect();
            let mut m = draw
                .new_machine()
                .unwrap_or_else(|| Machine::new(&cp.kernel));
            let mut rec = Recorder::new(cp, listing, vec![l]);
            let mut stats = Stats::default();
            let shaded = draw.run_fragments(
                &mut m,
                cp,
                &texrefs,
                tri,
                &tile,
                (at.tx, at.by0),
                cov,
                &mut stats,
                &mut rec,
            );
            let outputs = cp
                .kernel
                .outputs
                .iter()
                .map(|&(r, row)| Output {
                    register: format!("{:?}{}", r.file, r.index),
                    value: read(&m, row, l),
                })
                .collect();
            let inputs = rec.inputs.pop().unwrap_or_default();
            (shaded, rec.steps, inputs, outputs)
        }
        _ => {
            let shaded = draw.fixed_function(tri, &tile);
            (shaded, Vec::new(), Vec::new(), Vec::new())
        }
    };
    let color = std::array::from_fn(|c| shaded.color[c][l]);
    let outputs = if draw.fp.is_some() {
        outputs
    } else {
        vec![Output {
            register: "fixed-function colour".into(),
            value: vec4(color),
        }]
    };
    Shade {
        steps,
        inputs,
        outputs,
        color,
        depth: shaded.depth.map_or(tile.zz[l], |d| d[l]),
        killed: shaded.killed[l],
    }
}

/// Traces pixel (`x`, `y`) (GL window coordinates, origin bottom-left) of the draw `cfg`
/// describes with programs `vp` and `fp`, drawn into a fresh target as [`crate::render`]
/// draws it. A pixel outside the target, or one no primitive covers, is an error.
pub fn trace_pixel(
    vp: Option<&Arc<CompiledProgram>>,
    fp: Option<&Arc<CompiledProgram>>,
    cfg: &RenderConfig,
    x: u32,
    y: u32,
) -> Result<PixelTrace, RenderError> {
    crate::job::check_config(cfg)?;
    let input = DrawInput {
        vp,
        fp,
        vparams: &cfg.params.vertex,
        fparams: &cfg.params.fragment,
        textures: &cfg.textures,
        geometry: &cfg.geometry,
        state: &cfg.state,
        caps: &cfg.caps,
        exec: crate::jit::Exec::Interp,
    };
    let target = Target {
        width: cfg.width,
        height: cfg.height,
        format: cfg.format,
        color: crate::raster::Target::new(1, 1, cfg.format, cfg.clear).color[0],
        depth: 1.0,
    };
    trace_draw(&input, &target, x, y)
}

/// The target a traced draw goes into, at the traced pixel: its size and format, and the
/// colour and depth the pixel holds before the draw (a scene's earlier draws).
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub width: u32,
    pub height: u32,
    pub format: crate::draw::TargetFormat,
    pub color: [f32; 4],
    pub depth: f32,
}

/// Traces pixel (`x`, `y`) of the draw `d` into `target` ([`trace_pixel`] for one draw into
/// a fresh target; a scene runner passes what earlier draws left at the pixel).
pub fn trace_draw(
    d: &DrawInput,
    target: &Target,
    x: u32,
    y: u32,
) -> Result<PixelTrace, RenderError> {
    let (width, height) = (target.width, target.height);
    d.caps.check_target(width, height)?;
    if x >= width || y >= height {
        return Err(RenderError::Config(format!(
            "pixel ({x}, {y}) is outside the {width}x{height} image"
        )));
    }
    let input = DrawInput {
        exec: crate::jit::Exec::Interp,
        ..*d
    };
    let (vp, fp) = (input.vp, input.fp);
    let (draw, staged) = PreparedDraw::staged(&input, width, height, target.format)?;
    let listing = fp.map(|cp| Listing::of(cp));
    let at = Place::of(x, y, height);
    let clamp = draw.fragment_clamp || draw.format == crate::draw::TargetFormat::Rgba8;
    let mut pixel = target.color;
    let mut depth = target.depth;
    let mut candidates = Vec::new();
    let mut chosen: Option<(usize, Shade)> = None;
    for (ti, tri) in draw.tris.iter().enumerate() {
        let Some(cov) = coverage(tri, at.tx, at.by0, at.by1).filter(|c| c[at.lane]) else {
            continue;
        };
        let s = shade(&draw, listing.as_ref(), tri, &at, &cov);
        let mut cand = Candidate {
            primitive: tri.prim,
            killed: s.killed,
            depth: None,
            wrote: false,
        };
        if !s.killed {
            let z = fragment_depth(s.depth);
            let pass = !draw.depth_test || z < depth;
            if draw.depth_test {
                cand.depth = Some((Bits(z), pass));
            }
            if pass {
                if draw.depth_test {
                    depth = z;
                }
                pixel = draw.stored(s.color, clamp);
                cand.wrote = true;
            }
        }
        // The last writer is the pixel's triangle; until one writes, the last one covering.
        let keep = cand.wrote || !candidates.iter().any(|c: &Candidate| c.wrote);
        candidates.push(cand);
        if keep {
            chosen = Some((ti, s));
        }
    }
    let Some((ti, s)) = chosen else {
        return Err(RenderError::Config(format!(
            "no primitive of the draw covers pixel ({x}, {y})"
        )));
    };
    let tri = &draw.tris[ti];
    let (primitive, corners) = primitive(&input, (width, height), &staged, tri);
    let vertex = match vp {
        Some(cp) => vertex_steps(cp, &input, &staged, primitive.vertices),
        None => Vec::new(),
    };
    let interpolation = interpolation(&draw, fp.map(|c| &**c), tri, &corners, &s, &at, x, y);
    Ok(PixelTrace {
        x,
        y,
        primitive,
        vertex,
        interpolation,
        fragment: s.steps,
        outputs: s.outputs,
        candidates,
        pixel: vec4(pixel),
    })
}

/// The corners of a traced triangle: window position, depth, 1/w and varyings.
struct Corners {
    window: [[f64; 2]; 3],
    inv_w: [f64; 3],
    vary: [Vec<[f64; 4]>; 3],
}

fn primitive(d: &DrawInput, (w, h): (u32, u32), st: &Staged, tri: &Tri) -> (Primitive, Corners) {
    let p = tri.prim as usize;
    let idx = [
        st.indices[3 * p],
        st.indices[3 * p + 1],
        st.indices[3 * p + 2],
    ];
    let gl = &d.state.gl;
    let range = (
        f64::from(gl.depth_range.0.clamp(0.0, 1.0)),
        f64::from(gl.depth_range.1.clamp(0.0, 1.0)),
    );
    let size = (f64::from(w), f64::from(h));
    let (poly, win) = clipped_window(&st.clip, &st.vary, &idx, size, range)
        .unwrap_or_else(|| (Vec::new(), Vec::new()));
    let fan = tri.fan as usize;
    let pick = [0, fan, fan + 1];
    let corner = |i: usize| win.get(pick[i]).copied().unwrap_or(([0.0; 2], 0.0, 0.0));
    let same = poly.len() == 3
        && fan == 1
        && (0..3).all(|i| {
            poly[i]
                .clip
                .iter()
                .zip(st.clip[idx[i] as usize])
                .all(|(a, b)| a.to_bits() == f64::from(b).to_bits())
        });
    let prim = Primitive {
        index: tri.prim,
        vertices: idx,
        clipped: !same,
        front: tri.is_front(),
        window: std::array::from_fn(|i| corner(i).0.map(Bits64)),
        depth: std::array::from_fn(|i| Bits64(corner(i).1)),
        inv_w: std::array::from_fn(|i| Bits64(corner(i).2)),
    };
    let corners = Corners {
        window: std::array::from_fn(|i| corner(i).0),
        inv_w: std::array::from_fn(|i| corner(i).2),
        vary: std::array::from_fn(|i| {
            poly.get(pick[i])
                .map(|v| v.vary.clone())
                .unwrap_or_default()
        }),
    };
    (prim, corners)
}

/// The vertex program at the triangle's three vertices.
fn vertex_steps(cp: &Arc<CompiledProgram>, d: &DrawInput, st: &Staged, idx: [u32; 3]) -> Vec<Step> {
    let attribs: Vec<[[f32; 4]; ATTRIBS]> = idx.iter().map(|&i| st.verts[i as usize]).collect();
    let env = StageEnv {
        params: d.vparams,
        gl: &d.state.gl,
        textures: d.textures,
        caps: d.caps,
    };
    let listing = Listing::of(cp);
    let mut rec = Recorder::new(cp, &listing, vec![0, 1, 2]);
    run_vertices_observed(cp, &env, &attribs, &mut rec);
    rec.steps
}

/// A vertex program run alone on each of `attribs` (all [`ATTRIBS`] slots of each vertex,
/// at most [`crate::compile::LANES`]), traced as the vertex stage of a pixel trace is: every
/// instruction's result per vertex, and the outputs each vertex ends with. The linear
/// mode's debugger steps through it.
pub fn trace_vertices(
    cp: &CompiledProgram,
    env: &StageEnv,
    attribs: &[[[f32; 4]; ATTRIBS]],
) -> Result<(Vec<Step>, crate::probe::Vertices), RenderError> {
    if attribs.is_empty() || attribs.len() > crate::compile::LANES {
        return Err(RenderError::Config(format!(
            "a vertex trace runs 1 to {} vertices, not {}",
            crate::compile::LANES,
            attribs.len()
        )));
    }
    let listing = Listing::of(cp);
    let mut rec = Recorder::new(cp, &listing, (0..attribs.len()).collect());
    let out = run_vertices_observed(cp, env, attribs, &mut rec);
    Ok((rec.steps, out))
}

/// The weights at the pixel centre and every fragment input.
#[allow(clippy::too_many_arguments)]
fn interpolation(
    draw: &PreparedDraw,
    fp: Option<&CompiledProgram>,
    tri: &Tri,
    c: &Corners,
    s: &Shade,
    at: &Place,
    x: u32,
    y: u32,
) -> Interpolation {
    let p = c.window;
    let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    let cross = |a: [f64; 2], b: [f64; 2], q: [f64; 2]| {
        (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0])
    };
    let area = cross(p[0], p[1], p[2]);
    let q = [px, py];
    let bary = if area == 0.0 {
        [1.0, 0.0, 0.0]
    } else {
        [
            cross(p[1], p[2], q) / area,
            cross(p[2], p[0], q) / area,
            cross(p[0], p[1], q) / area,
        ]
    };
    let iw = c.inv_w;
    let wsum: f64 = (0..3).map(|i| bary[i] * iw[i]).sum();
    let persp = if wsum == 0.0 || !wsum.is_finite() {
        bary
    } else {
        std::array::from_fn(|i| bary[i] * iw[i] / wsum)
    };
    let tile = draw.tile_planes(tri, at.tx, at.by0);
    let mut inputs = Vec::new();
    if let Some(cp) = fp {
        for (j, &(reg, _)) in cp.kernel.inputs.iter().enumerate() {
            let src = draw.finputs.get(j).map(|&(_, s)| s);
            let loaded = s.inputs.get(j).copied().unwrap_or_default();
            let qualifier = cp
                .program
                .io
                .iter()
                .find(|d| d.reg == reg && d.interp == Interp::Centroid)
                .map(|_| "centroid".to_string());
            inputs.push(input(
                tri,
                &tile,
                at,
                c,
                src,
                loaded,
                qualifier,
                in_semantic(&cp.program, reg),
            ));
        }
    } else {
        for src in [draw.ff_colors.0, draw.ff_colors.1].into_iter().flatten() {
            inputs.push(input(
                tri,
                &tile,
                at,
                c,
                Some(src),
                [Bits(0.0); 4],
                None,
                None,
            ));
        }
    }
    Interpolation {
        barycentric: bary.map(Bits64),
        perspective: persp.map(Bits64),
        affine: iw[0] == iw[1] && iw[1] == iw[2],
        inputs,
    }
}

/// One fragment input: its source, corner values and the value the program reads.
#[allow(clippy::too_many_arguments)]
fn input(
    tri: &Tri,
    tile: &crate::raster::TilePlanes,
    at: &Place,
    c: &Corners,
    src: Option<FragSrc>,
    loaded: Vec4,
    qualifier: Option<String>,
    semantic: Option<hoist_asm::ir::Semantic>,
) -> Interpolated {
    let slot = src.and_then(|s| vary_slot(tri, s));
    let (source, vertices, value) = match (src, slot) {
        (Some(FragSrc::Vary(front, _)), Some(slot)) => {
            let value = std::array::from_fn(|comp| {
                let mut r = [0.0; crate::compile::LANES];
                tile.interpolate(tri, slot, comp, &mut r);
                Bits(r[at.lane])
            });
            let corner = |i: usize| -> Vec4 {
                c.vary[i]
                    .get(slot)
                    .map_or([Bits(0.0); 4], |v| v.map(|x| Bits(x as f32)))
            };
            let src = if slot == front {
                "varying"
            } else {
                "back varying"
            };
            (src, Some([corner(0), corner(1), corner(2)]), value)
        }
        (Some(FragSrc::WindowPos), _) => ("window position", None, loaded),
        (Some(FragSrc::Face), _) => ("facing", None, loaded),
        _ => ("unwritten", None, loaded),
    };
    Interpolated {
        semantic: semantic.map_or("colour".into(), |s| format!("{s:?}")),
        source: source.into(),
        qualifier,
        vertices,
        value,
    }
}

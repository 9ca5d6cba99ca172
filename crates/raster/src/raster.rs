//! The fixed-function parts of the pipeline: vertex stage driver, clipping, primitive
//! setup, tile rasterization, interpolation, and the fragment back end (depth test and the
//! colour write).
//!
//! A draw is *prepared* once ([`PreparedDraw::new`]): vertices are shaded, primitives are
//! clipped (w > 0, near, far, and a guard band of 8× the viewport in x and y), projected,
//! snapped to 1/256 pixel and turned into edge functions and interpolation planes. The
//! target is then shaded band by band ([`PreparedDraw::shade_bands`]); a band is 8 rows,
//! and within a band each triangle's 8×8 tiles run the fragment kernel over 64 lanes laid
//! out as 2×2 quads. Bands are independent, so they run in parallel natively.
//!
//! Conventions (GL window coordinates, y up): pixel (x, y) has its centre at
//! (x + ½, y + ½); a centre exactly on an edge belongs to the triangle if the edge is a left
//! edge or a bottom edge (the top-left rule of a y-down framebuffer); counter-clockwise is
//! front-facing. Varyings are interpolated perspective-correctly in f64 from unsnapped
//! window positions and rounded once to f32; depth is affine in screen space.

use crate::compile::{LANES, R};
use crate::draw::{ATTRIBS, Caps, DrawState, Geometry, Mesh, StageParams, Stats, TargetFormat};
use crate::error::RenderError;
use crate::exec::{ExecEnv, Machine, Mask};
use crate::glstate::mat_vec;
pub use crate::program::{
    CompiledProgram, UNWRITTEN, attrib_slot, const_table, in_semantic, out_semantic,
};
use crate::program::{bool_table, int_table};
use crate::texture::{Texture, quantize8};
use hoist_asm::ir::{ArbOption, RegFile, Semantic};
use hoist_asm::{Dialect, Reg};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Rows per band (and tile height).
pub const BAND: u32 = 8;
/// Tile width: a tile of `TILE_W`×`BAND` pixels is one batch of [`LANES`] fragments.
pub const TILE_W: u32 = (LANES as u32) / BAND;

/// Lane layout of a tile: lane = quad·4 + (dy·2 + dx), quads row-major.
const fn lane_xy() -> ([u32; LANES], [u32; LANES]) {
    let mut xs = [0u32; LANES];
    let mut ys = [0u32; LANES];
    let mut l = 0;
    while l < LANES {
        let q = (l / 4) as u32;
        let s = (l % 4) as u32;
        let per_row = TILE_W / 2;
        xs[l] = (q % per_row) * 2 + (s & 1);
        ys[l] = (q / per_row) * 2 + (s >> 1);
        l += 1;
    }
    (xs, ys)
}
pub(crate) const LANE_XY: ([u32; LANES], [u32; LANES]) = lane_xy();

/// A colour target with an optional depth buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub width: u32,
    pub height: u32,
    pub format: TargetFormat,
    pub color: Vec<[f32; 4]>,
    /// Empty until a depth operation needs it.
    pub depth: Vec<f32>,
    pub depth_clear: f32,
}

impl Target {
    pub fn new(width: u32, height: u32, format: TargetFormat, clear: [f32; 4]) -> Target {
        let mut t = Target {
            width,
            height,
            format,
            color: Vec::new(),
            depth: Vec::new(),
            depth_clear: 1.0,
        };
        t.color = vec![t.store_value(clear); width as usize * height as usize];
        t
    }

    /// The value a write of `c` stores (RGBA8 clamps and quantises).
    pub fn store_value(&self, c: [f32; 4]) -> [f32; 4] {
        match self.format {
            TargetFormat::Rgba32F => c,
            TargetFormat::Rgba8 => c.map(quantize8),
        }
    }

    pub fn clear_color(&mut self, c: [f32; 4]) {
        let v = self.store_value(c);
        self.color.fill(v);
    }

    pub fn clear_depth(&mut self, d: f32) {
        self.depth_clear = d.clamp(0.0, 1.0);
        if !self.depth.is_empty() {
            self.depth.fill(self.depth_clear);
        }
    }

    pub fn ensure_depth(&mut self) {
        if self.depth.is_empty() {
            self.depth = vec![self.depth_clear; self.color.len()];
        }
    }

    pub fn depth_at(&self, x: u32, y: u32) -> Option<f32> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y * self.width + x) as usize;
        Some(self.depth.get(i).copied().unwrap_or(self.depth_clear))
    }

    pub fn bands(&self) -> u32 {
        self.height.div_ceil(BAND)
    }

    pub fn into_image(self) -> crate::image::Image {
        crate::image::Image {
            width: self.width,
            height: self.height,
            pixels: self.color,
        }
    }
}

/// Where a fragment input row gets its value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FragSrc {
    /// Varying slot (front colour slot, back colour slot for two-sided lighting).
    Vary(usize, Option<usize>),
    WindowPos,
    Face,
    Const([f32; 4]),
}

/// One triangle after setup.
#[derive(Clone, Debug)]
pub struct Tri {
    /// Pixel bounds, exclusive max, clipped to the target.
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
    /// Edge functions `a·px + b·py + c` in 1/256-pixel units, inside when > 0.
    edges: [[i64; 3]; 3],
    tie: [bool; 3],
    front: bool,
    rx: f64,
    ry: f64,
    /// Planes (value at reference, d/dx, d/dy) of varying/w, one per varying component.
    planes: Vec<[f64; 3]>,
    invw: [f64; 3],
    z: [f64; 3],
    /// All vertices have the same w: planes hold the values themselves (no division).
    affine: bool,
    /// How each fragment input component is filled per tile ([`fills`]), four per entry of
    /// the draw's fragment inputs; `PreparedDraw::staged` sets them for every triangle.
    fills: Vec<Fill>,
    /// The primitive (triangle of the index list) and, when clipping made a polygon of it,
    /// the fan triangle `0, fan, fan + 1` of that polygon this is.
    pub(crate) prim: u32,
    pub(crate) fan: u32,
}

impl Tri {
    pub(crate) fn is_front(&self) -> bool {
        self.front
    }
}

/// A clip-space vertex with its varyings.
#[derive(Clone, Debug)]
pub(crate) struct CVert {
    pub(crate) clip: [f64; 4],
    pub(crate) vary: Vec<[f64; 4]>,
}

fn lerp_vert(a: &CVert, b: &CVert, t: f64) -> CVert {
    let mut clip = [0.0; 4];
    for c in 0..4 {
        clip[c] = a.clip[c] + t * (b.clip[c] - a.clip[c]);
    }
    let vary = a
        .vary
        .iter()
        .zip(&b.vary)
        .map(|(u, v)| {
            let mut r = [0.0; 4];
            for c in 0..4 {
                r[c] = u[c] + t * (v[c] - u[c]);
            }
            r
        })
        .collect();
    CVert { clip, vary }
}

const GUARD: f64 = 8.0;

/// Signed distances to the clip planes (inside when ≥ 0, w plane when > 0).
fn plane_dist(v: &[f64; 4], k: usize) -> f64 {
    let [x, y, z, w] = *v;
    match k {
        0 => w - 1e-20,
        1 => z + w,
        2 => w - z,
        3 => GUARD * w - x,
        4 => GUARD * w + x,
        5 => GUARD * w - y,
        _ => GUARD * w + y,
    }
}

fn clip_polygon(mut poly: Vec<CVert>) -> Vec<CVert> {
    for k in 0..7 {
        if poly
            .iter()
            .all(|v| plane_dist(&v.clip, k) >= 0.0 && (k != 0 || v.clip[3] > 1e-20))
        {
            continue;
        }
        let mut out = Vec::with_capacity(poly.len() + 2);
        for i in 0..poly.len() {
            let a = &poly[i];
            let b = &poly[(i + 1) % poly.len()];
            let (da, db) = (plane_dist(&a.clip, k), plane_dist(&b.clip, k));
            let (ina, inb) = (da >= 0.0, db >= 0.0);
            if ina {
                out.push(a.clone());
            }
            if ina != inb {
                let t = da / (da - db);
                if t.is_finite() {
                    out.push(lerp_vert(a, b, t));
                }
            }
        }
        poly = out;
        if poly.len() < 3 {
            return Vec::new();
        }
    }
    poly
}

/// Fits `v = v0 + dx·(x - x0) + dy·(y - y0)` through three window points.
fn plane(p: &[[f64; 2]; 3], v: [f64; 3]) -> [f64; 3] {
    // A constant stays exactly constant (also when it is infinite or NaN).
    if v[0].to_bits() == v[1].to_bits() && v[1].to_bits() == v[2].to_bits() {
        return [v[0], 0.0, 0.0];
    }
    let (x10, y10) = (p[1][0] - p[0][0], p[1][1] - p[0][1]);
    let (x20, y20) = (p[2][0] - p[0][0], p[2][1] - p[0][1]);
    let area = x10 * y20 - x20 * y10;
    if area == 0.0 || !area.is_finite() {
        return [v[0], 0.0, 0.0];
    }
    let (v10, v20) = (v[1] - v[0], v[2] - v[0]);
    let dx = (v10 * y20 - v20 * y10) / area;
    let dy = (v20 * x10 - v10 * x20) / area;
    [v[0], dx, dy]
}

/// A draw ready for shading.
pub struct PreparedDraw {
    pub(crate) fp: Option<Arc<CompiledProgram>>,
    /// The fragment kernel compiled, when asked for and not refused.
    pub(crate) fjit: Option<Arc<dyn crate::jit::CompiledKernel>>,
    pub(crate) fconsts: Vec<[f32; 4]>,
    pub(crate) fints: Vec<[i32; 4]>,
    pub(crate) fbools: Vec<bool>,
    pub(crate) textures: Vec<Option<Arc<Texture>>>,
    pub(crate) tris: Vec<Tri>,
    pub(crate) finputs: Vec<(R, FragSrc)>,
    /// Varying slots of the fixed-function fragment stage: primary, secondary colour.
    pub(crate) ff_colors: (Option<FragSrc>, Option<FragSrc>),
    pub(crate) color_out: Option<R>,
    pub(crate) depth_out: Option<(R, usize)>,
    pub(crate) depth_test: bool,
    pub(crate) fragment_clamp: bool,
    pub(crate) color_sum: bool,
    pub(crate) d3d_pos: bool,
    /// The fragment program reads `fragment.position`/`vPos`.
    pub(crate) needs_position: bool,
    pub(crate) caps: Caps,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) format: TargetFormat,
    pub vertex_stats: Stats,
}

/// Vertices (all attribute slots) and triangle-list indices.
pub type VertexList = (Vec<[[f32; 4]; ATTRIBS]>, Vec<u32>);

/// Builds the vertex list and triangle indices of a geometry.
/// The vertices (every attribute slot) and triangle indices a draw of `g` feeds the vertex stage.
pub fn geometry_vertices(
    g: &Geometry,
    state: &DrawState,
    caps: &Caps,
) -> Result<VertexList, RenderError> {
    let strip = |pos: [[f32; 2]; 4], tc: Option<[[f32; 2]; 4]>| {
        let vs: Vec<[[f32; 4]; ATTRIBS]> = (0..4)
            .map(|i| {
                let mut v = state.current;
                v[0] = [pos[i][0], pos[i][1], 0.0, 1.0];
                if let Some(tc) = tc {
                    v[8] = [tc[i][0], tc[i][1], 0.0, 1.0];
                }
                v
            })
            .collect();
        (vs, vec![0, 1, 2, 2, 1, 3])
    };
    Ok(match g {
        Geometry::Quad => strip(
            [[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]],
            Some([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ),
        Geometry::Rect { x, y, w, h, tex } => {
            let (x, y, w, h) = (*x, *y, *w, *h);
            let tc = tex.map(|t| {
                [
                    [t[0], t[1]],
                    [t[0] + t[2], t[1]],
                    [t[0], t[1] + t[3]],
                    [t[0] + t[2], t[1] + t[3]],
                ]
            });
            strip([[x, y], [x + w, y], [x, y + h], [x + w, y + h]], tc)
        }
        Geometry::Mesh(Mesh { vertices, indices }) => {
            if vertices.len() > caps.max_vertices || indices.len() > caps.max_indices {
                return Err(RenderError::Limit(format!(
                    "mesh has {} vertices and {} indices (caps {} and {})",
                    vertices.len(),
                    indices.len(),
                    caps.max_vertices,
                    caps.max_indices
                )));
            }
            if let Some(&bad) = indices.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(RenderError::Config(format!(
                    "mesh index {bad} is out of range ({} vertices)",
                    vertices.len()
                )));
            }
            (vertices.clone(), indices.clone())
        }
    })
}

/// Inputs of one draw.
pub struct DrawInput<'a> {
    pub vp: Option<&'a Arc<CompiledProgram>>,
    pub fp: Option<&'a Arc<CompiledProgram>>,
    pub vparams: &'a StageParams,
    pub fparams: &'a StageParams,
    pub textures: &'a BTreeMap<u8, Arc<Texture>>,
    pub geometry: &'a Geometry,
    pub state: &'a DrawState,
    pub caps: &'a Caps,
    /// Run the fragment program compiled ([`crate::jit`]) where the compiler accepts it.
    pub exec: crate::jit::Exec,
}

/// Fragment inputs and fixed-function colours: which varyings the fragment stage needs
/// (each semantic once, back colours with two-sided lighting), and where each fragment input
/// row gets its value.
#[allow(clippy::type_complexity)]
pub(crate) fn fragment_inputs(
    fp: Option<&Arc<CompiledProgram>>,
    state: &DrawState,
) -> (
    Vec<Semantic>,
    Vec<(R, FragSrc)>,
    (Option<FragSrc>, Option<FragSrc>),
) {
    let mut sems: Vec<Semantic> = Vec::new();
    let mut slot_of = |s: Semantic, sems: &mut Vec<Semantic>| -> usize {
        if let Some(i) = sems.iter().position(|&x| x == s) {
            i
        } else {
            sems.push(s);
            sems.len() - 1
        }
    };
    let mut finputs = Vec::new();
    let mut ff_colors = (None, None);
    let two_side =
        |s: Semantic,
         sems: &mut Vec<Semantic>,
         slot_of: &mut dyn FnMut(Semantic, &mut Vec<Semantic>) -> usize| {
            let front = slot_of(s, sems);
            let back = match s {
                Semantic::Color(n) if state.two_side && n < 2 => {
                    Some(slot_of(Semantic::BackColor(n), sems))
                }
                _ => None,
            };
            FragSrc::Vary(front, back)
        };
    match fp {
        Some(cp) => {
            for &(reg, row) in &cp.kernel.inputs {
                let src = match in_semantic(&cp.program, reg) {
                    Some(Semantic::WindowPos) => FragSrc::WindowPos,
                    Some(Semantic::Face) => FragSrc::Face,
                    Some(s) => two_side(s, &mut sems, &mut slot_of),
                    None => FragSrc::Const(UNWRITTEN),
                };
                finputs.push((row, src));
            }
        }
        None => {
            ff_colors.0 = Some(two_side(Semantic::Color(0), &mut sems, &mut slot_of));
            if state.color_sum {
                ff_colors.1 = Some(two_side(Semantic::Color(1), &mut sems, &mut slot_of));
            }
        }
    }
    (sems, finputs, ff_colors)
}

/// The vertex stage: clip-space positions and the varyings `sems` of every vertex (the
/// vertex program, or fixed function).
pub(crate) fn vertex_stage(
    d: &DrawInput,
    sems: &[Semantic],
    verts: &[[[f32; 4]; ATTRIBS]],
    vstats: &mut Stats,
) -> (Vec<[f32; 4]>, Vec<Vec<[f32; 4]>>) {
    let state = d.state;
    let caps = d.caps;
    let nv = verts.len();
    let mut clip = vec![[0.0f32; 4]; nv];
    let mut vary = vec![vec![UNWRITTEN; sems.len()]; nv];
    let mvp = state.gl.mvp();
    let clampc = |v: [f32; 4]| v.map(|x| x.clamp(0.0, 1.0));
    match d.vp {
        Some(cp) => {
            let p = &cp.program;
            let env = crate::probe::StageEnv {
                params: d.vparams,
                gl: &state.gl,
                textures: d.textures,
                caps,
            };
            let run = crate::probe::run_vertices(cp, &env, verts);
            let invariant = p.has_option(&ArbOption::PositionInvariant);
            for (vi, outputs) in run.outputs.iter().enumerate() {
                clip[vi] = if invariant {
                    mat_vec(&mvp, verts[vi][0])
                } else {
                    [0.0; 4]
                };
                for (s, v) in crate::probe::varyings(p, outputs, state) {
                    if s == Semantic::Position(0) && !invariant {
                        clip[vi] = v;
                    }
                    if let Some(i) = sems.iter().position(|&x| x == s) {
                        vary[vi][i] = v;
                    }
                }
            }
            vstats.truncated_batches += run.truncated;
            vstats.vertex_invocations = nv as u64;
            vstats.vertex_instructions = run.instructions;
            vstats.vertex_slots = run.slots;
        }
        None => {
            for vi in 0..nv {
                clip[vi] = mat_vec(&mvp, verts[vi][0]);
                for (i, s) in sems.iter().enumerate() {
                    let v = match *s {
                        Semantic::Color(n) | Semantic::BackColor(n) => {
                            let c = verts[vi][3 + usize::from(n.min(1))];
                            if state.vertex_clamp { clampc(c) } else { c }
                        }
                        Semantic::TexCoord(n) if n < 8 => {
                            let t = state.gl.texture[n as usize];
                            mat_vec(&t, verts[vi][8 + n as usize])
                        }
                        Semantic::Fog(_) => [verts[vi][5][0], 0.0, 0.0, 1.0],
                        _ => [0.0, 0.0, 0.0, 1.0],
                    };
                    vary[vi][i] = v;
                }
            }
        }
    }
    (clip, vary)
}

/// A clipped polygon's vertices and their window positions, depths and 1/w.
pub(crate) type Windowed = (Vec<CVert>, Vec<([f64; 2], f64, f64)>);

/// Primitive `t` (three indices) clipped, divided and put through the viewport: `None` when
/// nothing of it is left.
pub(crate) fn clipped_window(
    clip: &[[f32; 4]],
    vary: &[Vec<[f32; 4]>],
    t: &[u32],
    (wf, hf): (f64, f64),
    (dn, df): (f64, f64),
) -> Option<Windowed> {
    let poly: Vec<CVert> = t
        .iter()
        .map(|&i| CVert {
            clip: clip[i as usize].map(f64::from),
            vary: vary[i as usize].iter().map(|v| v.map(f64::from)).collect(),
        })
        .collect();
    if poly.iter().any(|v| v.clip.iter().any(|c| c.is_nan())) {
        return None;
    }
    let poly = clip_polygon(poly);
    if poly.len() < 3 {
        return None;
    }
    let win = poly
        .iter()
        .map(|v| {
            let iw = 1.0 / v.clip[3];
            let (xn, yn, zn) = (v.clip[0] * iw, v.clip[1] * iw, v.clip[2] * iw);
            (
                [(xn + 1.0) * 0.5 * wf, (yn + 1.0) * 0.5 * hf],
                zn * 0.5 * (df - dn) + 0.5 * (dn + df),
                iw,
            )
        })
        .collect();
    Some((poly, win))
}

/// Clipping, the perspective divide, the viewport transform and triangle setup (with back
/// faces culled when asked).
pub(crate) fn primitive_setup(
    clip: &[[f32; 4]],
    vary: &[Vec<[f32; 4]>],
    indices: &[u32],
    state: &DrawState,
    width: u32,
    height: u32,
) -> Vec<Tri> {
    let mut tris = Vec::new();
    let (wf, hf) = (f64::from(width), f64::from(height));
    let (dn, df) = (
        f64::from(state.gl.depth_range.0.clamp(0.0, 1.0)),
        f64::from(state.gl.depth_range.1.clamp(0.0, 1.0)),
    );
    for (prim, t) in indices.chunks_exact(3).enumerate() {
        let Some((poly, win)) = clipped_window(clip, vary, t, (wf, hf), (dn, df)) else {
            continue;
        };
        for k in 1..poly.len() - 1 {
            let idx = [0, k, k + 1];
            let p = [win[idx[0]].0, win[idx[1]].0, win[idx[2]].0];
            if let Some(tri) = setup_triangle(
                &p,
                [win[idx[0]].1, win[idx[1]].1, win[idx[2]].1],
                [win[idx[0]].2, win[idx[1]].2, win[idx[2]].2],
                [&poly[idx[0]].vary, &poly[idx[1]].vary, &poly[idx[2]].vary],
                width,
                height,
            ) {
                if state.cull_back && !tri.front {
                    continue;
                }
                tris.push(Tri {
                    prim: prim as u32,
                    fan: k as u32,
                    ..tri
                });
            }
        }
    }
    tris
}

/// The fragments a draw of `tris` is predicted to shade, for the executor's choice
/// (`jit::choose`): half of each triangle's clipped bounding box (exact for the halves of a
/// rectangle), at most the target's area per triangle.
pub(crate) fn predicted_fragments(tris: &[Tri], width: u32, height: u32) -> f64 {
    let cap = f64::from(width) * f64::from(height);
    tris.iter()
        .map(|t| {
            let area = f64::from((t.x1 - t.x0).max(0)) * f64::from((t.y1 - t.y0).max(0));
            (area / 2.0).min(cap)
        })
        .sum()
}

/// What the vertex stage of a prepared draw made, kept for the pixel trace.
pub(crate) struct Staged {
    pub(crate) verts: Vec<[[f32; 4]; ATTRIBS]>,
    pub(crate) indices: Vec<u32>,
    pub(crate) clip: Vec<[f32; 4]>,
    pub(crate) vary: Vec<Vec<[f32; 4]>>,
}

impl PreparedDraw {
    /// Runs the vertex stage and sets up primitives for a `width`×`height` target.
    pub fn new(
        d: &DrawInput,
        width: u32,
        height: u32,
        format: TargetFormat,
    ) -> Result<PreparedDraw, RenderError> {
        Ok(PreparedDraw::staged(d, width, height, format)?.0)
    }

    /// [`PreparedDraw::new`], also returning the vertex stage's results.
    pub(crate) fn staged(
        d: &DrawInput,
        width: u32,
        height: u32,
        format: TargetFormat,
    ) -> Result<(PreparedDraw, Staged), RenderError> {
        let state = d.state;
        let caps = d.caps;
        let mut vstats = Stats {
            draws: 1,
            ..Stats::default()
        };
        let fp = d.fp.cloned();

        let (sems, finputs, ff_colors) = fragment_inputs(fp.as_ref(), state);
        let (verts, indices) = geometry_vertices(d.geometry, state, caps)?;
        let (clip, vary) = vertex_stage(d, &sems, &verts, &mut vstats);
        let mut tris = primitive_setup(&clip, &vary, &indices, state, width, height);
        let reads = fp.as_ref().map(|cp| &cp.kernel.reads[..]);
        for t in &mut tris {
            t.fills = fills(t, &finputs, reads);
        }
        vstats.triangles = tris.len() as u64;

        let (color_out, depth_out) = match &fp {
            Some(cp) => {
                let k = &cp.kernel;
                let c = k.output_row(Reg::new(RegFile::ColorOut, 0));
                let dcomp = if cp.program.dialect() == Dialect::Arb {
                    2
                } else {
                    0
                };
                let d = k
                    .output_row(Reg::new(RegFile::DepthOut, 0))
                    .map(|r| (r, dcomp));
                (c, d)
            }
            None => (None, None),
        };
        let (fconsts, fints, fbools) = match &fp {
            Some(cp) => (
                const_table(&cp.program, cp.kernel.const_len, d.fparams, &state.gl),
                int_table(&cp.program, d.fparams),
                bool_table(&cp.program, d.fparams),
            ),
            None => (Vec::new(), Vec::new(), Vec::new()),
        };
        let textures: Vec<Option<Arc<Texture>>> =
            (0..32u8).map(|u| d.textures.get(&u).cloned()).collect();
        let d3d_pos = fp
            .as_ref()
            .is_some_and(|cp| cp.program.dialect() == Dialect::D3d9);
        let needs_position = finputs.iter().any(|(_, s)| matches!(s, FragSrc::WindowPos));
        let fjit = match (&fp, d.exec) {
            (Some(cp), crate::jit::Exec::Compiled) => {
                let bound: Vec<Option<&Texture>> = textures.iter().map(|t| t.as_deref()).collect();
                let modes = crate::jit::abi::modes_for(&cp.kernel, &bound);
                let fragments = predicted_fragments(&tris, width, height);
                crate::jit::prepare_for(&cp.kernel, fragments, &modes).ok()
            }
            _ => None,
        };
        let staged = Staged {
            verts,
            indices,
            clip,
            vary,
        };
        let draw = PreparedDraw {
            fp,
            fjit,
            fconsts,
            fints,
            fbools,
            textures,
            tris,
            finputs,
            ff_colors,
            color_out,
            depth_out,
            depth_test: state.depth_test,
            fragment_clamp: state.fragment_clamp,
            color_sum: state.color_sum,
            d3d_pos,
            needs_position,
            caps: caps.clone(),
            width,
            height,
            format,
            vertex_stats: vstats,
        };
        Ok((draw, staged))
    }

    pub fn needs_depth(&self) -> bool {
        self.depth_test
    }

    pub(crate) fn new_machine(&self) -> Option<Machine> {
        self.fp.as_ref().map(|cp| {
            let mut m = Machine::new(&cp.kernel);
            m.bind_consts(&cp.kernel, &self.fconsts);
            m
        })
    }

    /// Shades bands `first..first + n` of a target. `color` and `depth` are the rows of
    /// those bands (depth empty when no depth buffer exists).
    pub fn shade_bands(&self, first: u32, color: &mut [[f32; 4]], depth: &mut [f32]) -> Stats {
        let t0 = crate::jit::choose::now();
        let stats = self.shade_bands_timed(first, color, depth);
        crate::jit::choose::shaded(self.fjit.is_some(), stats.fragment_instructions, t0);
        stats
    }

    fn shade_bands_timed(&self, first: u32, color: &mut [[f32; 4]], depth: &mut [f32]) -> Stats {
        let w = self.width as usize;
        let band_len = w * BAND as usize;
        let texrefs: Vec<Option<&Texture>> = self.textures.iter().map(|t| t.as_deref()).collect();
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            let n = color.len().div_ceil(band_len);
            let depth_chunks: Vec<&mut [f32]> = if depth.is_empty() {
                (0..n).map(|_| -> &mut [f32] { &mut [] }).collect()
            } else {
                depth.chunks_mut(band_len).collect()
            };
            color
                .par_chunks_mut(band_len)
                .zip(depth_chunks.into_par_iter())
                .enumerate()
                .map_init(
                    || self.new_machine(),
                    |m, (i, (c, dd))| {
                        self.shade_band(m.as_mut(), &texrefs, first + i as u32, c, dd)
                    },
                )
                .reduce(Stats::default, |mut a, b| {
                    a.add(&b);
                    a
                })
        }
        #[cfg(not(feature = "parallel"))]
        {
            let mut m = self.new_machine();
            let mut stats = Stats::default();
            let has_depth = !depth.is_empty();
            let mut dchunks = depth.chunks_mut(band_len);
            for (i, c) in color.chunks_mut(band_len).enumerate() {
                let dd: &mut [f32] = if has_depth {
                    dchunks.next().unwrap_or_default()
                } else {
                    &mut []
                };
                let s = self.shade_band(m.as_mut(), &texrefs, first + i as u32, c, dd);
                stats.add(&s);
            }
            stats
        }
    }

    fn shade_band(
        &self,
        m: Option<&mut Machine>,
        texrefs: &[Option<&Texture>],
        band: u32,
        color: &mut [[f32; 4]],
        depth: &mut [f32],
    ) -> Stats {
        let mut stats = Stats::default();
        let by0 = (band * BAND) as i32;
        let rows = (color.len() / self.width.max(1) as usize) as i32;
        let by1 = by0 + rows;
        let mut m = m;
        for tri in &self.tris {
            if tri.y1 <= by0 || tri.y0 >= by1 {
                continue;
            }
            let tx0 = tri.x0 - tri.x0.rem_euclid(TILE_W as i32);
            let mut tx = tx0;
            while tx < tri.x1 {
                self.shade_tile(
                    m.as_deref_mut(),
                    texrefs,
                    tri,
                    tx,
                    by0,
                    by1,
                    color,
                    depth,
                    &mut stats,
                );
                tx += TILE_W as i32;
            }
        }
        stats
    }

    #[allow(clippy::too_many_arguments)]
    fn shade_tile(
        &self,
        m: Option<&mut Machine>,
        texrefs: &[Option<&Texture>],
        tri: &Tri,
        tx: i32,
        by0: i32,
        by1: i32,
        color: &mut [[f32; 4]],
        depth: &mut [f32],
        stats: &mut Stats,
    ) {
        let Some(cov) = coverage(tri, tx, by0, by1) else {
            return;
        };
        let tile = self.tile_planes(tri, tx, by0);
        let shaded = match (m, &self.fp) {
            (Some(m), Some(cp)) => self.run_fragments(
                m,
                cp,
                texrefs,
                tri,
                &tile,
                (tx, by0),
                &cov,
                stats,
                &mut crate::exec::Quiet,
            ),
            _ => self.fixed_function(tri, &tile),
        };
        self.write_back(&cov, &shaded, &tile.zz, (tx, by0), color, depth, stats);
    }

    /// Loads the tile's fragment inputs and runs the fragment program over it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn run_fragments<O: crate::exec::Observer>(
        &self,
        m: &mut Machine,
        cp: &CompiledProgram,
        texrefs: &[Option<&Texture>],
        tri: &Tri,
        tile: &TilePlanes,
        (tx, by0): (i32, i32),
        cov: &Mask,
        stats: &mut Stats,
        obs: &mut O,
    ) -> Shaded {
        let (lx, ly) = &LANE_XY;
        let k = &cp.kernel;
        let compiled = self.fjit.as_ref().filter(|_| !O::ON);
        if compiled.is_some() {
            // The module keeps its temporaries to itself (`CompiledKernel`).
            m.killed = NONE;
        } else {
            m.reset(k);
        }
        for (i, &(row, src)) in self.finputs.iter().enumerate() {
            match src {
                FragSrc::Vary(..) => {
                    let s = vary_slot(tri, src).unwrap_or(0);
                    for c in 0..4 {
                        let dst = row as usize + c;
                        match tri.fills.get(4 * i + c) {
                            Some(Fill::Splat(v)) => *m.regs[dst] = [*v; LANES],
                            Some(&Fill::Copy(j)) => {
                                let from = *m.regs[self.finputs[j / 4].0 as usize + j % 4];
                                *m.regs[dst] = from;
                            }
                            Some(Fill::Plane) => tile.interpolate(tri, s, c, &mut m.regs[dst]),
                            Some(Fill::Skip) | None => {}
                        }
                    }
                }
                FragSrc::WindowPos => {
                    for l in 0..LANES {
                        let px = (tx + lx[l] as i32) as f32;
                        let py = (by0 + ly[l] as i32) as f32;
                        let (x, y) = if self.d3d_pos {
                            (px, self.height as f32 - 1.0 - py)
                        } else {
                            (px + 0.5, py + 0.5)
                        };
                        m.regs[row as usize][l] = x;
                        m.regs[row as usize + 1][l] = y;
                        m.regs[row as usize + 2][l] = tile.zz[l];
                        m.regs[row as usize + 3][l] = tile.iw[l] as f32;
                    }
                }
                FragSrc::Face => {
                    let f = if tri.front { 1.0 } else { -1.0 };
                    *m.regs[row as usize] = [f; LANES];
                    for c in 1..4 {
                        *m.regs[row as usize + c] = [0.0; LANES];
                    }
                }
                FragSrc::Const(v) => {
                    for c in 0..4 {
                        *m.regs[row as usize + c] = [v[c]; LANES];
                    }
                }
            }
        }
        let env = ExecEnv {
            consts: &self.fconsts,
            textures: texrefs,
            shared_textures: &self.textures,
            int_consts: &self.fints,
            bool_consts: &self.fbools,
            quads: true,
            max_loop_iterations: self.caps.max_loop_iterations,
            max_call_depth: self.caps.max_call_depth,
            max_batch_instructions: self.caps.max_batch_instructions,
        };
        let before = (m.insts_executed, m.slots_executed);
        match compiled {
            Some(j) => j.run(m, k, &env, cov),
            None => m.run_observed(k, &env, cov, obs),
        }
        stats.fragment_instructions += m.insts_executed - before.0;
        stats.fragment_slots += m.slots_executed - before.1;
        if m.budget_exhausted {
            stats.truncated_batches += 1;
            m.budget_exhausted = false;
        }
        let mut out = Shaded {
            color: [[0.0f32; LANES]; 4],
            depth: None,
            killed: m.killed,
        };
        if let Some(row) = self.color_out {
            for c in 0..4 {
                out.color[c] = *m.regs[row as usize + c];
            }
        }
        if let Some((row, c)) = self.depth_out {
            out.depth = Some(*m.regs[row as usize + c]);
        }
        out
    }

    /// Fixed-function fragments: the interpolated primary colour, plus the secondary one
    /// with colour sum.
    #[inline(always)]
    pub(crate) fn fixed_function(&self, tri: &Tri, tile: &TilePlanes) -> Shaded {
        let mut out = Shaded {
            color: [[0.0f32; LANES]; 4],
            depth: None,
            killed: [false; LANES],
        };
        if let Some(s) = self.ff_colors.0.and_then(|src| vary_slot(tri, src)) {
            for (c, o) in out.color.iter_mut().enumerate() {
                tile.interpolate(tri, s, c, o);
            }
        }
        if self.color_sum
            && let Some(s) = self.ff_colors.1.and_then(|src| vary_slot(tri, src))
        {
            for c in 0..3 {
                let mut r = [0.0; LANES];
                tile.interpolate(tri, s, c, &mut r);
                for l in 0..LANES {
                    out.color[c][l] = (out.color[c][l] + r[l]).min(1.0);
                }
            }
        }
        out
    }

    /// The depth test and the colour write of the covered, surviving fragments.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn write_back(
        &self,
        cov: &Mask,
        shaded: &Shaded,
        zz: &[f32; LANES],
        (tx, _): (i32, i32),
        color: &mut [[f32; 4]],
        depth: &mut [f32],
        stats: &mut Stats,
    ) {
        let (lx, ly) = &LANE_XY;
        let w = self.width as usize;
        let clamp = self.fragment_clamp || self.format == TargetFormat::Rgba8;
        if !self.depth_test && cov == &FULL && shaded.killed == NONE {
            stats.fragment_invocations += LANES as u64;
            return self.write_tile(shaded, tx as usize, color, clamp);
        }
        for l in 0..LANES {
            if !cov[l] {
                continue;
            }
            stats.fragment_invocations += 1;
            if shaded.killed[l] {
                stats.fragments_killed += 1;
                continue;
            }
            let px = (tx + lx[l] as i32) as usize;
            let py = ly[l] as usize;
            let i = py * w + px;
            if self.depth_test {
                let z = fragment_depth(shaded.depth.map_or(zz[l], |d| d[l]));
                if let Some(dv) = depth.get_mut(i) {
                    if !(z < *dv) {
                        continue;
                    }
                    *dv = z;
                }
            }
            let v = self.stored(
                [
                    shaded.color[0][l],
                    shaded.color[1][l],
                    shaded.color[2][l],
                    shaded.color[3][l],
                ],
                clamp,
            );
            if let Some(dst) = color.get_mut(i) {
                *dst = v;
            }
        }
    }
}

/// Every lane covered, and no lane killed.
const FULL: Mask = [true; LANES];
const NONE: Mask = [false; LANES];

/// The lane of each pixel of a tile, row by row (the inverse of [`LANE_XY`]).
const fn pixel_lanes() -> [u8; LANES] {
    let mut out = [0u8; LANES];
    let mut l = 0;
    while l < LANES {
        out[(LANE_XY.1[l] * TILE_W + LANE_XY.0[l]) as usize] = l as u8;
        l += 1;
    }
    out
}
const PIXEL_LANES: [u8; LANES] = pixel_lanes();

impl PreparedDraw {
    /// [`Self::write_back`] of a tile every lane of which is covered and kept, with no depth
    /// test: row by row, with no per-lane tests.
    #[inline(always)]
    fn write_tile(&self, shaded: &Shaded, tx: usize, color: &mut [[f32; 4]], clamp: bool) {
        let w = self.width as usize;
        let rows = (color.len() / w.max(1)).min(BAND as usize);
        let cols = w.saturating_sub(tx).min(TILE_W as usize);
        for y in 0..rows {
            let dst = &mut color[y * w + tx..y * w + tx + cols];
            let lanes = &PIXEL_LANES[y * TILE_W as usize..][..cols];
            for (d, &l) in dst.iter_mut().zip(lanes) {
                let l = l as usize;
                let c = &shaded.color;
                *d = self.stored([c[0][l], c[1][l], c[2][l], c[3][l]], clamp);
            }
        }
    }

    /// The offsets, 1/w and depth of a tile as shading needs them.
    #[inline(always)]
    pub(crate) fn tile_planes(&self, tri: &Tri, tx: i32, by0: i32) -> TilePlanes {
        TilePlanes::new(
            tri,
            tx,
            by0,
            !tri.affine || self.needs_position,
            self.depth_test || self.needs_position,
        )
    }

    /// The colour a fragment's output `v` leaves in the target (`clamp`: the fragment
    /// colour clamp, or an RGBA8 target).
    #[inline(always)]
    pub(crate) fn stored(&self, v: [f32; 4], clamp: bool) -> [f32; 4] {
        let mut v = v;
        if clamp {
            v = v.map(|x| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) });
        }
        if self.format == TargetFormat::Rgba8 {
            v = v.map(quantize8);
        }
        v
    }
}

/// The depth a fragment tests and writes: its own (program output or interpolated),
/// clamped to [0, 1], NaN as 1.
#[inline(always)]
pub(crate) fn fragment_depth(z: f32) -> f32 {
    if z.is_nan() { 1.0 } else { z.clamp(0.0, 1.0) }
}

/// What a tile's fragments computed.
pub(crate) struct Shaded {
    pub(crate) color: [[f32; LANES]; 4],
    pub(crate) depth: Option<[f32; LANES]>,
    pub(crate) killed: Mask,
}

/// The varying slot a fragment input reads on this triangle's side.
#[inline(always)]
pub(crate) fn vary_slot(tri: &Tri, src: FragSrc) -> Option<usize> {
    match src {
        FragSrc::Vary(f, b) => Some(if tri.front { f } else { b.unwrap_or(f) }),
        _ => None,
    }
}

/// The lanes of a tile a triangle covers (pixel centres strictly inside, or on an edge the
/// triangle owns); `None` when it covers none.
#[inline(always)]
pub(crate) fn coverage(tri: &Tri, tx: i32, by0: i32, by1: i32) -> Option<Mask> {
    let (lx, ly) = &LANE_XY;
    let mut cov: Mask = [false; LANES];
    let mut any = false;
    let ymax = by1.min(tri.y1);
    let ymin = by0.max(tri.y0);
    // The edge functions at the tile's four corner samples: every sample of the tile lies
    // between them, so all four inside every edge means the whole tile is, and all four
    // strictly outside one edge means none of it is (a tie needs the value 0).
    let (cx, cy) = (i64::from(TILE_W) - 1, i64::from(BAND) - 1);
    let corners = [(0i64, 0i64), (cx, 0), (0, cy), (cx, cy)];
    let mut all_inside = true;
    for &[a, b, c] in &tri.edges {
        let (mut inside, mut outside) = (true, true);
        for &(ox, oy) in &corners {
            let sx = (i64::from(tx) + ox) * 256 + 128;
            let sy = (i64::from(by0) + oy) * 256 + 128;
            let v = a * sx + b * sy + c;
            inside &= v > 0;
            outside &= v < 0;
        }
        if outside {
            return None;
        }
        all_inside &= inside;
    }
    let whole_x = tx >= tri.x0 && tx + TILE_W as i32 <= tri.x1;
    if all_inside && whole_x && by0 >= ymin && by0 + BAND as i32 <= ymax {
        return Some([true; LANES]);
    }
    for l in 0..LANES {
        let px = tx + lx[l] as i32;
        let py = by0 + ly[l] as i32;
        if px < tri.x0 || px >= tri.x1 || py < ymin || py >= ymax {
            continue;
        }
        let inside = all_inside || {
            let (sx, sy) = (i64::from(px) * 256 + 128, i64::from(py) * 256 + 128);
            (0..3).all(|e| {
                let [a, b, c] = tri.edges[e];
                let v = a * sx + b * sy + c;
                v > 0 || (v == 0 && tri.tie[e])
            })
        };
        cov[l] = inside;
        any |= inside;
    }
    any.then_some(cov)
}

/// A tile's offsets from the triangle's reference point (one per column and one per row:
/// every lane of a column shares its x offset), reciprocal w and depth per lane.
///
/// A plane `p` at a lane is `(p0 + p1·dx) + p2·dy`, in that order, as everywhere in the
/// rasterizer; the first sum depends only on the column and the product only on the row,
/// so each is made 8 times per tile and the lanes only add and round.
pub(crate) struct TilePlanes {
    dxc: [f64; TILE_W as usize],
    dyr: [f64; BAND as usize],
    pub(crate) iw: [f64; LANES],
    pub(crate) zz: [f32; LANES],
}

/// A plane at every lane of a tile, `(col[x] + row[y])` in f64, in lane order (quads of
/// 2×2, [`LANE_XY`]), through `f`.
#[inline(always)]
fn by_lane<T>(
    col: &[f64; TILE_W as usize],
    row: &[f64; BAND as usize],
    out: &mut [T; LANES],
    f: impl Fn(f64, usize) -> T,
) {
    const PER_ROW: usize = TILE_W as usize / 2;
    for (q, o) in out.chunks_exact_mut(4).enumerate() {
        let (x, y) = (2 * (q % PER_ROW), 2 * (q / PER_ROW));
        o[0] = f(col[x] + row[y], 4 * q);
        o[1] = f(col[x + 1] + row[y], 4 * q + 1);
        o[2] = f(col[x] + row[y + 1], 4 * q + 2);
        o[3] = f(col[x + 1] + row[y + 1], 4 * q + 3);
    }
}

impl TilePlanes {
    #[inline]
    pub(crate) fn new(tri: &Tri, tx: i32, by0: i32, need_w: bool, need_z: bool) -> TilePlanes {
        let mut t = TilePlanes {
            dxc: std::array::from_fn(|x| f64::from(tx + x as i32) + 0.5 - tri.rx),
            dyr: std::array::from_fn(|y| f64::from(by0 + y as i32) + 0.5 - tri.ry),
            iw: [0.0; LANES],
            zz: [0.0; LANES],
        };
        if need_w {
            let (col, row) = t.terms(tri.invw);
            by_lane(&col, &row, &mut t.iw, |v, _| v);
        }
        if need_z {
            let (col, row) = t.terms(tri.z);
            by_lane(&col, &row, &mut t.zz, |v, _| v as f32);
        }
        t
    }

    /// A plane's column sums `p0 + p1·dx` and row products `p2·dy`.
    #[inline(always)]
    fn terms(&self, p: [f64; 3]) -> ([f64; TILE_W as usize], [f64; BAND as usize]) {
        (
            self.dxc.map(|dx| p[0] + p[1] * dx),
            self.dyr.map(|dy| p[2] * dy),
        )
    }

    /// Component `c` of varying `slot` at every lane (perspective-correct unless the
    /// triangle is affine).
    #[inline]
    pub(crate) fn interpolate(&self, tri: &Tri, slot: usize, c: usize, out: &mut [f32; LANES]) {
        let (col, row) = self.terms(tri.planes[slot * 4 + c]);
        if tri.affine {
            by_lane(&col, &row, out, |v, _| v as f32);
        } else {
            by_lane(&col, &row, out, |v, l| (v / self.iw[l]) as f32);
        }
    }
}

fn setup_triangle(
    p: &[[f64; 2]; 3],
    z: [f64; 3],
    iw: [f64; 3],
    vary: [&Vec<[f64; 4]>; 3],
    width: u32,
    height: u32,
) -> Option<Tri> {
    if p.iter().any(|q| !q[0].is_finite() || !q[1].is_finite()) {
        return None;
    }
    let snap = |v: f64| (v * 256.0).round() as i64;
    let mut xs = [snap(p[0][0]), snap(p[1][0]), snap(p[2][0])];
    let mut ys = [snap(p[0][1]), snap(p[1][1]), snap(p[2][1])];
    let area = (xs[1] - xs[0]) * (ys[2] - ys[0]) - (xs[2] - xs[0]) * (ys[1] - ys[0]);
    if area == 0 {
        return None;
    }
    let front = area > 0;
    if !front {
        xs.swap(1, 2);
        ys.swap(1, 2);
    }
    let mut edges = [[0i64; 3]; 3];
    let mut tie = [false; 3];
    for e in 0..3 {
        let (i, j) = (e, (e + 1) % 3);
        let (dx, dy) = (xs[j] - xs[i], ys[j] - ys[i]);
        edges[e] = [-dy, dx, dy * xs[i] - dx * ys[i]];
        tie[e] = dy < 0 || (dy == 0 && dx > 0);
    }
    let minx = *xs.iter().min()?;
    let maxx = *xs.iter().max()?;
    let miny = *ys.iter().min()?;
    let maxy = *ys.iter().max()?;
    let lo = |v: i64| (v - 128 + 255).div_euclid(256);
    let hi = |v: i64| (v - 128).div_euclid(256) + 1;
    let x0 = lo(minx).max(0) as i32;
    let y0 = lo(miny).max(0) as i32;
    let x1 = hi(maxx).min(i64::from(width)) as i32;
    let y1 = hi(maxy).min(i64::from(height)) as i32;
    if x0 >= x1 || y0 >= y1 {
        return None;
    }
    let affine = iw[0] == iw[1] && iw[1] == iw[2];
    let k = if affine { [1.0; 3] } else { iw };
    let mut planes = Vec::with_capacity(vary[0].len() * 4);
    for s in 0..vary[0].len() {
        for c in 0..4 {
            planes.push(plane(
                p,
                [
                    vary[0][s][c] * k[0],
                    vary[1][s][c] * k[1],
                    vary[2][s][c] * k[2],
                ],
            ));
        }
    }
    Some(Tri {
        x0,
        y0,
        x1,
        y1,
        edges,
        tie,
        front,
        rx: p[0][0],
        ry: p[0][1],
        planes,
        invw: plane(p, iw),
        z: plane(p, z),
        affine,
        fills: Vec::new(),
        prim: 0,
        fan: 1,
    })
}

/// How a fragment input component of a triangle's tiles is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fill {
    /// Not a varying, or never read.
    Skip,
    /// Interpolated from its plane.
    Plane,
    /// Every lane has this value: an affine plane `(p0 + 0·dx) + 0·dy` is `p0` at every
    /// lane unless `p0` is −0 (then the products' signs decide).
    Splat(f32),
    /// The same plane, bit for bit, as the earlier component at this index (4·input + c),
    /// so the same values.
    Copy(usize),
}

/// The fills of `tri`'s fragment input components (`reads`: the kernel's rows read).
fn fills(tri: &Tri, finputs: &[(R, FragSrc)], reads: Option<&[bool]>) -> Vec<Fill> {
    let mut out = Vec::with_capacity(4 * finputs.len());
    let mut seen: Vec<([u64; 3], usize)> = Vec::new();
    for &(row, src) in finputs {
        for c in 0..4 {
            let read = reads.is_none_or(|r| r.get(row as usize + c).copied().unwrap_or(true));
            let plane = vary_slot(tri, src).and_then(|s| tri.planes.get(s * 4 + c));
            let fill = match plane {
                Some(p) if read => {
                    let bits = p.map(f64::to_bits);
                    if let Some(&(_, j)) = seen.iter().find(|(b, _)| *b == bits) {
                        Fill::Copy(j)
                    } else if tri.affine
                        && p[1] == 0.0
                        && p[2] == 0.0
                        && !(p[0] == 0.0 && p[0].is_sign_negative())
                    {
                        Fill::Splat(p[0] as f32)
                    } else {
                        seen.push((bits, out.len()));
                        Fill::Plane
                    }
                }
                _ => Fill::Skip,
            };
            out.push(fill);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_form_quads() {
        let (xs, ys) = LANE_XY;
        assert_eq!((xs[0], ys[0]), (0, 0));
        assert_eq!((xs[1], ys[1]), (1, 0));
        assert_eq!((xs[2], ys[2]), (0, 1));
        assert_eq!((xs[3], ys[3]), (1, 1));
        assert_eq!((xs[4], ys[4]), (2, 0));
        assert_eq!((xs[LANES - 1], ys[LANES - 1]), (TILE_W - 1, BAND - 1));
    }

    #[test]
    fn clipping_against_near_plane_keeps_the_visible_part() {
        let v = |x: f64, z: f64| CVert {
            clip: [x, 0.0, z, 1.0],
            vary: vec![[x, 0.0, 0.0, 1.0]],
        };
        let out = clip_polygon(vec![v(-0.5, -2.0), v(0.5, 0.0), v(0.5, 0.5)]);
        assert!(out.len() >= 3);
        assert!(out.iter().all(|c| c.clip[2] >= -1.0 - 1e-12));
    }

    /// Every fill (splat, copy) gives each lane the bits interpolation gives it, for planes
    /// of signed zeros, infinities, NaN and ordinary values, on tiles either side of the
    /// reference point (so the products `0·dx` take both signs).
    #[test]
    fn fills_match_interpolation() {
        let specials = [0.0, -0.0, 1.0, -2.5, f64::INFINITY, f64::NAN, 3e-310];
        let mut planes = Vec::new();
        for &a in &specials {
            for &b in &[0.0, -0.0, 0.25] {
                for &c in &[0.0, -0.0, -0.5] {
                    planes.push([a, b, c]);
                }
            }
        }
        // Every plane twice, so the second of each is a copy.
        let planes: Vec<[f64; 3]> = planes.iter().chain(planes.iter()).copied().collect();
        let n = planes.len().div_ceil(4);
        let mut planes = planes;
        planes.resize(4 * n, [0.5, 0.0, 0.0]);
        let finputs: Vec<(R, FragSrc)> = (0..n)
            .map(|i| (4 * i as R, FragSrc::Vary(i, None)))
            .collect();
        let p = [[10.0, 10.0], [30.0, 12.0], [12.0, 30.0]];
        let vary = vec![vec![[0.0; 4]; n]; 3];
        let mut tri = setup_triangle(
            &p,
            [0.5; 3],
            [1.0; 3],
            [&vary[0], &vary[1], &vary[2]],
            64,
            64,
        )
        .expect("a visible triangle");
        assert!(tri.affine);
        tri.planes = planes;
        tri.fills = fills(&tri, &finputs, None);
        let kinds = |f: fn(&Fill) -> bool| tri.fills.iter().filter(|x| f(x)).count();
        assert!(kinds(|f| matches!(f, Fill::Splat(_))) > 0);
        // Each plane interpolated once, its second appearance copied.
        assert!(kinds(|f| *f == Fill::Plane) > 0);
        assert_eq!(
            kinds(|f| matches!(f, Fill::Copy(_))),
            kinds(|f| *f == Fill::Plane)
        );
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for (tx, by0) in [(0, 0), (8, 8), (24, 16)] {
            let tile = TilePlanes::new(&tri, tx, by0, false, false);
            let rows: Vec<[f32; LANES]> = (0..tri.fills.len())
                .map(|j| {
                    let mut r = [0.0; LANES];
                    tile.interpolate(&tri, j / 4, j % 4, &mut r);
                    r
                })
                .collect();
            for (j, f) in tri.fills.iter().enumerate() {
                let got = match *f {
                    Fill::Splat(v) => [v; LANES],
                    Fill::Copy(k) => rows[k],
                    _ => continue,
                };
                for l in 0..LANES {
                    assert!(
                        same(got[l], rows[j][l]),
                        "plane {:?} ({f:?}) at tile ({tx}, {by0}) lane {l}: {} against {}",
                        tri.planes[j],
                        got[l],
                        rows[j][l]
                    );
                }
            }
        }
    }
}

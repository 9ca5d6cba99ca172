//! The pixel debugger's two programs side by side: a pixel traced in the original pair and
//! in the optimized one ([`hoist_raster::trace`]), lined up through the optimizer's
//! provenance (the `Prov` of every optimized instruction, the same record the annotated
//! listings and the page's "moved results by line" read).
//!
//! A moved vertex instruction is aligned with the original fragment instruction it came
//! from (`moved_from`): its three per-vertex values, and their blend with the trace's
//! perspective-correct weights (the value it stands for at the pixel), sit on that fragment
//! row. A fragment instruction that stayed is aligned with its own occurrences in the
//! optimized fragment trace (the k-th execution with the k-th, so loops line up). The first
//! original fragment row whose aligned optimized value differs beyond the tolerance is the
//! first divergence: where a DIFFERENT verdict starts.
//!
//! The vertex stage is paired ([`pair_vertex`]): an optimized vertex step whose instruction
//! is an original one (`Prov::Original`), printed the same, sits on one row with the
//! original step of that instruction (in order, so loop iterations pair one by one); the
//! rest stand alone, a moved one with the fragment instruction it came from.

use crate::scene::RELATIVE_TOLERANCE;
use hoist_opt::Outcome;
use hoist_opt::tracked::{Line, Prov};
use hoist_raster::trace::{PixelTrace, Step};
use hoist_raster::value::{Bits, Vec4};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The two traces of one pixel, aligned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alignment {
    /// Per step of the optimized vertex trace: the original fragment instruction (index) a
    /// moved instruction came from.
    pub vertex_moved_from: Vec<Option<u32>>,
    /// Per step of the optimized fragment trace: the original fragment instruction it is.
    pub fragment_origin: Vec<Option<u32>>,
    /// Per step of the original fragment trace: what the optimized pair computed for it.
    pub rows: Vec<AlignedRow>,
    /// The first original fragment step whose aligned value differs beyond the tolerance.
    pub first_divergence: Option<Divergence>,
    /// The vertex stage's rows: both traces' vertex steps, common ones paired.
    pub vertex_rows: Vec<VertexRow>,
}

/// One row of the vertex stage: an original vertex step and the optimized step that is
/// the same instruction, or either alone. Every step of both traces is on exactly one row,
/// each trace's in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VertexRow {
    pub original: Option<usize>,
    pub optimized: Option<usize>,
    /// The optimized step's instruction was moved from this original fragment instruction.
    pub moved_from: Option<u32>,
}

/// What the optimized pair computed for one step of the original fragment trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AlignedRow {
    /// Moved to the vertex program: the optimized vertex step, its values at the three
    /// vertices and their perspective-correct blend at the pixel.
    Moved {
        vertex_step: usize,
        per_vertex: [Option<Vec4>; 3],
        interpolated: Vec4,
    },
    /// Still in the fragment program: the optimized fragment step.
    Stayed { fragment_step: usize, value: Vec4 },
    /// Not found in the optimized traces (folded away, or a flow step).
    None,
}

/// The first divergence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    /// The step of the original fragment trace and its instruction.
    pub step: usize,
    pub inst: u32,
    pub original: Vec4,
    pub optimized: Vec4,
    /// The component that differs most, and by how much.
    pub component: u8,
    pub difference: f32,
    pub tolerance: f32,
}

fn moved_from(line: Option<&Line>) -> Option<u32> {
    match line?.prov {
        Prov::Moved { index } => Some(index),
        _ => None,
    }
}

fn origin(line: Option<&Line>) -> Option<u32> {
    match line?.prov {
        Prov::Original { index } => Some(index),
        _ => None,
    }
}

/// The blend of three per-vertex values with weights `w` (f64, rounded once).
fn blend(v: &[Option<Vec4>; 3], w: [f64; 3]) -> Vec4 {
    std::array::from_fn(|c| {
        let s: f64 = (0..3)
            .map(|i| w[i] * f64::from(v[i].map_or(0.0, |x| x[c].get())))
            .sum();
        Bits(s as f32)
    })
}

fn per_vertex(s: &Step) -> [Option<Vec4>; 3] {
    std::array::from_fn(|i| s.values.get(i).copied().flatten())
}

/// How far apart two values are: 0 for equal bits or both NaN, infinite when exactly one
/// is NaN or they are different infinities.
fn distance(a: f32, b: f32) -> f32 {
    if a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) {
        0.0
    } else if a.is_nan() || b.is_nan() {
        f32::INFINITY
    } else {
        let d = (a - b).abs();
        if d.is_nan() { f32::INFINITY } else { d }
    }
}

/// Aligns the traces of one pixel in the original pair and in the optimized pair `out`.
pub fn align(original: &PixelTrace, optimized: &PixelTrace, out: &Outcome) -> Alignment {
    let vertex_moved_from: Vec<Option<u32>> = optimized
        .vertex
        .iter()
        .map(|s| moved_from(out.vp_lines.get(s.inst as usize)))
        .collect();
    let fragment_origin: Vec<Option<u32>> = optimized
        .fragment
        .iter()
        .map(|s| origin(out.fp_lines.get(s.inst as usize)))
        .collect();
    // The last vertex step computing each moved instruction (its final value per vertex).
    let mut moved: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, m) in vertex_moved_from.iter().enumerate() {
        if let (Some(m), true) = (m, optimized.vertex[i].flow.is_none()) {
            moved.insert(*m, i);
        }
    }
    let weights = optimized.interpolation.perspective.map(|w| w.get());
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    let mut rows = Vec::with_capacity(original.fragment.len());
    let mut first_divergence = None;
    for (k, step) in original.fragment.iter().enumerate() {
        let row = if step.flow.is_some() || step.mask == 0 {
            AlignedRow::None
        } else if let Some(&vi) = moved.get(&step.inst) {
            let vs = &optimized.vertex[vi];
            let pv = per_vertex(vs).map(|v| v.map(|v| to_components(v, vs.mask, step.mask)));
            AlignedRow::Moved {
                vertex_step: vi,
                per_vertex: pv,
                interpolated: blend(&pv, weights),
            }
        } else {
            let n = seen.entry(step.inst).or_insert(0);
            let found = fragment_origin
                .iter()
                .enumerate()
                .filter(|(j, o)| **o == Some(step.inst) && optimized.fragment[*j].flow.is_none())
                .nth(*n)
                .map(|(j, _)| j);
            *n += 1;
            match found.and_then(|j| Some((j, optimized.fragment[j].values.first()?.as_ref()?))) {
                Some((j, v)) => AlignedRow::Stayed {
                    fragment_step: j,
                    value: *v,
                },
                None => AlignedRow::None,
            }
        };
        if first_divergence.is_none() {
            first_divergence = diverges(k, step, &row);
        }
        rows.push(row);
    }
    let vertex_rows = pair_vertex(original, optimized, out);
    Alignment {
        vertex_moved_from,
        fragment_origin,
        rows,
        first_divergence,
        vertex_rows,
    }
}

/// Pairs the vertex steps of the original and the optimized trace: an optimized step of an
/// original instruction (`Prov::Original`) pairs with the next unpaired original step of
/// that instruction printed the same (the same op on the same operands); original steps
/// skipped on the way, and optimized steps without a partner, get rows of their own.
pub fn pair_vertex(original: &PixelTrace, optimized: &PixelTrace, out: &Outcome) -> Vec<VertexRow> {
    let (o, p) = (&original.vertex, &optimized.vertex);
    let mut rows = Vec::with_capacity(o.len().max(p.len()));
    let mut next = 0;
    for (j, s) in p.iter().enumerate() {
        let line = out.vp_lines.get(s.inst as usize);
        let partner = origin(line).and_then(|index| {
            (next..o.len()).find(|&i| {
                o[i].inst == index
                    && o[i].op.trim() == s.op.trim()
                    && o[i].flow.is_some() == s.flow.is_some()
            })
        });
        match partner {
            Some(i) => {
                rows.extend((next..i).map(|k| VertexRow {
                    original: Some(k),
                    optimized: None,
                    moved_from: None,
                }));
                rows.push(VertexRow {
                    original: Some(i),
                    optimized: Some(j),
                    moved_from: None,
                });
                next = i + 1;
            }
            None => rows.push(VertexRow {
                original: None,
                optimized: Some(j),
                moved_from: moved_from(line),
            }),
        }
    }
    rows.extend((next..o.len()).map(|k| VertexRow {
        original: Some(k),
        optimized: None,
        moved_from: None,
    }));
    rows
}

/// The divergence at original step `k`, if its aligned value differs beyond the tolerance
/// ([`RELATIVE_TOLERANCE`] of the larger magnitude, at least 1) in a component both write.
fn diverges(k: usize, step: &Step, row: &AlignedRow) -> Option<Divergence> {
    let theirs = match row {
        AlignedRow::Moved { interpolated, .. } => *interpolated,
        AlignedRow::Stayed { value, .. } => *value,
        AlignedRow::None => return None,
    };
    let ours = step.values.first().copied().flatten()?;
    let mask = step.mask;
    let mut worst: Option<(u8, f32, f32)> = None;
    for c in 0..4u8 {
        if mask & (1 << c) == 0 {
            continue;
        }
        let (a, b) = (ours[c as usize].get(), theirs[c as usize].get());
        let scale = [a, b]
            .iter()
            .filter(|v| v.is_finite())
            .fold(1.0f32, |m, v| m.max(v.abs()));
        let tol = RELATIVE_TOLERANCE * scale;
        let d = distance(a, b);
        if d > tol && worst.is_none_or(|(_, w, _)| d > w) {
            worst = Some((c, d, tol));
        }
    }
    let (component, difference, tolerance) = worst?;
    Some(Divergence {
        step: k,
        inst: step.inst,
        original: ours,
        optimized: theirs,
        component,
        difference,
        tolerance,
    })
}

/// A vertex copy's value `v` (written components `from`) put in the components the
/// original instruction wrote (`to`): the n-th written component onto the n-th, so a
/// destination the motion renamed to other components still lines up.
fn to_components(v: Vec4, from: u8, to: u8) -> Vec4 {
    if from == to {
        return v;
    }
    let src: Vec<usize> = (0..4).filter(|c| from & (1 << c) != 0).collect();
    let mut out = v;
    for (n, c) in (0..4).filter(|c| to & (1 << c) != 0).enumerate() {
        if let Some(&s) = src.get(n) {
            out[c] = v[s];
        }
    }
    out
}

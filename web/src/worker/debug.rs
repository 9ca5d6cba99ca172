//! The page's pixel debugger, worker side: one pixel of the document's render traced in both
//! pairs (`hoist_raster::scene::trace` over the render plan's scenes, so the trace ends with
//! the pixel the page shows), lined up by `hoist_verify::debug::align`, and laid out as the
//! rows the panel steps through ([`DebugView`]). Only the pixel asked for is traced, on
//! request, from the plan the last finished job kept ([`Context`]); renders pay nothing.
//!
//! Values cross as their IEEE bits; the page formats them (floats, or hex on demand).

use crate::worker::render::{self, Plan};
use hoist_opt::Outcome;
use hoist_opt::annotate::SourceLines;
use hoist_raster::trace::{Flow, PixelTrace, Step};
use hoist_raster::value::Vec4;
use hoist_verify::debug::{AlignedRow, Alignment, VertexRow, align};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// What a trace needs from a finished job.
#[derive(Clone)]
pub struct Context {
    /// The job (document revision) it belongs to.
    pub id: u64,
    pub plan: Plan,
    /// The optimizer's outcome (for the alignment); `None` for a hand edit.
    pub outcome: Option<Rc<Outcome>>,
    /// Source lines of the original vertex and fragment programs, and the line of each
    /// instruction of the optimized (printed, or hand-edited) pair.
    pub lines: [SourceLines; 4],
}

/// One value of a row: who computed it (`v0`..`v2` at a vertex, `=` at the pixel, `interp`
/// the blend of a moved value), the components it wrote and all four components' bits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub who: String,
    pub mask: u8,
    pub bits: [u32; 4],
}

/// The stage a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Part {
    Vertex,
    Interpolation,
    Fragment,
    Output,
}

/// One row of the debugger: an original instruction and what the optimized pair computed
/// for it (side 0 original, side 1 optimized; either may be empty).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub part: Option<Part>,
    /// The instruction (or what the row shows) on each side.
    pub op: [String; 2],
    /// Its 1-based line: original source line, optimized listing line.
    pub line: [Option<u32>; 2],
    /// The original fragment program's source line this row stands for (the editor and
    /// the dependence graph follow it).
    pub fp_line: Option<u32>,
    pub values: [Vec<Cell>; 2],
    /// The step of each side's trace the row shows (in its stage: vertex or fragment).
    pub step: [Option<usize>; 2],
    /// Flow decisions, fetches, predicates, kills, motion: one sentence each.
    pub notes: Vec<String>,
    /// A moved instruction's per-vertex values and blend stand on this fragment row.
    pub moved: bool,
}

/// A traced pixel as the panel shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DebugView {
    pub x: u32,
    pub y: u32,
    pub rows: Vec<Row>,
    /// The first divergence: its row and what differs.
    pub divergence: Option<(usize, String)>,
    /// Said above the rows (no optimized pair, a hand edit without alignment, ...).
    pub note: Option<String>,
}

fn bits(v: &Vec4) -> [u32; 4] {
    std::array::from_fn(|c| v[c].bits())
}

fn cell(who: &str, mask: u8, v: &Vec4) -> Cell {
    Cell {
        who: who.into(),
        mask,
        bits: bits(v),
    }
}

/// The values of a step: one per invocation (`v0`..`v2`, or `=`).
fn step_cells(s: &Step) -> Vec<Cell> {
    let many = s.values.len() > 1;
    s.values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let who = if many { format!("v{i}") } else { "=".into() };
            match v {
                Some(v) => cell(&who, s.mask, v),
                None => Cell {
                    who,
                    mask: 0,
                    bits: [0; 4],
                },
            }
        })
        .collect()
}

fn yes_no(v: &[Option<bool>]) -> String {
    v.iter()
        .map(|x| match x {
            Some(true) => "yes",
            Some(false) => "no",
            None => "–",
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn g(f: f32) -> String {
    crate::doc::numbers::fmt_f32(f)
}

fn flow_note(f: &Flow) -> String {
    match f {
        Flow::If { taken } => format!("branch taken: {}", yes_no(taken)),
        Flow::Iteration {
            iter,
            counter: Some(c),
            ..
        } => format!("loop iteration {iter} (aL = {})", g(c.get())),
        Flow::Iteration { iter, .. } => format!("loop iteration {iter}"),
        Flow::LoopEnd { iterations } => format!("loop left after {iterations} iterations"),
        Flow::Break { hit } => format!("break: {}", yes_no(hit)),
        Flow::Call { entered } => format!("call entered: {}", yes_no(entered)),
        Flow::Ret => "return".into(),
    }
}

/// Flow, fetches, predicates and kills of a step, in words.
fn notes(s: &Step) -> Vec<String> {
    let mut out: Vec<String> = s.flow.iter().map(flow_note).collect();
    for f in s.fetch.iter().flatten() {
        let c = f.coords.map(|b| g(b.get()));
        let mut n = format!(
            "fetch at ({}, {}, {}), lod {}{}",
            c[0],
            c[1],
            c[2],
            g(f.lod.get()),
            if f.incomplete {
                ": incomplete texture, (0, 0, 0, 1)"
            } else {
                ""
            }
        );
        if let Some(face) = f.face {
            n.push_str(&format!(", cube face {face}"));
        }
        for t in &f.texels {
            let v = t.value.map(|b| g(b.get()));
            n.push_str(&format!(
                "; texel level {} ({}, {}, {}) weight {} = ({}, {}, {}, {})",
                t.level,
                t.at[0],
                t.at[1],
                t.at[2],
                g(t.weight.get()),
                v[0],
                v[1],
                v[2],
                v[3]
            ));
        }
        out.push(n);
    }
    for p in s.pred.iter().flatten() {
        let p: Vec<&str> = p.iter().map(|b| if *b { "on" } else { "off" }).collect();
        out.push(format!("predicate per component: {}", p.join(" ")));
    }
    for k in s.killed.iter().flatten() {
        out.push(if *k { "killed" } else { "not killed" }.into());
    }
    out
}

fn side_row(part: Part, side: usize, (k, s): (usize, &Step), line: Option<u32>) -> Row {
    let mut r = Row {
        part: Some(part),
        notes: notes(s),
        ..Row::default()
    };
    r.op[side] = format!("{}{}", "  ".repeat(s.nesting as usize), s.op);
    r.line[side] = line;
    r.values[side] = step_cells(s);
    r.step[side] = Some(k);
    r
}

fn line_of(l: &SourceLines, inst: u32) -> Option<u32> {
    l.0.get(inst as usize).copied()
}

/// Traces pixel (`x`, `y`) of the context's plan in both pairs.
pub fn trace(cx: &Context, x: u32, y: u32) -> Result<DebugView, String> {
    let opts = hoist_raster::scene::RunOptions {
        caps: render::caps(),
        images: cx.plan.images.clone(),
        tolerance: None,
    };
    let display = &cx.plan.display;
    let run = |sc: &hoist_raster::scene::Scene| {
        hoist_raster::scene::trace(sc, &opts, display, x, y).map_err(|e| e.to_string())
    };
    let original = run(&cx.plan.original)?;
    let optimized = cx.plan.optimized.as_ref().map(run).transpose()?;
    let al = match (&optimized, &cx.outcome) {
        (Some(o), Some(out)) => Some(align(&original, o, out)),
        _ => None,
    };
    let mut v = DebugView {
        x,
        y,
        rows: Vec::new(),
        divergence: None,
        note: match (&optimized, &al) {
            (None, _) => Some("there is no optimized pair: the original alone".into()),
            (Some(_), None) => {
                Some("the optimized side is a hand edit: its rows are not aligned".into())
            }
            _ => None,
        },
    };
    vertex_rows(cx, &original, optimized.as_ref(), al.as_ref(), &mut v.rows);
    interpolation_rows(&original, optimized.as_ref(), &mut v.rows);
    fragment_rows(cx, &original, optimized.as_ref(), al.as_ref(), &mut v);
    output_rows(&original, optimized.as_ref(), &mut v.rows);
    Ok(v)
}

fn vertex_rows(
    cx: &Context,
    o: &PixelTrace,
    p: Option<&PixelTrace>,
    al: Option<&Alignment>,
    rows: &mut Vec<Row>,
) {
    let tri = |t: &PixelTrace| {
        let q = &t.primitive;
        format!(
            "triangle {} (vertices {} {} {}), {}{}",
            q.index,
            q.vertices[0],
            q.vertices[1],
            q.vertices[2],
            if q.front { "front" } else { "back" },
            if q.clipped { ", clipped" } else { "" }
        )
    };
    let mut head = Row {
        part: Some(Part::Vertex),
        notes: vec![format!("covering {}", tri(o))],
        ..Row::default()
    };
    head.op = ["vertex stage".into(), String::new()];
    rows.push(head);
    let vline = |side: usize, s: &Step| line_of(&cx.lines[2 * side], s.inst);
    let Some(p) = p else {
        for (k, s) in o.vertex.iter().enumerate() {
            rows.push(side_row(Part::Vertex, 0, (k, s), vline(0, s)));
        }
        return;
    };
    // Unaligned (a hand edit): the original's rows, then the optimized ones.
    let pairs: Vec<VertexRow> = match al {
        Some(a) => a.vertex_rows.clone(),
        None => (0..o.vertex.len())
            .map(|k| (Some(k), None))
            .chain((0..p.vertex.len()).map(|k| (None, Some(k))))
            .map(|(original, optimized)| VertexRow {
                original,
                optimized,
                moved_from: None,
            })
            .collect(),
    };
    for pr in pairs {
        let mut r = match (pr.original, pr.optimized) {
            (Some(i), Some(j)) => {
                let mut r = side_row(Part::Vertex, 0, (i, &o.vertex[i]), vline(0, &o.vertex[i]));
                let q = side_row(Part::Vertex, 1, (j, &p.vertex[j]), vline(1, &p.vertex[j]));
                r.op[1] = q.op[1].clone();
                r.line[1] = q.line[1];
                r.values[1] = q.values[1].clone();
                r.step[1] = q.step[1];
                r
            }
            (Some(i), None) => side_row(Part::Vertex, 0, (i, &o.vertex[i]), vline(0, &o.vertex[i])),
            (None, Some(j)) => side_row(Part::Vertex, 1, (j, &p.vertex[j]), vline(1, &p.vertex[j])),
            (None, None) => continue,
        };
        if let Some(k) = pr.moved_from {
            let l = cx.lines[1].line(k);
            r.fp_line = Some(l);
            r.moved = true;
            r.notes.push(format!("moved here from fragment line {l}"));
        } else if pr.optimized.is_some() && pr.original.is_none() && al.is_some() {
            r.notes.push("only in the optimized program".into());
        }
        rows.push(r);
    }
}

fn interpolation_rows(o: &PixelTrace, p: Option<&PixelTrace>, rows: &mut Vec<Row>) {
    let ip = &o.interpolation;
    let w = |v: &[hoist_raster::value::Bits64; 3]| {
        v.iter()
            .map(|b| format!("{}", b.get()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut head = Row {
        part: Some(Part::Interpolation),
        notes: vec![
            format!("barycentric weights: {}", w(&ip.barycentric)),
            format!(
                "perspective weights: {}{}",
                w(&ip.perspective),
                if ip.affine { " (equal w: affine)" } else { "" }
            ),
        ],
        ..Row::default()
    };
    head.op = ["interpolation".into(), String::new()];
    rows.push(head);
    let cells = |i: &hoist_raster::trace::Interpolated| {
        let mut c: Vec<Cell> = i
            .vertices
            .iter()
            .flatten()
            .enumerate()
            .map(|(k, v)| cell(&format!("v{k}"), 15, v))
            .collect();
        c.push(cell("=", 15, &i.value));
        c
    };
    let mut seen = Vec::new();
    for i in &ip.inputs {
        let mut r = Row {
            part: Some(Part::Interpolation),
            ..Row::default()
        };
        r.op[0] = format!("{} ({})", i.semantic, i.source);
        r.values[0] = cells(i);
        if let Some(j) =
            p.and_then(|p| (p.interpolation.inputs.iter()).find(|j| j.semantic == i.semantic))
        {
            r.op[1] = format!("{} ({})", j.semantic, j.source);
            r.values[1] = cells(j);
        }
        seen.push(i.semantic.clone());
        rows.push(r);
    }
    for j in p.iter().flat_map(|p| &p.interpolation.inputs) {
        if !seen.contains(&j.semantic) {
            let mut r = Row {
                part: Some(Part::Interpolation),
                notes: vec!["a new interpolator of the optimized pair".into()],
                ..Row::default()
            };
            r.op[1] = format!("{} ({})", j.semantic, j.source);
            r.values[1] = cells(j);
            rows.push(r);
        }
    }
}

fn fragment_rows(
    cx: &Context,
    o: &PixelTrace,
    p: Option<&PixelTrace>,
    al: Option<&Alignment>,
    v: &mut DebugView,
) {
    let mut head = Row {
        part: Some(Part::Fragment),
        ..Row::default()
    };
    head.op = ["fragment stage".into(), String::new()];
    v.rows.push(head);
    let mut used = vec![false; p.map_or(0, |p| p.fragment.len())];
    for (i, s) in o.fragment.iter().enumerate() {
        let l = line_of(&cx.lines[1], s.inst);
        let mut r = side_row(Part::Fragment, 0, (i, s), l);
        r.fp_line = l;
        match (al.and_then(|a| a.rows.get(i)), p) {
            (
                Some(AlignedRow::Moved {
                    vertex_step,
                    per_vertex,
                    interpolated,
                }),
                Some(p),
            ) => {
                let vs = &p.vertex[*vertex_step];
                let vl = line_of(&cx.lines[2], vs.inst);
                r.op[1] = vs.op.clone();
                r.line[1] = vl;
                r.step[1] = Some(*vertex_step);
                r.moved = true;
                r.values[1] = per_vertex
                    .iter()
                    .enumerate()
                    .filter_map(|(k, x)| x.as_ref().map(|x| cell(&format!("v{k}"), s.mask, x)))
                    .collect();
                r.values[1].push(cell("interp", s.mask, interpolated));
                r.notes.push(format!(
                    "moved to the vertex program{}: its values at the three vertices, blended with the perspective weights",
                    vl.map_or(String::new(), |l| format!(" (line {l})"))
                ));
            }
            (Some(AlignedRow::Stayed { fragment_step, .. }), Some(p)) => {
                let fs = &p.fragment[*fragment_step];
                used[*fragment_step] = true;
                r.op[1] = format!("{}{}", "  ".repeat(fs.nesting as usize), fs.op);
                r.line[1] = line_of(&cx.lines[3], fs.inst);
                r.values[1] = step_cells(fs);
                r.step[1] = Some(*fragment_step);
            }
            _ => {}
        }
        if let Some(d) = al
            .and_then(|a| a.first_divergence.as_ref())
            .filter(|d| d.step == i)
        {
            let c = (d.component & 3) as usize;
            let text = format!(
                "first divergence: fragment line {} `{}`, component {}: original {}, optimized {} (difference {}, tolerance {})",
                l.unwrap_or(d.inst + 1),
                s.op,
                ["x", "y", "z", "w"][c],
                g(d.original[c].get()),
                g(d.optimized[c].get()),
                g(d.difference),
                g(d.tolerance)
            );
            v.divergence = Some((v.rows.len(), text));
        }
        v.rows.push(r);
    }
    let Some(p) = p else { return };
    for (k, s) in p.fragment.iter().enumerate() {
        let aligned = al.is_some_and(|a| a.fragment_origin.get(k).copied().flatten().is_some());
        if used[k] || (aligned && s.flow.is_some()) {
            continue;
        }
        let mut r = side_row(Part::Fragment, 1, (k, s), line_of(&cx.lines[3], s.inst));
        if al.is_some() && !aligned {
            r.notes.push("only in the optimized program".into());
        }
        v.rows.push(r);
    }
}

fn output_rows(o: &PixelTrace, p: Option<&PixelTrace>, rows: &mut Vec<Row>) {
    for out in &o.outputs {
        let mut r = Row {
            part: Some(Part::Output),
            ..Row::default()
        };
        r.op[0] = out.register.clone();
        r.values[0] = vec![cell("=", 15, &out.value)];
        if let Some(q) = p.and_then(|p| p.outputs.iter().find(|q| q.register == out.register)) {
            r.op[1] = q.register.clone();
            r.values[1] = vec![cell("=", 15, &q.value)];
        }
        rows.push(r);
    }
    let mut r = Row {
        part: Some(Part::Output),
        op: ["final pixel".into(), "final pixel".into()],
        ..Row::default()
    };
    let fate = |t: &PixelTrace| {
        t.candidates
            .iter()
            .map(|c| {
                format!(
                    "triangle {}: {}",
                    c.primitive,
                    if c.killed {
                        "killed"
                    } else if c.wrote {
                        "wrote the pixel"
                    } else {
                        "failed the depth test"
                    }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    r.notes.push(fate(o));
    r.values[0] = vec![cell("=", 15, &o.pixel)];
    if let Some(p) = p {
        r.values[1] = vec![cell("=", 15, &p.pixel)];
    }
    rows.push(r);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Doc;
    use crate::worker::engine::{Event, Job, Runner};
    use hoist_raster::image::Verdict;

    fn run(doc: Doc) -> (Runner, Box<render::Rendered>) {
        let job = Job {
            id: 3,
            doc,
            images: Default::default(),
            fail: None,
            force: None,
            fresh: false,
            validation_delay_ms: 0,
            band_workers: None,
        };
        let mut r = Runner::new(job, Box::new(|| 0.0));
        let events = r.run_to_end();
        let rendered = events
            .into_iter()
            .filter_map(|e| match e {
                Event::Rendered { rendered, .. } => Some(rendered),
                _ => None,
            })
            .last()
            .expect("a render");
        (r, rendered)
    }

    fn final_bits(v: &DebugView, side: usize) -> [u32; 4] {
        v.rows.last().unwrap().values[side][0].bits
    }

    fn image_bits(r: &render::Rendered, side: usize, x: u32, y: u32) -> [u32; 4] {
        let [a, b] = r.images();
        [a, b][side].unwrap().get(x, y).unwrap().map(f32::to_bits)
    }

    /// Figure 3: both traces end with the pixels the render shows, bit for bit; the moved
    /// instructions stand on the fragment rows they replaced with three vertex values and
    /// their blend; nothing diverges; a pixel outside the image is an error.
    #[test]
    fn figure_3_traces_to_its_rendered_pixels_with_moved_rows_aligned() {
        let mut d = crate::doc::examples::load(crate::doc::examples::find("paper/fig3").unwrap());
        d.inputs.width = 64;
        d.inputs.height = 32;
        let (r, rendered) = run(d);
        let cx = r.trace_context().expect("a context");
        for (x, y) in [(20, 11), (0, 0), (63, 31)] {
            let v = trace(&cx, x, y).unwrap();
            assert_eq!(
                final_bits(&v, 0),
                image_bits(&rendered, 0, x, y),
                "({x}, {y})"
            );
            assert_eq!(
                final_bits(&v, 1),
                image_bits(&rendered, 1, x, y),
                "({x}, {y})"
            );
            assert!(v.divergence.is_none(), "{:?}", v.divergence);
            let moved: Vec<&Row> = (v.rows.iter())
                .filter(|r| r.moved && r.part == Some(Part::Fragment))
                .collect();
            assert!(!moved.is_empty());
            // The vertex stage: Figure 3's original vertex code paired with the optimized
            // program's, the moved instructions alone with their fragment line.
            let vx: Vec<&Row> = (v.rows.iter())
                .filter(|r| {
                    r.part == Some(Part::Vertex) && (r.step[0].is_some() || r.step[1].is_some())
                })
                .collect();
            let paired = vx
                .iter()
                .filter(|r| r.step[0].is_some() && r.step[1].is_some());
            for r in paired.clone() {
                assert_eq!(r.op[0].trim(), r.op[1].trim(), "{r:?}");
            }
            assert!(paired.count() > 0, "{vx:?}");
            let mv: Vec<&&Row> = vx.iter().filter(|r| r.moved).collect();
            assert!(!mv.is_empty());
            for r in mv {
                assert!(r.step[0].is_none() && r.step[1].is_some(), "{r:?}");
                let l = r.fp_line.unwrap();
                assert!(
                    r.notes
                        .contains(&format!("moved here from fragment line {l}")),
                    "{r:?}"
                );
            }
            for m in moved {
                let who: Vec<&str> = m.values[1].iter().map(|c| c.who.as_str()).collect();
                assert_eq!(who, ["v0", "v1", "v2", "interp"], "{m:?}");
                assert!(m.fp_line.is_some() && m.line[1].is_some(), "{m:?}");
            }
        }
        let e = trace(&cx, 64, 0).unwrap_err();
        assert!(e.contains("outside"), "{e}");
    }

    /// The cancellation pair: DIFFERENT, and at the worst pixel the first divergence is
    /// marked on the row of an original instruction.
    #[test]
    fn the_cancellation_pair_diverges_at_its_worst_pixel() {
        let d = Doc {
            vp: "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
                 MOV result.texcoord[0], vertex.texcoord[0];\nEND\n"
                .into(),
            fp: "!!ARBfp1.0\nTEMP a, b;\nMUL b, fragment.texcoord[0], 0.5;\n\
                 MUL a, fragment.texcoord[0], 0.3;\nADD a, a, 1e4;\nADD a, a, -1e4;\n\
                 ADD result.color, a, b;\nEND\n"
                .into(),
            inputs: crate::doc::Inputs {
                width: 40,
                height: 40,
                ..Default::default()
            },
            ..Doc::default()
        };
        let (r, rendered) = run(d);
        let Some(Verdict::Differs { x, y, .. }) = rendered.verdict.clone() else {
            panic!("{:?}", rendered.verdict)
        };
        let v = trace(&r.trace_context().unwrap(), x, y).unwrap();
        let (row, text) = v.divergence.clone().expect("a divergence");
        assert!(
            text.starts_with("first divergence: fragment line "),
            "{text}"
        );
        assert_eq!(v.rows[row].part, Some(Part::Fragment));
        assert!(v.rows[row].step[0].is_some() && !v.rows[row].values[1].is_empty());
        assert_eq!(final_bits(&v, 0), image_bits(&rendered, 0, x, y));
        assert_eq!(final_bits(&v, 1), image_bits(&rendered, 1, x, y));
    }
}

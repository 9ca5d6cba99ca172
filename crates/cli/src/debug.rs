//! `hoist debug`: one pixel of `hoist render`'s draw traced from the vertices through the
//! interpolators to the value the image holds (`hoist_raster::trace`), for the original
//! pair or, with `--optimized`, for the pair `hoist opt` makes of it by default, lined up
//! with the original (`hoist_verify::debug`): moved vertex rows name the fragment line they
//! came from, and the first row where the two differ beyond the tolerance is named.
//!
//! An interface for scripts: `--json` writes one object whose `vertex` and `fragment`
//! stages hold `rows` with `line`, `op`, `values` (per vertex, or per fragment) and
//! `moved_from`, plus `interpolation` and `final`.

use crate::render::fmt_g;
use crate::util;
use hoist_asm::Program;
use hoist_opt::Outcome;
use hoist_opt::annotate::SourceLines;
use hoist_raster::raster::CompiledProgram;
use hoist_raster::trace::{Flow, PixelTrace, Step, trace_pixel};
use hoist_raster::value::{Bits, Bits64, Vec4};
use hoist_verify::debug::{AlignedRow, Alignment, align};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
hoist debug --vp fig3.vsh --fp fig3.psh --pixel 10,20\n  \
hoist debug --vp conv3.vp --fp conv3.fp --texture 0 noise:1 --pixel 5,5 --optimized --json\n\n\
Takes every option of `hoist render` (size, textures, parameters, clamps, executor); the\n\
pixel is x,y with the origin at the bottom left, as --probe. Without --optimized it traces\n\
the original pair; with it, the pair `hoist opt` makes with its defaults, the moved vertex\n\
rows marked with the fragment line they came from and the first divergence from the\n\
original named.\n\n\
JSON (--json): `pixel`, `pair`, `primitive`, `vertex` and `fragment` (each `rows`: `line`,\n\
`inst`, `op`, `values` per vertex or per fragment, four components each with null where\n\
not written, NaN and infinities as the strings \"NaN\", \"Infinity\", \"-Infinity\"; `bits`\n\
the same as hexadecimal IEEE-754 bits; `moved_from`: the original fragment line of a moved\n\
vertex instruction; `flow`, `fetch`, `pred`, `killed` where they apply), `interpolation`\n\
(`barycentric`, `perspective`, `inputs` with the three vertex values and the interpolated\n\
one), `outputs`, `candidates`, `final` (the image's value) and, with --optimized,\n\
`aligned` and `first_divergence`.\n\n\
Exit status: 0 on success, 1 on a program or trace error (a pixel outside the image, or\n\
one no primitive covers), 2 on a usage error.")]
#[group(skip)]
pub struct Args {
    #[command(flatten)]
    render: crate::render::Args,
    /// The pixel to trace: x,y (origin bottom-left)
    #[arg(long, value_parser = parse_xy)]
    pixel: (u32, u32),
    /// Trace the optimized pair (optimized as `hoist opt` does by default)
    #[arg(long)]
    optimized: bool,
    /// Write the trace as JSON
    #[arg(long)]
    json: bool,
}

fn parse_xy(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("expected x,y, got `{s}`"))?;
    Ok((
        a.trim().parse().map_err(|_| format!("bad x in `{s}`"))?,
        b.trim().parse().map_err(|_| format!("bad y in `{s}`"))?,
    ))
}

/// The source lines of a program read from `path`.
fn lines_of(p: &Program, path: Option<&Path>) -> SourceLines {
    let src = path
        .and_then(|p| util::read_source(p).ok())
        .unwrap_or_default();
    SourceLines::of(p, &src, 1)
}

fn compile(p: Option<&Program>) -> Result<Option<Arc<CompiledProgram>>, String> {
    p.map(|p| CompiledProgram::new(p).map(Arc::new))
        .transpose()
        .map_err(|e| e.to_string())
}

/// How rows are numbered and lined up for output.
struct Lines {
    /// The line of each vertex / fragment instruction (source lines for the original pair,
    /// printed lines of the optimized programs).
    vertex: Vec<u32>,
    fragment: Vec<u32>,
    /// The original fragment program's source lines (for `moved_from`).
    original_fp: SourceLines,
}

fn printed_lines(p: &Program) -> Vec<u32> {
    hoist_asm::print_with_spans(p)
        .insts
        .iter()
        .map(|s| s.line as u32 + 1)
        .collect()
}

pub fn run(mut args: Args) -> u8 {
    if args.render.source.given() {
        match args.render.source.to_files(args.render.target) {
            Ok((vp, fp)) => {
                args.render.vp = Some(vp);
                args.render.fp = Some(fp);
            }
            Err(code) => return code,
        }
    }
    args.render.quiet = true;
    match trace(&args) {
        Ok(out) => {
            util::write_stdout(&out);
            0
        }
        Err(e) => {
            util::error(e);
            1
        }
    }
}

fn trace(args: &Args) -> Result<String, String> {
    let (vp, fp, cfg) = crate::render::build_parsed(&args.render)?;
    let (x, y) = args.pixel;
    let vpl = vp.as_ref().map(|p| lines_of(p, args.render.vp.as_deref()));
    let fpl = fp.as_ref().map(|p| lines_of(p, args.render.fp.as_deref()));
    let (cvp, cfp) = (compile(vp.as_ref())?, compile(fp.as_ref())?);
    let original =
        trace_pixel(cvp.as_ref(), cfp.as_ref(), &cfg, x, y).map_err(|e| e.to_string())?;
    let n = |l: &Option<SourceLines>| l.clone().unwrap_or_default().0;
    if !args.optimized {
        let lines = Lines {
            vertex: n(&vpl),
            fragment: n(&fpl),
            original_fp: fpl.clone().unwrap_or_default(),
        };
        return Ok(if args.json {
            json_out(&original, "original", &lines, None, None)
        } else {
            text_out(&original, "original", &lines, None, None)
        });
    }
    let (Some(vp), Some(fp)) = (vp, fp) else {
        return Err("--optimized needs both --vp and --fp".into());
    };
    let opts = crate::opt::default_options(&vp, &fp, args.render.target);
    let checked = hoist_verify::optimize(&vp, &fp, &opts, Some(&hoist_verify::Config::default()))
        .map_err(|e| e.to_string())?;
    let out = &checked.outcome;
    let mut ocfg = cfg.clone();
    ocfg.params = hoist_verify::validate::mirrored(&cfg.params, &cfg.state.gl, out);
    let (ovp, ofp) = (compile(Some(&out.vp))?, compile(Some(&out.fp))?);
    let optimized =
        trace_pixel(ovp.as_ref(), ofp.as_ref(), &ocfg, x, y).map_err(|e| e.to_string())?;
    let al = align(&original, &optimized, out);
    let lines = Lines {
        vertex: printed_lines(&out.vp),
        fragment: printed_lines(&out.fp),
        original_fp: fpl.unwrap_or_default(),
    };
    let both = Some((&original, &al));
    Ok(if args.json {
        json_out(&optimized, "optimized", &lines, both, Some(out))
    } else {
        text_out(&optimized, "optimized", &lines, both, Some(out))
    })
}

// ---- JSON ----

fn num(b: Bits) -> Value {
    let v = b.get();
    if v.is_nan() {
        json!("NaN")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(f64::from(v))
    }
}

fn num64(b: Bits64) -> Value {
    let v = b.get();
    if v.is_nan() {
        json!("NaN")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(v)
    }
}

fn nums64(v: &[Bits64]) -> Value {
    Value::Array(v.iter().map(|b| num64(*b)).collect())
}

fn primitive_json(t: &PixelTrace) -> Value {
    let p = &t.primitive;
    json!({
        "index": p.index,
        "vertices": p.vertices,
        "clipped": p.clipped,
        "front": p.front,
        "window": p.window.iter().map(|w| nums64(w)).collect::<Vec<_>>(),
        "depth": nums64(&p.depth),
        "inv_w": nums64(&p.inv_w),
    })
}

fn vec_json(v: &Vec4, mask: u8) -> Value {
    Value::Array(
        (0..4)
            .map(|c| {
                if mask & (1 << c) != 0 {
                    num(v[c])
                } else {
                    Value::Null
                }
            })
            .collect(),
    )
}

fn bits_json(v: &Vec4, mask: u8) -> Value {
    Value::Array(
        (0..4)
            .map(|c| {
                if mask & (1 << c) != 0 {
                    json!(format!("{:08x}", v[c].bits()))
                } else {
                    Value::Null
                }
            })
            .collect(),
    )
}

fn row_json(s: &Step, line: Option<u32>, moved_from: Option<u32>) -> Value {
    let vals = |f: fn(&Vec4, u8) -> Value| -> Value {
        Value::Array(
            s.values
                .iter()
                .map(|v| v.as_ref().map_or(Value::Null, |v| f(v, s.mask)))
                .collect(),
        )
    };
    let mut o = json!({
        "line": line,
        "inst": s.inst,
        "op": s.op,
        "nesting": s.nesting,
        "values": vals(vec_json),
        "bits": vals(bits_json),
        "moved_from": moved_from,
    });
    if let Some(f) = &s.flow {
        o["flow"] = serde_json::to_value(f).unwrap_or(Value::Null);
    }
    if !s.fetch.is_empty() {
        o["fetch"] = fetch_json(s);
    }
    if !s.pred.is_empty() {
        o["pred"] = json!(s.pred);
    }
    if !s.killed.is_empty() {
        o["killed"] = json!(s.killed);
    }
    o
}

fn fetch_json(s: &Step) -> Value {
    Value::Array(
        s.fetch
            .iter()
            .map(|f| {
                f.as_ref().map_or(Value::Null, |f| {
                    json!({
                        "coords": f.coords.iter().map(|b| num(*b)).collect::<Vec<_>>(),
                        "lod": num(f.lod),
                        "face": f.face,
                        "incomplete": f.incomplete,
                        "value": vec_json(&f.value, 15),
                        "texels": f.texels.iter().map(|t| json!({
                            "level": t.level,
                            "at": t.at,
                            "value": vec_json(&t.value, 15),
                            "weight": num(t.weight),
                        })).collect::<Vec<_>>(),
                    })
                })
            })
            .collect(),
    )
}

fn line_of(lines: &[u32], inst: u32) -> Option<u32> {
    lines.get(inst as usize).copied()
}

fn moved_line(al: Option<&Alignment>, lines: &Lines, step: usize) -> Option<u32> {
    let idx = al?.vertex_moved_from.get(step).copied().flatten()?;
    Some(lines.original_fp.line(idx))
}

fn json_out(
    t: &PixelTrace,
    pair: &str,
    lines: &Lines,
    both: Option<(&PixelTrace, &Alignment)>,
    _out: Option<&Outcome>,
) -> String {
    let al = both.map(|b| b.1);
    let vertex: Vec<Value> = t
        .vertex
        .iter()
        .enumerate()
        .map(|(i, s)| row_json(s, line_of(&lines.vertex, s.inst), moved_line(al, lines, i)))
        .collect();
    let fragment: Vec<Value> = t
        .fragment
        .iter()
        .map(|s| row_json(s, line_of(&lines.fragment, s.inst), None))
        .collect();
    let inputs: Vec<Value> = t
        .interpolation
        .inputs
        .iter()
        .map(|i| {
            json!({
                "semantic": i.semantic,
                "source": i.source,
                "qualifier": i.qualifier,
                "vertices": i.vertices.as_ref().map(|v| v.iter().map(|v| vec_json(v, 15)).collect::<Vec<_>>()),
                "value": vec_json(&i.value, 15),
                "bits": bits_json(&i.value, 15),
            })
        })
        .collect();
    let killed = t.candidates.iter().all(|c| c.killed);
    let mut o = json!({
        "pixel": [t.x, t.y],
        "pair": pair,
        "primitive": primitive_json(t),
        "vertex": { "rows": vertex },
        "interpolation": {
            "barycentric": nums64(&t.interpolation.barycentric),
            "perspective": nums64(&t.interpolation.perspective),
            "affine": t.interpolation.affine,
            "inputs": inputs,
        },
        "fragment": { "rows": fragment },
        "outputs": t.outputs.iter().map(|o| json!({"register": o.register, "value": vec_json(&o.value, 15), "bits": bits_json(&o.value, 15)})).collect::<Vec<_>>(),
        "candidates": t.candidates,
        "final": {
            "pixel": vec_json(&t.pixel, 15),
            "bits": bits_json(&t.pixel, 15),
            "killed": killed,
        },
    });
    if let Some((orig, al)) = both {
        o["aligned"] = aligned_json(orig, al, t, lines);
        o["first_divergence"] = al.first_divergence.as_ref().map_or(Value::Null, |d| {
            let s = &orig.fragment[d.step];
            let component = ["x", "y", "z", "w"][d.component as usize & 3];
            json!({
                "line": lines.original_fp.line(d.inst),
                "op": s.op,
                "component": component,
                "original": vec_json(&d.original, s.mask),
                "optimized": vec_json(&d.optimized, s.mask),
                "difference": num(Bits(d.difference)),
                "tolerance": num(Bits(d.tolerance)),
            })
        });
    }
    let mut s = serde_json::to_string_pretty(&o).unwrap_or_default();
    s.push('\n');
    s
}

/// Per original fragment row: its value and what the optimized pair computed for it.
fn aligned_json(orig: &PixelTrace, al: &Alignment, opt: &PixelTrace, lines: &Lines) -> Value {
    let rows: Vec<Value> = orig
        .fragment
        .iter()
        .zip(&al.rows)
        .filter(|(s, _)| s.flow.is_none())
        .map(|(s, r)| {
            let mine = s.values.first().copied().flatten();
            let mut o = json!({
                "line": lines.original_fp.line(s.inst),
                "op": s.op,
                "original": mine.map_or(Value::Null, |v| vec_json(&v, s.mask)),
            });
            match r {
                AlignedRow::Moved {
                    vertex_step,
                    per_vertex,
                    interpolated,
                } => {
                    let vs = &opt.vertex[*vertex_step];
                    o["moved_to"] = json!(line_of(&lines.vertex, vs.inst));
                    o["per_vertex"] = Value::Array(
                        per_vertex
                            .iter()
                            .map(|v| v.map_or(Value::Null, |v| vec_json(&v, s.mask)))
                            .collect(),
                    );
                    o["optimized"] = vec_json(interpolated, s.mask);
                }
                AlignedRow::Stayed {
                    fragment_step,
                    value,
                } => {
                    let fs = &opt.fragment[*fragment_step];
                    o["optimized_line"] = json!(line_of(&lines.fragment, fs.inst));
                    o["optimized"] = vec_json(value, s.mask);
                }
                AlignedRow::None => o["optimized"] = Value::Null,
            }
            o
        })
        .collect();
    Value::Array(rows)
}

// ---- text ----

fn g(b: Bits) -> String {
    fmt_g(f64::from(b.get()))
}

fn comps(v: &Vec4, mask: u8) -> String {
    let names = ['x', 'y', 'z', 'w'];
    (0..4)
        .filter(|c| mask & (1 << c) != 0)
        .map(|c| format!("{}={}", names[c], g(v[c])))
        .collect::<Vec<_>>()
        .join(" ")
}

fn flow_text(f: &Flow) -> String {
    let b = |v: &[Option<bool>]| {
        v.iter()
            .map(|x| match x {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    match f {
        Flow::If { taken } => format!("branch taken: {}", b(taken)),
        Flow::Iteration { iter, counter, .. } => match counter {
            Some(c) => format!("iteration {iter} (aL = {})", g(*c)),
            None => format!("iteration {iter}"),
        },
        Flow::LoopEnd { iterations } => format!("loop left after {iterations} iterations"),
        Flow::Break { hit } => format!("break: {}", b(hit)),
        Flow::Call { entered } => format!("call entered: {}", b(entered)),
        Flow::Ret => "return".into(),
    }
}

fn step_text(s: &Step, line: Option<u32>, note: &str) -> String {
    let indent = "  ".repeat(s.nesting as usize);
    let mut out = format!(
        "{:>5}  {indent}{}",
        line.map_or("-".to_string(), |l| l.to_string()),
        s.op
    );
    if let Some(f) = &s.flow {
        out.push_str(&format!("    [{}]", flow_text(f)));
    }
    out.push_str(note);
    out.push('\n');
    for (i, v) in s.values.iter().enumerate() {
        let who = if s.values.len() > 1 {
            format!("v{i}")
        } else {
            "=".into()
        };
        match v {
            Some(v) => out.push_str(&format!("         {who}: {}\n", comps(v, s.mask))),
            None if s.values.len() > 1 => out.push_str(&format!("         {who}: (not run)\n")),
            None => {}
        }
    }
    for f in s.fetch.iter().flatten() {
        out.push_str(&format!(
            "         fetch at ({}, {}, {}), lod {}{}: {} texel(s)\n",
            g(f.coords[0]),
            g(f.coords[1]),
            g(f.coords[2]),
            g(f.lod),
            if f.incomplete {
                " (incomplete texture)"
            } else {
                ""
            },
            f.texels.len()
        ));
        for t in &f.texels {
            out.push_str(&format!(
                "           level {} ({}, {}, {}) weight {}: {}\n",
                t.level,
                t.at[0],
                t.at[1],
                t.at[2],
                g(t.weight),
                comps(&t.value, 15)
            ));
        }
    }
    for p in s.pred.iter().flatten() {
        out.push_str(&format!("         predicate: {p:?}\n"));
    }
    for k in s.killed.iter().flatten() {
        out.push_str(&format!("         killed: {k}\n"));
    }
    out
}

fn text_out(
    t: &PixelTrace,
    pair: &str,
    lines: &Lines,
    both: Option<(&PixelTrace, &Alignment)>,
    _out: Option<&Outcome>,
) -> String {
    let al = both.map(|b| b.1);
    let p = &t.primitive;
    let mut o = format!(
        "pixel ({}, {}) of the {pair} pair: triangle {} (vertices {} {} {}), {}{}\n",
        t.x,
        t.y,
        p.index,
        p.vertices[0],
        p.vertices[1],
        p.vertices[2],
        if p.front { "front" } else { "back" },
        if p.clipped { ", clipped" } else { "" }
    );
    o.push_str("\nvertex stage (values at v0 v1 v2):\n");
    if t.vertex.is_empty() {
        o.push_str("  fixed function\n");
    }
    for (i, s) in t.vertex.iter().enumerate() {
        let note = moved_line(al, lines, i).map_or(String::new(), |l| {
            format!("    ; moved from fragment line {l}")
        });
        o.push_str(&step_text(s, line_of(&lines.vertex, s.inst), &note));
    }
    let ip = &t.interpolation;
    let w = |v: [Bits64; 3]| format!("{:.6} {:.6} {:.6}", v[0].get(), v[1].get(), v[2].get());
    o.push_str(&format!(
        "\ninterpolation: barycentric {}, perspective {}{}\n",
        w(ip.barycentric),
        w(ip.perspective),
        if ip.affine { " (affine)" } else { "" }
    ));
    for i in &ip.inputs {
        o.push_str(&format!("  {} ({}", i.semantic, i.source));
        if let Some(q) = &i.qualifier {
            o.push_str(&format!(", {q}"));
        }
        o.push_str(&format!("): {}\n", comps(&i.value, 15)));
        if let Some(v) = &i.vertices {
            for (k, v) in v.iter().enumerate() {
                o.push_str(&format!("      v{k}: {}\n", comps(v, 15)));
            }
        }
    }
    o.push_str("\nfragment stage:\n");
    if t.fragment.is_empty() {
        o.push_str("  fixed function\n");
    }
    for s in &t.fragment {
        o.push_str(&step_text(s, line_of(&lines.fragment, s.inst), ""));
    }
    o.push_str("\noutputs:\n");
    for out in &t.outputs {
        o.push_str(&format!("  {}: {}\n", out.register, comps(&out.value, 15)));
    }
    for c in &t.candidates {
        o.push_str(&format!(
            "triangle {}: {}\n",
            c.primitive,
            if c.killed {
                "killed".to_string()
            } else if c.wrote {
                "wrote the pixel".to_string()
            } else {
                "failed the depth test".to_string()
            }
        ));
    }
    o.push_str(&format!("final pixel: {}\n", comps(&t.pixel, 15)));
    if let Some((orig, al)) = both {
        o.push_str(&divergence_text(orig, al, lines));
    }
    o
}

fn divergence_text(orig: &PixelTrace, al: &Alignment, lines: &Lines) -> String {
    match &al.first_divergence {
        None => "\nfirst divergence: none (every aligned row agrees within the tolerance)\n".into(),
        Some(d) => {
            let s = &orig.fragment[d.step];
            format!(
                "\nfirst divergence: fragment line {} `{}`, component {}: original {}, \
                 optimized {} (difference {}, tolerance {})\n",
                lines.original_fp.line(d.inst),
                s.op,
                ['x', 'y', 'z', 'w'][d.component as usize & 3],
                g(d.original[d.component as usize & 3]),
                g(d.optimized[d.component as usize & 3]),
                fmt_g(f64::from(d.difference)),
                fmt_g(f64::from(d.tolerance))
            )
        }
    }
}

//! The entry points `vs` and `fs`: attributes into the vertex program's input registers,
//! its outputs onto the varyings by semantic, the fragment inputs (varyings, back colours
//! with two-sided lighting, the window position, the facing) into registers, and the
//! fragment outputs with the draw's colour clamp, RGBA8 quantisation, kill and depth; or
//! fixed function for a stage without a program — all as the executor's pipeline
//! (`hoist_raster::raster`) defines them.
//!
//! Coordinates: the executor is GL (window y up, clip z in [−w, w], texel row 0 at t = 0,
//! also for targets rendered to and read back as textures). WebGPU's framebuffer y points
//! down and its clip z is [0, w], so its vertex stage writes (x, −y, (z + w)/2, w): row 0
//! of every WebGPU target is then GL's bottom row (render to texture, readback, quads and
//! `fragment.position` all as GL numbers them; the host sets the viewport's depth range to
//! GL's and calls clockwise front-facing). WebGL2 takes clip space as it is.

use super::common::push;
use crate::error::Error;
use crate::iface::{FragSrc, Iface};
use crate::options::{Api, Options, Output};
use hoist_asm::ir::{RegFile, Semantic};
use hoist_asm::{Dialect, Program, Reg};
use hoist_raster::program::out_semantic;

const UNWRITTEN: &str = "vec4f(0.0f, 0.0f, 0.0f, 1.0f)";
const OUT_FILES: [RegFile; 4] = [
    RegFile::RastOut,
    RegFile::AttrOut,
    RegFile::TexCrdOut,
    RegFile::Output,
];

/// The structs both entry points share.
pub(crate) fn structs(out: &mut String, f: &Iface) {
    if !f.attributes.is_empty() {
        out.push_str("struct VsIn {\n");
        for s in &f.attributes {
            push(out, format_args!("  @location({s}) a{s}: vec4f,\n"));
        }
        out.push_str("}\n");
    }
    out.push_str("struct Vary {\n  @builtin(position) pos: vec4f,\n");
    for k in 0..f.varyings.len() {
        push(out, format_args!("  @location({k}) l{k}: vec4f,\n"));
    }
    out.push_str("}\n\n");
}

/// The last output register of `p` with semantic `s` (the executor's later outputs overwrite
/// earlier ones), with the pipeline's treatment: fog keeps x, colours written to the colour
/// outputs are clamped when `vertex_clamp` is on.
fn output_of(p: &Program, scan: &crate::iface::Scan, s: Semantic, opts: &Options) -> String {
    let mut found = None;
    for reg in scan.regs(&OUT_FILES) {
        if out_semantic(p, reg) == Some(s) {
            found = Some(reg);
        }
    }
    let Some(reg) = found else {
        return UNWRITTEN.into();
    };
    let r = super::common::reg_name('v', reg);
    match s {
        Semantic::Fog(_) => format!("vec4f({r}.x, 0.0f, 0.0f, 1.0f)"),
        Semantic::Color(_) | Semantic::BackColor(_)
            if opts.vertex_clamp && reg.file == RegFile::AttrOut =>
        {
            format!("clamp({r}, vec4f(0.0f), vec4f(1.0f))")
        }
        _ => r,
    }
}

/// Fixed-function varyings: colours from the current colour attributes, texture
/// coordinates through the texture matrices, fog from attribute 5.
fn fixed_varying(s: Semantic, opts: &Options) -> String {
    match s {
        Semantic::Color(n) | Semantic::BackColor(n) => {
            let a = format!("i.a{}", 3 + n.min(1));
            if opts.vertex_clamp {
                format!("clamp({a}, vec4f(0.0f), vec4f(1.0f))")
            } else {
                a
            }
        }
        Semantic::TexCoord(n) if n < 8 => format!("tex_of({n}u, i.a{})", 8 + n),
        Semantic::Fog(_) => "vec4f(i.a5.x, 0.0f, 0.0f, 1.0f)".into(),
        _ => UNWRITTEN.into(),
    }
}

/// `vs`.
pub(crate) fn vertex(out: &mut String, vp: Option<&Program>, f: &Iface, opts: &Options, api: Api) {
    let param = if f.attributes.is_empty() {
        ""
    } else {
        "i: VsIn"
    };
    push(out, format_args!("@vertex\nfn vs({param}) -> Vary {{\n"));
    let clip = match (vp, &f.vscan) {
        (Some(p), Some(scan)) => {
            for &(reg, slot) in &f.vinputs {
                push(
                    out,
                    format_args!("  {} = i.a{slot};\n", super::common::reg_name('v', reg)),
                );
            }
            out.push_str("  v_main();\n");
            let invariant = p.has_option(&hoist_asm::ir::ArbOption::PositionInvariant);
            if invariant {
                "mvp_of(i.a0)".to_string()
            } else {
                let mut c = "vec4f(0.0f)".to_string();
                for reg in scan.regs(&OUT_FILES) {
                    if out_semantic(p, reg) == Some(Semantic::Position(0)) {
                        c = super::common::reg_name('v', reg);
                    }
                }
                c
            }
        }
        _ => "mvp_of(i.a0)".to_string(),
    };
    out.push_str("  var o: Vary;\n");
    push(out, format_args!("  let clip = {clip};\n"));
    match api {
        Api::WebGpu => {
            out.push_str("  o.pos = vec4f(clip.x, -clip.y, 0.5f * (clip.z + clip.w), clip.w);\n")
        }
        Api::WebGl2 => out.push_str("  o.pos = clip;\n"),
    }
    for (k, &s) in f.varyings.iter().enumerate() {
        let v = match (vp, &f.vscan) {
            (Some(p), Some(scan)) => output_of(p, scan, s, opts),
            _ => fixed_varying(s, opts),
        };
        push(out, format_args!("  o.l{k} = {v};\n"));
    }
    out.push_str("  return o;\n}\n\n");
}

/// The value of a varying source in the fragment stage (front or back by facing).
fn vary(src: FragSrc) -> String {
    match src {
        FragSrc::Vary(front, Some(back)) => format!("select(i.l{back}, i.l{front}, face)"),
        FragSrc::Vary(front, None) => format!("i.l{front}"),
        _ => UNWRITTEN.into(),
    }
}

/// `fragment.position` (GL window coordinates) or D3D9's `vPos` (pixel indices from the
/// top). Both APIs' framebuffer y runs up here (WebGPU's through the flipped clip y).
fn window_pos(d3d: bool) -> &'static str {
    if d3d {
        "vec4f(i.pos.x - 0.5f, dr.size.y - 0.5f - i.pos.y, i.pos.z, i.pos.w)"
    } else {
        "i.pos"
    }
}

/// `fs`.
pub(crate) fn fragment(
    out: &mut String,
    fp: Option<&Program>,
    f: &Iface,
    opts: &Options,
) -> Result<(), Error> {
    let depth = fp.is_some()
        && f.fscan
            .as_ref()
            .is_some_and(|s| s.size(RegFile::DepthOut) > 0);
    out.push_str("struct FsOut {\n  @location(0) color: vec4f,\n");
    if depth {
        out.push_str("  @builtin(frag_depth) depth: f32,\n");
    }
    out.push_str("}\n\n");
    let uses_face = f
        .finputs
        .iter()
        .any(|(_, s)| matches!(s, FragSrc::Face | FragSrc::Vary(_, Some(_))))
        || [f.ff_colors.0, f.ff_colors.1]
            .iter()
            .any(|s| matches!(s, Some(FragSrc::Vary(_, Some(_)))));
    let face = if uses_face {
        ", @builtin(front_facing) face: bool"
    } else {
        ""
    };
    push(
        out,
        format_args!("@fragment\nfn fs(i: Vary{face}) -> FsOut {{\n"),
    );
    match (fp, &f.fscan) {
        (Some(p), Some(scan)) => {
            let d3d = p.dialect() == Dialect::D3d9;
            for &(reg, src) in &f.finputs {
                let v = match src {
                    FragSrc::WindowPos => window_pos(d3d).to_string(),
                    FragSrc::Face => "vec4f(select(-1.0f, 1.0f, face), 0.0f, 0.0f, 0.0f)".into(),
                    s => vary(s),
                };
                push(
                    out,
                    format_args!("  {} = {v};\n", super::common::reg_name('f', reg)),
                );
            }
            out.push_str("  f_main();\n");
            let col = if scan.size(RegFile::ColorOut) > 0 {
                "f_oc0"
            } else {
                "vec4f(0.0f)"
            };
            push(out, format_args!("  var col = {col};\n"));
        }
        _ => {
            push(
                out,
                format_args!(
                    "  var col = {};\n",
                    vary(f.ff_colors.0.unwrap_or(FragSrc::Unwritten))
                ),
            );
            if let Some(sec) = f.ff_colors.1 {
                push(
                    out,
                    format_args!(
                        "  col = vec4f(min(col.xyz + {}.xyz, vec3f(1.0f)), col.w);\n",
                        vary(sec)
                    ),
                );
            }
        }
    }
    output(out, opts, fp, depth);
    Ok(())
}

/// The colour write (clamp, RGBA8 quantisation), the kill, the depth.
fn output(out: &mut String, opts: &Options, fp: Option<&Program>, depth: bool) {
    if opts.output != Output::Float {
        out.push_str(
            "  col = select(clamp(col, vec4f(0.0f), vec4f(1.0f)), vec4f(0.0f), col != col);\n",
        );
    }
    if opts.output == Output::Unorm8 {
        out.push_str("  col = floor(col * 255.0f + vec4f(0.5f)) / 255.0f;\n");
    }
    if fp.is_some() {
        out.push_str("  if f_killed { discard; }\n");
    }
    out.push_str("  var o: FsOut;\n  o.color = col;\n");
    if let (true, Some(p)) = (depth, fp) {
        let c = if p.dialect() == Dialect::Arb {
            'z'
        } else {
            'x'
        };
        push(
            out,
            format_args!(
                "  let d = {}.{c};\n  o.depth = select(clamp(d, 0.0f, 1.0f), 1.0f, d != d);\n",
                super::common::reg_name('f', Reg::new(RegFile::DepthOut, 0))
            ),
        );
    }
    out.push_str("  return o;\n}\n");
}

//! The binding tables of both specs, in both directions: [`interpret`] reads a dotted path
//! (`vertex.texcoord[1]`, `state.matrix.mvp.inverse.row[0..3]`, `program.env[2]`,
//! `result.color.back`) into registers or constant bindings, and the `*_text` functions
//! write the canonical spelling back for the printer.
//!
//! Register mapping follows the crate docs: vertex attributes use the attribute-aliasing
//! slot, fragment colours/fog are `Input` 0/1/2, `fragment.texcoord[n]` is `TexCoord n`,
//! `fragment.position` is `Misc 0`; results map to `RastOut`/`AttrOut`/`TexCrdOut` (vertex)
//! and `ColorOut`/`DepthOut` (fragment). Implementation limits not carried in
//! [`Limits`] are those of the spec minimums (8 lights, 6 clip planes, 8 program
//! matrices), 4 vertex units and 4 draw buffers.

use super::ast::{Index, Seg, display_segs};
use super::error::{ArbError, Spanned, one_of, suggest};
use crate::ir::{ConstBinding, Reg, RegFile, Semantic, Span, Stage};
use crate::profile::Limits;
use crate::state::{
    Face, LightProdProp, LightProp, MaterialProp, MatrixMod, MatrixName, StateRef, TexGenPlane,
};

pub const MAX_LIGHTS: u64 = 8;
pub const MAX_CLIP_PLANES: u64 = 6;
pub const MAX_PROGRAM_MATRICES: u64 = 8;
pub const MAX_VERTEX_UNITS: u64 = 4;
pub const MAX_PALETTE_MATRICES: u64 = 32;
pub const MAX_DRAW_BUFFERS: u64 = 4;

/// What a path binds to.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    Input {
        reg: Reg,
        semantic: Semantic,
    },
    Output {
        reg: Reg,
        semantic: Semantic,
    },
    /// One or more parameter vectors; `multi` when the binding names a list by itself
    /// (matrix without `.row[n]`, `.row[a..b]`, `program.env[a..b]`).
    Params {
        refs: Vec<ConstBinding>,
        multi: bool,
    },
}

/// The result of [`interpret`]: the binding and how many path segments it used.
#[derive(Clone, Debug, PartialEq)]
pub struct Interpreted {
    pub bound: Bound,
    pub used: usize,
    pub span: Span,
}

/// Settings that change which bindings exist.
#[derive(Clone, Copy, Debug)]
pub struct Ctx<'l> {
    pub stage: Stage,
    pub limits: &'l Limits,
    pub draw_buffers: bool,
    pub position_invariant: bool,
}

struct Cur<'s, 'a> {
    segs: &'s [Seg<'a>],
    i: usize,
}

type R<T> = Result<T, Spanned>;

impl<'s, 'a> Cur<'s, 'a> {
    fn path(&self) -> String {
        display_segs(&self.segs[..self.i.min(self.segs.len())])
    }

    fn last_span(&self) -> Span {
        self.segs[self.i.saturating_sub(1).min(self.segs.len() - 1)].span
    }

    fn peek(&self) -> Option<&'s Seg<'a>> {
        self.segs.get(self.i)
    }

    /// The next segment, which must be one of `words`.
    fn word(&mut self, words: &[&str]) -> R<&'s Seg<'a>> {
        self.word_of(words, words)
    }

    /// Like [`Cur::word`], recognising `words` but naming only `shown` (this stage's
    /// words) in errors; the other stage's words get a wrong-stage error from the caller.
    fn word_of(&mut self, words: &[&str], shown: &[&str]) -> R<&'s Seg<'a>> {
        match self.segs.get(self.i) {
            None => Err(ArbError::IncompleteBinding {
                path: self.path(),
                expected: one_of(shown),
            }
            .at(self.last_span())),
            Some(seg) if words.contains(&seg.name.text) => {
                self.i += 1;
                Ok(seg)
            }
            Some(seg) => Err(ArbError::UnknownBinding {
                path: display_segs(&self.segs[..=self.i]),
                expected: one_of(shown),
                suggestion: suggest(seg.name.text, shown.iter().copied()),
            }
            .at(seg.name.span)),
        }
    }

    /// Consumes the next segment if it is one of `words`.
    fn optional(&mut self, words: &[&str]) -> Option<&'s Seg<'a>> {
        let seg = self.segs.get(self.i)?;
        if words.contains(&seg.name.text) {
            self.i += 1;
            Some(seg)
        } else {
            None
        }
    }
}

fn no_index(seg: &Seg) -> R<()> {
    match &seg.index {
        None => Ok(()),
        Some(i) => Err(ArbError::BindingNoIndex {
            path: seg.name.text.to_string(),
        }
        .at(i.span())),
    }
}

/// A single required index below `max`.
fn need_index(seg: &Seg, what: &'static str, max: u64, example: &str) -> R<u64> {
    match &seg.index {
        Some(Index::Int(n, s)) => check_max(*n, max, what, *s),
        Some(i) => Err(ArbError::NotABinding {
            what: "a range or relative address",
            expected: "a single number",
        }
        .at(i.span())),
        None => Err(ArbError::BindingNeedsIndex {
            path: seg.name.text.to_string(),
            example: example.to_string(),
        }
        .at(seg.span)),
    }
}

/// An optional single index below `max` (default 0).
fn opt_index(seg: &Seg, what: &'static str, max: u64) -> R<u64> {
    match &seg.index {
        None => Ok(0),
        Some(Index::Int(n, s)) => check_max(*n, max, what, *s),
        Some(i) => Err(ArbError::NotABinding {
            what: "a range or relative address",
            expected: "a single number",
        }
        .at(i.span())),
    }
}

fn check_max(n: u64, max: u64, what: &'static str, span: Span) -> R<u64> {
    if n < max {
        Ok(n)
    } else {
        Err(ArbError::BindingIndexRange {
            what,
            index: n,
            max: max.min(u32::MAX as u64) as u32,
        }
        .at(span))
    }
}

fn wrong_stage(cur: &Cur, stage: Stage) -> Spanned {
    let span = cur.segs[0].span.join(cur.last_span());
    ArbError::BindingWrongStage {
        path: cur.path(),
        stage: stage_name(stage),
    }
    .at(span)
}

pub fn stage_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    }
}

/// Interprets the binding at the start of `segs` (whose first segment is a binding root).
pub fn interpret(segs: &[Seg], ctx: Ctx) -> R<Interpreted> {
    let mut cur = Cur { segs, i: 0 };
    let root = cur.word(&["vertex", "fragment", "result", "state", "program"])?;
    no_index(root)?;
    let bound = match root.name.text {
        "vertex" => vertex(&mut cur, ctx)?,
        "fragment" => fragment(&mut cur, ctx)?,
        "result" => result(&mut cur, ctx)?,
        "state" => state(&mut cur, ctx)?,
        _ => program(&mut cur, ctx)?,
    };
    let span = segs[0].span.join(segs[cur.i - 1].span);
    Ok(Interpreted {
        bound,
        used: cur.i,
        span,
    })
}

fn input(file: RegFile, index: u64, semantic: Semantic) -> Bound {
    Bound::Input {
        reg: Reg::new(file, index as u16),
        semantic,
    }
}

fn output(file: RegFile, index: u64, semantic: Semantic) -> Bound {
    Bound::Output {
        reg: Reg::new(file, index as u16),
        semantic,
    }
}

fn vertex(cur: &mut Cur, ctx: Ctx) -> R<Bound> {
    let item = cur.word(&[
        "position",
        "weight",
        "normal",
        "color",
        "fogcoord",
        "texcoord",
        "matrixindex",
        "attrib",
    ])?;
    if ctx.stage != Stage::Vertex {
        return Err(wrong_stage(cur, ctx.stage));
    }
    let tc = ctx.limits.texcoords as u64;
    Ok(match item.name.text {
        "position" => {
            no_index(item)?;
            input(RegFile::Input, 0, Semantic::Position(0))
        }
        "weight" => {
            if let Some(Index::Int(n, s)) = &item.index
                && *n != 0
            {
                return Err(ArbError::WeightIndex { index: *n }.at(*s));
            }
            opt_index(item, "vertex weight", 1)?;
            input(RegFile::Input, 1, Semantic::BlendWeight(0))
        }
        "normal" => {
            no_index(item)?;
            input(RegFile::Input, 2, Semantic::Normal(0))
        }
        "color" => {
            no_index(item)?;
            match cur.optional(&["primary", "secondary"]) {
                Some(s) if s.name.text == "secondary" => {
                    no_index(s)?;
                    input(RegFile::Input, 4, Semantic::Color(1))
                }
                Some(s) => {
                    no_index(s)?;
                    input(RegFile::Input, 3, Semantic::Color(0))
                }
                None => input(RegFile::Input, 3, Semantic::Color(0)),
            }
        }
        "fogcoord" => {
            no_index(item)?;
            input(RegFile::Input, 5, Semantic::Fog(0))
        }
        "texcoord" => {
            let n = opt_index(item, "texture coordinate set", tc)?;
            input(RegFile::Input, 8 + n, Semantic::TexCoord(n as u8))
        }
        "matrixindex" => {
            return Err(ArbError::UnsupportedBinding {
                path: cur.path(),
                why: "matrix indices need ARB_matrix_palette, which Hoist does not implement",
            }
            .at(item.span));
        }
        _ => {
            let n = need_index(
                item,
                "vertex attribute",
                ctx.limits.attribs as u64,
                "vertex.attrib[0]",
            )?;
            input(RegFile::Input, n, Semantic::Generic(n as u8))
        }
    })
}

fn fragment(cur: &mut Cur, ctx: Ctx) -> R<Bound> {
    let item = cur.word(&["color", "texcoord", "fogcoord", "position"])?;
    if ctx.stage != Stage::Fragment {
        return Err(wrong_stage(cur, ctx.stage));
    }
    Ok(match item.name.text {
        "color" => {
            no_index(item)?;
            match cur.optional(&["primary", "secondary"]) {
                Some(s) if s.name.text == "secondary" => {
                    no_index(s)?;
                    input(RegFile::Input, 1, Semantic::Color(1))
                }
                Some(s) => {
                    no_index(s)?;
                    input(RegFile::Input, 0, Semantic::Color(0))
                }
                None => input(RegFile::Input, 0, Semantic::Color(0)),
            }
        }
        "texcoord" => {
            let n = opt_index(item, "texture coordinate set", ctx.limits.texcoords as u64)?;
            input(RegFile::TexCoord, n, Semantic::TexCoord(n as u8))
        }
        "fogcoord" => {
            no_index(item)?;
            input(RegFile::Input, 2, Semantic::Fog(0))
        }
        _ => {
            no_index(item)?;
            input(RegFile::Misc, 0, Semantic::WindowPos)
        }
    })
}

fn result(cur: &mut Cur, ctx: Ctx) -> R<Bound> {
    let vp = ctx.stage == Stage::Vertex;
    let all = [
        "position",
        "color",
        "fogcoord",
        "pointsize",
        "texcoord",
        "depth",
    ];
    let item = cur.word_of(&all, if vp { &all[..5] } else { &["color", "depth"] })?;
    match (item.name.text, vp) {
        ("position" | "fogcoord" | "pointsize" | "texcoord", false) | ("depth", true) => {
            return Err(wrong_stage(cur, ctx.stage));
        }
        _ => {}
    }
    Ok(match item.name.text {
        "position" => {
            no_index(item)?;
            if ctx.position_invariant {
                return Err(ArbError::PositionInvariantWrite.at(item.span));
            }
            output(RegFile::RastOut, 0, Semantic::Position(0))
        }
        "fogcoord" => {
            no_index(item)?;
            output(RegFile::RastOut, 1, Semantic::Fog(0))
        }
        "pointsize" => {
            no_index(item)?;
            output(RegFile::RastOut, 2, Semantic::PointSize(0))
        }
        "texcoord" => {
            let n = opt_index(item, "texture coordinate set", ctx.limits.texcoords as u64)?;
            output(RegFile::TexCrdOut, n, Semantic::TexCoord(n as u8))
        }
        "depth" => {
            no_index(item)?;
            output(RegFile::DepthOut, 0, Semantic::Depth(0))
        }
        _ if vp => {
            no_index(item)?;
            let face = cur.optional(&["front", "back"]);
            if let Some(f) = face {
                no_index(f)?;
            }
            let ty = cur.optional(&["primary", "secondary"]);
            if let Some(t) = ty {
                no_index(t)?;
            }
            let back = face.is_some_and(|f| f.name.text == "back");
            let secondary = ty.is_some_and(|t| t.name.text == "secondary");
            let n = u64::from(back) * 2 + u64::from(secondary);
            let semantic = if back {
                Semantic::BackColor(secondary as u8)
            } else {
                Semantic::Color(secondary as u8)
            };
            output(RegFile::AttrOut, n, semantic)
        }
        _ => {
            if let Some(next) = cur.peek()
                && ["front", "back", "primary", "secondary"].contains(&next.name.text)
            {
                cur.i += 1;
                return Err(wrong_stage(cur, ctx.stage));
            }
            let n = match &item.index {
                None => 0,
                Some(Index::Int(n, s)) => {
                    if !ctx.draw_buffers {
                        return Err(ArbError::DrawBuffersNeedsOption.at(*s));
                    }
                    check_max(*n, MAX_DRAW_BUFFERS, "draw buffer", *s)?
                }
                Some(i) => {
                    return Err(ArbError::NotABinding {
                        what: "a range or relative address",
                        expected: "a single number",
                    }
                    .at(i.span()));
                }
            };
            output(RegFile::ColorOut, n, Semantic::Color(n as u8))
        }
    })
}

fn face(cur: &mut Cur) -> R<Face> {
    Ok(match cur.optional(&["front", "back"]) {
        Some(f) => {
            no_index(f)?;
            if f.name.text == "back" {
                Face::Back
            } else {
                Face::Front
            }
        }
        None => Face::Front,
    })
}

fn one(s: StateRef) -> Bound {
    Bound::Params {
        refs: vec![ConstBinding::State(s)],
        multi: false,
    }
}

fn state(cur: &mut Cur, ctx: Ctx) -> R<Bound> {
    let vp = ctx.stage == Stage::Vertex;
    let all = [
        "material",
        "light",
        "lightmodel",
        "lightprod",
        "fog",
        "matrix",
        "texgen",
        "clip",
        "point",
        "texenv",
        "depth",
    ];
    let shown: Vec<&str> = all
        .iter()
        .copied()
        .filter(|w| match *w {
            "texgen" | "clip" | "point" => vp,
            "texenv" | "depth" => !vp,
            _ => true,
        })
        .collect();
    let item = cur.word_of(&all, &shown)?;
    let vp_only = matches!(item.name.text, "texgen" | "clip" | "point");
    let fp_only = matches!(item.name.text, "texenv" | "depth");
    if (vp_only && !vp) || (fp_only && vp) {
        return Err(wrong_stage(cur, ctx.stage));
    }
    let tc = ctx.limits.texcoords as u64;
    Ok(match item.name.text {
        "material" => {
            no_index(item)?;
            material(cur)?
        }
        "light" => {
            let n = need_index(item, "light", MAX_LIGHTS, "state.light[0].diffuse")? as u8;
            light(cur, n)?
        }
        "lightmodel" => {
            no_index(item)?;
            lightmodel(cur)?
        }
        "lightprod" => {
            let n = need_index(item, "light", MAX_LIGHTS, "state.lightprod[0].diffuse")? as u8;
            lightprod(cur, n)?
        }
        "texgen" => {
            let n = opt_index(item, "texture unit", tc)? as u8;
            texgen(cur, n)?
        }
        "fog" => {
            no_index(item)?;
            let p = cur.word(&["color", "params"])?;
            no_index(p)?;
            one(if p.name.text == "color" {
                StateRef::FogColor
            } else {
                StateRef::FogParams
            })
        }
        "clip" => {
            let n = need_index(item, "clip plane", MAX_CLIP_PLANES, "state.clip[0].plane")? as u8;
            let p = cur.word(&["plane"])?;
            no_index(p)?;
            one(StateRef::ClipPlane(n))
        }
        "point" => {
            no_index(item)?;
            let p = cur.word(&["size", "attenuation"])?;
            no_index(p)?;
            one(if p.name.text == "size" {
                StateRef::PointSize
            } else {
                StateRef::PointAttenuation
            })
        }
        "texenv" => {
            let n = opt_index(item, "texture unit", tc)? as u8;
            let p = cur.word(&["color"])?;
            no_index(p)?;
            one(StateRef::TexEnvColor(n))
        }
        "depth" => {
            no_index(item)?;
            let p = cur.word(&["range"])?;
            no_index(p)?;
            one(StateRef::DepthRange)
        }
        _ => {
            no_index(item)?;
            matrix(cur, ctx)?
        }
    })
}

fn material(cur: &mut Cur) -> R<Bound> {
    let f = face(cur)?;
    let p = cur.word(&["ambient", "diffuse", "specular", "emission", "shininess"])?;
    no_index(p)?;
    let prop = match p.name.text {
        "ambient" => MaterialProp::Ambient,
        "diffuse" => MaterialProp::Diffuse,
        "specular" => MaterialProp::Specular,
        "emission" => MaterialProp::Emission,
        _ => MaterialProp::Shininess,
    };
    Ok(one(StateRef::Material(f, prop)))
}

fn light(cur: &mut Cur, n: u8) -> R<Bound> {
    let p = cur.word(&[
        "ambient",
        "diffuse",
        "specular",
        "position",
        "attenuation",
        "spot",
        "half",
    ])?;
    no_index(p)?;
    let prop = match p.name.text {
        "ambient" => LightProp::Ambient,
        "diffuse" => LightProp::Diffuse,
        "specular" => LightProp::Specular,
        "position" => LightProp::Position,
        "attenuation" => LightProp::Attenuation,
        "half" => LightProp::Half,
        _ => {
            let d = cur.word(&["direction"])?;
            no_index(d)?;
            LightProp::SpotDirection
        }
    };
    Ok(one(StateRef::Light(n, prop)))
}

fn lightmodel(cur: &mut Cur) -> R<Bound> {
    let w = cur.word(&["ambient", "scenecolor", "front", "back"])?;
    no_index(w)?;
    Ok(match w.name.text {
        "ambient" => one(StateRef::LightModelAmbient),
        "scenecolor" => one(StateRef::LightModelSceneColor(Face::Front)),
        f => {
            let s = cur.word(&["scenecolor"])?;
            no_index(s)?;
            let face = if f == "back" { Face::Back } else { Face::Front };
            one(StateRef::LightModelSceneColor(face))
        }
    })
}

fn lightprod(cur: &mut Cur, n: u8) -> R<Bound> {
    let f = face(cur)?;
    let p = cur.word(&["ambient", "diffuse", "specular"])?;
    no_index(p)?;
    let prop = match p.name.text {
        "ambient" => LightProdProp::Ambient,
        "diffuse" => LightProdProp::Diffuse,
        _ => LightProdProp::Specular,
    };
    Ok(one(StateRef::LightProd(n, f, prop)))
}

fn texgen(cur: &mut Cur, n: u8) -> R<Bound> {
    let plane = cur.word(&["eye", "object"])?;
    no_index(plane)?;
    let c = cur.word(&["s", "t", "r", "q"])?;
    no_index(c)?;
    let coord = match c.name.text {
        "s" => 0,
        "t" => 1,
        "r" => 2,
        _ => 3,
    };
    let plane = if plane.name.text == "eye" {
        TexGenPlane::Eye
    } else {
        TexGenPlane::Object
    };
    Ok(one(StateRef::TexGen(n, plane, coord)))
}

fn matrix(cur: &mut Cur, ctx: Ctx) -> R<Bound> {
    let m = cur.word(&[
        "modelview",
        "projection",
        "mvp",
        "texture",
        "palette",
        "program",
    ])?;
    let name = match m.name.text {
        "modelview" => {
            MatrixName::Modelview(opt_index(m, "modelview matrix", MAX_VERTEX_UNITS)? as u8)
        }
        "projection" => {
            no_index(m)?;
            MatrixName::Projection
        }
        "mvp" => {
            no_index(m)?;
            MatrixName::Mvp
        }
        "texture" => {
            MatrixName::Texture(opt_index(m, "texture matrix", ctx.limits.texcoords as u64)? as u8)
        }
        "palette" => MatrixName::Palette(need_index(
            m,
            "palette matrix",
            MAX_PALETTE_MATRICES,
            "state.matrix.palette[0]",
        )? as u8),
        _ => MatrixName::Program(need_index(
            m,
            "program matrix",
            MAX_PROGRAM_MATRICES,
            "state.matrix.program[0]",
        )? as u8),
    };
    let modifier = match cur.optional(&["inverse", "transpose", "invtrans"]) {
        Some(s) => {
            no_index(s)?;
            match s.name.text {
                "inverse" => MatrixMod::Inverse,
                "transpose" => MatrixMod::Transpose,
                _ => MatrixMod::InvTrans,
            }
        }
        None => MatrixMod::Normal,
    };
    let (lo, hi, multi) = match cur.optional(&["row"]) {
        None => (0, 3, true),
        Some(r) => match &r.index {
            Some(Index::Int(n, s)) => {
                let n = check_max(*n, 4, "matrix row", *s)?;
                (n, n, false)
            }
            Some(Index::Range(a, b, s)) => {
                let a = check_max(*a, 4, "matrix row", *s)?;
                let b = check_max(*b, 4, "matrix row", *s)?;
                if a > b {
                    return Err(ArbError::RangeReversed { lo: a, hi: b }.at(*s));
                }
                (a, b, true)
            }
            Some(i) => {
                return Err(ArbError::NotABinding {
                    what: "a relative address",
                    expected: "a row number or range",
                }
                .at(i.span()));
            }
            None => {
                return Err(ArbError::BindingNeedsIndex {
                    path: cur.path(),
                    example: "state.matrix.mvp.row[0]".into(),
                }
                .at(r.span));
            }
        },
    };
    let refs = (lo..=hi)
        .map(|row| ConstBinding::State(StateRef::Matrix(name, modifier, row as u8)))
        .collect();
    Ok(Bound::Params { refs, multi })
}

fn program(cur: &mut Cur, ctx: Ctx) -> R<Bound> {
    let item = cur.word(&["env", "local"])?;
    let env = item.name.text == "env";
    let (max, what) = if env {
        (ctx.limits.env_params as u64, "program.env index")
    } else {
        (ctx.limits.local_params as u64, "program.local index")
    };
    let make = |n: u64| {
        if env {
            ConstBinding::Env(n as u16)
        } else {
            ConstBinding::Local(n as u16)
        }
    };
    match &item.index {
        Some(Index::Int(n, s)) => Ok(Bound::Params {
            refs: vec![make(check_max(*n, max, what, *s)?)],
            multi: false,
        }),
        Some(Index::Range(a, b, s)) => {
            let a = check_max(*a, max, what, *s)?;
            let b = check_max(*b, max, what, *s)?;
            if a > b {
                return Err(ArbError::RangeReversed { lo: a, hi: b }.at(*s));
            }
            Ok(Bound::Params {
                refs: (a..=b).map(make).collect(),
                multi: true,
            })
        }
        Some(i) => Err(ArbError::RelativeNotAllowed {
            why: "only PARAM arrays can be indexed with an address register",
        }
        .at(i.span())),
        None => Err(ArbError::BindingNeedsIndex {
            path: cur.path(),
            example: format!("program.{}[0]", item.name.text),
        }
        .at(item.span)),
    }
}

/// Canonical spelling of an input register with its semantic.
pub fn input_text(stage: Stage, reg: Reg, semantic: Semantic) -> String {
    match (stage, semantic) {
        (Stage::Vertex, Semantic::Generic(n)) => format!("vertex.attrib[{n}]"),
        (Stage::Vertex, _) => match reg.index {
            0 => "vertex.position".into(),
            1 => "vertex.weight".into(),
            2 => "vertex.normal".into(),
            3 => "vertex.color".into(),
            4 => "vertex.color.secondary".into(),
            5 => "vertex.fogcoord".into(),
            n if n >= 8 => format!("vertex.texcoord[{}]", n - 8),
            n => format!("vertex.attrib[{n}]"),
        },
        (Stage::Fragment, _) => match (reg.file, reg.index) {
            (RegFile::TexCoord, n) => format!("fragment.texcoord[{n}]"),
            (RegFile::Misc, _) => "fragment.position".into(),
            (_, 1) => "fragment.color.secondary".into(),
            (_, 2) => "fragment.fogcoord".into(),
            _ => "fragment.color".into(),
        },
    }
}

/// Canonical spelling of an output register.
pub fn output_text(reg: Reg) -> String {
    match (reg.file, reg.index) {
        (RegFile::RastOut, 0) => "result.position".into(),
        (RegFile::RastOut, 1) => "result.fogcoord".into(),
        (RegFile::RastOut, _) => "result.pointsize".into(),
        (RegFile::AttrOut, 1) => "result.color.secondary".into(),
        (RegFile::AttrOut, 2) => "result.color.back".into(),
        (RegFile::AttrOut, 3) => "result.color.back.secondary".into(),
        (RegFile::AttrOut, _) => "result.color".into(),
        (RegFile::TexCrdOut, n) => format!("result.texcoord[{n}]"),
        (RegFile::ColorOut, 0) => "result.color".into(),
        (RegFile::ColorOut, n) => format!("result.color[{n}]"),
        _ => "result.depth".into(),
    }
}

fn face_text(f: Face) -> &'static str {
    match f {
        Face::Front => "",
        Face::Back => ".back",
    }
}

/// The matrix part of a matrix binding, without `.row[...]`.
pub fn matrix_text(name: MatrixName, modifier: MatrixMod) -> String {
    let base = match name {
        MatrixName::Modelview(0) => "state.matrix.modelview".to_string(),
        MatrixName::Modelview(n) => format!("state.matrix.modelview[{n}]"),
        MatrixName::Projection => "state.matrix.projection".into(),
        MatrixName::Mvp => "state.matrix.mvp".into(),
        MatrixName::Texture(0) => "state.matrix.texture".into(),
        MatrixName::Texture(n) => format!("state.matrix.texture[{n}]"),
        MatrixName::Palette(n) => format!("state.matrix.palette[{n}]"),
        MatrixName::Program(n) => format!("state.matrix.program[{n}]"),
    };
    let m = match modifier {
        MatrixMod::Normal => "",
        MatrixMod::Inverse => ".inverse",
        MatrixMod::Transpose => ".transpose",
        MatrixMod::InvTrans => ".invtrans",
    };
    format!("{base}{m}")
}

/// Canonical spelling of one state vector.
pub fn state_text(s: StateRef) -> String {
    match s {
        StateRef::Material(f, p) => {
            let p = match p {
                MaterialProp::Ambient => "ambient",
                MaterialProp::Diffuse => "diffuse",
                MaterialProp::Specular => "specular",
                MaterialProp::Emission => "emission",
                MaterialProp::Shininess => "shininess",
            };
            format!("state.material{}.{p}", face_text(f))
        }
        StateRef::Light(n, p) => {
            let p = match p {
                LightProp::Ambient => "ambient",
                LightProp::Diffuse => "diffuse",
                LightProp::Specular => "specular",
                LightProp::Position => "position",
                LightProp::Attenuation => "attenuation",
                LightProp::SpotDirection => "spot.direction",
                LightProp::Half => "half",
            };
            format!("state.light[{n}].{p}")
        }
        StateRef::LightModelAmbient => "state.lightmodel.ambient".into(),
        StateRef::LightModelSceneColor(f) => format!("state.lightmodel{}.scenecolor", face_text(f)),
        StateRef::LightProd(n, f, p) => {
            let p = match p {
                LightProdProp::Ambient => "ambient",
                LightProdProp::Diffuse => "diffuse",
                LightProdProp::Specular => "specular",
            };
            format!("state.lightprod[{n}]{}.{p}", face_text(f))
        }
        StateRef::TexGen(n, plane, c) => {
            let plane = match plane {
                TexGenPlane::Eye => "eye",
                TexGenPlane::Object => "object",
            };
            let c = ["s", "t", "r", "q"][(c & 3) as usize];
            format!("state.texgen[{n}].{plane}.{c}")
        }
        StateRef::FogColor => "state.fog.color".into(),
        StateRef::FogParams => "state.fog.params".into(),
        StateRef::ClipPlane(n) => format!("state.clip[{n}].plane"),
        StateRef::PointSize => "state.point.size".into(),
        StateRef::PointAttenuation => "state.point.attenuation".into(),
        StateRef::Matrix(name, m, row) => format!("{}.row[{row}]", matrix_text(name, m)),
        StateRef::TexEnvColor(n) => format!("state.texenv[{n}].color"),
        StateRef::DepthRange => "state.depth.range".into(),
    }
}

#[cfg(test)]
mod stage_tests {
    use crate::profile::Stage;
    use crate::state::*;

    /// `StateRef::bindable_in` says what the parser accepts: one state vector of each kind bound in
    /// each stage parses exactly when `bindable_in` says so.
    #[test]
    fn bindable_in_agrees_with_the_parser() {
        let all = [
            StateRef::Material(Face::Front, MaterialProp::Diffuse),
            StateRef::Light(1, LightProp::Position),
            StateRef::LightModelAmbient,
            StateRef::LightModelSceneColor(Face::Back),
            StateRef::LightProd(0, Face::Front, LightProdProp::Specular),
            StateRef::TexGen(2, TexGenPlane::Object, 2),
            StateRef::TexGen(0, TexGenPlane::Eye, 0),
            StateRef::FogColor,
            StateRef::FogParams,
            StateRef::ClipPlane(3),
            StateRef::PointSize,
            StateRef::PointAttenuation,
            StateRef::Matrix(MatrixName::Mvp, MatrixMod::Transpose, 1),
            StateRef::Matrix(MatrixName::Texture(1), MatrixMod::Normal, 0),
            StateRef::TexEnvColor(1),
            StateRef::DepthRange,
        ];
        let (mut vertex_only, mut fragment_only) = (0, 0);
        for s in all {
            let text = super::state_text(s);
            for (stage, header, out) in [
                (Stage::Vertex, "!!ARBvp1.0", "result.position"),
                (Stage::Fragment, "!!ARBfp1.0", "result.color"),
            ] {
                let src = format!("{header}\nPARAM p = {text};\nMOV {out}, p;\nEND\n");
                let parses = crate::parse(&src, &crate::ParseOptions::default())
                    .into_result()
                    .is_ok();
                assert_eq!(
                    parses,
                    s.bindable_in(stage),
                    "{text} in a {stage:?} program"
                );
            }
            vertex_only += usize::from(!s.bindable_in(Stage::Fragment));
            fragment_only += usize::from(!s.bindable_in(Stage::Vertex));
        }
        assert_eq!((vertex_only, fragment_only), (5, 2));
    }
}

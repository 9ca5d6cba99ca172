//! Scenes: piglit's shader_runner format plus Hoist's GPGPU extensions (see `SCENES.md`).
//!
//! [`parse`] reads the whole file up front — sections, programs (either dialect, detected
//! from the header) and every `[test]` command — so malformed input is reported with its
//! line number before anything runs, and `repeat` blocks are expanded within
//! [`Caps::max_commands`]. Programs stay replaceable: [`Scene::programs`] maps a pair name
//! (`""` for the unnamed `[vertex program]`/`[fragment program]`) to its sources and IR,
//! and [`Scene::set_program`] swaps one in.
//!
//! [`run`] executes a scene and returns the probe results, every render target and the
//! statistics; [`SceneJob`] does the same a bounded number of bands at a time.

use crate::image::{Image, decode_png};
use crate::job::Progress;
use crate::pattern::{self, Pattern};
use crate::raster::{BAND, CompiledProgram, DrawInput, PreparedDraw, Target};
use crate::texture::{Filter, Level, MipFilter, Sampler, TexFormat, TexShape, Texture, Wrap};
use crate::{Caps, DrawState, Geometry, RenderError, StageParams, Stats, TargetFormat, glstate};
use hoist_asm::{ParseOptions, Program, Stage};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The default window of piglit's shader_runner.
pub const WINDOW_SIZE: u32 = 250;
/// piglit's probe tolerance for an 8-bit channel (`3 / 2^8`).
pub const TOLERANCE_RGBA8: f32 = 3.0 / 256.0;
/// piglit's default probe tolerance, used for float targets.
pub const TOLERANCE_FLOAT: f32 = 0.01;

/// One program of a scene: its text, where it starts, and its IR.
#[derive(Clone, Debug)]
pub struct SceneProgram {
    pub source: String,
    /// 1-based scene line of the program's first line (0 when substituted).
    pub line: u32,
    pub program: Program,
}

/// A vertex/fragment pair; `None` means fixed function.
#[derive(Clone, Debug, Default)]
pub struct ProgramPair {
    pub vertex: Option<SceneProgram>,
    pub fragment: Option<SceneProgram>,
}

/// Which parameter bank a `parameter` command sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Env,
    Local,
    Int,
    Bool,
}

/// Source of a texture unit binding.
#[derive(Clone, Debug, PartialEq)]
pub enum TexSource {
    /// A generated pattern of the given size.
    Pattern(Pattern, u32, u32),
    /// An image supplied by name in [`RunOptions::images`] (PNG or PFM bytes).
    Image(String),
    /// The current contents of a render target.
    Target(String),
    /// piglit `texture miptree`: 8×8, levels red, green, blue, white.
    Miptree,
}

/// Texture options of `texture pattern|image|target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexOptions {
    pub sampler: Sampler,
    pub format: TexFormat,
    pub shape: TexShape,
    pub mipmap: bool,
}

/// A `[test]` command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Ortho(Option<[f32; 4]>),
    Param {
        stage: Stage,
        kind: ParamKind,
        index: u16,
        value: [f32; 4],
    },
    ClearColor([f32; 4]),
    ClearDepth(f32),
    Clear,
    Color([f32; 4]),
    TexCoord(u8, [f32; 4]),
    Texture(u8, TexSource, TexOptions),
    Draw(Geometry),
    Enable(String, bool),
    /// Probe a rectangle (x, y, w, h) against `n` channels of `expect`.
    Probe {
        rect: [i64; 4],
        expect: [f32; 4],
        channels: usize,
        text: String,
    },
    /// `relative probe ...`: fractions of the target size.
    RelProbe {
        rect: [f32; 4],
        single: bool,
        expect: [f32; 4],
        channels: usize,
        text: String,
    },
    ProbeDepth {
        x: i64,
        y: i64,
        expect: f32,
        text: String,
    },
    /// `window [rgba8|rgba32f] W H`.
    Window(TargetFormat, u32, u32),
    /// `target NAME [rgba8|rgba32f] W H`.
    NewTarget(String, TargetFormat, u32, u32),
    /// `bind target NAME` (`window` for the window).
    Bind(String),
    Swap(String, String),
    /// `use program [NAME]`.
    Use(String),
    Tolerance(f32),
    /// `compare A B [T]`: a probe that passes when two targets agree within T (default 0:
    /// bit-identical; NaN equals NaN).
    Compare(String, String, f32, String),
}

/// A parsed scene.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub require: Vec<String>,
    /// `[hoist]` section: `key = value` lines (title, description, optimize, display...).
    pub meta: BTreeMap<String, String>,
    pub programs: BTreeMap<String, ProgramPair>,
    /// Commands with their 1-based line numbers (repeat blocks expanded).
    pub commands: Vec<(u32, Command)>,
    /// Window size and format (`SIZE W H` in `[require]`, or `window`).
    pub window: (u32, u32),
}

impl Scene {
    /// Replaces one program of pair `name` (created if missing).
    pub fn set_program(&mut self, name: &str, program: Program) {
        let sp = SceneProgram {
            source: hoist_asm::print(&program),
            line: 0,
            program,
        };
        let pair = self.programs.entry(name.to_string()).or_default();
        match sp.program.stage() {
            Stage::Vertex => pair.vertex = Some(sp),
            Stage::Fragment => pair.fragment = Some(sp),
        }
    }

    /// Makes parameter `to` follow parameter `from`: after every command that sets `from`,
    /// the same value is set for `to`. This is how a host applies an optimizer's mirrored
    /// parameters (a fragment parameter the moved vertex code now needs its own copy of).
    pub fn link_parameter(&mut self, from: (Stage, ParamKind, u16), to: (Stage, ParamKind, u16)) {
        let mut out = Vec::with_capacity(self.commands.len() + 4);
        for (line, c) in std::mem::take(&mut self.commands) {
            let copy = match &c {
                Command::Param {
                    stage,
                    kind,
                    index,
                    value,
                } if (*stage, *kind, *index) == from => Some(Command::Param {
                    stage: to.0,
                    kind: to.1,
                    index: to.2,
                    value: *value,
                }),
                _ => None,
            };
            out.push((line, c));
            if let Some(copy) = copy {
                out.push((line, copy));
            }
        }
        self.commands = out;
    }

    /// Sets parameter `to` to `value` before everything else (a mirrored literal or state).
    pub fn preset_parameter(&mut self, to: (Stage, ParamKind, u16), value: [f32; 4]) {
        let at = self
            .commands
            .iter()
            .take_while(|(_, c)| matches!(c, Command::Window(..)))
            .count();
        self.commands.insert(
            at,
            (
                0,
                Command::Param {
                    stage: to.0,
                    kind: to.1,
                    index: to.2,
                    value,
                },
            ),
        );
    }

    /// The pair the `[hoist] optimize` key names (default: the unnamed pair).
    pub fn optimize_target(&self) -> &str {
        self.meta.get("optimize").map_or("", |s| s.as_str())
    }
}

fn serr(line: u32, message: impl Into<String>) -> RenderError {
    RenderError::Scene {
        line,
        message: message.into(),
    }
}

/// Parses floats the way piglit and arbref do: `(`, `)`, `,`, `;` and blanks separate
/// numbers; `inf`, `-inf` and `nan` are accepted in any case.
pub fn parse_floats(s: &str) -> Result<Vec<f32>, String> {
    s.split(|c: char| "(),; \t".contains(c))
        .filter(|t| !t.is_empty())
        .map(|t| {
            let l = t.to_ascii_lowercase();
            match l.as_str() {
                "inf" | "+inf" | "infinity" => Ok(f32::INFINITY),
                "-inf" | "-infinity" => Ok(f32::NEG_INFINITY),
                "nan" | "+nan" | "-nan" => Ok(f32::NAN),
                _ => t
                    .parse::<f32>()
                    .map_err(|_| format!("`{t}` is not a number")),
            }
        })
        .collect()
}

fn floats_n(s: &str, n: usize, line: u32, what: &str) -> Result<Vec<f32>, RenderError> {
    let v = parse_floats(s).map_err(|e| serr(line, format!("{what}: {e}")))?;
    if v.len() != n {
        return Err(serr(
            line,
            format!("{what} expects {n} numbers, found {}", v.len()),
        ));
    }
    Ok(v)
}

fn vec4(v: &[f32]) -> [f32; 4] {
    [v[0], v[1], v[2], v[3]]
}

fn parse_format(s: &str) -> Option<TargetFormat> {
    match s.to_ascii_lowercase().as_str() {
        "rgba8" => Some(TargetFormat::Rgba8),
        "rgba32f" | "float" => Some(TargetFormat::Rgba32F),
        _ => None,
    }
}

fn parse_tex_options(words: &[&str], line: u32) -> Result<TexOptions, RenderError> {
    let mut o = TexOptions {
        sampler: Sampler::default(),
        format: TexFormat::Rgba32F,
        shape: TexShape::D2,
        mipmap: false,
    };
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        let val = words.get(i + 1).copied().unwrap_or("");
        match key {
            "filter" => {
                o.sampler.min = match val {
                    "nearest" => Filter::Nearest,
                    "linear" => Filter::Linear,
                    _ => return Err(serr(line, format!("unknown filter `{val}`"))),
                };
                o.sampler.mag = o.sampler.min;
                i += 2;
            }
            "wrap" => {
                o.sampler.wrap = match val {
                    "clamp" | "clamp_to_edge" => Wrap::ClampToEdge,
                    "repeat" => Wrap::Repeat,
                    _ => return Err(serr(line, format!("unknown wrap mode `{val}`"))),
                };
                i += 2;
            }
            "format" => {
                o.format = match val {
                    "rgba8" => TexFormat::Rgba8,
                    "rgba32f" => TexFormat::Rgba32F,
                    _ => return Err(serr(line, format!("unknown texture format `{val}`"))),
                };
                i += 2;
            }
            "mipmap" => {
                o.mipmap = true;
                o.sampler.mip = match val {
                    "linear" => {
                        i += 1;
                        MipFilter::Linear
                    }
                    "nearest" => {
                        i += 1;
                        MipFilter::Nearest
                    }
                    _ => MipFilter::Nearest,
                };
                i += 1;
            }
            "rect" => {
                o.shape = TexShape::Rect;
                i += 1;
            }
            _ => return Err(serr(line, format!("unknown texture option `{key}`"))),
        }
    }
    Ok(o)
}

fn parse_command(l: &str, line: u32, caps: &Caps) -> Result<Command, RenderError> {
    let words: Vec<&str> = l.split_whitespace().collect();
    let rest_after = |n: usize| -> &str {
        let mut s = l;
        for _ in 0..n {
            s = s.trim_start();
            s = s.find(char::is_whitespace).map_or("", |i| &s[i..]);
        }
        s.trim()
    };
    let w0 = words.first().copied().unwrap_or("");
    let w1 = words.get(1).copied().unwrap_or("");
    let size = |w: u32, h: u32| -> Result<(u32, u32), RenderError> {
        caps.check_target(w, h)
            .map_err(|e| serr(line, e.to_string()))?;
        Ok((w, h))
    };
    let int = |s: &str| -> Result<u32, RenderError> {
        s.parse::<u32>()
            .map_err(|_| serr(line, format!("`{s}` is not a size")))
    };
    Ok(match (w0, w1) {
        ("ortho", _) => {
            let v = parse_floats(rest_after(1)).map_err(|e| serr(line, e))?;
            match v.len() {
                0 => Command::Ortho(None),
                4 => Command::Ortho(Some(vec4(&v))),
                n => return Err(serr(line, format!("ortho takes 0 or 4 numbers, found {n}"))),
            }
        }
        ("parameter", kind) => {
            let (kind, stage) = match kind {
                "env_vp" => (ParamKind::Env, Stage::Vertex),
                "env_fp" => (ParamKind::Env, Stage::Fragment),
                "local_vp" => (ParamKind::Local, Stage::Vertex),
                "local_fp" => (ParamKind::Local, Stage::Fragment),
                "int_vp" => (ParamKind::Int, Stage::Vertex),
                "int_fp" => (ParamKind::Int, Stage::Fragment),
                "bool_vp" => (ParamKind::Bool, Stage::Vertex),
                "bool_fp" => (ParamKind::Bool, Stage::Fragment),
                k => return Err(serr(line, format!("unknown parameter kind `{k}`"))),
            };
            let v = floats_n(rest_after(2), 5, line, "parameter")?;
            if !(0.0..65536.0).contains(&v[0]) || v[0].fract() != 0.0 {
                return Err(serr(
                    line,
                    format!("parameter index {} is out of range", v[0]),
                ));
            }
            Command::Param {
                stage,
                kind,
                index: v[0] as u16,
                value: vec4(&v[1..]),
            }
        }
        ("clear", "color") => {
            Command::ClearColor(vec4(&floats_n(rest_after(2), 4, line, "clear color")?))
        }
        ("clear", "depth") => {
            Command::ClearDepth(floats_n(rest_after(2), 1, line, "clear depth")?[0])
        }
        ("clear", "") => Command::Clear,
        ("color", _) => Command::Color(vec4(&floats_n(rest_after(1), 4, line, "color")?)),
        ("texcoord", _) => {
            let v = floats_n(rest_after(1), 5, line, "texcoord")?;
            if !(0.0..8.0).contains(&v[0]) {
                return Err(serr(line, "texcoord unit must be 0..7"));
            }
            Command::TexCoord(v[0] as u8, vec4(&v[1..]))
        }
        ("texture", kind) => {
            let unit_s = words.get(2).copied().unwrap_or("");
            let unit: u8 =
                unit_s.parse().ok().filter(|u| *u < 32).ok_or_else(|| {
                    serr(line, format!("`{unit_s}` is not a texture unit (0..31)"))
                })?;
            match kind {
                "rgbw" => {
                    let v = floats_n(rest_after(3), 2, line, "texture rgbw")?;
                    let (w, h) = (v[0] as u32, v[1] as u32);
                    caps.check_texture(w, h, 1)
                        .map_err(|e| serr(line, e.to_string()))?;
                    Command::Texture(
                        unit,
                        TexSource::Pattern(Pattern::Rgbw, w, h),
                        TexOptions {
                            sampler: Sampler::default(),
                            format: TexFormat::Rgba8,
                            shape: TexShape::D2,
                            mipmap: false,
                        },
                    )
                }
                "miptree" => Command::Texture(
                    unit,
                    TexSource::Miptree,
                    TexOptions {
                        sampler: Sampler {
                            min: Filter::Nearest,
                            mag: Filter::Nearest,
                            mip: MipFilter::Nearest,
                            wrap: Wrap::ClampToEdge,
                        },
                        format: TexFormat::Rgba8,
                        shape: TexShape::D2,
                        mipmap: false,
                    },
                ),
                "pattern" | "image" | "target" => {
                    let what = words.get(3).copied().ok_or_else(|| {
                        serr(line, format!("texture {kind} needs a unit and a name"))
                    })?;
                    let opts = parse_tex_options(&words[4..], line)?;
                    let src = match kind {
                        "pattern" => {
                            let (p, sz) = pattern::parse_spec(what).map_err(|e| serr(line, e))?;
                            let (w, h) = sz.unwrap_or((256, 256));
                            caps.check_texture(w, h, 1)
                                .map_err(|e| serr(line, e.to_string()))?;
                            TexSource::Pattern(p, w, h)
                        }
                        "image" => TexSource::Image(what.to_string()),
                        _ => TexSource::Target(what.to_string()),
                    };
                    Command::Texture(unit, src, opts)
                }
                k => return Err(serr(line, format!("unknown texture kind `{k}`"))),
            }
        }
        ("draw", "rect") => {
            let w2 = words.get(2).copied().unwrap_or("");
            match w2 {
                "tex" => {
                    let v = floats_n(rest_after(3), 8, line, "draw rect tex")?;
                    Command::Draw(Geometry::Rect {
                        x: v[0],
                        y: v[1],
                        w: v[2],
                        h: v[3],
                        tex: Some(vec4(&v[4..])),
                    })
                }
                "ortho" => {
                    let v = floats_n(rest_after(3), 4, line, "draw rect ortho")?;
                    // Converted when run (needs the target size): marked with NaN tex.
                    Command::Draw(Geometry::Rect {
                        x: v[0],
                        y: v[1],
                        w: v[2],
                        h: v[3],
                        tex: Some([f32::NAN; 4]),
                    })
                }
                _ => {
                    let v = floats_n(rest_after(2), 4, line, "draw rect")?;
                    Command::Draw(Geometry::Rect {
                        x: v[0],
                        y: v[1],
                        w: v[2],
                        h: v[3],
                        tex: None,
                    })
                }
            }
        }
        ("draw", "quad") => Command::Draw(Geometry::Quad),
        ("enable", e) | ("disable", e) if !e.is_empty() => {
            const KNOWN: &[&str] = &[
                "GL_DEPTH_TEST",
                "GL_CULL_FACE",
                "GL_VERTEX_PROGRAM_TWO_SIDE_ARB",
                "GL_COLOR_SUM",
                "GL_TEXTURE_2D",
                "GL_VERTEX_PROGRAM_POINT_SIZE_ARB",
                "GL_CLAMP_VERTEX_COLOR",
                "GL_CLAMP_FRAGMENT_COLOR",
            ];
            if !KNOWN.contains(&e) {
                return Err(serr(line, format!("unsupported capability `{e}`")));
            }
            Command::Enable(e.to_string(), w0 == "enable")
        }
        ("probe", _) | ("relative", "probe") => {
            let rel = w0 == "relative";
            let ws = if rel { &words[1..] } else { &words[..] };
            let (is_rect, is_all, fmt_idx) = match ws.get(1).copied() {
                Some("rect") => (true, false, 2),
                Some("all") => (false, true, 2),
                Some("depth") if !rel => {
                    let v = floats_n(rest_after(2), 3, line, "probe depth")?;
                    return Ok(Command::ProbeDepth {
                        x: v[0] as i64,
                        y: v[1] as i64,
                        expect: v[2],
                        text: l.to_string(),
                    });
                }
                _ => (false, false, 1),
            };
            let channels = match ws.get(fmt_idx).copied() {
                Some("rgba") => 4,
                Some("rgb") => 3,
                _ => return Err(serr(line, "probe needs rgb or rgba")),
            };
            let skip = fmt_idx + 1 + usize::from(rel);
            let v = parse_floats(rest_after(skip)).map_err(|e| serr(line, e))?;
            let npos = if is_all {
                0
            } else if is_rect {
                4
            } else {
                2
            };
            if v.len() != npos + channels {
                return Err(serr(
                    line,
                    format!(
                        "probe expects {} numbers, found {}",
                        npos + channels,
                        v.len()
                    ),
                ));
            }
            let mut expect = [0.0, 0.0, 0.0, 1.0];
            expect[..channels].copy_from_slice(&v[npos..]);
            let text = l.to_string();
            if is_all {
                Command::Probe {
                    rect: [0, 0, i64::MAX, i64::MAX],
                    expect,
                    channels,
                    text,
                }
            } else if rel {
                let rect = if is_rect {
                    vec4(&v[..4])
                } else {
                    [v[0], v[1], 0.0, 0.0]
                };
                Command::RelProbe {
                    rect,
                    single: !is_rect,
                    expect,
                    channels,
                    text,
                }
            } else {
                let rect = if is_rect {
                    [v[0] as i64, v[1] as i64, v[2] as i64, v[3] as i64]
                } else {
                    [v[0] as i64, v[1] as i64, 1, 1]
                };
                Command::Probe {
                    rect,
                    expect,
                    channels,
                    text,
                }
            }
        }
        ("window", _) => {
            let (fmt, a, b) = match parse_format(w1) {
                Some(f) => (f, words.get(2), words.get(3)),
                None => (TargetFormat::Rgba8, words.get(1), words.get(2)),
            };
            let (w, h) = size(
                int(a.copied().unwrap_or(""))?,
                int(b.copied().unwrap_or(""))?,
            )?;
            Command::Window(fmt, w, h)
        }
        ("target", name) if !name.is_empty() => {
            let (fmt, a, b) = match words.get(2).and_then(|w| parse_format(w)) {
                Some(f) => (f, words.get(3), words.get(4)),
                None => (TargetFormat::Rgba32F, words.get(2), words.get(3)),
            };
            let (w, h) = size(
                int(a.copied().unwrap_or(""))?,
                int(b.copied().unwrap_or(""))?,
            )?;
            if name == "window" {
                return Err(serr(line, "`window` is the name of the window"));
            }
            Command::NewTarget(name.to_string(), fmt, w, h)
        }
        ("bind", "target") => Command::Bind(
            words
                .get(2)
                .ok_or_else(|| serr(line, "bind target needs a name"))?
                .to_string(),
        ),
        ("swap", a) if words.len() == 3 => Command::Swap(a.to_string(), words[2].to_string()),
        ("use", "program") => Command::Use(words.get(2).copied().unwrap_or("").to_string()),
        ("compare", a) if words.len() == 3 || words.len() == 4 => {
            let tol = match words.get(3) {
                Some(t) => floats_n(t, 1, line, "compare")?[0],
                None => 0.0,
            };
            Command::Compare(a.to_string(), words[2].to_string(), tol, l.to_string())
        }
        ("tolerance", _) => {
            let v = floats_n(rest_after(1), 1, line, "tolerance")?;
            Command::Tolerance(v[0])
        }
        _ => return Err(serr(line, format!("unknown command `{l}`"))),
    })
}

/// The resource limits scenes are parsed with: the profile's defaults raised to what Mesa
/// offers (4096 parameters, 16384 instructions, no ALU/TEX split), so programs written for
/// a real driver — piglit's included — run even when they exceed a 2005 GPU's limits.
/// `hoist check` still reports the profile's own limits.
pub fn executor_limits(profile: hoist_asm::Profile) -> hoist_asm::Limits {
    let mut l = profile.limits();
    l.source = format!("{} (executor limits)", profile.header());
    l.max_slots = 16384;
    l.max_alu_slots = None;
    l.max_tex_slots = None;
    l.max_tex_indirections = None;
    l.temps = l.temps.max(256);
    l.consts = l.consts.max(4096);
    l.env_params = l.env_params.max(256);
    l.local_params = l.local_params.max(4096);
    l.samplers = l.samplers.max(16);
    l
}

/// A section: name, header line, body lines.
type Section<'a> = (String, u32, Vec<(u32, &'a str)>);
/// An open `repeat`: its line, count and the commands before it.
type OpenRepeat = (u32, u32, Vec<(u32, Command)>);
/// The compiled vertex and fragment programs of a pair.
type CompiledPair = (Option<Arc<CompiledProgram>>, Option<Arc<CompiledProgram>>);

/// Parses a scene file.
pub fn parse(text: &str, caps: &Caps) -> Result<Scene, RenderError> {
    let mut scene = Scene {
        window: (WINDOW_SIZE, WINDOW_SIZE),
        ..Scene::default()
    };
    // Split into sections.
    let mut sections: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        let t = raw.trim();
        if raw.starts_with('[') {
            let close = t
                .find(']')
                .ok_or_else(|| serr(line, "section header without `]`"))?;
            sections.push((t[1..close].trim().to_string(), line, Vec::new()));
            continue;
        }
        match sections.last_mut() {
            Some(s) => s.2.push((line, raw)),
            None if t.is_empty() || t.starts_with('#') => {}
            None => return Err(serr(line, "text before the first section")),
        }
    }
    let mut test_lines: Option<Vec<(u32, &str)>> = None;
    for (name, line, body) in sections {
        let lower = name.to_ascii_lowercase();
        if lower == "require" {
            for (l, t) in body {
                let t = t.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                if let Some(rest) = t.strip_prefix("SIZE") {
                    let v = parse_floats(rest).map_err(|e| serr(l, e))?;
                    if v.len() != 2 {
                        return Err(serr(l, "SIZE expects width and height"));
                    }
                    caps.check_target(v[0] as u32, v[1] as u32)
                        .map_err(|e| serr(l, e.to_string()))?;
                    scene.window = (v[0] as u32, v[1] as u32);
                }
                scene.require.push(t.to_string());
            }
        } else if lower == "hoist" {
            for (l, t) in body {
                let t = t.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                let (k, v) = t
                    .split_once('=')
                    .ok_or_else(|| serr(l, "expected `key = value`"))?;
                scene
                    .meta
                    .insert(k.trim().to_string(), v.trim().to_string());
            }
        } else if let Some(rest) = lower
            .strip_prefix("vertex program")
            .map(|r| (Stage::Vertex, r))
            .or_else(|| {
                lower
                    .strip_prefix("fragment program")
                    .map(|r| (Stage::Fragment, r))
            })
        {
            let (stage, _) = rest;
            let pname = name[name.len() - rest.1.len()..].trim().to_string();
            let first = body.first().map_or(line + 1, |b| b.0);
            let src: String = body.iter().map(|(_, t)| format!("{t}\n")).collect();
            let pair = scene.programs.entry(pname.clone()).or_default();
            let slot = match stage {
                Stage::Vertex => &mut pair.vertex,
                Stage::Fragment => &mut pair.fragment,
            };
            if slot.is_some() {
                return Err(serr(line, format!("second [{name}] section")));
            }
            if src.trim().is_empty() {
                continue;
            }
            let opts = ParseOptions {
                profile: None,
                limits: hoist_asm::detect_profile(&src).map(executor_limits),
            };
            let parsed = hoist_asm::parse(&src, &opts);
            let program = match parsed.into_result() {
                Ok(p) => p,
                Err(diags) => {
                    let d = diags.iter().find(|d| d.is_error()).or(diags.first());
                    let (l, msg) = match d {
                        Some(d) => (
                            first + d.position(&src).line - 1,
                            format!("[{name}]: {}", d.message),
                        ),
                        None => (line, format!("[{name}] does not parse")),
                    };
                    return Err(serr(l, msg));
                }
            };
            if program.stage() != stage {
                return Err(serr(
                    first,
                    format!("[{name}] holds a {:?} program", program.stage()),
                ));
            }
            *slot = Some(SceneProgram {
                source: src,
                line: first,
                program,
            });
        } else if lower == "test" {
            if test_lines.is_some() {
                return Err(serr(line, "second [test] section"));
            }
            test_lines = Some(body);
        } else {
            return Err(serr(line, format!("unsupported section [{name}]")));
        }
    }
    let test_lines = test_lines.ok_or_else(|| serr(1, "the scene has no [test] section"))?;
    // Commands, with repeat blocks.
    let mut stack: Vec<OpenRepeat> = Vec::new();
    let mut out: Vec<(u32, Command)> = Vec::new();
    for (line, raw) in test_lines {
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        if words[0] == "repeat" {
            let n: u32 = words
                .get(1)
                .and_then(|w| w.parse().ok())
                .ok_or_else(|| serr(line, "repeat needs a count"))?;
            stack.push((line, n, std::mem::take(&mut out)));
            continue;
        }
        if words[0] == "end" {
            let (_, n, mut outer) = stack
                .pop()
                .ok_or_else(|| serr(line, "`end` without `repeat`"))?;
            let body = std::mem::take(&mut out);
            if (body.len() as u64) * u64::from(n) + outer.len() as u64 > caps.max_commands as u64 {
                return Err(serr(
                    line,
                    format!("more than {} commands", caps.max_commands),
                ));
            }
            for _ in 0..n {
                outer.extend(body.iter().cloned());
            }
            out = outer;
            continue;
        }
        out.push((line, parse_command(l, line, caps)?));
        if out.len() > caps.max_commands {
            return Err(serr(
                line,
                format!("more than {} commands", caps.max_commands),
            ));
        }
    }
    if let Some((line, ..)) = stack.last() {
        return Err(serr(*line, "`repeat` without `end`"));
    }
    // Check references that can be checked statically.
    for (line, c) in &out {
        if let Command::Use(n) = c
            && !scene.programs.contains_key(n)
            && !n.is_empty()
        {
            return Err(serr(*line, format!("no program pair named `{n}`")));
        }
    }
    scene.commands = out;
    Ok(scene)
}

/// Options of [`run`].
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub caps: Caps,
    /// Images for `texture image UNIT NAME` (PNG or PFM bytes).
    pub images: BTreeMap<String, Vec<u8>>,
    /// Overrides the probe tolerance.
    pub tolerance: Option<f32>,
}

/// One probe's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeResult {
    pub line: u32,
    pub command: String,
    pub pass: bool,
    pub detail: String,
}

impl std::fmt::Display for ProbeResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} line {}: {}",
            if self.pass { "PASS" } else { "FAIL" },
            self.line,
            self.command
        )?;
        if !self.detail.is_empty() {
            write!(f, "  -- {}", self.detail)?;
        }
        Ok(())
    }
}

/// Everything a scene run produced.
#[derive(Clone, Debug, Default)]
pub struct SceneResult {
    pub probes: Vec<ProbeResult>,
    /// Final contents of every target, including `window`.
    pub targets: BTreeMap<String, Image>,
    pub stats: Stats,
}

impl SceneResult {
    pub fn passed(&self) -> usize {
        self.probes.iter().filter(|p| p.pass).count()
    }

    pub fn failed(&self) -> usize {
        self.probes.len() - self.passed()
    }
}

#[derive(Clone, Debug)]
enum UnitBinding {
    Texture(Arc<Texture>),
    Target(String, TexOptions),
}

/// Runs a scene a bounded number of bands at a time.
pub struct SceneJob {
    scene: Scene,
    opts: RunOptions,
    compiled: BTreeMap<String, CompiledPair>,
    pc: usize,
    targets: BTreeMap<String, Target>,
    bound: String,
    program: String,
    state: DrawState,
    env: [StageParams; 2],
    locals: BTreeMap<(String, u8), StageParams>,
    units: BTreeMap<u8, UnitBinding>,
    clear_color: [f32; 4],
    clear_depth: f32,
    tolerance: Option<f32>,
    pending: Option<(PreparedDraw, u32)>,
    result: SceneResult,
    error: Option<RenderError>,
}

fn miptree() -> Texture {
    let cols = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
    ];
    Texture {
        shape: TexShape::D2,
        format: TexFormat::Rgba8,
        levels: (0..4)
            .map(|l| {
                let s = 8 >> l;
                Level::new(s, s, 1, vec![cols[l as usize]; (s * s) as usize])
            })
            .collect(),
        sampler: Sampler {
            min: Filter::Nearest,
            mag: Filter::Nearest,
            mip: MipFilter::Nearest,
            wrap: Wrap::ClampToEdge,
        },
    }
}

fn stage_idx(s: Stage) -> usize {
    match s {
        Stage::Vertex => 0,
        Stage::Fragment => 1,
    }
}

impl SceneJob {
    /// Compiles the scene's programs and prepares the window.
    pub fn new(scene: Scene, opts: RunOptions) -> Result<SceneJob, RenderError> {
        let mut compiled = BTreeMap::new();
        for (name, pair) in &scene.programs {
            let c =
                |sp: &Option<SceneProgram>| -> Result<Option<Arc<CompiledProgram>>, RenderError> {
                    sp.as_ref()
                        .map(|sp| {
                            CompiledProgram::new(&sp.program)
                                .map(Arc::new)
                                .map_err(|e| serr(sp.line, e.to_string()))
                        })
                        .transpose()
                };
            compiled.insert(name.clone(), (c(&pair.vertex)?, c(&pair.fragment)?));
        }
        let (w, h) = scene.window;
        opts.caps.check_target(w, h)?;
        let mut targets = BTreeMap::new();
        targets.insert(
            "window".to_string(),
            Target::new(w, h, TargetFormat::Rgba8, [0.0; 4]),
        );
        Ok(SceneJob {
            tolerance: opts.tolerance,
            scene,
            opts,
            compiled,
            pc: 0,
            targets,
            bound: "window".into(),
            program: String::new(),
            state: DrawState::default(),
            env: [StageParams::default(), StageParams::default()],
            locals: BTreeMap::new(),
            units: BTreeMap::new(),
            clear_color: [0.0; 4],
            clear_depth: 1.0,
            pending: None,
            result: SceneResult::default(),
            error: None,
        })
    }

    /// Progress in commands: `bands_done`/`bands_total` count executed/all `[test]`
    /// commands (a draw counts as done once all its bands are shaded).
    pub fn progress(&self) -> Progress {
        Progress {
            bands_done: self.pc as u64,
            bands_total: self.scene.commands.len() as u64,
            done: self.error.is_some()
                || (self.pc >= self.scene.commands.len() && self.pending.is_none()),
        }
    }

    fn target(&mut self, line: u32) -> Result<&mut Target, RenderError> {
        let name = self.bound.clone();
        self.targets
            .get_mut(&name)
            .ok_or_else(|| serr(line, format!("no target named `{name}`")))
    }

    fn total_bytes(&self) -> u64 {
        let t: u64 = self
            .targets
            .values()
            .map(|t| t.color.len() as u64 * 16)
            .sum();
        let u: u64 = self
            .units
            .values()
            .map(|b| match b {
                UnitBinding::Texture(t) => t.bytes(),
                UnitBinding::Target(..) => 0,
            })
            .sum();
        t + u
    }

    fn build_texture(
        &self,
        line: u32,
        src: &TexSource,
        o: &TexOptions,
    ) -> Result<Texture, RenderError> {
        let caps = &self.opts.caps;
        let img = match src {
            TexSource::Miptree => return Ok(miptree()),
            TexSource::Pattern(p, w, h) => pattern::generate(p, *w, *h),
            TexSource::Image(name) => {
                let bytes =
                    self.opts.images.get(name).ok_or_else(|| {
                        serr(line, format!("no image named `{name}` was supplied"))
                    })?;
                let max = caps.max_texture_bytes / 16;
                if bytes.starts_with(b"\x89PNG") {
                    decode_png(bytes, max).map_err(|e| serr(line, e))?
                } else {
                    crate::image::decode_pfm(bytes, max).map_err(|e| serr(line, e))?
                }
            }
            TexSource::Target(name) => {
                let t = self
                    .targets
                    .get(name)
                    .ok_or_else(|| serr(line, format!("no target named `{name}`")))?;
                Image {
                    width: t.width,
                    height: t.height,
                    pixels: t.color.clone(),
                }
            }
        };
        caps.check_texture(img.width, img.height, 1)
            .map_err(|e| serr(line, e.to_string()))?;
        let mut t = Texture::new_2d(img.width, img.height, img.pixels, o.format, o.sampler);
        t.shape = o.shape;
        if o.mipmap && o.shape != TexShape::Rect {
            t.generate_mipmaps();
        }
        Ok(t)
    }

    /// Executes commands until `max_bands` bands of drawing have been shaded (commands
    /// other than draws cost nothing).
    pub fn step(&mut self, max_bands: u32) -> Progress {
        let mut budget = max_bands.max(1);
        while budget > 0 && !self.progress().done {
            if let Err(e) = self.step_one(&mut budget) {
                self.error = Some(e);
            }
        }
        self.progress()
    }

    fn step_one(&mut self, budget: &mut u32) -> Result<(), RenderError> {
        if let Some((draw, next)) = self.pending.take() {
            let line = self
                .scene
                .commands
                .get(self.pc.saturating_sub(1))
                .map_or(0, |c| c.0);
            let t = self.target(line)?;
            let total = t.bands();
            let n = (*budget).min(total - next);
            let w = t.width as usize;
            let start = next as usize * BAND as usize * w;
            let end = ((next + n) as usize * BAND as usize * w).min(t.color.len());
            let depth: &mut [f32] = if t.depth.is_empty() {
                &mut []
            } else {
                &mut t.depth[start..end]
            };
            let s = draw.shade_bands(next, &mut t.color[start..end], depth);
            self.result.stats.add(&s);
            *budget -= n;
            if next + n < total {
                self.pending = Some((draw, next + n));
            }
            return Ok(());
        }
        let Some((line, cmd)) = self.scene.commands.get(self.pc).cloned() else {
            *budget = 0;
            return Ok(());
        };
        self.pc += 1;
        self.command(line, &cmd)
    }

    fn command(&mut self, line: u32, cmd: &Command) -> Result<(), RenderError> {
        match cmd {
            Command::Ortho(v) => {
                let t = self.target(line)?;
                let (w, h) = (t.width as f32, t.height as f32);
                let [l, r, b, tp] = v.unwrap_or([0.0, w, 0.0, h]);
                self.state.gl.projection = glstate::ortho(l, r, b, tp, -1.0, 1.0);
                self.state.gl.modelview = glstate::IDENTITY;
            }
            Command::Param {
                stage,
                kind,
                index,
                value,
            } => {
                let bank = match kind {
                    ParamKind::Local => self
                        .locals
                        .entry((self.program.clone(), stage_idx(*stage) as u8))
                        .or_default(),
                    _ => &mut self.env[stage_idx(*stage)],
                };
                match kind {
                    ParamKind::Env => {
                        bank.env.insert(*index, *value);
                    }
                    ParamKind::Local => {
                        bank.local.insert(*index, *value);
                    }
                    ParamKind::Int => {
                        bank.ints.insert(*index, value.map(|v| v as i32));
                    }
                    ParamKind::Bool => {
                        bank.bools.insert(*index, value[0] != 0.0);
                    }
                }
            }
            Command::ClearColor(c) => self.clear_color = *c,
            Command::ClearDepth(d) => self.clear_depth = *d,
            Command::Clear => {
                let (c, d) = (self.clear_color, self.clear_depth);
                let t = self.target(line)?;
                t.clear_color(c);
                t.clear_depth(d);
            }
            Command::Color(c) => self.state.set_color(*c),
            Command::TexCoord(u, v) => self.state.set_texcoord(*u as usize, *v),
            Command::Texture(unit, src, o) => {
                let b = match src {
                    TexSource::Target(name) => {
                        if !self.targets.contains_key(name) {
                            return Err(serr(line, format!("no target named `{name}`")));
                        }
                        UnitBinding::Target(name.clone(), *o)
                    }
                    _ => UnitBinding::Texture(Arc::new(self.build_texture(line, src, o)?)),
                };
                self.units.insert(*unit, b);
                if self.total_bytes() > self.opts.caps.max_total_bytes {
                    return Err(serr(line, "textures and targets exceed the memory cap"));
                }
            }
            Command::Draw(g) => self.draw(line, g)?,
            Command::Enable(cap, on) => match cap.as_str() {
                "GL_DEPTH_TEST" => self.state.depth_test = *on,
                "GL_CULL_FACE" => self.state.cull_back = *on,
                "GL_VERTEX_PROGRAM_TWO_SIDE_ARB" => self.state.two_side = *on,
                "GL_COLOR_SUM" => self.state.color_sum = *on,
                "GL_CLAMP_VERTEX_COLOR" => self.state.vertex_clamp = *on,
                "GL_CLAMP_FRAGMENT_COLOR" => self.state.fragment_clamp = *on,
                _ => {}
            },
            Command::Probe {
                rect,
                expect,
                channels,
                text,
            } => {
                let r = self.probe(line, *rect, *expect, *channels, text)?;
                self.result.probes.push(r);
            }
            Command::RelProbe {
                rect,
                single,
                expect,
                channels,
                text,
            } => {
                let t = self.target(line)?;
                let (w, h) = (t.width as f32, t.height as f32);
                let px = |f: f32, n: f32| ((f * n) as i64).min(n as i64 - 1);
                let r = if *single {
                    [px(rect[0], w), px(rect[1], h), 1, 1]
                } else {
                    [
                        (rect[0] * w) as i64,
                        (rect[1] * h) as i64,
                        (rect[2] * w) as i64,
                        (rect[3] * h) as i64,
                    ]
                };
                let res = self.probe(line, r, *expect, *channels, text)?;
                self.result.probes.push(res);
            }
            Command::ProbeDepth { x, y, expect, text } => {
                let t = self.target(line)?;
                let d = if *x >= 0 && *y >= 0 {
                    t.depth_at(*x as u32, *y as u32)
                } else {
                    None
                };
                let (pass, detail) = match d {
                    Some(d) if (d - expect).abs() < 0.01 => (true, String::new()),
                    Some(d) => (false, format!("expected {expect} observed {d}")),
                    None => (false, "probe outside the target".into()),
                };
                self.result.probes.push(ProbeResult {
                    line,
                    command: text.clone(),
                    pass,
                    detail,
                });
            }
            Command::Window(fmt, w, h) => {
                self.targets
                    .insert("window".into(), Target::new(*w, *h, *fmt, [0.0; 4]));
            }
            Command::NewTarget(name, fmt, w, h) => {
                self.targets
                    .insert(name.clone(), Target::new(*w, *h, *fmt, [0.0; 4]));
                if self.total_bytes() > self.opts.caps.max_total_bytes {
                    return Err(serr(line, "targets exceed the memory cap"));
                }
            }
            Command::Bind(name) => {
                if !self.targets.contains_key(name) {
                    return Err(serr(line, format!("no target named `{name}`")));
                }
                self.bound = name.clone();
            }
            Command::Swap(a, b) => {
                let ta = self
                    .targets
                    .remove(a)
                    .ok_or_else(|| serr(line, format!("no target named `{a}`")))?;
                let Some(tb) = self.targets.remove(b) else {
                    self.targets.insert(a.clone(), ta);
                    return Err(serr(line, format!("no target named `{b}`")));
                };
                self.targets.insert(a.clone(), tb);
                self.targets.insert(b.clone(), ta);
            }
            Command::Use(name) => {
                if !self.compiled.contains_key(name) && !name.is_empty() {
                    return Err(serr(line, format!("no program pair named `{name}`")));
                }
                self.program = name.clone();
            }
            Command::Tolerance(t) => self.tolerance = Some(*t),
            Command::Compare(a, b, tol, text) => {
                let img = |n: &String| {
                    self.target_image(n)
                        .ok_or_else(|| serr(line, format!("no target named `{n}`")))
                };
                let v = crate::image::compare(&img(a)?, &img(b)?);
                let pass = v.within(*tol);
                let detail = match &v {
                    crate::image::Verdict::Identical => String::new(),
                    crate::image::Verdict::Differs {
                        max_abs_diff,
                        x,
                        y,
                        channel,
                        a: pa,
                        b: pb,
                        differing_pixels,
                        ..
                    } => format!(
                        "max |d| {max_abs_diff:e} at ({x},{y}).{} ({} vs {}), {differing_pixels} pixels differ",
                        ['r', 'g', 'b', 'a'][*channel as usize & 3],
                        pa[*channel as usize & 3],
                        pb[*channel as usize & 3]
                    ),
                    crate::image::Verdict::SizeMismatch { a, b } => {
                        format!("sizes differ: {}x{} vs {}x{}", a.0, a.1, b.0, b.1)
                    }
                };
                self.result.probes.push(ProbeResult {
                    line,
                    command: text.clone(),
                    pass,
                    detail,
                });
            }
        }
        Ok(())
    }

    fn draw(&mut self, line: u32, g: &Geometry) -> Result<(), RenderError> {
        let (tw, th, fmt) = {
            let t = self.target(line)?;
            (t.width, t.height, t.format)
        };
        let geometry = match g {
            Geometry::Rect {
                x,
                y,
                w,
                h,
                tex: Some(t),
            } if t[0].is_nan() => Geometry::Rect {
                x: -1.0 + 2.0 * x / tw as f32,
                y: -1.0 + 2.0 * y / th as f32,
                w: 2.0 * w / tw as f32,
                h: 2.0 * h / th as f32,
                tex: None,
            },
            g => g.clone(),
        };
        let mut textures = BTreeMap::new();
        for (u, b) in &self.units {
            let t = match b {
                UnitBinding::Texture(t) => t.clone(),
                UnitBinding::Target(name, o) => {
                    Arc::new(self.build_texture(line, &TexSource::Target(name.clone()), o)?)
                }
            };
            textures.insert(*u, t);
        }
        let (vp, fp) = self
            .compiled
            .get(&self.program)
            .cloned()
            .unwrap_or((None, None));
        let mut vparams = self.env[0].clone();
        let mut fparams = self.env[1].clone();
        if let Some(l) = self.locals.get(&(self.program.clone(), 0)) {
            vparams.local = l.local.clone();
        }
        if let Some(l) = self.locals.get(&(self.program.clone(), 1)) {
            fparams.local = l.local.clone();
        }
        let draw = PreparedDraw::new(
            &DrawInput {
                vp: vp.as_ref(),
                fp: fp.as_ref(),
                vparams: &vparams,
                fparams: &fparams,
                textures: &textures,
                geometry: &geometry,
                state: &self.state,
                caps: &self.opts.caps,
            },
            tw,
            th,
            fmt,
        )
        .map_err(|e| serr(line, e.to_string()))?;
        self.result.stats.add(&draw.vertex_stats);
        let t = self.target(line)?;
        if draw.needs_depth() {
            t.ensure_depth();
        }
        self.pending = Some((draw, 0));
        Ok(())
    }

    fn probe(
        &mut self,
        line: u32,
        rect: [i64; 4],
        expect: [f32; 4],
        n: usize,
        text: &str,
    ) -> Result<ProbeResult, RenderError> {
        let tol_override = self.tolerance;
        let t = self.target(line)?;
        let tol = tol_override.unwrap_or(match t.format {
            TargetFormat::Rgba8 => TOLERANCE_RGBA8,
            TargetFormat::Rgba32F => TOLERANCE_FLOAT,
        });
        let (tw, th) = (i64::from(t.width), i64::from(t.height));
        let x0 = rect[0].max(0);
        let y0 = rect[1].max(0);
        let x1 = rect[0].saturating_add(rect[2]).min(tw);
        let y1 = rect[1].saturating_add(rect[3]).min(th);
        let mut res = ProbeResult {
            line,
            command: text.to_string(),
            pass: true,
            detail: String::new(),
        };
        if x0 >= x1 || y0 >= y1 {
            res.pass = false;
            res.detail = "probe outside the target".into();
            return Ok(res);
        }
        let mut bad = 0u64;
        let mut first = None;
        for y in y0..y1 {
            for x in x0..x1 {
                let p = t.color[(y * tw + x) as usize];
                if (0..n).any(|c| !((p[c] - expect[c]).abs() <= tol)) {
                    bad += 1;
                    first.get_or_insert((x, y, p));
                }
            }
        }
        if let Some((x, y, p)) = first {
            res.pass = false;
            let e: Vec<String> = expect[..n].iter().map(|v| format!("{v}")).collect();
            res.detail = format!(
                "{bad}/{} pixels off; first at ({x},{y}): expected ({}) observed ({}, {}, {}, {})",
                (x1 - x0) * (y1 - y0),
                e.join(", "),
                p[0],
                p[1],
                p[2],
                p[3]
            );
        }
        Ok(res)
    }

    /// Finishes the run (executing what is left).
    pub fn finish(mut self) -> Result<SceneResult, RenderError> {
        while !self.progress().done {
            self.step(u32::MAX);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        for (name, t) in self.targets {
            self.result.targets.insert(name, t.into_image());
        }
        Ok(self.result)
    }

    /// The current contents of a target.
    pub fn target_image(&self, name: &str) -> Option<Image> {
        self.targets.get(name).map(|t| Image {
            width: t.width,
            height: t.height,
            pixels: t.color.clone(),
        })
    }
}

/// Runs a scene to the end.
pub fn run(scene: &Scene, opts: &RunOptions) -> Result<SceneResult, RenderError> {
    SceneJob::new(scene.clone(), opts.clone())?.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_parse_like_piglit() {
        assert_eq!(parse_floats("(0.5, 1,2 ;").unwrap(), vec![0.5, 1.0, 2.0]);
        let v = parse_floats("(INF, -INF, NAN, 01)").unwrap();
        assert!(v[0].is_infinite() && v[1] < 0.0 && v[2].is_nan() && v[3] == 1.0);
        assert!(parse_floats("1 x").is_err());
    }

    #[test]
    fn malformed_scenes_report_lines() {
        let caps = Caps::default();
        let e = parse("[test]\nclear\nprobe all rgba 1 2\n", &caps).unwrap_err();
        assert_eq!(e, serr(3, "probe expects 4 numbers, found 2"));
        let e = parse("[vertex program]\n!!ARBvp1.0\nEND\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 1, .. }), "{e:?}");
        let e = parse("[test]\nwindow 100000 10\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 2, .. }));
        let e = parse("[test]\nrepeat 3\ndraw quad\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 2, .. }));
        let e = parse("[test]\nrepeat 100000000\ndraw quad\nend\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 4, .. }));
        let e = parse("[bogus]\n[test]\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 1, .. }));
    }

    #[test]
    fn fixed_function_scene_clears_draws_and_probes() {
        let caps = Caps::default();
        let s = parse(
            "[test]\nclear color 0 0 1 1\nclear\ncolor 0 1 0 1\ndraw rect -1 -1 1 2\n\
             probe rgba 10 10 0 1 0 1\nprobe rgba 200 10 0 0 1 1\nprobe all rgba 0 0 1 1\n",
            &caps,
        )
        .unwrap();
        let r = run(&s, &RunOptions::default()).unwrap();
        let pass: Vec<bool> = r.probes.iter().map(|p| p.pass).collect();
        assert_eq!(pass, vec![true, true, false]);
        assert_eq!(r.stats.fragment_invocations, 125 * 250);
    }
}

//! Reading a scene: sections, programs and `[test]` commands, with line numbers.

use super::model::{
    Command, FogSetting, ParamKind, Scene, SceneProgram, TexOptions, TexSource, WINDOW_SIZE, serr,
};
use crate::draw::{Caps, Geometry, TargetFormat};
use crate::error::RenderError;
use crate::pattern::{self, Pattern};
use crate::texture::{
    CompareFunc, DepthMode, Filter, MipFilter, Sampler, TexFormat, TexShape, Wrap,
};
use hoist_asm::ir::parse_unit;
use hoist_asm::{ParseOptions, Stage};

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
                    "depth" => TexFormat::Depth,
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
            "compare" => {
                o.sampler.compare = match val {
                    "none" => None,
                    f => Some(
                        CompareFunc::from_name(f)
                            .ok_or_else(|| serr(line, format!("unknown compare function `{f}`")))?,
                    ),
                };
                i += 2;
            }
            "depth_mode" => {
                o.sampler.depth_mode = DepthMode::from_name(val)
                    .ok_or_else(|| serr(line, format!("unknown depth texture mode `{val}`")))?;
                i += 2;
            }
            "shape" => {
                o.shape = TexShape::from_name(val).ok_or_else(|| {
                    serr(
                        line,
                        format!("unknown texture shape `{val}` (1d, 2d, 3d, cube or rect)"),
                    )
                })?;
                i += 2;
            }
            _ => return Err(serr(line, format!("unknown texture option `{key}`"))),
        }
    }
    Ok(o)
}

/// One `[test]` command line being parsed.
struct CommandLine<'a> {
    text: &'a str,
    words: Vec<&'a str>,
    line: u32,
    caps: &'a Caps,
}

impl<'a> CommandLine<'a> {
    /// The text after the first `n` words.
    fn rest_after(&self, n: usize) -> &'a str {
        let mut s = self.text;
        for _ in 0..n {
            s = s.trim_start();
            s = s.find(char::is_whitespace).map_or("", |i| &s[i..]);
        }
        s.trim()
    }

    fn size(&self, w: Option<&&str>, h: Option<&&str>) -> Result<(u32, u32), RenderError> {
        let int = |s: Option<&&str>| -> Result<u32, RenderError> {
            let s = s.copied().unwrap_or("");
            s.parse::<u32>()
                .map_err(|_| serr(self.line, format!("`{s}` is not a size")))
        };
        let (w, h) = (int(w)?, int(h)?);
        self.caps
            .check_target(w, h)
            .map_err(|e| serr(self.line, e.to_string()))?;
        Ok((w, h))
    }

    /// `parameter KIND INDEX x y z w`.
    fn parameter(&self, kind: &str) -> Result<Command, RenderError> {
        let (kind, stage) = match kind {
            "env_vp" => (ParamKind::Env, Stage::Vertex),
            "env_fp" => (ParamKind::Env, Stage::Fragment),
            "local_vp" => (ParamKind::Local, Stage::Vertex),
            "local_fp" => (ParamKind::Local, Stage::Fragment),
            "int_vp" => (ParamKind::Int, Stage::Vertex),
            "int_fp" => (ParamKind::Int, Stage::Fragment),
            "bool_vp" => (ParamKind::Bool, Stage::Vertex),
            "bool_fp" => (ParamKind::Bool, Stage::Fragment),
            k => return Err(serr(self.line, format!("unknown parameter kind `{k}`"))),
        };
        let v = floats_n(self.rest_after(2), 5, self.line, "parameter")?;
        if !(0.0..65536.0).contains(&v[0]) || v[0].fract() != 0.0 {
            return Err(serr(
                self.line,
                format!("parameter index {} is out of range", v[0]),
            ));
        }
        Ok(Command::Param {
            stage,
            kind,
            index: v[0] as u16,
            value: vec4(&v[1..]),
        })
    }

    /// `texture rgbw|miptree|pattern|image|target UNIT ...`.
    fn texture(&self, kind: &str) -> Result<Command, RenderError> {
        let unit_s = self.words.get(2).copied().unwrap_or("");
        let unit = parse_unit(unit_s).ok_or_else(|| {
            serr(
                self.line,
                format!("`{unit_s}` is not a texture unit (0..31, or vs0..vs15)"),
            )
        })?;
        Ok(match kind {
            "rgbw" => {
                let v = floats_n(self.rest_after(3), 2, self.line, "texture rgbw")?;
                let (w, h) = (v[0] as u32, v[1] as u32);
                self.caps
                    .check_texture(w, h, 1)
                    .map_err(|e| serr(self.line, e.to_string()))?;
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
                        ..Sampler::default()
                    },
                    format: TexFormat::Rgba8,
                    shape: TexShape::D2,
                    mipmap: false,
                },
            ),
            "pattern" | "image" | "target" => {
                let what = self.words.get(3).copied().ok_or_else(|| {
                    serr(self.line, format!("texture {kind} needs a unit and a name"))
                })?;
                let opts = parse_tex_options(&self.words[4..], self.line)?;
                let src = match kind {
                    "pattern" => {
                        let (p, sz) = pattern::parse_spec(what).map_err(|e| serr(self.line, e))?;
                        let (w, h) = sz.unwrap_or((256, 256));
                        let (tw, th, td) = opts.shape.extent(w, h);
                        self.caps
                            .check_texture(w, h, 1)
                            .and_then(|_| self.caps.check_texture(tw, th, td))
                            .map_err(|e| serr(self.line, e.to_string()))?;
                        TexSource::Pattern(p, w, h)
                    }
                    "image" => TexSource::Image(what.to_string()),
                    _ => TexSource::Target(what.to_string()),
                };
                Command::Texture(unit, src, opts)
            }
            k => return Err(serr(self.line, format!("unknown texture kind `{k}`"))),
        })
    }

    /// `draw rect [tex|ortho] ...`.
    fn draw_rect(&self) -> Result<Command, RenderError> {
        let w2 = self.words.get(2).copied().unwrap_or("");
        Ok(match w2 {
            "tex" => {
                let v = floats_n(self.rest_after(3), 8, self.line, "draw rect tex")?;
                Command::Draw(Geometry::Rect {
                    x: v[0],
                    y: v[1],
                    w: v[2],
                    h: v[3],
                    tex: Some(vec4(&v[4..])),
                })
            }
            "ortho" => {
                let v = floats_n(self.rest_after(3), 4, self.line, "draw rect ortho")?;
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
                let v = floats_n(self.rest_after(2), 4, self.line, "draw rect")?;
                Command::Draw(Geometry::Rect {
                    x: v[0],
                    y: v[1],
                    w: v[2],
                    h: v[3],
                    tex: None,
                })
            }
        })
    }

    /// `[relative] probe [rect|all|depth] rgb|rgba ...`.
    fn probe(&self) -> Result<Command, RenderError> {
        let rel = self.words[0] == "relative";
        let ws = if rel {
            &self.words[1..]
        } else {
            &self.words[..]
        };
        let (is_rect, is_all, fmt_idx) = match ws.get(1).copied() {
            Some("rect") => (true, false, 2),
            Some("all") => (false, true, 2),
            Some("depth") if !rel => {
                let v = floats_n(self.rest_after(2), 3, self.line, "probe depth")?;
                return Ok(Command::ProbeDepth {
                    x: v[0] as i64,
                    y: v[1] as i64,
                    expect: v[2],
                    text: self.text.to_string(),
                });
            }
            _ => (false, false, 1),
        };
        let channels = match ws.get(fmt_idx).copied() {
            Some("rgba") => 4,
            Some("rgb") => 3,
            _ => return Err(serr(self.line, "probe needs rgb or rgba")),
        };
        let skip = fmt_idx + 1 + usize::from(rel);
        let v = parse_floats(self.rest_after(skip)).map_err(|e| serr(self.line, e))?;
        let npos = if is_all {
            0
        } else if is_rect {
            4
        } else {
            2
        };
        if v.len() != npos + channels {
            return Err(serr(
                self.line,
                format!(
                    "probe expects {} numbers, found {}",
                    npos + channels,
                    v.len()
                ),
            ));
        }
        let mut expect = [0.0, 0.0, 0.0, 1.0];
        expect[..channels].copy_from_slice(&v[npos..]);
        let text = self.text.to_string();
        Ok(if is_all {
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
        })
    }
}

fn parse_command(l: &str, line: u32, caps: &Caps) -> Result<Command, RenderError> {
    let c = CommandLine {
        text: l,
        words: l.split_whitespace().collect(),
        line,
        caps,
    };
    let words = &c.words;
    let w0 = words.first().copied().unwrap_or("");
    let w1 = words.get(1).copied().unwrap_or("");
    Ok(match (w0, w1) {
        ("ortho", _) => {
            let v = parse_floats(c.rest_after(1)).map_err(|e| serr(line, e))?;
            match v.len() {
                0 => Command::Ortho(None),
                4 => Command::Ortho(Some(vec4(&v))),
                n => return Err(serr(line, format!("ortho takes 0 or 4 numbers, found {n}"))),
            }
        }
        ("parameter", kind) => c.parameter(kind)?,
        ("clear", "color") => {
            Command::ClearColor(vec4(&floats_n(c.rest_after(2), 4, line, "clear color")?))
        }
        ("clear", "depth") => {
            Command::ClearDepth(floats_n(c.rest_after(2), 1, line, "clear depth")?[0])
        }
        ("clear", "") => Command::Clear,
        ("color", _) => Command::Color(vec4(&floats_n(c.rest_after(1), 4, line, "color")?)),
        ("texcoord", _) => {
            let v = floats_n(c.rest_after(1), 5, line, "texcoord")?;
            if !(0.0..8.0).contains(&v[0]) {
                return Err(serr(line, "texcoord unit must be 0..7"));
            }
            Command::TexCoord(v[0] as u8, vec4(&v[1..]))
        }
        ("texture", kind) => c.texture(kind)?,
        ("draw", "rect") => c.draw_rect()?,
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
        ("probe", _) | ("relative", "probe") => c.probe()?,
        ("window", _) => {
            let (fmt, a, b) = match parse_format(w1) {
                Some(f) => (f, words.get(2), words.get(3)),
                None => (TargetFormat::Rgba8, words.get(1), words.get(2)),
            };
            let (w, h) = c.size(a, b)?;
            Command::Window(fmt, w, h)
        }
        ("target", name) if !name.is_empty() => {
            let (fmt, a, b) = match words.get(2).and_then(|w| parse_format(w)) {
                Some(f) => (f, words.get(3), words.get(4)),
                None => (TargetFormat::Rgba32F, words.get(2), words.get(3)),
            };
            let (w, h) = c.size(a, b)?;
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
        ("fog", what) => {
            let rest = c.rest_after(2);
            Command::Fog(match what {
                "color" => FogSetting::Color(vec4(&floats_n(rest, 4, line, "fog color")?)),
                "density" => {
                    let d = floats_n(rest, 1, line, "fog density")?[0];
                    if !(d >= 0.0) {
                        return Err(serr(line, "fog density must not be negative"));
                    }
                    FogSetting::Density(d)
                }
                "start" => FogSetting::Start(floats_n(rest, 1, line, "fog start")?[0]),
                "end" => FogSetting::End(floats_n(rest, 1, line, "fog end")?[0]),
                _ => {
                    return Err(serr(
                        line,
                        format!("unknown fog setting `{what}` (color, density, start or end)"),
                    ));
                }
            })
        }
        ("tolerance", _) => {
            let v = floats_n(c.rest_after(1), 1, line, "tolerance")?;
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

/// Parses a scene file.
pub fn parse(text: &str, caps: &Caps) -> Result<Scene, RenderError> {
    let mut scene = Scene {
        window: (WINDOW_SIZE, WINDOW_SIZE),
        ..Scene::default()
    };
    let mut test_lines: Option<Vec<(u32, &str)>> = None;
    for (name, line, body) in sections(text)? {
        let lower = name.to_ascii_lowercase();
        if lower == "require" {
            require(&mut scene, &body, caps)?;
        } else if lower == "hoist" {
            for (l, t) in meaningful(&body) {
                let (k, v) = t
                    .split_once('=')
                    .ok_or_else(|| serr(l, "expected `key = value`"))?;
                scene
                    .meta
                    .insert(k.trim().to_string(), v.trim().to_string());
            }
        } else if let Some((stage, rest)) = lower
            .strip_prefix("vertex program")
            .map(|r| (Stage::Vertex, r))
            .or_else(|| {
                lower
                    .strip_prefix("fragment program")
                    .map(|r| (Stage::Fragment, r))
            })
        {
            let pname = name[name.len() - rest.len()..].trim().to_string();
            program_section(&mut scene, &name, pname, stage, line, &body)?;
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
    let out = commands(&test_lines, caps)?;
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

/// The file split into sections.
fn sections(text: &str) -> Result<Vec<Section<'_>>, RenderError> {
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
    Ok(sections)
}

/// A section's lines without blanks and comments, trimmed.
fn meaningful<'a>(body: &'a [(u32, &'a str)]) -> impl Iterator<Item = (u32, &'a str)> + 'a {
    body.iter()
        .map(|&(l, t)| (l, t.trim()))
        .filter(|(_, t)| !t.is_empty() && !t.starts_with('#'))
}

/// `[require]`: requirements are recorded; `SIZE` sets the window.
fn require(scene: &mut Scene, body: &[(u32, &str)], caps: &Caps) -> Result<(), RenderError> {
    for (l, t) in meaningful(body) {
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
    Ok(())
}

/// A `[vertex program NAME]` or `[fragment program NAME]` section.
fn program_section(
    scene: &mut Scene,
    name: &str,
    pname: String,
    stage: Stage,
    line: u32,
    body: &[(u32, &str)],
) -> Result<(), RenderError> {
    let first = body.first().map_or(line + 1, |b| b.0);
    let src: String = body.iter().map(|(_, t)| format!("{t}\n")).collect();
    let pair = scene.programs.entry(pname).or_default();
    let slot = match stage {
        Stage::Vertex => &mut pair.vertex,
        Stage::Fragment => &mut pair.fragment,
    };
    if slot.is_some() {
        return Err(serr(line, format!("second [{name}] section")));
    }
    if src.trim().is_empty() {
        return Ok(());
    }
    let opts = ParseOptions {
        profile: None,
        limits: hoist_asm::detect_profile(&src).map(executor_limits),
    };
    let program = match hoist_asm::parse(&src, &opts).into_result() {
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
    Ok(())
}

/// The `[test]` commands, with `repeat` blocks expanded within [`Caps::max_commands`].
fn commands(test_lines: &[(u32, &str)], caps: &Caps) -> Result<Vec<(u32, Command)>, RenderError> {
    let mut stack: Vec<OpenRepeat> = Vec::new();
    let mut out: Vec<(u32, Command)> = Vec::new();
    let too_many = |line| serr(line, format!("more than {} commands", caps.max_commands));
    for (line, l) in meaningful(test_lines) {
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
                return Err(too_many(line));
            }
            for _ in 0..n {
                outer.extend(body.iter().cloned());
            }
            out = outer;
            continue;
        }
        out.push((line, parse_command(l, line, caps)?));
        if out.len() > caps.max_commands {
            return Err(too_many(line));
        }
    }
    if let Some((line, ..)) = stack.last() {
        return Err(serr(*line, "`repeat` without `end`"));
    }
    Ok(out)
}

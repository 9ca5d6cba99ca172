//! Scenes with shading-language sections (see `crates/raster/SCENES.md`): piglit's
//! `[vertex shader]` / `[fragment shader]` (GLSL) and Hoist's `[wgsl]` (one module, entry
//! points from `[hoist] vertex`/`fragment` when it has several), with `uniform TYPE NAME
//! VALUES` lines in `[test]`.
//!
//! [`translate`] compiles the sources (`[hoist] dialect` and `target` choose the output
//! like `hoist compile`'s options) and writes the scene `hoist_raster::scene::parse` reads:
//! the source sections become blank lines, the compiled pair is appended as `[vertex
//! program]`/`[fragment program]`, and each `uniform` line becomes the `parameter` lines
//! of the slots the binding table gave it (both stages; `program.local` for ARB, `c#` env
//! constants for D3D9). Every output line remembers its input line, so [`parse`] reports
//! the raster's errors and probes at the lines the user wrote, and every diagnostic's span
//! points into the scene text. A stage without a source is GL's fixed function: a
//! pass-through shader stands in (position through the MVP matrix, `gl_Color` and the
//! `gl_TexCoord[n]` the other stage reads). Integer `uniform`s naming a sampler set its
//! texture unit, as `glUniform1i` does; a sampler nobody set is on unit 0 (GLSL) or on the
//! first free unit (WGSL). A unit is seen by both stages, as in GL: a texture bound to a unit
//! a D3D9 vertex shader samples is bound to that vertex sampler (unit 16 + N) too.

use crate::{Compiled, Error, Options, SourceId, compile_glsl, compile_wgsl};
use hoist_asm::Stage;
use hoist_asm::diag::{Code, LineIndex, code};
use hoist_asm::state::{MatrixMod, MatrixName, StateRef};
use hoist_asm::{ArbTarget, Diagnostic, Dialect, Span};
use hoist_raster::scene::{Command, ParamKind, Scene};
use hoist_raster::{Caps, RenderError};

/// A scene with its sources compiled.
#[derive(Clone, Debug)]
pub struct Translated {
    /// The scene `hoist_raster::scene::parse` reads (assembly sections, `parameter` lines).
    pub text: String,
    /// The 1-based input line of each output line.
    pub lines: Vec<u32>,
    pub compiled: Compiled,
}

impl Translated {
    /// The input line of 1-based output line `line`.
    pub fn input_line(&self, line: u32) -> u32 {
        match line.checked_sub(1) {
            Some(i) => self.lines.get(i as usize).copied().unwrap_or(line),
            None => 0,
        }
    }
}

/// One section of the input: its name, header line and body.
struct Section<'a> {
    name: String,
    /// 1-based line of the header.
    line: u32,
    /// Byte offset of the body (the line after the header).
    start: usize,
    body: &'a str,
    /// Body lines with their 1-based numbers.
    lines: Vec<(u32, &'a str)>,
}

fn sections(text: &str) -> Vec<Section<'_>> {
    let mut out: Vec<Section> = Vec::new();
    let mut at = 0usize;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let line = i as u32 + 1;
        let t = raw.trim();
        if t.starts_with('[') && t.ends_with(']') {
            if let Some(s) = out.last_mut() {
                s.body = &text[s.start..at];
            }
            out.push(Section {
                name: t[1..t.len() - 1].trim().to_ascii_lowercase(),
                line,
                start: at + raw.len(),
                body: "",
                lines: Vec::new(),
            });
        } else if let Some(s) = out.last_mut() {
            s.lines.push((line, raw.trim_end_matches(['\n', '\r'])));
        }
        at += raw.len();
    }
    if let Some(s) = out.last_mut() {
        s.body = &text[s.start.min(text.len())..];
    }
    out
}

const SOURCE_SECTIONS: [&str; 4] = [
    "vertex shader",
    "fragment shader",
    "vertex shader passthrough",
    "wgsl",
];

/// Whether `text` has shading-language sections (and so needs [`translate`]).
pub fn has_sources(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim();
        t.starts_with('[')
            && t.ends_with(']')
            && SOURCE_SECTIONS.contains(&t[1..t.len() - 1].trim().to_ascii_lowercase().as_str())
    })
}

fn line_span(text: &str, line: u32) -> Span {
    let r = LineIndex::new(text).line_range(line as usize);
    Span::new(r.start, r.end)
}

fn at_line(text: &str, line: u32, code: Code, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, msg, line_span(text, line))
}

/// The pass-through GLSL standing in for a fixed-function stage next to `other`.
/// `[vertex shader passthrough]` passes the vertex through; fixed function (no section)
/// transforms it by the MVP matrix.
fn passthrough(vertex: bool, other: &str, mvp: bool) -> String {
    if !vertex {
        return "void main() { gl_FragColor = gl_Color; }\n".into();
    }
    let mut s = String::from(if mvp {
        "void main() {\n  gl_Position = ftransform();\n"
    } else {
        "void main() {\n  gl_Position = gl_Vertex;\n"
    });
    if other.contains("gl_Color") {
        s.push_str("  gl_FrontColor = gl_Color;\n");
    }
    for n in 0..4 {
        if other.contains(&format!("gl_TexCoord[{n}]")) {
            s.push_str(&format!("  gl_TexCoord[{n}] = gl_MultiTexCoord{n};\n"));
        }
    }
    s.push_str("}\n");
    s
}

/// A `uniform TYPE NAME VALUES` line's parts.
struct UniformLine<'a> {
    ty: &'a str,
    name: &'a str,
    values: Vec<f32>,
}

fn uniform_line(l: &str) -> Result<UniformLine<'_>, String> {
    let mut words = l.split_whitespace();
    let _ = words.next();
    let ty = words.next().ok_or("uniform needs a type")?;
    let name = words.next().ok_or("uniform needs a name")?;
    let rest: Vec<&str> = words.collect();
    let mut values = Vec::new();
    for w in rest.join(" ").split([' ', ',', '(', ')', ';', '\t']) {
        if w.is_empty() {
            continue;
        }
        values.push(match w {
            "true" => 1.0,
            "false" => 0.0,
            _ => hoist_raster::scene::parse_floats(w)?
                .first()
                .copied()
                .unwrap_or(0.0),
        });
    }
    if values.is_empty() {
        return Err(format!("uniform `{name}` has no value"));
    }
    let int = ty.starts_with("int")
        || ty.starts_with("uint")
        || ty.starts_with("ivec")
        || ty.starts_with("uvec");
    if int && values.iter().any(|v| f64::from(v.abs()) > 16_777_216.0) {
        return Err(format!(
            "uniform `{name}`: an integer beyond ±2^24, which a float register cannot hold \
             exactly (integers are floats in ARB and D3D9 programs)"
        ));
    }
    Ok(UniformLine { ty, name, values })
}

/// The texture units the `uniform int SAMPLER UNIT` lines of `[test]` set.
fn unit_hints(test: Option<&Section<'_>>) -> Vec<(String, u8)> {
    let mut out = Vec::new();
    for (_, l) in test.map_or(&[][..], |t| &t.lines[..]) {
        let t = l.trim();
        if !t.starts_with("uniform ") {
            continue;
        }
        if let Ok(u) = uniform_line(t)
            && (u.ty == "int" || u.ty.starts_with("sampler"))
            && !out.iter().any(|(n, _): &(String, u8)| n == u.name)
            && (0.0..32.0).contains(&u.values[0])
        {
            out.push((u.name.to_string(), u.values[0] as u8));
        }
    }
    out
}

/// The `parameter` lines setting a uniform (nothing when the programs do not read it).
fn parameters(u: &UniformLine<'_>, c: &Compiled) -> Vec<String> {
    if c.bindings.textures.iter().any(|t| t.name == u.name) {
        return Vec::new();
    }
    // `a` names element 0 of an array; values beyond an element continue into the next.
    let (base, mut index) = match u.name.rsplit_once('[') {
        Some((b, i)) if i.ends_with(']') => (b, i[..i.len() - 1].parse::<usize>().ok()),
        _ => (u.name, None),
    };
    let mut out = Vec::new();
    let mut vals = &u.values[..];
    while !vals.is_empty() {
        let slot = match index {
            None => c
                .bindings
                .uniforms
                .iter()
                .find(|s| s.name == u.name)
                .or_else(|| {
                    let n = format!("{}[0]", u.name);
                    let s = c.bindings.uniforms.iter().find(|s| s.name == n);
                    if s.is_some() {
                        index = Some(0);
                    }
                    s
                }),
            Some(i) => {
                let n = format!("{base}[{i}]");
                c.bindings.uniforms.iter().find(|s| s.name == n)
            }
        };
        let Some(slot) = slot else {
            // Not read by the compiled programs (or past the array's end).
            break;
        };
        let per = usize::from(slot.slots) * usize::from(slot.lanes);
        let take = per.min(vals.len());
        out.extend(slot_lines(c, slot, &vals[..take]));
        vals = &vals[take..];
        match index.as_mut() {
            Some(i) => *i += 1,
            None => break,
        }
    }
    out
}

/// The `parameter` lines (both stages) giving `slot` the values `vals`, column by column.
fn slot_lines(c: &Compiled, slot: &crate::bindings::UniformSlot, vals: &[f32]) -> Vec<String> {
    let mut out = Vec::new();
    let lanes = usize::from(slot.lanes);
    for k in 0..slot.slots {
        let from = usize::from(k) * lanes;
        if from >= vals.len() {
            break;
        }
        let mut v = [0.0f32; 4];
        for (j, x) in vals[from..vals.len().min(from + lanes)].iter().enumerate() {
            v[j] = *x;
        }
        let bank = if c.dialect == Dialect::Arb {
            "local"
        } else {
            "env"
        };
        let n = slot.slot + k;
        let t = v.map(crate::emit::fmt_f32).join(", ");
        out.push(format!("parameter {bank}_vp {n} ({t})"));
        out.push(format!("parameter {bank}_fp {n} ({t})"));
    }
    out
}

/// A `probe` with more numbers than its form takes, cut to those piglit reads (its
/// `sscanf` ignores the rest): `probe rgb X Y R G B`, `probe rgba X Y R G B A`,
/// `probe all rgb R G B`, `probe all rgba R G B A`.
fn probe_as_piglit_reads_it(t: &str) -> Option<String> {
    let words: Vec<&str> = t.split_whitespace().collect();
    let (head, n) = match words.as_slice() {
        ["probe", "rgb", ..] => (2, 5),
        ["probe", "rgba", ..] => (2, 6),
        ["probe", "all", "rgb", ..] => (3, 3),
        ["probe", "all", "rgba", ..] => (3, 4),
        _ => return None,
    };
    let rest = words[head..].join(" ");
    let nums: Vec<&str> = rest
        .split([' ', ',', '(', ')', ';'])
        .filter(|w| !w.is_empty())
        .collect();
    if nums.len() <= n {
        return None;
    }
    Some(format!(
        "{} {}",
        words[..head].join(" "),
        nums[..n].join(" ")
    ))
}

/// Options from `[hoist]`: `vertex`, `fragment`, `dialect`, `target` (explicit options win).
fn hoist_options(
    text: &str,
    secs: &[Section<'_>],
    given: &Options,
) -> Result<Options, Vec<Diagnostic>> {
    let mut o = given.clone();
    for s in secs.iter().filter(|s| s.name == "hoist") {
        for (line, l) in &s.lines {
            let Some((k, v)) = l.split_once('=') else {
                continue;
            };
            let v = v.trim();
            match k.trim() {
                "vertex" if o.vertex.is_none() => o.vertex = Some(v.to_string()),
                "fragment" if o.fragment.is_none() => o.fragment = Some(v.to_string()),
                "dialect" if o.dialect.is_none() => {
                    o.dialect = Some(match v {
                        "arb" => Dialect::Arb,
                        "d3d9" => Dialect::D3d9,
                        _ => {
                            return Err(vec![at_line(
                                text,
                                *line,
                                code!("F0201"),
                                format!("unknown dialect `{v}` (arb or d3d9)"),
                            )]);
                        }
                    })
                }
                "target" if o.target.is_none() => {
                    o.target = Some(ArbTarget::from_id(v).ok_or_else(|| {
                        vec![at_line(
                            text,
                            *line,
                            code!("F0201"),
                            format!("unknown target `{v}`"),
                        )]
                    })?)
                }
                _ => {}
            }
        }
    }
    Ok(o)
}

/// The compiled pair, or the diagnostics with spans into the scene.
fn compile(text: &str, secs: &[Section<'_>], opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    fn find<'s, 'a>(secs: &'s [Section<'a>], n: &str) -> Vec<&'s Section<'a>> {
        secs.iter().filter(|s| s.name == n).collect()
    }
    let find = |n: &str| find(secs, n);
    let (wgsl, vs, fs) = (find("wgsl"), find("vertex shader"), find("fragment shader"));
    let pass = find("vertex shader passthrough");
    for list in [&wgsl, &vs, &fs] {
        if let Some(second) = list.get(1) {
            return Err(vec![at_line(
                text,
                second.line,
                code!("F0202"),
                format!(
                    "a second [{}] section: several compilation units per stage are not \
                     linked (naga compiles one)",
                    second.name
                ),
            )]);
        }
    }
    let shift = |e: Error, offsets: (usize, usize)| -> Vec<Diagnostic> {
        let off = if e.source == SourceId::GlslFragment {
            offsets.1
        } else {
            offsets.0
        };
        // A diagnostic without a place in the source points at the section's header.
        let header = secs
            .iter()
            .filter(|s| SOURCE_SECTIONS.contains(&s.name.as_str()))
            .find(|s| s.start == off)
            .map_or(Span::NONE, |s| line_span(text, s.line));
        e.diagnostics
            .into_iter()
            .map(|mut d| {
                d.span = if d.span.is_none() {
                    header
                } else {
                    Span::new(d.span.start as usize + off, d.span.end as usize + off)
                };
                d
            })
            .collect()
    };
    if let Some(w) = wgsl.first() {
        if let Some(s) = vs.first().or(fs.first()) {
            return Err(vec![at_line(
                text,
                s.line,
                code!("F0202"),
                "a scene has a [wgsl] module or GLSL shaders, not both",
            )]);
        }
        return compile_wgsl(w.body, opts).map_err(|e| shift(e, (w.start, w.start)));
    }
    let fs_text = fs.first().map(|s| s.body);
    let (vtext, voff) = match (vs.first(), pass.first()) {
        (Some(s), _) => (s.body.to_string(), s.start),
        (None, p) => (
            passthrough(true, fs_text.unwrap_or(""), p.is_none()),
            usize::MAX,
        ),
    };
    let (ftext, foff) = match fs.first() {
        Some(s) => (s.body.to_string(), s.start),
        None => (passthrough(false, &vtext, false), usize::MAX),
    };
    compile_glsl(&vtext, &ftext, opts).map_err(|e| {
        let stand_in = (e.source == SourceId::GlslVertex && voff == usize::MAX)
            || (e.source == SourceId::GlslFragment && foff == usize::MAX);
        if stand_in {
            // The pass-through stand-in failed: report it at the other stage's header.
            let line = vs.first().or(fs.first()).map_or(1, |s| s.line);
            let msg = e
                .diagnostics
                .first()
                .map_or(String::new(), |d| d.message.clone());
            return vec![at_line(
                text,
                line,
                code!("F0203"),
                format!(
                    "the fixed-function stand-in for the missing stage does not compile: {msg}"
                ),
            )];
        }
        shift(e, (voff, foff))
    })
}

/// Compiles the scene's sources; `None` when it has none (an assembly scene).
pub fn translate(text: &str, opts: &Options) -> Result<Option<Translated>, Vec<Diagnostic>> {
    if !has_sources(text) {
        return Ok(None);
    }
    let secs = sections(text);
    let test = secs.iter().find(|s| s.name == "test");
    let mut opts = hoist_options(text, &secs, opts)?;
    if opts.units.is_none() {
        opts.units = Some(unit_hints(test));
    }
    opts.gl_units = !secs.iter().any(|s| s.name == "wgsl");
    if let Some(s) = secs
        .iter()
        .find(|s| s.name == "vertex program" || s.name == "fragment program")
    {
        return Err(vec![at_line(
            text,
            s.line,
            code!("F0202"),
            "a scene with shading-language sources cannot also have assembly programs",
        )]);
    }
    let c = compile(text, &secs, &opts)?;
    let mut out = Out::default();
    let source_lines: Vec<(u32, u32)> = secs
        .iter()
        .filter(|s| SOURCE_SECTIONS.contains(&s.name.as_str()))
        .map(|s| (s.line, s.lines.last().map_or(s.line, |l| l.0)))
        .collect();
    let in_test = |line: u32| test.is_some_and(|t| t.lines.iter().any(|(l, _)| *l == line));
    for (i, raw) in text.lines().enumerate() {
        let line = i as u32 + 1;
        if source_lines.iter().any(|(a, b)| (*a..=*b).contains(&line)) {
            out.push("", line);
            continue;
        }
        let t = raw.trim();
        if in_test(line) && t.starts_with("uniform ") {
            let u = uniform_line(t).map_err(|m| vec![at_line(text, line, code!("F0204"), m)])?;
            let params = parameters(&u, &c);
            if params.is_empty() {
                out.push("", line);
            }
            for p in params {
                out.push(&p, line);
            }
        } else if in_test(line) && (t == "link success" || t.starts_with("hint ")) {
            // Linking succeeded; a GL hint changes nothing here.
            out.push("", line);
        } else if in_test(line)
            && let Some(p) = probe_as_piglit_reads_it(t)
        {
            out.push(&p, line);
        } else if in_test(line) && t == "link error" {
            return Err(vec![at_line(
                text,
                line,
                code!("F0205"),
                "the test expects linking to fail, and the pair compiled",
            )]);
        } else {
            out.push(raw, line);
            if test.is_some_and(|s| s.line == line) {
                // Uniforms' initial values (GLSL initializers), before any command.
                for slot in &c.bindings.uniforms {
                    if let Some(init) = &slot.init {
                        for p in slot_lines(&c, slot, init) {
                            out.push(&p, line);
                        }
                    }
                }
            }
        }
    }
    let header = |n: &str| secs.iter().find(|s| s.name == n).map(|s| s.line);
    let vline = header("vertex shader")
        .or(header("wgsl"))
        .or(header("fragment shader"))
        .unwrap_or(1);
    let fline = header("fragment shader")
        .or(header("wgsl"))
        .unwrap_or(vline);
    for (name, prog, line) in [
        ("vertex program", &c.vp, vline),
        ("fragment program", &c.fp, fline),
    ] {
        out.push(&format!("[{name}]"), line);
        for l in prog.lines() {
            out.push(l, line);
        }
    }
    Ok(Some(Translated {
        text: out.text,
        lines: out.lines,
        compiled: c,
    }))
}

#[derive(Default)]
struct Out {
    text: String,
    lines: Vec<u32>,
}

impl Out {
    fn push(&mut self, s: &str, from: u32) {
        self.text.push_str(s);
        self.text.push('\n');
        self.lines.push(from);
    }
}

/// A scene read: the raster's [`Scene`] (probes and errors at the input's lines) and, when
/// it had sources, what they compiled to.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub scene: Scene,
    pub translated: Option<Translated>,
}

/// Reads a scene with or without shading-language sections; errors are diagnostics with
/// spans into `text`.
pub fn parse(text: &str, caps: &Caps, opts: &Options) -> Result<Parsed, Vec<Diagnostic>> {
    let translated = translate(text, opts)?;
    let Some(t) = translated else {
        let scene =
            hoist_raster::scene::parse(text, caps).map_err(|e| vec![raster(text, e, &|l| l)])?;
        return Ok(Parsed {
            scene,
            translated: None,
        });
    };
    let map = |l: u32| t.input_line(l);
    let mut scene =
        hoist_raster::scene::parse(&t.text, caps).map_err(|e| vec![raster(text, e, &map)])?;
    for (line, _) in scene.commands.iter_mut() {
        *line = map(*line);
    }
    set_state_before_draws(&mut scene, &t.compiled);
    share_vertex_samplers(&mut scene);
    for pair in scene.programs.values_mut() {
        for p in [&mut pair.vertex, &mut pair.fragment].into_iter().flatten() {
            p.line = map(p.line);
        }
    }
    Ok(Parsed {
        scene,
        translated: Some(t),
    })
}

/// D3D9 programs read OpenGL's matrices from constants (`UniformSlot::state`): each draw
/// is preceded by setting them from the state of the moment, in both stages.
fn set_state_before_draws(scene: &mut Scene, c: &Compiled) {
    let mut sets = Vec::new();
    let kind = if c.dialect == Dialect::Arb {
        ParamKind::Local
    } else {
        ParamKind::Env
    };
    let viewport = c
        .bindings
        .uniforms
        .iter()
        .find(|u| u.state.as_deref() == Some("viewport"))
        .map(|u| u.slot);
    for u in c.bindings.uniforms.iter() {
        let Some(binding) = &u.state else { continue };
        for r in 0..u.slots {
            if let Some(state) = matrix_state(binding, r as u8) {
                for stage in [Stage::Vertex, Stage::Fragment] {
                    sets.push(Command::ParamState {
                        stage,
                        kind: ParamKind::Env,
                        index: u.slot + r,
                        state,
                    });
                }
            }
        }
    }
    if sets.is_empty() && viewport.is_none() {
        return;
    }
    // The bound target's size, followed through the commands.
    let mut sizes: std::collections::BTreeMap<String, (u32, u32)> =
        [("window".to_string(), scene.window)].into();
    let mut bound = "window".to_string();
    let mut out = Vec::with_capacity(scene.commands.len());
    for (line, cmd) in std::mem::take(&mut scene.commands) {
        match &cmd {
            Command::Window(_, w, h) => {
                sizes.insert("window".into(), (*w, *h));
            }
            Command::NewTarget(n, _, w, h) => {
                sizes.insert(n.clone(), (*w, *h));
            }
            Command::Bind(n) => bound = n.clone(),
            Command::Draw(_) => {
                out.extend(sets.iter().map(|s| (line, s.clone())));
                if let Some(slot) = viewport {
                    let (w, h) = sizes.get(&bound).copied().unwrap_or(scene.window);
                    for stage in [Stage::Vertex, Stage::Fragment] {
                        out.push((
                            line,
                            Command::Param {
                                stage,
                                kind,
                                index: slot,
                                value: [w as f32, h as f32, 0.0, 0.0],
                            },
                        ));
                    }
                }
            }
            _ => {}
        }
        out.push((line, cmd));
    }
    scene.commands = out;
}

/// A scene's texture unit N is GL's, seen by both stages, but a D3D9 vertex shader's `sN`
/// is unit 16 + N (`hoist_asm::ir::VERTEX_SAMPLER_BASE`, D3D's separate vertex samplers):
/// every texture the scene binds to a unit the vertex programs sample is bound to that
/// vertex sampler too, right after.
fn share_vertex_samplers(scene: &mut Scene) {
    let base = hoist_asm::ir::VERTEX_SAMPLER_BASE;
    let mut vertex_units = std::collections::BTreeSet::new();
    for pair in scene.programs.values() {
        if let Some(vp) = &pair.vertex
            && vp.program.dialect() == Dialect::D3d9
        {
            vertex_units.extend(
                vp.program
                    .insts
                    .iter()
                    .filter_map(|i| i.tex)
                    .map(|t| t.unit),
            );
        }
    }
    if vertex_units.is_empty() {
        return;
    }
    let mut out = Vec::with_capacity(scene.commands.len());
    for (line, cmd) in std::mem::take(&mut scene.commands) {
        let copy = match &cmd {
            Command::Texture(u, src, o) if vertex_units.contains(&u.saturating_add(base)) => {
                Some(Command::Texture(u + base, src.clone(), *o))
            }
            _ => None,
        };
        out.push((line, cmd));
        out.extend(copy.map(|c| (line, c)));
    }
    scene.commands = out;
}

/// Row `row` of an ARB matrix binding (`state.matrix.mvp`, `state.matrix.modelview.invtrans`).
fn matrix_state(binding: &str, row: u8) -> Option<StateRef> {
    let rest = binding.strip_prefix("state.matrix.")?;
    let (name, modifier) = match rest.split_once('.') {
        Some((n, m)) => (n, Some(m)),
        None => (rest, None),
    };
    let name = match name {
        "mvp" => MatrixName::Mvp,
        "modelview" => MatrixName::Modelview(0),
        "projection" => MatrixName::Projection,
        "texture[0]" => MatrixName::Texture(0),
        _ => return None,
    };
    let m = match modifier {
        None => MatrixMod::Normal,
        Some("inverse") => MatrixMod::Inverse,
        Some("transpose") => MatrixMod::Transpose,
        Some("invtrans") => MatrixMod::InvTrans,
        Some(_) => return None,
    };
    Some(StateRef::Matrix(name, m, row))
}

/// A raster error as a diagnostic at its input line.
fn raster(text: &str, e: RenderError, map: &dyn Fn(u32) -> u32) -> Diagnostic {
    match e {
        RenderError::Scene { line, message } => {
            let l = map(line);
            at_line(text, l, code!("F0206"), message)
        }
        other => Diagnostic::error(code!("F0206"), other.to_string(), Span::NONE),
    }
}

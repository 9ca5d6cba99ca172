//! Whole documents in and out as scene files: piglit's `.shader_test` (shader_runner format,
//! plus Hoist's extensions, `crates/raster/SCENES.md`), the format `hoist run` executes.
//!
//! [`import`] turns a file into a [`Doc`]: the optimized pair's programs into the editors
//! (`examples::split_scene`), the rest of the scene (textures, parameters, draws, probes)
//! into [`Doc::scene`], its window size into the Inputs panel. A stage the file leaves to
//! fixed function gets a pass-through program that computes what fixed function does, and
//! the import says so. A file with WGSL or GLSL vertex and fragment shaders becomes a
//! source-mode document (`doc::source::split`); other shader stages and scenes that do not
//! parse are refused with the reason.
//!
//! [`export`] writes the inverse: the scene with the programs put back and the Inputs
//! panel's overrides (size, textures, parameters) written as the commands the page renders
//! with, so `hoist run` sees what the page draws. What a scene file cannot hold (hand
//! edits, optimizer options, display settings) goes into `# hoist-export:` comments, which
//! [`import`] drops again; the ARB target is a `[hoist] target` key.

use crate::doc::examples::{self, hoist_key};
use crate::doc::{Doc, Inputs, ParamKey, Pattern, TexSpec};
use hoist_asm::ir::TexTarget;
use hoist_asm::{ArbTarget, Dialect};
use hoist_raster::TexFormat;
use hoist_raster::scene::{self, Command, Scene, TexSource};
use hoist_raster::texture::{self, TexShape};

/// Prefix of the comments an export adds (dropped again on import).
pub const NOTE: &str = "# hoist-export:";

/// Longest file imported (bytes): a scene and both programs at their limits.
pub const MAX_FILE: usize = crate::doc::MAX_SCENE + 2 * crate::doc::MAX_PROGRAM;

/// Fixed-function fragments without colour sum: the interpolated primary colour.
const FF_FRAGMENT: &str = "!!ARBfp1.0\n# Fixed function (the file has no fragment program).\nMOV result.color, fragment.color;\nEND\n";
/// Fixed-function fragments with colour sum: primary plus secondary, clamped.
const FF_FRAGMENT_SUM: &str = "!!ARBfp1.0\n# Fixed function with GL_COLOR_SUM (the file has no fragment program).\nADD_SAT result.color.xyz, fragment.color, fragment.color.secondary;\nMOV result.color.w, fragment.color.w;\nEND\n";
/// Fixed-function vertices (no lighting, identity texture matrices).
const FF_VERTEX: &str = "!!ARBvp1.0\n# Fixed function (the file has no vertex program).\nOPTION ARB_position_invariant;\nMOV result.color, vertex.color;\nMOV result.color.secondary, vertex.color.secondary;\nMOV result.texcoord[0], vertex.texcoord[0];\nMOV result.texcoord[1], vertex.texcoord[1];\nMOV result.texcoord[2], vertex.texcoord[2];\nMOV result.texcoord[3], vertex.texcoord[3];\nMOV result.texcoord[4], vertex.texcoord[4];\nMOV result.texcoord[5], vertex.texcoord[5];\nMOV result.texcoord[6], vertex.texcoord[6];\nMOV result.texcoord[7], vertex.texcoord[7];\nEND\n";

/// An imported document and what the import had to do to it, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub doc: Doc,
    pub notes: Vec<String>,
}

/// The name of a section header line (`[vertex program foo]` → `vertex program foo`).
fn section_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?;
    Some(rest.split(']').next().unwrap_or("").trim())
}

/// Whether `text` is a scene file rather than a program: a line opens one of the sections
/// of shader_runner (`[require]`, `[test]`, a program or a GLSL shader section).
pub fn looks_like_scene(text: &str) -> bool {
    text.lines().filter_map(section_name).any(|n| {
        let n = n.to_ascii_lowercase();
        n == "require"
            || n == "test"
            || n == "wgsl"
            || [
                "vertex program",
                "fragment program",
                "vertex shader",
                "fragment shader",
            ]
            .iter()
            .any(|p| n.starts_with(p))
    })
}

/// A shader section of a file other than the vertex and fragment shaders source mode
/// compiles (geometry, tessellation, compute, shader source files), if it has one.
fn other_shader(text: &str) -> Option<String> {
    text.lines().filter_map(section_name).find_map(|n| {
        let l = n.to_ascii_lowercase();
        let shader =
            l.ends_with("shader") || l.contains("shader source") || l.starts_with("compute shader");
        let ours = [
            "vertex shader",
            "fragment shader",
            "vertex shader passthrough",
        ];
        (shader && !ours.contains(&l.as_str())).then(|| n.to_string())
    })
}

/// `text` with `section` (header and body) inserted before its `[test]` section.
fn insert_section(text: &str, section: &str) -> String {
    let mut out = String::with_capacity(text.len() + section.len() + 2);
    let mut done = false;
    for line in text.split_inclusive('\n') {
        if !done && section_name(line).is_some_and(|n| n.eq_ignore_ascii_case("test")) {
            out.push_str(section);
            out.push('\n');
            done = true;
        }
        out.push_str(line);
    }
    if !done {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(section);
    }
    out
}

/// Lines an export added, dropped (they describe the page state the export came from).
fn without_notes(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| !l.starts_with(NOTE))
        .collect()
}

/// Adds pass-through programs for the stages of pair `name` that the scene leaves to fixed
/// function; `Err` when the other program is not ARB (D3D9 has no fixed-function stand-in).
fn fill_fixed_function(
    text: String,
    sc: &Scene,
    name: &str,
    notes: &mut Vec<String>,
) -> Result<String, String> {
    let pair = sc.programs.get(name).cloned().unwrap_or_default();
    let header = |stage: &str| match name {
        "" => format!("[{stage} program]\n"),
        n => format!("[{stage} program {n}]\n"),
    };
    let dialect = [&pair.vertex, &pair.fragment]
        .into_iter()
        .flatten()
        .map(|p| p.program.profile.dialect())
        .next();
    match (&pair.vertex, &pair.fragment) {
        (None, None) => Err(
            "the file has neither a vertex nor a fragment program to optimize \
                             (ARB `[vertex program]` / `[fragment program]` sections)"
                .into(),
        ),
        (Some(_), Some(_)) => Ok(text),
        _ if dialect == Some(Dialect::D3d9) => Err("the file leaves one stage to fixed \
            function next to a Direct3D 9 program; give it both programs to import it"
            .into()),
        (Some(_), None) => {
            let sum = sc
                .commands
                .iter()
                .any(|(_, c)| matches!(c, Command::Enable(cap, true) if cap == "GL_COLOR_SUM"));
            let body = if sum { FF_FRAGMENT_SUM } else { FF_FRAGMENT };
            notes.push(
                "the file has no fragment program (fixed function): a pass-through program \
                 that outputs the interpolated colour stands in for it"
                    .into(),
            );
            Ok(insert_section(&text, &(header("fragment") + body)))
        }
        (None, Some(_)) => {
            notes.push(
                "the file has no vertex program (fixed function): a pass-through program \
                 (fixed-function position, colours and texture coordinates) stands in for it"
                    .into(),
            );
            Ok(insert_section(&text, &(header("vertex") + FF_VERTEX)))
        }
    }
}

/// `text` without its `[hoist] target` lines (the document holds the target), and without
/// the `[hoist]` section when nothing else is in it.
fn drop_target_key(text: &str) -> String {
    let mut section = String::new();
    let mut out = String::with_capacity(text.len());
    // Where the `[hoist]` header being copied starts, while only blanks followed it.
    let mut empty_hoist: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        if let Some(n) = section_name(line) {
            if let Some(at) = empty_hoist.take() {
                out.truncate(at);
            }
            section = n.to_ascii_lowercase();
            if section == "hoist" {
                empty_hoist = Some(out.len());
            }
        } else if section == "hoist" && line.split('=').next().is_some_and(|k| k.trim() == "target")
        {
            continue;
        } else if !line.trim().is_empty() {
            empty_hoist = None;
        }
        out.push_str(line);
    }
    if let Some(at) = empty_hoist {
        out.truncate(at);
    }
    out
}

/// Imports a scene file (`name`: the file's name, when it came from one).
pub fn import(text: &str, name: Option<&str>) -> Result<Imported, String> {
    if text.len() > MAX_FILE {
        return Err(format!(
            "the file is {} KiB; the playground imports files of up to {} KiB",
            text.len().div_ceil(1024),
            MAX_FILE / 1024
        ));
    }
    if let Some(s) = other_shader(text) {
        return Err(format!(
            "this test has a [{s}] section: the page compiles vertex and fragment shaders \
             (GLSL or WGSL) and assembly programs, nothing else"
        ));
    }
    if let Some(doc) = import_source(text, name)? {
        return Ok(Imported {
            doc,
            notes: Vec::new(),
        });
    }
    let text = without_notes(text).replace("\r\n", "\n");
    let caps = crate::doc::scene_rules::caps();
    let sc = scene::parse(&text, &caps).map_err(|e| format!("the scene does not parse: {e}"))?;
    let pair = sc.optimize_target().to_string();
    let mut notes = Vec::new();
    let full = fill_fixed_function(text, &sc, &pair, &mut notes)?;
    let split = examples::split_scene(&full)
        .ok_or("the file's program sections could not be separated from the scene")?;
    let mut doc = Doc {
        vp: split.vp,
        fp: split.fp,
        scene: Some(split.rest),
        title: hoist_key(&full, "title")
            .or_else(|| name.map(String::from))
            .and_then(|t| crate::doc::clean_title(&t))
            .or_else(|| Some("Imported scene".into())),
        ..Doc::default()
    };
    (doc.inputs.width, doc.inputs.height) = examples::window_size(&sc);
    if let Some(t) = hoist_key(&full, "target") {
        doc.opts.target = ArbTarget::from_id(&t).ok_or_else(|| {
            format!("`target = {t}` in [hoist] is not an ARB target (r300, nv40, g80)")
        })?;
    }
    doc.scene = doc.scene.map(|s| drop_target_key(&s));
    let doc = doc.sanitize().map_err(|e| e.0)?;
    Ok(Imported { doc, notes })
}

/// A file with WGSL or GLSL sources (a piglit GLSL test, an exported source document) as a
/// source-mode document; `None` for an assembly scene.
fn import_source(text: &str, name: Option<&str>) -> Result<Option<Doc>, String> {
    let text = without_notes(text).replace("\r\n", "\n");
    let Some(src) = crate::doc::source::split(&text) else {
        return Ok(None);
    };
    let view = crate::doc::source::without_sources(&text);
    let sc = scene::parse(&view, &crate::doc::scene_rules::caps())
        .map_err(|e| format!("the scene does not parse: {e}"))?;
    let mut doc = Doc {
        source: Some(src),
        title: hoist_key(&text, "title")
            .or_else(|| name.map(String::from))
            .and_then(|t| crate::doc::clean_title(&t))
            .or_else(|| Some("Imported scene".into())),
        ..Doc::default()
    };
    (doc.inputs.width, doc.inputs.height) = examples::window_size(&sc);
    doc.sanitize().map(Some).map_err(|e| e.0)
}

/// A number as a scene file writes it (shortest text that reads back to the same `f32`).
fn num(v: f32) -> String {
    format!("{v}")
}

/// The `texture` command of a unit's settings (`image`: the user picture's file name).
pub fn texture_line(spec: &TexSpec, target: TexTarget, image: Option<&str>) -> String {
    let src = match (spec.pattern, image) {
        (Pattern::Image, Some(name)) => format!("image {} {name}", spec.unit),
        (p, _) => {
            let s = spec.size;
            let pat = match p {
                Pattern::Gradient => "gradient".to_string(),
                Pattern::Noise => format!("noise:{}", spec.seed),
                _ => format!("checker:{}", (s / 8).max(1)),
            };
            format!("pattern {} {pat}@{s}x{s}", spec.unit)
        }
    };
    let shape = TexShape::of_target(target);
    let asked = if spec.rgba8 {
        TexFormat::Rgba8
    } else {
        TexFormat::Rgba32F
    };
    let storage = texture::format_for_target(target, asked);
    let mut line = format!(
        "texture {src} filter {} wrap {} format {}",
        if spec.linear { "linear" } else { "nearest" },
        if spec.repeat && shape != TexShape::Rect {
            "repeat"
        } else {
            "clamp"
        },
        match storage.format {
            TexFormat::Depth => "depth",
            TexFormat::Rgba8 => "rgba8",
            TexFormat::Rgba32F => "rgba32f",
        },
    );
    if let Some(f) = storage.compare {
        line.push_str(&format!(" compare {}", f.name()));
    }
    if shape != TexShape::D2 {
        line.push_str(&format!(" shape {}", shape.name()));
    }
    line
}

/// The `parameter` command of a host-set value.
pub fn param_line(key: ParamKey, v: [f32; 4]) -> String {
    format!(
        "parameter {}_{} {} ({}, {}, {}, {})",
        if key.local { "local" } else { "env" },
        if key.vertex { "vp" } else { "fp" },
        key.index,
        num(v[0]),
        num(v[1]),
        num(v[2]),
        num(v[3])
    )
}

/// Line edits of a scene text: replacements by 1-based line, lines added after `[test]`.
#[derive(Default)]
struct Edits {
    replace: std::collections::BTreeMap<u32, String>,
    front: Vec<String>,
}

impl Edits {
    /// `cmd` in place of every command of `sc` that `old` matches, or first when none does.
    fn set(&mut self, sc: &Scene, old: impl Fn(&Command) -> bool, cmd: String) {
        let mut found = false;
        for (l, _) in sc.commands.iter().filter(|(_, c)| old(c)) {
            self.replace.insert(*l, cmd.clone());
            found = true;
        }
        if !found {
            self.front.push(cmd);
        }
    }
}

/// The Inputs panel's overrides as edits of the scene `sc` (parsed from the text being
/// edited), as `render::base_scene` applies them: size, textures of the sampled units (shaped for their targets),
/// parameters. `images`: the user pictures' file names by unit.
fn input_edits(
    sc: &Scene,
    inputs: &Inputs,
    targets: &[(u8, TexTarget)],
    images: &[(u8, String)],
) -> Edits {
    let mut e = Edits::default();
    let (w, h) = (inputs.width, inputs.height);
    for (line, c) in &sc.commands {
        if let Command::Window(f, cw, ch) = c
            && (*cw, *ch) != (w, h)
        {
            let f = match f {
                hoist_raster::TargetFormat::Rgba8 => "rgba8",
                hoist_raster::TargetFormat::Rgba32F => "rgba32f",
            };
            e.replace.insert(*line, format!("window {f} {w} {h}"));
        }
    }
    let mut units = targets.to_vec();
    units.dedup_by_key(|(u, _)| *u);
    for (u, target) in units {
        let explicit = inputs.textures.iter().any(|t| t.unit == u);
        let bound = |c: &Command| matches!(c, Command::Texture(cu, src, _) if *cu == u && !matches!(src, TexSource::Target(_)));
        if explicit || !sc.commands.iter().any(|(_, c)| bound(c)) {
            let image = images
                .iter()
                .find(|(iu, _)| *iu == u)
                .map(|(_, n)| n.as_str());
            e.set(sc, bound, texture_line(&inputs.texture(u), target, image));
        }
    }
    for p in &inputs.params {
        let sets = |c: &Command| crate::doc::scene_rules::param_key(c) == Some(p.key);
        e.set(sc, sets, param_line(p.key, p.value));
    }
    e
}

/// `text` with `edits` applied, `SIZE` set to `size` in `[require]` (which is added when
/// missing and the size is not piglit's default), and the ARB target in `[hoist]`.
fn apply_edits(text: &str, edits: &Edits, size: (u32, u32), target: ArbTarget) -> String {
    let size_line = format!("SIZE {} {}", size.0, size.1);
    let default_size = size == (scene::WINDOW_SIZE, scene::WINDOW_SIZE);
    let mut out = String::with_capacity(text.len() + 256);
    let (mut section, mut had_size, mut had_require) = (String::new(), false, false);
    let mut had_target = target == ArbTarget::default();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let n = i as u32 + 1;
        let t = line.trim();
        if let Some(name) = section_name(line) {
            if section == "require" && !had_size && !default_size {
                out.push_str(&size_line);
                out.push('\n');
                had_size = true;
            }
            section = name.to_ascii_lowercase();
            out.push_str(line);
            match section.as_str() {
                "test" => edits.front.iter().for_each(|f| {
                    out.push_str(f);
                    out.push('\n');
                }),
                "hoist" if !had_target => {
                    out.push_str(&format!("target = {}\n", target.id()));
                    had_target = true;
                }
                "require" => had_require = true,
                _ => {}
            }
            continue;
        }
        if let Some(r) = edits.replace.get(&n) {
            out.push_str(r);
            out.push('\n');
        } else if section == "require" && t.starts_with("SIZE") {
            out.push_str(&size_line);
            out.push('\n');
            had_size = true;
        } else if section == "hoist" && t.split('=').next().is_some_and(|k| k.trim() == "target") {
            continue;
        } else {
            out.push_str(line);
        }
    }
    let mut head = String::new();
    if !had_require && !default_size {
        head.push_str(&format!("[require]\n{size_line}\n\n"));
    }
    if !had_target {
        head.push_str(&format!("[hoist]\ntarget = {}\n\n", target.id()));
    }
    if head.is_empty() {
        return out;
    }
    insert_head(&out, &head)
}

/// `head` (whole sections) put before the first section of `text`.
fn insert_head(text: &str, head: &str) -> String {
    let at = text
        .split_inclusive('\n')
        .take_while(|l| section_name(l).is_none())
        .map(str::len)
        .sum::<usize>();
    format!("{}{head}{}", &text[..at], &text[at..])
}

/// A program's text as a section body: ends with a newline, and no line opens a section.
fn body(program: &str, notes: &mut Vec<String>) -> String {
    const INDENTED: &str =
        "a program line starting with `[` was indented so it does not open a section";
    let mut out = String::with_capacity(program.len() + 1);
    for line in program.lines() {
        if line.starts_with('[') {
            out.push(' ');
            if !notes.iter().any(|n| n == INDENTED) {
                notes.push(INDENTED.into());
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Puts the programs back into the bodies of pair `pair`'s sections of `rest`.
fn refill(rest: &str, pair: &str, vp: &str, fp: &str) -> String {
    let mut out = String::with_capacity(rest.len() + vp.len() + fp.len());
    for line in rest.split_inclusive('\n') {
        out.push_str(line);
        let Some(name) = section_name(line) else {
            continue;
        };
        let lower = name.to_ascii_lowercase();
        for (prefix, text) in [("vertex program", vp), ("fragment program", fp)] {
            if let Some(r) = lower.strip_prefix(prefix)
                && name[name.len() - r.len()..].trim() == pair
            {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(text);
                out.push('\n');
            }
        }
    }
    out
}

/// The scene of a bare pair, as `render::base_scene` draws it: the GPGPU quad on a float
/// window.
fn quad_scene(w: u32, h: u32) -> String {
    format!(
        "[require]\nSIZE {w} {h}\n\n[vertex program]\n[fragment program]\n\n[test]\n\
         window rgba32f {w} {h}\ndraw quad\n"
    )
}

/// The page state a scene file cannot hold, as `# hoist-export:` lines.
fn state_notes(doc: &Doc, images: &[(u8, String)], mut extra: Vec<String>) -> String {
    let mut notes =
        vec!["exported from the Hoist playground; `hoist run FILE` runs it.".to_string()];
    let opts = &doc.opts;
    if *opts != crate::doc::OptState::default() {
        let mut o = opts.clone();
        o.target = ArbTarget::default();
        if let (Ok(serde_json::Value::Object(set)), Ok(serde_json::Value::Object(def))) = (
            serde_json::to_value(&o),
            serde_json::to_value(crate::doc::OptState::default()),
        ) {
            let changed: Vec<String> = set
                .iter()
                .filter(|(k, v)| def.get(*k) != Some(*v))
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            if !changed.is_empty() {
                notes.push(format!(
                    "optimizer options set in the page (not part of the file): {}",
                    changed.join(", ")
                ));
            }
        }
    }
    for (u, n) in images {
        if doc.inputs.texture(*u).pattern == Pattern::Image {
            notes.push(format!(
                "texture unit {u} is your picture `{n}`: put that file next to this one"
            ));
        }
    }
    let d = crate::doc::Inputs::default();
    if doc.inputs.view != d.view || doc.inputs.tolerance != d.tolerance {
        notes.push(format!(
            "display {} {}…{}, verdict tolerance {} (page settings)",
            doc.inputs.view.channel.name(),
            num(doc.inputs.view.lo),
            num(doc.inputs.view.hi),
            num(doc.inputs.tolerance)
        ));
    }
    notes.append(&mut extra);
    let mut out: String = notes.iter().map(|n| format!("{NOTE} {n}\n")).collect();
    if let Some(h) = &doc.hand {
        out.push_str(&format!(
            "{NOTE} your hand-edited optimized pair (not run by this file):\n"
        ));
        for (stage, text) in [("vertex", &h.vp), ("fragment", &h.fp)] {
            out.push_str(&format!("{NOTE} [{stage} program (hand-edited)]\n"));
            for l in text.lines() {
                out.push_str(&format!("{NOTE}   {l}\n"));
            }
        }
    }
    out
}

/// A source document's file: its scene with the sources in their sections and the output
/// choices as `[hoist]` keys (`dialect`, `target`, `vertex`, `fragment`), which `hoist run`
/// compiles as the page does; what only the page holds (the Inputs panel's overrides) is
/// named in notes.
fn export_source(
    doc: &Doc,
    src: &crate::doc::source::SourceDoc,
    images: &[(u8, String)],
) -> String {
    let mut keys = Vec::new();
    if let Some(d) = src.dialect {
        keys.push(format!(
            "dialect = {}",
            if d == Dialect::Arb { "arb" } else { "d3d9" }
        ));
    }
    if let Some(t) = src.target {
        keys.push(format!("target = {}", t.id()));
    }
    for (k, v) in [("vertex", &src.vertex), ("fragment", &src.fragment)] {
        if let Some(v) = v {
            keys.push(format!("{k} = {v}"));
        }
    }
    let mut s = src.clone();
    if !keys.is_empty() {
        let scene = s.scene.take().unwrap_or_default();
        let kept: String = scene
            .split_inclusive('\n')
            .filter(|l| {
                let k = l.split('=').next().unwrap_or("").trim();
                !(l.contains('=') && ["dialect", "target", "vertex", "fragment"].contains(&k))
            })
            .collect();
        let block = keys.iter().map(|k| format!("{k}\n")).collect::<String>();
        s.scene = Some(match kept.find("[hoist]") {
            Some(at) => {
                let end = at + kept[at..].find('\n').map_or(kept.len() - at, |n| n + 1);
                format!("{}{block}{}", &kept[..end], &kept[end..])
            }
            None => format!("[hoist]\n{block}\n{kept}"),
        });
    }
    let i = &doc.inputs;
    let mut extra = Vec::new();
    if !(i.textures.is_empty()
        && i.params.is_empty()
        && i.attribs.is_empty()
        && i.matrices.is_empty())
    {
        extra.push(
            "the Inputs panel's textures, parameters, attributes and matrices are not in this \
             file (a source file sets its uniforms with `uniform` lines)"
                .to_string(),
        );
    }
    let text = crate::doc::source::compose(&s).text;
    let sized = crate::doc::scene_size::at_size(&text, i.width, i.height);
    extra.extend(sized.notes);
    state_notes(&doc.shareable(), images, extra) + &sized.text
}

/// A file name for the exported document: its example's, title's or `untitled`.
pub fn file_name(doc: &Doc) -> String {
    let base = doc
        .example
        .as_deref()
        .map(|e| e.rsplit('/').next().unwrap_or(e).to_string())
        .or_else(|| doc.title.clone())
        .unwrap_or_else(|| "untitled".into());
    let base = base.strip_suffix(".shader_test").unwrap_or(&base);
    let slug: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let slug = slug.trim_matches('-');
    format!(
        "{}.shader_test",
        if slug.is_empty() { "untitled" } else { slug }
    )
}

/// The document as a scene file; `images`: the file names of the user pictures by unit
/// (those units are written as `texture image`, to be put next to the file).
pub fn export(doc: &Doc, images: &[(u8, String)]) -> String {
    if let Some(src) = &doc.source {
        return export_source(doc, src, images);
    }
    let mut extra = Vec::new();
    let rest = match crate::doc::scene_size::of(doc) {
        Some(s) => {
            extra.extend(s.notes);
            s.text
        }
        None => quad_scene(doc.inputs.width, doc.inputs.height),
    };
    let pair = hoist_key(&rest, "optimize").unwrap_or_default();
    let targets = crate::worker::analysis::parse(doc).targets;
    let edits = match scene::parse(&rest, &crate::doc::scene_rules::caps()) {
        Ok(sc) => input_edits(&sc, &doc.inputs, &targets, images),
        Err(e) => {
            extra.push(format!(
                "the scene does not parse ({e}); the Inputs panel's settings are not in it"
            ));
            Edits::default()
        }
    };
    let size = (doc.inputs.width, doc.inputs.height);
    let edited = apply_edits(&rest, &edits, size, doc.opts.target);
    let vp = body(&doc.vp, &mut extra);
    let fp = body(&doc.fp, &mut extra);
    let full = refill(&edited, &pair, &vp, &fp);
    let notes = state_notes(doc, images, extra);
    notes + &full
}

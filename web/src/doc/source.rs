//! Source mode's part of the document: a WGSL module or a GLSL vertex + fragment pair, the
//! output the user chose (dialect, ARB target, WGSL entry points) and the scene around the
//! sources (`uniform` lines, textures, draws, with the source sections' bodies empty: the
//! editors hold them), as `hoist_front::scene` reads such scenes.
//!
//! A permalink keeps this, not the assembly: the pair the page optimizes is compiled from it
//! (the front worker, `crate::worker::front`) and is not written into links
//! ([`crate::doc::Doc::shareable`]). [`compose`] puts the editors' texts back into the scene
//! and remembers where each piece came from, so that a diagnostic in the composed text is
//! shown in the editor it belongs to ([`Composed::locate`]); [`split`] is its inverse, for
//! examples and imported files.

use crate::doc::limits::{MAX_PROGRAM, MAX_SCENE};
use hoist_asm::{ArbTarget, Dialect};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The shading language of a source document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// One WGSL module with vertex and fragment entry points.
    #[default]
    Wgsl,
    /// A GLSL vertex and fragment shader (Vulkan-style 440/450, or GLSL ES 1.00/3.00 and
    /// desktop 1.10–1.50, which `hoist_front::adapt` adapts).
    Glsl,
}

impl Lang {
    pub fn name(self) -> &'static str {
        match self {
            Lang::Wgsl => "WGSL",
            Lang::Glsl => "GLSL",
        }
    }
}

/// Which editor a piece of source text lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    Wgsl,
    GlslVertex,
    GlslFragment,
    /// The scene around the sources.
    Scene,
}

impl Place {
    /// The DOM id of the place's editor.
    pub fn editor_id(self) -> &'static str {
        match self {
            Place::Wgsl => "src-wgsl",
            Place::GlslVertex => "src-vs",
            Place::GlslFragment => "src-fs",
            Place::Scene => "scene",
        }
    }

    /// The scene section holding the place's text.
    fn section(self) -> &'static str {
        match self {
            Place::Wgsl => "wgsl",
            Place::GlslVertex => "vertex shader",
            Place::GlslFragment => "fragment shader",
            Place::Scene => "",
        }
    }
}

/// The source document.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceDoc {
    pub lang: Lang,
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub wgsl: String,
    /// GLSL shaders; an empty one is GL's fixed function (a pass-through stands in).
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub glsl_vs: String,
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub glsl_fs: String,
    /// WGSL entry points (`None`: the module's only one of the stage).
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub vertex: Option<String>,
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub fragment: Option<String>,
    /// Output dialect (`None`: ARB when the pair is straight-line code, else D3D9).
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub dialect: Option<Dialect>,
    /// ARB limits to fit (`None`: the smallest target the programs fit).
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub target: Option<ArbTarget>,
    /// The scene around the sources, their sections' bodies empty; `None`: one quad.
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub scene: Option<String>,
}

/// Longest entry point name kept.
const MAX_ENTRY: usize = 64;

fn entry_ok(n: &str) -> bool {
    !n.is_empty() && n.len() <= MAX_ENTRY && n.chars().all(|c| c.is_alphanumeric() || c == '_')
}

impl SourceDoc {
    /// The text of the editor at `place` (the scene's for [`Place::Scene`]).
    pub fn text(&self, place: Place) -> &str {
        match place {
            Place::Wgsl => &self.wgsl,
            Place::GlslVertex => &self.glsl_vs,
            Place::GlslFragment => &self.glsl_fs,
            Place::Scene => self.scene.as_deref().unwrap_or(""),
        }
    }

    pub fn text_mut(&mut self, place: Place) -> Option<&mut String> {
        match place {
            Place::Wgsl => Some(&mut self.wgsl),
            Place::GlslVertex => Some(&mut self.glsl_vs),
            Place::GlslFragment => Some(&mut self.glsl_fs),
            Place::Scene => None,
        }
    }

    /// The editors of the document's language.
    pub fn places(&self) -> &'static [Place] {
        match self.lang {
            Lang::Wgsl => &[Place::Wgsl],
            Lang::Glsl => &[Place::GlslVertex, Place::GlslFragment],
        }
    }

    /// Takes a `[hoist]` line choosing the output (`dialect`, `target`, `vertex`,
    /// `fragment`, as `hoist_front::scene` reads them); `false` for any other line, and for
    /// a value that is not one (left in the scene, whose compile then says why).
    fn choice(&mut self, line: &str) -> bool {
        let Some((k, v)) = line.split_once('=') else {
            return false;
        };
        let v = v.trim();
        match k.trim() {
            "dialect" if v == "arb" => self.dialect = Some(Dialect::Arb),
            "dialect" if v == "d3d9" => self.dialect = Some(Dialect::D3d9),
            "target" => match ArbTarget::from_id(v) {
                Some(t) => self.target = Some(t),
                None => return false,
            },
            "vertex" if entry_ok(v) => self.vertex = Some(v.to_string()),
            "fragment" if entry_ok(v) => self.fragment = Some(v.to_string()),
            _ => return false,
        }
        true
    }

    /// Clamps what can be clamped (unreadable entry point names are dropped) and refuses
    /// texts over the page's limits.
    pub fn sanitize(&mut self) -> Result<(), String> {
        for (name, t) in [
            ("WGSL module", &self.wgsl),
            ("GLSL vertex shader", &self.glsl_vs),
            ("GLSL fragment shader", &self.glsl_fs),
        ] {
            if t.len() > MAX_PROGRAM {
                return Err(format!(
                    "the {name} is {} KiB; the playground accepts up to {} KiB",
                    t.len() / 1024,
                    MAX_PROGRAM / 1024
                ));
            }
        }
        if self.scene.as_ref().is_some_and(|s| s.len() > MAX_SCENE) {
            return Err(format!("the scene is longer than {} KiB", MAX_SCENE / 1024));
        }
        for e in [&mut self.vertex, &mut self.fragment] {
            if e.as_deref().is_some_and(|n| !entry_ok(n)) {
                *e = None;
            }
        }
        Ok(())
    }
}

/// The name of a section header line (`[wgsl]` → `wgsl`), lower case.
fn header(line: &str) -> Option<String> {
    let t = line.trim();
    (t.starts_with('[') && t.ends_with(']') && t.len() >= 2)
        .then(|| t[1..t.len() - 1].trim().to_ascii_lowercase())
}

/// The sections an editor holds (a `[vertex shader passthrough]` stays in the scene).
const HELD: [&str; 3] = ["wgsl", "vertex shader", "fragment shader"];

/// Whether a scene has shading-language sources (a source document's scene, or a piglit
/// GLSL test).
pub fn has_sources(text: &str) -> bool {
    text.lines()
        .filter_map(header)
        .any(|h| HELD.contains(&h.as_str()))
}

/// Where a byte range of a composed text came from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Piece {
    /// Range in the composed text.
    at: Range<usize>,
    place: Place,
    /// Offset of the piece in its place's text.
    from: usize,
}

/// A scene with the editors' sources put back in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composed {
    pub text: String,
    pieces: Vec<Piece>,
}

impl Composed {
    /// The editor and the offset in its text of byte `at` of the composed text (`None` for
    /// the lines compose adds: section headers).
    pub fn locate(&self, at: usize) -> Option<(Place, usize)> {
        let p = self
            .pieces
            .iter()
            .find(|p| p.at.contains(&at))
            .or_else(|| {
                // The end of the text: the last piece, if it ends there.
                self.pieces
                    .last()
                    .filter(|p| at == self.text.len() && p.at.end == at)
            })?;
        Some((p.place, p.from + at - p.at.start))
    }

    /// Where the body of `place` starts in the composed text.
    pub fn start_of(&self, place: Place) -> Option<usize> {
        self.pieces
            .iter()
            .find(|p| p.place == place)
            .map(|p| p.at.start)
    }
}

#[derive(Default)]
struct Builder {
    text: String,
    pieces: Vec<Piece>,
}

impl Builder {
    fn push(&mut self, s: &str, place: Option<(Place, usize)>) {
        if s.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(s);
        if let Some((place, from)) = place {
            self.pieces.push(Piece {
                at: start..self.text.len(),
                place,
                from,
            });
        }
    }

    /// A section: its header and the editor's text, ending with a line break.
    fn section(&mut self, place: Place, body: &str) {
        self.push(&format!("[{}]\n", place.section()), None);
        self.push(body, Some((place, 0)));
        if !body.is_empty() && !body.ends_with('\n') {
            self.push("\n", None);
        }
    }
}

/// The scene `hoist_front::scene::translate` reads: the document's scene with the editors'
/// texts in their sections (where the scene has their headers, else first), the sections of
/// the other language dropped. An empty GLSL shader has no section (GL's fixed function).
pub fn compose(s: &SourceDoc) -> Composed {
    let mut b = Builder::default();
    let scene = s.scene.as_deref().unwrap_or("");
    let mut placed = false;
    let mut skipping = false;
    let mut at = 0usize;
    let put = |b: &mut Builder| {
        for &p in s.places() {
            let body = s.text(p);
            if !body.is_empty() || p == Place::Wgsl {
                b.section(p, body);
            }
        }
    };
    for line in scene.split_inclusive('\n') {
        let start = at;
        at += line.len();
        match header(line) {
            Some(h) if HELD.contains(&h.as_str()) => {
                // A held section's body is the editor's: what the scene has there is dropped.
                if !placed {
                    put(&mut b);
                    placed = true;
                }
                skipping = true;
                continue;
            }
            Some(_) => skipping = false,
            None if skipping => continue,
            None => {}
        }
        let line = if line.ends_with('\n') {
            line.to_string()
        } else {
            format!("{line}\n")
        };
        b.push(&line, Some((Place::Scene, start)));
    }
    if !placed {
        let mut first = Builder::default();
        put(&mut first);
        let shift = first.text.len();
        for p in &mut b.pieces {
            p.at = p.at.start + shift..p.at.end + shift;
        }
        first.text.push_str(&b.text);
        first.pieces.append(&mut b.pieces);
        b = first;
    }
    Composed {
        text: b.text,
        pieces: b.pieces,
    }
}

/// A scene with sources as a source document: each held section's body into its editor,
/// the rest (headers kept, bodies emptied) as the scene. `None` without source sections.
pub fn split(text: &str) -> Option<SourceDoc> {
    if !has_sources(text) {
        return None;
    }
    let mut s = SourceDoc::default();
    let mut rest = String::with_capacity(text.len());
    let mut cur: Option<Place> = None;
    let mut in_hoist = false;
    for line in text.split_inclusive('\n') {
        if let Some(h) = header(line) {
            in_hoist = h == "hoist";
            cur = match h.as_str() {
                "wgsl" => Some(Place::Wgsl),
                "vertex shader" => Some(Place::GlslVertex),
                "fragment shader" => Some(Place::GlslFragment),
                _ => None,
            };
            rest.push_str(line);
            continue;
        }
        if in_hoist && s.choice(line) {
            continue;
        }
        match cur.and_then(|p| s.text_mut(p)) {
            Some(t) => t.push_str(line),
            None => rest.push_str(line),
        }
    }
    let tidy = |t: &mut String| {
        let trimmed = t.trim_end().len();
        t.truncate(trimmed);
        if !t.is_empty() {
            t.push('\n');
        }
    };
    for t in [&mut s.wgsl, &mut s.glsl_vs, &mut s.glsl_fs] {
        tidy(t);
    }
    s.lang = if s.wgsl.is_empty() {
        Lang::Glsl
    } else {
        Lang::Wgsl
    };
    s.scene = Some(rest);
    Some(s)
}

/// The scene without its source sections and `uniform` lines: what `hoist_raster` reads of
/// it before compilation (its window size, for the Inputs panel).
pub fn without_sources(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        if let Some(h) = header(line) {
            skipping = HELD.contains(&h.as_str()) || h.starts_with("vertex shader");
            if skipping {
                continue;
            }
        }
        if !skipping && !line.trim_start().starts_with("uniform ") {
            out.push_str(line);
        }
    }
    out
}

/// A new source pair, to be replaced by the user's: the quad's position through, its
/// texture coordinate as a colour scaled by a uniform (which moves).
pub const BLANK_WGSL: &str =
    "// A new pair: type or paste a WGSL module with a @vertex and a @fragment entry point.
struct Params { scale: vec2<f32> }
@group(0) @binding(0) var<uniform> params: Params;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  return VOut(p, uv);
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let st = i.uv * params.scale + vec2<f32>(0.25, 0.5);
  return vec4<f32>(st, 0.5, 1.0);
}
";

/// The GLSL pair of a new document (WebGL 1 style, as people paste it).
pub const BLANK_GLSL: (&str, &str) = (
    "// A new pair: a GLSL vertex shader (GLSL ES 1.00/3.00, or 1.10-4.50).
attribute vec4 position;
attribute vec2 texcoord;
varying vec2 v_uv;
void main() {
  v_uv = texcoord;
  gl_Position = position;
}
",
    "precision mediump float;
uniform vec2 u_scale;
varying vec2 v_uv;
void main() {
  vec2 st = v_uv * u_scale + vec2(0.25, 0.5);
  gl_FragColor = vec4(st, 0.5, 1.0);
}
",
);

/// A new source document in `lang`.
pub fn blank(lang: Lang) -> SourceDoc {
    let mut s = SourceDoc {
        lang,
        ..SourceDoc::default()
    };
    let uniform = match lang {
        Lang::Wgsl => {
            s.wgsl = BLANK_WGSL.into();
            "params.scale"
        }
        Lang::Glsl => {
            (s.glsl_vs, s.glsl_fs) = (BLANK_GLSL.0.into(), BLANK_GLSL.1.into());
            "u_scale"
        }
    };
    s.scene = Some(format!(
        "[test]\nuniform vec2 {uniform} 0.5 0.5\ndraw rect tex -1 -1 2 2 0 0 1 1\n"
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "[hoist]\ntitle = t\n\n[wgsl]\nold body\n\n[test]\nuniform float k 2\ndraw rect -1 -1 2 2\n";

    #[test]
    fn split_and_compose_are_inverse_and_locate_every_piece() {
        let s = split(SCENE).unwrap();
        assert_eq!(s.lang, Lang::Wgsl);
        assert_eq!(s.wgsl, "old body\n");
        assert_eq!(
            s.scene.as_deref(),
            Some("[hoist]\ntitle = t\n\n[wgsl]\n[test]\nuniform float k 2\ndraw rect -1 -1 2 2\n")
        );
        let c = compose(&s);
        assert_eq!(
            c.text,
            "[hoist]\ntitle = t\n\n[wgsl]\nold body\n[test]\nuniform float k 2\ndraw rect -1 -1 2 2\n"
        );
        // Every byte of a body maps to its editor, every scene byte to the scene.
        let body = c.text.find("old body").unwrap();
        assert_eq!(c.locate(body + 4), Some((Place::Wgsl, 4)));
        assert_eq!(c.start_of(Place::Wgsl), Some(body));
        let k = c.text.find("uniform").unwrap();
        let in_scene = s.scene.as_deref().unwrap().find("uniform").unwrap();
        assert_eq!(c.locate(k + 8), Some((Place::Scene, in_scene + 8)));
        // The header compose writes belongs to no editor.
        assert_eq!(c.locate(c.text.find("[wgsl]").unwrap() + 1), None);
    }

    #[test]
    fn compose_switches_languages_and_leaves_empty_glsl_stages_to_fixed_function() {
        let mut s = split(SCENE).unwrap();
        s.lang = Lang::Glsl;
        s.glsl_fs = "void main() { gl_FragColor = vec4(1.0); }".into();
        let c = compose(&s);
        assert!(!c.text.contains("[wgsl]") && !c.text.contains("[vertex shader]"));
        assert!(
            c.text
                .contains("[fragment shader]\nvoid main() { gl_FragColor = vec4(1.0); }\n[test]"),
            "{}",
            c.text
        );
        // Without a scene the sections come alone.
        s.scene = None;
        s.glsl_vs = "void main() { gl_Position = gl_Vertex; }\n".into();
        let c = compose(&s);
        assert!(
            c.text.starts_with("[vertex shader]\nvoid main()"),
            "{}",
            c.text
        );
        let fs = c.text.find("gl_FragColor").unwrap();
        assert_eq!(
            c.locate(fs),
            Some((Place::GlslFragment, s.glsl_fs.find("gl_FragColor").unwrap()))
        );
        // A scene without source headers gets them first.
        s.scene = Some("[test]\ndraw rect -1 -1 2 2\n".into());
        let c = compose(&s);
        assert!(c.text.starts_with("[vertex shader]\n"), "{}", c.text);
        let d = c.text.find("draw").unwrap();
        assert_eq!(c.locate(d), Some((Place::Scene, 7)));
    }

    #[test]
    fn output_choices_in_hoist_become_the_documents() {
        let text = "[hoist]\ntitle = t\ndialect = d3d9\ntarget = g80\nvertex = main_vs\nfragment = oops!\n\n[wgsl]\nbody\n";
        let s = split(text).unwrap();
        assert_eq!(s.dialect, Some(Dialect::D3d9));
        assert_eq!(s.target, Some(ArbTarget::G80));
        assert_eq!(s.vertex.as_deref(), Some("main_vs"));
        assert_eq!(s.fragment, None);
        // What is not a choice stays in the scene, for the compile to refuse at its line.
        assert_eq!(
            s.scene.as_deref(),
            Some("[hoist]\ntitle = t\nfragment = oops!\n\n[wgsl]\n")
        );
    }

    #[test]
    fn sanitize_refuses_long_texts_and_drops_bad_entry_names() {
        let mut s = blank(Lang::Wgsl);
        s.vertex = Some("vs".into());
        s.fragment = Some("f s;<script>".into());
        s.sanitize().unwrap();
        assert_eq!(s.vertex.as_deref(), Some("vs"));
        assert_eq!(s.fragment, None);
        s.glsl_fs = "x".repeat(MAX_PROGRAM + 1);
        assert!(s.sanitize().unwrap_err().contains("GLSL fragment shader"));
    }
}

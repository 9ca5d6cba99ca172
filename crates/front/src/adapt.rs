//! GLSL as people paste it, adapted to the Vulkan-style GLSL 450 naga reads.
//!
//! A shader with `#version 440`/`450`/`460` (without `es`) passes unchanged. Others (GLSL
//! ES 1.00/3.00, desktop 1.10–1.50) are rewritten token by token: the version line becomes
//! 450; `attribute`/`varying` and unqualified `in`/`out` get `layout(location = n)`
//! (attributes by name: position 0, normal 2, colour 3, texture coordinates 8 + k, others
//! from 1 in order; interpolants by name, the same in both stages); precision
//! qualifiers go; loose uniforms get a block each, samplers a binding; `texture2D` and
//! friends become `texture`; `gl_FragColor` and the legacy built-ins (`gl_Vertex`,
//! `gl_Color`, `gl_MultiTexCoordN`, `gl_TexCoord[N]`, `gl_ModelViewProjectionMatrix`, ...)
//! become declared variables, the matrices uniforms named `hoist_gl_*`, which the lowering
//! binds to ARB `state.matrix.*`. Each output byte remembers the input byte it came from,
//! so naga's spans map back ([`Adapted::map`]).

use hoist_asm::{Diagnostic, Span};
use naga::ShaderStage;

/// An adapted shader and the map back.
#[derive(Clone, Debug)]
pub struct Adapted {
    pub text: String,
    /// (output offset, input offset, length in the output, copied verbatim).
    segs: Vec<(usize, usize, usize, bool)>,
    pub notes: Vec<String>,
    /// Attributes placed by name: (name, location).
    pub attributes: Vec<(String, u8)>,
}

impl Adapted {
    /// The input span of an output span.
    pub fn map(&self, s: Span) -> Span {
        if s.is_none() {
            return s;
        }
        let one = |o: usize| -> usize {
            match self.segs.iter().rev().find(|(out, _, _, _)| *out <= o) {
                Some(&(out, inp, len, verbatim)) => {
                    if verbatim {
                        inp + (o - out).min(len)
                    } else {
                        inp
                    }
                }
                None => 0,
            }
        };
        let (a, b) = (one(s.start as usize), one(s.end as usize));
        Span::new(a, b.max(a))
    }
}

/// Legacy state matrices: GLSL name → ARB state binding.
pub const STATE_MATRICES: [(&str, &str); 6] = [
    ("gl_ModelViewProjectionMatrix", "state.matrix.mvp"),
    ("gl_ModelViewMatrix", "state.matrix.modelview"),
    ("gl_ProjectionMatrix", "state.matrix.projection"),
    (
        "gl_ModelViewMatrixInverse",
        "state.matrix.modelview.inverse",
    ),
    ("gl_NormalMatrix", "state.matrix.modelview.invtrans"),
    ("gl_TextureMatrix0", "state.matrix.texture[0]"),
];

struct Out {
    text: String,
    segs: Vec<(usize, usize, usize, bool)>,
}

impl Out {
    fn copy(&mut self, src: &str, at: usize) {
        self.segs.push((self.text.len(), at, src.len(), true));
        self.text.push_str(src);
    }

    fn put(&mut self, s: &str, at: usize) {
        self.segs.push((self.text.len(), at, s.len(), false));
        self.text.push_str(s);
    }
}

/// Attribute location by name.
fn attribute_location(name: &str, used: &mut Vec<u8>) -> u8 {
    let n = name.to_ascii_lowercase();
    // piglit's `piglit_vertex` / `piglit_texcoord` are what its draws supply.
    let want = if n.contains("pos") || n.contains("vertex") {
        Some(0)
    } else if n.contains("normal") {
        Some(2)
    } else if n.contains("colo") {
        Some(3)
    } else if n.contains("tex") || n.contains("uv") {
        (8..16).find(|l| !used.contains(l))
    } else {
        None
    };
    let l = match want {
        Some(l) if !used.contains(&l) => l,
        _ => [1u8, 6, 7, 4, 5, 9, 10, 11, 12, 13, 14, 15]
            .into_iter()
            .find(|l| !used.contains(l))
            .unwrap_or(15),
    };
    used.push(l);
    l
}

/// The names of a shader's interpolants (`varying`, or `out` in a vertex shader / `in` in
/// a fragment shader of the newer dialects), for a numbering both stages share.
pub fn varying_names(src: &str, stage: ShaderStage) -> Vec<String> {
    let toks = tokens(src);
    let mut out = Vec::new();
    let kw = if stage == ShaderStage::Vertex {
        "out"
    } else {
        "in"
    };
    for (i, (t, _)) in toks.iter().enumerate() {
        if (*t == "varying" || *t == kw)
            && depth_at(&toks, i) == 0
            && let Some(name) = decl_name(&toks, i)
        {
            out.push(name);
        }
    }
    for b in ["gl_FrontColor", "gl_Color", "gl_TexCoord"] {
        if src.contains(b) && !(b == "gl_Color" && stage == ShaderStage::Vertex) {
            out.push(b.replace("gl_FrontColor", "gl_Color"));
        }
    }
    out
}

fn depth_at(toks: &[(&str, usize)], i: usize) -> i32 {
    let mut d = 0;
    for (t, _) in &toks[..i] {
        match *t {
            "{" => d += 1,
            "}" => d -= 1,
            _ => {}
        }
    }
    d
}

/// The declared name after a qualifier at `i`: the last identifier before `;` or `[`.
fn decl_name(toks: &[(&str, usize)], i: usize) -> Option<String> {
    let mut last = None;
    for (t, _) in &toks[i + 1..] {
        if *t == ";" || *t == "[" || *t == "=" {
            break;
        }
        if t.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            last = Some(t.to_string());
        }
    }
    last
}

/// Identifiers, numbers and single punctuation characters with their offsets; comments,
/// whitespace and preprocessor lines other than `#version` are not tokens.
fn tokens(src: &str) -> Vec<(&str, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(b.len(), |k| i + k);
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
        } else if c == b'#' {
            let end = src[i..].find('\n').map_or(b.len(), |k| i + k);
            out.push((&src[i..end], i));
            i = end;
        } else if c.is_ascii_alphanumeric()
            || c == b'_'
            || c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            out.push((&src[s..i], s));
        } else {
            let w = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push((&src[i..i + w], i));
            i += w;
        }
    }
    out
}

/// Adapts one shader; `varyings` is the shared numbering of interpolants (by name).
pub fn adapt_with(
    src: &str,
    stage: ShaderStage,
    varyings: &[String],
) -> Result<Adapted, Diagnostic> {
    let toks = tokens(src);
    let version = toks.iter().find(|(t, _)| t.starts_with("#version"));
    if let Some((v, _)) = version {
        let words: Vec<&str> = v.split_whitespace().collect();
        let num = words.get(1).copied().unwrap_or("");
        if matches!(num, "440" | "450" | "460") && words.get(2) != Some(&"es") {
            return Ok(Adapted {
                text: src.to_string(),
                segs: vec![(0, 0, src.len(), true)],
                notes: Vec::new(),
                attributes: Vec::new(),
            });
        }
    }
    let vertex = stage == ShaderStage::Vertex;
    let mut out = Out {
        text: String::new(),
        segs: Vec::new(),
    };
    let mut decls = String::new();
    let mut used_attr: Vec<u8> = Vec::new();
    let mut attributes = Vec::new();
    let mut notes = Vec::new();
    let mut next_binding = 0u32;
    let mut injected: Vec<&str> = Vec::new();
    let mut samplers: Vec<(String, String)> = Vec::new();
    let vary_loc = |name: &str| {
        varyings
            .iter()
            .position(|v| v == name)
            .map_or(0, |p| p as u8)
    };
    let mut prev = 0usize;
    let mut i = 0;
    if version.is_none() {
        out.put("#version 450\n", 0);
    }
    let mut header_done = false;
    while i < toks.len() {
        let (t, at) = toks[i];
        let depth = depth_at(&toks, i);
        out.copy(&src[prev..at], prev);
        prev = at + t.len();
        let mut repl: Option<String> = None;
        match t {
            _ if t.starts_with("#version") => {
                repl = Some("#version 450\n".to_string());
                header_done = true;
            }
            _ if t.starts_with('#') => {}
            "precision" => {
                // `precision mediump float;` disappears.
                let end = toks[i..]
                    .iter()
                    .position(|(x, _)| *x == ";")
                    .map_or(toks.len(), |k| i + k);
                prev = toks.get(end).map_or(src.len(), |(_, a)| a + 1);
                i = end + 1;
                out.put("", at);
                continue;
            }
            "highp" | "mediump" | "lowp" | "invariant" => repl = Some(String::new()),
            "attribute" if vertex => {
                let name = decl_name(&toks, i).unwrap_or_default();
                let l = attribute_location(&name, &mut used_attr);
                attributes.push((name, l));
                repl = Some(format!("layout(location = {l}) in"));
            }
            "in" if vertex && depth == 0 && is_decl(&toks, i) => {
                let name = decl_name(&toks, i).unwrap_or_default();
                let l = attribute_location(&name, &mut used_attr);
                attributes.push((name, l));
                repl = Some(format!("layout(location = {l}) in"));
            }
            "varying" | "out" | "in"
                if depth == 0 && is_decl(&toks, i) && (vertex || t != "out") =>
            {
                let name = decl_name(&toks, i).unwrap_or_default();
                let dir = if vertex { "out" } else { "in" };
                repl = Some(format!("layout(location = {}) {dir}", vary_loc(&name)));
            }
            "out" if !vertex && depth == 0 && is_decl(&toks, i) => {
                repl = Some("layout(location = 0) out".to_string());
            }
            "uniform" if depth == 0 && !has_layout_before(&toks, i) => {
                let is_sampler = toks
                    .get(i + 1)
                    .is_some_and(|(x, _)| x.starts_with("sampler"));
                if is_sampler {
                    // naga reads separate textures and samplers: split the combined one.
                    let kind = toks[i + 1].0;
                    let name = toks.get(i + 2).map_or("", |x| x.0);
                    let tex = kind.replace("sampler", "texture").replace("Shadow", "");
                    let smp = if kind.ends_with("Shadow") {
                        "samplerShadow"
                    } else {
                        "sampler"
                    };
                    out.put(
                        &format!(
                            "layout(binding = {next_binding}) uniform {tex} {name}; \
                             layout(binding = {}) uniform {smp} {name}_hoist_s",
                            next_binding + 1
                        ),
                        at,
                    );
                    samplers.push((name.to_string(), kind.to_string()));
                    next_binding += 2;
                    prev = toks.get(i + 2).map_or(src.len(), |(x, a)| a + x.len());
                    i += 3;
                    continue;
                } else if toks.get(i + 2).is_some_and(|(x, _)| *x == "{") {
                    repl = Some(format!("layout(std140, binding = {next_binding}) uniform"));
                    next_binding += 1;
                } else {
                    // A loose uniform: its own block, members visible by name.
                    let end = toks[i..]
                        .iter()
                        .position(|(x, _)| *x == ";")
                        .map_or(toks.len(), |k| i + k);
                    let end_at = toks.get(end).map_or(src.len(), |(_, a)| *a);
                    let body = src[toks.get(i + 1).map_or(end_at, |x| x.1)..end_at].to_string();
                    let body = strip_init(&body);
                    out.put(&format!("layout(std140, binding = {next_binding}) uniform hoist_u{next_binding} {{ {body}; }}"), at);
                    next_binding += 1;
                    prev = end_at;
                    i = end;
                    continue;
                }
            }
            "texture2D" | "texture3D" | "textureCube" | "texture1D" | "shadow2D" => {
                repl = Some("texture".into())
            }
            "texture2DProj" | "texture1DProj" | "texture3DProj" => {
                repl = Some("textureProj".into())
            }
            "texture2DLod" | "textureCubeLod" => repl = Some("textureLod".into()),
            "gl_FragColor" if !vertex => {
                repl = Some("hoist_FragColor".into());
                injected.push("layout(location = 0) out vec4 hoist_FragColor;");
            }
            "gl_Vertex" if vertex => {
                repl = Some("hoist_Vertex".into());
                injected.push("layout(location = 0) in vec4 hoist_Vertex;");
                if !used_attr.contains(&0) {
                    used_attr.push(0);
                }
            }
            "gl_Normal" if vertex => {
                repl = Some("hoist_Normal".into());
                injected.push("layout(location = 2) in vec3 hoist_Normal;");
            }
            "gl_Color" if vertex => {
                repl = Some("hoist_ColorIn".into());
                injected.push("layout(location = 3) in vec4 hoist_ColorIn;");
            }
            "gl_FrontColor" if vertex => {
                repl = Some("hoist_Color".into());
                injected.push("HOIST_COLOR");
            }
            "gl_Color" => {
                repl = Some("hoist_Color".into());
                injected.push("HOIST_COLOR");
            }
            "ftransform" if vertex => {
                // ftransform() → the MVP matrix times the vertex.
                let close = toks[i..]
                    .iter()
                    .position(|(x, _)| *x == ")")
                    .map_or(i, |k| i + k);
                prev = toks.get(close).map_or(src.len(), |(_, a)| a + 1);
                i = close + 1;
                out.put("(hoist_gl_ModelViewProjectionMatrix * hoist_Vertex)", at);
                injected.push("layout(location = 0) in vec4 hoist_Vertex;");
                injected.push("STATE:gl_ModelViewProjectionMatrix");
                continue;
            }
            "gl_TexCoord" => {
                // gl_TexCoord[N] with a literal N: its own interpolant.
                let n = toks.get(i + 2).and_then(|(x, _)| x.parse::<u8>().ok());
                let close = toks.get(i + 3).is_some_and(|(x, _)| *x == "]");
                match (n, close) {
                    (Some(n), true) => {
                        prev = toks[i + 3].1 + 1;
                        i += 4;
                        out.put(&format!("hoist_TexCoord{n}"), at);
                        injected.push(
                            ["TC0", "TC1", "TC2", "TC3", "TC4", "TC5", "TC6", "TC7"]
                                [usize::from(n.min(7))],
                        );
                        continue;
                    }
                    _ => {
                        return Err(Diagnostic::error(
                            "F0010",
                            "gl_TexCoord needs a constant index here",
                            Span::new(at, at + t.len()),
                        ));
                    }
                }
            }
            "gl_MultiTexCoord0" | "gl_MultiTexCoord1" | "gl_MultiTexCoord2"
            | "gl_MultiTexCoord3"
                if vertex =>
            {
                let n: u8 = t[t.len() - 1..].parse().unwrap_or(0);
                repl = Some(format!("hoist_MultiTexCoord{n}"));
                injected.push(["MTC0", "MTC1", "MTC2", "MTC3"][usize::from(n)]);
            }
            "gl_FragData" if !vertex => {
                // gl_FragData[N] with a literal N: colour output N.
                let n = toks.get(i + 2).and_then(|(x, _)| x.parse::<u8>().ok());
                let close = toks.get(i + 3).is_some_and(|(x, _)| *x == "]");
                match (n, close) {
                    (Some(n @ 0..=3), true) => {
                        prev = toks[i + 3].1 + 1;
                        i += 4;
                        out.put(&format!("hoist_FragData{n}"), at);
                        injected.push(["FD0", "FD1", "FD2", "FD3"][usize::from(n)]);
                        continue;
                    }
                    _ => {
                        return Err(Diagnostic::error(
                            "F0010",
                            "gl_FragData needs a constant index from 0 to 3 here",
                            Span::new(at, at + t.len()),
                        ));
                    }
                }
            }
            _ if samplers.iter().any(|(n, _)| n == t) => {
                let kind = &samplers.iter().find(|(n, _)| n == t).expect("found").1;
                repl = Some(format!("{kind}({t}, {t}_hoist_s)"));
            }
            _ if STATE_MATRICES.iter().any(|(n, _)| *n == t) => {
                repl = Some(format!("hoist_{t}"));
                injected.push(
                    STATE_MATRICES
                        .iter()
                        .find(|(n, _)| *n == t)
                        .map_or("", |x| x.0),
                );
            }
            _ => {}
        }
        match repl {
            Some(r) => out.put(&r, at),
            None => out.copy(t, at),
        }
        let _ = header_done;
        i += 1;
    }
    out.copy(&src[prev..], prev);
    // Declarations of the built-ins used, after the version line.
    injected.sort();
    injected.dedup();
    for d in injected {
        let line = match d {
            "HOIST_COLOR" => format!(
                "layout(location = {}) {} vec4 hoist_Color;",
                vary_loc("gl_Color"),
                if vertex { "out" } else { "in" }
            ),
            x if x.starts_with("TC") => {
                let n = &x[2..];
                format!(
                    "layout(location = {}) {} vec4 hoist_TexCoord{n};",
                    vary_loc("gl_TexCoord") + n.parse::<u8>().unwrap_or(0),
                    if vertex { "out" } else { "in" }
                )
            }
            x if x.starts_with("FD") => {
                let n = &x[2..];
                format!("layout(location = {n}) out vec4 hoist_FragData{n};")
            }
            x if x.starts_with("MTC") => {
                let n: u8 = x[3..].parse().unwrap_or(0);
                format!(
                    "layout(location = {}) in vec4 hoist_MultiTexCoord{n};",
                    8 + n
                )
            }
            x if x.starts_with("STATE:") || x.starts_with("gl_") => {
                let name = x.trim_start_matches("STATE:");
                let ty = if name == "gl_NormalMatrix" {
                    "mat3"
                } else {
                    "mat4"
                };
                let b = next_binding;
                next_binding += 1;
                format!(
                    "layout(std140, binding = {b}) uniform hoist_state{b} {{ {ty} hoist_{name}; }};"
                )
            }
            other => other.to_string(),
        };
        decls.push_str(&line);
        decls.push(' ');
    }
    if !decls.is_empty() {
        notes.push(
            "legacy built-ins were declared as variables (see the binding table)".to_string(),
        );
    }
    // Insert after the version line (same line, so later lines keep their numbers).
    let text = out.text;
    let pos = text
        .find("#version 450\n")
        .map_or(0, |p| p + "#version 450\n".len());
    let mut segs = out.segs;
    if !decls.is_empty() {
        for s in segs.iter_mut().filter(|s| s.0 >= pos) {
            s.0 += decls.len();
        }
        segs.push((pos, 0, decls.len(), false));
        segs.sort_by_key(|s| s.0);
    }
    let text = format!("{}{}{}", &text[..pos], decls, &text[pos..]);
    Ok(Adapted {
        text,
        segs,
        notes,
        attributes,
    })
}

/// [`adapt_with`] for one shader alone (interpolants numbered in its own order).
pub fn adapt(src: &str, stage: ShaderStage) -> Result<Adapted, Diagnostic> {
    adapt_with(src, stage, &varying_names(src, stage))
}

fn is_decl(toks: &[(&str, usize)], i: usize) -> bool {
    // A storage qualifier at file scope followed by a type and a name.
    toks.get(i + 1)
        .is_some_and(|(t, _)| t.chars().next().is_some_and(|c| c.is_alphabetic()))
}

fn has_layout_before(toks: &[(&str, usize)], i: usize) -> bool {
    i > 0
        && toks[..i]
            .iter()
            .rev()
            .take_while(|(t, _)| *t != ";" && *t != "}")
            .any(|(t, _)| *t == "layout")
}

fn strip_init(body: &str) -> String {
    match body.find('=') {
        Some(p) => body[..p].trim().to_string(),
        None => body.trim().to_string(),
    }
}

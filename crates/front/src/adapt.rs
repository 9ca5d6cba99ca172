//! GLSL as people paste it, adapted to the Vulkan-style GLSL 450 naga reads.
//!
//! A shader with `#version 440`/`450`/`460` (without `es`) passes unchanged. Others (GLSL
//! ES 1.00/3.00, desktop 1.10–1.50) are rewritten token by token: the version line becomes
//! 450; `attribute`/`varying` and unqualified `in`/`out` get `layout(location = n)`
//! (attributes by name: position 0, normal 2, colour 3, texture coordinates 8 + k, others
//! from 1 in order; interpolants by name, the same in both stages); precision
//! qualifiers go; loose uniforms get a block each (an initializer becomes a constant
//! `hoist_init_NAME` the lowering reads as the uniform's initial value), samplers a
//! binding; `texture2D` and friends become `texture`; `gl_FragColor`, `gl_FragData[n]` and
//! the legacy built-ins (`gl_Vertex`, `gl_Color`, `gl_MultiTexCoordN`, `gl_TexCoord`,
//! `gl_ModelViewProjectionMatrix`, ...) become declared variables, the matrices uniforms
//! named `hoist_gl_*`, which the lowering binds to ARB `state.matrix.*`.
//!
//! Two rewrites work around naga's GLSL front end: `do { B } while (C);` becomes
//! `for (bool f = true; f || (C); f = false) { B }` (naga checks a do-while's condition at
//! the end of the body, where `continue` skips it), and global initializers run at the
//! start of a wrapper `main` (naga drops the store of one that calls a function). The
//! wrapper also copies `gl_TexCoord[]` to and from one interpolant per element when the
//! array is indexed by a value that is not a literal. Each output byte remembers the input
//! byte it came from, so naga's spans map back ([`Adapted::map`]).

use hoist_asm::diag::code;
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
            let k = self.segs.partition_point(|seg| seg.0 <= o);
            match k.checked_sub(1).map(|k| self.segs[k]) {
                Some((out, inp, len, verbatim)) => {
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

/// The prefix of the constants holding uniforms' initial values.
pub const INIT_PREFIX: &str = "hoist_init_";
/// The prefix of the float uniforms standing in for boolean ones.
pub const BOOL_PREFIX: &str = "hoist_ub_";

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

type Tok<'a> = (&'a str, usize);

/// Brace depth before each token, plus one when inside parentheses (so that a function's
/// `in`/`out` parameters are not file-scope declarations), in one pass.
fn depths(toks: &[Tok<'_>]) -> Vec<i32> {
    let (mut d, mut p) = (0, 0);
    toks.iter()
        .map(|(t, _)| {
            let here = d + i32::from(p > 0);
            match *t {
                "{" => d += 1,
                "}" => d -= 1,
                "(" => p += 1,
                ")" => p -= 1,
                _ => {}
            }
            here
        })
        .collect()
}

/// The names of a shader's interpolants (`varying`, or `out` in a vertex shader / `in` in
/// a fragment shader of the newer dialects), for a numbering both stages share.
pub fn varying_names(src: &str, stage: ShaderStage) -> Vec<String> {
    let toks = tokens(src);
    let depth = depths(&toks);
    let mut out = Vec::new();
    let kw = if stage == ShaderStage::Vertex {
        "out"
    } else {
        "in"
    };
    for (i, (t, _)) in toks.iter().enumerate() {
        if (*t == "varying" || *t == kw)
            && depth[i] == 0
            && let Some(name) = decl_name(&toks, i)
            && name != "gl_TexCoord"
        {
            // An array takes one location per element: the name stands for each.
            for _ in 0..decl_size(&toks, i) {
                out.push(name.clone());
            }
        }
    }
    for b in ["gl_FrontColor", "gl_Color", "gl_TexCoord"] {
        if src.contains(b) && !(b == "gl_Color" && stage == ShaderStage::Vertex) {
            out.push(b.replace("gl_FrontColor", "gl_Color"));
        }
    }
    out
}

/// The declared name after a qualifier at `i`: the last identifier before `;` or `[`.
fn decl_name(toks: &[Tok<'_>], i: usize) -> Option<String> {
    let mut last = None;
    for (t, _) in &toks[i + 1..] {
        if *t == ";" || *t == "[" || *t == "=" {
            break;
        }
        if is_ident(t) {
            last = Some(t.to_string());
        }
    }
    last
}

/// The number of elements of the declaration after a qualifier at `i` (`x[4]` → 4).
fn decl_size(toks: &[Tok<'_>], i: usize) -> usize {
    for (k, (t, _)) in toks.iter().enumerate().skip(i + 1) {
        match *t {
            ";" | "=" => break,
            "[" => {
                return toks
                    .get(k + 1)
                    .and_then(|(n, _)| n.parse::<usize>().ok())
                    .unwrap_or(1)
                    .clamp(1, 16);
            }
            _ => {}
        }
    }
    1
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, numbers and single punctuation characters with their offsets; comments,
/// whitespace and preprocessor lines other than `#version` are not tokens.
fn tokens(src: &str) -> Vec<Tok<'_>> {
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
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((&src[s..i], s));
        } else if c.is_ascii_digit() || c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            // A number: digits, `.`, suffixes, hex digits and an exponent's sign.
            let s = i;
            let hex = src[i..].starts_with("0x") || src[i..].starts_with("0X");
            while i < b.len() {
                let d = b[i];
                let sign = (d == b'+' || d == b'-') && !hex && matches!(b[i - 1], b'e' | b'E');
                if d.is_ascii_alphanumeric() || d == b'.' || sign {
                    i += 1;
                } else {
                    break;
                }
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

/// The index of the token closing the bracket opened at `open`.
fn matching(toks: &[Tok<'_>], open: usize) -> Option<usize> {
    let (o, c) = match toks.get(open)?.0 {
        "(" => ("(", ")"),
        "[" => ("[", "]"),
        "{" => ("{", "}"),
        _ => return None,
    };
    let mut d = 0;
    for (k, (t, _)) in toks.iter().enumerate().skip(open) {
        if *t == o {
            d += 1;
        } else if *t == c {
            d -= 1;
            if d == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Where `gl_TexCoord` interpolants go: one per literal index, or (when an index is not
/// a literal) an array copied to and from `count` interpolants by the wrapper `main`.
#[derive(Default)]
struct TexCoords {
    array: bool,
    count: u8,
}

fn texcoord_mode(toks: &[Tok<'_>]) -> TexCoords {
    let mut tc = TexCoords::default();
    let mut declared = None;
    for (i, (t, _)) in toks.iter().enumerate() {
        if *t != "gl_TexCoord" || toks.get(i + 1).map(|x| x.0) != Some("[") {
            continue;
        }
        let lit = toks.get(i + 2).and_then(|(x, _)| x.parse::<u8>().ok());
        let closed = toks.get(i + 3).is_some_and(|(x, _)| *x == "]");
        let decl = i > 0 && matches!(toks[i - 1].0, "vec4");
        match (lit, closed) {
            (Some(n), true) if decl => declared = Some(n),
            (Some(n), true) => tc.count = tc.count.max(n.saturating_add(1)),
            _ => tc.array = true,
        }
    }
    if let Some(n) = declared {
        tc.count = tc.count.max(n);
    }
    tc
}

/// A global variable's initializer at statement `i` (depth 0): the tokens of `= EXPR`
/// (start, end exclusive, before the `;`) and the variable's name. Qualified globals,
/// several declarators and functions are left alone.
fn global_init(toks: &[Tok<'_>], i: usize) -> Option<(usize, usize, String)> {
    const QUALIFIERS: &[&str] = &[
        "uniform",
        "in",
        "out",
        "attribute",
        "varying",
        "const",
        "layout",
        "struct",
        "precision",
        "buffer",
        "shared",
        "flat",
        "smooth",
        "noperspective",
        "centroid",
        "invariant",
        "return",
        "void",
    ];
    let mut paren = 0;
    let mut eq = None;
    for (k, (t, _)) in toks.iter().enumerate().skip(i) {
        match *t {
            "(" if eq.is_none() => return None,
            "(" | "[" => paren += 1,
            ")" | "]" => paren -= 1,
            "{" if eq.is_none() => return None,
            "," if paren == 0 => return None,
            "=" if paren == 0 && eq.is_none() => eq = Some(k),
            ";" if paren == 0 => {
                let e = eq?;
                if toks[i..e].iter().any(|(x, _)| QUALIFIERS.contains(x)) {
                    return None;
                }
                let name = toks[i..e].iter().rev().find(|(x, _)| is_ident(x))?.0;
                if toks[i..e].iter().filter(|(x, _)| is_ident(x)).count() < 2 {
                    return None;
                }
                return Some((e, k, name.to_string()));
            }
            _ => {}
        }
    }
    None
}

/// The adaptation of one shader.
struct Adapter<'a> {
    src: &'a str,
    toks: Vec<Tok<'a>>,
    depth: Vec<i32>,
    vertex: bool,
    varyings: &'a [String],
    out: Out,
    /// The next input byte not yet written.
    prev: usize,
    /// Declarations to add, by key.
    injected: Vec<String>,
    used_attr: Vec<u8>,
    attributes: Vec<(String, u8)>,
    notes: Vec<String>,
    next_binding: u32,
    samplers: Vec<(String, String)>,
    /// Statements the wrapper `main` runs before and after the shader's own.
    prologue: Vec<String>,
    epilogue: Vec<String>,
    /// Declarations added at the end (uniforms' initial values).
    trailer: Vec<String>,
    /// Token ranges written as nothing (start, end exclusive).
    skips: Vec<(usize, usize)>,
    texcoords: TexCoords,
    dowhiles: usize,
    /// `main` was renamed `hoist_main` (the wrapper calls it).
    renamed: bool,
    /// A `#version 440`–`460` shader: only naga's workarounds apply.
    modern: bool,
}

impl<'a> Adapter<'a> {
    fn vary_loc(&self, name: &str) -> u8 {
        self.varyings
            .iter()
            .position(|v| v == name)
            .map_or(0, |p| p as u8)
    }

    fn dir(&self) -> &'static str {
        if self.vertex { "out" } else { "in" }
    }

    fn is_decl(&self, i: usize) -> bool {
        // A storage qualifier at file scope followed by a type and a name.
        self.depth[i] == 0 && self.toks.get(i + 1).is_some_and(|(t, _)| is_ident(t))
    }

    fn has_layout_before(&self, i: usize) -> bool {
        i > 0
            && self.toks[..i]
                .iter()
                .rev()
                .take_while(|(t, _)| *t != ";" && *t != "}")
                .any(|(t, _)| *t == "layout")
    }

    /// Skips tokens `i..end` (writing nothing) and continues after them.
    fn skip(&mut self, i: usize, end: usize) -> usize {
        let at = self.toks[i].1;
        self.out.put("", at);
        self.prev = match self.toks.get(end) {
            Some(_) => self.toks[end - 1].1 + self.toks[end - 1].0.len(),
            None => self.src.len(),
        };
        end
    }

    fn run(&mut self, version: bool) -> Result<(), Diagnostic> {
        if !version && !self.modern {
            self.out.put("#version 450\n", 0);
        }
        let mut i = 0;
        while i < self.toks.len() {
            let (t, at) = self.toks[i];
            self.out.copy(&self.src[self.prev..at], self.prev);
            self.prev = at + t.len();
            if let Some(&(_, end)) = self.skips.iter().find(|s| s.0 == i) {
                i = self.skip(i, end);
                continue;
            }
            if self.depth[i] == 0
                && (i == 0
                    || matches!(self.toks[i - 1].0, ";" | "}")
                    || self.toks[i - 1].0.starts_with('#'))
                && let Some((e, end, name)) = global_init(&self.toks, i)
            {
                let expr = &self.src[self.toks[e + 1].1..self.toks[end].1];
                self.prologue.push(format!("{name} = {expr};"));
                self.skips.push((e, end));
            }
            i = self.token(i)?;
        }
        self.out.copy(&self.src[self.prev..], self.prev);
        Ok(())
    }

    /// One token (or a construct starting at it); returns the next token's index.
    fn token(&mut self, i: usize) -> Result<usize, Diagnostic> {
        let (t, at) = self.toks[i];
        let depth = self.depth[i];
        if self.modern {
            match t {
                "do" => return self.do_while(i),
                "main" if depth == 0 && self.wrapped() => {
                    self.renamed = true;
                    self.out.put("hoist_main", at);
                }
                _ => self.out.copy(t, at),
            }
            return Ok(i + 1);
        }
        let repl: Option<String> = match t {
            _ if t.starts_with("#version") => Some("#version 450\n".into()),
            _ if t.starts_with("#extension") => Some(String::new()),
            _ if t.starts_with('#') => None,
            "precision" => {
                // `precision mediump float;` disappears.
                let end = self.toks[i..]
                    .iter()
                    .position(|(x, _)| *x == ";")
                    .map_or(self.toks.len(), |k| i + k + 1);
                return Ok(self.skip(i, end));
            }
            "highp" | "mediump" | "lowp" | "invariant" => Some(String::new()),
            "do" => return self.do_while(i),
            "main" if depth == 0 && self.wrapped() => {
                self.renamed = true;
                Some("hoist_main".into())
            }
            "attribute" if self.vertex => Some(self.attribute(i)),
            "in" if self.vertex && self.is_decl(i) && !self.has_layout_before(i) => {
                Some(self.attribute(i))
            }
            "varying" | "out" | "in"
                if self.is_decl(i) && (self.vertex || t != "out") && !self.has_layout_before(i) =>
            {
                if decl_name(&self.toks, i).as_deref() == Some("gl_TexCoord") {
                    // A redeclaration of the built-in array: ours replaces it.
                    let end = self.toks[i..]
                        .iter()
                        .position(|(x, _)| *x == ";")
                        .map_or(self.toks.len(), |k| i + k + 1);
                    return Ok(self.skip(i, end));
                }
                let name = decl_name(&self.toks, i).unwrap_or_default();
                Some(format!(
                    "layout(location = {}) {}",
                    self.vary_loc(&name),
                    self.dir()
                ))
            }
            "out" if !self.vertex && self.is_decl(i) && !self.has_layout_before(i) => {
                Some("layout(location = 0) out".into())
            }
            "uniform" if depth == 0 && !self.has_layout_before(i) => return self.uniform(i),
            "texture2D" | "texture3D" | "textureCube" | "texture1D" | "shadow2D" | "shadow1D" => {
                Some("texture".into())
            }
            "texture2DProj" | "texture1DProj" | "texture3DProj" | "shadow2DProj" => {
                Some("textureProj".into())
            }
            "texture2DLod" | "textureCubeLod" | "texture3DLod" | "texture1DLod" => {
                Some("textureLod".into())
            }
            "texture2DProjLod" => Some("textureProjLod".into()),
            "ftransform" if self.vertex => return Ok(self.ftransform(i)),
            "gl_TexCoord" => return self.texcoord(i),
            "gl_FragData" if !self.vertex => return self.frag_data(i),
            _ => self.builtin(t),
        };
        match repl {
            Some(r) => self.out.put(&r, at),
            None => self.out.copy(t, at),
        }
        Ok(i + 1)
    }

    fn wrapped(&self) -> bool {
        !self.prologue.is_empty() || !self.epilogue.is_empty() || self.texcoords.array
    }

    /// The legacy variables renamed to declared ones, and the samplers and matrices.
    fn builtin(&mut self, t: &str) -> Option<String> {
        let (name, decl): (String, String) = match t {
            "gl_FragColor" if !self.vertex => (
                "hoist_FragColor".into(),
                "layout(location = 0) out vec4 hoist_FragColor;".into(),
            ),
            "gl_Vertex" if self.vertex => {
                if !self.used_attr.contains(&0) {
                    self.used_attr.push(0);
                }
                (
                    "hoist_Vertex".into(),
                    "layout(location = 0) in vec4 hoist_Vertex;".into(),
                )
            }
            "gl_Normal" if self.vertex => (
                "hoist_Normal".into(),
                "layout(location = 2) in vec3 hoist_Normal;".into(),
            ),
            "gl_Color" if self.vertex => (
                "hoist_ColorIn".into(),
                "layout(location = 3) in vec4 hoist_ColorIn;".into(),
            ),
            "gl_FrontColor" | "gl_Color" => ("hoist_Color".into(), "HOIST_COLOR".into()),
            "gl_MultiTexCoord0" | "gl_MultiTexCoord1" | "gl_MultiTexCoord2"
            | "gl_MultiTexCoord3" | "gl_MultiTexCoord4" | "gl_MultiTexCoord5"
            | "gl_MultiTexCoord6" | "gl_MultiTexCoord7"
                if self.vertex =>
            {
                let n: u8 = t[t.len() - 1..].parse().unwrap_or(0);
                (
                    format!("hoist_MultiTexCoord{n}"),
                    format!(
                        "layout(location = {}) in vec4 hoist_MultiTexCoord{n};",
                        8 + n
                    ),
                )
            }
            _ if self.samplers.iter().any(|(n, _)| n == t) => {
                let kind = &self.samplers.iter().find(|(n, _)| n == t)?.1;
                return Some(format!("{kind}({t}, {t}_hoist_s)"));
            }
            _ if STATE_MATRICES.iter().any(|(n, _)| *n == t) => {
                (format!("hoist_{t}"), format!("STATE:{t}"))
            }
            _ => return None,
        };
        self.inject(decl);
        Some(name)
    }

    fn inject(&mut self, d: String) {
        if !self.injected.contains(&d) {
            self.injected.push(d);
        }
    }

    fn attribute(&mut self, i: usize) -> String {
        let name = decl_name(&self.toks, i).unwrap_or_default();
        let l = attribute_location(&name, &mut self.used_attr);
        self.attributes.push((name, l));
        format!("layout(location = {l}) in")
    }

    /// `do B while (C);` → `for (bool f = true; f || (C); f = false) B`.
    fn do_while(&mut self, i: usize) -> Result<usize, Diagnostic> {
        let at = self.toks[i].1;
        let body_end = if self.toks.get(i + 1).map(|x| x.0) == Some("{") {
            matching(&self.toks, i + 1)
        } else {
            self.toks[i..]
                .iter()
                .position(|(x, _)| *x == ";")
                .map(|k| i + k)
        };
        let bad = || {
            Diagnostic::error(
                code!("F0010"),
                "a `do` without its `while (condition);`",
                Span::new(at, at + 2),
            )
        };
        let b = body_end.ok_or_else(bad)?;
        if self.toks.get(b + 1).map(|x| x.0) != Some("while")
            || self.toks.get(b + 2).map(|x| x.0) != Some("(")
        {
            return Err(bad());
        }
        let c = matching(&self.toks, b + 2).ok_or_else(bad)?;
        if self.toks.get(c + 1).map(|x| x.0) != Some(";") {
            return Err(bad());
        }
        let k = self.dowhiles;
        self.dowhiles += 1;
        let (from, to) = (self.toks[b + 2].1 + 1, self.toks[c].1);
        self.out.put(
            &format!("for (bool hoist_dw{k} = true; hoist_dw{k} || ("),
            at,
        );
        self.out.copy(&self.src[from..to], from);
        self.out.put(&format!("); hoist_dw{k} = false)"), at);
        self.skips.push((b + 1, c + 2));
        Ok(i + 1)
    }

    fn ftransform(&mut self, i: usize) -> usize {
        // ftransform() → the MVP matrix times the vertex.
        let at = self.toks[i].1;
        let close = self.toks[i..]
            .iter()
            .position(|(x, _)| *x == ")")
            .map_or(i, |k| i + k);
        self.prev = self.toks.get(close).map_or(self.src.len(), |(_, a)| a + 1);
        self.out
            .put("(hoist_gl_ModelViewProjectionMatrix * hoist_Vertex)", at);
        self.inject("layout(location = 0) in vec4 hoist_Vertex;".into());
        self.inject("STATE:gl_ModelViewProjectionMatrix".into());
        close + 1
    }

    /// `gl_TexCoord[N]`: its own interpolant, or an element of the wrapper's array.
    fn texcoord(&mut self, i: usize) -> Result<usize, Diagnostic> {
        let at = self.toks[i].1;
        if self.texcoords.array {
            self.out.put("hoist_TexCoord", at);
            return Ok(i + 1);
        }
        let n = self.toks.get(i + 2).and_then(|(x, _)| x.parse::<u8>().ok());
        let close = self.toks.get(i + 3).is_some_and(|(x, _)| *x == "]");
        match (n, close) {
            (Some(n), true) if n < 8 => {
                self.prev = self.toks[i + 3].1 + 1;
                self.out.put(&format!("hoist_TexCoord{n}"), at);
                let l = self.vary_loc("gl_TexCoord") + n;
                self.inject(format!(
                    "layout(location = {l}) {} vec4 hoist_TexCoord{n};",
                    self.dir()
                ));
                Ok(i + 4)
            }
            _ => Err(Diagnostic::error(
                code!("F0010"),
                "gl_TexCoord needs an index from 0 to 7 here",
                Span::new(at, at + "gl_TexCoord".len()),
            )),
        }
    }

    /// `gl_FragData[N]` with a literal N: colour output N.
    fn frag_data(&mut self, i: usize) -> Result<usize, Diagnostic> {
        let at = self.toks[i].1;
        let n = self.toks.get(i + 2).and_then(|(x, _)| x.parse::<u8>().ok());
        let close = self.toks.get(i + 3).is_some_and(|(x, _)| *x == "]");
        match (n, close) {
            (Some(n @ 0..=3), true) => {
                self.prev = self.toks[i + 3].1 + 1;
                self.out.put(&format!("hoist_FragData{n}"), at);
                self.inject(format!(
                    "layout(location = {n}) out vec4 hoist_FragData{n};"
                ));
                Ok(i + 4)
            }
            _ => Err(Diagnostic::error(
                code!("F0010"),
                "gl_FragData needs a constant index from 0 to 3 here",
                Span::new(at, at + "gl_FragData".len()),
            )),
        }
    }

    /// `uniform`: a sampler split into texture and sampler, a block given a binding, a
    /// loose uniform put in a block of its own (its initializer kept as a constant).
    fn uniform(&mut self, i: usize) -> Result<usize, Diagnostic> {
        let at = self.toks[i].1;
        let nb = self.next_binding;
        let next = self.toks.get(i + 1).map_or("", |x| x.0);
        let next = if matches!(next, "highp" | "mediump" | "lowp") {
            self.toks.get(i + 2).map_or("", |x| x.0)
        } else {
            next
        };
        if next.starts_with("sampler") {
            // naga reads separate textures and samplers: split the combined one.
            let k = self.toks[i..]
                .iter()
                .position(|(x, _)| x.starts_with("sampler"))
                .map_or(i + 1, |p| i + p);
            let kind = self.toks[k].0;
            let name = self.toks.get(k + 1).map_or("", |x| x.0);
            let tex = kind.replace("sampler", "texture").replace("Shadow", "");
            let smp = if kind.ends_with("Shadow") {
                "samplerShadow"
            } else {
                "sampler"
            };
            self.out.put(
                &format!(
                    "layout(binding = {nb}) uniform {tex} {name}; \
                     layout(binding = {}) uniform {smp} {name}_hoist_s",
                    nb + 1
                ),
                at,
            );
            self.samplers.push((name.to_string(), kind.to_string()));
            self.next_binding += 2;
            self.prev = self
                .toks
                .get(k + 1)
                .map_or(self.src.len(), |(x, a)| a + x.len());
            return Ok(k + 2);
        }
        if self.toks.get(i + 2).is_some_and(|(x, _)| *x == "{") {
            self.out
                .put(&format!("layout(std140, binding = {nb}) uniform"), at);
            self.next_binding += 1;
            return Ok(i + 1);
        }
        // A loose uniform: its own block, members visible by name.
        let end = self.toks[i..]
            .iter()
            .position(|(x, _)| *x == ";")
            .map_or(self.toks.len(), |k| i + k);
        let end_at = self.toks.get(end).map_or(self.src.len(), |(_, a)| *a);
        let body_at = self.toks.get(i + 1).map_or(end_at, |x| x.1).min(end_at);
        let body = strip_precision(&self.src[body_at..end_at]);
        let (mut decl, mut init) = match body.split_once('=') {
            Some((d, e)) => (d.trim().to_string(), Some(e.trim().to_string())),
            None => (body.trim().to_string(), None),
        };
        let words: Vec<String> = decl
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let mut after = String::new();
        if let [ty, name] = words.as_slice()
            && let Some(fty) = bool_as_float(ty)
        {
            // A uniform block cannot hold booleans: a float stands in, and the boolean
            // the shader reads is set from it before `main`.
            decl = format!("{fty} {BOOL_PREFIX}{name}");
            init = init.map(|e| format!("{fty}({e})"));
            after = format!("; {ty} {name}");
            self.prologue
                .push(format!("{name} = {ty}({BOOL_PREFIX}{name});"));
        }
        if let Some(init) = init
            && let Some(name) = decl
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|w| !w.is_empty())
                .nth(1)
        {
            let cdecl = replace_word(&decl, name, &format!("{INIT_PREFIX}{name}"));
            self.trailer.push(format!("const {cdecl} = {init};"));
        }
        self.out.put(
            &format!("layout(std140, binding = {nb}) uniform hoist_u{nb} {{ {decl}; }}{after}"),
            at,
        );
        self.next_binding += 1;
        self.prev = end_at;
        Ok(end)
    }

    /// The declarations of the built-ins used, the wrapper `main` and the trailer.
    fn finish(mut self) -> Adapted {
        let mut decls = String::new();
        let mut injected = std::mem::take(&mut self.injected);
        injected.sort();
        for d in injected {
            let line = match d.as_str() {
                "HOIST_COLOR" => format!(
                    "layout(location = {}) {} vec4 hoist_Color;",
                    self.vary_loc("gl_Color"),
                    self.dir()
                ),
                x if x.starts_with("STATE:") => {
                    let name = &x["STATE:".len()..];
                    let ty = if name == "gl_NormalMatrix" {
                        "mat3"
                    } else {
                        "mat4"
                    };
                    let b = self.next_binding;
                    self.next_binding += 1;
                    format!(
                        "layout(std140, binding = {b}) uniform hoist_state{b} {{ {ty} hoist_{name}; }};"
                    )
                }
                other => other.to_string(),
            };
            decls.push_str(&line);
            decls.push(' ');
        }
        if self.texcoords.array && !self.modern {
            decls.push_str(&self.texcoord_array());
        }
        if !decls.is_empty() {
            self.notes.push(
                "legacy built-ins were declared as variables (see the binding table)".to_string(),
            );
        }
        let mut tail = String::new();
        for t in &self.trailer {
            tail.push('\n');
            tail.push_str(t);
        }
        if self.renamed {
            tail.push_str(&format!(
                "\nvoid main() {{ {} hoist_main(); {} }}\n",
                self.prologue.join(" "),
                self.epilogue.join(" ")
            ));
        }
        let end = self.src.len();
        self.out.put(&tail, end);
        // Declarations go on a line of their own after the version line (before any other
        // directive, which must start its line).
        if !decls.is_empty() {
            decls.push('\n');
        }
        let text = self.out.text;
        let pos = text
            .find("#version 450\n")
            .map_or(0, |p| p + "#version 450\n".len());
        let mut segs = self.out.segs;
        if !decls.is_empty() {
            for s in segs.iter_mut().filter(|s| s.0 >= pos) {
                s.0 += decls.len();
            }
            segs.push((pos, 0, decls.len(), false));
            segs.sort_by_key(|s| s.0);
        }
        Adapted {
            text: format!("{}{}{}", &text[..pos], decls, &text[pos..]),
            segs,
            notes: self.notes,
            attributes: self.attributes,
        }
    }

    /// `gl_TexCoord` as an array: the array, one interpolant per element, the copies.
    fn texcoord_array(&mut self) -> String {
        let base = self.vary_loc("gl_TexCoord");
        let n = self
            .texcoords
            .count
            .max(1)
            .min(8u8.saturating_sub(base).max(1));
        let mut d = format!("vec4 hoist_TexCoord[{n}]; ");
        for k in 0..n {
            let l = base + k;
            if self.vertex {
                d.push_str(&format!(
                    "layout(location = {l}) out vec4 hoist_TexCoordOut{k}; "
                ));
                self.epilogue
                    .push(format!("hoist_TexCoordOut{k} = hoist_TexCoord[{k}];"));
            } else {
                d.push_str(&format!(
                    "layout(location = {l}) in vec4 hoist_TexCoordIn{k}; "
                ));
                self.prologue
                    .insert(0, format!("hoist_TexCoord[{k}] = hoist_TexCoordIn{k};"));
            }
        }
        d
    }
}

/// The float type standing in for a boolean uniform's (`bool` → `float`, `bvecN` → `vecN`).
fn bool_as_float(ty: &str) -> Option<String> {
    match ty {
        "bool" => Some("float".into()),
        "bvec2" | "bvec3" | "bvec4" => Some(ty[1..].to_string()),
        _ => None,
    }
}

fn strip_precision(s: &str) -> String {
    s.split_whitespace()
        .filter(|w| !matches!(*w, "highp" | "mediump" | "lowp"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with whole-word occurrences of `word` replaced.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(p) = rest.find(word) {
        let before = rest[..p].chars().next_back();
        let after = rest[p + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        out.push_str(&rest[..p]);
        if boundary(before) && boundary(after) {
            out.push_str(by);
        } else {
            out.push_str(word);
        }
        rest = &rest[p + word.len()..];
    }
    out.push_str(rest);
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
    let modern = version.is_some_and(|(v, _)| {
        let words: Vec<&str> = v.split_whitespace().collect();
        matches!(words.get(1).copied(), Some("440" | "450" | "460")) && words.get(2) != Some(&"es")
    });
    if modern && !toks.iter().any(|(t, _)| *t == "do" || *t == "=") {
        return Ok(Adapted {
            text: src.to_string(),
            segs: vec![(0, 0, src.len(), true)],
            notes: Vec::new(),
            attributes: Vec::new(),
        });
    }
    let has_version = version.is_some();
    let depth = depths(&toks);
    let texcoords = if modern {
        TexCoords::default()
    } else {
        texcoord_mode(&toks)
    };
    let mut a = Adapter {
        src,
        toks,
        depth,
        vertex: stage == ShaderStage::Vertex,
        varyings,
        out: Out {
            text: String::new(),
            segs: Vec::new(),
        },
        prev: 0,
        injected: Vec::new(),
        used_attr: Vec::new(),
        attributes: Vec::new(),
        notes: Vec::new(),
        next_binding: 0,
        samplers: Vec::new(),
        prologue: Vec::new(),
        epilogue: Vec::new(),
        trailer: Vec::new(),
        skips: Vec::new(),
        texcoords,
        dowhiles: 0,
        renamed: false,
        modern,
    };
    // Whether the wrapper `main` is needed must be known before `main` is reached.
    for i in 0..a.toks.len() {
        if a.depth[i] == 0
            && (i == 0 || matches!(a.toks[i - 1].0, ";" | "}") || a.toks[i - 1].0.starts_with('#'))
            && (global_init(&a.toks, i).is_some()
                || a.toks[i].0 == "uniform"
                    && a.toks
                        .get(i + 1)
                        .is_some_and(|t| bool_as_float(t.0).is_some()))
        {
            a.prologue.push(String::new());
            break;
        }
    }
    a.run(has_version)?;
    a.prologue.retain(|s| !s.is_empty());
    Ok(a.finish())
}

/// [`adapt_with`] for one shader alone (interpolants numbered in its own order).
pub fn adapt(src: &str, stage: ShaderStage) -> Result<Adapted, Diagnostic> {
    adapt_with(src, stage, &varying_names(src, stage))
}

//! # hoist-front: WGSL and GLSL pairs to ARB or D3D9 assembly
//!
//! naga parses and validates the source ([`compile_wgsl`]: one WGSL module with a
//! `@vertex` and a `@fragment` entry point; [`compile_glsl`]: a vertex and a fragment
//! shader, Vulkan-style GLSL 440/450 or the WebGL/legacy dialects people paste, adapted by
//! [`adapt`]). [`lower`] evaluates each entry point into assembly for the chosen dialect:
//! ARB (`!!ARBvp1.0`/`!!ARBfp1.0`) for straight-line code — calls inlined, constant loops
//! unrolled, `if`s merged with selects — or D3D9 `vs_3_0`/`ps_3_0`, which also keeps
//! loops with a trip count that is not a constant, as `rep` loops. The result is text
//! that `hoist_asm::parse` accepts, the [`bindings::Bindings`] table (attributes,
//! interpolants, uniforms, textures, outputs) and, for every emitted instruction, the
//! source span it came from ([`InstSpan`]).
//!
//! Errors are `hoist_asm::Diagnostic`s at spans of the source they belong to
//! ([`Error::source`]): naga's parse and validation messages, and lowering refusals for
//! what the targets cannot express (storage buffers, integer bit operations, dynamic
//! indexing, flat interpolation, ...). Nothing here panics on bad input.

// Diagnostics are returned by value through the whole lowering (one per failure).
#![allow(clippy::result_large_err)]

pub mod adapt;
pub mod api;
pub mod bindings;
pub mod emit;
pub mod fuzz;
pub mod generate;
pub mod lower;
pub mod scene;
pub mod value;

pub use api::{Compiled, Error, InstSpan, Options, SourceId, Spans};
use bindings::Bindings;
use hoist_asm::diag::{LineIndex, code};
use hoist_asm::{ArbTarget, Diagnostic, Dialect, ParseOptions, Profile, Span};

/// Deepest nesting of brackets plus operators chained in one statement that a source may
/// have: naga's front ends recurse once per level, and a deeper input would overflow the
/// stack (an abort, not an error) before they could report anything.
pub const MAX_NESTING: usize = 255;

/// The nesting [`MAX_NESTING`] bounds, and where it is deepest.
fn nesting(src: &str) -> (usize, usize) {
    let (mut depth, mut ops, mut worst, mut at) = (0usize, 0usize, 0usize, 0usize);
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if b[i] == b'}' {
                    ops = 0;
                }
            }
            b';' => ops = 0,
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'&' | b'|' | b'^' | b'?' | b'!'
            | b'=' | b',' | b'.' => ops += 1,
            _ => {}
        }
        if depth + ops > worst {
            worst = depth + ops;
            at = i;
        }
        i += 1;
    }
    (worst, at)
}

fn check_nesting(src: &str, id: SourceId) -> Result<(), Error> {
    let (n, at) = nesting(src);
    if n <= MAX_NESTING {
        return Ok(());
    }
    Err(Error::one(
        id,
        Diagnostic::error(
            code!("F0005"),
            format!(
                "the source nests too deeply to compile ({n} levels of brackets and chained \
                 operators; at most {MAX_NESTING})"
            ),
            Span::new(at, at + 1),
        )
        .with_hint("split the expression into several statements"),
    ))
}

/// Runs `f` on a thread with a large stack where there are threads (naga's front ends and
/// the evaluator recurse over the source's nesting).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let mut slot = None;
        let mut f = Some(f);
        let ran = std::thread::scope(|s| {
            let body = || f.take().map(|f| f());
            match std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(s, body)
            {
                Ok(h) => Some(h.join()),
                Err(_) => None,
            }
        });
        match ran {
            Some(Ok(v)) => slot = v,
            Some(Err(p)) => std::panic::resume_unwind(p),
            None => {}
        }
        match (slot, f) {
            (Some(v), _) => v,
            (None, Some(f)) => f(),
            (None, None) => unreachable!("the thread ran the function"),
        }
    }
    #[cfg(target_arch = "wasm32")]
    f()
}

/// Compiles a WGSL module's vertex and fragment entry points.
pub fn compile_wgsl(src: &str, opts: &Options) -> Result<Compiled, Error> {
    check_nesting(src, SourceId::Wgsl)?;
    on_big_stack(|| compile_wgsl_here(src, opts))
}

fn compile_wgsl_here(src: &str, opts: &Options) -> Result<Compiled, Error> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        let (span, label) = e
            .labels()
            .next()
            .map(|(s, l)| (to_span(s), l.to_string()))
            .unwrap_or((Span::NONE, String::new()));
        Error::one(
            SourceId::Wgsl,
            Diagnostic::error(code!("F0001"), e.message(), span).with_label(label),
        )
    })?;
    let info = validate(&module, SourceId::Wgsl, &|s| s)?;
    let vs = pick(&module, naga::ShaderStage::Vertex, opts.vertex.as_deref())?;
    let fs = pick(
        &module,
        naga::ShaderStage::Fragment,
        opts.fragment.as_deref(),
    )?;
    let stages = Stages {
        vs: (&module, &info, vs, &|s| s, SourceId::Wgsl),
        fs: (&module, &info, fs, &|s| s, SourceId::Wgsl),
    };
    finish(stages, opts, src, src)
}

/// The names of a WGSL module's vertex and fragment entry points, in order (for a picker:
/// [`Options::vertex`], [`Options::fragment`]); empty when the module does not parse.
pub fn wgsl_entry_points(src: &str) -> (Vec<String>, Vec<String>) {
    if check_nesting(src, SourceId::Wgsl).is_err() {
        return Default::default();
    }
    on_big_stack(|| {
        let Ok(m) = naga::front::wgsl::parse_str(src) else {
            return Default::default();
        };
        let names = |stage| {
            m.entry_points
                .iter()
                .filter(|e| e.stage == stage)
                .map(|e| e.name.clone())
                .collect()
        };
        (
            names(naga::ShaderStage::Vertex),
            names(naga::ShaderStage::Fragment),
        )
    })
}

/// Compiles a GLSL vertex and fragment shader (Vulkan GLSL 440/450 as naga reads it, or
/// GLSL ES 1.00/3.00 and desktop 1.10–1.50, adapted first).
pub fn compile_glsl(vs: &str, fs: &str, opts: &Options) -> Result<Compiled, Error> {
    check_nesting(vs, SourceId::GlslVertex)?;
    check_nesting(fs, SourceId::GlslFragment)?;
    on_big_stack(|| compile_glsl_here(vs, fs, opts))
}

fn compile_glsl_here(vs: &str, fs: &str, opts: &Options) -> Result<Compiled, Error> {
    let mut names = adapt::varying_names(vs, naga::ShaderStage::Vertex);
    for n in adapt::varying_names(fs, naga::ShaderStage::Fragment) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    // gl_TexCoord[n] takes the locations from its own onwards: keep it last.
    if let Some(p) = names.iter().position(|n| n == "gl_TexCoord") {
        let t = names.remove(p);
        names.push(t);
    }
    let av = adapt::adapt_with(vs, naga::ShaderStage::Vertex, &names)
        .map_err(|d| Error::one(SourceId::GlslVertex, d))?;
    let af = adapt::adapt_with(fs, naga::ShaderStage::Fragment, &names)
        .map_err(|d| Error::one(SourceId::GlslFragment, d))?;
    let mv = glsl_module(&av, naga::ShaderStage::Vertex, SourceId::GlslVertex)?;
    let mf = glsl_module(&af, naga::ShaderStage::Fragment, SourceId::GlslFragment)?;
    let mapv = |s: Span| av.map(s);
    let mapf = |s: Span| af.map(s);
    let iv = validate(&mv, SourceId::GlslVertex, &mapv)?;
    let inf = validate(&mf, SourceId::GlslFragment, &mapf)?;
    let ev = pick(&mv, naga::ShaderStage::Vertex, None)?;
    let ef = pick(&mf, naga::ShaderStage::Fragment, None)?;
    let stages = Stages {
        vs: (&mv, &iv, ev, &mapv, SourceId::GlslVertex),
        fs: (&mf, &inf, ef, &mapf, SourceId::GlslFragment),
    };
    let mut c = finish(stages, opts, vs, fs)?;
    for n in av.notes.iter().chain(&af.notes) {
        c.bindings.note(n.clone());
    }
    for (name, loc) in av.attributes.iter() {
        if let Some(a) = c
            .bindings
            .attributes
            .iter_mut()
            .find(|a| a.location == *loc)
        {
            a.name = name.clone();
        }
        c.bindings.row(
            "attribute",
            "vertex",
            name,
            &format!("by name → location {loc}"),
            &format!("vertex.attrib[{loc}]"),
        );
    }
    Ok(c)
}

fn glsl_module(
    a: &adapt::Adapted,
    stage: naga::ShaderStage,
    id: SourceId,
) -> Result<naga::Module, Error> {
    let mut fe = naga::front::glsl::Frontend::default();
    fe.parse(&naga::front::glsl::Options::from(stage), &a.text)
        .map_err(|e| Error {
            source: id,
            diagnostics: e
                .errors
                .iter()
                .map(|err| {
                    Diagnostic::error(
                        code!("F0001"),
                        err.kind.to_string(),
                        a.map(to_span(err.meta)),
                    )
                    .with_label("naga")
                })
                .collect(),
        })
}

fn to_span(s: naga::Span) -> Span {
    s.to_range()
        .map_or(Span::NONE, |r| Span::new(r.start, r.end))
}

fn validate(
    m: &naga::Module,
    id: SourceId,
    map: &dyn Fn(Span) -> Span,
) -> Result<naga::valid::ModuleInfo, Error> {
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    v.validate(m).map_err(|e| {
        let mut spans = e.spans();
        let (span, label) = spans
            .next()
            .map(|(s, l)| (map(to_span(*s)), l.clone()))
            .unwrap_or((Span::NONE, String::new()));
        let mut msg = e.as_inner().to_string();
        let mut src: &dyn std::error::Error = e.as_inner();
        while let Some(next) = src.source() {
            msg.push_str(": ");
            msg.push_str(&next.to_string());
            src = next;
        }
        Error::one(
            id,
            Diagnostic::error(code!("F0002"), msg, span).with_label(label),
        )
    })
}

fn pick(m: &naga::Module, stage: naga::ShaderStage, name: Option<&str>) -> Result<usize, Error> {
    let cands: Vec<usize> = (0..m.entry_points.len())
        .filter(|&i| {
            m.entry_points[i].stage == stage && name.is_none_or(|n| m.entry_points[i].name == n)
        })
        .collect();
    let what = if stage == naga::ShaderStage::Vertex {
        "vertex"
    } else {
        "fragment"
    };
    let id = SourceId::Wgsl;
    match cands.as_slice() {
        [i] => Ok(*i),
        [] => Err(Error::one(
            id,
            Diagnostic::error(
                code!("F0003"),
                match name {
                    Some(n) => format!("no {what} entry point named `{n}`"),
                    None => format!("no {what} entry point"),
                },
                Span::NONE,
            ),
        )),
        _ => {
            let names: Vec<&str> = cands
                .iter()
                .map(|&i| m.entry_points[i].name.as_str())
                .collect();
            Err(Error::one(
                id,
                Diagnostic::error(
                    code!("F0004"),
                    format!(
                        "several {what} entry points ({}): choose one (`--{what}` on the command line, the {what} entry point menu on the page)",
                        names.join(", ")
                    ),
                    Span::NONE,
                ),
            ))
        }
    }
}

/// An instruction's source bytes, when it has any.
type ByteRange = Option<(usize, usize)>;

type StageIn<'a> = (
    &'a naga::Module,
    &'a naga::valid::ModuleInfo,
    usize,
    &'a dyn Fn(Span) -> Span,
    SourceId,
);

struct Stages<'a> {
    vs: StageIn<'a>,
    fs: StageIn<'a>,
}

/// Lowers both stages under the chosen (or first fitting) dialect and checks the text.
fn finish(st: Stages<'_>, opts: &Options, vs_src: &str, fs_src: &str) -> Result<Compiled, Error> {
    let try_dialect = |d: Dialect| -> Result<Compiled, Error> {
        let mut bindings = Bindings {
            unit_hints: opts.units.clone(),
            gl_units: opts.gl_units,
            ..Bindings::default()
        };
        let (vp, vspans) = lower_stage(&st.vs, d, &mut bindings)?;
        let (fp, fspans) = lower_stage(&st.fs, d, &mut bindings)?;
        let target = check_text(&vp, &fp, d, opts.target, st.fs.4)?;
        let spans = Spans {
            vp: inst_spans(&vp, &vspans, st.vs.4, vs_src),
            fp: inst_spans(&fp, &fspans, st.fs.4, fs_src),
        };
        Ok(Compiled {
            vp,
            fp,
            dialect: d,
            target,
            bindings,
            spans,
        })
    };
    match opts.dialect {
        Some(d) => try_dialect(d),
        None => match try_dialect(Dialect::Arb) {
            Ok(c) => Ok(c),
            Err(e) => try_dialect(Dialect::D3d9).map_err(|_| e),
        },
    }
}

fn lower_stage(
    s: &StageIn<'_>,
    d: Dialect,
    bindings: &mut Bindings,
) -> Result<(String, Vec<ByteRange>), Error> {
    let (module, info, ep, map, id) = *s;
    let entry = &module.entry_points[ep];
    let vertex = entry.stage == naga::ShaderStage::Vertex;
    let profile = match (d, vertex) {
        (Dialect::Arb, true) => Profile::ArbVp1,
        (Dialect::Arb, false) => Profile::ArbFp1,
        (Dialect::D3d9, true) => Profile::Vs3_0,
        (Dialect::D3d9, false) => Profile::Ps3_0,
    };
    let mut l = lower::Lower::new(module, info, profile, bindings, map, id);
    l.run_entry(entry, info.get_entry_point(ep))
        .map_err(|r| Error::one(id, r.0))?;
    l.em.dce();
    l.place_viewport();
    let title = format!("compiled by hoist-front from entry point `{}`", entry.name);
    Ok((l.em.print(&title), l.em.spans()))
}

/// Parses both texts under the target's limits; returns the target's id (ARB).
fn check_text(
    vp: &str,
    fp: &str,
    d: Dialect,
    target: Option<ArbTarget>,
    id: SourceId,
) -> Result<Option<String>, Error> {
    let parse = |text: &str, t: ArbTarget| {
        hoist_asm::parse(text, &ParseOptions::default().with_target(text, t))
    };
    let targets: Vec<ArbTarget> = match (d, target) {
        (Dialect::D3d9, _) => vec![ArbTarget::default()],
        (_, Some(t)) => vec![t],
        (_, None) => ArbTarget::ALL.to_vec(),
    };
    let mut last = Vec::new();
    for t in &targets {
        let (a, b) = (parse(vp, *t), parse(fp, *t));
        let errs: Vec<Diagnostic> = a
            .diagnostics
            .iter()
            .chain(&b.diagnostics)
            .filter(|x| x.is_error())
            .cloned()
            .collect();
        if errs.is_empty() {
            return Ok((d == Dialect::Arb).then(|| t.id().to_string()));
        }
        last = errs;
    }
    let first = &last[0];
    if !first.code.is_limit() {
        // Not a limit: the lowering wrote something the dialect does not allow.
        return Err(Error::one(
            id,
            Diagnostic::error(
                code!("F0301"),
                format!(
                    "internal error: the compiled program breaks a rule of {}: {} (please report it)",
                    if d == Dialect::Arb { "ARB" } else { "D3D9" },
                    first.message
                ),
                Span::NONE,
            ),
        ));
    }
    Err(Error::one(
        id,
        Diagnostic::error(
            code!("F0300"),
            format!(
                "the compiled programs do not fit the target: {}",
                first.message
            ),
            Span::NONE,
        )
        .with_hint(match d {
            Dialect::Arb => "try a larger --target (nv40, g80) or --dialect d3d9",
            Dialect::D3d9 => "the program exceeds vs_3_0/ps_3_0 limits",
        }),
    ))
}

fn inst_spans(
    text: &str,
    spans: &[Option<(usize, usize)>],
    id: SourceId,
    src: &str,
) -> Vec<InstSpan> {
    let parsed = hoist_asm::parse(
        text,
        &ParseOptions::default().with_target(text, ArbTarget::G80),
    );
    let Some(p) = parsed.program else {
        return Vec::new();
    };
    let lines = LineIndex::new(text);
    let idx = LineIndex::new(src);
    p.insts
        .iter()
        .enumerate()
        .filter_map(|(i, inst)| {
            let (start, end) = spans.get(i).copied().flatten()?;
            let lc = idx.line_col(start);
            Some(InstSpan {
                inst: i,
                line: (lines.line_col(inst.span.start as usize).line as usize).saturating_sub(1),
                source: id,
                start,
                end,
                src_line: lc.line as usize,
                src_col: lc.col as usize,
            })
        })
        .collect()
}

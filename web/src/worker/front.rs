//! Source mode's job, run by the front worker (`src/bin/hoist-front.rs`, a bundle of its
//! own that the page loads only when source mode is first used: naga is large): a source
//! document compiled by `hoist_front` into the pair the optimizer and the renderer take.
//!
//! The editors' texts go back into the document's scene (`doc::source::compose`) and the
//! scene is translated as `hoist run` translates it (`hoist_front::scene::translate`:
//! `uniform` lines become the `parameter` lines of the slots the binding table gave them,
//! GL's texture unit rules, `[hoist]` options). What comes back is the pair, the scene it
//! renders in, the binding table and every instruction's source span; or the diagnostics,
//! each placed in the editor its span points into. [`derive`] puts a compiled pair into the
//! document, where the rest of the page takes it like a pair typed in assembly.

use crate::doc::examples::split_scene;
use crate::doc::source::{self, Composed, Lang, Place, SourceDoc};
use crate::doc::{Doc, HostState, HostUniform};
use hoist_asm::diag::code;
use hoist_asm::{ArbTarget, Diagnostic, Dialect, Span};
use hoist_front::bindings::Bindings;
use hoist_front::{SourceId, Spans};
use serde::{Deserialize, Serialize};

/// A compile request: the document's revision and its source.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FrontJob {
    pub id: u64,
    pub source: SourceDoc,
}

/// A compiled source pair, as the page keeps it. (It travels in postcard, which writes
/// every field: hence the binding table in words and the host's uniforms, not
/// `hoist_front::bindings::Bindings`, which skips empty fields for `hoist compile --json`.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Compiled {
    pub vp: String,
    pub fp: String,
    /// The scene the pair renders in (its program sections empty), when the document has one.
    pub scene: Option<String>,
    pub dialect: Dialect,
    /// The ARB target the pair was checked against (ARB only).
    pub target: Option<ArbTarget>,
    /// The binding table, as the page shows it.
    pub table: BindingView,
    /// The uniforms the host sets from GL state before each draw.
    pub host: Vec<HostUniform>,
    /// Each instruction's source span (only spans into the editors' texts: a GLSL stage
    /// left to fixed function has none).
    pub spans: Spans,
}

/// The binding table in words (`hoist_front::bindings::Bindings`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindingView {
    /// Kind, stage, name, how the source binds it, the register(s), detail.
    pub rows: Vec<[String; 6]>,
    /// Uniform, type, its parameter slots, where its value comes from.
    pub uniforms: Vec<[String; 4]>,
    /// Texture, its binding, unit, target.
    pub textures: Vec<[String; 4]>,
    /// What was emulated or approximated.
    pub notes: Vec<String>,
}

/// The parameter registers of `slots` slots from `slot`, in the dialect's words.
fn registers(slot: u16, slots: u16, dialect: Dialect) -> String {
    let one = |n: u16| match dialect {
        Dialect::Arb => format!("program.local[{n}]"),
        Dialect::D3d9 => format!("c{n}"),
    };
    let last = slot + slots.max(1) - 1;
    if last == slot {
        one(slot)
    } else {
        format!("{} … {}", one(slot), one(last))
    }
}

/// The binding table of a compiled pair, in words.
pub fn binding_view(b: &Bindings, dialect: Dialect) -> BindingView {
    BindingView {
        rows: (b.rows.iter())
            .map(|r| {
                [
                    &r.kind,
                    &r.stage,
                    &r.name,
                    &r.source,
                    &r.register,
                    &r.detail,
                ]
                .map(String::clone)
            })
            .collect(),
        uniforms: (b.uniforms.iter())
            .map(|u| {
                let value = match (&u.state, &u.init) {
                    (Some(s), _) => format!("set from {s} before each draw"),
                    (None, Some(v)) => format!("initial value {v:?}"),
                    (None, None) => "the scene's uniform line, or the Inputs panel".into(),
                };
                [
                    u.name.clone(),
                    u.ty.clone(),
                    registers(u.slot, u.slots, dialect),
                    value,
                ]
            })
            .collect(),
        textures: (b.textures.iter())
            .map(|t| {
                [
                    t.name.clone(),
                    format!("@group({}) @binding({})", t.group, t.binding),
                    format!("unit {}", t.unit),
                    t.target.clone(),
                ]
            })
            .collect(),
        notes: b.notes.clone(),
    }
}

/// A diagnostic and the editor it belongs to (its span is an offset into that text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Located {
    pub place: Place,
    pub diagnostic: Diagnostic,
}

/// What the front worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// A WGSL module's vertex and fragment entry points (for the pickers).
    pub entries: (Vec<String>, Vec<String>),
    pub result: Result<Compiled, Vec<Located>>,
}

/// The editor of a span's source.
pub fn place_of(id: SourceId) -> Place {
    match id {
        SourceId::Wgsl => Place::Wgsl,
        SourceId::GlslVertex => Place::GlslVertex,
        SourceId::GlslFragment => Place::GlslFragment,
    }
}

/// Compiles a source document.
pub fn compile(src: &SourceDoc) -> Output {
    let composed = source::compose(src);
    let entries = match src.lang {
        Lang::Wgsl => hoist_front::wgsl_entry_points(&src.wgsl),
        Lang::Glsl => Default::default(),
    };
    let opts = hoist_front::Options {
        vertex: src.vertex.clone(),
        fragment: src.fragment.clone(),
        dialect: src.dialect,
        target: src.target,
        ..hoist_front::Options::default()
    };
    let first = src.places()[0];
    let result = match hoist_front::scene::translate(&composed.text, &opts) {
        Ok(Some(t)) => Ok(compiled(src, t)),
        Ok(None) => Err(vec![Located {
            place: first,
            diagnostic: Diagnostic::error(
                code!("F0210"),
                format!(
                    "there is no {} source to compile: write a vertex and a fragment stage",
                    src.lang.name()
                ),
                Span::NONE,
            ),
        }]),
        Err(diags) => Err(diags
            .into_iter()
            .map(|d| locate(&composed, d, first))
            .collect()),
    };
    Output { entries, result }
}

/// A diagnostic of the composed text, moved into the editor its span points into (one
/// without a place in any editor goes to `fallback`, unplaced).
fn locate(c: &Composed, mut d: Diagnostic, fallback: Place) -> Located {
    let at = (!d.span.is_none())
        .then(|| c.locate(d.span.start as usize))
        .flatten();
    match at {
        Some((place, start)) => {
            let len = (d.span.end.saturating_sub(d.span.start)) as usize;
            d.span = Span::new(start, start + len);
            Located {
                place,
                diagnostic: d,
            }
        }
        None => {
            d.span = Span::NONE;
            Located {
                place: fallback,
                diagnostic: d,
            }
        }
    }
}

fn compiled(src: &SourceDoc, t: hoist_front::scene::Translated) -> Compiled {
    let c = t.compiled;
    let scene = src
        .scene
        .as_ref()
        .and_then(|_| split_scene(&t.text))
        .map(|s| s.rest);
    let ours = |s: &hoist_front::InstSpan| !src.text(place_of(s.source)).is_empty();
    let spans = Spans {
        vp: c.spans.vp.into_iter().filter(ours).collect(),
        fp: c.spans.fp.into_iter().filter(ours).collect(),
    };
    let host = (c.bindings.uniforms.iter())
        .filter_map(|u| {
            Some(HostUniform {
                name: u.name.clone(),
                slot: u.slot,
                slots: u.slots,
                lanes: u.lanes,
                state: u.state.clone()?,
            })
        })
        .collect();
    Compiled {
        table: binding_view(&c.bindings, c.dialect),
        host,
        vp: c.vp,
        fp: c.fp,
        scene,
        dialect: c.dialect,
        target: c.target.as_deref().and_then(ArbTarget::from_id),
        spans,
    }
}

/// `doc` with the compiled pair in place of its programs: the texts, the scene, no profile
/// overrides, the ARB target the pair was checked against, mirrored parameters (the scene
/// sets a uniform in both stages, as `hoist opt --wgsl` assumes) and the state the host
/// sets before each draw. `false` when nothing changed.
pub fn derive(doc: &mut Doc, c: &Compiled) -> bool {
    let target = c.target.unwrap_or_default();
    let host = Some(HostState {
        dialect: c.dialect,
        uniforms: c.host.clone(),
    });
    let same = doc.host_state == host
        && doc.vp == c.vp
        && doc.fp == c.fp
        && doc.scene == c.scene
        && doc.vp_profile.is_none()
        && doc.fp_profile.is_none()
        && doc.opts.target == target
        && doc.opts.mirror_params;
    if !same {
        doc.vp = c.vp.clone();
        doc.fp = c.fp.clone();
        doc.scene = c.scene.clone();
        doc.vp_profile = None;
        doc.fp_profile = None;
        doc.opts.target = target;
        doc.opts.mirror_params = true;
        doc.host_state = host;
    }
    !same
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::examples::{EXAMPLES, load};

    fn example(id: &str) -> Doc {
        load(crate::doc::examples::find(id).unwrap())
    }

    #[test]
    fn every_source_example_compiles_with_spans_into_its_editors() {
        let mut n = 0;
        for e in EXAMPLES {
            let d = load(e);
            let Some(src) = &d.source else { continue };
            n += 1;
            let out = compile(src);
            let c = out
                .result
                .unwrap_or_else(|errs| panic!("{}: {errs:?}", e.id));
            assert!(c.vp.contains("END") || c.vp.starts_with("vs_"), "{}", e.id);
            assert!(!c.spans.fp.is_empty(), "{}: no fragment spans", e.id);
            for s in c.spans.vp.iter().chain(&c.spans.fp) {
                let text = src.text(place_of(s.source));
                assert!(s.start <= s.end && s.end <= text.len(), "{}: {s:?}", e.id);
            }
            // The scene the pair renders in parses, with the uniforms as parameters.
            let scene = c.scene.as_deref().expect("examples have scenes");
            assert!(
                !scene.lines().any(|l| l.starts_with("uniform ")),
                "{}: {scene}",
                e.id
            );
            assert!(!c.table.rows.is_empty(), "{}: no binding rows", e.id);
            let mut doc = d.clone();
            assert!(derive(&mut doc, &c));
            assert!(!derive(&mut doc, &c), "deriving twice changes nothing");
        }
        assert_eq!(n, 13, "source examples");
    }

    /// The original run of a source document as the page renders it: probes (passed,
    /// failed), with or without the host state the compile derived.
    fn probes(src: SourceDoc, host: bool) -> (usize, usize) {
        let mut d = Doc {
            source: Some(src),
            ..Doc::default()
        };
        (d.inputs.width, d.inputs.height) = (32, 32);
        let c = compile(d.source.as_ref().unwrap()).result.unwrap();
        derive(&mut d, &c);
        if !host {
            d.host_state = None;
        }
        let a = crate::worker::analysis::analyze(&d);
        let plan = crate::worker::render::plan(&d, &a, &Default::default())
            .unwrap()
            .unwrap();
        let mut t = crate::worker::render::Task::new(plan);
        t.run_to_end();
        t.original.unwrap().unwrap().probes
    }

    #[test]
    fn the_host_sets_the_state_a_compiled_pair_reads() {
        // WGSL's fragment position in ARB: y flipped with the viewport's height. At GL's
        // pixel (3, 4) of 32×32, WGSL's position is (3.5, 27.5).
        let wgsl = SourceDoc {
            wgsl: "struct V { @builtin(position) p: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>) -> V { return V(p); }
@fragment fn fs(v: V) -> @location(0) vec4<f32> { return vec4<f32>(v.p.xy / 32.0, 0.0, 1.0); }
"
            .into(),
            scene: Some(
                "[test]\nwindow rgba32f 32 32\ndraw rect -1 -1 2 2\nprobe rgba 3 4 (0.109375, 0.859375, 0, 1)\n"
                    .into(),
            ),
            ..SourceDoc::default()
        };
        assert_eq!(probes(wgsl.clone(), true), (1, 0));
        assert_eq!(probes(wgsl, false), (0, 1), "without the viewport");
        // GLSL's MVP matrix in D3D9 constants, set from GL's state before the draw.
        let glsl = SourceDoc {
            lang: Lang::Glsl,
            glsl_vs: "void main() { gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex; }\n"
                .into(),
            glsl_fs: "void main() { gl_FragColor = vec4(0.25, 0.5, 0.75, 1.0); }\n".into(),
            dialect: Some(Dialect::D3d9),
            scene: Some(
                "[test]\nwindow rgba32f 32 32\ndraw rect -1 -1 2 2\nprobe all rgba 0.25 0.5 0.75 1\n"
                    .into(),
            ),
            ..SourceDoc::default()
        };
        assert_eq!(probes(glsl.clone(), true), (1, 0));
        assert_eq!(probes(glsl, false), (0, 1), "without the matrix");
    }

    /// Every source example in both dialects, rendered as the page renders it: probes pass
    /// and the optimized pair agrees with the original.
    #[test]
    fn every_source_example_renders_in_both_dialects() {
        use crate::worker::render::{self, Task, VerdictKind};
        let mut bad = Vec::new();
        for e in EXAMPLES {
            let base = load(e);
            if base.source.is_none() {
                continue;
            }
            for dialect in [Dialect::Arb, Dialect::D3d9] {
                let mut d = base.clone();
                d.source.as_mut().unwrap().dialect = Some(dialect);
                let c = compile(d.source.as_ref().unwrap()).result.unwrap();
                derive(&mut d, &c);
                let a = crate::worker::analysis::analyze(&d);
                let plan = render::plan(&d, &a, &Default::default()).unwrap().unwrap();
                let mut t = Task::new(plan);
                t.run_to_end();
                let o = t.original.unwrap().unwrap();
                let p = t.optimized.unwrap().unwrap();
                let v = render::verdict_view(
                    &hoist_raster::compare(&o.image, &p.image),
                    d.inputs.tolerance,
                );
                if o.probes.1 != 0 || v.kind == VerdictKind::Different {
                    bad.push(format!(
                        "{} {dialect:?}: probes {:?}, {}",
                        e.id, o.probes, v.headline
                    ));
                }
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn the_binding_table_in_words() {
        let d = example("wgsl/lighting");
        let c = compile(d.source.as_ref().unwrap()).result.unwrap();
        let names: Vec<&str> = c.table.uniforms.iter().map(|u| u[0].as_str()).collect();
        assert_eq!(
            names,
            ["light.pos", "light.eye", "light.colour", "light.shininess"]
        );
        assert_eq!(c.table.uniforms[0][2], "program.local[0]");
        assert!(c.table.uniforms[3][3].contains("uniform line"));
        // Interpolants: locations to texture coordinates, with their interpolation.
        let varyings: Vec<&[String; 6]> =
            c.table.rows.iter().filter(|r| r[0] == "varying").collect();
        assert_eq!(varyings.len(), 4, "both stages' ends: {:?}", c.table.rows);
        assert!(varyings.iter().all(|r| r[4].contains("texcoord")));
        assert!(
            varyings
                .iter()
                .filter(|r| r[1] == "fragment")
                .all(|r| r[5] == "perspective"),
            "{varyings:?}"
        );
        // D3D9: c# registers; a matrix takes one slot per column.
        let mut d = example("wgsl/matrix-product");
        d.source.as_mut().unwrap().dialect = Some(Dialect::D3d9);
        let c = compile(d.source.as_ref().unwrap()).result.unwrap();
        assert!(
            c.table
                .uniforms
                .iter()
                .any(|u| u[1].starts_with("mat4") && u[2].contains(" … ") && u[2].starts_with('c')),
            "{:?}",
            c.table.uniforms
        );
        // GLSL's textures: units; attributes by name.
        let c = compile(example("glsl/webgl-textured").source.as_ref().unwrap())
            .result
            .unwrap();
        assert_eq!(c.table.textures.len(), 1);
        assert_eq!(c.table.textures[0][2], "unit 0");
        assert!(c.table.rows.iter().any(|r| r[3].contains("by name")));
    }

    #[test]
    fn a_naga_error_is_placed_in_its_editor_at_its_line() {
        let mut d = example("wgsl/lighting");
        let src = d.source.as_mut().unwrap();
        src.wgsl = src
            .wgsl
            .replace("let diffuse = max(", "let diffuse = max(;");
        let out = compile(src);
        let errs = out.result.unwrap_err();
        let e = &errs[0];
        assert_eq!(e.place, Place::Wgsl);
        let line = hoist_asm::diag::LineIndex::new(&src.wgsl)
            .line_col(e.diagnostic.span.start as usize)
            .line;
        let want = src.wgsl.lines().position(|l| l.contains("max(;")).unwrap() as u32 + 1;
        assert_eq!(line, want, "{e:?}");
        assert_eq!(out.entries, (vec![], vec![]), "no parse, no entries");
    }

    #[test]
    fn a_bad_uniform_line_is_placed_in_the_scene() {
        let mut d = example("glsl/webgl-textured");
        let src = d.source.as_mut().unwrap();
        let scene = src.scene.clone().unwrap();
        src.scene = Some(scene.replace("uniform float u_zoom 1.5", "uniform float u_zoom"));
        let errs = compile(src).result.unwrap_err();
        assert_eq!(errs[0].place, Place::Scene, "{errs:?}");
        let s = src.scene.as_deref().unwrap();
        let at = errs[0].diagnostic.span.start as usize;
        assert!(
            s[at..].starts_with("uniform float u_zoom"),
            "{:?}",
            &s[at..]
        );
    }

    #[test]
    fn choices_reach_the_compiler() {
        let mut d = example("wgsl/uv-transform");
        let src = d.source.as_mut().unwrap();
        let arb = compile(src).result.unwrap();
        assert_eq!(arb.dialect, Dialect::Arb);
        src.dialect = Some(Dialect::D3d9);
        let d3d = compile(src).result.unwrap();
        assert_eq!(d3d.dialect, Dialect::D3d9);
        assert!(d3d.fp.starts_with("ps_3_0"), "{}", d3d.fp);
        src.dialect = Some(Dialect::Arb);
        src.target = Some(ArbTarget::G80);
        assert_eq!(compile(src).result.unwrap().target, Some(ArbTarget::G80));
        // An empty module says what is missing.
        src.wgsl.clear();
        let errs = compile(src).result.unwrap_err();
        assert_eq!(errs[0].place, Place::Wgsl);
        assert!(!errs[0].diagnostic.message.is_empty());
    }
}

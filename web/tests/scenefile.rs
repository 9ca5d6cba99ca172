//! Import and export of `.shader_test` files against inputs this crate did not write: every
//! ARB test of piglit's corpus (`../shared/corpus/piglit`; skipped with a notice when absent)
//! and every gallery example. An imported file must render in the page as `hoist run`
//! renders the file; an exported document must run under `hoist run`'s code
//! (`scene::parse` + `scene::run` with its default options) to the page's image and probes;
//! importing the export gives the same programs, size and target back, and exporting that
//! again gives the same file.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../tests/support/oracles.rs"]
mod oracles;

use hoist_asm::ArbTarget;
use hoist_asm::ir::TexTarget;
use hoist_raster::image::{Image, Verdict};
use hoist_raster::scene::{self, RunOptions, SceneResult};
use hoist_web::doc::examples;
use hoist_web::doc::{Doc, Pattern, TexSpec};
use hoist_web::page::scenefile::{self, NOTE};
use hoist_web::worker::analysis;
use hoist_web::worker::render::{self, Images, Task};
use std::path::PathBuf;

/// What `hoist run FILE` computes (crates/cli/src/run.rs): default options, images by name.
fn hoist_run(text: &str, images: &[(&str, Vec<u8>)]) -> Result<SceneResult, String> {
    let mut opts = RunOptions::default();
    for (n, b) in images {
        opts.images.insert((*n).to_string(), b.clone());
    }
    // As `hoist run` reads a scene: GLSL/WGSL sections compiled by hoist-front.
    let sc = hoist_front::scene::parse(text, &opts.caps, &hoist_front::Options::default())
        .map_err(|d| format!("{d:?}"))?
        .scene;
    scene::run(&sc, &opts).map_err(|e| e.to_string())
}

/// The document with its pair: a source document compiled as the page's front worker
/// compiles it.
fn with_pair(doc: &Doc) -> Doc {
    let mut d = doc.clone();
    if let Some(src) = doc.source.clone() {
        let c = hoist_web::worker::front::compile(&src)
            .result
            .unwrap_or_else(|e| panic!("{e:?}"));
        hoist_web::worker::front::derive(&mut d, &c);
    }
    d
}

/// The image and probe counts the page shows for the original pair of `doc`.
fn page_render(doc: &Doc, images: &Images) -> (Image, (usize, usize)) {
    let a = analysis::analyze(doc);
    assert_eq!(
        a.vp.errors() + a.fp.errors(),
        0,
        "{:?} {:?}",
        a.vp.diagnostics,
        a.fp.diagnostics
    );
    let plan = render::plan(doc, &a, images)
        .expect("scene")
        .expect("a plan");
    let mut t = Task::new(plan);
    t.run_to_end();
    let run = t.original.expect("ran").expect("rendered");
    (run.image, run.probes)
}

fn same_pixels(a: &Image, b: &Image, what: &str) {
    let v = hoist_raster::compare(a, b);
    assert_eq!(v, Verdict::Identical, "{what}: the images differ");
}

fn display(r: &SceneResult, doc: &Doc) -> Image {
    let sc = doc.scene.as_deref().unwrap_or("");
    let name = examples::hoist_key(sc, "display").unwrap_or_else(|| "window".into());
    r.targets.get(&name).cloned().expect("the displayed target")
}

/// Export, run it as `hoist run` does, compare with the page; import it back.
fn check_round_trip(doc: &Doc, label: &str) -> String {
    let exported = scenefile::export(doc, &[]);
    let run =
        hoist_run(&exported, &[]).unwrap_or_else(|e| panic!("{label}: hoist run: {e}\n{exported}"));
    let (page, probes) = page_render(&with_pair(doc), &Images::new());
    same_pixels(&display(&run, doc), &page, label);
    assert_eq!((run.passed(), run.failed()), probes, "{label}: probes");
    let back = scenefile::import(&exported, Some("x.shader_test"))
        .unwrap_or_else(|e| panic!("{label}: re-import: {e}"))
        .doc;
    assert_eq!(
        (&back.vp, &back.fp, &back.source),
        (&doc.vp, &doc.fp, &doc.source),
        "{label}: programs"
    );
    assert_eq!(
        (back.inputs.width, back.inputs.height),
        (doc.inputs.width, doc.inputs.height)
    );
    assert_eq!(back.opts.target, doc.opts.target, "{label}: target");
    assert_eq!(
        scenefile::export(&back, &[]),
        exported,
        "{label}: export is not a fixed point"
    );
    exported
}

fn corpus() -> Option<Vec<PathBuf>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/piglit");
    if !root.exists() {
        oracles::skip("../shared/corpus/piglit is absent: the piglit import test did not run");
        return None;
    }
    Some(oracles::shader_tests(&root))
}

#[test]
fn every_piglit_arb_test_imports_renders_as_hoist_run_and_exports() {
    let Some(files) = corpus() else { return };
    assert!(!files.is_empty());
    let (mut imported, mut stand_ins, mut retargeted) = (0, 0, 0);
    let mut refused = Vec::new();
    for f in &files {
        let label = f.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(f).expect("utf-8");
        let mut i = match scenefile::import(&text, Some(&label)) {
            Ok(i) => i,
            Err(e) => {
                assert!(e.len() > 20, "{label}: unclear refusal `{e}`");
                refused.push(format!("{label}: {e}"));
                continue;
            }
        };
        imported += 1;
        stand_ins += usize::from(!i.notes.is_empty());
        assert_eq!(i.doc.title.as_deref(), Some(label.as_str()));
        assert!(i.doc.example.is_none());
        // A program over R300's limits: what the page's one-click suggestion does.
        let p = analysis::parse(&i.doc);
        if let Some(t) = p.vp.fits.or(p.fp.fits) {
            i.doc.opts.target = t;
            retargeted += 1;
        }
        let original = hoist_run(&text, &[]).unwrap_or_else(|e| panic!("{label}: {e}"));
        let (page, probes) = page_render(&i.doc, &Images::new());
        same_pixels(&display(&original, &i.doc), &page, &label);
        assert_eq!(
            (original.passed(), original.failed()),
            probes,
            "{label}: probes"
        );
        let exported = check_round_trip(&i.doc, &label);
        // Nothing of a piglit import lives outside its scene: the whole document comes back.
        let mut back = scenefile::import(&exported, Some(&label)).unwrap().doc;
        back.title = i.doc.title.clone();
        assert_eq!(back, i.doc, "{label}: import(export(doc))");
    }
    println!(
        "piglit import: {} files, {imported} imported ({stand_ins} with a fixed-function \
         stand-in, {retargeted} needing a larger ARB target), {} refused",
        files.len(),
        refused.len()
    );
    for r in &refused {
        println!("  refused {r}");
    }
    assert!(imported * 2 > files.len(), "most of the corpus must import");
}

#[test]
fn every_example_exports_to_a_file_hoist_run_agrees_with() {
    for e in examples::EXAMPLES {
        let doc = examples::load(e);
        let out = check_round_trip(&doc, e.id);
        assert!(out.starts_with(NOTE), "{}", e.id);
        // The exported scene's probes are the example's own, and they pass.
        let run = hoist_run(&out, &[]).unwrap();
        let own = hoist_run(e.scene, &[]).unwrap();
        assert_eq!(run.probes.len(), own.probes.len(), "{}", e.id);
        assert_eq!(run.failed(), own.failed(), "{}", e.id);
    }
}

#[test]
fn panel_settings_are_written_as_the_commands_the_page_renders_with() {
    let mut doc = examples::EXAMPLES
        .iter()
        .map(examples::load)
        .find(|d| !analysis::parse(d).params.is_empty())
        .expect("an example with host-set parameters");
    doc.inputs.width = 64;
    doc.inputs.height = 48;
    doc.inputs.set_texture(TexSpec {
        pattern: Pattern::Gradient,
        linear: true,
        size: 32,
        ..TexSpec::new(0)
    });
    let a = analysis::parse(&doc);
    let key = a.params[0];
    doc.inputs.set_param(key, [0.25, -1.5, 1e-7, 3.0]);
    doc.opts.greedy = true;
    doc.opts.target = ArbTarget::G80;
    doc.hand = Some(hoist_web::doc::HandEdit {
        vp: "vs_1_1\nmov oPos, v0\n".into(),
        fp: "ps_2_0\nmov oC0, c0\n".into(),
        base: None,
    });
    let out = scenefile::export(&doc, &[]);
    assert!(
        out.contains(&format!(
            "{NOTE} optimizer options set in the page (not part of the file): greedy = true\n"
        )),
        "{out}"
    );
    assert!(out.contains(&format!("{NOTE}   mov oC0, c0")), "{out}");
    assert!(out.contains("target = g80"), "{out}");
    assert!(
        out.contains("window rgba32f 64 48") || out.contains("SIZE 64 48"),
        "{out}"
    );
    let mut plain = doc.clone();
    plain.hand = None;
    let run = hoist_run(&out, &[]).unwrap();
    let (page, _) = page_render(&plain, &Images::new());
    same_pixels(&display(&run, &plain), &page, "panel settings");
    let back = scenefile::import(&out, None).unwrap().doc;
    assert_eq!(back.opts.target, ArbTarget::G80);
    assert!(back.hand.is_none() && back.inputs.params.is_empty());
    assert_eq!((back.inputs.width, back.inputs.height), (64, 48));
    same_pixels(&page_render(&back, &Images::new()).0, &page, "re-imported");
}

/// A unit sampled through a shadow target is exported as the depth texture with compare
/// LEQUAL the page renders with, and `hoist run` reads that line back as the same command.
#[test]
fn a_shadow_unit_is_written_as_its_depth_texture() {
    let mut spec = TexSpec::new(0);
    spec.pattern = Pattern::Noise;
    spec.size = 16;
    let line = scenefile::texture_line(&spec, TexTarget::Shadow2D, None);
    assert!(line.contains("format depth compare lequal"), "{line}");
    let cmd = render::texture_command(&spec, TexTarget::Shadow2D, &Images::new());
    let back = scene::parse(&format!("[test]\n{line}\n"), &render::caps()).unwrap();
    assert_eq!(back.commands[0].1, cmd);
    let colour = scenefile::texture_line(&spec, TexTarget::T2D, None);
    assert!(
        !colour.contains("depth") && !colour.contains("compare"),
        "{colour}"
    );
}

#[test]
fn a_user_picture_is_named_in_the_file_and_loaded_beside_it() {
    let mut doc = examples::load(examples::find("paper/fig3").unwrap());
    let mut img = Image::new(4, 4, [0.0; 4]);
    for (i, p) in img.pixels.iter_mut().enumerate() {
        *p = [i as f32 / 16.0, 0.5, 1.0 - i as f32 / 16.0, 1.0];
    }
    let png = hoist_raster::image::encode_png(&img, &Default::default()).unwrap();
    doc.inputs.set_texture(TexSpec {
        pattern: Pattern::Image,
        ..TexSpec::new(0)
    });
    let out = scenefile::export(&doc, &[(0, "photo.png".into())]);
    assert!(out.contains("texture image 0 photo.png"), "{out}");
    assert!(out.contains("put that file next to this one"), "{out}");
    let run = hoist_run(&out, &[("photo.png", png.clone())]).unwrap();
    let mut images = Images::new();
    images.insert(0, std::rc::Rc::new(png));
    let (page, _) = page_render(&doc, &images);
    same_pixels(&display(&run, &doc), &page, "picture");
}

#[test]
fn what_cannot_be_imported_is_refused_with_the_reason() {
    // GLSL vertex and fragment shaders are source mode's; other stages are refused.
    let glsl = "[require]\nGLSL >= 1.10\n\n[vertex shader]\nvoid main() {}\n\n[test]\ndraw rect -1 -1 2 2\n";
    let d = scenefile::import(glsl, None).unwrap().doc;
    let src = d.source.expect("a source document");
    assert_eq!(src.glsl_vs, "void main() {}\n");
    assert!(src.glsl_fs.is_empty() && d.vp.is_empty());
    let geom = glsl.replace("[test]", "[geometry shader]\nvoid main() {}\n\n[test]");
    let e = scenefile::import(&geom, None).unwrap_err();
    assert!(e.contains("[geometry shader]"), "{e}");
    let e = scenefile::import("[require]\n\n[test]\ndraw rect -1 -1 2 2\n", None).unwrap_err();
    assert!(e.contains("neither a vertex nor a fragment program"), "{e}");
    let e =
        scenefile::import("[vertex program]\n!!ARBvp1.0\nEND\n\n[test]\nfly\n", None).unwrap_err();
    assert!(e.contains("line 6"), "{e}");
    let d3d = "[fragment program]\nps_2_0\nmov oC0, c0\n\n[test]\ndraw quad\n";
    let e = scenefile::import(d3d, None).unwrap_err();
    assert!(e.contains("Direct3D 9"), "{e}");
    let bad_target = "[hoist]\ntarget = r9000\n\n[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n\n[fragment program]\n!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n\n[test]\ndraw quad\n";
    let e = scenefile::import(bad_target, None).unwrap_err();
    assert!(e.contains("r9000"), "{e}");
    let huge = "#".repeat(scenefile::MAX_FILE + 1);
    assert!(scenefile::import(&huge, None).unwrap_err().contains("KiB"));
}

#[test]
fn programs_never_look_like_scenes_and_scenes_do() {
    for e in examples::EXAMPLES {
        let d = examples::load(e);
        assert!(
            !scenefile::looks_like_scene(&d.vp) && !scenefile::looks_like_scene(&d.fp),
            "{}",
            e.id
        );
        assert!(scenefile::looks_like_scene(e.scene), "{}", e.id);
    }
    assert!(!scenefile::looks_like_scene(
        "!!ARBfp1.0\nMOV result.color, c[0];\nEND\n"
    ));
}

#[test]
fn file_names_are_safe() {
    let mut d = Doc::default();
    assert_eq!(scenefile::file_name(&d), "untitled.shader_test");
    d.title = Some("../my kernel.shader_test".into());
    assert_eq!(scenefile::file_name(&d), "my-kernel.shader_test");
    d.example = Some("paper/fig3".into());
    assert_eq!(scenefile::file_name(&d), "fig3.shader_test");
}

#[test]
fn the_end_to_end_fixture_imports_and_passes_its_probes() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/fixtures/import.shader_test");
    let text = std::fs::read_to_string(path).expect("fixture");
    let r = hoist_run(&text, &[]).unwrap();
    assert_eq!((r.passed(), r.failed()), (4, 0));
    let doc = scenefile::import(&text, Some("import.shader_test"))
        .unwrap()
        .doc;
    assert_eq!(page_render(&doc, &Images::new()).1, (4, 0));
    check_round_trip(&doc, "fixture");
}

/// A source document exports as a source file — its sources in their sections, its output
/// choices as `[hoist]` keys — that `hoist run` compiles as the page does (the probes, the
/// GPU's pixels, pass), and that imports back to the same source.
#[test]
fn a_source_document_exports_its_source_and_imports_back() {
    for id in ["wgsl/lighting", "glsl/webgl-textured"] {
        let mut doc = examples::load(examples::find(id).unwrap());
        let src = doc.source.as_mut().unwrap();
        src.dialect = Some(hoist_asm::Dialect::D3d9);
        let out = scenefile::export(&doc, &[]);
        assert!(out.contains("dialect = d3d9"), "{out}");
        assert!(
            !out.contains("[vertex program]"),
            "no assembly in a source file: {out}"
        );
        // `hoist run`: compiled and run by hoist-front's scene reader.
        let parsed = hoist_front::scene::parse(
            &out,
            &hoist_raster::Caps::default(),
            &hoist_front::Options::default(),
        )
        .unwrap_or_else(|e| panic!("{id}: {e:?}"));
        let t = parsed.translated.expect("compiled");
        assert_eq!(t.compiled.dialect, hoist_asm::Dialect::D3d9);
        let r = scene::run(&parsed.scene, &RunOptions::default()).unwrap();
        assert!(
            r.passed() > 0 && r.failed() == 0,
            "{id}: {:?}",
            (r.passed(), r.failed())
        );
        // And back into the page.
        let back = scenefile::import(&out, None).unwrap().doc;
        assert_eq!(back.source, doc.source, "{id}");
    }
}

/// Issue 27, item 2: Figure 3 resized to 512×384. The Scene panel's text, the render and
/// Export are one text (`scene_size`): the window is the new size, the three probes placed
/// in 256×256 pixels move to the same places in the picture, and `hoist run` passes them
/// (before, the file said `SIZE 512 384` with the old probe pixels and failed all three).
#[test]
fn a_resized_document_exports_a_file_whose_probes_pass_at_its_size() {
    let mut doc = examples::load(examples::find("paper/fig3").unwrap());
    (doc.inputs.width, doc.inputs.height) = (512, 384);
    let panel = hoist_web::doc::scene_size::of(&doc).expect("a scene");
    assert!(
        panel.text.contains("window rgba32f 512 384\n") && !panel.text.contains("256 256"),
        "{}",
        panel.text
    );
    let out = scenefile::export(&doc, &[]);
    assert!(out.contains("window rgba32f 512 384\n"), "{out}");
    assert!(
        out.contains(&format!(
            "{NOTE} the scene states 256×256; the page draws it at 512×384"
        )) && out.contains("3 probes placed in pixels moved"),
        "{out}"
    );
    let run = hoist_run(&out, &[]).unwrap();
    assert_eq!((run.passed(), run.failed()), (3, 0), "{out}");
    let (page, probes) = page_render(&doc, &Images::new());
    assert_eq!(probes, (3, 0), "the page runs the same probes");
    assert_eq!((page.width, page.height), (512, 384));
    same_pixels(&display(&run, &doc), &page, "fig3 at 512×384");
    // The file imports at its size, with the probes where the export put them.
    let back = scenefile::import(&out, None).unwrap().doc;
    assert_eq!((back.inputs.width, back.inputs.height), (512, 384));
    assert_eq!(page_render(&back, &Images::new()).1, (3, 0));
}

/// Every example and every piglit import drawn at another size: the exported file runs
/// under `hoist run` to the page's image and the page's probe results (whatever they are:
/// a probe of a picture that depends on its size may fail, on both alike).
#[test]
fn at_any_size_the_export_agrees_with_the_page() {
    let mut docs: Vec<(String, Doc)> = examples::EXAMPLES
        .iter()
        .map(|e| (e.id.to_string(), examples::load(e)))
        .collect();
    for f in corpus().unwrap_or_default() {
        let text = std::fs::read_to_string(&f).expect("utf-8");
        if let Ok(i) = scenefile::import(&text, None)
            && analysis::parse(&i.doc).vp.fits.is_none()
            && analysis::parse(&i.doc).fp.fits.is_none()
        {
            docs.push((f.file_name().unwrap().to_string_lossy().into(), i.doc));
        }
    }
    let (mut passing, mut moved_probes, total) = (0, 0, docs.len());
    for (label, mut doc) in docs {
        let (w, h) = (doc.inputs.width, doc.inputs.height);
        (doc.inputs.width, doc.inputs.height) = ((w * 3 / 2).max(2), (h * 2 / 3).max(2));
        let out = scenefile::export(&doc, &[]);
        let run = hoist_run(&out, &[]).unwrap_or_else(|e| panic!("{label}: {e}\n{out}"));
        let (page, probes) = page_render(&with_pair(&doc), &Images::new());
        same_pixels(&display(&run, &doc), &page, &label);
        assert_eq!((run.passed(), run.failed()), probes, "{label}: probes");
        passing += usize::from(probes.1 == 0);
        moved_probes += usize::from(out.contains("probes placed in pixels moved"));
    }
    println!(
        "resized by (3/2, 2/3): {total} documents, {passing} pass every probe; {moved_probes} \
         had pixel probes moved"
    );
}

//! The browser differentials: every example scene (`examples/wgsl`, `examples/glsl`) and a
//! sample of generated WGSL programs (one per builtin, `hoist_front::generate`) rendered
//! by Chromium's own compilers — WebGPU (Dawn/Tint on SwiftShader) for WGSL, WebGL2
//! (ANGLE on SwiftShader) for GLSL ES — and by the executor running Hoist's compiled
//! assembly in both dialects, with the same uniforms, textures and quad; the images must
//! agree within `TOLERANCE` at every pixel. Needs node, `tests/e2e/node_modules` and
//! Chromium (`tests/gpu/render.mjs`); skips with a notice when they are missing (fails
//! under `HOIST_REQUIRE_ORACLES=1`).

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

use hoist_asm::{Dialect, ParseOptions};
use hoist_front::{Compiled, Options};
use hoist_raster::scene::{Command, ParamKind, RunOptions, TexSource};
use hoist_raster::{Filter, Geometry, RenderConfig, Sampler, TexFormat, Texture, Wrap};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const SIZE: u32 = 32;
/// Largest |Δ| allowed per channel (SwiftShader's sin/cos/pow/rsq differ from the
/// executor's libm in the last bits; texture coordinates never land on texel edges).
const TOLERANCE: f32 = 2e-3;
const TEX: u32 = 8;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rand(seed: &mut u64) -> f32 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn quad() -> Vec<f32> {
    vec![
        -1., -1., 0., 1., 0., 0., 1., -1., 0., 1., 1., 0., -1., 1., 0., 1., 0., 1., 1., 1., 0., 1.,
        1., 1.,
    ]
}

fn texels(seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    (0..TEX * TEX * 4)
        .map(|_| ((rand(&mut s) * 0.5 + 0.5) * 255.0) as u8)
        .collect()
}

/// Uniform values per slot (deterministic), in [-1, 1] (positive for names that read as
/// sizes or exponents, so the examples stay in range).
fn slot_values(c: &Compiled, seed: u64) -> Vec<(u16, [f32; 4])> {
    let mut s = seed | 1;
    let mut out = Vec::new();
    for u in &c.bindings.uniforms {
        if u.state.as_deref() == Some("viewport") {
            out.push((u.slot, [SIZE as f32, SIZE as f32, 0.0, 0.0]));
            continue;
        }
        for k in 0..u.slots {
            let mut v = [0.0; 4];
            for x in v.iter_mut().take(usize::from(u.lanes)) {
                let r = rand(&mut s);
                let lname = u.name.to_ascii_lowercase();
                *x = if lname.contains("shin")
                    || lname.contains("freq")
                    || lname.contains("zoom")
                    || lname.contains("contrast")
                {
                    2.0 + 6.0 * r.abs()
                } else {
                    r
                };
            }
            out.push((u.slot + k, v));
        }
    }
    out
}

fn hoist_render(c: &Compiled, slots: &[(u16, [f32; 4])], tex: &[u8]) -> Vec<f32> {
    let p = |t: &str| {
        hoist_asm::parse(
            t,
            &ParseOptions::default().with_target(t, hoist_asm::ArbTarget::G80),
        )
        .program
        .expect("parses")
    };
    let (vp, fp) = (p(&c.vp), p(&c.fp));
    let mut cfg = RenderConfig {
        width: SIZE,
        height: SIZE,
        ..RenderConfig::default()
    };
    cfg.geometry = Geometry::Rect {
        x: -1.0,
        y: -1.0,
        w: 2.0,
        h: 2.0,
        tex: Some([0.0, 0.0, 1.0, 1.0]),
    };
    for (s, v) in slots {
        let bank = |sp: &mut hoist_raster::StageParams| {
            if c.dialect == Dialect::Arb {
                sp.local.insert(*s, *v)
            } else {
                sp.env.insert(*s, *v)
            }
        };
        bank(&mut cfg.params.vertex);
        bank(&mut cfg.params.fragment);
    }
    for t in &c.bindings.textures {
        let texels: Vec<[f32; 4]> = tex
            .chunks(4)
            .map(|q| [0, 1, 2, 3].map(|i| f32::from(q[i]) / 255.0))
            .collect();
        let tx = Texture::new_2d(
            TEX,
            TEX,
            texels,
            TexFormat::Rgba8,
            Sampler::new(Filter::Nearest, Wrap::ClampToEdge),
        );
        cfg.textures.insert(t.unit, Arc::new(tx));
    }
    let r = hoist_raster::render(Some(&vp), Some(&fp), &cfg).expect("renders");
    r.image.pixels.iter().flatten().copied().collect()
}

/// The WebGPU job of a WGSL module: uniform buffers laid out by the binding table's byte
/// offsets; the texture and sampler at the bindings the source declares.
fn webgpu_job(
    name: &str,
    wgsl: &str,
    c: &Compiled,
    slots: &[(u16, [f32; 4])],
    tex: &[u8],
) -> Value {
    let mut buffers: Vec<(u32, u32, Vec<f32>)> = Vec::new();
    for u in c.bindings.uniforms.iter().filter(|u| u.state.is_none()) {
        let i = match buffers
            .iter()
            .position(|b| b.0 == u.group && b.1 == u.binding)
        {
            Some(i) => i,
            None => {
                buffers.push((u.group, u.binding, Vec::new()));
                buffers.len() - 1
            }
        };
        let stride = if u.lanes <= 2 { 8 } else { 16 };
        for k in 0..u.slots {
            let v = slots
                .iter()
                .find(|s| s.0 == u.slot + k)
                .map_or([0.0; 4], |s| s.1);
            let at = (u.offset + u32::from(k) * stride) as usize / 4;
            let buf = &mut buffers[i].2;
            if buf.len() < at + 4 {
                buf.resize(at + 4, 0.0);
            }
            buf[at..at + usize::from(u.lanes)].copy_from_slice(&v[..usize::from(u.lanes)]);
        }
    }
    let decl = |kind: &str| -> Vec<Value> {
        wgsl.lines()
            .filter(|l| l.contains("@binding") && l.contains(kind))
            .map(|l| {
                let num = |key: &str| l.split(key).nth(1).and_then(|r| r.split(')').next()).and_then(|n| n.trim().parse::<u32>().ok()).unwrap_or(0);
                json!({"group": num("@group("), "binding": num("@binding("), "width": TEX, "height": TEX, "data": tex})
            })
            .collect()
    };
    json!({
        "name": name, "api": "webgpu", "width": SIZE, "height": SIZE, "wgsl": wgsl,
        "vertex": "vs", "fragment": "fs", "vertices": quad(),
        "buffers": buffers.iter().map(|(g, b, d)| json!({"group": g, "binding": b, "data": d})).collect::<Vec<_>>(),
        "textures": decl("texture_2d"), "samplers": decl(": sampler"),
    })
}

fn webgl2_job(
    name: &str,
    vs: &str,
    fs: &str,
    c: &Compiled,
    slots: &[(u16, [f32; 4])],
    tex: &[u8],
) -> Value {
    let uniforms: Vec<Value> = c
        .bindings
        .uniforms
        .iter()
        .filter(|u| u.state.is_none())
        .map(|u| {
            let mut d = Vec::new();
            for k in 0..u.slots {
                let v = slots
                    .iter()
                    .find(|s| s.0 == u.slot + k)
                    .map_or([0.0; 4], |s| s.1);
                d.extend_from_slice(&v[..usize::from(u.lanes)]);
            }
            let ty = match (u.slots, u.lanes) {
                (1, 1) => "float".to_string(),
                (1, n) => format!("vec{n}"),
                (n, _) => format!("mat{n}"),
            };
            json!({"name": u.name, "type": ty, "data": d})
        })
        .collect();
    let textures: Vec<Value> = c
        .bindings
        .textures
        .iter()
        .map(|t| json!({"name": t.name, "unit": t.unit, "width": TEX, "height": TEX, "data": tex}))
        .collect();
    let attributes: serde_json::Map<String, Value> = c
        .bindings
        .attributes
        .iter()
        .map(|a| (a.name.clone(), json!(a.location)))
        .collect();
    // WebGL2 wants ES: a WebGL 1 shader stays as written (GLSL ES 1.00).
    json!({
        "name": name, "api": "webgl2", "width": SIZE, "height": SIZE, "vs": vs, "fs": fs,
        "vertices": quad(), "uniforms": uniforms, "textures": textures, "attributes": attributes,
    })
}

struct Case {
    name: String,
    job: Value,
    hoist: Vec<f32>,
}

fn browser(jobs: &[Value]) -> Option<Vec<Value>> {
    let root = root();
    if !root.join("tests/e2e/node_modules/playwright-core").exists()
        || !Path::new("/usr/bin/chromium").exists()
    {
        oracles::skip(
            "the browser oracle needs tests/e2e/node_modules (scripts/setup.sh) and /usr/bin/chromium",
        );
        return None;
    }
    let dir = oracles::scratch("gpu");
    let (jp, op) = (dir.join("jobs.json"), dir.join("out.json"));
    std::fs::write(&jp, serde_json::to_string(jobs).ok()?).ok()?;
    let st = std::process::Command::new("node")
        .arg(root.join("tests/gpu/render.mjs"))
        .arg(&jp)
        .arg(&op)
        .status();
    match st {
        Ok(s) if s.success() => {}
        other => {
            oracles::skip(&format!("node tests/gpu/render.mjs failed: {other:?}"));
            return None;
        }
    }
    let out: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&op).ok()?).ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        out.len(),
        jobs.len(),
        "the browser answered a different batch"
    );
    for (j, r) in jobs.iter().zip(&out) {
        assert_eq!(
            j["name"], r["name"],
            "the browser answered a different batch"
        );
    }
    Some(out)
}

/// Largest |Δ| between the browser's pixels and Hoist's (∞ for NaN), or the browser's refusal.
fn delta(case: &Case, r: &Value) -> Result<f32, String> {
    if let Some(e) = r.get("error") {
        return Err(format!("{}: the browser refused it: {e}", case.name));
    }
    let px: Vec<f32> = r["pixels"]
        .as_array()
        .expect("pixels")
        .iter()
        .map(|v| v.as_f64().unwrap_or(f64::NAN) as f32)
        .collect();
    assert_eq!(px.len(), case.hoist.len(), "{}", case.name);
    Ok(px
        .iter()
        .zip(&case.hoist)
        .map(|(a, b)| (a - b).abs())
        .fold(
            0.0f32,
            |m, x| if x.is_nan() { f32::INFINITY } else { m.max(x) },
        ))
}

/// Renders every case in the browser and compares.
fn compare(cases: &[Case]) {
    let jobs: Vec<Value> = cases.iter().map(|c| c.job.clone()).collect();
    let Some(out) = browser(&jobs) else { return };
    let mut worst = 0.0f32;
    let mut failures = Vec::new();
    for (case, r) in cases.iter().zip(&out) {
        match delta(case, r) {
            Ok(d) if d <= TOLERANCE => worst = worst.max(d),
            Ok(d) => failures.push(format!("{}: worst |Δ| {d}", case.name)),
            Err(e) => failures.push(e),
        }
    }
    println!(
        "{} pairs, worst |Δ| {worst:e} (tolerance {TOLERANCE:e})",
        cases.len()
    );
    assert!(failures.is_empty(), "differences:\n{}", failures.join("\n"));
}

fn wgsl_case(name: &str, src: &str, dialect: Dialect, seed: u64) -> Case {
    let c = hoist_front::compile_wgsl(
        src,
        &Options {
            dialect: Some(dialect),
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {:?}", e.diagnostics));
    let slots = slot_values(&c, seed);
    let tex = texels(seed);
    Case {
        name: format!("{name} ({dialect:?})"),
        hoist: hoist_render(&c, &slots, &tex),
        job: webgpu_job(name, src, &c, &slots, &tex),
    }
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "shader_test"))
        .collect();
    v.sort();
    v
}

/// The body of section `[name]` of a scene.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let head = format!("[{name}]\n");
    let Some(at) = text.find(&head) else {
        return "";
    };
    let body = &text[at + head.len()..];
    let end = body.find("\n[").map_or(body.len(), |e| e + 1);
    &body[..end]
}

/// What an example scene draws, for the browser: its window size, the parameter slots
/// its `uniform` lines set, its texture (as RGBA8 texels) and its draw's quad.
struct Drawn {
    size: u32,
    tex_size: (u32, u32),
    slots: Vec<(u16, [f32; 4])>,
    texels: Vec<u8>,
    vertices: Vec<f32>,
}

fn drawn(name: &str, scene: &hoist_raster::scene::Scene) -> Drawn {
    let mut d = Drawn {
        size: SIZE,
        tex_size: (TEX, TEX),
        slots: Vec::new(),
        texels: Vec::new(),
        vertices: Vec::new(),
    };
    for (_, c) in &scene.commands {
        match c {
            Command::Window(_, w, h) => {
                assert_eq!(w, h, "{name}: square windows only");
                d.size = *w;
            }
            Command::Param {
                stage: hoist_asm::Stage::Fragment,
                kind: ParamKind::Local | ParamKind::Env,
                index,
                value,
            } => d.slots.push((*index, *value)),
            Command::Texture(unit, TexSource::Pattern(p, w, h), o) => {
                assert_eq!(*unit, 0, "{name}: one texture, on unit 0");
                assert!(
                    o.sampler.mag == Filter::Nearest && o.sampler.wrap == Wrap::ClampToEdge,
                    "{name}: the browser job samples nearest, clamped"
                );
                d.tex_size = (*w, *h);
                let img = hoist_raster::pattern::generate(p, *w, *h);
                d.texels = img
                    .pixels
                    .iter()
                    .flat_map(|px| px.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8))
                    .collect();
            }
            Command::Draw(Geometry::Rect {
                x,
                y,
                w,
                h,
                tex: Some([s, t, sw, th]),
            }) => {
                let mut v = Vec::new();
                for (px, py, u, vv) in [
                    (*x, *y, *s, *t),
                    (x + w, *y, s + sw, *t),
                    (*x, y + h, *s, t + th),
                    (x + w, y + h, s + sw, t + th),
                ] {
                    v.extend([px, py, 0.0, 1.0, u, vv]);
                }
                d.vertices = v;
            }
            _ => {}
        }
    }
    assert!(!d.vertices.is_empty(), "{name}: no `draw rect tex`");
    d
}

fn example_case(path: &Path, dialect: Dialect) -> Case {
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).expect("read");
    let opts = Options {
        dialect: Some(dialect),
        ..Options::default()
    };
    let ro = RunOptions::default();
    let p = hoist_front::scene::parse(&text, &ro.caps, &opts)
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let r = hoist_raster::scene::run(&p.scene, &ro).expect("runs");
    let hoist: Vec<f32> = r.targets["window"]
        .pixels
        .iter()
        .flatten()
        .copied()
        .collect();
    let c = &p.translated.as_ref().expect("compiled").compiled;
    let d = drawn(&name, &p.scene);
    let mut job = if text.contains("[wgsl]") {
        webgpu_job(&name, section(&text, "wgsl"), c, &d.slots, &d.texels)
    } else {
        webgl2_job(
            &name,
            section(&text, "vertex shader"),
            section(&text, "fragment shader"),
            c,
            &d.slots,
            &d.texels,
        )
    };
    job["width"] = json!(d.size);
    job["height"] = json!(d.size);
    if let Some(ts) = job["textures"].as_array_mut() {
        for t in ts {
            t["width"] = json!(d.tex_size.0);
            t["height"] = json!(d.tex_size.1);
        }
    }
    job["vertices"] = json!(d.vertices);
    Case {
        name: format!("{name} ({dialect:?})"),
        hoist,
        job,
    }
}

#[test]
fn webgpu_agrees_on_the_wgsl_examples() {
    let mut cases = Vec::new();
    for f in files("examples/wgsl") {
        for d in [Dialect::Arb, Dialect::D3d9] {
            cases.push(example_case(&f, d));
        }
    }
    assert!(cases.len() >= 10);
    compare(&cases);
}

#[test]
fn webgl2_agrees_on_the_glsl_examples() {
    let mut cases = Vec::new();
    for f in files("examples/glsl") {
        for d in [Dialect::Arb, Dialect::D3d9] {
            cases.push(example_case(&f, d));
        }
    }
    assert!(cases.len() >= 8);
    compare(&cases);
}

/// One generated program per builtin (seeds `0 .. BUILTINS.len()`), each in the dialects
/// it compiles for; depth comparisons are left out (the browser job binds colour
/// textures only) and counted.
#[test]
fn webgpu_agrees_on_generated_programs() {
    let n = hoist_front::generate::BUILTINS.len() as u64;
    let mut cases = Vec::new();
    let mut left_out = 0;
    for seed in 0..n {
        let g = hoist_front::generate::wgsl(seed);
        if !g.d3d9() {
            left_out += 1;
            continue;
        }
        for (d, ok) in [(Dialect::Arb, g.arb()), (Dialect::D3d9, true)] {
            if ok {
                cases.push(wgsl_case(&g.label(), &g.wgsl, d, 1000 + seed));
            }
        }
    }
    println!(
        "generated: {} programs, {left_out} depth-compare programs left out",
        n
    );
    compare(&cases);
}

/// The probe lines of the examples, from the browser's images (what pins the examples'
/// results: `cargo test -p hoist-front --test gpu -- --ignored --nocapture probes`).
#[test]
#[ignore]
fn probes_from_the_browser() {
    let mut paths = files("examples/wgsl");
    paths.extend(files("examples/glsl"));
    let cases: Vec<Case> = paths
        .iter()
        .map(|p| example_case(p, Dialect::Arb))
        .collect();
    let jobs: Vec<Value> = cases.iter().map(|c| c.job.clone()).collect();
    let Some(out) = browser(&jobs) else { return };
    for ((case, r), path) in cases.iter().zip(&out).zip(&paths) {
        let size = case.job["width"].as_u64().unwrap_or(32) as usize;
        let px: Vec<f64> = r["pixels"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: {r}", case.name))
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect();
        println!("== {}", path.display());
        for (fx, fy) in [
            (0.1, 0.15),
            (0.5, 0.5),
            (0.85, 0.3),
            (0.3, 0.8),
            (0.75, 0.75),
        ] {
            let (x, y) = ((fx * size as f64) as usize, (fy * size as f64) as usize);
            let at = (y * size + x) * 4;
            let v: Vec<String> = px[at..at + 4].iter().map(|c| format!("{c:.4}")).collect();
            println!("probe rgba {x} {y} ({})", v.join(", "));
        }
    }
}

//! The browser differentials: every example pair (and generated WGSL programs) rendered by
//! Chromium's own compilers — WebGPU for WGSL, WebGL2 for GLSL ES — and by the executor
//! running Hoist's compiled assembly, with the same uniforms, texture and quad; the images
//! must agree within `TOLERANCE`. Needs node, `tests/e2e/node_modules` and Chromium; skips
//! with a notice when they are missing (fails under `HOIST_REQUIRE_ORACLES=1`).

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

use hoist_asm::{Dialect, ParseOptions};
use hoist_front::{Compiled, Options};
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
    for u in &c.bindings.uniforms {
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
    let tag = jobs
        .first()
        .and_then(|j| j["api"].as_str())
        .unwrap_or("none")
        .to_string();
    let dir = std::env::temp_dir().join(format!("hoist-gpu-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
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
    serde_json::from_str(&std::fs::read_to_string(&op).ok()?).ok()
}

fn compare(cases: &[Case]) {
    let jobs: Vec<Value> = cases.iter().map(|c| c.job.clone()).collect();
    let Some(out) = browser(&jobs) else { return };
    let mut worst = 0.0f32;
    let mut failures = Vec::new();
    for (case, r) in cases.iter().zip(&out) {
        if let Some(e) = r.get("error") {
            failures.push(format!("{}: the browser refused it: {e}", case.name));
            continue;
        }
        let px: Vec<f32> = r["pixels"]
            .as_array()
            .expect("pixels")
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN) as f32)
            .collect();
        assert_eq!(px.len(), case.hoist.len(), "{}", case.name);
        let d = px
            .iter()
            .zip(&case.hoist)
            .map(|(a, b)| (a - b).abs())
            .fold(
                0.0f32,
                |m, x| if x.is_nan() { f32::INFINITY } else { m.max(x) },
            );
        worst = worst.max(d);
        if d > TOLERANCE {
            failures.push(format!("{}: worst |Δ| {d}", case.name));
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

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn webgpu_agrees_on_the_wgsl_examples() {
    let mut cases = Vec::new();
    for (i, f) in files("examples/wgsl", "wgsl").iter().enumerate() {
        let src = std::fs::read_to_string(f).expect("read");
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        for d in [Dialect::Arb, Dialect::D3d9] {
            cases.push(wgsl_case(&name, &src, d, 17 + i as u64));
        }
    }
    compare(&cases);
}

#[test]
fn webgl2_agrees_on_the_glsl_examples() {
    let mut cases = Vec::new();
    for (i, v) in files("examples/glsl", "vert").iter().enumerate() {
        let vs = std::fs::read_to_string(v).expect("read");
        let fs = std::fs::read_to_string(v.with_extension("frag")).expect("read");
        let name = v.file_stem().unwrap().to_string_lossy().to_string();
        for d in [Dialect::Arb, Dialect::D3d9] {
            let c = hoist_front::compile_glsl(
                &vs,
                &fs,
                &Options {
                    dialect: Some(d),
                    ..Options::default()
                },
            )
            .unwrap_or_else(|e| panic!("{name}: {:?}", e.diagnostics));
            let slots = slot_values(&c, 31 + i as u64);
            let tex = texels(31 + i as u64);
            cases.push(Case {
                name: format!("{name} ({d:?})"),
                hoist: hoist_render(&c, &slots, &tex),
                job: webgl2_job(&name, &vs, &fs, &c, &slots, &tex),
            });
        }
    }
    compare(&cases);
}

//! The differential's machinery (tests/gpu.rs): cases with the executor's results and their
//! GPU plans, the browser oracle (`js/harness.mjs`), the judgement of one GPU result against
//! the executor, and the explanation of a difference: the fragment program cut after each
//! instruction (its destination moved to the colour output) and rendered both ways, so the
//! first instruction whose result differs names the class.

use super::oracles;
use hoist_asm::ir::{Dst, Src, TexTarget};
use hoist_asm::{Inst, Op, Program, Reg, RegFile, WriteMask};
use hoist_gpu::check::{GpuResult, agreement, probes};
use hoist_gpu::plan::Plan;
use hoist_raster::image::Image;
use hoist_raster::scene::{Command, ProbeResult, RunOptions, Scene};
use hoist_raster::{Geometry, RenderConfig, TargetFormat};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

pub const APIS: [&str; 2] = ["webgpu", "webgl2"];

/// What the executor produced.
pub struct Exact {
    pub probes: Vec<ProbeResult>,
    pub targets: BTreeMap<String, Image>,
}

/// A bare pair and its draw (kept so a difference can be explained).
pub type PairInputs = (Option<Program>, Option<Program>, RenderConfig);

pub struct Case {
    pub name: String,
    pub group: &'static str,
    pub plan: Result<Plan, String>,
    pub exact: Result<Exact, String>,
    /// Allowed |Δ| per channel on its targets.
    pub tolerance: f32,
    pub pair: Option<PairInputs>,
}

/// RGBA8 windows: one step of 1/255 (a value at a rounding boundary); float targets 2e-3
/// (SwiftShader's transcendentals and f32 interpolation against libm and f64).
fn tolerance(scene: &Scene) -> f32 {
    let float = scene
        .commands
        .iter()
        .any(|(_, c)| matches!(c, Command::Window(TargetFormat::Rgba32F, ..)));
    if float {
        hoist_gpu::check::FLOAT_TOLERANCE
    } else {
        hoist_gpu::check::RGBA8_TOLERANCE
    }
}

pub fn scene_case(name: String, group: &'static str, scene: &Scene) -> Case {
    let ro = RunOptions::default();
    Case {
        name,
        group,
        tolerance: tolerance(scene),
        plan: hoist_gpu::plan::plan(scene, &ro),
        exact: hoist_raster::scene::run(scene, &ro)
            .map(|r| Exact {
                probes: r.probes,
                targets: r.targets,
            })
            .map_err(|e| e.to_string()),
        pair: None,
    }
}

pub fn pair_case(name: String, group: &'static str, inputs: PairInputs) -> Case {
    let (vp, fp, cfg) = &inputs;
    Case {
        name,
        group,
        tolerance: hoist_gpu::check::FLOAT_TOLERANCE,
        plan: hoist_gpu::plan::plan_render(vp.as_ref(), fp.as_ref(), cfg),
        exact: hoist_raster::render(vp.as_ref(), fp.as_ref(), cfg)
            .map(|r| Exact {
                probes: Vec::new(),
                targets: BTreeMap::from([("window".to_string(), r.image)]),
            })
            .map_err(|e| e.to_string()),
        pair: Some(inputs),
    }
}

fn rand(s: &mut u64) -> f32 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    ((*s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
}

/// The GPGPU quad, 32×32 RGBA32F, every parameter slot random in [-2, 2] (the generator's
/// range), each unit the programs sample the generator's texture of its target.
pub fn quad_config(seed: u64, programs: &[&Program]) -> RenderConfig {
    let mut cfg = RenderConfig {
        width: 32,
        height: 32,
        geometry: Geometry::Quad,
        ..RenderConfig::default()
    };
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in 0..256u16 {
        for bank in [&mut cfg.params.vertex, &mut cfg.params.fragment] {
            let v = [rand(&mut s), rand(&mut s), rand(&mut s), rand(&mut s)];
            bank.env.insert(i, v);
            bank.local.insert(i, v);
        }
    }
    for p in programs {
        cfg.textures.extend(hoist_verify::generate::textures(p));
    }
    // An experiment (docs/gpu-translation.md): cube maps sampled nearest, one level.
    if std::env::var("HOIST_GPU_CUBE_NEAREST").is_ok() {
        for t in cfg.textures.values_mut() {
            if t.shape == hoist_raster::texture::TexShape::Cube {
                let mut c = (**t).clone();
                c.sampler = hoist_raster::Sampler::new(
                    hoist_raster::Filter::Nearest,
                    hoist_raster::Wrap::ClampToEdge,
                );
                c.levels.truncate(1);
                *t = std::sync::Arc::new(c);
            }
        }
    }
    cfg
}

pub fn generated_case(seed: u64, d3d9: bool) -> Case {
    let (label, vp, fp) = super::generated(seed, d3d9);
    let cfg = quad_config(seed, &[&vp, &fp]);
    let group = if d3d9 {
        "generated D3D9"
    } else {
        "generated ARB"
    };
    pair_case(label, group, (Some(vp), Some(fp), cfg))
}

/// Every example scene, and its optimized pair in its place.
pub fn example_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for f in super::examples() {
        let name = f
            .strip_prefix(super::root().join("examples"))
            .unwrap()
            .display()
            .to_string();
        let scene = super::scene(&f);
        cases.push(scene_case(name.clone(), "example", &scene));
        let Some(pair) = scene.programs.get(scene.optimize_target()) else {
            continue;
        };
        let (Some(vp), Some(fp)) = (&pair.vertex, &pair.fragment) else {
            continue;
        };
        let text = std::fs::read_to_string(&f).unwrap();
        let opts = hoist_opt::Options {
            mirror_params: hoist_front::scene::has_sources(&text),
            ..hoist_opt::Options::default()
        };
        if let Ok(v) = hoist_verify::optimize(&vp.program, &fp.program, &opts, None) {
            let o = hoist_verify::scene::with_optimized(&scene, &v.outcome);
            cases.push(scene_case(name, "example (optimized)", &o));
        }
    }
    cases
}

pub fn piglit_cases() -> Vec<Case> {
    let Some((dir, files)) = super::piglit() else {
        oracles::skip("../shared/corpus/piglit is not next to the repository");
        return Vec::new();
    };
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let s = hoist_raster::scene::parse(&text, &hoist_raster::Caps::default()).unwrap();
            let name = f.strip_prefix(&dir).unwrap().display().to_string();
            scene_case(name, "piglit", &s)
        })
        .collect()
}

/// The scenes of `tests/scenes` (facing, depth, fog, every texture target).
pub fn handwritten_cases() -> Vec<Case> {
    let dir = super::root().join("crates/gpu/tests/scenes");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            scene_case(name, "hand-written scenes", &super::scene(f))
        })
        .collect()
}

/// The host parameters (env indices, D3D9 `c#`) the position output is computed from, in
/// order (a `m4x4 oPos, v0, c0` or four `DP4 result.position.c, mvp[c]`).
fn position_params(p: &Program) -> Vec<u16> {
    use hoist_asm::ir::{ConstBinding, Semantic};
    let mut v = Vec::new();
    for ins in &p.insts {
        let Some(d) = &ins.dst else { continue };
        if !d.reg.file.is_output()
            || hoist_raster::program::out_semantic(p, d.reg) != Some(Semantic::Position(0))
        {
            continue;
        }
        for k in 0..ins.src.len() {
            let s = &ins.src[k];
            if s.reg.file != RegFile::Const || s.rel.is_some() {
                continue;
            }
            for r in 0..u16::from(ins.src_rows(k)) {
                let slot = s.reg.index + r;
                let e = match p.consts.get(usize::from(slot)).map(|c| &c.binding) {
                    Some(ConstBinding::Env(e)) => Some(*e),
                    None if p.dialect() == hoist_asm::Dialect::D3d9 => Some(slot),
                    _ => None,
                };
                if let Some(e) = e.filter(|e| !v.contains(e)) {
                    v.push(e);
                }
            }
        }
    }
    v
}

/// A ps_3_0 program showing one interpolant of a semantic.
fn pass_through(s: hoist_asm::ir::Semantic) -> Option<String> {
    use hoist_asm::ir::Semantic;
    let dcl = match s {
        Semantic::TexCoord(n) => format!("dcl_texcoord{n} v0"),
        Semantic::Color(n) => format!("dcl_color{n} v0"),
        Semantic::Fog(_) => "dcl_fog v0".to_string(),
        _ => return None,
    };
    Some(format!("ps_3_0\n{dcl}\nmov oC0, v0\n"))
}

/// The parsers' programs with every opcode of each profile (D3D9 flow control and
/// predication included): a fragment program after the fixed-function vertex stage; a
/// vertex program once per interpolant it writes, shown by a pass-through fragment program,
/// its position matrix the identity.
/// Programs the executor refuses are left out (the translation refuses them too).
pub fn program_cases() -> Vec<Case> {
    let dir = super::root().join("crates/asm/tests");
    let mut cases = Vec::new();
    for sub in ["d3d9", "d3d9_arb"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for path in files {
            let ext = path.extension().and_then(|x| x.to_str()).unwrap_or("");
            if !["vsh", "psh", "vp", "fp"].contains(&ext) {
                continue;
            }
            let p = super::parse(&std::fs::read_to_string(&path).unwrap());
            if hoist_raster::compile::compile(&p).is_err() {
                continue;
            }
            let name = format!("{sub}/{}", path.file_name().unwrap().to_string_lossy());
            let seed = cases.len() as u64 + 7;
            if p.stage() == hoist_asm::Stage::Fragment {
                let cfg = quad_config(seed, &[&p]);
                cases.push(pair_case(name, "all-opcode programs", (None, Some(p), cfg)));
                continue;
            }
            let mut sems: Vec<_> =
                p.io.iter()
                    .filter(|d| d.reg.file.is_output())
                    .filter_map(|d| hoist_raster::program::out_semantic(&p, d.reg))
                    .chain(p.insts.iter().filter_map(|i| {
                        i.dst
                            .as_ref()
                            .and_then(|d| hoist_raster::program::out_semantic(&p, d.reg))
                    }))
                    .collect();
            sems.sort();
            sems.dedup();
            for s in sems {
                let Some(text) = pass_through(s) else {
                    continue;
                };
                let fp = super::parse(&text);
                // The parameters the position is computed from are the identity matrix's
                // rows: the quad stays a quad, and what differs is the programs' arithmetic,
                // not a random perspective.
                let mut cfg = quad_config(seed, &[&p]);
                for (r, e) in position_params(&p).into_iter().enumerate() {
                    let mut row = [0.0; 4];
                    row[r.min(3)] = 1.0;
                    cfg.params.vertex.env.insert(e, row);
                }
                let n = format!("{name} → {}", hoist_gpu::iface::semantic_name(s));
                cases.push(pair_case(
                    n,
                    "all-opcode programs",
                    (Some(p.clone()), Some(fp), cfg),
                ));
            }
        }
    }
    cases
}

/// Runs the jobs in Chromium, a batch at a time; `None` (with the skip notice) when the
/// browser oracle is missing.
pub fn browser(jobs: Vec<Value>) -> Option<Vec<GpuResult>> {
    browser_with(jobs, true)
}

/// `browser`, with Chromium's GPU flags or without any GPU API (`gpu` false).
pub fn browser_with(jobs: Vec<Value>, gpu: bool) -> Option<Vec<GpuResult>> {
    let root = super::root();
    if !root.join("tests/e2e/node_modules/playwright-core").exists()
        || !Path::new("/usr/bin/chromium").exists()
    {
        oracles::skip(
            "the browser oracle needs tests/e2e/node_modules (scripts/setup.sh) and /usr/bin/chromium",
        );
        return None;
    }
    let dir = oracles::scratch("gpu");
    let mut out = Vec::new();
    for (n, chunk) in jobs.chunks(64).enumerate() {
        let (jp, op) = (
            dir.join(format!("jobs{n}.json")),
            dir.join(format!("out{n}.json")),
        );
        std::fs::write(&jp, serde_json::to_string(chunk).ok()?).ok()?;
        let mut cmd = std::process::Command::new("node");
        if !gpu {
            cmd.env("HOIST_GPU_FLAGS", "none");
        }
        let st = cmd
            .arg(root.join("crates/gpu/js/harness.mjs"))
            .arg(&jp)
            .arg(&op)
            .status();
        if !matches!(st, Ok(s) if s.success()) {
            oracles::skip(&format!("node crates/gpu/js/harness.mjs failed: {st:?}"));
            return None;
        }
        let v: Vec<GpuResult> = serde_json::from_str(&std::fs::read_to_string(&op).ok()?).ok()?;
        assert_eq!(
            v.len(),
            chunk.len(),
            "the browser answered a different batch"
        );
        out.extend(v);
        let _ = std::fs::remove_file(&jp);
        let _ = std::fs::remove_file(&op);
    }
    let _ = std::fs::remove_dir(&dir);
    Some(out)
}

/// One (case, API) result.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Within tolerance; what the API could not check.
    Agree {
        worst: f32,
        notes: Vec<String>,
    },
    Differ {
        worst: f32,
        what: String,
    },
    Refused(String),
}

pub fn judge(case: &Case, r: &GpuResult) -> Outcome {
    let (plan, exact) = match (&case.plan, &case.exact) {
        (Ok(p), Ok(e)) => (p, e),
        (Err(e), _) => return Outcome::Refused(format!("plan: {e}")),
        (_, Err(e)) => return Outcome::Refused(format!("executor: {e}")),
    };
    if let Some(e) = &r.error {
        return Outcome::Refused(e.clone());
    }
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    for (i, (g, x)) in probes(plan, r).iter().zip(&exact.probes).enumerate() {
        let unreadable = r
            .probes
            .iter()
            .find(|p| p.probe == i)
            .and_then(|p| p.error.clone());
        if let Some(why) = unreadable {
            notes.push(format!("probe line {} not run: {why}", x.line));
        } else if g.pass != x.pass {
            problems.push(format!(
                "probe line {} `{}`: executor {}, GPU {} {}",
                x.line,
                x.command,
                if x.pass { "passes" } else { "fails" },
                if g.pass { "passes" } else { "fails" },
                g.detail
            ));
        }
    }
    let mut worst = 0.0f32;
    for (name, img) in &exact.targets {
        let Some(Ok(gi)) = r.targets.get(name).map(|g| g.decode()) else {
            problems.push(format!("target {name}: not read back"));
            continue;
        };
        match agreement(img, &gi, case.tolerance) {
            Ok(a) => {
                worst = worst.max(a.max_abs);
                if a.max_abs > case.tolerance {
                    let (x, y, c) = a.at.unwrap_or((0, 0, 0));
                    problems.push(format!(
                        "target {name}: max |Δ| {:.3e} at ({x},{y}).{} (executor {:?}, GPU {:?}), {} of {} pixels over {:e}",
                        a.max_abs,
                        ['r', 'g', 'b', 'a'][c],
                        a.exact,
                        a.gpu,
                        a.over,
                        a.pixels,
                        case.tolerance
                    ));
                }
            }
            Err(e) => problems.push(format!("target {name}: {e}")),
        }
    }
    if problems.is_empty() {
        Outcome::Agree { worst, notes }
    } else {
        Outcome::Differ {
            worst,
            what: problems.join("; "),
        }
    }
}

/// The class (an id of `hoist_gpu::differences`) of the first instruction of `p` that
/// differs: what it computes, or, for the vertex position, the rasterization and the
/// interpolation of everything after it.
pub fn class_of(p: &Program, ins: &Inst) -> &'static str {
    use Op::*;
    let position = ins.dst.as_ref().is_some_and(|d| {
        hoist_raster::program::out_semantic(p, d.reg) == Some(hoist_asm::ir::Semantic::Position(0))
            && d.reg.file.is_output()
    });
    match ins.op {
        _ if position => "interpolation",
        _ if ins.tex.is_some_and(|t| t.target == TexTarget::Cube) => "cube-maps",
        Tex | Txb | Txp | Texldl | Texldd => "texture-filtering",
        Ex2 | Lg2 | Pow | Sin | Cos | Scs | Sincos | Exp | Log | Lit => "transcendentals",
        Rcp | Rsq | Nrm => "division",
        Dsx | Dsy => "derivatives",
        Mad | Lrp | Dp3 | Dp4 | Dph | Dp2add | M4x4 | M4x3 | M3x4 | M3x3 | M3x2 | Xpd => {
            "fused-multiply-add"
        }
        _ => "unexplained",
    }
}

/// Whether the worst difference of a case is at a value that is infinite or NaN on either
/// side (what the rasterizer and the GPU's NaN rules make of it, whatever computed it).
fn non_finite(case: &Case, r: &GpuResult) -> bool {
    let (Ok(exact), Some(Ok(g))) = (&case.exact, r.targets.get("window").map(|g| g.decode()))
    else {
        return false;
    };
    let Some(e) = exact.targets.get("window") else {
        return false;
    };
    match agreement(e, &g, case.tolerance) {
        Ok(a) => match a.at {
            Some((_, _, c)) => !a.exact[c].is_finite() || !a.gpu[c].is_finite(),
            None => false,
        },
        Err(_) => false,
    }
}

/// The fragment program of `inputs` cut after each instruction with a destination.
fn cuts(inputs: &PairInputs) -> Vec<(usize, PairInputs)> {
    let (vp, Some(fp), cfg) = inputs else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for k in 0..fp.insts.len() {
        let Some(d) = fp.insts[k].dst.clone() else {
            continue;
        };
        if matches!(d.reg.file, RegFile::ColorOut | RegFile::DepthOut) {
            continue;
        }
        let mut p = fp.clone();
        p.insts.truncate(k + 1);
        p.insts.push(Inst::new(
            Op::Mov,
            Some(Dst::new(Reg::new(RegFile::ColorOut, 0), WriteMask::ALL)),
            [Src::new(d.reg)],
        ));
        v.push((k, (vp.clone(), Some(p), cfg.clone())));
    }
    v
}

/// The vertex program cut after each instruction with a destination, the result moved to
/// the output register the (pass-through) fragment program shows.
fn vertex_cuts(inputs: &PairInputs) -> Vec<(usize, PairInputs)> {
    let (Some(vp), Some(fp), cfg) = inputs else {
        return Vec::new();
    };
    let Some(shown) = fp
        .io
        .iter()
        .find(|d| d.reg.file == RegFile::Input)
        .map(|d| d.semantic)
    else {
        return Vec::new();
    };
    let Some(out) = vp
        .insts
        .iter()
        .filter_map(|i| i.dst.as_ref())
        .find_map(|d| {
            (hoist_raster::program::out_semantic(vp, d.reg) == Some(shown)).then_some(d.reg)
        })
    else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for k in 0..vp.insts.len() {
        let Some(d) = vp.insts[k].dst.clone() else {
            continue;
        };
        let mut p = vp.clone();
        p.insts.truncate(k + 1);
        p.insts.push(Inst::new(
            Op::Mov,
            Some(Dst::new(out, WriteMask::ALL)),
            [Src::new(d.reg)],
        ));
        v.push((k, (Some(p), Some(fp.clone()), cfg.clone())));
    }
    v
}

/// The cuts of a case: its fragment program's, or, when that is a one-instruction
/// pass-through, its vertex program's (then the class names a vertex instruction).
fn all_cuts(inputs: &PairInputs) -> Vec<(usize, PairInputs)> {
    match &inputs.1 {
        Some(fp) if fp.insts.len() <= 1 => vertex_cuts(inputs),
        _ => cuts(inputs),
    }
}

/// For each (case, API) given, the first instruction whose result differs on that API,
/// found by rendering every cut (one batch for all).
pub fn explain(items: &[(&Case, &'static str)]) -> Vec<Option<(Inst, &'static str)>> {
    let mut jobs = Vec::new();
    let mut spans = Vec::new();
    let mut all = Vec::new();
    for (case, api) in items {
        let from = all.len();
        for (k, inputs) in case.pair.as_ref().map(all_cuts).unwrap_or_default() {
            let c = pair_case(format!("cut {k}"), "cut", inputs);
            if let Ok(p) = &c.plan {
                jobs.push(json!({"name": c.name, "api": api, "plan": p}));
                all.push((k, c));
            }
        }
        spans.push(from..all.len());
    }
    let Some(results) = browser(jobs) else {
        return vec![None; items.len()];
    };
    spans
        .into_iter()
        .zip(items)
        .map(|(span, (case, _))| {
            let (vp, fp, _) = case.pair.as_ref()?;
            let p = match fp {
                Some(f) if f.insts.len() <= 1 => vp.as_ref()?,
                f => f.as_ref()?,
            };
            span.into_iter()
                .find(|&i| !matches!(judge(&all[i].1, &results[i]), Outcome::Agree { .. }))
                .map(|i| {
                    let ins = p.insts[all[i].0].clone();
                    let class = if non_finite(&all[i].1, &results[i]) {
                        "nan-and-infinity"
                    } else {
                        class_of(p, &ins)
                    };
                    (ins, class)
                })
        })
        .collect()
}

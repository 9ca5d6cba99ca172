//! The differential against Chromium's GPU APIs: every example scene (original and
//! optimized pair), the 80 piglit ARB tests and generated pairs of both dialects, planned
//! by `hoist_gpu::plan` and rendered by headless Chromium (SwiftShader behind WebGPU and
//! WebGL2, `js/harness.mjs`) with the executor's inputs, then held against the executor:
//! every probe must give the executor's verdict, and every target must agree within its
//! class's tolerance. Per API it prints agree / differ / refused, the worst |Δ| and where,
//! and each difference with its class. Needs node, `tests/e2e/node_modules` and Chromium;
//! skips with a notice without them (fails under `HOIST_REQUIRE_ORACLES=1`).
//!
//! `HOIST_GPU_REPORT=FILE` writes the table as Markdown (docs/gpu-translation.md quotes it);
//! `HOIST_GPU_ONLY=TEXT` keeps the cases whose name contains TEXT.

mod common;

use hoist_asm::Program;
use hoist_gpu::check::{GpuResult, agreement, probes};
use hoist_gpu::plan::Plan;
use hoist_raster::image::Image;
use hoist_raster::scene::{ProbeResult, RunOptions, Scene};
use hoist_raster::{Geometry, RenderConfig, TargetFormat};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

const APIS: [&str; 2] = ["webgpu", "webgl2"];

/// What the executor produced.
struct Exact {
    probes: Vec<ProbeResult>,
    targets: BTreeMap<String, Image>,
}

struct Case {
    name: String,
    /// `example`, `example (optimized)`, `piglit`, `generated ARB`, `generated D3D9`.
    group: &'static str,
    plan: Result<Plan, String>,
    exact: Result<Exact, String>,
    /// Allowed |Δ| per channel on its targets.
    tolerance: f32,
}

/// The agreement asked of each group: RGBA8 windows one step of 1/255 (a value at a
/// rounding boundary); float targets 2e-3, SwiftShader's transcendentals and interpolation
/// against the executor's libm and f64 (docs/gpu-translation.md).
fn tolerance(scene: &Scene) -> f32 {
    let rgba8 = scene.commands.iter().all(|(_, c)| {
        !matches!(
            c,
            hoist_raster::scene::Command::Window(TargetFormat::Rgba32F, ..)
        )
    });
    if rgba8 { 1.0 / 255.0 + 1e-6 } else { 2e-3 }
}

fn scene_case(name: String, group: &'static str, scene: &Scene) -> Case {
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
    }
}

fn rand(s: &mut u64) -> f32 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    ((*s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
}

/// A generated pair on the GPGPU quad, 32×32 RGBA32F, every parameter slot random in
/// [-2, 2], each sampled unit the generator's texture of its target.
fn generated_case(seed: u64, d3d9: bool) -> Case {
    let (vp, fp, cfg, label) = generated_inputs(seed, d3d9);
    let group = if d3d9 {
        "generated D3D9"
    } else {
        "generated ARB"
    };
    pair_case(label, group, &vp, &fp, &cfg)
}

fn generated_inputs(seed: u64, d3d9: bool) -> (Program, Program, RenderConfig, String) {
    let (label, vp, fp) = common::generated(seed, d3d9);
    let mut cfg = RenderConfig {
        width: 32,
        height: 32,
        geometry: Geometry::Quad,
        ..RenderConfig::default()
    };
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in 0..96u16 {
        for bank in [&mut cfg.params.vertex, &mut cfg.params.fragment] {
            let v = [rand(&mut s), rand(&mut s), rand(&mut s), rand(&mut s)];
            bank.env.insert(i, v);
            bank.local.insert(i, v);
        }
    }
    for p in [&vp, &fp] {
        cfg.textures.extend(hoist_verify::generate::textures(p));
    }
    (vp, fp, cfg, label)
}

fn pair_case(
    name: String,
    group: &'static str,
    vp: &Program,
    fp: &Program,
    cfg: &RenderConfig,
) -> Case {
    Case {
        name,
        group,
        tolerance: 2e-3,
        plan: hoist_gpu::plan::plan_render(Some(vp), Some(fp), cfg),
        exact: hoist_raster::render(Some(vp), Some(fp), cfg)
            .map(|r| Exact {
                probes: Vec::new(),
                targets: BTreeMap::from([("window".to_string(), r.image)]),
            })
            .map_err(|e| e.to_string()),
    }
}

fn example_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for f in common::examples() {
        let name = f
            .strip_prefix(common::root().join("examples"))
            .unwrap()
            .display()
            .to_string();
        let scene = common::scene(&f);
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

fn piglit_cases() -> Vec<Case> {
    let Some((dir, files)) = common::piglit() else {
        common::oracles::skip("../shared/corpus/piglit is not next to the repository");
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

/// Runs the jobs in Chromium, a batch at a time; `None` (with the skip notice) when the
/// browser oracle is missing.
fn browser(jobs: Vec<Value>) -> Option<Vec<GpuResult>> {
    let root = common::root();
    if !root.join("tests/e2e/node_modules/playwright-core").exists()
        || !Path::new("/usr/bin/chromium").exists()
    {
        common::oracles::skip(
            "the browser oracle needs tests/e2e/node_modules (scripts/setup.sh) and /usr/bin/chromium",
        );
        return None;
    }
    let dir = std::env::temp_dir().join(format!("hoist-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let mut out = Vec::new();
    for (n, chunk) in jobs.chunks(24).enumerate() {
        let (jp, op) = (
            dir.join(format!("jobs{n}.json")),
            dir.join(format!("out{n}.json")),
        );
        std::fs::write(&jp, serde_json::to_string(chunk).ok()?).ok()?;
        let st = std::process::Command::new("node")
            .arg(root.join("crates/gpu/js/harness.mjs"))
            .arg(&jp)
            .arg(&op)
            .status();
        if !matches!(st, Ok(s) if s.success()) {
            common::oracles::skip(&format!("node crates/gpu/js/harness.mjs failed: {st:?}"));
            return None;
        }
        let v: Vec<GpuResult> = serde_json::from_str(&std::fs::read_to_string(&op).ok()?).ok()?;
        out.extend(v);
        let _ = std::fs::remove_file(&jp);
        let _ = std::fs::remove_file(&op);
    }
    Some(out)
}

/// One (case, API) result.
#[derive(Clone, Debug)]
enum Outcome {
    Agree(f32),
    Differ { worst: f32, what: String },
    Refused(String),
}

fn judge(case: &Case, r: &GpuResult) -> Outcome {
    let (Ok(plan), Ok(exact)) = (&case.plan, &case.exact) else {
        return Outcome::Refused(match (&case.plan, &case.exact) {
            (Err(e), _) => format!("plan: {e}"),
            (_, Err(e)) => format!("executor: {e}"),
            _ => unreachable!(),
        });
    };
    if let Some(e) = &r.error {
        return Outcome::Refused(e.clone());
    }
    let mut problems = Vec::new();
    for (g, x) in probes(plan, r).iter().zip(&exact.probes) {
        if g.pass != x.pass {
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
                        "target {name}: max |Δ| {:e} at ({x},{y}).{} (executor {:?}, GPU {:?}), {} of {} pixels over {:e}",
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
        Outcome::Agree(worst)
    } else {
        Outcome::Differ {
            worst,
            what: problems.join("; "),
        }
    }
}

/// Runs every case on both APIs; returns the report and the differences.
fn differential(cases: &[Case]) -> Option<(String, Vec<String>)> {
    let mut jobs = Vec::new();
    for api in APIS {
        for c in cases {
            if let (Ok(p), Ok(_)) = (&c.plan, &c.exact) {
                jobs.push(json!({"name": c.name, "api": api, "plan": p}));
            }
        }
    }
    let results = browser(jobs)?;
    let per_api = results.len() / APIS.len();
    let mut report = String::new();
    let mut failures = Vec::new();
    for (k, api) in APIS.into_iter().enumerate() {
        let mut by_group: BTreeMap<&str, (u32, u32, u32, f32)> = BTreeMap::new();
        let mut adapter = String::new();
        // Results come back in job order, API by API.
        let mut it = results[k * per_api..(k + 1) * per_api].iter();
        for c in cases {
            let o = match (&c.plan, &c.exact) {
                (Ok(_), Ok(_)) => {
                    let r = it.next().cloned().unwrap_or_default();
                    if adapter.is_empty() {
                        adapter = r.adapter.clone().unwrap_or_default();
                    }
                    judge(c, &r)
                }
                _ => judge(c, &GpuResult::default()),
            };
            let e = by_group.entry(c.group).or_default();
            match &o {
                Outcome::Agree(w) => {
                    e.0 += 1;
                    e.3 = e.3.max(*w);
                }
                Outcome::Differ { worst, what } => {
                    e.1 += 1;
                    e.3 = e.3.max(*worst);
                    failures.push(format!("{api} {} [{}]: {what}", c.name, c.group));
                }
                Outcome::Refused(why) => {
                    e.2 += 1;
                    failures.push(format!("{api} {} [{}]: refused: {why}", c.name, c.group));
                }
            }
        }
        report.push_str(&format!("\n{api} ({adapter})\n\n| cases | agree | differ | refused | worst |Δ| |\n|---|---|---|---|---|\n"));
        for (g, (a, d, r, w)) in &by_group {
            report.push_str(&format!("| {g} | {a} | {d} | {r} | {w:.3e} |\n"));
        }
    }
    Some((report, failures))
}

#[test]
fn the_gpu_renders_what_the_executor_renders() {
    let mut cases = example_cases();
    cases.extend(piglit_cases());
    for seed in 0..24 {
        cases.push(generated_case(seed, false));
        cases.push(generated_case(seed, true));
    }
    if let Ok(only) = std::env::var("HOIST_GPU_ONLY") {
        cases.retain(|c| c.name.contains(&only));
    }
    let Some((report, failures)) = differential(&cases) else {
        return;
    };
    println!("{report}");
    if let Ok(f) = std::env::var("HOIST_GPU_REPORT") {
        std::fs::write(f, &report).unwrap();
    }
    for f in &failures {
        println!("{f}");
    }
    assert!(failures.is_empty(), "{} differences", failures.len());
}

/// A debugging aid: for the scene or generated case named by `HOIST_GPU_BISECT` (and the
/// API of `HOIST_GPU_API`, default webgpu), renders the fragment program cut after each
/// instruction (its destination moved to the colour output) on the GPU and in the executor
/// and prints the first instruction whose result differs.
#[test]
#[ignore]
fn bisect() {
    use hoist_asm::ir::{Dst, Inst, Src};
    use hoist_asm::{Op, Reg, RegFile, WriteMask};
    let name = std::env::var("HOIST_GPU_BISECT").unwrap();
    let api = std::env::var("HOIST_GPU_API").unwrap_or("webgpu".into());
    let (vp, fp, cfg) = if let Some(seed) = name.strip_prefix("arb:").or(name.strip_prefix("d3d9:"))
    {
        let c = generated_inputs(seed.parse().unwrap(), name.starts_with("d3d9"));
        (c.0, c.1, c.2)
    } else {
        panic!("HOIST_GPU_BISECT=arb:SEED or d3d9:SEED");
    };
    let mut cases = Vec::new();
    let mut cuts = Vec::new();
    for k in 0..fp.insts.len() {
        let Some(d) = fp.insts[k].dst.clone() else {
            continue;
        };
        if d.reg.file == RegFile::ColorOut || d.reg.file == RegFile::DepthOut {
            continue;
        }
        let mut p = fp.clone();
        p.insts.truncate(k + 1);
        p.insts
            .retain(|i| !matches!(i.dst.as_ref().map(|d| d.reg.file), Some(RegFile::DepthOut)));
        p.insts.push(Inst::new(
            Op::Mov,
            Some(Dst::new(Reg::new(RegFile::ColorOut, 0), WriteMask::ALL)),
            [Src::new(d.reg)],
        ));
        cases.push(pair_case(format!("cut {k}"), "bisect", &vp, &p, &cfg));
        cuts.push(k);
    }
    let jobs: Vec<Value> = cases
        .iter()
        .map(|c| json!({"name": c.name, "api": api, "plan": c.plan.as_ref().unwrap()}))
        .collect();
    let Some(results) = browser(jobs) else { return };
    println!("{}", hoist_asm::print(&fp));
    for ((c, r), k) in cases.iter().zip(&results).zip(&cuts) {
        match judge(c, r) {
            Outcome::Agree(_) => {}
            o => {
                println!(
                    "first difference after instruction {k}: {:?}\n{o:?}",
                    fp.insts[*k]
                );
                let t = hoist_gpu::translate(Some(&vp), Some(&fp), &Default::default()).unwrap();
                println!("{}", t.wgsl);
                return;
            }
        }
    }
    println!("no instruction differs");
}

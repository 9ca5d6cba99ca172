//! Rendering the two pairs. Both run as scenes (`hoist_raster::scene`): the document's
//! scene with the edited programs put in its optimized pair, or, for a bare pair, a scene
//! of one float render target and the GPGPU quad. The Inputs panel's settings override the
//! scene's textures, parameters and size; the optimizer's mirrors add vertex copies of
//! fragment parameters to the optimized run. [`Task`] steps both runs a few bands at a
//! time; the rest maps results to a verdict and to canvas pixels (float → RGBA8, the
//! difference heat map).

pub use crate::doc::scene_rules::{
    MAX_BATCH_INSTRUCTIONS, caps, param_key, scene_binds, scene_param,
};
use crate::doc::{Channel, Doc, Inputs, ParamKey, Pattern, TexSpec, ViewMap};
use crate::worker::analysis::{Analysis, Trust};
use hoist_asm::ir::{TexTarget, unit_name};
use hoist_asm::{Program, Stage};
use hoist_raster::image::{Image, ToRgba8, Verdict};
use hoist_raster::job::Progress;
use hoist_raster::scene::{
    self, Command, ParamKind, ProgramPair, RunOptions, Scene, SceneJob, SceneResult, TexOptions,
    TexSource,
};
use hoist_raster::texture::{self, TexShape};
use hoist_raster::{Filter, Geometry, Sampler, TargetFormat, TexFormat, Wrap, pattern};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Largest user picture accepted as a texture (pixels).
pub const MAX_IMAGE_PIXELS: u64 = 2048 * 2048;

/// User-picked pictures (PNG bytes) by texture unit; never part of the document.
pub type Images = BTreeMap<u8, Rc<Vec<u8>>>;

fn image_name(unit: u8) -> String {
    format!("user-unit-{unit}")
}

/// The texture command of a unit's settings, for a unit sampled as `target`: the image
/// made a texture of the target's shape as `hoist render --texture-target` and arbref make
/// it (a cube map of six faces, a 3D texture of four slices, ...), stored as the target
/// gets it (`texture::format_for_target`: a shadow target's depth texture with compare).
pub fn texture_command(spec: &TexSpec, target: TexTarget, images: &Images) -> Command {
    let src = match (spec.pattern, images.get(&spec.unit)) {
        (Pattern::Image, Some(_)) => TexSource::Image(image_name(spec.unit)),
        (p, _) => {
            let pat = match p {
                Pattern::Gradient => pattern::Pattern::Gradient,
                Pattern::Noise => pattern::Pattern::Noise(u64::from(spec.seed)),
                _ => pattern::Pattern::Checker((spec.size / 8).max(1)),
            };
            TexSource::Pattern(pat, spec.size, spec.size)
        }
    };
    let filter = if spec.linear {
        Filter::Linear
    } else {
        Filter::Nearest
    };
    let shape = TexShape::of_target(target);
    // Rectangles have no repeat in GL (arbref clamps them too).
    let wrap = if spec.repeat && shape != TexShape::Rect {
        Wrap::Repeat
    } else {
        Wrap::ClampToEdge
    };
    let format = if spec.rgba8 {
        TexFormat::Rgba8
    } else {
        TexFormat::Rgba32F
    };
    let storage = texture::format_for_target(target, format);
    Command::Texture(
        spec.unit,
        src,
        TexOptions {
            sampler: storage.sampler(Sampler::new(filter, wrap)),
            format: storage.format,
            shape,
            mipmap: false,
        },
    )
}

/// Units `targets` samples with a target no texture the scene binds to them fits: they read
/// GL's incomplete texture, (0, 0, 0, 1). One line each, for people.
pub fn unsupplied(sc: &Scene, targets: &[(u8, TexTarget)]) -> Vec<String> {
    let mut out = Vec::new();
    for &(u, t) in targets {
        let bound: Vec<TexShape> = sc
            .commands
            .iter()
            .filter_map(|(_, c)| match c {
                Command::Texture(cu, _, o) if *cu == u => Some(o.shape),
                _ => None,
            })
            .collect();
        let why = match bound.first() {
            None => "it has no texture".to_string(),
            Some(_) if bound.iter().any(|s| s.fits(t)) => continue,
            Some(s) => format!("it holds a {} texture", s.name().to_ascii_uppercase()),
        };
        out.push(format!(
            "texture {} is sampled as {} but {why}: it reads (0, 0, 0, 1)",
            unit_name(u),
            t.arb_name()
        ));
    }
    out
}

fn param_command(key: ParamKey, value: [f32; 4]) -> Command {
    Command::Param {
        stage: if key.vertex {
            Stage::Vertex
        } else {
            Stage::Fragment
        },
        kind: if key.local {
            ParamKind::Local
        } else {
            ParamKind::Env
        },
        index: key.index,
        value,
    }
}

/// What a texture unit is sampled as and what the draw gives it, for the Inputs panel.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitTexture {
    /// The target the unit is sampled as (the first, for a unit sampled as two).
    pub target: TexTarget,
    /// The texture in words: "CUBE six 256×256 faces", "as the scene binds it".
    pub shape: String,
    /// Why lookups of this unit read (0, 0, 0, 1), when they do (`render::unsupplied`).
    pub flag: Option<String>,
}

/// The target and texture of unit `u` of an analysis, given the document's inputs and its
/// parsed scene (`None` for a bare pair).
pub fn unit_texture(
    a: &Analysis,
    inputs: &Inputs,
    scene: Option<&Scene>,
    u: u8,
) -> Option<UnitTexture> {
    let targets: Vec<(u8, TexTarget)> =
        a.targets.iter().copied().filter(|(x, _)| *x == u).collect();
    let &(_, target) = targets.first()?;
    let explicit = inputs.textures.iter().any(|t| t.unit == u);
    let from_scene = !explicit && scene.is_some_and(|s| scene_binds(s, u));
    let shape = TexShape::of_target(target);
    let spec = inputs.texture(u);
    let text = if from_scene {
        "as the scene binds it".to_string()
    } else if spec.pattern == Pattern::Image {
        format!("{} made of the picture", shape.name().to_ascii_uppercase())
    } else {
        shape.describe(spec.size, spec.size)
    };
    let stored = texture::format_for_target(target, TexFormat::Rgba32F).describe();
    let text = match stored {
        Some(d) if !from_scene => format!("{text}, {d}"),
        _ => text,
    };
    // The flag: what the draw's scene binds, checked against every target of the unit.
    let flag = scene
        .filter(|_| from_scene)
        .map(|s| unsupplied(s, &targets))
        .unwrap_or_else(|| {
            let supplied = Scene {
                commands: vec![(0, texture_command(&spec, target, &Default::default()))],
                ..Scene::default()
            };
            unsupplied(&supplied, &targets)
        })
        .into_iter()
        .next();
    Some(UnitTexture {
        target,
        shape: text,
        flag,
    })
}

/// The scene a document renders, before programs are put in: its own scene at the
/// document's size (`scene_size::of`, parsed), or the GPGPU quad on a float target. Inputs-panel overrides are applied; every unit
/// `targets` samples gets a texture of its target's shape (the first target of a unit
/// sampled as two: [`unsupplied`] names the other).
pub fn base_scene(
    doc: &Doc,
    targets: &[(u8, TexTarget)],
    images: &Images,
) -> Result<Scene, String> {
    let inputs = &doc.inputs;
    let (w, h) = (inputs.width, inputs.height);
    // The window is the document's size, checked where it is set (the Inputs panel's
    // bound, or the GPU view's timing size): the scene's caps do not bound it again.
    let mut window_caps = caps();
    window_caps.max_target_size = window_caps.max_target_size.max(w).max(h);
    window_caps.max_target_pixels =
        (window_caps.max_target_pixels).max(u64::from(w) * u64::from(h));
    let mut sc = match crate::doc::scene_size::of(doc) {
        Some(s) => scene::parse(&s.text, &window_caps).map_err(|e| format!("scene: {e}"))?,
        None => {
            let mut sc = Scene {
                window: (w, h),
                ..Scene::default()
            };
            sc.programs.insert(String::new(), ProgramPair::default());
            sc.commands = vec![
                (0, Command::Window(TargetFormat::Rgba32F, w, h)),
                (0, Command::Draw(Geometry::Quad)),
            ];
            sc
        }
    };
    // Size.
    sc.window = (w, h);
    for (_, c) in &mut sc.commands {
        if let Command::Window(_, cw, ch) = c {
            (*cw, *ch) = (w, h);
        }
    }
    // A compiled pair's host state: GL's matrices and the viewport before each draw, a
    // unit's texture on the D3D9 vertex sampler of that unit too (as `hoist run` does).
    if let Some(h) = &doc.host_state {
        let base = hoist_asm::ir::VERTEX_SAMPLER_BASE;
        if h.dialect == hoist_asm::Dialect::D3d9 {
            let units: Vec<u8> = targets.iter().map(|t| t.0).filter(|u| *u >= base).collect();
            hoist_front::scene::share_vertex_samplers(&mut sc, &units);
        }
        let uniforms: Vec<hoist_front::bindings::UniformSlot> = (h.uniforms.iter())
            .map(|u| hoist_front::bindings::UniformSlot {
                name: u.name.clone(),
                group: 0,
                binding: 0,
                offset: 0,
                ty: String::new(),
                slot: u.slot,
                slots: u.slots,
                lanes: u.lanes,
                init: None,
                state: Some(u.state.clone()),
            })
            .collect();
        hoist_front::scene::set_state_before_draws(&mut sc, h.dialect, &uniforms);
    }
    // Textures: explicit settings replace the scene's bindings of that unit; units the
    // scene leaves unbound get their (default) settings up front.
    let mut front = Vec::new();
    let mut units: Vec<(u8, TexTarget)> = targets.to_vec();
    units.dedup_by_key(|(u, _)| *u);
    for &(u, target) in &units {
        let explicit = inputs.textures.iter().find(|t| t.unit == u);
        if !scene_binds(&sc, u) || explicit.is_some() {
            let cmd = texture_command(&inputs.texture(u), target, images);
            let mut replaced = false;
            for (_, c) in &mut sc.commands {
                if matches!(c, Command::Texture(cu, src, _) if *cu == u && !matches!(src, TexSource::Target(_)))
                {
                    *c = cmd.clone();
                    replaced = true;
                }
            }
            if !replaced {
                front.push((0, cmd));
            }
        }
    }
    // Parameters: the panel's values replace the scene's.
    for p in &inputs.params {
        let mut replaced = false;
        for (_, c) in &mut sc.commands {
            if param_key(c) == Some(p.key) {
                *c = param_command(p.key, p.value);
                replaced = true;
            }
        }
        if !replaced {
            front.push((0, param_command(p.key, p.value)));
        }
    }
    crate::worker::supplied::apply(inputs, &mut sc, &mut front);
    // After a leading `window` command (which would discard nothing we add, but keeps the
    // order readable), before everything else.
    let at = sc
        .commands
        .iter()
        .take_while(|(_, c)| matches!(c, Command::Window(..)))
        .count();
    sc.commands.splice(at..at, front);
    Ok(sc)
}

/// Both runs.
#[derive(Clone)]
pub struct Plan {
    pub original: Scene,
    pub optimized: Option<Scene>,
    /// The target shown and compared.
    pub display: String,
    pub images: BTreeMap<String, Vec<u8>>,
    /// Units sampled with a target no texture fits ([`unsupplied`]).
    pub unsupplied: Vec<String>,
}

fn with_pair(mut sc: Scene, vp: &Program, fp: &Program) -> Scene {
    let name = sc.optimize_target().to_string();
    sc.set_program(&name, vp.clone());
    sc.set_program(&name, fp.clone());
    sc
}

/// What to render for an analysis (`Err` when the scene itself is broken). The optimized
/// run is the optimizer's outcome in the scene with its mirrored parameters
/// (`hoist_verify::scene::with_optimized`), or the hand edit in its place.
pub fn plan(doc: &Doc, a: &Analysis, images: &Images) -> Result<Option<Plan>, String> {
    let Some((v, f)) = a.original_pair() else {
        return Ok(None);
    };
    let base = base_scene(doc, &a.targets, images)?;
    let unsupplied = unsupplied(&base, &a.targets);
    let with_outcome = a
        .outcome
        .as_ref()
        .map(|o| hoist_verify::scene::with_optimized(&base, o));
    let optimized = match (a.hand.is_some(), a.hand_pair(), with_outcome) {
        (true, Some((v2, f2)), sc) => Some(with_pair(sc.unwrap_or_else(|| base.clone()), v2, f2)),
        (true, None, _) => None,
        (false, _, sc) => sc,
    };
    let display = base
        .meta
        .get("display")
        .cloned()
        .unwrap_or_else(|| "window".into());
    Ok(Some(Plan {
        original: with_pair(base, v, f),
        optimized,
        display,
        images: images
            .iter()
            .map(|(u, b)| (image_name(*u), (**b).clone()))
            .collect(),
        unsupplied,
    }))
}

/// Which run a step worked on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Original,
    Optimized,
    Done,
}

/// A finished run: the displayed image and the counters.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    pub image: Image,
    pub stats: hoist_raster::Stats,
    /// Probe results of the scene, if it has probes: (passed, failed).
    pub probes: (usize, usize),
    /// Each probe's result in words (`crate::worker::probes`).
    #[serde(default)]
    pub probe_list: Vec<crate::worker::probes::ProbeView>,
    /// Which executor drew it (`crate::worker::executor`).
    #[serde(default)]
    pub executor: Option<crate::worker::executor::Executor>,
    /// Bands of its last draw shaded by helper workers (`crate::worker::bands`), and that
    /// draw's bands in all when it was shared (0: drawn alone).
    #[serde(default)]
    pub helped: u32,
    #[serde(default)]
    pub shared: u32,
}

pub type RunResult = Result<Run, String>;

/// Both images as canvas pixels ([`display_rgba`]) for one display mapping, made where
/// the render ran so that the page only has to put them on its canvases.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Display {
    /// The mapping they were made with (`None`: not made).
    pub view: Option<ViewMap>,
    /// Empty when the image is missing; they travel beside the serialized render.
    #[serde(skip)]
    pub original: Vec<u8>,
    #[serde(skip)]
    pub optimized: Vec<u8>,
}

/// A finished (or failed) render of both pairs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rendered {
    pub original: RunResult,
    pub optimized: Option<RunResult>,
    /// Comparison of the two images, when both rendered.
    pub verdict: Option<Verdict>,
    /// The difference heat map ([`heat_map`]), when both rendered; empty = not computed.
    #[serde(skip)]
    pub heat: Vec<u8>,
    /// Canvas pixels of both images for the document's mapping at render time.
    pub display: Display,
    /// Wall-clock milliseconds spent on each pair.
    pub ms_original: f64,
    pub ms_optimized: f64,
    /// Why an agreeing verdict proves little (`crate::worker::guidance`).
    #[serde(default)]
    pub weak: Option<crate::worker::guidance::Weak>,
    /// What causes a DIFFERENT verdict (`crate::worker::guidance`).
    #[serde(default)]
    pub guidance: Option<crate::worker::guidance::Guidance>,
    /// Texture units sampled with a target no texture fits ([`unsupplied`]): they read
    /// (0, 0, 0, 1), so an agreeing verdict proves little about them.
    #[serde(default)]
    pub unsupplied: Vec<String>,
    /// Runs not drawn again: their scene was a kept run's ([`Task::reusing`]), so their
    /// times are not this render's.
    #[serde(default)]
    pub reused: [bool; 2],
}

impl Rendered {
    /// The results of a finished task, compared, with the heat map.
    pub fn of_task(task: &mut Task, ms_original: f64, ms_optimized: f64) -> Rendered {
        let original = task
            .original
            .take()
            .unwrap_or_else(|| Err("not rendered".into()));
        let optimized = task.optimized.take();
        let (verdict, heat) = match (&original, &optimized) {
            (Ok(a), Some(Ok(b))) => (
                Some(hoist_raster::compare(&a.image, &b.image)),
                heat_map(&a.image, &b.image),
            ),
            _ => (None, Vec::new()),
        };
        Rendered {
            original,
            optimized,
            verdict,
            heat,
            display: Display::default(),
            ms_original,
            ms_optimized,
            weak: None,
            guidance: None,
            unsupplied: task.plan.unsupplied.clone(),
            reused: task.reused,
        }
    }

    /// A placeholder (nothing rendered).
    pub fn empty() -> Rendered {
        Rendered {
            original: Err("not rendered".into()),
            optimized: None,
            verdict: None,
            heat: Vec::new(),
            display: Display::default(),
            ms_original: 0.0,
            ms_optimized: 0.0,
            weak: None,
            guidance: None,
            unsupplied: Vec::new(),
            reused: [false; 2],
        }
    }

    pub fn images(&self) -> [Option<&Image>; 2] {
        fn image(r: &RunResult) -> Option<&Image> {
            r.as_ref().ok().map(|r| &r.image)
        }
        [
            image(&self.original),
            self.optimized.as_ref().and_then(image),
        ]
    }

    /// Makes the canvas pixels of both images for `view` ahead of time.
    pub fn with_display(mut self, view: ViewMap) -> Rendered {
        let shown = shown_view(self.images(), view);
        let [a, b] = self.images().map(|i| i.map(|i| display_rgba(i, &shown)));
        self.display = Display {
            view: Some(view),
            original: a.unwrap_or_default(),
            optimized: b.unwrap_or_default(),
        };
        self
    }

    /// The canvas pixels of the original and the optimized image for `view`: the ones made
    /// ahead when they are for this mapping, else computed here (`None`: no image).
    pub fn canvas_pixels(&self, view: &ViewMap) -> [Option<Cow<'_, [u8]>>; 2] {
        let ready = self.display.view.as_ref() == Some(view);
        let made = [&self.display.original, &self.display.optimized];
        let [a, b] = self.images();
        let view = &shown_view([a, b], *view);
        [(a, made[0]), (b, made[1])].map(|(img, px)| {
            let img = img?;
            Some(if ready && !px.is_empty() {
                Cow::Borrowed(px.as_slice())
            } else {
                Cow::Owned(display_rgba(img, view))
            })
        })
    }
}

/// Renders the original pair, then the optimized one, a few bands per step.
pub struct Task {
    plan: Plan,
    phase: Phase,
    job: Option<SceneJob>,
    /// Bands shaded so far in this phase and a guess of the phase's total, for progress.
    shaded: u64,
    expected: u64,
    pub original: Option<RunResult>,
    pub optimized: Option<RunResult>,
    /// What the run finished last measured, for the executor's calibration.
    pub observed: Option<crate::worker::choose::Observed>,
    /// The run under way's [`run_key`].
    key: Option<String>,
    /// Whether runs are looked up in and kept for later tasks ([`Task::reusing`]).
    cache: bool,
    /// Which runs were kept ones (original, optimized).
    pub reused: [bool; 2],
    /// The run under way's share with helper workers (`crate::worker::bands`).
    band: Option<crate::worker::bands::Share>,
}

/// Finished runs kept for the next jobs, most recent last: a keystroke that leaves a run's
/// scene as it was (a comment, a blank line, an edit the optimizer's output does not
/// show) reuses its image instead of drawing it again.
const KEPT_RUNS: usize = 4;
/// Pixels the kept images may hold together (16 bytes each).
const KEPT_PIXELS: usize = 4 << 20;

thread_local! {
    static RUNS: std::cell::RefCell<Vec<(String, Run)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Everything a run's result depends on, as text: the executor settings, the caps, the
/// target shown, the window, every program as printed (printing is lossless: parsing the
/// text gives the program back), the commands, and the user's pictures by their hash.
fn run_key(sc: &Scene, plan: &Plan) -> String {
    use std::fmt::Write;
    let mut k = format!(
        "{:?} {} {:?} {} {:?}",
        hoist_raster::jit::default_exec(),
        hoist_raster::jit::choose::costs().is_some(),
        caps(),
        plan.display,
        sc.window
    );
    for (name, pair) in &sc.programs {
        for p in [&pair.vertex, &pair.fragment].into_iter().flatten() {
            let _ = write!(k, "\n[{name}]\n{}", p.source);
        }
    }
    let _ = write!(k, "\n{:?}", sc.commands);
    for (name, bytes) in &plan.images {
        let _ = write!(k, " {name}:{:016x}", hoist_raster::jit::fnv1a(bytes));
    }
    k
}

fn cached_run(key: &str) -> Option<Run> {
    RUNS.with(|r| {
        let mut r = r.borrow_mut();
        let i = r.iter().position(|(k, _)| k == key)?;
        let e = r.remove(i);
        let run = e.1.clone();
        r.push(e);
        Some(run)
    })
}

fn keep_run(key: String, run: &Run) {
    RUNS.with(|r| {
        let mut r = r.borrow_mut();
        r.retain(|(k, _)| *k != key);
        r.push((key, run.clone()));
        let pixels = |r: &[(String, Run)]| r.iter().map(|e| e.1.image.pixels.len()).sum::<usize>();
        while r.len() > KEPT_RUNS || (r.len() > 1 && pixels(&r) > KEPT_PIXELS) {
            r.remove(0);
        }
    })
}

/// Forgets the kept runs (a test switch changed the executor).
pub fn forget_runs() {
    RUNS.with(|r| r.borrow_mut().clear());
}

impl Task {
    /// A task that draws both runs.
    pub fn new(plan: Plan) -> Task {
        Task::with_cache(plan, false)
    }

    /// A task that reuses a kept run whose scene is the same (the page's jobs, but for
    /// "time again"), and keeps its own runs for later tasks.
    pub fn reusing(plan: Plan) -> Task {
        Task::with_cache(plan, true)
    }

    fn with_cache(plan: Plan, cache: bool) -> Task {
        let mut t = Task {
            plan,
            phase: Phase::Original,
            job: None,
            shaded: 0,
            expected: 1,
            original: None,
            optimized: None,
            observed: None,
            key: None,
            cache,
            reused: [false; 2],
            band: None,
        };
        t.start_phase();
        t
    }

    fn start_phase(&mut self) {
        loop {
            let sc = match self.phase {
                Phase::Original => Some(&self.plan.original),
                Phase::Optimized => self.plan.optimized.as_ref(),
                Phase::Done => return,
            };
            let Some(sc) = sc else {
                self.phase = Phase::Done;
                return;
            };
            let draws = sc
                .commands
                .iter()
                .filter(|(_, c)| matches!(c, Command::Draw(_)))
                .count() as u64;
            self.expected = (draws * u64::from(sc.window.1.div_ceil(8))).max(1);
            self.shaded = 0;
            if self.cache {
                let key = run_key(sc, &self.plan);
                if let Some(run) = cached_run(&key) {
                    self.reused[usize::from(self.phase == Phase::Optimized)] = true;
                    self.store(Ok(run));
                    self.advance();
                    continue;
                }
                self.key = Some(key);
            }
            let opts = RunOptions {
                caps: caps(),
                images: self.plan.images.clone(),
                tolerance: None,
            };
            // The runtime's log from here on is this run's.
            let _ = crate::worker::executor::take_log();
            match SceneJob::new(sc.clone(), opts) {
                Ok(mut j) => {
                    if let Some(share) = crate::worker::bands::begin(sc, &caps(), &self.plan.images)
                    {
                        j.split(hoist_raster::scene::split::Role::Lead { parts: share.parts });
                        self.band = Some(share);
                    }
                    self.job = Some(j);
                    return;
                }
                Err(e) => {
                    self.store(Err(e.to_string()));
                    self.advance();
                }
            }
        }
    }

    fn store(&mut self, r: RunResult) {
        match self.phase {
            Phase::Original => self.original = Some(r),
            Phase::Optimized => self.optimized = Some(r),
            Phase::Done => {}
        }
    }

    fn advance(&mut self) {
        self.phase = match self.phase {
            Phase::Original => Phase::Optimized,
            _ => Phase::Done,
        };
    }

    fn finish_run(
        &mut self,
        r: Result<SceneResult, hoist_raster::RenderError>,
        (helped, shared): (u32, u32),
    ) -> RunResult {
        let mut r = r.map_err(|e| e.to_string())?;
        let sc = match self.phase {
            Phase::Optimized => self.plan.optimized.as_ref(),
            _ => Some(&self.plan.original),
        };
        let log = crate::worker::executor::take_log();
        let executor = sc.map(|sc| {
            let exec = hoist_raster::jit::default_exec();
            crate::worker::executor::describe(sc, exec, &log)
        });
        // A shared run's shading times include the helpers' competition for the cores:
        // they refine no rate (the modules it made still price making one).
        self.observed = Some(crate::worker::choose::Observed {
            shaded: if shared == 0 {
                log.shaded
            } else {
                Default::default()
            },
            made: log.made,
        });
        let image = r
            .targets
            .remove(&self.plan.display)
            .ok_or_else(|| format!("the scene has no target `{}`", self.plan.display))?;
        Ok(Run {
            image,
            stats: r.stats,
            probes: (r.passed(), r.failed()),
            probe_list: crate::worker::probes::views(&r.probes),
            executor,
            helped,
            shared,
        })
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The run under way has shaded its own bands and takes a helper's, one at a time:
    /// the caller should let the helpers' messages in between steps.
    pub fn stealing(&self) -> bool {
        self.job.as_ref().is_some_and(SceneJob::stealing)
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Shades up to `bands` bands of the current run; returns the run it worked on. Out of
    /// line, so that the job loop around it stays small for the browser's optimizing tier.
    #[inline(never)]
    pub fn step(&mut self, bands: u32) -> Phase {
        let worked = self.phase;
        let Some(job) = self.job.as_mut() else {
            return worked;
        };
        if let Some(share) = &self.band {
            for c in share.take() {
                job.merge(c);
            }
        }
        let p: Progress = job.step(bands);
        self.shaded += u64::from(bands.max(1));
        if p.done {
            let job = self.job.take().expect("job");
            // Dropping the share tells the helpers to stop.
            self.band = None;
            let helped = job.helped();
            let r = self.finish_run(job.finish(), helped);
            if let (Ok(run), Some(key)) = (&r, self.key.take()) {
                keep_run(key, run);
            }
            self.store(r);
            self.advance();
            self.start_phase();
        }
        worked
    }

    /// Overall progress in [0, 1] (an estimate while a run is under way).
    pub fn fraction(&self) -> f64 {
        let parts = if self.plan.optimized.is_some() {
            2.0
        } else {
            1.0
        };
        let cur = self.job.as_ref().map_or(1.0, |j| {
            let by_commands = j.progress().fraction();
            let by_bands = self.shaded as f64 / self.expected as f64;
            by_commands.max(by_bands).min(0.99)
        });
        let done_before = match self.phase {
            Phase::Original => 0.0,
            Phase::Optimized => 1.0,
            Phase::Done => return 1.0,
        };
        (done_before + cur) / parts
    }

    /// Runs everything (tests and small images).
    pub fn run_to_end(&mut self) {
        while !self.is_done() {
            self.step(u32::MAX);
        }
    }
}

/// How the two images compare, in words.
#[derive(Clone, Debug, PartialEq)]
pub enum VerdictKind {
    Identical,
    Equivalent,
    Different,
    /// The images agree, but the optimizer's result was not validated.
    Unvalidated,
    /// The images agree, but prove little (`crate::worker::guidance::Weak`).
    ProvesLittle,
    /// The images are drawn and validation has not answered yet: no verdict word.
    Validating,
}

/// The verdict line while validation runs ([`VerdictKind::Validating`]).
pub const VALIDATING: &str = "validating…";

impl VerdictKind {
    /// The CSS class of the verdict (and the summary line's).
    pub fn class(&self) -> &'static str {
        match self {
            VerdictKind::Identical => "identical",
            VerdictKind::Equivalent => "equivalent",
            VerdictKind::Different => "different",
            VerdictKind::Unvalidated => "unvalidated",
            VerdictKind::ProvesLittle => "weak",
            VerdictKind::Validating => "pending",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct VerdictView {
    pub kind: VerdictKind,
    pub headline: String,
    pub detail: String,
}

fn fmt4(v: [f32; 4]) -> String {
    format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3])
}

/// The headline in the one wording of `hoist_verify::verdict`.
fn wording(v: &Verdict, equivalent: bool) -> String {
    hoist_verify::verdict::Wording {
        verdict: v,
        equivalent,
    }
    .to_string()
}

/// The verdict line: "bit-identical", "equivalent: max |Δ| = …" (within `tolerance`), or
/// "DIFFERENT" with the worst pixel.
pub fn verdict_view(v: &Verdict, tolerance: f32) -> VerdictView {
    match v {
        Verdict::Identical => VerdictView {
            kind: VerdictKind::Identical,
            headline: wording(v, true),
            detail: "every channel of every pixel has the same bits".into(),
        },
        Verdict::Differs {
            max_abs_diff,
            x,
            y,
            channel,
            a,
            b,
            differing_pixels,
            nan_mismatches,
        } => {
            let ch = ["R", "G", "B", "A"].get(*channel as usize).unwrap_or(&"?");
            let worst = format!(
                "worst pixel ({x}, {y}) channel {ch}: original {} vs optimized {}; \
                 {differing_pixels} pixel(s) differ",
                fmt4(*a),
                fmt4(*b)
            );
            if *nan_mismatches == 0 && *max_abs_diff <= tolerance {
                VerdictView {
                    kind: VerdictKind::Equivalent,
                    headline: wording(v, true),
                    detail: format!("within the tolerance {tolerance:e}; {worst}"),
                }
            } else {
                VerdictView {
                    kind: VerdictKind::Different,
                    headline: wording(v, false),
                    detail: if *nan_mismatches > 0 {
                        format!("{nan_mismatches} channel(s) are NaN on one side only; {worst}")
                    } else {
                        worst
                    },
                }
            }
        }
        Verdict::SizeMismatch { a, b } => VerdictView {
            kind: VerdictKind::Different,
            headline: wording(v, false),
            detail: format!("{}x{} vs {}x{}", a.0, a.1, b.0, b.1),
        },
    }
}

/// The verdict line of a render under the optimized pair's trust (`None`: no optimized
/// pair to distrust). A hand edit is judged by its render alone.
pub fn page_verdict_view(v: &Verdict, tolerance: f32, trust: Option<&Trust>) -> VerdictView {
    if trust.is_some_and(|t| t.pending) {
        return VerdictView {
            kind: VerdictKind::Validating,
            headline: VALIDATING.into(),
            detail: "the images are drawn; the optimized pair is being validated before the \
                     verdict is given"
                .into(),
        };
    }
    let trusted = trust.is_none_or(|t| t.validated || t.hand);
    trusted_verdict_view(v, tolerance, trusted)
}

/// The verdict line of a finished render as the page states it (verdict panel, summary
/// line, test report): [`page_verdict_view`], and an agreement that proves little says so
/// instead of "bit-identical" or "equivalent".
pub fn rendered_view(r: &Rendered, tolerance: f32, trust: Option<&Trust>) -> Option<VerdictView> {
    let mut view = page_verdict_view(r.verdict.as_ref()?, tolerance, trust);
    if let Some(w) = r.weak
        && matches!(view.kind, VerdictKind::Identical | VerdictKind::Equivalent)
    {
        view.detail = format!("{} (the verdict alone: {})", w.advice(), view.headline);
        if w == crate::worker::guidance::Weak::Unsupplied && !r.unsupplied.is_empty() {
            view.detail = format!("{}; {}", r.unsupplied.join("; "), view.detail);
        }
        view.headline = w.headline();
        view.kind = VerdictKind::ProvesLittle;
    }
    Some(view)
}

/// The verdict line for a pair that may not be called equivalent (`validated` false: the
/// optimizer's result failed or skipped validation): agreeing images are reported as such,
/// never as "bit-identical" or "equivalent".
pub fn trusted_verdict_view(v: &Verdict, tolerance: f32, validated: bool) -> VerdictView {
    let view = verdict_view(v, tolerance);
    if validated || view.kind == VerdictKind::Different {
        return view;
    }
    let agree = view.headline.clone();
    VerdictView {
        kind: VerdictKind::Unvalidated,
        headline: "not validated".into(),
        detail: format!(
            "the images agree here ({agree}), but the optimized pair was not validated, so it \
             is not known to be equivalent"
        ),
    }
}

/// The mapping the canvases use for the document's `view`: RGBA shows RGB as opaque when
/// an image's alpha is 0 at every pixel while its RGB varies
/// (`hoist_verify::verdict::alpha_only_zero`: a program that writes only `.xyz`), rather
/// than two empty checkerboards; [`alpha_note`] says so beside the images.
pub fn shown_view(images: [Option<&Image>; 2], view: ViewMap) -> ViewMap {
    let zero = images
        .iter()
        .flatten()
        .any(|i| hoist_verify::verdict::alpha_only_zero(i));
    if view.channel == Channel::Rgba && zero {
        ViewMap {
            channel: Channel::Rgb,
            ..view
        }
    } else {
        view
    }
}

/// Why the canvases do not show the chosen mapping ([`shown_view`]), if they do not.
pub fn alpha_note(images: [Option<&Image>; 2], view: ViewMap) -> Option<String> {
    (shown_view(images, view) != view).then(|| {
        format!(
            "alpha is 0 at every pixel while RGB varies (the programs do not write alpha): \
             shown as {} instead of {}",
            Channel::Rgb.name(),
            Channel::Rgba.name()
        )
    })
}

/// RGBA8 pixels (top row first) for a canvas.
pub fn display_rgba(img: &Image, view: &ViewMap) -> Vec<u8> {
    let (lo, hi) = if view.hi > view.lo {
        (view.lo, view.hi)
    } else {
        (0.0, 1.0)
    };
    hoist_raster::image::to_rgba8(
        img,
        &ToRgba8 {
            lo,
            hi,
            channels: view.channel.swizzle(),
            top_down: true,
        },
    )
}

/// The difference heat map (top row first): black where bit-identical, then a log scale
/// from dark blue (|Δ| ≈ 1e-7) through green and yellow to red (|Δ| ≥ 1); magenta where
/// one side is NaN.
pub fn heat_map(a: &Image, b: &Image) -> Vec<u8> {
    let (w, h) = (a.width as usize, a.height as usize);
    let mut out = vec![0u8; w * h * 4];
    if a.width != b.width || a.height != b.height {
        return out;
    }
    for row in 0..h {
        let y = h - 1 - row;
        for x in 0..w {
            let (p, q) = (a.pixels[y * w + x], b.pixels[y * w + x]);
            let o = &mut out[(row * w + x) * 4..][..4];
            o[3] = 255;
            let mut d = 0.0f32;
            let mut nan = false;
            for c in 0..4 {
                if p[c].to_bits() == q[c].to_bits() {
                    continue;
                }
                if p[c].is_nan() != q[c].is_nan() {
                    nan = true;
                }
                let e = (p[c] - q[c]).abs();
                d = d.max(if e.is_nan() { f32::MAX } else { e });
            }
            if nan {
                o.copy_from_slice(&[255, 0, 255, 255]);
            } else if d > 0.0 || p != q {
                o.copy_from_slice(&heat_color(d));
            }
        }
    }
    out
}

/// Colour of a nonzero difference.
pub fn heat_color(d: f32) -> [u8; 4] {
    // t in [0, 1] over 1e-7 ..= 1 on a log scale.
    let t = ((d.max(1e-7).log10() + 7.0) / 7.0).clamp(0.0, 1.0);
    let stops: [(f32, [f32; 3]); 4] = [
        (0.0, [30.0, 40.0, 160.0]),
        (0.45, [20.0, 180.0, 90.0]),
        (0.75, [250.0, 220.0, 40.0]),
        (1.0, [240.0, 40.0, 30.0]),
    ];
    let mut c = stops[3].1;
    for k in 0..3 {
        let (t0, c0) = stops[k];
        let (t1, c1) = stops[k + 1];
        if t <= t1 {
            let f = (t - t0) / (t1 - t0);
            c = [0, 1, 2].map(|i| c0[i] + (c1[i] - c0[i]) * f);
            break;
        }
    }
    [c[0] as u8, c[1] as u8, c[2] as u8, 255]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Doc;
    use crate::worker::analysis::{analyze, parse};
    use hoist_asm::ir::ConstBinding;

    fn doc(vp: &str, fp: &str) -> Doc {
        Doc {
            vp: vp.into(),
            fp: fp.into(),
            ..Doc::default()
        }
    }

    fn fig3() -> Doc {
        let mut d = Doc {
            vp: include_str!("../../../examples/paper/fig3.vsh").into(),
            fp: include_str!("../../../examples/paper/fig3.psh").into(),
            ..Doc::default()
        };
        d.inputs.width = 64;
        d.inputs.height = 32;
        d
    }

    #[test]
    fn renders_both_pairs_in_steps() {
        let d = fig3();
        let a = analyze(&d);
        let plan = plan(&d, &a, &Images::new()).unwrap().expect("plan");
        assert!(
            plan.original
                .commands
                .iter()
                .any(|(_, c)| matches!(c, Command::Texture(0, ..)))
        );
        let mut t = Task::new(plan);
        let mut steps = 0;
        let mut last = 0.0;
        while !t.is_done() {
            t.step(1);
            let f = t.fraction();
            assert!(f >= last, "progress went back: {last} -> {f}");
            last = f;
            steps += 1;
            assert!(steps < 1000);
        }
        // 32 rows = 4 bands per pair, one band per step.
        assert!(steps >= 8, "{steps}");
        let o = t.original.unwrap().unwrap();
        let p = t.optimized.unwrap().unwrap();
        assert_eq!((o.image.width, o.image.height), (64, 32));
        assert_eq!(o.stats.fragment_invocations, 64 * 32);
        let v = hoist_raster::compare(&o.image, &p.image);
        let view = verdict_view(&v, 1e-4);
        assert_ne!(view.kind, VerdictKind::Different, "{view:?}");
    }

    #[test]
    fn a_broken_optimized_program_is_a_message() {
        let mut d = fig3();
        d.hand = Some(crate::doc::HandEdit {
            vp: d.vp.clone(),
            // Reads t0 but writes oC0 from an interpolator the vertex program never sets:
            // renders (the value is defined as 0) but differs.
            fp: "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nadd r0, r0, r0\nmov oC0, r0\n"
                .into(),
            base: None,
        });
        let a = analyze(&d);
        let mut t = Task::new(plan(&d, &a, &Images::new()).unwrap().unwrap());
        t.run_to_end();
        let o = t.original.unwrap().unwrap();
        let p = t.optimized.unwrap().unwrap();
        let view = verdict_view(&hoist_raster::compare(&o.image, &p.image), 1e-4);
        assert_eq!(view.kind, VerdictKind::Different);
        assert!(view.detail.contains("worst pixel"), "{}", view.detail);
    }

    #[test]
    fn multi_pass_scenes_render_the_optimized_pair_in_place() {
        let vsh = include_str!("../../../examples/paper/fig3.vsh");
        let psh = include_str!("../../../examples/paper/fig3.psh");
        let scene = format!(
            "[require]\nSIZE 32 32\n\n[hoist]\ntitle = two passes\noptimize = step\ndisplay = out\n\n\
             [vertex program]\nvs_1_1\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n\n\
             [fragment program]\nps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n\n\
             [vertex program step]\n{vsh}\n[fragment program step]\n{psh}\n\
             [test]\ntarget src rgba32f 32 32\ntarget out rgba32f 32 32\n\
             texture pattern 0 noise:7@32x32\nbind target src\nuse program\ndraw quad\n\
             texture target 0 src\nbind target out\nuse program step\ndraw quad\n"
        );
        let split = crate::doc::examples::split_scene(&scene).expect("split");
        assert_eq!(split.pair, "step");
        assert!(split.fp.starts_with("ps_2_0\n; Figure 3(b)"));
        let d = Doc {
            vp: split.vp,
            fp: split.fp,
            scene: Some(split.rest),
            inputs: crate::doc::Inputs {
                width: 32,
                height: 32,
                ..Default::default()
            },
            ..Doc::default()
        };
        let a = analyze(&d);
        assert!(a.optimized.is_some(), "{:?}", a.problem);
        let p = plan(&d, &a, &Images::new()).unwrap().unwrap();
        assert_eq!(p.display, "out");
        let mut t = Task::new(p);
        t.run_to_end();
        let o = t.original.unwrap().unwrap();
        let q = t.optimized.unwrap().unwrap();
        assert_eq!((o.image.width, o.image.height), (32, 32));
        // The second pass filtered the noise of the first: not a constant image.
        assert!(o.image.pixels.iter().any(|px| *px != o.image.pixels[0]));
        assert_eq!(o.stats.draws, 2);
        let v = verdict_view(&hoist_raster::compare(&o.image, &q.image), 1e-4);
        assert_ne!(v.kind, VerdictKind::Different, "{v:?}");
    }

    #[test]
    fn mirrored_parameters_reach_the_optimized_vertex_program() {
        let mut d = Doc {
            vp: "vs_1_1\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n".into(),
            fp: "ps_2_0\ndcl t0.xy\ndcl_2d s0\nmad r0.xy, t0, c2, c3\ntexld r1, r0, s0\nmov oC0, r1\n"
                .into(),
            ..Doc::default()
        };
        d.inputs.width = 32;
        d.inputs.height = 32;
        d.opts.mirror_params = true;
        let key = |index| ParamKey {
            vertex: false,
            local: false,
            index,
        };
        d.inputs.set_param(key(2), [0.5, 2.0, 0.0, 0.0]);
        d.inputs.set_param(key(3), [0.25, -0.5, 0.0, 0.0]);
        let a = analyze(&d);
        let o = a.outcome.as_ref().expect("optimized");
        assert!(!o.mirrors.is_empty(), "{:?}", o.notes);
        let p = plan(&d, &a, &Images::new()).unwrap().unwrap();
        // Each panel value set for a mirrored fragment parameter is copied right after it
        // to the vertex parameter that mirrors it.
        let cmds = &p.optimized.as_ref().unwrap().commands;
        for m in &o.mirrors {
            let (ConstBinding::Env(f), ConstBinding::Env(v)) = (&m.fragment, &m.vertex) else {
                continue;
            };
            let at = cmds
                .iter()
                .position(|(_, c)| param_key(c) == Some(key(*f)))
                .expect("the panel's value");
            let copy = param_key(&cmds[at + 1].1).expect("its copy");
            assert_eq!((copy.vertex, copy.index), (true, *v));
            assert_eq!(
                scene_param(p.optimized.as_ref().unwrap(), copy),
                scene_param(&p.original, key(*f))
            );
        }
        let mut t = Task::new(p.clone());
        t.run_to_end();
        let (x, y) = (t.original.unwrap().unwrap(), t.optimized.unwrap().unwrap());
        let v = verdict_view(&hoist_raster::compare(&x.image, &y.image), 1e-4);
        assert_ne!(v.kind, VerdictKind::Different, "{v:?}");
        // Without the mirrors the optimized pair reads zeros and differs.
        let mut bare = p.optimized.clone().unwrap();
        bare.commands
            .retain(|(_, c)| param_key(c).is_none_or(|k| !k.vertex));
        let mut t = Task::new(Plan {
            optimized: Some(bare),
            ..p
        });
        t.run_to_end();
        let y = t.optimized.unwrap().unwrap();
        assert!(!hoist_raster::compare(&x.image, &y.image).is_identical());
    }

    #[test]
    fn runaway_loops_are_cut_off_and_reported() {
        let mut d = Doc {
            vp: "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\n\
                 mov o0, v0\nmov o1, v1\n"
                .into(),
            fp: "ps_3_0\ndefi i0, 255, 0, 1, 0\ndef c0, 0.001, 0, 0, 0\ndcl_texcoord v0\nmov r0, c0.y\n\
                 rep i0\nrep i0\nrep i0\nadd r0, r0, c0.x\nendrep\nendrep\nendrep\nmov oC0, r0\n"
                .into(),
            ..Doc::default()
        };
        d.inputs.width = 16;
        d.inputs.height = 8;
        // Only the original pair matters here (and validating it would run the loops too).
        let a = crate::worker::analysis::parse(&d);
        assert_eq!(a.fp.errors(), 0, "{:?}", a.fp.diagnostics);
        let mut t = Task::new(plan(&d, &a, &Images::new()).unwrap().unwrap());
        t.run_to_end();
        let o = t.original.unwrap().unwrap();
        assert!(o.stats.truncated_batches > 0);
        assert!(o.stats.fragment_instructions <= 2 * 64 * MAX_BATCH_INSTRUCTIONS);
    }

    #[test]
    fn user_pictures_become_textures() {
        // A 2×2 picture, rows bottom first: blue, white / red, green.
        let mut pic = Image::new(2, 2, [0.0; 4]);
        pic.pixels = vec![
            [0.0, 0.0, 1.0, 1.0],
            [1.0, 1.0, 1.0, 1.0],
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
        ];
        let png = hoist_raster::image::encode_png(&pic, &ToRgba8::default()).unwrap();
        let mut s = crate::page::state::State::new(fig3());
        s.apply(crate::page::state::Action::SetImage(
            0,
            "pic.png".into(),
            Rc::new(png),
        ));
        assert_eq!(s.doc.inputs.texture(0).pattern, Pattern::Image);
        // Not part of links.
        let Ok(crate::doc::codec::Link::State(back)) =
            crate::doc::codec::decode(&crate::doc::codec::encode(&s.doc))
        else {
            panic!()
        };
        assert_eq!(back.inputs.texture(0).pattern, Pattern::Checker);
        let a = analyze(&s.doc);
        let p = plan(&s.doc, &a, &s.images).unwrap().unwrap();
        assert!(
            p.original
                .commands
                .iter()
                .any(|(_, c)| matches!(c, Command::Texture(0, TexSource::Image(_), _)))
        );
        let mut t = Task::new(p);
        t.run_to_end();
        let o = t.original.unwrap().unwrap();
        // Corners sample the corner texels: the picture is upright.
        let bl = o.image.get(0, 0).unwrap();
        let tl = o.image.get(0, o.image.height - 1).unwrap();
        assert!(bl[2] > 0.5 && bl[0] < 0.5, "{bl:?}");
        assert!(tl[0] > 0.5 && tl[2] < 0.5, "{tl:?}");
    }

    #[test]
    fn a_broken_scene_is_a_message() {
        let mut d = fig3();
        d.scene = Some("[test]\ndraw sideways\n".into());
        let a = analyze(&d);
        let e = plan(&d, &a, &Images::new()).err().expect("an error");
        assert!(e.starts_with("scene: line 2"), "{e}");
    }

    #[test]
    fn verdict_words() {
        assert_eq!(
            verdict_view(&Verdict::Identical, 0.0).headline,
            "bit-identical"
        );
        let v = Verdict::Differs {
            max_abs_diff: 1e-6,
            x: 3,
            y: 4,
            channel: 1,
            a: [0.0; 4],
            b: [0.0, 1e-6, 0.0, 0.0],
            differing_pixels: 2,
            nan_mismatches: 0,
        };
        let e = verdict_view(&v, 1e-4);
        assert_eq!(e.kind, VerdictKind::Equivalent);
        assert!(
            e.headline.starts_with("equivalent: max |Δ| = 1e-6"),
            "{}",
            e.headline
        );
        let d = verdict_view(&v, 1e-7);
        assert_eq!(d.kind, VerdictKind::Different);
        assert!(d.detail.contains("(3, 4) channel G"), "{}", d.detail);
    }

    #[test]
    fn unvalidated_pairs_are_never_called_equivalent() {
        let v = trusted_verdict_view(&Verdict::Identical, 0.0, true);
        assert_eq!(v.headline, "bit-identical");
        let v = trusted_verdict_view(&Verdict::Identical, 0.0, false);
        assert_eq!(v.kind, VerdictKind::Unvalidated);
        assert_eq!(v.headline, "not validated");
        assert!(v.detail.contains("(bit-identical)") && v.detail.contains("not known"));
        let close = Verdict::Differs {
            max_abs_diff: 1e-6,
            x: 0,
            y: 0,
            channel: 0,
            a: [0.0; 4],
            b: [1e-6, 0.0, 0.0, 0.0],
            differing_pixels: 1,
            nan_mismatches: 0,
        };
        let v = trusted_verdict_view(&close, 1e-4, false);
        assert_eq!(v.kind, VerdictKind::Unvalidated);
        assert!(
            v.detail.contains("equivalent: max |Δ| = 1e-6"),
            "{}",
            v.detail
        );
        // A difference is a difference either way.
        let v = trusted_verdict_view(&close, 1e-7, false);
        assert_eq!(v.kind, VerdictKind::Different);
    }

    #[test]
    fn heat_map_marks_only_differences() {
        let a = Image::new(2, 1, [0.5; 4]);
        let mut b = a.clone();
        b.pixels[1][0] = 0.75;
        let m = heat_map(&a, &b);
        assert_eq!(&m[0..4], &[0, 0, 0, 255]);
        assert_ne!(&m[4..7], &[0, 0, 0]);
        b.pixels[0][2] = f32::NAN;
        assert_eq!(&heat_map(&a, &b)[0..4], &[255, 0, 255, 255]);
        assert!(heat_color(1.0)[0] > 200 && heat_color(1e-7)[2] > 100);
    }

    #[test]
    fn panel_overrides_replace_scene_settings() {
        let mut d = fig3();
        d.scene = Some(
            "[require]\nSIZE 16 16\n[vertex program]\n[fragment program]\n[test]\n\
             parameter env_fp 2 (1, 1, 1, 1)\ntexture pattern 0 gradient@8x8\ndraw quad\n"
                .into(),
        );
        let key = ParamKey {
            vertex: false,
            local: false,
            index: 2,
        };
        d.inputs.set_param(key, [5.0; 4]);
        let sc = base_scene(
            &d,
            &[(0, TexTarget::T2D), (1, TexTarget::T2D)],
            &Images::new(),
        )
        .unwrap();
        assert_eq!(sc.window, (64, 32));
        assert_eq!(scene_param(&sc, key), Some([5.0; 4]));
        // Unit 0 keeps the scene's gradient; unit 1 (unbound) gets the default checker.
        assert!(sc.commands.iter().any(|(_, c)| matches!(
            c,
            Command::Texture(0, TexSource::Pattern(pattern::Pattern::Gradient, 8, 8), _)
        )));
        assert!(sc.commands.iter().any(|(_, c)| matches!(
            c,
            Command::Texture(1, TexSource::Pattern(pattern::Pattern::Checker(_), ..), _)
        )));
        d.inputs.set_texture(TexSpec {
            pattern: Pattern::Noise,
            ..TexSpec::new(0)
        });
        let sc = base_scene(&d, &[(0, TexTarget::T2D)], &Images::new()).unwrap();
        assert!(sc.commands.iter().any(|(_, c)| matches!(
            c,
            Command::Texture(0, TexSource::Pattern(pattern::Pattern::Noise(_), ..), _)
        )));
    }
    /// The lighting pair: a direction normalised through a cube map (unit 0), a
    /// 3D lookup (unit 1) and a 1D ramp (unit 2).
    const CUBE_VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
        MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";
    const CUBE_FP: &str = "!!ARBfp1.0\nTEMP d, n, v, r;\nMAD d, fragment.texcoord[0], 2, -1;\n\
        MOV d.z, 0.4;\nTEX n, d, texture[0], CUBE;\nTEX v, fragment.texcoord[0], texture[1], 3D;\n\
        TEX r, fragment.texcoord[0], texture[2], 1D;\nDP3 n.w, n, v;\nMAD result.color, n, v, r.w;\nEND\n";

    fn rendered(d: &Doc) -> Box<crate::worker::render::Rendered> {
        let t0 = std::time::Instant::now();
        let mut r = crate::worker::engine::Runner::new(
            crate::worker::engine::Job {
                id: 1,
                doc: d.clone(),
                images: Default::default(),
                fail: None,
                force: None,
                fresh: false,
                validation_delay_ms: 0,
                band_workers: None,
            },
            Box::new(move || t0.elapsed().as_secs_f64() * 1e3),
        );
        r.run_to_end()
            .into_iter()
            .find_map(|e| match e {
                crate::worker::engine::Event::Rendered { rendered, .. } => Some(rendered),
                _ => None,
            })
            .expect("a render")
    }

    /// Every unit gets a texture of the shape its target samples, named as such in the
    /// Inputs panel; the cube-map pair renders varied colours, not the incomplete
    /// texture's constant black, and nothing is flagged.
    #[test]
    fn every_target_gets_a_texture_of_its_shape() {
        let mut d = doc(CUBE_VP, CUBE_FP);
        (d.inputs.width, d.inputs.height) = (24, 24);
        let a = parse(&d);
        assert_eq!(
            a.targets,
            [
                (0, TexTarget::Cube),
                (1, TexTarget::T3D),
                (2, TexTarget::T1D)
            ]
        );
        let shapes: Vec<(String, String, Option<String>)> = [0, 1, 2]
            .map(|u| {
                let t = unit_texture(&a, &d.inputs, None, u).unwrap();
                (t.target.arb_name().to_string(), t.shape, t.flag)
            })
            .to_vec();
        assert_eq!(
            shapes,
            [
                ("CUBE".into(), "CUBE six 256×256 faces".into(), None),
                ("3D".into(), "3D 256×256×4".into(), None),
                ("1D".into(), "1D 256".into(), None),
            ]
        );
        let r = rendered(&d);
        assert!(r.unsupplied.is_empty(), "{:?}", r.unsupplied);
        let img = r.images()[0].expect("rendered");
        assert!(!crate::worker::guidance::is_constant(img));
        let black = img.pixels.iter().filter(|p| p[..3] == [0.0; 3]).count();
        assert!(black < img.pixels.len() / 2, "{black} black pixels");
        assert_ne!(r.weak, Some(crate::worker::guidance::Weak::Unsupplied));
        // Randomised inputs keep the shapes (noise of the same target).
        let mut e = d.clone();
        crate::worker::supplied::randomize(&mut e.inputs, &a, 3);
        let t = unit_texture(&a, &e.inputs, None, 0).unwrap();
        assert_eq!((t.shape.as_str(), t.flag), ("CUBE six 256×256 faces", None));
    }

    /// A scene that binds a 2D texture to the unit a CUBE lookup samples is flagged in the
    /// Inputs panel and in the render, whose agreeing verdict then proves little; choosing
    /// a pattern for the unit supplies the cube map and clears the flag.
    #[test]
    fn a_target_without_its_texture_is_flagged_never_trusted() {
        let fp = "!!ARBfp1.0\nTEMP d;\nMAD d, fragment.texcoord[0], 2, -1;\nMOV d.z, 0.4;\n\
                  TEX result.color, d, texture[0], CUBE;\nEND\n";
        let mut d = doc(CUBE_VP, fp);
        d.scene = Some("[test]\nwindow rgba32f 16 16\ntexture rgbw 0 (8, 8)\ndraw quad\n".into());
        (d.inputs.width, d.inputs.height) = (16, 16);
        let a = parse(&d);
        let sc = hoist_raster::scene::parse(d.scene.as_deref().unwrap(), &caps()).unwrap();
        let t = unit_texture(&a, &d.inputs, Some(&sc), 0).unwrap();
        assert_eq!(t.shape, "as the scene binds it");
        let flag = t.flag.expect("flagged");
        assert!(
            flag.contains("sampled as CUBE but it holds a 2D texture"),
            "{flag}"
        );
        let r = rendered(&d);
        assert_eq!(r.unsupplied, std::slice::from_ref(&flag));
        assert_eq!(r.weak, Some(crate::worker::guidance::Weak::Unsupplied));
        let v = rendered_view(&r, 1e-4, None).unwrap();
        assert_eq!(v.kind, VerdictKind::ProvesLittle);
        assert!(v.detail.contains(&flag), "{}", v.detail);
        // The Inputs panel's own pattern replaces the scene's texture: a cube map.
        d.inputs.set_texture(TexSpec::new(0));
        let t = unit_texture(&a, &d.inputs, Some(&sc), 0).unwrap();
        assert_eq!((t.shape.as_str(), t.flag), ("CUBE six 256×256 faces", None));
        let r = rendered(&d);
        assert!(r.unsupplied.is_empty());
        assert!(!crate::worker::guidance::is_constant(
            r.images()[0].unwrap()
        ));
    }

    /// D3D9's vertex samplers are units of their own (16 + #): a vs_3_0 `s0` sampled as 2D
    /// and a ps_3_0 `s0` sampled as CUBE each get a texture of their shape, the Inputs
    /// panel names the vertex one, nothing is flagged, and a document keeps its settings.
    #[test]
    fn d3d9_vertex_samplers_get_their_own_textures() {
        let vp = "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\n\
                  dcl_color o2\ndcl_2d s0\nmov r0, v1\nmov r0.w, c0.x\ntexldl r1, r0, s0\n\
                  mov o0, v0\nmov o1, v1\nmov o2, r1\n";
        let fp = "ps_3_0\ndcl_texcoord v0\ndcl_color v1\ndcl_cube s0\ndef c0, 2, -1, 0.4, 0\n\
                  mad r0, v0, c0.x, c0.y\nmov r0.z, c0.z\ntexld r1, r0, s0\nadd oC0, r1, v1\n";
        let mut d = doc(vp, fp);
        (d.inputs.width, d.inputs.height) = (16, 16);
        let a = parse(&d);
        assert_eq!(a.targets, [(0, TexTarget::Cube), (16, TexTarget::T2D)]);
        let t = unit_texture(&a, &d.inputs, None, 16).unwrap();
        assert_eq!((t.shape.as_str(), t.flag), ("2D 256×256", None));
        let sc = base_scene(&d, &a.targets, &Images::new()).unwrap();
        let shapes: Vec<(u8, TexShape)> = sc
            .commands
            .iter()
            .filter_map(|(_, c)| match c {
                Command::Texture(u, _, o) => Some((*u, o.shape)),
                _ => None,
            })
            .collect();
        assert_eq!(shapes, [(0, TexShape::Cube), (16, TexShape::D2)]);
        assert!(unsupplied(&sc, &a.targets).is_empty());
        let r = rendered(&d);
        assert!(r.unsupplied.is_empty(), "{:?}", r.unsupplied);
        assert_ne!(r.weak, Some(crate::worker::guidance::Weak::Unsupplied));
        // A unit without its texture is named as the vertex sampler it is.
        let bare = Scene::default();
        let flags = unsupplied(&bare, &[(16, TexTarget::T2D)]);
        assert_eq!(
            flags,
            [
                "texture vertex sampler s0 (unit 16) is sampled as 2D but it has no texture: \
              it reads (0, 0, 0, 1)"
            ]
        );
        // The document keeps a vertex sampler's settings.
        let mut spec = TexSpec::new(17);
        spec.size = 32;
        d.inputs.set_texture(spec);
        let d = d.sanitize().unwrap();
        assert_eq!(d.inputs.texture(17).size, 32);
    }

    /// A unit sampled through a shadow target gets a depth texture with compare LEQUAL:
    /// the Inputs panel says so, and the lookup returns real 0/1 shadow results (not the
    /// colour fetch). The export's line for it: `tests/scenefile.rs`.
    #[test]
    fn shadow_units_get_depth_textures_with_compare() {
        let fp = "!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nTEMP c;\n\
                  MOV c, fragment.texcoord[0];\nMOV c.z, fragment.texcoord[0].x;\n\
                  TEX result.color, c, texture[0], SHADOW2D;\nEND\n";
        let mut d = doc(CUBE_VP, fp);
        (d.inputs.width, d.inputs.height) = (16, 16);
        let mut spec = TexSpec::new(0);
        spec.pattern = Pattern::Noise;
        spec.size = 16;
        d.inputs.set_texture(spec.clone());
        let a = parse(&d);
        assert_eq!(a.targets, [(0, TexTarget::Shadow2D)]);
        let t = unit_texture(&a, &d.inputs, None, 0).unwrap();
        assert_eq!(
            (t.shape.as_str(), t.flag),
            ("2D 16×16, depth, compare LEQUAL", None)
        );
        let cmd = texture_command(&spec, TexTarget::Shadow2D, &Images::new());
        let Command::Texture(_, _, o) = &cmd else {
            panic!("{cmd:?}")
        };
        assert_eq!(
            (o.format, o.sampler.compare),
            (TexFormat::Depth, Some(texture::CompareFunc::Lequal))
        );
        let r = rendered(&d);
        assert!(r.unsupplied.is_empty(), "{:?}", r.unsupplied);
        let img = r.images()[0].expect("rendered");
        assert!(img.pixels.iter().all(|p| p[0] == 0.0 || p[0] == 1.0));
        assert!(!crate::worker::guidance::is_constant(img));
    }
}

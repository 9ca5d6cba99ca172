//! Running a scene: textures, targets, parameters and draws, a bounded number of bands at a
//! time, and the probes.

use super::kept;
use super::model::{
    Command, CompiledPair, FogSetting, ParamKind, Scene, SceneProgram, TOLERANCE_FLOAT,
    TOLERANCE_RGBA8, TexOptions, TexSource, serr,
};
use super::split::{Chunk, Claims, Role};
use crate::draw::{Caps, DrawState, Geometry, StageParams, Stats, TargetFormat};
use crate::error::RenderError;
use crate::glstate;
use crate::image::{Image, decode_png};
use crate::job::Progress;
use crate::pattern;
use crate::raster::{BAND, CompiledProgram, DrawInput, PreparedDraw, Target};
use crate::texture::{Filter, Level, MipFilter, Sampler, TexFormat, TexShape, Texture, Wrap};
use hoist_asm::Stage;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Options of [`run`].
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub caps: Caps,
    /// Images for `texture image UNIT NAME` (PNG or PFM bytes).
    pub images: BTreeMap<String, Vec<u8>>,
    /// Overrides the probe tolerance.
    pub tolerance: Option<f32>,
}

/// One probe's outcome.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeResult {
    pub line: u32,
    pub command: String,
    pub pass: bool,
    pub detail: String,
    /// A colour probe's pixel to show: the first that failed, else the first probed
    /// (x, y from the bottom left, and its value).
    pub observed: Option<(u32, u32, [f32; 4])>,
}

impl std::fmt::Display for ProbeResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} line {}: {}",
            if self.pass { "PASS" } else { "FAIL" },
            self.line,
            self.command
        )?;
        if !self.detail.is_empty() {
            write!(f, "  -- {}", self.detail)?;
        }
        Ok(())
    }
}

/// Everything a scene run produced.
#[derive(Clone, Debug, Default)]
pub struct SceneResult {
    pub probes: Vec<ProbeResult>,
    /// Final contents of every target, including `window`.
    pub targets: BTreeMap<String, Image>,
    pub stats: Stats,
}

impl SceneResult {
    pub fn passed(&self) -> usize {
        self.probes.iter().filter(|p| p.pass).count()
    }

    pub fn failed(&self) -> usize {
        self.probes.len() - self.passed()
    }
}

#[derive(Clone, Debug)]
enum UnitBinding {
    Texture(Arc<Texture>),
    Target(String, TexOptions),
}

/// Runs a scene a bounded number of bands at a time.
pub struct SceneJob {
    scene: Scene,
    opts: RunOptions,
    compiled: BTreeMap<String, CompiledPair>,
    pc: usize,
    /// The window was made by [`SceneJob::new`] from the scene's opening `window` command.
    window_made: bool,
    targets: BTreeMap<String, Target>,
    bound: String,
    program: String,
    state: DrawState,
    env: [StageParams; 2],
    locals: BTreeMap<(String, u8), StageParams>,
    units: BTreeMap<u8, UnitBinding>,
    clear_color: [f32; 4],
    clear_depth: f32,
    tolerance: Option<f32>,
    pending: Option<(PreparedDraw, u32)>,
    result: SceneResult,
    error: Option<RenderError>,
    /// A pixel to trace ([`trace`]); `None` for a render, which then pays one check a draw.
    tracing: Option<Box<Tracing>>,
    /// This worker's share of the scene's last draw ([`super::split`]), that draw's index
    /// in the commands, and the draw while its bands are shaded.
    split: Option<(Role, usize)>,
    split_draw: Option<(PreparedDraw, Claims)>,
    /// A helper's shaded bands not yet taken; a lead's chunks that came before the draw.
    chunks: Vec<Chunk>,
    /// Bands of the split draw merged from helpers, and its bands in all.
    helped: u32,
    shared: u32,
}

/// The pixel [`trace`] asked for and the last trace of a draw covering it.
struct Tracing {
    target: String,
    x: u32,
    y: u32,
    found: Option<crate::trace::PixelTrace>,
}

fn miptree() -> Texture {
    let cols = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
    ];
    Texture {
        shape: TexShape::D2,
        format: TexFormat::Rgba8,
        levels: (0..4)
            .map(|l| {
                let s = 8 >> l;
                Level::new(s, s, 1, vec![cols[l as usize]; (s * s) as usize])
            })
            .collect(),
        sampler: Sampler {
            min: Filter::Nearest,
            mag: Filter::Nearest,
            mip: MipFilter::Nearest,
            wrap: Wrap::ClampToEdge,
            ..Sampler::default()
        },
    }
}

fn stage_idx(s: Stage) -> usize {
    match s {
        Stage::Vertex => 0,
        Stage::Fragment => 1,
    }
}

impl SceneJob {
    /// Compiles the scene's programs and prepares the window.
    pub fn new(scene: Scene, opts: RunOptions) -> Result<SceneJob, RenderError> {
        let mut compiled = BTreeMap::new();
        for (name, pair) in &scene.programs {
            let c =
                |sp: &Option<SceneProgram>| -> Result<Option<Arc<CompiledProgram>>, RenderError> {
                    sp.as_ref()
                        .map(|sp| {
                            CompiledProgram::new(&sp.program)
                                .map(Arc::new)
                                .map_err(|e| serr(sp.line, e.to_string()))
                        })
                        .transpose()
                };
            compiled.insert(name.clone(), (c(&pair.vertex)?, c(&pair.fragment)?));
        }
        let (w, h) = scene.window;
        opts.caps.check_target(w, h)?;
        // A scene that opens with `window` gets that window at once, not a default one
        // first (two zeroed 16 MB allocations per run at 1024²); the command then keeps it.
        let opening = match scene.commands.first() {
            Some((_, Command::Window(f, ww, hh))) => Some((*f, *ww, *hh)),
            _ => None,
        };
        let (fmt, w, h) = opening.unwrap_or((TargetFormat::Rgba8, w, h));
        opts.caps.check_target(w, h)?;
        let mut targets = BTreeMap::new();
        targets.insert("window".to_string(), Target::new(w, h, fmt, [0.0; 4]));
        Ok(SceneJob {
            tolerance: opts.tolerance,
            scene,
            opts,
            compiled,
            pc: 0,
            window_made: opening.is_some(),
            targets,
            bound: "window".into(),
            program: String::new(),
            state: DrawState::default(),
            env: [StageParams::default(), StageParams::default()],
            locals: BTreeMap::new(),
            units: BTreeMap::new(),
            clear_color: [0.0; 4],
            clear_depth: 1.0,
            pending: None,
            result: SceneResult::default(),
            error: None,
            tracing: None,
            split: None,
            split_draw: None,
            chunks: Vec::new(),
            helped: 0,
            shared: 0,
        })
    }

    /// Shares the scene's last draw with other workers ([`super::split`]); call before the
    /// first step. A scene without draws has nothing to share.
    pub fn split(&mut self, role: Role) {
        let last = self
            .scene
            .commands
            .iter()
            .rposition(|(_, c)| matches!(c, Command::Draw(_)));
        self.split = last.filter(|_| self.pc == 0).map(|i| (role, i));
    }

    /// A helper's bands shaded since the last call.
    pub fn take_chunks(&mut self) -> Vec<Chunk> {
        if matches!(self.split, Some((Role::Helper { .. }, _))) {
            std::mem::take(&mut self.chunks)
        } else {
            Vec::new()
        }
    }

    /// A lead whose own bands are shaded and which now takes helpers' bands: its steps
    /// are one band long, so the caller should merge what arrived between them.
    pub fn stealing(&self) -> bool {
        self.split_draw.as_ref().is_some_and(|(_, c)| c.stealing())
    }

    /// Bands of the split draw merged from helpers, and the draw's bands in all (0 when
    /// nothing was shared).
    pub fn helped(&self) -> (u32, u32) {
        (self.helped, self.shared)
    }

    /// A lead merges a helper's band (one it has not shaded itself). A chunk that does not
    /// fit the draw is ignored: the lead shades that band. Returns whether it was used.
    pub fn merge(&mut self, c: Chunk) -> bool {
        if !matches!(self.split, Some((Role::Lead { .. }, _))) {
            return false;
        }
        let Some((_, claims)) = self.split_draw.as_mut() else {
            if self.pc <= self.split.map_or(0, |s| s.1) {
                self.chunks.push(c);
            }
            return false;
        };
        let Some(t) = self.targets.get_mut(&self.bound) else {
            return false;
        };
        let (start, end) = band_rows(t, c.band);
        let fits = start < end
            && c.color.len() == end - start
            && c.depth.len() == if t.depth.is_empty() { 0 } else { end - start };
        if !fits || !claims.accept(c.band) {
            return false;
        }
        t.color[start..end].copy_from_slice(&c.color);
        if !t.depth.is_empty() {
            t.depth[start..end].copy_from_slice(&c.depth);
        }
        self.result.stats.add(&c.stats);
        self.helped += 1;
        if claims.complete() {
            self.split_draw = None;
        }
        true
    }

    /// Progress in commands: `bands_done`/`bands_total` count executed/all `[test]`
    /// commands (a draw counts as done once all its bands are shaded).
    pub fn progress(&self) -> Progress {
        Progress {
            bands_done: self.pc as u64,
            bands_total: self.scene.commands.len() as u64,
            done: self.error.is_some()
                || (self.pc >= self.scene.commands.len()
                    && self.pending.is_none()
                    && self.split_draw.is_none()),
        }
    }

    fn target(&mut self, line: u32) -> Result<&mut Target, RenderError> {
        let name = self.bound.clone();
        self.targets
            .get_mut(&name)
            .ok_or_else(|| serr(line, format!("no target named `{name}`")))
    }

    fn total_bytes(&self) -> u64 {
        let t: u64 = self
            .targets
            .values()
            .map(|t| t.color.len() as u64 * 16)
            .sum();
        let u: u64 = self
            .units
            .values()
            .map(|b| match b {
                UnitBinding::Texture(t) => t.bytes(),
                UnitBinding::Target(..) => 0,
            })
            .sum();
        t + u
    }

    /// The texture of `src`: kept from an earlier run when it can be ([`kept`]), else built
    /// (and kept).
    fn texture(
        &self,
        line: u32,
        src: &TexSource,
        o: &TexOptions,
    ) -> Result<Arc<Texture>, RenderError> {
        let caps = &self.opts.caps;
        let key = kept::key(src, &self.opts.images, caps.max_texture_bytes);
        if let Some((t, size)) = key.as_deref().and_then(|k| kept::get(k, o)) {
            check_size(caps, line, size, o)?;
            return Ok(t);
        }
        let (t, size) = self.build_texture(line, src, o)?;
        let t = Arc::new(t);
        if let Some(key) = key {
            kept::put(key, *o, size, t.clone());
        }
        Ok(t)
    }

    fn build_texture(
        &self,
        line: u32,
        src: &TexSource,
        o: &TexOptions,
    ) -> Result<(Texture, (u32, u32)), RenderError> {
        let caps = &self.opts.caps;
        let img = match src {
            TexSource::Miptree => return Ok((miptree(), (8, 8))),
            TexSource::Pattern(p, w, h) => pattern::generate(p, *w, *h),
            TexSource::Image(name) => {
                let bytes =
                    self.opts.images.get(name).ok_or_else(|| {
                        serr(line, format!("no image named `{name}` was supplied"))
                    })?;
                let max = caps.max_texture_bytes / 16;
                if bytes.starts_with(b"\x89PNG") {
                    decode_png(bytes, max).map_err(|e| serr(line, e))?
                } else {
                    crate::image::decode_pfm(bytes, max).map_err(|e| serr(line, e))?
                }
            }
            TexSource::Target(name) => {
                let t = self
                    .targets
                    .get(name)
                    .ok_or_else(|| serr(line, format!("no target named `{name}`")))?;
                Image {
                    width: t.width,
                    height: t.height,
                    pixels: t.color.clone(),
                }
            }
        };
        check_size(caps, line, (img.width, img.height), o)?;
        let mut t = Texture::from_image(&img, o.shape, o.format, o.sampler);
        if o.mipmap && o.shape != TexShape::Rect {
            t.generate_mipmaps();
        }
        Ok((t, (img.width, img.height)))
    }

    /// Executes commands until `max_bands` bands of drawing have been shaded (commands
    /// other than draws cost nothing).
    pub fn step(&mut self, max_bands: u32) -> Progress {
        let mut budget = max_bands.max(1);
        while budget > 0 && !self.progress().done {
            if let Err(e) = self.step_one(&mut budget) {
                self.error = Some(e);
            }
        }
        self.progress()
    }

    // Out of line: `step`'s callers loop over it, and a browser's optimizing tier should not
    // recompile the whole command interpreter with them.
    #[inline(never)]
    fn step_one(&mut self, budget: &mut u32) -> Result<(), RenderError> {
        if self.split_draw.is_some() {
            self.step_split(budget);
            return Ok(());
        }
        if let Some((draw, next)) = self.pending.take() {
            let line = self
                .scene
                .commands
                .get(self.pc.saturating_sub(1))
                .map_or(0, |c| c.0);
            let limit = self.traced_band().map(|b| b + 1);
            let t = self.target(line)?;
            let total = limit.map_or(t.bands(), |l| l.min(t.bands()));
            let n = (*budget).min(total - next);
            let w = t.width as usize;
            let start = next as usize * BAND as usize * w;
            let end = ((next + n) as usize * BAND as usize * w).min(t.color.len());
            let depth: &mut [f32] = if t.depth.is_empty() {
                &mut []
            } else {
                &mut t.depth[start..end]
            };
            let s = draw.shade_bands(next, &mut t.color[start..end], depth);
            self.result.stats.add(&s);
            *budget -= n;
            if next + n < total {
                self.pending = Some((draw, next + n));
            }
            return Ok(());
        }
        let Some((line, cmd)) = self.scene.commands.get(self.pc).cloned() else {
            *budget = 0;
            return Ok(());
        };
        self.pc += 1;
        self.command(line, &cmd)
    }

    /// Shades the next bands of the split draw: a helper one band per chunk, a lead its
    /// own range, then one band at a time from the far end of what is missing.
    fn step_split(&mut self, budget: &mut u32) {
        let Some((draw, claims)) = self.split_draw.as_mut() else {
            return;
        };
        let Some(t) = self.targets.get_mut(&self.bound) else {
            self.split_draw = None;
            return;
        };
        let helper = matches!(self.split, Some((Role::Helper { .. }, _)));
        let stealing = claims.stealing();
        let max = if helper || stealing { 1 } else { *budget };
        match claims.claim(max) {
            Some((band, n)) => {
                let (start, _) = band_rows(t, band);
                let (_, end) = band_rows(t, band + n - 1);
                let depth: &mut [f32] = if t.depth.is_empty() {
                    &mut []
                } else {
                    &mut t.depth[start..end]
                };
                let stats = draw.shade_bands(band, &mut t.color[start..end], depth);
                if helper {
                    self.chunks.push(Chunk {
                        band,
                        color: t.color[start..end].to_vec(),
                        depth: depth.to_vec(),
                        stats,
                    });
                } else {
                    self.result.stats.add(&stats);
                }
                *budget = if stealing {
                    0
                } else {
                    budget.saturating_sub(n)
                };
            }
            None => *budget = 0,
        }
        if claims.complete() {
            self.split_draw = None;
            if helper {
                // Nothing after the split draw concerns a helper.
                self.pc = self.scene.commands.len();
            }
        }
    }

    fn command(&mut self, line: u32, cmd: &Command) -> Result<(), RenderError> {
        match cmd {
            Command::Ortho(v) => {
                let t = self.target(line)?;
                let (w, h) = (t.width as f32, t.height as f32);
                let [l, r, b, tp] = v.unwrap_or([0.0, w, 0.0, h]);
                self.state.gl.projection = glstate::ortho(l, r, b, tp, -1.0, 1.0);
                self.state.gl.modelview = glstate::IDENTITY;
            }
            Command::Param {
                stage,
                kind,
                index,
                value,
            } => {
                self.param(*stage, *kind, *index, *value);
            }
            Command::ParamState {
                stage,
                kind,
                index,
                state,
            } => {
                let value = self.state.gl.value(state);
                self.param(*stage, *kind, *index, value);
            }
            Command::ClearColor(c) => self.clear_color = *c,
            Command::ClearDepth(d) => self.clear_depth = *d,
            Command::Clear => {
                let (c, d) = (self.clear_color, self.clear_depth);
                let t = self.target(line)?;
                t.clear_color(c);
                t.clear_depth(d);
            }
            Command::Color(c) => self.state.set_color(*c),
            Command::TexCoord(u, v) => self.state.set_texcoord(*u as usize, *v),
            Command::Attrib(slot, v) => {
                if let Some(a) = self.state.current.get_mut(usize::from(*slot)) {
                    *a = *v;
                }
            }
            Command::Matrix { projection, m } => {
                if *projection {
                    self.state.gl.projection = *m;
                } else {
                    self.state.gl.modelview = *m;
                }
            }
            Command::Texture(unit, src, o) => {
                let b = match src {
                    TexSource::Target(name) => {
                        if !self.targets.contains_key(name) {
                            return Err(serr(line, format!("no target named `{name}`")));
                        }
                        UnitBinding::Target(name.clone(), *o)
                    }
                    _ => UnitBinding::Texture(self.texture(line, src, o)?),
                };
                self.units.insert(*unit, b);
                if self.total_bytes() > self.opts.caps.max_total_bytes {
                    return Err(serr(line, "textures and targets exceed the memory cap"));
                }
            }
            Command::Draw(g) => self.draw(line, g)?,
            Command::Enable(cap, on) => match cap.as_str() {
                "GL_DEPTH_TEST" => self.state.depth_test = *on,
                "GL_CULL_FACE" => self.state.cull_back = *on,
                "GL_VERTEX_PROGRAM_TWO_SIDE_ARB" => self.state.two_side = *on,
                "GL_COLOR_SUM" => self.state.color_sum = *on,
                "GL_CLAMP_VERTEX_COLOR" => self.state.vertex_clamp = *on,
                "GL_CLAMP_FRAGMENT_COLOR" => self.state.fragment_clamp = *on,
                _ => {}
            },
            Command::Probe {
                rect,
                expect,
                channels,
                text,
            } => {
                let r = self.probe(line, *rect, *expect, *channels, text)?;
                self.result.probes.push(r);
            }
            Command::RelProbe {
                rect,
                single,
                expect,
                channels,
                text,
            } => {
                let r = self.relative_probe(line, rect, *single, *expect, *channels, text)?;
                self.result.probes.push(r);
            }
            Command::ProbeDepth { x, y, expect, text } => {
                let r = self.probe_depth(line, *x, *y, *expect, text)?;
                self.result.probes.push(r);
            }
            Command::Window(fmt, w, h) => {
                if !std::mem::take(&mut self.window_made) {
                    self.targets
                        .insert("window".into(), Target::new(*w, *h, *fmt, [0.0; 4]));
                }
            }
            Command::NewTarget(name, fmt, w, h) => {
                self.targets
                    .insert(name.clone(), Target::new(*w, *h, *fmt, [0.0; 4]));
                if self.total_bytes() > self.opts.caps.max_total_bytes {
                    return Err(serr(line, "targets exceed the memory cap"));
                }
            }
            Command::Bind(name) => {
                if !self.targets.contains_key(name) {
                    return Err(serr(line, format!("no target named `{name}`")));
                }
                self.bound = name.clone();
            }
            Command::Swap(a, b) => {
                let ta = self
                    .targets
                    .remove(a)
                    .ok_or_else(|| serr(line, format!("no target named `{a}`")))?;
                let Some(tb) = self.targets.remove(b) else {
                    self.targets.insert(a.clone(), ta);
                    return Err(serr(line, format!("no target named `{b}`")));
                };
                self.targets.insert(a.clone(), tb);
                self.targets.insert(b.clone(), ta);
            }
            Command::Use(name) => {
                if !self.compiled.contains_key(name) && !name.is_empty() {
                    return Err(serr(line, format!("no program pair named `{name}`")));
                }
                self.program = name.clone();
            }
            Command::Tolerance(t) => self.tolerance = Some(*t),
            Command::Fog(f) => {
                let gl = &mut self.state.gl;
                match *f {
                    FogSetting::Color(c) => gl.fog_color = c,
                    FogSetting::Density(d) => gl.fog_density = d,
                    FogSetting::Start(v) => gl.fog_start = v,
                    FogSetting::End(v) => gl.fog_end = v,
                }
            }
            Command::Compare(a, b, tol, text) => {
                let r = self.compare_targets(line, a, b, *tol, text)?;
                self.result.probes.push(r);
            }
        }
        Ok(())
    }

    /// `parameter`: a host parameter of the current pair (locals) or stage (env).
    fn param(&mut self, stage: Stage, kind: ParamKind, index: u16, value: [f32; 4]) {
        let bank = match kind {
            ParamKind::Local => self
                .locals
                .entry((self.program.clone(), stage_idx(stage) as u8))
                .or_default(),
            _ => &mut self.env[stage_idx(stage)],
        };
        match kind {
            ParamKind::Env => {
                bank.env.insert(index, value);
            }
            ParamKind::Local => {
                bank.local.insert(index, value);
            }
            ParamKind::Int => {
                bank.ints.insert(index, value.map(|v| v as i32));
            }
            ParamKind::Bool => {
                bank.bools.insert(index, value[0] != 0.0);
            }
        }
    }

    /// `relative probe`: a probe in coordinates relative to the target's size.
    fn relative_probe(
        &mut self,
        line: u32,
        rect: &[f32; 4],
        single: bool,
        expect: [f32; 4],
        channels: usize,
        text: &str,
    ) -> Result<ProbeResult, RenderError> {
        let t = self.target(line)?;
        let (w, h) = (t.width as f32, t.height as f32);
        let px = |f: f32, n: f32| ((f * n) as i64).min(n as i64 - 1);
        let r = if single {
            [px(rect[0], w), px(rect[1], h), 1, 1]
        } else {
            [
                (rect[0] * w) as i64,
                (rect[1] * h) as i64,
                (rect[2] * w) as i64,
                (rect[3] * h) as i64,
            ]
        };
        self.probe(line, r, expect, channels, text)
    }

    /// `probe depth X Y Z`.
    fn probe_depth(
        &mut self,
        line: u32,
        x: i64,
        y: i64,
        expect: f32,
        text: &str,
    ) -> Result<ProbeResult, RenderError> {
        let t = self.target(line)?;
        let d = if x >= 0 && y >= 0 {
            t.depth_at(x as u32, y as u32)
        } else {
            None
        };
        let (pass, detail) = match d {
            Some(d) if (d - expect).abs() < 0.01 => (true, String::new()),
            Some(d) => (false, format!("expected {expect} observed {d}")),
            None => (false, "probe outside the target".into()),
        };
        Ok(ProbeResult {
            line,
            command: text.to_string(),
            pass,
            detail,
            observed: None,
        })
    }

    /// `compare A B [TOL]`: two targets against each other.
    fn compare_targets(
        &mut self,
        line: u32,
        a: &String,
        b: &String,
        tol: f32,
        text: &str,
    ) -> Result<ProbeResult, RenderError> {
        let img = |n: &String| {
            self.target_image(n)
                .ok_or_else(|| serr(line, format!("no target named `{n}`")))
        };
        let v = crate::image::compare(&img(a)?, &img(b)?);
        let pass = v.within(tol);
        let detail = match &v {
            crate::image::Verdict::Identical => String::new(),
            crate::image::Verdict::Differs {
                max_abs_diff,
                x,
                y,
                channel,
                a: pa,
                b: pb,
                differing_pixels,
                ..
            } => format!(
                "max |d| {max_abs_diff:e} at ({x},{y}).{} ({} vs {}), {differing_pixels} pixels differ",
                ['r', 'g', 'b', 'a'][*channel as usize & 3],
                pa[*channel as usize & 3],
                pb[*channel as usize & 3]
            ),
            crate::image::Verdict::SizeMismatch { a, b } => {
                format!("sizes differ: {}x{} vs {}x{}", a.0, a.1, b.0, b.1)
            }
        };
        Ok(ProbeResult {
            line,
            command: text.to_string(),
            pass,
            detail,
            observed: None,
        })
    }

    fn draw(&mut self, line: u32, g: &Geometry) -> Result<(), RenderError> {
        let (tw, th, fmt) = {
            let t = self.target(line)?;
            (t.width, t.height, t.format)
        };
        let geometry = match g {
            Geometry::Rect {
                x,
                y,
                w,
                h,
                tex: Some(t),
            } if t[0].is_nan() => Geometry::Rect {
                x: -1.0 + 2.0 * x / tw as f32,
                y: -1.0 + 2.0 * y / th as f32,
                w: 2.0 * w / tw as f32,
                h: 2.0 * h / th as f32,
                tex: None,
            },
            g => g.clone(),
        };
        let mut textures = BTreeMap::new();
        for (u, b) in &self.units {
            let t = match b {
                UnitBinding::Texture(t) => t.clone(),
                UnitBinding::Target(name, o) => Arc::new(
                    self.build_texture(line, &TexSource::Target(name.clone()), o)?
                        .0,
                ),
            };
            textures.insert(*u, t);
        }
        let (vp, fp) = self
            .compiled
            .get(&self.program)
            .cloned()
            .unwrap_or((None, None));
        let mut vparams = self.env[0].clone();
        let mut fparams = self.env[1].clone();
        if let Some(l) = self.locals.get(&(self.program.clone(), 0)) {
            vparams.local = l.local.clone();
        }
        if let Some(l) = self.locals.get(&(self.program.clone(), 1)) {
            fparams.local = l.local.clone();
        }
        let input = DrawInput {
            vp: vp.as_ref(),
            fp: fp.as_ref(),
            vparams: &vparams,
            fparams: &fparams,
            textures: &textures,
            geometry: &geometry,
            state: &self.state,
            caps: &self.opts.caps,
            exec: crate::jit::default_exec(),
        };
        if let Some(tr) = self.tracing.as_deref_mut() {
            trace_into(tr, &self.targets, &self.bound, line, &input)?;
        }
        let draw = PreparedDraw::new(&input, tw, th, fmt).map_err(|e| serr(line, e.to_string()))?;
        self.result.stats.add(&draw.vertex_stats);
        let t = self.target(line)?;
        if draw.needs_depth() {
            t.ensure_depth();
        }
        let bands = t.bands();
        if let Some((role, at)) = self.split
            && at + 1 == self.pc
            && self.tracing.is_none()
        {
            self.split_draw = Some((draw, Claims::new(role, bands)));
            self.shared = bands;
            for c in std::mem::take(&mut self.chunks) {
                self.merge(c);
            }
            return Ok(());
        }
        self.pending = Some((draw, self.traced_band().unwrap_or(0)));
        Ok(())
    }

    /// While tracing, a draw into the traced target shades only the band holding the
    /// pixel (what the trace and the later draws read of it), unless the scene samples
    /// that target as a texture.
    fn traced_band(&self) -> Option<u32> {
        let t = self.tracing.as_ref().filter(|t| t.target == self.bound)?;
        let sampled = self.scene.commands.iter().any(
            |(_, c)| matches!(c, Command::Texture(_, TexSource::Target(n), _) if *n == t.target),
        );
        (!sampled).then_some(t.y / BAND)
    }

    fn probe(
        &mut self,
        line: u32,
        rect: [i64; 4],
        expect: [f32; 4],
        n: usize,
        text: &str,
    ) -> Result<ProbeResult, RenderError> {
        let tol_override = self.tolerance;
        let t = self.target(line)?;
        let tol = tol_override.unwrap_or(match t.format {
            TargetFormat::Rgba8 => TOLERANCE_RGBA8,
            TargetFormat::Rgba32F => TOLERANCE_FLOAT,
        });
        let (tw, th) = (i64::from(t.width), i64::from(t.height));
        let x0 = rect[0].max(0);
        let y0 = rect[1].max(0);
        let x1 = rect[0].saturating_add(rect[2]).min(tw);
        let y1 = rect[1].saturating_add(rect[3]).min(th);
        let mut res = ProbeResult {
            line,
            command: text.to_string(),
            pass: true,
            detail: String::new(),
            observed: None,
        };
        if x0 >= x1 || y0 >= y1 {
            res.pass = false;
            res.detail = "probe outside the target".into();
            return Ok(res);
        }
        let mut bad = 0u64;
        let mut first = None;
        for y in y0..y1 {
            for x in x0..x1 {
                let p = t.color[(y * tw + x) as usize];
                if (0..n).any(|c| !((p[c] - expect[c]).abs() <= tol)) {
                    bad += 1;
                    first.get_or_insert((x, y, p));
                }
            }
        }
        let (sx, sy, sp) = first.unwrap_or((x0, y0, t.color[(y0 * tw + x0) as usize]));
        res.observed = Some((sx as u32, sy as u32, sp));
        if let Some((x, y, p)) = first {
            res.pass = false;
            let e: Vec<String> = expect[..n].iter().map(|v| format!("{v}")).collect();
            res.detail = format!(
                "{bad}/{} pixels off; first at ({x},{y}): expected ({}) observed ({}, {}, {}, {})",
                (x1 - x0) * (y1 - y0),
                e.join(", "),
                p[0],
                p[1],
                p[2],
                p[3]
            );
        }
        Ok(res)
    }

    /// Finishes the run (executing what is left).
    pub fn finish(mut self) -> Result<SceneResult, RenderError> {
        while !self.progress().done {
            self.step(u32::MAX);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        for (name, t) in self.targets {
            self.result.targets.insert(name, t.into_image());
        }
        Ok(self.result)
    }

    /// The current contents of a target.
    pub fn target_image(&self, name: &str) -> Option<Image> {
        self.targets.get(name).map(|t| Image {
            width: t.width,
            height: t.height,
            pixels: t.color.clone(),
        })
    }
}

/// The rows of band `band` of target `t` (empty past its end).
fn band_rows(t: &Target, band: u32) -> (usize, usize) {
    let row = BAND as usize * t.width as usize;
    let start = (band as usize * row).min(t.color.len());
    (start, (start + row).min(t.color.len()))
}

/// Runs a scene to the end.
pub fn run(scene: &Scene, opts: &RunOptions) -> Result<SceneResult, RenderError> {
    SceneJob::new(scene.clone(), opts.clone())?.finish()
}

/// Traces the traced pixel through a draw into the traced target, from what the target
/// holds there now; a draw not covering the pixel leaves the last trace.
fn trace_into(
    tr: &mut Tracing,
    targets: &BTreeMap<String, Target>,
    bound: &str,
    line: u32,
    input: &DrawInput,
) -> Result<(), RenderError> {
    if tr.target != bound {
        return Ok(());
    }
    let (x, y) = (tr.x, tr.y);
    let t = targets
        .get(bound)
        .ok_or_else(|| serr(line, format!("no target named `{bound}`")))?;
    let at = (y as usize) * (t.width as usize) + x as usize;
    if x >= t.width || y >= t.height {
        return Err(RenderError::Config(format!(
            "pixel ({x}, {y}) is outside the {}x{} image",
            t.width, t.height
        )));
    }
    let target = crate::trace::Target {
        width: t.width,
        height: t.height,
        format: t.format,
        color: t.color[at],
        depth: t.depth.get(at).copied().unwrap_or(t.depth_clear),
    };
    match crate::trace::trace_draw(input, &target, x, y) {
        Ok(found) => {
            tr.found = Some(found);
            Ok(())
        }
        Err(RenderError::Config(m)) if m.starts_with("no primitive") => Ok(()),
        Err(e) => Err(serr(line, e.to_string())),
    }
}

/// Traces pixel (`x`, `y`) (origin bottom-left) of target `target` through the scene: the
/// last draw into that target covering the pixel, from what the earlier draws left there
/// (`crate::trace::trace_draw`), with every draw rendered as [`run`] renders it. A pixel
/// no draw covers is an error.
pub fn trace(
    scene: &Scene,
    opts: &RunOptions,
    target: &str,
    x: u32,
    y: u32,
) -> Result<crate::trace::PixelTrace, RenderError> {
    let mut job = SceneJob::new(scene.clone(), opts.clone())?;
    job.tracing = Some(Box::new(Tracing {
        target: target.to_string(),
        x,
        y,
        found: None,
    }));
    while !job.progress().done {
        job.step(u32::MAX);
    }
    if let Some(e) = job.error.take() {
        return Err(e);
    }
    let found = job.tracing.take().and_then(|t| t.found);
    found.ok_or_else(|| {
        RenderError::Config(format!("no draw into `{target}` covers pixel ({x}, {y})"))
    })
}

/// A texture made from a `w`×`h` image under `o` fits the caps.
fn check_size(
    caps: &Caps,
    line: u32,
    (w0, h0): (u32, u32),
    o: &TexOptions,
) -> Result<(), RenderError> {
    let (w, h, d) = o.shape.extent(w0, h0);
    caps.check_texture(w0, h0, 1)
        .and_then(|_| caps.check_texture(w, h, d))
        .map_err(|e| serr(line, e.to_string()))
}

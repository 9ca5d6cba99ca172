//! A scene walked command by command as the executor's `SceneJob` runs it — targets,
//! binding, clears, parameter banks (env per stage, locals per pair and stage), GL state,
//! texture units, draws, swaps, probes — producing GPU commands instead of pixels. Textures
//! are built by the executor's own constructors (patterns, images, mipmaps), so the GPU
//! samples the executor's texels.

use super::build::{Builder, DrawSpec, Unit};
use super::model::{GpuCommand, ProbeKind, ProbeSpec};
use hoist_asm::Stage;
use hoist_raster::glstate;
use hoist_raster::scene::{
    Command, FogSetting, ParamKind, RunOptions, Scene, TOLERANCE_FLOAT, TOLERANCE_RGBA8,
    TexOptions, TexSource,
};
use hoist_raster::texture::{
    Filter, Level, MipFilter, Sampler, TexFormat, TexShape, Texture, Wrap,
};
use hoist_raster::{DrawState, Geometry, StageParams, TargetFormat};
use std::collections::BTreeMap;
use std::sync::Arc;

/// piglit's `texture miptree` (the executor's): 8×8 RGBA8, levels red, green, blue, white.
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
        levels: (0..4u32)
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

fn build_texture(src: &TexSource, o: &TexOptions, opts: &RunOptions) -> Result<Texture, String> {
    let img = match src {
        TexSource::Miptree => return Ok(miptree()),
        TexSource::Pattern(p, w, h) => hoist_raster::pattern::generate(p, *w, *h),
        TexSource::Image(name) => {
            let bytes = opts
                .images
                .get(name)
                .ok_or_else(|| format!("no image named `{name}` was supplied"))?;
            let max = opts.caps.max_texture_bytes / 16;
            if bytes.starts_with(b"\x89PNG") {
                hoist_raster::image::decode_png(bytes, max)?
            } else {
                hoist_raster::image::decode_pfm(bytes, max)?
            }
        }
        TexSource::Target(_) => return Err("a target is not built here".into()),
    };
    let mut t = Texture::from_image(&img, o.shape, o.format, o.sampler);
    if o.mipmap && o.shape != TexShape::Rect {
        t.generate_mipmaps();
    }
    Ok(t)
}

/// The walker's state (the executor's `SceneJob` without pixels).
pub(crate) struct Walk<'a> {
    pub b: Builder,
    scene: &'a Scene,
    opts: &'a RunOptions,
    targets: BTreeMap<String, (u32, u32, TargetFormat)>,
    bound: String,
    program: String,
    state: DrawState,
    env: [StageParams; 2],
    locals: BTreeMap<(String, u8), StageParams>,
    units: BTreeMap<u8, Unit>,
    clear_color: [f32; 4],
    clear_depth: f32,
    tolerance: Option<f32>,
}

fn idx(s: Stage) -> usize {
    match s {
        Stage::Vertex => 0,
        Stage::Fragment => 1,
    }
}

impl<'a> Walk<'a> {
    pub fn new(scene: &'a Scene, opts: &'a RunOptions) -> Walk<'a> {
        let mut w = Walk {
            b: Builder::default(),
            scene,
            opts,
            targets: BTreeMap::new(),
            bound: "window".into(),
            program: String::new(),
            state: DrawState::default(),
            env: [StageParams::default(), StageParams::default()],
            locals: BTreeMap::new(),
            units: BTreeMap::new(),
            clear_color: [0.0; 4],
            clear_depth: 1.0,
            tolerance: opts.tolerance,
        };
        let (ww, wh) = scene.window;
        w.new_target("window", ww, wh, TargetFormat::Rgba8);
        w
    }

    fn new_target(&mut self, name: &str, width: u32, height: u32, f: TargetFormat) {
        self.targets.insert(name.to_string(), (width, height, f));
        self.b.plan.commands.push(GpuCommand::Target {
            name: name.to_string(),
            width,
            height,
        });
    }

    fn bound(&self, line: u32) -> Result<(u32, u32, TargetFormat), String> {
        self.targets
            .get(&self.bound)
            .copied()
            .ok_or_else(|| format!("line {line}: no target named `{}`", self.bound))
    }

    /// Walks every command.
    pub fn run(&mut self) -> Result<(), String> {
        for (line, cmd) in &self.scene.commands {
            self.command(*line, cmd)?;
        }
        Ok(())
    }

    fn param(&mut self, stage: Stage, kind: ParamKind, index: u16, value: [f32; 4]) {
        let bank = match kind {
            ParamKind::Local => self
                .locals
                .entry((self.program.clone(), idx(stage) as u8))
                .or_default(),
            _ => &mut self.env[idx(stage)],
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

    fn command(&mut self, line: u32, cmd: &Command) -> Result<(), String> {
        match cmd {
            Command::Ortho(v) => {
                let (w, h, _) = self.bound(line)?;
                let [l, r, b, t] = v.unwrap_or([0.0, w as f32, 0.0, h as f32]);
                self.state.gl.projection = glstate::ortho(l, r, b, t, -1.0, 1.0);
                self.state.gl.modelview = glstate::IDENTITY;
            }
            Command::Param {
                stage,
                kind,
                index,
                value,
            } => self.param(*stage, *kind, *index, *value),
            Command::ParamState {
                stage,
                kind,
                index,
                state,
            } => {
                let v = self.state.gl.value(state);
                self.param(*stage, *kind, *index, v);
            }
            Command::ClearColor(c) => self.clear_color = *c,
            Command::ClearDepth(d) => self.clear_depth = *d,
            Command::Clear => {
                let (_, _, f) = self.bound(line)?;
                let color = match f {
                    TargetFormat::Rgba8 => self.clear_color.map(hoist_raster::texture::quantize8),
                    TargetFormat::Rgba32F => self.clear_color,
                };
                self.b.plan.commands.push(GpuCommand::Clear {
                    target: self.bound.clone(),
                    color,
                    depth: self.clear_depth.clamp(0.0, 1.0),
                });
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
                let u = match src {
                    TexSource::Target(name) => Unit::Target(name.clone(), *o),
                    _ => Unit::Texture(Arc::new(
                        build_texture(src, o, self.opts)
                            .map_err(|e| format!("line {line}: {e}"))?,
                    )),
                };
                self.units.insert(*unit, u);
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
            _ => self.other(line, cmd)?,
        }
        Ok(())
    }

    /// Targets, programs, fog, tolerance and the probes.
    fn other(&mut self, line: u32, cmd: &Command) -> Result<(), String> {
        match cmd {
            Command::Window(f, w, h) => self.new_target("window", *w, *h, *f),
            Command::NewTarget(name, f, w, h) => self.new_target(name, *w, *h, *f),
            Command::Bind(name) => {
                if !self.targets.contains_key(name) {
                    return Err(format!("line {line}: no target named `{name}`"));
                }
                self.bound = name.clone();
            }
            Command::Swap(a, b) => {
                let (Some(ta), Some(tb)) = (self.targets.remove(a), self.targets.remove(b)) else {
                    return Err(format!("line {line}: swap of unknown targets"));
                };
                self.targets.insert(a.clone(), tb);
                self.targets.insert(b.clone(), ta);
                self.b.plan.commands.push(GpuCommand::Swap {
                    a: a.clone(),
                    b: b.clone(),
                });
            }
            Command::Use(name) => self.program = name.clone(),
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
            _ => self.probe(line, cmd)?,
        }
        Ok(())
    }

    fn probe(&mut self, line: u32, cmd: &Command) -> Result<(), String> {
        let (w, h, f) = self.bound(line)?;
        let tolerance = self.tolerance.unwrap_or(match f {
            TargetFormat::Rgba8 => TOLERANCE_RGBA8,
            TargetFormat::Rgba32F => TOLERANCE_FLOAT,
        });
        let probe = self.b.plan.probes.len();
        let target = self.bound.clone();
        let (text, kind, gpu) = match cmd {
            Command::Probe {
                rect,
                expect,
                channels,
                text,
            } => (
                text,
                ProbeKind::Color,
                color(probe, target, *rect, *expect, *channels, tolerance),
            ),
            Command::RelProbe {
                rect,
                single,
                expect,
                channels,
                text,
            } => {
                let (wf, hf) = (w as f32, h as f32);
                let px = |f: f32, n: f32| ((f * n) as i64).min(n as i64 - 1);
                let r = if *single {
                    [px(rect[0], wf), px(rect[1], hf), 1, 1]
                } else {
                    [
                        (rect[0] * wf) as i64,
                        (rect[1] * hf) as i64,
                        (rect[2] * wf) as i64,
                        (rect[3] * hf) as i64,
                    ]
                };
                (
                    text,
                    ProbeKind::Color,
                    color(probe, target, r, *expect, *channels, tolerance),
                )
            }
            Command::ProbeDepth { x, y, expect, text } => (
                text,
                ProbeKind::Depth { expect: *expect },
                vec![GpuCommand::ProbeDepth {
                    probe,
                    target,
                    x: *x,
                    y: *y,
                }],
            ),
            Command::Compare(a, b, tol, text) => (
                text,
                ProbeKind::Compare {
                    a: format!("{probe}a"),
                    b: format!("{probe}b"),
                    tolerance: *tol,
                },
                vec![
                    GpuCommand::Snapshot {
                        key: format!("{probe}a"),
                        target: a.clone(),
                    },
                    GpuCommand::Snapshot {
                        key: format!("{probe}b"),
                        target: b.clone(),
                    },
                ],
            ),
            _ => return Ok(()),
        };
        self.b.plan.probes.push(ProbeSpec {
            line,
            text: text.clone(),
            kind,
        });
        self.b.plan.commands.extend(gpu);
        Ok(())
    }

    fn draw(&mut self, line: u32, g: &Geometry) -> Result<(), String> {
        let (tw, th, format) = self.bound(line)?;
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
        let pair = self.scene.programs.get(&self.program);
        let mut vparams = self.env[0].clone();
        let mut fparams = self.env[1].clone();
        if let Some(l) = self.locals.get(&(self.program.clone(), 0)) {
            vparams.local = l.local.clone();
        }
        if let Some(l) = self.locals.get(&(self.program.clone(), 1)) {
            fparams.local = l.local.clone();
        }
        let formats: BTreeMap<String, TargetFormat> =
            self.targets.iter().map(|(k, v)| (k.clone(), v.2)).collect();
        let spec = DrawSpec {
            pair: &self.program,
            vp: pair.and_then(|p| p.vertex.as_ref()).map(|s| &s.program),
            fp: pair.and_then(|p| p.fragment.as_ref()).map(|s| &s.program),
            vparams: &vparams,
            fparams: &fparams,
            state: &self.state,
            geometry: &geometry,
            target: &self.bound,
            size: (tw, th),
            format,
            formats: &formats,
            units: &self.units,
            caps: &self.opts.caps,
        };
        self.b.draw(&spec).map_err(|e| format!("line {line}: {e}"))
    }
}

fn color(
    probe: usize,
    target: String,
    rect: [i64; 4],
    expect: [f32; 4],
    channels: usize,
    tolerance: f32,
) -> Vec<GpuCommand> {
    vec![GpuCommand::Probe {
        probe,
        target,
        rect,
        expect,
        channels,
        tolerance,
    }]
}

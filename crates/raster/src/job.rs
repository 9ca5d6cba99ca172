//! Incremental rendering: a [`RenderJob`] shades a bounded number of 8-row bands per call
//! and reports progress, so a web page can render a large image between frames without
//! freezing. [`crate::render`] is a job run to the end.

use crate::draw::{RenderConfig, Rendered, Stats};
use crate::error::RenderError;
use crate::raster::{BAND, CompiledProgram, DrawInput, PreparedDraw, Target};
use hoist_asm::Program;
use std::sync::Arc;

/// How far a job has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub bands_done: u64,
    pub bands_total: u64,
    pub done: bool,
}

impl Progress {
    pub fn fraction(&self) -> f64 {
        if self.bands_total == 0 {
            1.0
        } else {
            self.bands_done as f64 / self.bands_total as f64
        }
    }
}

/// One draw of a program pair into a fresh target, rendered in steps.
pub struct RenderJob {
    target: Target,
    draw: PreparedDraw,
    next_band: u32,
    stats: Stats,
}

/// Checks the configuration's sizes against its caps.
pub fn check_config(cfg: &RenderConfig) -> Result<(), RenderError> {
    cfg.caps.check_target(cfg.width, cfg.height)?;
    let mut total = u64::from(cfg.width) * u64::from(cfg.height) * 16;
    for t in cfg.textures.values() {
        let b = t.bytes();
        if b > cfg.caps.max_texture_bytes {
            return Err(RenderError::Limit(format!(
                "a texture needs {b} bytes, the cap is {}",
                cfg.caps.max_texture_bytes
            )));
        }
        total += b;
    }
    if total > cfg.caps.max_total_bytes {
        return Err(RenderError::Limit(format!(
            "textures and target need {total} bytes, the cap is {}",
            cfg.caps.max_total_bytes
        )));
    }
    Ok(())
}

impl RenderJob {
    /// Compiles the programs, runs the vertex stage and sets up primitives.
    pub fn new(
        vp: Option<&Program>,
        fp: Option<&Program>,
        cfg: &RenderConfig,
    ) -> Result<RenderJob, RenderError> {
        let vp = vp.map(CompiledProgram::new).transpose()?.map(Arc::new);
        let fp = fp.map(CompiledProgram::new).transpose()?.map(Arc::new);
        RenderJob::with_compiled(vp.as_ref(), fp.as_ref(), cfg)
    }

    /// Like [`RenderJob::new`] with programs compiled once by the caller.
    pub fn with_compiled(
        vp: Option<&Arc<CompiledProgram>>,
        fp: Option<&Arc<CompiledProgram>>,
        cfg: &RenderConfig,
    ) -> Result<RenderJob, RenderError> {
        check_config(cfg)?;
        let mut target = Target::new(cfg.width, cfg.height, cfg.format, cfg.clear);
        let draw = PreparedDraw::new(
            &DrawInput {
                vp,
                fp,
                vparams: &cfg.params.vertex,
                fparams: &cfg.params.fragment,
                textures: &cfg.textures,
                geometry: &cfg.geometry,
                state: &cfg.state,
                caps: &cfg.caps,
                exec: cfg.exec,
            },
            cfg.width,
            cfg.height,
            cfg.format,
        )?;
        if draw.needs_depth() {
            target.ensure_depth();
        }
        let stats = draw.vertex_stats;
        Ok(RenderJob {
            target,
            draw,
            next_band: 0,
            stats,
        })
    }

    pub fn progress(&self) -> Progress {
        let total = self.target.bands();
        Progress {
            bands_done: u64::from(self.next_band),
            bands_total: u64::from(total),
            done: self.next_band >= total,
        }
    }

    /// Shades up to `max_bands` bands (8 rows each; at least one).
    pub fn step(&mut self, max_bands: u32) -> Progress {
        let total = self.target.bands();
        let n = max_bands.max(1).min(total - self.next_band.min(total));
        if n > 0 {
            let w = self.target.width as usize;
            let start = self.next_band as usize * BAND as usize * w;
            let end =
                ((self.next_band + n) as usize * BAND as usize * w).min(self.target.color.len());
            let depth: &mut [f32] = if self.target.depth.is_empty() {
                &mut []
            } else {
                &mut self.target.depth[start..end]
            };
            let s =
                self.draw
                    .shade_bands(self.next_band, &mut self.target.color[start..end], depth);
            self.stats.add(&s);
            self.next_band += n;
        }
        self.progress()
    }

    /// Draws again over the current contents (no clear), like issuing the same draw call
    /// twice: what arbref's `--repeat` times.
    pub fn redraw(&mut self) {
        self.next_band = 0;
    }

    pub fn run_to_end(&mut self) {
        while !self.progress().done {
            self.step(u32::MAX);
        }
    }

    /// The image so far (unshaded bands hold the clear colour).
    pub fn image_so_far(&self) -> &[[f32; 4]] {
        &self.target.color
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    pub fn finish(mut self) -> Rendered {
        self.run_to_end();
        Rendered {
            stats: self.stats,
            image: self.target.into_image(),
        }
    }
}

//! Scenes and bare pairs as GPU work: [`plan`] walks a scene the way the executor runs it
//! and records what a GPU must do to render the same thing — create RGBA32F targets (an
//! RGBA8 target's clamp and rounding happen in the shader), upload the executor's texture
//! levels, run each draw with the translated pair (the variant for its draw state), its
//! vertices, its uniform blocks and textures, copy targets into textures for render to
//! texture, swap, clear, and probe. [`plan_render`] does the same for one draw of
//! `hoist_raster::render`.
//!
//! Host conventions (what `js/runner.mjs` does): the viewport is the whole target, its depth
//! range GL's (near, far); counter-clockwise in GL window coordinates is front-facing
//! (WebGPU's `frontFace: "cw"`, its clip y being flipped by the translation);
//! depth is `depth32float`, tested with LESS and written only while the test is on (the
//! executor's); no blending; a binding with neither a texture nor a target reads a 1×1
//! (0, 0, 0, 1) texture, GL's incomplete texture; targets read back as RGBA32F rows from the
//! bottom.

mod build;
mod model;
mod scene;

pub use model::*;

use build::{Builder, DrawSpec, Unit};
use hoist_asm::Program;
use hoist_raster::scene::{RunOptions, Scene};
use hoist_raster::{RenderConfig, TargetFormat};
use std::collections::BTreeMap;

/// A scene as GPU work; `Err` names what the GPU plan cannot reproduce.
pub fn plan(scene: &Scene, opts: &RunOptions) -> Result<Plan, String> {
    let mut w = scene::Walk::new(scene, opts);
    w.run()?;
    Ok(w.b.plan)
}

/// One draw of a pair into a fresh target cleared to `cfg.clear` (what `hoist_raster::render`
/// draws), the target named `window`.
pub fn plan_render(
    vp: Option<&Program>,
    fp: Option<&Program>,
    cfg: &RenderConfig,
) -> Result<Plan, String> {
    let mut b = Builder::default();
    b.plan.commands.push(GpuCommand::Target {
        name: "window".into(),
        width: cfg.width,
        height: cfg.height,
    });
    b.plan.commands.push(GpuCommand::Clear {
        target: "window".into(),
        color: match cfg.format {
            TargetFormat::Rgba8 => cfg.clear.map(hoist_raster::texture::quantize8),
            TargetFormat::Rgba32F => cfg.clear,
        },
        depth: 1.0,
    });
    let units: BTreeMap<u8, Unit> = cfg
        .textures
        .iter()
        .map(|(u, t)| (*u, Unit::Texture(t.clone())))
        .collect();
    let formats = BTreeMap::from([("window".to_string(), cfg.format)]);
    b.draw(&DrawSpec {
        pair: "",
        vp,
        fp,
        vparams: &cfg.params.vertex,
        fparams: &cfg.params.fragment,
        state: &cfg.state,
        geometry: &cfg.geometry,
        target: "window",
        size: (cfg.width, cfg.height),
        format: cfg.format,
        formats: &formats,
        units: &units,
        caps: &cfg.caps,
    })?;
    Ok(b.plan)
}

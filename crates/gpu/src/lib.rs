//! # hoist-gpu: Hoist's assembly pairs on a real GPU
//!
//! [`translate`] turns a vertex/fragment pair of Hoist's IR (either dialect, original or
//! optimized; a missing stage is fixed function) into WGSL for WebGPU and GLSL ES 3.00 for
//! WebGL2, with a binding table ([`Bindings`]) the host fills as the executor fills its
//! tables. [`plan::plan`] turns a scene into the GPU's list of commands (targets, textures,
//! draws with their uniform data, probes), which `js/runner.mjs` executes in a browser with
//! WebGPU or WebGL2, float render targets and float readback; [`check`] holds the GPU's
//! results against the probes and the executor's images.
//!
//! ## How
//! A direct emitter writes WGSL ([`wgsl`]): one private `vec4f` per register, one block per
//! instruction (its assembly as a comment above it), D3D9 flow control as structured WGSL,
//! subroutines as functions. naga then parses and validates that text and writes the WebGL2
//! variant as GLSL ES 3.00 through `glsl-out` ([`naga_out`]). Writing WGSL text rather than
//! building a `naga::Module` by hand keeps the translation readable in the page (the same
//! text WebGPU compiles, instruction by instruction) at the cost of one parse; the module
//! naga builds from it is validated either way, so a translation bug fails natively.
//!
//! ## What "the same" means
//! The translation computes what the executor computes ([`hoist_asm::semantics`] and
//! `hoist_raster`'s pipeline), operation by operation in the same order. Where a GPU cannot
//! match it exactly — native transcendentals, division, fused multiply-add, NaN, denormals,
//! derivatives, texture filtering, seamless cube maps, f32 interpolation — the one list is
//! [`differences`] (and `docs/gpu-translation.md` with the measured figures).
//!
//! Conventions the host must follow are in [`iface`] (bind groups, blocks, attribute slots)
//! and [`plan`] (viewport, depth range, facing, texture uploads).

pub mod check;
pub mod differences;
mod error;
pub mod iface;
mod naga_out;
pub mod options;
pub mod plan;
mod wgsl;

pub use differences::Difference;
pub use error::Error;
pub use iface::Bindings;
pub use options::{Api, Options, Output};

use hoist_asm::{Program, Stage};
use serde::Serialize;

/// A translated pair.
#[derive(Clone, Debug, Serialize)]
pub struct Translation {
    /// The WebGPU module (entry points `vs` and `fs`).
    pub wgsl: String,
    /// GLSL ES 3.00 for WebGL2.
    pub glsl_vs: String,
    pub glsl_fs: String,
    pub bindings: Bindings,
    /// The semantic differences that apply to this pair.
    pub differences: Vec<Difference>,
}

/// Translates a pair (`None` = fixed function for that stage).
pub fn translate(
    vp: Option<&Program>,
    fp: Option<&Program>,
    opts: &Options,
) -> Result<Translation, Error> {
    for (p, want) in [(vp, Stage::Vertex), (fp, Stage::Fragment)] {
        if let Some(p) = p
            && p.stage() != want
        {
            return Err(Error::new(format!(
                "a {} program was given as the {} program",
                iface::stage_name(p.stage()),
                iface::stage_name(want)
            )));
        }
    }
    // The ARB fog options are instructions appended to the fragment program, as the
    // executor runs them.
    let lowered = fp.map(hoist_raster::fog::lower);
    let fp = lowered.as_ref();
    let f = iface::Iface::new(vp, fp, opts);
    if f.varyings.len() > iface::MAX_VARYINGS {
        return Err(Error::new(format!(
            "the pair needs {} interpolants; WebGPU and WebGL2 guarantee {}",
            f.varyings.len(),
            iface::MAX_VARYINGS
        )));
    }
    for scan in [&f.vscan, &f.fscan].into_iter().flatten() {
        if scan.textures.len() > iface::MAX_TEXTURES {
            return Err(Error::new(format!(
                "a program samples {} (unit, target) pairs; WebGPU guarantees {} textures per stage",
                scan.textures.len(),
                iface::MAX_TEXTURES
            )));
        }
    }
    let wgsl = wgsl::module(vp, fp, &f, opts, Api::WebGpu)?;
    naga_out::check(&wgsl)?;
    let gl = naga_out::check(&wgsl::module(vp, fp, &f, opts, Api::WebGl2)?)?;
    let mut bindings = f.bindings(vp, fp);
    let (glsl_vs, glsl_fs) = naga_out::glsl_pair(&gl, &mut bindings)?;
    Ok(Translation {
        wgsl,
        glsl_vs,
        glsl_fs,
        bindings,
        differences: differences::applying(vp, fp, opts),
    })
}

/// The WGSL of one API's variant, unvalidated (tests and debugging).
pub fn wgsl_for(
    vp: Option<&Program>,
    fp: Option<&Program>,
    opts: &Options,
    api: Api,
) -> Result<String, Error> {
    let lowered = fp.map(hoist_raster::fog::lower);
    let f = iface::Iface::new(vp, lowered.as_ref(), opts);
    wgsl::module(vp, lowered.as_ref(), &f, opts, api)
}

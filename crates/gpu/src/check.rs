//! The GPU's results held against the scene's probes and the executor's images: what
//! `js/runner.mjs` returns ([`GpuResult`]), the probes' verdicts worded as the executor
//! words its own, and the agreement of two float images (max |Δ| and where). The executor
//! stays the judge of a verdict; this is evidence beside it.

use crate::plan::{Plan, ProbeKind};
use base64::Engine;
use hoist_raster::image::Image;
use hoist_raster::scene::ProbeResult;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the runner returns for one plan.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct GpuResult {
    /// The adapter's name where the browser gives it.
    #[serde(default)]
    pub adapter: Option<String>,
    /// Why the plan could not run (no API, a shader the browser rejects, ...).
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub probes: Vec<GpuProbe>,
    /// Every target at the end, by name.
    #[serde(default)]
    pub targets: BTreeMap<String, GpuImage>,
    /// Targets read by `compare` probes, by key.
    #[serde(default)]
    pub snapshots: BTreeMap<String, GpuImage>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct GpuProbe {
    pub probe: usize,
    /// Colour probes: pixels off, pixels probed, the first off (x, y, r, g, b, a).
    #[serde(default)]
    pub bad: Option<u64>,
    #[serde(default)]
    pub total: Option<u64>,
    #[serde(default)]
    pub first: Option<Vec<f64>>,
    /// Depth probes: the depth read.
    #[serde(default)]
    pub depth: Option<f64>,
    /// The probe could not be run on this API.
    #[serde(default)]
    pub error: Option<String>,
}

/// A read-back target: RGBA f32 rows from the bottom, base64.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct GpuImage {
    pub width: u32,
    pub height: u32,
    pub pixels: String,
}

impl GpuImage {
    pub fn decode(&self) -> Result<Image, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.pixels)
            .map_err(|e| format!("pixels: {e}"))?;
        let n = self.width as usize * self.height as usize;
        if bytes.len() != n * 16 {
            return Err(format!(
                "{} bytes of pixels for a {}x{} image",
                bytes.len(),
                self.width,
                self.height
            ));
        }
        let f: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(Image {
            width: self.width,
            height: self.height,
            pixels: f
                .chunks_exact(4)
                .map(|p| [p[0], p[1], p[2], p[3]])
                .collect(),
        })
    }
}

/// The verdict of every probe of the plan, worded as the executor words its own.
pub fn probes(plan: &Plan, r: &GpuResult) -> Vec<ProbeResult> {
    plan.probes
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let mut out = ProbeResult {
                line: spec.line,
                command: spec.text.clone(),
                pass: false,
                detail: String::new(),
                observed: None,
            };
            let Some(g) = r.probes.iter().find(|p| p.probe == i) else {
                out.detail = "the GPU did not run this probe".into();
                return out;
            };
            if let Some(e) = &g.error {
                out.detail = e.clone();
                return out;
            }
            match &spec.kind {
                ProbeKind::Color => color(&mut out, g),
                ProbeKind::Depth { expect } => match g.depth {
                    Some(d) if (d as f32 - expect).abs() < 0.01 => out.pass = true,
                    Some(d) => out.detail = format!("expected {expect} observed {d}"),
                    None => out.detail = "probe outside the target".into(),
                },
                ProbeKind::Compare { a, b, tolerance } => {
                    let img = |k: &String| r.snapshots.get(k).map(|s| s.decode());
                    match (img(a), img(b)) {
                        (Some(Ok(a)), Some(Ok(b))) => {
                            let v = hoist_raster::image::compare(&a, &b);
                            out.pass = v.within(*tolerance);
                            if !out.pass {
                                out.detail = format!("{v:?}");
                            }
                        }
                        _ => out.detail = "the GPU did not read both targets".into(),
                    }
                }
            }
            out
        })
        .collect()
}

fn color(out: &mut ProbeResult, g: &GpuProbe) {
    match (g.bad, g.total) {
        (Some(0), Some(t)) if t > 0 => out.pass = true,
        (Some(_), Some(0)) | (None, _) | (_, None) => {
            out.detail = "probe outside the target".into();
        }
        (Some(bad), Some(total)) => {
            let first = g.first.clone().unwrap_or_default();
            let f = |i: usize| first.get(i).copied().unwrap_or(f64::NAN);
            out.detail = format!(
                "{bad}/{total} pixels off; first at ({},{}): observed ({}, {}, {}, {})",
                f(0),
                f(1),
                f(2),
                f(3),
                f(4),
                f(5)
            );
        }
    }
}

/// Largest |Δ| per channel at which a GPU image of a float target is said to agree with the
/// executor's: SwiftShader's transcendentals and f32 interpolation against libm and f64
/// (docs/gpu-translation.md). The differential and the page's GPU view both use it.
pub const FLOAT_TOLERANCE: f32 = 2e-3;
/// The same for an RGBA8 target: one step of 1/255 (a value at a rounding boundary).
pub const RGBA8_TOLERANCE: f32 = 1.0 / 255.0 + 1e-6;

/// How two images of the same size agree: the largest |Δ| of any channel (NaN against a
/// number counts as infinite, NaN against NaN as equal), where it is, and how many pixels
/// differ by more than `tolerance`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Agreement {
    pub max_abs: f32,
    /// (x, y, channel) of the largest |Δ| (first in row order), `None` when identical.
    pub at: Option<(u32, u32, usize)>,
    pub exact: [f32; 4],
    pub gpu: [f32; 4],
    pub over: u64,
    pub pixels: u64,
}

pub fn agreement(exact: &Image, gpu: &Image, tolerance: f32) -> Result<Agreement, String> {
    if (exact.width, exact.height) != (gpu.width, gpu.height) {
        return Err(format!(
            "sizes differ: {}x{} (executor) and {}x{} (GPU)",
            exact.width, exact.height, gpu.width, gpu.height
        ));
    }
    let mut a = Agreement {
        max_abs: 0.0,
        at: None,
        exact: [0.0; 4],
        gpu: [0.0; 4],
        over: 0,
        pixels: exact.pixels.len() as u64,
    };
    for (i, (e, g)) in exact.pixels.iter().zip(&gpu.pixels).enumerate() {
        let mut worst = 0.0f32;
        for c in 0..4 {
            let d = match (e[c].is_nan(), g[c].is_nan()) {
                (true, true) => 0.0,
                (false, false) if e[c] == g[c] => 0.0,
                (false, false) => (e[c] - g[c]).abs(),
                _ => f32::INFINITY,
            };
            let d = if d.is_nan() { f32::INFINITY } else { d };
            worst = worst.max(d);
            if d > a.max_abs {
                a.max_abs = d;
                a.at = Some(((i as u32) % exact.width, (i as u32) / exact.width, c));
                a.exact = *e;
                a.gpu = *g;
            }
        }
        if worst > tolerance {
            a.over += 1;
        }
    }
    Ok(a)
}

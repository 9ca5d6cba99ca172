//! Rendering the two pairs: render configurations from the document's inputs (textures,
//! parameters, mirrored parameters for the optimized pair), an incremental two-pair task
//! the page steps between frames, the verdict, and the display mappings (float → RGBA8,
//! difference heat map).

use crate::analysis::Analysis;
use crate::doc::{Doc, Inputs, ParamKey, Pattern, TexSpec, ViewMap};
use hoist_asm::Program;
use hoist_asm::ir::ConstBinding;
use hoist_opt::passes::fp_to_vp::Mirror;
use hoist_raster::image::{Image, ToRgba8, Verdict};
use hoist_raster::job::{Progress, RenderJob};
use hoist_raster::{
    Filter, Params, RenderConfig, Rendered, Sampler, TexFormat, Texture, Wrap, pattern,
};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// Largest user picture accepted as a texture (pixels).
pub const MAX_IMAGE_PIXELS: u64 = 2048 * 2048;

/// User-picked pictures by texture unit (never part of the document).
pub type Images = BTreeMap<u8, Rc<Image>>;

/// The texture of one unit.
pub fn make_texture(spec: &TexSpec, images: &Images) -> Texture {
    let img = match (spec.pattern, images.get(&spec.unit)) {
        (Pattern::Image, Some(img)) => (**img).clone(),
        (p, _) => {
            let pat = match p {
                Pattern::Gradient => pattern::Pattern::Gradient,
                Pattern::Noise => pattern::Pattern::Noise(1),
                _ => pattern::Pattern::Checker((spec.size / 8).max(1)),
            };
            pattern::generate(&pat, spec.size, spec.size)
        }
    };
    let filter = if spec.linear {
        Filter::Linear
    } else {
        Filter::Nearest
    };
    let wrap = if spec.repeat {
        Wrap::Repeat
    } else {
        Wrap::ClampToEdge
    };
    let format = if spec.rgba8 {
        TexFormat::Rgba8
    } else {
        TexFormat::Rgba32F
    };
    Texture::new_2d(
        img.width,
        img.height,
        img.pixels,
        format,
        Sampler::new(filter, wrap),
    )
}

fn set_param(params: &mut Params, key: ParamKey, v: [f32; 4]) {
    let stage = if key.vertex {
        &mut params.vertex
    } else {
        &mut params.fragment
    };
    if key.local {
        stage.local.insert(key.index, v);
    } else {
        stage.env.insert(key.index, v);
    }
}

/// The render configuration for the original pair.
pub fn base_config(inputs: &Inputs, units: &[u8], images: &Images) -> RenderConfig {
    let mut cfg = RenderConfig {
        width: inputs.width,
        height: inputs.height,
        ..RenderConfig::default()
    };
    for &u in units {
        cfg.textures
            .insert(u, Arc::new(make_texture(&inputs.texture(u), images)));
    }
    for p in &inputs.params {
        set_param(&mut cfg.params, p.key, p.value);
    }
    cfg
}

/// Applies the optimizer's mirrors: vertex copies of fragment parameters.
pub fn apply_mirrors(cfg: &mut RenderConfig, mirrors: &[Mirror]) {
    for m in mirrors {
        let value = match &m.fragment {
            ConstBinding::Env(n) => cfg.params.fragment.env.get(n).copied(),
            ConstBinding::Local(n) => cfg.params.fragment.local.get(n).copied(),
            ConstBinding::Literal(l) => Some(l.value),
            ConstBinding::State(s) => Some(cfg.state.gl.value(s)),
        }
        .unwrap_or([0.0; 4]);
        let key = match m.vertex {
            ConstBinding::Env(n) => ParamKey {
                vertex: true,
                local: false,
                index: n,
            },
            ConstBinding::Local(n) => ParamKey {
                vertex: true,
                local: true,
                index: n,
            },
            _ => continue,
        };
        set_param(&mut cfg.params, key, value);
    }
}

/// Both pairs with their configurations.
#[derive(Clone)]
pub struct Plan {
    pub original: (Program, Program, RenderConfig),
    pub optimized: Option<(Program, Program, RenderConfig)>,
}

/// What to render for an analysis, if the original pair parsed.
pub fn plan(doc: &Doc, a: &Analysis, images: &Images) -> Option<Plan> {
    let (v, f) = a.original_pair()?;
    let cfg = base_config(&doc.inputs, &a.units, images);
    let optimized = a.optimized_pair().map(|(v2, f2)| {
        let mut c2 = cfg.clone();
        if let Some(o) = &a.optimized {
            apply_mirrors(&mut c2, &o.outcome.mirrors);
        }
        (v2.clone(), f2.clone(), c2)
    });
    Some(Plan {
        original: (v.clone(), f.clone(), cfg),
        optimized,
    })
}

/// Which pair a step worked on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Original,
    Optimized,
    Done,
}

/// Result of one pair.
pub type PairResult = Result<Rendered, String>;

/// Renders the original pair, then the optimized one, a few bands per step.
pub struct Task {
    plan: Plan,
    phase: Phase,
    job: Option<RenderJob>,
    pub original: Option<PairResult>,
    pub optimized: Option<PairResult>,
}

impl Task {
    pub fn new(plan: Plan) -> Task {
        let mut t = Task {
            plan,
            phase: Phase::Original,
            job: None,
            original: None,
            optimized: None,
        };
        t.start_phase();
        t
    }

    fn start_phase(&mut self) {
        loop {
            let pair = match self.phase {
                Phase::Original => Some(&self.plan.original),
                Phase::Optimized => self.plan.optimized.as_ref(),
                Phase::Done => return,
            };
            let Some((v, f, cfg)) = pair else {
                self.phase = Phase::Done;
                return;
            };
            match RenderJob::new(Some(v), Some(f), cfg) {
                Ok(j) => {
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

    fn store(&mut self, r: PairResult) {
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

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// Shades up to `bands` bands of the current pair; returns the pair it worked on.
    pub fn step(&mut self, bands: u32) -> Phase {
        let worked = self.phase;
        let Some(job) = self.job.as_mut() else {
            return worked;
        };
        if job.step(bands).done {
            let job = self.job.take().expect("job");
            self.store(Ok(job.finish()));
            self.advance();
            self.start_phase();
        }
        worked
    }

    /// Overall progress in [0, 1].
    pub fn fraction(&self) -> f64 {
        let has_opt = self.plan.optimized.is_some();
        let parts = if has_opt { 2.0 } else { 1.0 };
        let cur = self.job.as_ref().map_or(1.0, |j| j.progress().fraction());
        let done_before = match self.phase {
            Phase::Original => 0.0,
            Phase::Optimized => 1.0,
            Phase::Done => return 1.0,
        };
        (done_before + cur) / parts
    }

    pub fn progress(&self) -> Option<Progress> {
        self.job.as_ref().map(RenderJob::progress)
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

/// The verdict line: "bit-identical", "equivalent: max |Δ| = …" (within `tolerance`), or
/// "DIFFERENT" with the worst pixel.
pub fn verdict_view(v: &Verdict, tolerance: f32) -> VerdictView {
    match v {
        Verdict::Identical => VerdictView {
            kind: VerdictKind::Identical,
            headline: "bit-identical".into(),
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
                    headline: format!("equivalent: max |Δ| = {max_abs_diff:e}"),
                    detail: format!("within the tolerance {tolerance:e}; {worst}"),
                }
            } else {
                VerdictView {
                    kind: VerdictKind::Different,
                    headline: format!("DIFFERENT: max |Δ| = {max_abs_diff:e}"),
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
            headline: "DIFFERENT: sizes differ".into(),
            detail: format!("{}x{} vs {}x{}", a.0, a.1, b.0, b.1),
        },
    }
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
    use crate::analysis::analyze;
    use crate::doc::Doc;

    fn fig3() -> Doc {
        let mut d = Doc {
            vp: include_str!("../../examples/paper/fig3.vsh").into(),
            fp: include_str!("../../examples/paper/fig3.psh").into(),
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
        let plan = plan(&d, &a, &Images::new()).expect("plan");
        assert!(plan.original.2.textures.contains_key(&0));
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
        });
        let a = analyze(&d);
        let mut t = Task::new(plan(&d, &a, &Images::new()).unwrap());
        t.run_to_end();
        let o = t.original.unwrap().unwrap();
        let p = t.optimized.unwrap().unwrap();
        let view = verdict_view(&hoist_raster::compare(&o.image, &p.image), 1e-4);
        assert_eq!(view.kind, VerdictKind::Different);
        assert!(view.detail.contains("worst pixel"), "{}", view.detail);
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
    fn mirrors_copy_fragment_values() {
        let mut cfg = RenderConfig::default();
        cfg.params.fragment.env.insert(3, [1.0, 2.0, 3.0, 4.0]);
        apply_mirrors(
            &mut cfg,
            &[Mirror {
                vertex: ConstBinding::Env(9),
                fragment: ConstBinding::Env(3),
            }],
        );
        assert_eq!(cfg.params.vertex.env.get(&9), Some(&[1.0, 2.0, 3.0, 4.0]));
    }
}

//! Why a verdict says what it says. A render that agrees may prove little: either image is
//! constant or nearly uniform (`hoist_verify::verdict::flatness`, the CLI's rule too), or
//! every parameter the programs read is unset ([`Weak`]). A DIFFERENT render
//! gets [`Guidance`]: the moved group that causes it, found by bisecting over the moved
//! groups as the optimizer's validation does (`hoist_verify::optimize`: halves first, then
//! growing prefixes), each candidate rendered at the page's inputs and compared at the
//! page's tolerance, at most [`MAX_BISECT_RENDERS`] renders ([`bisect`] is resumable, so
//! the worker renders one candidate per step); for a hand edit, the lines it changed; and
//! whether the worst pixel is a cancellation ([`cancellation`]): the original computes
//! intermediates far larger than its result, so single-precision rounding of them is the
//! difference, and a double-precision evaluation of the original at that pixel tells which
//! image is the more accurate.

use crate::doc::{Doc, Inputs};
use crate::worker::analysis::Analysis;
use hoist_asm::Program;
use hoist_asm::ir::Semantic;
use hoist_raster::image::{Image, Verdict};
use hoist_raster::probe::{self, StageEnv};
use hoist_raster::raster::{CompiledProgram, const_table, geometry_vertices};
use hoist_raster::{Caps, DrawState, Geometry, StageParams};
use hoist_verify::verdict::{Flat, flatness};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most candidate renders one bisection may take.
pub const MAX_BISECT_RENDERS: u32 = 12;

/// Why an agreeing render proves little.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Weak {
    /// Either image has one value everywhere, or nearly (`hoist_verify::verdict::Flat`).
    Flat(Flat),
    /// The programs read host parameters and none is set: every one reads 0.
    Unset,
    /// A texture unit is sampled with a target no texture fits: it reads (0, 0, 0, 1)
    /// (`Rendered::unsupplied` says which).
    Unsupplied,
}

impl Weak {
    pub fn headline(self) -> String {
        match self {
            Weak::Flat(f) => f.headline(),
            Weak::Unset => "proves little: every parameter it reads is unset".into(),
            Weak::Unsupplied => "proves little: a texture unit has no texture of its target".into(),
        }
    }

    pub fn advice(self) -> &'static str {
        match self {
            Weak::Flat(Flat::Constant) => {
                "the images agree, but one of them has the same value at every pixel, so the \
                 comparison exercises almost nothing; set the inputs the programs read \
                 (or randomise them) to test the pair"
            }
            Weak::Flat(Flat::Uniform { .. }) => {
                "the images agree, but one of them is the same value at every pixel up to a \
                 few roundings (a saturated or nearly constant result), so the comparison \
                 exercises almost nothing; set the inputs the programs read (or randomise \
                 them) to test the pair"
            }
            Weak::Unset => {
                "the images agree, but every parameter the programs read is 0; set them \
                 (or randomise the inputs) to test the pair"
            }
            Weak::Unsupplied => {
                "the images agree, but a texture unit is sampled with a target it has no \
                 texture for, so every such lookup reads (0, 0, 0, 1); give the unit a \
                 source in the Inputs panel to test the pair"
            }
        }
    }
}

/// Whether every pixel of an image has the same bits.
pub fn is_constant(img: &Image) -> bool {
    img.pixels.is_empty() || flatness(img) == Some(Flat::Constant)
}

/// What weakens an agreeing render of `doc`, if anything: an unsupplied texture target
/// first (it is why an image is constant, when one is), then a flat image (constant or
/// nearly uniform, `hoist_verify::verdict::flatness`), then unset parameters.
pub fn weakness(images: [Option<&Image>; 2], unset: bool, unsupplied: bool) -> Option<Weak> {
    if unsupplied {
        Some(Weak::Unsupplied)
    } else if let Some(f) = images.iter().flatten().find_map(|i| flatness(i)) {
        Some(Weak::Flat(f))
    } else if unset {
        Some(Weak::Unset)
    } else {
        None
    }
}

/// The moved group a DIFFERENT render comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Culprit {
    /// Index of the group (the optimizer's numbering, 0-based).
    pub group: usize,
    /// Its original fragment instructions and their source lines.
    pub instructions: Vec<u32>,
    pub lines: Vec<u32>,
}

/// Which image is closer to the exact value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Better {
    Original,
    Optimized,
}

/// A difference explained by cancellation of large intermediates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cancellation {
    /// Largest magnitude among the original fragment program's intermediates there.
    pub magnitude: f64,
    /// The worst channel's |Δ|.
    pub delta: f64,
    /// The original program evaluated in double precision at that pixel, if it could be.
    pub reference: Option<f64>,
    pub better: Option<Better>,
    pub text: String,
}

/// Guidance for a DIFFERENT verdict.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Guidance {
    pub culprit: Option<Culprit>,
    /// Lines of the hand-edited programs that differ from the optimizer's output
    /// (vertex, fragment).
    pub hand_lines: Option<(Vec<u32>, Vec<u32>)>,
    /// Why no culprit is named, or how the search ended.
    pub note: Option<String>,
    pub cancellation: Option<Cancellation>,
}

/// Where a bisection stands: a set of groups to render next, or its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Need(Vec<usize>),
    Found(usize),
    /// No subset of the moved groups differs on its own.
    NotFound,
}

/// Bisects `moved` (whose whole move is known to differ) given the renders so far
/// (`known`: group set → differs). Halves first; when neither half differs alone, the group
/// whose addition to a growing prefix first differs.
pub fn bisect(moved: &[usize], known: &BTreeMap<Vec<usize>, bool>) -> Step {
    let ask = |g: &[usize]| -> Result<bool, Step> {
        if g == moved {
            return Ok(true);
        }
        known.get(g).copied().ok_or_else(|| Step::Need(g.to_vec()))
    };
    let mut cand = moved.to_vec();
    while cand.len() > 1 {
        let (a, b) = cand.split_at(cand.len() / 2);
        match ask(a) {
            Err(s) => return s,
            Ok(true) => {
                cand = a.to_vec();
                continue;
            }
            Ok(false) => {}
        }
        match ask(b) {
            Err(s) => return s,
            Ok(true) => cand = b.to_vec(),
            Ok(false) => break,
        }
    }
    if cand.len() == 1 {
        return Step::Found(cand[0]);
    }
    for k in 1..=cand.len() {
        match ask(&cand[..k]) {
            Err(s) => return s,
            Ok(true) => return Step::Found(cand[k - 1]),
            Ok(false) => {}
        }
    }
    Step::NotFound
}

/// Source lines of a program's text that differ from another's (common first and last
/// lines trimmed), 1-based.
pub fn changed_lines(from: &str, to: &str) -> Vec<u32> {
    let a: Vec<&str> = from.lines().collect();
    let b: Vec<&str> = to.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let end = b.len() - tail;
    if end > head {
        (head..end).map(|i| i as u32 + 1).collect()
    } else if a.len() != b.len() {
        vec![(head as u32 + 1).min(b.len().max(1) as u32)]
    } else {
        Vec::new()
    }
}

/// The parameters of one stage as the document sets them.
pub fn stage_params(inputs: &Inputs, vertex: bool) -> StageParams {
    let mut p = StageParams::default();
    for v in inputs.params.iter().filter(|v| v.key.vertex == vertex) {
        let bank = if v.key.local {
            &mut p.local
        } else {
            &mut p.env
        };
        bank.insert(v.key.index, v.value);
    }
    p
}

use hoist_raster::eval64::{Inputs64, eval64};

/// The original pair's interpolants at the centre of pixel (x, y) of the bare quad, in
/// double precision from the vertex program's single-precision outputs.
fn interpolants(doc: &Doc, vp: &Program, x: u32, y: u32) -> Option<Inputs64> {
    let mut state = DrawState::default();
    for a in &doc.inputs.attribs {
        state.current[usize::from(a.slot)] = a.value;
    }
    let gl = crate::worker::supplied::gl_state(&doc.inputs);
    let caps = Caps::default();
    let (verts, idx) = geometry_vertices(&Geometry::Quad, &state, &caps).ok()?;
    let cvp = CompiledProgram::new(vp).ok()?;
    let params = stage_params(&doc.inputs, true);
    let env = StageEnv {
        params: &params,
        gl: &gl,
        textures: &BTreeMap::new(),
        caps: &caps,
    };
    let out = probe::run_vertices(&cvp, &env, &verts);
    let vary: Vec<Vec<(Semantic, [f32; 4])>> = out
        .outputs
        .iter()
        .map(|o| probe::varyings(vp, o, &state).collect())
        .collect();
    let pos: Vec<[f64; 4]> = vary
        .iter()
        .map(|v| {
            let p = v
                .iter()
                .find(|(s, _)| *s == Semantic::Position(0))
                .map_or([0.0, 0.0, 0.0, 1.0], |(_, p)| *p);
            p.map(f64::from)
        })
        .collect();
    let (w, h) = (f64::from(doc.inputs.width), f64::from(doc.inputs.height));
    let scr = |p: [f64; 4]| ((p[0] / p[3] + 1.0) * 0.5 * w, (p[1] / p[3] + 1.0) * 0.5 * h);
    let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
    for t in idx.chunks(3) {
        let [a, b, c] = [0, 1, 2].map(|k| scr(pos[t[k] as usize]));
        let det = (b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1);
        if det == 0.0 || !det.is_finite() {
            continue;
        }
        let l1 = ((px - a.0) * (c.1 - a.1) - (c.0 - a.0) * (py - a.1)) / det;
        let l2 = ((b.0 - a.0) * (py - a.1) - (px - a.0) * (b.1 - a.1)) / det;
        let l = [1.0 - l1 - l2, l1, l2];
        if l.iter().any(|v| *v < -1e-9) {
            continue;
        }
        let pw: Vec<f64> = (0..3).map(|k| l[k] / pos[t[k] as usize][3]).collect();
        let sum: f64 = pw.iter().sum();
        let mut map = Inputs64::new();
        for (k, &vi) in t.iter().enumerate() {
            for (s, v) in &vary[vi as usize] {
                let e = map.slot(*s);
                for c in 0..4 {
                    e[c] += pw[k] / sum * f64::from(v[c]);
                }
            }
        }
        map.insert(Semantic::WindowPos, [px, py, 0.0, 1.0]);
        map.insert(Semantic::Face, [1.0; 4]);
        return Some(map);
    }
    None
}

/// One unit in the last place of a single-precision number of magnitude `m`.
fn ulp(m: f64) -> f64 {
    (2.0f64).powi(m.abs().max(f64::MIN_POSITIVE).log2().floor() as i32 - 23)
}

/// Whether the worst pixel of a DIFFERENT render is cancellation in the original fragment
/// program (bare quad only: the interpolants there are known).
pub fn cancellation(doc: &Doc, a: &Analysis, v: &Verdict) -> Option<Cancellation> {
    let Verdict::Differs {
        x,
        y,
        channel,
        a: pa,
        b: pb,
        ..
    } = v
    else {
        return None;
    };
    if doc.scene.is_some() {
        return None;
    }
    let (vp, fp) = a.original_pair()?;
    let inputs = interpolants(doc, vp, *x, *y)?;
    let cfp = CompiledProgram::new(fp).ok()?;
    let params = stage_params(&doc.inputs, false);
    let gl = crate::worker::supplied::gl_state(&doc.inputs);
    let caps = Caps::default();
    let env = StageEnv {
        params: &params,
        gl: &gl,
        textures: &BTreeMap::new(),
        caps: &caps,
    };
    let f32_in = |_: usize, s: Semantic| -> [f32; 4] {
        inputs
            .get(s)
            .map_or(probe::UNWRITTEN, |v| v.map(|c| c as f32))
    };
    let run = probe::run_fragments(&cfp, &env, 1, false, true, &f32_in).ok()?;
    let magnitude = run
        .trace
        .iter()
        .flatten()
        .flatten()
        .flat_map(|v| v.iter())
        .filter(|c| c.is_finite())
        .fold(0.0f64, |m, c| m.max(f64::from(c.abs())));
    let c = usize::from(*channel).min(3);
    let (va, vb) = (f64::from(pa[c]), f64::from(pb[c]));
    let delta = (va - vb).abs();
    let result = va.abs().max(vb.abs());
    let steps = fp.insts.len().max(1) as f64;
    if !delta.is_finite() || magnitude < 64.0 * result.max(delta) || delta > steps * ulp(magnitude)
    {
        return None;
    }
    let consts = const_table(fp, cfp.kernel.const_len, &params, &gl);
    let reference = eval64(fp, &consts, &inputs).map(|o| o[c]);
    let better = reference.and_then(|r| {
        let (ea, eb) = ((va - r).abs(), (vb - r).abs());
        if eb * 2.0 < ea {
            Some(Better::Optimized)
        } else if ea * 2.0 < eb {
            Some(Better::Original)
        } else {
            None
        }
    });
    let text = explain(magnitude, result, delta, reference, va, vb, better);
    Some(Cancellation {
        magnitude,
        delta,
        reference,
        better,
        text,
    })
}

fn explain(
    magnitude: f64,
    result: f64,
    delta: f64,
    reference: Option<f64>,
    va: f64,
    vb: f64,
    better: Option<Better>,
) -> String {
    let mut s = format!(
        "cancellation: the original fragment program computes intermediates as large as \
         {magnitude:.4e} that cancel to a result of {result:.4}; single precision keeps them \
         only to ±{:.2e}, so a |Δ| of {delta:.3e} is rounding, not a wrong move.",
        ulp(magnitude) / 2.0
    );
    match (reference, better) {
        (Some(r), Some(b)) => {
            let (win, lose, ew, el) = match b {
                Better::Optimized => ("optimized", "original", (vb - r).abs(), (va - r).abs()),
                Better::Original => ("original", "optimized", (va - r).abs(), (vb - r).abs()),
            };
            s.push_str(&format!(
                " Evaluated in double precision this pixel is {r:.7}: the {win} image is the \
                 more accurate one (off by {ew:.2e}, the {lose} by {el:.2e})."
            ));
        }
        (Some(r), None) => s.push_str(&format!(
            " In double precision this pixel is {r:.7}; both images are about as far from it."
        )),
        (None, _) => {
            s.push_str(" (The program uses operations the double-precision check does not know.)")
        }
    }
    s
}

/// Groups every member of which moved (the optimizer's numbering).
pub fn moved_groups(o: &hoist_opt::Outcome) -> Vec<usize> {
    (0..o.groups.len())
        .filter(|&g| {
            !o.groups[g].is_empty()
                && o.groups[g]
                    .iter()
                    .all(|&i| matches!(o.fates[i as usize], hoist_opt::Fate::Moved { .. }))
        })
        .collect()
}

/// The culprit of group `g`, with its source lines.
pub fn culprit(a: &Analysis, o: &hoist_opt::Outcome, g: usize) -> Culprit {
    let instructions = o.groups.get(g).cloned().unwrap_or_default();
    let mut lines: Vec<u32> = instructions.iter().map(|&i| a.fp.lines.line(i)).collect();
    hoist_asm::sort::ord(&mut lines);
    lines.dedup();
    Culprit {
        group: g,
        instructions,
        lines,
    }
}

/// True for a program that reads parameters the document never sets.
pub fn unset(doc: &Doc, a: &Analysis) -> bool {
    let scene = doc
        .scene
        .as_ref()
        .and_then(|t| hoist_raster::scene::parse(t, &crate::doc::scene_rules::caps()).ok());
    crate::worker::supplied::all_params_unset(a, &doc.inputs, scene.as_ref())
}

/// The smallest "round" tolerance (one significant digit) at or above `d`.
pub fn tolerance_above(d: f64) -> f32 {
    if !(d.is_finite() && d > 0.0) {
        return 0.0;
    }
    let e = 10f64.powf(d.log10().floor());
    let t = (d / e).ceil() * e;
    let t = t as f32;
    if f64::from(t) < d { t.next_up() } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::engine::{Event, Job, Runner};
    use std::time::Instant;

    /// The issue's example: a texture coordinate pushed through a large value and back
    /// (1e4, not the issue's 1e6: validation's render check rejects the move at 1e6, where
    /// rounding moves most pixels by more than 1%; at 1e4 it passes validation and still
    /// differs at the default tolerance).
    pub const CANCEL_VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
        MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";
    pub const CANCEL_FP: &str = "!!ARBfp1.0\nTEMP a, b;\nMUL b, fragment.texcoord[0], 0.5;\n\
        MUL a, fragment.texcoord[0], 0.3;\nADD a, a, 1e4;\nADD a, a, -1e4;\nADD result.color, a, b;\nEND\n";

    fn run(doc: Doc) -> Box<crate::worker::render::Rendered> {
        let t0 = Instant::now();
        let mut r = Runner::new(
            Job {
                id: 1,
                doc,
                images: Default::default(),
                fail: None,
                force: None,
                fresh: false,
                validation_delay_ms: 0,
                band_workers: None,
            },
            Box::new(move || t0.elapsed().as_secs_f64() * 1e3),
        );
        let ev = r.run_to_end();
        // The last render: after validation and the guidance.
        ev.into_iter()
            .filter_map(|e| match e {
                Event::Rendered { rendered, .. } => Some(rendered),
                _ => None,
            })
            .last()
            .expect("a render")
    }

    fn small(vp: &str, fp: &str) -> Doc {
        let mut d = Doc {
            vp: vp.into(),
            fp: fp.into(),
            ..Doc::default()
        };
        d.inputs.width = 32;
        d.inputs.height = 32;
        d
    }

    #[test]
    fn bisection_finds_the_group_that_differs() {
        // An oracle of which sets differ; the search asks, the test answers.
        let solve = |moved: &[usize], differs: &dyn Fn(&[usize]) -> bool| {
            let mut known = BTreeMap::new();
            let mut asked = 0;
            loop {
                match bisect(moved, &known) {
                    Step::Need(g) => {
                        asked += 1;
                        assert!(asked < 64, "no progress");
                        known.insert(g.clone(), differs(&g));
                    }
                    other => return (other, asked),
                }
            }
        };
        let moved = [0, 2, 3, 5, 7, 8, 9];
        for culprit in moved {
            let (s, asked) = solve(&moved, &|g: &[usize]| g.contains(&culprit));
            assert_eq!(s, Step::Found(culprit));
            assert!(asked <= 6, "{asked} renders for {culprit}");
        }
        // Only 3 and 8 together differ: the prefix search names the one completing the pair.
        let (s, _) = solve(&moved, &|g: &[usize]| g.contains(&3) && g.contains(&8));
        assert_eq!(s, Step::Found(8));
        assert_eq!(solve(&[4], &|_: &[usize]| true).0, Step::Found(4));
        assert_eq!(
            bisect(
                &[1, 2],
                &BTreeMap::from([(vec![1], false), (vec![2], false)])
            ),
            Step::Found(2)
        );
    }

    #[test]
    fn tolerances_round_up() {
        assert_eq!(tolerance_above(4.8e-4), 5e-4);
        assert_eq!(tolerance_above(0.029), 0.03);
        assert!(f64::from(tolerance_above(0.1)) >= 0.1);
        assert_eq!(tolerance_above(f64::NAN), 0.0);
    }

    #[test]
    fn changed_lines_of_an_edit() {
        assert_eq!(changed_lines("a\nb\nc\n", "a\nB\nc\n"), [2]);
        assert_eq!(changed_lines("a\nb\nc\n", "a\nb\nx\ny\nc\n"), [3, 4]);
        assert_eq!(changed_lines("a\nb\nc\n", "a\nc\n"), [2]);
        assert!(changed_lines("a\n", "a\n").is_empty());
    }

    #[test]
    fn constant_images_and_unset_parameters_prove_little() {
        let mut img = Image::new(4, 4, [0.25; 4]);
        assert!(is_constant(&img));
        assert_eq!(
            weakness([Some(&img), None], false, false),
            Some(Weak::Flat(Flat::Constant))
        );
        // Nearly uniform (a saturating result): the same rule as the CLI's.
        img.pixels[5][1] = f32::from_bits(0.25f32.to_bits() + 2);
        assert_eq!(
            weakness([Some(&img), None], false, false),
            Some(Weak::Flat(Flat::Uniform { ulps: 2 }))
        );
        img.pixels[5][1] = 0.5;
        assert_eq!(weakness([Some(&img), Some(&img)], false, false), None);
        assert_eq!(weakness([Some(&img), None], true, false), Some(Weak::Unset));
        // A pair that only reads an unset parameter: constant, and said so.
        let d = small(
            CANCEL_VP,
            "!!ARBfp1.0\nPARAM k = program.env[0];\nMOV result.color, k;\nEND\n",
        );
        let r = run(d.clone());
        assert_eq!(r.weak, Some(Weak::Flat(Flat::Constant)));
        let v = crate::worker::render::rendered_view(&r, 1e-4, None).unwrap();
        assert_eq!(v.headline, "proves little: the image is constant");
        assert_eq!(v.kind, crate::worker::render::VerdictKind::ProvesLittle);
        // Randomised, the same pair reads a set parameter: still constant (it is one value).
        let a = crate::worker::analysis::parse(&d);
        assert!(crate::worker::guidance::unset(&d, &a));
        let mut e = d.clone();
        crate::worker::supplied::randomize(&mut e.inputs, &a, 7);
        assert!(!crate::worker::guidance::unset(&e, &a));
        // A program reading the texture coordinate and the parameter is not constant but
        // leaves it unset; setting it makes the verdict plain.
        let f = "!!ARBfp1.0\nPARAM k = program.env[0];\nADD result.color, fragment.texcoord[0], k;\nEND\n";
        let r = run(small(CANCEL_VP, f));
        assert_eq!(r.weak, Some(Weak::Unset));
        let mut d = small(CANCEL_VP, f);
        let pa = crate::worker::analysis::parse(&d);
        crate::worker::supplied::randomize(&mut d.inputs, &pa, 1);
        let r = run(d);
        assert_eq!(r.weak, None);
        let v = crate::worker::render::rendered_view(&r, 1e-4, None).unwrap();
        assert_ne!(
            v.kind,
            crate::worker::render::VerdictKind::ProvesLittle,
            "{v:?}"
        );
    }

    #[test]
    fn the_issues_cancellation_names_its_group_and_the_better_image() {
        let d = small(CANCEL_VP, CANCEL_FP);
        let a = crate::worker::analysis::analyze(&d);
        let o = a.outcome.as_ref().expect("optimized");
        let moved = moved_groups(o);
        assert!(!moved.is_empty(), "{:?}", o.fates);
        let r = run(d.clone());
        let v = r.verdict.as_ref().unwrap();
        let view = crate::worker::render::verdict_view(v, 1e-4);
        assert_eq!(
            view.kind,
            crate::worker::render::VerdictKind::Different,
            "{view:?}"
        );
        let g = r.guidance.as_ref().expect("guidance");
        let c = g.culprit.as_ref().expect("a culprit");
        // The culprit is in the chain through 1e4 (lines 4 to 6), not the MUL of line 3.
        assert!(moved.len() > 1, "{:?}", o.fates);
        assert!(!c.lines.is_empty(), "{c:?}");
        assert!(
            c.lines.iter().all(|l| [4, 5, 6].contains(l)),
            "{c:?} {moved:?}"
        );
        let x = g.cancellation.as_ref().expect("a cancellation");
        assert!(x.magnitude >= 1e4, "{x:?}");
        assert!(x.delta > 1e-4 && x.delta <= 2f64.powi(-10), "{x:?}");
        assert_eq!(x.better, Some(Better::Optimized), "{}", x.text);
        assert!(
            x.text
                .contains("the optimized image is the more accurate one"),
            "{}",
            x.text
        );
        // A difference that is not cancellation is not explained as one.
        let mut h = d.clone();
        h.hand = Some(crate::doc::HandEdit {
            vp: a.optimized.as_ref().unwrap().vp.text.clone(),
            fp: a
                .optimized
                .as_ref()
                .unwrap()
                .fp
                .text
                .replace("result.color", "result.color.xyz"),
            base: None,
        });
        let r = run(h);
        let g = r.guidance.as_ref().expect("guidance for a hand edit");
        assert!(g.culprit.is_none());
        let (_, fl) = g.hand_lines.clone().unwrap();
        assert!(!fl.is_empty());
        assert!(g.cancellation.is_none(), "{:?}", g.cancellation);
    }
}

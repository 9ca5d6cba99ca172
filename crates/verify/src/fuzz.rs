//! The bodies of the fuzz targets (`fuzz/fuzz_targets`), so that the regression tests can
//! replay what the fuzzers found (`fuzz/regressions/<target>/`, `tests/fuzz.rs`) through
//! exactly the code the fuzzers ran. Each takes raw bytes and panics only on a bug: a panic
//! inside the code under test, or a broken round trip.
//!
//! Input layouts: `parse` and `scene` take text; `optimize`, `execute`, `compiled` and
//! `trace` take one control byte, then a vertex and a fragment program separated by the
//! first `\n@@\n` line.

use crate::Config;
use hoist_asm::{ParseOptions, Profile, Program, Stage, parse as parse_asm, print};
use hoist_opt::{CostModel, Options, Selection};
use hoist_raster::scene::{RunOptions, parse as parse_scene, run};
use hoist_raster::{Caps, RenderConfig, render};

/// A fuzz target's body.
pub type Target = fn(&[u8]);

/// The fuzz targets, by the name of their corpus directory.
pub const TARGETS: [(&str, Target); 6] = [
    ("parse", parse),
    ("optimize", optimize),
    ("execute", execute),
    ("scene", scene),
    ("compiled", compiled),
    ("trace", trace),
];

fn accept(text: &str, profile: Option<Profile>) -> Option<Program> {
    parse_asm(
        text,
        &ParseOptions {
            profile,
            limits: None,
        },
    )
    .program
}

fn accept_default(text: &str) -> Option<Program> {
    parse_asm(text, &ParseOptions::default()).into_result().ok()
}

/// Any text, with the profile detected and forced to every profile: whatever parses prints
/// and parses back to an equal program.
pub fn parse(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let forced = Profile::ALL.into_iter().map(Some);
    for profile in std::iter::once(None).chain(forced) {
        let Some(p) = accept(&src, profile) else {
            continue;
        };
        let text = print(&p);
        let q = accept(&text, Some(p.profile))
            .unwrap_or_else(|| panic!("printed program rejected:\n{text}"));
        assert!(
            q.eq_ignoring_spans(&p),
            "round trip changed the program:\n{text}"
        );
    }
}

fn split(data: &[u8]) -> (u8, String) {
    let (flags, text) = data.split_first().map_or((0, &[][..]), |(f, t)| (*f, t));
    (flags, String::from_utf8_lossy(text).into_owned())
}

/// The optimizer as the page and the command line call it: parse, optimize under options
/// chosen by the control byte, validate, print, parse back.
pub fn optimize(data: &[u8]) {
    let (flags, text) = split(data);
    let Some((vs, fs)) = text.split_once("\n@@\n") else {
        return;
    };
    let (Some(vp), Some(fp)) = (accept_default(vs), accept_default(fs)) else {
        return;
    };
    let opts = Options {
        selection: if flags & 1 != 0 {
            Selection::Greedy
        } else {
            Selection::Optimal
        },
        mirror_params: flags & 2 != 0,
        commute: flags & 4 == 0,
        lower: flags & 8 == 0,
        vp_cleanup: flags & 16 == 0,
        cost: if flags & 32 != 0 {
            CostModel::modern_default(4.0, 1024.0)
        } else {
            CostModel::Paper
        },
        steps: (flags & 64 != 0).then_some(usize::from(flags >> 7)),
        search_budget: 16,
        ..Options::default()
    };
    let cfg = Config {
        render_size: 8,
        ..Config::default()
    };
    let Ok(v) = crate::optimize(&vp, &fp, &opts, Some(&cfg)) else {
        return;
    };
    for p in [&v.outcome.vp, &v.outcome.fp] {
        let printed = print(p);
        let again = accept_default(&printed)
            .unwrap_or_else(|| panic!("optimized program does not parse:\n{printed}"));
        assert!(
            again.eq_ignoring_spans(p),
            "round trip changed the program:\n{printed}"
        );
    }
}

/// The executor on whatever the front ends accept: rendered at most 16×16 (the control byte
/// picks the size) under an instruction budget, then probed per vertex and per fragment
/// through the validator.
pub fn execute(data: &[u8]) {
    let (size, text) = split(data);
    let (vs, fs) = text.split_once("\n@@\n").unwrap_or((&text, ""));
    let vp = accept_default(vs).filter(|p| p.stage() == Stage::Vertex);
    let fp = accept_default(fs).filter(|p| p.stage() == Stage::Fragment);
    if vp.is_none() && fp.is_none() {
        return;
    }
    let side = u32::from(size % 16) + 1;
    let cfg = RenderConfig {
        width: side,
        height: side,
        caps: Caps {
            max_batch_instructions: 1 << 14,
            ..Caps::default()
        },
        ..RenderConfig::default()
    };
    let _ = render(vp.as_ref(), fp.as_ref(), &cfg);
    if let (Some(vp), Some(fp)) = (&vp, &fp) {
        let none = Options {
            steps: Some(0),
            ..Options::default()
        };
        if let Ok(out) = hoist_opt::optimize(vp, fp, &none) {
            let cfg = Config {
                render_size: 4,
                ..Config::default()
            };
            let _ = crate::validate::validate(vp, fp, &out, &cfg);
        }
    }
}

/// Compiled against interpreted: each program that parses runs one batch both ways (its
/// kernel, [`crate::execdiff::kernel`]) and the pair renders 8×8 both ways, under textures
/// drawn from the control byte (every target's shape or a 2D single-level one, filters,
/// wraps, mipmaps, colour or depth with compare mode). Any bit difference panics.
pub fn compiled(data: &[u8]) {
    use crate::execdiff::{self, ExecTally};
    let (seed, text) = split(data);
    let (vs, fs) = text.split_once("\n@@\n").unwrap_or((&text, ""));
    let vp = accept_default(vs).filter(|p| p.stage() == Stage::Vertex);
    let fp = accept_default(fs).filter(|p| p.stage() == Stage::Fragment);
    let programs: Vec<&Program> = vp.iter().chain(fp.iter()).collect();
    if programs.is_empty() {
        return;
    }
    let mut tally = ExecTally::default();
    let tex = execdiff::textures(&programs, u64::from(seed), &mut tally);
    for p in &programs {
        if let Ok(Some(d)) = execdiff::kernel(p, &tex, u64::from(seed)) {
            panic!("compiled differs from interpreted: {d}");
        }
    }
    if let Ok(Some(d)) = execdiff::render(vp.as_ref(), fp.as_ref(), &tex, 8) {
        panic!("compiled differs from interpreted: {d}");
    }
}

/// The pixel trace on whatever the front ends accept: the pair renders at most 12×12 (the
/// control byte picks the size and the pixel), then the pixel is traced; the trace must end
/// with the rendered value bit for bit (a pixel no triangle covers must hold the clear
/// colour), and it must survive a serde round trip. Bad requests are errors, never panics.
pub fn trace(data: &[u8]) {
    use hoist_raster::raster::CompiledProgram;
    use std::sync::Arc;
    let (ctl, text) = split(data);
    let (vs, fs) = text.split_once("\n@@\n").unwrap_or((&text, ""));
    let vp = accept_default(vs).filter(|p| p.stage() == Stage::Vertex);
    let fp = accept_default(fs).filter(|p| p.stage() == Stage::Fragment);
    if vp.is_none() && fp.is_none() {
        return;
    }
    let side = u32::from(ctl % 12) + 1;
    let cfg = RenderConfig {
        width: side,
        height: side,
        clear: [0.5, 0.25, 0.125, 1.0],
        caps: Caps {
            max_batch_instructions: 1 << 14,
            ..Caps::default()
        },
        ..RenderConfig::default()
    };
    let Ok(image) = render(vp.as_ref(), fp.as_ref(), &cfg) else {
        return;
    };
    let compile = |p: &Option<Program>| -> Option<Option<Arc<CompiledProgram>>> {
        match p {
            Some(p) => CompiledProgram::new(p).ok().map(|c| Some(Arc::new(c))),
            None => Some(None),
        }
    };
    let (Some(cvp), Some(cfp)) = (compile(&vp), compile(&fp)) else {
        return;
    };
    let (x, y) = (u32::from(ctl / 12) % side, u32::from(ctl / 3) % side);
    let want = image.image.get(x, y).map(|p| p.map(f32::to_bits));
    match hoist_raster::trace::trace_pixel(cvp.as_ref(), cfp.as_ref(), &cfg, x, y) {
        Ok(t) => {
            assert_eq!(Some(t.pixel.map(|b| b.bits())), want, "trace of ({x}, {y})");
            let json = serde_json::to_string(&t).expect("a trace serializes");
            let back: hoist_raster::trace::PixelTrace =
                serde_json::from_str(&json).expect("a trace deserializes");
            assert_eq!(back, t, "serde round trip");
        }
        Err(e) => {
            let clear = cfg.clear.map(f32::to_bits);
            assert_eq!(want, Some(clear), "untraceable ({x}, {y}): {e}");
        }
    }
    let outside = hoist_raster::trace::trace_pixel(cvp.as_ref(), cfp.as_ref(), &cfg, side, 0);
    assert!(outside.is_err(), "a pixel outside the image is an error");
}

/// Scene files parsed and run under small caps: bad input is an error, never a panic or an
/// endless run.
pub fn scene(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let caps = Caps {
        max_target_size: 64,
        max_target_pixels: 64 * 64,
        max_texture_bytes: 1 << 20,
        max_total_bytes: 8 << 20,
        max_vertices: 4096,
        max_indices: 12288,
        max_batch_instructions: 1 << 14,
        max_commands: 64,
        ..Caps::default()
    };
    if let Ok(scene) = parse_scene(&text, &caps) {
        let _ = run(
            &scene,
            &RunOptions {
                caps,
                ..RunOptions::default()
            },
        );
    }
}

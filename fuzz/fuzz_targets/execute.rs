//! The executor on whatever the front ends accept: a program pair (split at the first `@@`
//! line) rendered at a size of at most 16×16 with textures on the units it samples, and
//! probed per vertex and per fragment. Programs with loops run under the instruction
//! budget, so nothing can hang.
#![no_main]

use hoist_asm::{ParseOptions, Stage, parse};
use hoist_raster::{Caps, RenderConfig, render};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (size, text) = data.split_first().map_or((1, &[][..]), |(s, t)| (*s, t));
    let text = String::from_utf8_lossy(text);
    let (vs, fs) = text.split_once("\n@@\n").unwrap_or((&text, ""));
    let vp = parse(vs, &ParseOptions::default()).into_result().ok();
    let fp = parse(fs, &ParseOptions::default()).into_result().ok();
    let vp = vp.filter(|p| p.stage() == Stage::Vertex);
    let fp = fp.filter(|p| p.stage() == Stage::Fragment);
    if vp.is_none() && fp.is_none() {
        return;
    }
    let side = u32::from(size % 16) + 1;
    let cfg = RenderConfig {
        width: side,
        height: side,
        caps: Caps { max_batch_instructions: 1 << 14, ..Caps::default() },
        ..RenderConfig::default()
    };
    let _ = render(vp.as_ref(), fp.as_ref(), &cfg);
    if let (Some(vp), Some(fp)) = (&vp, &fp) {
        // The validator drives the per-vertex and per-fragment probes with random inputs.
        let identity = hoist_opt::optimize(vp, fp, &hoist_opt::Options { steps: Some(0), ..Default::default() });
        if let Ok(out) = identity {
            let cfg = hoist_verify::Config { render_size: 4, ..Default::default() };
            let _ = hoist_verify::validate::validate(vp, fp, &out, &cfg);
        }
    }
});

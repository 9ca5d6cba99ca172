//! Scene files (piglit shader_runner plus Hoist's extensions) parsed and run under small
//! caps: bad input is an error, never a panic or an endless run.
#![no_main]

use hoist_raster::scene::{RunOptions, parse, run};
use hoist_raster::Caps;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
    if let Ok(scene) = parse(&text, &caps) {
        let _ = run(&scene, &RunOptions { caps, ..RunOptions::default() });
    }
});

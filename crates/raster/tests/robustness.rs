//! Hostile input never panics, allocates without bound or hangs: random scene text built
//! from the format's own vocabulary (so it reaches deep into the runner), with small caps.
#![cfg(not(target_arch = "wasm32"))]

use hoist_raster::Caps;
use hoist_raster::scene::{self, RunOptions};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

static RAN: AtomicUsize = AtomicUsize::new(0);
static PROBED: AtomicUsize = AtomicUsize::new(0);

const WORDS: &[&str] = &[
    "[test]",
    "[vertex program]",
    "[fragment program]",
    "[fragment program p]",
    "[hoist]",
    "[require]",
    "!!ARBvp1.0",
    "!!ARBfp1.0",
    "END",
    "MOV result.color, fragment.texcoord[0];",
    "MOV result.position, vertex.position;",
    "TEX result.color, fragment.texcoord[0], texture[0], 2D;",
    "KIL fragment.texcoord[0];",
    "ps_2_0",
    "vs_2_0",
    "texld r0, t0, s0",
    "dcl t0",
    "mov oC0, r0",
    "draw quad",
    "draw rect",
    "draw rect tex",
    "-1",
    "1",
    "2",
    "0",
    "1e30",
    "-1e30",
    "nan",
    "inf",
    "(",
    ")",
    ",",
    "probe all rgba",
    "probe rgba",
    "relative probe rgba",
    "probe rect rgba",
    "probe depth",
    "texture rgbw 0",
    "texture miptree 1",
    "texture pattern 0",
    "noise:3@9x7",
    "checker@100000x100000",
    "texture target 0 t",
    "target t",
    "target t rgba8 5 3",
    "bind target t",
    "bind target window",
    "swap t window",
    "window 7 5",
    "window rgba32f 300 1",
    "repeat 3",
    "end",
    "use program",
    "use program p",
    "ortho",
    "ortho 0 1 0 1",
    "parameter local_fp 0",
    "parameter env_vp 70000",
    "clear",
    "clear color",
    "clear depth",
    "enable GL_DEPTH_TEST",
    "enable GL_CULL_FACE",
    "color",
    "texcoord 3",
    "tolerance",
    "compare t window",
    "filter linear",
    "wrap repeat",
    "mipmap",
    "SIZE 3 3",
    "\n",
    "\n",
    "\n",
    "\n",
    " ",
    " ",
];

fn caps() -> Caps {
    Caps {
        max_target_size: 512,
        max_target_pixels: 512 * 512,
        max_texture_bytes: 1 << 20,
        max_total_bytes: 8 << 20,
        max_commands: 300,
        max_batch_instructions: 2_000,
        ..Caps::default()
    }
}

/// Ordinary values (the first 16) most of the time, hostile ones sometimes.
const NUMS: &[&str] = &[
    "0", "1", "-1", "0.5", "2", "7", "3", "0.25", "-0.75", "5", "1", "0", "12", "-3.5", "0.125",
    "4", "250", "1e30", "-1e30", "nan", "inf", "-inf", "100000", "65535",
];

const PROGRAMS: &[&str] = &[
    "",
    "[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n\
     [fragment program]\n!!ARBfp1.0\nTEMP t;\nTXB t, fragment.texcoord[0], texture[0], 2D;\nKIL t;\nMOV result.color, t;\nEND\n",
    "[vertex program]\nvs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1\ndefi i0, 255, 0, 1, 0\nmov o0, v0\n\
     mov r0, v0\nrep i0\nrep i0\nadd r0, r0, r0\nendrep\nendrep\nmov o1, r0\n\
     [fragment program p]\nps_2_0\ndcl t0\ndcl_2d s0\ntexldp r0, t0, s0\nrcp r0.x, r0.y\nmov oC0, r0\n",
];

/// One `[test]` line from the command grammar with random, often extreme, arguments.
fn command(choice: usize, n: &[usize]) -> String {
    let a = |i: usize| {
        let k = n[i % n.len()];
        if k < 85 {
            NUMS[k % 16]
        } else {
            NUMS[16 + k % 8]
        }
    };
    match choice % 22 {
        0 => format!("draw rect {} {} {} {}", a(0), a(1), a(2), a(3)),
        1 => "draw quad".into(),
        2 => format!(
            "probe rgba {} {} {} {} {} {}",
            a(0),
            a(1),
            a(2),
            a(3),
            a(4),
            a(5)
        ),
        3 => format!("probe all rgb {} {} {}", a(0), a(1), a(2)),
        4 => format!(
            "relative probe rgba ({}, {}) ({}, {}, {}, {})",
            a(0),
            a(1),
            a(2),
            a(3),
            a(4),
            a(5)
        ),
        5 => format!(
            "texture pattern {} noise:{}@{}x{} filter linear mipmap linear",
            n[0] % 3,
            a(1),
            1 + n[2] % 40,
            1 + n[3] % 40
        ),
        6 => format!("target t rgba32f {} {}", 1 + n[0] % 50, 1 + n[1] % 50),
        7 => "bind target t".into(),
        8 => "bind target window".into(),
        9 => "texture target 0 t wrap repeat".into(),
        10 => "swap t window".into(),
        11 => format!("window rgba32f {} {}", 1 + n[0] % 60, 1 + n[1] % 60),
        12 => format!(
            "parameter local_fp {} ({}, {}, {}, {})",
            a(0),
            a(1),
            a(2),
            a(3),
            a(4)
        ),
        13 => format!(
            "parameter env_vp {} ({}, {}, {}, {})",
            a(0),
            a(1),
            a(2),
            a(3),
            a(4)
        ),
        14 => format!("ortho {} {} {} {}", a(0), a(1), a(2), a(3)),
        15 => "enable GL_DEPTH_TEST".into(),
        16 => format!("clear color {} {} {} {}", a(0), a(1), a(2), a(3)),
        17 => "clear".into(),
        18 => "use program p".into(),
        19 => format!("texture miptree {}", n[0] % 4),
        20 => format!(
            "draw rect tex {} {} {} {} {} {} {} {}",
            a(0),
            a(1),
            a(2),
            a(3),
            a(4),
            a(5),
            a(6),
            a(7)
        ),
        _ => format!("probe depth {} {} {}", a(0), a(1), a(2)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_scenes_never_panic(words in proptest::collection::vec(0..WORDS.len(), 0..80)) {
        let text: String = words.iter().map(|&i| format!("{} ", WORDS[i])).collect();
        if let Ok(sc) = scene::parse(&text, &caps()) {
            let _ = scene::run(&sc, &RunOptions { caps: caps(), ..RunOptions::default() });
        }
    }

    #[test]
    fn random_command_sequences_never_panic(
        prog in 0..PROGRAMS.len(),
        cmds in proptest::collection::vec((0usize..100, proptest::collection::vec(0usize..100, 8)), 0..25),
    ) {
        let mut text = String::from(PROGRAMS[prog]);
        text.push_str("[test]\nwindow rgba32f 40 24\ntarget t rgba32f 16 8\n");
        for (c, n) in &cmds {
            text.push_str(&command(*c, n));
            text.push('\n');
        }
        if let Ok(sc) = scene::parse(&text, &caps()) {
            RAN.fetch_add(1, Ordering::Relaxed);
            let opts = RunOptions {
                caps: caps(),
                ..RunOptions::default()
            };
            if let Ok(r) = scene::run(&sc, &opts)
                && !r.probes.is_empty()
                && r.stats.draws > 0
            {
                PROBED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(sc) = scene::parse(&text, &caps()) {
            let _ = scene::run(&sc, &RunOptions { caps: caps(), ..RunOptions::default() });
        }
        let _ = hoist_raster::image::decode_png(&bytes, 1000);
        let _ = hoist_raster::image::png_size(&bytes, 1000);
        let _ = hoist_raster::image::decode_pfm(&bytes, 1000);
    }
}

/// The grammar-driven generator really exercises the runner (not only the parser).
#[test]
fn generator_reaches_the_runner() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 200,
        ..ProptestConfig::default()
    });
    let strat = proptest::collection::vec(
        (0usize..100, proptest::collection::vec(0usize..100, 8)),
        1..25,
    );
    let (parsed, drawn) = (AtomicUsize::new(0), AtomicUsize::new(0));
    runner
        .run(&strat, |cmds| {
            let mut text = String::from(PROGRAMS[2]);
            text.push_str("[test]\nwindow rgba32f 40 24\ntarget t rgba32f 16 8\n");
            for (c, n) in &cmds {
                text.push_str(&command(*c, n));
                text.push('\n');
            }
            if let Ok(sc) = scene::parse(&text, &caps()) {
                parsed.fetch_add(1, Ordering::Relaxed);
                let opts = RunOptions {
                    caps: caps(),
                    ..RunOptions::default()
                };
                if let Ok(r) = scene::run(&sc, &opts) {
                    drawn.fetch_add(usize::from(r.stats.draws > 0), Ordering::Relaxed);
                }
            }
            Ok(())
        })
        .unwrap();
    let (parsed, drawn) = (parsed.into_inner(), drawn.into_inner());
    println!("{parsed} of 200 generated scenes parsed, {drawn} drew");
    assert!(drawn >= 10, "{parsed} parsed, {drawn} drew");
    let _ = (RAN.load(Ordering::Relaxed), PROBED.load(Ordering::Relaxed));
}

//! The example scenes in `crates/raster/scenes/` run and all their probes pass; the
//! incremental scene job produces the same images as a run to the end.

use hoist_raster::Caps;
use hoist_raster::scene::{self, RunOptions, SceneJob};
use std::path::Path;

fn scenes() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "shader_test"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn example_scenes_pass() {
    let all = scenes();
    assert!(all.len() >= 3);
    for (name, text) in &all {
        let sc = scene::parse(text, &Caps::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = scene::run(&sc, &RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!r.probes.is_empty(), "{name} has no probes");
        for p in &r.probes {
            assert!(p.pass, "{name}: {p}");
        }
    }
}

#[test]
fn paper_pairs_render_something_and_agree() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/paper_convolution.shader_test"),
    )
    .unwrap();
    let sc = scene::parse(&text, &Caps::default()).unwrap();
    assert_eq!(sc.programs.len(), 2);
    let r = scene::run(&sc, &RunOptions::default()).unwrap();
    let img = &r.targets["original"];
    let st = img.stats();
    // A 1/4-1/2-1/4 blur of uniform noise: values spread over (0, 1), mean near 1/2.
    assert!(st.min[0] > 0.0 && st.max[0] < 1.0 && (st.mean[0] - 0.5).abs() < 0.01);
    assert_eq!(r.stats.fragment_instructions, 65536 * (16 + 7));
    // Replacing the optimized pair with the original one is what the optimizer does.
    let mut sc2 = sc.clone();
    let orig = sc.programs[""].fragment.clone().unwrap().program;
    sc2.set_program("figure5", orig);
    let vp = sc.programs[""].vertex.clone().unwrap().program;
    sc2.set_program("figure5", vp);
    let r2 = scene::run(&sc2, &RunOptions::default()).unwrap();
    assert_eq!(r2.stats.fragment_instructions, 65536 * 32);
    assert!(r2.probes[0].pass);
}

#[test]
fn incremental_scene_job_matches_a_full_run() {
    for (name, text) in scenes() {
        let sc = scene::parse(&text, &Caps::default()).unwrap();
        let full = scene::run(&sc, &RunOptions::default()).unwrap();
        let mut job = SceneJob::new(sc, RunOptions::default()).unwrap();
        let mut steps = 0;
        while !job.step(3).done {
            steps += 1;
        }
        assert!(steps > 1, "{name}");
        let inc = job.finish().unwrap();
        for (t, img) in &full.targets {
            assert_eq!(img.hash(), inc.targets[t].hash(), "{name}: {t}");
        }
    }
}

/// A scene's fog state (`fog color|density|start|end`) reaches the ARB fog options of both
/// executors: every pixel is the fog equation evaluated in f64 on the interpolated fog
/// coordinate, with the colour clamped to [0, 1] first, alpha kept (clamped).
#[test]
fn scene_fog_state_reaches_the_fog_options() {
    use hoist_raster::jit::{Exec, set_default_exec};
    let (color, fog) = ([0.9f64, 0.6, 1.4, -0.5], [0.2f64, 0.4, 0.6, 0.8]);
    let (density, start, end) = (0.7f64, 0.5f64, 2.5f64);
    for mode in ["linear", "exp", "exp2"] {
        let text = format!(
            "[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\n\
             MAD result.fogcoord.x, vertex.texcoord[0].x, 4, -1;\nEND\n\
             [fragment program]\n!!ARBfp1.0\nOPTION ARB_fog_{mode};\n\
             MOV result.color, {{0.9, 0.6, 1.4, -0.5}};\nEND\n\
             [test]\nwindow rgba32f 64 1\nfog color 0.2 0.4 0.6 0.8\nfog density 0.7\n\
             fog start 0.5\nfog end 2.5\ndraw quad\n"
        );
        let sc = scene::parse(&text, &Caps::default()).unwrap();
        for exec in [Exec::Interp, Exec::Compiled] {
            set_default_exec(exec);
            let r = scene::run(&sc, &RunOptions::default()).unwrap();
            let img = &r.targets["window"];
            let mut worst = 0.0f64;
            for x in 0..64u32 {
                let c = 4.0 * (f64::from(x) + 0.5) / 64.0 - 1.0;
                let f = match mode {
                    "linear" => (end - c) / (end - start),
                    "exp" => (-density * c).exp(),
                    _ => (-(density * c).powi(2)).exp(),
                }
                .clamp(0.0, 1.0);
                let px = img.get(x, 0).unwrap();
                for k in 0..4 {
                    let cr = color[k].clamp(0.0, 1.0);
                    let want = if k < 3 {
                        f * cr + (1.0 - f) * fog[k]
                    } else {
                        cr
                    };
                    worst = worst.max((f64::from(px[k]) - want).abs());
                }
            }
            println!("fog {mode} ({exec:?}): largest difference from f64 {worst:e}");
            assert!(worst < 1e-6, "{mode} {exec:?}: {worst}");
        }
        set_default_exec(Exec::Interp);
    }
    // A malformed fog command is an error at its line.
    let e = scene::parse("[test]\nfog haze 1\n", &Caps::default()).unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    let e = scene::parse("[test]\nfog density -1\n", &Caps::default()).unwrap_err();
    assert!(e.to_string().contains("negative"), "{e}");
}

/// `texture pattern UNIT SPEC shape 1d|2d|3d|cube|rect` supplies that shape: a cube map
/// read by a CUBE lookup is not the incomplete texture's (0, 0, 0, 1), and a 2D texture
/// read by the same lookup is.
#[test]
fn scene_texture_shapes_fit_their_targets() {
    let run = |shape: &str| {
        let text = format!(
            "[fragment program]\n!!ARBfp1.0\nTEMP d;\nMAD d, fragment.texcoord[0], 2, -1;\n\
             MOV d.z, 0.5;\nTEX result.color, d, texture[0], CUBE;\nEND\n\
             [test]\nwindow rgba32f 16 16\ntexture pattern 0 gradient@8x8 {shape}\ndraw quad\n"
        );
        let sc = scene::parse(&text, &Caps::default()).unwrap();
        scene::run(&sc, &RunOptions::default()).unwrap().targets["window"].clone()
    };
    let cube = run("shape cube");
    assert!(cube.pixels.iter().all(|p| p[0] > 0.0 && p[1] > 0.0));
    let flat = run("");
    assert!(flat.pixels.iter().all(|p| *p == [0.0, 0.0, 0.0, 1.0]));
    let e = scene::parse(
        "[test]\ntexture pattern 0 checker shape sphere\n",
        &Caps::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("unknown texture shape"), "{e}");
    // A 3D texture is four slices of the image: the caps see all of them.
    let caps = Caps {
        max_texture_bytes: 64 * 64 * 16 * 2,
        ..Caps::default()
    };
    assert!(scene::parse("[test]\ntexture pattern 0 checker@64x64\n", &caps).is_ok());
    assert!(scene::parse("[test]\ntexture pattern 0 checker@64x64 shape 3d\n", &caps).is_err());
}

/// D3D9's vertex samplers are units of their own: a vs_3_0 `s0` reads the texture bound
/// to `vs0` (unit 16), a ps_3_0 `s0` the one bound to unit 0, so a pair may sample both
/// as different shapes. Both executors.
#[test]
fn vertex_samplers_read_their_own_units() {
    use hoist_raster::jit::{Exec, set_default_exec};
    let pair = "[vertex program]\nvs_3_0\ndcl_position v0\ndcl_position o0\ndcl_color o1\n\
                dcl_2d s0\ndef c0, 0.5, 0.5, 0, 0\ntexldl r0, c0, s0\nmov o0, v0\nmov o1, r0\n\
                [fragment program]\nps_3_0\ndcl_color v0\ndcl_cube s0\ndef c0, 1, 0.2, 0.3, 0\n\
                texld r0, c0, s0\nadd oC0, r0, v0\n";
    for (units, want) in [
        ("vs0 solid:0.25,0,0,0.5", [0.25, 0.5, 0.0, 1.5]),
        ("16 solid:0.25,0,0,0.5", [0.25, 0.5, 0.0, 1.5]),
        ("1 solid:0.25,0,0,0.5", [0.0, 0.5, 0.0, 2.0]),
    ] {
        let text = format!(
            "{pair}[test]\nwindow rgba32f 4 4\ntexture pattern {units}\n\
             texture pattern 0 solid:0,0.5,0,1 shape cube\ndraw quad\n"
        );
        let sc = scene::parse(&text, &Caps::default()).unwrap();
        for exec in [Exec::Interp, Exec::Compiled] {
            set_default_exec(exec);
            let r = scene::run(&sc, &RunOptions::default()).unwrap();
            let img = &r.targets["window"];
            for p in &img.pixels {
                assert_eq!(*p, want, "{units} ({exec:?})");
            }
        }
        set_default_exec(Exec::Interp);
    }
    let e = scene::parse("[test]\ntexture pattern vs16 checker\n", &Caps::default()).unwrap_err();
    assert!(e.to_string().contains("vs0..vs15"), "{e}");
}

//! Scenes: piglit's shader_runner format plus Hoist's GPGPU extensions (see `SCENES.md`).
//!
//! [`parse`] ([`parse.rs`](parse)) reads the whole file up front — sections, programs (either dialect, detected
//! from the header) and every `[test]` command — so malformed input is reported with its
//! line number before anything runs, and `repeat` blocks are expanded within
//! [`Caps::max_commands`]. Programs stay replaceable: [`Scene::programs`] maps a pair name
//! (`""` for the unnamed `[vertex program]`/`[fragment program]`) to its sources and IR,
//! and [`Scene::set_program`] swaps one in.
//!
//! [`run`] ([`run.rs`](run)) executes a scene and returns the probe results, every render target and the
//! statistics; [`SceneJob`] does the same a bounded number of bands at a time.

pub mod kept;
mod model;
mod parse;
mod run;
pub mod split;

pub use model::*;
pub use parse::{executor_limits, parse, parse_floats};
pub use run::{ProbeResult, RunOptions, SceneJob, SceneResult, run, trace};

#[cfg(test)]
mod tests {
    use super::model::serr;
    use super::*;
    use crate::draw::Caps;
    use crate::error::RenderError;

    #[test]
    fn floats_parse_like_piglit() {
        assert_eq!(parse_floats("(0.5, 1,2 ;").unwrap(), vec![0.5, 1.0, 2.0]);
        let v = parse_floats("(INF, -INF, NAN, 01)").unwrap();
        assert!(v[0].is_infinite() && v[1] < 0.0 && v[2].is_nan() && v[3] == 1.0);
        assert!(parse_floats("1 x").is_err());
    }

    #[test]
    fn malformed_scenes_report_lines() {
        let caps = Caps::default();
        let e = parse("[test]\nclear\nprobe all rgba 1 2\n", &caps).unwrap_err();
        assert_eq!(e, serr(3, "probe expects 4 numbers, found 2"));
        let e = parse("[vertex program]\n!!ARBvp1.0\nEND\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 1, .. }), "{e:?}");
        let e = parse("[test]\nwindow 100000 10\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 2, .. }));
        let e = parse("[test]\nrepeat 3\ndraw quad\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 2, .. }));
        let e = parse("[test]\nrepeat 100000000\ndraw quad\nend\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 4, .. }));
        let e = parse("[bogus]\n[test]\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 1, .. }));
    }

    #[test]
    fn fixed_function_scene_clears_draws_and_probes() {
        let caps = Caps::default();
        let s = parse(
            "[test]\nclear color 0 0 1 1\nclear\ncolor 0 1 0 1\ndraw rect -1 -1 1 2\n\
             probe rgba 10 10 0 1 0 1\nprobe rgba 200 10 0 0 1 1\nprobe all rgba 0 0 1 1\n",
            &caps,
        )
        .unwrap();
        let r = run(&s, &RunOptions::default()).unwrap();
        let pass: Vec<bool> = r.probes.iter().map(|p| p.pass).collect();
        assert_eq!(pass, vec![true, true, false]);
        assert_eq!(r.stats.fragment_invocations, 125 * 250);
    }

    #[test]
    fn host_attributes_and_matrices_reach_the_vertex_program() {
        let caps = Caps::default();
        let text = "[vertex program]\n!!ARBvp1.0\nDP4 result.position.x, state.matrix.mvp.row[0], vertex.position;\n\
             DP4 result.position.y, state.matrix.mvp.row[1], vertex.position;\n\
             DP4 result.position.z, state.matrix.mvp.row[2], vertex.position;\n\
             DP4 result.position.w, state.matrix.mvp.row[3], vertex.position;\n\
             MOV result.texcoord[0], vertex.normal;\nEND\n\
             [fragment program]\n!!ARBfp1.0\nMOV result.color, fragment.texcoord[0];\nEND\n\
             [test]\nwindow rgba32f 8 8\ndraw quad\n";
        let mut s = parse(text, &caps).unwrap();
        let at = s.commands.len() - 1;
        let r = run(&s, &RunOptions::default()).unwrap();
        // The default normal is +z.
        assert_eq!(r.targets["window"].get(4, 4), Some([0.0, 0.0, 1.0, 1.0]));
        let mut half = crate::glstate::IDENTITY;
        half[0][0] = 0.5;
        s.commands
            .insert(at, (0, Command::Attrib(2, [0.25, 0.5, 0.75, 1.0])));
        s.commands.insert(
            at,
            (
                0,
                Command::Matrix {
                    projection: true,
                    m: half,
                },
            ),
        );
        let r = run(&s, &RunOptions::default()).unwrap();
        let img = &r.targets["window"];
        assert_eq!(img.get(4, 4), Some([0.25, 0.5, 0.75, 1.0]));
        // The projection halves x: the quad covers the middle half of the columns only.
        assert_eq!(img.get(0, 4), Some([0.0; 4]));
        assert_eq!(img.get(3, 4), Some([0.25, 0.5, 0.75, 1.0]));
    }

    /// A scene's trace starts from what earlier draws left (colour and depth) and ends with
    /// the pixel the run renders, bit for bit; a pixel no draw covers is an error.
    #[test]
    fn a_scene_trace_ends_with_the_rendered_pixel() {
        let caps = Caps::default();
        let text = "[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\n\
             MOV result.texcoord[0], vertex.texcoord[0];\nEND\n\
             [fragment program]\n!!ARBfp1.0\nMUL result.color, fragment.texcoord[0], 0.3;\nEND\n\
             [test]\nwindow rgba32f 16 16\nclear color 0.5 0 0 1\nclear\nenable GL_DEPTH_TEST\n\
             draw rect -1 -1 1 2\ndraw rect -1 -1 2 2\n";
        let s = parse(text, &caps).unwrap();
        let opts = RunOptions::default();
        let img = &run(&s, &opts).unwrap().targets["window"];
        for (x, y) in [(2, 3), (12, 9), (0, 15)] {
            let t = trace(&s, &opts, "window", x, y).unwrap();
            let want = img.get(x, y).unwrap();
            let got: Vec<u32> = t.pixel.iter().map(|b| b.bits()).collect();
            let want: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(got, want, "({x}, {y})");
        }
        // On the left the second draw fails the depth test: the pixel keeps the first's.
        let left = trace(&s, &opts, "window", 2, 3).unwrap();
        let last = left.candidates.last().unwrap();
        assert!(!last.wrote && last.depth.is_some_and(|d| !d.1), "{last:?}");
        let right = trace(&s, &opts, "window", 12, 9).unwrap();
        assert!(right.candidates.last().unwrap().wrote);
        let empty = parse("[test]\nwindow rgba32f 8 8\n", &caps).unwrap();
        let e = trace(&empty, &opts, "window", 1, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no draw"), "{e}");
        assert!(trace(&s, &opts, "window", 16, 0).is_err());
    }
}

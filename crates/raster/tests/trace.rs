//! The pixel trace on pairs whose every value is known by hand: a D3D9 loop shows its
//! iterations (with `aL`) and each iteration's results, a `break_*` cuts it short, a
//! predicated write shows its predicate, a bilinear fetch shows its four texels and
//! weights, the vertex stage shows three vertices, a kill is reported; and bad requests (a
//! pixel outside the image, one no triangle covers) are errors. The property that a trace
//! ends with the rendered pixel on every example and generated pair is
//! `crates/verify/tests/trace.rs`.

use hoist_asm::{ParseOptions, Program};
use hoist_raster::raster::CompiledProgram;
use hoist_raster::trace::{Flow, PixelTrace, Step, trace_pixel};
use hoist_raster::value::{Bits, vec4};
use hoist_raster::{Filter, Geometry, RenderConfig, Sampler, TexFormat, Texture, Wrap};
use std::sync::Arc;

fn parse(text: &str) -> Program {
    match hoist_asm::parse(text, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => panic!("{}", hoist_asm::diag::render(&d, "test", text, false)),
    }
}

fn compiled(text: &str) -> Arc<CompiledProgram> {
    Arc::new(CompiledProgram::new(&parse(text)).unwrap())
}

const VS3: &str = "vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\n\
                   dcl_texcoord0 o1\nmov o0, v0\nmov o1, v1\n";

fn cfg(w: u32, h: u32) -> RenderConfig {
    RenderConfig {
        width: w,
        height: h,
        ..RenderConfig::default()
    }
}

fn trace(vs: &str, ps: &str, c: &RenderConfig, x: u32, y: u32) -> PixelTrace {
    let t = trace_pixel(Some(&compiled(vs)), Some(&compiled(ps)), c, x, y).unwrap();
    let image = hoist_raster::render(Some(&parse(vs)), Some(&parse(ps)), c).unwrap();
    assert_eq!(
        t.pixel,
        vec4(image.image.get(x, y).unwrap()),
        "trace ends with the pixel"
    );
    t
}

fn x_of(s: &Step) -> f32 {
    s.values[0].unwrap()[0].get()
}

#[test]
fn d3d9_loop_shows_each_iteration() {
    // loop aL, i0 with (count 3, start 1, step 2): aL = 1, 3, 5; r0.x += 0.5 each time;
    // r0.y = r0.y * 1 + 0.25.
    let ps = "ps_3_0\ndef c0, 0.5, 0.25, 0, 1\ndefi i0, 3, 1, 2, 0\ndcl_texcoord0 v0\n\
              mov r0, c0.z\nloop aL, i0\n  add r0.x, r0.x, c0.x\n  mad r0.y, r0.y, c0.w, c0.y\n\
              endloop\nmov oC0, r0\n";
    let t = trace(VS3, ps, &cfg(8, 8), 3, 4);
    let iters: Vec<(u32, f32)> = t
        .fragment
        .iter()
        .filter_map(|s| match &s.flow {
            Some(Flow::Iteration { iter, counter, .. }) => Some((*iter, counter.unwrap().get())),
            _ => None,
        })
        .collect();
    assert_eq!(iters, vec![(0, 1.0), (1, 3.0), (2, 5.0)]);
    let adds: Vec<f32> = t
        .fragment
        .iter()
        .filter(|s| s.op.starts_with("add"))
        .map(x_of)
        .collect();
    assert_eq!(adds, vec![0.5, 1.0, 1.5]);
    assert!(
        t.fragment
            .iter()
            .all(|s| !s.op.starts_with("add") || s.nesting == 1)
    );
    assert!(
        t.fragment
            .iter()
            .any(|s| s.flow == Some(Flow::LoopEnd { iterations: 3 }))
    );
    assert_eq!(t.pixel, vec4([1.5, 0.75, 0.0, 0.0]));
}

#[test]
fn d3d9_break_leaves_the_loop_early() {
    // r0.x reaches 1.0 in the second iteration, and break_ge leaves there.
    let ps = "ps_3_0\ndef c0, 0.5, 0.25, 0, 1\ndefi i0, 5, 0, 1, 0\ndcl_texcoord0 v0\n\
              mov r0, c0.z\nloop aL, i0\n  add r0.x, r0.x, c0.x\n  break_ge r0.x, c0.w\n\
              endloop\nmov oC0, r0\n";
    let t = trace(VS3, ps, &cfg(8, 8), 1, 1);
    let breaks: Vec<bool> = t
        .fragment
        .iter()
        .filter_map(|s| match &s.flow {
            Some(Flow::Break { hit }) => hit[0],
            _ => None,
        })
        .collect();
    assert_eq!(breaks, vec![false, true]);
    assert!(
        t.fragment
            .iter()
            .any(|s| s.flow == Some(Flow::LoopEnd { iterations: 2 }))
    );
    assert_eq!(t.pixel, vec4([1.0, 0.0, 0.0, 0.0]));
}

#[test]
fn predicated_writes_and_branches_show_the_path() {
    // texcoord0 runs from 0 to 1 across the quad: the left half takes the else branch.
    let ps = "ps_3_0\ndef c0, 0.5, 1, 2, 0\ndcl_texcoord0 v0\nmov r0, c0.w\n\
              setp_gt p0.x, v0.x, c0.x\n(p0.x) mov r0.x, c0.y\nif_gt v0.x, c0.x\n\
              mov r0.y, c0.z\nelse\nmov r0.z, c0.z\nendif\nmov oC0, r0\n";
    let c = cfg(8, 8);
    for (x, right) in [(1, false), (6, true)] {
        let t = trace(VS3, ps, &c, x, 3);
        let pred = t.fragment.iter().find(|s| !s.pred.is_empty()).unwrap();
        assert_eq!(pred.pred[0].unwrap()[0], right);
        let taken = t
            .fragment
            .iter()
            .find_map(|s| match &s.flow {
                Some(Flow::If { taken }) => taken[0],
                _ => None,
            })
            .unwrap();
        assert_eq!(taken, right);
        let expect = if right {
            [1.0, 2.0, 0.0, 0.0]
        } else {
            [0.0, 0.0, 2.0, 0.0]
        };
        assert_eq!(t.pixel, vec4(expect));
    }
}

#[test]
fn a_bilinear_fetch_shows_its_texels_and_weights() {
    // A 4×4 texture whose texel (i, j) is (i, j, 0, 1), read bilinearly at the pixel's
    // texcoord: four texels whose weights sum to 1 and blend to the fetched value.
    let texels = (0..16)
        .map(|k| [(k % 4) as f32, (k / 4) as f32, 0.0, 1.0])
        .collect();
    let tex = Texture::new_2d(
        4,
        4,
        texels,
        TexFormat::Rgba32F,
        Sampler::new(Filter::Linear, Wrap::ClampToEdge),
    );
    let mut c = cfg(16, 16);
    c.textures.insert(0, Arc::new(tex));
    let fp = "!!ARBfp1.0\nTEX result.color, fragment.texcoord[0], texture[0], 2D;\nEND\n";
    let vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
              MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";
    let t = trace(vp, fp, &c, 5, 9);
    let f = t.fragment[0].fetch[0].as_ref().unwrap();
    assert_eq!(f.texels.len(), 4);
    let sum: f32 = f.texels.iter().map(|t| t.weight.get()).sum();
    assert!((sum - 1.0).abs() < 1e-6, "weights sum to {sum}");
    let blend: f32 = f
        .texels
        .iter()
        .map(|t| t.weight.get() * t.value[0].get())
        .sum();
    assert!((blend - f.value[0].get()).abs() < 1e-5);
    // u = s·4 - ½ at s = 5.5/16: texels 0 and 1 along x.
    let xs: Vec<u32> = f.texels.iter().map(|t| t.at[0]).collect();
    assert_eq!(xs, vec![0, 1, 0, 1]);
    assert_eq!(&f.value, &t.fragment[0].values[0].unwrap());
}

#[test]
fn the_vertex_stage_runs_at_the_three_corners() {
    let vp = "!!ARBvp1.0\nPARAM k = {2, 3, 4, 5};\nTEMP r;\nMUL r, vertex.texcoord[0], k;\n\
              MOV result.position, vertex.position;\nMOV result.texcoord[0], r;\nEND\n";
    let fp = "!!ARBfp1.0\nMOV result.color, fragment.texcoord[0];\nEND\n";
    let c = cfg(8, 8);
    let t = trace(vp, fp, &c, 0, 0);
    let mul = &t.vertex[0];
    assert_eq!(mul.values.len(), 3);
    // The first triangle of the quad strip: corners (0,0), (1,0), (0,1) in texcoords.
    let tc = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
    for (i, v) in mul.values.iter().enumerate() {
        let v = v.unwrap();
        assert_eq!([v[0].get(), v[1].get()], [tc[i][0] * 2.0, tc[i][1] * 3.0]);
    }
    let input = &t.interpolation.inputs[0];
    assert_eq!(input.vertices.unwrap()[1][0], Bits(2.0));
    let w: f64 = t.interpolation.perspective.iter().map(|w| w.get()).sum();
    assert!((w - 1.0).abs() < 1e-12);
    assert_eq!(t.primitive.vertices, [0, 1, 2]);
    // The interpolated input is what the fragment program read and wrote out.
    assert_eq!(t.fragment[0].values[0].unwrap(), input.value);
}

#[test]
fn a_killed_fragment_leaves_the_clear_colour() {
    let fp = "!!ARBfp1.0\nPARAM m = {-1, 0, 0, 0};\nKIL m;\nMOV result.color, m;\nEND\n";
    let vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n";
    let mut c = cfg(8, 8);
    c.clear = [0.25, 0.5, 0.75, 1.0];
    let t = trace(vp, fp, &c, 2, 2);
    assert_eq!(t.fragment[0].killed, vec![Some(true)]);
    assert!(t.candidates.iter().all(|c| c.killed && !c.wrote));
    assert_eq!(t.pixel, vec4(c.clear));
}

#[test]
fn bad_pixels_are_clear_errors() {
    let vp = compiled("!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n");
    let fp = compiled("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n");
    let mut c = cfg(8, 8);
    let e = trace_pixel(Some(&vp), Some(&fp), &c, 8, 0).unwrap_err();
    assert!(e.to_string().contains("outside the 8x8 image"), "{e}");
    c.geometry = Geometry::Rect {
        x: -1.0,
        y: -1.0,
        w: 1.0,
        h: 2.0,
        tex: None,
    };
    let e = trace_pixel(Some(&vp), Some(&fp), &c, 6, 3).unwrap_err();
    assert!(e.to_string().contains("no primitive"), "{e}");
    assert!(trace_pixel(Some(&vp), Some(&fp), &c, 1, 3).is_ok());
}

/// A vertex program traced alone: each step's value per vertex is what it computes by
/// hand, the outputs are the last values; no vertex, or more than a batch, is an error.
#[test]
fn a_vertex_program_traces_alone() {
    use hoist_raster::probe::StageEnv;
    let cp = compiled(
        "!!ARBvp1.0\nTEMP a;\nMUL a, vertex.attrib[1], 2;\nADD a.xy, a, vertex.attrib[1];\n\
         MOV result.texcoord[0], a;\nMOV result.position, vertex.attrib[0];\nEND\n",
    );
    let (params, gl, tex, caps) = Default::default();
    let env = StageEnv {
        params: &params,
        gl: &gl,
        textures: &tex,
        caps: &caps,
    };
    let mut attribs = vec![[[0.0f32; 4]; hoist_raster::ATTRIBS]; 2];
    attribs[0][1] = [1.0, 2.0, 3.0, 4.0];
    attribs[1][1] = [-0.5, 0.25, 8.0, 1.0];
    let (steps, out) = hoist_raster::trace::trace_vertices(&cp, &env, &attribs).unwrap();
    assert_eq!(steps.len(), 4);
    for (v, a) in attribs.iter().enumerate() {
        let x = a[1];
        let mul = x.map(|c| c * 2.0);
        let add = [mul[0] + x[0], mul[1] + x[1], mul[2], mul[3]];
        assert_eq!(steps[0].values[v], Some(vec4(mul)), "vertex {v}");
        assert_eq!(steps[1].mask, 0b0011);
        assert_eq!(steps[1].values[v], Some(vec4(add)), "vertex {v}");
        assert!(out.outputs[v].iter().any(|(_, o)| *o == add), "vertex {v}");
    }
    let many = vec![[[0.0f32; 4]; hoist_raster::ATTRIBS]; 65];
    for bad in [&[][..], &many[..]] {
        let e = hoist_raster::trace::trace_vertices(&cp, &env, bad).unwrap_err();
        assert!(e.to_string().contains("vertex trace runs 1 to 64"), "{e}");
    }
}

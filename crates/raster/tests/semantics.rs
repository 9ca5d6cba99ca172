//! Semantics of individual operations and of D3D9 flow control, checked through scenes
//! against values computed by hand from the specifications (ARB_vertex_program 2.14.5,
//! ARB_fragment_program 3.11.5, the DirectX 9 asm reference pages). Also the promises about
//! bad input: defined results or clear errors, never a panic or a hang.

use hoist_raster::scene::{self, RunOptions};
use hoist_raster::{Caps, RenderConfig, RenderError, render};

/// Runs a scene whose programs write their result to texcoord 0, shown on a float window.
fn run(vs: &str, extra_test: &str) -> Result<scene::SceneResult, RenderError> {
    let ps = if vs.trim_start().starts_with("vs_") {
        "ps_2_0\ndcl t0\nmov oC0, t0\n"
    } else {
        "!!ARBfp1.0\nMOV result.color, fragment.texcoord[0];\nEND\n"
    };
    let text = format!(
        "[vertex program]\n{vs}\n[fragment program]\n{ps}\n[test]\nwindow rgba32f 4 4\n{extra_test}draw quad\n"
    );
    let sc = scene::parse(&text, &Caps::default())?;
    scene::run(&sc, &RunOptions::default())
}

fn pixel(vs: &str) -> [f32; 4] {
    run(vs, "").unwrap().targets["window"].pixels[5]
}

const D3D_HEAD: &str = "vs_2_0\ndcl_position v0\ndcl_texcoord0 v1\nmov oPos, v0\n";

#[test]
fn d3d9_loops_reps_and_calls() {
    // loop aL, i0 with i0 = (count 4, start 2, step 3): aL = 2, 5, 8, 11; c[aL + 10].x holds
    // aL, so the sum is 26.
    // rep i1 (3) adds 1 three times; call l0 adds 10; callnz on a false b1 does nothing.
    let vs = format!(
        "{D3D_HEAD}def c0, 0, 0, 0, 0\ndef c1, 1, 10, 0, 0\ndefi i0, 4, 2, 3, 0\ndefi i1, 3, 0, 0, 0\n\
         defb b0, true\ndefb b1, false\n\
         def c12, 2, 0, 0, 0\ndef c15, 5, 0, 0, 0\ndef c18, 8, 0, 0, 0\ndef c21, 11, 0, 0, 0\n\
         mov r0, c0\nloop aL, i0\nadd r0.x, r0.x, c[aL + 10].x\nendloop\n\
         rep i1\nadd r0.y, r0.y, c1.x\nendrep\n\
         call l0\ncallnz l1, b1\n\
         if b0\nadd r0.w, r0.w, c1.x\nelse\nadd r0.w, r0.w, c1.y\nendif\n\
         mov oT0, r0\nret\nlabel l0\nadd r0.z, r0.z, c1.y\nret\nlabel l1\nmov r0, c1\nret\n"
    );
    assert_eq!(pixel(&vs), [26.0, 3.0, 10.0, 1.0]);
}

#[test]
fn d3d9_break_and_relative_addressing() {
    // A loop that breaks when its counter reaches 3: r0.x = 0+1+2 = 3.
    // mova rounds 1.5 to 2, so c[a0.x + 3] is c5; an index past the file reads zero.
    let head = D3D_HEAD.replace("vs_2_0", "vs_2_x");
    let vs = format!(
        "{head}def c0, 0, 0, 0, 0\ndef c1, 3, 1.5, 200, 1\ndef c5, 0.25, 0.5, 0.75, 1\n\
         defi i0, 10, 0, 1, 0\n\
         mov r0, c0\nmov r3, c0\nloop aL, i0\nbreak_ge r3.x, c1.x\nadd r0.x, r0.x, r3.x\nadd r3.x, r3.x, c1.w\nendloop\n\
         mova a0.x, c1.y\nmov r1, c[a0.x + 3]\nmova a0.y, c1.z\nmov r2, c[a0.y + 100]\n\
         mov r0.y, r1.y\nmov r0.z, r2.z\nmov r0.w, r1.w\nmov oT0, r0\n"
    );
    assert_eq!(pixel(&vs), [3.0, 0.5, 0.0, 1.0]);
}

#[test]
fn zero_inputs_per_dialect() {
    // D3D9 pseudocode: rcp(0) = rsq(0) = FLT_MAX, log(0) = -FLT_MAX; ARB: IEEE infinities.
    let vs = format!(
        "{D3D_HEAD}def c0, 0, 0, 0, 0\nrcp r0.x, c0.x\nrsq r0.y, c0.x\nlog r0.z, c0.x\nmov r0.w, c0.x\nmov oT0, r0\n"
    );
    assert_eq!(pixel(&vs), [f32::MAX, f32::MAX, -f32::MAX, 0.0]);
    let vp = "!!ARBvp1.0\nTEMP t;\nMOV result.position, vertex.position;\nRCP t.x, {0}.x;\nRSQ t.y, {0}.x;\n\
              LG2 t.z, {0}.x;\nRCP t.w, {-0.0}.x;\nMOV result.texcoord[0], t;\nEND\n";
    assert_eq!(
        pixel(vp),
        [
            f32::INFINITY,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY
        ]
    );
}

/// Negative inputs and denormals, where ARB leaves results undefined: the values measured on
/// Mesa llvmpipe 22.3.6 and an NVIDIA GPU (`../shared/notes/executor-fidelity.md`). Where the
/// two agree Hoist must give the same; where they differ it follows llvmpipe (marked).
#[test]
fn arb_edge_values_follow_real_implementations() {
    let fp = |body: &str| {
        format!(
            "[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n\
             [fragment program]\n!!ARBfp1.0\nTEMP r;\n{body}MOV result.color, r;\nEND\n\
             [test]\nwindow rgba32f 4 4\ndraw quad\n"
        )
    };
    let pixel = |body: &str| {
        let sc = scene::parse(&fp(body), &Caps::default()).unwrap();
        scene::run(&sc, &RunOptions::default()).unwrap().targets["window"].pixels[5]
    };
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let rows: [(&str, [f32; 4]); 4] = [
        // POW(-0.5, 2) and POW(-2, 3): llvmpipe's pow; the GPU gives NaN (they differ).
        (
            "POW r.x, {-0.5}.x, {2}.x;\nPOW r.y, {-2}.x, {3}.x;\nPOW r.z, {-0.5}.x, {0.5}.x;\nPOW r.w, {-1}.x, {0}.x;\n",
            [0.25, -8.0, nan, 1.0],
        ),
        (
            "POW r.x, {0}.x, {0}.x;\nPOW r.y, {0}.x, {-1}.x;\nLG2 r.z, {-2}.x;\nLG2 r.w, {0}.x;\n",
            [1.0, inf, nan, -inf],
        ),
        (
            "LG2 r.x, {-0.0}.x;\nRSQ r.y, {-4}.x;\nEX2 r.z, {200}.x;\nEX2 r.w, {-200}.x;\n",
            [-inf, 0.5, inf, 0.0],
        ),
        // LG2 and RSQ of a denormal: llvmpipe keeps it (the GPU flushes: -inf and inf).
        (
            "FRC r.x, {-0.25}.x;\nFLR r.y, {-0.25}.x;\nLG2 r.z, {1e-38}.x;\nRSQ r.w, {1e-38}.x;\n",
            [0.75, -1.0, -126.233_27, 1e19],
        ),
    ];
    for (body, want) in rows {
        let got = pixel(body);
        for k in 0..4 {
            let ok = (want[k].is_nan() && got[k].is_nan())
                || got[k] == want[k]
                || ((got[k] - want[k]) / want[k]).abs() < 1e-5;
            assert!(ok, "{body}: got {got:?}, measured {want:?}");
        }
    }
    // D3D9 keeps its documented sign rule: log and pow take |x|.
    let vs = format!(
        "{D3D_HEAD}def c0, -2, -0.5, 2, 0\nlog r0.x, c0.x\npow r0.y, c0.y, c0.z\nmov r0.zw, c0.w\nmov oT0, r0\n"
    );
    assert_eq!(self::pixel(&vs), [1.0, 0.25, 0.0, 0.0]);
}

#[test]
fn expp_differs_between_vs_1_1_and_vs_2_0() {
    // vs_1_1: (2^floor(x), frac(x), 2^x, 1); vs_2_0: 2^x replicated. x = 2.5.
    let v11 =
        "vs_1_1\ndcl_position v0\ndef c0, 2.5, 0, 0, 0\nmov oPos, v0\nexpp r0, c0.x\nmov oT0, r0\n";
    let p = pixel(v11);
    assert_eq!((p[0], p[1], p[3]), (4.0, 0.5, 1.0));
    assert!((p[2] - 5.656_854).abs() < 1e-5);
    let v20 = format!("{D3D_HEAD}def c0, 2.5, 0, 0, 0\nexpp r0, c0.x\nmov oT0, r0\n");
    let p = pixel(&v20);
    assert!(p.iter().all(|&v| (v - 5.656_854).abs() < 1e-5), "{p:?}");
}

#[test]
fn arb_swizzles_cross_products_and_aliasing() {
    // SWZ with negation and constants; XPD writing one of its sources; FRC/FLR of negatives.
    let vp = "!!ARBvp1.0\nPARAM a = {1, 2, 3, 4};\nPARAM b = {-1.5, 0.5, 2, 1};\nTEMP t, u;\n\
              MOV result.position, vertex.position;\nSWZ t, a, -w, 0, 1, -y;\nMOV u, a;\n\
              XPD u.xyz, u, b;\nFRC t.y, b.x;\nFLR t.z, b.x;\nADD t.x, t.x, u.x;\nMOV result.texcoord[0], t;\nEND\n";
    // a x b = (2*2 - 3*0.5, 3*-1.5 - 1*2, 1*0.5 - 2*-1.5) = (2.5, -6.5, 3.5); t.x = -4 + 2.5.
    assert_eq!(pixel(vp), [-1.5, 0.5, -2.0, -2.0]);
}

#[test]
fn kill_discards_fragments() {
    let text = "[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\n\
                MOV result.texcoord[0], vertex.texcoord[0];\nEND\n\
                [fragment program]\n!!ARBfp1.0\nTEMP t;\nSUB t, fragment.texcoord[0], 0.5;\nKIL t.x;\n\
                MOV result.color, 1;\nEND\n\
                [test]\nwindow rgba32f 8 8\nclear color 0 0 1 0\nclear\ndraw quad\n\
                probe rgba 1 1 0 0 1 0\nprobe rgba 6 6 1 1 1 1\n";
    let sc = scene::parse(text, &Caps::default()).unwrap();
    let r = scene::run(&sc, &RunOptions::default()).unwrap();
    assert!(r.probes.iter().all(|p| p.pass), "{:?}", r.probes);
    assert_eq!(r.stats.fragments_killed, 32);
}

#[test]
fn runaway_loops_are_cut_off() {
    // 255^3 iterations would take minutes; the batch budget stops it and says so.
    let vs = "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1\nmov o0, v0\n\
         def c0, 0, 0, 0, 0\ndef c1, 1, 0, 0, 0\ndefi i0, 255, 0, 1, 0\nmov r0, c0\n\
         rep i0\nrep i0\nrep i0\nadd r0.x, r0.x, c1.x\nendrep\nendrep\nendrep\nmov o1, r0\n";
    let sc = scene::parse(
        &format!("[vertex program]\n{vs}\n[fragment program]\nps_2_0\ndcl t0\nmov oC0, t0\n[test]\nwindow rgba32f 4 4\ndraw quad\n"),
        &Caps::default(),
    )
    .unwrap();
    let opts = RunOptions {
        caps: Caps {
            max_batch_instructions: 100_000,
            ..Caps::default()
        },
        ..RunOptions::default()
    };
    let r = scene::run(&sc, &opts).unwrap();
    assert_eq!(r.stats.truncated_batches, 1);
}

#[test]
fn nan_and_inf_parameters_give_defined_results() {
    let vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], program.local[0];\nEND\n";
    let r = run(vp, "parameter local_vp 0 (NAN, INF, -INF, 1)\n").unwrap();
    let p = r.targets["window"].pixels[0];
    assert!(p[0].is_nan() && p[1] == f32::INFINITY && p[2] == f32::NEG_INFINITY && p[3] == 1.0);
    // NaN positions drop the primitive instead of rasterizing garbage.
    let vp = "!!ARBvp1.0\nMUL result.position, vertex.position, program.local[0].x;\nEND\n";
    let r = run(vp, "parameter local_vp 0 (NAN, 0, 0, 0)\n").unwrap();
    assert_eq!(r.stats.fragment_invocations, 0);
}

#[test]
fn bad_sizes_and_scenes_are_errors() {
    let cfg = RenderConfig {
        width: 100_000,
        height: 100_000,
        ..RenderConfig::default()
    };
    assert!(matches!(
        render(None, None, &cfg),
        Err(RenderError::Limit(_))
    ));
    let cfg = RenderConfig {
        width: 0,
        ..RenderConfig::default()
    };
    assert!(matches!(
        render(None, None, &cfg),
        Err(RenderError::Config(_))
    ));
    let caps = Caps::default();
    assert!(matches!(
        scene::parse("[vertex program]\n!!ARBvp1.0\nEND\n", &caps),
        Err(RenderError::Scene { .. })
    ));
    let e = scene::parse("[test]\ntexture pattern 0 noise:1@100000x100000\n", &caps).unwrap_err();
    assert!(matches!(e, RenderError::Scene { line: 2, .. }), "{e:?}");
    let e = scene::parse(
        "[vertex program]\n!!ARBvp1.0\nMOV foo, bar;\nEND\n[test]\n",
        &caps,
    )
    .unwrap_err();
    assert!(matches!(e, RenderError::Scene { line: 3, .. }), "{e:?}");
    let sc = scene::parse("[test]\nbind target nowhere\n", &caps).unwrap();
    let e = scene::run(&sc, &RunOptions::default()).unwrap_err();
    assert!(matches!(e, RenderError::Scene { line: 2, .. }), "{e:?}");
}

#[test]
fn d3d9_macros_and_vector_ops() {
    // D3D9 allows one constant register per instruction, so operands go through temps.
    let consts = "def c0, 1, 2, 3, 4\ndef c1, 0, 0, 0, 0\n\
                  def c4, 0, 1, 0, 0\ndef c5, 2, 0, 0, 0\ndef c6, 0, 0, 0, 0.5\ndef c7, 0, 0, 1, 0\n\
                  def c8, 3, 4, 0, 0\ndef c9, 0.5, -0.5, -1, 2\n\
                  mov r10, c0\nmov r11, c8\nmov r12, c9\n";
    let cases: [(&str, [f32; 4]); 6] = [
        // m4x4: (c0·c4, c0·c5, c0·c6, c0·c7) = (2, 2, 2, 3).
        ("m4x4 r0, r10, c4\nmov oT0, r0\n", [2.0, 2.0, 2.0, 3.0]),
        // m3x2 writes x and y only; nrm (3, 4, 0, 0) = (0.6, 0.8, 0, 0) (a swizzle maps by
        // destination position: `r0.zw, r2.xxxy` takes z from x and w from y).
        (
            "mov r0, c1\nm3x2 r0.xy, r10, c4\nnrm r2, r11\nmov r0.zw, r2.xxxy\nmov oT0, r0\n",
            [2.0, 2.0, 0.6, 0.8],
        ),
        // sincos of 0: (cos, sin) = (1, 0); D3D9 lit: (1, 0.5, 0 since y <= 0, 1).
        (
            "mov r0, c1\nsincos r0.xy, r0.x, c10, c11\nlit r4, r12\nmov r0.zw, r4.xxyz\nmov oT0, r0\n",
            [1.0, 0.0, 0.5, 0.0],
        ),
        // dst(c0, c9) = (1, 2·-0.5, 3, 2).
        ("dst r0, r10, r12\nmov oT0, r0\n", [1.0, -1.0, 3.0, 2.0]),
        // sgn(0.5, -0.5, -1, 2).
        ("sgn r0, r12, r7, r8\nmov oT0, r0\n", [1.0, -1.0, -1.0, 1.0]),
        // crs: (1,2,3) x (3,4,0) = (-12, 9, -2); w untouched (0).
        (
            "mov r0, c1\ncrs r0.xyz, r10, r11\nmov oT0, r0\n",
            [-12.0, 9.0, -2.0, 0.0],
        ),
    ];
    for (body, want) in cases {
        let vs = format!("{D3D_HEAD}{consts}{body}");
        let p = pixel(&vs);
        for c in 0..4 {
            assert!((p[c] - want[c]).abs() < 1e-6, "{body}: {p:?}");
        }
    }
    // Pixel-shader selection ops on t0 = (0.5, -0.5, 0.75, 0): cmp (>= 0) of t0 and -t0,
    // dp2add and lrp.
    let vs = format!("{D3D_HEAD}def c0, 0.5, -0.5, 0.75, 0\nmov oT0, c0\n");
    let ps = "ps_2_0\ndcl t0\ndef c0, 1, 2, 0.25, 4\ncmp r0, t0, c0.x, c0.y\ncmp r1, -t0, c0.x, c0.y\n\
              dp2add r2, t0, c0, c0.z\nmov r3, t0\nlrp r4, c0.z, r3, c0\n\
              mov r5.x, r0.y\nmov r5.y, r1.z\nmov r5.z, r2.x\nmov r5.w, r4.w\nmov oC0, r5\n";
    let text = format!(
        "[vertex program]\n{vs}\n[fragment program]\n{ps}\n[test]\nwindow rgba32f 4 4\ndraw quad\n"
    );
    let sc = scene::parse(&text, &Caps::default()).unwrap();
    let p = scene::run(&sc, &RunOptions::default()).unwrap().targets["window"].pixels[5];
    // cmp(-0.5) = 2; cmp(-0.75) = 2; dp2add = 0.5·1 + -0.5·2 + 0.25 = -0.25;
    // lrp(0.25, 0, 4).w = 0.25·0 + 0.75·4 = 3.
    assert_eq!(p, [2.0, 2.0, -0.25, 3.0]);
}

#[test]
fn indexed_meshes_with_culling_and_ties() {
    use hoist_raster::{Geometry, Mesh};
    let v = |x: f32, y: f32| {
        let mut a = hoist_raster::DrawState::default().current;
        a[0] = [x, y, 0.0, 1.0];
        a
    };
    let mesh = Mesh {
        vertices: vec![v(-1.0, -1.0), v(1.0, -1.0), v(-1.0, 1.0), v(1.0, 1.0)],
        indices: vec![0, 1, 2],
    };
    let mut cfg = RenderConfig {
        width: 8,
        height: 8,
        geometry: Geometry::Mesh(mesh.clone()),
        ..RenderConfig::default()
    };
    // Pixel centres with x + y < 7 are inside; the 8 on the diagonal x + y = 7 lie on the
    // edge (1,-1)-(-1,1), which is neither a left nor a bottom edge of this triangle.
    let r = render(None, None, &cfg).unwrap();
    assert_eq!(r.stats.fragment_invocations, 28);
    assert_eq!(r.image.get(0, 0), Some([1.0; 4]));
    assert_eq!(r.image.get(7, 0), Some([0.0; 4]));
    // Both triangles of the quad: every pixel exactly once.
    cfg.geometry = Geometry::Mesh(Mesh {
        indices: vec![0, 1, 2, 2, 1, 3],
        ..mesh.clone()
    });
    assert_eq!(
        render(None, None, &cfg).unwrap().stats.fragment_invocations,
        64
    );
    // Clockwise winding is back-facing: culled when culling is on.
    cfg.geometry = Geometry::Mesh(Mesh {
        indices: vec![0, 2, 1],
        ..mesh.clone()
    });
    cfg.state.cull_back = true;
    assert_eq!(
        render(None, None, &cfg).unwrap().stats.fragment_invocations,
        0
    );
    cfg.state.cull_back = false;
    assert_eq!(
        render(None, None, &cfg).unwrap().stats.fragment_invocations,
        28
    );
    // An index past the vertex list is an error, not a panic.
    cfg.geometry = Geometry::Mesh(Mesh {
        indices: vec![0, 1, 9],
        ..mesh
    });
    assert!(matches!(
        render(None, None, &cfg),
        Err(RenderError::Config(_))
    ));
}

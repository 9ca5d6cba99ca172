//! Bugs piglit's GLSL tests found, each as the smallest scene that shows it, run through
//! `hoist_front::scene` and the executor in both dialects (where the pair has one).

use hoist_asm::Dialect;
use hoist_front::Options;
use hoist_raster::scene::RunOptions;

/// Runs a GLSL scene under `dialect`; every probe must pass.
fn passes(name: &str, scene: &str, dialect: Dialect) {
    let opts = Options {
        dialect: Some(dialect),
        ..Options::default()
    };
    let ro = RunOptions::default();
    let p = hoist_front::scene::parse(scene, &ro.caps, &opts)
        .unwrap_or_else(|e| panic!("{name} ({dialect:?}): {e:?}"));
    let r = hoist_raster::scene::run(&p.scene, &ro).expect("runs");
    assert!(!r.probes.is_empty());
    let failed: Vec<String> = r
        .probes
        .iter()
        .filter(|p| !p.pass)
        .map(|p| p.to_string())
        .collect();
    assert!(failed.is_empty(), "{name} ({dialect:?}): {failed:?}");
}

fn both(name: &str, scene: &str) {
    passes(name, scene, Dialect::Arb);
    passes(name, scene, Dialect::D3d9);
}

const VS: &str = "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; }\n";

/// naga checks a do-while's condition at the end of the body, so `continue` skipped it.
#[test]
fn continue_in_do_while_still_checks_the_condition() {
    let fs = "[fragment shader]\nvoid main() {\n  int x = 0; int y = 0;\n  do {\n    ++x;\n    \
              if (x >= 4) break;\n    if (x >= 2) continue;\n    ++y;\n  } while (x < 3);\n  \
              gl_FragColor = vec4(float(x) * 0.25, float(y) * 0.5, 0.0, 1.0);\n}\n";
    both(
        "do-while",
        &format!("{VS}{fs}[test]\ndraw rect -1 -1 2 2\nprobe all rgba 0.75 0.5 0 1\n"),
    );
}

/// naga drops the store of a global initializer that calls a function.
#[test]
fn a_global_initialized_by_a_call_gets_its_value() {
    let vs = "[vertex shader]\nuniform float u;\nfloat get();\nfloat g = get();\n\
              varying vec4 c;\nfloat get() { if (u > 0.5) return 0.0; return u * 2.0; }\n\
              void main() { gl_Position = gl_Vertex; c = vec4(0.0, g + 0.25, 0.0, 1.0); }\n";
    let fs = "[fragment shader]\nvarying vec4 c;\nvoid main() { gl_FragColor = c; }\n";
    both(
        "global initializer",
        &format!(
            "{vs}{fs}[test]\nuniform float u 0.25\ndraw rect -1 -1 2 2\nprobe all rgba 0 0.75 0 1\n"
        ),
    );
}

/// A private global first touched inside one arm of an `if` had no slot in the other.
#[test]
fn a_global_first_used_inside_an_if_arm() {
    let fs = "[fragment shader]\nuniform float u;\nfloat g;\nvoid main() {\n  \
              if (gl_FragCoord.x < 125.0) { g = 0.5; } else { g = u; }\n  \
              gl_FragColor = vec4(g, 0.0, 0.0, 1.0);\n}\n";
    both(
        "global in an arm",
        &format!(
            "{VS}{fs}[test]\nuniform float u 1.0\ndraw rect -1 -1 2 2\n\
             probe rgba 10 10 0.5 0 0 1\nprobe rgba 200 10 1 0 0 1\n"
        ),
    );
}

/// A real (D3D9) loop in one arm pinned the variables to registers, and the other arm's
/// store then overwrote the register both arms' values lived in.
#[test]
fn a_real_loop_inside_an_if_arm_keeps_the_other_arm_apart() {
    let vs = "[vertex shader]\nvarying float x;\nvarying float y;\n\
              void main() { gl_Position = gl_Vertex; x = gl_Vertex.x; y = gl_Vertex.y; }\n";
    let fs = "[fragment shader]\nvarying float x;\nvarying float y;\nvoid main() {\n  \
              if (x < 0.0) {\n    gl_FragColor = vec4(0.0, 1.0, 0.0, 0.0);\n    \
              for (float f = -2.0; f < x; f++) {\n      if (f != y + 5.0) break;\n      \
              gl_FragColor += vec4(1.0, 0.0, 0.0, 0.0);\n    }\n  } else {\n    \
              gl_FragColor = vec4(0.0, 0.5, 0.0, 0.0);\n  }\n}\n";
    passes(
        "real loop in an arm",
        &format!(
            "{vs}{fs}[test]\ndraw rect -1 -1 2 2\nprobe rgba 10 10 0 1 0 0\n\
             probe rgba 200 10 0 0.5 0 0\n"
        ),
        Dialect::D3d9,
    );
}

/// `gl_Vertex.xy` was one token, so the legacy built-in was not recognised.
#[test]
fn swizzled_legacy_builtins_are_adapted() {
    let vs = "[vertex shader]\nvarying vec4 c;\n\
              void main() { gl_Position = gl_Vertex; c = vec4(gl_Vertex.xy, -gl_Vertex.xy); }\n";
    let fs = "[fragment shader]\nvarying vec4 c;\n\
              void main() { gl_FragColor = vec4(abs(c.x), abs(c.w), 0.0, 1.0); }\n";
    both(
        "swizzle",
        &format!(
            "{vs}{fs}[test]\ndraw rect -1 -1 2 2\nrelative probe rgb (0.0, 0.0) (1.0, 1.0, 0.0)\n\
             relative probe rgb (0.5, 0.5) (0.0, 0.0, 0.0)\n"
        ),
    );
}

/// piglit's `piglit_vertex` attribute is the position its draws supply.
#[test]
fn piglit_vertex_is_the_position() {
    let vs = "[vertex shader]\nattribute vec4 piglit_vertex;\n\
              void main() { gl_Position = piglit_vertex; }\n";
    let fs = "[fragment shader]\nvoid main() { gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0); }\n";
    both(
        "piglit_vertex",
        &format!("{vs}{fs}[test]\ndraw rect -1 -1 2 2\nprobe all rgba 0 1 0 1\n"),
    );
}

/// A uniform's initializer is its value until a `uniform` line sets it.
#[test]
fn uniform_initializers_are_initial_values() {
    let fs = "[fragment shader]\n#version 120\nuniform vec4 color = vec4(0.0, 1.0, 0.0, 0.0);\n\
              uniform float k = 0.5;\nvoid main() { gl_FragColor = color * k * 2.0; }\n";
    both(
        "uniform initializer",
        &format!(
            "{VS}{fs}[test]\ndraw rect -1 -1 1 2\nuniform vec4 color 0 0 1 0\ndraw rect 0 -1 1 2\n\
             relative probe rgba (0.25, 0.5) (0, 1, 0, 0)\nrelative probe rgba (0.75, 0.5) (0, 0, 1, 0)\n"
        ),
    );
}

/// Non-literal indices into `gl_TexCoord` (constant after unrolling).
#[test]
fn gl_texcoord_indexed_in_loops() {
    let vs = "[vertex shader]\nvarying vec4 gl_TexCoord[5];\nvoid main() {\n  \
              gl_Position = gl_Vertex;\n  for (int i = 0; i < 5; i++) gl_TexCoord[i] = vec4(float(i) * 0.05);\n}\n";
    let fs = "[fragment shader]\nvarying vec4 gl_TexCoord[5];\nvoid main() {\n  vec4 r = vec4(0.0);\n  \
              for (int i = 0; i < 4; i++) r += gl_TexCoord[i];\n  gl_FragColor = r + gl_TexCoord[4];\n}\n";
    both(
        "gl_TexCoord[i]",
        &format!("{vs}{fs}[test]\ndraw rect -1 -1 2 2\nprobe all rgba 0.5 0.5 0.5 0.5\n"),
    );
}

/// Integers live in float registers: one beyond 2^24 is refused, not rounded.
#[test]
fn integers_beyond_two_to_the_24_are_refused() {
    let fs = "[fragment shader]\n#version 130\nuniform ivec4 x;\nvoid main() {\n  \
              gl_FragColor = vec4(float(0x69c477b9 * x.x));\n}\n";
    let scene = format!("{VS}{fs}[test]\nuniform ivec4 x 1 2 3 4\ndraw rect -1 -1 2 2\n");
    let e =
        hoist_front::scene::parse(&scene, &Default::default(), &Options::default()).unwrap_err();
    assert!(e[0].message.contains("2^24"), "{e:?}");
    let fs = "[fragment shader]\n#version 130\nuniform ivec4 x;\nvoid main() { gl_FragColor = vec4(x); }\n";
    let scene = format!("{VS}{fs}[test]\nuniform ivec4 x 1 -763033965 3 4\ndraw rect -1 -1 2 2\n");
    let e =
        hoist_front::scene::parse(&scene, &Default::default(), &Options::default()).unwrap_err();
    assert!(e[0].message.contains("2^24"), "{e:?}");
}

/// A deeply nested expression is a diagnostic, not a stack overflow in naga.
#[test]
fn deep_nesting_is_a_diagnostic() {
    let deep = format!(
        "void main() {{ gl_FragColor = vec4({}1.0{}); }}\n",
        "(".repeat(400),
        ")".repeat(400)
    );
    let vs = "void main() { gl_Position = gl_Vertex; }\n";
    let e = hoist_front::compile_glsl(vs, &deep, &Options::default()).unwrap_err();
    assert_eq!(e.diagnostics[0].code, "F0005");
    let chain = format!(
        "uniform vec4 a[130];\nvoid main() {{ gl_Position = gl_Vertex; gl_FrontColor = {}; }}\n",
        (0..129)
            .map(|i| format!("a[{i}]"))
            .collect::<Vec<_>>()
            .join(" + ")
    );
    let fs = "void main() { gl_FragColor = gl_Color; }\n";
    let c = hoist_front::compile_glsl(&chain, fs, &Options::default()).expect("compiles");
    assert!(c.vp.matches("ADD").count() >= 128);
}

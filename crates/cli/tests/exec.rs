//! `hoist render --exec interp|compiled` and `hoist run --exec`: the compiled kernels write
//! the same image file as the interpreter, scenes pass either way, and a bad value is a
//! usage error.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

fn hoist(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hoist"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn compiled_and_interpreted_renders_write_the_same_file() {
    let dir = std::env::temp_dir().join(format!("hoist-exec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fp = dir.join("t.fp");
    std::fs::write(
        &fp,
        "!!ARBfp1.0\nTEMP a, b;\nTEX a, fragment.texcoord[0], texture[0], 2D;\n\
         MUL b, fragment.texcoord[0], {7.5, -3.25, 1, 1};\nTEX b, b, texture[0], 2D;\n\
         LRP a, 0.25, a, b;\nPOW a.w, a.x, b.y;\nMOV_SAT result.color, a;\nEND\n",
    )
    .unwrap();
    let mut outs = Vec::new();
    for exec in ["interp", "compiled"] {
        let out = dir.join(format!("{exec}.pfm"));
        let r = hoist(&[
            "render",
            "--fp",
            fp.to_str().unwrap(),
            "--quad",
            "--size",
            "67x45",
            "--texture",
            "0",
            "noise:3@13x9",
            "--filter",
            "linear",
            "--wrap",
            "repeat",
            "--exec",
            exec,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        outs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outs[0], outs[1], "the two executors wrote different images");
    let r = hoist(&["render", "--fp", fp.to_str().unwrap(), "--exec", "fast"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("interp or compiled"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scenes_pass_with_either_executor() {
    for exec in ["interp", "compiled"] {
        let r = hoist(&[
            "run",
            "-q",
            "--exec",
            exec,
            "examples/paper/gauss13.shader_test",
        ]);
        assert!(
            r.status.success(),
            "{exec}: {}{}",
            String::from_utf8_lossy(&r.stdout),
            String::from_utf8_lossy(&r.stderr)
        );
    }
}

//! `hoist render` against Mesa llvmpipe (`../shared/tools/arbref`), given the very same
//! command line:
//! - every texture target: TEX, TXP and TXB on 1D, 2D, 3D, CUBE and RECT units made with
//!   `--texture-target` (the same texels from the same pattern image), nearest and linear,
//!   clamp and repeat;
//! - the ARB fog options (linear, exp, exp2) under GL's default fog state, with a fog
//!   coordinate that sweeps through the clamped ranges;
//!
//! each with both executors (`--exec interp` and `--exec compiled`), within 2e-6.
//! Skips (or fails under `HOIST_REQUIRE_ORACLES=1`) when arbref or OSMesa is missing.
#![cfg(not(target_arch = "wasm32"))]

use hoist_raster::image::decode_pfm;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

const TOLERANCE: f32 = 2e-6;

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `bin` with `args` plus `--out`, and reads the image.
fn render(bin: &Path, args: &[String], out: &Path) -> Result<hoist_raster::Image, String> {
    let o = Command::new(bin)
        .args(args)
        .arg("--out")
        .arg(out)
        .env("LP_NUM_THREADS", "1")
        .output()
        .map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(format!(
            "{} {}: {}{}",
            bin.display(),
            args.join(" "),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    decode_pfm(&std::fs::read(out).map_err(|e| e.to_string())?, 1 << 26)
}

/// The arbref binary, or `None` after the skip notice when it or OSMesa is missing.
fn oracle() -> Option<PathBuf> {
    let bin = match oracles::arbref() {
        Ok(b) => b,
        Err(e) => {
            oracles::skip(&e);
            return None;
        }
    };
    let d = scratch("llvmpipe-probe");
    let fp = d.join("p.fp");
    std::fs::write(&fp, "!!ARBfp1.0\nMOV result.color, 1;\nEND\n").unwrap();
    let args = [
        "-q",
        "--osmesa",
        "--fp",
        fp.to_str().unwrap(),
        "--size",
        "2x2",
    ];
    match render(&bin, &args.map(String::from), &d.join("p.pfm")) {
        Err(e) if e.contains("OSMesa") || e.contains("dlopen") => {
            oracles::skip(&e);
            None
        }
        _ => Some(bin),
    }
}

/// Renders one case with arbref and with `hoist render` under both executors (`ours`:
/// arguments only `hoist render` takes); the largest difference of each executor from
/// llvmpipe.
fn differences(bin: &Path, dir: &Path, name: &str, args: &[String], ours: &[String]) -> [f32; 2] {
    let theirs = render(
        bin,
        &[&["-q".to_string(), "--osmesa".to_string()], args].concat(),
        &dir.join(format!("{name}.arbref.pfm")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ["interp", "compiled"].map(|exec| {
        let ours = render(
            Path::new(env!("CARGO_BIN_EXE_hoist")),
            &[
                &["render".into(), "-q".into(), "--exec".into(), exec.into()],
                args,
                ours,
            ]
            .concat(),
            &dir.join(format!("{name}.{exec}.pfm")),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        hoist_raster::compare(&theirs, &ours).max_abs_diff()
    })
}

const VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
                  MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";

/// The coordinate `c` a target is sampled at, from s, t in [0, 1] on a 40×32 target with
/// a 12×8 image: four texels past every edge (so clamp and repeat differ), two pixels per
/// texel with pixel centres a quarter texel from texel edges (nearest filtering never
/// decides on a rounding), every 3D slice, every cube face with no ties between major axes;
/// texel units for RECT.
fn coordinate(target: &str) -> &'static str {
    match target {
        "1D" | "2D" => {
            "MAD c, fragment.texcoord[0], {1.6666666, 2, 0, 0}, {-0.33333334, -0.5, 0, 1};\n"
        }
        "3D" => {
            "MAD c, fragment.texcoord[0], {1.6666666, 2, 0, 0}, {-0.33333334, -0.5, 0, 1};\n\
             MOV c.z, c.x;\n"
        }
        // x in (-1, 1), y in (-0.85, 0.85), |x| never |y|; z a saddle: ±Z near the centre,
        // ±X and ±Y on the sides.
        "CUBE" => {
            "MAD c, fragment.texcoord[0], {2, 1.7, 0, 0}, {-1, -0.85, 0, 1};\n\
             MUL c.z, c.x, c.y;\nMAD c.z, c.z, 3, -0.25;\n"
        }
        _ => "MAD c, fragment.texcoord[0], {20, 16, 0, 0}, {-4, -4, 0, 1};\n",
    }
}

/// A fragment program sampling unit 0 as `target` with `op`; TXP divides by a varying q
/// (the coordinate is pre-multiplied by it), TXB biases by a varying amount.
fn sampling_program(target: &str, op: &str) -> String {
    let mut fp = String::from("!!ARBfp1.0\nTEMP c, q;\n");
    fp += coordinate(target);
    match op {
        "TXP" => {
            fp += "MAD q.x, fragment.texcoord[0].x, 0.5, 0.75;\nMUL c.xyz, c, q.x;\nMOV c.w, q.x;\n"
        }
        "TXB" => fp += "MAD c.w, fragment.texcoord[0].y, 4, -2;\n",
        _ => {}
    }
    fp += &format!("{op} result.color, c, texture[0], {target};\nEND\n");
    fp
}

#[test]
fn every_texture_target_samples_like_llvmpipe() {
    let Some(bin) = oracle() else {
        return;
    };
    let dir = scratch("llvmpipe-targets");
    let vp = dir.join("t.vp");
    std::fs::write(&vp, VP).unwrap();
    let mut worst = [0.0f32; 2];
    let mut cases = 0;
    for target in ["1D", "2D", "3D", "CUBE", "RECT"] {
        for op in ["TEX", "TXP", "TXB"] {
            let fp = dir.join(format!("{target}_{op}.fp"));
            std::fs::write(&fp, sampling_program(target, op)).unwrap();
            for filter in ["nearest", "linear"] {
                for wrap in ["clamp", "repeat"] {
                    let name = format!("{target}_{op}_{filter}_{wrap}");
                    let args: Vec<String> = [
                        "--vp",
                        vp.to_str().unwrap(),
                        "--fp",
                        fp.to_str().unwrap(),
                        "--size",
                        "40x32",
                        "--texture",
                        "0",
                        "noise:7@12x8",
                        "--texture-target",
                        "0",
                        &target.to_ascii_lowercase(),
                        "--filter",
                        filter,
                        "--wrap",
                        wrap,
                    ]
                    .map(String::from)
                    .to_vec();
                    let d = differences(&bin, &dir, &name, &args, &[]);
                    println!("{name:<28} interp {:e}  compiled {:e}", d[0], d[1]);
                    for k in 0..2 {
                        assert!(d[k] <= TOLERANCE, "{name}: {d:?}");
                        worst[k] = worst[k].max(d[k]);
                    }
                    cases += 1;
                }
            }
        }
    }
    println!(
        "texture targets: {cases} cases agree with llvmpipe, largest difference {:e} \
         (interpreter), {:e} (compiled)",
        worst[0], worst[1]
    );
    assert_eq!(cases, 60);
}

/// A shadow target on a colour texture is an ordinary fetch (`hoist_asm::semantics`):
/// SHADOW1D, SHADOW2D and SHADOWRECT with TEX, TXP and TXB, nearest and linear, clamp and
/// repeat, with a varying reference r, against llvmpipe (arbref's textures are colour, so
/// `hoist render` is asked for one: `--texture-format 0 rgba32f`).
#[test]
fn shadow_targets_on_colour_textures_sample_like_llvmpipe() {
    let Some(bin) = oracle() else {
        return;
    };
    let dir = scratch("llvmpipe-shadow");
    let vp = dir.join("t.vp");
    std::fs::write(&vp, VP).unwrap();
    let mut worst = [0.0f32; 2];
    let mut cases = 0;
    for (target, base, shape) in [
        ("SHADOW1D", "1D", "1d"),
        ("SHADOW2D", "2D", "2d"),
        ("SHADOWRECT", "RECT", "rect"),
    ] {
        for op in ["TEX", "TXP", "TXB"] {
            let text = sampling_program(base, op)
                .replace(
                    "!!ARBfp1.0\n",
                    "!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\n",
                )
                .replace(
                    &format!("texture[0], {base};"),
                    &format!("texture[0], {target};"),
                )
                .replace(
                    coordinate(base),
                    &format!("{}MOV c.z, fragment.texcoord[0].y;\n", coordinate(base)),
                );
            assert!(text.contains(target) && text.contains("MOV c.z"), "{text}");
            let fp = dir.join(format!("{target}_{op}.fp"));
            std::fs::write(&fp, text).unwrap();
            for filter in ["nearest", "linear"] {
                for wrap in ["clamp", "repeat"] {
                    let name = format!("{target}_{op}_{filter}_{wrap}");
                    let args: Vec<String> = [
                        "--vp",
                        vp.to_str().unwrap(),
                        "--fp",
                        fp.to_str().unwrap(),
                        "--size",
                        "40x32",
                        "--texture",
                        "0",
                        "noise:5@12x8",
                        "--texture-target",
                        "0",
                        shape,
                        "--filter",
                        filter,
                        "--wrap",
                        wrap,
                    ]
                    .map(String::from)
                    .to_vec();
                    let ours = ["--texture-format", "0", "rgba32f"].map(String::from);
                    let d = differences(&bin, &dir, &name, &args, &ours);
                    println!("{name:<30} interp {:e}  compiled {:e}", d[0], d[1]);
                    for k in 0..2 {
                        assert!(d[k] <= TOLERANCE, "{name}: {d:?}");
                        worst[k] = worst[k].max(d[k]);
                    }
                    cases += 1;
                }
            }
        }
    }
    println!(
        "shadow targets on colour textures: {cases} cases agree with llvmpipe, largest \
         difference {:e} (interpreter), {:e} (compiled)",
        worst[0], worst[1]
    );
    assert_eq!(cases, 36);
}

/// The fog coordinate sweeps [-0.5, 2.5] across the quad (and the colour varies), so the
/// factor is clamped at both ends for linear fog and at the near end for exp and exp2.
#[test]
fn fog_options_render_like_llvmpipe() {
    let Some(bin) = oracle() else {
        return;
    };
    let dir = scratch("llvmpipe-fog");
    let vp = dir.join("fog.vp");
    std::fs::write(
        &vp,
        "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
         MOV result.texcoord[0], vertex.texcoord[0];\n\
         MAD result.fogcoord.x, vertex.texcoord[0].x, 3, -0.5;\nEND\n",
    )
    .unwrap();
    let mut cases = 0;
    for mode in ["linear", "exp", "exp2"] {
        for body in [
            "TEX r, fragment.texcoord[0], texture[0], 2D;\nMOV result.color, r;\n",
            "MAD result.color, fragment.texcoord[0].yxyx, {0.5, 1, 2, 0.25}, {0.25, 0, -0.5, 0.5};\n",
        ] {
            let fp = dir.join(format!("{mode}{cases}.fp"));
            std::fs::write(
                &fp,
                format!("!!ARBfp1.0\nOPTION ARB_fog_{mode};\nTEMP r;\n{body}END\n"),
            )
            .unwrap();
            let args: Vec<String> = [
                "--vp",
                vp.to_str().unwrap(),
                "--fp",
                fp.to_str().unwrap(),
                "--size",
                "48x8",
                "--texture",
                "0",
                "noise:3@16x16",
            ]
            .map(String::from)
            .to_vec();
            let name = format!("fog_{mode}_{cases}");
            let d = differences(&bin, &dir, &name, &args, &[]);
            println!("{name:<16} interp {:e}  compiled {:e}", d[0], d[1]);
            assert!(d.iter().all(|&x| x <= TOLERANCE), "{name}: {d:?}");
            cases += 1;
        }
    }
    // Fog changes the image: without the option, the same program renders otherwise.
    let plain = dir.join("plain.fp");
    std::fs::write(
        &plain,
        "!!ARBfp1.0\nMOV result.color, fragment.texcoord[0];\nEND\n",
    )
    .unwrap();
    let fogged = dir.join("fogged.fp");
    std::fs::write(
        &fogged,
        "!!ARBfp1.0\nOPTION ARB_fog_exp;\nMOV result.color, fragment.texcoord[0];\nEND\n",
    )
    .unwrap();
    let run = |fp: &Path, name: &str| {
        let args = [
            "--vp",
            vp.to_str().unwrap(),
            "--fp",
            fp.to_str().unwrap(),
            "--size",
            "8x8",
        ]
        .map(String::from);
        render(
            Path::new(env!("CARGO_BIN_EXE_hoist")),
            &[&["render".to_string(), "-q".to_string()], &args[..]].concat(),
            &dir.join(name),
        )
        .unwrap()
    };
    let (a, b) = (run(&plain, "plain.pfm"), run(&fogged, "fogged.pfm"));
    assert!(hoist_raster::compare(&a, &b).max_abs_diff() > 0.1);
    println!("fog options: {cases} programs agree with llvmpipe");
}

/// A bad `--texture-target` is an error that names it; a good one changes what a lookup
/// of that target reads (a CUBE lookup of a unit made a cube map is not (0, 0, 0, 1)).
#[test]
fn texture_target_arguments_are_checked() {
    let dir = scratch("texture-target-args");
    let fp = dir.join("cube.fp");
    std::fs::write(
        &fp,
        "!!ARBfp1.0\nTEMP d;\nMAD d, fragment.texcoord[0], 2, -1;\nMOV d.z, 0.5;\n\
         TEX result.color, d, texture[0], CUBE;\nEND\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "render",
            "-q",
            "--fp",
            fp.to_str().unwrap(),
            "--size",
            "8x8",
        ];
        args.extend_from_slice(&["--texture", "0", "gradient@8x8"]);
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_hoist"))
            .args(&args)
            .output()
            .unwrap()
    };
    for (bad, says) in [
        (["--texture-target", "0", "sphere"], "is not a target"),
        (["--texture-target", "40", "cube"], "is not a unit"),
    ] {
        let o = run(&bad);
        assert_eq!(o.status.code(), Some(1), "{bad:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains(says), "{bad:?}");
    }
    let probe = |extra: &[&str]| {
        let o = run(&[extra, &["--probe", "4,4"]].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    assert!(probe(&[]).contains("probe (4,4): 0 0 0 1"));
    let cube = probe(&["--texture-target", "0", "cube"]);
    assert!(!cube.contains("probe (4,4): 0 0 0 1"), "{cube}");
}

/// `hoist render` supplies a unit sampled through a shadow target as a depth texture of
/// the image's red channel with compare LEQUAL: each pixel of a nearest SHADOW2D lookup is
/// (1, 1, 1, 1) where r ≤ D and (0, 0, 0, 1) elsewhere, in both executors (r and D read
/// back by two plain renders); `--texture-format` overrides the choice.
#[test]
fn shadow_units_get_depth_textures_with_compare() {
    let dir = scratch("shadow-depth");
    let vp = dir.join("t.vp");
    std::fs::write(&vp, VP).unwrap();
    let write = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, format!("!!ARBfp1.0\n{body}END\n")).unwrap();
        p
    };
    let shadow = write(
        "shadow.fp",
        "OPTION ARB_fragment_program_shadow;\nTEMP c;\nMOV c, fragment.texcoord[0];\n\
         MOV c.z, fragment.texcoord[0].x;\nTEX result.color, c, texture[0], SHADOW2D;\n",
    );
    let plain = write(
        "plain.fp",
        "TEX result.color, fragment.texcoord[0], texture[0], 2D;\n",
    );
    let r = write("r.fp", "MOV result.color, fragment.texcoord[0].x;\n");
    let run = |fp: &Path, name: &str, extra: &[&str]| {
        let mut args: Vec<String> = [
            "render",
            "--vp",
            vp.to_str().unwrap(),
            "--fp",
            fp.to_str().unwrap(),
            "--size",
            "16x16",
            "--texture",
            "0",
            "noise:3@16x16",
        ]
        .map(String::from)
        .to_vec();
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = dir.join(name);
        let o = Command::new(env!("CARGO_BIN_EXE_hoist"))
            .args(&args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let img = decode_pfm(&std::fs::read(&out).unwrap(), 1 << 26).unwrap();
        (img, String::from_utf8_lossy(&o.stdout).to_string())
    };
    let (depth, _) = run(&plain, "d.pfm", &[]);
    let (refs, _) = run(&r, "r.pfm", &[]);
    let (mut lit, mut dark) = (0, 0);
    for exec in ["interp", "compiled"] {
        let (img, said) = run(&shadow, &format!("s-{exec}.pfm"), &["--exec", exec]);
        assert!(said.contains("depth, compare LEQUAL"), "{said}");
        for (i, p) in img.pixels.iter().enumerate() {
            let (r, d) = (refs.pixels[i][0], depth.pixels[i][0]);
            let want = if r <= d {
                [1.0; 4]
            } else {
                [0.0, 0.0, 0.0, 1.0]
            };
            assert_eq!(*p, want, "{exec} pixel {i}: r {r} D {d}");
            if r <= d { lit += 1 } else { dark += 1 }
        }
    }
    assert!(lit > 20 && dark > 20, "{lit} lit, {dark} in shadow");
    // Asked for colour, the shadow lookup is an ordinary fetch; asked for depth, a 2D
    // lookup reads the depth (luminance).
    let (colour, said) = run(&shadow, "c.pfm", &["--texture-format", "0", "rgba32f"]);
    assert!(said.contains("RGBA32F"), "{said}");
    assert_eq!(colour.pixels, depth.pixels);
    let (lum, _) = run(&plain, "l.pfm", &["--texture-format", "0", "depth"]);
    for (p, q) in lum.pixels.iter().zip(&depth.pixels) {
        assert_eq!(*p, [q[0], q[0], q[0], 1.0]);
    }
    let o = Command::new(env!("CARGO_BIN_EXE_hoist"))
        .args([
            "render",
            "-q",
            "--fp",
            shadow.to_str().unwrap(),
            "--texture-format",
            "0",
            "stencil",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a format"));
}

/// `--texture vsN` binds D3D9's vertex sampler N (unit 16 + N): a vs_3_0 `texldl` of s0
/// reads it, the pixel shader's s0 (unit 0) does not.
#[test]
fn vertex_sampler_units_are_named_vs() {
    let dir = scratch("vertex-samplers");
    let vs = dir.join("t.vsh");
    std::fs::write(
        &vs,
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_color o1\ndcl_2d s0\n\
         def c0, 0.5, 0.5, 0, 0\ntexldl r0, c0, s0\nmov o0, v0\nmov o1, r0\n",
    )
    .unwrap();
    let ps = dir.join("t.psh");
    std::fs::write(&ps, "ps_3_0\ndcl_color v0\nmov oC0, v0\n").unwrap();
    let run = |unit: &str| {
        Command::new(env!("CARGO_BIN_EXE_hoist"))
            .args([
                "render",
                "--vp",
                vs.to_str().unwrap(),
                "--fp",
                ps.to_str().unwrap(),
            ])
            .args([
                "--size",
                "4x4",
                "--texture",
                unit,
                "solid:0.25,0.5,0.75,1@2x2",
            ])
            .args(["--probe", "1,1"])
            .output()
            .unwrap()
    };
    let o = run("vs0");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("texture vertex sampler s0 (unit 16)"), "{out}");
    assert!(out.contains("probe (1,1): 0.25 0.5 0.75 1"), "{out}");
    let o = run("0");
    assert!(String::from_utf8_lossy(&o.stdout).contains("probe (1,1): 0 0 0 1"));
    let o = run("vs16");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a unit"));
}

//! Compiled kernels ([`hoist_raster::jit`], run by wasmtime) against the interpreter, bit for
//! bit: every example scene, every piglit ARB shader_test (SKIP notice without
//! `../shared`), edge values of every operation, texture modes, and the fallback when the
//! compiler refuses. Floats compare by their bits; two NaNs are equal whatever their
//! payloads (the interpreter does not canonicalise: payloads follow the host's
//! instructions and differ between native and wasm builds of the interpreter itself).

use hoist_asm::{ParseOptions, Program};
use hoist_raster::compile::compile;
use hoist_raster::jit::{self, Exec, Refusal};
use hoist_raster::scene::{self, RunOptions, SceneResult};
use hoist_raster::{
    Caps, Filter, Image, MipFilter, RenderConfig, Sampler, TexFormat, Texture, Wrap, pattern,
    render,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// First differing pixel, if any.
fn image_diff(a: &Image, b: &Image) -> Option<String> {
    if (a.width, a.height) != (b.width, b.height) {
        return Some("sizes differ".into());
    }
    for (i, (p, q)) in a.pixels.iter().zip(&b.pixels).enumerate() {
        for c in 0..4 {
            if !same_f32(p[c], q[c]) {
                return Some(format!(
                    "pixel {} (x {}, y {}) component {c}: interpreter {:?} ({:#010x}), compiled {:?} ({:#010x})",
                    i,
                    i as u32 % a.width,
                    i as u32 / a.width,
                    p[c],
                    p[c].to_bits(),
                    q[c],
                    q[c].to_bits()
                ));
            }
        }
    }
    None
}

fn run_scene(text: &str, exec: Exec) -> Result<SceneResult, String> {
    jit::set_default_exec(exec);
    let r = scene::parse(text, &Caps::default())
        .and_then(|s| scene::run(&s, &RunOptions::default()))
        .map_err(|e| e.to_string());
    jit::set_default_exec(Exec::Interp);
    r
}

/// Fragment programs of a scene that the compiler accepts / refuses.
fn count_kernels(text: &str, accepted: &mut usize, refused: &mut Vec<String>) {
    let Ok(sc) = scene::parse(text, &Caps::default()) else {
        return;
    };
    for (name, pair) in &sc.programs {
        if let Some(fp) = &pair.fragment {
            let Ok(k) = compile(&fp.program) else {
                continue;
            };
            match jit::compile(&k) {
                Ok(_) => *accepted += 1,
                Err(e) => refused.push(format!("{name}: {e}")),
            }
        }
    }
}

/// Runs a scene both ways and compares every target, the probes and the statistics.
fn compare_scene(name: &str, text: &str) -> Result<(), String> {
    let a = run_scene(text, Exec::Interp);
    let b = run_scene(text, Exec::Compiled);
    let (a, b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(x), Err(y)) if x == y => return Ok(()),
        (x, y) => {
            return Err(format!(
                "{name}: outcomes differ: {:?} / {:?}",
                x.err(),
                y.err()
            ));
        }
    };
    if a.stats != b.stats {
        return Err(format!(
            "{name}: statistics differ: {:?} / {:?}",
            a.stats, b.stats
        ));
    }
    for (t, img) in &a.targets {
        let other = b
            .targets
            .get(t)
            .ok_or(format!("{name}: target {t} missing"))?;
        if let Some(d) = image_diff(img, other) {
            return Err(format!("{name}: target {t}: {d}"));
        }
    }
    let pa: Vec<String> = a.probes.iter().map(|p| p.to_string()).collect();
    let pb: Vec<String> = b.probes.iter().map(|p| p.to_string()).collect();
    if pa != pb {
        return Err(format!("{name}: probes differ"));
    }
    Ok(())
}

fn check_files(files: &[PathBuf], what: &str) {
    let mut problems = Vec::new();
    let (mut accepted, mut refused) = (0, Vec::new());
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.display().to_string();
        count_kernels(&text, &mut accepted, &mut refused);
        if let Err(e) = compare_scene(&name, &text) {
            problems.push(e);
        }
    }
    println!(
        "{what}: {} files, {accepted} fragment kernels compiled, {} refused",
        files.len(),
        refused.len()
    );
    for r in &refused {
        println!("  refused {r}");
    }
    assert!(accepted > 0, "{what}: nothing was compiled");
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

#[test]
fn example_scenes_are_bit_identical() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = oracles::shader_tests(&root.join("scenes"));
    files.extend(oracles::shader_tests(&root.join("../../examples")));
    files.sort();
    assert!(files.len() >= 30, "{} example scenes", files.len());
    check_files(&files, "examples");
}

#[test]
fn piglit_probes_are_bit_identical() {
    let Some(root) = oracles::shared("corpus/piglit/tests/spec").filter(|p| p.is_dir()) else {
        oracles::skip("../shared/corpus/piglit is not next to the repository");
        return;
    };
    let files = oracles::shader_tests(&root);
    assert_eq!(files.len(), 80);
    check_files(&files, "piglit");
}

fn parse(src: &str) -> Program {
    hoist_asm::parse(src, &ParseOptions::default())
        .into_result()
        .unwrap_or_else(|d| panic!("{d:?}"))
}

const VP: &str = "!!ARBvp1.0\nMOV result.position, vertex.position;\n\
MOV result.texcoord[0], vertex.texcoord[0];\nEND\n";

fn both(fp: &str, cfg: &RenderConfig) -> (Image, Image) {
    let (vp, fp) = (parse(VP), parse(fp));
    let k = compile(&fp).unwrap();
    jit::compile(&k).unwrap_or_else(|e| panic!("refused: {e}"));
    let mut c = cfg.clone();
    c.exec = Exec::Interp;
    let a = render(Some(&vp), Some(&fp), &c).unwrap();
    c.exec = Exec::Compiled;
    let b = render(Some(&vp), Some(&fp), &c).unwrap();
    assert_eq!(a.stats, b.stats);
    (a.image, b.image)
}

/// Edge values (±0, ±1, ±inf, NaN, denormals, huge) through every arithmetic operation of
/// ARB fragment programs, including `_SAT`, write masks and swizzled aliasing.
#[test]
fn edge_values_through_every_operation_are_bit_identical() {
    let edges = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -1e-40,
        3.4e38,
        -3.4e38,
        1e-3,
    ];
    let ops = [
        "ADD", "SUB", "MUL", "MAX", "MIN", "SGE", "SLT", "DP3", "DP4", "DPH", "XPD", "DST",
    ];
    let unary = [
        "MOV", "ABS", "FLR", "FRC", "RCP", "RSQ", "EX2", "LG2", "SIN", "COS", "LIT", "SCS",
    ];
    let tri = ["MAD", "LRP", "CMP"];
    let mut programs = Vec::new();
    for op in ops {
        programs.push(format!("{op} r, a, b;\n{op}_SAT s, b.yxwz, -a;\n"));
    }
    for op in unary {
        let m = if op == "SCS" { ".xy" } else { "" };
        let scalar = !matches!(op, "MOV" | "ABS" | "FLR" | "FRC" | "LIT");
        let (x, y) = if scalar {
            ("a.y", "-b.w")
        } else {
            ("a", "-b.wzyx")
        };
        programs.push(format!("{op} r{m}, {x};\n{op}_SAT s{m}, {y};\n"));
    }
    programs.push("POW r, a.x, b.y;\nPOW_SAT s, b.z, -a.w;\n".into());
    programs
        .push("MOV r, a;\nMOV r.xy, r.yxzw;\nDST s, r, r.wzyx;\nXPD r.xyz, r.yzxw, r;\n".into());
    for op in tri {
        programs.push(format!(
            "{op} r, a, b, a.wzyx;\n{op}_SAT s.xz, -b, a, b.zzyx;\n"
        ));
    }
    let w = edges.len() as u32;
    let tex: Vec<[f32; 4]> = (0..w * w)
        .map(|i| {
            let (x, y) = ((i % w) as usize, (i / w) as usize);
            [
                edges[x],
                edges[y],
                edges[(x + y) % edges.len()],
                edges[(x * 3 + y) % edges.len()],
            ]
        })
        .collect();
    let t = Texture::new_2d(
        w,
        w,
        tex,
        TexFormat::Rgba32F,
        Sampler::new(Filter::Nearest, Wrap::ClampToEdge),
    );
    let mut cfg = RenderConfig {
        width: w,
        height: w,
        ..RenderConfig::default()
    };
    cfg.textures.insert(0, Arc::new(t));
    for body in programs {
        let fp = format!(
            "!!ARBfp1.0\nOPTION ARB_precision_hint_nicest;\nPARAM e[4] = {{ {{1,2,3,4}}, {{-0.0,5,6,7}}, {{8,9,10,11}}, {{12,13,14,15}} }};\n\
             TEMP a, b, r, s;\nTEX a, fragment.texcoord[0], texture[0], 2D;\n\
             MUL b, a.yzwx, {{-1.0, 0.5, 2.0, -0.0}};\n{body}ADD result.color, r, s;\nEND\n"
        );
        let (a, b) = both(&fp, &cfg);
        if let Some(d) = image_diff(&a, &b) {
            panic!("{fp}\n{d}");
        }
    }
}

/// Every texture mode, inline and general (mipmaps, projective, rectangle), with
/// coordinates far outside [0, 1].
#[test]
fn sampling_modes_are_bit_identical() {
    let fp = "!!ARBfp1.0\nTEMP a, b, c;\nMUL a, fragment.texcoord[0], {5.3, -3.7, 1, 1.5};\n\
              SUB a, a, {1.1, 0.9, 0, 0};\nTEX b, a, texture[0], 2D;\nTXP c, a, texture[0], 2D;\n\
              TXB a, a.yxzw, texture[0], 2D;\nADD b, b, c;\nMAD result.color, a, 0.5, b;\nEND\n";
    let (p, size) = pattern::parse_spec("noise:5@13x7").unwrap();
    let (w, h) = size.unwrap();
    let img = pattern::generate(&p, w, h);
    for filter in [Filter::Nearest, Filter::Linear] {
        for wrap in [Wrap::ClampToEdge, Wrap::Repeat] {
            for mip in [MipFilter::None, MipFilter::Linear] {
                let mut s = Sampler::new(filter, wrap);
                s.mip = mip;
                let mut t = Texture::new_2d(w, h, img.pixels.clone(), TexFormat::Rgba32F, s);
                if mip != MipFilter::None {
                    t.generate_mipmaps();
                }
                let mut cfg = RenderConfig {
                    width: 61,
                    height: 37,
                    ..RenderConfig::default()
                };
                cfg.textures.insert(0, Arc::new(t));
                let (a, b) = both(fp, &cfg);
                if let Some(d) = image_diff(&a, &b) {
                    panic!("{filter:?} {wrap:?} {mip:?}: {d}");
                }
            }
        }
    }
}

/// A refused kernel (flow control, or over the size cap) falls back to the interpreter and
/// renders the same image.
#[test]
fn refused_kernels_fall_back_to_the_interpreter() {
    let mut fp = parse(
        "!!ARBfp1.0\nTEMP a;\nMOV a, fragment.texcoord[0];\nMAD a, a, 0.5, 0.25;\nMOV result.color, a;\nEND\n",
    );
    let mad = fp.insts[1].clone();
    fp.insts
        .splice(1..2, std::iter::repeat_n(mad, jit::MAX_INSTS));
    let k = compile(&fp).unwrap();
    assert!(matches!(jit::compile(&k), Err(Refusal::TooLarge { .. })));
    let vp = parse(VP);
    let mut cfg = RenderConfig {
        width: 16,
        height: 16,
        ..RenderConfig::default()
    };
    let a = render(Some(&vp), Some(&fp), &cfg).unwrap();
    cfg.exec = Exec::Compiled;
    let b = render(Some(&vp), Some(&fp), &cfg).unwrap();
    assert_eq!(a, b);
    let flow = parse(
        "ps_3_0\ndefi i0, 3, 0, 1, 0\ndcl_texcoord0 v0\nmov r0, v0\nrep i0\nadd r0, r0, c0\nendrep\nmov oC0, r0\n",
    );
    let k = compile(&flow).unwrap();
    assert_eq!(jit::compile(&k).unwrap_err(), Refusal::Flow);
}

/// `module_for` generates a kernel's module once per thread and never hands one kernel's
/// module to another, even when they differ only in an immediate's sign of zero.
#[test]
fn modules_are_cached_by_kernel() {
    let src = |imm: &str| {
        format!(
            "!!ARBfp1.0\nTEMP a;\nMUL a, fragment.texcoord[0], {imm};\nRCP a.x, a.x;\nMOV result.color, a;\nEND\n"
        )
    };
    let (plus, minus) = (parse(&src("0.0")), parse(&src("-0.0")));
    let (kp, km) = (compile(&plus).unwrap(), compile(&minus).unwrap());
    let a = jit::module_for(&kp).unwrap();
    let b = jit::module_for(&compile(&plus).unwrap()).unwrap();
    assert!(
        std::sync::Arc::ptr_eq(&a, &b),
        "an unchanged kernel is generated again"
    );
    let c = jit::module_for(&km).unwrap();
    assert_ne!(a.wasm, c.wasm, "+0 and -0 kernels share a module");
    assert_eq!(c.wasm, jit::compile(&km).unwrap().wasm);
    let cfg = RenderConfig {
        width: 8,
        height: 8,
        ..RenderConfig::default()
    };
    for imm in ["0.0", "-0.0", "0.0"] {
        let (i, j) = both(&src(imm), &cfg);
        assert!(image_diff(&i, &j).is_none());
    }
    // The least recently used kernel leaves once the cache is full.
    for n in 0..jit::MODULE_CACHE_CAP {
        let p = parse(&format!(
            "!!ARBfp1.0\nTEMP a;\nMOV a, fragment.texcoord[0];\n{}MOV result.color, a;\nEND\n",
            ["ADD a, a, a;\n", "MUL a, a, a;\n"][n / 32].repeat(n % 32 + 1)
        ));
        jit::module_for(&compile(&p).unwrap()).unwrap();
    }
    let again = jit::module_for(&kp).unwrap();
    assert!(!std::sync::Arc::ptr_eq(&a, &again));
    assert_eq!(a.wasm, again.wasm);
    let flow = parse(
        "ps_3_0\ndefi i0, 3, 0, 1, 0\ndcl_texcoord0 v0\nmov r0, v0\nrep i0\nadd r0, r0, c0\nendrep\nmov oC0, r0\n",
    );
    assert_eq!(
        jit::module_for(&compile(&flow).unwrap()).unwrap_err(),
        Refusal::Flow
    );
}

/// Draws of one program with the texture edited between them, one after another on one
/// thread: later draws reuse an earlier draw's instance, and each must read its own texels.
#[test]
fn reused_instances_read_each_draws_own_texture() {
    let fp = "!!ARBfp1.0\nTEMP a;\nTEX a, fragment.texcoord[0], texture[0], 2D;\n\
              MAD result.color, a, 2, -0.5;\nEND\n";
    let (p, size) = pattern::parse_spec("noise:1@16x16").unwrap();
    let (w, h) = size.unwrap();
    let img = pattern::generate(&p, w, h);
    let s = Sampler::new(Filter::Nearest, Wrap::ClampToEdge);
    let mut cfg = RenderConfig {
        width: 16,
        height: 16,
        ..RenderConfig::default()
    };
    cfg.textures.insert(
        0,
        Arc::new(Texture::new_2d(w, h, img.pixels, TexFormat::Rgba32F, s)),
    );
    let mut last: Option<Image> = None;
    for round in 0..4 {
        let (a, b) = both(fp, &cfg);
        if let Some(d) = image_diff(&a, &b) {
            panic!("round {round}: {d}");
        }
        assert_ne!(
            last.as_ref(),
            Some(&b),
            "round {round}: the image did not change"
        );
        last = Some(b);
        // A pooled instance may hold the texture: the edit then copies it.
        let t = Arc::make_mut(cfg.textures.get_mut(&0).unwrap());
        for texel in &mut t.levels[0].texels {
            texel[0] = 1.0 - texel[0];
            texel[2] *= 0.5;
        }
    }
}

fn test_clock() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1e3
}

/// With costs set (the page's worker), a draw whose kernel is not loaded is compiled only
/// when the predicted saving pays for making the module: a small quad is interpreted, a
/// large one compiled, both with the pixels and counters of the other executor; every
/// decision is recorded with the work predicted (half of each triangle's bounding box: the
/// quad's area exactly), the module made is timed, and so is the shading, under the
/// executor that did it.
#[test]
fn the_prediction_interprets_small_draws_and_compiles_large_ones() {
    use hoist_raster::jit::choose::{self, Costs};
    let fp = "!!ARBfp1.0\nTEMP a;\nMUL a, fragment.texcoord[0], 0.75;\nMAD a, a, a, 0.125;\n\
              RSQ a.w, a.x;\nMOV result.color, a;\nEND\n";
    let insts = compile(&parse(fp)).unwrap().insts.len();
    let costs = Costs {
        interp_ns: 30.0,
        compiled_ns: 10.0,
        make_ms: 4.0,
        make_ms_per_inst: 1.0,
    };
    for (side, compiled) in [(16u32, false), (1024, true)] {
        let cfg = RenderConfig {
            width: side,
            height: side,
            ..RenderConfig::default()
        };
        let (interp, always) = both(fp, &cfg);
        choose::set_costs(Some(costs));
        choose::set_clock(Some(test_clock));
        choose::take_choices();
        choose::take_made();
        choose::take_shaded();
        let mut c = cfg.clone();
        c.exec = Exec::Compiled;
        let (vp, p) = (parse(VP), parse(fp));
        let chosen = render(Some(&vp), Some(&p), &c).unwrap();
        let shaded = choose::take_shaded();
        choose::set_costs(None);
        choose::set_clock(None);
        // The shading is timed and counted under the executor that did it.
        let fi = chosen.stats.fragment_instructions as f64;
        assert!(fi > 0.0);
        let (by, other) = if compiled { (1, 0) } else { (0, 1) };
        assert_eq!(shaded[by].0, fi, "{side}²: {shaded:?}");
        assert!(shaded[by].1 >= 0.0);
        assert_eq!(shaded[other], (0.0, 0.0), "{side}²: {shaded:?}");
        assert!(image_diff(&interp, &chosen.image).is_none());
        assert!(image_diff(&always, &chosen.image).is_none());
        let ch = choose::take_choices();
        assert_eq!(ch.len(), 1, "{side}²: {ch:?}");
        let work = f64::from(side * side) * insts as f64;
        assert_eq!(ch[0].work, work);
        assert_eq!(ch[0].compile, compiled, "{side}²: {ch:?}");
        assert_eq!(ch[0].make_ms, costs.make(insts));
        // The large draw counts the small one's interpreted work (the same kernel).
        let before = if compiled { 256.0 * insts as f64 } else { 0.0 };
        assert_eq!(ch[0].before, before);
        assert_eq!(ch[0].saving_ms, costs.saving(before + work));
        let made = choose::take_made();
        if compiled {
            assert_eq!(made.len(), 1);
            assert_eq!(made[0].0, insts);
            assert!(made[0].1 >= 0.0);
        } else {
            assert!(made.is_empty());
            assert!(ch[0].reason().starts_with("predicted faster"));
        }
    }
}

/// A module compiled for a unit's mode (`abi::Modes`) runs only batches staged with that
/// mode: bound to a texture of another mode, the batch is interpreted and gives the
/// interpreter's result, where the compiled path would have sampled the other way.
#[test]
fn a_module_compiled_for_other_modes_interprets_the_batch() {
    use hoist_raster::compile::LANES;
    use hoist_raster::exec::{ExecEnv, Machine};
    use hoist_raster::jit::abi;
    let fp = parse("!!ARBfp1.0\nTEX result.color, fragment.texcoord[0], texture[0], 2D;\nEND\n");
    let k = compile(&fp).unwrap();
    let img = pattern::generate(&pattern::parse_spec("noise:3@9x5").unwrap().0, 9, 5);
    let tex = |f| {
        Texture::new_2d(
            9,
            5,
            img.pixels.clone(),
            TexFormat::Rgba32F,
            Sampler::new(f, Wrap::Repeat),
        )
    };
    let (nearest, linear) = (tex(Filter::Nearest), tex(Filter::Linear));
    let run = |t: &Texture, with: Option<&abi::Modes>| {
        let textures = [Some(t)];
        let env = ExecEnv {
            consts: &[],
            textures: &textures,
            shared_textures: &[],
            int_consts: &[],
            bool_consts: &[],
            quads: true,
            max_loop_iterations: 255,
            max_call_depth: 8,
            max_batch_instructions: 1 << 22,
        };
        let mut m = Machine::new(&k);
        m.reset(&k);
        let row = k.inputs[0].1 as usize;
        for l in 0..LANES {
            m.regs[row][l] = 0.013 * l as f32 + 0.05;
            m.regs[row + 1][l] = 0.37 - 0.011 * l as f32;
        }
        match with {
            Some(modes) => jit::prepare_with(&k, modes)
                .unwrap_or_else(|e| panic!("refused: {e}"))
                .run(&mut m, &k, &env, &[true; LANES]),
            None => m.run(&k, &env, &[true; LANES]),
        }
        let out = k.outputs[0].1 as usize;
        (0..4).map(|c| m.regs[out + c].to_vec()).collect::<Vec<_>>()
    };
    let for_nearest = abi::modes_for(&k, &[Some(&nearest)]);
    assert_eq!(for_nearest[0], abi::MODE_NEAREST_REPEAT);
    assert_ne!(
        run(&nearest, None),
        run(&linear, None),
        "the two modes must differ here"
    );
    assert_eq!(run(&nearest, Some(&for_nearest)), run(&nearest, None));
    assert_eq!(run(&linear, Some(&for_nearest)), run(&linear, None));
}

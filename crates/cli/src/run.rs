//! `hoist run SCENE...`: execute scene files (piglit shader_runner format plus Hoist's
//! extensions, see crates/raster/SCENES.md; GLSL `[vertex shader]`/`[fragment shader]` and
//! `[wgsl]` sections are compiled through `hoist_front::scene`), print one line per probe
//! and a final `N passed, M failed`.

use crate::util;
use hoist_raster::image::{self, ToRgba8};
use hoist_raster::scene::{self, Command, RunOptions, TexSource};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  hoist run tests/spec/arb_vertex_program/*.shader_test\n  \
hoist run --out blur.png examples/gauss.scene\n\n\
`texture image UNIT NAME` loads NAME (PNG or PFM) relative to the scene file.\n\
Exit status: 0 when every probe passed, 1 when a probe failed or a scene has an error, 2 on a usage error."
)]
pub struct Args {
    /// Scene files
    #[arg(required = true)]
    scenes: Vec<PathBuf>,
    /// Probe tolerance (default: piglit's 3/256 on RGBA8 targets, 0.01 on float targets)
    #[arg(long)]
    tolerance: Option<f32>,
    /// Write the final window (or the target named by --target) of the last scene: .pfm or .png
    #[arg(long)]
    out: Option<PathBuf>,
    /// Target written by --out
    #[arg(long, default_value = "window")]
    target: String,
    /// Print only failures and the summary
    #[arg(short, long)]
    quiet: bool,
    /// Print statistics per scene
    #[arg(long)]
    stats: bool,
    /// Executor: `compiled` (wasm SIMD kernels run by wasmtime, the interpreter where the
    /// compiler refuses) or `interp`
    #[arg(long, default_value = "compiled", value_parser = util::parse_exec)]
    exec: hoist_raster::jit::Exec,
}

pub fn run(args: Args) -> u8 {
    let (mut passed, mut failed, mut errors) = (0usize, 0usize, 0usize);
    let mut last = None;
    hoist_raster::jit::set_default_exec(args.exec);
    for path in &args.scenes {
        let name = path.display().to_string();
        let text = match util::read_source(path) {
            Ok(t) => t,
            Err(e) => {
                util::error(e);
                errors += 1;
                continue;
            }
        };
        let mut opts = RunOptions {
            tolerance: args.tolerance,
            ..RunOptions::default()
        };
        // Scenes with GLSL/WGSL sections are compiled first (hoist_front::scene).
        let sc = match hoist_front::scene::parse(&text, &opts.caps, &Default::default()) {
            Ok(p) => p.scene,
            Err(diags) => {
                eprint!(
                    "{}",
                    hoist_asm::diag::render(&diags, &name, &text, util::stderr_color())
                );
                errors += 1;
                continue;
            }
        };
        let dir = path.parent().map(PathBuf::from).unwrap_or_default();
        let mut load_failed = false;
        for (line, c) in &sc.commands {
            if let Command::Texture(_, TexSource::Image(img), _) = c {
                if opts.images.contains_key(img) {
                    continue;
                }
                match std::fs::read(dir.join(img)) {
                    Ok(b) => {
                        opts.images.insert(img.clone(), b);
                    }
                    Err(e) => {
                        eprintln!("{name}: error: line {line}: cannot read {img}: {e}");
                        load_failed = true;
                    }
                }
            }
        }
        if load_failed {
            errors += 1;
            continue;
        }
        match scene::run(&sc, &opts) {
            Ok(r) => {
                for p in &r.probes {
                    if p.pass {
                        passed += 1;
                    } else {
                        failed += 1;
                    }
                    if !args.quiet || !p.pass {
                        println!("{name}: {p}");
                    }
                }
                if args.stats {
                    let s = &r.stats;
                    println!(
                        "{name}: {} draws, {} vertex invocations, {} fragment invocations, {} fragment instructions, {} killed",
                        s.draws,
                        s.vertex_invocations,
                        s.fragment_invocations,
                        s.fragment_instructions,
                        s.fragments_killed
                    );
                }
                last = Some(r);
            }
            Err(e) => {
                eprintln!("{name}: error: {e}");
                errors += 1;
            }
        }
    }
    if let (Some(out), Some(r)) = (&args.out, &last) {
        match r.targets.get(&args.target) {
            Some(img) => {
                let png = out
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("png"));
                let bytes = if png {
                    image::encode_png(img, &ToRgba8::default())
                } else {
                    Ok(image::encode_pf4(img))
                };
                match bytes.map(|b| std::fs::write(out, b).map_err(|e| e.to_string())) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) | Err(e) => {
                        util::error(format!("cannot write {}: {e}", out.display()));
                        errors += 1;
                    }
                }
            }
            None => {
                util::error(format!("no target named `{}`", args.target));
                errors += 1;
            }
        }
    }
    if errors > 0 {
        println!("{errors} scene(s) with errors");
    }
    println!("{passed} passed, {failed} failed");
    u8::from(failed > 0 || errors > 0)
}

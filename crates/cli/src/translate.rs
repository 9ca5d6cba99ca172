//! `hoist translate --to wgsl|glsl --vp F --fp F [--json]`: a program pair (either dialect)
//! as the shaders a GPU runs, through `hoist_gpu`: one WGSL module for WebGPU (entry points
//! `vs` and `fs`) or a GLSL ES 3.00 vertex and fragment shader for WebGL2, with the binding
//! table and the semantic differences that apply. The interface is for scripts: keep it.

use crate::util;
use hoist_asm::{ParseOptions, Program};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  hoist translate --to wgsl --vp examples/paper/gauss13.vp --fp examples/paper/gauss13.fp\n  \
hoist translate --to glsl --vp a.vsh --fp a.psh --json\n\n\
Programs are parsed with the executor's limits (as scenes are), so whatever `hoist run`\n\
runs translates; an empty file is fixed function for its stage, as in scenes. The\n\
shaders compute what the executor computes, instruction by instruction\n\
(docs/gpu-translation.md says where a GPU cannot match it exactly).\n\n\
Text: the shaders, each after a marker line `// ==== <stage> shader (<language>) ====`\n\
(WGSL: one module holding both stages, marked once for each).\n\n\
JSON (--json): one object with `language` (wgsl|glsl), `shaders` (an array of `stage`,\n\
`entry_point`, `source`; WGSL's two entries hold the same module), `bindings` (`attributes`:\n\
location and semantic; `varyings`: location and semantic; `uniforms`: name, group, binding,\n\
bytes, glsl (block names), slots (per constant slot: source literal|env|local|state|zero,\n\
index, value, state); `textures`: unit, target, view, stages, group, texture and sampler\n\
bindings, glsl (sampler uniform names)), `differences` (id and what, for this pair),\n\
`vertex` and `fragment` (file, profile or `fixed function`).\n\n\
Exit status: 0 on success, 1 when a program has errors or cannot be translated, 2 on a\n\
usage error."
)]
pub struct Args {
    /// Target language: wgsl (WebGPU) or glsl (GLSL ES 3.00, WebGL2)
    #[arg(long, value_parser = ["wgsl", "glsl"])]
    to: String,
    /// Vertex program (ARB or D3D9; `-` reads standard input)
    #[arg(long)]
    vp: PathBuf,
    /// Fragment program (ARB or D3D9)
    #[arg(long)]
    fp: PathBuf,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Shader<'a> {
    stage: &'static str,
    entry_point: &'static str,
    source: &'a str,
}

#[derive(Serialize)]
struct ProgramJson {
    file: String,
    profile: String,
}

#[derive(Serialize)]
struct Json<'a> {
    language: &'a str,
    shaders: Vec<Shader<'a>>,
    bindings: &'a hoist_gpu::Bindings,
    differences: &'a [hoist_gpu::Difference],
    vertex: ProgramJson,
    fragment: ProgramJson,
}

/// The program in `path`; `None` for an empty file (fixed function, as in scenes).
fn load(path: &std::path::Path) -> Result<Option<Program>, u8> {
    let src = util::read_source(path).map_err(|e| {
        util::error(e);
        1u8
    })?;
    if src.trim().is_empty() {
        return Ok(None);
    }
    let name = path.display().to_string();
    let profile = hoist_asm::detect_profile(&src);
    let opts = ParseOptions {
        profile,
        limits: profile.map(hoist_raster::scene::executor_limits),
    };
    util::parse_program(&src, &name, &opts).map(Some)
}

fn program_json(path: &std::path::Path, p: Option<&Program>) -> ProgramJson {
    ProgramJson {
        file: path.display().to_string(),
        profile: p.map_or("fixed function".to_string(), |p| p.profile.to_string()),
    }
}

pub fn run(a: Args) -> u8 {
    let (vp, fp) = match (load(&a.vp), load(&a.fp)) {
        (Ok(v), Ok(f)) => (v, f),
        _ => return 1,
    };
    let t = match hoist_gpu::translate(vp.as_ref(), fp.as_ref(), &hoist_gpu::Options::default()) {
        Ok(t) => t,
        Err(e) => {
            util::error(format!("cannot translate: {e}"));
            return 1;
        }
    };
    let glsl = a.to == "glsl";
    let shaders = if glsl {
        vec![
            Shader {
                stage: "vertex",
                entry_point: "main",
                source: &t.glsl_vs,
            },
            Shader {
                stage: "fragment",
                entry_point: "main",
                source: &t.glsl_fs,
            },
        ]
    } else {
        vec![
            Shader {
                stage: "vertex",
                entry_point: "vs",
                source: &t.wgsl,
            },
            Shader {
                stage: "fragment",
                entry_point: "fs",
                source: &t.wgsl,
            },
        ]
    };
    let out = if a.json {
        let j = Json {
            language: &a.to,
            shaders,
            bindings: &t.bindings,
            differences: &t.differences,
            vertex: program_json(&a.vp, vp.as_ref()),
            fragment: program_json(&a.fp, fp.as_ref()),
        };
        match serde_json::to_string_pretty(&j) {
            Ok(s) => s + "\n",
            Err(e) => {
                util::error(format!("cannot write JSON: {e}"));
                return 1;
            }
        }
    } else if glsl {
        format!(
            "// ==== vertex shader (GLSL ES 3.00) ====\n{}\n// ==== fragment shader (GLSL ES 3.00) ====\n{}",
            t.glsl_vs, t.glsl_fs
        )
    } else {
        format!(
            "// ==== vertex shader (WGSL, entry point vs) ====\n\
             // ==== fragment shader (WGSL, entry point fs) ====\n{}",
            t.wgsl
        )
    };
    if util::write_stdout(&out) { 0 } else { 1 }
}

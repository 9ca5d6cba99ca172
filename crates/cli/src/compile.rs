//! `hoist compile`: a WGSL module or a GLSL vertex + fragment pair to ARB or D3D9 assembly
//! through `hoist_front` (naga), with the binding table and per-instruction source spans.
//! [`Source`] is the `--wgsl`/`--glsl-vs`/`--glsl-fs` input `hoist opt` and `hoist render`
//! share: the compiled pair is written to a temporary directory and read as `--vp`/`--fp`.

use crate::util;
use clap::Parser;
use hoist_asm::Dialect;
use hoist_front::{Compiled, Options, SourceId};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    after_help = "Examples:\n  hoist compile examples/wgsl/uv-transform.wgsl\n  \
hoist compile --glsl-vs a.vert --glsl-fs a.frag --dialect d3d9 --json\n  \
hoist compile shader.wgsl --vertex vs_main --fragment fs_main --target nv40 --out-vp a.vp --out-fp a.fp\n\n\
JSON (--json): one object with `vp`, `fp` (program text), `dialect` (arb|d3d9), `target`,\n\
`bindings` (rows: kind, stage, name, source, register, detail; uniforms with slots and byte\n\
offsets; textures with units; attributes; notes) and `spans` (`vp`/`fp`: per instruction\n\
its index, assembly line, source, byte range and 1-based line/column).\n\n\
Exit status: 0 on success, 1 when the source has errors or cannot lower, 2 on a usage error."
)]
pub struct Args {
    /// WGSL module with a @vertex and a @fragment entry point
    #[arg(required_unless_present_all = ["glsl_vs", "glsl_fs"], conflicts_with_all = ["glsl_vs", "glsl_fs"])]
    file: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
    /// ARB target whose limits the programs must fit: r300, nv40 or g80 (default: the
    /// smallest that fits; ignored, with a warning, for --dialect d3d9)
    #[arg(long, value_parser = util::parse_target)]
    target: Option<hoist_asm::ArbTarget>,
    /// GLSL vertex shader (Vulkan 440/450, or GLSL ES 1.00/3.00, desktop 1.10-1.50)
    #[arg(long, requires = "glsl_fs")]
    glsl_vs: Option<PathBuf>,
    /// GLSL fragment shader
    #[arg(long, requires = "glsl_vs")]
    glsl_fs: Option<PathBuf>,
    /// Write the vertex program here instead of printing it
    #[arg(long)]
    out_vp: Option<PathBuf>,
    /// Write the fragment program here instead of printing it
    #[arg(long)]
    out_fp: Option<PathBuf>,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

/// Options shared with the front-end inputs of `opt` and `render`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Common {
    /// WGSL vertex entry point (when the module has several)
    #[arg(long)]
    vertex: Option<String>,
    /// WGSL fragment entry point (when the module has several)
    #[arg(long)]
    fragment: Option<String>,
    /// Output dialect: arb (straight-line code) or d3d9 (vs_3_0/ps_3_0, real loops); default:
    /// arb when the pair lowers to straight-line code, else d3d9
    #[arg(long, value_parser = ["arb", "d3d9"])]
    dialect: Option<String>,
}

/// `--wgsl` / `--glsl-vs` / `--glsl-fs` for `opt` and `render`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Source {
    /// A WGSL module instead of --vp/--fp (compiled with `hoist compile`'s rules)
    #[arg(long, conflicts_with_all = ["vp", "fp", "glsl_vs", "glsl_fs"])]
    pub wgsl: Option<PathBuf>,
    /// A GLSL vertex shader instead of --vp (with --glsl-fs)
    #[arg(long, requires = "glsl_fs", conflicts_with_all = ["vp", "fp"])]
    pub glsl_vs: Option<PathBuf>,
    /// A GLSL fragment shader instead of --fp (with --glsl-vs)
    #[arg(long, requires = "glsl_vs", conflicts_with_all = ["vp", "fp"])]
    pub glsl_fs: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

impl Source {
    pub fn given(&self) -> bool {
        self.wgsl.is_some() || self.glsl_vs.is_some()
    }

    /// Compiles the source and writes the pair to a temporary directory: (vp, fp) paths.
    pub fn to_files(&self, target: Option<hoist_asm::ArbTarget>) -> Result<(PathBuf, PathBuf), u8> {
        let c = compile_any(
            self.wgsl.as_deref(),
            self.glsl_vs.as_deref(),
            self.glsl_fs.as_deref(),
            &self.common,
            target,
        )?;
        let dir = std::env::temp_dir().join(format!("hoist-front-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| {
            util::error(format!("cannot create {}: {e}", dir.display()));
            1
        })?;
        let stem = self
            .wgsl
            .as_deref()
            .or(self.glsl_vs.as_deref())
            .and_then(Path::file_stem)
            .map_or("compiled".into(), |s| s.to_string_lossy().into_owned());
        let ext = if c.dialect == Dialect::Arb {
            ("vp", "fp")
        } else {
            ("vsh", "psh")
        };
        let vp = dir.join(format!("{stem}.{}", ext.0));
        let fp = dir.join(format!("{stem}.{}", ext.1));
        for (p, t) in [(&vp, &c.vp), (&fp, &c.fp)] {
            std::fs::write(p, t).map_err(|e| {
                util::error(format!("cannot write {}: {e}", p.display()));
                1
            })?;
        }
        Ok((vp, fp))
    }
}

fn compile_any(
    wgsl: Option<&Path>,
    vs: Option<&Path>,
    fs: Option<&Path>,
    common: &Common,
    target: Option<hoist_asm::ArbTarget>,
) -> Result<Compiled, u8> {
    let opts = Options {
        vertex: common.vertex.clone(),
        fragment: common.fragment.clone(),
        dialect: common.dialect.as_deref().map(|d| {
            if d == "d3d9" {
                Dialect::D3d9
            } else {
                Dialect::Arb
            }
        }),
        target,
        ..Options::default()
    };
    let read = |p: &Path| {
        util::read_source(p).map_err(|e| {
            util::error(e);
            2u8
        })
    };
    let (result, sources) = match (wgsl, vs, fs) {
        (Some(w), _, _) => {
            let s = read(w)?;
            (
                hoist_front::compile_wgsl(&s, &opts),
                vec![(SourceId::Wgsl, w.to_path_buf(), s)],
            )
        }
        (None, Some(v), Some(f)) => {
            let (a, b) = (read(v)?, read(f)?);
            (
                hoist_front::compile_glsl(&a, &b, &opts),
                vec![
                    (SourceId::GlslVertex, v.to_path_buf(), a),
                    (SourceId::GlslFragment, f.to_path_buf(), b),
                ],
            )
        }
        _ => {
            util::error("give a WGSL file or both --glsl-vs and --glsl-fs");
            return Err(2);
        }
    };
    result.map_err(|e| {
        let (_, path, text) = sources
            .iter()
            .find(|(id, _, _)| *id == e.source)
            .unwrap_or(&sources[0]);
        eprint!(
            "{}",
            hoist_asm::diag::render(
                &e.diagnostics,
                &path.display().to_string(),
                text,
                util::stderr_color()
            )
        );
        1
    })
}

pub fn run(args: Args) -> u8 {
    match run_inner(&args) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

fn run_inner(args: &Args) -> Result<(), u8> {
    let c = compile_any(
        args.file.as_deref(),
        args.glsl_vs.as_deref(),
        args.glsl_fs.as_deref(),
        &args.common,
        args.target,
    )?;
    if let Some(t) = args.target
        && c.dialect == Dialect::D3d9
    {
        eprintln!(
            "warning: --target {t} does not apply to D3D9 programs (vs_3_0/ps_3_0 fix their own limits)"
        );
    }
    for (p, t) in [(&args.out_vp, &c.vp), (&args.out_fp, &c.fp)] {
        if let Some(p) = p {
            std::fs::write(p, t).map_err(|e| {
                util::error(format!("cannot write {}: {e}", p.display()));
                1
            })?;
        }
    }
    if args.json {
        let v = serde_json::json!({
            "vp": c.vp,
            "fp": c.fp,
            "dialect": if c.dialect == Dialect::Arb { "arb" } else { "d3d9" },
            "target": c.target,
            "bindings": c.bindings,
            "spans": c.spans,
        });
        util::write_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
        return Ok(());
    }
    let mut out = String::new();
    if args.out_vp.is_none() {
        out.push_str(&c.vp);
        out.push('\n');
    }
    if args.out_fp.is_none() {
        out.push_str(&c.fp);
        out.push('\n');
    }
    out.push_str(&table(&c));
    util::write_stdout(&out);
    Ok(())
}

/// The binding table as text.
fn table(c: &Compiled) -> String {
    let mut s = String::from("bindings:\n");
    for r in &c.bindings.rows {
        s.push_str(&format!(
            "  {:<9} {:<8} {:<24} {:<24} {}",
            r.kind, r.stage, r.name, r.source, r.register
        ));
        if !r.detail.is_empty() {
            s.push_str(&format!("  ({})", r.detail));
        }
        s.push('\n');
    }
    for n in &c.bindings.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

//! `hoist render`: render one vertex/fragment program pair to an image, with the same
//! options (names, meanings, defaults, texture patterns) and the same PF4 output as arbref,
//! so one command line runs on both and the images compare directly.

use crate::util;
use hoist_asm::ir::TexTarget;
use hoist_asm::ir::{parse_unit, sampler_index, unit_name};
use hoist_raster::image::{self, ToRgba8};
use hoist_raster::job::RenderJob;
use hoist_raster::pattern;
use hoist_raster::raster::CompiledProgram;
use hoist_raster::texture::{self, Storage, TexShape};
use hoist_raster::{Filter, Geometry, RenderConfig, Sampler, TexFormat, Texture, Wrap};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
hoist render --vp conv3.vp --fp conv3.fp --size 512x512 --local-fp 0 0.001953125,0,0,0 \\\n      \
--texture 0 noise:1@512x512 --out a.pfm\n  \
hoist render --vp fig3.vsh --fp fig3.psh --env-fp 3 -256,0,0,0 --texture 0 gradient --out b.png\n\n\
Textures: checker[:CELL] | gradient | noise:SEED | rgbw | FILE.pfm | FILE.png, optional @WxH;\n\
--texture-target makes a unit's image a 1D, 3D, cube or rectangle texture as arbref does;\n\
a unit sampled through a shadow target is a depth texture with compare LEQUAL unless\n\
--texture-format says otherwise.\n\
Output: .pfm writes PF4 (RGBA float32 little-endian, rows bottom-to-top), .png writes RGBA8.\n\
Exit status: 0 on success, 1 on a program or render error, 2 on a usage error.")]
pub struct Args {
    /// Vertex program (ARB or D3D9 vs_*); fixed function when left out
    #[arg(long)]
    pub(crate) vp: Option<PathBuf>,
    /// Fragment program (ARB or D3D9 ps_*); fixed function when left out
    #[arg(long)]
    pub(crate) fp: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) source: crate::compile::Source,
    /// Output image (.pfm = PF4, .png = RGBA8)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Render-target size
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    size: (u32, u32),
    #[arg(long, value_parser = util::parse_target, help = util::TARGET_HELP)]
    pub(crate) target: Option<hoist_asm::ArbTarget>,
    /// Texture for a unit: UNIT SPEC (repeatable; UNIT vsN is D3D9's vertex sampler N,
    /// which unit N's texture reaches when the pair comes from --wgsl or --glsl-vs/-fs)
    #[arg(long, num_args = 2, value_names = ["UNIT", "SPEC"], action = clap::ArgAction::Append)]
    texture: Vec<String>,
    /// Upload a unit's image as another target, texel for texel as arbref does:
    /// UNIT 1d|2d|3d|cube|rect (repeatable; rect always clamps)
    #[arg(long, num_args = 2, value_names = ["UNIT", "TARGET"], action = clap::ArgAction::Append)]
    texture_target: Vec<String>,
    /// Store a unit's texture as rgba32f, rgba8 or depth (compare LEQUAL): UNIT FORMAT
    /// (repeatable). By default a unit the programs sample through a shadow target
    /// (SHADOW1D/2D/RECT) is a depth texture of the image's red channel with compare
    /// LEQUAL, every other unit RGBA32F; `rgba32f` gives a shadow unit arbref's colour
    /// texture.
    #[arg(long, num_args = 2, value_names = ["UNIT", "FORMAT"], action = clap::ArgAction::Append)]
    texture_format: Vec<String>,
    /// Default size of generated textures
    #[arg(long, default_value = "256x256", value_parser = parse_size)]
    tex_size: (u32, u32),
    /// Texture filter for every texture: nearest or linear
    #[arg(long, default_value = "nearest")]
    filter: String,
    /// Wrap mode for every texture: clamp or repeat
    #[arg(long, default_value = "clamp")]
    wrap: String,
    /// Fragment program local parameter: N x,y,z,w (repeatable)
    #[arg(long, num_args = 2, value_names = ["N", "X,Y,Z,W"], action = clap::ArgAction::Append, allow_hyphen_values = true)]
    local_fp: Vec<String>,
    /// Vertex program local parameter: N x,y,z,w (repeatable)
    #[arg(long, num_args = 2, value_names = ["N", "X,Y,Z,W"], action = clap::ArgAction::Append, allow_hyphen_values = true)]
    local_vp: Vec<String>,
    /// Fragment env parameter (D3D9: constant c#): N x,y,z,w (repeatable)
    #[arg(long, num_args = 2, value_names = ["N", "X,Y,Z,W"], action = clap::ArgAction::Append, allow_hyphen_values = true)]
    env_fp: Vec<String>,
    /// Vertex env parameter (D3D9: constant c#): N x,y,z,w (repeatable)
    #[arg(long, num_args = 2, value_names = ["N", "X,Y,Z,W"], action = clap::ArgAction::Append, allow_hyphen_values = true)]
    env_vp: Vec<String>,
    /// Current colour (vertex.color), default 1,1,1,1
    #[arg(long, value_parser = parse_vec4, allow_hyphen_values = true)]
    color: Option<[f32; 4]>,
    /// Constant texcoord for unit N > 0: N x,y,z,w (unit 0 comes from the quad)
    #[arg(long, num_args = 2, value_names = ["N", "X,Y,Z,W"], action = clap::ArgAction::Append, allow_hyphen_values = true)]
    texcoord: Vec<String>,
    /// Clear colour before drawing (default 0,0,0,0)
    #[arg(long, value_parser = parse_vec4, allow_hyphen_values = true)]
    clear: Option<[f32; 4]>,
    /// GL_CLAMP_VERTEX_COLOR: on (GL default) or off
    #[arg(long, default_value = "on")]
    vertex_clamp: String,
    /// GL_CLAMP_FRAGMENT_COLOR: on or off (GL default for float targets)
    #[arg(long, default_value = "off")]
    fragment_clamp: String,
    /// Print one result pixel: x,y (origin bottom-left; repeatable)
    #[arg(long, value_parser = parse_xy, action = clap::ArgAction::Append)]
    probe: Vec<(u32, u32)>,
    /// Time N renders after one warm-up
    #[arg(long, default_value_t = 0)]
    repeat: u32,
    /// Accepted for arbref compatibility (the quad is always split like arbref's strip)
    #[arg(long)]
    quad: bool,
    /// PNG output: value range mapped to 0..255, lo,hi
    #[arg(long, value_parser = parse_range, default_value = "0,1", allow_hyphen_values = true)]
    png_range: (f32, f32),
    /// Less output
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// Executor: `compiled` (wasm SIMD kernels run by wasmtime, falling back to the
    /// interpreter for programs the compiler refuses) or `interp` (the reference interpreter)
    #[arg(long, default_value = "compiled", value_parser = crate::util::parse_exec)]
    exec: hoist_raster::jit::Exec,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    pattern::parse_size(s).ok_or_else(|| format!("`{s}` is not WxH"))
}

fn parse_vec4(s: &str) -> Result<[f32; 4], String> {
    let v = hoist_raster::scene::parse_floats(s)?;
    if v.len() != 4 {
        return Err(format!("expected x,y,z,w, got `{s}`"));
    }
    Ok([v[0], v[1], v[2], v[3]])
}

fn parse_xy(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("expected x,y, got `{s}`"))?;
    Ok((
        a.trim().parse().map_err(|_| format!("bad x in `{s}`"))?,
        b.trim().parse().map_err(|_| format!("bad y in `{s}`"))?,
    ))
}

fn parse_range(s: &str) -> Result<(f32, f32), String> {
    let v = hoist_raster::scene::parse_floats(s)?;
    if v.len() != 2 {
        return Err(format!("expected lo,hi, got `{s}`"));
    }
    Ok((v[0], v[1]))
}

/// C's `%.9g`.
pub fn fmt_g(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let s = format!("{v:.8e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-5..9).contains(&exp) {
        let m = mant.trim_end_matches('0').trim_end_matches('.');
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (8 - exp).max(0) as usize;
        let f = format!("{v:.decimals$}");
        if f.contains('.') {
            f.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            f
        }
    }
}

fn load_program(
    path: &Path,
    target: Option<hoist_asm::ArbTarget>,
) -> Result<hoist_asm::Program, String> {
    let src = util::read_source(path)?;
    let name = path.display().to_string();
    let opts = util::target_options(&src, &name, None, target);
    let mut parsed = hoist_asm::parse(&src, &opts);
    util::hint_target(
        &mut parsed.diagnostics,
        &src,
        None,
        target.unwrap_or_default(),
    );
    if !parsed.diagnostics.is_empty() && hoist_asm::diag::has_errors(&parsed.diagnostics) {
        eprint!(
            "{}",
            hoist_asm::diag::render(&parsed.diagnostics, &name, &src, util::stderr_color())
        );
    }
    parsed.into_result().map_err(|d| {
        format!(
            "{name}: {} error(s)",
            d.iter().filter(|d| d.is_error()).count()
        )
    })
}

fn pairs(v: &[String], what: &str) -> Result<Vec<(u16, [f32; 4])>, String> {
    v.chunks(2)
        .map(|c| {
            let n: u16 = c[0]
                .parse()
                .map_err(|_| format!("--{what}: `{}` is not an index", c[0]))?;
            let val = parse_vec4(c.get(1).map_or("", |s| s.as_str()))
                .map_err(|e| format!("--{what}: {e}"))?;
            Ok((n, val))
        })
        .collect()
}

fn texture_from_spec(
    spec: &str,
    default: (u32, u32),
    shape: TexShape,
    sampler: Sampler,
    caps: &hoist_raster::Caps,
) -> Result<Texture, String> {
    let lower = spec.to_ascii_lowercase();
    let img = if lower.ends_with(".pfm") || lower.ends_with(".png") {
        let bytes = std::fs::read(spec).map_err(|e| format!("cannot read {spec}: {e}"))?;
        let max = caps.max_texture_bytes / 16;
        if lower.ends_with(".png") {
            image::decode_png(&bytes, max)?
        } else {
            image::decode_pfm(&bytes, max)?
        }
    } else {
        let (p, size) = pattern::parse_spec(spec)?;
        let (w, h) = size.unwrap_or(default);
        caps.check_texture(w, h, 1).map_err(|e| e.to_string())?;
        pattern::generate(&p, w, h)
    };
    let (w, h, d) = shape.extent(img.width, img.height);
    caps.check_texture(w, h, d).map_err(|e| e.to_string())?;
    Ok(Texture::from_image(
        &img,
        shape,
        TexFormat::Rgba32F,
        sampler,
    ))
}

/// `--texture-format UNIT rgba32f|rgba8|depth` pairs, as the storage they ask for.
fn texture_formats(v: &[String]) -> Result<BTreeMap<u8, Storage>, String> {
    v.chunks(2)
        .map(|c| {
            let unit = parse_unit(&c[0]).ok_or_else(|| {
                format!(
                    "--texture-format: `{}` is not a unit (0..31, vs0..vs15)",
                    c[0]
                )
            })?;
            let (format, compare) = match c.get(1).map(|s| s.to_ascii_lowercase()).as_deref() {
                Some("rgba32f") => (TexFormat::Rgba32F, None),
                Some("rgba8") => (TexFormat::Rgba8, None),
                Some("depth") => (TexFormat::Depth, Some(texture::SUPPLIED_COMPARE)),
                other => {
                    return Err(format!(
                        "--texture-format: `{}` is not a format (rgba32f, rgba8 or depth)",
                        other.unwrap_or("")
                    ));
                }
            };
            Ok((unit, Storage { format, compare }))
        })
        .collect()
}

/// The first target each unit is sampled as, by unit, in the programs.
fn sampled_targets(programs: &[Option<&hoist_asm::Program>]) -> BTreeMap<u8, TexTarget> {
    let mut m = BTreeMap::new();
    for p in programs.iter().flatten() {
        for t in p.insts.iter().filter_map(|i| i.tex) {
            m.entry(t.unit).or_insert(t.target);
        }
    }
    m
}

/// `--texture-target UNIT 1d|2d|3d|cube|rect` pairs.
fn texture_targets(v: &[String]) -> Result<BTreeMap<u8, TexShape>, String> {
    v.chunks(2)
        .map(|c| {
            let unit = parse_unit(&c[0]).ok_or_else(|| {
                format!(
                    "--texture-target: `{}` is not a unit (0..31, vs0..vs15)",
                    c[0]
                )
            })?;
            let t = c.get(1).map_or("", |s| s.as_str());
            let shape = TexShape::from_name(t).ok_or_else(|| {
                format!("--texture-target: `{t}` is not a target (1d, 2d, 3d, cube or rect)")
            })?;
            Ok((unit, shape))
        })
        .collect()
}

/// A GLSL/WGSL source's texture unit is GL's, seen by both stages; compiled to D3D9, the
/// vertex shader's `sN` is unit 16 + N, which gets unit N's texture unless `--texture vsN`
/// gave it one.
fn share_vertex_samplers(
    textures: &mut BTreeMap<u8, Arc<Texture>>,
    vp: Option<&hoist_asm::Program>,
) {
    let Some(vp) = vp.filter(|p| p.dialect() == hoist_asm::Dialect::D3d9) else {
        return;
    };
    for t in vp.insts.iter().filter_map(|i| i.tex) {
        let gl = sampler_index(hoist_asm::Stage::Vertex, t.unit);
        if let Some(tex) = textures.get(&gl).cloned() {
            textures.entry(t.unit).or_insert(tex);
        }
    }
}

fn build(
    args: &Args,
) -> Result<
    (
        Option<CompiledProgram>,
        Option<CompiledProgram>,
        RenderConfig,
    ),
    String,
> {
    let (vp, fp, cfg) = build_parsed(args)?;
    let vp = vp
        .as_ref()
        .map(CompiledProgram::new)
        .transpose()
        .map_err(|e| e.to_string())?;
    let fp = fp
        .as_ref()
        .map(CompiledProgram::new)
        .transpose()
        .map_err(|e| e.to_string())?;
    Ok((vp, fp, cfg))
}

/// The programs as parsed and the draw the options describe.
#[allow(clippy::type_complexity)]
pub(crate) fn build_parsed(
    args: &Args,
) -> Result<
    (
        Option<hoist_asm::Program>,
        Option<hoist_asm::Program>,
        RenderConfig,
    ),
    String,
> {
    let load = |p: &Path| load_program(p, args.target);
    let vp = args.vp.as_deref().map(load).transpose()?;
    let fp = args.fp.as_deref().map(load).transpose()?;
    let mut cfg = RenderConfig {
        width: args.size.0,
        height: args.size.1,
        geometry: Geometry::Quad,
        exec: args.exec,
        ..RenderConfig::default()
    };
    cfg.caps
        .check_target(cfg.width, cfg.height)
        .map_err(|e| e.to_string())?;
    let filter = match args.filter.as_str() {
        "nearest" => Filter::Nearest,
        "linear" => Filter::Linear,
        f => return Err(format!("bad --filter `{f}` (nearest or linear)")),
    };
    let wrap = match args.wrap.as_str() {
        "clamp" => Wrap::ClampToEdge,
        "repeat" => Wrap::Repeat,
        w => return Err(format!("bad --wrap `{w}` (clamp or repeat)")),
    };
    let sampler = Sampler::new(filter, wrap);
    let shapes = texture_targets(&args.texture_target)?;
    let formats = texture_formats(&args.texture_format)?;
    let targets = sampled_targets(&[vp.as_ref(), fp.as_ref()]);
    for c in args.texture.chunks(2) {
        let unit = parse_unit(&c[0])
            .ok_or_else(|| format!("--texture: `{}` is not a unit (0..31, vs0..vs15)", c[0]))?;
        let spec = c.get(1).map_or("", |s| s.as_str());
        let shape = shapes.get(&unit).copied().unwrap_or_default();
        let sampler = match shape {
            TexShape::Rect => Sampler::new(filter, Wrap::ClampToEdge),
            _ => sampler,
        };
        let storage = formats.get(&unit).copied().unwrap_or_else(|| {
            let target = targets.get(&unit).copied().unwrap_or(TexTarget::T2D);
            texture::format_for_target(target, TexFormat::Rgba32F)
        });
        let t = texture_from_spec(spec, args.tex_size, shape, sampler, &cfg.caps)?;
        let mut t = storage.apply(t);
        if storage.format == TexFormat::Rgba8 {
            t.format = TexFormat::Rgba8;
            t.quantize();
        }
        if !args.quiet {
            let stored = match storage.format {
                TexFormat::Rgba32F => "RGBA32F".to_string(),
                TexFormat::Rgba8 => "RGBA8".to_string(),
                TexFormat::Depth => storage.describe().unwrap_or_default(),
            };
            println!(
                "texture {}: {spec} ({}x{} {stored}, {}, {})",
                unit_name(unit),
                t.levels[0].width,
                t.levels[0].height,
                args.filter,
                if wrap == Wrap::Repeat {
                    "repeat"
                } else {
                    "clamp_to_edge"
                }
            );
        }
        cfg.textures.insert(unit, Arc::new(t));
    }
    if args.source.given() {
        share_vertex_samplers(&mut cfg.textures, vp.as_ref());
    }
    for (n, v) in pairs(&args.local_fp, "local-fp")? {
        cfg.params.fragment.local.insert(n, v);
    }
    for (n, v) in pairs(&args.local_vp, "local-vp")? {
        cfg.params.vertex.local.insert(n, v);
    }
    for (n, v) in pairs(&args.env_fp, "env-fp")? {
        cfg.params.fragment.env.insert(n, v);
    }
    for (n, v) in pairs(&args.env_vp, "env-vp")? {
        cfg.params.vertex.env.insert(n, v);
    }
    for (n, v) in pairs(&args.texcoord, "texcoord")? {
        if n >= 8 {
            return Err(format!("--texcoord: unit {n} is out of range (0..7)"));
        }
        cfg.state.set_texcoord(n as usize, v);
    }
    if let Some(c) = args.color {
        cfg.state.set_color(c);
    }
    if let Some(c) = args.clear {
        cfg.clear = c;
    }
    cfg.state.vertex_clamp = args.vertex_clamp != "off";
    cfg.state.fragment_clamp = args.fragment_clamp == "on";
    Ok((vp, fp, cfg))
}

fn counts(label: &str, cp: &CompiledProgram) {
    let s = cp.program.slots();
    println!(
        "{label}: {} instructions={} slots={} (alu {} tex {} flow {})",
        cp.program.profile,
        cp.program.insts.len(),
        s.total(),
        s.alu,
        s.tex,
        s.flow
    );
}

pub fn run(mut args: Args) -> u8 {
    if args.source.given() {
        match args.source.to_files(args.target) {
            Ok((vp, fp)) => {
                args.vp = Some(vp);
                args.fp = Some(fp);
            }
            Err(code) => return code,
        }
    }
    let (vp, fp, cfg) = match build(&args) {
        Ok(x) => x,
        Err(e) => {
            util::error(e);
            return 1;
        }
    };
    if !args.quiet {
        println!(
            "backend: hoist-raster (software, {} threads)",
            rayon_threads()
        );
        if let Some(v) = &vp {
            counts("vertex program", v);
        }
        if let Some(f) = &fp {
            counts("fragment program", f);
        }
    }
    let vp = vp.map(Arc::new);
    let fp = fp.map(Arc::new);
    let render = || -> Result<hoist_raster::Rendered, hoist_raster::RenderError> {
        let mut job = RenderJob::with_compiled(vp.as_ref(), fp.as_ref(), &cfg)?;
        job.run_to_end();
        Ok(job.finish())
    };
    let out = match render() {
        Ok(r) => r,
        Err(e) => {
            util::error(e);
            return 1;
        }
    };
    if args.repeat > 0 {
        // One warm-up draw, then the same draw repeated into the same target, as arbref does.
        let mut job = match RenderJob::with_compiled(vp.as_ref(), fp.as_ref(), &cfg) {
            Ok(j) => j,
            Err(e) => {
                util::error(e);
                return 1;
            }
        };
        job.run_to_end();
        let t0 = Instant::now();
        for _ in 0..args.repeat {
            job.redraw();
            job.run_to_end();
        }
        let us = t0.elapsed().as_secs_f64() * 1e6;
        let per = us / f64::from(args.repeat);
        println!(
            "timing: {} draws of {}x{}, wall {:.1} us total, {:.2} us/draw ({:.1} Mpix/s)",
            args.repeat,
            cfg.width,
            cfg.height,
            us,
            per,
            f64::from(cfg.width) * f64::from(cfg.height) / per
        );
    }
    let img = &out.image;
    let st = img.stats();
    for (c, name) in ['R', 'G', 'B', 'A'].iter().enumerate() {
        println!(
            "image {name}: min {} max {} mean {}",
            fmt_g(f64::from(st.min[c])),
            fmt_g(f64::from(st.max[c])),
            fmt_g(st.mean[c])
        );
    }
    println!(
        "image: {}x{}, non-finite values {}, fnv1a64 {:016x}",
        img.width, img.height, st.nonfinite, st.fnv1a64
    );
    let s = &out.stats;
    if !args.quiet {
        println!(
            "stats: {} vertex invocations ({} instructions), {} fragment invocations ({} instructions, {} slots), {} killed",
            s.vertex_invocations,
            s.vertex_instructions,
            s.fragment_invocations,
            s.fragment_instructions,
            s.fragment_slots,
            s.fragments_killed
        );
    }
    for &(x, y) in &args.probe {
        if let Some(p) = img.get(x, y) {
            println!(
                "probe ({x},{y}): {} {} {} {}",
                fmt_g(f64::from(p[0])),
                fmt_g(f64::from(p[1])),
                fmt_g(f64::from(p[2])),
                fmt_g(f64::from(p[3]))
            );
        }
    }
    if let Some(path) = &args.out {
        let is_png = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        let bytes = if is_png {
            let m = ToRgba8 {
                lo: args.png_range.0,
                hi: args.png_range.1,
                ..ToRgba8::default()
            };
            match image::encode_png(img, &m) {
                Ok(b) => b,
                Err(e) => {
                    util::error(e);
                    return 1;
                }
            }
        } else {
            image::encode_pf4(img)
        };
        if let Err(e) = std::fs::write(path, bytes) {
            util::error(format!("cannot write {}: {e}", path.display()));
            return 1;
        }
        println!(
            "wrote {} ({})",
            path.display(),
            if is_png {
                "PNG: RGBA8, top row first"
            } else {
                "PF4: RGBA float32 little-endian, rows bottom-to-top"
            }
        );
    }
    0
}

fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn formats_like_printf_g9() {
        assert_eq!(fmt_g(0.5), "0.5");
        assert_eq!(fmt_g(1.0), "1");
        assert_eq!(fmt_g(0.1f32 as f64), "0.100000001");
        assert_eq!(fmt_g(123456789.0), "123456789");
        assert_eq!(fmt_g(1e-7), "1e-07");
        assert_eq!(fmt_g(3.4028234663852886e38), "3.40282347e+38");
    }
}

//! Small helpers shared by the subcommands: reading inputs, reporting errors, and the
//! `--target` option (ARB limits) with its hint.

use hoist_asm::{ArbTarget, Diagnostic, Dialect, ParseOptions, Profile, Program};
use hoist_raster::scene::{ProgramPair, Scene};
use std::io::IsTerminal;
use std::path::Path;

/// Reads a text file, or stdin for `-`. Errors are formatted for the user.
pub fn read_source(path: &Path) -> Result<String, String> {
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether stderr is a terminal (for coloured diagnostics).
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Prints `error: msg` to stderr.
pub fn error(msg: impl std::fmt::Display) {
    eprintln!("error: {msg}");
}

/// Writes to stdout; returns false when the reader went away (a broken pipe exits quietly).
pub fn write_stdout(s: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => false,
        Err(e) => {
            error(format!("cannot write to standard output: {e}"));
            false
        }
    }
}

/// The `--target` help, shared by `check`, `opt` and `render`.
pub const TARGET_HELP: &str = "ARB target whose limits ARB programs are held to: r300 \
(ATI Radeon 9700, the default), nv40 (GeForce 6800), g80 (GeForce 8800 / Mesa). D3D9 \
programs keep the limits their profile fixes: for them --target is ignored, with a warning";

pub fn parse_target(s: &str) -> Result<ArbTarget, String> {
    ArbTarget::from_id(s).ok_or_else(|| {
        let all: Vec<_> = ArbTarget::ALL.iter().map(|t| t.id()).collect();
        format!("unknown target `{s}` (expected one of: {})", all.join(", "))
    })
}

/// Warns when an explicit `--target` meets a D3D9 program, which it does not apply to.
pub fn warn_if_d3d9(target: Option<ArbTarget>, profile: Option<Profile>, name: &str) {
    if let (Some(t), Some(p)) = (target, profile)
        && p.dialect() == Dialect::D3d9
    {
        eprintln!(
            "warning: --target {t} does not apply to {name}: {p} fixes its own limits \
             (--target applies to ARB programs)"
        );
    }
}

/// The parse options for `source` under `target` (the default target when none was given),
/// warning when an explicit `--target` meets a D3D9 program, which it does not apply to.
pub fn target_options(
    source: &str,
    name: &str,
    profile: Option<Profile>,
    target: Option<ArbTarget>,
) -> ParseOptions {
    warn_if_d3d9(
        target,
        profile.or_else(|| hoist_asm::detect_profile(source)),
        name,
    );
    ParseOptions {
        profile,
        limits: None,
    }
    .with_target(source, target.unwrap_or_default())
}

/// Adds to each E0301 (over an instruction limit) the smallest ARB target above `target`
/// that the program fits under, when there is one.
pub fn hint_target(
    diags: &mut [Diagnostic],
    source: &str,
    profile: Option<Profile>,
    target: ArbTarget,
) {
    if !diags
        .iter()
        .any(|d| d.code == hoist_asm::Code::TARGET_LIMIT)
    {
        return;
    }
    if let Some(t) = hoist_asm::fitting_target(source, profile, target) {
        for d in diags
            .iter_mut()
            .filter(|d| d.code == hoist_asm::Code::TARGET_LIMIT)
        {
            d.hint = Some(format!("fits under --target {t} ({})", t.name()));
        }
    }
}

/// Parses `source` with `opts`, printing its diagnostics to stderr; `Err(1)` when it has
/// errors.
pub fn parse_program(source: &str, name: &str, opts: &ParseOptions) -> Result<Program, u8> {
    let parsed = hoist_asm::parse(source, opts);
    if !parsed.diagnostics.is_empty() {
        eprint!(
            "{}",
            hoist_asm::diag::render(&parsed.diagnostics, name, source, stderr_color())
        );
    }
    parsed.into_result().map_err(|_| 1)
}

/// A scene file's text parsed (GLSL/WGSL sections compiled through `hoist_front::scene`),
/// with the vertex/fragment pair it optimizes (`[optimize]`, or its only pair). Errors are
/// reported here.
pub fn scene_pair(name: &str, text: &str) -> Result<(Scene, ProgramPair), u8> {
    let caps = hoist_raster::Caps::default();
    let sc = hoist_front::scene::parse(text, &caps, &hoist_front::Options::default())
        .map_err(|d| {
            eprint!(
                "{}",
                hoist_asm::diag::render(&d, name, text, stderr_color())
            );
            1u8
        })?
        .scene;
    let pair = sc
        .programs
        .get(sc.optimize_target())
        .cloned()
        .unwrap_or_default();
    Ok((sc, pair))
}

/// `--exec interp|compiled`.
pub fn parse_exec(s: &str) -> Result<hoist_raster::jit::Exec, String> {
    match s {
        "interp" => Ok(hoist_raster::jit::Exec::Interp),
        "compiled" => Ok(hoist_raster::jit::Exec::Compiled),
        _ => Err(format!("`{s}` is not interp or compiled")),
    }
}

//! The fuzz bodies (cargo-fuzz targets `front_wgsl` and `front_glsl` call them; the tests
//! replay `fuzz/regressions/<target>` through them): any text compiles or fails with
//! diagnostics, never a panic; what compiles parses back, under both dialects, with every
//! span inside its source.

use crate::{Options, SourceId, compile_glsl, compile_wgsl};
use hoist_asm::Dialect;

fn check(r: Result<crate::Compiled, crate::Error>, lens: (usize, usize)) {
    match r {
        Ok(c) => {
            for text in [&c.vp, &c.fp] {
                let p = hoist_asm::parse(
                    text,
                    &hoist_asm::ParseOptions::default()
                        .with_target(text, hoist_asm::ArbTarget::G80),
                );
                assert!(
                    p.program.is_some(),
                    "compiled text does not parse:\n{text}\n{:?}",
                    p.diagnostics
                );
            }
            for s in c.spans.vp.iter().chain(&c.spans.fp) {
                let len = if s.source == SourceId::GlslFragment {
                    lens.1
                } else {
                    lens.0
                };
                assert!(
                    s.start <= s.end && s.end <= len,
                    "span {s:?} outside its source"
                );
            }
        }
        Err(e) => {
            assert!(!e.diagnostics.is_empty(), "an error without a diagnostic");
            assert!(
                e.diagnostics.iter().all(|d| d.code != "F0301"),
                "the lowering wrote an invalid program: {:?}",
                e.diagnostics
            );
            let len = if e.source == SourceId::GlslFragment {
                lens.1
            } else {
                lens.0
            };
            for d in &e.diagnostics {
                assert!(
                    d.span.is_none() || (d.span.start <= d.span.end && d.span.end as usize <= len),
                    "diagnostic span {:?} outside its source ({len} bytes): {}",
                    d.span,
                    d.message
                );
            }
        }
    }
}

/// WGSL text, compiled for both dialects.
pub fn wgsl(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    for d in [Dialect::Arb, Dialect::D3d9] {
        let opts = Options {
            dialect: Some(d),
            ..Options::default()
        };
        check(compile_wgsl(src, &opts), (src.len(), src.len()));
    }
}

/// A GLSL pair: vertex and fragment text separated by the first NUL byte.
pub fn glsl(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let (vs, fs) = src
        .split_once('\0')
        .unwrap_or((src, "void main() { gl_FragColor = vec4(1.0); }"));
    for d in [Dialect::Arb, Dialect::D3d9] {
        let opts = Options {
            dialect: Some(d),
            ..Options::default()
        };
        check(compile_glsl(vs, fs, &opts), (vs.len(), fs.len()));
    }
}

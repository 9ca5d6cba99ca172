//! The crate's public types: what to compile ([`Options`]), what comes out ([`Compiled`]:
//! both programs, the binding table, the source span of every instruction) and why not
//! ([`Error`]). All serde-able, for the page and `hoist compile --json`.

use crate::bindings::Bindings;
use hoist_asm::{ArbTarget, Diagnostic, Dialect};
use serde::{Deserialize, Serialize};

/// Which text a span points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceId {
    Wgsl,
    GlslVertex,
    GlslFragment,
}

/// What to compile and for which target.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// WGSL entry point names (the only one of each stage when `None`).
    pub vertex: Option<String>,
    pub fragment: Option<String>,
    /// `None`: ARB when the pair lowers to straight-line code, else D3D9.
    pub dialect: Option<Dialect>,
    /// ARB limits to fit (`None`: the smallest target the programs fit).
    pub target: Option<ArbTarget>,
    /// Texture units by texture name (GLSL's `glUniform1i` on a sampler); `None`: units in
    /// order of first use.
    pub units: Option<Vec<(String, u8)>>,
    /// With `units`: a texture not named there is on unit 0 (GL's default for a sampler)
    /// rather than on the first free unit.
    pub gl_units: bool,
}

/// One emitted instruction and the source it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstSpan {
    /// Index of the instruction in the program (`Program::insts`).
    pub inst: usize,
    /// 0-based line of the instruction in the assembly text.
    pub line: usize,
    pub source: SourceId,
    /// Byte range in that source.
    pub start: usize,
    pub end: usize,
    /// 1-based line and column of `start`.
    pub src_line: usize,
    pub src_col: usize,
}

/// Spans of both programs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spans {
    pub vp: Vec<InstSpan>,
    pub fp: Vec<InstSpan>,
}

/// A compiled pair.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Compiled {
    pub vp: String,
    pub fp: String,
    pub dialect: Dialect,
    /// The ARB target the programs were checked against (ARB only).
    pub target: Option<String>,
    pub bindings: Bindings,
    pub spans: Spans,
}

/// Why a pair did not compile: diagnostics at spans of one source.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub source: SourceId,
    pub diagnostics: Vec<Diagnostic>,
}

impl Error {
    pub(crate) fn one(source: SourceId, d: Diagnostic) -> Error {
        Error {
            source,
            diagnostics: vec![d],
        }
    }
}

//! What the tests of this crate share: the inputs nobody here wrote (the examples, the piglit
//! corpus, generated pairs of both dialects, the parsers' all-opcode programs), parsed.
#![allow(dead_code)]

#[path = "../../../../tests/support/oracles.rs"]
pub mod oracles;

use hoist_asm::{ParseOptions, Program};
use hoist_raster::scene::Scene;
use std::path::{Path, PathBuf};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every example scene (`examples/**.shader_test`).
pub fn examples() -> Vec<PathBuf> {
    oracles::shader_tests(&root().join("examples"))
}

/// The piglit ARB corpus, when `../shared` is there.
pub fn piglit() -> Option<(PathBuf, Vec<PathBuf>)> {
    let dir = oracles::shared("corpus/piglit/tests/spec").filter(|p| p.is_dir())?;
    let v = oracles::shader_tests(&dir);
    Some((dir, v))
}

/// A scene file parsed (GLSL/WGSL sections compiled through hoist-front).
pub fn scene(path: &Path) -> Scene {
    let text = std::fs::read_to_string(path).unwrap();
    let caps = hoist_raster::Caps::default();
    hoist_front::scene::parse(&text, &caps, &hoist_front::Options::default())
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
        .scene
}

pub fn parse(src: &str) -> Program {
    let opts = ParseOptions::default().with_target(src, hoist_asm::ArbTarget::G80);
    let parsed = hoist_asm::parse(src, &opts);
    parsed
        .program
        .unwrap_or_else(|| panic!("{:?}\n{src}", parsed.diagnostics))
}

/// Generated pair `seed` of a dialect.
pub fn generated(seed: u64, d3d9: bool) -> (String, Program, Program) {
    let flavor = if d3d9 {
        hoist_verify::generate::Flavor::D3d9
    } else {
        hoist_verify::generate::Flavor::Arb
    };
    let p = hoist_verify::generate::pair(seed, flavor);
    let (vp, fp) = (parse(&p.vp), parse(&p.fp));
    (p.label, vp, fp)
}

pub mod differential;

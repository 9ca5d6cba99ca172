//! Compile time of the compiled kernels: every fragment program of the example scenes and of
//! the piglit corpus (when `../shared` is there) through `jit::compile` (code generation)
//! and through a fresh wasmtime compiler (Cranelift, no cache); prints median and maximum.
//!
//! Run with `cargo bench -p hoist-raster --bench jit_compile`.

use hoist_raster::compile::compile;
use hoist_raster::jit::{self, KernelCompiler};
use hoist_raster::scene;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "shader_test") {
            out.push(p);
        }
    }
}

fn stats(name: &str, mut v: Vec<f64>) {
    if v.is_empty() {
        return;
    }
    v.sort_by(f64::total_cmp);
    println!(
        "{name}: {} programs, median {:.3} ms, max {:.3} ms",
        v.len(),
        v[v.len() / 2],
        v[v.len() - 1]
    );
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("scenes"), &mut files);
    collect(&root.join("../../examples"), &mut files);
    collect(
        &root.join("../../../shared/corpus/piglit/tests/spec"),
        &mut files,
    );
    let (mut codegen_ms, mut native, mut refused) = (Vec::new(), Vec::new(), 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(sc) = scene::parse(&text, &hoist_raster::Caps::default()) else {
            continue;
        };
        for pair in sc.programs.values() {
            let Some(fp) = &pair.fragment else { continue };
            let Ok(k) = compile(&fp.program) else {
                continue;
            };
            let t = Instant::now();
            let m = jit::compile(&k);
            codegen_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let Ok(m) = m else {
                refused += 1;
                continue;
            };
            let w = jit::native::Wasmtime::new();
            let t = Instant::now();
            if w.load(&m).is_ok() {
                native.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    println!(
        "{} scene files, {refused} fragment programs refused",
        files.len()
    );
    stats("jit::compile (wasm code generation)", codegen_ms);
    stats("wasmtime load (Cranelift to native code)", native);
}

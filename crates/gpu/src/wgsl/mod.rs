//! The direct WGSL emitter: one module with both stages of a pair (`vs`, `fs`), written for
//! one API's coordinate conventions. The text is what WebGPU compiles; naga parses and
//! validates it (`crate::naga_out`) and writes the GLSL ES 3.00 of the WebGL2 variant.
//!
//! Layout of a module: the prelude (directive, draw block, helpers), the uniform blocks and
//! textures, each stage's registers and functions (one comment line per instruction with its
//! assembly), the entry points.

mod body;
mod common;
mod entry;
mod inst;
mod io;
mod prelude;
mod tex;

use crate::error::Error;
use crate::iface::{Iface, Scan};
use crate::options::{Api, Options};
use hoist_asm::Program;

fn stage(
    out: &mut String,
    p: &Program,
    scan: &Scan,
    f: &Iface,
    opts: &Options,
) -> Result<(), Error> {
    let mut ctx = common::Ctx {
        p,
        scan,
        textures: &f.textures,
        max_loop: opts.max_loop_iterations,
        out: String::new(),
        depth: 0,
        at: 0,
    };
    io::privates(&mut ctx);
    body::functions(&mut ctx, opts.max_call_depth)?;
    out.push_str(&ctx.out);
    Ok(())
}

/// The WGSL module of a pair for `api`.
pub(crate) fn module(
    vp: Option<&Program>,
    fp: Option<&Program>,
    f: &Iface,
    opts: &Options,
    api: Api,
) -> Result<String, Error> {
    let mut out = String::new();
    prelude::prelude(&mut out);
    io::uniforms(&mut out, f);
    io::textures(&mut out, f);
    if let (Some(p), Some(s)) = (vp, &f.vscan) {
        stage(&mut out, p, s, f, opts)?;
    }
    if let (Some(p), Some(s)) = (fp, &f.fscan) {
        stage(&mut out, p, s, f, opts)?;
    }
    entry::structs(&mut out, f);
    entry::vertex(&mut out, vp, f, opts, api);
    entry::fragment(&mut out, fp, f, opts)?;
    Ok(out)
}

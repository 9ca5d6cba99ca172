//! Module-scope declarations: the constant tables and integer blocks (group 0, the
//! binding numbers of `iface`), the textures and samplers (group 1), and each stage's
//! registers as private variables (zero at the start of every invocation, as the executor
//! resets them per batch).

use super::common::{Ctx, is_storage, push};
use crate::iface::{
    BINDING_FRAGMENT_CONSTS, BINDING_FRAGMENT_INTS, BINDING_VERTEX_CONSTS, BINDING_VERTEX_INTS,
    GROUP_TEXTURES, GROUP_UNIFORMS, Iface, Scan,
};
use hoist_asm::Reg;

fn consts(out: &mut String, ty: &str, var: &str, binding: u32, scan: &Scan) {
    push(
        out,
        format_args!(
            "struct {ty} {{\n  c: array<vec4f, {}>,\n}}\n@group({GROUP_UNIFORMS}) \
             @binding({binding}) var<uniform> {var}: {ty};\n",
            scan.const_len.max(1)
        ),
    );
}

/// The constant tables and integer blocks of the stages that have programs.
pub(crate) fn uniforms(out: &mut String, f: &Iface) {
    let mut ints = false;
    if let Some(s) = &f.vscan {
        consts(out, "VConsts", "vc", BINDING_VERTEX_CONSTS, s);
        ints |= s.ints;
    }
    if let Some(s) = &f.fscan {
        consts(out, "FConsts", "fc", BINDING_FRAGMENT_CONSTS, s);
        ints |= s.ints;
    }
    if ints {
        out.push_str("struct Ints {\n  i: array<vec4i, 16>,\n  b: array<vec4u, 16>,\n}\n");
    }
    for (var, binding, scan) in [
        ("vi", BINDING_VERTEX_INTS, &f.vscan),
        ("fi", BINDING_FRAGMENT_INTS, &f.fscan),
    ] {
        if scan.as_ref().is_some_and(|s| s.ints) {
            push(
                out,
                format_args!(
                    "@group({GROUP_UNIFORMS}) @binding({binding}) var<uniform> {var}: Ints;\n"
                ),
            );
        }
    }
    out.push('\n');
}

/// One texture and one sampler per (unit, target) pair of the pair.
pub(crate) fn textures(out: &mut String, f: &Iface) {
    for (k, &(_, target)) in f.textures.iter().enumerate() {
        let ty = match crate::iface::view_of(target) {
            "3d" => "texture_3d<f32>",
            "cube" => "texture_cube<f32>",
            _ => "texture_2d<f32>",
        };
        push(
            out,
            format_args!(
                "@group({GROUP_TEXTURES}) @binding({}) var tx{k}: {ty};\n\
                 @group({GROUP_TEXTURES}) @binding({}) var sm{k}: sampler;\n",
                2 * k,
                2 * k + 1
            ),
        );
    }
    if !f.textures.is_empty() {
        out.push('\n');
    }
}

/// The stage's registers (and the fragment stage's kill flag).
pub(crate) fn privates(ctx: &mut Ctx) {
    let mut names = Vec::new();
    for (&file, &n) in &ctx.scan.sizes {
        if is_storage(file) {
            names.extend((0..n).map(|i| ctx.reg(Reg::new(file, i))));
        }
    }
    for n in names {
        ctx.line(&format!("var<private> {n}: vec4f;"));
    }
    if ctx.fragment() {
        ctx.line("var<private> f_killed: bool;");
    }
    ctx.line("");
}

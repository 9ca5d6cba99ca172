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
    for (k, &(_, target)) in f.textures.iter().enumerate() {
        if crate::iface::is_shadow(target) {
            shadow_fn(out, k, target);
        }
    }
}

/// `shadow{k}(c)`: the executor's depth comparison for binding k at level 0 (`c` the
/// projected coordinate, the reference in z): each texel's depth (stored in x, or in w
/// for ALPHA, by the plan's upload) compared with the reference clamped to [0, 1], then
/// nearest, or bilinear as `a + f·(b − a)` along u then v, then the depth mode.
fn shadow_fn(out: &mut String, k: usize, target: hoist_asm::ir::TexTarget) {
    use hoist_asm::ir::TexTarget;
    let normalized = target != TexTarget::ShadowRect;
    let one_d = target == TexTarget::Shadow1D;
    let y_near = if one_d {
        "0".to_string()
    } else {
        format!("nearest_i(c.y, n.y, m.w, {normalized})")
    };
    push(
        out,
        format_args!(
            "fn shadow{k}(c: vec3f) -> vec4f {{
  let m = dr.cmp[{k}];
  let n = vec2i(textureDimensions(tx{k}, 0));
  let r = depth01(c.z);
  let ch = select(0u, 3u, m.y == 2u);
  if m.z == 0u {{
    let t = textureLoad(tx{k}, vec2i(nearest_i(c.x, n.x, m.w, {normalized}), {y_near}), 0);
    return depth_expand(cmp_pass(m.x, r, t[ch]), m.y);
  }}
  let u = linear_u(c.x, n.x, m.w, {normalized});
  let i0 = floor(u);
  let fx = u - i0;
  let x0 = wrap_i(i32(i0), n.x, m.w);
  let x1 = wrap_i(i32(i0) + 1, n.x, m.w);
  var y0 = 0;
  var y1 = 0;
  var fy = 0.0f;
  if {two_d} {{
    let v = linear_u(c.y, n.y, m.w, {normalized});
    let j0 = floor(v);
    fy = v - j0;
    y0 = wrap_i(i32(j0), n.y, m.w);
    y1 = wrap_i(i32(j0) + 1, n.y, m.w);
  }}
  let a0 = cmp_pass(m.x, r, textureLoad(tx{k}, vec2i(x0, y0), 0)[ch]);
  let a1 = cmp_pass(m.x, r, textureLoad(tx{k}, vec2i(x1, y0), 0)[ch]);
  let b0 = cmp_pass(m.x, r, textureLoad(tx{k}, vec2i(x0, y1), 0)[ch]);
  let b1 = cmp_pass(m.x, r, textureLoad(tx{k}, vec2i(x1, y1), 0)[ch]);
  let a = a0 + fx * (a1 - a0);
  let b = b0 + fx * (b1 - b0);
  return depth_expand(select(a + fy * (b - a), a, {one_d}), m.y);
}}
",
            two_d = !one_d,
        ),
    );
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

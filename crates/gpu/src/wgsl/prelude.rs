//! The module's head: the derivative-uniformity directive (D3D9 programs sample textures
//! and take derivatives inside flow control, as the executor lets them), the uniform blocks
//! every module has, and the helper functions instructions call where a dialect's edge
//! cases need more than a WGSL builtin. Each helper is the function of
//! `hoist_asm::semantics` it is named after; NaN and infinities, which WGSL constants
//! cannot hold, come from the draw block's `special` vector.

use super::common::{f32_lit, push};
use crate::iface::{BINDING_DRAW, GROUP_UNIFORMS};

/// `LIT`'s exponent clamp, 128 − 1/256 (`semantics::lit`).
const MAXPOWER: f32 = 127.996_09;

const HELPERS: &str = "\
fn sat4(x: vec4f) -> vec4f {
  return select(vec4f(0.0f), min(x, vec4f(1.0f)), x > vec4f(0.0f));
}
fn sgn4(x: vec4f) -> vec4f {
  return select(select(vec4f(0.0f), vec4f(-1.0f), x < vec4f(0.0f)), vec4f(1.0f), x > vec4f(0.0f));
}
fn round_away4(x: vec4f) -> vec4f {
  let t = trunc(x);
  return select(t, t + sign(x), abs(x - t) >= vec4f(0.5f));
}
fn rcp_d3d(x: f32) -> f32 {
  if x == 0.0f { return FLT_MAX; }
  if x == 1.0f { return 1.0f; }
  return 1.0f / x;
}
fn rsq_d3d(x: f32) -> f32 {
  let a = abs(x);
  if a == 0.0f { return FLT_MAX; }
  if a == 1.0f { return 1.0f; }
  return 1.0f / sqrt(a);
}
fn lg2_d3d(x: f32) -> f32 {
  if x == 0.0f { return -FLT_MAX; }
  return log2(abs(x));
}
fn powf_c(b: f32, e: f32) -> f32 {
  if e == 0.0f { return 1.0f; }
  return pow(b, e);
}
fn pow_abs(b: f32, e: f32) -> f32 {
  return powf_c(abs(b), e);
}
fn pow_arb(b: f32, e: f32) -> f32 {
  if e == 0.0f { return 1.0f; }
  if b < 0.0f {
    if floor(e) != e { return dr.special.x; }
    let m = pow(-b, e);
    if e - 2.0f * floor(0.5f * e) == 1.0f { return -m; }
    return m;
  }
  return pow(b, e);
}
fn lit_arb(s: vec4f) -> vec4f {
  let w = select(clamp(s.w, -MAXPOWER, MAXPOWER), 0.0f, s.w != s.w);
  let x = select(0.0f, s.x, s.x > 0.0f);
  let y = select(0.0f, s.y, s.y > 0.0f);
  var z = 0.0f;
  if x > 0.0f { z = powf_c(y, w); }
  return vec4f(1.0f, x, z, 1.0f);
}
fn lit_d3d(s: vec4f) -> vec4f {
  let w = select(clamp(s.w, -MAXPOWER, MAXPOWER), 0.0f, s.w != s.w);
  var r = vec4f(1.0f, 0.0f, 0.0f, 1.0f);
  if s.x > 0.0f {
    r.y = s.x;
    if s.y > 0.0f { r.z = powf_c(s.y, w); }
  }
  return r;
}
fn exp_partial(x: f32) -> vec4f {
  let f = floor(x);
  return vec4f(exp2(f), x - f, exp2(x), 1.0f);
}
fn log_partial(x: f32) -> vec4f {
  let a = abs(x);
  if a == 0.0f { return vec4f(dr.special.z, 0.0f, dr.special.z, 1.0f); }
  let bits = bitcast<u32>(a);
  if (bits & 0x7f800000u) == 0x7f800000u { return vec4f(a, a, a, 1.0f); }
  let e = f32(i32((bits >> 23u) & 0xffu) - 127);
  let m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
  return vec4f(e, m, log2(a), 1.0f);
}
fn mrow(r: vec4f, a: vec4f) -> f32 {
  return r.x * a.x + r.y * a.y + r.z * a.z + r.w * a.w;
}
fn mvp_of(a: vec4f) -> vec4f {
  return vec4f(mrow(dr.mvp[0], a), mrow(dr.mvp[1], a), mrow(dr.mvp[2], a), mrow(dr.mvp[3], a));
}
fn tex_of(n: u32, a: vec4f) -> vec4f {
  let b = 4u * n;
  return vec4f(mrow(dr.tex[b], a), mrow(dr.tex[b + 1u], a), mrow(dr.tex[b + 2u], a), mrow(dr.tex[b + 3u], a));
}
fn cmp_pass(f: u32, r: f32, d: f32) -> f32 {
  switch f {
    case 2u: { return select(0.0f, 1.0f, r < d); }
    case 3u: { return select(0.0f, 1.0f, r == d); }
    case 4u: { return select(0.0f, 1.0f, r <= d); }
    case 5u: { return select(0.0f, 1.0f, r > d); }
    case 6u: { return select(0.0f, 1.0f, r != d); }
    case 7u: { return select(0.0f, 1.0f, r >= d); }
    case 8u: { return 1.0f; }
    default: { return 0.0f; }
  }
}
fn depth_expand(v: f32, m: u32) -> vec4f {
  switch m {
    case 1u: { return vec4f(v); }
    case 2u: { return vec4f(0.0f, 0.0f, 0.0f, v); }
    case 3u: { return vec4f(v, 0.0f, 0.0f, 1.0f); }
    default: { return vec4f(v, v, v, 1.0f); }
  }
}
fn depth01(r: f32) -> f32 {
  if r > 0.0f { return min(r, 1.0f); }
  return 0.0f;
}
fn wrap_i(i: i32, n: i32, repeat: u32) -> i32 {
  if repeat != 0u { return ((i % n) + n) % n; }
  return clamp(i, 0, n - 1);
}
fn tex_u(s: f32, n: i32, repeat: u32, normalized: bool) -> f32 {
  if !normalized { return s; }
  if repeat != 0u { return (s - floor(s)) * f32(n); }
  return s * f32(n);
}
fn nearest_i(s: f32, n: i32, repeat: u32, normalized: bool) -> i32 {
  let u = tex_u(s, n, repeat, normalized);
  let f = select(0.0f, clamp(floor(u), -1.0f, f32(n)), u == u);
  return wrap_i(i32(f), n, repeat);
}
fn linear_u(s: f32, n: i32, repeat: u32, normalized: bool) -> f32 {
  let u = tex_u(s, n, repeat, normalized) - 0.5f;
  return select(0.0f, clamp(u, -2.0f, f32(n) + 1.0f), u == u);
}
fn nrm4(s: vec4f) -> vec4f {
  let f = s.x * s.x + s.y * s.y + s.z * s.z;
  return s * select(FLT_MAX, 1.0f / sqrt(f), f != 0.0f);
}
";

/// The directive, the draw block and the helpers.
pub(crate) fn prelude(out: &mut String) {
    out.push_str("diagnostic(off, derivative_uniformity);\n\n");
    push(
        out,
        format_args!(
            "struct Draw {{\n  size: vec4f,\n  special: vec4f,\n  mvp: array<vec4f, 4>,\n  \
             tex: array<vec4f, 32>,\n  cmp: array<vec4u, 16>,\n}}\n@group({GROUP_UNIFORMS}) @binding({BINDING_DRAW}) \
             var<uniform> dr: Draw;\n\n"
        ),
    );
    push(
        out,
        format_args!(
            "const FLT_MAX = {};\nconst MAXPOWER = {};\n",
            f32_lit(f32::MAX),
            f32_lit(MAXPOWER)
        ),
    );
    out.push_str(HELPERS);
    out.push('\n');
}

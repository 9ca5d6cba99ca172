// Per-fragment products of uniform matrices: the colour transform M2 · M1 · (uv, 1, 1),
// computed in every fragment although only the interpolant varies.
struct Mats { m1: mat4x4<f32>, m2: mat4x4<f32>, bias: vec4<f32> }
@group(0) @binding(0) var<uniform> u: Mats;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  return VOut(p, uv);
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let v = vec4<f32>(i.uv, 1.0, 1.0);
  return u.m2 * (u.m1 * v) + u.bias;
}

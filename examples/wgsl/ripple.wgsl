// A procedural pattern: distance to a uniform centre, a ripple and a tone curve; the
// difference vector to the centre is affine and moves.
struct Ripple { centre: vec2<f32>, freq: f32, tint: vec4<f32> }
@group(0) @binding(0) var<uniform> r: Ripple;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  return VOut(p, uv);
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let d = distance(i.uv, r.centre);
  let w = 0.5 + 0.5 * cos(d * r.freq);
  let edge = smoothstep(0.2, 0.6, d);
  let base = mix(r.tint, vec4(w, w * w, 1.0 - w, 1.0), edge);
  return select(base, base * 0.5, d > 0.45);
}

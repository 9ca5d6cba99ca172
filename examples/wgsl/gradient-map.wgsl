// Colour grading: a luminance from a texture, a per-fragment contrast curve with uniform
// parameters, and a uniform-driven gradient between two colours.
struct Grade { lo: vec4<f32>, hi: vec4<f32>, contrast: f32, pivot: f32 }
@group(0) @binding(0) var<uniform> g: Grade;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  return VOut(p, uv * 2.0 - vec2(0.5));
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let c = textureSample(tex, samp, fract(i.uv));
  let y = dot(c.rgb, vec3(0.299, 0.587, 0.114));
  let t = clamp((y - g.pivot) * g.contrast + g.pivot, 0.0, 1.0);
  return mix(g.lo, g.hi, t) * vec4(1.0, 1.0, 1.0, c.a);
}

struct U { tint: vec4<f32>, scale: f32, m: mat4x4<f32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32>, @location(1) n: vec3<f32> }
fn shade(x: vec3<f32>) -> vec3<f32> { return normalize(x) * 0.5 + 0.5; }
@vertex fn vs(@location(0) p: vec4<f32>, @location(8) t: vec2<f32>) -> VOut {
  var o: VOut;
  o.pos = p;
  o.uv = t * u.scale;
  o.n = vec3<f32>(p.xy, 1.0);
  return o;
}
@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  var acc = vec3<f32>(0.0);
  for (var k = 0; k < 3; k++) { acc += shade(i.n) * f32(k); }
  let c = textureSample(tex, samp, i.uv);
  var r = c.rgb * acc;
  if (i.uv.x > 0.5) { r = r * 2.0; }
  return vec4<f32>(clamp(r, vec3(0.0), vec3(1.0)), 1.0) * u.tint + (u.m * vec4(r, 1.0));
}

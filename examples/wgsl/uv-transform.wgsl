// Texture-coordinate transform done per fragment: scale, rotate and offset the UV with
// uniforms before sampling. Affine in the interpolant, so it can move to the vertex program.
struct Xform { scale: vec2<f32>, angle: f32, offset: vec2<f32> }
@group(0) @binding(0) var<uniform> xf: Xform;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  return VOut(p, uv);
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let c = cos(xf.angle);
  let s = sin(xf.angle);
  let centred = (i.uv - vec2(0.5)) * xf.scale;
  let rotated = vec2(c * centred.x - s * centred.y, s * centred.x + c * centred.y);
  return textureSample(tex, samp, rotated + vec2(0.5) + xf.offset);
}

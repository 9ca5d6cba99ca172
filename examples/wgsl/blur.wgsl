// A five-tap blur whose tap coordinates are computed per fragment from a uniform step:
// every offset coordinate is affine in the interpolant, so all five can be interpolated.
struct Blur { step: vec2<f32>, weights: vec4<f32>, centre: f32 }
@group(0) @binding(0) var<uniform> b: Blur;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  return VOut(p, uv);
}

fn tap(uv: vec2<f32>, k: f32) -> vec4<f32> {
  return textureSample(tex, samp, uv + b.step * k);
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  var acc = tap(i.uv, 0.0) * b.centre;
  for (var k = 1; k < 3; k++) {
    let w = b.weights[k - 1];
    acc += (tap(i.uv, f32(k)) + tap(i.uv, -f32(k))) * w;
  }
  return acc;
}

// Lighting vectors computed per fragment from interpolated positions: the light and view
// vectors before normalisation are affine and move to the vertex program; the
// normalisations and the specular power stay.
struct Light { pos: vec3<f32>, eye: vec3<f32>, colour: vec4<f32>, shininess: f32 }
@group(0) @binding(0) var<uniform> light: Light;

struct VOut { @builtin(position) pos: vec4<f32>, @location(0) world: vec3<f32>, @location(1) normal: vec3<f32> }

@vertex fn vs(@location(0) p: vec4<f32>, @location(8) uv: vec2<f32>) -> VOut {
  let n = vec3<f32>(uv.x - 0.5, uv.y - 0.5, 1.0);
  return VOut(p, p.xyz, n);
}

@fragment fn fs(i: VOut) -> @location(0) vec4<f32> {
  let n = normalize(i.normal);
  let l = normalize(light.pos - i.world);
  let v = normalize(light.eye - i.world);
  let h = normalize(l + v);
  let diffuse = max(dot(n, l), 0.0);
  let spec = pow(max(dot(n, h), 0.0), light.shininess);
  return vec4<f32>(light.colour.rgb * diffuse + vec3(spec), 1.0);
}

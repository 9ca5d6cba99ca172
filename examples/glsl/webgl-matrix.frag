precision highp float;
// A colour matrix and offset applied per fragment (uniform × uniform × interpolant).
uniform mat4 u_colourMatrix;
uniform mat4 u_tint;
uniform vec4 u_offset;
varying vec2 v_uv;
void main() {
  gl_FragColor = u_tint * (u_colourMatrix * vec4(v_uv, 0.5, 1.0)) + u_offset;
}

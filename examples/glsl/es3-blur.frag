#version 300 es
precision highp float;
// Three-tap blur with offsets computed per fragment.
uniform sampler2D u_tex;
uniform vec2 u_step;
in vec2 v_uv;
out vec4 colour;
void main() {
  vec4 acc = texture(u_tex, v_uv) * 0.5;
  for (int k = 1; k <= 2; k++) {
    acc += texture(u_tex, v_uv + u_step * float(k)) * 0.125;
    acc += texture(u_tex, v_uv - u_step * float(k)) * 0.125;
  }
  colour = acc;
}

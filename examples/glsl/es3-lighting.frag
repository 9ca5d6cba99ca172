#version 300 es
precision highp float;
uniform vec3 u_light;
uniform vec4 u_colour;
in vec3 v_pos;
in vec2 v_uv;
out vec4 fragColor;
void main() {
  vec3 n = normalize(vec3(v_uv - 0.5, 1.0));
  vec3 l = normalize(u_light - v_pos);
  float d = max(dot(n, l), 0.0);
  fragColor = vec4(u_colour.rgb * d, 1.0);
}

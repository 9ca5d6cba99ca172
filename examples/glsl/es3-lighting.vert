#version 300 es
// GLSL ES 3.00: in/out without locations, a per-fragment light vector.
in vec4 position;
in vec2 texcoord;
out vec3 v_pos;
out vec2 v_uv;
void main() {
  v_pos = position.xyz;
  v_uv = texcoord;
  gl_Position = position;
}

#version 300 es
in vec4 position;
in vec2 texcoord;
out vec2 v_uv;
void main() {
  v_uv = texcoord;
  gl_Position = position;
}

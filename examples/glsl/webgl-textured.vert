// A WebGL 1 pair as people paste it: attributes by name, varyings, texture2D, gl_FragColor.
attribute vec4 position;
attribute vec2 texcoord;
uniform vec2 u_scroll;
varying vec2 v_uv;
void main() {
  v_uv = texcoord;
  gl_Position = position;
}

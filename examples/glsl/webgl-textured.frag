precision mediump float;
uniform sampler2D u_image;
uniform vec2 u_scroll;
uniform float u_zoom;
varying vec2 v_uv;
void main() {
  vec2 uv = (v_uv - 0.5) / u_zoom + 0.5 + u_scroll;
  vec4 c = texture2D(u_image, uv);
  gl_FragColor = vec4(c.rgb * 0.8 + 0.1, 1.0);
}

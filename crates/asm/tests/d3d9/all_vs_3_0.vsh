; vs_3_0: declared outputs, texture fetch, relative outputs, _sat and _abs.
vs_3_0
defi i0, 2, 0, 1, 0
dcl_position v0
dcl_texcoord0 v1
dcl_texcoord1 v2
dcl_position o0
dcl_texcoord0 o1.xy
dcl_texcoord1 o2
dcl_texcoord2 o3
dcl_fog o4.x
dcl_psize o5.x
dcl_2d s0
m4x4 o0, v0, c0
mov o1.xy, v1
texldl r0, v1, s0
mov_sat r1, r0
add r2, r1_abs, -r0_abs.yzxw
sincos r3.xy, r2.x
mova a0.x, r2.w
mov r4, c[a0.x + 8]
loop aL, i0
  mov o[aL + 2], v[aL + 1]
endloop
mov o4.x, r3.x
mov o5.x, r4.y

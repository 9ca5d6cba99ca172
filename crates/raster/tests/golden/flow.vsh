vs_2_0
dcl_position v0
dcl_texcoord0 v1
def c10, 0.5, 0.25, 2.0, 1.0
defi i0, 3, 0, 1, 0
defb b0, true
mov oPos, v0
mov r0, c10.w
mov r1, v1
loop aL, i0
  mad r1, r1, c10.x, c10.y
  add r0.x, r0.x, r1.x
endloop
rep i0
  mul r0.y, r0.y, c10.z
endrep
if b0
  expp r2, r1.x
  logp r3, r1.y
else
  mov r2, c10.x
endif
sincos r4.xy, r1.x, c11, c12
nrm r5, r1
sgn r6, v1, r7, r8
mova a0.x, r1.x
mov oT0, r1
mov oT1, r0
mov oT2, r2
mov oT3, r4
mov oT4, r5
mov oD0, c10

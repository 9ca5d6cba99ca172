; vs_2_0: static flow control, subroutines and the new arithmetic.
vs_2_0
def c95, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668
def c96, -0.020833334, -0.12500000, 1.0, 0.50000000
defi i0, 4, 0, 1, 0
defi i1, 3, 0, 0, 0
defb b0, true
defb b1, false
dcl_position v0
dcl_normal v1
dcl_tangent v2
m4x4 oPos, v0, c0
mov r0, v1
abs r1, r0
nrm r2, r1
crs r3.xyz, r2, r1
mov r3.w, c90.x
lrp r4, r3, r2, r1
pow r5, r4.x, r4.y
sgn r6, r5, r7, r8
sincos r9.xy, r4.z, c95, c96
mova a0.xy, r0
mov r10, c[a0.y + 4]
mov r11, c0
if b0
  add r11, r11, r10
else
  sub r11, r11, v2
endif
loop aL, i0
  add r11, r11, c[aL + 10]
endloop
rep i1
  mul r11, r11, c90.y
endrep
call l0
callnz l1, b1
mov oT0, r11
mov oD0, r9
ret
label l0
  add r11, r11, c91
  ret
label l1
  mul r11, r11, c91
  ret

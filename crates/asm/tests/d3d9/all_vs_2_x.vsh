; vs_2_x: dynamic flow control and predication.
vs_2_x
defi i0, 8, 0, 1, 0
dcl_position v0
m4x4 oPos, v0, c0
mov r0, c4
setp_gt p0, r0, c5
(p0.x) add r0.x, r0.x, c6.x
(!p0) mul r0, r0, c6
if_lt r0.x, c7.x
  mov r1, c8
else
  mov r1, c9
endif
if p0.y
  add r1, r1, c8
endif
if !p0.z
  sub r1, r1, c8
endif
rep i0
  add r1, r1, c10
  break_ge r1.x, c11.x
  breakp !p0.w
  break
endrep
callnz l2, p0.x
mov oT0, r1
ret
label l2
  mov r2, c12
  ret

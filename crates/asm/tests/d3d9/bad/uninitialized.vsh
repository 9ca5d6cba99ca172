; expect: E2117 E2118
vs_1_1
dcl_position v0
add r0, r1, v0
mov r2.xy, v0
mov r3, r2
mov oT0, c[a0.x]

; expect: E2101
vs_1_1
dcl_position v0
dcl_normal v1
mad r0, v0, c0, c1
add r1, v0, v1
mov oPos, r0

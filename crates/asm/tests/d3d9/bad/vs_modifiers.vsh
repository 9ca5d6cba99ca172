; expect: E2106 E2107 E2111
vs_2_0
dcl_position v0
mov_sat r0, v0
mov_pp r1, v0
add r2, r0, r1_abs
mov oPos, r2

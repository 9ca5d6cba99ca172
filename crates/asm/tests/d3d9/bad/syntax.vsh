; expect: E2010 E2011 E2012 E2013 E2020 E2021 E2022 E2024 E2025 E2027
vs_1_1
dcl_position v0
movv r0, v0
texld r0, v0, s0
add_x2 r0, v0, c0
add r0, v0
mov r0 v0
mov q0, v0
mov r99, v0
mov r0, v0.xq
mov r0.yx, v0
mov r0, v0_bx2
mov oPos, v0

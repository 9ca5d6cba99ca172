; expect: E2109
vs_2_0
dcl_position v0
mov r0, v0
mov r1, v0
crs r0.xyz, r0, r1
nrm r1, r1
m4x4 r4, r0, c0
m4x4 r5, r0, -c4
sgn r6, r0, r7, r7
mov oPos, r0

; expect: E2108
vs_1_1
dcl_position v0
frc r0.x, v0
mov oPos, v0

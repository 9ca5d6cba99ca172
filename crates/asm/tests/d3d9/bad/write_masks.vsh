; expect: E2108
vs_2_0
def c90, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668
def c91, -0.020833334, -0.12500000, 1.0, 0.50000000
dcl_position v0
mov r0, v0
sincos r1.xyz, r0.x, c90, c91
crs r2, r0, r1
m3x3 r3, r0, c0
mov oFog.y, r0.x
mov oPos, r0

ps_2_0
def c2, 1, 1, 1, 1
def c3, 0.5, 0.25, 0.125, 1
def c4, 0.3, 0.6, 0.9, 1
def c5, 0, 0, 0, 0
def c6, 0.8545, -0.6003, -0.0475, -0.9535
def c7, -0.9218, -0.6337, 0.6821, -0.4171
def c8, -0.3402, 0.921, -0.3372, 0.3024
def c9, -0.3338, -0.2875, -0.493, 0.1627
def c10, -0.3235, 0.3347, -0.7081, -0.7356
def c11, -0.9049, -0.2709, 0.128, 0.678
def c12, -0.74, 0.0977, -0.1276, -0.5555
def c13, -0.8354, 0.6113, 0.6197, -0.5247
def c14, -0.0694, -0.8283, -0.0393, 0.5778
def c15, 0.125, 0.25, 0.375, 0.5
def c16, 0.15915494, 0.15915494, 0.15915494, 0.15915494
def c17, 0.5, 0.5, 0.5, 0.5
def c18, 6.2831855, 6.2831855, 6.2831855, 6.2831855
def c19, 3.1415927, 3.1415927, 3.1415927, 3.1415927
def c20, -0.0000015500992, -0.00002170139, 0.0026041667, 0.00026041668
def c21, -0.020833334, -0.125, 1, 0.5
dcl t0
dcl_2d s1
mov r7, c2
mov r2, c3
mov r3, c4
mov r4, c5
mov r5, c5
mov r6, c5
mov r0, t0
mov r1, t0
mov r5, c6
texld r4, r5, s1
mul r3.x, -c7, c8
mov r5.x, r2.x
mov r5.z, r2.w
mov r5.w, r2.x
sub r0.xzw, r5, r1
mov r5.x, r2.w
mov r5.y, r2.z
mov r5.z, r2.w
mad r0.xyz, -r5, c0, c9
mad r5.x, r2.x, c16, c17
frc r5.x, r5.x
mad r5.x, r5.x, c18, -c19
sincos r6.xy, r5.x, c20, c21
mov r4.xw, r6.y
mul r0.yw, r0, c10
sub r3.xyz, -r1.y, c11
mov r5, c13
lrp r0.y, c12, c0.w, r5
mov r6.x, t0.w
mov r6.y, t0.x
mov r6.z, t0.x
dp3 r5.x, r6, c14
add r0.zw, r5.x, c14.w
mul r6, r0, c15
mad r6, r1, c15, r6
mad r6, r2, c15, r6
mad r6, r3, c15, r6
mad r6, r4, c15, r6
mad r6, r4, c15, r6
mov oC0, r6

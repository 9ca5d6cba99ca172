// Every vs_1_1 instruction, output and operand form.
vs_1_1
def c90, 0.5, -1, 2, 0.25
dcl_position v0
dcl_normal v1
dcl_texcoord0 v2
dcl_color1 v3
dcl_blendweight v4
m4x4 oPos, v0, c0             // position
m3x3 r0.xyz, v1, c4
m3x2 r1.xy, v1, c4
m4x3 r2.xyz, v0, c8
m3x4 r3, v1, c8
dp3 r4.x, r0, r0
rsq r4.y, r4.x
mul r0.xyz, r0, r4.y
dp4 r4.z, v0, c12
rcp r4.w, r4.z
add r5, r4, -c90
sub r6, r5, v4.wzyx
mad r7, r6, c90.x, r5
max r8, r7, c90.y
min r8, r8, c90.z
sge r9, r8, r7
slt r10, r8.yxwz, r7.w
dst r11, r4, r5
lit r11, r11
expp r9.x, r4.x
exp r9.y, r4.y
logp r9.z, r4.z
log r9.w, r4.w
frc r10.xy, r9.x
mov a0.x, r10.x
mov r11, c[a0.x + 20]
mov oD0, r11
mov oD1.xyz, v3.bgr
mov oFog, r9.w
mov oPts, c[a0.x]
mov oT0.xy, v2
mov oT7, r8
nop

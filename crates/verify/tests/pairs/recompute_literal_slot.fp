ps_3_0
// compiled by hoist-front from entry point `fs`
def c7, 0.5, 0.03125, -0.041, 0.885
def c8, 1.242, -0.433, 1.168, 0.0
def c9, 1.0, 0.148, -1.0, 1.433
def c10, -0.203, 1.368, -0.057, 0.25
def c11, 0.028, -1.2, 1.2, -1.098
def c12, 0.444, 0.483, -0.748, 0.0
dcl_texcoord0 v0
dcl_texcoord1 v1
dcl vPos.xy
dcl_2d s0
add r0.xy, vPos.xyyy, c7.x
mul r1.xy, r0.xyyy, c7.y
mul r0.xyz, r1.yxyy, c7.z
mul r2.xyz, c1.ywww, c7.w
mad r3.xyz, r0.xyzz, r1.yxxx, r2.xyzz
add r0.xyz, r3.xyzz, -v1.yxyy
dp3 r2.x, r0.xyzz, r0.xyzz
rsq r0.x, r2.x
rcp r2.x, r0.x
add r0.x, c2.z, c8.x
add r3.x, v1.x, c8.y
abs r4.x, r3.x
add r3.x, r4.x, c7.x
rcp r4.x, r3.x
mul r3.x, r0.x, r4.x
add r0.x, r1.y, c8.z
add r4.x, c8.w, -r0.x
cmp r5.x, r4.x, c8.w, c9.x
cmp r4.x, r0.x, c8.w, c9.x
add r0.x, r5.x, -r4.x
max r4.x, r3.x, r0.x
mul r0, r1.yxxy, c7.x
abs r3, c1
add r5, r3, c7.x
rcp r3.x, r5.x
rcp r6.x, r5.y
rcp r7.x, r5.z
rcp r8.x, r5.w
mov r5.x, r3.x
mov r5.y, r6.x
mov r5.z, r7.x
mov r5.w, r8.x
mul r3, v1, r5
mul r5, r3, c9.x
mul r3, r5, c10.w
add r5, r0, r3
mul r0.x, r2.x, c11.x
mul r3.x, c2.x, r0.x
max r0.x, r3.x, c11.y
min r3.x, r0.x, c11.z
sincos r0.y, r3.x
sincos r6.x, r3.x
rcp r3.x, r6.x
mul r6.x, r0.y, r3.x
mul r0.x, v0.y, c11.w
add r3.x, r6.x, -r0.x
cmp r0.x, r3.x, c8.w, c9.x
add r3, r4.x, c12.x
add r4, c8.w, -r3
cmp r6, r4, c8.w, c9.x
cmp r4, r3, c8.w, c9.x
add r3, r6, -r4
mul r4, r1.y, c12.y
abs r6, v1
add r7, r6, c7.x
rcp r6.x, r7.x
rcp r8.x, r7.y
rcp r9.x, r7.z
rcp r10.x, r7.w
mov r7.x, r6.x
mov r7.y, r8.x
mov r7.z, r9.x
mov r7.w, r10.x
mul r6, r4, r7
min r4, r3, r6
add r3, r2.x, -r5
frc r2, r3
add r3, r5, r2
cmp r2, -r0.x, r3, r4
mul r0, r2, c7.x
mul r2, v0, c10.y
mul r3, r1.y, c12.z
mul r1, r2, r3
frc r2, r1
mul r1, r2, c10.w
add r2, r0, r1
mov oC0, r2

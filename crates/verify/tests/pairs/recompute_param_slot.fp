ps_3_0
// compiled by hoist-front from entry point `fs`
def c7, 0.5, 0.03125, 0.0, -0.893
def c8, 1.0, -1.25, 2.0, -0.5
def c9, 0.8, 0.114, -0.152, -3.0
def c10, 0.636, -2.0, 0.25, 3.0
def c11, 1.321, 0.6931472, -0.015, -1.025
dcl_texcoord0 v0
dcl_texcoord1 v1
dcl vPos.xy
dcl_2d s0
add r0.xy, vPos.xyyy, c7.x
mul r1.xy, r0.xyyy, c7.y
add r0.xy, c1.yzzz, -c1.wzzz
mov r2.xy, r0.xyxx
mov r2.zw, c7.z
texldl r0, r2, s0
mul r2.xy, v1.yxxx, c7.w
add r3.xy, c7.z, -r2.xyyy
cmp r4.xy, r3.xyyy, c7.z, c8.x
cmp r3.xy, r2.xyyy, c7.z, c8.x
add r5.xy, r4.xyyy, -r3.xyyy
abs r3.xy, r2.xyyy
frc r2.xy, r3.xyyy
add r4.xy, r3.xyyy, -r2.xyyy
mul r2.xy, r5.xyyy, r4.xyyy
texld r3, r2.xyyy, s0
add r2, r3.yyzy, c8.y
add r4, r3.yzyz, r2
mul r2, r4, c8.z
sincos r4.x, r2.x
sincos r5.x, r2.y
sincos r6.x, r2.z
sincos r7.x, r2.w
add r2, r1.y, c9.y
add r8, r2, -r1.y
mul r2, r1.y, c9.z
add r9, c1, -r2
abs r2, r9
add r9, r2, c7.x
rcp r2.x, r9.x
rcp r10.x, r9.y
rcp r11.x, r9.z
rcp r12.x, r9.w
mov r9.x, r2.x
mov r9.y, r10.x
mov r9.z, r11.x
mov r9.w, r12.x
mul r2, r8, r9
max r8, v0, c9.w
min r9, r8, c8.z
exp r8.x, r9.x
exp r10.x, r9.y
exp r11.x, r9.z
exp r12.x, r9.w
mov r9.x, r8.x
mov r9.y, r10.x
mov r9.z, r11.x
mov r9.w, r12.x
mul r8, r9, c7.x
mov r9.x, r4.x
mov r9.y, r5.x
mov r9.z, r6.x
mov r9.w, r7.x
abs r10, r9
add r9, r10, c7.x
add r10, c1, c10.x
max r11, r10, c10.y
min r10, r11, c8.z
pow r11.x, r9.x, r10.x
pow r12.x, r9.y, r10.y
pow r13.x, r9.z, r10.z
pow r14.x, r9.w, r10.w
mov r9.x, r11.x
mov r9.y, r12.x
mov r9.z, r13.x
mov r9.w, r14.x
mul r10, r9, c8.x
mul r9, r10, c10.z
add r10, r8, r9
mul r8, r10, c7.x
mov r9.x, r4.x
mov r9.y, r5.x
mov r9.z, r6.x
mov r9.w, r7.x
abs r10, r9
add r9, r10, c7.x
add r10, c1, c10.x
max r11, r10, c10.y
min r10, r11, c8.z
pow r11.x, r9.x, r10.x
pow r12.x, r9.y, r10.y
pow r13.x, r9.z, r10.z
pow r14.x, r9.w, r10.w
mov r9.x, r11.x
mov r9.y, r12.x
mov r9.z, r13.x
mov r9.w, r14.x
mul r10, r9, c8.z
mul r9, r10, c10.z
add r10, r8, r9
mul r8, r10, c7.x
mov r9.x, r4.x
mov r9.y, r5.x
mov r9.z, r6.x
mov r9.w, r7.x
abs r4, r9
add r5, r4, c7.x
add r4, c1, c10.x
max r6, r4, c10.y
min r4, r6, c8.z
pow r6.x, r5.x, r4.x
pow r7.x, r5.y, r4.y
pow r9.x, r5.z, r4.z
pow r10.x, r5.w, r4.w
mov r4.x, r6.x
mov r4.y, r7.x
mov r4.z, r9.x
mov r4.w, r10.x
mul r5, r4, c10.w
mul r4, r5, c10.z
add r5, r8, r4
mul r4.x, c2.w, c11.x
abs r6.x, r4.x
add r4.x, r6.x, c7.x
log r6.x, r4.x
mul r4.x, r6.x, c11.y
mul r6.x, r4.x, r1.y
add r1.x, r0.w, -r6.x
cmp r0.x, r1.x, c7.z, c8.x
mul r1, v1, c11.z
abs r4, r1
add r1, r4, c7.x
rcp r4.x, r1.x
rcp r6.x, r1.y
rcp r7.x, r1.z
rcp r8.x, r1.w
mov r1.x, r4.x
mov r1.y, r6.x
mov r1.z, r7.x
mov r1.w, r8.x
mul r4, r2, r1
add r1, r4, r5
mul r2, c1, c11.w
add r4, r2, -c1
frc r2, r4
add r6, r4, -r2
add r2, r5, r6
cmp r4, -r0.x, r2, r1
mul r0, r4, c7.x
mul r1, r3.zyxz, c10.z
add r2, r0, r1
mov oC0, r2

ps_3_0
def c7, 0.5, 0.0001, 2.0, 0.0
dcl_texcoord0 v0
dcl_texcoord1 v1
dcl_texcoord2 v2.xy
dcl_texcoord3 v3.xy
dcl_texcoord4 v4
dcl_texcoord5 v5
dcl_texcoord6 v6.xy
dcl_texcoord7 v7.xy
dcl_fog v8.x
dcl_volume s2
max r0.z, v6.x, c7.x
rsq r1.x, r0.z
cmp_pp r2.xyz, c0, -v8.x, c3
add r3, -c3, c1.zyzw
texkill v0
texld r0, v1, s2
cmp_sat r0, c7.x, r2.y, v8.x
crs r4.xyz, -c0, r3
mad r5.yw, r4.xyzz, -v7.xyxy, c2
mul r3, c3, r1.x
dp4 r3.xyz, r5.wyyw, r2.x
dp3_sat r1.y, c0, r5.wyww
texld r2.xy, r0, s2
texldd r1, v0, s2, r3.w, -r0.z
mad r6.z, -v6.x, -v6.x, c7.y
rsq r7.y, r6.z
texldd r8, v2.xxyx, s2, r2, c2
mad r9, r2.xyzy, r2.xyzx, r1
nrm r10.xyz, -v8.x
mul_sat r11, -v7_abs.xyxy, r2.xyzx
dp2add r12.z, v3, c0, c2.z
sub r0, r9, r4.xyzx
mov r13.xyz, v4.w
mov r13.w, c7.z
texldp r14, r13, s2
texldb r4.xyw, r11, s2
texld r3, r11, s2
m3x4_sat r0, r12.z, c3
texld r3, r3, s2
mul_pp r15.yz, c1.wyxw, c1
mov r16, v4
texldb r1, r16, s2
dp3 r7.w, -r9, r9.xxzw
m3x3_sat r17.xyz, r10.z, c3
texldb r5, r12.z, s2
m3x3 r11.xyz, -r14.w, c3
sincos r0.y, r13.w
texld r16, r11, s2
dp4 r18.zw, v2.x, -c5.yyzw
log r19.z, v1.w
add oC0, r5, r1

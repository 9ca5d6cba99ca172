; Ikeda, Ino, Hagihara: Figure 5(a), the vertex program after code motion.
; The version line and the dcl lines are added; the instructions are the paper's.
vs_1_1
dcl_position v0
dcl_texcoord0 v1
mov	oPos,	v0
mov	oT0.xy,	v1
mov	r0.z,	v1.y
mov	r1.y,	c4.x	; 0.0f
mov	r0.y,	c4.x
rcp	r0.w,	c3.x	; -1.0f/W
mov	r0.x,	-r0.w
add	r1.x,	r0.w,	r0.w ; 2.0f/W
add	r0.xy,	r0,	v1
mov	oT1.xy,	r0.xy
add	r1.x,	r1.x,	r0.x
mov	oT2.x,	r1.x
add	r1.y,	r0.z,	r1.y
mov	oT2.y,	r1.y

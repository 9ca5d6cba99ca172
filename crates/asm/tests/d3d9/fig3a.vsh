; Ikeda, Ino, Hagihara: Figure 3(a), the vertex program of the 1-D convolution.
; The version line and the dcl lines are added; the instructions are the paper's.
vs_1_1
dcl_position v0
dcl_texcoord0 v1
mov	oPos,	v0	; vertex coordinates
mov	oT0.xy,	v1	; texture coordinates

vs_1_1
; K=13 Gaussian filter, horizontal pass: the vertex program passes the quad through.
dcl_position v0
dcl_texcoord v1
mov oPos, v0
mov oT0.xy, v1

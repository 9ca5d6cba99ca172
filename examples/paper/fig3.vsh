vs_1_1
; Figure 3(a) of Ikeda, Ino and Hagihara, "A Code Motion Technique for Accelerating
; General-Purpose Computation on the GPU" (IPDPS 2006): pass the quad through.
dcl_position v0
dcl_texcoord v1
mov oPos, v0        ; vertex coordinates
mov oT0.xy, v1      ; texture coordinates

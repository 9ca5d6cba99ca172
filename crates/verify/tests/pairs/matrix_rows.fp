ps_3_0
// Regression (soak): a moved matrix macro placed only its first row constant.
def c1, 1.5, 0.25, 1.25, -1.75
def c2, 2, 0.5, 0.5, -1
dcl_texcoord0 v0.xy
dcl_2d s0
m3x2 r0.xy, v0.x, c1
texld r1, r0, s0
mov oC0, r1

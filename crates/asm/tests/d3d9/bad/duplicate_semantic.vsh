; expect: E2043
vs_3_0
dcl_position v0
dcl_position o0
dcl_fog o3.x
dcl_fog o4.x
mov o0, v0
mov o3.x, v0.x

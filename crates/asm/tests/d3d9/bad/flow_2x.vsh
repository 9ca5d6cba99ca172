; expect: E2114
vs_2_x
dcl_position v0
mov oPos, v0
break
ret
mov r0, v0
label l0

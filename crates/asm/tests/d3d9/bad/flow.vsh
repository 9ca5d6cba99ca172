; expect: E2114 E2120
vs_2_0
defi i0, 1, 0, 1, 0
defb b0, true
dcl_position v0
mov r0, v0
else
endloop
if b0
loop aL, i0
endif
mov r1, c[aL]
call l9
mov oPos, r0

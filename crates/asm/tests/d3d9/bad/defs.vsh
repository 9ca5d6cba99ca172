; expect: E2030 E2031 E2013
vs_2_0
def c0, 1, 2, 3, 4
def c0, 1, 2, 3, 4
def c1, 1, 2, 3
def c2, 1, x, 3, 4
defi i0, 1.5, 0, 0, 0
defb b0, maybe
dcl_position v0
mov oPos, v0

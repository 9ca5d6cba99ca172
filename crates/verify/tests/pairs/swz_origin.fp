!!ARBfp1.0
# Regression (soak): the moved SWZ read its origin's components without the swizzle.
TEMP r, s;
SWZ r.xy, fragment.texcoord[1], x, 1, z, 1;
TEX s, r, texture[0], 2D;
MOV result.color, s;
END

!!ARBfp1.0
# Regression (soak): copy propagation folded `-program.local[1]` into the SWZ source, and
# the negation then also flipped the constant selectors (1 became -1).
TEMP t, u, s;
MOV t, -program.local[1];
SWZ u.xzw, t, 1, 0, z, 1;
ADD u, u, fragment.texcoord[0];
TEX s, u, texture[0], 2D;
MOV result.color, s;
END

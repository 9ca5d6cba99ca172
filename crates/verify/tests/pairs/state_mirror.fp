!!ARBfp1.0
# Regression (soak): a moved read of fragment-only GL state becomes a mirrored vertex
# parameter, which validation must set to the state's value.
TEMP r, s;
MAD r, fragment.texcoord[0], state.depth.range, {0.25, 0, 0, 0};
TEX s, r, texture[0], 2D;
MOV result.color, s;
END

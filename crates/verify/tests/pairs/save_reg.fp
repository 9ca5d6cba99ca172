!!ARBfp1.0
TEMP R0;
MOV R0.xyz, fragment.texcoord[4];
DP3 R0.x, fragment.texcoord[3], R0;
MUL result.color, R0.x, fragment.texcoord[0];
END

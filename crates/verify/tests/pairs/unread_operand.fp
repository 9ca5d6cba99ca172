!!ARBfp1.0
TEMP r;
MOV r, fragment.texcoord[0];
DST r.w, fragment.texcoord[0], -fragment.texcoord[0];
MOV result.color, r;
END

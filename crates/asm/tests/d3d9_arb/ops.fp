!!ARBfp1.0
# ARBfp1.0 instructions, for ARB -> D3D9 translation.
TEMP r0, r1, r2;
PARAM k = { 0.5, -2.0, 3.0, 1.0 };
TEX r0, fragment.texcoord[0], texture[0], 2D;
TXP r1, fragment.texcoord[1], texture[1], CUBE;
TXB r2, fragment.texcoord[0], texture[0], 2D;
KIL -r0;
ADD r0, r0, fragment.color;
CMP r1, r0, r1, r2;
LRP r2, r0, r1, r2;
SCS r0.xy, r2.x;
SIN r1.x, r2.y;
COS r1.y, r2.z;
SGE r2, r0, r1;
SLT r2, r2, k;
XPD r0.xyz, r1, r2;
MAD_SAT r0, r0.yzxw, k.w, r1.wzyx;
DP4 r1.w, r0, program.env[2];
MOV_SAT result.color, r0;
MOV result.depth.z, r1.w;
END

!!ARBfp1.0
# Bilinear, mipmapped and projective lookups of the same texture.
TEMP a, b, c, p;
MUL p, fragment.texcoord[0], { 3.0, 2.0, 0.0, 1.0 };
TEX a, p, texture[0], 2D;
MOV p.w, fragment.texcoord[1].x;
TXB b, p, texture[0], 2D;
MOV p.w, 1.7;
TXP c, p, texture[0], 2D;
ADD a, a, b;
MAD a, c, 0.5, a;
MAD result.color, fragment.texcoord[2], 0.1, a;
END

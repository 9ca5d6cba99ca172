!!ARBfp1.0
# Every approximated function, on coordinates spanning several periods and decades.
PARAM k = { 6.2831853, 3.0, 0.5, 2.0 };
TEMP a, b, c, d;
MAD a, fragment.texcoord[0], k.x, -3.0;
SIN b.x, a.x;
COS b.y, a.y;
SCS c.xy, a.y;
EX2 b.z, a.x;
ABS d, a;
ADD d, d, 0.01;
LG2 b.w, d.x;
POW c.z, d.y, a.x;
RSQ c.w, d.x;
RCP d.z, a.y;
LIT d, a;
MUL b, b, c;
MAD result.color, b, 0.1, d;
END

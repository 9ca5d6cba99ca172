!!ARBfp1.0
# The analogue of CUDAvis Listing 5.3 (Nugteren 2009, section 5.3.1): two texture fetches
# whose results are stored one component at a time. The thesis's 32-bit registers are the
# components of our temporaries; the fetches write their own index registers, and the
# second index is derived from the first, so it must be computed before the first fetch
# overwrites it. Peak pressure: 8 components (the second fetch's row). `hoist live
# --schedule` moves the second fetch below the first fetch's stores: 6 (Listing 5.4).
OPTION ARB_draw_buffers;
PARAM step = {0.125, 0.0625, 0, 0};
TEMP a, b;
ADD a.xy, fragment.texcoord[0], step;
ADD b.xy, a, step;
TEX a, a, texture[0], 2D;
TEX b, b, texture[1], 2D;
MOV result.color[0].x, a.x;
MOV result.color[0].y, a.y;
MOV result.color[0].z, a.z;
MOV result.color[0].w, a.w;
MOV result.color[1].x, b.x;
MOV result.color[1].y, b.y;
MOV result.color[1].z, b.z;
MOV result.color[1].w, b.w;
END

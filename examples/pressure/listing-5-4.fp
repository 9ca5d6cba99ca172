!!ARBfp1.0
# The analogue of CUDAvis Listing 5.4: Listing 5.3 with the second fetch moved below the
# first fetch's stores, writing the registers the first fetch's values no longer need.
# Peak pressure: 6 components (the first fetch's row), down from 8.
OPTION ARB_draw_buffers;
PARAM step = {0.125, 0.0625, 0, 0};
TEMP a, b;
ADD a.xy, fragment.texcoord[0], step;
ADD b.xy, a, step;
TEX a, a, texture[0], 2D;
MOV result.color[0].x, a.x;
MOV result.color[0].y, a.y;
MOV result.color[0].z, a.z;
MOV result.color[0].w, a.w;
TEX a, b, texture[1], 2D;
MOV result.color[1].x, a.x;
MOV result.color[1].y, a.y;
MOV result.color[1].z, a.z;
MOV result.color[1].w, a.w;
END

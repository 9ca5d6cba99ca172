//! The program examples of the linear mode's picker (issue 11: a system recovered from
//! straight-line code): an ARB vertex program that is affine in its attributes, and a
//! Direct3D 9 pixel shader whose texture reads become variables named after their lines.

/// The program of example `name`, if it is a program example.
pub fn source(name: &str) -> Option<&'static str> {
    match name {
        "colour-matrix" => Some(COLOUR_MATRIX),
        "yuv-texture" => Some(YUV_TEXTURE),
        _ => None,
    }
}

const COLOUR_MATRIX: &str = "!!ARBvp1.0
# A literal model-view-projection, a sepia colour matrix with a tint, and a texture-
# coordinate scale and offset: every output is an affine function of the attributes.
PARAM mvp[4] = { { 0.5, 0, 0, 0.25 }, { 0, 0.5, 0, -0.25 },
                 { 0, 0, -1, 0.1 }, { 0, 0, 0, 1 } };
PARAM sepia[3] = { { 0.393, 0.769, 0.189, 0 }, { 0.349, 0.686, 0.168, 0 },
                   { 0.272, 0.534, 0.131, 0 } };
PARAM tint = { 0.05, 0.02, 0, 0 };
PARAM st = { 2, 2, 0.5, 0.5 };
TEMP c;
DP4 result.position.x, mvp[0], vertex.position;
DP4 result.position.y, mvp[1], vertex.position;
DP4 result.position.z, mvp[2], vertex.position;
DP4 result.position.w, mvp[3], vertex.position;
DP3 c.x, sepia[0], vertex.color;
DP3 c.y, sepia[1], vertex.color;
DP3 c.z, sepia[2], vertex.color;
ADD result.color.xyz, c, tint;
MOV result.color.w, vertex.color.w;
MAD result.texcoord[0], vertex.texcoord[0], st.xyxy, st.zwzw;
END
";

const YUV_TEXTURE: &str = "ps_2_0
; A video frame in three planes (Y, U, V), converted to RGB (BT.601) and brightened
; by a host-set colour c0. Texture reads are not affine: each result is a variable.
def c1, 1.0, 1.0, 1.0, 0.0
def c2, 0.0, -0.344136, 1.772, 0.0
def c3, 1.402, -0.714136, 0.0, 0.0
def c4, 0.5, 0.5, 0.5, 1.0
dcl t0.xy
dcl_2d s0
dcl_2d s1
dcl_2d s2
texld r0, t0, s0
texld r1, t0, s1
texld r2, t0, s2
add r1.x, r1.x, -c4.x
add r2.x, r2.x, -c4.y
mul r3, r0.x, c1
mad r3, r1.x, c2, r3
mad r3, r2.x, c3, r3
mad r4, r3, c4.w, c0
mov oC0, r4
";

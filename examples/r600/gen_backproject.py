#!/usr/bin/env python3
"""Writes the back-projection kernels of seed 004's Table 3 (Jang, Schaa, Mistry and
Kaeli) as ARB fragment-program scenes: backproject-{naive,aluopt,vecin,vecout}.

The paper's kernel is SART's voxel-driven back projection for a curved detector (Brook+,
13 input streams, one output stream). Each thread (here: each pixel) is one voxel of a
slice at height z; for every projection it rotates the voxel into the projection's frame
(angle beta from a stream), takes the distance L = D - s from the source (D from a
second stream), the fan angle gamma = atan(t / L) (an odd polynomial: ARB has no atan),
the detector channel gamma / d_gamma + centre and row z D / L / d_z + centre (the paper's
two locpix1 calls), clamps both, fetches the four detector neighbours and interpolates
them bilinearly, and accumulates the value weighted by (D / L)^2. The paper's loop over
projections is unrolled for P = 2 projections (ARB has no loops), so its fetch and ALU
counts are per two projections.

- naive: written like the Brook+ source: one scalar variable per intermediate, COS and
  SIN, products summed with MUL + ADD, each locpix1 on its own (clamps by CMP, fraction
  by FLR and SUB), the four coordinates assembled channel by channel.
- aluopt: the paper's ALU optimization: intrinsics (SCS for sin/cos, MAD for the dot
  products, MIN/MAX, FRC), the two locpix1 calls merged into one locpix on float2, and
  variables merged (the four neighbours in one register).
- vecin: aluopt with the input streams vectorised: the two parameter streams as one
  float4 stream and the detector as float4 texels of four channels (packed by two extra
  passes, the paper's layout change). The channel's component is data-dependent, so
  each neighbour is picked from its texel by a DP4 with a one-hot mask.
- vecout: aluopt with a float4 output stream: each pixel computes four voxels along x
  (the domain is 4x narrower); the per-projection parameters are shared, the per-voxel
  arithmetic runs four-wide, and each voxel fetches its own four neighbours.

All four compute the same values with the same floating-point operations in the same
order, so their images agree bit for bit (vecout's pixel (X, y) channel c is voxel
(4X + c, y)); crates/opt/tests/r600_kernels.rs checks that and the statistics."""

import os

C, R, P, N = 16, 8, 2, 16  # detector channels, rows per projection, projections, voxels

HEAD = """!!ARBfp1.0
PARAM geo = {{ 0.125, -1, 3, 0 }};
PARAM vz = {{ 0.25, 0, 0, 0 }};
PARAM at = {{ 0.0208351, -0.0851330, 0.1801410, -0.3302995 }};
PARAM at1 = {{ 0.9998660, 0, 0, 0 }};
PARAM det = {{ 10, 7.5, 8, 3.5 }};
PARAM lim = {{ 15, 7, 0, 0 }};
PARAM inv = {{ {ic}, {ir}, {ic}, {ir} }};
""".format(ic=1 / C, ir=1 / (R * P))


def stream(p):
    return "PARAM pc{p} = {{ {u}, 0.5, 0, 0 }};\n".format(p=p, u=(p + 0.5) / P)


def offsets(p):
    r0 = 0.5 + p * R
    return "PARAM off{p} = {{ 0.5, {a}, 1.5, {b} }};\n".format(p=p, a=r0, b=r0 + 1)


def naive():
    s = HEAD + "".join(stream(p) for p in range(P)) + """PARAM half = { 0.5, 1.5, 0, 0 };
PARAM rows = { 0.5, 1.5, 8.5, 9.5 };
TEMP vx, vy, acc, beta, draw, dd, cb, sb, t1, t2, t, s1, s2, s, L, iL, r, r2, g, gam;
TEMP j1, e1, f1, w1, zi, j2, e2, f2, w2, u0, u1, v0, v1, c00, c10, c01, c11;
TEMP d00, d10, d01, d11, a, b, val, q;
MAD vx.x, fragment.position.x, geo.x, geo.y;
MAD vy.x, fragment.position.y, geo.x, geo.y;
MOV acc.x, geo.w;
MOV c00, geo.w;
MOV c10, geo.w;
MOV c01, geo.w;
MOV c11, geo.w;
"""
    rows = ["rows.x", "rows.y"], ["rows.z", "rows.w"]
    for p in range(P):
        s += f"""# projection {p}
TEX beta.x, pc{p}, texture[0], 2D;
TEX draw.x, pc{p}, texture[1], 2D;
ADD dd.x, draw.x, geo.z;
COS cb.x, beta.x;
SIN sb.x, beta.x;
MUL t1.x, vx.x, cb.x;
MUL t2.x, vy.x, sb.x;
ADD t.x, t2.x, t1.x;
MUL s1.x, vy.x, cb.x;
MUL s2.x, vx.x, sb.x;
SUB s.x, s1.x, s2.x;
SUB L.x, dd.x, s.x;
RCP iL.x, L.x;
MUL r.x, t.x, iL.x;
MUL r2.x, r.x, r.x;
MAD g.x, r2.x, at.x, at.y;
MAD g.x, g.x, r2.x, at.z;
MAD g.x, g.x, r2.x, at.w;
MAD g.x, g.x, r2.x, at1.x;
MUL gam.x, g.x, r.x;
# locpix1: the detector channel
MUL j1.x, gam.x, det.x;
ADD j1.x, j1.x, det.y;
CMP j1.x, j1.x, geo.w, j1.x;
SUB e1.x, j1.x, lim.x;
CMP j1.x, e1.x, j1.x, lim.x;
FLR f1.x, j1.x;
SUB w1.x, j1.x, f1.x;
# locpix1: the detector row
MUL zi.x, vz.x, dd.x;
MUL zi.x, zi.x, iL.x;
MUL j2.x, zi.x, det.z;
ADD j2.x, j2.x, det.w;
CMP j2.x, j2.x, geo.w, j2.x;
SUB e2.x, j2.x, lim.y;
CMP j2.x, e2.x, j2.x, lim.y;
FLR f2.x, j2.x;
SUB w2.x, j2.x, f2.x;
# the four neighbours' coordinates
ADD u0.x, f1.x, half.x;
MUL u0.x, u0.x, inv.x;
ADD u1.x, f1.x, half.y;
MUL u1.x, u1.x, inv.x;
ADD v0.x, f2.x, {rows[p][0]};
MUL v0.x, v0.x, inv.y;
ADD v1.x, f2.x, {rows[p][1]};
MUL v1.x, v1.x, inv.y;
MOV c00.x, u0.x;
MOV c00.y, v0.x;
MOV c10.x, u1.x;
MOV c10.y, v0.x;
MOV c01.x, u0.x;
MOV c01.y, v1.x;
MOV c11.x, u1.x;
MOV c11.y, v1.x;
TEX d00.x, c00, texture[2], 2D;
TEX d10.x, c10, texture[2], 2D;
TEX d01.x, c01, texture[2], 2D;
TEX d11.x, c11, texture[2], 2D;
LRP a.x, w1.x, d10.x, d00.x;
LRP b.x, w1.x, d11.x, d01.x;
LRP val.x, w2.x, b.x, a.x;
MUL q.x, dd.x, iL.x;
MUL q.x, q.x, q.x;
MUL val.x, val.x, q.x;
ADD acc.x, acc.x, val.x;
"""
    return s + "MOV result.color, acc.x;\nEND\n"


def aluopt_projection(p, params):
    """One projection of the ALU-optimized kernel; `params` fetches bd.x = beta, bd.y = D - 3."""
    return f"""# projection {p}
{params}ADD bd.y, bd.y, geo.z;
SCS cs.xy, bd.x;
MUL ts.xy, v, cs.x;
MAD ts.xy, nv, cs.y, ts;
SUB lr.x, bd.y, ts.y;
RCP lr.y, lr.x;
MUL r.x, ts.x, lr.y;
MUL r.y, r.x, r.x;
MAD g.x, r.y, at.x, at.y;
MAD g.x, g.x, r.y, at.z;
MAD g.x, g.x, r.y, at.w;
MAD g.x, g.x, r.y, at1.x;
MUL j.x, g.x, r.x;
MUL j.y, vz.x, bd.y;
MUL j.y, j.y, lr.y;
# locpix: channel and row at once
MUL j.xy, j, det.xzzz;
ADD j.xy, j, det.ywww;
MAX j.xy, j, geo.w;
MIN j.xy, j, lim;
FLR f.xy, j;
FRC w.xy, j;
"""


def aluopt_tail(p):
    return """LRP ab.xy, w.x, d.ywww, d.xzzz;
LRP val.x, w.y, ab.y, ab.x;
MUL q.x, bd.y, lr.y;
MUL q.x, q.x, q.x;
MAD acc.x, val.x, q.x, acc.x;
"""


ALU_DECL = """PARAM sgn = { 1, -1, 0, 0 };
TEMP v, nv, acc, bd, cs, ts, lr, r, g, j, f, w, k, d, ab, val, q;
MAD v.xy, fragment.position, geo.x, geo.y;
MUL nv.xy, v.yxxx, sgn;
MOV acc.x, geo.w;
"""


def aluopt():
    s = HEAD + "".join(stream(p) + offsets(p) for p in range(P)) + ALU_DECL
    for p in range(P):
        fetch = f"TEX bd.x, pc{p}, texture[0], 2D;\nTEX bd.y, pc{p}, texture[1], 2D;\n"
        s += aluopt_projection(p, fetch)
        s += f"""ADD k, f.xyxy, off{p};
MUL k, k, inv;
TEX d.x, k.xyyy, texture[2], 2D;
TEX d.y, k.zyyy, texture[2], 2D;
TEX d.z, k.xwww, texture[2], 2D;
TEX d.w, k.zwww, texture[2], 2D;
"""
        s += aluopt_tail(p)
    return s + "MOV result.color, acc.x;\nEND\n"


def vecin():
    s = HEAD + "".join(stream(p) for p in range(P)) + ALU_DECL.replace(
        "TEMP v,", "TEMP kk, c, m0, n0, m1, n1, t00, t10, t01, t11, h, v,"
    )
    s = s.replace(
        "PARAM sgn",
        """PARAM quarter = { 0.25, 0, 0.25, 0 };
PARAM next = { 0, 0, 1, 0 };
PARAM lane = { 0, 1, 2, 3 };
PARAM lane1 = { 1, 2, 3, 4 };
PARAM sgn""",
    )
    for p in range(P):
        r0 = 0.5 + p * R
        s = s.replace(
            "PARAM sgn",
            f"PARAM voff{p} = {{ 0.5, {r0}, 0.5, {r0 + 1} }};\nPARAM sgn",
        )
    s = s.replace("PARAM sgn", f"PARAM vinv = {{ 0.25, {1 / (R * P)}, 0.25, {1 / (R * P)} }};\nPARAM sgn")
    for p in range(P):
        fetch = f"TEX bd.xy, pc{p}, texture[0], 2D;\n"
        s += aluopt_projection(p, fetch)
        s += f"""# the float4 texels holding channels f and f + 1, and their components
ADD h.xz, f.xxxx, next;
MUL kk.xz, h, quarter;
FLR kk.xz, kk;
MOV kk.yw, f.y;
MUL c.xz, kk, lane1.w;
SUB c.xz, h, c;
ADD k, kk, voff{p};
MUL k, k, vinv;
TEX t00, k.xyyy, texture[2], 2D;
TEX t10, k.zyyy, texture[2], 2D;
TEX t01, k.xwww, texture[2], 2D;
TEX t11, k.zwww, texture[2], 2D;
SGE m0, c.x, lane;
SGE n0, c.x, lane1;
SUB m0, m0, n0;
SGE m1, c.z, lane;
SGE n1, c.z, lane1;
SUB m1, m1, n1;
DP4 d.x, t00, m0;
DP4 d.y, t10, m1;
DP4 d.z, t01, m0;
DP4 d.w, t11, m1;
"""
        s += aluopt_tail(p)
    return s + "MOV result.color, acc.x;\nEND\n"


def vecout():
    s = HEAD + "".join(stream(p) + offsets(p) for p in range(P))
    s += """PARAM lanes = { -1.5, -0.5, 0.5, 1.5 };
PARAM four = { 4, 0, 0, 0 };
TEMP px, x4, y, acc, bd, cs, tx, yc, t4, s4, L4, iL, r4, r2, g, j1, j2, zd, f1, w1, f2, w2;
TEMP k0, k1, k2, k3, e0, e1, e2, e3, ab, val, q;
MAD px, fragment.position.x, four.x, lanes;
MAD x4, px, geo.x, geo.y;
MAD y.x, fragment.position.y, geo.x, geo.y;
MOV acc, geo.w;
"""
    xyzw = "xyzw"
    for p in range(P):
        s += f"""# projection {p}: the parameters once, the arithmetic of four voxels four-wide
TEX bd.x, pc{p}, texture[0], 2D;
TEX bd.y, pc{p}, texture[1], 2D;
ADD bd.y, bd.y, geo.z;
SCS cs.xy, bd.x;
MUL tx, x4, cs.x;
MUL yc.x, y.x, cs.x;
MAD t4, y.x, cs.y, tx;
MAD s4, -x4, cs.y, yc.x;
SUB L4, bd.y, s4;
RCP iL.x, L4.x;
RCP iL.y, L4.y;
RCP iL.z, L4.z;
RCP iL.w, L4.w;
MUL r4, t4, iL;
MUL r2, r4, r4;
MAD g, r2, at.x, at.y;
MAD g, g, r2, at.z;
MAD g, g, r2, at.w;
MAD g, g, r2, at1.x;
MUL j1, g, r4;
MUL zd.x, vz.x, bd.y;
MUL j2, zd.x, iL;
MUL j1, j1, det.x;
ADD j1, j1, det.y;
MUL j2, j2, det.z;
ADD j2, j2, det.w;
MAX j1, j1, geo.w;
MIN j1, j1, lim.x;
MAX j2, j2, geo.w;
MIN j2, j2, lim.y;
FLR f1, j1;
FRC w1, j1;
FLR f2, j2;
FRC w2, j2;
"""
        for c in range(4):
            ch = xyzw[c]
            s += f"""# voxel {c}
MOV k{c}.xz, f1.{ch * 4};
MOV k{c}.yw, f2.{ch * 4};
ADD k{c}, k{c}, off{p};
MUL k{c}, k{c}, inv;
TEX e{c}.x, k{c}.xyyy, texture[2], 2D;
TEX e{c}.y, k{c}.zyyy, texture[2], 2D;
TEX e{c}.z, k{c}.xwww, texture[2], 2D;
TEX e{c}.w, k{c}.zwww, texture[2], 2D;
"""
        for c in range(4):
            ch = xyzw[c]
            s += f"""LRP ab.xy, w1.{ch * 4}, e{c}.ywww, e{c}.xzzz;
LRP val.{ch}, w2.{ch * 4}, ab.y, ab.x;
"""
        s += """MUL q, bd.y, iL;
MUL q, q, q;
MAD acc, val, q, acc;
"""
    return s + "MOV result.color, acc;\nEND\n"


VP = """!!ARBvp1.0
MOV result.position, vertex.position;
MOV result.texcoord[0], vertex.texcoord[0];
END
"""

LUM = """!!ARBfp1.0
# A scalar stream: the red channel of the pattern in all four channels (a LUMINANCE
# texture), so a fetch into any component reads the stream's value.
TEMP a;
TEX a, fragment.texcoord[0], texture[3], 2D;
MOV result.color, a.x;
END
"""

# The streams: projection angles and source distances (P texels) and the detector
# (C channels x R rows for each of the P projections, stacked), each made a LUMINANCE
# texture by the `lum` pass.
STREAMS = [("beta", "noise:11", (P, 1)), ("dist", "noise:12", (P, 1)), ("det", "noise:13", (C, R * P))]


def setup():
    out = "use program lum\n"
    for name, pattern, (w, h) in STREAMS:
        out += f"texture pattern 3 {pattern}@{w}x{h} filter nearest wrap clamp\n"
        out += f"target {name} rgba32f {w} {h}\nbind target {name}\ndraw quad\n"
    for unit, (name, _, _) in enumerate(STREAMS):
        out += f"texture target {unit} {name} filter nearest wrap clamp\n"
    return out


PACK_GEO = """!!ARBfp1.0
# The two parameter streams as one float4 stream: (beta, D - 3, 0, 0) per projection.
PARAM zero = { 0, 0, 0, 0 };
TEMP a, b;
TEX a, fragment.texcoord[0], texture[0], 2D;
TEX b, fragment.texcoord[0], texture[1], 2D;
MOV result.color, zero;
MOV result.color.x, a.x;
MOV result.color.y, b.x;
END
"""

def pack_det():
    return """!!ARBfp1.0
# Four detector channels per texel: texel (k, row) = channels 4k .. 4k + 3 of the row.
PARAM lanes = { -1.5, -0.5, 0.5, 1.5 };
PARAM scale = { 4, 0.0625, 0, 0 };
TEMP u, v, a, b, c, d;
MAD u, fragment.position.x, scale.x, lanes;
MUL u, u, scale.y;
MUL v.y, fragment.position.y, scale.y;
MOV v.x, u.x;
TEX a, v, texture[2], 2D;
MOV v.x, u.y;
TEX b, v, texture[2], 2D;
MOV v.x, u.z;
TEX c, v, texture[2], 2D;
MOV v.x, u.w;
TEX d, v, texture[2], 2D;
MOV result.color.x, a.x;
MOV result.color.y, b.x;
MOV result.color.z, c.x;
MOV result.color.w, d.x;
END
"""


KERNELS = {
    "naive": (
        "naive",
        "Each intermediate a scalar variable, COS and SIN, MUL + ADD for the rotation, the "
        "two locpix1 calls one after the other (clamps by CMP, fraction by FLR and SUB), the "
        "coordinates assembled channel by channel; four scalar detector fetches per projection "
        "(25% fetch use). The paper's GSA figures: 112 ALU (42.7%), 24 fetches (25%), 26 GPRs.",
    ),
    "aluopt": (
        "ALU optimization",
        "The naive kernel with the paper's ALU optimizations: intrinsics (SCS, MAD for the dot "
        "products, MIN/MAX, FRC), the two locpix1 calls merged into one locpix on float2, the "
        "neighbours in one register. Same fetches, same values. The paper: ALU 112 → 98, "
        "GPRs 26 → 15, slot use 42.7% → 45.9%.",
    ),
    "vecin": (
        "vector input",
        "The ALU-optimized kernel with float4 input streams: the parameters packed into one "
        "stream and four detector channels per texel (packed by two passes, the paper's "
        "layout change); each neighbour is picked from its texel by a DP4 with a one-hot mask. "
        "The paper: ALU 98 → 385, GPRs 15 → 55, fetch use 25% → 30.7%, slower (0.48×).",
    ),
    "vecout": (
        "vector output",
        "The ALU-optimized kernel with a float4 output stream: each pixel computes four voxels "
        "along x (a 4×16 domain for the 16×16 slice), the parameters fetched once, the voxel "
        "arithmetic four-wide, four detector fetches per voxel. The paper: ALU 98 → 205, "
        "fetches 24 → 44, GPRs 15 → 38, slower (0.94×).",
    ),
}


def scene(name):
    title, desc = KERNELS[name]
    fp = {"naive": naive, "aluopt": aluopt, "vecin": vecin, "vecout": vecout}[name]()
    width = N // 4 if name == "vecout" else N
    out = f"""# Seed 004, Table 3: back projection (SART, curved detector), {title}.
# Generated by gen_backproject.py (see its header for the kernel and the variants); the
# paper's loop over projections unrolled for P = {P}.

[hoist]
title = Seed 004, Table 3: back projection, {title}
description = {desc} See hoist stats.
target = g80

[vertex program]
{VP}
[fragment program]
{fp}"""
    out += f"""
[vertex program lum]
{VP}
[fragment program lum]
{LUM}"""
    if name == "vecin":
        out += f"""
[vertex program packgeo]
{VP}
[fragment program packgeo]
{PACK_GEO}
[vertex program packdet]
{VP}
[fragment program packdet]
{pack_det()}"""
    out += f"""
[test]
{setup()}"""
    if name == "vecin":
        out += f"""use program packgeo
target geo rgba32f {P} 1
bind target geo
draw quad
use program packdet
target det4 rgba32f {C // 4} {R * P}
bind target det4
draw quad
texture target 0 geo filter nearest wrap clamp
texture target 2 det4 filter nearest wrap clamp
"""
    out += f"""use program
window rgba32f {width} {N}
bind target window
draw quad
"""
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for name in KERNELS:
        text = scene(name)
        with open(os.path.join(here, f"backproject-{name}.shader_test"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

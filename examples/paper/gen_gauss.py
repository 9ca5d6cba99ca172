#!/usr/bin/env python3
"""Writes the K=13 Gaussian filter pass (horizontal) of the paper's Table 4 as a
vs_1_1/ps_2_0 pair and an ARBvp1.0/ARBfp1.0 pair.

The paper gives V = 2 and F = 63 instruction slots for its version but not its code. This
one is written the way a compiler of the time emitted such kernels (compare Figure 3):
per neighbour tap, the offset k/W, a full copy of the texture coordinate, the address
x + k/W, then the fetch and the weighted accumulation: 12 x 3 + 13 + 13 + 1 = 63 slots.
The full copy matters in ps_2_0: a texld whose destination was written before is a
first-order dependent read, and writing every component of the coordinate register first
keeps each fetch at first order (the limit is third order)."""
import math

K, W = 13, 256
h = K // 2
sigma = K / 6.0
w = [math.exp(-(k * k) / (2 * sigma * sigma)) for k in range(-h, h + 1)]
s = sum(w)
w = [x / s for x in w]
taps = list(range(-h, h + 1))
comp = "xyzw"

def chunks(v):
    return [v[i:i + 4] + [0.0] * (4 - len(v[i:i + 4])) for i in range(0, len(v), 4)]

def f(x):
    return "%.9g" % x

# --- Direct3D 9 ---------------------------------------------------------------
vs = ["vs_1_1",
      "; K=13 Gaussian filter, horizontal pass: the vertex program passes the quad through.",
      "dcl_position v0", "dcl_texcoord v1",
      "mov oPos, v0", "mov oT0.xy, v1"]
ps = ["ps_2_0",
      "; K=13 Gaussian filter, horizontal pass (the workload of Table 4 in Ikeda, Ino and",
      "; Hagihara, IPDPS 2006): y[n] = sum_k w[k] x[n+k], k = -6..6, on a %d-texel-wide image." % W,
      "def c0, %s, 0, 0, 0 ; 1/W" % f(1.0 / W)]
for i, ch in enumerate(chunks(w)):
    ps.append("def c%d, %s ; weights" % (1 + i, ", ".join(f(x) for x in ch)))
offs = [k for k in taps if k != 0]
for i, ch in enumerate(chunks([float(k) for k in offs])):
    ps.append("def c%d, %s ; tap offsets" % (5 + i, ", ".join(f(x) for x in ch)))
ps += ["dcl t0", "dcl_2d s0"]
first = True
for i, k in enumerate(taps):
    wc = "c%d.%s" % (1 + i // 4, comp[i % 4])
    if k == 0:
        ps.append("texld r1, t0, s0")
    else:
        j = offs.index(k)
        oc = "c%d.%s" % (5 + j // 4, comp[j % 4])
        ps.append("mul r2.x, c0.x, %s ; %d/W" % (oc, k))
        ps.append("mov r1, t0")
        ps.append("add r1.x, t0.x, r2.x")
        ps.append("texld r1, r1, s0")
    ps.append(("mul r0, r1, %s" % wc) if first else ("mad r0, r1, %s, r0" % wc))
    first = False
ps.append("mov oC0, r0")
open("gauss13.vsh", "w").write("\n".join(vs) + "\n")
open("gauss13.psh", "w").write("\n".join(ps) + "\n")

# --- ARB ----------------------------------------------------------------------
vp = ["!!ARBvp1.0",
      "# K=13 Gaussian filter, horizontal pass: the vertex program passes the quad through.",
      "MOV result.position, vertex.position;",
      "MOV result.texcoord[0], vertex.texcoord[0];", "END"]
fp = ["!!ARBfp1.0",
      "# K=13 Gaussian filter, horizontal pass (Table 4 of Ikeda, Ino and Hagihara, IPDPS 2006).",
      "PARAM texel = { %s, 0, 0, 0 };" % f(1.0 / W)]
for i, ch in enumerate(chunks(w)):
    fp.append("PARAM w%d = { %s };" % (i, ", ".join(f(x) for x in ch)))
for i, ch in enumerate(chunks([float(k) for k in offs])):
    fp.append("PARAM k%d = { %s };" % (i, ", ".join(f(x) for x in ch)))
fp.append("TEMP acc, tc, t, off;")
first = True
for i, k in enumerate(taps):
    wc = "w%d.%s" % (i // 4, comp[i % 4])
    if k == 0:
        fp.append("TEX t, fragment.texcoord[0], texture[0], 2D;")
    else:
        j = offs.index(k)
        fp.append("MUL off.x, texel.x, k%d.%s;" % (j // 4, comp[j % 4]))
        fp.append("MOV tc, fragment.texcoord[0];")
        fp.append("ADD tc.x, fragment.texcoord[0].x, off.x;")
        fp.append("TEX t, tc, texture[0], 2D;")
    fp.append(("MUL acc, t, %s;" % wc) if first else ("MAD acc, t, %s, acc;" % wc))
    first = False
fp += ["MOV result.color, acc;", "END"]
open("gauss13.vp", "w").write("\n".join(vp) + "\n")
open("gauss13.fp", "w").write("\n".join(fp) + "\n")

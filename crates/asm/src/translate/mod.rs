//! Translation between Direct3D 9 shader assembly and ARB programs, over the IR.
//!
//! **Test and example tooling, not part of the playground or the optimizer.** It is
//! compiled only with the `translate` cargo feature, which the test suites enable (their
//! dev-dependencies): the differential tests run D3D9 programs on llvmpipe through their ARB
//! translation, the random-program tests feed ARB programs to the D3D9 path, and the ARB
//! forms of example scenes were generated with it.
//!
//! [`to_arb`] turns a `vs_*` program into `!!ARBvp1.0` and a `ps_*` program into
//! `!!ARBfp1.0`, so D3D9 programs (the paper's Figures 3 and 5) can run on an OpenGL
//! implementation as an oracle; [`to_d3d9`] goes the other way, into vs_1_1, vs_2_0,
//! vs_2_x, ps_2_0 or ps_2_x. Where one side has no counterpart the translation stops with
//! an `E2401` diagnostic naming the construct (flow control, predication, `texldd`, ...).
//!
//! Mapping (D3D9 → ARB): `c#` keeps its slot (`Env(#)` is `program.env[#]`, a `def` a
//! literal); `v#` maps by its `dcl` semantic to the conventional attribute (position 0,
//! blend weight 1, normal 2, colours 3/4, fog 5, texcoord n 8+n, others generic attributes
//! in unused slots); macros expand: `m4x4` into DP4s, `nrm` into DP3/MAX/RSQ/MUL (a zero
//! vector stays zero, as in D3D9), `lrp` (vertex) into SUB/MAD, `sgn` into SLT/SLT/SUB,
//! `dp2add` into MAD/MAD, `sincos` (fragment) into SCS, `crs` is XPD, `logp` is LG2 and
//! vs_2_0+ `expp` EX2 (only vs_1_1 `expp` has ARB EXP's four-part result), `mova`/vs_1_1
//! `mov a0.x` into ADD 0.5/ARL (round to nearest as floor(x + 0.5): ties go up), `texkill`
//! into KIL on `.xyzz` (KIL also tests w), `_sat`
//! in vertex programs into MAX/MIN, `_pp` is dropped, `nop` disappears.
//!
//! `cmp`: D3D9 `cmp d, a, b, c` is `a >= 0 ? b : c`; ARB `CMP d, a, x, y` is
//! `a < 0 ? x : y`, so `cmp` becomes `CMP d, a, c, b`. The two agree for every number,
//! ±0 and ±inf included, but not for NaN: D3D9 selects `c` (NaN >= 0 is false) where the
//! translated ARB selects `b` (NaN < 0 is false). No ARB form is exact at both NaN and 0.
//!
//! Signs: D3D9 `log`, `logp` and `pow` ignore the sign of their first operand, ARB `LG2` and
//! `POW` do not (see `semantics`), so D3D9 → ARB takes `ABS` of it first. ARB → D3D9 keeps
//! the plain op: the two agree for non-negative inputs, and D3D9 has no form that gives
//! ARB's NaN for a negative one.
//!
//! Precision-related differences that stay: ARB `RSQ`/`RCP` of 0 give +inf where D3D9
//! `rcp` gives FLT_MAX-like values on some drivers; `_centroid` is dropped (ARB has no
//! centroid interpolation; it only matters with multisampling).
//!
//! Layout: [`tx`] holds the state both directions share (literal slots, scratch
//! temporaries, declarations); [`to_arb`] and [`to_d3d9`] are one direction each.

mod to_arb;
mod to_d3d9;
mod tx;

pub use to_arb::to_arb;
pub use to_d3d9::to_d3d9;

//! Direct3D 9 pairs with flow control and predication (vs_3_0 + ps_3_0), for the executor's
//! tests rather than the optimizer's (which refuses flow control, see the module header):
//! `loop aL, i#` with drawn start, step and count (zero iterations included), `rep`,
//! `if_*`/`else` on interpolated values, `break_*` out of a loop, `setp_*` with predicated
//! and negated-predicate writes, `if b#`, texture reads inside loops, and a vertex program
//! that loops too. Each block is drawn independently, so pairs exercise the combinations.
//! Values stay bounded (`frc` after accumulations, constants in [-2, 2]).

use super::Pair;
use super::common::{Rng, num};

fn vec4(rng: &mut Rng) -> String {
    (0..4)
        .map(|_| num(rng.nice()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cond(rng: &mut Rng) -> &'static str {
    rng.pick(&["gt", "ge", "lt", "le", "eq", "ne"])
}

fn vertex(rng: &mut Rng) -> String {
    let mut v = String::from(
        "vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\n\
         dcl_texcoord1 o2\n",
    );
    v += &format!("def c0, {}\n", vec4(rng));
    v += &format!("defi i0, {}, 0, 1, 0\n", rng.range(0, 3));
    v += "mov o0, v0\nmov r0, v1\n";
    if rng.chance(0.5) {
        v += "loop aL, i0\n  mad r0.xy, r0, c0.x, c0.y\n  frc r0.xy, r0\nendloop\n";
    }
    v += "mov o1, r0\nmad o2, v1.yxwz, c0.z, c0.w\n";
    v
}

/// The loop body's optional blocks.
fn loop_body(rng: &mut Rng) -> String {
    let mut b = String::from("  mad r0, r1, c1, r0\n");
    if rng.chance(0.6) {
        b += &format!("  if_{} r0.x, c2.x\n    add r0.y, r0.y, c3.x\n", cond(rng));
        if rng.chance(0.5) {
            b += "  else\n    mul r0.z, r0.z, c3.y\n";
        }
        b += "  endif\n";
    }
    if rng.chance(0.4) {
        b += &format!("  break_{} r0.w, c2.z\n", cond(rng));
    }
    if rng.chance(0.6) {
        b += "  texld r3, r1, s0\n  add r0, r0, r3\n";
    }
    if rng.chance(0.6) {
        let neg = if rng.chance(0.3) { "!" } else { "" };
        b += &format!(
            "  setp_{} p0, r0, c2\n  ({neg}p0) add r1.xy, r1, c3.zwzw\n",
            cond(rng)
        );
    }
    b += "  frc r0, r0\n  frc r1.xy, r1\n";
    b
}

fn fragment(rng: &mut Rng) -> String {
    let mut f = String::from("ps_3_0\n");
    for c in 0..4 {
        f += &format!("def c{c}, {}\n", vec4(rng));
    }
    let (n, start, step) = (rng.range(0, 5), rng.range(0, 4), rng.range(0, 3));
    f += &format!("defi i0, {n}, {start}, {step}, 0\n");
    f += &format!("defi i1, {}, 0, 0, 0\n", rng.range(0, 3));
    f += &format!("defb b0, {}\n", rng.chance(0.5));
    f += "dcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_2d s0\n";
    f += "mov r0, c0\nmov r1, v0\nmov r2, v1\n";
    f += "loop aL, i0\n";
    f += &loop_body(rng);
    f += "endloop\n";
    if rng.chance(0.5) {
        f += "rep i1\n  mad r0, r0, c3, r2\n  frc r0, r0\nendrep\n";
    }
    if rng.chance(0.5) {
        f += "if b0\n  add r0.xy, r0, r2\nelse\n  mul r0.zw, r0, r2\nendif\n";
    }
    if rng.chance(0.4) {
        f += &format!(
            "setp_{} p0.x, r2.x, c1.x\n(p0.x) mov r0.w, c2.w\n",
            cond(rng)
        );
    }
    f += "mov oC0, r0\n";
    f
}

/// A vs_3_0 + ps_3_0 pair with flow control, deterministic in `seed`.
pub fn pair(seed: u64) -> Pair {
    let mut rng = Rng::new(seed ^ 0x464c_4f57_5053_3330);
    let fp = fragment(&mut rng.fork());
    let vp = vertex(&mut rng.fork());
    Pair {
        vp,
        fp,
        label: format!("d3d9 flow seed {seed}"),
    }
}

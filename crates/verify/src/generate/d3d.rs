//! What Direct3D 9 vertex and pixel shaders share: the generic opcode list of a profile,
//! matrix macros over `def`'d or host-set row blocks, `sincos` with the profile's operand
//! rules, `sgn` with its scratch registers, and the `def` block.

use super::arith::result_info;
use super::builder::{BIG, Class, Cond, DstReg, Gen, Info, Mods, Port, Ports, Req, Swz, Want};
use hoist_asm::{Op, Profile};

/// fxc's D3DSINCOSCONST1 and D3DSINCOSCONST2.
pub(super) const SINCOS: [[f32; 4]; 2] = [
    [
        -1.550_099_2e-6,
        -2.170_139e-5,
        0.002_604_166_7,
        0.000_260_416_68,
    ],
    [-0.020_833_334, -0.125, 1.0, 0.5],
];

/// Arithmetic opcodes the generic step draws, with weights, before filtering by profile.
const GENERIC: [(Op, u32); 29] = [
    (Op::Abs, 3),
    (Op::Add, 8),
    (Op::Dp3, 7),
    (Op::Dp4, 5),
    (Op::Dst, 2),
    (Op::Ex2, 2),
    (Op::Exp, 2),
    (Op::Frc, 2),
    (Op::Lg2, 2),
    (Op::Lit, 2),
    (Op::Log, 2),
    (Op::Mad, 9),
    (Op::Max, 3),
    (Op::Min, 3),
    (Op::Mov, 6),
    (Op::Mul, 9),
    (Op::Rcp, 3),
    (Op::Rsq, 3),
    (Op::Sge, 2),
    (Op::Slt, 2),
    (Op::Sub, 4),
    (Op::Xpd, 2),
    (Op::Lrp, 3),
    (Op::Nrm, 3),
    (Op::Pow, 2),
    (Op::CmpGe, 3),
    (Op::Dp2add, 3),
    (Op::Dsx, 1),
    (Op::Dsy, 1),
];

/// The generic opcodes `p` has.
pub(super) fn generic_ops(p: Profile) -> Vec<(Op, u32)> {
    GENERIC.into_iter().filter(|(op, _)| p.has(*op)).collect()
}

/// A generic arithmetic instruction of the profile.
pub(super) fn generic(g: &mut Gen, ops: &[(Op, u32)], want: Want) -> u16 {
    let w: Vec<u32> = ops.iter().map(|o| o.1).collect();
    let op = ops[g.rng.weighted(&w)].0;
    g.alu(op, want)
}

/// `mAxB dst, v, cN`: `v` (never a constant, so vertex shaders keep one constant port) times
/// the rows of a block of four constants starting at `base`.
pub(super) fn matrix(g: &mut Gen, base: u16, dst: Option<DstReg>) -> Option<u16> {
    let op = g
        .rng
        .pick(&[Op::M4x4, Op::M4x3, Op::M3x3, Op::M3x4, Op::M3x2]);
    if !g.fits(op, 3) {
        return None;
    }
    let (cols, mask) = match op {
        Op::M4x4 => (15, 15),
        Op::M4x3 => (15, 7),
        Op::M3x4 => (7, 15),
        Op::M3x3 => (7, 7),
        _ => (7, 3),
    };
    let mut ports = Ports::default();
    ports.add(Port::Const(base));
    let req = Req::new(cols, Swz::Any, Want::Any).cond(Cond::Small(BIG / 16.0));
    let v = src_not_const(g, req, &mut ports);
    let busy: Vec<u16> = v.temp_index().into_iter().collect();
    let dst = match dst {
        Some(d) => DstReg { mask, ..d },
        None => {
            let t = g.pick_dst(&busy);
            g.temp_dst(t, mask)
        }
    };
    let rows = g
        .pool
        .iter()
        .find(|p| p.port == Port::Const(base))
        .cloned()?;
    let m = g.whole(&rows);
    let info = result_info(op, &[v.clone(), m.clone()]);
    let mods = if dst.temp.is_some() {
        g.mods_for(op, false)
    } else {
        Mods::default()
    };
    g.emit(op, mods, Some(&dst), &[v, m], info);
    dst.temp
}

/// A source that is not a constant register (copied to a temporary when it would be).
fn src_not_const(g: &mut Gen, req: Req, ports: &mut Ports) -> super::builder::Opnd {
    let o = g.src(req, ports, &[]);
    if !matches!(o.port, Port::Const(_) | Port::Rel(_)) {
        return o;
    }
    let t = g.scratch(&[]);
    let d = g.temp_dst(t, 15);
    let info = o.info;
    let plain = super::builder::Opnd {
        swz: [0, 1, 2, 3],
        neg: false,
        abs: false,
        ..o.clone()
    };
    let mut p2 = Ports::default();
    p2.add(plain.port);
    g.emit(Op::Mov, Mods::default(), Some(&d), &[plain], info);
    let mut r = g.read_temp(t, o.swz, req.need);
    r.neg = o.neg;
    r
}

/// `sincos dst.{x|y|xy}, src.c[, c1, c2]`: sm2 profiles name the two D3DSINCOSCONST
/// registers, 3_0 takes only the angle.
pub(super) fn sincos(g: &mut Gen, consts: Option<u16>) {
    if !g.fits(Op::Sincos, 3) {
        return;
    }
    let mask = g.op_mask(Op::Sincos);
    let mut ports = Ports::default();
    let want = if g.rng.chance(0.3) {
        Want::Movable
    } else {
        Want::Any
    };
    let req = Req::new(1, Swz::Scalar, want).cond(Cond::Small(3.0));
    let a = g.src(req, &mut ports, &[]);
    let mut srcs = vec![a];
    if let Some(c) = consts {
        for k in [c, c + 1] {
            if let Some(v) = g.pool.iter().find(|p| p.port == Port::Const(k)).cloned() {
                srcs.push(g.whole(&v));
            }
        }
    }
    let info = Info::new(1.0, 0.0, super::builder::nonlinear(srcs[0].info.class));
    let busy: Vec<u16> = srcs[0].temp_index().into_iter().collect();
    let t = g.pick_dst(&busy);
    let dst = g.temp_dst(t, mask);
    let pp = !g.vs() && g.rng.chance(0.15);
    g.emit(Op::Sincos, Mods { sat: false, pp }, Some(&dst), &srcs, info);
}

/// `sgn dst, src, rA, rB`: the two scratch temporaries are clobbered.
pub(super) fn sgn(g: &mut Gen) {
    if !g.fits(Op::Sgn, 3) || g.temp_cap < 6 {
        return;
    }
    let mut ports = Ports::default();
    let a = g.src(Req::new(15, Swz::Any, Want::Any), &mut ports, &[]);
    let mut busy: Vec<u16> = a.temp_index().into_iter().collect();
    let s1 = g.scratch(&busy);
    busy.push(s1);
    let s2 = g.scratch(&busy);
    busy.push(s2);
    let t = g.pick_dst(&[s1, s2]);
    let mask = g.op_mask(Op::Sgn);
    let dst = g.temp_dst(t, mask);
    let scratch = [s1, s2].map(|s| g.read_temp(s, [0, 1, 2, 3], 0));
    let info = Info::new(1.0, 0.0, super::builder::nonlinear(a.info.class));
    g.emit(
        Op::Sgn,
        Mods::default(),
        Some(&dst),
        &[a, scratch[0].clone(), scratch[1].clone()],
        info,
    );
    let garbage = Info::new(f32::INFINITY, 0.0, Class::Varying);
    for s in [s1, s2] {
        if s != t {
            g.temps[s as usize].lanes = [Some(garbage); 4];
        }
    }
}

/// `def` lines of the literal registers, in register order.
pub(super) fn defs(g: &Gen) -> Vec<String> {
    let mut d: Vec<(u16, String)> = g
        .pool
        .iter()
        .filter_map(|v| match (v.port, v.vals) {
            (Port::Const(c), Some(vals)) => Some((
                c,
                format!(
                    "def c{c}, {}, {}, {}, {}",
                    super::common::num(vals[0]),
                    super::common::num(vals[1]),
                    super::common::num(vals[2]),
                    super::common::num(vals[3])
                ),
            )),
            _ => None,
        })
        .collect();
    hoist_asm::sort::by_key(&mut d, |x| x.0);
    d.into_iter().map(|x| x.1).collect()
}

/// Joins a shader's parts.
pub(super) fn text(header: &str, comment: bool, decls: &[String], body: &[String]) -> String {
    let mut s = String::new();
    if comment {
        s.push_str("// generated by hoist-verify\n");
    }
    s.push_str(header);
    s.push('\n');
    for l in decls.iter().chain(body) {
        s.push_str(l);
        s.push('\n');
    }
    s
}

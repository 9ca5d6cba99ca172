//! Translation preserves meaning: a small reference evaluator runs a program and its
//! translation on the same random inputs and constants and compares every output.
//!
//! The evaluator follows the op summary of `hoist_asm::ops` (straight-line code only;
//! texture lookups return a fixed function of unit and coordinate, the same on both sides).

use hoist_asm::ir::{ConstBinding, ExtSel, Program, Reg, RegFile, Semantic, Src, TexTarget};
use hoist_asm::translate::{to_arb, to_d3d9};
use hoist_asm::{Dialect, Op, ParseOptions, Profile, parse};
use std::collections::HashMap;

struct Rng(u64);
impl Rng {
    fn f(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
    }
}

type V = [f32; 4];

struct World {
    env: Vec<V>,
    inputs: HashMap<Semantic, V>,
}

#[derive(Debug, Default)]
struct Out {
    /// By semantic: value and written lanes (depth and fog as lane 0).
    vals: HashMap<Semantic, (V, u8)>,
    killed: bool,
}

// Long by design: the evaluator is one match with a short arm per op.
fn run(p: &Program, w: &World) -> Out {
    let mut regs: HashMap<Reg, V> = HashMap::new();
    let mut out = Out::default();
    let konst = |slot: usize| -> V {
        match p.consts.get(slot).map(|c| &c.binding) {
            Some(ConstBinding::Literal(l)) => l.value,
            Some(ConstBinding::Env(n)) => w.env[*n as usize],
            _ => [0.0; 4],
        }
    };
    let read = |regs: &HashMap<Reg, V>, s: &Src, row: u16| -> V {
        let mut idx = s.reg.index as i32 + row as i32;
        if let Some(rel) = &s.rel {
            let a = regs.get(&rel.reg).copied().unwrap_or([0.0; 4])[rel.comp as usize];
            idx += a as i32 + rel.offset as i32;
            if idx < rel.lo as i32 || idx >= rel.hi as i32 {
                return [0.0; 4];
            }
        }
        let raw = match s.reg.file {
            RegFile::Const => konst(idx as usize),
            RegFile::Input | RegFile::TexCoord => {
                let sem = p.semantic(Reg::new(s.reg.file, idx as u16)).unwrap();
                w.inputs[&sem]
            }
            _ => regs
                .get(&Reg::new(s.reg.file, idx as u16))
                .copied()
                .unwrap_or([0.0; 4]),
        };
        let mut v = [0.0; 4];
        for c in 0..4 {
            let mut x = raw[s.swizzle.get(c as u8) as usize];
            if s.abs {
                x = x.abs();
            }
            if s.negate {
                x = -x;
            }
            v[c] = x;
        }
        v
    };
    let arb = p.profile.dialect() == Dialect::Arb;
    for inst in &p.insts {
        let src: Vec<V> = inst.src.iter().map(|s| read(&regs, s, 0)).collect();
        let dot = |n: usize, a: &V, b: &V| (0..n).map(|i| a[i] * b[i]).sum::<f32>();
        let cw = |f: &dyn Fn(usize) -> f32| [f(0), f(1), f(2), f(3)];
        let s = |x: f32| [x; 4];
        let r: V = match inst.op {
            Op::Mov => src[0],
            Op::Add => cw(&|c| src[0][c] + src[1][c]),
            Op::Sub => cw(&|c| src[0][c] - src[1][c]),
            Op::Mul => cw(&|c| src[0][c] * src[1][c]),
            Op::Mad => cw(&|c| src[0][c] * src[1][c] + src[2][c]),
            Op::Max => cw(&|c| hoist_asm::semantics::max(src[0][c], src[1][c])),
            Op::Min => cw(&|c| hoist_asm::semantics::min(src[0][c], src[1][c])),
            Op::Abs => cw(&|c| src[0][c].abs()),
            Op::Frc => cw(&|c| src[0][c] - src[0][c].floor()),
            Op::Flr => cw(&|c| src[0][c].floor()),
            Op::Sge => cw(&|c| if src[0][c] >= src[1][c] { 1.0 } else { 0.0 }),
            Op::Slt => cw(&|c| if src[0][c] < src[1][c] { 1.0 } else { 0.0 }),
            Op::Cmp => cw(&|c| {
                if src[0][c] < 0.0 {
                    src[1][c]
                } else {
                    src[2][c]
                }
            }),
            Op::CmpGe => cw(&|c| {
                if src[0][c] >= 0.0 {
                    src[1][c]
                } else {
                    src[2][c]
                }
            }),
            Op::Lrp => cw(&|c| src[0][c] * src[1][c] + (1.0 - src[0][c]) * src[2][c]),
            Op::Dp3 => s(dot(3, &src[0], &src[1])),
            Op::Dp4 => s(dot(4, &src[0], &src[1])),
            Op::Dph => s(dot(3, &src[0], &src[1]) + src[1][3]),
            Op::Dp2add => s(dot(2, &src[0], &src[1]) + src[2][0]),
            Op::Rcp => s(1.0 / src[0][0]),
            Op::Rsq => s(1.0 / src[0][0].abs().sqrt()),
            Op::Ex2 => s(src[0][0].exp2()),
            // D3D9 ignores the sign of the input; ARB does not (NaN, or C's signed pow).
            Op::Lg2 if arb => s(src[0][0].log2()),
            Op::Pow if arb => s(src[0][0].powf(src[1][0])),
            Op::Lg2 => s(src[0][0].abs().log2()),
            Op::Pow => s(src[0][0].abs().powf(src[1][0])),
            Op::Exp => {
                let x = src[0][0];
                [x.floor().exp2(), x - x.floor(), x.exp2(), 1.0]
            }
            Op::Log => {
                let x = src[0][0].abs();
                let e = x.log2().floor();
                [e, x / e.exp2(), x.log2(), 1.0]
            }
            Op::Lit => {
                let (x, y, wv) = (src[0][0], src[0][1], src[0][3].clamp(-128.0, 128.0));
                let spec = if x > 0.0 { y.max(0.0).powf(wv) } else { 0.0 };
                [1.0, x.max(0.0), spec, 1.0]
            }
            Op::Dst => [1.0, src[0][1] * src[1][1], src[0][2], src[1][3]],
            Op::Xpd => {
                let (a, b) = (src[0], src[1]);
                [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                    0.0,
                ]
            }
            Op::Nrm => {
                let f = 1.0 / dot(3, &src[0], &src[0]).sqrt();
                cw(&|c| src[0][c] * f)
            }
            Op::Sgn => cw(&|c| src[0][c].signum() * (src[0][c] != 0.0) as u8 as f32),
            Op::Scs | Op::Sincos => [src[0][0].cos(), src[0][0].sin(), 0.0, 0.0],
            Op::Sin => s(src[0][0].sin()),
            Op::Cos => s(src[0][0].cos()),
            Op::Arl => s(src[0][0].floor()),
            Op::Mova => cw(&|c| src[0][c].round()),
            Op::Swz => {
                let e = inst.ext_swizzle.unwrap();
                let raw = read(
                    &regs,
                    &Src {
                        swizzle: hoist_asm::Swizzle::IDENTITY,
                        ..inst.src[0].clone()
                    },
                    0,
                );
                cw(&|c| {
                    let v = match e.sel[c] {
                        ExtSel::Comp(k) => raw[k as usize],
                        ExtSel::Zero => 0.0,
                        ExtSel::One => 1.0,
                    };
                    if e.neg[c] { -v } else { v }
                })
            }
            Op::M4x4 | Op::M4x3 | Op::M3x4 | Op::M3x3 | Op::M3x2 => {
                let n = if matches!(inst.op, Op::M4x4 | Op::M4x3) {
                    4
                } else {
                    3
                };
                let rows = inst.op.matrix_rows().unwrap();
                let mut v = [0.0; 4];
                for (r, x) in v.iter_mut().enumerate().take(rows as usize) {
                    *x = dot(n, &src[0], &read(&regs, &inst.src[1], r as u16));
                }
                v
            }
            Op::Tex | Op::Txb | Op::Txp => {
                let t = inst.tex.unwrap();
                let mut c = src[0];
                if inst.op == Op::Txp {
                    c = [c[0] / c[3], c[1] / c[3], c[2] / c[3], 1.0];
                }
                let z = if matches!(t.target, TexTarget::T2D) {
                    0.0
                } else {
                    c[2]
                };
                [c[0] + c[1], c[0] - c[1] + z, c[0] * c[1], t.unit as f32]
            }
            Op::Kil => {
                out.killed |= src[0].iter().any(|&x| x < 0.0);
                continue;
            }
            Op::Texkil => {
                out.killed |= src[0][..3].iter().any(|&x| x < 0.0);
                continue;
            }
            Op::Nop => continue,
            other => panic!("evaluator: {other:?}"),
        };
        let d = inst.dst.as_ref().unwrap();
        let mut r = r;
        if inst.sat {
            r = r.map(|x| x.clamp(0.0, 1.0));
        }
        if d.reg.file.is_output() {
            let sem = p.semantic(d.reg).unwrap();
            let e = out.vals.entry(sem).or_insert(([0.0; 4], 0));
            let depth = d.reg.file == RegFile::DepthOut;
            for c in d.mask.iter() {
                let lane = if depth { 0 } else { c as usize };
                e.0[lane] = r[c as usize];
                e.1 |= 1 << lane;
            }
        } else {
            let e = regs.entry(d.reg).or_insert([0.0; 4]);
            for c in d.mask.iter() {
                e[c as usize] = r[c as usize];
            }
        }
    }
    out
}

fn close(a: f32, b: f32) -> bool {
    a == b || (a - b).abs() <= 2e-3 * (1.0 + a.abs().max(b.abs())) || (a.is_nan() && b.is_nan())
}

fn same(p: &Program, q: &Program, what: &str) {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for trial in 0..64 {
        let env: Vec<V> = (0..256)
            .map(|_| [rng.f(), rng.f(), rng.f(), rng.f()])
            .collect();
        let mut inputs = HashMap::new();
        for prog in [p, q] {
            for d in &prog.io {
                if d.reg.file.is_input() {
                    let v = [rng.f(), rng.f(), rng.f(), rng.f().abs() + 0.5];
                    inputs.entry(d.semantic).or_insert(v);
                }
            }
        }
        // Generic attributes of an ARB translation carry the value of their D3D9 usage.
        let w = World { env, inputs };
        let (a, b) = (run(p, &w), run(q, &w));
        assert_eq!(a.killed, b.killed, "{what}: trial {trial}: kill differs");
        assert_eq!(
            a.vals.keys().collect::<std::collections::BTreeSet<_>>(),
            b.vals.keys().collect::<std::collections::BTreeSet<_>>(),
            "{what}: outputs differ"
        );
        for (sem, (va, ma)) in &a.vals {
            let (vb, mb) = &b.vals[sem];
            assert_eq!(ma, mb, "{what}: {sem:?} lanes written differ");
            for c in 0..4 {
                if ma & (1 << c) != 0 {
                    assert!(
                        close(va[c], vb[c]),
                        "{what}: trial {trial}: {sem:?}.{c}: {} vs {}",
                        va[c],
                        vb[c]
                    );
                }
            }
        }
    }
}

fn parse_ok(src: &str) -> Program {
    let r = parse(src, &ParseOptions::default());
    let msgs: Vec<String> = r
        .errors()
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    r.program.unwrap_or_else(|| panic!("{msgs:#?}\n{src}"))
}

fn file(name: &str) -> Program {
    parse_ok(
        &std::fs::read_to_string(format!("{}/tests/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap(),
    )
}

#[test]
fn d3d9_programs_mean_the_same_in_arb() {
    for name in [
        "d3d9/fig3a.vsh",
        "d3d9/fig3b.psh",
        "d3d9/fig5a.vsh",
        "d3d9/fig5b.psh",
        "d3d9/all_vs_1_1.vsh",
        "d3d9/all_ps_2_0.psh",
    ] {
        let p = file(name);
        same(&p, &to_arb(&p).unwrap(), name);
    }
    let macros = "vs_2_0\ndcl_position v0\ndcl_normal v1\n\
        m4x4 oPos, v0, c0\nnrm r0, v1\nlrp r1, r0, v0, c4\nsgn r2, r1, r3, r4\n\
        crs r3.xyz, r0, r1\nabs r4, r1\npow r5, r4.x, r0.y\nmova a0.x, r0.x\n\
        mov r6, c[a0.x + 10]\nmov oT0, r1\nmov oT1, r2\nmov oT2.xyz, r3\nmov oT3, r5\nmov oT4, r6\n";
    let p = parse_ok(macros);
    same(&p, &to_arb(&p).unwrap(), "vs_2_0 macros");
}

#[test]
fn arb_programs_mean_the_same_in_d3d9() {
    let vp = file("d3d9_arb/ops.vp");
    for t in [Profile::Vs1_1, Profile::Vs2_0, Profile::Vs2_x] {
        let d = to_d3d9(&vp, t).unwrap();
        same(&vp, &d, &format!("ops.vp as {t}"));
    }
    let fp = file("d3d9_arb/ops.fp");
    for t in [Profile::Ps2_0, Profile::Ps2_x] {
        let d = to_d3d9(&fp, t).unwrap();
        same(&fp, &d, &format!("ops.fp as {t}"));
    }
}

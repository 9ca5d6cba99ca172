//! Instruction-slot figures and op availability per D3D9 model, checked against
//! Microsoft's tables: "Instructions - vs_1_1/vs_2_0/vs_2_x/vs_3_0" and
//! "ps_2_0/ps_2_x/ps_3_0 Instructions" (DirectX 9 asm shader reference, "Instruction
//! slots" column). Expected values below are copied from those tables.

use hoist_asm::Op::{self, *};
use hoist_asm::Profile::{self, *};
use hoist_asm::ops::Cond;

fn check(p: Profile, table: &[(Op, u8)], absent: &[Op]) {
    for &(op, n) in table {
        assert_eq!(p.slots(op), Some(n), "{p} {op:?}");
    }
    for &op in absent {
        assert_eq!(p.slots(op), None, "{p} should not have {op:?}");
    }
}

const MATRIX: [(Op, u8); 5] = [(M3x2, 2), (M3x3, 3), (M3x4, 4), (M4x3, 3), (M4x4, 4)];

#[test]
fn vs_1_1() {
    let mut t = vec![
        (Add, 1),
        (Dp3, 1),
        (Dp4, 1),
        (Dst, 1),
        (Ex2, 10),
        (Exp, 1),
        (Frc, 3),
        (Lit, 1),
        (Lg2, 10),
        (Log, 1),
        (Mad, 1),
        (Max, 1),
        (Min, 1),
        (Mov, 1),
        (Mul, 1),
        (Nop, 1),
        (Rcp, 1),
        (Rsq, 1),
        (Sge, 1),
        (Slt, 1),
        (Sub, 1),
        (Mova, 1),
    ];
    t.extend(MATRIX);
    check(
        Vs1_1,
        &t,
        &[
            Abs, Xpd, Lrp, Nrm, Pow, Sgn, Sincos, CmpGe, If, Loop, Call, Tex,
        ],
    );
}

fn vs2_common() -> Vec<(Op, u8)> {
    let mut t = vec![
        (Abs, 1),
        (Add, 1),
        (Call, 2),
        (Callnz, 3),
        (Xpd, 2),
        (Dp3, 1),
        (Dp4, 1),
        (Dst, 1),
        (Else, 1),
        (Endif, 1),
        (Endloop, 2),
        (Endrep, 2),
        (Ex2, 1),
        (Exp, 1),
        (Frc, 1),
        (If, 3),
        (Label, 0),
        (Lit, 3),
        (Lg2, 1),
        (Log, 1),
        (Loop, 3),
        (Lrp, 2),
        (Mad, 1),
        (Max, 1),
        (Min, 1),
        (Mov, 1),
        (Mova, 1),
        (Mul, 1),
        (Nop, 1),
        (Nrm, 3),
        (Pow, 3),
        (Rcp, 1),
        (Rep, 3),
        (Ret, 1),
        (Rsq, 1),
        (Sge, 1),
        (Sgn, 3),
        (Sincos, 8),
        (Slt, 1),
        (Sub, 1),
    ];
    t.extend(MATRIX);
    t
}

#[test]
fn vs_2_0() {
    check(
        Vs2_0,
        &vs2_common(),
        &[
            Break,
            Breakp,
            Ifc(Cond::Gt),
            Setp(Cond::Lt),
            CmpGe,
            Tex,
            Texldl,
        ],
    );
}

#[test]
fn vs_2_x_and_3_0() {
    let mut t = vs2_common();
    t.extend([
        (Break, 1),
        (Breakc(Cond::Ne), 3),
        (Breakp, 3),
        (Ifc(Cond::Gt), 3),
        (Setp(Cond::Eq), 1),
    ]);
    check(Vs2_x, &t, &[CmpGe, Cnd, Texldl, Tex, Dsx]);
    t.push((Texldl, 2));
    check(Vs3_0, &t, &[CmpGe, Cnd, Tex, Txb, Texkil, Dp2add]);
}

fn ps2_common() -> Vec<(Op, u8)> {
    let mut t = vec![
        (Abs, 1),
        (Add, 1),
        (CmpGe, 1),
        (Xpd, 2),
        (Dp2add, 2),
        (Dp3, 1),
        (Dp4, 1),
        (Ex2, 1),
        (Frc, 1),
        (Lg2, 1),
        (Lrp, 2),
        (Mad, 1),
        (Max, 1),
        (Min, 1),
        (Mov, 1),
        (Mul, 1),
        (Nop, 1),
        (Nrm, 3),
        (Pow, 3),
        (Rcp, 1),
        (Rsq, 1),
        (Sincos, 8),
        (Sub, 1),
        (Tex, 1),
    ];
    t.extend(MATRIX);
    t
}

#[test]
fn ps_2_0() {
    let mut t = ps2_common();
    t.extend([(Texkil, 1), (Txb, 1), (Txp, 1)]);
    check(
        Ps2_0,
        &t,
        &[
            Cnd, Sge, Slt, Lit, Dst, Exp, Log, Mova, Sgn, If, Rep, Texldd, Dsx,
        ],
    );
}

#[test]
fn ps_2_x_and_3_0() {
    let mut t = ps2_common();
    t.extend([
        (Break, 1),
        (Breakc(Cond::Gt), 3),
        (Breakp, 3),
        (Call, 2),
        (Callnz, 3),
        (Dsx, 2),
        (Dsy, 2),
        (Else, 1),
        (Endif, 1),
        (Endrep, 2),
        (If, 3),
        (Ifc(Cond::Le), 3),
        (Label, 0),
        (Rep, 3),
        (Ret, 1),
        (Setp(Cond::Ge), 1),
        (Texldd, 3),
    ]);
    let mut t2 = t.clone();
    t2.extend([(Texkil, 1), (Txb, 1), (Txp, 1)]);
    check(Ps2_x, &t2, &[Cnd, Loop, Endloop, Texldl, Sge, Lit]);
    // ps_3_0: non-cube figures (notes 1-3 of the table give the cube-map costs).
    t.extend([
        (Loop, 3),
        (Endloop, 2),
        (Texkil, 2),
        (Txb, 6),
        (Txp, 3),
        (Texldl, 2),
    ]);
    check(Ps3_0, &t, &[Cnd, Sge, Slt, Lit, Mova]);
}

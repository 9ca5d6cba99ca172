//! The ARB fog options (`OPTION ARB_fog_linear | ARB_fog_exp | ARB_fog_exp2`) as IR
//! appended to the fragment program, the way Mesa lowers them, so the interpreter and the
//! compiled kernels run the same instructions.
//!
//! ARB_fragment_program, "fog application": with a fog option the fragment's final
//! `result.color` RGB is blended with the fog colour, `C = f·Cr + (1 − f)·Cf`, alpha kept,
//! where the fog factor `f` comes from the interpolated fog coordinate `c` =
//! `fragment.fogcoord.x` and the fog state, and is clamped to [0, 1]:
//! linear `f = (end − c)/(end − start)`, exp `f = e^(−density·c)`, exp2
//! `f = e^(−(density·c)²)`. As Mesa does (`_mesa_append_fog_code`): linear is one `MAD_SAT`
//! of `c` with −1/(end − start) and end/(end − start), exp and exp2 are `EX2_SAT` of
//! `−c·density/ln 2` and of `−(c·density/√ln 2)²`, and the blend is `LRP`. The constants
//! come from `state.fog.params` (density, start, end, 1/(end − start)) and `state.fog.color`,
//! so a scene's fog state reaches both executors through the constant table (Mesa rounds
//! density/ln 2 once in double; here density·log2 e is one f32 product: the same for the
//! default density 1). The colour is clamped to [0, 1] before the blend, alpha included,
//! whatever `GL_CLAMP_FRAGMENT_COLOR` says: the oracle, llvmpipe of Mesa 22.3, appends its
//! fog code with `saturate = TRUE` (the ARB spec's colour results are [0, 1]; Mesa's own
//! comment calls leaving clamping off a to-do, and Mesa's later NIR lowering of 2023 drops
//! it). GL leaves `start == end` undefined (here the factor is then ±inf or NaN before the
//! clamp). A program that never writes `result.color` gets no fog (Mesa skips it too).

use hoist_asm::ir::{
    ArbOption, ConstBinding, ConstSlot, Dst, Inst, Literal, LiteralForm, Reg, RegFile, Span, Src,
    Swizzle, WriteMask,
};
use hoist_asm::state::StateRef;
use hoist_asm::{Dialect, Op, Program, Stage};

/// log2(e) and 1/√ln 2, Mesa's `M_LOG2E` and `ONE_DIV_SQRT_LN2`.
const LOG2E: f32 = std::f32::consts::LOG2_E;
const ONE_DIV_SQRT_LN2: f32 = 1.201_122_4;

/// Which fog option a program asks for.
pub fn mode(p: &Program) -> Option<ArbOption> {
    if p.dialect() != Dialect::Arb || p.stage() != Stage::Fragment {
        return None;
    }
    p.options
        .iter()
        .find(|o| {
            matches!(
                o,
                ArbOption::FogLinear | ArbOption::FogExp | ArbOption::FogExp2
            )
        })
        .cloned()
}

fn add_const(p: &mut Program, binding: ConstBinding) -> Reg {
    p.consts.push(ConstSlot {
        binding,
        span: Span::NONE,
    });
    Reg::new(RegFile::Const, (p.consts.len() - 1) as u16)
}

fn src(r: Reg, c: u8) -> Src {
    Src::new(r).swizzled(Swizzle::splat(c))
}

fn inst(op: Op, sat: bool, dst: Dst, srcs: impl IntoIterator<Item = Src>) -> Inst {
    let mut i = Inst::new(op, Some(dst), srcs);
    i.sat = sat;
    i
}

/// The program with its fog option applied as appended instructions (the program itself
/// when it has none).
pub fn lower(p: &Program) -> Program {
    let color = Reg::new(RegFile::ColorOut, 0);
    let writes_color = p
        .insts
        .iter()
        .any(|i| i.dst.as_ref().is_some_and(|d| d.reg == color));
    let Some(mode) = mode(p).filter(|_| writes_color) else {
        return p.clone();
    };
    let mut q = p.clone();
    let params = add_const(&mut q, ConstBinding::State(StateRef::FogParams));
    let fog_color = add_const(&mut q, ConstBinding::State(StateRef::FogColor));
    let lit = add_const(
        &mut q,
        ConstBinding::Literal(Literal {
            value: [LOG2E, ONE_DIV_SQRT_LN2, 0.0, 0.0],
            form: LiteralForm::Vector(4),
        }),
    );
    let f = Reg::new(RegFile::Temp, q.num_temps);
    let clamped = Reg::new(RegFile::Temp, q.num_temps + 1);
    q.num_temps += 2;
    let coord = src(Reg::new(RegFile::Input, 2), 0);
    let (fx, fy) = (Dst::new(f, WriteMask::X), Dst::new(f, WriteMask::Y));
    let mut code = vec![inst(
        Op::Mov,
        true,
        Dst::new(clamped, WriteMask::ALL),
        [Src::new(color)],
    )];
    match mode {
        // f = sat(c·(−1/(end − start)) + end·1/(end − start))
        ArbOption::FogLinear => {
            code.push(inst(Op::Mul, false, fy, [src(params, 2), src(params, 3)]));
            code.push(inst(
                Op::Mad,
                true,
                fx,
                [coord, src(params, 3).negated(), src(f, 1)],
            ));
        }
        // f = sat(2^(−c·density/ln 2)), or of −(c·density/√ln 2)² for exp2
        _ => {
            let k = if mode == ArbOption::FogExp { 0 } else { 1 };
            code.push(inst(Op::Mul, false, fy, [src(params, 0), src(lit, k)]));
            code.push(inst(Op::Mul, false, fx.clone(), [coord, src(f, 1)]));
            if mode == ArbOption::FogExp2 {
                code.push(inst(Op::Mul, false, fx.clone(), [src(f, 0), src(f, 0)]));
            }
            code.push(inst(Op::Ex2, true, fx, [src(f, 0).negated()]));
        }
    }
    // f·C + (1 − f)·Cf on RGB, the clamped alpha.
    code.push(inst(
        Op::Lrp,
        false,
        Dst::new(color, WriteMask::XYZ),
        [src(f, 0), Src::new(clamped), Src::new(fog_color)],
    ));
    code.push(inst(
        Op::Mov,
        false,
        Dst::new(color, WriteMask::W),
        [Src::new(clamped)],
    ));
    q.insts.extend(code);
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_asm::ParseOptions;

    fn parse(s: &str) -> Program {
        hoist_asm::parse(s, &ParseOptions::default())
            .into_result()
            .unwrap()
    }

    #[test]
    fn only_fog_programs_that_write_colour_change() {
        let plain = parse("!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n");
        assert_eq!(lower(&plain), plain);
        let no_color = parse("!!ARBfp1.0\nOPTION ARB_fog_exp;\nMOV result.depth.z, 0.5;\nEND\n");
        assert_eq!(lower(&no_color), no_color);
        for (opt, n) in [("linear", 5), ("exp", 6), ("exp2", 7)] {
            let p = parse(&format!(
                "!!ARBfp1.0\nOPTION ARB_fog_{opt};\nMOV result.color, fragment.color;\nEND\n"
            ));
            let q = lower(&p);
            assert_eq!(q.insts.len(), 1 + n, "{opt}");
            assert_eq!(q.num_temps, p.num_temps + 2);
            assert_eq!(q.consts.len(), p.consts.len() + 3);
        }
    }
}

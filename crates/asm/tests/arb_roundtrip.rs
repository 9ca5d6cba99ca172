//! `parse(print(p)) == p` for parsed programs and for programs changed the way optimizer
//! passes change them: new unnamed temps, shared or reordered constant slots, slots that
//! cannot be written inline, unused declarations, relative arrays without a name.

use hoist_asm::ir::*;
use hoist_asm::state::StateRef;
use hoist_asm::{Op, ParseOptions, parse, print};

fn ok(src: &str) -> Program {
    match parse(src, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => panic!("{src}\n{d:#?}"),
    }
}

/// Prints, reparses and compares; returns the printed text.
fn rt(p: &Program) -> String {
    let diags = hoist_asm::validate::check(p, &p.profile.limits());
    assert!(
        !hoist_asm::diag::has_errors(&diags),
        "test program is invalid: {diags:#?}"
    );
    let text = print(p);
    let q = match parse(&text, &ParseOptions::default()).into_result() {
        Ok(q) => q,
        Err(d) => panic!("printed program does not parse:\n{text}\n{d:#?}"),
    };
    assert!(
        q.eq_ignoring_spans(p),
        "round trip changed the program:\n{text}\n{:#?}\n{:#?}",
        p.insts,
        q.insts
    );
    assert_eq!(print(&q), text);
    text
}

fn lit(v: f32) -> ConstSlot {
    ConstSlot {
        binding: ConstBinding::Literal(Literal {
            value: [v; 4],
            form: LiteralForm::Scalar,
        }),
        span: Span::NONE,
    }
}

fn temp(i: u16) -> Reg {
    Reg::new(RegFile::Temp, i)
}

fn konst(i: u16) -> Src {
    Src::new(Reg::new(RegFile::Const, i))
}

const BASE: &str = "!!ARBvp1.0
ATTRIB pos = vertex.position;
PARAM mvp[4] = { state.matrix.mvp };
TEMP r, s;
DP4 r.x, mvp[0], pos;
DP4 r.y, mvp[1], pos;
MUL s, r, 0.5;  # half
ADD r, s, {1, 2};
MOV result.position, r;
MOV result.color, vertex.color;
END";

#[test]
fn parsed_programs_print_canonically() {
    let p = ok(BASE);
    let text = rt(&p);
    assert!(text.contains("MUL s, r, 0.5; # half"), "{text}");
    assert!(
        text.contains("PARAM mvp[4] = { state.matrix.mvp };"),
        "{text}"
    );
    assert!(text.contains("ADD r, s, {1.0, 2.0};"), "{text}");
    assert!(text.contains("MOV result.color, vertex.color;"), "{text}");
    // Declarations written first stay first; a PARAM after an inline constant stays after.
    let p = ok(
        "!!ARBvp1.0\nTEMP a;\nOUTPUT o = result.color;\nMOV a, 2;\nPARAM k = 3;\nADD o, a, k;\nEND",
    );
    assert_eq!(
        rt(&p),
        "!!ARBvp1.0\nTEMP a;\nOUTPUT o = result.color;\nMOV a, 2.0;\nPARAM k = 3.0;\nADD o, a, k;\nEND\n"
    );
}

#[test]
fn new_unnamed_temp_gets_a_generated_name() {
    let mut p = ok(BASE);
    let t = p.num_temps;
    p.num_temps += 1;
    let mov = Inst::new(
        Op::Mov,
        Some(Dst::new(temp(t), WriteMask::ALL)),
        [Src::new(temp(0))],
    );
    p.insts.insert(0, mov);
    let text = rt(&p);
    assert!(text.contains("TEMP r, s, $t2;"), "{text}");
}

#[test]
fn anonymous_temp_between_named_ones() {
    let mut p = ok("!!ARBvp1.0\nTEMP a;\nMOV a, vertex.position;\nMOV result.position, a;\nEND");
    p.num_temps = 3;
    p.symbols.push(Symbol {
        name: "c".into(),
        kind: SymKind::Temp(2),
        span: Span::NONE,
    });
    p.insts.insert(
        1,
        Inst::new(
            Op::Mov,
            Some(Dst::new(temp(2), WriteMask::X)),
            [Src::new(temp(0))],
        ),
    );
    p.insts.insert(
        2,
        Inst::new(
            Op::Mov,
            Some(Dst::new(temp(1), WriteMask::X)),
            [Src::new(temp(2))],
        ),
    );
    rt(&p);
}

#[test]
fn shared_negative_unused_and_reordered_slots() {
    let mut p = ok(BASE);
    let n = p.consts.len() as u16;
    p.consts.push(lit(0.25)); // used twice
    p.consts.push(lit(-3.0)); // cannot be written inline
    p.consts.push(lit(9.0)); // unused
    p.consts.push(ConstSlot {
        binding: ConstBinding::State(StateRef::FogColor),
        span: Span::NONE,
    });
    let mul = |a: Src| {
        Inst::new(
            Op::Mul,
            Some(Dst::new(temp(1), WriteMask::ALL)),
            [Src::new(temp(1)), a],
        )
    };
    p.insts.insert(0, mul(konst(n + 3)));
    p.insts.insert(0, mul(konst(n)));
    p.insts.push(mul(konst(n)));
    p.insts.push(mul(konst(n + 1).negated()));
    let text = rt(&p);
    assert!(text.contains("PARAM $c"), "{text}");
}

#[test]
fn inline_slots_used_in_reverse_order() {
    let mut p = ok("!!ARBfp1.0\nTEMP t;\nMOV t, 1;\nADD t, t, 2;\nMOV result.color, t;\nEND");
    p.insts.swap(0, 1);
    rt(&p);
    let mut q = ok("!!ARBfp1.0\nTEMP t;\nADD t, 1, 2;\nMOV result.color, t;\nEND");
    q.insts[0].src.swap(0, 1);
    rt(&q);
}

#[test]
fn removed_uses_leave_declarations() {
    let mut p = ok(
        "!!ARBvp1.0\nTEMP t;\nMOV t, vertex.normal;\nMOV t, 0.5;\nMOV result.position, vertex.position;\nEND",
    );
    p.insts.remove(0);
    p.insts.remove(0);
    let text = rt(&p);
    assert!(text.contains("ATTRIB $v"), "{text}");
}

#[test]
fn relative_array_without_a_name() {
    let mut p = ok(
        "!!ARBvp1.0\nADDRESS A;\nARL A.x, vertex.position.x;\nMOV result.position, vertex.position;\nEND",
    );
    let base = p.consts.len() as u16;
    p.consts.extend([lit(1.0), lit(2.0), lit(3.0)]);
    let mut s = konst(base);
    s.rel = Some(RelAddr {
        reg: Reg::new(RegFile::Address, 0),
        comp: 0,
        lo: base,
        hi: base + 3,
        offset: -1,
    });
    let color = Reg::new(RegFile::AttrOut, 0);
    p.io.push(IoDecl {
        reg: color,
        semantic: Semantic::Color(0),
        mask: WriteMask::ALL,
        interp: Interp::Perspective,
        pp: false,
        explicit: false,
        span: Span::NONE,
    });
    p.io.sort_by_key(|d| d.reg);
    p.insts.push(
        Inst::new(
            Op::Mov,
            Some(Dst::new(color, WriteMask::ALL)),
            [s, konst(base + 1)],
        )
        .tap_mov(),
    );
    let text = rt(&p);
    assert!(text.contains("$c0[A.x - 1]"), "{text}");
}

trait TapMov {
    fn tap_mov(self) -> Inst;
}

impl TapMov for Inst {
    /// Keeps the first source only (MOV has one), after both were built.
    fn tap_mov(mut self) -> Inst {
        self.src.truncate(1);
        self
    }
}

#[test]
fn every_binding_and_instruction_form() {
    rt(&ok("!!ARBvp1.0
        OPTION ARB_position_invariant;
        ATTRIB n = vertex.normal;
        PARAM p[] = { state.material.back.ambient, state.light[2].spot.direction,
                      state.lightmodel.back.scenecolor, state.lightprod[1].back.specular,
                      state.texgen[3].object.q, state.fog.params, state.clip[5].plane,
                      state.point.attenuation, state.matrix.modelview[1].invtrans.row[2..3],
                      state.matrix.texture[2].transpose, state.matrix.program[7].row[1],
                      state.matrix.palette[3].inverse, program.local[5..7], program.env[1],
                      -1.5e-7, {0, -0.0, 3} };
        TEMP a, b;
        ADDRESS A;
        ARL A.x, n.y;
        EXP a, p[A.x + 63].w;
        LOG b.xw, -p[A.x - 64].z;
        LIT a, a;
        DST a, a, b;
        XPD a.xyz, a, n;
        DPH b, a, p[3];
        POW a, a.x, b.y;
        SGE a, a, b;
        SLT b, a.wzyx, -b.y;
        SWZ result.color.back.secondary, b, -1, 0, -x, w;
        MOV result.texcoord[7], 1e30;
        MOV result.pointsize.x, state.point.size.y;
        END"));
    rt(&ok("!!ARBfp1.0
        OPTION ARB_precision_hint_nicest;
        OPTION ARB_fog_exp;
        OPTION ARB_fragment_program_shadow;
        PARAM d = state.depth.range;
        PARAM e = state.texenv[1].color;
        TEMP t;
        TXP_SAT t, fragment.texcoord[1], texture[2], SHADOWRECT;
        TXB t.xy, t, texture[3], RECT;
        TEX t, t.wzyx, texture[4], 1D;
        CMP t, -t, d, e;
        LRP_SAT t, t.x, fragment.color.secondary, fragment.fogcoord;
        SCS t.xy, fragment.position.w;
        SIN t.z, t.x;
        COS t.w, -t.z;
        KIL -t;
        MAD_SAT result.color, t, state.fog.color, {0.5, 1}.y;
        END"));
}

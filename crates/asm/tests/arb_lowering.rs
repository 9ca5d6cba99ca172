//! How ARB programs lower onto the IR: register mapping, semantics, constant slots,
//! swizzles, relative addressing, texture instructions and names.

use hoist_asm::ir::*;
use hoist_asm::state::{Face, MaterialProp, MatrixMod, MatrixName, StateRef};
use hoist_asm::{Op, ParseOptions, parse};

fn ok(src: &str) -> Program {
    let parsed = parse(src, &ParseOptions::default());
    match parsed.into_result() {
        Ok(p) => p,
        Err(d) => panic!("{src}\n{d:#?}"),
    }
}

fn io(p: &Program) -> Vec<(RegFile, u16, Semantic)> {
    p.io.iter()
        .map(|d| (d.reg.file, d.reg.index, d.semantic))
        .collect()
}

#[test]
fn vertex_bindings_use_the_aliasing_slots() {
    let p = ok("!!ARBvp1.0
        ATTRIB w = vertex.weight;
        MOV result.position, vertex.position;
        MOV result.color, vertex.normal;
        ADD result.color.secondary, vertex.color, vertex.color.secondary;
        MOV result.fogcoord.x, vertex.fogcoord;
        MOV result.pointsize.x, w;
        MOV result.texcoord[3], vertex.texcoord[2];
        MOV result.texcoord, vertex.attrib[6];
        MOV result.color.back, vertex.attrib[15];
        MOV result.color.back.secondary, vertex.attrib[7];
        END");
    use RegFile::*;
    use Semantic::*;
    assert_eq!(
        io(&p),
        vec![
            (Input, 0, Position(0)),
            (Input, 1, BlendWeight(0)),
            (Input, 2, Normal(0)),
            (Input, 3, Color(0)),
            (Input, 4, Color(1)),
            (Input, 5, Fog(0)),
            (Input, 6, Generic(6)),
            (Input, 7, Generic(7)),
            (Input, 10, Semantic::TexCoord(2)),
            (Input, 15, Generic(15)),
            (RastOut, 0, Position(0)),
            (RastOut, 1, Fog(0)),
            (RastOut, 2, PointSize(0)),
            (AttrOut, 0, Color(0)),
            (AttrOut, 1, Color(1)),
            (AttrOut, 2, BackColor(0)),
            (AttrOut, 3, BackColor(1)),
            (TexCrdOut, 0, Semantic::TexCoord(0)),
            (TexCrdOut, 3, Semantic::TexCoord(3)),
        ]
    );
    assert_eq!(p.symbols[0].kind, SymKind::Attrib(Reg::new(Input, 1)));
    assert_eq!(p.insts[4].src[0].name, Some(0));
    assert_eq!(p.insts[0].src[0].name, None);
}

#[test]
fn fragment_bindings() {
    let p = ok("!!ARBfp1.0
        OPTION ARB_draw_buffers;
        TEMP t;
        ADD t, fragment.color, fragment.color.secondary;
        ADD t, fragment.fogcoord, fragment.position;
        MOV result.color[1], fragment.texcoord[4];
        MOV result.color, fragment.texcoord;
        MOV result.depth.z, t;
        END");
    use RegFile::*;
    use Semantic::*;
    assert_eq!(
        io(&p),
        vec![
            (Input, 0, Color(0)),
            (Input, 1, Color(1)),
            (Input, 2, Fog(0)),
            (RegFile::TexCoord, 0, Semantic::TexCoord(0)),
            (RegFile::TexCoord, 4, Semantic::TexCoord(4)),
            (Misc, 0, WindowPos),
            (ColorOut, 0, Color(0)),
            (ColorOut, 1, Color(1)),
            (DepthOut, 0, Depth(0)),
        ]
    );
    assert_eq!(p.options, vec![ArbOption::DrawBuffers]);
}

#[test]
fn constants_are_slots_in_order_of_appearance() {
    let p = ok("!!ARBvp1.0
        TEMP r;
        MOV r, {0.5};
        PARAM m[] = { state.matrix.mvp.inverse.row[1..2], program.local[3..4], 2 };
        PARAM s = state.material.back.shininess;
        MAD r, 0.5, program.env[7], {0.5};
        MUL r, r, 0.5;
        MOV r, -0.25.x;
        END");
    let lit = |v: [f32; 4], form| ConstBinding::Literal(Literal { value: v, form });
    let b: Vec<ConstBinding> = p.consts.iter().map(|c| c.binding.clone()).collect();
    assert_eq!(
        b,
        vec![
            lit([0.5, 0.0, 0.0, 1.0], LiteralForm::Vector(1)),
            ConstBinding::State(StateRef::Matrix(MatrixName::Mvp, MatrixMod::Inverse, 1)),
            ConstBinding::State(StateRef::Matrix(MatrixName::Mvp, MatrixMod::Inverse, 2)),
            ConstBinding::Local(3),
            ConstBinding::Local(4),
            lit([2.0; 4], LiteralForm::Scalar),
            ConstBinding::State(StateRef::Material(Face::Back, MaterialProp::Shininess)),
            lit([0.5; 4], LiteralForm::Scalar),
            ConstBinding::Env(7),
            lit([0.25; 4], LiteralForm::Scalar),
        ]
    );
    assert_eq!(
        p.symbols[1].kind,
        SymKind::Param {
            base: 1,
            len: 5,
            array: true
        }
    );
    // `{0.5}` and `0.5` differ; a repeated inline `0.5` shares its slot.
    assert_eq!(p.insts[1].src[0].reg.index, 7);
    assert_eq!(p.insts[1].src[2].reg.index, 0);
    assert_eq!(p.insts[2].src[1].reg.index, 7);
    let neg = &p.insts[3].src[0];
    assert!(neg.negate);
    assert_eq!(neg.swizzle, Swizzle::splat(0));
}

#[test]
fn swizzles_masks_and_scalars() {
    let p = ok("!!ARBfp1.0
        TEMP a, b;
        MOV a.xz, b.wzyx;
        MOV a.rgb, b.g;
        RCP a.w, b.b;
        POW_SAT a, b.x, b.a;
        SWZ b.a, a, -1, 0, z, -x;
        KIL -a.xxyy;
        END");
    let i = &p.insts;
    assert_eq!(i[0].dst.as_ref().unwrap().mask, WriteMask(0b0101));
    assert_eq!(i[0].src[0].swizzle, Swizzle::new(3, 2, 1, 0));
    assert_eq!(i[1].dst.as_ref().unwrap().mask, WriteMask::XYZ);
    assert_eq!(i[1].src[0].swizzle, Swizzle::splat(1));
    assert_eq!(i[2].src[0].swizzle, Swizzle::splat(2));
    assert!(i[3].sat);
    assert_eq!(i[3].src[1].swizzle, Swizzle::splat(3));
    let e = i[4].ext_swizzle.unwrap();
    assert_eq!(
        e.sel,
        [ExtSel::One, ExtSel::Zero, ExtSel::Comp(2), ExtSel::Comp(0)]
    );
    assert_eq!(e.neg, [true, false, false, true]);
    assert_eq!(i[5].op, Op::Kil);
    assert!(i[5].dst.is_none() && i[5].src[0].negate);
}

#[test]
fn relative_addressing_keeps_array_bounds_and_offset() {
    let p = ok("!!ARBvp1.0
        PARAM c = {1, 2, 3, 4};
        PARAM arr[3] = { program.env[0..2] };
        ADDRESS A0;
        ARL A0.x, vertex.position.w;
        MOV result.position, arr[A0.x - 2];
        MOV result.color, arr[A0.x];
        END");
    let s = &p.insts[1].src[0];
    assert_eq!(s.reg, Reg::new(RegFile::Const, 1));
    assert_eq!(
        s.rel,
        Some(RelAddr {
            reg: Reg::new(RegFile::Address, 0),
            comp: 0,
            lo: 1,
            hi: 4,
            offset: -2
        })
    );
    assert_eq!(p.insts[2].src[0].rel.unwrap().offset, 0);
    let arl = &p.insts[0];
    assert_eq!(arl.op, Op::Arl);
    assert_eq!(arl.dst.as_ref().unwrap().reg, Reg::new(RegFile::Address, 0));
    assert_eq!(p.num_addrs, 1);
}

#[test]
fn texture_instructions_and_comments() {
    let p = ok("!!ARBfp1.0
        OPTION ARB_fragment_program_shadow;
        TEMP t;
        TEX t, fragment.texcoord[1], texture[3], CUBE; # sample
        TXP t, t, texture, 2D;
        TXB_SAT result.color, t, texture[5], SHADOW2D;
        END");
    assert_eq!(
        p.insts[0].tex,
        Some(TexRef {
            unit: 3,
            target: TexTarget::Cube
        })
    );
    assert_eq!(p.insts[0].comment.as_deref(), Some("sample"));
    assert_eq!(p.insts[1].tex.unwrap().unit, 0);
    assert_eq!(p.insts[2].tex.unwrap().target, TexTarget::Shadow2D);
}

#[test]
fn names_temps_and_aliases() {
    let p = ok("!!ARBvp1.0
        TEMP a, b;
        ALIAS c = b;
        OUTPUT o = result.color;
        MOV o, vertex.color;
        MOV c, a;
        MOV b.x, c;
        END");
    assert_eq!(p.num_temps, 2);
    let names: Vec<&str> = p.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "o"]);
    assert_eq!(p.symbols[2].kind, SymKind::Alias(1));
    assert_eq!(p.insts[0].dst.as_ref().unwrap().name, Some(3));
    assert_eq!(p.insts[1].dst.as_ref().unwrap().name, Some(2));
    assert_eq!(p.insts[1].src[0].name, None);
    assert_eq!(p.insts[2].src[0].reg, Reg::new(RegFile::Temp, 1));
}

#[test]
fn generated_names_are_anonymous() {
    let p = ok("!!ARBvp1.0
        TEMP $t0, named;
        PARAM $c0 = 0.5;
        MOV named, $c0;
        MOV $t0, named;
        END");
    assert_eq!(p.num_temps, 2);
    assert_eq!(p.symbols.len(), 1);
    assert_eq!(p.consts.len(), 1);
    assert_eq!(
        p.insts[1].dst.as_ref().unwrap().reg,
        Reg::new(RegFile::Temp, 0)
    );
}

#[test]
fn whitespace_crlf_and_position_invariance() {
    let p = ok(
        "!!ARBvp1.0\r\nOPTION ARB_position_invariant;\r\nMOV result.color, vertex.color;\r\nEND\r\n",
    );
    assert_eq!(p.options, vec![ArbOption::PositionInvariant]);
    assert_eq!(p.insts.len(), 1);
}

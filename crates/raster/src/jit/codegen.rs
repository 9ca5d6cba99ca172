//! Module layout: the imports, the `run` export and its loop over 4-lane chunks.
//!
//! Every row of the kernel that the program touches becomes one `v128` local. Constant rows
//! are splatted once before the loop; per chunk the input rows are loaded, the reset rows
//! zeroed, the whole program runs on locals ([`super::ops`]), and the output rows and the
//! kill mask are stored. Nothing but inputs, outputs and texels goes through memory.

use super::builder::{
    Gen, I32_LOCALS, L_BASE, L_OFF, P_CONSTS, P_FLAGS, P_IO, P_KILL, P_LANES, P_TEX, TexLocals, mem,
};
use super::module::{MAX_LOCALS, Refusal};
use crate::compile::{Kernel, LANES, R};
use std::collections::HashMap;
use wasm_encoder::{
    BlockType, CodeSection, EntityType, ExportKind, ExportSection, Function, FunctionSection,
    ImportSection, Instruction as I, MemoryType, TypeSection, ValType,
};

/// What [`module`] makes: the binary, its `v128` locals and the input rows it loads.
pub(super) struct Made {
    pub wasm: Vec<u8>,
    pub locals: usize,
    pub inputs: Vec<R>,
}

/// Builds the module.
pub(super) fn module(k: &Kernel, modes: &super::abi::Modes) -> Result<Made, Refusal> {
    let mut g = Gen {
        k,
        body: Vec::new(),
        rows: HashMap::new(),
        n_v128: 0,
        temps: Vec::new(),
        next_temp: 0,
        kill: 0,
        quads: 0,
        tex_locals: HashMap::new(),
        modes: *modes,
    };
    g.kill = g.new_v128();
    g.quads = g.new_v128();
    for (n, ins) in k.insts.iter().enumerate() {
        g.next_instruction();
        super::ops::instruction(&mut g, ins)
            .map_err(|e| Refusal::Unsupported(format!("instruction {n} ({:?}): {e}", ins.op)))?;
        if g.n_v128 as usize > MAX_LOCALS {
            return Err(Refusal::TooLarge {
                what: "vector locals",
                n: g.n_v128 as usize,
                cap: MAX_LOCALS,
            });
        }
    }
    let body = std::mem::take(&mut g.body);
    let func = assemble(&mut g, body);
    Ok(Made {
        wasm: encode(&func),
        locals: g.n_v128 as usize,
        inputs: input_rows(&g),
    })
}

/// The input rows the program touches: the module loads these and no others.
fn input_rows(g: &Gen) -> Vec<R> {
    g.k.inputs
        .iter()
        .flat_map(|&(_, b)| b..b + 4)
        .filter(|r| g.rows.contains_key(r))
        .collect()
}

/// Wraps the program body in the prologue, the chunk loop and the epilogue.
fn assemble(g: &mut Gen, body: Vec<I<'static>>) -> Function {
    let k = g.k;
    let mut pre: Vec<I<'static>> = Vec::new();
    // Quads flag as a lane mask.
    pre.extend([
        I::I32Const(0),
        I::LocalGet(P_FLAGS),
        I::I32Const(1),
        I::I32And,
        I::I32Sub,
        I::I32x4Splat,
        I::LocalSet(g.quads),
    ]);
    // Constant rows, splatted once.
    for f in &k.const_fills {
        let Some(&l) = g.rows.get(&f.row) else {
            continue;
        };
        match f.slot {
            Some((s, c)) if (s as usize) < k.const_len => {
                pre.push(I::LocalGet(P_CONSTS));
                pre.push(I::F32Load(mem(16 * u64::from(s) + 4 * u64::from(c & 3), 2)));
            }
            Some(_) => pre.push(I::F32Const(0.0f32.into())),
            None => pre.push(I::F32Const(f.imm.into())),
        }
        if f.abs {
            pre.push(I::F32Abs);
        }
        if f.neg {
            pre.push(I::F32Neg);
        }
        pre.extend([I::F32x4Splat, I::LocalSet(l)]);
    }
    pre.extend(descriptors(g));
    let row_bytes = (LANES * 4) as u64;
    let input_rows = input_rows(g);
    let is_input = |r: R| input_rows.contains(&r);
    let reset_rows: Vec<R> = k
        .reset
        .iter()
        .flat_map(|&(b, n)| b..b + n)
        .filter(|r| g.rows.contains_key(r) && !is_input(*r))
        .collect();
    // Loop: off = 0; while off < lanes·4 { … ; off += 16 }.
    pre.extend([
        I::I32Const(0),
        I::LocalSet(L_OFF),
        I::Block(BlockType::Empty),
        I::Loop(BlockType::Empty),
        I::LocalGet(L_OFF),
        I::LocalGet(P_LANES),
        I::I32Const(2),
        I::I32Shl,
        I::I32GeU,
        I::BrIf(1),
        I::LocalGet(P_IO),
        I::LocalGet(L_OFF),
        I::I32Add,
        I::LocalSet(L_BASE),
    ]);
    for &r in &input_rows {
        pre.extend([
            I::LocalGet(L_BASE),
            I::V128Load(mem(u64::from(r) * row_bytes, 4)),
            I::LocalSet(g.rows[&r]),
        ]);
    }
    for &r in &reset_rows {
        pre.extend([I::V128Const(0), I::LocalSet(g.rows[&r])]);
    }
    pre.extend([I::V128Const(0), I::LocalSet(g.kill)]);
    let mut post: Vec<I<'static>> = Vec::new();
    for &(_, b) in &k.outputs {
        for r in b..b + 4 {
            post.push(I::LocalGet(L_BASE));
            match g.rows.get(&r) {
                Some(&l) => post.push(I::LocalGet(l)),
                None => post.push(I::V128Const(0)),
            }
            post.push(I::V128Store(mem(u64::from(r) * row_bytes, 4)));
        }
    }
    post.extend([
        I::LocalGet(P_KILL),
        I::LocalGet(L_OFF),
        I::I32Add,
        I::LocalGet(g.kill),
        I::V128Store(mem(0, 4)),
        I::LocalGet(L_OFF),
        I::I32Const(16),
        I::I32Add,
        I::LocalSet(L_OFF),
        I::Br(0),
        I::End,
        I::End,
        I::End,
    ]);
    let mut f = Function::new([
        (I32_LOCALS, ValType::I32),
        (1, ValType::I64),
        (g.n_v128, ValType::V128),
    ]);
    for i in pre.iter().chain(body.iter()).chain(post.iter()) {
        emit(&mut f, i);
    }
    f
}

/// Loads each sampled unit's descriptor words into its locals (once per call): mode and
/// texel address as i32 splats, width and height as f32 splats, and as i32 the width,
/// width − 1 and height − 1.
fn descriptors(g: &Gen) -> Vec<I<'static>> {
    let mut out = Vec::new();
    let mut units: Vec<(u8, TexLocals)> = g.tex_locals.iter().map(|(&u, &t)| (u, t)).collect();
    hoist_asm::sort::by_key(&mut units, |x| x.0);
    let splat_i = [I::I32x4Splat];
    let base = [
        I::I32Const(0xB000_0000_u32 as i32),
        I::I32Sub,
        I::I32x4Splat,
    ];
    let splat_f = [I::F32ConvertI32U, I::F32x4Splat];
    let less_one = [I::I32Const(1), I::I32Sub, I::F32ConvertI32U, I::F32x4Splat];
    for (u, t) in units {
        let d = 32 * u64::from(u);
        for (o, tail, l) in [
            (0, &splat_i[..], t.mode),
            (4, &base[..], t.base),
            (8, &splat_f[..], t.wf),
            (12, &splat_f[..], t.hf),
            (8, &less_one[..], t.wm),
            (12, &less_one[..], t.hm),
        ] {
            out.extend([I::LocalGet(P_TEX), I::I32Load(mem(d + o, 2))]);
            out.extend_from_slice(tail);
            out.push(I::LocalSet(l));
        }
    }
    out
}

/// Appends one instruction through wasm-encoder's per-instruction methods. Its
/// `Instruction::encode` is one match over every instruction of the format (17 KB of
/// wasm): run hot by the code generator, the browser re-optimized it whole on every page
/// load (~150 ms of a core, BENCHMARKS.md). Instructions the generator does not emit go
/// through it still.
fn emit(f: &mut Function, i: &I) {
    let s = &mut f.instructions();
    match *i {
        I::Block(bt) => _ = s.block(bt),
        I::Br(l) => _ = s.br(l),
        I::BrIf(l) => _ = s.br_if(l),
        I::Call(l) => _ = s.call(l),
        I::End => _ = s.end(),
        I::F32Abs => _ = s.f32_abs(),
        I::F32Const(x) => _ = s.f32_const(x),
        I::F32ConvertI32U => _ = s.f32_convert_i32_u(),
        I::F32Load(m) => _ = s.f32_load(m),
        I::F32Neg => _ = s.f32_neg(),
        I::F32x4Abs => _ = s.f32x4_abs(),
        I::F32x4Add => _ = s.f32x4_add(),
        I::F32x4Div => _ = s.f32x4_div(),
        I::F32x4Eq => _ = s.f32x4_eq(),
        I::F32x4ExtractLane(lane) => _ = s.f32x4_extract_lane(lane),
        I::F32x4Floor => _ = s.f32x4_floor(),
        I::F32x4Ge => _ = s.f32x4_ge(),
        I::F32x4Gt => _ = s.f32x4_gt(),
        I::F32x4Le => _ = s.f32x4_le(),
        I::F32x4Lt => _ = s.f32x4_lt(),
        I::F32x4Mul => _ = s.f32x4_mul(),
        I::F32x4Ne => _ = s.f32x4_ne(),
        I::F32x4Neg => _ = s.f32x4_neg(),
        I::F32x4ReplaceLane(lane) => _ = s.f32x4_replace_lane(lane),
        I::F32x4Splat => _ = s.f32x4_splat(),
        I::F32x4Sqrt => _ = s.f32x4_sqrt(),
        I::F32x4Sub => _ = s.f32x4_sub(),
        I::F32x4Trunc => _ = s.f32x4_trunc(),
        I::I32Add => _ = s.i32_add(),
        I::I32And => _ = s.i32_and(),
        I::I32Const(x) => _ = s.i32_const(x),
        I::I32Eq => _ = s.i32_eq(),
        I::I32GeU => _ = s.i32_ge_u(),
        I::I32Load(m) => _ = s.i32_load(m),
        I::I32Shl => _ = s.i32_shl(),
        I::I32Sub => _ = s.i32_sub(),
        I::I32TruncSatF32S => _ = s.i32_trunc_sat_f32_s(),
        I::I32WrapI64 => _ = s.i32_wrap_i64(),
        I::I32x4ExtractLane(lane) => _ = s.i32x4_extract_lane(lane),
        I::I32x4Splat => _ = s.i32x4_splat(),
        I::I32x4Add => _ = s.i32x4_add(),
        I::F32x4PMin => _ = s.f32x4_pmin(),
        I::F32x4PMax => _ = s.f32x4_pmax(),
        I::I32x4Sub => _ = s.i32x4_sub(),
        I::I32x4Mul => _ = s.i32x4_mul(),
        I::I32x4Shl => _ = s.i32x4_shl(),
        I::I32x4MaxS => _ = s.i32x4_max_s(),
        I::I32x4MinS => _ = s.i32x4_min_s(),
        I::I32x4TruncSatF32x4S => _ = s.i32x4_trunc_sat_f32x4_s(),
        I::I64Add => _ = s.i64_add(),
        I::I64Const(x) => _ = s.i64_const(x),
        I::I64ExtendI32S => _ = s.i64_extend_i32_s(),
        I::I64GeS => _ = s.i64_ge_s(),
        I::I64LtS => _ = s.i64_lt_s(),
        I::I8x16Shuffle(lanes) => _ = s.i8x16_shuffle(lanes),
        I::If(bt) => _ = s.if_(bt),
        I::LocalGet(l) => _ = s.local_get(l),
        I::LocalSet(l) => _ = s.local_set(l),
        I::Loop(bt) => _ = s.loop_(bt),
        I::V128And => _ = s.v128_and(),
        I::V128Bitselect => _ = s.v128_bitselect(),
        I::V128Const(x) => _ = s.v128_const(x),
        I::V128Load(m) => _ = s.v128_load(m),
        I::V128Or => _ = s.v128_or(),
        I::V128Store(m) => _ = s.v128_store(m),
        _ => _ = f.instruction(i),
    }
}

fn encode(func: &Function) -> Vec<u8> {
    let mut types = TypeSection::new();
    types.ty().function([ValType::F32], [ValType::F32]);
    types
        .ty()
        .function([ValType::F32, ValType::F32], [ValType::F32]);
    types.ty().function([ValType::I32; 5], []);
    types.ty().function([ValType::I32; 7], []);
    let mut imports = ImportSection::new();
    imports.import(
        "env",
        "memory",
        EntityType::Memory(MemoryType {
            minimum: 1,
            maximum: None,
            memory64: false,
            shared: false,
            page_size_log2: None,
        }),
    );
    imports.import("env", "exp2f", EntityType::Function(0));
    imports.import("env", "log2f", EntityType::Function(0));
    imports.import("env", "powf", EntityType::Function(1));
    imports.import("env", "sinf", EntityType::Function(0));
    imports.import("env", "cosf", EntityType::Function(0));
    imports.import("env", "tex", EntityType::Function(2));
    let mut funcs = FunctionSection::new();
    funcs.function(3);
    let mut exports = ExportSection::new();
    exports.export("run", ExportKind::Func, 6);
    let mut code = CodeSection::new();
    code.function(func);
    let mut m = wasm_encoder::Module::new();
    m.section(&types)
        .section(&imports)
        .section(&funcs)
        .section(&exports)
        .section(&code);
    m.finish()
}

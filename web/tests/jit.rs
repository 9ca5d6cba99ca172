//! The compiled executor's runtime (`hoist_web::worker::jit`) in headless Chromium (`cargo test
//! --target wasm32-unknown-unknown -p hoist-web`, with CHROMEDRIVER set): modules made here
//! with wasm-encoder prove each mechanism on its own — the shared memory, the
//! transcendentals linked from this program's exports, the cache, and the errors a caller
//! falls back on.

#![cfg(target_arch = "wasm32")]

use hoist_raster::alu;
use hoist_web::worker::jit::{self, Cache};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use wasm_encoder::{
    CodeSection, EntityType, ExportKind, ExportSection, Function, FunctionSection, ImportSection,
    Instruction as I, MemArg, MemoryType, Module, TypeSection, ValType,
};

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    js_sys::Date::now()
}

fn mem(offset: u64, align: u32) -> MemArg {
    MemArg {
        offset,
        align,
        memory_index: 0,
    }
}

/// `run(io, n)` over four rows of `n` f32 at `io` (n a multiple of 4): row 2 = row 0 × row 1
/// with `f32x4.mul`, row 3 = `import(row 0[l], row 1[l])` lane by lane for a binary import,
/// `import(row 0[l])` for a unary one. `extra` adds an import the runtime does not have.
fn module(import: &str, binary: bool, extra: Option<&str>) -> Vec<u8> {
    let mut types = TypeSection::new();
    types.ty().function([ValType::I32, ValType::I32], []);
    let params: &[ValType] = if binary {
        &[ValType::F32, ValType::F32]
    } else {
        &[ValType::F32]
    };
    types.ty().function(params.iter().copied(), [ValType::F32]);
    let mut imports = ImportSection::new();
    let memory = MemoryType {
        minimum: 1,
        maximum: None,
        memory64: false,
        shared: false,
        page_size_log2: None,
    };
    imports.import("env", "memory", EntityType::Memory(memory));
    imports.import("env", import, EntityType::Function(1));
    if let Some(x) = extra {
        imports.import("env", x, EntityType::Function(1));
    }
    let own = if extra.is_some() { 2 } else { 1 };
    let mut funcs = FunctionSection::new();
    funcs.function(0);
    let mut exports = ExportSection::new();
    exports.export("run", ExportKind::Func, own);
    // Locals: 2 = byte offset of the lane, 3 = row stride in bytes.
    let mut f = Function::new([(2, ValType::I32)]);
    for ins in [
        I::LocalGet(1),
        I::I32Const(4),
        I::I32Mul,
        I::LocalSet(3),
        I::Block(wasm_encoder::BlockType::Empty),
        I::Loop(wasm_encoder::BlockType::Empty),
        I::LocalGet(2),
        I::LocalGet(3),
        I::I32GeU,
        I::BrIf(1),
        // row 2 (the product, four lanes at once)
        I::LocalGet(0),
        I::LocalGet(2),
        I::I32Add,
        I::LocalGet(3),
        I::I32Const(2),
        I::I32Mul,
        I::I32Add,
        I::LocalGet(0),
        I::LocalGet(2),
        I::I32Add,
        I::V128Load(mem(0, 4)),
        I::LocalGet(0),
        I::LocalGet(2),
        I::I32Add,
        I::LocalGet(3),
        I::I32Add,
        I::V128Load(mem(0, 4)),
        I::F32x4Mul,
        I::V128Store(mem(0, 4)),
    ] {
        f.instruction(&ins);
    }
    // row 3, one lane at a time (4 lanes per iteration)
    for lane in 0..4u64 {
        let addr = |f: &mut Function, row: i32| {
            f.instruction(&I::LocalGet(0));
            f.instruction(&I::LocalGet(2));
            f.instruction(&I::I32Add);
            f.instruction(&I::LocalGet(3));
            f.instruction(&I::I32Const(row));
            f.instruction(&I::I32Mul);
            f.instruction(&I::I32Add);
        };
        addr(&mut f, 3);
        addr(&mut f, 0);
        f.instruction(&I::F32Load(mem(4 * lane, 2)));
        if binary {
            addr(&mut f, 1);
            f.instruction(&I::F32Load(mem(4 * lane, 2)));
        }
        f.instruction(&I::Call(0));
        f.instruction(&I::F32Store(mem(4 * lane, 2)));
    }
    for ins in [
        I::LocalGet(2),
        I::I32Const(16),
        I::I32Add,
        I::LocalSet(2),
        I::Br(0),
        I::End,
        I::End,
        I::End,
    ] {
        f.instruction(&ins);
    }
    let mut code = CodeSection::new();
    code.function(&f);
    let mut m = Module::new();
    m.section(&types)
        .section(&imports)
        .section(&funcs)
        .section(&exports)
        .section(&code);
    m.finish()
}

/// Edge values and a sweep: zeros, signs, infinities, NaN, denormals, large arguments.
fn inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.0,
        3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -1e-40,
        1e30,
        -1e30,
        126.5,
        -150.25,
    ];
    let a: Vec<f32> = (0..n)
        .map(|i| {
            edges
                .get(i)
                .copied()
                .unwrap_or((i as f32 * 0.37 - 40.0) * 1.7)
        })
        .collect();
    let b: Vec<f32> = (0..n)
        .map(|i| edges[(i * 7) % edges.len()] + (i % 5) as f32 * 0.5)
        .collect();
    (a, b)
}

fn call(l: &jit::Loaded, rows: &mut [f32], n: usize) {
    l.run
        .call2(
            &JsValue::NULL,
            &JsValue::from(rows.as_mut_ptr() as u32),
            &JsValue::from(n as u32),
        )
        .expect("run");
}

/// Every transcendental, linked from this program, gives the interpreter's bits on edge
/// values; the SIMD product writes the rows in place in the shared memory.
#[wasm_bindgen_test]
fn transcendentals_are_linked_from_this_program_and_bit_identical() {
    type Unary = fn(f32) -> f32;
    let unary: [(&str, Unary); 4] = [
        ("exp2f", alu::ex2),
        ("log2f", |x| alu::lg2(x, hoist_asm::Dialect::Arb)),
        ("sinf", alu::sin),
        ("cosf", alu::cos),
    ];
    let n = 256;
    let (a, b) = inputs(n);
    let check = |name: &str, binary: bool, want: &dyn Fn(f32, f32) -> f32| {
        let bytes = module(name, binary, None);
        let l = jit::instantiate(&bytes, "run", &now).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut rows = [a.clone(), b.clone(), vec![0.0; n], vec![0.0; n]].concat();
        call(&l, &mut rows, n);
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            assert_eq!(rows[2 * n + i].to_bits(), (x * y).to_bits(), "mul lane {i}");
            let w = want(x, y);
            assert_eq!(
                rows[3 * n + i].to_bits(),
                w.to_bits(),
                "{name}({x}, {y}) = {} against {w}",
                rows[3 * n + i]
            );
        }
    };
    for (name, f) in unary {
        check(name, false, &|x, _| f(x));
    }
    check("powf", true, &|x, y| {
        alu::pow(x, y, hoist_asm::Dialect::Arb)
    });
}

/// An import the runtime does not provide is an error naming it, not a throw.
#[wasm_bindgen_test]
fn an_unknown_import_is_a_clear_error() {
    let bytes = module("sinf", false, Some("tanf"));
    let e = jit::instantiate(&bytes, "run", &now)
        .err()
        .expect("refused");
    assert!(e.contains("env.tanf"), "{e}");
    let e = jit::instantiate(&bytes[..bytes.len() - 3], "run", &now)
        .err()
        .expect("truncated");
    assert!(e.starts_with("WebAssembly.Module"), "{e}");
    let e = jit::instantiate(&module("sinf", false, None), "main", &now)
        .err()
        .expect("no entry");
    assert!(e.contains("`main`"), "{e}");
}

/// The cache keeps at most its capacity, drops the least recently used, and remembers
/// failures without loading again.
#[wasm_bindgen_test]
fn the_cache_is_bounded_and_least_recently_used() {
    let mut c = Cache::new(2);
    let mods = ["sinf", "cosf", "exp2f"].map(|n| module(n, false, None));
    let keys = mods.each_ref().map(|m| jit::hash(m));
    let load = |i: usize| {
        let m = mods[i].clone();
        move || jit::instantiate(&m, "run", &now)
    };
    c.get_or_load(keys[0], load(0)).expect("0");
    c.get_or_load(keys[1], load(1)).expect("1");
    c.get_or_load(keys[0], || panic!("0 is cached"))
        .expect("hit");
    c.get_or_load(keys[2], load(2)).expect("2");
    assert_eq!(c.len(), 2);
    assert!(c.contains(keys[0]) && c.contains(keys[2]) && !c.contains(keys[1]));
    assert_eq!((c.hits, c.misses), (1, 3));
    let bad = 42;
    assert!(c.get_or_load(bad, || Err("refused".into())).is_err());
    let again = c.get_or_load(bad, || panic!("a failure is remembered"));
    assert_eq!(again.err().as_deref(), Some("refused"));
}

//! Generated WGSL pairs over every builtin the assembly targets can express, for the soak
//! (`hoist-soak --only wgsl`: compile, optimize, validate) and the WebGPU differential
//! (`tests/gpu.rs`: Chromium renders the source, the executor the compiled assembly).
//!
//! A program is a vertex entry point computing two interpolants from the attributes and
//! uniforms, a helper function, and a fragment entry point of `let`s, a variable updated
//! in a loop with a constant trip count, an `if` with a condition that is not constant,
//! and the result. Seed `s` uses builtin `BUILTINS[s % len]` for sure (so a run of
//! `len` seeds covers them all) and others at random. Arguments are wrapped into each
//! builtin's domain (`sqrt(abs(x) + 0.25)`, `pow(abs(x) + 0.5, clamp(y, -2, 2))`,
//! `normalize` of a vector at least 1 long, ...), so both renderers compute defined,
//! bounded values and differ only by rounding; discontinuous builtins (`floor`, `step`,
//! `select`, ...) may still flip at a pixel whose argument lies within rounding of the
//! edge. Textures are sampled at the top level only (WGSL's uniformity rule).

/// The builtins, by the name the programs use.
pub const BUILTINS: &[&str] = &[
    "dot",
    "cross",
    "normalize",
    "length",
    "distance",
    "mix",
    "clamp",
    "saturate",
    "min",
    "max",
    "abs",
    "sign",
    "floor",
    "ceil",
    "fract",
    "trunc",
    "round",
    "step",
    "smoothstep",
    "pow",
    "exp",
    "exp2",
    "log",
    "log2",
    "sqrt",
    "inverseSqrt",
    "sin",
    "cos",
    "tan",
    "reflect",
    "faceForward",
    "fma",
    "mat*vec",
    "vec*mat",
    "select",
    "textureSample",
    "textureSampleBias",
    "textureSampleLevel",
    "textureSampleGrad",
    "textureSampleCompare",
    "dpdx",
    "dpdy",
    "fwidth",
];

/// Builtins only D3D9 lowers (derivatives, explicit gradients).
pub const D3D9_ONLY: &[&str] = &["dpdx", "dpdy", "fwidth", "textureSampleGrad"];
/// Builtins only ARB lowers (depth comparison: ARB's SHADOW targets).
pub const ARB_ONLY: &[&str] = &["textureSampleCompare"];

/// Builtin calls a program makes at most (beyond them, operands are named values).
const MAX_CALLS: usize = 14;

/// A generated module.
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub wgsl: String,
    /// The builtins it calls.
    pub builtins: Vec<&'static str>,
}

impl Generated {
    /// Whether the program compiles for ARB / for D3D9.
    pub fn arb(&self) -> bool {
        !self.builtins.iter().any(|b| D3D9_ONLY.contains(b))
    }

    pub fn d3d9(&self) -> bool {
        !self.builtins.iter().any(|b| ARB_ONLY.contains(b))
    }

    pub fn label(&self) -> String {
        format!("wgsl seed {}", self.seed)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F,
    V2,
    V3,
    V4,
}

impl Ty {
    fn n(self) -> usize {
        match self {
            Ty::F => 1,
            Ty::V2 => 2,
            Ty::V3 => 3,
            Ty::V4 => 4,
        }
    }

    fn of(n: usize) -> Ty {
        [Ty::F, Ty::V2, Ty::V3, Ty::V4][n.clamp(1, 4) - 1]
    }

    fn name(self) -> &'static str {
        match self {
            Ty::F => "f32",
            Ty::V2 => "vec2<f32>",
            Ty::V3 => "vec3<f32>",
            Ty::V4 => "vec4<f32>",
        }
    }
}

struct Gen {
    state: u64,
    used: Vec<&'static str>,
    /// Named values in scope (name, type).
    scope: Vec<(String, Ty)>,
    /// How many entries at the start of `scope` are affine in the fragment's position.
    linear: usize,
    /// Builtin calls so far (at most [`MAX_CALLS`], so programs fit ps_3_0's 512 slots).
    calls: usize,
    /// Generating the vertex stage (no trig in ARB, no textures or derivatives).
    vertex: bool,
    /// At the top level of the fragment function (textures and derivatives allowed).
    top: bool,
    /// Whether the ARB-only / D3D9-only builtins may be drawn.
    allow_d3d9_only: bool,
    allow_arb_only: bool,
}

impl Gen {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn lit(&mut self) -> String {
        let v = (self.below(2000) as f32 - 1000.0) / 1000.0 * 1.5;
        format!("{v:.3}")
    }

    fn note(&mut self, b: &'static str) {
        if !self.used.contains(&b) {
            self.used.push(b);
        }
    }

    /// A value of type `ty` that is not a constant: a named value, swizzled or splat.
    fn leaf(&mut self, ty: Ty) -> String {
        let k = self.below(self.scope.len());
        let (name, from) = self.scope[k].clone();
        let comps = ["x", "y", "z", "w"];
        let pick = |g: &mut Gen| -> String {
            (0..ty.n())
                .map(|_| comps[g.below(from.n())])
                .collect::<String>()
        };
        match (from, ty) {
            (a, b) if a == b => name,
            (Ty::F, t) => format!("{}({name})", t.name()),
            (_, Ty::F) => format!("{name}.{}", comps[self.below(from.n())]),
            _ => format!("{name}.{}", pick(self)),
        }
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.calls >= MAX_CALLS || self.chance(0.2) {
            return match self.below(5) {
                0 => format!("({} * {})", self.leaf(ty), self.lit()),
                1 => format!("({} + {})", self.leaf(ty), self.lit()),
                _ => self.leaf(ty),
            };
        }
        let d = depth - 1;
        match self.below(8) {
            0 => format!("({} + {})", self.expr(ty, d), self.expr(ty, d)),
            1 => format!("({} - {})", self.expr(ty, d), self.expr(ty, d)),
            2 => format!("({} * {})", self.expr(ty, d), self.expr(ty, d)),
            3 => format!("({} / (abs({}) + 0.5))", self.expr(ty, d), self.expr(ty, d)),
            _ => {
                let b = self.pick_builtin(ty);
                self.call(b, ty, d)
            }
        }
    }

    fn allowed(&self, b: &str, ty: Ty) -> bool {
        let tex = b.starts_with("texture");
        let deriv = matches!(b, "dpdx" | "dpdy" | "fwidth");
        if (tex || deriv) && (self.vertex || !self.top) {
            return false;
        }
        if self.vertex && matches!(b, "sin" | "cos" | "tan") {
            return false;
        }
        if D3D9_ONLY.contains(&b) && !self.allow_d3d9_only {
            return false;
        }
        if ARB_ONLY.contains(&b) && !self.allow_arb_only {
            return false;
        }
        // A compare program binds a depth texture and nothing else.
        if tex && self.allow_arb_only && b != "textureSampleCompare" {
            return false;
        }
        match b {
            "dot" | "length" | "distance" => ty == Ty::F,
            "cross" => ty == Ty::V3,
            "normalize" | "reflect" | "faceForward" => ty != Ty::F,
            "mat*vec" | "vec*mat" => ty == Ty::V4 || ty == Ty::V2,
            "textureSampleCompare" => ty == Ty::F,
            _ => true,
        }
    }

    fn pick_builtin(&mut self, ty: Ty) -> &'static str {
        for _ in 0..64 {
            let b = BUILTINS[self.below(BUILTINS.len())];
            if self.allowed(b, ty) {
                return b;
            }
        }
        "abs"
    }

    /// The type a builtin returning `ty` is called with (per-component builtins keep it).
    fn call(&mut self, b: &'static str, ty: Ty, d: u32) -> String {
        self.note(b);
        self.calls += 1;
        let n = ty.name();
        let e = |g: &mut Gen, t: Ty| g.expr(t, d);
        match b {
            "dot" | "distance" => {
                let t = Ty::of(2 + self.below(3));
                format!("{b}({}, {})", e(self, t), e(self, t))
            }
            "length" => {
                let t = Ty::of(2 + self.below(3));
                format!("length({})", e(self, t))
            }
            "cross" => format!("cross({}, {})", e(self, Ty::V3), e(self, Ty::V3)),
            "normalize" => format!("normalize({})", self.long_vec(ty, d)),
            "reflect" => format!(
                "reflect({}, normalize({}))",
                e(self, ty),
                self.long_vec(ty, d)
            ),
            "faceForward" => format!(
                "faceForward({}, {}, {})",
                e(self, ty),
                e(self, ty),
                e(self, ty)
            ),
            "mix" => format!("mix({}, {}, {})", e(self, ty), e(self, ty), e(self, ty)),
            "fma" => format!("fma({}, {}, {})", e(self, ty), e(self, ty), e(self, ty)),
            "clamp" => format!("clamp({}, {n}(-0.5), {n}(0.8))", e(self, ty)),
            "smoothstep" => format!("smoothstep({n}(-0.6), {n}(0.7), {})", e(self, ty)),
            "min" | "max" | "step" => format!("{b}({}, {})", e(self, ty), e(self, ty)),
            "pow" => format!(
                "pow(abs({}) + {n}(0.5), clamp({}, {n}(-2.0), {n}(2.0)))",
                e(self, ty),
                e(self, ty)
            ),
            "exp" | "exp2" => format!("{b}(clamp({}, {n}(-3.0), {n}(2.0)))", e(self, ty)),
            "log" | "log2" => format!("{b}(abs({}) + {n}(0.5))", e(self, ty)),
            "sqrt" | "inverseSqrt" => format!("{b}(abs({}) + {n}(0.25))", e(self, ty)),
            "tan" => format!("tan(clamp({}, {n}(-1.2), {n}(1.2)))", e(self, ty)),
            "sin" | "cos" => format!("{b}({} * 2.0)", e(self, ty)),
            "mat*vec" | "vec*mat" => {
                let (m, v) = if ty == Ty::V4 {
                    ("u.m".to_string(), e(self, Ty::V4))
                } else {
                    (
                        format!("mat2x2<f32>({}, {})", e(self, Ty::V2), e(self, Ty::V2)),
                        e(self, Ty::V2),
                    )
                };
                if b == "mat*vec" {
                    format!("({m} * {v})")
                } else {
                    format!("({v} * {m})")
                }
            }
            "select" => {
                let (x, y) = (e(self, ty), e(self, ty));
                let (p, q) = (e(self, ty), e(self, ty));
                format!("select({x}, {y}, {p} < {q})")
            }
            // Of an affine function of the interpolants: fine and coarse derivatives (and
            // whichever pixels of the quad an implementation takes) then agree.
            "dpdx" | "dpdy" | "fwidth" => {
                let (a, b2) = (self.linear_leaf(ty), self.linear_leaf(ty));
                let (x, y) = (self.lit(), self.lit());
                format!("{b}({a} * {x} + {b2} * {y})")
            }
            t if t.starts_with("texture") => self.texture(t, ty, d),
            // abs, sign, floor, ceil, fract, trunc, round, saturate
            _ => format!("{b}({})", e(self, ty)),
        }
    }

    /// A named value affine in the fragment's position (the interpolants, the position,
    /// the uniforms: the first `linear` entries of the scope).
    fn linear_leaf(&mut self, ty: Ty) -> String {
        let saved = std::mem::take(&mut self.scope);
        self.scope = saved[..self.linear.min(saved.len()).max(1)].to_vec();
        let l = self.leaf(ty);
        self.scope = saved;
        l
    }

    /// A vector of type `ty` at least 1 long (`normalize`'s argument).
    fn long_vec(&mut self, ty: Ty, d: u32) -> String {
        let v = self.expr(ty, d);
        let rest = ["", "", ".y", ".yz", ".yzw"][ty.n()];
        format!("{}(1.0 + abs(({v}).x), ({v}){rest})", ty.name())
    }

    fn texture(&mut self, b: &str, ty: Ty, d: u32) -> String {
        let uv = self.expr(Ty::V2, d);
        let s = match b {
            "textureSampleBias" => format!(
                "textureSampleBias(tex, samp, {uv}, clamp({}, -1.0, 1.0))",
                self.expr(Ty::F, d)
            ),
            "textureSampleLevel" => format!("textureSampleLevel(tex, samp, {uv}, 0.0)"),
            "textureSampleGrad" => {
                format!(
                    "textureSampleGrad(tex, samp, {uv}, vec2<f32>(0.01, 0.0), vec2<f32>(0.0, 0.01))"
                )
            }
            "textureSampleCompare" => {
                return format!(
                    "textureSampleCompare(depth, cmp, {uv}, clamp({}, 0.0, 1.0))",
                    self.expr(Ty::F, d)
                );
            }
            _ => format!("textureSample(tex, samp, {uv})"),
        };
        match ty {
            Ty::F => format!("{s}.x"),
            Ty::V2 => format!("{s}.xy"),
            Ty::V3 => format!("{s}.xyz"),
            Ty::V4 => s,
        }
    }

    fn ty(&mut self) -> Ty {
        Ty::of(1 + self.below(4))
    }
}

/// The WGSL program of `seed`.
pub fn wgsl(seed: u64) -> Generated {
    let forced = BUILTINS[(seed % BUILTINS.len() as u64) as usize];
    let mut g = Gen {
        state: seed ^ 0x5EED_F00D,
        used: Vec::new(),
        scope: Vec::new(),
        linear: 0,
        calls: 0,
        vertex: true,
        top: false,
        allow_d3d9_only: D3D9_ONLY.contains(&forced),
        allow_arb_only: ARB_ONLY.contains(&forced),
    };
    if !g.allow_arb_only && !g.allow_d3d9_only {
        g.allow_d3d9_only = g.chance(0.15);
    }
    let compare = g.allow_arb_only;
    let mut s = String::from(
        "struct U { k0: vec4<f32>, k1: vec4<f32>, k2: vec4<f32>, m: mat4x4<f32> }\n\
         @group(0) @binding(0) var<uniform> u: U;\n",
    );
    if compare {
        s.push_str(
            "@group(0) @binding(1) var depth: texture_depth_2d;\n\
             @group(0) @binding(2) var cmp: sampler_comparison;\n",
        );
    } else {
        s.push_str(
            "@group(0) @binding(1) var tex: texture_2d<f32>;\n\
             @group(0) @binding(2) var samp: sampler;\n",
        );
    }
    s.push_str(
        "struct V { @builtin(position) pos: vec4<f32>, @location(0) a: vec4<f32>, \
         @location(1) b: vec4<f32> }\n\n",
    );
    // The vertex stage: two interpolants from the texture coordinate and the uniforms.
    g.scope = vec![
        ("t".into(), Ty::V2),
        ("u.k0".into(), Ty::V4),
        ("u.k1".into(), Ty::V4),
    ];
    let va = g.expr(Ty::V2, 2);
    let vb = g.expr(Ty::V4, 2);
    s.push_str(&format!(
        "@vertex fn vs(@location(0) p: vec4<f32>, @location(8) t: vec2<f32>) -> V {{\n  \
         var o: V;\n  o.pos = p;\n  o.a = vec4<f32>(t, {va});\n  o.b = {vb};\n  return o;\n}}\n\n"
    ));
    // A helper, inlined by the lowering.
    g.vertex = false;
    g.scope = vec![("x".into(), Ty::V4), ("y".into(), Ty::F)];
    let h = g.expr(Ty::V4, 2);
    s.push_str(&format!(
        "fn helper(x: vec4<f32>, y: f32) -> vec4<f32> {{\n  return {h};\n}}\n\n"
    ));
    // The fragment stage.
    g.scope = vec![
        ("i.a".into(), Ty::V4),
        ("i.b".into(), Ty::V4),
        ("u.k1".into(), Ty::V4),
        ("u.k2".into(), Ty::V4),
    ];
    // The fragment position (in pixels of the 32 × 32 target of the differential), scaled.
    let mut body = String::from("  let p = i.pos.xy * 0.03125;\n");
    g.scope.push(("p".into(), Ty::V2));
    g.linear = g.scope.len();
    g.top = true;
    let forced_ty = match forced {
        "dot" | "length" | "distance" | "textureSampleCompare" => Ty::F,
        "cross" => Ty::V3,
        "mat*vec" | "vec*mat" => Ty::V4,
        "normalize" | "reflect" | "faceForward" => Ty::V3,
        _ => g.ty(),
    };
    let first = g.call(forced, forced_ty, 1);
    body.push_str(&format!("  let f0: {} = {first};\n", forced_ty.name()));
    g.scope.push(("f0".into(), forced_ty));
    for k in 1..4 {
        let t = g.ty();
        let e = g.expr(t, 2);
        body.push_str(&format!("  let f{k}: {} = {e};\n", t.name()));
        g.scope.push((format!("f{k}"), t));
    }
    g.top = false;
    let hx = g.expr(Ty::V4, 1);
    let hy = g.expr(Ty::F, 1);
    body.push_str(&format!("  let h = helper({hx}, {hy});\n"));
    g.scope.push(("h".into(), Ty::V4));
    let init = g.expr(Ty::V4, 1);
    body.push_str(&format!("  var acc: vec4<f32> = {init};\n"));
    let trips = 1 + g.below(3);
    g.scope.push(("acc".into(), Ty::V4));
    let step = g.expr(Ty::V4, 1);
    body.push_str(&format!(
        "  for (var n = 0; n < {trips}; n++) {{\n    acc = acc * 0.5 + {step} * f32(n + 1) * 0.25;\n  }}\n"
    ));
    let (c1, c2) = (g.expr(Ty::F, 2), g.expr(Ty::F, 2));
    let (a1, a2) = (g.expr(Ty::V4, 2), g.expr(Ty::V4, 2));
    body.push_str(&format!(
        "  if ({c1} < {c2}) {{\n    acc = {a1};\n  }} else {{\n    acc = acc + {a2};\n  }}\n"
    ));
    let fin = g.expr(Ty::V4, 2);
    body.push_str(&format!("  return acc * 0.5 + {fin} * 0.25;\n"));
    s.push_str(&format!(
        "@fragment fn fs(i: V) -> @location(0) vec4<f32> {{\n{body}}}\n"
    ));
    let mut builtins = g.used;
    builtins.sort_unstable();
    Generated {
        seed,
        wgsl: s,
        builtins,
    }
}

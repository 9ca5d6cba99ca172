//! ARB vertex-program and Direct3D 9 vs_3_0 code for a grouping (seed §2.3.1's code
//! generation stage).
//!
//! x group J is `vertex.attrib[J]` / `vJ` (the packed layout), y group I the temporary
//! `yI` / `r(I+1)`; outputs stay in the packed order, or, for outputs that are fixed
//! registers, [`unpermute`] writes them back in the original order with one masked,
//! swizzled MOV per packed group feeding an output.
//! Per block row: the row-major blocks first (one masked DP4 per non-zero row, the first
//! straight into yI, the others into `t` and ADDed), then b, then the column-major peels
//! (MUL, or MAD accumulating into yI, with the swizzle that lines each row's coefficient
//! up with its x). Where the model is too kind, the program pays, and [`Emitted`] counts it:
//! an instruction reads one constant (ARB vertex programs, vs_1_1), so b cannot ride on the first
//! MAD of a peel (one ADD instead, as vs_1_1's one-constant rule forces, seed §3.4, Table 2
//! column e); a first DP4 covering fewer than four rows needs its other lanes set; a block
//! row with no block needs a MOV; and C^sum taken per term (§3.3) misses the ADD that
//! joins a Gauss-Seidel row's row-major term to b.
//!
//! A Gauss-Seidel system's terms are split by the grouping's order ([`System::layered`]).
//! [`arb`] and [`d3d9`] evaluate every term with the current x (one evaluation of
//! y = A·x + b, what the page and the equivalence tests compare); [`arb_sweep`] and
//! [`d3d9_sweep`] emit the real Gauss-Seidel sweep in the grouping's order: the groups in
//! order, an updated-values block of group J < I reading y_J (already x^(k+1)) instead of
//! x_J, and each group's updated diagonal part last, one DP4 per lane in lane order whose
//! coefficient vector also carries 1 on its own lane, so lane l becomes its partial sum
//! plus the new values of the lanes before it (the sequential order §3.3 asks of the
//! row-major diagonal blocks; the DP4 also does the join the model's C^sum counts). Its
//! length differs from the model by the [`Emitted::extra`] and [`Emitted::saved`]
//! instructions, counted per block row.

use super::cost::{Grouping, Packing, sum_cost};
use super::system::{System, Term};
use std::fmt::Write;

const LANES: [char; 4] = ['x', 'y', 'z', 'w'];

/// An emitted program body and how its length compares with the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    /// `PARAM`/`TEMP` declarations and the instructions, without header or `END`.
    pub body: String,
    pub instructions: usize,
    /// Instructions beyond the model's cost (one evaluation), by the reasons above.
    pub extra: usize,
    /// Instructions the model counts that the code does without (a sweep's diagonal DP4
    /// joins its row for free): instructions = model + extra − saved.
    pub saved: usize,
}

struct Out {
    d3d: bool,
    params: Vec<[f64; 4]>,
    code: String,
    count: usize,
}

impl Out {
    fn param(&mut self, v: [f64; 4]) -> String {
        let i = self.params.iter().position(|p| *p == v).unwrap_or_else(|| {
            self.params.push(v);
            self.params.len() - 1
        });
        if self.d3d {
            format!("c{i}")
        } else {
            format!("k{i}")
        }
    }

    fn x(&self, j: usize) -> String {
        if self.d3d {
            format!("v{j}")
        } else {
            format!("vertex.attrib[{j}]")
        }
    }

    fn y(&self, i: usize) -> String {
        if self.d3d {
            format!("r{}", i + 1)
        } else {
            format!("y{i}")
        }
    }

    fn t(&self) -> &'static str {
        if self.d3d { "r0" } else { "t" }
    }

    fn inst(&mut self, s: String) {
        if self.d3d {
            let (op, rest) = s.split_once(' ').unwrap_or((&s, ""));
            self.code += &format!("{} {rest}\n", op.to_ascii_lowercase());
        } else {
            self.code += &s;
            self.code += ";\n";
        }
        self.count += 1;
    }
}

fn mask(lanes: &[usize]) -> String {
    lanes.iter().map(|&l| LANES[l]).collect()
}

/// What a register of the emitted code holds, the same in both dialects: input attribute
/// J (`vertex.attrib[J]` / `vJ`) is x group J; temporary 0 (`t` / `r0`) is the scratch
/// that one block row's row-major DP4s write before they are ADDed; temporary I + 1
/// (`yI` / `r(I+1)`, declared after `t`) is y group I. Lane l of group G holds variable
/// `g.perm[4G + l]` ([`lane_variable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    X { group: usize },
    Y { group: usize },
    Scratch,
}

/// What temporary `index` of an emitted program holds ([`Holds`]).
pub fn temp_holds(index: usize) -> Holds {
    match index {
        0 => Holds::Scratch,
        i => Holds::Y { group: i - 1 },
    }
}

/// The variable lane `lane` of group `group` holds under `g`; `None` for padding (a
/// variable at or past `vars`).
pub fn lane_variable(g: &Grouping, vars: usize, group: usize, lane: usize) -> Option<usize> {
    g.perm.get(4 * group + lane).copied().filter(|&v| v < vars)
}

/// Emits y = A·x + b for `g` (all terms summed with the current x: Jacobi semantics).
pub fn arb(sys: &System, g: &Grouping) -> Emitted {
    emit(sys, g, false, false)
}

/// The same code in Direct3D 9 vs_3_0 assembly: x group J in `vJ`, y group I in `r(I+1)`,
/// constants in `def cK`.
pub fn d3d9(sys: &System, g: &Grouping) -> Emitted {
    emit(sys, g, true, false)
}

/// One Gauss-Seidel sweep in `g`'s order (module header): y = x^(k+1) from x = x^(k). For
/// a system without `split lower` it is [`arb`].
pub fn arb_sweep(sys: &System, g: &Grouping) -> Emitted {
    emit(sys, g, false, sys.gauss_seidel())
}

/// [`arb_sweep`] in Direct3D 9 vs_3_0 assembly.
pub fn d3d9_sweep(sys: &System, g: &Grouping) -> Emitted {
    emit(sys, g, true, sys.gauss_seidel())
}

fn emit(sys: &System, g: &Grouping, d3d: bool, sweep: bool) -> Emitted {
    let pk = Packing::new(sys, g);
    let terms = sys.layered(&g.perm);
    let n = sys.groups();
    let mut lane_of = vec![(0, 0); sys.m];
    for (p, &v) in g.perm.iter().enumerate() {
        lane_of[v] = (p / 4, p % 4);
    }
    let mut o = Out {
        d3d,
        params: Vec::new(),
        code: String::new(),
        count: 0,
    };
    let (mut extra, mut saved) = (0, 0);
    for i in 0..n {
        let row = Row {
            sys,
            terms: &terms,
            g,
            pk: &pk,
            lane_of: &lane_of,
            sweep,
        };
        let start = o.count;
        let e = block_row(&row, i, &mut o);
        if sweep {
            let (real, model) = (o.count - start, pk.row_cost(i) as usize);
            extra += real.saturating_sub(model);
            saved += model.saturating_sub(real);
        } else {
            extra += e;
        }
    }
    let mut body = String::new();
    for (k, p) in o.params.iter().enumerate() {
        let v: Vec<String> = p.iter().map(|x| format!("{:?}", *x as f32)).collect();
        if d3d {
            let _ = writeln!(body, "def c{k}, {}", v.join(", "));
        } else {
            let _ = writeln!(body, "PARAM k{k} = {{ {} }};", v.join(", "));
        }
    }
    if !d3d {
        let ys: Vec<String> = (0..n).map(|i| format!("y{i}")).collect();
        let _ = writeln!(body, "TEMP t, {};", ys.join(", "));
    }
    body += &o.code;
    Emitted {
        body,
        instructions: o.count,
        extra,
        saved,
    }
}

/// What a block row's emission reads: the terms split by `g`'s order, the blocks, lanes.
struct Row<'a> {
    sys: &'a System,
    terms: &'a [Term],
    g: &'a Grouping,
    pk: &'a Packing<'a>,
    lane_of: &'a [(usize, usize)],
    sweep: bool,
}

impl Row<'_> {
    /// The register block (t, i, j) reads: y_J (x^(k+1)) for a sweep's updated values.
    fn x(&self, o: &Out, t: usize, i: usize, j: usize) -> String {
        if self.sweep && t == 0 && j != i {
            o.y(j)
        } else {
            o.x(j)
        }
    }
}

/// The coefficients of row `r` of term `t` whose columns are in group `j`, as (lane, coef).
fn row_in(
    terms: &[Term],
    t: usize,
    r: usize,
    j: usize,
    lane_of: &[(usize, usize)],
) -> Vec<(usize, f64)> {
    terms[t].rows[r]
        .iter()
        .filter(|(c, _)| lane_of[*c].0 == j)
        .map(|(c, v)| (lane_of[*c].1, *v))
        .collect()
}

fn block_row(row: &Row, i: usize, o: &mut Out) -> usize {
    let (sys, g, pk, lane_of) = (row.sys, row.g, row.pk, row.lane_of);
    let rows = &g.perm[4 * i..4 * i + 4];
    let bvec = [0, 1, 2, 3].map(|l| sys.b[rows[l]]);
    let has_b = bvec.iter().any(|v| *v != 0.0);
    let y = o.y(i);
    let (mut started, mut extra) = (false, 0);
    for t in 0..sys.terms.len() {
        for j in 0..sys.groups() {
            if !pk.block_at(t, i, j).row_major || (row.sweep && t == 0 && j == i) {
                continue;
            }
            let mut lanes = Vec::new();
            for (l, &r) in rows.iter().enumerate() {
                let es = row_in(row.terms, t, r, j, lane_of);
                if es.is_empty() {
                    continue;
                }
                let mut c = [0.0; 4];
                es.iter().for_each(|(cl, v)| c[*cl] = *v);
                let k = o.param(c);
                let dst = if started {
                    o.t().to_string()
                } else {
                    y.clone()
                };
                let x = row.x(o, t, i, j);
                o.inst(format!("DP4 {dst}.{}, {k}, {x}", LANES[l]));
                lanes.push(l);
            }
            if started {
                let t = o.t();
                o.inst(format!("ADD {y}.{m}, {y}, {t}", m = mask(&lanes)));
            } else {
                started = true;
                let rest: Vec<usize> = (0..4).filter(|l| !lanes.contains(l)).collect();
                if !rest.is_empty() {
                    let fill = if has_b {
                        o.param(bvec)
                    } else {
                        o.param([0.0; 4])
                    };
                    o.inst(format!("MOV {y}.{}, {fill}", mask(&rest)));
                    extra += 1;
                }
                if has_b {
                    let kb = o.param(bvec);
                    let m = if rest.is_empty() {
                        String::new()
                    } else {
                        format!(".{}", mask(&lanes))
                    };
                    o.inst(format!("ADD {y}{m}, {y}, {kb}"));
                }
            }
        }
    }
    let nrs: Vec<u32> = (0..sys.terms.len())
        .map(|t| {
            (0..sys.groups())
                .filter(|&j| pk.block_at(t, i, j).row_major)
                .count() as u32
        })
        .collect();
    let total_nr: u32 = nrs.iter().sum();
    if total_nr > 0 {
        let model: u32 = nrs
            .iter()
            .zip(&sys.terms)
            .map(|(&nr, term)| sum_cost(nr, term.with_b && has_b))
            .sum();
        extra += (total_nr - 1 + u32::from(has_b)).saturating_sub(model) as usize;
    }
    let mut pending_b = has_b && !started;
    for t in 0..sys.terms.len() {
        for j in 0..sys.groups() {
            let blk = pk.block_at(t, i, j);
            if blk.cc == 0 || blk.row_major {
                continue;
            }
            let per_row: Vec<Vec<(usize, f64)>> = rows
                .iter()
                .map(|&r| row_in(row.terms, t, r, j, lane_of))
                .collect();
            for peel in 0..usize::from(blk.cc) {
                let mut c = [0.0; 4];
                let mut swz = ['x'; 4];
                for (l, es) in per_row.iter().enumerate() {
                    if let Some((cl, v)) = es.get(peel) {
                        c[l] = *v;
                        swz[l] = LANES[*cl];
                    }
                }
                let k = o.param(c);
                let s: String = swz.iter().collect();
                let x = row.x(o, t, i, j);
                if started {
                    o.inst(format!("MAD {y}, {k}, {x}.{s}, {y}"));
                } else {
                    o.inst(format!("MUL {y}, {k}, {x}.{s}"));
                    started = true;
                }
            }
        }
    }
    if pending_b && started {
        let kb = o.param(bvec);
        o.inst(format!("ADD {y}, {y}, {kb}"));
        extra += 1;
        pending_b = false;
    }
    if !started {
        let kb = o.param(if pending_b { bvec } else { [0.0; 4] });
        o.inst(format!("MOV {y}, {kb}"));
        extra += 1;
    }
    if row.sweep {
        sequential_diagonal(row, i, o);
    }
    extra
}

/// A sweep's updated diagonal part of group i, lane by lane: DP4 y.l, (a_l0 … a_l(l−1), 1,
/// 0 …), y, so lane l adds the lanes already final to its partial sum.
fn sequential_diagonal(row: &Row, i: usize, o: &mut Out) {
    let rows = &row.g.perm[4 * i..4 * i + 4];
    let y = o.y(i);
    for (l, &r) in rows.iter().enumerate() {
        let es = row_in(row.terms, 0, r, i, row.lane_of);
        if es.is_empty() {
            continue;
        }
        let mut c = [0.0; 4];
        es.iter().for_each(|(cl, v)| c[*cl] = *v);
        c[l] = 1.0;
        let k = o.param(c);
        o.inst(format!("DP4 {y}.{}, {k}, {y}", LANES[l]));
    }
}

/// A whole ARB vertex program: the body, then `MOV` of the listed y groups to
/// `result.texcoord[0..]` and of `position` (zero) to `result.position`.
pub fn arb_program(e: &Emitted, outputs: &[usize]) -> String {
    let mut s = String::from("!!ARBvp1.0\n");
    s += &e.body;
    for (k, gi) in outputs.iter().enumerate() {
        let _ = writeln!(s, "MOV result.texcoord[{k}], y{gi};");
    }
    s += "MOV result.position, vertex.attrib[0];\nEND\n";
    s
}

/// Input usages in the order of the 16 vertex attribute slots, so that `vJ` is slot J.
const INPUTS: [&str; 16] = [
    "position",
    "blendweight",
    "normal",
    "color0",
    "color1",
    "fog",
    "psize",
    "blendindices",
    "texcoord0",
    "texcoord1",
    "texcoord2",
    "texcoord3",
    "texcoord4",
    "texcoord5",
    "tangent",
    "binormal",
];

/// A whole vs_3_0 program: declarations, the body, then `mov` of the listed y groups to
/// `oK` (texture coordinates K) and a position.
pub fn d3d9_program(e: &Emitted, groups: usize, outputs: &[usize]) -> String {
    let mut s = String::from("vs_3_0\n");
    for (j, usage) in INPUTS.iter().enumerate().take(groups) {
        let _ = writeln!(s, "dcl_{usage} v{j}");
    }
    for k in 0..outputs.len() {
        let _ = writeln!(s, "dcl_texcoord{k} o{k}");
    }
    let pos = outputs.len();
    let _ = writeln!(s, "dcl_position o{pos}");
    s += &e.body;
    for (k, gi) in outputs.iter().enumerate() {
        let _ = writeln!(s, "mov o{k}, r{}", gi + 1);
    }
    let _ = writeln!(s, "mov o{pos}, v0");
    s
}

/// The MOVs that write y back in the original order, for outputs that are fixed registers
/// (a colour, a texture coordinate): output slot s receives the original variables
/// 4k..4k+4 (k = `outputs[s]`), one masked, swizzled MOV per packed group that holds some
/// of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unpermuted {
    pub text: String,
    pub moves: usize,
    /// Moves beyond the one per output that any order needs.
    pub extra: usize,
}

/// Un-permute MOVs into `result.texcoord[s]` (ARB) or `o{s}` (vs_3_0).
pub fn unpermute(g: &Grouping, outputs: &[usize], d3d: bool) -> Unpermuted {
    let mut lane_of = vec![(0, 0); g.perm.len()];
    for (p, &v) in g.perm.iter().enumerate() {
        lane_of[v] = (p / 4, p % 4);
    }
    let (mut text, mut moves) = (String::new(), 0);
    for (s, &k) in outputs.iter().enumerate() {
        let mut by_group: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        for l in 0..4 {
            let (grp, lane) = lane_of[4 * k + l];
            match by_group.iter_mut().find(|(gi, _)| *gi == grp) {
                Some((_, ls)) => ls.push((l, lane)),
                None => by_group.push((grp, vec![(l, lane)])),
            }
        }
        for (grp, ls) in by_group {
            let dst_lanes: Vec<usize> = ls.iter().map(|p| p.0).collect();
            let mut swz = ['x'; 4];
            for &(l, lane) in &ls {
                swz[l] = LANES[lane];
            }
            let swz: String = swz.iter().collect();
            let m = mask(&dst_lanes);
            if d3d {
                let _ = writeln!(text, "mov o{s}.{m}, r{}.{swz}", grp + 1);
            } else {
                let _ = writeln!(text, "MOV result.texcoord[{s}].{m}, y{grp}.{swz};");
            }
            moves += 1;
        }
    }
    Unpermuted {
        text,
        moves,
        extra: moves - outputs.len(),
    }
}

/// [`arb_program`] with the outputs in the original order (output s holds original group
/// `outputs[s]`).
pub fn arb_program_unpermuted(e: &Emitted, g: &Grouping, outputs: &[usize]) -> String {
    let mut s = String::from("!!ARBvp1.0\n");
    s += &e.body;
    s += &unpermute(g, outputs, false).text;
    s += "MOV result.position, vertex.attrib[0];\nEND\n";
    s
}

/// [`d3d9_program`] with the outputs in the original order.
pub fn d3d9_program_unpermuted(
    e: &Emitted,
    groups: usize,
    g: &Grouping,
    outputs: &[usize],
) -> String {
    let mut s = String::from("vs_3_0\n");
    for (j, usage) in INPUTS.iter().enumerate().take(groups) {
        let _ = writeln!(s, "dcl_{usage} v{j}");
    }
    for k in 0..outputs.len() {
        let _ = writeln!(s, "dcl_texcoord{k} o{k}");
    }
    let pos = outputs.len();
    let _ = writeln!(s, "dcl_position o{pos}");
    s += &e.body;
    s += &unpermute(g, outputs, true).text;
    let _ = writeln!(s, "mov o{pos}, v0");
    s
}

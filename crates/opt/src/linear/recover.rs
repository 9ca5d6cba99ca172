//! Recovery of a linear system y = A·x + b from straight-line ARB or Direct3D 9 code.
//!
//! Symbolic execution over affine forms: every register component holds Σ a_v·x_v + c.
//! Literal constants are numbers; inputs, interpolants and host-set constants (ARB
//! `program.env`/`local`/`state`, a D3D9 `c#` without `def`) are variables, created on
//! first read. MOV, ADD, SUB, MUL and MAD with one constant factor, DP2ADD/DP3/DP4/DPH,
//! the matrix macros, LRP with a constant weight, XPD with one constant side, SWZ and
//! negation keep forms affine; any other result (a product of two non-constant forms, RCP,
//! POW, TEX, MIN, a saturated or absolute non-constant value, a relatively addressed read)
//! becomes a new variable, "the result of line N", one per written component. This is
//! exact: what the executor computes for the chosen rows is A·x + b when x holds the
//! values the variables take in that run (checked by `crates/opt/tests/linear_recover.rs`).
//! Flow control, predication and relatively addressed destinations are refused (the
//! code is not straight-line). The system is made square by padding, as the packing
//! model needs: row i and variable i share a position.

use super::system::{MAX_VARS, System};
use hoist_asm::ir::{ConstBinding, ExtSel, Semantic, SymKind};
use hoist_asm::ops::Shape;
use hoist_asm::{Dialect, Inst, Op, Program, Reg, RegFile, Src, Stage};
use serde::Serialize;
use std::collections::BTreeMap;

const COMPS: [char; 4] = ['x', 'y', 'z', 'w'];

/// An affine form Σ coef·x_var + constant.
#[derive(Clone, Debug, Default, PartialEq)]
struct Affine {
    terms: BTreeMap<usize, f64>,
    c: f64,
}

impl Affine {
    fn constant(c: f64) -> Affine {
        Affine {
            terms: BTreeMap::new(),
            c,
        }
    }

    fn var(v: usize) -> Affine {
        Affine {
            terms: BTreeMap::from([(v, 1.0)]),
            c: 0.0,
        }
    }

    fn as_constant(&self) -> Option<f64> {
        self.terms.is_empty().then_some(self.c)
    }

    fn scale(&self, k: f64) -> Affine {
        let mut out = Affine::constant(self.c * k);
        if k != 0.0 {
            out.terms = self.terms.iter().map(|(v, a)| (*v, a * k)).collect();
        }
        out
    }

    fn add(&self, o: &Affine) -> Affine {
        let mut out = self.clone();
        out.c += o.c;
        for (v, a) in &o.terms {
            let e = out.terms.entry(*v).or_insert(0.0);
            *e += a;
            if *e == 0.0 {
                out.terms.remove(v);
            }
        }
        out
    }

    /// The product, when one factor is a constant.
    fn mul(&self, o: &Affine) -> Option<Affine> {
        match (self.as_constant(), o.as_constant()) {
            (Some(k), _) => Some(o.scale(k)),
            (_, Some(k)) => Some(self.scale(k)),
            _ => None,
        }
    }
}

/// What a variable stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// An input, interpolant or host-set constant component, read as the program starts.
    Register { file: String, index: u16, comp: u8 },
    /// Component `comp` of what instruction `inst` (source line `line`, 1-based) wrote,
    /// which is not an affine function of the variables before it.
    Result {
        inst: usize,
        line: usize,
        op: String,
        comp: u8,
    },
}

/// One variable (column) of the recovered system.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Variable {
    /// `vertex.attrib[1].y`, `c4.x`, `line 7 RCP .x`.
    pub name: String,
    pub origin: Origin,
    /// The register read (Register) or written (Result).
    #[serde(skip)]
    pub reg: Reg,
}

/// One row: a register component the program writes (or the chosen register's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowSource {
    pub name: String,
    pub file: String,
    pub index: u16,
    pub comp: u8,
}

/// A recovered system with its mapping to the program.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recovered {
    #[serde(skip)]
    pub system: System,
    /// `variables[c]` is column c.
    pub variables: Vec<Variable>,
    /// `rows[r]` is row r (rows beyond are padding).
    pub rows: Vec<RowSource>,
    /// How many variables are results of non-affine instructions.
    pub nonlinear: usize,
}

/// Which register components become rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// Every output component the program writes.
    Outputs,
    /// The four components of one register, at the end of the program.
    Register(Reg),
}

/// Why a program gives no system.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RecoverError(pub String);

struct State<'p> {
    prog: &'p Program,
    src: &'p str,
    regs: BTreeMap<(Reg, u8), Affine>,
    leaves: BTreeMap<(Reg, u8), usize>,
    vars: Vec<Variable>,
    nonlinear: usize,
}

/// Recovers the system computed by `prog` (parsed from `source`, for line numbers).
pub fn recover(prog: &Program, source: &str, rows: Rows) -> Result<Recovered, RecoverError> {
    let mut st = State {
        prog,
        src: source,
        regs: BTreeMap::new(),
        leaves: BTreeMap::new(),
        vars: Vec::new(),
        nonlinear: 0,
    };
    let mut written: Vec<(Reg, u8)> = Vec::new();
    for (i, inst) in prog.insts.iter().enumerate() {
        st.check_straight(i, inst)?;
        let (Some(lanes), Some(d)) = (st.exec(i, inst), inst.dst.as_ref()) else {
            continue;
        };
        let dst = d.reg;
        for (c, form) in lanes {
            if dst.file.is_output() && !written.contains(&(dst, c)) {
                written.push((dst, c));
            }
            st.regs.insert((dst, c), form);
        }
        if st.vars.len() > MAX_VARS {
            return Err(RecoverError(format!(
                "more than {MAX_VARS} variables by line {}",
                st.line(i)
            )));
        }
    }
    let keys: Vec<(Reg, u8)> = match rows {
        Rows::Outputs => {
            hoist_asm::sort::ord(&mut written);
            written
        }
        Rows::Register(r) => (0..4).map(|c| (r, c)).collect(),
    };
    if keys.is_empty() {
        return Err(RecoverError("the program writes no output".into()));
    }
    let forms: Vec<Affine> = keys
        .iter()
        .map(|k| st.regs.get(k).cloned().unwrap_or_default())
        .collect();
    let n = keys.len().max(st.vars.len());
    if n > MAX_VARS {
        return Err(RecoverError(format!(
            "{} rows and {} variables exceed the limit {MAX_VARS}",
            keys.len(),
            st.vars.len()
        )));
    }
    let mut a: Vec<Vec<(usize, f64)>> = forms
        .iter()
        .map(|f| f.terms.iter().map(|(v, c)| (*v, *c)).collect())
        .collect();
    let mut b: Vec<f64> = forms.iter().map(|f| f.c).collect();
    a.resize(n, Vec::new());
    b.resize(n, 0.0);
    let name = format!("recovered {}", prog.profile.header());
    let row_sources = keys
        .iter()
        .map(|&(r, c)| RowSource {
            name: format!("{}.{}", st.reg_name(r, None), COMPS[c as usize]),
            file: format!("{:?}", r.file),
            index: r.index,
            comp: c,
        })
        .collect();
    Ok(Recovered {
        system: System::new(&name, a, b, false, 1),
        variables: st.vars,
        rows: row_sources,
        nonlinear: st.nonlinear,
    })
}

impl State<'_> {
    fn line(&self, i: usize) -> usize {
        let at = self.prog.insts[i].span.start as usize;
        if at == 0 && self.prog.insts[i].span.end == 0 {
            return i + 1;
        }
        self.src
            .get(..at.min(self.src.len()))
            .map_or(i + 1, |s| s.matches('\n').count() + 1)
    }

    fn check_straight(&self, i: usize, inst: &Inst) -> Result<(), RecoverError> {
        let why = if inst.op.is_flow() && inst.op != Op::Nop {
            "flow control"
        } else if inst.pred.is_some() {
            "a predicated instruction"
        } else if inst.dst.as_ref().is_some_and(|d| d.rel.is_some()) {
            "a relatively addressed destination"
        } else {
            return Ok(());
        };
        Err(RecoverError(format!(
            "line {}: {why} — only straight-line code gives a linear system",
            self.line(i)
        )))
    }

    fn op_name(&self, op: Op) -> String {
        let info = op.info();
        let n = match self.prog.dialect() {
            Dialect::Arb => info.arb.or(info.d3d),
            Dialect::D3d9 => info.d3d.or(info.arb),
        };
        n.unwrap_or("?").to_string()
    }

    fn reg_name(&self, r: Reg, sym: Option<u16>) -> String {
        if let Some(s) = sym.and_then(|s| self.prog.symbols.get(s as usize))
            && !matches!(s.kind, SymKind::Param { array: true, .. })
        {
            return s.name.clone();
        }
        if self.prog.dialect() == Dialect::D3d9 {
            return hoist_asm::d3d9::regs::reg_name(r);
        }
        arb_name(self.prog, r)
    }

    fn leaf(&mut self, src: &Src, comp: u8) -> Affine {
        let r = src.reg;
        if r.file == RegFile::Const
            && let Some(v) = self.prog.literal(r.index)
        {
            return Affine::constant(f64::from(v[comp as usize]));
        }
        if matches!(r.file, RegFile::Temp) || r.file.is_output() {
            return self.regs.get(&(r, comp)).cloned().unwrap_or_default();
        }
        if let Some(&v) = self.leaves.get(&(r, comp)) {
            return Affine::var(v);
        }
        let v = self.vars.len();
        self.vars.push(Variable {
            name: format!("{}.{}", self.reg_name(r, src.name), COMPS[comp as usize]),
            origin: Origin::Register {
                file: format!("{:?}", r.file),
                index: r.index,
                comp,
            },
            reg: r,
        });
        self.leaves.insert((r, comp), v);
        Affine::var(v)
    }

    /// Lane `lane` of source `k` (swizzle, negation, |·|), or None when not affine.
    fn operand(&mut self, inst: &Inst, k: usize, lane: u8, row: u16) -> Option<Affine> {
        let s = inst.src.get(k)?;
        if s.rel.is_some() {
            return None;
        }
        let mut src = s.clone();
        src.reg.index += row;
        let comp = src.swizzle.get(lane);
        let mut f = self.leaf(&src, comp);
        if src.abs {
            f = Affine::constant(f.as_constant()?.abs());
        }
        Some(if src.negate { f.scale(-1.0) } else { f })
    }

    fn dot(&mut self, inst: &Inst, n: u8, row: u16) -> Option<Affine> {
        let mut acc = Affine::default();
        for l in 0..n {
            let a = self.operand(inst, 0, l, 0)?;
            let b = self.operand(inst, 1, l, row)?;
            acc = acc.add(&a.mul(&b)?);
        }
        Some(acc)
    }

    /// The affine form of destination lane `lane`, or None when it is not affine.
    fn lane(&mut self, inst: &Inst, lane: u8) -> Option<Affine> {
        let op = |s: &mut Self, k| s.operand(inst, k, lane, 0);
        let f = match inst.info().shape {
            Shape::Componentwise => match inst.op {
                Op::Mov => op(self, 0)?,
                Op::Add => op(self, 0)?.add(&op(self, 1)?),
                Op::Sub => op(self, 0)?.add(&op(self, 1)?.scale(-1.0)),
                Op::Mul => op(self, 0)?.mul(&op(self, 1)?)?,
                Op::Mad => op(self, 0)?.mul(&op(self, 1)?)?.add(&op(self, 2)?),
                Op::Abs => Affine::constant(op(self, 0)?.as_constant()?.abs()),
                Op::Lrp => {
                    let t = op(self, 0)?.as_constant()?;
                    op(self, 1)?.scale(t).add(&op(self, 2)?.scale(1.0 - t))
                }
                _ => return None,
            },
            Shape::Dot(n) => self.dot(inst, n, 0)?,
            Shape::Dph => self.dot(inst, 3, 0)?.add(&op_lane(self, inst, 1, 3)?),
            Shape::Dp2add => self.dot(inst, 2, 0)?.add(&op_lane(self, inst, 2, 0)?),
            Shape::Matrix { cols, rows } if lane < rows => self.dot(inst, cols, u16::from(lane))?,
            Shape::Xpd if lane < 3 => {
                let (i, j) = ((lane + 1) % 3, (lane + 2) % 3);
                let p = op_lane(self, inst, 0, i)?.mul(&op_lane(self, inst, 1, j)?)?;
                let q = op_lane(self, inst, 0, j)?.mul(&op_lane(self, inst, 1, i)?)?;
                p.add(&q.scale(-1.0))
            }
            Shape::Swz => {
                let e = inst.ext_swizzle?;
                let v = match e.sel[lane as usize] {
                    ExtSel::Comp(c) => op_lane(self, inst, 0, c)?,
                    ExtSel::Zero => Affine::constant(0.0),
                    ExtSel::One => Affine::constant(1.0),
                };
                if e.neg[lane as usize] {
                    v.scale(-1.0)
                } else {
                    v
                }
            }
            _ => return None,
        };
        if inst.sat {
            return Some(Affine::constant(f.as_constant()?.clamp(0.0, 1.0)));
        }
        Some(f)
    }

    /// The forms an instruction writes, by component; None for no destination.
    fn exec(&mut self, i: usize, inst: &Inst) -> Option<Vec<(u8, Affine)>> {
        let dst = inst.dst.as_ref()?;
        if !inst.info().has_dst || matches!(dst.reg.file, RegFile::Address | RegFile::Predicate) {
            return None;
        }
        let mut out = Vec::new();
        for lane in dst.mask.iter() {
            let f = match self.lane(inst, lane) {
                Some(f) => f,
                None => {
                    let v = self.vars.len();
                    let line = self.line(i);
                    let op = self.op_name(inst.op);
                    self.vars.push(Variable {
                        name: format!("line {line} {op} .{}", COMPS[lane as usize]),
                        origin: Origin::Result {
                            inst: i,
                            line,
                            op,
                            comp: lane,
                        },
                        reg: dst.reg,
                    });
                    self.nonlinear += 1;
                    Affine::var(v)
                }
            };
            out.push((lane, f));
        }
        Some(out)
    }
}

/// Lane `lane` of source `k`, for operations that read a fixed lane (DPH's w, DP2ADD's
/// scalar, XPD's and SWZ's lanes).
fn op_lane(st: &mut State, inst: &Inst, k: usize, lane: u8) -> Option<Affine> {
    st.operand(inst, k, lane, 0)
}

/// An ARB spelling of a register without a name of its own.
fn arb_name(p: &Program, r: Reg) -> String {
    let stage = match p.stage() {
        Stage::Vertex => "vertex",
        Stage::Fragment => "fragment",
    };
    match (r.file, p.semantic(r)) {
        (RegFile::Const, _) => match p.consts.get(r.index as usize).map(|c| &c.binding) {
            Some(ConstBinding::Env(n)) => format!("program.env[{n}]"),
            Some(ConstBinding::Local(n)) => format!("program.local[{n}]"),
            _ => format!("c{}", r.index),
        },
        (_, Some(s)) if r.file.is_output() => format!("result.{}", semantic_word(s)),
        (_, Some(Semantic::Generic(n))) => format!("{stage}.attrib[{n}]"),
        (_, Some(s)) => format!("{stage}.{}", semantic_word(s)),
        _ => hoist_asm::d3d9::regs::reg_name(r),
    }
}

fn semantic_word(s: Semantic) -> String {
    match s {
        Semantic::Position(_) | Semantic::WindowPos => "position".into(),
        Semantic::TexCoord(n) => format!("texcoord[{n}]"),
        Semantic::Color(0) => "color".into(),
        Semantic::Color(n) => format!("color[{n}]"),
        Semantic::BackColor(n) => format!("color.back[{n}]"),
        Semantic::Fog(_) => "fogcoord".into(),
        Semantic::Normal(_) => "normal".into(),
        Semantic::BlendWeight(_) => "weight".into(),
        Semantic::PointSize(_) => "pointsize".into(),
        Semantic::Depth(_) => "depth".into(),
        other => format!("{other:?}").to_ascii_lowercase(),
    }
}

/// The register a program writes that is called `name` (an ARB `TEMP`/`OUTPUT` name or
/// binding such as `result.texcoord[1]`, a D3D9 name such as `r3` or `oT0`).
pub fn register_named(prog: &Program, name: &str) -> Option<Reg> {
    let st = State {
        prog,
        src: "",
        regs: BTreeMap::new(),
        leaves: BTreeMap::new(),
        vars: Vec::new(),
        nonlinear: 0,
    };
    prog.insts
        .iter()
        .filter_map(|i| i.dst.as_ref())
        .find(|d| {
            st.reg_name(d.reg, d.name).eq_ignore_ascii_case(name)
                || st.reg_name(d.reg, None).eq_ignore_ascii_case(name)
                || hoist_asm::d3d9::regs::reg_name(d.reg).eq_ignore_ascii_case(name)
        })
        .map(|d| d.reg)
}

impl Recovered {
    /// A human-readable account: each row with its affine form over the named variables.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let sys = &self.system;
        for (r, row) in self.rows.iter().enumerate() {
            let mut parts: Vec<String> = sys.terms[0].rows[r]
                .iter()
                .map(|(c, a)| format!("{a}·{}", self.variables[*c].name))
                .collect();
            if sys.b[r] != 0.0 || parts.is_empty() {
                parts.push(format!("{}", sys.b[r]));
            }
            s += &format!("  y{r} = {} = {}\n", row.name, parts.join(" + "));
        }
        s
    }
}

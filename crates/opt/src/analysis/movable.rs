//! Which fragment instructions may move to the vertex program, and why the others stay.
//!
//! Every value a fragment instruction writes is classified per component as
//! - **uniform**: the same for every fragment of the draw (it depends only on constants);
//! - **affine**: `A·t + b` for interpolated inputs `t` with uniform `A`, `b`;
//! - **varying**: anything else.
//!
//! Interpolation is a weighted sum with weights that add up to 1, in screen space or
//! perspective-correct alike, so it commutes with affine maps: computing an affine value per
//! vertex and interpolating it gives the value the fragment program would have computed
//! (exactly in real arithmetic; in floating point up to rounding, which the executor's
//! verdict measures). Uniform values interpolate to themselves. That is the paper's C3.
//!
//! The propagation rules per operation: `mov add sub`, negation and `SWZ` keep the widest
//! class of their operands; products (`mul mad dp* xpd dst` and the matrix macros) are affine
//! when each product has a uniform factor; `lrp` when the weight is uniform (or both ends
//! are); `cmp`/`cnd` when the selector is uniform (every vertex then selects the same side);
//! everything else, and `_sat`/`_abs`, is uniform only when all operands are and varying
//! otherwise.
//!
//! An instruction moves when all of the paper's conditions hold:
//! - **C1** the vertex profile can execute the op (or [`Knobs::lowerable`] says a lowering exists);
//! - **C2** it neither samples a texture, kills, nor writes a fragment output;
//! - **C3** every component it writes is uniform or affine, and it reads no low-precision
//!   colour interpolant, window position or face register (colours are clamped and, on the
//!   paper's hardware, 8-bit);
//! - **C4** every value it reads from an earlier instruction comes from one that moves.
//!
//! Two conditions of the I/O contract come on top: a host-set fragment parameter only moves
//! with "mirror parameters", and an interpolant only when the vertex program writes it.
//!
//! ## Compared with Mesa's `nir_opt_varyings` (backward inter-shader code motion)
//! Mesa moves an expression across interpolation when it is built from `fadd`, `fsub`,
//! `fneg`, `mov`, and `fmul`/`ffma` with a convergent (uniform) factor, `fdiv` by a
//! convergent value, and `flrp` under conditions like ours; anything goes when all inputs
//! are flat or convergent. That matches C3 here, with two differences: Hoist also moves
//! selects with a uniform selector (Mesa treats `bcsel` as non-movable across interpolation),
//! and it keeps per-component precision for vector ops instead of scalarising first. Mesa
//! refuses the motion entirely when Infs must be preserved, since interpolating Inf yields
//! NaN; ARB/D3D9 have no such mode, so Hoist moves and says so in its notes. Mesa never
//! touches TEXn/COLn slots (point-sprite coordinate replacement, colour clamping); Hoist
//! transports values through spare texture coordinates, which is sound for programs that
//! do not use point sprites, and never through colours. Mesa picks, per input, the farthest
//! movable post-dominator, and says it misses cases where 3 inputs could become 2; Hoist
//! instead chooses a set of whole instructions under explicit limits with a cost model
//! (greedy or exact), and transports exactly the values the remaining code reads.

use super::defuse::{DefUse, Read};
use super::interp::{InterpMap, Opacity, Origin};
use super::varyings::Qualifier;
use hoist_asm::ir::{ConstBinding, Inst, Program, RegFile, WriteMask};
use hoist_asm::ops::{Op, Shape};
use hoist_asm::profile::Profile;
use hoist_asm::state::StateRef;
use serde::{Deserialize, Serialize};

/// Value class of one component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Kind {
    Uniform,
    Affine,
    Varying,
}

/// Why an instruction stays in the fragment program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stay {
    /// C1: the vertex profile cannot execute the op.
    FragmentOnly { op: String },
    /// C2: samples a texture, kills, or writes a fragment output.
    FragmentResource { what: String },
    /// C1: the vertex profile emulates the op (a select), but not exactly here: a value
    /// operand may be infinite or NaN ([`super::finite`]).
    InexactEmulation { op: String },
    /// C3: a non-affine op applied to an interpolated value.
    NonLinear { op: String, operand: u8 },
    /// C3: reads a clamped/low-precision colour interpolant, the window position or vFace.
    Interpolant { reg: String, why: String },
    /// C4: depends on an instruction that stays.
    DependsOn {
        inst: u32,
        op: String,
        root: Box<Stay>,
    },
    /// Reads a host-set fragment parameter and "mirror parameters" is off.
    HostParameter { reg: String },
    /// Reads a temporary before any write.
    Undefined { reg: String },
    /// The fragment program has flow control.
    FlowControl,
    /// Nothing reads its result (every written component is overwritten first).
    Dead,
    /// Movable, but the selection left it in place.
    NotSelected { why: String },
    /// Its move was rejected by translation validation (`why` names the failing check and
    /// input), or the caller asked for it to stay.
    Rejected { why: String },
    /// Reads values interpolated under different qualifiers (say centroid and perspective):
    /// no interpolator can carry the result of both.
    Qualifier { first: String, second: String },
}

impl Stay {
    /// The condition this reason belongs to (C1–C4, or "I/O" for the interface contract).
    pub fn condition(&self) -> &'static str {
        match self {
            Stay::FragmentOnly { .. } | Stay::InexactEmulation { .. } => "C1",
            Stay::FragmentResource { .. } => "C2",
            Stay::NonLinear { .. } | Stay::Interpolant { .. } | Stay::Qualifier { .. } => "C3",
            Stay::DependsOn { .. } => "C4",
            Stay::HostParameter { .. } | Stay::Undefined { .. } => "I/O",
            Stay::Dead => "dead",
            Stay::FlowControl => "flow",
            Stay::NotSelected { .. } => "selection",
            Stay::Rejected { .. } => "validation",
        }
    }

    /// One line for a person: `line(i)` gives the display line of instruction `i`.
    pub fn describe(&self, line: &dyn Fn(u32) -> u32) -> String {
        match self {
            Stay::FragmentOnly { op } => {
                format!("C1: `{op}` cannot execute in the vertex program")
            }
            Stay::InexactEmulation { op } => format!(
                "C1: `{op}` has no vertex form, and its emulation (b·m + c·(1−m)) would turn \
                 an infinite value operand into NaN; one may be infinite here"
            ),
            Stay::FragmentResource { what } => format!("C2: {what}"),
            Stay::NonLinear { op, operand } => format!(
                "C3: `{op}` is not affine in its operand {} (an interpolated value)",
                operand + 1
            ),
            Stay::Interpolant { reg, why } => format!("C3: reads {reg}, {why}"),
            Stay::DependsOn { inst, op, root } => {
                format!(
                    "C4: depends on line {} (`{op}`, {})",
                    line(*inst),
                    root.short()
                )
            }
            Stay::HostParameter { reg } => format!(
                "reads {reg}, a parameter the application sets for the fragment program; \
                 enable \"mirror parameters\" to move it"
            ),
            Stay::Undefined { reg } => format!("reads {reg} before it is written"),
            Stay::FlowControl => {
                "a program of the pair has flow control (straight-line code only)".into()
            }
            Stay::Dead => "its result is never read (dead code, left as written)".into(),
            Stay::NotSelected { why } => format!("movable, not moved: {why}"),
            Stay::Rejected { why } => format!("rejected by validation: {why}"),
            Stay::Qualifier { first, second } => format!(
                "C3: mixes values interpolated {first} and {second}; one interpolator cannot \
                 carry their result"
            ),
        }
    }

    fn short(&self) -> String {
        match self {
            Stay::FragmentOnly { .. } => "fragment-only".into(),
            Stay::InexactEmulation { .. } => "inexact emulation".into(),
            Stay::FragmentResource { .. } => "fragment resource".into(),
            Stay::NonLinear { .. } => "not affine".into(),
            Stay::Interpolant { .. } => "unmovable input".into(),
            Stay::DependsOn { root, .. } => root.short(),
            Stay::HostParameter { .. } => "host parameter".into(),
            Stay::Undefined { .. } => "undefined read".into(),
            Stay::FlowControl => "flow control".into(),
            Stay::Dead => "dead code".into(),
            Stay::NotSelected { .. } => "not selected".into(),
            Stay::Rejected { .. } => "rejected by validation".into(),
            Stay::Qualifier { .. } => "mixed qualifiers".into(),
        }
    }
}

/// Tunables of the analysis.
pub struct Knobs<'a> {
    pub vp_profile: Profile,
    /// Move instructions that read host-set fragment parameters (the vertex program then needs
    /// its own copies, which the host must set).
    pub mirror_params: bool,
    /// Ops the vertex profile lacks but a lowering can emulate.
    pub lowerable: &'a dyn Fn(&Inst) -> bool,
    /// Instructions whose lowering would not be exact ([`super::finite`]).
    pub inexact_lowering: &'a dyn Fn(usize) -> bool,
    /// Instructions that must stay whatever they compute, with why.
    pub forced: &'a dyn Fn(usize) -> Option<Stay>,
}

/// The analysis result.
#[derive(Clone, Debug, Default)]
pub struct Movability {
    /// Per instruction: `None` = movable, else why it stays.
    pub stays: Vec<Option<Stay>>,
    /// Per instruction and destination component: value class (Varying for unwritten lanes).
    pub kinds: Vec<[Kind; 4]>,
    /// Per instruction: the qualifier of the interpolated values its result depends on
    /// (`None` when it depends on none, or stays). A moved result travels under it.
    pub qualifiers: Vec<Option<Qualifier>>,
}

impl Movability {
    pub fn movable(&self, i: usize) -> bool {
        self.stays[i].is_none()
    }

    pub fn compute(fp: &Program, du: &DefUse, interp: &InterpMap, knobs: &Knobs) -> Movability {
        let n = fp.insts.len();
        let mut m = Movability {
            stays: Vec::with_capacity(n),
            kinds: Vec::with_capacity(n),
            qualifiers: Vec::with_capacity(n),
        };
        for (i, inst) in fp.insts.iter().enumerate() {
            let (kinds, mut stay) = classify(fp, du, interp, knobs, &m, i, inst);
            let q = match stay {
                None => qualifier_of(fp, du, &m, i, inst).unwrap_or_else(|s| {
                    stay = Some(s);
                    None
                }),
                Some(_) => None,
            };
            m.kinds.push(kinds);
            m.stays.push(stay);
            m.qualifiers.push(q);
        }
        m
    }
}

fn op_name(fp: &Program, op: Op) -> String {
    let info = op.info();
    match fp.dialect() {
        hoist_asm::Dialect::Arb => info.arb.or(info.d3d),
        hoist_asm::Dialect::D3d9 => info.d3d.or(info.arb),
    }
    .unwrap_or("?")
    .to_string()
}

/// Fragment-only GL state (ARB_fragment_program bindings a vertex program cannot name).
fn fp_only_state(s: &StateRef) -> bool {
    !s.bindable_in(hoist_asm::ir::Stage::Vertex)
}

fn reg_name(fp: &Program, r: &Read) -> String {
    let comp = hoist_asm::ir::COMP_NAMES[r.comp as usize];
    let base = match (fp.dialect(), r.reg.file) {
        (hoist_asm::Dialect::D3d9, f) => {
            let prefix = match f {
                RegFile::Temp => "r",
                RegFile::Input => "v",
                RegFile::TexCoord => "t",
                RegFile::Const => "c",
                RegFile::Misc => {
                    return if r.reg.index == 0 {
                        "vPos".into()
                    } else {
                        "vFace".into()
                    };
                }
                _ => "?",
            };
            format!("{prefix}{}", r.reg.index)
        }
        (_, RegFile::Temp) => fp
            .symbols
            .iter()
            .find(|s| matches!(s.kind, hoist_asm::ir::SymKind::Temp(t) if t == r.reg.index))
            .map_or_else(|| format!("temp {}", r.reg.index), |s| s.name.clone()),
        (_, RegFile::TexCoord) => format!("fragment.texcoord[{}]", r.reg.index),
        (_, RegFile::Input) => match r.reg.index {
            0 => "fragment.color.primary".into(),
            1 => "fragment.color.secondary".into(),
            _ => "fragment.fogcoord".into(),
        },
        (_, RegFile::Misc) => "fragment.position".into(),
        (_, RegFile::Const) => match fp.consts.get(r.reg.index as usize).map(|c| &c.binding) {
            Some(ConstBinding::Env(n)) => format!("program.env[{n}]"),
            Some(ConstBinding::Local(n)) => format!("program.local[{n}]"),
            Some(ConstBinding::State(s)) => format!("state {s:?}"),
            _ => "a constant".into(),
        },
        (_, f) => format!("{f:?} {}", r.reg.index),
    };
    format!("{base}.{comp}")
}

/// Class of one read, or why it cannot be moved.
fn read_kind(
    fp: &Program,
    interp: &InterpMap,
    knobs: &Knobs,
    m: &Movability,
    r: &Read,
) -> Result<Kind, Stay> {
    match r.reg.file {
        RegFile::Const => match fp.consts.get(r.reg.index as usize).map(|c| &c.binding) {
            Some(ConstBinding::Literal(_)) => Ok(Kind::Uniform),
            Some(ConstBinding::State(s)) if !fp_only_state(s) => Ok(Kind::Uniform),
            Some(_) if knobs.mirror_params => Ok(Kind::Uniform),
            _ => Err(Stay::HostParameter {
                reg: reg_name(fp, r),
            }),
        },
        RegFile::Temp => match r.def {
            Some(j) => {
                let j = j as usize;
                match &m.stays[j] {
                    None => Ok(m.kinds[j][r.comp as usize]),
                    Some(root) => Err(Stay::DependsOn {
                        inst: j as u32,
                        op: op_name(fp, fp.insts[j].op),
                        root: Box::new(root.clone()),
                    }),
                }
            }
            None => Err(Stay::Undefined {
                reg: reg_name(fp, r),
            }),
        },
        RegFile::TexCoord | RegFile::Input => {
            let colour = matches!(fp.semantic(r.reg), Some(hoist_asm::ir::Semantic::Color(_)))
                || (r.reg.file == RegFile::Input
                    && fp.semantic(r.reg).is_none()
                    && r.reg.index < 2);
            if colour {
                return Err(Stay::Interpolant {
                    reg: reg_name(fp, r),
                    why: "a colour interpolant (clamped to [0, 1], low precision)".into(),
                });
            }
            match interp.origin(r.reg, r.comp) {
                Origin::Direct { reg, .. } if reg.file.is_uniform() => Ok(Kind::Uniform),
                Origin::Direct { .. } | Origin::Computed { .. } => Ok(Kind::Affine),
                Origin::Unwritten => Err(Stay::Interpolant {
                    reg: reg_name(fp, r),
                    why: "which the vertex program never writes".into(),
                }),
                Origin::Opaque(o) => Err(Stay::Interpolant {
                    reg: reg_name(fp, r),
                    why: match o {
                        Opacity::FlowControl => "written under vertex flow control".into(),
                        Opacity::Unlinked => "which no vertex output feeds".into(),
                        Opacity::Relative => "written through relative addressing".into(),
                        Opacity::Fixed => {
                            "a component the pipeline fixes (fog reads x, 0, 0, 1)".into()
                        }
                    },
                }),
            }
        }
        RegFile::Misc => Err(Stay::Interpolant {
            reg: reg_name(fp, r),
            why: "interpolated in screen space, not from a vertex output".into(),
        }),
        _ => Err(Stay::Interpolant {
            reg: reg_name(fp, r),
            why: "not a movable input".into(),
        }),
    }
}

/// The one qualifier of the interpolated values a movable instruction's live lanes depend
/// on (uniform values interpolate to themselves under any); `Err` when they mix two.
fn qualifier_of(
    fp: &Program,
    du: &DefUse,
    m: &Movability,
    i: usize,
    inst: &Inst,
) -> Result<Option<Qualifier>, Stay> {
    let live = live_lanes(du, i, inst);
    let mut q: Option<Qualifier> = None;
    for r in du.reads(i) {
        if r.lanes.intersect(live).is_empty() {
            continue;
        }
        let rq = match r.reg.file {
            RegFile::Temp => r.def.and_then(|d| m.qualifiers[d as usize]),
            RegFile::TexCoord | RegFile::Input => Some(Qualifier::of(fp, r.reg)),
            _ => None,
        };
        match (q, rq) {
            (None, Some(x)) => q = Some(x),
            (Some(a), Some(b)) if a != b => {
                return Err(Stay::Qualifier {
                    first: a.describe(),
                    second: b.describe(),
                });
            }
            _ => {}
        }
    }
    Ok(q)
}

fn join(a: Kind, b: Kind) -> Kind {
    a.max(b)
}

/// Class of a product: affine only with a uniform factor.
fn product(a: Kind, b: Kind) -> Kind {
    match (a, b) {
        (Kind::Uniform, k) | (k, Kind::Uniform) => k,
        _ => Kind::Varying,
    }
}

fn classify(
    fp: &Program,
    du: &DefUse,
    interp: &InterpMap,
    knobs: &Knobs,
    m: &Movability,
    i: usize,
    inst: &Inst,
) -> ([Kind; 4], Option<Stay>) {
    let none = [Kind::Varying; 4];
    if let Some(stay) = fixed_reason(fp, knobs, i, inst) {
        return (none, Some(stay));
    }
    // Only lanes somebody reads matter: a dead lane's inputs cannot block motion (the moved
    // copy drops it, see `live_lanes`).
    let live = live_lanes(du, i, inst);
    if live.is_empty() {
        return (none, Some(Stay::Dead));
    }
    // Class of every read; the first unmovable read is the reason to stay.
    let reads = du.reads(i);
    let mut read_kinds = Vec::with_capacity(reads.len());
    for r in reads {
        if r.lanes.intersect(live).is_empty() {
            read_kinds.push(Kind::Uniform);
            continue;
        }
        match read_kind(fp, interp, knobs, m, r) {
            Ok(k) => read_kinds.push(k),
            Err(stay) => return (none, Some(stay)),
        }
    }
    let ops = Operands {
        inst,
        reads,
        kinds: &read_kinds,
    };
    let mut kinds = [Kind::Varying; 4];
    let mut culprit = None;
    for lane in live.iter() {
        let kind = match lane_class(&ops, lane) {
            k if inst.sat && k != Kind::Uniform => Kind::Varying,
            k => k,
        };
        if kind == Kind::Varying && culprit.is_none() {
            // The first operand that is not uniform is the one the op is not affine in.
            let operand = (0..inst.src.len() as u8)
                .find(|&s| (0..4).any(|l| ops.lane(s as usize, 0, l) != Kind::Uniform))
                .unwrap_or(0);
            culprit = Some(operand);
        }
        kinds[lane as usize] = kind;
    }
    let name = op_name(fp, inst.op);
    let stay = culprit.map(|operand| Stay::NonLinear {
        op: if inst.sat {
            format!("{name}_sat")
        } else {
            name
        },
        operand,
    });
    (kinds, stay)
}

/// Reasons to stay that do not depend on operands: the caller's (validation's verdict), texture reads,
/// kills and fragment outputs (C2), ops the vertex profile cannot execute (C1).
fn fixed_reason(fp: &Program, knobs: &Knobs, i: usize, inst: &Inst) -> Option<Stay> {
    if let Some(stay) = (knobs.forced)(i) {
        return Some(stay);
    }
    let name = op_name(fp, inst.op);
    if inst.op.is_texture() || inst.op.is_kill() {
        let what = if inst.op.is_kill() {
            "discards the fragment"
        } else {
            "samples a texture"
        };
        return Some(Stay::FragmentResource {
            what: format!("`{name}` {what}"),
        });
    }
    if let Some(d) = &inst.dst
        && matches!(d.reg.file, RegFile::ColorOut | RegFile::DepthOut)
    {
        return Some(Stay::FragmentResource {
            what: "writes a fragment output".into(),
        });
    }
    if !knobs.vp_profile.has(inst.op) {
        if !(knobs.lowerable)(inst) {
            return Some(Stay::FragmentOnly { op: name });
        }
        if (knobs.inexact_lowering)(i) {
            return Some(Stay::InexactEmulation { op: name });
        }
    }
    None
}

/// An instruction's operands with the class of every register component it reads.
struct Operands<'a> {
    inst: &'a Inst,
    reads: &'a [Read],
    kinds: &'a [Kind],
}

impl Operands<'_> {
    /// Class of lane `lane` of source `k` (row `row` of a matrix), after swizzle and
    /// modifiers.
    fn lane(&self, k: usize, row: u16, lane: u8) -> Kind {
        let inst = self.inst;
        let s = &inst.src[k];
        let reg = hoist_asm::ir::Reg::new(s.reg.file, s.reg.index + row);
        let comp = if inst.op == Op::Swz {
            match inst.ext_swizzle.map(|e| e.sel[lane as usize]) {
                Some(hoist_asm::ir::ExtSel::Comp(c)) => s.swizzle.get(c),
                _ => return Kind::Uniform,
            }
        } else {
            s.swizzle.get(lane)
        };
        let kind = self
            .reads
            .iter()
            .zip(self.kinds)
            .find(|(r, _)| r.src == k as u8 && r.reg == reg && r.comp == comp)
            .map_or(Kind::Uniform, |(_, k)| *k);
        if s.abs && kind != Kind::Uniform {
            Kind::Varying
        } else {
            kind
        }
    }

    /// The join of every source's class at `lanes`.
    fn all(&self, lanes: &[u8]) -> Kind {
        let mut k = Kind::Uniform;
        for s in 0..self.inst.src.len() {
            for &l in lanes {
                k = join(k, self.lane(s, 0, l));
            }
        }
        k
    }

    /// The class of a sum of products of source 0 and source 1 lanes, plus `extra`.
    fn sum_products(&self, pairs: &[(u8, u8)], extra: Option<Kind>) -> Kind {
        let mut k = extra.unwrap_or(Kind::Uniform);
        for &(a, b) in pairs {
            k = join(k, product(self.lane(0, 0, a), self.lane(1, 0, b)));
        }
        k
    }
}

/// The class of one destination lane, by the propagation rules of the module header.
fn lane_class(ops: &Operands, lane: u8) -> Kind {
    let l = |k: usize, lane: u8| ops.lane(k, 0, lane);
    match ops.inst.info().shape {
        Shape::Componentwise => match ops.inst.op {
            Op::Mov | Op::Add | Op::Sub => ops.all(&[lane]),
            Op::Mul => product(l(0, lane), l(1, lane)),
            Op::Mad => join(product(l(0, lane), l(1, lane)), l(2, lane)),
            Op::Lrp => {
                let (w, a, b) = (l(0, lane), l(1, lane), l(2, lane));
                if w == Kind::Uniform {
                    join(a, b)
                } else if a == Kind::Uniform && b == Kind::Uniform {
                    w
                } else {
                    Kind::Varying
                }
            }
            Op::Cmp | Op::CmpGe | Op::Cnd => {
                if l(0, lane) == Kind::Uniform {
                    join(l(1, lane), l(2, lane))
                } else {
                    Kind::Varying
                }
            }
            _ => nonlinear(ops.all(&[lane])),
        },
        Shape::Swz => l(0, lane),
        Shape::Dot(3) => ops.sum_products(&[(0, 0), (1, 1), (2, 2)], None),
        Shape::Dot(_) => ops.sum_products(&[(0, 0), (1, 1), (2, 2), (3, 3)], None),
        Shape::Dph => ops.sum_products(&[(0, 0), (1, 1), (2, 2)], Some(l(1, 3))),
        Shape::Dp2add => ops.sum_products(&[(0, 0), (1, 1)], Some(l(2, 0))),
        Shape::Xpd => match lane {
            0 => ops.sum_products(&[(1, 2), (2, 1)], None),
            1 => ops.sum_products(&[(2, 0), (0, 2)], None),
            _ => ops.sum_products(&[(0, 1), (1, 0)], None),
        },
        Shape::Dst => match lane {
            0 => Kind::Uniform,
            1 => product(l(0, 1), l(1, 1)),
            2 => l(0, 2),
            _ => l(1, 3),
        },
        Shape::Matrix { cols, .. } => {
            let mut k = Kind::Uniform;
            for c in 0..cols {
                k = join(k, product(l(0, c), ops.lane(1, lane as u16, c)));
            }
            k
        }
        _ => nonlinear(ops.all(&[0, 1, 2, 3])),
    }
}

fn nonlinear(k: Kind) -> Kind {
    if k == Kind::Uniform {
        Kind::Uniform
    } else {
        Kind::Varying
    }
}

/// Whether every component `inst` writes is uniform.
pub fn all_uniform(m: &Movability, i: usize, mask: WriteMask) -> bool {
    mask.iter().all(|c| m.kinds[i][c as usize] == Kind::Uniform)
}

/// Destination lanes of instruction `i` that are read later or reach an output. Ops whose
/// lanes are not independent keep their whole mask (a moved copy cannot drop lanes).
pub fn live_lanes(du: &DefUse, i: usize, inst: &Inst) -> WriteMask {
    let Some(d) = &inst.dst else {
        return WriteMask::NONE;
    };
    if d.reg.file != RegFile::Temp || !narrowable(inst) {
        return d.mask;
    }
    let live = d.mask.iter().filter(|&c| !du.uses(i, c).is_empty());
    live.fold(WriteMask::NONE, |m, c| m.union(WriteMask::single(c)))
}

/// Whether dropping destination lanes leaves the other lanes' values unchanged.
pub fn narrowable(inst: &Inst) -> bool {
    matches!(
        inst.info().shape,
        Shape::Componentwise
            | Shape::Scalar
            | Shape::Dot(_)
            | Shape::Dph
            | Shape::Dp2add
            | Shape::Swz
    ) && !inst.op.is_texture()
}

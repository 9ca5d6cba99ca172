//! Transformations. One pass per file; each opens with what it does and why it is legal.
//!
//! [`PASSES`] is the registry: one line per pass, naming its module and how it runs on a
//! program ([`Run`]). The pipeline runs passes by name through [`run`], which checks the IR
//! after each one (debug and test builds) and names the pass that broke it; the filetests
//! (`tests/filetests.rs`) run every registered pass the same way, and require a directory
//! of cases for each, and a registry line for each file here. Adding a pass is its file,
//! its line in `registry!` below and its filetests.

use crate::analysis::Analysis;
use crate::tracked::{AddedFor, Line, Prov, Tracked};
use hoist_asm::ir::{Comp, Inst, Program, Reg, RegFile, Semantic, Src, Stage};
use hoist_asm::profile::{Limits, Profile};

/// What a pass may need besides its program. [`Env::new`] has the defaults: no other
/// program, only added or moved lines removable, one invocation, no analysis.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    /// The limits the pass works under.
    pub limits: &'a Limits,
    /// For a vertex pass: the pair's fragment program (what it reads is what the vertex
    /// program must still write). Without it every vertex output is live.
    pub fragment: Option<&'a Program>,
    /// Which lines dead-code elimination may remove.
    pub removable: Removable,
    /// How often the program runs (vertices or fragments), which prices recomputation.
    pub invocations: f64,
    /// For `commute`: the analyses of the pair, with this fragment program.
    pub analysis: Option<&'a Analysis>,
}

impl<'a> Env<'a> {
    pub fn new(limits: &'a Limits) -> Env<'a> {
        Env {
            limits,
            fragment: None,
            removable: Removable::Added,
            invocations: 1.0,
            analysis: None,
        }
    }
}

/// Lines a pass may delete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Removable {
    /// Only lines the motion added or moved; the originals stay.
    Added,
    /// Every line.
    All,
}

/// What a pass reports. [`Report::progress`] is whether it changed the program; the
/// `Display` is the filetests' last lines.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    Progress(bool),
    /// Vector packing's merges.
    Merges(usize),
    /// Rematerialization's copies.
    Copies(usize),
    /// Commutation: the `mov`s it rewrote.
    Rewritten(Vec<usize>),
    /// Renumbering: progress and the declared temporaries before and after.
    Renumbered {
        progress: bool,
        from: u16,
        to: u16,
    },
    /// Fitting: how (`Err` when nothing found fits), and the temporaries before and after.
    Fitted {
        how: Result<Option<fit::Fit>, ()>,
        from: u16,
        to: u16,
    },
}

impl Report {
    pub fn progress(&self) -> bool {
        match self {
            Report::Progress(p) | Report::Renumbered { progress: p, .. } => *p,
            Report::Merges(n) | Report::Copies(n) => *n > 0,
            Report::Rewritten(v) => !v.is_empty(),
            Report::Fitted { how, .. } => matches!(how, Ok(Some(_))),
        }
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Report::Progress(p) => write!(f, "progress: {p}"),
            Report::Merges(n) => write!(f, "merges: {n}"),
            Report::Copies(n) => write!(f, "copies: {n}"),
            Report::Rewritten(v) => write!(f, "rewritten movs: {v:?}"),
            Report::Renumbered { progress, from, to } => {
                write!(f, "progress: {progress}\ntemps: {from} -> {to}")
            }
            Report::Fitted { how, from, to } => {
                match how {
                    Ok(Some(h)) => write!(f, "fit: {}", h.describe())?,
                    Ok(None) => write!(f, "fit: already fits")?,
                    Err(()) => write!(f, "fit: none found")?,
                }
                write!(f, "\ntemps: {from} -> {to}")
            }
        }
    }
}

/// A pass over one program.
pub type ProgramPass = fn(&mut Tracked, &Env) -> Report;

/// How a registered pass runs.
#[derive(Clone, Copy)]
pub enum Run {
    /// On one program.
    Program(ProgramPass),
    /// The code motion: the pair and a choice in, both programs out.
    Motion(fn(&fp_to_vp::Input, &[bool]) -> Result<fp_to_vp::Motion, fp_to_vp::Infeasible>),
    /// A part of another registered pass, tested through it (`lower` is the motion's
    /// emulation of fragment-only ops).
    PartOf(&'static str),
}

/// One registered pass.
#[derive(Clone, Copy)]
pub struct Pass {
    pub name: &'static str,
    pub run: Run,
}

/// Declares each pass module and its registry line.
macro_rules! registry {
    ($($name:ident => $run:expr,)*) => {
        $(pub mod $name;)*
        /// Every pass, by name.
        pub static PASSES: &[Pass] = &[$(Pass { name: stringify!($name), run: $run },)*];
    };
}

registry! {
    commute => Run::Program(|t, e| Report::Rewritten(commute_with(t, e))),
    copy_prop => Run::Program(|t, _| Report::Progress(copy_prop_on(t))),
    dce => Run::Program(|t, e| Report::Progress(dce_on(t, e))),
    dot_product => Run::Program(|t, e| Report::Progress(dot_product::run(t, e.limits))),
    fit => Run::Program(fit_on),
    fold => Run::Program(|t, e| {
        Report::Progress(fold::run(t, e.limits.consts, &vertex_operand_legal))
    }),
    fp_to_vp => Run::Motion(fp_to_vp::run),
    legalize => Run::Program(|t, e| Report::Progress(legalize::run(t, e.limits))),
    lower => Run::PartOf("fp_to_vp"),
    mad_fuse => Run::Program(|t, e| Report::Progress(mad_fuse::run(t, e.limits))),
    remat => Run::Program(|t, e| Report::Copies(remat::run(t, u32::from(e.limits.temps)))),
    renumber => Run::Program(renumber_on),
    retarget => Run::Program(|t, _| Report::Progress(retarget::run(t))),
    schedule => Run::Program(|t, e| Report::Progress(schedule::run(t, e.limits))),
    slp => Run::Program(|t, _| Report::Merges(slp::merge(t))),
    tex_dedup => Run::Program(|t, e| Report::Progress(tex_dedup::run(t, e.limits))),
    tex_rename => Run::Program(|t, e| {
        let levels = e.limits.max_tex_indirections.unwrap_or(4) as i32;
        Report::Progress(tex_rename::run(t, levels - 1, e.limits.temps))
    }),
}

/// The registered pass called `name`.
pub fn get(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

thread_local! {
    /// Debug and test builds: a pass run in place of a registered one (see [`substitute`]).
    static SUBSTITUTE: std::cell::Cell<Option<(&'static str, ProgramPass)>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with `run` in place of the registered pass `name` on this thread, in debug and
/// test builds: how a test shows that the check after each pass catches a broken one.
#[doc(hidden)]
pub fn substitute<T>(name: &'static str, run: ProgramPass, f: impl FnOnce() -> T) -> T {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            SUBSTITUTE.with(|s| s.set(None));
        }
    }
    SUBSTITUTE.with(|s| s.set(Some((name, run))));
    let _restore = Restore;
    f()
}

/// Runs the registered program pass `name` over `t`; in debug and test builds the IR is
/// checked afterwards, and a broken invariant panics naming the pass (NIR's `NIR_PASS`
/// does the same). Panics when `name` is not a registered program pass.
pub fn run(name: &str, t: &mut Tracked, env: &Env) -> Report {
    let substitute = if cfg!(debug_assertions) {
        SUBSTITUTE
            .with(|s| s.get())
            .filter(|(n, _)| *n == name)
            .map(|(_, f)| f)
    } else {
        None
    };
    let f = match (substitute, get(name).map(|p| p.run)) {
        (Some(f), _) | (None, Some(Run::Program(f))) => f,
        _ => panic!("`{name}` is not a registered program pass"),
    };
    let report = f(t, env);
    checked(name, t);
    report
}

/// The registered code motion `name`, checked like [`run`].
pub fn motion(
    name: &str,
    x: &fp_to_vp::Input,
    selected: &[bool],
) -> Result<fp_to_vp::Motion, fp_to_vp::Infeasible> {
    let Some(Run::Motion(f)) = get(name).map(|p| p.run) else {
        panic!("`{name}` is not a registered motion");
    };
    let m = f(x, selected)?;
    checked(name, &m.vp);
    checked(name, &m.fp);
    Ok(m)
}

/// Debug and test builds: panics when `t` breaks an IR invariant after pass `name`.
pub fn checked(name: &str, t: &Tracked) {
    if !cfg!(debug_assertions) {
        return;
    }
    let mut broken: Vec<String> = hoist_asm::validate::check_ir(&t.program)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| d.message)
        .collect();
    if t.lines.len() != t.program.insts.len() {
        broken.push(format!(
            "{} provenance lines for {} instructions",
            t.lines.len(),
            t.program.insts.len()
        ));
    }
    assert!(
        broken.is_empty(),
        "pass `{name}` broke the IR: {}\n{}",
        broken.join("; "),
        hoist_asm::print(&t.program)
    );
}

// ---- how each stage wires the shared passes ------------------------------------------

fn commute_with(t: &mut Tracked, e: &Env) -> Vec<usize> {
    let Some(a) = e.analysis else {
        return Vec::new();
    };
    let Some(du) = &a.fp_du else {
        return Vec::new();
    };
    let m = &a.movability;
    let fp = t.program.clone();
    let movable_src = |j: usize, k: usize| {
        fp.insts[j].src[k].reg.file != RegFile::Misc
            && du
                .reads(j)
                .iter()
                .filter(|r| r.src as usize == k)
                .all(|r| match r.def {
                    Some(d) => m.movable(d as usize),
                    None => !r.reg.file.is_input() || a.interp.written(r.reg, r.comp),
                })
    };
    commute::run(t, du, m, &movable_src)
}

/// Fragment side: operands read interpolators through the motion's materialising `mov`s
/// directly. Vertex side: copies in the moved code are folded.
fn copy_prop_on(t: &mut Tracked) -> bool {
    match t.program.stage() {
        Stage::Fragment => {
            let profile = t.program.profile;
            copy_prop::run(t, &is_materialize, &|_| true, &|p, j, k, s| {
                fragment_swizzle_ok(profile, &p.insts[j], k, s)
            })
        }
        Stage::Vertex => copy_prop::run(
            t,
            &|l, _| !l.is_original(),
            &|l| !l.is_original(),
            &vertex_operand_legal,
        ),
    }
}

fn dce_on(t: &mut Tracked, e: &Env) -> bool {
    let removable = |l: &Line| e.removable == Removable::All || !l.is_original();
    match (t.program.stage(), e.fragment) {
        (Stage::Fragment, _) => dce::run(t, &fragment_live_out, &removable),
        (Stage::Vertex, Some(fp)) => {
            let live = vp_live_out(&t.program, fp);
            dce::run(t, &live, &removable)
        }
        (Stage::Vertex, None) => dce::run(t, &|_, _| true, &removable),
    }
}

fn fit_on(t: &mut Tracked, e: &Env) -> Report {
    let from = t.program.num_temps;
    let how = fit::run(t, e.limits, e.invocations);
    let to = t.program.num_temps;
    Report::Fitted { how, from, to }
}

fn renumber_on(t: &mut Tracked, e: &Env) -> Report {
    let from = t.program.num_temps;
    let progress = renumber::run(t, e.limits.temps);
    let to = t.program.num_temps;
    Report::Renumbered { progress, from, to }
}

/// Whether a fragment operand may read `s` in this profile: ps_2_0's swizzle rule where
/// code the optimizer writes must keep to it ([`Profile::keeps_ps2_0_swizzles`]), and
/// ps_2_x texture coordinates unswizzled.
pub fn fragment_swizzle_ok(profile: Profile, inst: &Inst, k: usize, s: &Src) -> bool {
    if !profile.keeps_ps2_0_swizzles() {
        return true;
    }
    if inst.op.is_texture() && k == 0 {
        return s.swizzle.is_identity();
    }
    hoist_asm::d3d9::rules::ps2_0_swizzle(s.swizzle)
}

/// Vertex outputs still needed: non-interpolant outputs always, interpolants when read.
pub fn vp_live_out(vp: &Program, fp: &Program) -> impl Fn(Reg, Comp) -> bool + use<> {
    let mut read: Vec<(Semantic, Comp)> = Vec::new();
    for inst in &fp.insts {
        let lanes = if inst.info().has_dst {
            inst.dst_lanes()
        } else {
            hoist_asm::WriteMask::ALL
        };
        for (k, s) in inst.src.iter().enumerate() {
            if let Some(sem) = fp.semantic(s.reg) {
                for c in inst.src_reads(k, lanes).iter() {
                    read.push((sem, c));
                }
            }
        }
    }
    let io: Vec<(Reg, Option<Semantic>)> =
        vp.io.iter().map(|d| (d.reg, Some(d.semantic))).collect();
    move |reg: Reg, c: Comp| {
        let sem = io
            .iter()
            .find(|(r, _)| *r == reg)
            .and_then(|(_, s)| *s)
            .or(match reg.file {
                RegFile::TexCrdOut => Some(Semantic::TexCoord(reg.index as u8)),
                RegFile::AttrOut if reg.index < 2 => Some(Semantic::Color(reg.index as u8)),
                _ => None,
            });
        match sem {
            Some(s @ (Semantic::TexCoord(_) | Semantic::Color(_) | Semantic::Generic(_))) => {
                read.contains(&(s, c))
            }
            _ => true,
        }
    }
}

/// Fragment copy propagation's candidates: the `mov`s that read transported values back.
pub fn is_materialize(l: &Line, _: &Inst) -> bool {
    matches!(
        l.prov,
        Prov::Added {
            why: AddedFor::Materialize,
            ..
        }
    )
}

/// Fragment outputs, always live.
pub fn fragment_live_out(r: Reg, _: Comp) -> bool {
    matches!(r.file, RegFile::ColorOut | RegFile::DepthOut)
}

/// Whether operand `k` of vertex instruction `j` may become `s`: the profile accepts the
/// rewritten instruction.
pub fn vertex_operand_legal(p: &Program, j: usize, k: usize, s: &Src) -> bool {
    let mut inst = p.insts[j].clone();
    inst.src[k] = s.clone();
    hoist_asm::check_inst(p, &inst).is_empty()
}

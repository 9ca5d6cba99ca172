//! Transformations. One pass per file; each opens with what it does and why it is legal.
//!
//! [`PASSES`] is the registry: one line per pass, naming its module and how it runs on a
//! program ([`Run`]); the same line names the pass as an [`Id`] (`Id::dce`). The pipeline
//! runs passes by `Id` through [`run`], which checks the IR after each one (debug and test
//! builds) and names the pass that broke it; the filetests (`tests/filetests.rs`) run every
//! registered pass the same way, by its name, and require a directory of cases for each,
//! and a registry line for each file here. Adding a pass is its file, its line in
//! `registry!` below and its filetests.

use crate::analysis::Analysis;
use crate::tracked::{AddedFor, Line, Prov, Tracked};
use hoist_asm::ir::{Comp, Inst, Program, Reg, RegFile, Src, Stage};
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
    /// For a fragment pass over interpolants (the varying passes): the pair's vertex
    /// program, which fills them.
    pub vertex: Option<&'a Program>,
    /// Host parameters may be copied between the stages ("mirror parameters").
    pub mirror_params: bool,
}

impl<'a> Env<'a> {
    pub fn new(limits: &'a Limits) -> Env<'a> {
        Env {
            limits,
            fragment: None,
            removable: Removable::Added,
            invocations: 1.0,
            analysis: None,
            vertex: None,
            mirror_params: false,
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
    /// A varying pass: progress, what it did or refused per interpolant, and the fragment
    /// copies of vertex parameters the host must now set.
    Varyings {
        progress: bool,
        changes: Vec<crate::analysis::varyings::Change>,
        mirrors: Vec<fp_to_vp::Mirror>,
    },
}

impl Report {
    pub fn progress(&self) -> bool {
        match self {
            Report::Progress(p) | Report::Renumbered { progress: p, .. } => *p,
            Report::Merges(n) | Report::Copies(n) => *n > 0,
            Report::Rewritten(v) => !v.is_empty(),
            Report::Fitted { how, .. } => matches!(how, Ok(Some(_))),
            Report::Varyings { progress, .. } => *progress,
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
            Report::Varyings {
                progress,
                changes,
                mirrors,
            } => {
                write!(f, "progress: {progress}")?;
                for c in changes {
                    let at = c
                        .inst
                        .map_or(String::new(), |i| format!(" (instruction {})", i + 1));
                    let done = if c.done { "done" } else { "refused" };
                    write!(f, "\n{done}: {}{at}: {}", c.input, c.what)?;
                }
                for m in mirrors {
                    write!(f, "\nmirror: {m:?}")?;
                }
                Ok(())
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
    pub id: Id,
    pub name: &'static str,
    pub run: Run,
}

/// Declares each pass module, its [`Id`] and its registry line.
macro_rules! registry {
    ($($name:ident => $run:expr,)*) => {
        $(pub mod $name;)*

        /// A registered pass, named as its module (`Id::dce`). Code that runs a pass names
        /// it by `Id`: a misspelt pass does not compile, and a call with a constant `Id`
        /// resolves to its pass when compiled, with no lookup and no call through a pointer.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Id {
            $($name,)*
        }

        impl Id {
            /// Every registered pass, in registry order.
            pub const ALL: &[Id] = &[$(Id::$name,)*];

            /// The pass's registry line. Inlined, so that a constant `Id` selects its line
            /// at compile time.
            #[inline(always)]
            pub const fn pass(self) -> Pass {
                match self {
                    $(Id::$name => Pass { id: self, name: stringify!($name), run: $run },)*
                }
            }
        }

        /// Every pass, by name.
        pub static PASSES: &[Pass] = &[$(Id::$name.pass(),)*];
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
    varying_const => Run::Program(|t, e| varyings_on(t, e, varying_const::run)),
    varying_dead => Run::Program(varying_dead_on),
    varying_dedup => Run::Program(|t, e| varyings_on(t, e, |t, cx, log, _| varying_dedup::run(t, cx, log))),
    varying_pack => Run::PartOf("fp_to_vp"),
    varying_uniform => Run::PartOf("fp_to_vp"),
}

impl Id {
    /// The pass's name: its module's and its filetests directory's.
    pub const fn name(self) -> &'static str {
        self.pass().name
    }

    /// The registered pass called `name`.
    pub fn named(name: &str) -> Option<Id> {
        Id::ALL.iter().copied().find(|id| id.name() == name)
    }
}

/// The registered pass called `name`.
pub fn get(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

thread_local! {
    /// Debug and test builds: a pass run in place of a registered one (see [`substitute`]).
    static SUBSTITUTE: std::cell::Cell<Option<(Id, ProgramPass)>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with `run` in place of the registered pass `id` on this thread, in debug and
/// test builds: how a test shows that the check after each pass catches a broken one.
#[doc(hidden)]
pub fn substitute<T>(id: Id, run: ProgramPass, f: impl FnOnce() -> T) -> T {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            SUBSTITUTE.with(|s| s.set(None));
        }
    }
    SUBSTITUTE.with(|s| s.set(Some((id, run))));
    let _restore = Restore;
    f()
}

/// Runs the registered program pass `id` over `t`; in debug and test builds the IR is
/// checked afterwards, and a broken invariant panics naming the pass (NIR's `NIR_PASS`
/// does the same). Panics when `id` is not a program pass. Inlined, so that the pass
/// a constant `Id` names is called directly (the pipeline's calls all are).
#[inline(always)]
pub fn run(id: Id, t: &mut Tracked, env: &Env) -> Report {
    let substitute = if cfg!(debug_assertions) {
        SUBSTITUTE
            .with(|s| s.get())
            .filter(|(n, _)| *n == id)
            .map(|(_, f)| f)
    } else {
        None
    };
    let f = match (substitute, id.pass().run) {
        (Some(f), _) | (None, Run::Program(f)) => f,
        _ => panic!("`{}` is not a program pass", id.name()),
    };
    let report = f(t, env);
    checked(id.name(), t);
    report
}

/// The registered code motion `id`, checked like [`run`].
#[inline(always)]
pub fn motion(
    id: Id,
    x: &fp_to_vp::Input,
    selected: &[bool],
) -> Result<fp_to_vp::Motion, fp_to_vp::Infeasible> {
    let Run::Motion(f) = id.pass().run else {
        panic!("`{}` is not a motion", id.name());
    };
    let m = f(x, selected)?;
    checked(id.name(), &m.vp);
    checked(id.name(), &m.fp);
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

/// A fragment varying pass (`varying_dead`, `varying_const`, `varying_dedup`): the facts of
/// the pair from `Env::vertex`, the pass, and what it did. Without a vertex program nothing
/// is known about the interpolants, so nothing changes.
fn varyings_on(
    t: &mut Tracked,
    e: &Env,
    pass: fn(
        &mut Tracked,
        &crate::analysis::varyings::PassCx,
        &mut Vec<crate::analysis::varyings::Change>,
        &mut Vec<fp_to_vp::Mirror>,
    ) -> bool,
) -> Report {
    let (mut changes, mut mirrors) = (Vec::new(), Vec::new());
    let Some(vp) = e.vertex else {
        return Report::Varyings {
            progress: false,
            changes,
            mirrors,
        };
    };
    let vp_du = crate::analysis::defuse::DefUse::compute(vp).ok();
    let interp = crate::analysis::interp::InterpMap::compute(vp, vp_du.as_ref(), &t.program);
    let facts =
        crate::analysis::varyings::Varyings::compute(vp, vp_du.as_ref(), &t.program, &interp);
    let cx = crate::analysis::varyings::PassCx {
        vp,
        facts: &facts,
        fp_limits: e.limits,
        mirror_params: e.mirror_params,
    };
    let progress = pass(t, &cx, &mut changes, &mut mirrors);
    Report::Varyings {
        progress,
        changes,
        mirrors,
    }
}

/// `varying_dead`: on a fragment program the unwritten reads become literals; on a vertex
/// program (with `Env::fragment`) the writes nothing reads go.
fn varying_dead_on(t: &mut Tracked, e: &Env) -> Report {
    match (t.program.stage(), e.fragment) {
        (Stage::Vertex, Some(fp)) => Report::Progress(varying_dead::run_vertex(t, fp)),
        (Stage::Vertex, None) => Report::Progress(false),
        (Stage::Fragment, _) => varyings_on(t, e, |t, cx, log, _| varying_dead::run(t, cx, log)),
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
    dce::interpolants_read(vp, fp)
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

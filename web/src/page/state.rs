//! The app state and its reducer.
//!
//! [`State`] holds the document, the derived analysis and render results (each tagged with
//! the document revision it belongs to) and what the interface needs besides (notices, user
//! pictures, the highlighted origin line). Every change goes through [`State::apply`] with
//! an [`Action`]; results computed for an older revision are dropped there, so a slow
//! render never overwrites the view of newer text.
//!
//! A revision's results arrive in steps: its parse (main thread: diagnostics at once), the
//! worker's validated optimization (joined with the parse into the analysis shown), render
//! progress, the render. A worker failure is kept as a message until the next revision.

use crate::doc::examples;
use crate::doc::{Doc, OptState, ParamKey, TexSpec, ViewMap};
use crate::worker::analysis::{Analysis, OptResult};
use crate::worker::render::Images;
pub use crate::worker::render::Rendered;
use std::rc::Rc;

/// A message at the top of the page.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

#[derive(Clone, Debug, Default)]
pub struct State {
    pub doc: Rc<Doc>,
    /// Bumped on every document change.
    pub rev: u64,
    /// The parse of the newest revision sent to the worker, and that revision.
    pub parsed: Option<Rc<Analysis>>,
    pub parsed_rev: u64,
    /// The last complete analysis (parse and validated optimization).
    pub analysis: Option<Rc<Analysis>>,
    /// Revision the analysis belongs to.
    pub analysis_rev: u64,
    /// Milliseconds the worker's parse, optimization and validation took.
    pub analysis_ms: f64,
    /// The last validation sent after the images, ms (0: none).
    pub validation_ms: f64,
    /// Render in progress: fraction done, for the analysis revision.
    pub progress: Option<f64>,
    pub rendered: Option<Rc<Rendered>>,
    /// Why nothing could be rendered (a broken scene, for instance).
    pub render_error: Option<String>,
    /// The worker stopped (panicked, threw, could not load): why.
    pub engine_error: Option<String>,
    /// The revision whose job `engine_error` failed: that revision's parse, which can come
    /// after the failure (the job goes first), does not clear it.
    engine_error_rev: u64,
    pub images: Images,
    /// Names of the user pictures by unit, for display.
    pub image_names: Vec<(u8, String)>,
    pub notice: Option<Notice>,
    /// Source line of the original fragment program to highlight (hover on a moved line).
    pub origin_line: Option<u32>,
    /// The document's example as it loads (to tell whether the document is still that),
    /// loaded once per example instead of once per question.
    pub pristine: Option<Rc<Doc>>,
    /// The address holds a link that could not be opened: it stays there, to be repaired,
    /// until the document changes (persistence leaves the address alone meanwhile).
    pub keep_address: bool,
    /// The revision whose job the user stopped (its results are dropped), and how many
    /// times Stop was pressed (the page stops the worker when this changes).
    pub stopped: Option<u64>,
    pub stops: u64,
    /// The linear-expression job's result (`crate::worker::linear::run`), its revision and time (ms).
    pub linear: Option<LinearResult>,
    pub linear_rev: u64,
    pub linear_ms: f64,
    /// Source mode: the front worker's last answer (`crate::page::source_state`).
    pub front: Option<Rc<FrontResult>>,
    /// Source mode: the instruction or source place under the pointer or the focus.
    pub source_focus: Option<crate::page::source_map::Focus>,
    /// Render times (original, optimized; ms) of the renders of this very document, oldest
    /// first (`Action::Rerun` adds one), and the document they belong to: the spread the
    /// statistics show ([`crate::page::summary::timing`]).
    pub timings: Vec<[f64; 2]>,
    pub timings_of: Option<Rc<Doc>>,
    /// The revision "time again" made: its job draws both pairs again (`Job::fresh`).
    pub rerun_rev: u64,
    /// The pixel debugger: the pixel it is open on (the link holds it), the trace of it for
    /// a revision, and the row stepped to.
    pub debug_pixel: Option<(u32, u32)>,
    pub debug: Option<Traced>,
    pub debug_row: usize,
    /// The linear mode's debugger: the x vector it is open on (0-based), the row stepped
    /// to, and the trace for a revision.
    pub linear_debug: Option<usize>,
    pub linear_debug_row: usize,
    pub linear_traced: Option<LinearTraced>,
}

/// A traced x vector of a revision's linear system (`crate::worker::linear_debug`).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearTraced {
    pub rev: u64,
    pub vector: usize,
    pub view: Rc<Result<crate::worker::linear_debug::LinearDebugView, String>>,
}

/// A traced pixel of a revision (`crate::worker::debug`).
#[derive(Clone, Debug, PartialEq)]
pub struct Traced {
    pub rev: u64,
    pub pixel: (u32, u32),
    pub view: Rc<Result<crate::worker::debug::DebugView, String>>,
}

/// The front worker's last answer and the source it compiled (`Err`: the worker died).
#[derive(Clone, Debug, PartialEq)]
pub struct FrontResult {
    pub source: crate::doc::source::SourceDoc,
    pub output: Result<Rc<crate::worker::front::Output>, String>,
}

/// What the current revision's job is, in source mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceStatus {
    /// Not in source mode: the pair is the document's own.
    Assembly,
    /// The source changed since its last compile: compile it.
    Compile,
    /// The source does not compile: nothing to optimize or render.
    Failed,
    /// The compiled pair is in the document.
    Ready,
}

/// Source mode's edits, for [`State::apply`].
#[derive(Clone, Debug)]
pub enum SourceEdit {
    /// The text of an editor (the scene's for `Place::Scene`).
    Text(crate::doc::source::Place, String),
    /// The language, entry points, dialect or ARB target.
    Doc(Box<crate::doc::source::SourceDoc>),
    /// Assembly input (`None`) or source input in a language.
    Input(Option<crate::doc::source::Lang>),
    /// The front worker's answer for a source.
    Compiled(
        Box<crate::doc::source::SourceDoc>,
        Result<Rc<crate::worker::front::Output>, String>,
    ),
}

/// What the worker answers for a linear system.
pub type LinearResult = Result<Rc<crate::worker::linear::Outcome>, String>;

#[derive(Clone, Debug)]
pub enum Action {
    SetVp(String),
    SetFp(String),
    /// Profile override of the vertex (true) or fragment program; `None` = detect.
    SetProfile(bool, Option<String>),
    SetOpts(OptState),
    SetSize(u32, u32),
    /// One edge of the render size (width if true), the other kept as the document has it:
    /// two fields edited in quick succession never undo each other.
    SetEdge(bool, u32),
    SetTexture(TexSpec),
    /// Drops an explicit texture setting (back to the scene's or the default).
    ResetTexture(u8),
    SetParam(ParamKey, [f32; 4]),
    ResetParam(ParamKey),
    SetView(ViewMap),
    SetTolerance(f32),
    /// A user picture (PNG bytes) for a unit.
    SetImage(u8, String, Rc<Vec<u8>>),
    LoadExample(String),
    LoadDoc(Box<Doc>),
    /// A new untitled document (a pass-through pair in the current dialect).
    New,
    /// A scene file (its text, and its file name when it came from one) to import whole.
    Import(String, Option<String>),
    /// Turns hand editing of the optimized side on (starting from the optimizer's output)
    /// or off.
    HandEdit(bool),
    /// Starts the hand edit again from the optimizer's current output.
    HandRestart,
    /// Drops the hand edit put aside by unchecking "edit by hand".
    HandDiscard,
    SetHandVp(String),
    SetHandFp(String),
    /// The parse of a revision (its job goes to the worker).
    Parsed(u64, Rc<Analysis>),
    /// The worker's optimization of a revision and how long it took (ms).
    Optimized(u64, Option<OptResult>, f64),
    /// Validation's answer for a revision's result sent before it, and its time (ms).
    Validated(u64, Rc<crate::worker::analysis::Validation>, f64),
    Progress(u64, f64),
    Rendered(u64, Rc<Rendered>),
    RenderFailed(u64, String),
    /// The worker died while working on a revision: why.
    EngineFailed(u64, String),
    /// The URL fragment changed (a followed example card, a pasted link).
    Hash(String),
    /// Opens the pixel debugger on a pixel, or closes it (`None`).
    Debug(Option<(u32, u32)>),
    /// The worker's trace of a pixel for a revision.
    Traced(Traced),
    /// Steps the debugger to a row.
    DebugRow(usize),
    /// Opens the linear debugger on an x vector (0-based), or closes it (`None`).
    LinearDebug(Option<usize>),
    /// The worker's trace of an x vector for a revision.
    LinearTraced(LinearTraced),
    /// Steps the linear debugger to a row.
    LinearDebugRow(usize),
    Notice(Option<Notice>),
    OriginLine(Option<u32>),
    /// The scene's text (empty: no scene, the GPGPU quad).
    SetScene(String),
    /// Stop the job under way (Stop button); its results are not waited for.
    Stop,
    /// Run the current document again (after a Stop).
    Rerun,
    /// An edit of what the draw supplies (attributes, matrices, randomise, defaults).
    Supplied(crate::worker::supplied::Edit),
    /// Code motion or linear expressions.
    SetMode(crate::doc::Mode),
    /// The linear mode's system, example and dialect.
    SetLinear(crate::worker::linear::LinearDoc),
    /// The worker's linear-expression result for a revision, and how long it took (ms).
    Linear(u64, LinearResult, f64),
    /// Source mode: an edit, or the front worker's answer.
    Source(SourceEdit),
    /// Source mode: what the pointer or the focus is on (source mapping).
    SourceFocus(Option<crate::page::source_map::Focus>),
}

/// Key of the last document in local storage.
pub const STORAGE_KEY: &str = "hoist.doc";

/// The document a page load starts with: the URL fragment's, else the last one (local
/// storage), else the default example; a message when the fragment was refused.
pub fn initial_doc(fragment: &str, stored: Option<&str>) -> (Doc, Option<Notice>) {
    let fallback = || match stored.map(crate::doc::codec::decode) {
        Some(Ok(crate::doc::codec::Link::State(d))) => *d,
        Some(Ok(crate::doc::codec::Link::Example(id))) => {
            examples::load_id(&id).unwrap_or_else(default_doc)
        }
        _ => default_doc(),
    };
    match crate::doc::codec::decode(fragment) {
        Ok(crate::doc::codec::Link::State(d)) => (*d, None),
        Ok(crate::doc::codec::Link::Example(id)) => match examples::load_id(&id) {
            Some(d) => (d, None),
            None => (
                fallback(),
                Some(Notice {
                    text: format!("this link names an example that does not exist: `{id}`"),
                    error: true,
                }),
            ),
        },
        Ok(crate::doc::codec::Link::None) => (fallback(), None),
        Err(e) => (
            fallback(),
            Some(Notice {
                text: format!("The link could not be opened: {e}"),
                error: true,
            }),
        ),
    }
}

fn default_doc() -> Doc {
    examples::find(examples::DEFAULT)
        .map(examples::load)
        .unwrap_or_default()
}

impl State {
    pub fn new(doc: Doc) -> State {
        let mut s = State::default();
        s.load(doc);
        s.rev = 1;
        s
    }

    pub(crate) fn touch(&mut self) {
        self.rev += 1;
        self.keep_address = false;
    }

    /// Whether the analysis shown belongs to the current text.
    pub fn is_current(&self) -> bool {
        self.analysis_rev == self.rev
    }

    /// Whether the render shown is an earlier one than the current text's: while the text
    /// is optimized or rendered, or after a stop. The page dims its images and withholds
    /// its verdict then (the summary line's `checking…`).
    pub fn shows_previous_render(&self) -> bool {
        self.rendered.is_some()
            && (!self.is_current() || self.progress.is_some() || self.is_stopped())
    }

    /// The newest parse (for the editors' diagnostics): ahead of the analysis while the
    /// worker is busy.
    pub fn latest_parse(&self) -> Option<&Rc<Analysis>> {
        if self.parsed_rev > self.analysis_rev {
            self.parsed.as_ref()
        } else {
            self.analysis.as_ref()
        }
    }

    /// Whether the worker is optimizing the current revision.
    pub fn is_optimizing(&self) -> bool {
        self.parsed_rev == self.rev
            && self.analysis_rev < self.rev
            && self.engine_error.is_none()
            && !self.is_stopped()
    }

    /// Whether the worker is optimizing or rendering the current revision.
    pub fn is_working(&self) -> bool {
        self.is_optimizing() || (self.progress.is_some() && self.is_current())
    }

    /// Whether the user stopped the current revision's job.
    pub fn is_stopped(&self) -> bool {
        self.stopped == Some(self.rev)
    }

    /// A new scene text, refused with a notice above [`crate::doc::MAX_SCENE`].
    fn set_scene(&mut self, text: String) {
        if text.len() > crate::doc::MAX_SCENE {
            self.notice = Some(Notice {
                text: format!(
                    "That scene is {} KiB; the playground accepts scenes of up to {} KiB, so \
                     the edit was not applied.",
                    text.len().div_ceil(1024),
                    crate::doc::MAX_SCENE / 1024
                ),
                error: true,
            });
            return;
        }
        let scene = (!text.trim().is_empty()).then_some(text);
        if scene != self.doc.scene {
            // The panel shows the scene at the document's size (`scene_size`): a size the
            // edited text states is the document's new size.
            if let Some((w, h)) = scene
                .as_deref()
                .and_then(crate::doc::scene_size::stated_size)
            {
                let max = crate::doc::MAX_SIZE;
                let inputs = &mut self.doc_mut().inputs;
                (inputs.width, inputs.height) = (w.clamp(1, max), h.clamp(1, max));
            }
            self.doc_mut().scene = scene;
            self.touch();
        }
    }

    /// Refuses program texts above [`crate::doc::MAX_PROGRAM`] with a notice.
    fn fits(&mut self, text: &str) -> bool {
        if text.len() > crate::doc::MAX_PROGRAM {
            self.notice = Some(Notice {
                text: format!(
                    "That program is {} KiB; the playground accepts programs of up to {} KiB, \
                     so the edit was not applied.",
                    text.len().div_ceil(1024),
                    crate::doc::MAX_PROGRAM / 1024
                ),
                error: true,
            });
            false
        } else {
            true
        }
    }

    /// The document, to edit: shared with the previous state until an action changes it
    /// (`Rc::make_mut` copies it then, once).
    pub fn doc_mut(&mut self) -> &mut Doc {
        Rc::make_mut(&mut self.doc)
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::SetVp(ref t) | Action::SetFp(ref t)
                if crate::page::scenefile::looks_like_scene(t) =>
            {
                // A refused scene stays in the editor (as the textarea shows it), with why.
                let t = t.clone();
                if !self.import(&t, None) {
                    self.edit_programs(action);
                }
            }
            Action::New => self.new_doc(),
            Action::Import(t, name) => {
                self.import(&t, name.as_deref());
            }
            Action::SetVp(_)
            | Action::SetFp(_)
            | Action::SetProfile(..)
            | Action::SetOpts(_)
            | Action::HandEdit(_)
            | Action::HandRestart
            | Action::HandDiscard
            | Action::SetHandVp(_)
            | Action::SetHandFp(_) => self.edit_programs(action),
            Action::SetEdge(width, v) => {
                let (w, h) = (self.doc.inputs.width, self.doc.inputs.height);
                let size = if width { (v, h) } else { (w, v) };
                self.edit_inputs(Action::SetSize(size.0, size.1));
            }
            Action::SetSize(..)
            | Action::SetTexture(_)
            | Action::ResetTexture(_)
            | Action::SetParam(..)
            | Action::ResetParam(_)
            | Action::SetView(_)
            | Action::SetTolerance(_)
            | Action::SetImage(..) => self.edit_inputs(action),
            Action::LoadExample(id) => self.load_example(&id),
            Action::LoadDoc(d) => self.load(*d),
            Action::Hash(h) => self.follow_link(&h),
            Action::Parsed(..)
            | Action::Optimized(..)
            | Action::Validated(..)
            | Action::Progress(..)
            | Action::Rendered(..)
            | Action::RenderFailed(..)
            | Action::EngineFailed(..)
            | Action::Linear(..) => self.receive(action),
            Action::Notice(n) => self.notice = n,
            Action::OriginLine(l) => self.origin_line = l,
            Action::Debug(p) => {
                if p != self.debug_pixel {
                    self.debug_row = 0;
                }
                self.debug_pixel = p;
            }
            Action::Traced(t) if t.rev == self.rev && Some(t.pixel) == self.debug_pixel => {
                self.debug = Some(t);
            }
            Action::Traced(_) => {}
            Action::DebugRow(r) => self.debug_row = r,
            Action::LinearDebug(v) => {
                if v.is_none() {
                    self.linear_debug_row = 0;
                }
                self.linear_debug = v;
            }
            Action::LinearTraced(t) if t.rev == self.rev && Some(t.vector) == self.linear_debug => {
                self.linear_traced = Some(t);
            }
            Action::LinearTraced(_) => {}
            Action::LinearDebugRow(r) => self.linear_debug_row = r,
            Action::SetScene(t) => self.set_scene(t),
            Action::Stop if self.is_working() => {
                self.stopped = Some(self.rev);
                self.stops += 1;
                if self.progress.take().is_some() {
                    self.rendered = None;
                }
            }
            Action::Stop => {}
            Action::Rerun => {
                self.touch();
                self.rerun_rev = self.rev;
            }
            Action::Supplied(e) => {
                let a = self.parsed.as_deref().or(self.analysis.as_deref());
                if e.apply(Rc::make_mut(&mut self.doc), a) {
                    self.touch();
                }
            }
            Action::SetMode(_) | Action::SetLinear(_) => self.edit_linear(action),
            Action::Source(e) => self.edit_source(e),
            Action::SourceFocus(f) => self.source_focus = f,
        }
    }

    /// The mode switch and the linear system (a text over `linear::MAX_TEXT` is refused).
    fn edit_linear(&mut self, action: Action) {
        match action {
            Action::SetMode(m) if m != self.doc.mode => {
                if m == crate::doc::Mode::Linear && self.doc.linear.is_none() {
                    let d3d9 = hoist_asm::detect_profile(&self.doc.fp)
                        .is_some_and(|p| p.dialect() == hoist_asm::Dialect::D3d9);
                    self.doc_mut().linear = crate::worker::linear::LinearDoc::example(
                        crate::worker::linear::DEFAULT,
                        d3d9,
                    );
                }
                self.doc_mut().mode = m;
                self.touch();
            }
            Action::SetLinear(l) if l.text.len() > crate::worker::linear::MAX_TEXT => {
                self.notice = Some(Notice {
                    text: format!(
                        "That system is {} KiB; the playground accepts up to {} KiB, so the edit \
                         was not applied.",
                        l.text.len().div_ceil(1024),
                        crate::worker::linear::MAX_TEXT / 1024
                    ),
                    error: true,
                });
            }
            Action::SetLinear(l) if self.doc.linear.as_ref() != Some(&l) => {
                self.doc_mut().linear = Some(l);
                self.touch();
            }
            _ => {}
        }
    }

    /// The programs, their profiles, the optimizer's options and the hand edit.
    fn edit_programs(&mut self, action: Action) {
        match &action {
            Action::SetVp(t) | Action::SetFp(t) | Action::SetHandVp(t) | Action::SetHandFp(t)
                if !self.fits(t) =>
            {
                return;
            }
            _ => {}
        }
        match action {
            Action::SetVp(s) if s != self.doc.vp => {
                self.doc_mut().vp = s;
                self.touch();
            }
            Action::SetFp(s) if s != self.doc.fp => {
                self.doc_mut().fp = s;
                self.touch();
            }
            Action::SetProfile(vertex, p) => {
                if vertex {
                    self.doc_mut().vp_profile = p;
                } else {
                    self.doc_mut().fp_profile = p;
                }
                self.touch();
            }
            Action::SetOpts(mut o) if o != self.doc.opts => {
                // In source mode the ARB target is the compiler's choice: a pick is the
                // source's (the compile then sets the programs' target).
                if let Some(s) = &self.doc.source
                    && o.target != self.doc.opts.target
                {
                    let mut s = s.clone();
                    s.target = Some(o.target);
                    o.target = self.doc.opts.target;
                    self.doc_mut().source = Some(s);
                }
                self.doc_mut().opts = o;
                self.touch();
            }
            Action::HandEdit(on) => self.hand_edit(on),
            Action::HandRestart => self.hand_restart(),
            Action::HandDiscard if self.doc.hand_kept.is_some() => {
                self.doc_mut().hand_kept = None;
                self.touch();
            }
            Action::SetHandVp(s) => {
                if let Some(h) = &mut self.doc_mut().hand
                    && h.vp != s
                {
                    h.vp = s;
                    self.touch();
                }
            }
            Action::SetHandFp(s) => {
                if let Some(h) = &mut self.doc_mut().hand
                    && h.fp != s
                {
                    h.fp = s;
                    self.touch();
                }
            }
            _ => {}
        }
    }

    /// The optimizer's output shown (the originals while there is none).
    fn optimized_texts(&self) -> (String, String) {
        self.analysis
            .as_ref()
            .and_then(|a| a.optimized.as_ref())
            .map(|o| (o.vp.text.clone(), o.fp.text.clone()))
            .unwrap_or_else(|| (self.doc.vp.clone(), self.doc.fp.clone()))
    }

    /// Turns hand editing on (the kept edit, else the optimizer's output) or off (the edit
    /// is kept: `crate::doc::handedit`).
    fn hand_edit(&mut self, on: bool) {
        let fresh = self.optimized_texts();
        if crate::doc::handedit::toggle(self.doc_mut(), on, || fresh) {
            self.touch();
        }
    }

    /// Replaces the hand edit with the optimizer's current output.
    fn hand_restart(&mut self) {
        let (vp, fp) = self.optimized_texts();
        self.doc_mut().hand = Some(crate::doc::handedit::start(&self.doc, vp, fp));
        self.doc_mut().hand_kept = None;
        self.touch();
    }

    /// The Inputs panel: size, textures, parameters, pictures, display and tolerance.
    fn edit_inputs(&mut self, action: Action) {
        match action {
            Action::SetSize(w, h) => {
                let (w, h) = (
                    w.clamp(1, crate::doc::MAX_SIZE),
                    h.clamp(1, crate::doc::MAX_SIZE),
                );
                if (w, h) != (self.doc.inputs.width, self.doc.inputs.height) {
                    self.doc_mut().inputs.width = w;
                    self.doc_mut().inputs.height = h;
                    self.touch();
                }
            }
            Action::SetTexture(t) => {
                self.doc_mut().inputs.set_texture(t);
                self.touch();
            }
            Action::ResetTexture(u) => {
                self.doc_mut().inputs.textures.retain(|t| t.unit != u);
                self.touch();
            }
            Action::SetParam(k, v) if v.iter().all(|x| x.is_finite()) => {
                self.doc_mut().inputs.set_param(k, v);
                self.touch();
            }
            Action::ResetParam(k) => {
                self.doc_mut().inputs.params.retain(|p| p.key != k);
                self.touch();
            }
            // Display mapping and tolerance do not change what is rendered.
            Action::SetView(v) => self.doc_mut().inputs.view = v,
            Action::SetTolerance(t) if t.is_finite() && t >= 0.0 => {
                self.doc_mut().inputs.tolerance = t;
            }
            Action::SetImage(unit, name, bytes) => {
                self.images.insert(unit, bytes);
                self.image_names.retain(|(u, _)| *u != unit);
                self.image_names.push((unit, name));
                let mut t = self.doc.inputs.texture(unit);
                t.pattern = crate::doc::Pattern::Image;
                self.doc_mut().inputs.set_texture(t);
                self.touch();
            }
            _ => {}
        }
    }

    fn load_example(&mut self, id: &str) {
        match examples::load_id(id) {
            Some(d) => {
                self.pristine = Some(Rc::new(d.clone()));
                self.load(d);
                self.notice = None;
            }
            None => {
                self.notice = Some(Notice {
                    text: format!("there is no example `{id}`"),
                    error: true,
                })
            }
        }
    }

    /// A link followed while the page is open (a new URL fragment).
    fn follow_link(&mut self, h: &str) {
        let h = h.strip_prefix('#').unwrap_or(h);
        if h.is_empty() || h == self.link() {
            return;
        }
        let pixel = crate::doc::codec::pixel(h);
        match crate::doc::codec::decode(h) {
            Ok(crate::doc::codec::Link::State(d)) => {
                self.load(*d);
                self.notice = None;
                self.apply(Action::Debug(pixel));
            }
            Ok(crate::doc::codec::Link::Example(id)) => {
                self.load_example(&id);
                self.apply(Action::Debug(pixel));
            }
            Ok(crate::doc::codec::Link::None) => {}
            Err(e) => {
                self.notice = Some(Notice {
                    text: format!("The link could not be opened: {e}"),
                    error: true,
                });
                self.keep_address = true;
            }
        }
    }

    /// Results of the page's parse and of the worker, dropped unless they belong to the
    /// current revision (the analysis revision for render results).
    fn receive(&mut self, action: Action) {
        let rev = match &action {
            Action::Parsed(r, _)
            | Action::Optimized(r, ..)
            | Action::Validated(r, ..)
            | Action::Progress(r, _)
            | Action::Rendered(r, _)
            | Action::RenderFailed(r, _)
            | Action::EngineFailed(r, _)
            | Action::Linear(r, ..) => *r,
            _ => 0,
        };
        if self.stopped == Some(rev) && !matches!(action, Action::Parsed(..)) {
            return;
        }
        match action {
            Action::Parsed(rev, a) if rev == self.rev => {
                self.parsed = Some(a);
                self.parsed_rev = rev;
                if self.engine_error_rev < rev {
                    self.engine_error = None;
                }
            }
            Action::Optimized(rev, result, ms) => {
                if rev == self.rev
                    && self.parsed_rev == rev
                    && let Some(p) = &self.parsed
                {
                    let a = (**p)
                        .clone()
                        .with_result(&self.doc, result, self.analysis.as_deref());
                    self.analysis = Some(Rc::new(a));
                    self.analysis_ms = ms;
                    self.validation_ms = 0.0;
                    self.analysis_rev = rev;
                    self.progress = Some(0.0);
                    self.render_error = None;
                    self.engine_error = None;
                }
            }
            Action::Validated(rev, v, ms) if rev == self.analysis_rev => {
                if let Some(a) = &self.analysis
                    && let Some(o) = a.optimized.as_ref().filter(|o| o.validating)
                {
                    let mut a = (**a).clone();
                    a.optimized = Some(Rc::new(o.validated(&v)));
                    self.analysis = Some(Rc::new(a));
                    self.validation_ms = ms;
                }
            }
            Action::EngineFailed(rev, e) if rev == self.rev => {
                self.engine_error = Some(e);
                self.engine_error_rev = rev;
                self.progress = None;
            }
            Action::Progress(rev, f) if rev == self.analysis_rev && self.progress.is_some() => {
                self.progress = Some(f);
            }
            Action::Rendered(rev, r) if rev == self.analysis_rev => {
                self.time(&r);
                self.rendered = Some(r);
                self.progress = None;
            }
            Action::RenderFailed(rev, e) if rev == self.analysis_rev => {
                self.render_error = Some(e);
                self.rendered = None;
                self.progress = None;
            }
            // The linear job settles its revision: the code-motion results it replaces
            // belonged to an older one.
            Action::Linear(rev, r, ms) if rev == self.rev => {
                self.linear = Some(r);
                self.linear_rev = rev;
                self.linear_ms = ms;
                self.analysis = None;
                self.analysis_rev = rev;
                self.rendered = None;
                self.progress = None;
                self.engine_error = None;
            }
            _ => {}
        }
    }

    /// Keeps a finished render's times with those of earlier renders of the same document.
    pub(crate) fn time(&mut self, r: &Rendered) {
        let same = (self.timings_of.as_deref()).is_some_and(|d| d.same_shared(&self.doc));
        if !same {
            self.timings.clear();
            self.timings_of = Some(self.doc.clone());
        }
        // No optimized run (none, or it failed), or a run kept from an earlier render
        // (`Rendered::reused`): no time for it (NaN, shown as –).
        let optimized = match &r.optimized {
            Some(Ok(_)) if !r.reused[1] => r.ms_optimized,
            _ => f64::NAN,
        };
        let original = if r.reused[0] { f64::NAN } else { r.ms_original };
        let drawn = !original.is_nan() || !optimized.is_nan();
        if r.original.is_ok() && drawn && self.timings.len() < 64 {
            self.timings.push([original, optimized]);
        }
    }

    /// Starts a new untitled document in the dialect of the current fragment program.
    fn new_doc(&mut self) {
        if let Some(src) = &self.doc.source {
            let mut d = examples::blank(hoist_asm::Dialect::Arb, &self.doc.opts);
            d.source = Some(crate::doc::source::blank(src.lang));
            self.load(d);
            self.notice = None;
            return;
        }
        let dialect = hoist_asm::detect_profile(&self.doc.fp)
            .map_or(hoist_asm::Dialect::Arb, |p| p.dialect());
        self.load(examples::blank(dialect, &self.doc.opts));
        self.images.clear();
        self.image_names.clear();
        self.notice = None;
    }

    /// Replaces the document with an imported scene file, or says why it cannot be.
    pub(crate) fn import(&mut self, text: &str, name: Option<&str>) -> bool {
        match crate::page::scenefile::import(text, name) {
            Ok(i) => {
                self.load(i.doc);
                self.images.clear();
                self.image_names.clear();
                let what = name.unwrap_or("the scene");
                self.notice = Some(Notice {
                    text: std::iter::once(format!("Imported {what}."))
                        .chain(i.notes.iter().map(|n| format!("Note: {n}.")))
                        .collect::<Vec<_>>()
                        .join(" "),
                    error: false,
                });
                true
            }
            Err(e) => {
                self.notice = Some(Notice {
                    text: format!(
                        "Could not import {}: {e}",
                        name.unwrap_or("the pasted scene")
                    ),
                    error: true,
                });
                false
            }
        }
    }

    fn load(&mut self, mut d: Doc) {
        self.derive_loaded(&mut d);
        self.source_focus = None;
        let same = |p: &Rc<Doc>| p.example == d.example;
        if !self.pristine.as_ref().is_some_and(same) {
            self.pristine = d
                .example
                .as_deref()
                .and_then(examples::load_id)
                .map(Rc::new);
        }
        self.doc = Rc::new(d);
        self.origin_line = None;
        self.touch();
    }

    /// The link fragment for the current document: the example's short link while the
    /// document is still that example, untouched.
    pub fn link(&self) -> String {
        let link = match (&self.doc.example, self.is_pristine_example()) {
            (Some(id), true) => crate::doc::codec::encode_example(id),
            _ => crate::doc::codec::encode(&self.doc),
        };
        crate::doc::codec::with_pixel(link, self.debug_pixel)
    }

    /// The debugger's trace of the current revision's render, once it shows.
    pub fn debug_view(&self) -> Option<&Traced> {
        self.debug
            .as_ref()
            .filter(|t| t.rev == self.rev && Some(t.pixel) == self.debug_pixel)
    }

    /// The pixel to ask the worker to trace: the debugger is open, the current text's render
    /// is finished, and its trace is not there yet.
    pub fn debug_request(&self) -> Option<(u64, u32, u32)> {
        let (x, y) = self.debug_pixel?;
        let ready = self.is_current()
            && self.progress.is_none()
            && self.rendered.is_some()
            && !self.is_stopped()
            && self.engine_error.is_none();
        (ready && self.debug_view().is_none()).then_some((self.rev, x, y))
    }

    /// The linear debugger's trace of the current revision's system, once it shows.
    pub fn linear_debug_view(&self) -> Option<&LinearTraced> {
        self.linear_traced
            .as_ref()
            .filter(|t| t.rev == self.rev && Some(t.vector) == self.linear_debug)
    }

    /// The x vector to ask the worker to trace: the linear debugger is open, the current
    /// revision's linear result is there, and its trace is not.
    /// While the shown packing is the seeds' first answer, the trace waits for the search's
    /// (which may pack differently).
    pub fn linear_debug_request(&self) -> Option<(u64, usize)> {
        let v = self.linear_debug?;
        let ready =
            self.linear_rev == self.rev && matches!(&self.linear, Some(Ok(o)) if !o.searching);
        (ready && self.linear_debug_view().is_none()).then_some((self.rev, v))
    }

    /// Whether the document is an example exactly as it loads.
    pub fn is_pristine_example(&self) -> bool {
        self.pristine
            .as_deref()
            .is_some_and(|p| p.same_shared(&self.doc))
    }

    /// How the document differs from the example it came from, in words for the example's
    /// panel: `(edited)` when its programs, scene or options changed; when only its view
    /// inputs did (the render size, the stepwise slider), which a link carries but which
    /// leave the example as it is, those (`(at 512×384, stepwise k = 3)`); `None` when it
    /// is the example as it loads, or no example.
    pub fn example_change(&self) -> Option<String> {
        let p = self.pristine.as_deref()?;
        if p.same_shared(&self.doc) {
            return None;
        }
        let mut d = (*self.doc).clone();
        (d.inputs.width, d.inputs.height) = (p.inputs.width, p.inputs.height);
        (d.opts.stepwise, d.opts.steps) = (p.opts.stepwise, p.opts.steps);
        if !p.same_shared(&d) {
            return Some("(edited)".into());
        }
        let mut view = Vec::new();
        let i = &self.doc.inputs;
        if (i.width, i.height) != (p.inputs.width, p.inputs.height) {
            view.push(format!("at {}×{}", i.width, i.height));
        }
        if self.doc.opts.stepwise {
            view.push(format!("stepwise k = {}", self.doc.opts.steps));
        }
        Some(format!("({})", view.join(", ")))
    }
}

#[cfg(target_arch = "wasm32")]
impl yew::Reducible for State {
    type Action = Action;

    /// The document is an `Rc`: cloning the state copies no program or scene text, and an
    /// action that does not edit the document (a progress tick) leaves it shared.
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = Rc::unwrap_or_clone(self);
        s.apply(action);
        Rc::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig3() -> State {
        let mut s = State::default();
        s.apply(Action::LoadExample("paper/fig3".into()));
        s
    }

    #[test]
    fn actions_share_the_document_until_they_edit_it() {
        let s = fig3();
        let mut t = s.clone();
        assert!(
            Rc::ptr_eq(&s.doc, &t.doc),
            "a cloned state shares its document"
        );
        t.apply(Action::Progress(t.rev, 0.5));
        assert!(Rc::ptr_eq(&s.doc, &t.doc), "a progress tick copies no text");
        let edited = format!("{}\n", t.doc.fp);
        t.apply(Action::SetFp(edited.clone()));
        assert!(!Rc::ptr_eq(&s.doc, &t.doc));
        assert_eq!(t.doc.fp, edited);
        assert_ne!(s.doc.fp, edited, "the previous state keeps its document");
    }

    #[test]
    fn a_refused_link_stays_in_the_address_until_the_document_changes() {
        let mut s = fig3();
        assert!(!s.keep_address);
        s.apply(Action::Hash("#v1.garbage".into()));
        assert!(s.keep_address);
        assert!(s.notice.as_ref().is_some_and(|n| n.error));
        let fp = format!("{}\n", s.doc.fp);
        s.apply(Action::SetFp(fp));
        assert!(!s.keep_address);
    }

    /// The worker's result for a parse, as it sends it.
    fn result(d: &Doc, p: &Analysis) -> Option<OptResult> {
        crate::worker::analysis::page_result(d, p, crate::worker::analysis::optimize(d, p).as_ref())
    }

    /// The parse and the worker's result of the current text, as the page sends them.
    fn analyzed(s: &mut State) {
        let p = crate::worker::analysis::parse(&s.doc);
        let r = result(&s.doc, &p);
        s.apply(Action::Parsed(s.rev, Rc::new(p)));
        s.apply(Action::Optimized(s.rev, r, 1.0));
    }

    #[test]
    fn edits_bump_the_revision_and_stale_results_are_dropped() {
        let mut s = fig3();
        let r0 = s.rev;
        let p = Rc::new(crate::worker::analysis::parse(&s.doc));
        let r = result(&s.doc, &p);
        s.apply(Action::SetFp(s.doc.fp.replace("c0.x", "c1.x")));
        assert!(s.rev > r0);
        // The parse and the optimization of the old text arrive late: ignored.
        s.apply(Action::Parsed(r0, p.clone()));
        assert!(s.parsed.is_none());
        s.apply(Action::Optimized(r0, r.clone(), 1.0));
        assert!(s.analysis.is_none());
        // The current text's parse comes first; the editors see it at once.
        let p = Rc::new(crate::worker::analysis::parse(&s.doc));
        s.apply(Action::Parsed(s.rev, p.clone()));
        assert!(Rc::ptr_eq(s.latest_parse().unwrap(), &p));
        assert!(s.is_optimizing() && !s.is_current());
        // An optimization that is not of the parsed revision is dropped.
        s.apply(Action::Optimized(r0, r, 1.0));
        assert!(s.analysis.is_none());
        let r = result(&s.doc, &p);
        s.apply(Action::Optimized(s.rev, r, 1.0));
        assert!(s.is_current() && !s.is_optimizing());
        let a = s.analysis.as_ref().unwrap();
        let o = a
            .optimized
            .as_ref()
            .expect("joined with the optimizer's result");
        assert!(o.status.is_validated());
        assert!(!o.fp.lines.is_empty());
        assert_eq!(s.progress, Some(0.0));
        s.apply(Action::Progress(s.rev, 0.5));
        assert_eq!(s.progress, Some(0.5));
        // A render of an older analysis is ignored too.
        s.apply(Action::RenderFailed(s.rev - 1, "old".into()));
        assert!(s.render_error.is_none());
        s.apply(Action::RenderFailed(s.rev, "boom".into()));
        assert_eq!(s.render_error.as_deref(), Some("boom"));
        assert!(s.progress.is_none());
        // Same text: no new revision.
        let r = s.rev;
        s.apply(Action::SetFp(s.doc.fp.clone()));
        assert_eq!(s.rev, r);
    }

    #[test]
    fn a_worker_failure_is_shown_until_the_next_revision_works() {
        let mut s = fig3();
        analyzed(&mut s);
        let shown = s.analysis.clone();
        s.apply(Action::SetFp(s.doc.fp.replace("c0.x", "c1.x")));
        let text = s.doc.fp.clone();
        s.apply(Action::Parsed(
            s.rev,
            Rc::new(crate::worker::analysis::parse(&s.doc)),
        ));
        s.apply(Action::Progress(s.rev, 0.5));
        // The failure of an older job is not this revision's.
        s.apply(Action::EngineFailed(s.rev - 1, "old".into()));
        assert!(s.engine_error.is_none());
        s.apply(Action::EngineFailed(s.rev, "panicked at x.rs".into()));
        assert_eq!(s.engine_error.as_deref(), Some("panicked at x.rs"));
        // The job goes before the page's own parse: a failure as it is sent (a worker that
        // never started) stays when that parse arrives.
        s.apply(Action::Parsed(
            s.rev,
            Rc::new(crate::worker::analysis::parse(&s.doc)),
        ));
        assert_eq!(s.engine_error.as_deref(), Some("panicked at x.rs"));
        assert!(!s.is_optimizing() && s.progress.is_none());
        // The document and the last good analysis are kept.
        assert_eq!(s.doc.fp, text);
        assert!(Rc::ptr_eq(
            s.analysis.as_ref().unwrap(),
            shown.as_ref().unwrap()
        ));
        // The next edit's job clears it, and its results are shown.
        s.apply(Action::SetFp(s.doc.fp.replace("c1.x", "c0.x")));
        assert!(s.engine_error.is_some());
        analyzed(&mut s);
        assert!(s.engine_error.is_none() && s.is_current());
    }

    #[test]
    fn hand_edit_starts_from_the_optimizer_output() {
        let mut s = fig3();
        analyzed(&mut s);
        let opt_fp = s
            .analysis
            .as_ref()
            .unwrap()
            .optimized
            .as_ref()
            .unwrap()
            .fp
            .text
            .clone();
        s.apply(Action::HandEdit(true));
        assert_eq!(s.doc.hand.as_ref().unwrap().fp, opt_fp);
        s.apply(Action::SetHandFp("ps_2_0\nmov oC0, c0\n".into()));
        assert_eq!(s.doc.hand.as_ref().unwrap().fp, "ps_2_0\nmov oC0, c0\n");
        // The hand edit is the user's: never called validated.
        analyzed(&mut s);
        let t = crate::worker::analysis::trust(s.analysis.as_ref().unwrap()).unwrap();
        assert!(t.hand && !t.validated);
        assert_eq!(t.summary, "your hand edit (not validated)");
        s.apply(Action::HandEdit(false));
        assert!(s.doc.hand.is_none());
        s.apply(Action::HandEdit(true));
        assert_eq!(
            s.doc.hand.as_ref().unwrap().fp,
            "ps_2_0\nmov oC0, c0\n",
            "kept"
        );
        s.apply(Action::SetFp(format!("{}\n", s.doc.fp)));
        assert!(crate::doc::handedit::is_stale(&s.doc));
        analyzed(&mut s);
        s.apply(Action::HandRestart);
        assert!(!crate::doc::handedit::is_stale(&s.doc));
        let fresh = &s
            .analysis
            .as_ref()
            .unwrap()
            .optimized
            .as_ref()
            .unwrap()
            .fp
            .text;
        assert_eq!(&s.doc.hand.as_ref().unwrap().fp, fresh);
    }

    #[test]
    fn links_are_short_for_untouched_examples() {
        let mut s = fig3();
        assert_eq!(s.link(), "ex=paper/fig3");
        assert!(s.is_pristine_example());
        // Back to the example's own text: pristine again.
        let fp = s.doc.fp.clone();
        s.apply(Action::SetFp(format!("{fp}\n")));
        assert!(!s.is_pristine_example());
        s.apply(Action::SetFp(fp));
        assert!(s.is_pristine_example());
        assert!(State::new((*s.doc).clone()).is_pristine_example());
        // A size is a view input: the link carries it, the example is not "edited".
        s.apply(Action::SetSize(128, 64));
        assert!(s.link().starts_with("v1."));
        assert_eq!(s.example_change().as_deref(), Some("(at 128×64)"));
        let stepwise = crate::doc::OptState {
            stepwise: true,
            steps: 2,
            ..s.doc.opts.clone()
        };
        s.apply(Action::SetOpts(stepwise));
        assert_eq!(
            s.example_change().as_deref(),
            Some("(at 128×64, stepwise k = 2)")
        );
        let fp = s.doc.fp.clone();
        s.apply(Action::SetFp(format!("{fp}\n")));
        assert_eq!(s.example_change().as_deref(), Some("(edited)"));
        s.apply(Action::SetFp(fp));
        let back = crate::doc::codec::decode(&s.link()).unwrap();
        assert_eq!(
            back,
            crate::doc::codec::Link::State(Box::new((*s.doc).clone()))
        );
    }

    #[test]
    fn first_load_prefers_the_fragment_then_storage() {
        let (d, n) = initial_doc("", None);
        assert_eq!(d.example.as_deref(), Some(examples::DEFAULT));
        assert!(n.is_none());
        let mut stored = fig3();
        stored.apply(Action::SetSize(32, 32));
        let link = stored.link();
        let (d, _) = initial_doc("", Some(&link));
        assert_eq!(d.inputs.width, 32);
        let (d, n) = initial_doc("#v1.%%%", Some(&link));
        assert_eq!(d.inputs.width, 32);
        assert!(n.unwrap().text.contains("base64"));
        let (d, n) = initial_doc("#v7.AAAA", None);
        assert_eq!(d.example.as_deref(), Some(examples::DEFAULT));
        assert!(n.unwrap().text.contains("newer"));
        let (_, n) = initial_doc("#ex=nope", None);
        assert!(n.unwrap().text.contains("nope"));
        let (d, _) = initial_doc(&format!("#{link}"), None);
        assert_eq!(d, *stored.doc);
    }

    #[test]
    fn hash_changes_load_links_once() {
        let mut s = fig3();
        let r = s.rev;
        s.apply(Action::Hash("#ex=paper/fig3".into()));
        assert_eq!(s.rev, r, "the same link does not reload");
        let mut other = fig3();
        other.apply(Action::SetSize(16, 16));
        s.apply(Action::Hash(format!("#{}", other.link())));
        assert_eq!(s.doc.inputs.width, 16);
        s.apply(Action::Hash("#garbage".into()));
        assert!(s.notice.as_ref().unwrap().error);
        assert_eq!(s.doc.inputs.width, 16);
    }

    #[test]
    fn oversized_programs_are_refused_with_a_message() {
        let mut s = fig3();
        let before = s.doc.fp.clone();
        s.apply(Action::SetFp("x".repeat(crate::doc::MAX_PROGRAM + 1)));
        assert_eq!(s.doc.fp, before);
        let n = s.notice.as_ref().unwrap();
        assert!(n.error && n.text.contains("64 KiB"), "{}", n.text);
    }

    #[test]
    fn bad_inputs_are_refused() {
        let mut s = fig3();
        let r = s.rev;
        let key = ParamKey {
            vertex: false,
            local: false,
            index: 0,
        };
        s.apply(Action::SetParam(key, [f32::NAN, 0.0, 0.0, 1.0]));
        assert_eq!(s.rev, r);
        assert!(s.doc.inputs.params.is_empty());
        s.apply(Action::SetSize(100_000, 0));
        assert_eq!((s.doc.inputs.width, s.doc.inputs.height), (1024, 1));
        // The two size fields, edited before the panel redraws: neither undoes the other
        // (a stale width once kept a 1024×1024 request at 1024×256).
        s.apply(Action::SetEdge(true, 300));
        s.apply(Action::SetEdge(false, 200));
        assert_eq!((s.doc.inputs.width, s.doc.inputs.height), (300, 200));
        s.apply(Action::SetEdge(false, 5000));
        assert_eq!(s.doc.inputs.height, crate::doc::MAX_SIZE);
        s.apply(Action::LoadExample("nope".into()));
        assert!(s.notice.as_ref().unwrap().error);
        s.apply(Action::SetTolerance(f32::INFINITY));
        assert_eq!(
            s.doc.inputs.tolerance,
            crate::doc::Inputs::default().tolerance
        );
    }

    /// A fragment program of `n` ALU instructions (over R300's 64 at n = 500).
    fn long_fp(n: usize) -> String {
        let mut t = String::from("!!ARBfp1.0\nTEMP r;\nMOV r, fragment.texcoord[0];\n");
        for i in 0..n {
            let op = if i % 2 == 0 {
                "MAD r, r, {0.5, 0.25, 0.125, 1}, fragment.texcoord[0];"
            } else {
                "ADD r, r, -fragment.texcoord[0];"
            };
            t.push_str(op);
            t.push('\n');
        }
        t + "MOV result.color, r;\nEND\n"
    }

    #[test]
    fn a_program_over_r300_fits_a_larger_target_and_is_analyzed_there() {
        let mut s = State::new(examples::blank(
            hoist_asm::Dialect::Arb,
            &OptState::default(),
        ));
        s.apply(Action::SetFp(long_fp(500)));
        let a = crate::worker::analysis::parse(&s.doc);
        assert!(
            a.fp.diagnostics
                .iter()
                .any(|d| d.code == hoist_asm::Code::TARGET_LIMIT),
            "{:?}",
            a.fp.diagnostics
        );
        assert_eq!(a.fp.fits, Some(hoist_asm::ArbTarget::Nv40));
        let hint =
            a.fp.diagnostics
                .iter()
                .find_map(|d| d.hint.clone())
                .unwrap();
        assert!(hint.contains("NV40"), "{hint}");
        assert!(
            a.problem.as_deref().unwrap().contains("analyze under NV40"),
            "{:?}",
            a.problem
        );
        let mut o = s.doc.opts.clone();
        o.target = a.fp.fits.unwrap();
        s.apply(Action::SetOpts(o));
        let a = crate::worker::analysis::analyze(&s.doc);
        assert_eq!(a.fp.errors(), 0, "{:?}", a.fp.diagnostics);
        assert!(a.fp.fits.is_none());
        assert!(a.optimized.is_some(), "{:?}", a.problem);
        // The optimizer is held to the target's limits too.
        let l = s.doc.opts.limits_of(hoist_asm::Profile::ArbFp1);
        assert_eq!(
            l,
            hoist_asm::Profile::ArbFp1.limits_for(hoist_asm::ArbTarget::Nv40)
        );
        assert!(
            s.doc
                .opts
                .to_options(
                    hoist_asm::Profile::ArbVp1,
                    hoist_asm::Profile::ArbFp1,
                    4.0,
                    1.0
                )
                .fp_limits
                == Some(l)
        );
        // Past every target: no offer.
        let a = crate::worker::analysis::parse(&Doc {
            fp: long_fp(20_000),
            ..(*s.doc).clone()
        });
        assert!(a.fp.errors() > 0 && a.fp.fits.is_none());
    }

    #[test]
    fn new_starts_an_untitled_pair_in_the_current_dialect() {
        let mut s = fig3();
        s.apply(Action::New);
        assert!(s.doc.example.is_none() && s.doc.scene.is_none() && s.pristine.is_none());
        assert_eq!(s.doc.title.as_deref(), Some("Untitled"));
        let d3d9 = hoist_asm::detect_profile(&s.doc.fp).unwrap().dialect();
        assert_eq!(d3d9, hoist_asm::Dialect::D3d9);
        let a = crate::worker::analysis::analyze(&s.doc);
        assert!(
            a.optimized.is_some(),
            "{:?} {:?}",
            a.problem,
            a.fp.diagnostics
        );
        s.apply(Action::LoadExample("paper/gauss13-arb".into()));
        s.apply(Action::New);
        assert!(s.doc.fp.starts_with("!!ARBfp1.0"));
        assert!(crate::worker::analysis::analyze(&s.doc).optimized.is_some());
        assert!(crate::doc::codec::decode(&s.link()).is_ok());
    }

    #[test]
    fn a_pasted_scene_file_becomes_the_document() {
        let mut s = fig3();
        let scene = "[require]\nSIZE 32 32\n\n[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.color, vertex.color;\nEND\n\n[test]\ncolor 0.25 0.5 0.75 1\ndraw quad\nprobe all rgba 0.25 0.5 0.75 1\n";
        s.apply(Action::SetVp(scene.into()));
        assert!(s.doc.vp.starts_with("!!ARBvp1.0") && s.doc.fp.starts_with("!!ARBfp1.0"));
        assert!(s.doc.example.is_none() && s.doc.scene.as_deref().unwrap().contains("probe all"));
        assert_eq!((s.doc.inputs.width, s.doc.inputs.height), (32, 32));
        let n = s.notice.clone().unwrap();
        assert!(!n.error && n.text.contains("no fragment program"), "{n:?}");
        // A file that cannot be imported stays in the editor, with the reason.
        let before = s.doc.clone();
        s.apply(Action::SetFp(
            "[geometry shader]\nvoid main() {}\n[test]\n".into(),
        ));
        assert!(s.notice.as_ref().unwrap().error);
        assert!(s.notice.as_ref().unwrap().text.contains("geometry"));
        assert!(s.doc.fp.starts_with("[geometry shader]") && s.doc.vp == before.vp);
        // A GLSL test pasted into an editor becomes a source document.
        s.apply(Action::SetFp(
            "[vertex shader]\nvoid main() { gl_Position = gl_Vertex; }\n[test]\ndraw quad\n".into(),
        ));
        let src = s.doc.source.as_ref().expect("source mode");
        assert!(src.glsl_vs.contains("gl_Vertex") && !s.notice.as_ref().unwrap().error);
        assert_eq!(s.source_status(), crate::page::state::SourceStatus::Compile);
    }

    #[test]
    fn title_and_target_survive_the_link_and_are_sanitized() {
        let mut d = examples::blank(hoist_asm::Dialect::Arb, &OptState::default());
        d.title = Some("my\u{7}  kernel\n".into());
        d.opts.target = hoist_asm::ArbTarget::G80;
        let back = match crate::doc::codec::decode(&crate::doc::codec::encode(&d)).unwrap() {
            crate::doc::codec::Link::State(b) => *b,
            l => panic!("{l:?}"),
        };
        assert_eq!(back.title.as_deref(), Some("my kernel"));
        assert_eq!(back.opts.target, hoist_asm::ArbTarget::G80);
        d.title = Some("x".repeat(1000));
        assert_eq!(
            d.sanitize().unwrap().title.unwrap().len(),
            crate::doc::MAX_TITLE
        );
    }

    #[test]
    fn stop_drops_the_job_and_rerun_starts_it_again() {
        let mut s = fig3();
        s.apply(Action::Stop);
        assert_eq!((s.stops, s.is_stopped()), (0, false), "nothing to stop yet");
        let p = Rc::new(crate::worker::analysis::parse(&s.doc));
        s.apply(Action::Parsed(s.rev, p.clone()));
        assert!(s.is_optimizing() && s.is_working());
        // Stopped while optimizing: the late result is dropped.
        s.apply(Action::Stop);
        assert!(s.is_stopped() && !s.is_optimizing() && !s.is_working());
        assert_eq!(s.stops, 1);
        let r = result(&s.doc, &p);
        s.apply(Action::Optimized(s.rev, r, 1.0));
        assert_eq!(s.analysis_rev, 0);
        // Run again: a new revision, analysed and rendering, then stopped while rendering.
        let stopped = s.rev;
        s.apply(Action::Rerun);
        assert!(s.rev > stopped && !s.is_stopped());
        analyzed(&mut s);
        assert_eq!(s.progress, Some(0.0));
        s.apply(Action::Progress(s.rev, 0.25));
        s.apply(Action::Stop);
        assert_eq!((s.progress, s.stops), (None, 2));
        s.apply(Action::Progress(s.rev, 0.5));
        s.apply(Action::RenderFailed(s.rev, "late".into()));
        assert_eq!((s.progress, &s.render_error), (None, &None));
        // An edit is a new revision: nothing stopped.
        s.apply(Action::SetFp(s.doc.fp.replace("c0.x", "c1.x")));
        assert!(!s.is_stopped());
    }

    #[test]
    fn the_scene_text_is_edited_and_limited() {
        let mut s = fig3();
        let scene = s.doc.scene.clone().unwrap();
        let rev = s.rev;
        s.apply(Action::SetScene(format!("{scene}\ndraw quad\n")));
        assert!(s.rev > rev && s.doc.scene.as_ref().unwrap().ends_with("draw quad\n"));
        let rev = s.rev;
        s.apply(Action::SetScene("x".repeat(crate::doc::MAX_SCENE + 1)));
        assert!(s.rev == rev && s.notice.as_ref().is_some_and(|n| n.error));
        s.apply(Action::SetScene("  \n".into()));
        assert_eq!(s.doc.scene, None);
        // The scene travels in the link.
        s.apply(Action::SetScene("[test]\ndraw quad\n".into()));
        let mut t = State::default();
        t.apply(Action::Hash(format!("#{}", s.link())));
        assert_eq!(t.doc.scene, s.doc.scene);
    }

    /// The Scene panel shows the scene at the document's size; an edit that states another
    /// size is the document's size, one that states none leaves it.
    #[test]
    fn a_scene_edit_that_states_a_size_sets_the_size() {
        let mut s = fig3();
        s.apply(Action::SetSize(512, 384));
        let shown = crate::doc::scene_size::of(&s.doc).unwrap().text;
        assert!(shown.contains("window rgba32f 512 384\n"));
        s.apply(Action::SetScene(format!("{shown}clear\n")));
        assert_eq!((s.doc.inputs.width, s.doc.inputs.height), (512, 384));
        let smaller = shown.replace("window rgba32f 512 384", "window rgba32f 100 60");
        s.apply(Action::SetScene(smaller));
        assert_eq!((s.doc.inputs.width, s.doc.inputs.height), (100, 60));
        s.apply(Action::SetScene("[test]\ndraw quad\n".into()));
        assert_eq!((s.doc.inputs.width, s.doc.inputs.height), (100, 60));
    }

    #[test]
    fn the_linear_mode_is_part_of_the_document() {
        let mut s = fig3();
        let code_link = s.link();
        s.apply(Action::SetMode(crate::doc::Mode::Linear));
        let l = s
            .doc
            .linear
            .clone()
            .expect("the mode starts with an example");
        assert_eq!(l.example.as_deref(), Some(crate::worker::linear::DEFAULT));
        // fig3's programs are Direct3D 9: the code follows their dialect.
        assert!(l.d3d9);
        assert_ne!(s.link(), code_link);
        let rev = s.rev;
        s.apply(Action::SetLinear(crate::worker::linear::LinearDoc {
            text: "x".repeat(crate::worker::linear::MAX_TEXT + 1),
            ..l.clone()
        }));
        assert_eq!(s.rev, rev, "an oversized system is not applied");
        assert!(s.notice.as_ref().is_some_and(|n| n.error));
        // A result of an older revision is dropped; the current one settles the revision.
        s.apply(Action::Linear(rev - 1, Err("old".into()), 1.0));
        assert!(s.linear.is_none());
        s.apply(Action::Linear(rev, Err("line 1: bad".into()), 1.0));
        assert!(s.linear.is_some() && s.is_current() && !s.is_optimizing());
        // Back to code motion: the programs were kept, the system too.
        s.apply(Action::SetMode(crate::doc::Mode::Code));
        assert_eq!(s.doc.linear, Some(l));
        assert_eq!(s.doc.vp, fig3().doc.vp);
        // A gallery link to a linear example is pristine until edited.
        let mut t = State::default();
        t.apply(Action::Hash("#ex=linear/wave2d".into()));
        assert_eq!(t.doc.mode, crate::doc::Mode::Linear);
        assert_eq!(t.link(), "ex=linear/wave2d");
        let mut edited = t.doc.linear.clone().unwrap();
        edited.text.push_str("# a comment\n");
        t.apply(Action::SetLinear(edited));
        assert!(t.link().starts_with("v1."));
    }

    /// The lane debugger traces the search's packing, not the seeds' first answer shown
    /// before it (which may pack differently).
    #[test]
    fn the_lane_debugger_waits_for_the_whole_search() {
        let mut s = State::default();
        s.apply(Action::Hash("#ex=linear/fig13".into()));
        let doc = s.doc.linear.clone().unwrap();
        s.apply(Action::LinearDebug(Some(0)));
        let seeds = crate::worker::linear::run_seeds(&doc).unwrap();
        assert!(seeds.searching);
        s.apply(Action::Linear(s.rev, Ok(Rc::new(seeds)), 1.0));
        assert_eq!(s.linear_debug_request(), None);
        let whole = crate::worker::linear::run(&doc).unwrap();
        s.apply(Action::Linear(s.rev, Ok(Rc::new(whole)), 2.0));
        assert_eq!(s.linear_debug_request(), Some((s.rev, 0)));
    }
}

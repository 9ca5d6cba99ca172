//! The scene model: programs, textures, commands and the scene that holds them, as
//! [`super::parse`] reads them and [`super::run`] executes them.

use crate::draw::{Geometry, TargetFormat};
use crate::error::RenderError;
use crate::pattern::Pattern;
use crate::raster::CompiledProgram;
use crate::texture::{Sampler, TexFormat, TexShape};
use hoist_asm::{Program, Stage};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The default window of piglit's shader_runner.
pub const WINDOW_SIZE: u32 = 250;
/// piglit's probe tolerance for an 8-bit channel (`3 / 2^8`).
pub const TOLERANCE_RGBA8: f32 = 3.0 / 256.0;
/// piglit's default probe tolerance, used for float targets.
pub const TOLERANCE_FLOAT: f32 = 0.01;

/// One program of a scene: its text, where it starts, and its IR.
///
/// It serializes as text (the program printed, which parses back to the same program:
/// the printer is lossless, `hoist-asm`'s round-trip tests hold it so), not as the IR,
/// whose derived decoder would weigh more in the page's worker than the parser it already
/// has.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(into = "ProgramText", try_from = "ProgramText")]
pub struct SceneProgram {
    pub source: String,
    /// 1-based scene line of the program's first line (0 when substituted).
    pub line: u32,
    pub program: Program,
}

/// [`SceneProgram`] on the wire.
#[derive(Serialize, Deserialize)]
struct ProgramText {
    source: String,
    line: u32,
    profile: hoist_asm::Profile,
    printed: String,
}

impl From<SceneProgram> for ProgramText {
    fn from(sp: SceneProgram) -> ProgramText {
        ProgramText {
            printed: hoist_asm::print(&sp.program),
            profile: sp.program.profile,
            source: sp.source,
            line: sp.line,
        }
    }
}

impl TryFrom<ProgramText> for SceneProgram {
    type Error = String;

    fn try_from(t: ProgramText) -> Result<SceneProgram, String> {
        // The program was accepted where it was made; limits are not checked again.
        let unbounded = hoist_asm::profile::Limits {
            source: String::new(),
            max_slots: u32::MAX,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps: u16::MAX,
            consts: u16::MAX,
            env_params: u16::MAX,
            local_params: u16::MAX,
            attribs: u16::MAX,
            texcoords: u8::MAX,
            colors: u8::MAX,
            samplers: u8::MAX,
            address_regs: u8::MAX,
        };
        let opts = hoist_asm::ParseOptions {
            profile: Some(t.profile),
            limits: Some(unbounded),
        };
        let program = hoist_asm::parse(&t.printed, &opts)
            .into_result()
            .map_err(|d| format!("a printed program does not parse again: {d:?}"))?;
        Ok(SceneProgram {
            source: t.source,
            line: t.line,
            program,
        })
    }
}

/// A vertex/fragment pair; `None` means fixed function.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProgramPair {
    pub vertex: Option<SceneProgram>,
    pub fragment: Option<SceneProgram>,
}

/// Which parameter bank a `parameter` command sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParamKind {
    Env,
    Local,
    Int,
    Bool,
}

/// Source of a texture unit binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TexSource {
    /// A generated pattern of the given size.
    Pattern(Pattern, u32, u32),
    /// An image supplied by name in [`RunOptions::images`] (PNG or PFM bytes).
    Image(String),
    /// The current contents of a render target.
    Target(String),
    /// piglit `texture miptree`: 8×8, levels red, green, blue, white.
    Miptree,
}

/// Texture options of `texture pattern|image|target`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TexOptions {
    pub sampler: Sampler,
    pub format: TexFormat,
    pub shape: TexShape,
    pub mipmap: bool,
}

/// One `fog` command.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum FogSetting {
    Color([f32; 4]),
    Density(f32),
    Start(f32),
    End(f32),
}

/// A `[test]` command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Command {
    Ortho(Option<[f32; 4]>),
    Param {
        stage: Stage,
        kind: ParamKind,
        index: u16,
        value: [f32; 4],
    },
    /// Sets a parameter to the current value of GL state (no text form: the optimizer's
    /// mirrored copies of `state.*` bindings a fragment program read).
    ParamState {
        stage: Stage,
        kind: ParamKind,
        index: u16,
        state: hoist_asm::state::StateRef,
    },
    ClearColor([f32; 4]),
    ClearDepth(f32),
    Clear,
    Color([f32; 4]),
    TexCoord(u8, [f32; 4]),
    /// Sets the current value of an attribute slot (no text form: a host's override of
    /// what a draw supplies where its geometry supplies nothing, e.g. the normal).
    Attrib(u8, [f32; 4]),
    /// Sets the modelview (`projection` false) or projection matrix, row-major (no text
    /// form: a host's override of the identity matrices).
    Matrix {
        projection: bool,
        m: crate::glstate::Mat4,
    },
    Texture(u8, TexSource, TexOptions),
    Draw(Geometry),
    Enable(String, bool),
    /// Probe a rectangle (x, y, w, h) against `n` channels of `expect`.
    Probe {
        rect: [i64; 4],
        expect: [f32; 4],
        channels: usize,
        text: String,
    },
    /// `relative probe ...`: fractions of the target size.
    RelProbe {
        rect: [f32; 4],
        single: bool,
        expect: [f32; 4],
        channels: usize,
        text: String,
    },
    ProbeDepth {
        x: i64,
        y: i64,
        expect: f32,
        text: String,
    },
    /// `window [rgba8|rgba32f] W H`.
    Window(TargetFormat, u32, u32),
    /// `target NAME [rgba8|rgba32f] W H`.
    NewTarget(String, TargetFormat, u32, u32),
    /// `bind target NAME` (`window` for the window).
    Bind(String),
    Swap(String, String),
    /// `use program [NAME]`.
    Use(String),
    Tolerance(f32),
    /// `fog color r g b a`, `fog density d`, `fog start s`, `fog end e`: GL's fog state,
    /// what `state.fog.*` read and the ARB fog options apply.
    Fog(FogSetting),
    /// `compare A B [T]`: a probe that passes when two targets agree within T (default 0:
    /// bit-identical; NaN equals NaN).
    Compare(String, String, f32, String),
}

/// A parsed scene.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Scene {
    pub require: Vec<String>,
    /// `[hoist]` section: `key = value` lines (title, description, optimize, display...).
    pub meta: BTreeMap<String, String>,
    pub programs: BTreeMap<String, ProgramPair>,
    /// Commands with their 1-based line numbers (repeat blocks expanded).
    pub commands: Vec<(u32, Command)>,
    /// Window size and format (`SIZE W H` in `[require]`, or `window`).
    pub window: (u32, u32),
}

impl Scene {
    /// Replaces one program of pair `name` (created if missing).
    pub fn set_program(&mut self, name: &str, program: Program) {
        let sp = SceneProgram {
            source: hoist_asm::print(&program),
            line: 0,
            program,
        };
        let pair = self.programs.entry(name.to_string()).or_default();
        match sp.program.stage() {
            Stage::Vertex => pair.vertex = Some(sp),
            Stage::Fragment => pair.fragment = Some(sp),
        }
    }

    /// Makes parameter `to` follow parameter `from`: after every command that sets `from`,
    /// the same value is set for `to`. This is how a host applies an optimizer's mirrored
    /// parameters (a fragment parameter the moved vertex code now needs its own copy of).
    pub fn link_parameter(&mut self, from: (Stage, ParamKind, u16), to: (Stage, ParamKind, u16)) {
        let mut out = Vec::with_capacity(self.commands.len() + 4);
        for (line, c) in std::mem::take(&mut self.commands) {
            let copy = match &c {
                Command::Param {
                    stage,
                    kind,
                    index,
                    value,
                } if (*stage, *kind, *index) == from => Some(Command::Param {
                    stage: to.0,
                    kind: to.1,
                    index: to.2,
                    value: *value,
                }),
                _ => None,
            };
            out.push((line, c));
            if let Some(copy) = copy {
                out.push((line, copy));
            }
        }
        self.commands = out;
    }

    /// Sets parameter `to` to `value` before everything else (a mirrored literal or state).
    pub fn preset_parameter(&mut self, to: (Stage, ParamKind, u16), value: [f32; 4]) {
        let at = self
            .commands
            .iter()
            .take_while(|(_, c)| matches!(c, Command::Window(..)))
            .count();
        self.commands.insert(
            at,
            (
                0,
                Command::Param {
                    stage: to.0,
                    kind: to.1,
                    index: to.2,
                    value,
                },
            ),
        );
    }

    /// The pair the `[hoist] optimize` key names (default: the unnamed pair).
    pub fn optimize_target(&self) -> &str {
        self.meta.get("optimize").map_or("", |s| s.as_str())
    }
}

pub(super) fn serr(line: u32, message: impl Into<String>) -> RenderError {
    RenderError::Scene {
        line,
        message: message.into(),
    }
}

/// The compiled vertex and fragment programs of a pair.
pub(super) type CompiledPair = (Option<Arc<CompiledProgram>>, Option<Arc<CompiledProgram>>);

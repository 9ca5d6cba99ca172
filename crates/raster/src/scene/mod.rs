//! Scenes: piglit's shader_runner format plus Hoist's GPGPU extensions (see `SCENES.md`).
//!
//! [`parse`] ([`parse.rs`](parse)) reads the whole file up front — sections, programs (either dialect, detected
//! from the header) and every `[test]` command — so malformed input is reported with its
//! line number before anything runs, and `repeat` blocks are expanded within
//! [`Caps::max_commands`]. Programs stay replaceable: [`Scene::programs`] maps a pair name
//! (`""` for the unnamed `[vertex program]`/`[fragment program]`) to its sources and IR,
//! and [`Scene::set_program`] swaps one in.
//!
//! [`run`] ([`run.rs`](run)) executes a scene and returns the probe results, every render target and the
//! statistics; [`SceneJob`] does the same a bounded number of bands at a time.

mod parse;
mod run;

pub use parse::{executor_limits, parse, parse_floats};
pub use run::{ProbeResult, RunOptions, SceneJob, SceneResult, run};

use crate::RenderError;
use crate::pattern::Pattern;
use crate::raster::CompiledProgram;
use crate::texture::{Sampler, TexFormat, TexShape};
use crate::{Geometry, TargetFormat};
use hoist_asm::{Program, Stage};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The default window of piglit's shader_runner.
pub const WINDOW_SIZE: u32 = 250;
/// piglit's probe tolerance for an 8-bit channel (`3 / 2^8`).
pub const TOLERANCE_RGBA8: f32 = 3.0 / 256.0;
/// piglit's default probe tolerance, used for float targets.
pub const TOLERANCE_FLOAT: f32 = 0.01;

/// One program of a scene: its text, where it starts, and its IR.
#[derive(Clone, Debug)]
pub struct SceneProgram {
    pub source: String,
    /// 1-based scene line of the program's first line (0 when substituted).
    pub line: u32,
    pub program: Program,
}

/// A vertex/fragment pair; `None` means fixed function.
#[derive(Clone, Debug, Default)]
pub struct ProgramPair {
    pub vertex: Option<SceneProgram>,
    pub fragment: Option<SceneProgram>,
}

/// Which parameter bank a `parameter` command sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Env,
    Local,
    Int,
    Bool,
}

/// Source of a texture unit binding.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexOptions {
    pub sampler: Sampler,
    pub format: TexFormat,
    pub shape: TexShape,
    pub mipmap: bool,
}

/// One `fog` command.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FogSetting {
    Color([f32; 4]),
    Density(f32),
    Start(f32),
    End(f32),
}

/// A `[test]` command.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, Default)]
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

fn serr(line: u32, message: impl Into<String>) -> RenderError {
    RenderError::Scene {
        line,
        message: message.into(),
    }
}

/// The compiled vertex and fragment programs of a pair.
type CompiledPair = (Option<Arc<CompiledProgram>>, Option<Arc<CompiledProgram>>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Caps;

    #[test]
    fn floats_parse_like_piglit() {
        assert_eq!(parse_floats("(0.5, 1,2 ;").unwrap(), vec![0.5, 1.0, 2.0]);
        let v = parse_floats("(INF, -INF, NAN, 01)").unwrap();
        assert!(v[0].is_infinite() && v[1] < 0.0 && v[2].is_nan() && v[3] == 1.0);
        assert!(parse_floats("1 x").is_err());
    }

    #[test]
    fn malformed_scenes_report_lines() {
        let caps = Caps::default();
        let e = parse("[test]\nclear\nprobe all rgba 1 2\n", &caps).unwrap_err();
        assert_eq!(e, serr(3, "probe expects 4 numbers, found 2"));
        let e = parse("[vertex program]\n!!ARBvp1.0\nEND\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 1, .. }), "{e:?}");
        let e = parse("[test]\nwindow 100000 10\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 2, .. }));
        let e = parse("[test]\nrepeat 3\ndraw quad\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 2, .. }));
        let e = parse("[test]\nrepeat 100000000\ndraw quad\nend\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 4, .. }));
        let e = parse("[bogus]\n[test]\n", &caps).unwrap_err();
        assert!(matches!(e, RenderError::Scene { line: 1, .. }));
    }

    #[test]
    fn fixed_function_scene_clears_draws_and_probes() {
        let caps = Caps::default();
        let s = parse(
            "[test]\nclear color 0 0 1 1\nclear\ncolor 0 1 0 1\ndraw rect -1 -1 1 2\n\
             probe rgba 10 10 0 1 0 1\nprobe rgba 200 10 0 0 1 1\nprobe all rgba 0 0 1 1\n",
            &caps,
        )
        .unwrap();
        let r = run(&s, &RunOptions::default()).unwrap();
        let pass: Vec<bool> = r.probes.iter().map(|p| p.pass).collect();
        assert_eq!(pass, vec![true, true, false]);
        assert_eq!(r.stats.fragment_invocations, 125 * 250);
    }

    #[test]
    fn host_attributes_and_matrices_reach_the_vertex_program() {
        let caps = Caps::default();
        let text = "[vertex program]\n!!ARBvp1.0\nDP4 result.position.x, state.matrix.mvp.row[0], vertex.position;\n\
             DP4 result.position.y, state.matrix.mvp.row[1], vertex.position;\n\
             DP4 result.position.z, state.matrix.mvp.row[2], vertex.position;\n\
             DP4 result.position.w, state.matrix.mvp.row[3], vertex.position;\n\
             MOV result.texcoord[0], vertex.normal;\nEND\n\
             [fragment program]\n!!ARBfp1.0\nMOV result.color, fragment.texcoord[0];\nEND\n\
             [test]\nwindow rgba32f 8 8\ndraw quad\n";
        let mut s = parse(text, &caps).unwrap();
        let at = s.commands.len() - 1;
        let r = run(&s, &RunOptions::default()).unwrap();
        // The default normal is +z.
        assert_eq!(r.targets["window"].get(4, 4), Some([0.0, 0.0, 1.0, 1.0]));
        let mut half = crate::glstate::IDENTITY;
        half[0][0] = 0.5;
        s.commands
            .insert(at, (0, Command::Attrib(2, [0.25, 0.5, 0.75, 1.0])));
        s.commands.insert(
            at,
            (
                0,
                Command::Matrix {
                    projection: true,
                    m: half,
                },
            ),
        );
        let r = run(&s, &RunOptions::default()).unwrap();
        let img = &r.targets["window"];
        assert_eq!(img.get(4, 4), Some([0.25, 0.5, 0.75, 1.0]));
        // The projection halves x: the quad covers the middle half of the columns only.
        assert_eq!(img.get(0, 4), Some([0.0; 4]));
        assert_eq!(img.get(3, 4), Some([0.25, 0.5, 0.75, 1.0]));
    }
}

//! The playground document: everything a permalink carries (programs, options, inputs,
//! the selected example), with limits that make any decoded document safe to use.
//!
//! [`Doc::sanitize`] is the single place where untrusted values (from a link or local
//! storage) are clamped or rejected; everything downstream may rely on its invariants.

use crate::doc::cost::CostChoice;
pub use crate::doc::limits::{
    MAX_PARAMS, MAX_PROGRAM, MAX_SCENE, MAX_SIZE, MAX_TEX_SIZE, MAX_UNITS,
};
use hoist_asm::profile::Limits;
use hoist_asm::{ArbTarget, Profile};
use hoist_opt::{Options, Selection};
use serde::{Deserialize, Serialize};

/// The whole shareable state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[derive(Default)]
pub struct Doc {
    pub vp: String,
    pub fp: String,
    /// Profile overrides (`Profile::id`); `None` = detect from the header.
    pub vp_profile: Option<String>,
    pub fp_profile: Option<String>,
    pub opts: OptState,
    pub inputs: Inputs,
    /// Hand-edited optimized programs (the optimized side in edit mode).
    pub hand: Option<HandEdit>,
    /// A hand edit put aside by unchecking "edit by hand", restored by checking it again.
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub hand_kept: Option<HandEdit>,
    /// The example this document started from.
    pub example: Option<String>,
    /// The document's name when it is not an example (an imported file's title or name).
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub title: Option<String>,
    /// The scene around the programs (textures, parameters, passes), with the bodies of
    /// the optimized pair's program sections left empty; `None` renders the GPGPU quad.
    pub scene: Option<String>,
    /// Which view the page shows: code motion (the default) or linear expressions.
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub mode: Mode,
    /// The linear-expression mode's system (`crate::worker::linear`), once the mode was opened.
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub linear: Option<crate::doc::linear_doc::LinearDoc>,
    /// Source mode: the WGSL or GLSL the pair is compiled from. While it is set, `vp`, `fp`,
    /// `scene`, the profiles, the ARB target and mirrored parameters (a compiled pair's
    /// uniforms are set for both stages) are the compiled pair's: derived, and left out of
    /// links ([`Doc::shareable`]).
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub source: Option<crate::doc::source::SourceDoc>,
    /// Source mode: what the compiled pair needs the host to set before each draw (GL's
    /// matrices in D3D9 constants, the viewport's size), derived with the programs.
    #[serde(skip_serializing_if = "crate::doc::none")]
    pub host_state: Option<HostState>,
}

/// A compiled pair's uniforms that the host sets from GL state, in the pair's dialect:
/// `hoist_front::scene::set_state_before_draws` applies them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostState {
    pub dialect: hoist_asm::Dialect,
    pub uniforms: Vec<HostUniform>,
}

/// One of them (`hoist_front::bindings::UniformSlot` with a `state`): its parameter slots
/// and the GL state they hold (`state.matrix.mvp`, `viewport`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostUniform {
    pub name: String,
    pub slot: u16,
    pub slots: u16,
    pub lanes: u8,
    pub state: String,
}

/// The page's mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Fragment→vertex code motion of a program pair.
    #[default]
    Code,
    /// SIMD packing of a linear expression y = A·x + b (seed 003).
    Linear,
}

impl Mode {
    pub fn is_code(&self) -> bool {
        *self == Mode::Code
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandEdit {
    pub vp: String,
    pub fp: String,
    /// [`crate::doc::handedit::fingerprint`] of the original programs it was started from
    /// (`None` in older links: never called stale).
    #[serde(default, skip_serializing_if = "crate::doc::none")]
    pub base: Option<u64>,
}

/// Optimizer settings as the Options panel edits them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OptState {
    /// The selection's cost model; `modern` is the flag older links stored.
    #[serde(alias = "modern", skip_serializing_if = "crate::doc::at_default")]
    pub cost: CostChoice,
    /// Modern model: fragment slots per interpolated component.
    pub interp_cost: f64,
    pub greedy: bool,
    pub mirror_params: bool,
    /// Stepwise: apply only the first `steps` movable groups.
    pub stepwise: bool,
    pub steps: u32,
    pub commute: bool,
    pub lower: bool,
    pub vp_cleanup: bool,
    /// Pack vectors (SLP) in both programs after the motion (`Options::slp`).
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub slp: bool,
    /// Reorder both optimized programs for lower register pressure (`Options::schedule`).
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub schedule: bool,
    /// Make a program over its temp limit fit by renumbering, scheduling or
    /// rematerialization (`Options::fit`).
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub fit: bool,
    /// The R600-motivated peepholes: MUL+ADD → MAD, dot products, repeated fetches.
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub peepholes: bool,
    pub vp_limits: LimitEdit,
    pub fp_limits: LimitEdit,
    /// Whose ARB limits the parser and the optimizer hold ARB programs to.
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub target: ArbTarget,
}

/// Longest document title kept (characters).
pub const MAX_TITLE: usize = 120;

impl Default for OptState {
    fn default() -> OptState {
        let d = Options::default();
        OptState {
            cost: CostChoice::Paper,
            interp_cost: 0.5,
            greedy: d.selection == Selection::Greedy,
            mirror_params: d.mirror_params,
            stepwise: false,
            steps: 0,
            commute: d.commute,
            lower: d.lower,
            vp_cleanup: d.vp_cleanup,
            slp: d.slp,
            schedule: d.schedule,
            fit: d.fit,
            peepholes: d.peepholes != hoist_opt::Peepholes::default(),
            vp_limits: LimitEdit::default(),
            fp_limits: LimitEdit::default(),
            target: ArbTarget::default(),
        }
    }
}

/// Overrides of a profile's default limits (`None` = the profile's value).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LimitEdit {
    pub max_slots: Option<u32>,
    pub temps: Option<u16>,
    pub texcoords: Option<u8>,
}

impl LimitEdit {
    pub fn apply(&self, mut l: Limits) -> Limits {
        if let Some(s) = self.max_slots {
            l.max_slots = s;
        }
        if let Some(t) = self.temps {
            l.temps = t;
        }
        if let Some(t) = self.texcoords {
            l.texcoords = t;
        }
        l
    }

    fn sanitize(&mut self) {
        self.max_slots = self.max_slots.map(|v| v.clamp(1, 65_536));
        self.temps = self.temps.map(|v| v.clamp(1, 4096));
        self.texcoords = self.texcoords.map(|v| v.min(32));
    }
}

impl OptState {
    /// The optimizer options for a pair of these profiles rendered with `vertices` and
    /// `fragments` invocations (the modern cost model amortises vertex work over them).
    pub fn to_options(&self, vp: Profile, fp: Profile, vertices: f64, fragments: f64) -> Options {
        let (vp_limits, fp_limits) = (self.limits(vp), self.limits(fp));
        Options {
            vp_limits,
            fp_limits,
            cost: self.cost.model(self.interp_cost, vertices, fragments),
            selection: if self.greedy {
                Selection::Greedy
            } else {
                Selection::Optimal
            },
            mirror_params: self.mirror_params,
            steps: self.stepwise.then_some(self.steps as usize),
            commute: self.commute,
            lower: self.lower,
            vp_cleanup: self.vp_cleanup,
            slp: self.slp,
            schedule: self.schedule,
            fit: self.fit,
            peepholes: if self.peepholes {
                hoist_opt::Peepholes::ALL
            } else {
                hoist_opt::Peepholes::default()
            },
            ..Options::default()
        }
    }

    /// The limits a program of `profile` is held to: the target's (for ARB; a D3D9
    /// profile's own), with the panel's overrides.
    pub fn limits_of(&self, profile: Profile) -> Limits {
        let edit = match profile.stage() {
            hoist_asm::Stage::Vertex => &self.vp_limits,
            hoist_asm::Stage::Fragment => &self.fp_limits,
        };
        edit.apply(profile.limits_for(self.target))
    }

    /// [`OptState::limits_of`] when it differs from the profile's defaults.
    fn limits(&self, profile: Profile) -> Option<Limits> {
        let l = self.limits_of(profile);
        (l != profile.limits()).then_some(l)
    }

    fn sanitize(&mut self) {
        if !self.interp_cost.is_finite() {
            self.interp_cost = 0.5;
        }
        self.interp_cost = self.interp_cost.clamp(0.0, 100.0);
        self.steps = self.steps.min(10_000);
        self.vp_limits.sanitize();
        self.fp_limits.sanitize();
    }
}

/// Render inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Inputs {
    pub width: u32,
    pub height: u32,
    /// Texture per unit; units without an entry get the default checkerboard.
    pub textures: Vec<TexSpec>,
    /// Host-set parameter values; unset parameters are zero.
    pub params: Vec<ParamValue>,
    pub view: ViewMap,
    /// Largest |Δ| the verdict still calls "equivalent".
    pub tolerance: f32,
    /// Overrides of what the draw supplies where the geometry does not (current vertex
    /// attributes by slot, the modelview and projection matrices): `crate::worker::supplied`.
    pub attribs: Vec<AttribValue>,
    pub matrices: Vec<MatrixValue>,
    /// Seed of the last "randomise inputs" (the values it set are in `params` and
    /// `textures`), shown next to the button.
    pub seed: Option<u32>,
}

/// The current value of one vertex attribute slot (`hoist_raster::ATTRIBS` of them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttribValue {
    pub slot: u8,
    pub value: [f32; 4],
}

/// The modelview (`projection` false) or projection matrix, rows first.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatrixValue {
    pub projection: bool,
    pub rows: [[f32; 4]; 4],
}

impl Default for Inputs {
    fn default() -> Inputs {
        Inputs {
            width: 256,
            height: 256,
            textures: Vec::new(),
            params: Vec::new(),
            view: ViewMap::default(),
            tolerance: 1e-4,
            attribs: Vec::new(),
            matrices: Vec::new(),
            seed: None,
        }
    }
}

impl Inputs {
    /// The texture settings of `unit` (the default when none are set).
    pub fn texture(&self, unit: u8) -> TexSpec {
        self.textures
            .iter()
            .find(|t| t.unit == unit)
            .cloned()
            .unwrap_or_else(|| TexSpec::new(unit))
    }

    pub fn set_texture(&mut self, spec: TexSpec) {
        match self.textures.iter_mut().find(|t| t.unit == spec.unit) {
            Some(t) => *t = spec,
            None => {
                self.textures.push(spec);
                hoist_asm::sort::by_key(&mut self.textures, |t| t.unit);
            }
        }
    }

    pub fn param(&self, key: ParamKey) -> Option<[f32; 4]> {
        self.params.iter().find(|p| p.key == key).map(|p| p.value)
    }

    pub fn set_param(&mut self, key: ParamKey, value: [f32; 4]) {
        match self.params.iter_mut().find(|p| p.key == key) {
            Some(p) => p.value = value,
            None => self.params.push(ParamValue { key, value }),
        }
    }
}

/// A texture unit's source and sampler state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TexSpec {
    pub unit: u8,
    pub pattern: Pattern,
    /// Edge of a built-in pattern.
    pub size: u32,
    pub linear: bool,
    pub repeat: bool,
    /// Store as RGBA8 (quantised) instead of float.
    pub rgba8: bool,
    /// Seed of the noise pattern.
    pub seed: u32,
}

impl Default for TexSpec {
    fn default() -> TexSpec {
        TexSpec::new(0)
    }
}

impl TexSpec {
    pub fn new(unit: u8) -> TexSpec {
        TexSpec {
            unit,
            pattern: Pattern::Checker,
            size: 256,
            linear: false,
            repeat: false,
            rgba8: false,
            seed: 1,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    #[default]
    Checker,
    Gradient,
    Noise,
    /// A picture the user picked; never stored in links (falls back to the checkerboard).
    Image,
}

impl Pattern {
    pub const BUILT_IN: [Pattern; 3] = [Pattern::Checker, Pattern::Gradient, Pattern::Noise];

    pub fn name(self) -> &'static str {
        match self {
            Pattern::Checker => "checker",
            Pattern::Gradient => "gradient",
            Pattern::Noise => "noise",
            Pattern::Image => "image",
        }
    }
}

/// Which host-set constant a value is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ParamKey {
    pub vertex: bool,
    /// ARB `program.local[n]` (else `program.env[n]`, or D3D9 `c#n` without `def`).
    pub local: bool,
    pub index: u16,
}

impl ParamKey {
    /// How the parameter is written in the program's dialect.
    pub fn label(&self, dialect: hoist_asm::Dialect) -> String {
        let stage = if self.vertex { "vertex" } else { "fragment" };
        match dialect {
            hoist_asm::Dialect::D3d9 => format!("{stage} c{}", self.index),
            hoist_asm::Dialect::Arb => format!(
                "{stage} program.{}[{}]",
                if self.local { "local" } else { "env" },
                self.index
            ),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamValue {
    pub key: ParamKey,
    pub value: [f32; 4],
}

/// Mapping of float results to display colours.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewMap {
    pub channel: Channel,
    pub lo: f32,
    pub hi: f32,
}

impl Default for ViewMap {
    fn default() -> ViewMap {
        ViewMap {
            channel: Channel::Rgba,
            lo: 0.0,
            hi: 1.0,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    #[default]
    Rgba,
    Rgb,
    R,
    G,
    B,
    A,
}

impl Channel {
    pub const ALL: [Channel; 6] = [
        Channel::Rgba,
        Channel::Rgb,
        Channel::R,
        Channel::G,
        Channel::B,
        Channel::A,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Channel::Rgba => "RGBA",
            Channel::Rgb => "RGB (opaque)",
            Channel::R => "R",
            Channel::G => "G",
            Channel::B => "B",
            Channel::A => "A",
        }
    }

    /// Source channel per output channel (4 = constant 255), as `ToRgba8` wants.
    pub fn swizzle(self) -> [u8; 4] {
        match self {
            Channel::Rgba => [0, 1, 2, 3],
            Channel::Rgb => [0, 1, 2, 4],
            Channel::R => [0, 0, 0, 4],
            Channel::G => [1, 1, 1, 4],
            Channel::B => [2, 2, 2, 4],
            Channel::A => [3, 3, 3, 4],
        }
    }
}

/// A title as shown: control characters dropped, blanks collapsed, at most [`MAX_TITLE`]
/// characters; `None` when nothing is left.
pub fn clean_title(t: &str) -> Option<String> {
    let words: Vec<&str> = t
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    let s: String = words.join(" ").chars().take(MAX_TITLE).collect();
    (!s.is_empty()).then_some(s)
}

/// Why a decoded document was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid(pub String);

impl Doc {
    /// What a link holds of the document: in source mode, the compiled pair, its scene and
    /// its target are left out (the page compiles them again from the source).
    pub fn shareable(&self) -> Doc {
        let mut d = self.clone();
        d.drop_derived();
        d
    }

    /// Whether two documents are the same as a link holds them.
    pub fn same_shared(&self, other: &Doc) -> bool {
        if self.source.is_none() && other.source.is_none() {
            return self == other;
        }
        self.shareable() == other.shareable()
    }

    fn drop_derived(&mut self) {
        self.host_state = None;
        if self.source.is_some() {
            self.vp.clear();
            self.fp.clear();
            self.scene = None;
            self.vp_profile = None;
            self.fp_profile = None;
            self.opts.target = ArbTarget::default();
            self.opts.mirror_params = OptState::default().mirror_params;
        }
    }

    /// Profile override of the vertex program, if a valid one is set.
    pub fn vp_profile(&self) -> Option<Profile> {
        self.vp_profile.as_deref().and_then(Profile::from_id)
    }

    pub fn fp_profile(&self) -> Option<Profile> {
        self.fp_profile.as_deref().and_then(Profile::from_id)
    }

    /// Enforces the document's invariants on untrusted data: texts within
    /// [`MAX_PROGRAM`], sizes within caps, finite numbers. Values that can be clamped are;
    /// anything else is an error with a message for the user.
    pub fn sanitize(mut self) -> Result<Doc, Invalid> {
        for (name, text) in [("vertex program", &self.vp), ("fragment program", &self.fp)] {
            if text.len() > MAX_PROGRAM {
                return Err(Invalid(format!(
                    "the {name} is {} KiB; the playground accepts up to {} KiB",
                    text.len() / 1024,
                    MAX_PROGRAM / 1024
                )));
            }
        }
        if self.scene.as_ref().is_some_and(|s| s.len() > MAX_SCENE) {
            return Err(Invalid(format!(
                "the scene is longer than {} KiB",
                MAX_SCENE / 1024
            )));
        }
        if [&self.hand, &self.hand_kept]
            .into_iter()
            .flatten()
            .any(|h| h.vp.len() > MAX_PROGRAM || h.fp.len() > MAX_PROGRAM)
        {
            return Err(Invalid("a hand-edited program is too long".into()));
        }
        for p in [&mut self.vp_profile, &mut self.fp_profile] {
            if p.as_deref().is_some_and(|s| Profile::from_id(s).is_none()) {
                *p = None;
            }
        }
        if self.example.as_ref().is_some_and(|e| e.len() > 64) {
            self.example = None;
        }
        self.title = self.title.take().and_then(|t| clean_title(&t));
        if let Some(l) = &mut self.linear {
            l.sanitize().map_err(Invalid)?;
        }
        if let Some(s) = &mut self.source {
            s.sanitize().map_err(Invalid)?;
        }
        self.drop_derived();
        self.opts.sanitize();
        let i = &mut self.inputs;
        i.width = i.width.clamp(1, MAX_SIZE);
        i.height = i.height.clamp(1, MAX_SIZE);
        if i.textures.len() > MAX_UNITS || i.params.len() > MAX_PARAMS {
            return Err(Invalid("too many textures or parameters".into()));
        }
        for t in &mut i.textures {
            t.size = t.size.clamp(1, MAX_TEX_SIZE);
            t.unit = t.unit.min(MAX_UNITS as u8 - 1);
            if t.pattern == Pattern::Image {
                t.pattern = Pattern::Checker;
            }
        }
        if i.params
            .iter()
            .any(|p| p.value.iter().any(|v| !v.is_finite()))
        {
            return Err(Invalid("a parameter value is not a finite number".into()));
        }
        i.attribs
            .retain(|a| usize::from(a.slot) < hoist_raster::ATTRIBS);
        hoist_asm::sort::by_key(&mut i.attribs, |a| a.slot);
        hoist_asm::sort::by_key(&mut i.matrices, |m| m.projection);
        i.attribs.dedup_by_key(|a| a.slot);
        i.matrices.dedup_by_key(|m| m.projection);
        i.matrices.truncate(2);
        if i.attribs.len() > hoist_raster::ATTRIBS
            || i.attribs
                .iter()
                .any(|a| a.value.iter().any(|v| !v.is_finite()))
        {
            return Err(Invalid(
                "a vertex attribute value is not a finite number".into(),
            ));
        }
        if i.matrices
            .iter()
            .any(|m| m.rows.iter().flatten().any(|v| !v.is_finite()))
        {
            return Err(Invalid("a matrix entry is not a finite number".into()));
        }
        if !i.tolerance.is_finite() || i.tolerance < 0.0 {
            i.tolerance = Inputs::default().tolerance;
        }
        if !i.view.lo.is_finite() || !i.view.hi.is_finite() {
            i.view = ViewMap::default();
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_follow_the_panel() {
        let mut o = OptState::default();
        let d = o.to_options(Profile::Vs1_1, Profile::Ps2_0, 4.0, 65536.0);
        assert_eq!(d.selection, Selection::Optimal);
        assert!(d.steps.is_none() && d.vp_limits.is_none());
        o.greedy = true;
        o.stepwise = true;
        o.steps = 2;
        o.cost = CostChoice::Modern;
        o.fp_limits.max_slots = Some(9);
        let d = o.to_options(Profile::Vs1_1, Profile::Ps2_0, 4.0, 65536.0);
        assert_eq!(d.selection, Selection::Greedy);
        assert_eq!(d.steps, Some(2));
        assert_eq!(d.fp_limits.unwrap().max_slots, 9);
        assert!(
            matches!(d.cost, hoist_opt::CostModel::Modern { fragments, .. } if fragments == 65536.0)
        );
        o.cost = CostChoice::R700;
        let d = o.to_options(Profile::Vs1_1, Profile::Ps2_0, 4.0, 65536.0);
        assert!(matches!(
            d.cost,
            hoist_opt::CostModel::R600 { chip: hoist_opt::r600::Chip::R700, vertices, .. } if vertices == 4.0
        ));
    }

    #[test]
    fn sanitize_clamps_and_rejects() {
        let mut d = Doc::default();
        d.inputs.width = 100_000;
        d.inputs.height = 0;
        d.vp_profile = Some("ps_9_9".into());
        d.inputs.set_texture(TexSpec {
            pattern: Pattern::Image,
            size: 1 << 30,
            ..TexSpec::new(200)
        });
        let s = d.clone().sanitize().unwrap();
        assert_eq!((s.inputs.width, s.inputs.height), (MAX_SIZE, 1));
        assert_eq!(s.vp_profile, None);
        assert_eq!(s.inputs.textures[0].pattern, Pattern::Checker);
        assert_eq!(s.inputs.textures[0].size, MAX_TEX_SIZE);

        let key = ParamKey {
            vertex: false,
            local: false,
            index: 0,
        };
        d.inputs.set_param(key, [f32::NAN, 0.0, 0.0, 0.0]);
        assert!(d.clone().sanitize().is_err());
        d.inputs.set_param(key, [1.0; 4]);
        // What the draw supplies: slots beyond the attributes are dropped, duplicates kept
        // once, non-finite values refused.
        let mut e = d.clone();
        for slot in [40, 3, 3] {
            e.inputs.attribs.push(AttribValue {
                slot,
                value: [0.5; 4],
            });
        }
        let mut rows = [[0.0; 4]; 4];
        e.inputs.matrices.push(MatrixValue {
            projection: true,
            rows,
        });
        let s = e.clone().sanitize().unwrap();
        assert_eq!(s.inputs.attribs.len(), 1);
        assert_eq!(s.inputs.matrices.len(), 1);
        rows[2][1] = f32::NEG_INFINITY;
        e.inputs.matrices[0].rows = rows;
        assert!(e.sanitize().unwrap_err().0.contains("matrix"));
        d.fp = "x".repeat(MAX_PROGRAM + 1);
        let e = d.sanitize().unwrap_err();
        assert!(e.0.contains("fragment program"), "{e:?}");
    }
}

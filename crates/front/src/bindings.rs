//! The binding table: where each input, output, uniform and texture of the source went in
//! the assembly (for the page, `hoist compile` and the scripts that feed both a GPU and
//! the executor the same inputs).

use serde::{Deserialize, Serialize};

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    /// `attribute`, `varying`, `uniform`, `texture`, `output` or `builtin`.
    pub kind: String,
    /// `vertex`, `fragment` or `both`.
    pub stage: String,
    /// The source's name (a struct member as `Struct.member`, a uniform as `u.member`).
    pub name: String,
    /// How the source binds it: `@location(1)`, `@group(0) @binding(2)`, `gl_Vertex`, ...
    pub source: String,
    /// The register(s) it became, in the output dialect.
    pub register: String,
    /// Interpolation, sampler target, emulation, ... in words.
    #[serde(default)]
    pub detail: String,
}

/// One uniform leaf (scalar, vector or matrix) and the parameter slots holding it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UniformSlot {
    pub name: String,
    /// WGSL `@group`/`@binding` (0, 0 for GLSL's loose uniforms).
    pub group: u32,
    pub binding: u32,
    /// Byte offset in the uniform buffer (WGSL layout rules, from naga).
    pub offset: u32,
    /// `f32`, `vec3<f32>`, `mat4x4<f32>`, `i32`, ...
    pub ty: String,
    /// First parameter slot (`program.local[slot]` / `c#slot`); matrices take one per column.
    pub slot: u16,
    pub slots: u16,
    /// Components per slot.
    pub lanes: u8,
    /// The initial value the source gives it (GLSL `uniform T x = ...;`), column by column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<Vec<f32>>,
    /// The OpenGL state matrix whose rows the slots hold (D3D9 has no state bindings: the
    /// host sets slot `slot + r` to row `r` of, e.g., `state.matrix.mvp` before each draw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// A texture unit and what the source bound to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextureUnit {
    pub name: String,
    pub group: u32,
    pub binding: u32,
    pub unit: u8,
    /// ARB target name (`2D`, `3D`, `CUBE`, `SHADOW2D`).
    pub target: String,
}

/// A vertex attribute and the generic slot it reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttributeSlot {
    pub name: String,
    pub location: u8,
    pub components: u8,
}

/// Everything both stages bound.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bindings {
    pub rows: Vec<Binding>,
    pub uniforms: Vec<UniformSlot>,
    pub textures: Vec<TextureUnit>,
    pub attributes: Vec<AttributeSlot>,
    /// What was emulated or approximated, in words.
    pub notes: Vec<String>,
    /// Units fixed by name (`Options::units`), and whether the others take unit 0.
    #[serde(skip)]
    pub unit_hints: Option<Vec<(String, u8)>>,
    #[serde(skip)]
    pub gl_units: bool,
}

impl Bindings {
    pub fn row(&mut self, kind: &str, stage: &str, name: &str, source: &str, register: &str) {
        self.row_with(kind, stage, name, source, register, "");
    }

    pub fn row_with(
        &mut self,
        kind: &str,
        stage: &str,
        name: &str,
        source: &str,
        register: &str,
        detail: &str,
    ) {
        if let Some(r) = self.rows.iter_mut().find(|r| {
            r.kind == kind && r.name == name && r.source == source && r.register == register
        }) {
            if r.stage != stage {
                r.stage = "both".into();
            }
            return;
        }
        self.rows.push(Binding {
            kind: kind.into(),
            stage: stage.into(),
            name: name.into(),
            source: source.into(),
            register: register.into(),
            detail: detail.into(),
        });
    }

    pub fn note(&mut self, s: impl Into<String>) {
        let s = s.into();
        if !self.notes.contains(&s) {
            self.notes.push(s);
        }
    }

    /// The next free parameter slot.
    pub fn next_slot(&self) -> u16 {
        self.uniforms
            .iter()
            .map(|u| u.slot + u.slots)
            .max()
            .unwrap_or(0)
    }

    /// The unit of texture `name` (`group`, `binding`): the hinted one, else unit 0 under
    /// GL's rule, else the first unit neither used nor hinted, in order of first use.
    pub fn unit(&mut self, name: &str, group: u32, binding: u32, target: &str) -> u8 {
        if let Some(t) = self
            .textures
            .iter()
            .find(|t| t.group == group && t.binding == binding && t.name == name)
        {
            return t.unit;
        }
        let hints = self.unit_hints.as_deref().unwrap_or(&[]);
        let hinted = hints.iter().find(|(n, _)| n == name).map(|h| h.1);
        let unit = match hinted {
            Some(u) => u,
            None if self.gl_units && self.unit_hints.is_some() => 0,
            None => (0u8..=255)
                .find(|u| {
                    !self.textures.iter().any(|t| t.unit == *u) && !hints.iter().any(|h| h.1 == *u)
                })
                .unwrap_or(0),
        };
        self.textures.push(TextureUnit {
            name: name.into(),
            group,
            binding,
            unit,
            target: target.into(),
        });
        unit
    }
}

//! ARB `state.*` parameter bindings: one [`StateRef`] names one four-component vector of
//! tracked OpenGL state. Matrix bindings name one row; `state.matrix.mvp` (all rows) is
//! lowered to four consecutive constant slots, one `StateRef` each.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Face {
    Front,
    Back,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MaterialProp {
    Ambient,
    Diffuse,
    Specular,
    Emission,
    Shininess,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LightProp {
    Ambient,
    Diffuse,
    Specular,
    Position,
    Attenuation,
    SpotDirection,
    Half,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LightProdProp {
    Ambient,
    Diffuse,
    Specular,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TexGenPlane {
    Eye,
    Object,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MatrixName {
    /// `modelview[n]` (`modelview` = `modelview[0]`).
    Modelview(u8),
    Projection,
    Mvp,
    Texture(u8),
    Palette(u8),
    Program(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MatrixMod {
    Normal,
    Inverse,
    Transpose,
    InvTrans,
}

/// One vector of GL state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StateRef {
    Material(Face, MaterialProp),
    Light(u8, LightProp),
    LightModelAmbient,
    LightModelSceneColor(Face),
    LightProd(u8, Face, LightProdProp),
    /// `state.texgen[n].eye.s` etc.; `coord` 0..4 = s, t, r, q.
    TexGen(u8, TexGenPlane, u8),
    FogColor,
    FogParams,
    ClipPlane(u8),
    PointSize,
    PointAttenuation,
    /// One row of a matrix.
    Matrix(MatrixName, MatrixMod, u8),
    /// ARB_fragment_program: `state.texenv[n].color`.
    TexEnvColor(u8),
    /// ARB_fragment_program: `state.depth.range`.
    DepthRange,
}

impl StateRef {
    /// Whether a program of `stage` can bind this state: texgen planes, clip planes and
    /// point state are ARB_vertex_program's only, texenv colours and the depth range
    /// ARB_fragment_program's only (the parser's E1204; a test in `arb::bindings` holds
    /// the two together).
    pub fn bindable_in(self, stage: crate::profile::Stage) -> bool {
        let vertex_only = matches!(
            self,
            StateRef::TexGen(..)
                | StateRef::ClipPlane(_)
                | StateRef::PointSize
                | StateRef::PointAttenuation
        );
        let fragment_only = matches!(self, StateRef::TexEnvColor(_) | StateRef::DepthRange);
        match stage {
            crate::profile::Stage::Vertex => !fragment_only,
            crate::profile::Stage::Fragment => !vertex_only,
        }
    }
}

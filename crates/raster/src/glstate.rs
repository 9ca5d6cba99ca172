//! Tracked OpenGL state for ARB `state.*` bindings, with the GL 2.1 defaults, plus the
//! matrices scenes set (`ortho`). Matrices are row-major `[[f32; 4]; 4]` (`m[row][col]`),
//! so `state.matrix.X.row[n]` is `m[n]`.

use hoist_asm::state::{LightProdProp, LightProp, MaterialProp, MatrixMod, MatrixName, StateRef};
use serde::{Deserialize, Serialize};

pub type Mat4 = [[f32; 4]; 4];

pub const IDENTITY: Mat4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

pub fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut r = [[0.0f32; 4]; 4];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            let mut acc = 0.0f64;
            for (k, bk) in b.iter().enumerate() {
                acc += f64::from(a[i][k]) * f64::from(bk[j]);
            }
            *v = acc as f32;
        }
    }
    r
}

pub fn mat_vec(m: &Mat4, v: [f32; 4]) -> [f32; 4] {
    let mut r = [0.0f32; 4];
    for (i, row) in m.iter().enumerate() {
        r[i] = row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3];
    }
    r
}

pub fn transpose(m: &Mat4) -> Mat4 {
    let mut r = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            r[i][j] = m[j][i];
        }
    }
    r
}

/// Inverse by Gauss-Jordan elimination in f64; a singular matrix gives all zeros.
pub fn inverse(m: &Mat4) -> Mat4 {
    let mut a = [[0.0f64; 8]; 4];
    for i in 0..4 {
        for j in 0..4 {
            a[i][j] = f64::from(m[i][j]);
        }
        a[i][4 + i] = 1.0;
    }
    for c in 0..4 {
        let p = (c..4)
            .max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))
            .unwrap_or(c);
        if a[p][c] == 0.0 || !a[p][c].is_finite() {
            return [[0.0; 4]; 4];
        }
        a.swap(c, p);
        let d = a[c][c];
        for v in a[c].iter_mut() {
            *v /= d;
        }
        for r in 0..4 {
            if r != c {
                let f = a[r][c];
                let row_c = a[c];
                for (v, pc) in a[r].iter_mut().zip(row_c) {
                    *v -= f * pc;
                }
            }
        }
    }
    let mut r = [[0.0f32; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            r[i][j] = a[i][4 + j] as f32;
        }
    }
    r
}

/// `glOrtho(l, r, b, t, n, f)`.
pub fn ortho(l: f32, r: f32, b: f32, t: f32, n: f32, f: f32) -> Mat4 {
    let (l, r, b, t, n, f) = (
        f64::from(l),
        f64::from(r),
        f64::from(b),
        f64::from(t),
        f64::from(n),
        f64::from(f),
    );
    let m = [
        [2.0 / (r - l), 0.0, 0.0, -(r + l) / (r - l)],
        [0.0, 2.0 / (t - b), 0.0, -(t + b) / (t - b)],
        [0.0, 0.0, -2.0 / (f - n), -(f + n) / (f - n)],
        [0.0, 0.0, 0.0, 1.0],
    ];
    m.map(|row| row.map(|v| if v.is_finite() { v as f32 } else { 0.0 }))
}

fn one() -> f32 {
    1.0
}

/// GL state visible to programs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlState {
    pub modelview: Mat4,
    pub projection: Mat4,
    pub texture: [Mat4; 8],
    pub program: [Mat4; 8],
    pub depth_range: (f32, f32),
    pub fog_color: [f32; 4],
    /// `GL_FOG_DENSITY`, `GL_FOG_START`, `GL_FOG_END` (`state.fog.params`, and the ARB fog
    /// options' factor, `crate::fog`).
    #[serde(default = "one")]
    pub fog_density: f32,
    #[serde(default)]
    pub fog_start: f32,
    #[serde(default = "one")]
    pub fog_end: f32,
    pub point_size: f32,
    pub texenv_color: [[f32; 4]; 8],
}

impl Default for GlState {
    fn default() -> GlState {
        GlState {
            modelview: IDENTITY,
            projection: IDENTITY,
            texture: [IDENTITY; 8],
            program: [IDENTITY; 8],
            depth_range: (0.0, 1.0),
            fog_color: [0.0; 4],
            fog_density: 1.0,
            fog_start: 0.0,
            fog_end: 1.0,
            point_size: 1.0,
            texenv_color: [[0.0; 4]; 8],
        }
    }
}

impl GlState {
    pub fn mvp(&self) -> Mat4 {
        mat_mul(&self.projection, &self.modelview)
    }

    fn matrix(&self, name: MatrixName) -> Mat4 {
        match name {
            MatrixName::Modelview(0) => self.modelview,
            MatrixName::Modelview(_) | MatrixName::Palette(_) => IDENTITY,
            MatrixName::Projection => self.projection,
            MatrixName::Mvp => self.mvp(),
            MatrixName::Texture(n) => self.texture.get(n as usize).copied().unwrap_or(IDENTITY),
            MatrixName::Program(n) => self.program.get(n as usize).copied().unwrap_or(IDENTITY),
        }
    }

    /// The value of one `state.*` vector.
    pub fn value(&self, s: &StateRef) -> [f32; 4] {
        const MAT_AMBIENT: [f32; 4] = [0.2, 0.2, 0.2, 1.0];
        const MAT_DIFFUSE: [f32; 4] = [0.8, 0.8, 0.8, 1.0];
        const BLACK: [f32; 4] = [0.0, 0.0, 0.0, 1.0];
        let material = |p: MaterialProp| match p {
            MaterialProp::Ambient => MAT_AMBIENT,
            MaterialProp::Diffuse => MAT_DIFFUSE,
            MaterialProp::Specular | MaterialProp::Emission => BLACK,
            MaterialProp::Shininess => [0.0, 0.0, 0.0, 1.0],
        };
        let light = |n: u8, p: LightProp| -> [f32; 4] {
            match p {
                LightProp::Ambient => BLACK,
                LightProp::Diffuse | LightProp::Specular if n == 0 => [1.0; 4],
                LightProp::Diffuse | LightProp::Specular => BLACK,
                LightProp::Position => [0.0, 0.0, 1.0, 0.0],
                LightProp::Attenuation => [1.0, 0.0, 0.0, 0.0],
                LightProp::SpotDirection => [0.0, 0.0, -1.0, -1.0],
                // Half vector of the default infinite light and viewer at (0,0,1).
                LightProp::Half => [0.0, 0.0, 1.0, 1.0],
            }
        };
        match *s {
            StateRef::Material(_, p) => material(p),
            StateRef::Light(n, p) => light(n, p),
            StateRef::LightModelAmbient => MAT_AMBIENT,
            StateRef::LightModelSceneColor(_) => {
                let a = MAT_AMBIENT;
                let m = material(MaterialProp::Ambient);
                [a[0] * m[0], a[1] * m[1], a[2] * m[2], MAT_DIFFUSE[3]]
            }
            StateRef::LightProd(n, _f, p) => {
                let (lp, mp) = match p {
                    LightProdProp::Ambient => (LightProp::Ambient, MaterialProp::Ambient),
                    LightProdProp::Diffuse => (LightProp::Diffuse, MaterialProp::Diffuse),
                    LightProdProp::Specular => (LightProp::Specular, MaterialProp::Specular),
                };
                let (l, m) = (light(n, lp), material(mp));
                [l[0] * m[0], l[1] * m[1], l[2] * m[2], m[3]]
            }
            StateRef::TexGen(_, _, coord) => match coord {
                0 => [1.0, 0.0, 0.0, 0.0],
                1 => [0.0, 1.0, 0.0, 0.0],
                _ => [0.0; 4],
            },
            StateRef::FogColor => self.fog_color,
            StateRef::FogParams => [
                self.fog_density,
                self.fog_start,
                self.fog_end,
                1.0 / (self.fog_end - self.fog_start),
            ],
            StateRef::ClipPlane(_) => [0.0; 4],
            StateRef::PointSize => [self.point_size, 0.0, 1e9, 1.0],
            StateRef::PointAttenuation => [1.0, 0.0, 0.0, 1.0],
            StateRef::Matrix(name, m, row) => {
                let base = self.matrix(name);
                let mm = match m {
                    MatrixMod::Normal => base,
                    MatrixMod::Inverse => inverse(&base),
                    MatrixMod::Transpose => transpose(&base),
                    MatrixMod::InvTrans => transpose(&inverse(&base)),
                };
                mm[(row & 3) as usize]
            }
            StateRef::TexEnvColor(n) => self
                .texenv_color
                .get(n as usize)
                .copied()
                .unwrap_or([0.0; 4]),
            StateRef::DepthRange => {
                let (n, f) = self.depth_range;
                [n, f, f - n, 1.0]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ortho_matches_gl_and_inverts() {
        let m = ortho(0.0, 250.0, 0.0, 250.0, -1.0, 1.0);
        assert_eq!(mat_vec(&m, [125.0, 0.0, 0.0, 1.0]), [0.0, -1.0, 0.0, 1.0]);
        let i = inverse(&m);
        let back = mat_vec(&i, [0.0, -1.0, 0.0, 1.0]);
        assert!((back[0] - 125.0).abs() < 1e-4 && back[1].abs() < 1e-4);
        let s = GlState {
            projection: m,
            ..GlState::default()
        };
        let row0 = s.value(&StateRef::Matrix(MatrixName::Mvp, MatrixMod::Normal, 0));
        assert_eq!(row0, m[0]);
        let t = s.value(&StateRef::Matrix(MatrixName::Mvp, MatrixMod::Transpose, 3));
        assert_eq!(t, [m[0][3], m[1][3], m[2][3], m[3][3]]);
    }
}

//! A plan being built: the translated programs (one per pair and draw-state variant), the
//! uploaded textures (each executor texture once), and each draw's data — its vertices as
//! the executor's vertex stage receives them (`raster::geometry_vertices`), its uniform
//! blocks filled as the executor fills its tables (`const_table`, `int_table`,
//! `bool_table`, the GL state), and what each texture binding reads.

use super::model::{
    GpuCommand, Plan, PlanBinding, PlanDraw, PlanLevel, PlanProgram, PlanSampler, PlanTexture,
    PlanUniform,
};
use crate::iface::{
    BINDING_DRAW, BINDING_FRAGMENT_CONSTS, BINDING_FRAGMENT_INTS, BINDING_VERTEX_CONSTS,
    BINDING_VERTEX_INTS,
};
use crate::options::{Options, Output};
use base64::Engine;
use hoist_asm::Program;
use hoist_asm::ir::TexTarget;
use hoist_raster::program::{bool_table, const_table, int_table};
use hoist_raster::scene::TexOptions;
use hoist_raster::texture::{Filter, MipFilter, Sampler, TexFormat, TexShape, Texture, Wrap};
use hoist_raster::{Caps, DrawState, Geometry, StageParams, TargetFormat};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub(crate) fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn f32_bytes(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// What a texture unit holds.
#[derive(Clone, Debug)]
pub(crate) enum Unit {
    Texture(Arc<Texture>),
    /// A target's contents at each draw, made a texture with these options.
    Target(String, TexOptions),
}

/// One draw's inputs.
pub(crate) struct DrawSpec<'a> {
    pub pair: &'a str,
    pub vp: Option<&'a Program>,
    pub fp: Option<&'a Program>,
    pub vparams: &'a StageParams,
    pub fparams: &'a StageParams,
    pub state: &'a DrawState,
    pub geometry: &'a Geometry,
    pub target: &'a str,
    pub size: (u32, u32),
    pub format: TargetFormat,
    pub formats: &'a BTreeMap<String, TargetFormat>,
    pub units: &'a BTreeMap<u8, Unit>,
    pub caps: &'a Caps,
}

#[derive(Default)]
pub(crate) struct Builder {
    pub plan: Plan,
    programs: HashMap<(String, Options), usize>,
    textures: Vec<(Arc<Texture>, usize)>,
}

pub(crate) fn sampler(s: &Sampler, levels: usize) -> PlanSampler {
    let f = |f: Filter| match f {
        Filter::Nearest => "nearest",
        Filter::Linear => "linear",
    };
    PlanSampler {
        min: f(s.min),
        mag: f(s.mag),
        mip: match s.mip {
            _ if levels <= 1 => "none",
            MipFilter::None => "none",
            MipFilter::Nearest => "nearest",
            MipFilter::Linear => "linear",
        },
        wrap: match s.wrap {
            Wrap::ClampToEdge => "clamp",
            Wrap::Repeat => "repeat",
        },
    }
}

/// The draw block's `cmp` words of a texture bound to `target`: off unless a depth texture
/// with compare mode on is sampled through a shadow target, as the executor decides. The
/// shader compares at level 0 with one filter, so a comparing texture the executor would
/// sample across mipmap levels, or with different minification and magnification
/// filters, is refused.
fn compare_of(t: &Texture, target: TexTarget) -> Result<[u32; 4], String> {
    let s = t.sampler;
    let compare = s
        .compare
        .filter(|_| t.format == TexFormat::Depth && crate::iface::is_shadow(target));
    let mipmapped =
        s.mip != MipFilter::None && t.levels.len() > 1 && target != TexTarget::ShadowRect;
    if compare.is_some() && (mipmapped || s.min != s.mag) {
        return Err(
            "a depth comparison with mipmaps or different minification and magnification \
             filters is not translated (the shader compares at level 0 with one filter)"
                .into(),
        );
    }
    Ok(crate::iface::compare_words(
        compare,
        s.depth_mode,
        s.mag == Filter::Linear,
        s.wrap == Wrap::Repeat,
    ))
}

impl Builder {
    /// The program index of a pair in the variant `opts`.
    fn program(
        &mut self,
        pair: &str,
        vp: Option<&Program>,
        fp: Option<&Program>,
        opts: Options,
    ) -> Result<usize, String> {
        let key = (pair.to_string(), opts);
        if let Some(&i) = self.programs.get(&key) {
            return Ok(i);
        }
        let t = crate::translate(vp, fp, &opts).map_err(|e| e.to_string())?;
        self.plan.programs.push(PlanProgram {
            pair: pair.to_string(),
            wgsl: t.wgsl,
            glsl_vs: t.glsl_vs,
            glsl_fs: t.glsl_fs,
            bindings: t.bindings,
        });
        let i = self.plan.programs.len() - 1;
        self.programs.insert(key, i);
        Ok(i)
    }

    /// The texture index of an executor texture (uploaded once). A texture without
    /// mipmapping is uploaded with level 0 only, so the GPU's minification reads level 0
    /// as the executor's does.
    fn texture(&mut self, t: &Arc<Texture>) -> usize {
        if let Some((_, i)) = self.textures.iter().find(|(x, _)| Arc::ptr_eq(x, t)) {
            return *i;
        }
        let keep = if t.sampler.mip == MipFilter::None || t.shape == TexShape::Rect {
            1
        } else {
            t.levels.len()
        };
        // A depth texture goes up expanded by its depth mode, as the executor reads it
        // without comparing; a comparing lookup finds the depth in x (w for ALPHA).
        let depth = t.format == TexFormat::Depth;
        let mode = t.sampler.depth_mode;
        let levels = t.levels[..keep.min(t.levels.len())]
            .iter()
            .map(|l| PlanLevel {
                width: l.width,
                height: l.height,
                depth: l.depth,
                texels: b64(&f32_bytes(
                    l.texels
                        .iter()
                        .flat_map(|x| if depth { mode.expand(x[0]) } else { *x }),
                )),
            })
            .collect::<Vec<_>>();
        let n = levels.len();
        self.plan.textures.push(PlanTexture {
            shape: match t.shape {
                TexShape::D3 => "3d",
                TexShape::Cube => "cube",
                _ => "2d",
            },
            format: match t.format {
                TexFormat::Rgba8 => "rgba8",
                TexFormat::Rgba32F | TexFormat::Depth => "rgba32f",
            },
            levels,
            sampler: sampler(&t.sampler, n),
        });
        let i = self.plan.textures.len() - 1;
        self.textures.push((t.clone(), i));
        i
    }

    /// What binding k of a program reads.
    fn binding(
        &mut self,
        k: usize,
        unit: u8,
        target: TexTarget,
        d: &DrawSpec,
    ) -> Result<PlanBinding, String> {
        let mut b = PlanBinding {
            k: k as u32,
            view: crate::iface::view_of(target),
            texture: None,
            target: None,
            sampler: None,
            compare: [0; 4],
        };
        match d.units.get(&unit) {
            Some(Unit::Texture(t)) if t.fits(target) => {
                b.texture = Some(self.texture(t));
                b.compare = compare_of(t, target)?;
            }
            Some(Unit::Target(name, o)) if o.shape.fits(target) => {
                let from = d.formats.get(name).copied();
                if o.shape != TexShape::D2
                    || o.mipmap
                    || o.format == TexFormat::Depth
                    || (o.format == TexFormat::Rgba8 && from != Some(TargetFormat::Rgba8))
                {
                    return Err(format!(
                        "texture unit {unit} reads target `{name}` as a {} {:?} texture{}; the \
                         GPU plan copies targets as one-level 2D float textures only",
                        o.shape.name(),
                        o.format,
                        if o.mipmap { " with mipmaps" } else { "" }
                    ));
                }
                b.target = Some(name.clone());
                b.sampler = Some(sampler(&o.sampler, 1));
            }
            _ => {}
        }
        Ok(b)
    }

    /// Adds a draw.
    pub fn draw(&mut self, d: &DrawSpec) -> Result<(), String> {
        let opts = Options {
            two_side: d.state.two_side,
            vertex_clamp: d.state.vertex_clamp,
            color_sum: d.state.color_sum && d.fp.is_none(),
            output: match d.format {
                TargetFormat::Rgba8 => Output::Unorm8,
                TargetFormat::Rgba32F if d.state.fragment_clamp => Output::Clamp,
                TargetFormat::Rgba32F => Output::Float,
            },
            max_loop_iterations: d.caps.max_loop_iterations,
            max_call_depth: d.caps.max_call_depth,
        };
        let program = self.program(d.pair, d.vp, d.fp, opts)?;
        let (dn, df) = d.state.gl.depth_range;
        let (dn, df) = (dn.clamp(0.0, 1.0), df.clamp(0.0, 1.0));
        if dn > df {
            return Err(format!(
                "depth range ({dn}, {df}) is reversed; WebGPU's viewport cannot reverse it"
            ));
        }
        let (verts, indices) = hoist_raster::raster::geometry_vertices(d.geometry, d.state, d.caps)
            .map_err(|e| e.to_string())?;
        let mut textures = Vec::new();
        let list: Vec<(u8, String)> = self.plan.programs[program]
            .bindings
            .textures
            .iter()
            .map(|t| (t.unit, t.target.clone()))
            .collect();
        for (k, (unit, target)) in list.into_iter().enumerate() {
            let target = TexTarget::from_arb_name(&target).unwrap_or(TexTarget::T2D);
            textures.push(self.binding(k, unit, target, d)?);
        }
        let compare: Vec<[u32; 4]> = textures.iter().map(|b: &PlanBinding| b.compare).collect();
        let uniforms = self.uniforms(program, d, &compare);
        self.plan.commands.push(GpuCommand::Draw(Box::new(PlanDraw {
            target: d.target.to_string(),
            program,
            vertices: b64(&f32_bytes(verts.iter().flatten().flatten().copied())),
            vertex_count: verts.len() as u32,
            indices,
            uniforms,
            textures,
            depth_test: d.state.depth_test,
            cull_back: d.state.cull_back,
            depth_range: [dn, df],
        })));
        Ok(())
    }

    /// The uniform blocks of a draw, by binding.
    fn uniforms(&self, program: usize, d: &DrawSpec, compare: &[[u32; 4]]) -> Vec<PlanUniform> {
        let gl = &d.state.gl;
        let mut out = Vec::new();
        let lowered = d.fp.map(hoist_raster::fog::lower);
        for u in &self.plan.programs[program].bindings.uniforms {
            let len = (u.bytes / 16) as usize;
            let bytes = match u.binding {
                BINDING_VERTEX_CONSTS | BINDING_FRAGMENT_CONSTS => {
                    let (p, params) = if u.binding == BINDING_VERTEX_CONSTS {
                        (d.vp, d.vparams)
                    } else {
                        (lowered.as_ref(), d.fparams)
                    };
                    let Some(p) = p else { continue };
                    let mut t = const_table(p, len, params, gl);
                    t.resize(len, [0.0; 4]);
                    f32_bytes(t.into_iter().flatten())
                }
                BINDING_DRAW => {
                    let mut v = vec![
                        [d.size.0 as f32, d.size.1 as f32, 0.0, 0.0],
                        [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0],
                    ];
                    v.extend(gl.mvp());
                    for m in &gl.texture {
                        v.extend(*m);
                    }
                    let mut b = f32_bytes(v.into_iter().flatten());
                    for k in 0..crate::iface::MAX_TEXTURES {
                        let w = compare.get(k).copied().unwrap_or([0; 4]);
                        b.extend(w.iter().flat_map(|x| x.to_le_bytes()));
                    }
                    b
                }
                BINDING_VERTEX_INTS | BINDING_FRAGMENT_INTS => {
                    let (p, params) = if u.binding == BINDING_VERTEX_INTS {
                        (d.vp, d.vparams)
                    } else {
                        (lowered.as_ref(), d.fparams)
                    };
                    let Some(p) = p else { continue };
                    let ints = int_table(p, params);
                    let bools = bool_table(p, params);
                    let mut b: Vec<u8> = Vec::with_capacity(512);
                    for i in 0..16 {
                        let v = ints.get(i).copied().unwrap_or([0; 4]);
                        b.extend(v.iter().flat_map(|x| x.to_le_bytes()));
                    }
                    for i in 0..16 {
                        let v = u32::from(bools.get(i).copied().unwrap_or(false));
                        b.extend([v, 0, 0, 0].iter().flat_map(|x| x.to_le_bytes()));
                    }
                    b
                }
                _ => continue,
            };
            out.push(PlanUniform {
                binding: u.binding,
                data: b64(&bytes),
            });
        }
        out
    }
}

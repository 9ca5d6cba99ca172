//! naga's half: the emitted WGSL parsed into a `naga::Module` and validated (a translation
//! bug shows up here, natively, before any browser sees it), and the WebGL2 variant written
//! as GLSL ES 3.00 (`glsl-out`, WebGL flavour) for `vs` and `fs`, with the names naga gives
//! uniform blocks and combined samplers in that GLSL.

use crate::error::Error;
use crate::iface::Bindings;
use naga::back::glsl;
use naga::valid::{Capabilities, ValidationFlags, Validator};

/// A validated module and its analysis.
pub(crate) struct Checked {
    pub module: naga::Module,
    pub info: naga::valid::ModuleInfo,
}

/// Parses and validates WGSL text.
pub(crate) fn check(wgsl: &str) -> Result<Checked, Error> {
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| {
        Error::new(format!(
            "internal: the emitted WGSL does not parse: {}",
            e.emit_to_string(wgsl)
        ))
    })?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::empty())
        .validate(&module)
        .map_err(|e| {
            Error::new(format!(
                "internal: the emitted WGSL does not validate: {}",
                e.emit_to_string(wgsl)
            ))
        })?;
    Ok(Checked { module, info })
}

/// GLSL ES 3.00 of one entry point, with its reflection.
fn glsl_of(
    c: &Checked,
    stage: naga::ShaderStage,
    entry: &str,
) -> Result<(String, glsl::ReflectionInfo), Error> {
    let options = glsl::Options {
        version: glsl::Version::Embedded {
            version: 300,
            is_webgl: true,
        },
        writer_flags: glsl::WriterFlags::empty(),
        binding_map: Default::default(),
        zero_initialize_workgroup_memory: false,
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: stage,
        entry_point: entry.to_string(),
        multiview: None,
    };
    let mut out = String::new();
    let mut w = glsl::Writer::new(
        &mut out,
        &c.module,
        &c.info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| Error::new(format!("internal: naga's GLSL writer: {e}")))?;
    let r = w
        .write()
        .map_err(|e| Error::new(format!("internal: naga's GLSL writer: {e}")))?;
    Ok((out, r))
}

/// The binding (group, binding) of a global, if it has one.
fn binding_of(m: &naga::Module, h: naga::Handle<naga::GlobalVariable>) -> Option<(u32, u32)> {
    m.global_variables[h]
        .binding
        .as_ref()
        .map(|b| (b.group, b.binding))
}

/// Both GLSL ES shaders of the WebGL2 variant, recording naga's names in `bindings`.
pub(crate) fn glsl_pair(c: &Checked, bindings: &mut Bindings) -> Result<(String, String), Error> {
    let mut shaders = Vec::new();
    for (stage, entry) in [
        (naga::ShaderStage::Vertex, "vs"),
        (naga::ShaderStage::Fragment, "fs"),
    ] {
        let (text, refl) = glsl_of(c, stage, entry)?;
        for (h, name) in &refl.uniforms {
            if let Some((g, b)) = binding_of(&c.module, *h)
                && let Some(u) = bindings
                    .uniforms
                    .iter_mut()
                    .find(|u| u.group == g && u.binding == b)
                && !u.glsl.contains(name)
            {
                u.glsl.push(name.clone());
            }
        }
        let mut names: Vec<(&String, &glsl::TextureMapping)> =
            refl.texture_mapping.iter().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (name, tm) in names {
            if let Some((g, b)) = binding_of(&c.module, tm.texture)
                && let Some(t) = bindings
                    .textures
                    .iter_mut()
                    .find(|t| t.group == g && t.texture == b)
                && !t.glsl.contains(name)
            {
                t.glsl.push(name.clone());
            }
        }
        shaders.push(text);
    }
    let fs = shaders.pop().unwrap_or_default();
    let vs = shaders.pop().unwrap_or_default();
    Ok((vs, fs))
}

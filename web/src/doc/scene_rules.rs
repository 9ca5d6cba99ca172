//! What a document's scene may do in the playground and what its commands mean to the
//! document: the caps of playground renders, and the parameters and textures a scene sets
//! (the Inputs panel shows them; overrides go around them).

use crate::doc::model::ParamKey;
use hoist_asm::Stage;
use hoist_raster::Caps;
use hoist_raster::scene::{Command, ParamKind, Scene, TexSource};

/// Instructions one batch of 64 pixels may dispatch in the playground (loops are cut off
/// beyond it, and the page says so): keeps every render step short enough for the page to
/// stay responsive.
pub const MAX_BATCH_INSTRUCTIONS: u64 = 1 << 13;

/// The caps of playground renders: the scene defaults, with targets no larger than the
/// Inputs panel allows and a tighter instruction budget per batch.
pub fn caps() -> Caps {
    Caps {
        max_batch_instructions: MAX_BATCH_INSTRUCTIONS,
        max_target_size: crate::doc::model::MAX_SIZE,
        max_target_pixels: u64::from(crate::doc::model::MAX_SIZE)
            * u64::from(crate::doc::model::MAX_SIZE),
        max_texture_bytes: 64 << 20,
        max_total_bytes: 192 << 20,
        max_commands: 20_000,
        ..Caps::default()
    }
}

/// The parameter a scene's `parameter` command sets (env and local banks only).
pub fn param_key(c: &Command) -> Option<ParamKey> {
    match c {
        Command::Param {
            stage,
            kind: kind @ (ParamKind::Env | ParamKind::Local),
            index,
            ..
        } => Some(ParamKey {
            vertex: *stage == Stage::Vertex,
            local: *kind == ParamKind::Local,
            index: *index,
        }),
        _ => None,
    }
}

/// The value a scene gives a parameter first, if any (shown in the Inputs panel).
pub fn scene_param(scene: &Scene, key: ParamKey) -> Option<[f32; 4]> {
    scene.commands.iter().find_map(|(_, c)| match c {
        Command::Param { value, .. } if param_key(c) == Some(key) => Some(*value),
        _ => None,
    })
}

/// Whether a scene binds a texture (not a render target) to `unit`.
pub fn scene_binds(scene: &Scene, unit: u8) -> bool {
    scene.commands.iter().any(|(_, c)| {
        matches!(c, Command::Texture(u, src, _) if *u == unit && !matches!(src, TexSource::Target(_)))
    })
}

//! Running an optimized pair in its scene, and judging the result: the one implementation
//! the command line, the page and the tests share.
//!
//! [`with_optimized`] swaps the optimized programs into the scene's optimized pair and makes
//! every vertex parameter the optimizer mirrored follow its fragment source: a host
//! parameter is copied wherever the scene sets it (`program.local` only while the pair is
//! bound, since locals belong to a program), a literal is set at the start, and GL state is
//! read again before every draw (a scene can change it, `ortho` does). [`compare`] then
//! judges the two runs target by target with [`Equivalence::holds`]: bit-identical, or within
//! [`RELATIVE_TOLERANCE`] of the image's value range (moved values are interpolated, so
//! results agree up to rounding).

use hoist_asm::Stage;
use hoist_asm::ir::ConstBinding;
use hoist_opt::Outcome;
use hoist_raster::image::{Image, Verdict, compare as compare_images};
use hoist_raster::scene::{Command, ParamKind, Scene, SceneResult};
use std::collections::BTreeMap;

/// Largest difference, relative to the value range (at least 1), still called equivalent.
pub const RELATIVE_TOLERANCE: f32 = 1e-6;

/// The scene with the optimized pair and the mirrored parameters.
pub fn with_optimized(scene: &Scene, out: &Outcome) -> Scene {
    let mut s = scene.clone();
    let name = s.optimize_target().to_string();
    s.set_program(&name, out.vp.clone());
    s.set_program(&name, out.fp.clone());
    let vertex = |b: &ConstBinding| match b {
        ConstBinding::Env(n) => Some((ParamKind::Env, *n)),
        ConstBinding::Local(n) => Some((ParamKind::Local, *n)),
        _ => None,
    };
    let mut commands = Vec::with_capacity(s.commands.len() + 2 * out.mirrors.len());
    for m in out.mirrors.iter().filter(|m| !m.to_fragment) {
        if let (ConstBinding::Literal(l), Some((kind, index))) = (&m.fragment, vertex(&m.vertex)) {
            let c = Command::Param {
                stage: Stage::Vertex,
                kind,
                index,
                value: l.value,
            };
            commands.push((0, c));
        }
    }
    let mut current = String::new();
    for (line, c) in std::mem::take(&mut s.commands) {
        if let Command::Use(p) = &c {
            current = p.clone();
        }
        if matches!(c, Command::Draw(_)) && current == name {
            for m in &out.mirrors {
                let (from, to, stage) = if m.to_fragment {
                    (&m.vertex, &m.fragment, Stage::Fragment)
                } else {
                    (&m.fragment, &m.vertex, Stage::Vertex)
                };
                if let (ConstBinding::State(state), Some((kind, index))) = (from, vertex(to)) {
                    let c = Command::ParamState {
                        stage,
                        kind,
                        index,
                        state: *state,
                    };
                    commands.push((line, c));
                }
            }
        }
        let mut copies: Vec<Command> = to_fragment(out, &c, &current, &name);
        copies.extend(match &c {
            Command::Param {
                stage: Stage::Fragment,
                kind,
                index,
                value,
            } => out
                .mirrors
                .iter()
                .filter(|m| match (&m.fragment, kind) {
                    (ConstBinding::Env(n), ParamKind::Env) => n == index,
                    (ConstBinding::Local(n), ParamKind::Local) => n == index && current == name,
                    _ => false,
                })
                .filter_map(|m| vertex(&m.vertex))
                .map(|(kind, index)| Command::Param {
                    stage: Stage::Vertex,
                    kind,
                    index,
                    value: *value,
                })
                .collect::<Vec<_>>(),
            _ => Vec::new(),
        });
        commands.push((line, c));
        commands.extend(copies.into_iter().map(|c| (line, c)));
    }
    s.commands = commands;
    s
}

/// The fragment copies (`Mirror::to_fragment`) a command setting a vertex parameter makes:
/// the same value into each fragment parameter that copies it (locals only while the pair
/// is bound). A copy of GL state or a literal needs no command: the fragment program binds
/// state itself, and literals are literals.
fn to_fragment(out: &Outcome, c: &Command, current: &str, name: &str) -> Vec<Command> {
    let Command::Param {
        stage: Stage::Vertex,
        kind,
        index,
        value,
    } = c
    else {
        return Vec::new();
    };
    out.mirrors
        .iter()
        .filter(|m| m.to_fragment)
        .filter(|m| match (&m.vertex, kind) {
            (ConstBinding::Env(n), ParamKind::Env) => n == index,
            (ConstBinding::Local(n), ParamKind::Local) => n == index && current == name,
            _ => false,
        })
        .filter_map(|m| match m.fragment {
            ConstBinding::Env(n) => Some((ParamKind::Env, n)),
            ConstBinding::Local(n) => Some((ParamKind::Local, n)),
            _ => None,
        })
        .map(|(kind, index)| Command::Param {
            stage: Stage::Fragment,
            kind,
            index,
            value: *value,
        })
        .collect()
}

/// How one render target of the optimized run compares with the original.
#[derive(Clone, Debug, PartialEq)]
pub struct Equivalence {
    pub verdict: Verdict,
    /// Largest finite magnitude in the original image (at least 1).
    pub range: f32,
}

impl Equivalence {
    pub fn of(original: &Image, optimized: &Image) -> Equivalence {
        Equivalence {
            verdict: compare_images(original, optimized),
            range: original.magnitude().max(1.0),
        }
    }

    /// The largest difference still called equivalent.
    pub fn tolerance(&self) -> f32 {
        RELATIVE_TOLERANCE * self.range
    }

    /// The comparison in words ([`crate::verdict::Wording`]).
    pub fn wording(&self) -> crate::verdict::Wording<'_> {
        crate::verdict::Wording {
            verdict: &self.verdict,
            equivalent: self.holds(),
        }
    }

    pub fn holds(&self) -> bool {
        match &self.verdict {
            Verdict::Identical => true,
            Verdict::Differs { max_abs_diff, .. } => *max_abs_diff <= self.tolerance(),
            Verdict::SizeMismatch { .. } => false,
        }
    }
}

/// Every render target of the original run against the optimized run.
pub fn compare(original: &SceneResult, optimized: &SceneResult) -> BTreeMap<String, Equivalence> {
    original
        .targets
        .iter()
        .filter_map(|(name, a)| {
            let b = optimized.targets.get(name)?;
            Some((name.clone(), Equivalence::of(a, b)))
        })
        .collect()
}

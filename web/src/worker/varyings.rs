//! The Interpolators panel's model: per interpolator register and component (x, y, z, w),
//! what the original and the optimized fragment program receive there and under which
//! qualifier, and what each varying pass did, with its reasons (`Outcome::varyings`,
//! `hoist_opt::varying_map`). Computed in the worker with the summary; the page only draws.

use hoist_opt::Outcome;
use hoist_opt::analysis::varyings::{Change, Class};
use hoist_opt::annotate::SourceLines;
use hoist_opt::passes::fp_to_vp::Carried;
use hoist_opt::varying_map::SlotUse;
use serde::{Deserialize, Serialize};

/// The varying passes in the order the pipeline runs them, with what a change they made is
/// called in the panel's summary (every `varying_` pass of the registry, checked by a test).
pub const PASSES: [(&str, &str); 5] = [
    ("varying_dead", "removed"),
    ("varying_const", "propagated"),
    ("varying_dedup", "merged"),
    ("varying_uniform", "recomputed"),
    ("varying_pack", "relocated"),
];

/// What one interpolator component carries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    /// Short: the original input it carries (`fragment.texcoord[0].y`), or the moved
    /// fragment instruction (`line 14 .x`).
    pub value: String,
    /// How the vertex program fills it, in words.
    pub source: String,
    /// The result of a moved fragment instruction.
    pub moved: bool,
    /// An original interpolant now in another register or component.
    pub relocated: bool,
}

/// One interpolator register as the fragment program reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Interpolator {
    /// As the fragment program names it (`fragment.texcoord[2]`, `t2`, `v0`).
    pub name: String,
    /// Its qualifier or class: `perspective`, `centroid`, `colour (clamped, low
    /// precision)`, `fog`.
    pub qualifier: String,
    /// x, y, z, w (`None`: not read).
    pub comps: [Option<Cell>; 4],
}

/// One change a varying pass made or refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub done: bool,
    /// `input (line L): what`, as the CLI prints it.
    pub text: String,
}

/// What one varying pass did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PassEffect {
    pub pass: String,
    pub done: usize,
    pub refused: usize,
    /// `varying_dead: 2 removed, 1 refused` (or `nothing to do`).
    pub summary: String,
    pub steps: Vec<Step>,
}

/// Both maps and the passes' effects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VaryingView {
    pub before: Vec<Interpolator>,
    pub after: Vec<Interpolator>,
    pub passes: Vec<PassEffect>,
}

impl VaryingView {
    /// Interpolator registers and components read: before, after.
    pub fn counts(&self) -> [(usize, usize); 2] {
        let count = |m: &[Interpolator]| {
            let comps = m.iter().flat_map(|i| i.comps.iter().flatten()).count();
            (m.len(), comps)
        };
        [count(&self.before), count(&self.after)]
    }
}

/// The view of an outcome, with the original fragment program's source and the lines of
/// its instructions (moved instructions are named by line).
pub fn view(o: &Outcome, fp_source: &str, lines: &SourceLines) -> VaryingView {
    let r = &o.varyings;
    let text_of = |line: u32| {
        fp_source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .map_or(String::new(), |l| l.trim().to_string())
    };
    let before = registers(&r.before, |s| Cell {
        value: s.name.clone(),
        source: s.source.clone(),
        moved: false,
        relocated: false,
    });
    let after = registers(&r.after, |s| match s.carries {
        Carried::Moved { inst, comp } => {
            let line = lines.line(inst);
            Cell {
                value: format!("line {line} .{}", hoist_asm::ir::COMP_NAMES[comp as usize]),
                source: format!("computed per vertex: {}", text_of(line)),
                moved: true,
                relocated: false,
            }
        }
        Carried::Input { semantic, comp } => {
            let was = r
                .before
                .iter()
                .find(|b| b.semantic == semantic && b.comp == comp);
            Cell {
                value: was.map_or_else(|| s.name.clone(), |b| b.name.clone()),
                source: was.map_or_else(|| s.source.clone(), |b| b.source.clone()),
                moved: false,
                relocated: (semantic, comp) != (s.semantic, s.comp),
            }
        }
    });
    VaryingView {
        before,
        after,
        passes: effects(&r.changes, lines),
    }
}

/// Slot uses grouped by register, in the maps' order.
fn registers(slots: &[SlotUse], cell: impl Fn(&SlotUse) -> Cell) -> Vec<Interpolator> {
    let mut out: Vec<Interpolator> = Vec::new();
    for s in slots {
        let c = hoist_asm::ir::COMP_NAMES[s.comp as usize];
        let name = s
            .name
            .strip_suffix(&format!(".{c}"))
            .unwrap_or(&s.name)
            .to_string();
        let at = match out.iter().position(|i| i.name == name) {
            Some(k) => k,
            None => {
                out.push(Interpolator {
                    name,
                    qualifier: qualifier(s.class),
                    comps: Default::default(),
                });
                out.len() - 1
            }
        };
        out[at].comps[s.comp as usize] = Some(cell(s));
    }
    out
}

fn qualifier(c: Class) -> String {
    match c {
        Class::Interpolated { qualifier } => qualifier.describe(),
        Class::Colour => "colour (clamped, low precision)".into(),
        Class::Fog => "fog".into(),
        Class::Fixed => "fixed".into(),
    }
}

/// Each varying pass's changes, in pipeline order.
fn effects(changes: &[Change], lines: &SourceLines) -> Vec<PassEffect> {
    PASSES
        .iter()
        .map(|&(pass, verb)| {
            let steps: Vec<Step> = changes
                .iter()
                .filter(|c| c.pass == pass)
                .map(|c| Step {
                    done: c.done,
                    text: step_text(c, lines),
                })
                .collect();
            let done = steps.iter().filter(|s| s.done).count();
            let refused = steps.len() - done;
            let summary = match (done, refused) {
                (0, 0) => format!("{pass}: nothing to do"),
                (d, 0) => format!("{pass}: {d} {verb}"),
                (0, r) => format!("{pass}: {r} refused"),
                (d, r) => format!("{pass}: {d} {verb}, {r} refused"),
            };
            PassEffect {
                pass: pass.to_string(),
                done,
                refused,
                summary,
                steps,
            }
        })
        .collect()
}

fn step_text(c: &Change, lines: &SourceLines) -> String {
    let at = c
        .inst
        .map_or(String::new(), |i| format!(" (line {})", lines.line(i)));
    let mark = if c.done { "" } else { "not done: " };
    if c.input.is_empty() {
        format!("{}: {mark}{}", c.pass, c.what)
    } else {
        format!("{}: {}{at}: {mark}{}", c.pass, c.input, c.what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::analysis;

    #[test]
    fn the_panel_lists_every_registered_varying_pass() {
        let mut registered: Vec<&str> = hoist_opt::passes::PASSES
            .iter()
            .map(|p| p.name)
            .filter(|n| n.starts_with("varying_"))
            .collect();
        let mut ours: Vec<&str> = PASSES.iter().map(|(p, _)| *p).collect();
        hoist_asm::sort::ord(&mut registered);
        hoist_asm::sort::ord(&mut ours);
        assert_eq!(ours, registered);
    }

    /// The packed Gaussian with mirrored parameters: the 13 tap addresses (moved MADs) travel
    /// in 5 interpolators, each register's y the moved `MOV tc`'s y, shared.
    #[test]
    fn gauss13_packed_maps() {
        let mut doc =
            crate::doc::examples::load_id("paper/gauss13-packed").expect("the example exists");
        doc.opts.mirror_params = true;
        let a = analysis::analyze(&doc);
        let o = a.optimized.as_ref().expect("optimized");
        let v = &o.varyings;
        assert_eq!(v.counts(), [(1, 2), (5, 18)], "{v:#?}");
        let cells: Vec<&Cell> = v
            .after
            .iter()
            .flat_map(|i| i.comps.iter().flatten())
            .collect();
        assert!(cells.iter().all(|c| c.moved), "{:#?}", v.after);
        let mads: std::collections::BTreeSet<&str> = cells
            .iter()
            .filter(|c| c.source.contains("MAD tc.x"))
            .map(|c| c.value.as_str())
            .collect();
        assert_eq!(mads.len(), 13, "{mads:?}");
        for i in &v.after {
            assert_eq!(i.qualifier, "perspective");
            let y = i.comps[1].as_ref().expect("y read");
            assert!(y.source.contains("MOV tc, fragment.texcoord[0]"), "{i:#?}");
            assert_eq!(Some(y), v.after[0].comps[1].as_ref(), "one y, shared");
        }
        let pack = v.passes.iter().find(|p| p.pass == "varying_pack").unwrap();
        assert!(
            pack.steps
                .iter()
                .all(|s| s.text.starts_with("varying_pack")),
            "{pack:?}"
        );
        assert_eq!(v.passes.len(), 5);
    }
}

//! What the draw supplies besides the programs: the vertex attributes the vertex programs
//! read (per vertex from the quad's geometry, or the current value: colour white, normal
//! +z, other texture coordinates (0, 0, 0, 1)), the GL matrices they read (identity unless
//! set) and the host parameters (0 unless set); the Inputs panel's overrides of them as
//! scene commands; "randomise inputs" (seeded parameters, attributes and noise textures)
//! and the way back; and whether a document leaves every parameter it reads unset.

use crate::doc::{AttribValue, Doc, Inputs, MatrixValue, Pattern, TexSpec};
use crate::worker::analysis::Analysis;
use hoist_asm::ir::{ConstBinding, RegFile};
use hoist_asm::state::{MatrixName, StateRef};
use hoist_asm::{Program, Stage};
use hoist_raster::glstate::{GlState, IDENTITY, Mat4};
use hoist_raster::scene::{Command, Scene};
use hoist_raster::{ATTRIBS, DrawState};

/// One attribute slot a vertex program reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub slot: u8,
    pub name: String,
    /// The quad gives every vertex its own value here (position, texcoord[0]): what it is.
    pub per_vertex: Option<&'static str>,
    /// The value the draw supplies (the override, else GL's default current value).
    pub value: [f32; 4],
    pub overridden: bool,
}

/// A matrix the programs read through `state.matrix.*`.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixUse {
    pub name: &'static str,
    /// Modelview (false) or projection (true) when the matrix can be edited itself.
    pub editable: Option<bool>,
    pub rows: Mat4,
    pub overridden: bool,
}

/// The name of an attribute slot (as `hoist_raster::raster::attrib_slot` numbers them).
pub fn slot_name(slot: u8) -> String {
    match slot {
        0 => "position".into(),
        1 => "blend weight".into(),
        2 => "normal".into(),
        3 => "colour".into(),
        4 => "secondary colour".into(),
        5 => "fog coordinate".into(),
        6 => "point size".into(),
        7 => "blend indices".into(),
        8..=13 => format!("texcoord[{}]", slot - 8),
        14 => "tangent / texcoord[6]".into(),
        _ => "binormal / texcoord[7]".into(),
    }
}

/// Attribute slots a vertex program reads.
pub fn read_slots(p: &Program) -> Vec<u8> {
    if p.stage() != Stage::Vertex {
        return Vec::new();
    }
    let mut out: Vec<u8> = p
        .insts
        .iter()
        .flat_map(|i| i.src.iter())
        .filter(|s| s.reg.file == RegFile::Input)
        .map(|s| hoist_raster::raster::attrib_slot(p, s.reg) as u8)
        .collect();
    hoist_asm::sort::ord(&mut out);
    out.dedup();
    out
}

/// The current value of a slot: the override, else GL's default.
pub fn current(inputs: &Inputs, slot: u8) -> ([f32; 4], bool) {
    match inputs.attribs.iter().find(|a| a.slot == slot) {
        Some(a) => (a.value, true),
        None => (DrawState::default().current[usize::from(slot)], false),
    }
}

fn programs(a: &Analysis) -> impl Iterator<Item = &Program> {
    [
        a.vp.program.as_ref(),
        a.fp.program.as_ref(),
        a.hand.as_ref().and_then(|h| h.0.program.as_ref()),
        a.hand.as_ref().and_then(|h| h.1.program.as_ref()),
    ]
    .into_iter()
    .flatten()
}

/// The attributes the vertex programs read, with what the draw supplies. `quad`: the
/// document draws the bare quad (a scene's own geometry may supply more per vertex).
pub fn attributes(a: &Analysis, inputs: &Inputs, quad: bool) -> Vec<Attribute> {
    let mut slots: Vec<u8> = programs(a).flat_map(read_slots).collect();
    hoist_asm::sort::ord(&mut slots);
    slots.dedup();
    slots
        .into_iter()
        .map(|slot| {
            let (value, overridden) = current(inputs, slot);
            let per_vertex = match slot {
                0 if quad => Some("per vertex: the quad's corners (±1, ±1, 0, 1)"),
                8 if quad => Some("per vertex: (s, t, 0, 1) over [0, 1]²"),
                0 => Some("per vertex: the scene's geometry"),
                _ => None,
            };
            Attribute {
                slot,
                name: slot_name(slot),
                per_vertex,
                value,
                overridden,
            }
        })
        .collect()
}

/// The GL state the overrides make (what `state.*` bindings read).
pub fn gl_state(inputs: &Inputs) -> GlState {
    let mut gl = GlState::default();
    for m in &inputs.matrices {
        if m.projection {
            gl.projection = m.rows;
        } else {
            gl.modelview = m.rows;
        }
    }
    gl
}

/// The matrices the programs read, each once, with their values.
pub fn matrices(a: &Analysis, inputs: &Inputs) -> Vec<MatrixUse> {
    let mut names: Vec<MatrixName> = Vec::new();
    for p in programs(a) {
        for c in &p.consts {
            if let ConstBinding::State(StateRef::Matrix(n, _, _)) = c.binding
                && !names.contains(&n)
            {
                names.push(n);
            }
        }
    }
    let gl = gl_state(inputs);
    let set = |proj: bool| inputs.matrices.iter().any(|m| m.projection == proj);
    names
        .into_iter()
        .map(|n| {
            let (name, editable, rows) = match n {
                MatrixName::Modelview(0) => ("modelview", Some(false), gl.modelview),
                MatrixName::Projection => ("projection", Some(true), gl.projection),
                MatrixName::Mvp => ("mvp (projection × modelview)", None, gl.mvp()),
                MatrixName::Texture(_) => ("texture", None, IDENTITY),
                MatrixName::Program(_) => ("program", None, IDENTITY),
                _ => ("other (identity)", None, IDENTITY),
            };
            let overridden = match (n, editable) {
                (_, Some(p)) => set(p),
                (MatrixName::Mvp, None) => set(true) || set(false),
                _ => false,
            };
            MatrixUse {
                name,
                editable,
                rows,
                overridden,
            }
        })
        .collect()
}

/// Puts the overrides into a scene: attribute values replace the scene's `color` and
/// `texcoord` commands of their slot (or come first), matrices come first and again after
/// every `ortho` (which would reset them).
pub fn apply(inputs: &Inputs, sc: &mut Scene, front: &mut Vec<(u32, Command)>) {
    for a in &inputs.attribs {
        let mut replaced = false;
        for (_, c) in &mut sc.commands {
            let hit = match c {
                Command::Color(_) => a.slot == 3,
                Command::TexCoord(u, _) => usize::from(*u) + 8 == usize::from(a.slot),
                Command::Attrib(s, _) => *s == a.slot,
                _ => false,
            };
            if hit {
                *c = Command::Attrib(a.slot, a.value);
                replaced = true;
            }
        }
        if !replaced {
            front.push((0, Command::Attrib(a.slot, a.value)));
        }
    }
    let cmds: Vec<Command> = inputs
        .matrices
        .iter()
        .map(|m| Command::Matrix {
            projection: m.projection,
            m: m.rows,
        })
        .collect();
    if cmds.is_empty() {
        return;
    }
    front.extend(cmds.iter().map(|c| (0, c.clone())));
    let mut out = Vec::with_capacity(sc.commands.len());
    for (line, c) in std::mem::take(&mut sc.commands) {
        let ortho = matches!(c, Command::Ortho(_));
        out.push((line, c));
        if ortho {
            out.extend(cmds.iter().map(|c| (line, c.clone())));
        }
    }
    sc.commands = out;
}

/// True when the programs read host parameters and the document (panel or scene) sets
/// none of them: every one reads 0.
pub fn all_params_unset(a: &Analysis, inputs: &Inputs, scene: Option<&Scene>) -> bool {
    !a.params.is_empty()
        && a.params.iter().all(|&k| {
            inputs.param(k).is_none()
                && scene.is_none_or(|s| crate::doc::scene_rules::scene_param(s, k).is_none())
        })
}

/// An edit of what the draw supplies.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    Attrib(u8, [f32; 4]),
    ResetAttrib(u8),
    Matrix(bool, Mat4),
    ResetMatrix(bool),
    /// Random values (the next seed) for every parameter and current attribute read, and
    /// noise textures on every unit sampled.
    Randomize,
    /// Back to what the draw supplies by default: no parameter, attribute, matrix or
    /// texture settings.
    Defaults,
}

/// splitmix64: a small, well-mixed sequence from a seed (reproducible on every platform).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in [-1, 1] with three decimals (short to show, exact to type back).
    fn unit(&mut self) -> f32 {
        ((self.next() % 2001) as f32 - 1000.0) / 1000.0
    }

    fn vec4(&mut self) -> [f32; 4] {
        [self.unit(), self.unit(), self.unit(), self.unit()]
    }
}

/// The random inputs of `seed` for the parameters, attributes and units an analysis uses.
pub fn randomize(inputs: &mut Inputs, a: &Analysis, seed: u32) {
    let mut r = Mix(u64::from(seed));
    for &k in &a.params {
        inputs.set_param(k, r.vec4());
    }
    for slot in programs(a)
        .flat_map(read_slots)
        .filter(|s| *s != 0 && *s != 8)
    {
        let v = r.vec4();
        inputs.attribs.retain(|x| x.slot != slot);
        inputs.attribs.push(AttribValue { slot, value: v });
    }
    hoist_asm::sort::by_key(&mut inputs.attribs, |x| x.slot);
    for &u in &a.units {
        let keep = inputs.texture(u);
        inputs.set_texture(TexSpec {
            pattern: Pattern::Noise,
            seed: (r.next() % 1_000_000) as u32,
            ..keep
        });
    }
    inputs.seed = Some(seed);
}

impl Edit {
    /// Applies the edit; whether the document changed.
    pub fn apply(self, doc: &mut Doc, a: Option<&Analysis>) -> bool {
        let before = doc.inputs.clone();
        let i = &mut doc.inputs;
        match self {
            Edit::Attrib(slot, v)
                if usize::from(slot) < ATTRIBS && v.iter().all(|x| x.is_finite()) =>
            {
                i.attribs.retain(|x| x.slot != slot);
                i.attribs.push(AttribValue { slot, value: v });
                hoist_asm::sort::by_key(&mut i.attribs, |x| x.slot);
            }
            Edit::ResetAttrib(slot) => i.attribs.retain(|x| x.slot != slot),
            Edit::Matrix(projection, rows) if rows.iter().flatten().all(|x| x.is_finite()) => {
                i.matrices.retain(|m| m.projection != projection);
                i.matrices.push(MatrixValue { projection, rows });
                hoist_asm::sort::by_key(&mut i.matrices, |m| m.projection);
            }
            Edit::ResetMatrix(p) => i.matrices.retain(|m| m.projection != p),
            Edit::Randomize => {
                if let Some(a) = a {
                    let seed = i.seed.map_or(1, |s| s.wrapping_add(1));
                    randomize(i, a, seed);
                }
            }
            Edit::Defaults => {
                i.params.clear();
                i.attribs.clear();
                i.matrices.clear();
                i.textures.retain(|t| t.pattern == Pattern::Image);
                i.seed = None;
            }
            _ => {}
        }
        doc.inputs != before
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::analysis::parse;

    fn doc(vp: &str, fp: &str) -> Doc {
        Doc {
            vp: vp.into(),
            fp: fp.into(),
            ..Doc::default()
        }
    }

    const ARB_VP: &str = "!!ARBvp1.0\nDP4 result.position.x, state.matrix.mvp.row[0], vertex.position;\n\
        DP4 result.position.y, state.matrix.mvp.row[1], vertex.position;\n\
        DP4 result.position.z, state.matrix.mvp.row[2], vertex.position;\n\
        DP4 result.position.w, state.matrix.mvp.row[3], vertex.position;\n\
        MOV result.color, vertex.color;\nMOV result.texcoord[1], vertex.texcoord[1];\n\
        MOV result.texcoord[0], vertex.normal;\nEND\n";
    const ARB_FP: &str = "!!ARBfp1.0\nPARAM k = program.env[3];\nTEMP t;\n\
        ADD t, fragment.color, fragment.texcoord[1];\nMAD result.color, t, k, fragment.texcoord[0];\nEND\n";

    #[test]
    fn the_quads_inputs_are_listed_with_their_values() {
        let d = doc(ARB_VP, ARB_FP);
        let a = parse(&d);
        assert!(a.original_pair().is_some(), "{:?}", a.vp.diagnostics);
        let attrs = attributes(&a, &d.inputs, true);
        let by: Vec<(String, [f32; 4], bool)> = attrs
            .iter()
            .map(|x| (x.name.clone(), x.value, x.per_vertex.is_some()))
            .collect();
        assert_eq!(
            by,
            [
                ("position".to_string(), [0.0, 0.0, 0.0, 1.0], true),
                ("normal".to_string(), [0.0, 0.0, 1.0, 1.0], false),
                ("colour".to_string(), [1.0; 4], false),
                ("texcoord[1]".to_string(), [0.0, 0.0, 0.0, 1.0], false),
            ]
        );
        let m = matrices(&a, &d.inputs);
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].name, m[0].rows),
            ("mvp (projection × modelview)", IDENTITY)
        );
        assert!(all_params_unset(&a, &d.inputs, None));
    }

    #[test]
    fn overrides_reach_the_render() {
        let mut d = doc(ARB_VP, ARB_FP);
        d.inputs.width = 8;
        d.inputs.height = 8;
        let a = crate::worker::analysis::analyze(&d);
        let k = a.params[0];
        d.inputs.set_param(k, [1.0; 4]);
        assert!(Edit::Attrib(3, [0.25, 0.5, 0.0, 1.0]).apply(&mut d, Some(&a)));
        assert!(Edit::Attrib(2, [0.0, 0.0, 0.5, 0.0]).apply(&mut d, Some(&a)));
        let mut half = IDENTITY;
        half[1][1] = 0.5;
        assert!(Edit::Matrix(false, half).apply(&mut d, Some(&a)));
        assert!(!Edit::Attrib(4, [f32::NAN; 4]).apply(&mut d, Some(&a)));
        assert!(!all_params_unset(&a, &d.inputs, None));
        let d = d.sanitize().unwrap();
        let plan = crate::worker::render::plan(&d, &a, &Default::default())
            .unwrap()
            .unwrap();
        let mut t = crate::worker::render::Task::new(plan);
        t.run_to_end();
        let img = t.original.unwrap().unwrap().image;
        // colour + texcoord[1] (0, 0, 0, 1) times 1, plus the normal; rows 2..6 only.
        assert_eq!(img.get(4, 4), Some([0.25, 0.5, 0.5, 2.0]));
        assert_eq!(img.get(4, 0), Some([0.0; 4]));
        // Non-finite values in a link are refused with a message.
        let mut bad = Doc::default();
        bad.inputs.attribs.push(AttribValue {
            slot: 2,
            value: [f32::INFINITY; 4],
        });
        assert!(bad.sanitize().unwrap_err().0.contains("attribute"));
    }

    #[test]
    fn randomise_is_seeded_and_reversible() {
        let mut d = doc(ARB_VP, ARB_FP);
        d.fp = d.fp.replace(
            "MAD result.color, t, k, fragment.texcoord[0];",
            "TEX t, t, texture[2], 2D;\nMAD result.color, t, k, fragment.texcoord[0];",
        );
        let a = parse(&d);
        assert_eq!(a.units, vec![2]);
        let mut e = d.clone();
        assert!(Edit::Randomize.apply(&mut e, Some(&a)));
        assert_eq!(e.inputs.seed, Some(1));
        assert_eq!(e.inputs.params.len(), 1);
        assert_eq!(
            e.inputs.attribs.iter().map(|x| x.slot).collect::<Vec<_>>(),
            [2, 3, 9]
        );
        assert_eq!(e.inputs.texture(2).pattern, Pattern::Noise);
        assert!(
            e.inputs.params[0]
                .value
                .iter()
                .all(|v| (-1.0..=1.0).contains(v))
        );
        // Reproducible: the same seed gives the same values; the next click another.
        let mut again = d.clone();
        randomize(&mut again.inputs, &a, 1);
        assert_eq!(again.inputs, e.inputs);
        let first = e.inputs.clone();
        assert!(Edit::Randomize.apply(&mut e, Some(&a)));
        assert_eq!(e.inputs.seed, Some(2));
        assert_ne!(e.inputs.params, first.params);
        // Permalinked.
        let Ok(crate::doc::codec::Link::State(back)) =
            crate::doc::codec::decode(&crate::doc::codec::encode(&e))
        else {
            panic!()
        };
        assert_eq!(back.inputs, e.inputs);
        assert!(Edit::Defaults.apply(&mut e, Some(&a)));
        assert_eq!(e.inputs, d.inputs);
    }

    /// Issue 27 item 12: every texture unit gets its own noise seed (not one for all).
    #[test]
    fn randomise_seeds_each_texture_unit_apart() {
        let mut d = doc(ARB_VP, ARB_FP);
        d.fp = d.fp.replace(
            "MAD result.color, t, k, fragment.texcoord[0];",
            "TEX t, t, texture[0], 2D;\nTEX t, t, texture[1], 2D;\nTEX t, t, texture[3], 2D;\n\
             MAD result.color, t, k, fragment.texcoord[0];",
        );
        let a = parse(&d);
        assert_eq!(a.units, vec![0, 1, 3]);
        for seed in 1..=20 {
            let mut i = d.inputs.clone();
            randomize(&mut i, &a, seed);
            let seeds: Vec<u32> = a.units.iter().map(|&u| i.texture(u).seed).collect();
            assert!(
                a.units
                    .iter()
                    .all(|&u| i.texture(u).pattern == Pattern::Noise),
                "seed {seed}"
            );
            let mut distinct = seeds.clone();
            hoist_asm::sort::ord(&mut distinct);
            distinct.dedup();
            assert_eq!(
                distinct.len(),
                seeds.len(),
                "seed {seed}: units share {seeds:?}"
            );
        }
    }
}

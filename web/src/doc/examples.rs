//! The examples gallery, embedded at build time.
//!
//! Each entry is one line of [`EXAMPLES`]: the scene file `examples/<id>.shader_test` (piglit
//! shader_runner format plus Hoist's `[hoist]` section: title, description, the paper's
//! figures, a note) and its gallery category; the id is also its permalink, `#ex=<id>`.
//! Loading a scene puts the programs of its `[hoist] optimize` pair in the editors and keeps
//! the rest of the scene (textures, parameters, passes) in [`Doc::scene`] with those program
//! bodies left empty.

use crate::doc::model::Doc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Paper,
    Fluid,
    NoGain,
    Graphics,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::Paper,
        Category::Fluid,
        Category::NoGain,
        Category::Graphics,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Category::Paper => "Paper kernels",
            Category::Fluid => "Fluid simulation",
            Category::NoGain => "Cases that do not improve",
            Category::Graphics => "Graphics shaders",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub id: &'static str,
    pub category: Category,
    /// The scene file's text.
    pub scene: &'static str,
}

/// What a scene's `[hoist]` section says about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    pub title: String,
    pub description: String,
    /// The paper's figures, `V F -> V F`.
    pub paper: String,
    pub note: String,
}

impl Meta {
    /// The paper's figures in words: `2 16 -> 14 7` → `V 2 → 14, F 16 → 7` (`-` = not
    /// reported).
    pub fn paper_text(&self) -> Option<String> {
        let (b, a) = self.paper.split_once("->")?;
        let b: Vec<&str> = b.split_whitespace().collect();
        let a: Vec<&str> = a.split_whitespace().collect();
        if b.len() != 2 || a.len() != 2 {
            return None;
        }
        let parts: Vec<String> = ["V", "F"]
            .iter()
            .enumerate()
            .filter(|(i, _)| b[*i] != "-" || a[*i] != "-")
            .map(|(i, n)| format!("{n} {} → {}", b[i], a[i]))
            .collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

impl Example {
    pub fn meta(&self) -> Meta {
        let get = |k: &str| hoist_key(self.scene, k).unwrap_or_default();
        let mut m = Meta {
            title: get("title"),
            description: get("description"),
            paper: get("paper"),
            note: get("note"),
        };
        if m.title.is_empty() {
            m.title = self.id.to_string();
        }
        if m.note == "NOTE" {
            m.note.clear();
        }
        m
    }
}

macro_rules! scene {
    ($id:literal, $cat:ident) => {
        Example {
            id: $id,
            category: Category::$cat,
            scene: include_str!(concat!("../../../examples/", $id, ".shader_test")),
        }
    };
}

/// Every example, one line each (rustfmt leaves this list alone).
#[rustfmt::skip]
pub const EXAMPLES: &[Example] = &[
    scene!("paper/fig3", Paper),
    scene!("paper/gauss13", Paper),
    scene!("paper/gauss13-arb", Paper),
    scene!("paper/gauss13-packed", Paper),
    scene!("paper/conv2d", Paper),
    scene!("paper/conv2d-arb", Paper),
    scene!("paper/sum", Paper),
    scene!("paper/sum-arb", Paper),
    scene!("paper/sort", Paper),
    scene!("paper/sort-arb", Paper),
    scene!("fluid/advect", Fluid),
    scene!("fluid/divergence", Fluid),
    scene!("fluid/divergence-arb", Fluid),
    scene!("fluid/jacobi", Fluid),
    scene!("fluid/jacobi-arb", Fluid),
    scene!("fluid/subgradient", Fluid),
    scene!("fluid/scroll", Fluid),
    scene!("fluid/scroll-arb", Fluid),
    scene!("fluid/scroll2", Fluid),
    scene!("fluid/display", Fluid),
    scene!("fluid/vortex", Fluid),
    scene!("fluid/splat", Fluid),
    scene!("fluid/add", Fluid),
    scene!("fluid/copy", Fluid),
    scene!("fluid/clear", Fluid),
    scene!("fluid/actuallyrender", Fluid),
    scene!("graphics/ambient", NoGain),
    scene!("graphics/diffuse", NoGain),
    scene!("graphics/multitexture", Graphics),
    scene!("graphics/dot3", Graphics),
    scene!("graphics/toon", Graphics),
];

/// The example shown on a first visit.
pub const DEFAULT: &str = "paper/fig3";

pub fn find(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

/// The document of gallery id `id`: a scene example, or a linear expression
/// (`linear/<name>`, [`crate::worker::linear::example_doc`]).
pub fn load_id(id: &str) -> Option<Doc> {
    find(id).map(load).or_else(|| linear_example_doc(id))
}

/// The pass-through pair "New" starts with, per dialect: the quad's position and its
/// texture coordinate out as the colour (a gradient), to be replaced by the user's programs.
const BLANK_ARB: (&str, &str) = (
    "!!ARBvp1.0\n# A new pair: type or paste your vertex program here (or import a .shader_test).\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
    "!!ARBfp1.0\n# Your fragment program; what it computes moves to the vertex program where it can.\nMOV result.color, fragment.texcoord[0];\nEND\n",
);
const BLANK_D3D9: (&str, &str) = (
    "vs_2_0\n// A new pair: type or paste your vertex shader here (or import a .shader_test).\ndcl_position v0\ndcl_texcoord0 v1\nmov oPos, v0\nmov oT0, v1\n",
    "ps_2_0\n// Your pixel shader; what it computes moves to the vertex shader where it can.\ndcl t0\nmov oC0, t0\n",
);

/// A new, untitled document: a pass-through pair in `dialect`, the GPGPU quad, no example,
/// the optimizer options of `opts` kept.
pub fn blank(dialect: hoist_asm::Dialect, opts: &crate::doc::model::OptState) -> Doc {
    let (vp, fp) = match dialect {
        hoist_asm::Dialect::Arb => BLANK_ARB,
        hoist_asm::Dialect::D3d9 => BLANK_D3D9,
    };
    Doc {
        vp: vp.into(),
        fp: fp.into(),
        opts: opts.clone(),
        title: Some("Untitled".into()),
        ..Doc::default()
    }
}

/// A scene split for the playground: the optimized pair's programs, and the rest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitScene {
    pub vp: String,
    pub fp: String,
    /// The scene with the bodies of the pair's program sections emptied.
    pub rest: String,
    /// The pair's name (`""` for the unnamed pair).
    pub pair: String,
}

/// The value of `key` in a scene's `[hoist]` section.
pub fn hoist_key(text: &str, key: &str) -> Option<String> {
    let mut in_hoist = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('[') {
            in_hoist = h.trim_end_matches(']').trim().eq_ignore_ascii_case("hoist");
            continue;
        }
        if in_hoist
            && let Some((k, v)) = t.split_once('=')
            && k.trim() == key
        {
            return Some(v.trim().to_string());
        }
    }
    None
}

/// Splits a scene: takes the bodies of `[vertex program P]` and `[fragment program P]` for
/// the pair P that `[hoist] optimize` names. `None` when the scene has no such sections.
pub fn split_scene(text: &str) -> Option<SplitScene> {
    let pair = hoist_key(text, "optimize").unwrap_or_default();
    let mut vp = None::<String>;
    let mut fp = None::<String>;
    let mut rest = String::with_capacity(text.len());
    // Which of ours the current section is (0 none, 1 vertex, 2 fragment).
    let mut cur = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('[') {
            let name = line.trim().trim_start_matches('[');
            let name = name.split(']').next().unwrap_or("").trim();
            let lower = name.to_ascii_lowercase();
            cur = 0;
            for (prefix, which) in [("vertex program", 1), ("fragment program", 2)] {
                if let Some(r) = lower.strip_prefix(prefix)
                    && name[name.len() - r.len()..].trim() == pair
                {
                    cur = which;
                }
            }
            match cur {
                1 => vp = Some(String::new()),
                2 => fp = Some(String::new()),
                _ => {}
            }
            rest.push_str(line);
            continue;
        }
        match cur {
            1 => vp.get_or_insert_with(String::new).push_str(line),
            2 => fp.get_or_insert_with(String::new).push_str(line),
            _ => rest.push_str(line),
        }
    }
    let tidy = |s: String| s.trim_end().to_string() + "\n";
    Some(SplitScene {
        vp: tidy(vp?),
        fp: tidy(fp?),
        rest,
        pair,
    })
}

/// The document an example starts.
pub fn load(e: &Example) -> Doc {
    let mut d = Doc {
        example: Some(e.id.to_string()),
        ..Doc::default()
    };
    if let Some(s) = split_scene(e.scene) {
        d.vp = s.vp;
        d.fp = s.fp;
        d.scene = Some(s.rest);
    }
    if let Ok(sc) = hoist_raster::scene::parse(e.scene, &hoist_raster::Caps::default()) {
        (d.inputs.width, d.inputs.height) = window_size(&sc);
    }
    d
}

/// A scene's window size as the Inputs panel shows it: its first `window` command, else
/// `SIZE` (or piglit's default), within the playground's limit.
pub fn window_size(sc: &hoist_raster::scene::Scene) -> (u32, u32) {
    let (w, h) = sc
        .commands
        .iter()
        .find_map(|(_, c)| match c {
            hoist_raster::scene::Command::Window(_, w, h) => Some((*w, *h)),
            _ => None,
        })
        .unwrap_or(sc.window);
    (
        w.clamp(1, crate::doc::model::MAX_SIZE),
        h.clamp(1, crate::doc::model::MAX_SIZE),
    )
}

/// The document a gallery link `#ex=linear/<name>` opens: the default code example with the
/// linear mode on.
pub fn linear_example_doc(id: &str) -> Option<Doc> {
    let name = id.strip_prefix("linear/")?;
    let linear = crate::doc::linear_doc::LinearDoc::example(name, false)?;
    let mut d = find(DEFAULT).map(load).unwrap_or_default();
    d.example = Some(id.to_string());
    d.mode = crate::doc::model::Mode::Linear;
    d.linear = Some(linear);
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_loads_and_parses() {
        assert!(find(DEFAULT).is_some());
        let mut ids = std::collections::HashSet::new();
        for e in EXAMPLES {
            assert!(ids.insert(e.id), "duplicate id {}", e.id);
            assert!(crate::doc::codec::decode(&crate::doc::codec::encode_example(e.id)).is_ok());
            let d = load(e);
            assert!(
                d.scene.is_some(),
                "{}: no optimized pair in the scene",
                e.id
            );
            assert!(!e.meta().title.is_empty());
            let a = crate::worker::analysis::analyze(&d);
            assert_eq!(a.vp.errors(), 0, "{}: {:?}", e.id, a.vp.diagnostics);
            assert_eq!(a.fp.errors(), 0, "{}: {:?}", e.id, a.fp.diagnostics);
            assert!(a.optimized.is_some(), "{}: {:?}", e.id, a.problem);
        }
    }

    #[test]
    fn every_example_renders_and_the_pairs_agree() {
        use crate::worker::render::{self, Task, VerdictKind};
        let mut report = Vec::new();
        for e in EXAMPLES {
            let d = load(e);
            let a = crate::worker::analysis::analyze(&d);
            let plan = render::plan(&d, &a, &render::Images::new())
                .unwrap_or_else(|m| panic!("{}: {m}", e.id))
                .expect("a plan");
            let mut t = Task::new(plan);
            t.run_to_end();
            let o = t
                .original
                .unwrap()
                .unwrap_or_else(|m| panic!("{}: {m}", e.id));
            let p = t
                .optimized
                .expect("optimized run")
                .unwrap_or_else(|m| panic!("{}: {m}", e.id));
            let v = render::verdict_view(
                &hoist_raster::compare(&o.image, &p.image),
                d.inputs.tolerance,
            );
            if v.kind == VerdictKind::Different {
                report.push(format!("{}: {} ({})", e.id, v.headline, v.detail));
            }
        }
        assert!(report.is_empty(), "{report:#?}");
    }

    #[test]
    fn paper_figures_in_words() {
        let m = |p: &str| Meta {
            paper: p.into(),
            ..Meta::default()
        };
        assert_eq!(
            m("2 16 -> 14 7").paper_text().as_deref(),
            Some("V 2 → 14, F 16 → 7")
        );
        assert_eq!(m("6 - -> 6 -").paper_text().as_deref(), Some("V 6 → 6"));
        assert_eq!(m("junk").paper_text(), None);
        assert_eq!(
            find("paper/fig3").unwrap().meta().paper_text().as_deref(),
            Some("V 2 → 14, F 16 → 7")
        );
    }

    #[test]
    fn scenes_split_at_the_optimized_pair() {
        let text = "[require]\nSIZE 32 16\n\n[hoist]\ntitle = t\noptimize = step\n\n\
                    [vertex program]\n!!ARBvp1.0\nEND\n\n[vertex program step]\nvs_1_1\nmov oPos, v0\n\n\
                    [fragment program step]\nps_2_0\nmov oC0, c0\n[test]\ndraw quad\n";
        let s = split_scene(text).unwrap();
        assert_eq!(s.pair, "step");
        assert_eq!(s.vp, "vs_1_1\nmov oPos, v0\n");
        assert_eq!(s.fp, "ps_2_0\nmov oC0, c0\n");
        assert!(s.rest.contains("[vertex program]\n!!ARBvp1.0\nEND\n"));
        assert!(
            s.rest
                .contains("[vertex program step]\n[fragment program step]\n[test]")
        );
        assert!(split_scene("[test]\ndraw quad\n").is_none());
    }
}

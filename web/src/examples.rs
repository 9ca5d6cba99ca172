//! The examples gallery, embedded at build time.
//!
//! Each entry is one line of [`EXAMPLES`]: an id (also its permalink, `#ex=<id>`), a
//! category, a title, a one-line blurb and its files under the repository's `examples/`
//! directory — either a vertex/fragment pair or a scene (piglit shader_runner format,
//! `crates/raster/SCENES.md`). Loading a scene puts the programs of its `[hoist] optimize`
//! pair in the editors and keeps the rest of the scene (textures, parameters, passes) in
//! [`Doc::scene`] with those program bodies left empty.

use crate::doc::Doc;

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
pub enum Source {
    Pair { vp: &'static str, fp: &'static str },
    Scene(&'static str),
}

#[derive(Clone, Copy, Debug)]
pub struct Example {
    pub id: &'static str,
    pub category: Category,
    pub title: &'static str,
    pub blurb: &'static str,
    pub source: Source,
}

macro_rules! pair {
    ($id:literal, $cat:ident, $title:literal, $blurb:literal, $vp:literal, $fp:literal) => {
        Example {
            id: $id,
            category: Category::$cat,
            title: $title,
            blurb: $blurb,
            source: Source::Pair {
                vp: include_str!(concat!("../../examples/", $vp)),
                fp: include_str!(concat!("../../examples/", $fp)),
            },
        }
    };
}

#[allow(unused_macros)]
macro_rules! scene {
    ($id:literal, $cat:ident, $title:literal, $blurb:literal, $file:literal) => {
        Example {
            id: $id,
            category: Category::$cat,
            title: $title,
            blurb: $blurb,
            source: Source::Scene(include_str!(concat!("../../examples/", $file))),
        }
    };
}

/// Every example, one line each (kept on one line: rustfmt skips this list).
#[rustfmt::skip]
pub const EXAMPLES: &[Example] = &[
    pair!("paper/fig3", Paper, "Figure 3: 1-D convolution", "The paper's running example: address arithmetic moves, texture reads stay (F 16 → 7).", "paper/fig3.vsh", "paper/fig3.psh"),
    pair!("paper/gauss13", Paper, "Table 4: Gaussian filter, K = 13 (D3D9)", "Thirteen taps on a 256-texel row: every texture address can be interpolated.", "paper/gauss13.vsh", "paper/gauss13.psh"),
    pair!("paper/gauss13-arb", Paper, "Table 4: Gaussian filter, K = 13 (ARB)", "The same filter as ARB_vertex_program / ARB_fragment_program assembly.", "paper/gauss13.vp", "paper/gauss13.fp"),
];

/// The example shown on a first visit.
pub const DEFAULT: &str = "paper/fig3";

pub fn find(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
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

/// The value of `[hoist] optimize` (the pair to optimize), `""` when absent.
fn optimize_target(text: &str) -> String {
    let mut in_hoist = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('[') {
            in_hoist = h.trim_end_matches(']').trim().eq_ignore_ascii_case("hoist");
            continue;
        }
        if in_hoist
            && let Some((k, v)) = t.split_once('=')
            && k.trim() == "optimize"
        {
            return v.trim().to_string();
        }
    }
    String::new()
}

/// Splits a scene: takes the bodies of `[vertex program P]` and `[fragment program P]` for
/// the pair P that `[hoist] optimize` names. `None` when the scene has no such sections.
pub fn split_scene(text: &str) -> Option<SplitScene> {
    let pair = optimize_target(text);
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
    match e.source {
        Source::Pair { vp, fp } => {
            d.vp = vp.to_string();
            d.fp = fp.to_string();
        }
        Source::Scene(text) => {
            if let Some(s) = split_scene(text) {
                d.vp = s.vp;
                d.fp = s.fp;
                d.scene = Some(s.rest);
                if let Ok(sc) = hoist_raster::scene::parse(text, &hoist_raster::Caps::default()) {
                    d.inputs.width = sc.window.0.min(crate::doc::MAX_SIZE);
                    d.inputs.height = sc.window.1.min(crate::doc::MAX_SIZE);
                }
            }
        }
    }
    d
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
            assert!(crate::codec::decode(&crate::codec::encode_example(e.id)).is_ok());
            let d = load(e);
            let a = crate::analysis::analyze(&d);
            assert_eq!(a.vp.errors(), 0, "{}: {:?}", e.id, a.vp.diagnostics);
            assert_eq!(a.fp.errors(), 0, "{}: {:?}", e.id, a.fp.diagnostics);
            assert!(a.optimized.is_some(), "{}: {:?}", e.id, a.problem);
        }
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

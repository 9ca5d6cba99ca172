//! The teaching view: the data-dependence graph of the original fragment program, as in
//! the paper's Figure 4, laid out in layers (an instruction sits one layer below the
//! deepest instruction it reads) with nodes coloured by what happened to them, and edges
//! routed around the nodes (`dag_route`).

use hoist_asm::ir::RegFile;
use hoist_asm::{Dialect, Program};
use hoist_opt::Fate;
use hoist_opt::analysis::defuse::DefUse;
use hoist_opt::annotate::SourceLines;
use serde::{Deserialize, Serialize};

pub const NODE_W: f32 = 148.0;
pub const NODE_H: f32 = 34.0;
/// Gaps between columns and layers: the channels and bands edges run in.
const GAP_X: f32 = 26.0;
const GAP_Y: f32 = 38.0;
/// Room around the drawing (the outer channels are in it).
const PAD: f32 = 26.0;
/// Room below the last layer, so a horizontal scroll bar never covers it.
const PAD_BOTTOM: f32 = 28.0;

/// Colour class of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Class {
    /// An interpolated input.
    Input,
    Moved,
    /// Stays: C1/C2 (fragment-only work).
    Fixed,
    /// Stays: C3 (not affine / unmovable input).
    NonLinear,
    /// Stays: C4 (depends on something that stays).
    Depends,
    /// Stays for another reason (selection, host parameter, flow control).
    Other,
}

impl Class {
    pub fn css(self) -> &'static str {
        match self {
            Class::Input => "dag-input",
            Class::Moved => "dag-moved",
            Class::Fixed => "dag-fixed",
            Class::NonLinear => "dag-nonlinear",
            Class::Depends => "dag-depends",
            Class::Other => "dag-other",
        }
    }

    pub fn legend(self) -> &'static str {
        match self {
            Class::Input => "interpolated input",
            Class::Moved => "moved to the vertex program",
            Class::Fixed => "stays: fragment-only (C1, C2)",
            Class::NonLinear => "stays: not affine (C3)",
            Class::Depends => "stays: depends on one that stays (C4)",
            Class::Other => "stays: selection, parameters or flow",
        }
    }

    pub const ALL: [Class; 6] = [
        Class::Input,
        Class::Moved,
        Class::Fixed,
        Class::NonLinear,
        Class::Depends,
        Class::Other,
    ];
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Instruction index (`None` for an input).
    pub inst: Option<usize>,
    /// Short text: `L15 mov r0.z`.
    pub label: String,
    /// Tooltip: the full source line and the fate.
    pub title: String,
    /// 1-based source line of the instruction (`None` for an input).
    #[serde(default)]
    pub line: Option<u32>,
    pub class: Class,
    pub x: f32,
    pub y: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    /// Its SVG path, routed around the nodes (`dag_route::route`).
    #[serde(default)]
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dag {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub width: f32,
    pub height: f32,
}

fn input_name(file: RegFile, index: u16, dialect: Dialect) -> String {
    match (dialect, file) {
        (Dialect::D3d9, RegFile::TexCoord) => format!("t{index}"),
        (Dialect::D3d9, _) => format!("v{index}"),
        (Dialect::Arb, RegFile::TexCoord) => format!("fragment.texcoord[{index}]"),
        (Dialect::Arb, _) => match index {
            0 => "fragment.color".into(),
            1 => "fragment.color.secondary".into(),
            _ => "fragment.fogcoord".into(),
        },
    }
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

/// A fate in a node's title.
fn describe(f: &Fate, lines: &SourceLines) -> String {
    match f {
        Fate::Moved { group: Some(g) } => format!("moved (group {})", g + 1),
        Fate::Moved { group: None } => {
            "moved (shared helper: a uniform value several moved groups use)".into()
        }
        Fate::Stays { reason } => format!("stays — {}", reason.describe(&|i| lines.line(i))),
    }
}

/// Builds the graph. `source` is the fragment program's text and `lines` the line of each
/// instruction in it; `fates` come from the optimizer (same indexing).
pub fn build(
    fp: &Program,
    source: &str,
    lines: &SourceLines,
    fates: &[Fate],
) -> Result<Dag, String> {
    let inst_lines = lines;
    let du = DefUse::compute(fp)
        .map_err(|e| format!("instruction {} is flow control: no graph", e.inst + 1))?;
    let text_lines: Vec<&str> = source.lines().collect();
    let comment = |l: &str| -> String {
        let cut = match fp.dialect() {
            Dialect::Arb => l.find('#'),
            Dialect::D3d9 => l.find(';').or_else(|| l.find("//")),
        };
        l[..cut.unwrap_or(l.len())]
            .trim()
            .trim_end_matches(';')
            .to_string()
    };
    let mut nodes: Vec<Node> = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    let mut depth: Vec<usize> = Vec::new();
    let mut inputs: Vec<((RegFile, u16), usize)> = Vec::new();
    let n = fp.insts.len();
    let mut inst_node = vec![0usize; n];
    for i in 0..n {
        let line = inst_lines.line(i as u32);
        let text = text_lines
            .get((line as usize).wrapping_sub(1))
            .map(|l| comment(l))
            .unwrap_or_default();
        let mut from: Vec<usize> = Vec::new();
        for r in du.reads(i) {
            let src_node = match r.def {
                Some(d) => inst_node[d as usize],
                None if matches!(r.reg.file, RegFile::TexCoord | RegFile::Input) => {
                    let key = (r.reg.file, r.reg.index);
                    match inputs.iter().find(|(k, _)| *k == key) {
                        Some((_, id)) => *id,
                        None => {
                            let name = input_name(r.reg.file, r.reg.index, fp.dialect());
                            nodes.push(Node {
                                inst: None,
                                label: name.clone(),
                                title: format!("{name}: interpolated from the vertex program"),
                                line: None,
                                class: Class::Input,
                                x: 0.0,
                                y: 0.0,
                            });
                            depth.push(0);
                            inputs.push((key, nodes.len() - 1));
                            nodes.len() - 1
                        }
                    }
                }
                None => continue,
            };
            if !from.contains(&src_node) {
                from.push(src_node);
            }
        }
        let fate = fates.get(i);
        let class = match fate {
            Some(Fate::Moved { .. }) => Class::Moved,
            Some(Fate::Stays { reason }) => match reason.condition() {
                "C1" | "C2" => Class::Fixed,
                "C3" => Class::NonLinear,
                "C4" => Class::Depends,
                _ => Class::Other,
            },
            None => Class::Other,
        };
        let mnemonic = text.split(',').next().unwrap_or("").to_string();
        let d = from.iter().map(|&f| depth[f] + 1).max().unwrap_or(1);
        nodes.push(Node {
            inst: Some(i),
            label: shorten(&format!("L{line} {mnemonic}"), 20),
            title: format!(
                "line {line}: {text}\n{}",
                fate.map(|f| describe(f, lines)).unwrap_or_default()
            ),
            class,
            line: Some(line),
            x: 0.0,
            y: 0.0,
        });
        depth.push(d);
        let id = nodes.len() - 1;
        inst_node[i] = id;
        for f in from {
            edges.push(Edge {
                from: f,
                to: id,
                path: String::new(),
            });
        }
    }
    // Layout: layers top to bottom, nodes in program order within a layer; the routes
    // set each layer's height.
    let layers = depth.iter().copied().max().map_or(0, |m| m + 1);
    let mut count = vec![0usize; layers];
    for (k, node) in nodes.iter_mut().enumerate() {
        node.x = PAD + count[depth[k]] as f32 * (NODE_W + GAP_X);
        count[depth[k]] += 1;
    }
    let columns = count.iter().copied().max().unwrap_or(0);
    let grid = super::dag_route::Grid {
        pad: PAD,
        gap_x: GAP_X,
        gap_y: GAP_Y,
        columns,
    };
    let (paths, width) = super::dag_route::route(&mut nodes, &depth, &edges, &grid);
    for (e, path) in edges.iter_mut().zip(paths) {
        e.path = path;
    }
    let bottom = nodes.iter().map(|n| n.y + NODE_H).fold(PAD, f32::max);
    Ok(Dag {
        nodes,
        edges,
        width,
        height: bottom + PAD_BOTTOM,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure3_graph() {
        let doc = crate::doc::Doc {
            vp: include_str!("../../../examples/paper/fig3.vsh").into(),
            fp: include_str!("../../../examples/paper/fig3.psh").into(),
            ..Default::default()
        };
        let a = crate::worker::analysis::analyze(&doc);
        let o = a.optimized.as_ref().unwrap();
        let fp = a.fp.program.as_ref().unwrap();
        let dag = build(fp, &doc.fp, &a.fp.lines, &o.fates).unwrap();
        assert_eq!(
            *o.dag,
            Ok(dag.clone()),
            "the summary carries the same graph"
        );
        let insts: Vec<&Node> = dag.nodes.iter().filter(|n| n.inst.is_some()).collect();
        assert_eq!(insts.len(), 16);
        // One interpolated input, t0.
        let inputs: Vec<&Node> = dag.nodes.iter().filter(|n| n.inst.is_none()).collect();
        assert_eq!(inputs.len(), 1);
        assert_eq!(inputs[0].label, "t0");
        // texld is fragment-only; the final mov depends on the chain below it.
        let texld = insts.iter().find(|n| n.label.contains("texld")).unwrap();
        assert_eq!(texld.class, Class::Fixed);
        assert!(texld.label.starts_with("L25 texld"), "{}", texld.label);
        assert_eq!(texld.line, Some(25));
        assert!(texld.title.contains("\nstays — C2: "), "{}", texld.title);
        assert!(insts.iter().any(|n| n.class == Class::Moved));
        // Edges go downwards.
        for e in &dag.edges {
            assert!(dag.nodes[e.from].y < dag.nodes[e.to].y);
        }
        // mad r0 (line 31) reads the texld of line 26 and the mad of line 30.
        let mad = dag
            .nodes
            .iter()
            .position(|n| n.label.starts_with("L31"))
            .unwrap();
        let srcs: Vec<&str> = dag
            .edges
            .iter()
            .filter(|e| e.to == mad)
            .map(|e| dag.nodes[e.from].label.as_str())
            .collect();
        assert_eq!(srcs.len(), 2, "{srcs:?}");
        assert!(dag.width > NODE_W && dag.height > NODE_H * 4.0);
        // Every node lies inside the drawing, the last one with room below it.
        for n in &dag.nodes {
            assert!(n.x >= 0.0 && n.x + NODE_W <= dag.width, "{n:?}");
            assert!(n.y >= 0.0 && n.y + NODE_H + PAD <= dag.height, "{n:?}");
        }
    }

    #[test]
    fn flow_control_is_a_message() {
        let p = hoist_asm::parse(
            "ps_2_x\nif b0\nmov r0, c0\nendif\nmov oC0, r0\n",
            &Default::default(),
        );
        if let Some(p) = p.program {
            assert!(build(&p, "", &SourceLines::default(), &[]).is_err());
        }
    }
}

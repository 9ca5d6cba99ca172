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

use super::dag_route::{At, Link};
pub use super::dag_route::{NODE_H, NODE_W};
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
    let mut at: Vec<At> = nodes.iter().map(|n| At { x: n.x, y: n.y }).collect();
    let links: Vec<Link> = edges
        .iter()
        .map(|e| Link {
            from: e.from,
            to: e.to,
        })
        .collect();
    let (paths, width) = super::dag_route::route(&mut at, &depth, &links, &grid);
    for (n, a) in nodes.iter_mut().zip(at) {
        (n.x, n.y) = (a.x, a.y);
    }
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

/// The routes (`dag_route`) on every example's graph.
#[cfg(test)]
mod route_tests {
    use super::*;

    /// A path's straight segments `(x0, y0, x1, y1)`, or the curve's ends and control
    /// points' heights.
    enum Shape {
        Lines(Vec<(f32, f32, f32, f32)>),
        Curve { y1: f32, ys: [f32; 3] },
    }

    fn shape(d: &str) -> Shape {
        let nums = |s: &str| -> Vec<f32> {
            s.split([',', ' '])
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().unwrap())
                .collect()
        };
        let (m, rest) = d[1..].split_at(d[1..].find([' ', 'C', 'V', 'H']).unwrap());
        let p0 = nums(m);
        if let Some(c) = rest.trim().strip_prefix('C') {
            let v = nums(c);
            return Shape::Curve {
                y1: p0[1],
                ys: [v[1], v[3], v[5]],
            };
        }
        let (mut x, mut y) = (p0[0], p0[1]);
        let mut segs = Vec::new();
        for cmd in rest.split_whitespace() {
            let v: f32 = cmd[1..].parse().unwrap();
            let (nx, ny) = if cmd.starts_with('V') { (x, v) } else { (v, y) };
            segs.push((x, y, nx, ny));
            (x, y) = (nx, ny);
        }
        Shape::Lines(segs)
    }

    /// Whether segment `s` meets node `n`'s box, grown by `m`.
    fn meets(s: (f32, f32, f32, f32), n: &Node, m: f32) -> bool {
        let (x0, x1) = (s.0.min(s.2), s.0.max(s.2));
        let (y0, y1) = (s.1.min(s.3), s.1.max(s.3));
        x1 >= n.x - m && x0 <= n.x + NODE_W + m && y1 >= n.y - m && y0 <= n.y + NODE_H + m
    }

    /// No edge meets a node other than its own two; a curve stays in the band between its
    /// ends' layers; no two straight runs of different edges share a stretch.
    fn check(id: &str, d: &Dag) -> usize {
        let mut runs: Vec<(usize, (f32, f32, f32, f32))> = Vec::new();
        for (i, e) in d.edges.iter().enumerate() {
            let (top, bottom) = (d.nodes[e.from].y + NODE_H, d.nodes[e.to].y);
            match shape(&e.path) {
                Shape::Curve { y1, ys } => {
                    assert_eq!(y1, top, "{id}: {}", e.path);
                    for y in ys {
                        assert!((top..=bottom).contains(&y), "{id}: {}", e.path);
                    }
                    for n in &d.nodes {
                        assert!(
                            n.y + NODE_H <= top || n.y >= bottom,
                            "{id}: a node in the band of {}",
                            e.path
                        );
                    }
                }
                Shape::Lines(segs) => {
                    for (k, n) in d.nodes.iter().enumerate() {
                        let own = k == e.from || k == e.to;
                        for &s in &segs {
                            let hit = if own { false } else { meets(s, n, 1.0) };
                            assert!(!hit, "{id}: {} runs under {}", e.path, n.label);
                        }
                    }
                    runs.extend(segs.into_iter().map(|s| (i, s)));
                }
            }
        }
        for (a, &(i, s)) in runs.iter().enumerate() {
            for &(j, t) in &runs[a + 1..] {
                if i == j {
                    continue;
                }
                let vertical = |s: (f32, f32, f32, f32)| s.0 == s.2;
                if vertical(s) != vertical(t) {
                    continue;
                }
                let (along, across) = if vertical(s) {
                    (
                        (s.1.min(s.3), s.1.max(s.3), t.1.min(t.3), t.1.max(t.3)),
                        (s.0 - t.0).abs(),
                    )
                } else {
                    (
                        (s.0.min(s.2), s.0.max(s.2), t.0.min(t.2), t.0.max(t.2)),
                        (s.1 - t.1).abs(),
                    )
                };
                let shared = along.1.min(along.3) - along.0.max(along.2);
                assert!(
                    across >= 2.5 || shared <= 0.0,
                    "{id}: {} and {} share {shared} px",
                    d.edges[i].path,
                    d.edges[j].path
                );
            }
        }
        d.edges.iter().filter(|e| e.path.contains('V')).count()
    }

    /// Every example with a graph, Figure 3 and gauss13 among them.
    #[test]
    fn edges_go_around_nodes_and_apart() {
        let mut long = 0;
        let mut graphs = 0;
        for ex in crate::doc::examples::EXAMPLES {
            let doc = crate::doc::examples::load(ex);
            let a = crate::worker::analysis::analyze(&doc);
            let Some(Ok(d)) = a.optimized.as_ref().map(|o| (*o.dag).clone()) else {
                continue;
            };
            long += check(ex.id, &d);
            graphs += 1;
        }
        assert!(
            graphs >= 20 && long > 0,
            "{graphs} graphs, {long} routed edges"
        );
    }
}

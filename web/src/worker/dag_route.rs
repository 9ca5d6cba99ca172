//! Edge routes of the dependence graph (issue 27 item 8): no edge runs under a node, and
//! no two edges share a stretch of line. Nodes sit on a grid of columns and layers, so the
//! gaps between columns (channels) and between layers (bands) hold no node. An edge to the
//! next layer is a curve inside the band between the two (its control points stay there);
//! a longer edge drops into the band below its source, runs along it to a channel, down the
//! channel to the band above its target, and along that band to the target. Each edge
//! leaves and enters its nodes at its own point, each long edge has its own lane in its
//! channel and its own track in each band it runs along.

use super::dag::{Edge, NODE_H, NODE_W, Node};

/// Grid geometry: where columns, layers and their gaps are.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub pad: f32,
    pub gap_x: f32,
    pub gap_y: f32,
    /// Columns of the widest layer.
    pub columns: usize,
}

impl Grid {
    /// Centre of channel `c` (0: left of the first column, `columns`: right of the last).
    fn channel(&self, c: usize) -> f32 {
        self.pad + c as f32 * (NODE_W + self.gap_x) - self.gap_x / 2.0
    }

    /// Top of the band below layer `l`.
    fn band(&self, l: usize) -> f32 {
        self.pad + l as f32 * (NODE_H + self.gap_y) + NODE_H
    }

    fn layer_of(&self, y: f32) -> usize {
        ((y - self.pad) / (NODE_H + self.gap_y)).round() as usize
    }
}

/// Spreads `n` points over `[a, b]`, away from both ends.
fn spread(a: f32, b: f32, i: usize, n: usize) -> f32 {
    a + (b - a) * (i + 1) as f32 / (n + 1) as f32
}

/// Where each edge leaves its source and enters its target: spread over the node's width,
/// in the order of the other ends (so the edges of one node do not cross there).
fn ports(nodes: &[Node], edges: &[Edge]) -> Vec<(f32, f32)> {
    let mut out = vec![(0.0, 0.0); edges.len()];
    for (k, n) in nodes.iter().enumerate() {
        let mut outs: Vec<usize> = (0..edges.len()).filter(|&i| edges[i].from == k).collect();
        outs.sort_by(|&a, &b| nodes[edges[a].to].x.total_cmp(&nodes[edges[b].to].x));
        for (j, &i) in outs.iter().enumerate() {
            out[i].0 = spread(n.x + 8.0, n.x + NODE_W - 8.0, j, outs.len());
        }
        let mut ins: Vec<usize> = (0..edges.len()).filter(|&i| edges[i].to == k).collect();
        ins.sort_by(|&a, &b| nodes[edges[a].from].x.total_cmp(&nodes[edges[b].from].x));
        for (j, &i) in ins.iter().enumerate() {
            out[i].1 = spread(n.x + 8.0, n.x + NODE_W - 8.0, j, ins.len());
        }
    }
    out
}

/// The SVG path of every edge, in `edges`' order.
pub fn route(nodes: &[Node], edges: &[Edge], g: &Grid) -> Vec<String> {
    let ports = ports(nodes, edges);
    let layer = |k: usize| g.layer_of(nodes[k].y);
    // Long edges: their channel (the one nearest both ends), then lanes and tracks.
    let long: Vec<usize> = (0..edges.len())
        .filter(|&i| layer(edges[i].to) > layer(edges[i].from) + 1)
        .collect();
    let channel_of = |i: usize| {
        let (x1, x2) = ports[i];
        (0..=g.columns)
            .min_by(|&a, &b| {
                let d = |c| (g.channel(c) - x1).abs() + (g.channel(c) - x2).abs();
                d(a).total_cmp(&d(b))
            })
            .unwrap_or(0)
    };
    let chans: Vec<usize> = long.iter().map(|&i| channel_of(i)).collect();
    // Lane of each long edge in its channel; track of each of its two runs in its band.
    let mut lanes = vec![0usize; long.len()];
    let mut per_chan = vec![0usize; g.columns + 1];
    let bands = nodes.iter().map(|n| g.layer_of(n.y)).max().unwrap_or(0) + 1;
    // Runs leaving a source take the top of its band, runs reaching a target the bottom of
    // the band above it: a drop and an arrival in one band never meet.
    let (mut leaving, mut reaching) = (vec![0usize; bands], vec![0usize; bands]);
    let mut tracks = vec![(0usize, 0usize); long.len()];
    for (j, &i) in long.iter().enumerate() {
        lanes[j] = per_chan[chans[j]];
        per_chan[chans[j]] += 1;
        let (a, b) = (layer(edges[i].from), layer(edges[i].to) - 1);
        tracks[j] = (leaving[a], reaching[b]);
        leaving[a] += 1;
        reaching[b] += 1;
    }
    let lane_x = |c: usize, lane: usize| {
        let n = per_chan[c];
        let w = (g.gap_x - 8.0).min(5.0 * n as f32);
        g.channel(c) - w / 2.0 + spread(0.0, w, lane, n)
    };
    // Tracks keep to the band's edges: the curves between two layers cross the middle of
    // the band nearly flat, and meet its edges only where they are nearly vertical.
    let edge = (g.gap_y / 3.0).min(10.0);
    let track_y = |band: usize, t: usize, upper: bool| {
        let n = if upper { leaving[band] } else { reaching[band] };
        let top = g.band(band) + if upper { 2.0 } else { g.gap_y - 2.0 - edge };
        spread(top, top + edge, t, n)
    };
    let mut paths = Vec::with_capacity(edges.len());
    for (i, e) in edges.iter().enumerate() {
        let (x1, x2) = ports[i];
        let (y1, y2) = (nodes[e.from].y + NODE_H, nodes[e.to].y);
        let d = match long.iter().position(|&l| l == i) {
            None => {
                let my = (y1 + y2) / 2.0;
                format!("M{x1},{y1} C{x1},{my} {x2},{my} {x2},{y2}")
            }
            Some(j) => {
                let cx = lane_x(chans[j], lanes[j]);
                let ya = track_y(layer(e.from), tracks[j].0, true);
                let yb = track_y(layer(e.to) - 1, tracks[j].1, false);
                format!("M{x1},{y1} V{ya} H{cx} V{yb} H{x2} V{y2}")
            }
        };
        paths.push(d);
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::super::dag::Dag;
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
                    across >= 0.5 || shared <= 0.0,
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

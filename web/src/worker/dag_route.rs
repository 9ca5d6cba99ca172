//! Edge routes of the dependence graph (issue 27 item 8): no edge runs under a node, and
//! no two edges share a stretch of line. Nodes sit on a grid of columns and layers; the gaps
//! between columns (channels) and between layers (bands) hold no node. An edge to the next
//! layer that is nearly vertical is a curve inside the band between the two. Every other
//! edge is orthogonal: down from its source to a track of the band below it, along the
//! track, and down into its target; an edge that skips layers turns down a lane of a
//! channel instead, to a track of the band above its target. Each edge has its own ports on
//! its nodes and its own lane; horizontal runs that overlap get tracks of their own (the
//! left-edge interval packing), and each band is made tall enough for its tracks, which
//! sets the layers' heights.

/// A node's size in the drawing.
pub const NODE_W: f32 = 148.0;
pub const NODE_H: f32 = 34.0;

/// A node's top-left corner.
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub x: f32,
    pub y: f32,
}

/// An edge: the node written (`from`) and the node that reads it (`to`).
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub from: usize,
    pub to: usize,
}

/// An edge to the next layer moving at most this far sideways is a curve.
const NARROW: f32 = 40.0;
/// Least spacing of a band's tracks.
const TRACK: f32 = 6.0;
/// Least horizontal gap between two runs on one track.
const MARGIN: f32 = 6.0;

/// Grid geometry: where columns and their gaps are, and the least band height.
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
}

/// Spreads `n` points over `[a, b]`, away from both ends.
fn spread(a: f32, b: f32, i: usize, n: usize) -> f32 {
    a + (b - a) * (i + 1) as f32 / (n + 1) as f32
}

/// Where each edge leaves its source and enters its target: spread over the node's width,
/// in the order of the other ends (so the edges of one node do not cross there). Exits lean
/// left and entries right, so a port above never lines up with a port below by default.
fn ports(nodes: &[At], edges: &[Link]) -> Vec<(f32, f32)> {
    let mut out = vec![(0.0, 0.0); edges.len()];
    for (k, n) in nodes.iter().enumerate() {
        let mut outs: Vec<usize> = (0..edges.len()).filter(|&i| edges[i].from == k).collect();
        hoist_asm::sort::by(&mut outs, |&a, &b| {
            nodes[edges[a].to].x.total_cmp(&nodes[edges[b].to].x)
        });
        for (j, &i) in outs.iter().enumerate() {
            out[i].0 = spread(n.x + 8.0, n.x + NODE_W - 16.0, j, outs.len());
        }
        let mut ins: Vec<usize> = (0..edges.len()).filter(|&i| edges[i].to == k).collect();
        hoist_asm::sort::by(&mut ins, |&a, &b| {
            nodes[edges[a].from].x.total_cmp(&nodes[edges[b].from].x)
        });
        for (j, &i) in ins.iter().enumerate() {
            out[i].1 = spread(n.x + 16.0, n.x + NODE_W - 8.0, j, ins.len());
        }
    }
    out
}

/// Moves an entry that lines up with an exit in the band above it (within 3 px) aside, so
/// the exit's drop and the entry's descent never share a line.
fn separate(ports: &mut [(f32, f32)], layer: &[usize], edges: &[Link]) {
    for i in 0..edges.len() {
        let band = layer[edges[i].to].saturating_sub(1);
        let taken: Vec<f32> = (0..edges.len())
            .filter(|&j| layer[edges[j].from] == band)
            .map(|j| ports[j].0)
            .chain(
                (0..edges.len())
                    .filter(|&j| j != i && edges[j].to == edges[i].to)
                    .map(|j| ports[j].1),
            )
            .collect();
        let x = ports[i].1;
        let clear = |x: f32| taken.iter().all(|&t| (t - x).abs() >= 3.0);
        if !clear(x)
            && let Some(d) = [3.0, -3.0, 4.5, -4.5, 6.0, -6.0]
                .into_iter()
                .find(|&d| clear(x + d))
        {
            ports[i].1 = x + d;
        }
    }
}

/// How an edge is drawn.
#[derive(Clone, Copy)]
enum Kind {
    Curve,
    /// To the next layer along one track.
    Cross,
    /// Skips layers: down lane `x` of a channel.
    Long {
        x: f32,
    },
}

/// A horizontal stretch of an edge in band `band` (`part` 0: below the source, 1: above
/// the target).
struct Run {
    edge: usize,
    part: usize,
    band: usize,
    lo: f32,
    hi: f32,
}

/// Least spacing of a channel's lanes.
const LANE: f32 = 6.0;

/// Each edge's kind, and each channel's width. A long edge takes the channel nearest both
/// ends and a lane of it; long edges whose spans of layers overlap get lanes of their own
/// (left-edge packing again), and a channel widens to hold its lanes. Lane positions are
/// set once the columns have moved apart (`place`).
fn kinds(
    ports: &[(f32, f32)],
    layer: &[usize],
    edges: &[Link],
    g: &Grid,
) -> (Vec<Kind>, Vec<(usize, usize)>, Vec<usize>) {
    let chan = |i: usize| {
        let (x1, x2) = ports[i];
        (0..=g.columns)
            .min_by(|&a, &b| {
                let d = |c| (g.channel(c) - x1).abs() + (g.channel(c) - x2).abs();
                d(a).total_cmp(&d(b))
            })
            .unwrap_or(0)
    };
    let long = |i: usize| layer[edges[i].to] > layer[edges[i].from] + 1;
    let mut order: Vec<usize> = (0..edges.len()).filter(|&i| long(i)).collect();
    hoist_asm::sort::by_key(&mut order, |&i| {
        (layer[edges[i].from], layer[edges[i].to], i)
    });
    let mut ends: Vec<Vec<usize>> = vec![Vec::new(); g.columns + 1];
    let mut lane = vec![(0usize, 0usize); edges.len()];
    for i in order {
        let c = chan(i);
        let (from, to) = (layer[edges[i].from], layer[edges[i].to]);
        let ends = &mut ends[c];
        let k = ends.iter().position(|&e| e <= from).unwrap_or(ends.len());
        if k == ends.len() {
            ends.push(0);
        }
        ends[k] = to;
        lane[i] = (c, k);
    }
    let kinds = (0..edges.len())
        .map(|i| {
            if long(i) {
                Kind::Long { x: 0.0 }
            } else if (ports[i].0 - ports[i].1).abs() <= NARROW {
                Kind::Curve
            } else {
                Kind::Cross
            }
        })
        .collect();
    (kinds, lane, ends.iter().map(Vec::len).collect())
}

/// Moves the columns apart so that each channel holds its lanes `LANE` apart, and sets the
/// long edges' lane positions; returns the drawing's width.
fn place(
    nodes: &mut [At],
    ports: &mut [(f32, f32)],
    kinds: &mut [Kind],
    lane: &[(usize, usize)],
    lanes: &[usize],
    edges: &[Link],
    g: &Grid,
) -> f32 {
    let width: Vec<f32> = lanes
        .iter()
        .map(|&n| g.gap_x.max(8.0 + (n + 1) as f32 * LANE))
        .collect();
    let mut shift = vec![0.0f32; width.len()];
    let mut acc = 0.0;
    for (c, w) in width.iter().enumerate() {
        acc += w - g.gap_x;
        shift[c] = acc;
    }
    let column = |x: f32| ((x - g.pad) / (NODE_W + g.gap_x)).round() as usize;
    let left = |c: usize| g.pad + c as f32 * (NODE_W + g.gap_x) + shift[c];
    for (i, e) in edges.iter().enumerate() {
        ports[i].0 += shift[column(nodes[e.from].x)];
        ports[i].1 += shift[column(nodes[e.to].x)];
        if let Kind::Long { x } = &mut kinds[i] {
            let (c, k) = lane[i];
            *x = spread(left(c) - width[c] + 4.0, left(c) - 4.0, k, lanes[c]);
        }
    }
    for n in nodes.iter_mut() {
        n.x += shift[column(n.x)];
    }
    left(g.columns) + g.pad - g.gap_x
}

/// Packs each band's runs onto tracks (left edge first, a run on the first track free by
/// then); returns each run's track and each band's track count.
fn tracks(runs: &[Run], bands: usize) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    hoist_asm::sort::by(&mut order, |&a, &b| {
        (runs[a].band, runs[a].lo, runs[a].edge)
            .partial_cmp(&(runs[b].band, runs[b].lo, runs[b].edge))
            .unwrap()
    });
    let mut ends: Vec<Vec<f32>> = vec![Vec::new(); bands];
    let mut track = vec![0usize; runs.len()];
    for r in order {
        let ends = &mut ends[runs[r].band];
        let t = ends
            .iter()
            .position(|&e| e + MARGIN < runs[r].lo)
            .unwrap_or(ends.len());
        if t == ends.len() {
            ends.push(0.0);
        }
        ends[t] = runs[r].hi;
        track[r] = t;
    }
    (track, ends.iter().map(Vec::len).collect())
}

/// Places the layers (`nodes[k].y` from `layer[k]`), each band as tall as its tracks need,
/// moves the columns apart for their channels' lanes, and returns the SVG path of every
/// edge, in `edges`' order, and the drawing's width.
pub fn route(nodes: &mut [At], layer: &[usize], edges: &[Link], g: &Grid) -> (Vec<String>, f32) {
    let mut ports = ports(nodes, edges);
    separate(&mut ports, layer, edges);
    let (mut kinds, lane, lanes) = kinds(&ports, layer, edges, g);
    let width = place(nodes, &mut ports, &mut kinds, &lane, &lanes, edges, g);
    let layers = layer.iter().max().map_or(0, |m| m + 1);
    let mut runs = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        let (x1, x2) = ports[i];
        let (a, b) = (layer[e.from], layer[e.to].saturating_sub(1));
        let mut run = |part, band, u: f32, v: f32| {
            runs.push(Run {
                edge: i,
                part,
                band,
                lo: u.min(v),
                hi: u.max(v),
            });
        };
        match kinds[i] {
            Kind::Curve => {}
            Kind::Cross => run(0, a, x1, x2),
            Kind::Long { x } => {
                run(0, a, x1, x);
                run(1, b, x, x2);
            }
        }
    }
    let (track, count) = tracks(&runs, layers);
    let height: Vec<f32> = count
        .iter()
        .map(|&n| g.gap_y.max((n + 1) as f32 * TRACK))
        .collect();
    let mut top = vec![g.pad; layers];
    for l in 1..layers {
        top[l] = top[l - 1] + NODE_H + height[l - 1];
    }
    for (k, n) in nodes.iter_mut().enumerate() {
        n.y = top[layer[k]];
    }
    let mut at = vec![[0.0f32; 2]; edges.len()];
    for (r, run) in runs.iter().enumerate() {
        let band = top[run.band] + NODE_H;
        at[run.edge][run.part] = spread(band, band + height[run.band], track[r], count[run.band]);
    }
    let paths = edges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (x1, x2) = ports[i];
            let (y1, y2) = (nodes[e.from].y + NODE_H, nodes[e.to].y);
            let [ya, yb] = at[i];
            match kinds[i] {
                Kind::Curve => {
                    let my = (y1 + y2) / 2.0;
                    format!("M{x1},{y1} C{x1},{my} {x2},{my} {x2},{y2}")
                }
                Kind::Cross => format!("M{x1},{y1} V{ya} H{x2} V{y2}"),
                Kind::Long { x } => format!("M{x1},{y1} V{ya} H{x} V{yb} H{x2} V{y2}"),
            }
        })
        .collect();
    (paths, width)
}

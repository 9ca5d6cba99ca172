//! The linear mode's debugger, worker side: the original and the packed code of the
//! document's system traced on one of the verdict's x vectors
//! (`hoist_verify::linear_debug`: the trace engine on the emitted programs, each lane
//! labelled from the packing), laid out side by side for the panel to step through, and
//! y of both programs against A·x + b in f64. Computed only when the page asks
//! ([`crate::worker::engine::Request::LinearTrace`]).

use crate::worker::linear::{self, LinearDoc};
use hoist_opt::linear::Grouping;
use hoist_verify::linear::Runner;
use hoist_verify::linear_debug::{LaneRow, LinearTrace, trace};
use serde::{Deserialize, Serialize};

/// One program's row: the instruction (or the x group as loaded), its written
/// components, the destination's four components as bits, and what each lane holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaneCell {
    pub op: String,
    pub mask: u8,
    pub bits: [u32; 4],
    pub labels: [String; 4],
}

/// One variable's y from both programs against A·x + b (f64).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FinalRow {
    pub var: usize,
    /// y of the original and the packed program, as bits.
    pub bits: [u32; 2],
    pub want: f64,
    /// y − want of each program.
    pub difference: [f64; 2],
}

/// The panel's content: row k holds the k-th row of each program (either may have ended).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearDebugView {
    /// The x vector (0-based) and its values by variable.
    pub vector: usize,
    pub x: Vec<f64>,
    pub rows: Vec<[Option<LaneCell>; 2]>,
    pub finals: Vec<FinalRow>,
}

fn cell(r: &LaneRow) -> LaneCell {
    LaneCell {
        op: r.op.clone(),
        mask: r.mask,
        bits: r.bits,
        labels: r.lanes.map(|l| l.describe()),
    }
}

/// Traces x vector `vector` through the code of the two groupings `orders` (original,
/// packed) of the document's system.
pub fn view(
    doc: &LinearDoc,
    orders: &[Vec<usize>; 2],
    vector: usize,
) -> Result<LinearDebugView, String> {
    let (sys, _) = linear::load(doc)?;
    let xs = linear::vectors(sys.m);
    let x = xs
        .get(vector)
        .ok_or_else(|| format!("there are {} x vectors, not {}", xs.len(), vector + 1))?;
    let run = |order: &Vec<usize>| -> Result<LinearTrace, String> {
        let mut sorted = order.clone();
        hoist_asm::sort::ord(&mut sorted);
        if sorted != (0..sys.m).collect::<Vec<_>>() {
            return Err("the grouping does not belong to this system".into());
        }
        let g = Grouping {
            perm: order.clone(),
        };
        trace(&Runner::new(&sys, &g, doc.d3d9, false)?, &sys, x)
    };
    let t = [run(&orders[0])?, run(&orders[1])?];
    let n = t[0].rows.len().max(t[1].rows.len());
    let rows = (0..n)
        .map(|k| std::array::from_fn(|s| t[s].rows.get(k).map(cell)))
        .collect();
    let finals = (0..sys.vars)
        .map(|i| {
            let terms = sys.terms.iter().flat_map(|t| t.rows[i].iter());
            let want = terms.map(|(c, a)| a * x[*c]).sum::<f64>() + sys.b[i];
            let bits = [t[0].y[i], t[1].y[i]];
            FinalRow {
                var: i,
                bits,
                want,
                difference: bits.map(|b| f64::from(f32::from_bits(b)) - want),
            }
        })
        .collect();
    Ok(LinearDebugView {
        vector,
        x: x.clone(),
        rows,
        finals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every example, both dialects: the view's final y are what the verdict's run of the
    /// same programs gives, bit for bit, on every x vector; a bad vector is an error.
    #[test]
    fn the_view_ends_with_the_verdicts_y() {
        for e in crate::worker::linear::EXAMPLES.iter().take(4) {
            for d3d9 in [false, true] {
                let mut doc = LinearDoc::example(e.name, false).unwrap();
                doc.d3d9 = d3d9;
                let o = linear::run(&doc).unwrap();
                let orders = [o.before.order.clone(), o.after.order.clone()];
                let (sys, _) = linear::load(&doc).unwrap();
                let xs = linear::vectors(sys.m);
                for k in [0, 7] {
                    let v = view(&doc, &orders, k).unwrap();
                    for (s, order) in orders.iter().enumerate() {
                        let g = Grouping {
                            perm: order.clone(),
                        };
                        let y = linear::execute(&sys, &g, &xs[k..=k], d3d9, false).unwrap();
                        for f in &v.finals {
                            assert_eq!(f.bits[s], (y[0][f.var] as f32).to_bits(), "{} {s}", e.name);
                        }
                    }
                    assert!(
                        v.finals
                            .iter()
                            .all(|f| f.difference.iter().all(|d| d.abs() < 1e-3))
                    );
                }
                assert!(view(&doc, &orders, 8).is_err());
            }
        }
    }
}

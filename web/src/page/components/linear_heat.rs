//! A heat map of A under one grouping (SVG): rows and columns in the grouping's order,
//! each non-zero coloured by sign and magnitude, the 4×4 block grid, each non-empty block
//! shaded by its evaluation (column-major / row-major) with its cost; hovering a cell or a
//! block names it below the map.

use crate::page::components::Shared;
use crate::worker::linear::{Eval, Outcome, Side};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeatProps {
    /// `before` or `after` (DOM id `heat-<id>`).
    pub id: AttrValue,
    pub title: AttrValue,
    pub outcome: Shared<Outcome>,
    /// The packed grouping (else the original order).
    pub after: bool,
}

fn eval_class(e: Eval) -> &'static str {
    match e {
        Eval::ColumnMajor => "cm",
        Eval::RowMajor => "rm",
        Eval::Mixed => "mixed",
    }
}

/// A coefficient's colour: red for positive, blue for negative, darker when larger.
fn colour(v: f64, max: f64) -> String {
    let t = if max > 0.0 {
        (v.abs() / max).sqrt()
    } else {
        1.0
    };
    let hue = if v >= 0.0 { 8 } else { 215 };
    format!("hsl({hue}, 75%, {:.0}%)", 82.0 - 44.0 * t)
}

/// Pixels per cell for `m` variables.
fn cell(m: usize) -> usize {
    (384 / m.max(1)).clamp(5, 24)
}

fn blocks(side: &Side, s: usize) -> Html {
    let b = 4 * s;
    side.blocks
        .iter()
        .map(|k| {
            let (x, y) = (usize::from(k.j) * b, usize::from(k.i) * b);
            let tip = format!(
                "block ({}, {}): {}, cost {}",
                k.i,
                k.j,
                k.eval.name(),
                k.cost
            );
            html! {
                <rect class={classes!("block", eval_class(k.eval))} x={x.to_string()} y={y.to_string()}
                    width={b.to_string()} height={b.to_string()} data-tip={tip.clone()}>
                    <title>{ tip }</title>
                </rect>
            }
        })
        .collect()
}

/// Each block's cost in its corner, over the cells (when the blocks are large enough).
fn costs(side: &Side, s: usize) -> Html {
    let b = 4 * s;
    if b < 16 {
        return Html::default();
    }
    side.blocks
        .iter()
        .map(|k| {
            let (x, y) = (usize::from(k.j) * b + b - 2, usize::from(k.i) * b + b - 3);
            html! { <text class="block-cost" x={x.to_string()} y={y.to_string()}>{ k.cost }</text> }
        })
        .collect()
}

fn cells(o: &Outcome, pos: &[usize], s: usize) -> Html {
    let max = o.entries.iter().map(|e| e.2.abs()).fold(0.0, f64::max);
    o.entries
        .iter()
        .map(|&(r, c, v)| {
            let (r, c) = (usize::from(r), usize::from(c));
            let tip = format!("row {r} (y{r}), column {c} (x{c}): a = {v}");
            html! {
                <rect class="cell" x={(pos[c] * s).to_string()} y={(pos[r] * s).to_string()}
                    width={s.to_string()} height={s.to_string()} style={format!("fill: {}", colour(v, max))}
                    data-tip={tip.clone()}>
                    <title>{ tip }</title>
                </rect>
            }
        })
        .collect()
}

fn grid(m: usize, s: usize) -> Html {
    let size = m * s;
    (0..=m / 4)
        .flat_map(|k| {
            let p = (k * 4 * s).to_string();
            [
                html! { <line class="grid" x1={p.clone()} x2={p.clone()} y1="0" y2={size.to_string()} /> },
                html! { <line class="grid" y1={p.clone()} y2={p} x1="0" x2={size.to_string()} /> },
            ]
        })
        .collect()
}

#[function_component(HeatMap)]
pub fn heat_map(p: &HeatProps) -> Html {
    let readout = use_state(String::new);
    let o = &p.outcome;
    let side = if p.after { &o.after } else { &o.before };
    let mut pos = vec![0; o.m];
    for (i, &v) in side.order.iter().enumerate() {
        pos[v] = i;
    }
    let s = cell(o.m);
    let size = (o.m * s).to_string();
    let onmousemove = {
        let readout = readout.clone();
        Callback::from(move |e: MouseEvent| {
            let tip = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|el| el.get_attribute("data-tip"))
                .unwrap_or_default();
            readout.set(tip);
        })
    };
    let onmouseleave = {
        let readout = readout.clone();
        Callback::from(move |_| readout.set(String::new()))
    };
    html! {
        <figure class="heat" id={format!("heat-{}", p.id)}>
            <figcaption>{ p.title.clone() }</figcaption>
            <svg class="heat-svg" width={size.clone()} height={size.clone()} viewBox={format!("0 0 {size} {size}")}
                role="img" aria-label={p.title.clone()} {onmousemove} {onmouseleave}>
                { blocks(side, s) }
                { cells(o, &pos, s) }
                { grid(o.m, s) }
                { costs(side, s) }
            </svg>
            <p class="heat-readout" aria-live="polite">
                { if readout.is_empty() { "hover a cell: row, column, coefficient".to_string() } else { (*readout).clone() } }
            </p>
        </figure>
    }
}

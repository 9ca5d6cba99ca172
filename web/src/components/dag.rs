//! The teaching view: the fragment program's data-dependence graph (the paper's Figure 4)
//! as SVG, nodes coloured by movability; hovering a node names its line and its fate.

use super::Shared;
use crate::dag::{Class, Dag, NODE_H, NODE_W};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DagProps {
    /// The graph (built with the optimizer's result, in the worker), or why there is none.
    pub graph: Option<Shared<Result<Dag, String>>>,
    /// What to say while there is no graph.
    pub message: AttrValue,
}

fn graph_html(g: &Dag) -> Html {
    let edges: Html = g
        .edges
        .iter()
        .map(|e| {
            let (f, t) = (&g.nodes[e.from], &g.nodes[e.to]);
            let (x1, y1) = (f.x + NODE_W / 2.0, f.y + NODE_H);
            let (x2, y2) = (t.x + NODE_W / 2.0, t.y);
            let my = (y1 + y2) / 2.0;
            html! {
                <path class="dag-edge" d={format!("M{x1},{y1} C{x1},{my} {x2},{my} {x2},{y2}")}
                    marker-end="url(#arrow)" />
            }
        })
        .collect();
    let nodes: Html = g
        .nodes
        .iter()
        .map(|n| {
            html! {
                <g class={classes!("dag-node", n.class.css())} tabindex="0"
                    transform={format!("translate({},{})", n.x, n.y)}>
                    <title>{ n.title.clone() }</title>
                    <rect width={NODE_W.to_string()} height={NODE_H.to_string()} rx="6" />
                    <text x={(NODE_W / 2.0).to_string()} y={(NODE_H / 2.0 + 4.0).to_string()}
                        text-anchor="middle">{ n.label.clone() }</text>
                </g>
            }
        })
        .collect();
    html! {
            <div class="dag-scroll">
                <svg class="dag" width={g.width.to_string()} height={g.height.to_string()}
                    viewBox={format!("0 0 {} {}", g.width, g.height)} role="img"
                    aria-label="Data-dependence graph of the fragment program">
                    <defs>
                        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"
                            markerHeight="7" orient="auto-start-reverse">
                            <path d="M0,0 L10,5 L0,10 z" class="dag-arrow" />
                        </marker>
                    </defs>
                    { edges }
                    { nodes }
                </svg>
            </div>
    }
}

#[function_component(DagView)]
pub fn dag_view(p: &DagProps) -> Html {
    let body = match p.graph.as_deref() {
        Some(Ok(g)) => graph_html(g),
        Some(Err(m)) => html! { <p class="message">{ m.clone() }</p> },
        None => html! { <p class="message">{ p.message.clone() }</p> },
    };
    let legend: Html = Class::ALL
        .iter()
        .map(|c| {
            html! {
                <li><span class={classes!("swatch", c.css())}></span>{ c.legend() }</li>
            }
        })
        .collect();
    html! {
        <section class="panel dag-panel" id="dag" aria-label="Dependence graph">
            <h2>{ "Dependence graph of the fragment program" }</h2>
            <p class="muted">{ "As in the paper's Figure 4: an arrow means “reads a value written by”. \
                An instruction may move when it is executable per vertex (C1), touches no fragment-only \
                resource (C2), is affine in the interpolated inputs (C3) and everything it reads moves too (C4)." }</p>
            <ul class="legend">{ legend }</ul>
            { body }
        </section>
    }
}

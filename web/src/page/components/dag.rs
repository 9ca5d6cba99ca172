//! The teaching view: the fragment program's data-dependence graph (the paper's Figure 4)
//! as SVG, nodes coloured by movability. Nodes are focusable and keyboard-navigable (←/→
//! program order, ↑ a value it reads, ↓ an instruction that reads it); hovering or focusing
//! one shows its line and fate below the graph and lights its source line in the fragment
//! editor, and the node of the line under the editor's pointer or caret is outlined.

use super::Shared;
use crate::worker::dag::{Class, Dag, NODE_H, NODE_W};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DagProps {
    /// The graph (built with the optimizer's result, in the worker), or why there is none.
    pub graph: Option<Shared<Result<Dag, String>>>,
    /// What to say while there is no graph.
    pub message: AttrValue,
    /// Source line hovered or under the caret in the fragment editor.
    #[prop_or_default]
    pub line: Option<u32>,
    /// Lights a source line of the fragment editor (`None` to clear).
    #[prop_or_default]
    pub on_line: Callback<Option<u32>>,
}

fn node_id(k: usize) -> String {
    format!("dag-node-{k}")
}

/// Moves the focus to node `k`, if there is one.
fn focus_node(k: usize) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(&node_id(k)));
    // An SVG element has `focus()` too; the call is dispatched by name.
    if let Some(e) = el {
        let _ = e.unchecked_into::<web_sys::HtmlElement>().focus();
    }
}

/// The node a key leads to from node `k`.
fn step(g: &Dag, k: usize, key: &str) -> Option<usize> {
    let n = g.nodes.len();
    match key {
        "ArrowRight" => Some((k + 1) % n),
        "ArrowLeft" => Some((k + n - 1) % n),
        "ArrowUp" => g.edges.iter().find(|e| e.to == k).map(|e| e.from),
        "ArrowDown" => g.edges.iter().find(|e| e.from == k).map(|e| e.to),
        "Home" => Some(0),
        "End" => Some(n - 1),
        _ => None,
    }
}

fn edges_html(g: &Dag) -> Html {
    g.edges
        .iter()
        .map(|e| {
            html! {
                <path class="dag-edge" d={e.path.clone()} data-from={e.from.to_string()}
                    data-to={e.to.to_string()} marker-end="url(#arrow)" />
            }
        })
        .collect()
}

fn graph_html(
    g: &Shared<Result<Dag, String>>,
    d: &Dag,
    p: &DagProps,
    active: &UseStateHandle<Option<usize>>,
) -> Html {
    let nodes: Html = d
        .nodes
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let show = {
                let (active, on_line, line) = (active.clone(), p.on_line.clone(), n.line);
                move || {
                    active.set(Some(k));
                    on_line.emit(line);
                }
            };
            let hide = {
                let (active, on_line) = (active.clone(), p.on_line.clone());
                move || {
                    active.set(None);
                    on_line.emit(None);
                }
            };
            let (s1, s2, h1, h2) = (show.clone(), show, hide.clone(), hide);
            let onkeydown = {
                let g = g.clone();
                Callback::from(move |e: KeyboardEvent| {
                    if let Ok(d) = &*g.0
                        && let Some(to) = step(d, k, &e.key())
                    {
                        e.prevent_default();
                        focus_node(to);
                    }
                })
            };
            let lit = n.line.is_some() && n.line == p.line;
            html! {
                <g id={node_id(k)} class={classes!("dag-node", n.class.css(), lit.then_some("dag-lit"))}
                    tabindex="0" role="button" aria-label={n.title.replace('\n', " — ")}
                    transform={format!("translate({},{})", n.x, n.y)}
                    onfocus={Callback::from(move |_: FocusEvent| s1())}
                    onmouseenter={Callback::from(move |_: MouseEvent| s2())}
                    onblur={Callback::from(move |_: FocusEvent| h1())}
                    onmouseleave={Callback::from(move |_: MouseEvent| h2())} {onkeydown}>
                    <title>{ n.title.clone() }</title>
                    <rect width={NODE_W.to_string()} height={NODE_H.to_string()} rx="6" />
                    <text x={(NODE_W / 2.0).to_string()} y={(NODE_H / 2.0 + 4.0).to_string()}
                        text-anchor="middle">{ n.label.clone() }</text>
                </g>
            }
        })
        .collect();
    html! {
        <div class="dag-scroll" id="dag-scroll">
            <svg class="dag" width={d.width.to_string()} height={d.height.to_string()}
                viewBox={format!("0 0 {} {}", d.width, d.height)} role="group"
                aria-label="Data-dependence graph of the fragment program">
                <defs>
                    <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7"
                        markerHeight="7" orient="auto-start-reverse">
                        <path d="M0,0 L10,5 L0,10 z" class="dag-arrow" />
                    </marker>
                </defs>
                { edges_html(d) }
                { nodes }
            </svg>
        </div>
    }
}

/// The legend: node colours, the arrows, and the marks of the optimized programs.
fn legend() -> Html {
    let classes: Html = Class::ALL
        .iter()
        .map(|c| html! { <li><span class={classes!("swatch", c.css())}></span>{ c.legend() }</li> })
        .collect();
    html! {
        <ul class="legend" id="dag-legend">
            { classes }
            <li><span class="lg-glyph" aria-hidden="true">{ "↓" }</span>{ "arrow: the lower instruction reads a value the upper one writes" }</li>
            <li><span class="lg-glyph" aria-hidden="true">{ "→" }</span>{ "in the optimized code: moved from the fragment program" }</li>
            <li><span class="lg-glyph" aria-hidden="true">{ "+" }</span>{ "in the optimized code: added by the optimizer (transport, save, gather…)" }</li>
            <li><span class="lg-glyph changed">{ "r0" }</span>{ "underlined: an operand the optimizer changed" }</li>
        </ul>
    }
}

#[function_component(DagView)]
pub fn dag_view(p: &DagProps) -> Html {
    let active = use_state(|| None::<usize>);
    let (body, why) = match p.graph.as_ref() {
        Some(g) => match &*g.0 {
            Ok(d) => {
                let why = active
                    .and_then(|k| d.nodes.get(k))
                    .map(|n| n.title.replace('\n', " — "))
                    .or_else(|| {
                        let line = p.line?;
                        let n = d.nodes.iter().find(|n| n.line == Some(line))?;
                        Some(n.title.replace('\n', " — "))
                    });
                (graph_html(g, d, p, &active), why)
            }
            Err(m) => (html! { <p class="message">{ m.clone() }</p> }, None),
        },
        None => (html! { <p class="message">{ p.message.clone() }</p> }, None),
    };
    let why = why.unwrap_or_else(|| {
        "Hover or focus a node (Tab, then the arrow keys) to see its line and its fate.".into()
    });
    html! {
        <section class="panel dag-panel" id="dag" aria-label="Dependence graph">
            <h2>{ "Dependence graph of the fragment program" }</h2>
            <p class="muted">{ "As in the paper's Figure 4: an arrow means “reads a value written by”. \
                An instruction may move when it is executable per vertex (C1), touches no fragment-only \
                resource (C2), is affine in the interpolated inputs (C3) and everything it reads moves too (C4)." }</p>
            { legend() }
            { body }
            <p class="why dag-why" id="dag-why" aria-live="polite">{ why }</p>
        </section>
    }
}

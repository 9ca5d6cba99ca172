//! The register liveness panel (seed 002): both programs before and after optimization,
//! one grid each, its rows on the lines of the editor (or the optimized listing) they
//! belong to; each row's bar shows its live temporaries against the profile's limit (the
//! line), rows over it are marked, hovering a cell names its value, and a button scrolls to
//! the peak. Hidden until shown, so long programs cost nothing while it is closed.

use super::Shared;
use crate::worker::analysis::Analysis;
use crate::worker::liveness::{Grid, Row};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LivenessProps {
    pub analysis: Option<Shared<Analysis>>,
    /// Temp limits of the vertex and fragment profiles (with the panel's overrides).
    pub limits: [u16; 2],
    /// Lines of the vertex and fragment editors' texts.
    pub lines: [u32; 2],
}

/// The four grids: vertex and fragment, original then optimized.
fn grids(
    a: &Analysis,
    limits: [u16; 2],
    lines: [u32; 2],
) -> Vec<(&'static str, String, Option<Grid>)> {
    let original = |side: &crate::worker::analysis::Side, k: usize| {
        side.program
            .as_ref()
            .map(|p| Grid::new(p, limits[k], &side.lines.0, lines[k]))
    };
    let after = a.optimized.as_ref().map(|o| o.liveness.clone());
    let opt = |k: usize| after.as_ref().and_then(|g| g.get(k).cloned());
    vec![
        (
            "live-vp-before",
            "Vertex program, original".into(),
            original(&a.vp, 0),
        ),
        (
            "live-fp-before",
            "Fragment program, original".into(),
            original(&a.fp, 1),
        ),
        ("live-vp-after", "Vertex program, optimized".into(), opt(0)),
        (
            "live-fp-after",
            "Fragment program, optimized".into(),
            opt(1),
        ),
    ]
}

#[function_component(LivenessPanel)]
pub fn liveness_panel(p: &LivenessProps) -> Html {
    let open = use_state(|| false);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let body = match (&p.analysis, *open) {
        (Some(a), true) => {
            let all = grids(&a.0, p.limits, p.lines);
            html! {
                <div class="live-grids">
                    { for all.into_iter().map(|(id, title, g)| grid_view(id, &title, g.map(Rc::new))) }
                </div>
            }
        }
        (None, true) => html! { <p class="muted">{ "…" }</p> },
        _ => Html::default(),
    };
    html! {
        <section class="panel liveness" id="liveness">
            <h2>
                { "Register liveness" }
                <button type="button" class="link" id="liveness-toggle" aria-expanded={(*open).to_string()}
                    onclick={toggle}>{ if *open { "hide" } else { "show" } }</button>
            </h2>
            if *open {
                <p class="hint">{ "Per instruction and register component: - empty, l live, r read, w written, \
                    a read and written. Rows sit on the programs' lines; the bar is the row's live \
                    temporaries, the line across it the profile's limit. Hover a cell for its value." }</p>
            }
            { body }
        </section>
    }
}

/// One program's grid with its headline and the jump to its peak.
fn grid_view(id: &'static str, title: &str, g: Option<Rc<Grid>>) -> Html {
    let Some(g) = g else {
        return html! {
            <div class="live-grid" id={id}><h3>{ title.to_string() }</h3>
                <p class="muted">{ "no program (errors, or not optimized yet)" }</p></div>
        };
    };
    let peak = g.peak_line;
    let jump = Callback::from(move |_: MouseEvent| {
        let el = peak.and_then(|l| {
            web_sys::window()?
                .document()?
                .get_element_by_id(&format!("{id}-line-{l}"))
        });
        if let Some(el) = el {
            el.scroll_into_view();
        }
    });
    let scale = u32::from(g.limit).max(g.peak).max(1);
    html! {
        <div class="live-grid" id={id}>
            <h3>{ title.to_string() }</h3>
            <p class="live-summary">
                <span class="live-headline">{ g.summary() }</span>
                if peak.is_some() {
                    <button type="button" class="link live-jump" onclick={jump}>{ "jump to the peak" }</button>
                }
            </p>
            <div class="live-table" role="table" aria-label={title.to_string()}>
                <div class="live-row head" role="row">
                    <span class="ln"></span><span class="bar"></span><span class="n"></span>
                    { for g.names.iter().map(|n| html! { <span class="reg name" title={n.clone()}>{ n.clone() }</span> }) }
                </div>
                { for (1..=g.lines.min(4096)).map(|line| match g.row_at(line) {
                    Some(r) => row_view(id, &g, r, scale),
                    None => html! { <div class="live-row blank" role="row"><span class="ln">{ line }</span></div> },
                }) }
            </div>
        </div>
    }
}

fn row_view(id: &str, g: &Grid, r: &Row, scale: u32) -> Html {
    let over = r.live > u32::from(g.limit);
    let is_peak = Some(r.line) == g.peak_line;
    let pct = |n: u32| f64::from(n) * 100.0 / f64::from(scale);
    let cells: Vec<char> = r.cells.chars().collect();
    html! {
        <div class={classes!("live-row", over.then_some("over"), is_peak.then_some("peak"))}
            id={format!("{id}-line-{}", r.line)} role="row"
            style={format!("--p: {:.3}", g.pressure(r.live).min(1.5))}>
            <span class="ln">{ r.line }</span>
            <span class="bar" title={format!("{} of {} temporaries", r.live, g.limit)}>
                <span class="fill" style={format!("width: {:.1}%", pct(r.live))}></span>
                <span class="limit" style={format!("left: {:.1}%", pct(u32::from(g.limit)))}></span>
            </span>
            <span class="n">{ r.live }</span>
            { for cells.chunks(4).enumerate().map(|(k, four)| html! {
                <span class="reg">
                    { for four.iter().enumerate().map(|(c, ch)| {
                        let title = r.values.get(k * 4 + c).cloned().flatten();
                        html! { <span class={classes!("cell", format!("c-{ch}"))} {title}>{ ch.to_string() }</span> }
                    }) }
                </span>
            }) }
        </div>
    }
}

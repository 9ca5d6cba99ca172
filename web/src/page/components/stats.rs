//! Statistics (slots, interpolators, temporaries, render times) and the estimate panel
//! (per-frame totals under the chosen cost model: `page::estimate`).

use super::Shared;
use crate::doc::cost::CostChoice;
use crate::page::estimate::{Estimate, Model, change_view, reduction_pct, thousands};
use crate::page::state::Rendered;
use crate::worker::analysis::{Analysis, QUAD_VERTICES};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StatsProps {
    pub analysis: Option<Shared<Analysis>>,
    pub rendered: Option<Shared<Rendered>>,
    pub width: u32,
    pub height: u32,
    /// Time the worker's parse and optimization took, and its validation after the images
    /// (ms; 0: not sent apart).
    #[prop_or_default]
    pub analysis_ms: f64,
    #[prop_or_default]
    pub validation_ms: f64,
    /// The selection's cost model.
    #[prop_or_default]
    pub cost: CostChoice,
    /// The modern model's fragment slots per interpolated component.
    #[prop_or(0.5)]
    pub interp_cost: f64,
    /// Render times of this document's renders (`State::timings`).
    #[prop_or_default]
    pub timings: Vec<[f64; 2]>,
    #[prop_or_default]
    pub dispatch: Callback<crate::page::state::Action>,
}

fn arrow(id: &str, label: &str, b: String, a: String, note: String) -> Html {
    html! {
        <tr>
            <th scope="row">{ label.to_string() }</th>
            <td class="num"><span id={id.to_string()}>{ format!("{b} → {a}") }</span>
                if !note.is_empty() {
                    // A separator for screen readers ("7 → 7, unchanged", not "7 → 70%").
                    <span class="visually-hidden">{ ", " }</span>
                    <span class="note">{ note }</span>
                }</td>
        </tr>
    }
}

/// The render times of this document's renders: samples with their spread
/// (`summary::timing`), never "before → after"; "time again" renders once more.
fn time_row(p: &StatsProps) -> Html {
    let Some(t) = crate::page::summary::timing(&p.timings) else {
        return html! {};
    };
    let d = p.dispatch.clone();
    let again = Callback::from(move |_| d.emit(crate::page::state::Action::Rerun));
    html! {
        <tr title="Wall-clock time of the software rasterizer in this tab for each pair, compiling \
            its kernels included. Times vary from render to render by more than the programs \
            differ, so they are no speed-up; the GPU view times both pairs on a GPU.">
            <th scope="row">{ "render time" }</th>
            <td class="num"><span id="stat-time">{ t }</span>
                if p.timings.len() == 1 {
                    <span class="muted">{ " (one render each, not a comparison)" }</span>
                }
                { " " }
                <button type="button" class="link" id="stat-time-again" onclick={again}>{ "time again" }</button></td>
        </tr>
    }
}

/// The cost model the selection ran under and what it minimised; under the R600 model,
/// its price of both pairs and the fragment program's groups and fetches on the chip.
fn cost_view(a: &Analysis, cost: CostChoice) -> Html {
    let machine = a.optimized.as_ref().map(|o| &o.machine);
    let priced = machine.and_then(|m| m.priced.map(|p| (m, p)));
    let figures = priced.map(|(m, p)| {
        let (fb, fa) = (m.fp_before.as_ref().map(|s| &s.stats), &m.fp_after.stats);
        let before =
            |f: fn(&hoist_opt::r600::Stats) -> u32| fb.map_or("–".into(), |s| f(s).to_string());
        let cycles = p.before.map_or("–".into(), |c| format!("{c:.2}"));
        let bound = match fa.bottleneck {
            hoist_opt::r600::Bottleneck::Alu => ", ALU-bound",
            hoist_opt::r600::Bottleneck::Fetch => ", fetch-bound",
            hoist_opt::r600::Bottleneck::None => "",
        };
        format!(
            ": {cycles} → {:.2} (fragment on {}: {} → {} ALU groups, {} → {} fetches{bound})",
            p.after,
            m.chip,
            before(|s| s.alu_groups),
            fa.alu_groups,
            before(|s| s.fetches),
            fa.fetches
        )
    });
    html! {
        <p class="muted" id="stat-cost">
            { format!("cost model: {} — minimises {}", cost.id(), cost.minimises()) }
            { figures.unwrap_or_default() }
        </p>
    }
}

/// The vector-packing pass's merges, when it ran.
fn slp_row(a: &Analysis) -> Html {
    let Some([v, f]) = a.optimized.as_ref().and_then(|o| o.slp_merges) else {
        return Html::default();
    };
    html! {
        <tr title="Instructions the vector-packing pass (SLP) merged away; validation and the render check the result">
            <th scope="row">{ "vector packing (SLP)" }</th>
            <td class="num"><span id="stat-slp">{ format!("{f} fragment, {v} vertex merge(s)") }</span></td>
        </tr>
    }
}

/// The executors of both renders in words ("compiled → compiled"; one when they agree).
fn executors(r: Option<&crate::worker::render::Rendered>) -> Option<String> {
    let r = r?;
    let name = |x: &crate::worker::render::RunResult| {
        x.as_ref()
            .ok()
            .and_then(|x| x.executor.as_ref())
            .map(ToString::to_string)
    };
    let a = name(&r.original)?;
    let line = match r.optimized.as_ref().and_then(name) {
        Some(b) if b != a => format!("{a} → {b}"),
        _ => a,
    };
    let bands =
        |x: &crate::worker::render::RunResult| x.as_ref().map_or((0, 0), |x| (x.helped, x.shared));
    let (a, b) = (
        bands(&r.original),
        r.optimized.as_ref().map_or((0, 0), bands),
    );
    let (helped, shared) = (a.0 + b.0, a.1 + b.1);
    Some(if helped > 0 {
        format!("{line}; {helped} of {shared} bands drawn by helper workers")
    } else {
        line
    })
}

/// The Estimate panel, under the selection's cost model: the rasterizer's counts for a
/// single-draw render, else one full-window quad.
fn estimate_view(
    p: &StatsProps,
    a: &Analysis,
    b: &hoist_opt::Stats,
    af: &hoist_opt::Stats,
) -> Html {
    let measured = p
        .rendered
        .as_ref()
        .and_then(|r| r.original.as_ref().ok())
        .filter(|r| r.stats.draws == 1)
        .map(|r| (r.stats.vertex_invocations, r.stats.fragment_invocations));
    let (verts, frags) =
        measured.unwrap_or((QUAD_VERTICES, u64::from(p.width) * u64::from(p.height)));
    let priced = a.optimized.as_ref().and_then(|o| o.machine.priced);
    let model = match (p.cost, priced) {
        (CostChoice::Modern, _) => Model::Modern(p.interp_cost),
        (CostChoice::R600 | CostChoice::R700, Some(m)) => Model::Cycles {
            before: m.before,
            after: m.after,
        },
        _ => Model::Paper,
    };
    let e = Estimate::new(b, af, verts, frags, model);
    let (change, change_class) = change_view(e.change_pct());
    let (formula, unit, words) = e.heading();
    let row = |name: &str, id: &str, w: &crate::page::estimate::Work| {
        html! {
            <tr>
                <th scope="row">{ name.to_string() }</th>
                <td class="num">{ e.formula(w) }</td>
                <td class="num" id={id.to_string()}>{ Estimate::total_view(w) }</td>
            </tr>
        }
    };
    let ratio = match model {
        Model::Cycles { .. } => String::new(),
        _ => format!(": a fragment slot costs {:.0}× a vertex slot", e.ratio()),
    };
    html! {
        <section class="panel estimate" id="estimate" aria-label="Estimate">
            <h2>{ "Estimate" }</h2>
            <p>
                { "Per frame the vertex program runs " }<b>{ thousands(verts) }</b>{ "×, the fragment program " }
                <b>{ thousands(frags) }</b>{ "×" }
                { if measured.is_some() { " (counted by the rasterizer)" } else { " (one quad over the window)" } }
                { format!("{ratio}.") }
            </p>
            <p class="muted" id="estimate-model">{ format!("cost model {words}") }</p>
            <table>
                <thead><tr><th></th><th id="estimate-formula">{ formula }</th><th>{ unit }</th></tr></thead>
                <tbody>
                    { row("before", "estimate-before", &e.before) }
                    { row("after", "estimate-after", &e.after) }
                </tbody>
            </table>
            <p id="estimate-change" class={classes!(change_class)}>
                { format!("{change} {unit} per frame") }
            </p>
        </section>
    }
}

#[function_component(StatsPanel)]
pub fn stats_panel(p: &StatsProps) -> Html {
    let Some(a) = &p.analysis else {
        return html! { <section class="panel stats"><h2>{ "Statistics" }</h2><p class="muted">{ "…" }</p></section> };
    };
    let (Some(b), after) = (a.before, a.after) else {
        return html! {
            <section class="panel stats" id="stats"><h2>{ "Statistics" }</h2>
                <p class="message">{ a.problem.clone().unwrap_or_default() }</p></section>
        };
    };
    let af = after.unwrap_or(b);
    let (fb, fa) = (b.fp_slots.total(), af.fp_slots.total());
    let (vb, va) = (b.vp_slots.total(), af.vp_slots.total());
    let fp_note = if fb == fa {
        "unchanged".to_string()
    } else if fb > fa {
        format!("{:.0}% fewer", reduction_pct(fb, fa))
    } else {
        format!("{:.0}% more", -reduction_pct(fb, fa))
    };
    let vp_note = match i64::from(va) - i64::from(vb) {
        0 => "unchanged".to_string(),
        d => format!("{d:+}"),
    };
    let chosen = a.optimized.as_ref().map(|o| {
        let rule = &o.chosen;
        let proven = o.proven_optimal;
        format!(
            "selection: {rule}{}{}",
            if proven { " (proven optimal)" } else { "" },
            if a.hand.is_some() {
                " · showing your hand edit"
            } else {
                ""
            }
        )
    });
    let notes: Html = a
        .optimized
        .as_ref()
        .map(|o| {
            o.notes
                .iter()
                .map(|n| html! { <li>{ n.clone() }</li> })
                .collect()
        })
        .unwrap_or_default();

    html! {
        <>
        <section class="panel stats" id="stats" aria-label="Statistics">
            <h2>{ "Statistics" }</h2>
            <table>
                <tbody>
                    { arrow("stat-fp", "fragment slots", fb.to_string(), fa.to_string(), fp_note) }
                    { arrow("stat-vp", "vertex slots", vb.to_string(), va.to_string(), vp_note) }
                    { arrow("stat-interp", "interpolated components",
                        b.interp_components.to_string(), af.interp_components.to_string(),
                        format!("of {}", af.interp_available * 4)) }
                    { arrow("stat-regs", "interpolator registers",
                        b.interp_registers.to_string(), af.interp_registers.to_string(),
                        format!("of {}", af.interp_available)) }
                    { arrow("stat-vtemps", "vertex temporaries", b.vp_temps.to_string(), af.vp_temps.to_string(), String::new()) }
                    { arrow("stat-ftemps", "fragment temporaries", b.fp_temps.to_string(), af.fp_temps.to_string(), String::new()) }
                    { slp_row(a) }
                    <tr title="Parsing and optimizing both programs in the page's worker, and validating the result (after the images are drawn)">
                        <th scope="row">{ "optimizer time" }</th>
                        <td class="num"><span id="stat-opt-time">{ format!("{:.1} ms", p.analysis_ms) }</span>
                            if p.validation_ms > 0.0 {
                                <span class="muted" id="stat-validation-time">{ format!(", validation {:.1} ms", p.validation_ms) }</span>
                            }</td>
                    </tr>
                    { time_row(p) }
                    if let Some(ex) = executors(p.rendered.as_ref().map(|r| &*r.0)) {
                        <tr title="What ran the fragment programs: wasm compiled from them, or the interpreter (and why)">
                            <th scope="row">{ "executor" }</th>
                            <td class="num"><span id="stat-exec">{ ex }</span></td>
                        </tr>
                    }
                </tbody>
            </table>
            if let Some(c) = chosen { <p class="muted">{ c }</p> }
            { cost_view(a, p.cost) }
            if let Some(pr) = &a.problem { <p class="message">{ pr.clone() }</p> }
            <ul class="notes">{ notes }</ul>
        </section>
        { estimate_view(p, a, &b, &af) }
        </>
    }
}

//! The Machine panel: the fragment and vertex programs on an R600-family VLIW-5 GPU before
//! and after the code motion — a ShaderAnalyzer-style row of figures with utilisation bars,
//! and the bundled listings with their slot letters (`crate::worker::machine`).

use super::Shared;
use crate::worker::machine::{MachineSide, MachineView};
use hoist_opt::r600::stats::Bottleneck;
use hoist_opt::r600::{Chip, Stats};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct MachineProps {
    pub view: Option<Shared<MachineView>>,
}

fn bar(id: String, frac: f64) -> Html {
    let pct = (100.0 * frac).clamp(0.0, 100.0);
    html! {
        <span class="machine-bar" id={id} title={format!("{pct:.1}%")}>
            <span class="machine-fill" style={format!("width: {pct:.1}%")}></span>
            <span class="machine-pct">{ format!("{pct:.1}%") }</span>
        </span>
    }
}

fn row(id: &str, label: &str, s: &Stats) -> Html {
    let ratio = s.alu_fetch_ratio.map_or("–".into(), |r| format!("{r:.2}"));
    let neck = match s.bottleneck {
        Bottleneck::Alu => "ALU",
        Bottleneck::Fetch => "fetch",
        Bottleneck::None => "–",
    };
    html! {
        <tr id={format!("machine-{id}")}>
            <th scope="row">{ label.to_string() }</th>
            <td class="num">{ s.alu_groups }</td>
            <td>{ bar(format!("machine-{id}-slots"), s.slot_utilization) }</td>
            <td class="num">{ s.fetches }</td>
            <td>{ bar(format!("machine-{id}-fetch"), s.fetch_utilization) }</td>
            <td class="num">{ ratio }</td>
            <td class="num">{ s.gprs }</td>
            <td class="num">{ s.wavefronts }</td>
            <td class="num">{ s.clauses }</td>
            <td class="num">{ format!("{} ({neck})", s.estimated_cycles) }</td>
        </tr>
    }
}

fn table(v: &MachineView) -> Html {
    let rows = [
        ("fp-before", "Fragment, original", v.fp_before.as_ref()),
        ("fp-after", "Fragment, optimized", Some(&v.fp_after)),
        ("vp-before", "Vertex, original", v.vp_before.as_ref()),
        ("vp-after", "Vertex, optimized", Some(&v.vp_after)),
    ];
    html! {
        <table class="machine-table">
            <thead><tr>
                <th></th><th>{ "ALU groups" }</th><th>{ "slot use" }</th><th>{ "fetches" }</th>
                <th>{ "fetch use" }</th><th>{ "ALU:fetch" }</th><th>{ "GPRs" }</th>
                <th>{ "wavefronts" }</th><th>{ "clauses" }</th><th>{ "cycles (bound)" }</th>
            </tr></thead>
            <tbody>
                { for rows.iter().filter_map(|(id, label, s)| s.map(|s| row(id, label, &s.stats))) }
            </tbody>
        </table>
    }
}

fn listing(id: &str, title: &str, side: Option<&MachineSide>) -> Html {
    let Some(side) = side else { return html! {} };
    html! {
        <div class="machine-listing">
            <h3>{ title.to_string() }</h3>
            <pre id={id.to_string()} class="code">{ side.listing.clone() }</pre>
            { for side.notes.iter().map(|n| html! { <p class="note">{ format!("Lower bound: {n}") }</p> }) }
        </div>
    }
}

fn chip_card(chip: Chip) -> &'static str {
    match chip {
        Chip::R600 => "Radeon HD 3870",
        Chip::R700 => "Radeon HD 4870",
    }
}

#[function_component(MachinePanel)]
pub fn machine_panel(p: &MachineProps) -> Html {
    let Some(v) = &p.view else {
        return html! {
            <section class="panel machine" id="machine"><h2>{ "Machine" }</h2>
                <p class="muted">{ "…" }</p></section>
        };
    };
    html! {
        <section class="panel machine" id="machine">
            <h2>{ format!("Machine: {} VLIW-5 ({})", v.chip.id().to_uppercase(), chip_card(v.chip)) }</h2>
            <p class="hint">{ "What each program becomes on an R600-family GPU: instruction groups of five \
                slots (x, y, z, w and t), fetches, registers and wavefronts, estimated cycles per \
                wavefront and what bounds them (seed 004, AMD GPU ShaderAnalyzer's figures)." }</p>
            <p class="hint" id="machine-occupancy">{ "The cycles are per wavefront: occupancy is not priced. \
                Fewer wavefronts (more GPRs) hide less fetch latency, which these cycles do not show. \
                GPRs are registers after lowering to the chip; the Statistics panel's temporaries are the \
                program's own TEMP registers, and the liveness panel's peak is how many of them are live \
                at once — three counts of different things." }</p>
            { table(v) }
            <div class="machine-listings">
                { listing("machine-listing-before", "Fragment program, original", v.fp_before.as_ref()) }
                { listing("machine-listing-after", "Fragment program, optimized", Some(&v.fp_after)) }
            </div>
        </section>
    }
}

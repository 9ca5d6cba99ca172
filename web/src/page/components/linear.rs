//! The "Linear expression" mode (seed 003): the mode switch, the system's input (example
//! picker, text with diagnostics at their line), and the worker's result — costs with their
//! parts, heat maps of A before and after the permutation, the grouping, both programs and
//! the executor's verdict.

use crate::doc::Mode;
use crate::page::components::editor::Editor;
use crate::page::components::linear_heat::HeatMap;
use crate::page::components::{Shared, event_value, segs_html};
use crate::page::highlight;
use crate::page::state::{Action, LinearResult, State};
use crate::worker::linear::{self, Input, LinearDoc, Outcome, sci};
use hoist_asm::{Dialect, Stage};
use serde::Serialize;
use yew::prelude::*;

/// The two tabs above the page: code motion or linear expressions.
pub fn mode_switch(mode: Mode, dispatch: &Callback<Action>) -> Html {
    let tab = |m: Mode, id: &str, label: &str| {
        let d = dispatch.clone();
        html! {
            <button type="button" role="tab" id={id.to_string()} aria-selected={(mode == m).to_string()}
                class={classes!("mode-tab", (mode == m).then_some("on"))}
                onclick={Callback::from(move |_| d.emit(Action::SetMode(m)))}>{ label.to_string() }</button>
        }
    };
    html! {
        <nav class="modes" role="tablist" aria-label="Mode">
            { tab(Mode::Code, "mode-code", "Code motion") }
            { tab(Mode::Linear, "mode-linear", "Linear expression") }
        </nav>
    }
}

#[derive(Properties, PartialEq)]
pub struct LinearProps {
    pub doc: LinearDoc,
    pub result: Option<LinearResult>,
    /// The result belongs to the document shown.
    pub current: bool,
    pub working: bool,
    pub ms: f64,
    pub engine_error: Option<AttrValue>,
    pub dispatch: Callback<Action>,
    /// The lane debugger: its x vector (open), row and trace.
    #[prop_or_default]
    pub debug: Option<usize>,
    #[prop_or_default]
    pub debug_row: usize,
    #[prop_or_default]
    pub traced: Option<crate::page::state::LinearTraced>,
}

fn picker(doc: &LinearDoc, dispatch: &Callback<Action>) -> Html {
    let pristine = doc.is_example_text();
    let selected = if pristine { doc.example.clone() } else { None };
    let selected = &selected;
    let on_pick = {
        let (d, d3d9, unpermute, converge) =
            (dispatch.clone(), doc.d3d9, doc.unpermute, doc.converge);
        Callback::from(move |e: Event| {
            if let Some(mut l) = LinearDoc::example(&event_value(&e), d3d9) {
                l.unpermute = unpermute;
                l.converge = converge;
                d.emit(Action::SetLinear(l));
            }
        })
    };
    let option = |e: &linear::Example| {
        html! { <option value={e.name} selected={selected.as_deref() == Some(e.name)}>{ e.title }</option> }
    };
    let of = |input: Input| linear::EXAMPLES.iter().filter(move |e| e.input() == input);
    let on_dialect = {
        let (d, doc) = (dispatch.clone(), doc.clone());
        Callback::from(move |e: Event| {
            d.emit(Action::SetLinear(LinearDoc {
                d3d9: event_value(&e) == "d3d9",
                ..doc.clone()
            }))
        })
    };
    let caption = doc.example.as_deref().and_then(linear::find).map(|e| {
        let edited = if pristine { "" } else { " (edited)" };
        format!("{}{edited}: {}", e.title, e.caption)
    });
    html! {
        <div class="linear-pick">
            <label>{ "Example " }
                <select id="linear-example" onchange={on_pick}>
                    <option value="" selected={selected.is_none()}>{ "your own (edited)" }</option>
                    <optgroup label="Systems">{ for of(Input::System).map(option) }</optgroup>
                    <optgroup label="Programs (system recovered)">{ for of(Input::Program).map(option) }</optgroup>
                </select>
            </label>
            <label>{ " Code " }
                <select id="linear-dialect" onchange={on_dialect}>
                    <option value="arb" selected={!doc.d3d9}>{ "ARB vertex program" }</option>
                    <option value="d3d9" selected={doc.d3d9}>{ "Direct3D 9 vs_3_0" }</option>
                </select>
            </label>
            if let Some(c) = caption { <p class="muted caption" id="linear-caption">{ c }</p> }
        </div>
    }
}

fn input(
    doc: &LinearDoc,
    dispatch: &Callback<Action>,
    side: Shared<crate::worker::analysis::Side>,
) -> Html {
    let onchange = {
        let (d, doc) = (dispatch.clone(), doc.clone());
        Callback::from(move |text: String| {
            d.emit(Action::SetLinear(LinearDoc {
                text,
                ..doc.clone()
            }))
        })
    };
    let program = doc.input == Input::Program;
    let stage = side.0.profile.map_or(Stage::Vertex, |p| p.stage());
    let (title, help) = if program {
        (
            "Straight-line ARB or Direct3D 9 program",
            format!(
                "Its outputs (or the register named above) are recovered as y = A·x + b: inputs, interpolants and host-set \
             constants are variables, literals are numbers, and each result of a non-affine instruction (TEX, RCP, a product of \
             two variables, …) is a new variable named after its line. Flow control is refused. Up to {} rows and variables.",
                linear::MAX_PAGE_VARS
            ),
        )
    } else {
        (
            "One row per line",
            format!(
                "Each row: `column:coefficient` entries and an optional `b:value` (`-`: an empty row); \
             `name N`, `repeat K`, `split lower` (Gauss-Seidel); `#` comments. Up to {} variables.",
                linear::MAX_PAGE_VARS
            ),
        )
    };
    html! {
        <section class="linear-input" aria-label="Linear system">
            <h2>{ "System y = A·x + b" }</h2>
            { crate::page::components::linear_recover::controls(doc, dispatch) }
            { picker(doc, dispatch) }
            <Editor id="linear-text" {title} value={doc.text.clone()} {stage}
                side={Some(side)} {onchange} scene={!program} />
            <p class="muted small">{ help }</p>
        </section>
    }
}

fn cost_row(label: &str, s: &linear::Side) -> Html {
    let c = &s.cost;
    html! {
        <tr>
            <th scope="row">{ label.to_string() }</th>
            <td>{ c.blocks }</td><td>{ c.sums }</td>
            <td>{ c.column_major_blocks }</td><td>{ c.row_major_blocks }</td>
            <td>{ if c.repeat > 1 { format!("× {}", c.repeat) } else { "1".into() } }</td>
            <td class="total">{ c.total }</td>
            <td>{ s.instructions }</td><td>{ s.extra }</td>
        </tr>
    }
}

fn costs(o: &Outcome, ms: f64) -> Html {
    let proof = if o.proven_optimal {
        html! { <span class="badge good" id="linear-proof">{ "proven optimal" }</span> }
    } else {
        html! { <span class="badge" id="linear-proof">{ format!("{} above the bound", o.after.cost.total - o.lower_bound) }</span> }
    };
    html! {
        <section class="linear-costs" id="linear-costs" aria-label="Costs">
            <h2>{ "Cost" }</h2>
            <p class="headline">
                <span id="linear-cost-before">{ o.before.cost.total }</span>{ " → " }
                <span id="linear-cost-after">{ o.after.cost.total }</span>{ " instructions (model) · lower bound " }
                <span id="linear-bound">{ o.lower_bound }</span>{ " " }{ proof }
            </p>
            <p class="muted">{ format!("found by {} · {} variables, {} non-zeros, {} scalar operations · {:.0} ms in the worker",
                o.method, o.vars, o.nnz, o.scalar_ops, ms) }</p>
            if let Some(p) = &o.paper {
                <p class="muted" id="linear-paper">{ format!("the paper ({}) reports {} → {}", p.source, p.before, p.after) }</p>
            }
            <table class="linear-table">
                <thead><tr>
                    <th></th><th>{ "ΣC^T" }</th><th>{ "ΣC^sum" }</th><th>{ "col-major blocks" }</th>
                    <th>{ "row-major blocks" }</th><th>{ "evaluations" }</th><th>{ "total" }</th>
                    <th>{ "emitted instructions" }</th><th>{ "beyond the model" }</th>
                </tr></thead>
                <tbody>{ cost_row("original order", &o.before) }{ cost_row("packed", &o.after) }</tbody>
            </table>
            <p class="muted small">{ "Emitted instructions are one evaluation; “beyond the model” counts what the paper's cost leaves out \
                (a MOV for a block row without blocks or for the lanes a first DP4 leaves, an ADD for b where one instruction reads one constant)." }</p>
            { unpermute(o) }
            { profiles(o) }
            <details class="methods"><summary>{ "methods tried" }</summary>
                <ul>{ for o.methods.iter().map(|m| html! { <li>{ format!("{:>5}  {}", m.cost, m.method) }</li> }) }</ul>
            </details>
        </section>
    }
}

/// The un-permute MOVs of both orders: what fixed output registers cost.
fn unpermute(o: &Outcome) -> Html {
    let (b, a) = (&o.before, &o.after);
    let state = if o.unpermute {
        "in the code below and run by the verdict"
    } else {
        "not emitted (tick “un-permute the outputs” to add them)"
    };
    html! {
        <p class="muted" id="linear-unpermute-cost">{ format!(
            "Un-permute MOVs (outputs in fixed registers, original order): original order {} ({} beyond one per output), \
             packed {} ({} beyond) — {state}. With them: {} → {} instructions.",
            b.unpermute_moves, b.unpermute_extra, a.unpermute_moves, a.unpermute_extra,
            b.instructions + b.unpermute_moves, a.instructions + a.unpermute_moves) }</p>
    }
}

/// The packed code's length on real profiles, beside the paper's model.
fn profiles(o: &Outcome) -> Html {
    if o.profiles.is_empty() {
        return Html::default();
    }
    html! {
        <table class="linear-table" id="linear-profiles">
            <thead><tr><th>{ "on a profile" }</th><th>{ "original order" }</th><th>{ "packed" }</th><th>{ "what the model leaves out there" }</th></tr></thead>
            <tbody>{ for o.profiles.iter().map(|p| html! {
                <tr><th scope="row">{ profile_name(&p.profile) }</th><td>{ p.before }</td><td>{ p.after }</td>
                    <td class="rule">{ p.rule.clone() }</td></tr>
            }) }</tbody>
        </table>
    }
}

fn profile_name(p: &str) -> &str {
    match p {
        "arb_fragment" => "ARB fragment",
        "arb_vertex" => "ARB vertex",
        "vs_1_1_constants" => "vs_1_1, x in constants",
        other => other,
    }
}

fn grouping(o: &Outcome) -> Html {
    let reg = |g: usize| {
        if o.d3d9 {
            format!("v{g} → r{}", g + 1)
        } else {
            format!("attrib[{g}] → y{g}")
        }
    };
    let names = o.recovered.as_ref().map(|r| &r.variables);
    let var = |v: usize| match names.and_then(|n| n.get(v)) {
        Some(n) => format!("x{v} ({})", n.name),
        None if v < o.vars => format!("x{v}"),
        None => "pad".into(),
    };
    html! {
        <section class="linear-grouping" aria-label="Grouping">
            <h2>{ "Grouping" }</h2>
            <ol id="linear-grouping" class="grouping" start="0">
                { for o.after.order.chunks(4).enumerate().map(|(g, vs)| html! {
                    <li><code>{ reg(g) }</code>{ " ← " }{ vs.iter().map(|&v| var(v)).collect::<Vec<_>>().join(", ") }</li>
                }) }
            </ol>
        </section>
    }
}

fn code(id: &str, title: String, text: &str, d3d9: bool) -> Html {
    let dialect = if d3d9 { Dialect::D3d9 } else { Dialect::Arb };
    let lines = highlight::lines(text, &highlight::tokens(text, dialect), &[]);
    html! {
        <section class="linear-code optimized" id={id.to_string()}>
            <header class="ed-head"><span class="ed-title">{ title }</span></header>
            <pre class="code-view">{ for lines.iter().map(|l| html! { <div class="line">{ segs_html(l) }{ "\u{200b}" }</div> }) }</pre>
        </section>
    }
}

fn verdict(o: &Outcome) -> Html {
    let v = &o.verdict;
    let good = v.error.is_none() && v.equivalent;
    html! {
        <section class={classes!("linear-verdict", if good { "good" } else { "bad" })} id="linear-verdict" aria-label="Verdict">
            <h2>{ "Executor's verdict" }</h2>
            <p class="headline">{ v.headline() }</p>
            if v.error.is_none() {
                <p class="muted">{ format!(
                    "Both programs{} ran in the executor on {} seeded random x (one vertex each); y compared by variable over {} rows. \
                     Max |y_original − y_packed| {}; max |y − (A·x + b)| in f64: original {}, packed {}. \
                     Closest to its tolerance: row {}, {} against {}.",
                    if o.unpermute { ", with their un-permute MOVs," } else { "" }, v.vectors, v.rows, sci(v.max_delta), sci(v.max_error[0]), sci(v.max_error[1]), v.worst_row,
                    sci(v.worst_delta), sci(v.worst_tolerance)) }</p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ResultsProps {
    outcome: Shared<Outcome>,
    ms: f64,
}

/// The result, redrawn only when a new one arrives (not on every keystroke in the text).
#[function_component(Results)]
fn results(p: &ResultsProps) -> Html {
    result_view(&p.outcome, p.ms)
}

fn result_view(o: &Shared<Outcome>, ms: f64) -> Html {
    let side = |after: bool| if after { &o.after } else { &o.before };
    let title = |after: bool| {
        let s = side(after);
        let moves = if o.unpermute {
            format!(" + {} un-permute MOVs", s.unpermute_moves)
        } else {
            String::new()
        };
        format!(
            "{} — {} instructions ({} beyond the model){moves}",
            if after { "Packed" } else { "Original order" },
            s.instructions,
            s.extra
        )
    };
    html! {
        <>
            { verdict(o) }
            { costs(o, ms) }
            <section class="heats" aria-label="Heat maps of A">
                <HeatMap id="before" title={format!("A in the original order (cost {})", o.before.cost.total)} outcome={o.clone()} after={false} />
                <HeatMap id="after" title={format!("A after the permutation (cost {})", o.after.cost.total)} outcome={o.clone()} after={true} />
                <p class="legend muted small">
                    <span class="swatch cm"></span>{ " column-major block (MUL + MADs) " }
                    <span class="swatch rm"></span>{ " row-major block (masked DP4s) " }
                    <span class="swatch mixed"></span>{ " both (Gauss-Seidel terms) · the number is the block's cost" }
                </p>
            </section>
            { grouping(o) }
            <section class="linear-codes">
                { code("linear-code-before", title(false), &o.before.code, o.d3d9) }
                { code("linear-code-after", title(true), &o.after.code, o.d3d9) }
            </section>
        </>
    }
}

#[function_component(LinearView)]
pub fn linear_view(p: &LinearProps) -> Html {
    let side = use_memo(p.doc.clone(), |d| {
        Shared(std::rc::Rc::new(linear::editor_side(d)))
    });
    let body = match (&p.result, &p.engine_error) {
        (_, Some(e)) if !p.current => {
            html! { <p class="message bad" id="linear-problem">{ e.clone() }</p> }
        }
        (Some(Ok(o)), _) => html! {
            <>
                if let Some(r) = &o.recovered { { crate::page::components::linear_recover::recovered(r, &p.doc, &p.dispatch) } }
                if o.searching && p.current {
                    <p class="muted working" id="linear-searching">
                        if o.proven_optimal {
                            { "the structured seeds' packing, checked: it meets the lower bound; the annealing still runs for the table of methods…" }
                        } else {
                            { "the structured seeds' packing, checked; annealing and branch and bound are searching for a cheaper one…" }
                        }
                    </p>
                }
                <Results outcome={Shared(o.clone())} ms={p.ms} />
                <crate::page::components::linear_debugger::LinearDebugger vector={p.debug}
                    row={p.debug_row} traced={p.traced.clone()} dispatch={p.dispatch.clone()} />
                { crate::page::components::linear_converge::section(o, &p.doc, &p.dispatch) }
            </>
        },
        (Some(Err(e)), _) => html! { <p class="message bad" id="linear-problem">{ e.clone() }</p> },
        (None, _) => html! { <p class="muted">{ "Packing…" }</p> },
    };
    html! {
        <main class={classes!("linear-layout", (!p.current).then_some("stale"))} id="linear">
            { input(&p.doc, &p.dispatch, (*side).clone()) }
            <div class="linear-results">
                if p.working { <p class="muted working" id="linear-working">{ "packing in the worker…" }</p> }
                { body }
            </div>
        </main>
    }
}

/// The mode's view of the page state.
pub fn page(s: &State, dispatch: &Callback<Action>) -> Html {
    html! {
        <LinearView doc={s.doc.linear.clone().unwrap_or_default()} result={s.linear.clone()}
            current={s.linear_rev == s.rev} working={s.is_optimizing()} ms={s.linear_ms}
            engine_error={s.engine_error.clone().map(AttrValue::from)} dispatch={dispatch.clone()}
            debug={s.linear_debug} debug_row={s.linear_debug_row} traced={s.linear_debug_view().cloned()} />
    }
}

/// `hoistReport().linear`: the mode and the figures of the last linear result.
#[derive(Serialize, Default)]
pub struct Report {
    mode: &'static str,
    /// The result belongs to the document shown.
    current: bool,
    cost_before: Option<u32>,
    cost_after: Option<u32>,
    lower_bound: Option<u32>,
    proven_optimal: Option<bool>,
    method: Option<String>,
    verdict: Option<String>,
    equivalent: Option<bool>,
    /// Variables after padding, and the non-empty blocks of the packed grouping.
    m: Option<usize>,
    blocks_after: Option<usize>,
    column_major_after: Option<u32>,
    row_major_after: Option<u32>,
    error: Option<String>,
    ms: f64,
    /// `system` or `program`.
    input: &'static str,
    /// A program's recovered system: row and variable names, non-affine variables, and
    /// its check against the program in the executor.
    recovered_rows: Option<Vec<String>>,
    recovered_variables: Option<Vec<String>>,
    recovered_nonlinear: Option<usize>,
    recover_check: Option<String>,
    recover_agrees: Option<bool>,
    recover_probes: Option<usize>,
    /// The un-permute option, its MOVs (original order, packed) and whether the code
    /// shown ends with them.
    unpermute: bool,
    unpermute_moves: Option<[usize; 2]>,
    unpermute_extra: Option<[usize; 2]>,
    /// The convergence: asked for, under way, its headline, steps (original, packed), the
    /// difference of the solutions, and whether both converged to the same one.
    converge: bool,
    converging: bool,
    /// The result shown is the seeds' first answer; the whole search's follows.
    searching: bool,
    convergence: Option<String>,
    converge_steps: Option<[usize; 2]>,
    converge_between: Option<f64>,
    converge_agrees: Option<bool>,
    /// The lane debugger: its x vector (0-based), the row stepped to, and its trace.
    debug: Option<LinearDebugReport>,
}

#[derive(Serialize)]
struct LinearDebugReport {
    vector: usize,
    row: usize,
    view: Option<Result<crate::worker::linear_debug::LinearDebugView, String>>,
}

fn report_more(r: &mut Report, o: &Outcome) {
    if let Some(rec) = &o.recovered {
        r.recovered_rows = Some(rec.rows.clone());
        r.recovered_variables = Some(rec.variables.iter().map(|v| v.name.clone()).collect());
        r.recovered_nonlinear = Some(rec.nonlinear);
        r.recover_check = Some(rec.check.headline());
        r.recover_agrees = Some(rec.check.agrees());
        r.recover_probes = Some(rec.check.probes);
    }
    r.unpermute_moves = Some([o.before.unpermute_moves, o.after.unpermute_moves]);
    r.unpermute_extra = Some([o.before.unpermute_extra, o.after.unpermute_extra]);
    r.converging = o.converging;
    r.searching = o.searching;
    match &o.convergence {
        Some(Ok(c)) => {
            r.convergence = Some(c.headline());
            r.converge_steps = Some([c.original.steps, c.packed.steps]);
            r.converge_between = Some(c.between);
            r.converge_agrees = Some(c.agrees());
        }
        Some(Err(e)) => r.convergence = Some(format!("not run: {e}")),
        None => {}
    }
}

pub fn report(s: &State) -> Report {
    let mut r = Report {
        mode: if s.doc.mode.is_code() {
            "code"
        } else {
            "linear"
        },
        current: s.linear_rev == s.rev,
        ms: s.linear_ms,
        ..Report::default()
    };
    let doc = s.doc.linear.clone().unwrap_or_default();
    r.input = if doc.input.is_system() {
        "system"
    } else {
        "program"
    };
    r.unpermute = doc.unpermute;
    r.converge = doc.converge;
    r.debug = s.linear_debug.map(|vector| LinearDebugReport {
        vector,
        row: s.linear_debug_row,
        view: s.linear_debug_view().map(|t| (*t.view).clone()),
    });
    match &s.linear {
        Some(Ok(o)) => {
            r.cost_before = Some(o.before.cost.total);
            r.cost_after = Some(o.after.cost.total);
            r.lower_bound = Some(o.lower_bound);
            r.proven_optimal = Some(o.proven_optimal);
            r.method = Some(o.method.clone());
            r.verdict = Some(o.verdict.headline());
            r.equivalent = Some(o.verdict.error.is_none() && o.verdict.equivalent);
            r.m = Some(o.m);
            r.blocks_after = Some(o.after.blocks.len());
            r.column_major_after = Some(o.after.cost.column_major_blocks);
            r.row_major_after = Some(o.after.cost.row_major_blocks);
            report_more(&mut r, o);
        }
        Some(Err(e)) => r.error = Some(e.clone()),
        None => {}
    }
    r
}

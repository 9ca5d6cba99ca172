//! The linear mode's input controls beyond the system text (issue 11): what the text is (a
//! system, or a program whose system is recovered), the register to recover, the
//! un-permute MOVs and the convergence; and the recovered system as the worker found it —
//! its rows over the named variables, each non-affine result at its source line, its text,
//! and its check against the program in the executor.

use crate::page::components::{event_checked, event_value};
use crate::page::state::Action;
use crate::worker::linear::{self, Input, LinearDoc, RecoveredView};
use yew::prelude::*;

/// The input kind, the register (programs) and the options of the code.
pub fn controls(doc: &LinearDoc, dispatch: &Callback<Action>) -> Html {
    let set = |f: fn(&mut LinearDoc, &Event)| {
        let (d, doc) = (dispatch.clone(), doc.clone());
        Callback::from(move |e: Event| {
            let mut l = doc.clone();
            f(&mut l, &e);
            d.emit(Action::SetLinear(l));
        })
    };
    let on_input = {
        let (d, doc) = (dispatch.clone(), doc.clone());
        Callback::from(move |e: Event| {
            let input = if event_value(&e) == "program" {
                Input::Program
            } else {
                Input::System
            };
            if input != doc.input {
                let name = match input {
                    Input::Program => linear::DEFAULT_PROGRAM,
                    Input::System => linear::DEFAULT,
                };
                if let Some(mut l) = LinearDoc::example(name, doc.d3d9) {
                    l.unpermute = doc.unpermute;
                    l.converge = doc.converge;
                    d.emit(Action::SetLinear(l));
                }
            }
        })
    };
    let program = doc.input == Input::Program;
    html! {
        <div class="linear-pick linear-options">
            <label>{ "Input " }
                <select id="linear-input-kind" onchange={on_input}>
                    <option value="system" selected={!program}>{ "a system (rows of A and b)" }</option>
                    <option value="program" selected={program}>{ "a program (system recovered)" }</option>
                </select>
            </label>
            if program {
                <label title="An ARB TEMP or OUTPUT name or binding (result.texcoord[0]), or a D3D9 register (r3, oT0); empty: every output the program writes">
                    { "Register " }
                    <input type="text" id="linear-register" size="14" placeholder="all outputs"
                        maxlength={crate::worker::linear_recover::MAX_REGISTER.to_string()} value={doc.register.clone()}
                        onchange={set(|l, e| l.register = event_value(e).trim().to_string())} />
                </label>
            }
            <label title="The outputs are fixed registers: end both programs with the MOVs that write y back in the original order">
                <input type="checkbox" id="linear-unpermute" checked={doc.unpermute}
                    onchange={set(|l, e| l.unpermute = event_checked(e))} />
                { " un-permute the outputs" }
            </label>
        </div>
    }
}

/// The recovered system: the check's headline, rows, variables and text.
pub fn recovered(r: &RecoveredView, doc: &LinearDoc, dispatch: &Callback<Action>) -> Html {
    let good = r.check.agrees();
    let as_system = {
        let (d, doc, text) = (dispatch.clone(), doc.clone(), r.text.clone());
        Callback::from(move |_| {
            d.emit(Action::SetLinear(LinearDoc {
                text: text.clone(),
                example: None,
                input: Input::System,
                register: String::new(),
                ..doc.clone()
            }))
        })
    };
    let var = |c: usize, v: &crate::worker::linear_recover::VariableView| {
        let class = v.line.is_some().then_some("nonlinear");
        html! { <li class={classes!(class)}><code>{ format!("x{c}") }</code>{ " = " }{ v.name.clone() }</li> }
    };
    html! {
        <section class={classes!("linear-recovered", if good { "good" } else { "bad" })} id="linear-recovered"
            aria-label="Recovered system">
            <h2>{ "System recovered from the program" }</h2>
            <p class="headline" id="linear-recover-check">{ r.check.headline() }</p>
            <p class="muted">{ format!(
                "{} rows over {} variables ({} of them results of non-affine instructions, named after their line). \
                 The program ran in the executor on {} seeded invocations{}; every variable's value was probed in the same runs \
                 (an input or constant by a MOV into an output, a line's result by the program cut after that line) and each row \
                 compared with A·x + b within 1e-4 × Σ|a·x| + 1e-5.",
                r.rows.len(), r.variables.len(), r.nonlinear, crate::worker::linear_recover::PROBES,
                if r.check.left_out > 0 { format!(" ({} left out: killed or not finite)", r.check.left_out) } else { String::new() }) }</p>
            <ol class="recovered-rows" id="linear-recovered-rows" start="0">
                { for r.forms.iter().map(|f| html! { <li><code>{ f.clone() }</code></li> }) }
            </ol>
            <details open={r.variables.len() <= 16}>
                <summary>{ format!("variables ({})", r.variables.len()) }</summary>
                <ol class="recovered-vars" id="linear-recovered-vars" start="0">
                    { for r.variables.iter().enumerate().map(|(c, v)| var(c, v)) }
                </ol>
            </details>
            <details>
                <summary>{ "as a system" }</summary>
                <pre class="code-view recovered-text">{ r.text.clone() }</pre>
                <button type="button" id="linear-as-system" onclick={as_system}>{ "Edit it as a system" }</button>
            </details>
        </section>
    }
}

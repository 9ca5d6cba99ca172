//! Source mode's column: the input switch (assembly, WGSL, GLSL), the source editor(s) with
//! the compiler's diagnostics and the moved work marked ("runs per vertex now"), the output
//! choices (entry points, dialect, ARB target) and the generated assembly, read-only, whose
//! lines light up their source expression when hovered or focused (and the reverse).

use super::Shared;
use super::editor::Editor;
use super::event_value;
use crate::doc::source::{Lang, Place, SourceDoc};
use crate::page::highlight::Mark;
use crate::page::source_map::{Focus, Lit, Moved, moved_notes};
use crate::page::state::{Action, FrontResult, SourceEdit};
use crate::worker::analysis::Side;
use crate::worker::front::Compiled;
use hoist_asm::{ArbTarget, Diagnostic, Dialect, Stage};
use std::rc::Rc;
use yew::prelude::*;

/// The input switch: assembly programs, or a WGSL or GLSL source compiled in the page.
pub fn input_switch(current: Option<Lang>, dispatch: &Callback<Action>) -> Html {
    let button = |lang: Option<Lang>, id: &str, label: &str| {
        let d = dispatch.clone();
        let on = current == lang;
        html! {
            <button type="button" id={id.to_string()} class={classes!("seg", on.then_some("on"))}
                aria-pressed={on.to_string()}
                onclick={Callback::from(move |_| d.emit(Action::Source(SourceEdit::Input(lang))))}>
                { label.to_string() }
            </button>
        }
    };
    html! {
        <div class="input-switch" role="group" aria-label="Input">
            <span class="muted">{ "Input: " }</span>
            { button(None, "input-asm", "Assembly") }
            { button(Some(Lang::Wgsl), "input-wgsl", "WGSL") }
            { button(Some(Lang::Glsl), "input-glsl", "GLSL") }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct SourceProps {
    pub source: Rc<SourceDoc>,
    /// The front worker's last answer (for this source or an older one).
    pub front: Option<Shared<FrontResult>>,
    /// The generated programs (the document's: the last that compiled).
    pub vp: AttrValue,
    pub fp: AttrValue,
    /// What the pointer or the focus lights up.
    pub lit: Lit,
    /// The source expressions whose work moved (of the current compile).
    pub moved: Rc<Vec<Moved>>,
    pub dispatch: Callback<Action>,
}

impl SourceProps {
    /// The answer, when it is for the current source.
    fn current(&self) -> Option<&FrontResult> {
        self.front.as_deref().filter(|f| f.source == *self.source)
    }

    fn compiled(&self) -> Option<&Compiled> {
        self.current()?.output.as_ref().ok()?.result.as_ref().ok()
    }

    /// The diagnostics of the last answer at `place` (an older text's while compiling).
    fn diagnostics(&self, place: Place) -> Vec<Diagnostic> {
        let Some(f) = self.front.as_deref() else {
            return Vec::new();
        };
        match &f.output {
            Ok(o) => match &o.result {
                Err(ds) => ds
                    .iter()
                    .filter(|d| d.place == place)
                    .map(|d| d.diagnostic.clone())
                    .collect(),
                Ok(_) => Vec::new(),
            },
            Err(why) if place == self.source.places()[0] => vec![Diagnostic::error(
                hoist_asm::Code::SCENE,
                format!("the compiler stopped: {why} — edit to try again"),
                hoist_asm::Span::NONE,
            )],
            Err(_) => Vec::new(),
        }
    }
}

fn title(place: Place) -> &'static str {
    match place {
        Place::Wgsl => "WGSL module",
        Place::GlslVertex => "Vertex shader (GLSL)",
        Place::GlslFragment => "Fragment shader (GLSL)",
        Place::Scene => "Scene",
    }
}

/// The marks of an editor: the lit expression and the moved work.
fn marks(p: &SourceProps, place: Place) -> Vec<Mark> {
    let mut out: Vec<Mark> = p
        .moved
        .iter()
        .filter(|m| m.at.place == place)
        .map(|m| Mark {
            range: m.at.range.clone(),
            class: if m.all { "src-moved" } else { "src-part" },
        })
        .collect();
    if let Some(s) = p.lit.source.as_ref().filter(|s| s.place == place) {
        out.push(Mark {
            range: s.range.clone(),
            class: "src-lit",
        });
    }
    out
}

#[derive(Properties, PartialEq)]
struct SideProps {
    place: Place,
    text: AttrValue,
    diagnostics: Vec<Diagnostic>,
    marks: Vec<Mark>,
    notes: Vec<(u32, String)>,
    dispatch: Callback<Action>,
}

/// One source editor (memoised: it draws again only when what it shows changes).
#[function_component(SourceEditor)]
fn source_editor(p: &SideProps) -> Html {
    let place = p.place;
    let onchange = use_callback(p.dispatch.clone(), move |t: String, d| {
        d.emit(Action::Source(SourceEdit::Text(place, t)))
    });
    let on_offset = use_callback(p.dispatch.clone(), move |at: Option<usize>, d| {
        d.emit(Action::SourceFocus(at.map(|a| Focus::Source(place, a))))
    });
    let side = use_memo(p.diagnostics.clone(), |d| {
        Shared(Rc::new(Side::only_diagnostics(d.clone())))
    });
    html! {
        <Editor id={place.editor_id()} title={title(place)} value={p.text.clone()} stage={Stage::Fragment}
            side={Some((*side).clone())} {onchange} source=true marks={p.marks.clone()}
            notes={p.notes.clone()} on_offset={Some(on_offset)} />
    }
}

/// A select of `options` (value, label) with `current` selected.
fn select(
    id: &str,
    label: &str,
    options: &[(String, String)],
    current: &str,
    on: Callback<String>,
) -> Html {
    let onchange = Callback::from(move |e: Event| on.emit(event_value(&e)));
    html! {
        <label>{ label.to_string() }
            <select id={id.to_string()} aria-label={label.to_string()} {onchange}>
                { for options.iter().map(|(v, l)| html! {
                    <option value={v.clone()} selected={v == current}>{ l.clone() }</option>
                }) }
            </select>
        </label>
    }
}

/// The output choices: entry points (WGSL, when there is a choice), dialect, ARB target.
fn choices(p: &SourceProps) -> Html {
    let edit = |f: fn(&mut SourceDoc, String)| {
        let (d, s) = (p.dispatch.clone(), p.source.clone());
        Callback::from(move |v: String| {
            let mut s = (*s).clone();
            f(&mut s, v);
            d.emit(Action::Source(SourceEdit::Doc(Box::new(s))));
        })
    };
    let entries = p
        .front
        .as_deref()
        .and_then(|f| f.output.as_ref().ok())
        .map(|o| o.entries.clone())
        .unwrap_or_default();
    let entry = |id: &str,
                 label: &str,
                 names: &[String],
                 cur: &Option<String>,
                 f: fn(&mut SourceDoc, String)| {
        if p.source.lang != Lang::Wgsl || (names.len() < 2 && cur.is_none()) {
            return html! {};
        }
        let mut opts = vec![(String::new(), "the only one".to_string())];
        opts.extend(names.iter().map(|n| (n.clone(), n.clone())));
        select(id, label, &opts, cur.as_deref().unwrap_or(""), edit(f))
    };
    let dialects = [
        ("", "whichever fits"),
        ("arb", "ARB"),
        ("d3d9", "D3D9 (vs_3_0/ps_3_0)"),
    ]
    .map(|(v, l)| (v.to_string(), l.to_string()));
    let dialect = match p.source.dialect {
        None => "",
        Some(Dialect::Arb) => "arb",
        Some(Dialect::D3d9) => "d3d9",
    };
    let mut targets = vec![(String::new(), "smallest that fits".to_string())];
    targets.extend(
        ArbTarget::ALL
            .iter()
            .map(|t| (t.id().to_string(), t.name().to_string())),
    );
    let target = p.source.target.map_or("", ArbTarget::id);
    html! {
        <div class="src-choices">
            { entry("src-vertex", "vertex entry point", &entries.0, &p.source.vertex, |s, v| s.vertex = (!v.is_empty()).then_some(v)) }
            { entry("src-fragment", "fragment entry point", &entries.1, &p.source.fragment, |s, v| s.fragment = (!v.is_empty()).then_some(v)) }
            { select("src-dialect", "dialect", &dialects, dialect, edit(|s, v| s.dialect = match v.as_str() {
                "arb" => Some(Dialect::Arb),
                "d3d9" => Some(Dialect::D3d9),
                _ => None,
            })) }
            { select("src-target", "ARB target", &targets, target, edit(|s, v| s.target = ArbTarget::from_id(&v))) }
        </div>
    }
}

/// One line about the compile: under way, its output, or its errors.
fn status(p: &SourceProps) -> Html {
    let (class, text) = match (p.current(), p.compiled()) {
        (None, _) => ("muted", "compiling…".to_string()),
        (Some(_), Some(c)) => (
            "ok",
            format!(
                "compiled to {}{}; {} vertex and {} fragment instructions map to the source",
                if c.dialect == Dialect::Arb {
                    "ARB"
                } else {
                    "D3D9"
                },
                c.target
                    .map_or(String::new(), |t| format!(" under {}", t.name())),
                c.spans.vp.len(),
                c.spans.fp.len()
            ),
        ),
        (Some(f), None) => {
            let n = match &f.output {
                Ok(o) => o.result.as_ref().err().map_or(0, Vec::len),
                Err(_) => 1,
            };
            (
                "bad",
                format!(
                    "does not compile: {n} error{}",
                    if n == 1 { "" } else { "s" }
                ),
            )
        }
    };
    html! { <p class={classes!("src-status", class)} id="src-status">{ text }</p> }
}

#[derive(Properties, PartialEq)]
struct GeneratedProps {
    stage: Stage,
    text: AttrValue,
    /// Lines (0-based) with a source span, and those lit.
    mapped: Vec<bool>,
    lit: Vec<bool>,
    stale: bool,
    dispatch: Callback<Action>,
}

/// A generated program, read-only: hovering or focusing a line lights up its source.
#[function_component(Generated)]
fn generated(p: &GeneratedProps) -> Html {
    let stage = p.stage;
    let rows: Html = p
        .text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let mapped = p.mapped.get(i).copied().unwrap_or(false);
            let focus = |on: bool| {
                let d = p.dispatch.clone();
                move || {
                    d.emit(Action::SourceFocus(
                        on.then_some(Focus::Generated(stage, i)),
                    ))
                }
            };
            let (e1, e2, l1, l2) = (focus(true), focus(true), focus(false), focus(false));
            let class = classes!(
                "gen-line",
                mapped.then_some("mapped"),
                p.lit.get(i).copied().unwrap_or(false).then_some("lit")
            );
            html! {
                <div {class} tabindex={if mapped { "0" } else { "-1" }}
                    onmouseenter={Callback::from(move |_: MouseEvent| e1())}
                    onfocus={Callback::from(move |_: FocusEvent| e2())}
                    onmouseleave={Callback::from(move |_: MouseEvent| l1())}
                    onblur={Callback::from(move |_: FocusEvent| l2())}>
                    <span class="no" aria-hidden="true">{ i + 1 }</span>
                    <span class="code">{ l.to_string() }{ "\u{200b}" }</span>
                </div>
            }
        })
        .collect();
    let (id, what) = match stage {
        Stage::Vertex => ("gen-vp", "Generated vertex program"),
        Stage::Fragment => ("gen-fp", "Generated fragment program"),
    };
    html! {
        <section class={classes!("generated", p.stale.then_some("stale"))} id={id}>
            <header class="ed-head"><span class="ed-title">{ what }</span>
                <span class="muted">{ " (read-only: edit the source)" }</span></header>
            <div class="opt-scroll" role="list" aria-label={what}>{ rows }</div>
        </section>
    }
}

fn generated_view(p: &SourceProps, stage: Stage) -> Html {
    let text = match stage {
        Stage::Vertex => p.vp.clone(),
        Stage::Fragment => p.fp.clone(),
    };
    let n = text.lines().count();
    let mut mapped = vec![false; n];
    if let Some(c) = p.compiled() {
        let spans = if stage == Stage::Vertex {
            &c.spans.vp
        } else {
            &c.spans.fp
        };
        for s in spans {
            if let Some(m) = mapped.get_mut(s.line) {
                *m = true;
            }
        }
    }
    let lit: Vec<bool> = (0..n).map(|i| p.lit.generated(stage, i)).collect();
    html! {
        <Generated {stage} {text} {mapped} {lit} stale={p.compiled().is_none()} dispatch={p.dispatch.clone()} />
    }
}

/// The source column's body in source mode.
#[function_component(SourcePanel)]
pub fn source_panel(p: &SourceProps) -> Html {
    let editors: Html = p
        .source
        .places()
        .iter()
        .map(|&place| {
            let text = p.source.text(place).to_string();
            let notes = if p.compiled().is_some() {
                moved_notes(&text, place, &p.moved)
            } else {
                Vec::new()
            };
            html! {
                <SourceEditor key={place.editor_id()} {place} text={AttrValue::from(text)}
                    diagnostics={p.diagnostics(place)}
                    marks={marks(p, place)} {notes} dispatch={p.dispatch.clone()} />
            }
        })
        .collect();
    html! {
        <div class="source-mode" id="source-mode">
            { choices(p) }
            { status(p) }
            { editors }
            { generated_view(p, Stage::Vertex) }
            { generated_view(p, Stage::Fragment) }
        </div>
    }
}

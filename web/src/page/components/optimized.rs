//! An optimized program annotated as in the paper's Figure 5: `→` moved, `+` added,
//! changed operands underlined. Every instruction is focusable; hovering or focusing one
//! shows why it is there (or why it stayed), and a moved one lights up its origin line in
//! the original fragment program.

use super::ophelp::{self as ophelp_view, Shown};
use super::{Shared, segs_html};
use crate::page::highlight::{self, Mark};
use crate::page::ophelp;
use hoist_asm::Dialect;
use hoist_asm::Profile;
use hoist_opt::annotate::{self, Annotated, Why};
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct OptimizedProps {
    pub id: AttrValue,
    pub title: AttrValue,
    /// The program, printed and annotated (`hoist_opt::annotate`).
    pub lines: Shared<Annotated>,
    pub dialect: Dialect,
    /// Highlights an origin line in the original fragment editor (`None` to clear).
    pub on_origin: Callback<Option<u32>>,
    /// The program's profile and the other stage's, for the instruction help.
    #[prop_or_default]
    pub profile: Option<Profile>,
    #[prop_or_default]
    pub other: Option<Profile>,
    /// Source mode: the lines whose source expression is lit (by index), and where a
    /// hovered or focused line goes (its index; `None` when it leaves).
    #[prop_or_default]
    pub lit: Vec<bool>,
    #[prop_or_default]
    pub on_focus: Option<Callback<Option<usize>>>,
}

/// The pointer over an opcode shows its help (`crate::page::ophelp`) next to it.
fn on_hover(p: &OptimizedProps, tip: &UseStateHandle<Option<Shown>>) -> Callback<MouseEvent> {
    let (profile, other, tip) = (p.profile, p.other, tip.clone());
    Callback::from(move |e: MouseEvent| {
        let word = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .filter(|el| el.class_name().split_whitespace().any(|c| c == "tk-op"))
            .and_then(|el| el.text_content());
        let help = word
            .zip(profile)
            .and_then(|(w, pr)| ophelp::lookup(w.trim(), pr, other));
        if tip.as_ref().map(|t| &t.help) != help.as_ref() {
            tip.set(help.map(|help| Shown {
                help,
                at: Some((e.client_x(), e.client_y())),
            }));
        }
    })
}

fn glyph(m: annotate::Mark) -> &'static str {
    match m {
        annotate::Mark::None => "",
        annotate::Mark::Moved => "→",
        annotate::Mark::Added => "+",
    }
}

/// The highlighted segments of every line, changed operands marked.
fn segments(a: &Annotated, dialect: Dialect) -> Vec<Vec<highlight::Seg>> {
    let text = a.text.trim_end_matches('\n');
    let mut marks = Vec::new();
    let mut offset = 0;
    for l in &a.lines {
        for r in &l.changed_spans {
            marks.push(Mark {
                range: offset + r.start..offset + r.end,
                class: "changed",
            });
        }
        offset += l.text.len() + 1;
    }
    let toks = highlight::tokens(text, dialect);
    highlight::lines(text, &toks, &marks)
}

#[function_component(OptimizedView)]
pub fn optimized_view(p: &OptimizedProps) -> Html {
    let focused = use_state(|| None::<usize>);
    let tip = use_state_eq(|| None::<Shown>);
    let onmousemove = on_hover(p, &tip);
    let onmouseleave = {
        let tip = tip.clone();
        Callback::from(move |_: MouseEvent| tip.set(None))
    };
    let line_help = focused
        .and_then(|i| p.lines.lines.get(i))
        .and_then(|l| ophelp::line_opcode(&l.text))
        .zip(p.profile)
        .and_then(|(w, pr)| ophelp::lookup(w, pr, p.other))
        .map(|help| Shown { help, at: None });
    // Highlight the whole text once, with changed operands as marks.
    let segs = use_memo((p.lines.clone(), p.dialect), |(lines, dialect)| {
        segments(lines, *dialect)
    });

    let rows: Html = p
        .lines
        .lines
        .iter()
        .zip(segs.iter())
        .enumerate()
        .map(|(i, (l, s))| {
            let origin = match l.why {
                Some(Why::Moved { line }) => Some(line),
                _ => None,
            };
            let enter = {
                let focused = focused.clone();
                let (cb, to) = (p.on_origin.clone(), p.on_focus.clone());
                move || {
                    focused.set(Some(i));
                    cb.emit(origin);
                    if let Some(t) = &to {
                        t.emit(Some(i));
                    }
                }
            };
            let leave = {
                let focused = focused.clone();
                let (cb, to) = (p.on_origin.clone(), p.on_focus.clone());
                move || {
                    focused.set(None);
                    cb.emit(None);
                    if let Some(t) = &to {
                        t.emit(None);
                    }
                }
            };
            let (e1, e2, l1, l2) = (enter.clone(), enter, leave.clone(), leave);
            let onmouseenter = Callback::from(move |_: MouseEvent| e1());
            let onfocus = Callback::from(move |_: FocusEvent| e2());
            let onmouseleave = Callback::from(move |_: MouseEvent| l1());
            let onblur = Callback::from(move |_: FocusEvent| l2());
            let class = classes!(
                "ol",
                match l.mark {
                    annotate::Mark::Moved => Some("moved"),
                    annotate::Mark::Added => Some("added"),
                    annotate::Mark::None => None,
                },
                l.stayed().then_some("stayed"),
                (*focused == Some(i)).then_some("focus"),
                p.lit.get(i).copied().unwrap_or(false).then_some("lit"),
            );
            let tip = l.why.as_ref().map(Why::sentence);
            let focusable = tip.is_some();
            html! {
                <div {class} tabindex={if focusable { "0" } else { "-1" }}
                    title={tip.unwrap_or_default()}
                    {onmouseenter} {onfocus} {onmouseleave} {onblur}>
                    <span class="mk" aria-hidden="true">{ glyph(l.mark) }</span>
                    <span class="no" aria-hidden="true">{ i + 1 }</span>
                    <span class="code">{ segs_html(s) }{ "\u{200b}" }</span>
                </div>
            }
        })
        .collect();
    let why = focused
        .and_then(|i| p.lines.lines.get(i))
        .and_then(|l| l.why.as_ref().map(Why::sentence))
        .unwrap_or_else(|| {
            "Hover or focus an instruction to see why it moved, was added, or stayed.".into()
        });
    html! {
        <section class="optimized" id={format!("opt-{}", p.id)}>
            <header class="ed-head"><span class="ed-title">{ p.title.clone() }</span></header>
            <div class="opt-scroll" role="list" aria-label={p.title.clone()} {onmousemove} {onmouseleave}>{ rows }</div>
            <p class="why" aria-live="polite">{ why }</p>
            { ophelp_view::view(tip.as_ref().or(line_help.as_ref()), &format!("opt-{}", p.id)) }
        </section>
    }
}

//! An optimized program annotated as in the paper's Figure 5: `→` moved, `+` added,
//! changed operands underlined. Every instruction is focusable; hovering or focusing one
//! shows why it is there (or why it stayed), and a moved one lights up its origin line in
//! the original fragment program.

use super::{Shared, segs_html};
use crate::annotate::{CodeLine, Marker};
use crate::highlight::{self, Mark};
use hoist_asm::Dialect;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct OptimizedProps {
    pub id: AttrValue,
    pub title: AttrValue,
    pub lines: Shared<Vec<CodeLine>>,
    pub dialect: Dialect,
    /// 1-based source line of each original fragment instruction (to name origins).
    pub fp_lines: Shared<Vec<u32>>,
    /// Highlights an origin line in the original fragment editor (`None` to clear).
    pub on_origin: Callback<Option<u32>>,
}

#[function_component(OptimizedView)]
pub fn optimized_view(p: &OptimizedProps) -> Html {
    let focused = use_state(|| None::<usize>);
    // Highlight the whole text once, with changed operands as marks.
    let text: String = p
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut marks = Vec::new();
    let mut offset = 0;
    for l in p.lines.iter() {
        for r in &l.changed {
            marks.push(Mark {
                range: offset + r.start..offset + r.end,
                class: "changed",
            });
        }
        offset += l.text.len() + 1;
    }
    let toks = highlight::tokens(&text, p.dialect);
    let segs = highlight::lines(&text, &toks, &marks);

    let rows: Html = p
        .lines
        .iter()
        .zip(segs.iter())
        .enumerate()
        .map(|(i, (l, s))| {
            let origin = l.origin.and_then(|o| p.fp_lines.get(o).copied());
            let enter = {
                let focused = focused.clone();
                let cb = p.on_origin.clone();
                move || {
                    focused.set(Some(i));
                    cb.emit(origin);
                }
            };
            let leave = {
                let focused = focused.clone();
                let cb = p.on_origin.clone();
                move || {
                    focused.set(None);
                    cb.emit(None);
                }
            };
            let (e1, e2, l1, l2) = (enter.clone(), enter, leave.clone(), leave);
            let onmouseenter = Callback::from(move |_: MouseEvent| e1());
            let onfocus = Callback::from(move |_: FocusEvent| e2());
            let onmouseleave = Callback::from(move |_: MouseEvent| l1());
            let onblur = Callback::from(move |_: FocusEvent| l2());
            let class = classes!(
                "ol",
                match l.marker {
                    Marker::Moved => Some("moved"),
                    Marker::Added => Some("added"),
                    Marker::None => None,
                },
                l.stayed.then_some("stayed"),
                (*focused == Some(i)).then_some("focus"),
            );
            let tip = l.tip.clone();
            let focusable = tip.is_some();
            html! {
                <div {class} tabindex={if focusable { "0" } else { "-1" }}
                    title={tip.unwrap_or_default()}
                    {onmouseenter} {onfocus} {onmouseleave} {onblur}>
                    <span class="mk" aria-hidden="true">{ l.marker.glyph() }</span>
                    <span class="no" aria-hidden="true">{ i + 1 }</span>
                    <span class="code">{ segs_html(s) }{ "\u{200b}" }</span>
                </div>
            }
        })
        .collect();
    let why = focused
        .and_then(|i| p.lines.get(i))
        .and_then(|l| l.tip.clone())
        .unwrap_or_else(|| {
            "Hover or focus an instruction to see why it moved, was added, or stayed.".into()
        });
    html! {
        <section class="optimized" id={format!("opt-{}", p.id)}>
            <header class="ed-head"><span class="ed-title">{ p.title.clone() }</span></header>
            <div class="opt-scroll" role="list" aria-label={p.title.clone()}>{ rows }</div>
            <p class="why" aria-live="polite">{ why }</p>
        </section>
    }
}

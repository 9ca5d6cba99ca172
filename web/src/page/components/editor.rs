//! A program editor: a transparent `<textarea>` over a highlighted `<pre>`, line numbers,
//! the dialect (detected or chosen), and diagnostics inline — a squiggle under the span, a
//! marker in the gutter, the message at the end of the line — and listed below, where a
//! click puts the cursor on the spot.

use super::ophelp::{self as ophelp_view, Shown};
use super::{Shared, event_value, segs_html};
use crate::page::highlight::{self, Mark};
use crate::page::ophelp::{self, Help};
use crate::worker::analysis::Side;
use hoist_asm::diag::LineIndex;
use hoist_asm::{Diagnostic, Profile, Severity, Stage};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// DOM id of the textarea (`vp`, `fp`, `hand-vp`, ...).
    pub id: AttrValue,
    pub title: AttrValue,
    pub value: AttrValue,
    pub stage: Stage,
    /// The parse of (possibly an older version of) the text.
    #[prop_or_default]
    pub side: Option<Shared<Side>>,
    pub onchange: Callback<String>,
    /// Profile override (`Profile::id`), and a callback to change it; no picker when absent.
    #[prop_or_default]
    pub profile: Option<AttrValue>,
    #[prop_or_default]
    pub onprofile: Option<Callback<Option<String>>>,
    /// 1-based line to highlight (the origin of a hovered moved instruction).
    #[prop_or_default]
    pub highlight_line: Option<u32>,
    /// Switches the ARB target (offered when the program fits a larger one only).
    #[prop_or_default]
    pub ontarget: Option<Callback<hoist_asm::ArbTarget>>,
    /// The text is a scene (scene highlighting, the scene's size limit), not a program.
    #[prop_or_default]
    pub scene: bool,
    /// Told the 1-based line under the pointer or the caret (`None` when it leaves).
    #[prop_or_default]
    pub on_line: Option<Callback<Option<u32>>>,
    /// The other stage's profile, whose slot costs the instruction help shows too.
    #[prop_or_default]
    pub other: Option<Profile>,
    /// The text is WGSL or GLSL (source mode): no dialect, no instruction help.
    #[prop_or_default]
    pub source: bool,
    /// Marks besides the diagnostics' (source mode: the lit expression, moved work).
    #[prop_or_default]
    pub marks: Vec<Mark>,
    /// Notes at the end of 1-based lines without a diagnostic (source mode: moved work).
    #[prop_or_default]
    pub notes: Vec<(u32, String)>,
    /// Told the byte offset under the pointer or at the caret (`None` when it leaves).
    #[prop_or_default]
    pub on_offset: Option<Callback<Option<usize>>>,
}

/// The one-click switch to the smallest ARB target the program fits, when it is over the
/// current one's limits.
fn target_offer(p: &EditorProps) -> Html {
    let (Some(t), Some(cb)) = (p.side.as_ref().and_then(|s| s.fits), p.ontarget.clone()) else {
        return html! {};
    };
    let name = t.id().to_uppercase();
    html! {
        <p class="target-offer" id={format!("{}-target-offer", p.id)}>
            { "Over the current ARB target's limits; it fits " }<b>{ t.name() }</b>{ ". " }
            <button type="button" id={format!("{}-fit-target", p.id)}
                onclick={Callback::from(move |_| cb.emit(t))}>{ format!("Analyze under {name}") }</button>
        </p>
    }
}

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Error => "err",
        Severity::Warning => "warn",
        Severity::Note => "note",
    }
}

/// Scrolls the editor's scroll box so the caret of `area` is visible (the textarea is as
/// tall and wide as its text, so the browser does not follow the caret by itself).
fn reveal_caret(area: &NodeRef, scroller: &NodeRef, measure: &NodeRef) {
    let (Some(t), Some(sc)) = (
        area.cast::<web_sys::HtmlTextAreaElement>(),
        scroller.cast::<web_sys::HtmlElement>(),
    ) else {
        return;
    };
    let Ok(Some(pos)) = t.selection_end() else {
        return;
    };
    let value: Vec<u16> = t.value().encode_utf16().collect();
    let before = &value[..(pos as usize).min(value.len())];
    let line = before.iter().filter(|&&c| c == u16::from(b'\n')).count() as f64;
    let col = before
        .iter()
        .rev()
        .take_while(|&&c| c != u16::from(b'\n'))
        .count() as f64;
    let line_h = 20.0;
    let pad = 8.0;
    let (top, bottom) = (pad + line * line_h, pad + (line + 1.0) * line_h);
    let (st, h) = (f64::from(sc.scroll_top()), f64::from(sc.client_height()));
    if top < st {
        sc.set_scroll_top((top - pad).max(0.0) as i32);
    } else if bottom > st + h {
        sc.set_scroll_top((bottom - h + pad) as i32);
    }
    let char_w = measure
        .cast::<web_sys::HtmlElement>()
        .map_or(7.8, |m| f64::from(m.offset_width()) / 10.0);
    let gutter = sc
        .first_element_child()
        .and_then(|g| g.dyn_into::<web_sys::HtmlElement>().ok())
        .map_or(48.0, |g| f64::from(g.offset_width()));
    let x = gutter + 12.0 + col * char_w;
    let (sl, w) = (f64::from(sc.scroll_left()), f64::from(sc.client_width()));
    if x < sl + gutter + 12.0 {
        sc.set_scroll_left((x - gutter - 24.0).max(0.0) as i32);
    } else if x + char_w > sl + w {
        sc.set_scroll_left((x + char_w - w + 24.0) as i32);
    }
}

/// Marks under the diagnostics' spans (a span over several lines, a whole program, is
/// marked on its first line only).
fn squiggles(text: &str, diags: &[Diagnostic]) -> Vec<Mark> {
    diags
        .iter()
        .filter(|d| !d.span.is_none())
        .map(|d| {
            let start = highlight::floor_boundary(text, d.span.start as usize);
            let eol = text[start..].find('\n').map_or(text.len(), |e| start + e);
            Mark {
                range: start..(d.span.end as usize).min(eol),
                class: if d.is_error() { "sq-err" } else { "sq-warn" },
            }
        })
        .collect()
}

/// Diagnostics by 1-based line (index 0 unused), for `lines` lines.
fn by_line<'d>(idx: &LineIndex, diags: &'d [Diagnostic], lines: usize) -> Vec<Vec<&'d Diagnostic>> {
    let mut out: Vec<Vec<&Diagnostic>> = vec![Vec::new(); lines + 1];
    for d in diags {
        let l = if d.span.is_none() {
            1
        } else {
            idx.line_col(d.span.start as usize).line as usize
        };
        if let Some(v) = out.get_mut(l.min(lines)) {
            v.push(d);
        }
    }
    out
}

/// The first diagnostic of a line, as shown at its end.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lens {
    class: &'static str,
    text: String,
    hint: Option<String>,
}

impl Lens {
    fn of(on_line: &[&Diagnostic]) -> Option<Lens> {
        let d = on_line.first()?;
        let more = on_line.len() - 1;
        let mut text = format!("{} {}", if d.is_error() { "✖" } else { "⚠" }, d.message);
        if !d.label.is_empty() && !d.message.starts_with(d.label.as_str()) {
            text.push_str(&format!(" — {}", d.label));
        }
        if more > 0 {
            text.push_str(&format!(" (+{more} more)"));
        }
        Some(Lens {
            class: severity_class(d.severity),
            text,
            hint: d.hint.clone(),
        })
    }

    fn note(text: &str) -> Lens {
        Lens {
            class: "moved-note",
            text: format!("⤒ {text}"),
            hint: None,
        }
    }

    fn html(&self) -> Html {
        html! {
            <span class={classes!("lens", self.class)}>
                { self.text.clone() }
                if let Some(h) = &self.hint {
                    <span class="lens-hint">{ format!(" · help: {h}") }</span>
                }
            </span>
        }
    }
}

/// One line of the highlighted text (its segments shared with the highlighter's cache, so
/// an unchanged line compares equal by pointer).
#[derive(Clone, Debug, PartialEq, Eq)]
struct CodeLine {
    segs: Rc<Vec<highlight::Seg>>,
    lens: Option<Lens>,
    highlighted: bool,
}

/// Lines per [`Block`]: typing redraws the block of the line it changes, not the text.
const BLOCK_LINES: usize = 32;

#[derive(Properties, PartialEq)]
struct BlockProps {
    lines: Vec<CodeLine>,
}

/// A run of consecutive lines in a block of its own, drawn again only when one of them
/// changes: an edit then lays out one block, not the whole text. Its last line ends with a
/// zero-width space instead of a newline, so that an empty line keeps its height.
#[function_component(Block)]
fn block(p: &BlockProps) -> Html {
    let n = p.lines.len();
    let lines: Html = p
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let class = classes!("cl", l.highlighted.then_some("hl-line"));
            let end = if i + 1 == n { "\u{200b}" } else { "\n" };
            html! {
                <>
                    <span {class}>{ segs_html(&l.segs) }{ l.lens.as_ref().map(Lens::html).unwrap_or_default() }</span>
                    { end }
                </>
            }
        })
        .collect();
    html! { <div class="hl-block">{ lines }</div> }
}

#[derive(Properties, PartialEq)]
struct GutterProps {
    /// Number of the first line.
    first: usize,
    /// Per line: the class of its worst diagnostic, and whether it is highlighted.
    lines: Vec<(Option<&'static str>, bool)>,
}

/// Line numbers of one block of lines, marked by the worst diagnostic of the line (drawn
/// again only when a mark or the highlighted line of the block changes).
#[function_component(GutterBlock)]
fn gutter_block(p: &GutterProps) -> Html {
    p.lines
        .iter()
        .enumerate()
        .map(|(i, &(worst, hl))| {
            let class = classes!("gl", worst, hl.then_some("hl-line"));
            html! { <div class={class}>{ p.first + i }</div> }
        })
        .collect()
}

/// The gutter in blocks of [`BLOCK_LINES`]: a new line at the end of a long text adds a
/// number, it does not draw every number again.
fn gutter(marks: Vec<(Option<&'static str>, bool)>) -> Html {
    marks
        .chunks(BLOCK_LINES)
        .enumerate()
        .map(|(b, lines)| {
            html! { <GutterBlock key={b} first={b * BLOCK_LINES + 1} lines={lines.to_vec()} /> }
        })
        .collect()
}

/// The gutter's marks: per line, its worst diagnostic and whether it is highlighted.
fn gutter_marks(
    by_line: &[Vec<&Diagnostic>],
    highlight_line: Option<u32>,
) -> Vec<(Option<&'static str>, bool)> {
    (1..by_line.len())
        .map(|n| {
            let worst = by_line[n].iter().map(|d| d.severity).max();
            (worst.map(severity_class), highlight_line == Some(n as u32))
        })
        .collect()
}

/// The highlighted text under the textarea, with the squiggles and the lenses, in blocks
/// of lines. Lines come from the incremental highlighter: a line without marks keeps its
/// cached segments, so only the blocks of changed lines draw again.
fn body(
    hl: &highlight::Incremental,
    marks: Vec<Vec<highlight::LineMark>>,
    by_line: &[Vec<&Diagnostic>],
    highlight_line: Option<u32>,
    notes: &[(u32, String)],
) -> Html {
    let mut code = hl
        .lines()
        .iter()
        .zip(marks)
        .enumerate()
        .map(|(i, (l, marks))| CodeLine {
            segs: if marks.is_empty() {
                l.segs.clone()
            } else {
                Rc::new(highlight::line_segs(&l.text, &l.toks, &marks))
            },
            lens: by_line.get(i + 1).and_then(|d| Lens::of(d)).or_else(|| {
                notes
                    .iter()
                    .find(|n| n.0 == i as u32 + 1)
                    .map(|n| Lens::note(&n.1))
            }),
            highlighted: highlight_line == Some(i as u32 + 1),
        });
    let mut blocks = Vec::new();
    loop {
        let lines: Vec<CodeLine> = code.by_ref().take(BLOCK_LINES).collect();
        if lines.is_empty() {
            break;
        }
        blocks.push(html! { <Block key={blocks.len()} {lines} /> });
    }
    blocks.into_iter().collect()
}

/// Puts the textarea's selection on a diagnostic's span (byte offsets into `text`).
fn select_span(area: &NodeRef, text: &str, span: (u32, u32)) {
    let Some(t) = area.cast::<web_sys::HtmlTextAreaElement>() else {
        return;
    };
    let _ = t.focus();
    // Selection offsets are UTF-16 code units.
    let to16 = |b: u32| {
        let mut b = (b as usize).min(text.len());
        while !text.is_char_boundary(b) {
            b -= 1;
        }
        text[..b].encode_utf16().count() as u32
    };
    let (s, e) = span;
    if s != u32::MAX {
        let _ = t.set_selection_range(to16(s), to16(e.max(s + 1)));
    }
}

/// The diagnostics listed below the editor; a click puts the cursor on the spot.
fn diag_list(
    diags: &[Diagnostic],
    text: &str,
    idx: &LineIndex,
    area: &NodeRef,
    reveal: impl Fn() + Clone + 'static,
) -> Html {
    diags
        .iter()
        .map(|d| {
            let lc = if d.span.is_none() {
                hoist_asm::diag::LineCol { line: 1, col: 1 }
            } else {
                idx.line_col(d.span.start as usize)
            };
            let onclick = {
                let (area, reveal, text) = (area.clone(), reveal.clone(), text.to_string());
                let span = (d.span.start, d.span.end);
                Callback::from(move |_| {
                    select_span(&area, &text, span);
                    reveal();
                })
            };
            let sev = severity_class(d.severity);
            html! {
                <li class={classes!("diag", sev)}>
                    <button type="button" class="diag-pos" {onclick}
                        title="Put the cursor here">{ format!("{}:{}", lc.line, lc.col) }</button>
                    <span class="diag-msg">
                        <b>{ format!("{}[{}]", if d.is_error() { "error" } else { "warning" }, d.code) }</b>
                        { format!(" {}", d.message) }
                        { if d.label.is_empty() { html!{} } else { html! { <span class="diag-label">{ format!(" — {}", d.label) }</span> } } }
                        { for d.notes.iter().map(|n| html! { <span class="diag-note">{ format!(" note: {n}") }</span> }) }
                        { d.hint.as_ref().map(|h| html! { <span class="diag-hint">{ format!(" help: {h}") }</span> }).unwrap_or_default() }
                    </span>
                </li>
            }
        })
        .collect()
}

/// The dialect picker (when the editor has one).
fn picker(p: &EditorProps, detected: Option<Profile>) -> Html {
    let Some(cb) = p.onprofile.clone() else {
        return Html::default();
    };
    let onchange = Callback::from(move |e: Event| {
        let v = event_value(&e);
        cb.emit((!v.is_empty()).then_some(v));
    });
    let cur = p.profile.as_deref().unwrap_or("");
    let auto = match detected {
        Some(d) => format!("auto ({})", d.header()),
        None => "auto (no header)".to_string(),
    };
    html! {
        <select class="profile" aria-label={format!("{} dialect", p.title)} {onchange}>
            <option value="" selected={cur.is_empty()}>{ auto }</option>
            { for Profile::ALL.iter().filter(|pr| pr.stage() == p.stage).map(|pr| html! {
                <option value={pr.id()} selected={cur == pr.id()}>{ pr.header() }</option>
            }) }
        </select>
    }
}

/// `ok`, or the number of errors and warnings.
fn status(diags: &[Diagnostic], side: Option<&Side>) -> Html {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    match (errors, warnings) {
        (0, 0) if side.is_some_and(|s| s.program.is_some()) => {
            html! { <span class="badge ok">{ "ok" }</span> }
        }
        (0, 0) => html! {},
        (e, w) => {
            let mut parts = Vec::new();
            if e > 0 {
                parts.push(format!("{e} error{}", if e == 1 { "" } else { "s" }));
            }
            if w > 0 {
                parts.push(format!("{w} warning{}", if w == 1 { "" } else { "s" }));
            }
            html! { <span class={classes!("badge", if e > 0 { "bad" } else { "warn" })}>{ parts.join(", ") }</span> }
        }
    }
}

/// Typing: the new text goes up (a text over the size limit is put back as it was, the
/// reducer says why) and the caret stays in view.
fn on_input(
    p: &EditorProps,
    area: &NodeRef,
    current: String,
    reveal: impl Fn() + 'static,
) -> Callback<InputEvent> {
    let cb = p.onchange.clone();
    let area = area.clone();
    let limit = if p.scene {
        crate::doc::MAX_SCENE
    } else {
        crate::doc::MAX_PROGRAM
    };
    Callback::from(move |e: InputEvent| {
        let v = event_value(&e);
        if v.len() > limit
            && let Some(t) = area.cast::<web_sys::HtmlTextAreaElement>()
        {
            t.set_value(&current);
        }
        cb.emit(v);
        reveal();
    })
}

/// Clicks on the line numbers or the empty space below the text focus the text.
fn focus_on_click(area: &NodeRef) -> Callback<MouseEvent> {
    let area = area.clone();
    Callback::from(move |e: MouseEvent| {
        let on_box = e.target() == e.current_target();
        if let Some(t) = area.cast::<web_sys::HtmlTextAreaElement>() {
            let _ = t.focus();
            if on_box {
                let end = t.value().encode_utf16().count() as u32;
                let _ = t.set_selection_range(end, end);
            }
        }
    })
}

/// The instruction help for the opcode starting at or spanning byte `at` of `line` (only
/// the first word of a line is an opcode or a directive).
fn help_at(line: &str, at: Option<usize>, p: Profile, other: Option<Profile>) -> Option<Help> {
    let op = ophelp::line_opcode(line)?;
    let start = line.len() - line.trim_start().len();
    if let Some(at) = at {
        let (s, _) = ophelp::word_at(line, at)?;
        if s != start {
            return None;
        }
    }
    ophelp::lookup(op, p, other)
}

/// Pointer over the text: the line goes up, and the help of an opcode under it shows.
fn on_hover(
    p: &EditorProps,
    profile: Option<Profile>,
    measure: &NodeRef,
    tip: &UseStateHandle<Option<Shown>>,
) -> Callback<MouseEvent> {
    let (text, other, measure, tip) = (p.value.clone(), p.other, measure.clone(), tip.clone());
    let (on_line, on_offset) = (p.on_line.clone(), p.on_offset.clone());
    Callback::from(move |e: MouseEvent| {
        let char_w = measure
            .cast::<web_sys::HtmlElement>()
            .map_or(7.8, |m| f64::from(m.offset_width()) / 10.0);
        let row = (f64::from(e.offset_y()) - 8.0) / 20.0;
        let col = ((f64::from(e.offset_x()) - 12.0) / char_w).floor();
        let line = (row >= 0.0)
            .then(|| text.lines().nth(row as usize))
            .flatten();
        if let Some(cb) = &on_line {
            cb.emit(line.map(|_| row as u32 + 1));
        }
        if let Some(cb) = &on_offset {
            cb.emit(
                line.zip((col >= 0.0).then_some(col as usize))
                    .and_then(|(l, c)| {
                        let start = l.as_ptr() as usize - text.as_ptr() as usize;
                        l.char_indices().nth(c).map(|(b, _)| start + b)
                    }),
            );
        }
        let help = match (line, profile) {
            (Some(l), Some(pr)) if col >= 0.0 => {
                let at = l.char_indices().nth(col as usize).map(|(b, _)| b);
                at.and_then(|at| help_at(l, Some(at), pr, other))
            }
            _ => None,
        };
        if tip.as_ref().map(|t| &t.help) != help.as_ref() {
            tip.set(help.map(|help| Shown {
                help,
                at: Some((e.client_x(), e.client_y())),
            }));
        }
    })
}

/// The caret moved: its line goes up, and the help of that line's opcode shows below.
fn on_caret(
    p: &EditorProps,
    profile: Option<Profile>,
    area: &NodeRef,
    line_help: &UseStateHandle<Option<Shown>>,
) -> impl Fn() + Clone + 'static {
    let (other, area, line_help) = (p.other, area.clone(), line_help.clone());
    let (on_line, on_offset) = (p.on_line.clone(), p.on_offset.clone());
    move || {
        let Some(t) = area.cast::<web_sys::HtmlTextAreaElement>() else {
            return;
        };
        let Ok(Some(pos)) = t.selection_end() else {
            return;
        };
        let value = t.value();
        let row = value
            .encode_utf16()
            .take(pos as usize)
            .filter(|&c| c == u16::from(b'\n'))
            .count();
        if let Some(cb) = &on_line {
            cb.emit(Some(row as u32 + 1));
        }
        if let Some(cb) = &on_offset {
            // Selection offsets are UTF-16 code units.
            let mut units = 0u32;
            let at = value
                .char_indices()
                .find(|(_, c)| {
                    units += c.len_utf16() as u32;
                    units > pos
                })
                .map_or(value.len(), |(b, _)| b);
            cb.emit(Some(at));
        }
        let help = value
            .lines()
            .nth(row)
            .zip(profile)
            .and_then(|(l, pr)| help_at(l, None, pr, other));
        line_help.set(help.map(|help| Shown { help, at: None }));
    }
}

#[function_component(Editor)]
pub fn editor(p: &EditorProps) -> Html {
    let area = use_node_ref();
    let scroller = use_node_ref();
    let measure = use_node_ref();
    let hl = use_mut_ref(highlight::Incremental::default);
    let reveal = {
        let (a, s, m) = (area.clone(), scroller.clone(), measure.clone());
        move || reveal_caret(&a, &s, &m)
    };
    let text = p.value.to_string();
    let forced = p.profile.as_deref().and_then(Profile::from_id);
    let plain = p.scene || p.source;
    let detected = hoist_asm::detect_profile(&text).filter(|_| !plain);
    let dialect = forced
        .or(detected)
        .map_or(hoist_asm::Dialect::D3d9, |p| p.dialect());
    let diags: &[Diagnostic] = p.side.as_ref().map_or(&[], |s| &s.diagnostics);
    let idx = LineIndex::new(&text);
    hl.borrow_mut().update(&text, (!plain).then_some(dialect));
    let mut all_marks = squiggles(&text, diags);
    all_marks.extend(p.marks.iter().cloned());
    let marks = highlight::marks_by_line(&text, &all_marks);
    let by_line = by_line(&idx, diags, marks.len());
    // The caret is revealed in the next animation frame after the edit's render, not in
    // the input handler or the render's effects: reading the scroll position forces the
    // page's layout, which the frame does anyway (one layout per edit, and none before
    // the edit's job has gone to the worker).
    let reveal_after = use_mut_ref(|| false);
    {
        let (pending, reveal) = (reveal_after.clone(), reveal.clone());
        use_effect(move || {
            if pending.replace(false) {
                let f = wasm_bindgen::closure::Closure::once_into_js(reveal);
                if let Some(w) = web_sys::window() {
                    let _ = w.request_animation_frame(f.unchecked_ref());
                }
            }
        });
    }
    let oninput = on_input(p, &area, text.clone(), {
        let pending = reveal_after.clone();
        move || *pending.borrow_mut() = true
    });
    let tip = use_state_eq(|| None::<Shown>);
    let line_help = use_state_eq(|| None::<Shown>);
    let caret = on_caret(p, forced.or(detected), &area, &line_help);
    let onkeyup = {
        let (reveal, caret) = (reveal.clone(), caret.clone());
        Callback::from(move |_: KeyboardEvent| {
            reveal();
            caret();
        })
    };
    let onclick = Callback::from(move |_: MouseEvent| caret());
    let onmousemove = on_hover(p, forced.or(detected), &measure, &tip);
    let onmouseleave = {
        let (tip, on_line, on_offset) = (tip.clone(), p.on_line.clone(), p.on_offset.clone());
        Callback::from(move |_: MouseEvent| {
            tip.set(None);
            if let Some(cb) = &on_line {
                cb.emit(None);
            }
            if let Some(cb) = &on_offset {
                cb.emit(None);
            }
        })
    };
    let onblur = {
        let line_help = line_help.clone();
        Callback::from(move |_: FocusEvent| line_help.set(None))
    };
    let onclick_gutter = focus_on_click(&area);
    html! {
        <section class="editor" id={format!("ed-{}", p.id)}>
            <header class="ed-head">
                <label class="ed-title" for={p.id.clone()}>{ p.title.clone() }</label>
                { picker(p, detected) }
                { status(diags, p.side.as_deref()) }
            </header>
            <div class="ed-scroll" ref={scroller} onclick={onclick_gutter.clone()}>
                <div class="ed-gutter" aria-hidden="true" onclick={onclick_gutter}>
                    { gutter(gutter_marks(&by_line, p.highlight_line)) }
                </div>
                <div class="ed-body">
                    <pre class="ed-hl" aria-hidden="true">{ body(&hl.borrow(), marks, &by_line, p.highlight_line, &p.notes) }</pre>
                    <textarea id={p.id.clone()} ref={area.clone()} class="ed-input" spellcheck="false"
                        autocomplete="off" autocapitalize="off" wrap="off"
                        value={p.value.clone()} {oninput} {onkeyup} {onclick} {onmousemove} {onmouseleave} {onblur} />
                    <span class="ed-measure" ref={measure} aria-hidden="true">{ "0000000000" }</span>
                </div>
            </div>
            { target_offer(p) }
            { ophelp_view::view(tip.as_ref().or(line_help.as_ref()), &format!("ed-{}", p.id)) }
            if !diags.is_empty() {
                <ul class="diags" aria-label={format!("{} diagnostics", p.title)}>
                    { diag_list(diags, &text, &idx, &area, reveal) }
                </ul>
            }
        </section>
    }
}

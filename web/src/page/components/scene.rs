//! The scene around the programs (textures, parameters, passes, draws: what an example or
//! an imported file carries besides the two programs), collapsible, editable like a
//! program, with what the scene parser says marked at its line.

use super::Shared;
use super::editor::Editor;
use crate::worker::scene_text;
use hoist_asm::Stage;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SceneProps {
    /// The scene's text (`None`: no scene, the GPGPU quad).
    pub text: Option<AttrValue>,
    pub onchange: Callback<String>,
    /// Source mode: the scene around WGSL/GLSL sources (`uniform` lines, source section
    /// headers), with the compiler's diagnostics of it instead of the scene parser's.
    #[prop_or_default]
    pub source_diagnostics: Option<Vec<hoist_asm::Diagnostic>>,
    /// The document's size: the panel shows the text at it (`scene_size::at_size`), the
    /// text the render and Export read, and says what that moved.
    #[prop_or_default]
    pub size: Option<(u32, u32)>,
    /// Source mode: what drawing its scene at the document's size changes (the text stays
    /// as written: the compiler's diagnostics point into it).
    #[prop_or_default]
    pub sized: Vec<String>,
}

/// Notes as one sentence: joined, capitalized, with a full stop.
fn sentence(notes: &[String]) -> String {
    let s = notes.join("; ");
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        format!("{}{}.", f.to_uppercase(), c.as_str())
    })
}

#[function_component(SceneEditor)]
pub fn scene_editor(p: &SceneProps) -> Html {
    let at = use_memo((p.text.clone(), p.size), |(t, size)| match (t, size) {
        (Some(t), Some((w, h))) => Some(crate::doc::scene_size::at_size(t, *w, *h)),
        _ => None,
    });
    let (text, notes) = match &*at {
        Some(a) => (AttrValue::from(a.text.clone()), a.notes.clone()),
        None => (p.text.clone().unwrap_or_default(), p.sized.clone()),
    };
    let side = use_memo(
        (text.clone(), p.source_diagnostics.clone()),
        |(t, given)| {
            let mut side = scene_text::side(if given.is_some() { "" } else { t });
            if let Some(d) = given {
                side.diagnostics = d.clone();
            }
            Shared(std::rc::Rc::new(side))
        },
    );
    // No scene is no error (the quad): its summary is not marked.
    let errors = if p.text.is_some() {
        side.diagnostics.len()
    } else {
        0
    };
    let open = use_state(|| false);
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            if let Some(d) = e.target_dyn_into::<web_sys::Element>() {
                open.set(d.has_attribute("open"));
            }
        })
    };
    let summary = match (&p.text, errors) {
        (None, _) => "none: one full-screen quad on a float target".to_string(),
        (Some(t), 0) => format!("{} lines", t.lines().count()),
        (Some(_), _) => "does not parse".to_string(),
    };
    html! {
        <details class="scene-panel" id="scene-panel" open={*open} {ontoggle}>
            <summary>
                { "Scene " }
                <span class={classes!("muted", (errors > 0).then_some("bad"))} id="scene-summary">{ summary }</span>
            </summary>
            <p class="hint">
                if p.source_diagnostics.is_some() {
                    { "What the sources run in: `uniform TYPE NAME VALUES` lines (set in both \
                       stages), textures, draws and probes, as `hoist run` reads a scene with \
                       GLSL or WGSL. The source sections stay empty: the editors above fill \
                       them. Clear it to render one quad." }
                } else {
                    { "What the programs run in: textures, parameters, targets, passes and draws \
                       (piglit's shader_runner format with Hoist's extensions). The sections of the \
                       optimized pair stay empty: the editors above fill them. Clear it to render \
                       one quad." }
                }
            </p>
            if !notes.is_empty() {
                <p class="hint" id="scene-size">{ sentence(&notes) }</p>
            }
            <Editor id="scene" title="Scene" value={text} stage={Stage::Fragment}
                side={Some((*side).clone())} onchange={p.onchange.clone()} scene=true />
        </details>
    }
}

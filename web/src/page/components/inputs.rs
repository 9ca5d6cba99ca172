//! Inputs: render size, a texture per sampler unit (built-in pattern or a PNG picked with
//! the file API; filtering, wrapping, storage) and the host-set program parameters as
//! editable fields. Bad values get a message next to the field and are not applied.

use super::supplied::SuppliedInputs;
use super::{Shared, event_checked, event_value};
use crate::doc::numbers;
use crate::doc::{Inputs, MAX_SIZE, ParamKey, Pattern, TexSpec};
use crate::page::state::Action;
use crate::worker::analysis::Analysis;
use crate::worker::render;
use hoist_raster::scene::Scene;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InputsProps {
    pub analysis: Option<Shared<Analysis>>,
    pub inputs: Inputs,
    /// The document's scene, parsed (for the values it sets).
    pub scene: Option<Shared<Scene>>,
    pub image_names: Vec<(u8, String)>,
    pub dispatch: Callback<Action>,
}

const SIZES: [u32; 7] = [8, 16, 32, 64, 128, 256, 512];

/// Messages of fields whose value was refused, by field.
#[derive(Clone)]
struct Errors(UseStateHandle<BTreeMap<String, String>>);

impl Errors {
    fn set(&self, k: String, e: Option<String>) {
        let mut m = (*self.0).clone();
        match e {
            Some(e) => m.insert(k, e),
            None => m.remove(&k),
        };
        self.0.set(m);
    }

    fn show(&self, k: &str) -> Html {
        self.0
            .get(k)
            .map(|e| html! { <span class="field-error" role="alert">{ e.clone() }</span> })
            .unwrap_or_default()
    }
}

/// Pictures being read (kept alive until they are).
type Readers = std::rc::Rc<std::cell::RefCell<Vec<gloo::file::callbacks::FileReader>>>;

/// The render size fields.
fn size_row(p: &InputsProps, errors: &Errors) -> Html {
    let size_cb = |is_w: bool| {
        let (d, errors) = (p.dispatch.clone(), errors.clone());
        Callback::from(move |e: Event| {
            let key = if is_w { "width" } else { "height" }.to_string();
            match numbers::parse_size(&event_value(&e), MAX_SIZE) {
                Ok(v) => {
                    errors.set(key, None);
                    d.emit(Action::SetEdge(is_w, v));
                }
                Err(m) => errors.set(key, Some(m)),
            }
        })
    };
    // A valid number takes effect as it is typed (a redraw of the panel before the field is
    // left must not lose it); what is wrong is said when the field is left.
    let typed = |is_w: bool| {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(v) = numbers::parse_size(&event_value(&e), MAX_SIZE) {
                d.emit(Action::SetEdge(is_w, v));
            }
        })
    };
    html! {
        <div class="row">
            <label>{ "render size " }
                <input type="number" class="num" min="1" max={MAX_SIZE.to_string()} aria-label="Render width"
                    value={p.inputs.width.to_string()} onchange={size_cb(true)} oninput={typed(true)} />
                { " × " }
                <input type="number" class="num" min="1" max={MAX_SIZE.to_string()} aria-label="Render height"
                    value={p.inputs.height.to_string()} onchange={size_cb(false)} oninput={typed(false)} />
            </label>
            <span class="muted">{ format!(" (up to {MAX_SIZE}²)") }</span>
            { errors.show("width") }{ errors.show("height") }
        </div>
    }
}

/// A PNG picked for unit `u`: read, checked, and sent up (or refused with a message).
fn on_picture(p: &InputsProps, u: u8, errors: &Errors, readers: &Readers) -> Callback<Event> {
    let (d, errors, readers) = (p.dispatch.clone(), errors.clone(), readers.clone());
    Callback::from(move |e: Event| {
        let Some((_, file)) = super::picked_file(&e) else {
            return;
        };
        let file = gloo::file::File::from(file);
        let name = file.name();
        let key = format!("tex{u}");
        if file.size() > 32 << 20 {
            errors.set(key, Some(format!("{name} is larger than 32 MiB")));
            return;
        }
        let (d, errors) = (d.clone(), errors.clone());
        let reader = gloo::file::callbacks::read_as_bytes(&file, move |r| match r {
            Ok(bytes) => match hoist_raster::image::png_size(&bytes, render::MAX_IMAGE_PIXELS) {
                Ok(_) => {
                    errors.set(key, None);
                    d.emit(Action::SetImage(u, name, Rc::new(bytes)));
                }
                Err(m) => errors.set(key, Some(format!("{name}: {m}"))),
            },
            Err(e) => errors.set(key, Some(format!("{name}: {e}"))),
        });
        readers.borrow_mut().push(reader);
    })
}

/// A change of one texture setting, from a `<select>`'s or checkbox's event.
fn tex_setting(
    spec: &TexSpec,
    d: &Callback<Action>,
    set: impl Fn(&mut TexSpec, &Event) + 'static,
) -> Callback<Event> {
    let (spec, d) = (spec.clone(), d.clone());
    Callback::from(move |e: Event| {
        let mut s = spec.clone();
        set(&mut s, &e);
        d.emit(Action::SetTexture(s));
    })
}

/// One texture unit: its source (the scene's, a pattern or a picture) and settings.
fn texture_unit(p: &InputsProps, u: u8, errors: &Errors, readers: &Readers) -> Html {
    let explicit = p.inputs.textures.iter().find(|t| t.unit == u).cloned();
    let scene_binds = p.scene.as_ref().is_some_and(|s| render::scene_binds(s, u));
    let from_scene = explicit.is_none() && scene_binds;
    let spec = p.inputs.texture(u);
    let d = &p.dispatch;
    let on_pattern = {
        let (d, spec) = (d.clone(), spec.clone());
        Callback::from(move |e: Event| {
            let v = event_value(&e);
            if v == "scene" {
                d.emit(Action::ResetTexture(u));
            } else if let Some(pat) = Pattern::BUILT_IN.iter().find(|x| x.name() == v) {
                d.emit(Action::SetTexture(TexSpec {
                    pattern: *pat,
                    ..spec.clone()
                }));
            }
        })
    };
    let on_size = tex_setting(&spec, d, |s, e| {
        if let Ok(v) = event_value(e).parse::<u32>() {
            s.size = v;
        }
    });
    let on_linear = tex_setting(&spec, d, |s, e| s.linear = event_value(e) == "linear");
    let on_repeat = tex_setting(&spec, d, |s, e| s.repeat = event_value(e) == "repeat");
    let on_rgba8 = tex_setting(&spec, d, |s, e| s.rgba8 = event_checked(e));
    let on_file = on_picture(p, u, errors, readers);
    let image_name = p
        .image_names
        .iter()
        .find(|(x, _)| *x == u)
        .map(|(_, n)| n.clone());
    let current = if from_scene {
        "scene"
    } else {
        spec.pattern.name()
    };
    let used = p
        .analysis
        .as_ref()
        .and_then(|a| render::unit_texture(a, &p.inputs, p.scene.as_deref(), u));
    let name = hoist_asm::ir::unit_name(u);
    let legend = match &used {
        Some(t) => format!("texture {name} · {}", t.target.arb_name()),
        None => format!("texture {name}"),
    };
    html! {
        <fieldset class="unit" data-unit={u.to_string()}>
            <legend>{ legend }</legend>
            if let Some(t) = &used {
                <span class="unit-shape">{ t.shape.clone() }</span>
                if let Some(f) = &t.flag {
                    <span class="unit-flag" role="alert">{ f.clone() }</span>
                }
            }
            <label>{ "source " }
                <select onchange={on_pattern} aria-label={format!("Texture {u} source")}>
                    if scene_binds {
                        <option value="scene" selected={current == "scene"}>{ "as the scene sets it" }</option>
                    }
                    { for Pattern::BUILT_IN.iter().map(|x| html! {
                        <option value={x.name()} selected={current == x.name()}>{ x.name() }</option>
                    }) }
                    if let Some(n) = &image_name {
                        <option value="image" selected={current == "image"}>{ format!("picture: {n}") }</option>
                    }
                </select>
            </label>
            <label class="file">{ "PNG… " }
                <input type="file" accept="image/png" onchange={on_file} aria-label={format!("Texture {u} picture")} />
            </label>
            if !from_scene {
                <label>{ "size " }
                    <select onchange={on_size} disabled={spec.pattern == Pattern::Image} aria-label={format!("Texture {u} size")}>
                        { for SIZES.iter().map(|s| html! {
                            <option value={s.to_string()} selected={*s == spec.size}>{ format!("{s}²") }</option>
                        }) }
                    </select>
                </label>
                <label>{ "filter " }
                    <select onchange={on_linear} aria-label={format!("Texture {u} filter")}>
                        <option value="nearest" selected={!spec.linear}>{ "nearest" }</option>
                        <option value="linear" selected={spec.linear}>{ "linear" }</option>
                    </select>
                </label>
                <label>{ "wrap " }
                    <select onchange={on_repeat} aria-label={format!("Texture {u} wrap")}>
                        <option value="clamp" selected={!spec.repeat}>{ "clamp" }</option>
                        <option value="repeat" selected={spec.repeat}>{ "repeat" }</option>
                    </select>
                </label>
                <label><input type="checkbox" checked={spec.rgba8} onchange={on_rgba8} />{ " 8-bit" }</label>
            }
            { errors.show(&format!("tex{u}")) }
        </fieldset>
    }
}

/// One host-set parameter: its value (the panel's, the scene's or zero) as a field; `width`
/// is the widest label of the list, in characters.
fn param_row(
    p: &InputsProps,
    k: ParamKey,
    dialect: hoist_asm::Dialect,
    errors: &Errors,
    width: usize,
) -> Html {
    let explicit = p.inputs.param(k);
    let scene_v = p.scene.as_ref().and_then(|s| render::scene_param(s, k));
    let value = explicit.or(scene_v).unwrap_or([0.0; 4]);
    let key = param_field(k);
    let onchange = {
        let (d, errors, key) = (p.dispatch.clone(), errors.clone(), key.clone());
        Callback::from(
            move |e: Event| match numbers::parse_vec4(&event_value(&e)) {
                Ok(v) => {
                    errors.set(key.clone(), None);
                    d.emit(Action::SetParam(k, v));
                }
                Err(m) => errors.set(key.clone(), Some(m)),
            },
        )
    };
    let reset = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.emit(Action::ResetParam(k)))
    };
    let label = k.label(dialect);
    html! {
        <div class="param">
            <label for={key.clone()} style={format!("width: {width}ch")}>{ label.clone() }</label>
            <input id={key.clone()} type="text" class="vec" value={numbers::format_vec4(value)}
                {onchange} aria-label={label} />
            if explicit.is_some() {
                <button type="button" class="link" onclick={reset}
                    title="Back to the scene's value (or zero)">{ "reset" }</button>
            } else if scene_v.is_some() {
                <span class="muted">{ "from scene" }</span>
            } else {
                <span class="muted">{ "unset (0)" }</span>
            }
            { errors.show(&key) }
        </div>
    }
}

#[function_component(InputsPanel)]
pub fn inputs_panel(p: &InputsProps) -> Html {
    let errors = Errors(use_state(BTreeMap::<String, String>::new));
    let readers: Readers = use_mut_ref(Vec::new);
    let Some(a) = &p.analysis else {
        return html! { <section class="panel inputs"><h2>{ "Inputs" }</h2></section> };
    };
    let dialect = a.dialect();
    // The widest label (monospace: `ch` is exact), so the fields of a long list line up.
    let width = a
        .params
        .iter()
        .map(|k| k.label(dialect).chars().count())
        .max()
        .unwrap_or(0);
    html! {
        <section class="panel inputs" id="inputs" aria-label="Inputs">
            <h2>{ "Inputs" }</h2>
            { size_row(p, &errors) }
            if a.units.is_empty() {
                <p class="muted">{ "The fragment program samples no texture." }</p>
            }
            { for a.units.iter().map(|&u| texture_unit(p, u, &errors, &readers)) }
            <h3>{ "Parameters" }</h3>
            if a.params.is_empty() {
                <p class="muted">{ "The programs read no host-set parameter." }</p>
            }
            { for a.params.iter().map(|&k| param_row(p, k, dialect, &errors, width)) }
            <SuppliedInputs analysis={a.clone()} inputs={p.inputs.clone()} quad={p.scene.is_none()}
                dispatch={p.dispatch.clone()} />
        </section>
    }
}

fn param_field(k: ParamKey) -> String {
    format!(
        "param-{}-{}-{}",
        if k.vertex { "v" } else { "f" },
        if k.local { "local" } else { "env" },
        k.index
    )
}

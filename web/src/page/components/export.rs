//! Export for slides: the annotated optimized programs, the dependence graph and the three
//! images with the verdict as SVG (`crate::page::figure`) or PNG (the SVG drawn on a canvas at
//! twice its size), downloaded by the browser; and the button that opens presentation mode.

use super::Shared;
use crate::page::figure::{self, Picture};
use crate::worker::analysis::Analysis;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// The key help of presentation mode: in its footer and beside the button that opens it.
pub const HELP: &str = "←/→ views · ↑/↓ groups · Shift+↑/↓ scroll · Esc leaves";

/// A figure the page can export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Fragment,
    Vertex,
    Graph,
    Images,
}

impl View {
    pub const ALL: [View; 4] = [View::Fragment, View::Vertex, View::Graph, View::Images];

    pub fn title(self) -> &'static str {
        match self {
            View::Fragment => "Optimized fragment program",
            View::Vertex => "Optimized vertex program",
            View::Graph => "Dependence graph",
            View::Images => "Images and verdict",
        }
    }

    fn file(self) -> &'static str {
        match self {
            View::Fragment => "hoist-fragment",
            View::Vertex => "hoist-vertex",
            View::Graph => "hoist-graph",
            View::Images => "hoist-images",
        }
    }
}

fn document() -> Option<web_sys::Document> {
    web_sys::window().and_then(|w| w.document())
}

fn text_of(selector: &str) -> String {
    document()
        .and_then(|d| d.query_selector(selector).ok().flatten())
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

/// A canvas's pixels as a PNG data URI (empty when it has none).
fn canvas_uri(id: &str) -> Option<(String, u32, u32)> {
    let c = document()?
        .get_element_by_id(id)?
        .dyn_into::<web_sys::HtmlCanvasElement>()
        .ok()?;
    (c.width() > 0 && c.height() > 0)
        .then(|| c.to_data_url().ok().map(|u| (u, c.width(), c.height())))
        .flatten()
}

/// The SVG of `view`, or why there is none.
pub fn svg_of(view: View, a: Option<&Analysis>) -> Result<String, String> {
    let o = a
        .and_then(|a| a.optimized.as_deref())
        .ok_or("there is no optimized pair yet")?;
    match view {
        View::Fragment => Ok(figure::code_svg(
            &format!("Fragment program ({})", o.fp_profile.header()),
            &o.fp,
            o.fp_profile.dialect(),
        )),
        View::Vertex => Ok(figure::code_svg(
            &format!("Vertex program ({})", o.vp_profile.header()),
            &o.vp,
            o.vp_profile.dialect(),
        )),
        View::Graph => o
            .dag
            .as_ref()
            .as_ref()
            .map(figure::dag_svg)
            .map_err(Clone::clone),
        View::Images => {
            let ids = [
                ("canvas-original", "original"),
                ("canvas-optimized", "optimized"),
                ("canvas-diff", "difference"),
            ];
            let shots: Vec<(String, u32, u32, &str)> = ids
                .iter()
                .filter_map(|(id, cap)| canvas_uri(id).map(|(u, w, h)| (u, w, h, *cap)))
                .collect();
            let (w, h) = shots
                .first()
                .map(|s| (s.1, s.2))
                .ok_or("nothing is rendered yet")?;
            let pictures: Vec<Picture> = shots
                .iter()
                .map(|s| Picture {
                    caption: s.3,
                    uri: &s.0,
                })
                .collect();
            Ok(figure::images_svg(
                &pictures,
                w,
                h,
                &text_of("#verdict"),
                &text_of(".verdict-detail"),
            ))
        }
    }
}

/// Makes the browser download `href` as `name`.
fn download_href(href: &str, name: &str) -> Result<(), JsValue> {
    let d = document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = d.create_element("a")?.dyn_into()?;
    a.set_href(href);
    a.set_download(name);
    d.body().ok_or("no body")?.append_child(&a)?;
    a.click();
    a.remove();
    Ok(())
}

fn svg_url(svg: &str) -> Result<String, JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(svg));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    web_sys::Url::create_object_url_with_blob(&blob)
}

/// Downloads the SVG.
pub fn download_svg(svg: &str, name: &str) -> Result<(), JsValue> {
    let url = svg_url(svg)?;
    download_href(&url, &format!("{name}.svg"))?;
    // The download has started from the URL; it may be released on the next turn.
    let u = url.clone();
    gloo::timers::callback::Timeout::new(1000, move || {
        let _ = web_sys::Url::revoke_object_url(&u);
    })
    .forget();
    Ok(())
}

/// Draws the SVG on a canvas at twice its size and downloads the PNG.
pub fn download_png(svg: &str, name: &str) -> Result<(), JsValue> {
    let url = svg_url(svg)?;
    let img = web_sys::HtmlImageElement::new()?;
    let name = format!("{name}.png");
    let (i2, u2) = (img.clone(), url.clone());
    let onload = Closure::once(move || {
        let draw = || -> Result<(), JsValue> {
            let d = document().ok_or("no document")?;
            let c: web_sys::HtmlCanvasElement = d.create_element("canvas")?.dyn_into()?;
            let (w, h) = (
                i2.natural_width().max(1) * 2,
                i2.natural_height().max(1) * 2,
            );
            c.set_width(w);
            c.set_height(h);
            let ctx: web_sys::CanvasRenderingContext2d =
                c.get_context("2d")?.ok_or("no 2d context")?.dyn_into()?;
            ctx.draw_image_with_html_image_element_and_dw_and_dh(
                &i2, 0.0, 0.0, w as f64, h as f64,
            )?;
            download_href(&c.to_data_url_with_type("image/png")?, &name)
        };
        if let Err(e) = draw() {
            web_sys::console::warn_2(&"hoist: PNG export failed".into(), &e);
        }
        let _ = web_sys::Url::revoke_object_url(&u2);
    });
    img.set_onload(Some(onload.as_ref().unchecked_ref()));
    // The image keeps the handler until it has loaded once.
    onload.forget();
    img.set_src(&url);
    Ok(())
}

#[derive(Properties, PartialEq)]
pub struct ExportProps {
    pub analysis: Option<Shared<Analysis>>,
    pub on_present: Callback<()>,
}

#[function_component(ExportPanel)]
pub fn export_panel(p: &ExportProps) -> Html {
    let error = use_state(|| None::<String>);
    let button = |view: View, png: bool| {
        let (a, error) = (p.analysis.clone(), error.clone());
        let onclick = Callback::from(move |_: MouseEvent| {
            let r = svg_of(view, a.as_deref()).and_then(|svg| {
                let done = if png {
                    download_png(&svg, view.file())
                } else {
                    download_svg(&svg, view.file())
                };
                done.map_err(|e| format!("the browser refused the download: {e:?}"))
            });
            error.set(r.err());
        });
        let kind = if png { "PNG" } else { "SVG" };
        html! {
            <button type="button" class="small" id={format!("export-{}-{}", view.file(), kind.to_lowercase())}
                aria-label={format!("{} as {kind}", view.title())} {onclick}>{ kind }</button>
        }
    };
    let on_present = p.on_present.clone();
    html! {
        <section class="panel export" id="export" aria-label="Export for slides">
            <h2>{ "Slides" }</h2>
            <button type="button" id="present-open" class="primary"
                onclick={Callback::from(move |_| on_present.emit(()))}>{ "Present" }</button>
            <span class="muted">{ format!(" large type, one view at a time: {}", HELP) }</span>
            <ul class="export-list">
                { for View::ALL.iter().map(|&v| html! {
                    <li><span>{ v.title() }</span>{ button(v, false) }{ button(v, true) }</li>
                }) }
            </ul>
            if let Some(e) = &*error {
                <p class="field-error" role="alert">{ e.clone() }</p>
            }
        </section>
    }
}

//! Component and codec tests in headless Chromium (`cargo test --target
//! wasm32-unknown-unknown -p hoist-web`, with CHROMEDRIVER set). Each test mounts a panel
//! into its own element, drives it through DOM events and checks what it shows and sends.

#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use hoist_asm::Stage;
use hoist_web::doc::codec::{self, DecodeError, Link};
use hoist_web::doc::{Doc, ViewMap};
use hoist_web::page::app::{App, AppProps, TEST_FAILURE_KEY};
use hoist_web::page::components::Shared;
use hoist_web::page::components::dag::{DagProps, DagView};
use hoist_web::page::components::editor::{Editor, EditorProps};
use hoist_web::page::components::inputs::{InputsPanel, InputsProps};
use hoist_web::page::components::optimized::{OptimizedProps, OptimizedView};
use hoist_web::page::components::output::{Output, OutputProps};
use hoist_web::page::components::stats::{StatsPanel, StatsProps};
use hoist_web::page::components::stepper::{Stepper, StepperProps};
use hoist_web::page::state::{Action, Rendered};
use hoist_web::wire;
use hoist_web::wire::bridge::Starter;
use hoist_web::worker::analysis::Trust;
use hoist_web::worker::analysis::{Side, analyze};
use hoist_web::worker::reach::Reach;
use hoist_web::worker::render::Run;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement};
use yew::{AttrValue, Callback};

wasm_bindgen_test_configure!(run_in_browser);

const FIG3_VP: &str = include_str!("../../examples/paper/fig3.vsh");
const FIG3_FP: &str = include_str!("../../examples/paper/fig3.psh");

fn fig3() -> Doc {
    Doc {
        vp: FIG3_VP.into(),
        fp: FIG3_FP.into(),
        ..Doc::default()
    }
}

fn mount_point() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    div
}

async fn tick() {
    TimeoutFuture::new(30).await;
}

fn all(root: &Element, sel: &str) -> Vec<Element> {
    let list = root.query_selector_all(sel).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
}

fn one(root: &Element, sel: &str) -> Element {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {sel}"))
}

fn text(root: &Element, sel: &str) -> String {
    one(root, sel).text_content().unwrap_or_default()
}

fn has_class(el: &Element, class: &str) -> bool {
    el.class_name().split_whitespace().any(|c| c == class)
}

fn fire(el: &Element, kind: &str) {
    let ev = web_sys::Event::new_with_event_init_dict(kind, &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    el.dispatch_event(&ev).unwrap();
}

/// Records what a callback receives.
fn recorder<T: 'static>() -> (Callback<T>, Rc<RefCell<Vec<T>>>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = seen.clone();
    (Callback::from(move |v: T| s.borrow_mut().push(v)), seen)
}

#[wasm_bindgen_test]
fn permalinks_round_trip_and_refuse_hostile_fragments() {
    let mut d = fig3();
    d.inputs.width = 77;
    d.opts.mirror_params = true;
    let link = codec::encode(&d);
    assert_eq!(
        codec::decode(&format!("#{link}")),
        Ok(Link::State(Box::new(d)))
    );
    assert_eq!(
        codec::decode("#v3.AAAA"),
        Err(DecodeError::Newer { version: 3 })
    );
    assert_eq!(codec::decode("#v1.@@@"), Err(DecodeError::Base64));
    assert!(matches!(
        codec::decode(&link[..link.len() / 2]),
        Err(DecodeError::Base64 | DecodeError::Deflate | DecodeError::Json(_))
    ));
    let huge = format!("v1.{}", "A".repeat(codec::MAX_FRAGMENT + 1));
    assert!(matches!(
        codec::decode(&huge),
        Err(DecodeError::TooLong { .. })
    ));
}

#[wasm_bindgen_test]
async fn editor_highlights_numbers_lines_and_shows_diagnostics_inline() {
    let root = mount_point();
    let src = "ps_2_0\ndcl t0\nmov r0, t0\nmov oC0, r0,\n";
    let side = Side::parse(src, None);
    assert!(side.errors() > 0);
    let (onchange, seen) = recorder::<String>();
    let props = yew::props!(EditorProps {
        id: AttrValue::from("t-fp"),
        title: AttrValue::from("Fragment program"),
        value: AttrValue::from(src),
        stage: Stage::Fragment,
        side: Some(Shared(Rc::new(side))),
        onchange,
    });
    yew::Renderer::<Editor>::with_root_and_props(root.clone(), props).render();
    tick().await;

    assert_eq!(all(&root, ".ed-gutter .gl").len(), 5, "one number per line");
    assert_eq!(text(&root, ".tk-hdr"), "ps_2_0");
    assert!(
        all(&root, ".tk-op")
            .iter()
            .any(|e| e.text_content().unwrap() == "mov")
    );
    // The error is marked on line 4: gutter, squiggle, message at the end of the line.
    let gutter = all(&root, ".ed-gutter .gl");
    assert!(has_class(&gutter[3], "err"));
    assert!(!has_class(&gutter[2], "err"));
    let lines = all(&root, ".ed-hl .cl");
    assert_eq!(lines.len(), 5, "one highlighted line per line");
    assert_eq!(all(&root, ".ed-hl .hl-block").len(), 1);
    assert!(lines[3].query_selector(".lens.err").unwrap().is_some());
    assert!(lines[3].query_selector(".sq-err").unwrap().is_some());
    assert!(text(&root, ".diags .diag-pos").starts_with("4:"));
    assert!(text(&root, ".badge").contains("1 error"));

    // Typing reaches the callback.
    let ta: HtmlTextAreaElement = one(&root, "textarea").dyn_into().unwrap();
    ta.set_value("ps_2_0\nmov oC0, c0\n");
    fire(&ta, "input");
    assert_eq!(seen.borrow().last().unwrap(), "ps_2_0\nmov oC0, c0\n");

    // A text above the cap is put back as it was (the reducer explains why).
    ta.set_value(&"x".repeat(hoist_web::doc::MAX_PROGRAM + 1));
    fire(&ta, "input");
    assert_eq!(ta.value(), src);

    // The diagnostic's button puts the cursor on the error.
    ta.set_value(src);
    let b: HtmlElement = one(&root, ".diag-pos").dyn_into().unwrap();
    b.click();
    let start = ta.selection_start().unwrap().unwrap() as usize;
    assert_eq!(src[..start].lines().count(), 4);
}

#[wasm_bindgen_test]
async fn optimized_view_marks_moves_additions_and_changed_operands() {
    let root = mount_point();
    let a = analyze(&fig3());
    let o = a.optimized.as_ref().expect("Figure 3 optimizes");
    let (on_origin, seen) = recorder::<Option<u32>>();
    let props = OptimizedProps {
        id: "t-vp".into(),
        title: "Vertex program".into(),
        lines: Shared(o.vp.clone()),
        dialect: hoist_asm::Dialect::D3d9,
        on_origin,
        profile: Some(o.vp_profile),
        other: Some(o.fp_profile),
        lit: Vec::new(),
        on_focus: None,
    };
    yew::Renderer::<OptimizedView>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let moved = all(&root, ".ol.moved");
    assert!(!moved.is_empty());
    assert!(moved.iter().all(|m| {
        m.query_selector(".mk")
            .unwrap()
            .unwrap()
            .text_content()
            .unwrap()
            == "→"
    }));
    assert!(
        all(&root, ".ol.added .mk")
            .iter()
            .all(|m| m.text_content().unwrap() == "+")
    );
    assert!(
        !all(&root, ".changed").is_empty(),
        "changed operands are underlined"
    );

    // Hovering a moved line names its origin and lights it up in the original program.
    fire(&moved[0], "mouseover");
    fire(&moved[0], "mouseenter");
    tick().await;
    let origin = seen
        .borrow()
        .last()
        .copied()
        .flatten()
        .expect("an origin line");
    assert!(origin >= 15, "fragment line {origin}");
    assert!(text(&root, ".why").contains(&format!("moved from fragment line {origin}")));
    fire(&moved[0], "mouseleave");
    assert_eq!(seen.borrow().last().copied(), Some(None));
}

#[wasm_bindgen_test]
async fn fragment_view_says_why_instructions_stayed() {
    let root = mount_point();
    let a = analyze(&fig3());
    let o = a.optimized.as_ref().unwrap();
    let props = OptimizedProps {
        id: "t-fp2".into(),
        title: "Fragment program".into(),
        lines: Shared(o.fp.clone()),
        dialect: hoist_asm::Dialect::D3d9,
        on_origin: Callback::noop(),
        profile: Some(o.fp_profile),
        other: Some(o.vp_profile),
        lit: Vec::new(),
        on_focus: None,
    };
    yew::Renderer::<OptimizedView>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let stayed = all(&root, ".ol.stayed");
    let texld = stayed
        .iter()
        .find(|l| l.text_content().unwrap().contains("texld"))
        .expect("texld stays");
    let el: HtmlElement = texld.clone().dyn_into().unwrap();
    el.focus().unwrap();
    tick().await;
    // The focused instruction's opcode is explained, with its cost here and per vertex.
    let help = text(&root, ".op-help-line");
    assert!(help.starts_with("texld — samples a texture"), "{help}");
    assert!(help.contains("1 slot in ps_2_0"), "{help}");
    assert!(
        text(&root, ".why").contains("C2"),
        "{}",
        text(&root, ".why")
    );
}

fn run(img: hoist_raster::Image) -> Run {
    Run {
        image: img,
        stats: hoist_raster::Stats::default(),
        probes: (0, 0),
        probe_list: Vec::new(),
        executor: None,
        helped: 0,
        shared: 0,
    }
}

#[wasm_bindgen_test]
async fn output_shows_images_and_the_verdict() {
    let root = mount_point();
    let a = hoist_raster::Image::new(8, 4, [0.25, 0.5, 0.75, 1.0]);
    let mut b = a.clone();
    b.pixels[5][1] = 0.5 + 1e-3;
    let rendered = |b: &hoist_raster::Image| Rendered {
        original: Ok(run(a.clone())),
        optimized: Some(Ok(run(b.clone()))),
        verdict: Some(hoist_raster::compare(&a, b)),
        heat: Vec::new(),
        display: Default::default(),
        ms_original: 1.0,
        ms_optimized: 1.0,
        weak: None,
        unsupplied: Vec::new(),
        reused: [false; 2],
        guidance: Some(hoist_web::worker::guidance::Guidance {
            culprit: Some(hoist_web::worker::guidance::Culprit {
                group: 1,
                instructions: vec![0],
                lines: vec![2],
            }),
            cancellation: Some(hoist_web::worker::guidance::Cancellation {
                magnitude: 1e4,
                delta: 4.8e-4,
                reference: Some(0.5),
                better: Some(hoist_web::worker::guidance::Better::Optimized),
                text: "cancellation: …".into(),
            }),
            ..Default::default()
        }),
    };
    let (dispatch, actions) = recorder::<Action>();
    let props = OutputProps {
        rendered: Some(Shared(Rc::new(rendered(&b)))),
        progress: Some(0.5),
        optimizing: false,
        stopped: false,
        trust: None,
        engine_error: None,
        view: ViewMap::default(),
        tolerance: 1e-4,
        error: None,
        dispatch,
        fp_source: Some("!!ARBfp1.0\nADD a, a, -1e4;\n".into()),
        previous: false,
    };
    yew::Renderer::<Output>::with_root_and_props(root.clone(), props).render();
    tick().await;
    assert!(text(&root, "#verdict").starts_with("DIFFERENT"));
    // The guidance: the culprit's line links to the source, the worst pixel is marked on
    // all three images, and the tolerance that would accept the difference is a click away.
    assert!(
        text(&root, "#culprit").starts_with("caused by group 2: line 2 ADD a, a, -1e4;"),
        "{}",
        text(&root, "#culprit")
    );
    for id in ["#worst-original", "#worst-optimized", "#worst-diff"] {
        assert_eq!(text(&root, id), "(5, 0)");
    }
    let link: web_sys::HtmlElement = one(&root, ".line-link").dyn_into().unwrap();
    link.click();
    assert!(matches!(
        actions.borrow().last(),
        Some(Action::OriginLine(Some(2)))
    ));
    let tol: web_sys::HtmlElement = one(&root, "#use-tolerance").dyn_into().unwrap();
    tol.click();
    assert!(matches!(actions.borrow().last(), Some(Action::SetTolerance(t)) if *t == 5e-4));
    actions.borrow_mut().clear();
    assert!(text(&root, ".verdict-detail").contains("(5, 0) channel G"));
    let c: web_sys::HtmlCanvasElement = one(&root, "#canvas-original").dyn_into().unwrap();
    assert_eq!((c.width(), c.height()), (8, 4));
    assert!(text(&root, ".progress").contains("50%"));
    // Stop is offered while the job runs, and asks the page to stop it.
    let stop: HtmlElement = one(&root, "#stop").dyn_into().unwrap();
    stop.click();
    assert!(matches!(actions.borrow_mut().pop(), Some(Action::Stop)));

    // Bad range input is refused with a message.
    let lo: HtmlInputElement = one(&root, "input[aria-label='Range low']")
        .dyn_into()
        .unwrap();
    lo.set_value("NaN");
    fire(&lo, "change");
    tick().await;
    assert!(text(&root, ".field-error").contains("NaN"));
    assert!(actions.borrow().is_empty());
    lo.set_value("-1");
    fire(&lo, "change");
    assert!(matches!(actions.borrow().last(), Some(Action::SetView(v)) if v.lo == -1.0));
}

#[wasm_bindgen_test]
async fn a_stopped_job_says_so_and_runs_again() {
    let root = mount_point();
    let (dispatch, actions) = recorder::<Action>();
    let props = OutputProps {
        rendered: None,
        progress: None,
        optimizing: false,
        stopped: true,
        trust: None,
        engine_error: None,
        view: ViewMap::default(),
        tolerance: 0.0,
        error: None,
        fp_source: None,
        dispatch,
        previous: false,
    };
    yew::Renderer::<Output>::with_root_and_props(root.clone(), props).render();
    tick().await;
    assert_eq!(text(&root, "#verdict"), "no verdict");
    assert!(text(&root, ".verdict-detail").contains("stopped"));
    assert!(text(&root, "#stopped").starts_with("Stopped"));
    assert!(root.query_selector("#stop").unwrap().is_none());
    let again: HtmlElement = one(&root, "#rerun").dyn_into().unwrap();
    again.click();
    assert!(matches!(actions.borrow().last(), Some(Action::Rerun)));
}

#[derive(yew::Properties, PartialEq)]
struct HostProps {
    text: AttrValue,
    /// Set by the host: changes its text.
    set: Rc<RefCell<Option<Callback<String>>>>,
}

/// An editor whose text the test changes, as the app would.
#[yew::function_component(Host)]
fn host(p: &HostProps) -> yew::Html {
    let text = yew::use_state(|| p.text.to_string());
    let t = text.clone();
    *p.set.borrow_mut() = Some(Callback::from(move |s: String| t.set(s)));
    yew::html! {
        <Editor id="t-inc" title="Fragment program" value={AttrValue::from((*text).clone())}
            stage={Stage::Fragment} onchange={Callback::noop()} />
    }
}

#[wasm_bindgen_test]
async fn an_edit_redraws_only_the_block_of_the_line_it_changes() {
    let root = mount_point();
    let line = |i: usize| format!("mad r0.y, r0.y, c0.z, c{i}.y ; step {i}\n");
    let text: String = std::iter::once("ps_3_0\n".to_string())
        .chain((1..300).map(line))
        .collect();
    let set = Rc::new(RefCell::new(None));
    let props = HostProps {
        text: AttrValue::from(text.clone()),
        set: set.clone(),
    };
    yew::Renderer::<Host>::with_root_and_props(root.clone(), props).render();
    tick().await;
    assert_eq!(all(&root, ".ed-hl .hl-block").len(), 10);
    let watch = js_sys::Function::new_with_args(
        "pre",
        "window.__blocks = new Set(); window.__obs = new MutationObserver((rs) => rs.forEach((r) => {\
           const e = r.target.nodeType === 1 ? r.target : r.target.parentElement;\
           const b = e.closest('.hl-block');\
           window.__blocks.add(b ? [...pre.children].indexOf(b) : -1); }));\
         window.__obs.observe(pre, { subtree: true, childList: true, characterData: true, attributes: true });",
    );
    watch.call1(&JsValue::NULL, &one(&root, ".ed-hl")).unwrap();
    // Line 100 (1-based; the header is line 1) is in the fourth block of 32 lines.
    let edited = text.replace("c99.y ; step 99\n", "c99.x ; step 99\n");
    assert_ne!(edited, text);
    (set.borrow().clone().unwrap()).emit(edited);
    for _ in 0..100 {
        tick().await;
        if all(&root, ".ed-hl .cl")[99]
            .text_content()
            .unwrap()
            .contains("c99.x")
        {
            break;
        }
    }
    let lines = all(&root, ".ed-hl .cl");
    assert!(
        lines[99].text_content().unwrap().contains("c99.x"),
        "{:?}",
        lines[99].text_content()
    );
    let changed = js_sys::Function::new_no_args(
        "window.__obs.disconnect(); return [...window.__blocks].join(',');",
    )
    .call0(&JsValue::NULL)
    .unwrap()
    .as_string()
    .unwrap();
    assert_eq!(changed, "3");
}

/// Mounts the output panel for identical 4×4 images with the given trust and worker state.
async fn identical_output(trust: Option<Trust>, engine_error: Option<&str>) -> Element {
    let root = mount_point();
    let a = hoist_raster::Image::new(4, 4, [1.0; 4]);
    let props = OutputProps {
        rendered: Some(Shared(Rc::new(Rendered {
            original: Ok(run(a.clone())),
            optimized: Some(Ok(run(a.clone()))),
            verdict: Some(hoist_raster::compare(&a, &a)),
            heat: Vec::new(),
            display: Default::default(),
            ms_original: 0.0,
            ms_optimized: 0.0,
            weak: None,
            unsupplied: Vec::new(),
            reused: [false; 2],
            guidance: None,
        }))),
        progress: None,
        optimizing: engine_error.is_none() && trust.is_none(),
        stopped: false,
        trust,
        engine_error: engine_error.map(AttrValue::from),
        view: ViewMap::default(),
        tolerance: 0.0,
        error: None,
        dispatch: Callback::noop(),
        fp_source: None,
        previous: false,
    };
    yew::Renderer::<Output>::with_root_and_props(root.clone(), props).render();
    tick().await;
    root
}

fn trust(validated: bool, hand: bool, rejected: &[&str]) -> Trust {
    Trust {
        validated,
        hand,
        pending: false,
        summary: if hand {
            "your hand edit (not validated)".into()
        } else if validated {
            "validated on 3 input sets · 22 vertices · 232 transported values · 72 fragments".into()
        } else {
            "not validated: the executor cannot run the pair".into()
        },
        rejected: rejected.iter().map(|r| r.to_string()).collect(),
    }
}

#[wasm_bindgen_test]
async fn output_calls_identical_images_bit_identical_only_when_validated() {
    let root = identical_output(None, None).await;
    assert_eq!(text(&root, "#verdict"), "bit-identical");
    assert!(text(&root, ".busy").contains("optimizing"));

    let rejected =
        "rejected by validation: lines 4, 5 — per-vertex check on the perspective grid: x";
    let root = identical_output(Some(trust(true, false, &[rejected])), None).await;
    assert_eq!(text(&root, "#verdict"), "bit-identical");
    assert!(text(&root, "#validation").contains("validated on 3 input sets"));
    assert!(has_class(&one(&root, "#validation"), "ok"));
    assert_eq!(text(&root, "#rejected li"), rejected);

    // Not validated: the same pixels are not called equivalent.
    let root = identical_output(Some(trust(false, false, &[])), None).await;
    assert_eq!(text(&root, "#verdict"), "not validated");
    assert!(has_class(&one(&root, ".verdict"), "unvalidated"));
    assert!(text(&root, ".verdict-detail").contains("not known to be equivalent"));
    assert!(text(&root, "#validation").starts_with("not validated"));
    assert!(has_class(&one(&root, "#validation"), "warn"));
    assert!(all(&root, "#rejected").is_empty());

    // A hand edit is judged by the render alone.
    let root = identical_output(Some(trust(false, true, &[])), None).await;
    assert_eq!(text(&root, "#verdict"), "bit-identical");
    assert!(text(&root, "#validation").contains("your hand edit (not validated)"));

    // A dead worker: its message instead of a verdict.
    let root = identical_output(Some(trust(true, false, &[])), Some("the optimizer stopped")).await;
    assert_eq!(text(&root, "#verdict"), "no verdict");
    assert_eq!(text(&root, "#engine-error"), "the optimizer stopped");
    assert!(all(&root, "#validation").is_empty());
}

#[wasm_bindgen_test]
fn jobs_and_events_cross_the_wire_intact() {
    use hoist_web::worker::engine::{Event, Fail, Job, Request};
    let mut images = hoist_web::worker::render::Images::new();
    images.insert(3, Rc::new(vec![1u8, 2, 3, 250]));
    let job = Job {
        id: 42,
        doc: fig3(),
        images,
        fail: Some(Fail::Throw),
        force: Some(hoist_web::worker::executor::Force::Refuse),
        fresh: true,
        validation_delay_ms: 250,
        band_workers: Some(3),
    };
    let packed = wire::encode_request(&Request::Run(Box::new(job.clone()))).unwrap();
    // The header and the picture move, not copied.
    assert_eq!(packed.transfer.length(), 2);
    let Request::Run(back) = wire::decode_request(packed.message).unwrap() else {
        panic!("not a job")
    };
    assert_eq!(
        (
            back.id,
            &back.doc,
            back.fail,
            back.fresh,
            back.validation_delay_ms,
            back.band_workers
        ),
        (42, &job.doc, Some(Fail::Throw), true, 250, Some(3))
    );
    assert_eq!(
        back.images.get(&3).map(|b| b.as_slice()),
        Some(&[1u8, 2, 3, 250][..])
    );

    // The optimizer's validated result.
    let a = hoist_web::worker::analysis::parse(&job.doc);
    let full = hoist_web::worker::analysis::optimize(&job.doc, &a);
    let result = hoist_web::worker::analysis::page_result(&job.doc, &a, full.as_ref());
    let e = Event::Optimized {
        id: 42,
        result: result.clone(),
        ms: 1.5,
    };
    let Event::Optimized {
        result: Some(Ok(v)),
        ..
    } = wire::decode_event(wire::encode_event(e).unwrap().message).unwrap()
    else {
        panic!("not an optimized result")
    };
    let Some(Ok(orig)) = result else { panic!() };
    assert_eq!(v, orig);
    assert_eq!(v.fp.text, orig.fp.text);
    assert_eq!(v.fates, orig.fates);

    // Images (NaN included) and the heat map travel as buffers.
    let mut x = hoist_raster::Image::new(3, 2, [0.25, -0.0, 1e30, 1.0]);
    x.pixels[4] = [f32::NAN, f32::INFINITY, -1.5, 0.0];
    let y = hoist_raster::Image::new(3, 2, [0.5; 4]);
    let rendered = Rendered {
        original: Ok(run(x.clone())),
        optimized: Some(Ok(run(y.clone()))),
        verdict: Some(hoist_raster::compare(&x, &y)),
        heat: hoist_web::worker::render::heat_map(&x, &y),
        display: Default::default(),
        ms_original: 2.0,
        ms_optimized: 3.0,
        weak: Some(hoist_web::worker::guidance::Weak::Flat(
            hoist_verify::verdict::Flat::Constant,
        )),
        unsupplied: Vec::new(),
        reused: [false; 2],
        guidance: None,
    }
    .with_display(hoist_web::doc::ViewMap::default());
    let packed = wire::encode_event(Event::Rendered {
        id: 9,
        rendered: Box::new(rendered.clone()),
    })
    .unwrap();
    assert_eq!(packed.transfer.length(), 6);
    assert_eq!(wire::event_id(&packed.message), Some(9));
    let Event::Rendered { id: 9, rendered: r } = wire::decode_event(packed.message).unwrap() else {
        panic!("not a render")
    };
    let px = |r: &Rendered| r.original.as_ref().unwrap().image.pixels.clone();
    let bits = |p: Vec<[f32; 4]>| p.iter().flatten().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(px(&r)), bits(px(&rendered)));
    assert_eq!(r.optimized.unwrap().unwrap().image, y);
    assert_eq!(r.heat, rendered.heat);
    assert_eq!(r.display, rendered.display);
    assert_eq!(r.display.original.len(), 3 * 2 * 4);
    // (NaN is unequal to itself: compare what is printed.)
    assert_eq!(
        format!("{:?}", r.verdict),
        format!("{:?}", rendered.verdict)
    );

    let ready = wire::encode_event(Event::Ready).unwrap().message;
    assert_eq!(wire::event_id(&ready), None);
    assert!(matches!(wire::decode_event(ready), Ok(Event::Ready)));

    // Garbage is an error, not a panic.
    assert!(wire::decode_event(JsValue::from_str("junk")).is_err());
    assert!(wire::decode_event(js_sys::Array::of1(&JsValue::from(7)).into()).is_err());
    assert!(wire::decode_request(js_sys::Array::new().into()).is_err());
}

#[wasm_bindgen_test]
async fn stats_report_slots_and_the_estimate() {
    let root = mount_point();
    let a = analyze(&fig3());
    let props = StatsProps {
        analysis: Some(Shared(Rc::new(a.clone()))),
        rendered: None,
        width: 256,
        height: 256,
        analysis_ms: 12.5,
        validation_ms: 3.5,
        cost: Default::default(),
        interp_cost: 0.5,
        timings: vec![[40.0, 52.5]],
        dispatch: Callback::noop(),
    };
    yew::Renderer::<StatsPanel>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let after = a.after.unwrap();
    assert_eq!(
        text(&root, "#stat-fp"),
        format!("16 → {}", after.fp_slots.total())
    );
    assert_eq!(
        text(&root, "#stat-vp"),
        format!("2 → {}", after.vp_slots.total())
    );
    assert!(text(&root, "#estimate").contains("65,536"));
    assert_eq!(text(&root, "#stat-opt-time"), "12.5 ms");
    assert_eq!(text(&root, "#stat-validation-time"), ", validation 3.5 ms");
    assert_eq!(
        text(&root, "#stat-time"),
        "original 40.0 ms, optimized 52.5 ms"
    );
    assert!(text(&root, "#estimate-change").contains('%'));
}

#[wasm_bindgen_test]
async fn parameters_refuse_nan_and_infinity() {
    let root = mount_point();
    let doc = Doc {
        vp: "vs_1_1\ndcl_position v0\ndcl_texcoord v1\nmov oPos, v0\nmov oT0, v1\n".into(),
        fp: "ps_2_0\ndcl t0\nadd r0, t0, c2\nmov oC0, r0\n".into(),
        ..Doc::default()
    };
    let a = analyze(&doc);
    let (dispatch, actions) = recorder::<Action>();
    let props = InputsProps {
        analysis: Some(Shared(Rc::new(a))),
        inputs: doc.inputs.clone(),
        scene: None,
        image_names: Vec::new(),
        dispatch,
    };
    yew::Renderer::<InputsPanel>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let field: HtmlInputElement = one(&root, "#param-f-env-2").dyn_into().unwrap();
    for bad in ["NaN", "1, inf", "1e40"] {
        field.set_value(bad);
        fire(&field, "change");
        tick().await;
        assert!(
            !text(&root, ".field-error").is_empty(),
            "no message for {bad}"
        );
    }
    assert!(actions.borrow().is_empty());
    field.set_value("0.5, 1");
    fire(&field, "change");
    tick().await;
    assert!(matches!(
        actions.borrow().last(),
        Some(Action::SetParam(k, v)) if k.index == 2 && !k.vertex && *v == [0.5, 1.0, 0.0, 1.0]
    ));
    assert!(all(&root, ".field-error").is_empty());

    // Render size beyond the cap.
    let w: HtmlInputElement = one(&root, "input[aria-label='Render width']")
        .dyn_into()
        .unwrap();
    w.set_value("100000");
    fire(&w, "change");
    tick().await;
    assert!(text(&root, ".field-error").contains("cap"));
}

#[wasm_bindgen_test]
async fn stepwise_slider_maps_to_options_and_stops_where_it_fits() {
    let root = mount_point();
    let (dispatch, actions) = recorder::<Action>();
    let props = StepperProps {
        opts: Default::default(),
        groups: 3,
        reach: Some(Reach {
            groups: 3,
            feasible: 2,
            limit: Some("needs 8 interpolators, 7 are free".into()),
            unchecked: false,
            moves: vec![
                "line 2: mov r1, t0".into(),
                "line 3: add r1.x, t0.x, c0.x".into(),
                "line 5: mul r2, r2, c1".into(),
            ],
        }),
        dispatch,
    };
    yew::Renderer::<Stepper>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let slider: HtmlInputElement = one(&root, "#steps").dyn_into().unwrap();
    assert_eq!(slider.max(), "2", "clamped to what fits");
    assert_eq!(
        text(&root, "#steps-limit"),
        "k > 2: needs 8 interpolators, 7 are free"
    );
    slider.set_value("2");
    fire(&slider, "input");
    let last = actions.borrow().last().cloned();
    match last {
        Some(Action::SetOpts(o)) => {
            assert!(o.stepwise);
            assert_eq!(o.steps, 2);
            let opts = o.to_options(
                hoist_asm::Profile::Vs1_1,
                hoist_asm::Profile::Ps2_0,
                4.0,
                1.0,
            );
            assert_eq!(opts.steps, Some(2));
        }
        other => panic!("expected SetOpts, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn dependence_graph_has_a_node_per_instruction() {
    let root = mount_point();
    let doc = fig3();
    let a = analyze(&doc);
    let (on_line, lines) = recorder::<Option<u32>>();
    let props = DagProps {
        graph: a.optimized.as_ref().map(|o| Shared(o.dag.clone())),
        message: "…".into(),
        line: Some(25),
        on_line,
    };
    yew::Renderer::<DagView>::with_root_and_props(root.clone(), props).render();
    tick().await;
    // 16 instructions and the interpolated input t0.
    assert_eq!(all(&root, ".dag-node").len(), 17);
    assert!(!all(&root, ".dag-node.dag-moved").is_empty());
    assert!(!all(&root, ".dag-node.dag-fixed").is_empty());
    assert!(all(&root, ".dag-edge").len() >= 16);
    // The source line under the editor's caret outlines its node (texld, line 25).
    let lit = all(&root, ".dag-node.dag-lit");
    assert_eq!(lit.len(), 1);
    assert!(lit[0].text_content().unwrap().contains("L25 texld"));
    // Focusing a node explains it and lights its source line; arrows move the focus.
    let first: HtmlElement = one(&root, "#dag-node-1").unchecked_into();
    first.focus().unwrap();
    tick().await;
    let why = text(&root, "#dag-why");
    assert!(why.starts_with("line "), "{why}");
    let line = lines
        .borrow()
        .last()
        .copied()
        .flatten()
        .expect("a source line");
    assert!(why.starts_with(&format!("line {line}:")), "{why}");
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &{
        let init = web_sys::KeyboardEventInit::new();
        init.set_key("ArrowRight");
        init.set_bubbles(true);
        init
    })
    .unwrap();
    first.dispatch_event(&ev).unwrap();
    tick().await;
    let focused = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .unwrap();
    assert_eq!(focused.id(), "dag-node-2");
}

/// Waits until `sel` in `root` shows text satisfying `pred` (up to a minute); returns it.
async fn wait_for(root: &Element, sel: &str, pred: impl Fn(&str) -> bool) -> String {
    let mut last = String::new();
    for _ in 0..600 {
        TimeoutFuture::new(100).await;
        if let Some(v) = root.query_selector(sel).unwrap() {
            last = v.text_content().unwrap_or_default();
            if pred(&last) {
                break;
            }
        }
    }
    last
}

/// Waits until the panels below the output (drawn a paint behind the page) show its state.
async fn panels_caught_up(root: &Element) {
    for _ in 0..600 {
        if root.query_selector("#panels-pending").unwrap().is_none() {
            return;
        }
        TimeoutFuture::new(20).await;
    }
    panic!("the panels below the output never caught up");
}

fn mount_app() -> Element {
    let root = mount_point();
    let props = AppProps {
        engine: Some(Starter(hoist_web::wire::bridge::inline)),
        front: Some(hoist_web::wire::front::FrontStarter(
            hoist_web::wire::front::inline,
        )),
    };
    yew::Renderer::<App>::with_root_and_props(root.clone(), props).render();
    root
}

#[wasm_bindgen_test]
async fn the_whole_app_renders_figure3_bit_identical_and_validated() {
    let root = mount_app();
    let last = wait_for(&root, "#verdict", |t| t == "bit-identical").await;
    assert_eq!(last, "bit-identical");
    panels_caught_up(&root).await;
    assert!(text(&root, "#stat-fp").starts_with("16 → "));
    let v = text(&root, "#validation");
    assert!(v.contains("validated on 3 input sets · "), "{v}");
    assert!(
        v.contains(" vertices · ") && v.contains(" transported values · "),
        "{v}"
    );
}

#[wasm_bindgen_test]
async fn the_app_survives_a_dead_engine_and_recovers_on_the_next_edit() {
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    storage.set_item(TEST_FAILURE_KEY, "panic").unwrap();
    let root = mount_app();
    let shown = wait_for(&root, "#engine-error", |t| !t.is_empty()).await;
    storage.remove_item(TEST_FAILURE_KEY).unwrap();
    assert!(
        shown.starts_with("the optimizer stopped unexpectedly: forced failure"),
        "{shown}"
    );
    assert!(
        shown.ends_with("your programs are kept; edit to try again"),
        "{shown}"
    );
    assert_eq!(text(&root, "#verdict"), "no verdict");
    // The editor keeps its text and takes the next edit, which works again.
    let fp: HtmlTextAreaElement = one(&root, "textarea#fp").dyn_into().unwrap();
    let before = fp.value();
    assert!(before.contains("texld"), "{before}");
    fp.set_value(&format!("{before}\n"));
    fire(&fp, "input");
    let last = wait_for(&root, "#verdict", |t| t == "bit-identical").await;
    assert_eq!(last, "bit-identical");
    assert!(all(&root, "#engine-error").is_empty());
    panels_caught_up(&root).await;
    assert!(text(&root, "#validation").starts_with("validated on "));
}

#[wasm_bindgen_test]
async fn an_editor_over_its_target_offers_the_one_that_fits() {
    let root = mount_point();
    let mut src = String::from("!!ARBfp1.0\nTEMP r;\nMOV r, fragment.texcoord[0];\n");
    for _ in 0..300 {
        src.push_str("ADD r, r, fragment.texcoord[0];\n");
    }
    src.push_str("MOV result.color, r;\nEND\n");
    let side = Side::parse(&src, None);
    assert_eq!(side.fits, Some(hoist_asm::ArbTarget::Nv40));
    let (ontarget, picked) = recorder::<hoist_asm::ArbTarget>();
    let props = yew::props!(EditorProps {
        id: AttrValue::from("t-long"),
        title: AttrValue::from("Fragment program"),
        value: AttrValue::from(src.clone()),
        stage: Stage::Fragment,
        side: Some(Shared(Rc::new(side))),
        onchange: Callback::noop(),
        ontarget: Some(ontarget),
    });
    yew::Renderer::<Editor>::with_root_and_props(root.clone(), props).render();
    tick().await;
    assert!(text(&root, "#t-long-target-offer").contains("NVIDIA GeForce 6800"));
    assert!(text(&root, ".diags").contains("fits the NV40 target"));
    let b: HtmlElement = one(&root, "#t-long-fit-target").dyn_into().unwrap();
    assert_eq!(b.text_content().unwrap(), "Analyze under NV40");
    b.click();
    assert_eq!(*picked.borrow(), vec![hoist_asm::ArbTarget::Nv40]);
}

#[wasm_bindgen_test]
async fn the_document_bar_names_the_document_and_starts_new_ones() {
    use hoist_web::page::components::document::{DocBar, DocBarProps};
    let root = mount_point();
    let (dispatch, seen) = recorder::<Action>();
    let props = yew::props!(DocBarProps {
        title: Some(AttrValue::from("Untitled")),
        dispatch,
        onexport: Callback::noop(),
    });
    yew::Renderer::<DocBar>::with_root_and_props(root.clone(), props).render();
    tick().await;
    assert_eq!(text(&root, "#doc-title"), "Untitled");
    let input: HtmlInputElement = one(&root, "#import-file").dyn_into().unwrap();
    assert_eq!(input.type_(), "file");
    let b: HtmlElement = one(&root, "#new-doc").dyn_into().unwrap();
    b.click();
    assert!(matches!(seen.borrow().last(), Some(Action::New)));
}

/// Source mode in the whole app (the compiler inline, on the page's thread): a WGSL example
/// compiles, optimizes and renders; the binding table and the compile's status show; hovering
/// a moved instruction lights its source expression; a broken source shows its message at
/// the line and no verdict, and the fix brings one back. (The address is set without a
/// `hashchange`, so the apps other tests left mounted do not follow it, and restored after.)
#[wasm_bindgen_test]
async fn source_mode_compiles_maps_and_recovers_from_errors() {
    let w = web_sys::window().unwrap();
    let storage = w.local_storage().unwrap().unwrap();
    let (hash, stored) = (
        w.location().hash().unwrap(),
        storage
            .get_item(hoist_web::page::state::STORAGE_KEY)
            .unwrap(),
    );
    let history = w.history().unwrap();
    history
        .replace_state_with_url(&JsValue::NULL, "", Some("#ex=wgsl/uv-transform"))
        .unwrap();
    let root = mount_app();
    let verdict = |t: &str| t == "bit-identical" || t.starts_with("equivalent");
    let v = wait_for(&root, "#verdict", verdict).await;
    assert!(verdict(&v), "{v}");
    assert!(
        text(&root, "#src-status").starts_with("compiled to ARB"),
        "{}",
        text(&root, "#src-status")
    );
    assert!(!all(&root, "#bind-uniforms tbody tr").is_empty());
    assert!(!all(&root, "#gen-fp .gen-line.mapped").is_empty());
    let moved = all(&root, "#opt-vp .ol.moved");
    assert!(
        !moved.is_empty(),
        "uv-transform moves its coordinate arithmetic"
    );
    fire(&moved[0], "mouseenter");
    tick().await;
    tick().await;
    let lit = all(&root, "#ed-src-wgsl .src-lit");
    assert!(!lit.is_empty(), "the moved line's source expression is lit");
    assert!(!all(&root, "#ed-src-wgsl .lens.moved-note").is_empty());
    fire(&moved[0], "mouseleave");
    // Broken, then fixed.
    let area: HtmlTextAreaElement = one(&root, "textarea#src-wgsl").dyn_into().unwrap();
    let good = area.value();
    let broken = good.replacen("return", "return (", 2);
    area.set_value(&broken);
    fire(&area, "input");
    let status = wait_for(&root, "#src-status", |t| t.starts_with("does not compile")).await;
    assert!(status.starts_with("does not compile"), "{status}");
    assert_eq!(text(&root, "#verdict"), "no verdict");
    let lens = wait_for(&root, "#ed-src-wgsl .lens.err", |t| !t.is_empty()).await;
    assert!(
        lens.contains("expected"),
        "naga's message at its line: {lens:?}"
    );
    area.set_value(&good);
    fire(&area, "input");
    let v = wait_for(&root, "#verdict", verdict).await;
    assert!(verdict(&v), "{v}");
    // Leave the address and the stored document as they were.
    TimeoutFuture::new(1500).await;
    history
        .replace_state_with_url(&JsValue::NULL, "", Some(&hash))
        .unwrap();
    match stored {
        Some(s) => storage
            .set_item(hoist_web::page::state::STORAGE_KEY, &s)
            .unwrap(),
        None => storage
            .remove_item(hoist_web::page::state::STORAGE_KEY)
            .unwrap(),
    }
}

/// A helper's bands cross to the lead with their rows transferred beside the header, and
/// come back equal; a message whose rows are missing is an error, not a panic.
#[wasm_bindgen_test]
fn band_messages_round_trip() {
    use hoist_raster::scene::split::Chunk;
    use hoist_web::wire::bands::{decode_event, encode_event};
    use hoist_web::worker::bands::BandEvent;
    let chunk = |band: u32, depth: bool| Chunk {
        band,
        color: (0..16).map(|i| [i as f32, f32::NAN, -0.0, 1e-40]).collect(),
        depth: if depth { vec![0.25; 16] } else { Vec::new() },
        stats: hoist_raster::Stats {
            fragment_invocations: 16,
            ..Default::default()
        },
    };
    let chunks = vec![chunk(3, false), chunk(4, true)];
    let p = encode_event(BandEvent::Chunks {
        run: 7,
        chunks: chunks.clone(),
    })
    .unwrap();
    assert_eq!(
        p.transfer.length(),
        5,
        "the header and four row buffers move"
    );
    let BandEvent::Chunks { run, chunks: back } = decode_event(p.message).unwrap() else {
        panic!("not chunks")
    };
    assert_eq!(run, 7);
    let bits = |c: &[Chunk]| -> Vec<(u32, Vec<u32>, Vec<f32>, hoist_raster::Stats)> {
        c.iter()
            .map(|c| {
                let px = c.color.iter().flatten().map(|v| v.to_bits()).collect();
                (c.band, px, c.depth.clone(), c.stats)
            })
            .collect()
    };
    assert_eq!(bits(&back), bits(&chunks));
    let p = encode_event(BandEvent::Chunks { run: 1, chunks }).unwrap();
    let msg: js_sys::Array = p.message.unchecked_into();
    msg.pop();
    assert!(decode_event(msg.into()).is_err());
}

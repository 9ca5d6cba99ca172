//! Optimizer options, mapped one to one onto `hoist_opt::Options`: limits, cost model,
//! selection rule, mirrored parameters and the clean-up switches (the stepwise slider is
//! beside the optimized programs: `stepper`).

use super::{event_checked, event_value};
use crate::doc::cost::CostChoice;
use crate::doc::{LimitEdit, OptState};
use crate::page::state::Action;
use hoist_asm::{ArbTarget, Profile};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct OptionsProps {
    pub opts: OptState,
    pub vp_profile: Option<Profile>,
    pub fp_profile: Option<Profile>,
    pub dispatch: Callback<Action>,
}

/// A limit as typed: empty for the profile's default, else 1…65536.
fn parse_limit(t: &str) -> Result<Option<u32>, String> {
    let t = t.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<u32>() {
        Ok(n) if (1..=65_536).contains(&n) => Ok(Some(n)),
        _ => Err(format!("`{t}` is not a limit (1…65536, empty = default)")),
    }
}

/// One limit override (`which`: 0 slots, 1 temporaries, 2 texture coordinates) of the
/// vertex or fragment profile; `default` is the profile's, shown as the placeholder.
fn limit_field(
    p: &OptionsProps,
    err: &UseStateHandle<Option<String>>,
    (vertex, which): (bool, u8),
    label: &str,
    default: Option<u32>,
) -> Html {
    let (d, o, err) = (p.dispatch.clone(), p.opts.clone(), err.clone());
    let cur = {
        let l = if vertex {
            &p.opts.vp_limits
        } else {
            &p.opts.fp_limits
        };
        match which {
            0 => l.max_slots,
            1 => l.temps.map(u32::from),
            _ => l.texcoords.map(u32::from),
        }
    };
    let onchange = Callback::from(move |e: Event| match parse_limit(&event_value(&e)) {
        Ok(n) => {
            let mut o = o.clone();
            let l: &mut LimitEdit = if vertex {
                &mut o.vp_limits
            } else {
                &mut o.fp_limits
            };
            match which {
                0 => l.max_slots = n,
                1 => l.temps = n.map(|n| n.min(4096) as u16),
                _ => l.texcoords = n.map(|n| n.min(32) as u8),
            }
            err.set(None);
            d.emit(Action::SetOpts(o));
        }
        Err(m) => err.set(Some(m)),
    });
    let stage = if vertex { "vertex" } else { "fragment" };
    html! {
        <label>{ label.to_string() }
            <input type="text" class="num" inputmode="numeric"
                aria-label={format!("{stage} {label}")}
                placeholder={default.map(|d| d.to_string()).unwrap_or_default()}
                value={cur.map(|c| c.to_string()).unwrap_or_default()} {onchange} />
        </label>
    }
}

/// The ARB target: whose limits ARB programs are parsed and optimized under.
fn target(p: &OptionsProps) -> Html {
    let (d, o) = (p.dispatch.clone(), p.opts.clone());
    let onchange = Callback::from(move |e: Event| {
        if let Some(t) = ArbTarget::from_id(&event_value(&e)) {
            d.emit(Action::SetOpts(OptState {
                target: t,
                ..o.clone()
            }));
        }
    });
    let arb = [p.vp_profile, p.fp_profile]
        .iter()
        .flatten()
        .any(|p| p.dialect() == hoist_asm::Dialect::Arb);
    html! {
        <fieldset class="target">
            <legend>{ "ARB target" }</legend>
            <select id="arb-target" aria-label="ARB target" {onchange}>
                { for ArbTarget::ALL.iter().map(|t| html! {
                    <option value={t.id()} selected={*t == p.opts.target}>{ t.name() }</option>
                }) }
            </select>
            <p class="muted">
                { p.opts.target.description() }
                if !arb { { " (Direct3D 9 profiles fix their own limits)" } }
            </p>
        </fieldset>
    }
}

/// The limit overrides of both profiles.
fn limits(p: &OptionsProps, err: &UseStateHandle<Option<String>>) -> Html {
    let vl = p.vp_profile.map(|v| v.limits_for(p.opts.target));
    let fl = p.fp_profile.map(|f| f.limits_for(p.opts.target));
    let field = |stage, label, default| limit_field(p, err, stage, label, default);
    html! {
        <fieldset class="limits">
            <legend>{ "limits (empty = the profile's, or the ARB target's)" }</legend>
            <div class="grid3">
                <span class="muted">{ p.vp_profile.map(|p| p.header()).unwrap_or("vertex") }</span>
                { field((true, 0), "slots", vl.as_ref().map(|l| l.max_slots)) }
                { field((true, 1), "temps", vl.as_ref().map(|l| u32::from(l.temps))) }
                { field((true, 2), "texcoords", vl.as_ref().map(|l| u32::from(l.texcoords))) }
                <span class="muted">{ p.fp_profile.map(|p| p.header()).unwrap_or("fragment") }</span>
                { field((false, 0), "slots", fl.as_ref().map(|l| l.max_slots)) }
                { field((false, 1), "temps", fl.as_ref().map(|l| u32::from(l.temps))) }
                { field((false, 2), "texcoords", fl.as_ref().map(|l| u32::from(l.texcoords))) }
            </div>
        </fieldset>
    }
}

/// The modern model's cost of an interpolated component, 0…100 slots.
fn on_interp(p: &OptionsProps, err: &UseStateHandle<Option<String>>) -> Callback<Event> {
    let (d, o, err) = (p.dispatch.clone(), p.opts.clone(), err.clone());
    Callback::from(
        move |e: Event| match crate::doc::numbers::parse_finite(&event_value(&e)) {
            Ok(x) if (0.0..=100.0).contains(&x) => {
                err.set(None);
                d.emit(Action::SetOpts(OptState {
                    interp_cost: f64::from(x),
                    ..o.clone()
                }));
            }
            Ok(_) => err.set(Some("the interpolation cost must be within 0…100".into())),
            Err(m) => err.set(Some(m)),
        },
    )
}

#[function_component(OptionsPanel)]
pub fn options_panel(p: &OptionsProps) -> Html {
    let error = use_state(|| None::<String>);
    let set = |f: fn(&mut OptState, &Event)| {
        let (d, o) = (p.dispatch.clone(), p.opts.clone());
        Callback::from(move |e: Event| {
            let mut o = o.clone();
            f(&mut o, &e);
            d.emit(Action::SetOpts(o));
        })
    };
    let on_interp = on_interp(p, &error);
    let o = &p.opts;
    html! {
        <section class="panel options" id="options" aria-label="Options">
            <h2>{ "Options" }</h2>
            <fieldset>
                <legend>{ "cost model" }</legend>
                { for CostChoice::ALL.into_iter().map(|c| {
                    let (d, o2) = (p.dispatch.clone(), o.clone());
                    let pick = Callback::from(move |_: Event| {
                        d.emit(Action::SetOpts(OptState { cost: c, ..o2.clone() }));
                    });
                    html! {
                        <label title={format!("minimises {}", c.minimises())}>
                            <input type="radio" name="cost" id={format!("cost-{}", c.id())}
                                checked={o.cost == c} onchange={pick} />{ format!(" {}", c.label()) }
                        </label>
                    }
                }) }
                if o.cost == CostChoice::Modern {
                    <label>{ "slots per interpolated component " }
                        <input type="text" class="num" value={o.interp_cost.to_string()} onchange={on_interp}
                            aria-label="Interpolation cost" />
                    </label>
                }
            </fieldset>
            <fieldset>
                <legend>{ "selection" }</legend>
                <label><input type="radio" name="sel" checked={!o.greedy}
                    onchange={set(|o, _| o.greedy = false)} />{ " optimal (exact search)" }</label>
                <label><input type="radio" name="sel" checked={o.greedy}
                    onchange={set(|o, _| o.greedy = true)} />{ " greedy (the paper's rule)" }</label>
            </fieldset>
            <fieldset>
                <legend>{ "motion" }</legend>
                <label><input type="checkbox" id="opt-mirror" checked={o.mirror_params}
                    onchange={set(|o, e| o.mirror_params = event_checked(e))} />
                    { " mirror parameters (the host sets vertex copies)" }</label>
                <label><input type="checkbox" checked={o.commute}
                    onchange={set(|o, e| o.commute = event_checked(e))} />{ " commute operands to unlock motion" }</label>
                <label><input type="checkbox" checked={o.lower}
                    onchange={set(|o, e| o.lower = event_checked(e))} />{ " emulate fragment-only ops" }</label>
                <label><input type="checkbox" checked={o.vp_cleanup}
                    onchange={set(|o, e| o.vp_cleanup = event_checked(e))} />{ " clean up moved vertex code" }</label>
                <label title="Merge independent same-opcode instructions that write disjoint components of one register into one vector instruction, in both programs"><input type="checkbox" id="opt-slp" checked={o.slp}
                    onchange={set(|o, e| o.slp = event_checked(e))} />{ " pack vectors (SLP)" }</label>
                <label title="Reorder both optimized programs to lower their peak register pressure (straight-line code; texture reads stay before their uses)"><input type="checkbox" id="opt-schedule" checked={o.schedule}
                    onchange={set(|o, e| o.schedule = event_checked(e))} />{ " schedule for register pressure" }</label>
                <label title="A program over its temp limit is made to fit by renumbering, scheduling or rematerialization; the statistics' notes say which"><input type="checkbox" id="opt-fit" checked={o.fit}
                    onchange={set(|o, e| o.fit = event_checked(e))} />{ " fit temp limits (schedule, rematerialize)" }</label>
                <label title="MUL + ADD → MAD, sums of products → DP3/DP4, a repeated texture fetch → MOV, in both programs"><input type="checkbox" id="opt-peepholes" checked={o.peepholes}
                    onchange={set(|o, e| o.peepholes = event_checked(e))} />{ " R600 peepholes (MAD, dot products, fetches)" }</label>
            </fieldset>
            { target(p) }
            { limits(p, &error) }
            if let Some(e) = &*error {
                <p class="field-error" role="alert">{ e.clone() }</p>
            }
        </section>
    }
}

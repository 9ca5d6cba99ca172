//! The IR check after every pass (`passes::run`, debug and test builds) catches a broken
//! pass inside the real pipeline and names it: a registered pass is replaced by a broken
//! one on this thread (`passes::substitute`) and the optimizer runs the paper's Gauss
//! kernel, whose clean-up runs every substituted pass below.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Program};
use hoist_opt::passes::{self, Env, Id, Report};
use hoist_opt::tracked::Tracked;
use hoist_opt::{Options, optimize};

fn example(name: &str) -> Program {
    let path = format!("{}/../../examples/paper/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("example");
    hoist_asm::parse(&text, &ParseOptions::default())
        .into_result()
        .expect("the example parses")
}

/// The panic message of `f`, or `None` when it returns.
fn panic_of(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(hook);
    let payload = r.err()?;
    Some(
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
    )
}

/// Runs the optimizer on gauss13 with `broken` in place of pass `id`.
fn optimize_with(id: Id, broken: fn(&mut Tracked, &Env) -> Report) -> Option<String> {
    let (vp, fp) = (example("gauss13.vp"), example("gauss13.fp"));
    panic_of(move || {
        passes::substitute(id, broken, || {
            let _ = optimize(&vp, &fp, &Options::default());
        })
    })
}

/// Drops an instruction but not its provenance line.
fn drops_a_line(t: &mut Tracked, _: &Env) -> Report {
    t.program.insts.pop();
    Report::Progress(true)
}

/// Empties the write mask of the last instruction that writes.
fn empties_a_mask(t: &mut Tracked, _: &Env) -> Report {
    if let Some(d) = t
        .program
        .insts
        .iter_mut()
        .rev()
        .find_map(|i| i.dst.as_mut())
    {
        d.mask = hoist_asm::WriteMask::NONE;
    }
    Report::Progress(true)
}

#[test]
fn a_broken_pass_is_caught_and_named() {
    if !cfg!(debug_assertions) {
        return; // the check runs in debug and test builds only
    }
    assert_eq!(
        optimize_with(Id::dce, |t, e| match Id::dce.pass().run {
            passes::Run::Program(f) => f(t, e),
            _ => unreachable!(),
        }),
        None,
        "the real pass, run through the substitution, passes the check"
    );
    for (id, broken, what) in [
        (
            Id::dce,
            drops_a_line as fn(&mut Tracked, &Env) -> Report,
            "provenance lines",
        ),
        (Id::retarget, drops_a_line, "provenance lines"),
        (Id::copy_prop, empties_a_mask, "empty write mask"),
        (Id::legalize, empties_a_mask, "empty write mask"),
    ] {
        let name = id.name();
        let msg = optimize_with(id, broken).unwrap_or_else(|| panic!("`{name}` broken, no panic"));
        assert!(
            msg.contains(&format!("pass `{name}` broke the IR")) && msg.contains(what),
            "broken `{name}`: {msg}"
        );
    }
}

#[test]
fn commute_is_checked() {
    if !cfg!(debug_assertions) {
        return;
    }
    let msg = optimize_with(Id::commute, drops_a_line).expect("commute broken, no panic");
    assert!(msg.contains("pass `commute` broke the IR"), "{msg}");
}

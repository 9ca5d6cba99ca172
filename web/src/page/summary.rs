//! The page's summary line: fragment and vertex slots before → after (the statistics
//! panel's figures) and the verdict as the verdict panel states it, or that the work on the
//! current text is still under way.

use crate::page::state::State;
use crate::worker::analysis;
use crate::worker::render;

/// What the summary line says.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Fragment slots before and after (the statistics panel's figures), if known.
    pub fp: Option<(u32, u32)>,
    /// Vertex slots before and after.
    pub vp: Option<(u32, u32)>,
    /// The verdict's headline, "checking…" while the current text is being worked on.
    pub verdict: String,
    /// The ARB target, when the pair is ARB and it is not the default (R300).
    pub target: Option<String>,
    /// CSS class of the verdict: `identical`, `equivalent`, `different`, `unvalidated`,
    /// `weak`, `pending` or `none`.
    pub class: &'static str,
}

/// `n` and a noun, plural unless `n` is 1 ("1 group", "12 groups").
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What the optimizer applies without the stepwise slider: every movable group, or, when
/// fewer fit (`fit`, the slider's end), the ones that do ("all that fit: 7 of 12 groups",
/// not "all 12" next to "k > 7: … 7 are free").
pub fn all_groups(groups: usize, fit: usize) -> String {
    if fit >= groups {
        format!("all {}", count(groups, "group"))
    } else {
        format!("all that fit: {fit} of {}", count(groups, "group"))
    }
}

/// Text shown while the current text is optimized, validated or rendered.
pub const PENDING: &str = "checking…";

/// The summary of the page's state.
pub fn summarize(s: &State) -> Summary {
    let a = s.analysis.as_deref();
    let stats = a.and_then(|a| a.before.map(|b| (b, a.after.unwrap_or(b))));
    let fp = stats.map(|(b, af)| (b.fp_slots.total(), af.fp_slots.total()));
    let vp = stats.map(|(b, af)| (b.vp_slots.total(), af.vp_slots.total()));
    let (verdict, class) = verdict(s);
    let t = s.doc.opts.target;
    let arb = s
        .latest_parse()
        .is_some_and(|a| a.dialect() == hoist_asm::Dialect::Arb);
    Summary {
        fp,
        vp,
        target: (arb && t != hoist_asm::ArbTarget::default()).then(|| t.id().to_uppercase()),
        verdict,
        class,
    }
}

/// The verdict word and its class, decided as the verdict panel decides it.
fn verdict(s: &State) -> (String, &'static str) {
    if s.engine_error.is_some() {
        return ("no verdict".into(), "none");
    }
    if s.is_stopped() {
        return ("stopped".into(), "none");
    }
    if s.source_status() == crate::page::state::SourceStatus::Failed {
        return ("no verdict: the source does not compile".into(), "none");
    }
    if !s.is_current() || s.progress.is_some() {
        return (PENDING.into(), "pending");
    }
    let trust = s.analysis.as_deref().and_then(analysis::trust);
    let view = s
        .rendered
        .as_ref()
        .and_then(|r| render::rendered_view(r, s.doc.inputs.tolerance, trust.as_ref()));
    match (view, &s.rendered) {
        (Some(v), _) => (v.headline, v.kind.class()),
        (None, Some(_)) => ("no verdict".into(), "none"),
        (None, None) if s.render_error.is_some() => ("no verdict".into(), "none"),
        (None, None) => (PENDING.into(), "pending"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_counts_in_words() {
        assert_eq!(count(1, "group"), "1 group");
        assert_eq!(count(0, "group"), "0 groups");
        assert_eq!(all_groups(1, 1), "all 1 group");
        assert_eq!(all_groups(12, 12), "all 12 groups");
        assert_eq!(all_groups(12, 7), "all that fit: 7 of 12 groups");
    }
    use crate::page::state::Action;
    use std::rc::Rc;

    #[test]
    fn pending_until_the_first_analysis() {
        let s = State::new(crate::doc::Doc::default());
        let m = summarize(&s);
        assert_eq!((m.fp, m.vp), (None, None));
        assert_eq!((m.verdict.as_str(), m.class), (PENDING, "pending"));
    }

    #[test]
    fn figures_of_the_analysis_while_rendering() {
        let mut s = State::default();
        s.apply(Action::LoadExample("paper/fig3".into()));
        let parsed = crate::worker::analysis::parse(&s.doc);
        let result = crate::worker::analysis::page_result(
            &s.doc,
            &parsed,
            crate::worker::analysis::optimize(&s.doc, &parsed).as_ref(),
        );
        let rev = s.rev;
        s.apply(Action::Parsed(rev, Rc::new(parsed)));
        s.apply(Action::Optimized(rev, result, 1.0));
        let m = summarize(&s);
        let a = s.analysis.as_deref().unwrap();
        let (b, af) = (a.before.unwrap(), a.after.unwrap());
        assert_eq!(m.fp, Some((16, af.fp_slots.total())));
        assert_eq!(m.vp, Some((b.vp_slots.total(), af.vp_slots.total())));
        // Rendering: still pending.
        assert_eq!(m.class, "pending");
        s.apply(Action::RenderFailed(rev, "no scene".into()));
        assert_eq!(summarize(&s).verdict, "no verdict");
    }

    #[test]
    fn a_source_that_does_not_compile_has_no_verdict() {
        use crate::page::state::SourceEdit;
        let mut s = State::default();
        s.apply(Action::LoadExample("wgsl/uv-transform".into()));
        let mut src = s.doc.source.clone().unwrap();
        src.wgsl = src.wgsl.replacen("return", "return (", 1);
        s.apply(Action::Source(SourceEdit::Doc(Box::new(src.clone()))));
        assert_eq!(summarize(&s).verdict, PENDING, "while it compiles");
        let out = crate::worker::front::compile(&src);
        s.apply(Action::Source(SourceEdit::Compiled(
            Box::new(src),
            Ok(Rc::new(out)),
        )));
        let m = summarize(&s);
        assert_eq!(m.verdict, "no verdict: the source does not compile");
        assert_eq!(m.class, "none");
    }

    #[test]
    fn a_dead_worker_has_no_verdict() {
        let mut s = State::new(crate::doc::Doc::default());
        s.engine_error = Some("gone".into());
        assert_eq!(summarize(&s).verdict, "no verdict");
    }
}

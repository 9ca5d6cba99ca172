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

/// The render times of one document's renders (`State::timings`) in words: one render is
/// one sample of each pair ("original 48.3 ms, optimized 39.1 ms"); more give each pair's
/// median and range ("original 46.0 ms (44.1–52.3), optimized … over 3 renders"). Never a
/// ratio or "before → after": one pair is not known to be faster from these.
pub fn timing(samples: &[[f64; 2]]) -> Option<String> {
    // One pair's times in words (– when it has none: no optimized run).
    let words = |k: usize| {
        let mut v: Vec<f64> = samples
            .iter()
            .map(|s| s[k])
            .filter(|x| x.is_finite())
            .collect();
        hoist_asm::sort::by(&mut v, f64::total_cmp);
        let n = v.len();
        match n {
            0 => "–".to_string(),
            1 => format!("{:.1} ms", v[0]),
            _ => {
                let median = if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                };
                format!("median {median:.1} ms ({:.1}–{:.1})", v[0], v[n - 1])
            }
        }
    };
    let over = match samples.len() {
        0 => return None,
        1 => String::new(),
        n => format!(", over {n} renders"),
    };
    Some(format!(
        "original {}, optimized {}{over}",
        words(0),
        words(1)
    ))
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

    #[test]
    fn render_times_are_samples_with_their_spread_never_a_ratio() {
        assert_eq!(timing(&[]), None);
        assert_eq!(
            timing(&[[212.04, 107.0]]).unwrap(),
            "original 212.0 ms, optimized 107.0 ms"
        );
        let t = timing(&[[212.0, 107.0], [98.0, 120.0], [101.0, 99.0]]).unwrap();
        assert_eq!(
            t,
            "original median 101.0 ms (98.0–212.0), optimized median 107.0 ms (99.0–120.0), \
             over 3 renders"
        );
        assert!(!t.contains('→'));
        let even = timing(&[[1.0, 2.0], [3.0, 4.0]]).unwrap();
        assert!(
            even.starts_with("original median 2.0 ms (1.0–3.0)"),
            "{even}"
        );
        assert_eq!(
            timing(&[[3.0, f64::NAN]]).unwrap(),
            "original 3.0 ms, optimized –"
        );
    }

    #[test]
    fn renders_of_the_same_document_gather_their_times() {
        let mut s = State::default();
        s.apply(Action::LoadExample("paper/fig3".into()));
        let r = |ms: f64| {
            let mut x = crate::worker::render::Rendered::empty();
            x.original = Err("x".into());
            x.ms_original = ms;
            x
        };
        // A failed render is no sample.
        s.time(&r(5.0));
        assert!(s.timings.is_empty());
        let ok = |ms: f64| {
            let mut x = r(ms);
            x.original = Ok(crate::worker::render::Run {
                image: hoist_raster::Image::new(1, 1, [0.0; 4]),
                stats: Default::default(),
                probes: (0, 0),
                probe_list: Vec::new(),
                executor: None,
                helped: 0,
                shared: 0,
            });
            x
        };
        s.time(&ok(5.0));
        s.apply(Action::Rerun);
        s.time(&ok(7.0));
        assert_eq!(s.timings.len(), 2);
        s.apply(Action::SetSize(64, 64));
        s.time(&ok(1.0));
        assert_eq!(s.timings.len(), 1, "another document starts over");
        assert_eq!(s.timings[0][0], 1.0);
        assert!(s.timings[0][1].is_nan(), "no optimized run, no time");
        // A run kept from an earlier render (`Rendered::reused`) is no sample of its own;
        // "time again" asks for both to be drawn (`State::rerun_rev`).
        let mut kept = ok(0.1);
        kept.reused = [true, true];
        s.time(&kept);
        assert_eq!(s.timings.len(), 1);
        kept.reused = [true, false];
        kept.optimized = Some(kept.original.clone());
        kept.ms_optimized = 0.2;
        s.time(&kept);
        assert_eq!(s.timings.len(), 2);
        assert!(s.timings[1][0].is_nan() && s.timings[1][1] == 0.2);
        s.apply(Action::Rerun);
        assert_eq!(s.rerun_rev, s.rev);
        s.apply(Action::SetSize(32, 32));
        assert_ne!(s.rerun_rev, s.rev);
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

//! Source mode in the reducer: the editors' texts and choices, the switch between assembly
//! and source input, and the front worker's answers.
//!
//! A source edit is a revision like any other, but its job is a compile (the page sends the
//! source to the front worker instead of the pair to the optimizer: [`State::source_status`]).
//! The answer is kept for the source it was compiled from ([`FrontResult`]); a compiled pair
//! goes into the document (`worker::front::derive`) as a new revision, whose job is the
//! usual one. A source that does not compile clears the results shown: no verdict, image or
//! optimized pair of an older text stays on the page while its diagnostics are. (The types
//! are `state`'s, which only calls these methods.)

use crate::doc::source::{self, Lang, Place, SourceDoc};
use crate::page::state::{FrontResult, Notice, SourceEdit, SourceStatus, State};
use crate::worker::front::{Output, derive};
use std::rc::Rc;

impl State {
    /// Source mode's status of the current revision.
    pub fn source_status(&self) -> SourceStatus {
        let Some(src) = &self.doc.source else {
            return SourceStatus::Assembly;
        };
        match &self.front {
            Some(f) if f.source == *src => match &f.output {
                Ok(o) if o.result.is_ok() => SourceStatus::Ready,
                _ => SourceStatus::Failed,
            },
            _ => SourceStatus::Compile,
        }
    }

    /// The compiled pair of the current source, when it compiled.
    pub fn compiled(&self) -> Option<&crate::worker::front::Compiled> {
        let f = self.front.as_ref()?;
        if self.doc.source.as_ref() != Some(&f.source) {
            return None;
        }
        f.output.as_ref().ok()?.result.as_ref().ok()
    }

    pub(crate) fn edit_source(&mut self, e: SourceEdit) {
        match e {
            SourceEdit::Text(place, text) => self.set_source_text(place, text),
            SourceEdit::Doc(s) if self.doc.source.as_ref() != Some(&*s) => {
                self.doc_mut().source = Some(*s);
                self.touch_source();
            }
            SourceEdit::Doc(_) => {}
            SourceEdit::Input(lang) => self.input(lang),
            SourceEdit::Compiled(src, out) => self.compiled_answer(*src, out),
        }
    }

    fn touch_source(&mut self) {
        self.source_focus = None;
        self.touch();
    }

    fn set_source_text(&mut self, place: Place, text: String) {
        let limit = if place == Place::Scene {
            crate::doc::MAX_SCENE
        } else {
            crate::doc::MAX_PROGRAM
        };
        if text.len() > limit {
            self.notice = Some(Notice {
                text: format!(
                    "That text is {} KiB; the playground accepts up to {} KiB here, so the \
                     edit was not applied.",
                    text.len().div_ceil(1024),
                    limit / 1024
                ),
                error: true,
            });
            return;
        }
        if place != Place::Scene && crate::page::scenefile::looks_like_scene(&text) {
            // A pasted scene file (a piglit GLSL test, an exported document) is the document.
            self.import(&text, None);
            return;
        }
        let Some(src) = self.doc.source.as_ref() else {
            return;
        };
        let mut s = src.clone();
        match s.text_mut(place) {
            Some(t) => *t = text,
            None => s.scene = (!text.trim().is_empty()).then_some(text),
        }
        if s != *src {
            self.doc_mut().source = Some(s);
            self.touch_source();
        }
    }

    /// Switches between assembly and source input. To assembly: the compiled pair stays as
    /// the programs to edit. To a language: the document's source in it, else a new pair.
    fn input(&mut self, lang: Option<Lang>) {
        match (lang, self.doc.source.as_ref()) {
            (None, None) => {}
            (None, Some(_)) => {
                let d = self.doc_mut();
                d.source = None;
                self.front = None;
                self.touch_source();
            }
            (Some(l), Some(s)) if s.lang == l => {}
            (Some(l), Some(s)) => {
                let mut s = s.clone();
                s.lang = l;
                if s.places().iter().all(|p| s.text(*p).is_empty()) {
                    let blank = source::blank(l);
                    for p in s.places() {
                        if let Some(t) = s.text_mut(*p) {
                            *t = blank.text(*p).to_string();
                        }
                    }
                }
                self.doc_mut().source = Some(s);
                self.touch_source();
            }
            (Some(l), None) => {
                let d = self.doc_mut();
                d.source = Some(source::blank(l));
                d.hand = None;
                d.hand_kept = None;
                d.example = None;
                d.title = Some("Untitled".into());
                self.touch_source();
            }
        }
    }

    /// The front worker's answer: kept when it is for the current source; a compiled pair
    /// becomes the document's programs (a new revision, whose job optimizes them).
    fn compiled_answer(&mut self, src: SourceDoc, out: Result<Rc<Output>, String>) {
        if self.doc.source.as_ref() != Some(&src) {
            return;
        }
        let ok = out
            .as_ref()
            .ok()
            .and_then(|o| o.result.as_ref().ok())
            .cloned();
        self.front = Some(Rc::new(FrontResult {
            source: src,
            output: out,
        }));
        match ok {
            Some(c) => {
                derive(self.doc_mut(), &c);
                self.touch();
            }
            None => {
                // Nothing of an older text stays on the page as if it were this one's.
                self.parsed = None;
                self.analysis = None;
                self.rendered = None;
                self.progress = None;
                self.render_error = None;
                self.engine_error = None;
            }
        }
    }

    /// The compiled pair of the current source, put into a document being loaded when the
    /// last compile was of the same source (its programs are not in links).
    pub(crate) fn derive_loaded(&self, d: &mut crate::doc::Doc) {
        if let (Some(s), Some(f)) = (&d.source, &self.front)
            && f.source == *s
            && let Ok(o) = &f.output
            && let Ok(c) = &o.result
        {
            derive(d, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::state::Action;
    use crate::worker::front::compile;

    /// What the page does for a revision in source mode: compile, answer.
    fn answer(s: &mut State) {
        let src = s.doc.source.clone().unwrap();
        let out = compile(&src);
        s.apply(Action::Source(SourceEdit::Compiled(
            Box::new(src),
            Ok(Rc::new(out)),
        )));
    }

    #[test]
    fn a_source_edit_compiles_then_optimizes_and_an_error_clears_the_results() {
        let mut s = State::default();
        s.apply(Action::LoadExample("wgsl/lighting".into()));
        assert_eq!(s.source_status(), SourceStatus::Compile);
        assert!(s.doc.fp.is_empty(), "the pair is not in the example");
        assert!(s.is_pristine_example());
        let rev = s.rev;
        answer(&mut s);
        assert_eq!(s.source_status(), SourceStatus::Ready);
        assert!(s.rev > rev, "the compiled pair is a new revision");
        assert!(s.doc.fp.starts_with("!!ARBfp1.0"), "{}", s.doc.fp);
        // Still the example, as a link holds it.
        assert!(s.is_pristine_example());
        assert_eq!(s.link(), "ex=wgsl/lighting");
        // The usual job runs on the compiled pair.
        let p = crate::worker::analysis::parse(&s.doc);
        let r = crate::worker::analysis::page_result(
            &s.doc,
            &p,
            crate::worker::analysis::optimize(&s.doc, &p).as_ref(),
        );
        s.apply(Action::Parsed(s.rev, Rc::new(p)));
        s.apply(Action::Optimized(s.rev, r, 1.0));
        assert!(s.analysis.as_ref().unwrap().optimized.is_some());
        // A broken edit: a compile, no job, and nothing of the last result stays.
        let good = s.doc.source.as_ref().unwrap().wgsl.clone();
        s.apply(Action::Source(SourceEdit::Text(
            Place::Wgsl,
            good.replace("let n = normalize", "let n = normalize("),
        )));
        assert_eq!(s.source_status(), SourceStatus::Compile);
        answer(&mut s);
        assert_eq!(s.source_status(), SourceStatus::Failed);
        assert!(s.analysis.is_none() && s.rendered.is_none() && s.parsed.is_none());
        assert!(!s.is_pristine_example());
        // The link keeps the broken source, not the assembly.
        let link = s.link();
        let back = match crate::doc::codec::decode(&link).unwrap() {
            crate::doc::codec::Link::State(d) => *d,
            l => panic!("{l:?}"),
        };
        assert_eq!(back.source, s.doc.source);
        assert!(back.fp.is_empty() && back.scene.is_none());
        // Fixed: compiled again, ready.
        s.apply(Action::Source(SourceEdit::Text(Place::Wgsl, good)));
        answer(&mut s);
        assert_eq!(s.source_status(), SourceStatus::Ready);
        // An answer for an older source is dropped.
        let old = s.doc.source.clone().unwrap();
        s.apply(Action::Source(SourceEdit::Text(
            Place::Wgsl,
            "// x\n".into(),
        )));
        let out = compile(&old);
        s.apply(Action::Source(SourceEdit::Compiled(
            Box::new(old),
            Ok(Rc::new(out)),
        )));
        assert_eq!(s.source_status(), SourceStatus::Compile);
    }

    #[test]
    fn input_switches_keep_what_can_be_kept() {
        let mut s = State::default();
        s.apply(Action::LoadExample("paper/fig3".into()));
        s.apply(Action::Source(SourceEdit::Input(Some(Lang::Glsl))));
        let src = s.doc.source.clone().unwrap();
        assert_eq!(src.lang, Lang::Glsl);
        assert!(src.glsl_fs.contains("gl_FragColor"));
        assert!(s.doc.example.is_none());
        answer(&mut s);
        let fp = s.doc.fp.clone();
        assert!(fp.starts_with("!!ARBfp1.0"));
        // To WGSL: a new module (GLSL is kept for coming back).
        s.apply(Action::Source(SourceEdit::Input(Some(Lang::Wgsl))));
        assert!(s.doc.source.as_ref().unwrap().wgsl.contains("@fragment"));
        assert!(
            s.doc
                .source
                .as_ref()
                .unwrap()
                .glsl_fs
                .contains("gl_FragColor")
        );
        // Back to assembly: the last compiled pair is the programs to edit.
        s.apply(Action::Source(SourceEdit::Input(None)));
        assert!(s.doc.source.is_none() && s.front.is_none());
        assert_eq!(s.doc.fp, fp);
        assert_eq!(s.source_status(), SourceStatus::Assembly);
    }

    #[test]
    fn the_target_picked_in_source_mode_is_the_compilers() {
        let mut s = State::default();
        s.apply(Action::LoadExample("wgsl/uv-transform".into()));
        answer(&mut s);
        let mut o = s.doc.opts.clone();
        o.target = hoist_asm::ArbTarget::G80;
        s.apply(Action::SetOpts(o));
        assert_eq!(
            s.doc.source.as_ref().unwrap().target,
            Some(hoist_asm::ArbTarget::G80)
        );
        assert_eq!(s.source_status(), SourceStatus::Compile);
        answer(&mut s);
        assert_eq!(s.doc.opts.target, hoist_asm::ArbTarget::G80);
    }
}

//! Source mapping in source mode: from a line of the generated or the optimized assembly to
//! the source expression it came from, from a place in the source to its instructions, and
//! the work that moved, marked in the source.
//!
//! Every generated instruction carries its source span (`hoist_front`'s `InstSpan`: the
//! instruction's index and line in the generated text, the byte range in the editor's text).
//! An optimized line says where it came from (`hoist_opt::annotate::Why`): a fragment
//! instruction by its line in the generated fragment program (moved, stayed, added for it),
//! or a vertex instruction by its index; both lead to a span. The optimizer's fates (one per
//! generated fragment instruction) mapped through the spans are the moved expressions.

use crate::doc::source::Place;
use crate::worker::front::{Compiled, place_of};
use hoist_asm::Stage;
use hoist_front::InstSpan;
use hoist_opt::Fate;
use hoist_opt::annotate::{Annotated, Why};
use std::ops::Range;

/// A range of an editor's text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SrcRange {
    pub place: Place,
    pub range: Range<usize>,
}

fn of(s: &InstSpan) -> SrcRange {
    SrcRange {
        place: place_of(s.source),
        range: s.start..s.end,
    }
}

fn spans(c: &Compiled, stage: Stage) -> &[InstSpan] {
    match stage {
        Stage::Vertex => &c.spans.vp,
        Stage::Fragment => &c.spans.fp,
    }
}

/// The source of the generated program's 0-based `line`.
pub fn generated_span(c: &Compiled, stage: Stage, line: usize) -> Option<SrcRange> {
    spans(c, stage).iter().find(|s| s.line == line).map(of)
}

/// The source of an optimized program's line `index` (of `a`, the annotated program).
pub fn optimized_span(c: &Compiled, a: &Annotated, index: usize) -> Option<SrcRange> {
    match a.lines.get(index)?.why.as_ref()? {
        Why::Moved { line }
        | Why::Stays { line, .. }
        | Why::AlsoKept { line }
        | Why::Added {
            line: Some(line), ..
        } => generated_span(c, Stage::Fragment, (*line as usize).checked_sub(1)?),
        Why::Vertex { index } => c
            .spans
            .vp
            .iter()
            .find(|s| s.inst == *index as usize)
            .map(of),
        Why::Added { line: None, .. } => None,
    }
}

/// What a place in the source lights up: the innermost expression with instructions around
/// it, and the lines of the generated programs (0-based) whose instructions came from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lit {
    pub source: Option<SrcRange>,
    pub vp: Vec<usize>,
    pub fp: Vec<usize>,
}

impl Lit {
    /// Whether line `index` of an optimized program comes from a lit instruction.
    pub fn optimized(&self, c: &Compiled, a: &Annotated, index: usize) -> bool {
        let Some(src) = &self.source else {
            return false;
        };
        optimized_span(c, a, index)
            .is_some_and(|s| s.place == src.place && within(&s.range, &src.range))
    }

    /// Whether the generated program's 0-based `line` is lit.
    pub fn generated(&self, stage: Stage, line: usize) -> bool {
        match stage {
            Stage::Vertex => self.vp.contains(&line),
            Stage::Fragment => self.fp.contains(&line),
        }
    }
}

fn within(inner: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// The instructions of `range` (every instruction whose span lies inside it).
pub fn lit_range(c: &Compiled, src: SrcRange) -> Lit {
    let lines = |v: &[InstSpan]| {
        v.iter()
            .filter(|s| place_of(s.source) == src.place && within(&(s.start..s.end), &src.range))
            .map(|s| s.line)
            .collect()
    };
    Lit {
        vp: lines(&c.spans.vp),
        fp: lines(&c.spans.fp),
        source: Some(src),
    }
}

/// The innermost expression with instructions that contains byte `at` of `place`, and its
/// instructions; nothing when no instruction came from there.
pub fn lit_at(c: &Compiled, place: Place, at: usize) -> Lit {
    let best = c
        .spans
        .vp
        .iter()
        .chain(&c.spans.fp)
        .filter(|s| place_of(s.source) == place && s.start <= at && at < s.end.max(s.start + 1))
        .min_by_key(|s| (s.end - s.start, s.start));
    match best {
        Some(s) => lit_range(c, of(s)),
        None => Lit::default(),
    }
}

/// What the pointer or the focus is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    /// Byte `at` of an editor's text.
    Source(Place, usize),
    /// A 0-based line of a generated program.
    Generated(Stage, usize),
    /// A line (its index) of an optimized program.
    Optimized(Stage, usize),
}

/// What `focus` lights up; `optimized` are the annotated optimized programs (vertex,
/// fragment), when there are.
pub fn lit(c: &Compiled, focus: Focus, optimized: Option<[&Annotated; 2]>) -> Lit {
    let src = match focus {
        Focus::Source(place, at) => return lit_at(c, place, at),
        Focus::Generated(stage, line) => generated_span(c, stage, line),
        Focus::Optimized(stage, i) => optimized.and_then(|o| {
            let a = if stage == Stage::Vertex { o[0] } else { o[1] };
            optimized_span(c, a, i)
        }),
    };
    src.map_or_else(Lit::default, |s| lit_range(c, s))
}

/// One source expression whose fragment instructions moved (all of them, or some).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    pub at: SrcRange,
    /// Every fragment instruction of the expression moved.
    pub all: bool,
}

/// The source expressions whose work moved to the vertex program: the generated fragment
/// instructions with `Fate::Moved`, grouped by span, in source order.
pub fn moved(c: &Compiled, fates: &[Fate]) -> Vec<Moved> {
    let mut groups: Vec<(SrcRange, usize, usize)> = Vec::new();
    for s in &c.spans.fp {
        let Some(f) = fates.get(s.inst) else { continue };
        let r = of(s);
        let i = match groups.iter().position(|g| g.0 == r) {
            Some(i) => i,
            None => {
                groups.push((r, 0, 0));
                groups.len() - 1
            }
        };
        groups[i].2 += 1;
        if matches!(f, Fate::Moved { .. }) {
            groups[i].1 += 1;
        }
    }
    let mut out: Vec<Moved> = groups
        .into_iter()
        .filter(|g| g.1 > 0)
        .map(|(at, moved, total)| Moved {
            at,
            all: moved == total,
        })
        .collect();
    hoist_asm::sort::by_key(&mut out, |m| (m.at.range.start, m.at.range.end));
    out
}

/// What the source editor of `place` says at the end of its lines about moved work: per
/// 1-based line, "runs per vertex now" and the expressions (at most a few, shortened).
pub fn moved_notes(text: &str, place: Place, moved: &[Moved]) -> Vec<(u32, String)> {
    let idx = hoist_asm::diag::LineIndex::new(text);
    let mut out: Vec<(u32, Vec<String>, bool)> = Vec::new();
    for m in moved.iter().filter(|m| m.at.place == place) {
        let line = idx.line_col(m.at.range.start.min(text.len())).line;
        let expr = text
            .get(m.at.range.clone())
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let expr = if expr.chars().count() > 40 {
            format!("{}…", expr.chars().take(39).collect::<String>())
        } else {
            expr
        };
        match out.iter_mut().find(|o| o.0 == line) {
            Some(o) => {
                if !o.1.contains(&expr) {
                    o.1.push(expr);
                }
                o.2 &= m.all;
            }
            None => out.push((line, vec![expr], m.all)),
        }
    }
    out.into_iter()
        .map(|(line, exprs, all)| {
            let head = if all {
                "runs per vertex now"
            } else {
                "partly runs per vertex now"
            };
            let shown: Vec<&str> = exprs.iter().take(3).map(String::as_str).collect();
            let more = exprs.len().saturating_sub(3);
            let tail = if more > 0 {
                format!(" (+{more})")
            } else {
                String::new()
            };
            (line, format!("{head}: {}{tail}", shown.join("; ")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::examples::{find, load};
    use crate::worker::analysis::{Analysis, analyze};
    use crate::worker::front::{compile, derive};

    fn compiled(id: &str) -> (crate::doc::Doc, Compiled, Analysis) {
        let mut d = load(find(id).unwrap());
        let c = compile(d.source.as_ref().unwrap()).result.unwrap();
        derive(&mut d, &c);
        let a = analyze(&d);
        (d, c, a)
    }

    #[test]
    fn a_moved_instruction_leads_to_its_source_expression_and_back() {
        let (d, c, a) = compiled("wgsl/lighting");
        let src = &d.source.as_ref().unwrap().wgsl;
        let o = a.optimized.as_ref().expect("optimized");
        // The fates are the generated fragment program's, one per instruction.
        let insts = a.fp.program.as_ref().unwrap().insts.len();
        assert_eq!(o.fates.len(), insts);
        let mv = moved(&c, &o.fates);
        assert!(!mv.is_empty(), "lighting moves its vector differences");
        // Every moved line of the optimized vertex program points into the source, at an
        // expression the moved list has.
        let mut checked = 0;
        for (i, l) in o.vp.lines.iter().enumerate() {
            if !matches!(l.why, Some(Why::Moved { .. })) {
                continue;
            }
            let s = optimized_span(&c, &o.vp, i).expect("a moved line has a source");
            assert_eq!(s.place, Place::Wgsl);
            assert!(mv.iter().any(|m| m.at == s), "{s:?} not in {mv:?}");
            let expr = &src[s.range.clone()];
            assert!(expr.contains("i.world"), "moved: {expr}");
            // And back: the expression lights up the moved line.
            let lit = lit_at(&c, Place::Wgsl, s.range.start);
            assert!(lit.optimized(&c, &o.vp, i), "{lit:?}");
            assert!(!lit.fp.is_empty());
            checked += 1;
        }
        assert!(checked > 0);
        let notes = moved_notes(src, Place::Wgsl, &mv);
        let l = src
            .lines()
            .position(|l| l.contains("light.pos - i.world"))
            .unwrap() as u32
            + 1;
        assert!(
            notes.iter().any(|(n, t)| *n == l
                && t.starts_with("runs per vertex now")
                && t.contains("light.pos - i.world")),
            "{notes:?}"
        );
    }

    #[test]
    fn generated_lines_map_to_spans_and_glsl_places() {
        let (d, c, a) = compiled("glsl/webgl-textured");
        let s = d.source.as_ref().unwrap();
        let fp_text = &d.fp;
        let mut n = 0;
        for (line, _) in fp_text.lines().enumerate() {
            if let Some(r) = generated_span(&c, Stage::Fragment, line) {
                assert_eq!(r.place, Place::GlslFragment);
                assert!(r.range.end <= s.glsl_fs.len());
                n += 1;
            }
        }
        assert!(n > 0);
        // Its vertex shader only copies: no instruction has an expression of its own.
        assert!(c.spans.vp.is_empty(), "{:?}", c.spans.vp);
        assert_eq!(generated_span(&c, Stage::Vertex, 3), None);
        // The zoomed, scrolled coordinate moves (the example says so).
        let o = a.optimized.as_ref().unwrap();
        let mv = moved(&c, &o.fates);
        assert!(
            mv.iter()
                .any(|m| s.glsl_fs[m.at.range.clone()].contains("u_zoom")),
            "{mv:?}"
        );
        // Outside every expression nothing is lit.
        assert_eq!(lit_at(&c, Place::GlslFragment, 0), Lit::default());
    }
}

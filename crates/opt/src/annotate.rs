//! The optimizer's result as people read it: every printed line of both optimized programs
//! with where it came from (the paper's Figure 5: `→` moved, `+` added, changed operands
//! marked) and why it is there, and every original fragment instruction with its fate.
//!
//! One model for every reader: the CLI writes it as text (`hoist opt`), the page draws it
//! (underlines, hover text, the dependence graph's titles). Lines and operand spans come
//! from the printer ([`hoist_asm::print_with_spans`]); source lines of the original fragment
//! program from [`SourceLines`].

use crate::analysis::movable::Stay;
use crate::outcome::{Fate, Outcome};
use crate::tracked::{AddedFor, Line, Prov};
use hoist_asm::diag::LineIndex;
use hoist_asm::{Program, Stage};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The 1-based source line of each instruction of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLines(pub Vec<u32>);

impl SourceLines {
    /// Lines of `p`'s instructions in `source`, whose first line is line `first` of the file
    /// it sits in (1 for a file of its own). An instruction without a span counts as if on
    /// line `first + index`.
    pub fn of(p: &Program, source: &str, first: u32) -> SourceLines {
        let idx = LineIndex::new(source);
        SourceLines(
            p.insts
                .iter()
                .enumerate()
                .map(|(i, inst)| {
                    if inst.span.is_none() {
                        i as u32 + first
                    } else {
                        idx.line_col(inst.span.start as usize).line + first - 1
                    }
                })
                .collect(),
        )
    }

    /// The line of instruction `i` (its number when unknown).
    pub fn line(&self, i: u32) -> u32 {
        self.0.get(i as usize).copied().unwrap_or(i + 1)
    }
}

/// Why an instruction of an optimized program is there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Why {
    /// Moved from the fragment instruction on source line `line`.
    Moved { line: u32 },
    /// Added by a pass, for the fragment instruction on `line` if any.
    Added { why: AddedFor, line: Option<u32> },
    /// A fragment instruction that stayed (source `line`), for `reason`.
    Stays {
        line: u32,
        condition: String,
        reason: String,
    },
    /// A fragment instruction that moved and was also kept (no interpolator was left).
    AlsoKept { line: u32 },
    /// An instruction of the original vertex program (`index` 0-based).
    Vertex { index: u32 },
}

impl Why {
    /// The CLI's trailing note (`  ; from fragment line 15`), empty for original lines.
    pub fn note(&self) -> String {
        match self {
            Why::Moved { line } => format!("  ; from fragment line {line}"),
            Why::Added { why, line } => {
                let what = format!("{why:?}").to_lowercase();
                match line {
                    Some(l) => format!("  ; {what} for fragment line {l}"),
                    None => format!("  ; {what}"),
                }
            }
            Why::Stays { .. } | Why::AlsoKept { .. } | Why::Vertex { .. } => String::new(),
        }
    }

    /// One sentence for the page (hover and focus text).
    pub fn sentence(&self) -> String {
        match self {
            Why::Moved { line } => format!(
                "moved from fragment line {line}: it computes a value that is affine in the \
                 interpolated inputs, so it can run per vertex"
            ),
            Why::Added { why, line: Some(l) } => {
                format!("added: {} (for fragment line {l})", added_why(*why))
            }
            Why::Added { why, line: None } => format!("added: {}", added_why(*why)),
            Why::Stays { line, reason, .. } => format!("stays (fragment line {line}): {reason}"),
            Why::AlsoKept { line } => format!(
                "fragment line {line}: moved, and also kept here because no interpolator \
                 was left"
            ),
            Why::Vertex { index } => format!("original vertex instruction {}", index + 1),
        }
    }
}

/// What an added instruction does, in words.
pub fn added_why(why: AddedFor) -> &'static str {
    match why {
        AddedFor::Save => "saves a vertex output value for the moved code (M2)",
        AddedFor::Transport => {
            "sends a moved result to the fragment program through a free interpolator (M4)"
        }
        AddedFor::Materialize => {
            "reads a transported value back into the register it used to live in"
        }
        AddedFor::Gather => "gathers components from several registers into one operand",
        AddedFor::Legalize => "satisfies an operand rule of the target profile",
        AddedFor::Lowering => "part of the emulation of an op the vertex profile lacks",
        AddedFor::Rematerialize => {
            "computes a value again instead of holding a temporary (register pressure)"
        }
        AddedFor::Relocate => {
            "writes an interpolant where the interpolator packing put it (relocation)"
        }
        AddedFor::Recompute => {
            "recomputes a value the vertex program computed from constants only, which \
             frees its interpolator"
        }
    }
}

/// The mark of a printed line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mark {
    /// Not an instruction, or an instruction where it was.
    #[default]
    None,
    /// `→`: moved from the fragment program.
    Moved,
    /// `+`: added by the optimizer.
    Added,
}

/// One printed line of an optimized program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LineNote {
    pub text: String,
    /// The instruction printed on this line.
    pub inst: Option<u32>,
    pub mark: Mark,
    /// A pass changed an operand of this instruction.
    pub changed: bool,
    /// Byte ranges of the changed operands within `text`.
    pub changed_spans: Vec<Range<usize>>,
    /// Moved lines: the original fragment instruction it came from.
    pub origin: Option<u32>,
    pub why: Option<Why>,
}

impl LineNote {
    /// The instruction stayed in the fragment program for a reason of C1–C4.
    pub fn stayed(&self) -> bool {
        matches!(self.why, Some(Why::Stays { .. }))
    }
}

/// An optimized program, printed and annotated line by line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Annotated {
    /// The printed program.
    pub text: String,
    pub lines: Vec<LineNote>,
}

impl Annotated {
    /// The CLI's listing: `->` moved, `+ ` added, `*` changed, the note after the text.
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            let mark = match l.mark {
                Mark::None => "  ",
                Mark::Moved => "->",
                Mark::Added => "+ ",
            };
            let star = if l.changed { "*" } else { " " };
            let note = l.why.as_ref().map_or(String::new(), Why::note);
            match l.inst {
                Some(_) => out.push_str(&format!("{mark}{star} {}{note}\n", l.text)),
                None => out.push_str(&format!("    {}\n", l.text)),
            }
        }
        out
    }
}

/// Annotates the optimized program of `stage`; `fp_lines` are the source lines of the
/// original fragment program's instructions.
pub fn annotate(out: &Outcome, stage: Stage, fp_lines: &SourceLines) -> Annotated {
    let (program, provenance) = match stage {
        Stage::Vertex => (&out.vp, &out.vp_lines),
        Stage::Fragment => (&out.fp, &out.fp_lines),
    };
    let printed = hoist_asm::print_with_spans(program);
    let mut lines: Vec<LineNote> = printed
        .text
        .lines()
        .map(|t| LineNote {
            text: t.to_string(),
            ..LineNote::default()
        })
        .collect();
    for (i, (spans, line)) in printed.insts.iter().zip(provenance).enumerate() {
        let Some(note) = lines.get_mut(spans.line) else {
            continue;
        };
        note.inst = Some(i as u32);
        note.changed = line.changed != 0;
        note.changed_spans = (0..8u8)
            .filter(|b| line.changed & (1 << b) != 0)
            .filter_map(|b| spans.operand(b).cloned())
            .collect();
        note.mark = match line.prov {
            Prov::Original { .. } => Mark::None,
            Prov::Moved { .. } => Mark::Moved,
            Prov::Added { .. } => Mark::Added,
        };
        if let Prov::Moved { index } = line.prov {
            note.origin = Some(index);
        }
        note.why = why(out, stage, line, fp_lines);
    }
    Annotated {
        text: printed.text,
        lines,
    }
}

fn why(out: &Outcome, stage: Stage, line: &Line, fp_lines: &SourceLines) -> Option<Why> {
    Some(match line.prov {
        Prov::Moved { index } => Why::Moved {
            line: fp_lines.line(index),
        },
        Prov::Added { why, index } => Why::Added {
            why,
            line: index.map(|i| fp_lines.line(i)),
        },
        Prov::Original { index } if stage == Stage::Vertex => Why::Vertex { index },
        Prov::Original { index } => match out.fates.get(index as usize)? {
            Fate::Stays { reason } => stays(reason, index, fp_lines),
            Fate::Moved { .. } => Why::AlsoKept {
                line: fp_lines.line(index),
            },
        },
    })
}

fn stays(reason: &Stay, index: u32, fp_lines: &SourceLines) -> Why {
    Why::Stays {
        line: fp_lines.line(index),
        condition: reason.condition().into(),
        reason: reason.describe(&|i| fp_lines.line(i)),
    }
}

/// What happened to one instruction of the original fragment program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FateNote {
    pub index: usize,
    /// Its source line and its text as printed (without the comment mark's padding).
    pub line: u32,
    pub text: String,
    pub fate: Fate,
    /// Instructions that stay: the condition (C1–C4, ...) and the reason in words.
    pub condition: Option<String>,
    pub reason: Option<String>,
}

impl FateNote {
    /// `moved (group 2)`, `moved (shared helper: …)` (a uniform value several moved groups
    /// use, moved with them) or `stays: <reason>`.
    pub fn summary(&self) -> String {
        match (&self.fate, &self.reason) {
            (Fate::Moved { group: Some(g) }, _) => format!("moved (group {})", g + 1),
            (Fate::Moved { group: None }, _) => {
                "moved (shared helper: a uniform value several moved groups use)".into()
            }
            (Fate::Stays { .. }, Some(r)) => format!("stays: {r}"),
            (Fate::Stays { .. }, None) => "stays".into(),
        }
    }
}

/// The fate of every instruction of `fp`, the original fragment program the outcome was
/// computed from.
pub fn fates(out: &Outcome, fp: &Program, fp_lines: &SourceLines) -> Vec<FateNote> {
    let printed = hoist_asm::print_with_spans(fp);
    let text: Vec<&str> = printed.text.lines().collect();
    out.fates
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (condition, reason) = match f {
                Fate::Moved { .. } => (None, None),
                Fate::Stays { reason } => (
                    Some(reason.condition().to_string()),
                    Some(reason.describe(&|k| fp_lines.line(k))),
                ),
            };
            FateNote {
                index: i,
                line: fp_lines.line(i as u32),
                text: printed
                    .insts
                    .get(i)
                    .and_then(|s| text.get(s.line))
                    .map_or(String::new(), |s| s.trim().to_string()),
                fate: f.clone(),
                condition,
                reason,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn fig3() -> (Program, Outcome, SourceLines) {
        let parse = |s: &str| {
            hoist_asm::parse(s, &hoist_asm::ParseOptions::default())
                .into_result()
                .unwrap()
        };
        let vp = parse(include_str!("../../../examples/paper/fig3.vsh"));
        let src = include_str!("../../../examples/paper/fig3.psh");
        let fp = parse(src);
        let out = crate::optimize(&vp, &fp, &Options::default()).unwrap();
        let lines = SourceLines::of(&fp, src, 1);
        (fp, out, lines)
    }

    #[test]
    fn lines_say_where_they_came_from() {
        let (_, out, lines) = fig3();
        let vp = annotate(&out, Stage::Vertex, &lines);
        assert_eq!(vp.text, hoist_asm::print(&out.vp));
        assert_eq!(vp.lines.len(), vp.text.lines().count());
        let moved: Vec<&LineNote> = vp.lines.iter().filter(|l| l.mark == Mark::Moved).collect();
        assert!(!moved.is_empty());
        for l in &moved {
            let origin = l.origin.unwrap();
            assert_eq!(
                l.why,
                Some(Why::Moved {
                    line: lines.line(origin)
                })
            );
            assert!(lines.line(origin) >= 15);
        }
        // Figure 5: moved code reads the vertex inputs (`v1`), and that operand is marked.
        let changed: Vec<&str> = vp
            .lines
            .iter()
            .flat_map(|l| l.changed_spans.iter().map(|r| &l.text[r.clone()]))
            .collect();
        assert!(changed.iter().any(|t| t.starts_with('v')), "{changed:?}");
        let fp = annotate(&out, Stage::Fragment, &lines);
        let texld = fp.lines.iter().find(|l| l.text.contains("texld")).unwrap();
        assert!(texld.stayed());
        assert!(texld.why.as_ref().unwrap().sentence().contains("C2"));
    }

    #[test]
    fn the_listing_marks_moves_additions_and_changes() {
        let (_, out, lines) = fig3();
        let listing = annotate(&out, Stage::Vertex, &lines).listing();
        let rows: Vec<&str> = listing.lines().collect();
        assert!(rows[0].starts_with("    vs_"), "{}", rows[0]);
        let moved = rows.iter().find(|r| r.starts_with("->")).unwrap();
        assert!(moved.contains("  ; from fragment line "), "{moved}");
        assert!(
            rows.iter()
                .any(|r| r.starts_with("->*") || r.starts_with("+ *"))
        );
        for r in rows.iter().filter(|r| r.starts_with("+ ")) {
            assert!(r.contains("  ; "), "{r}");
        }
    }

    #[test]
    fn fates_name_lines_and_reasons() {
        let (fp, out, lines) = fig3();
        let notes = fates(&out, &fp, &lines);
        assert_eq!(notes.len(), fp.insts.len());
        let texld = notes.iter().find(|n| n.text.starts_with("texld")).unwrap();
        assert_eq!(texld.condition.as_deref(), Some("C2"));
        assert!(texld.summary().starts_with("stays: C2"));
        assert_eq!(texld.line, lines.line(texld.index as u32));
        assert!(
            notes
                .iter()
                .any(|n| n.summary().starts_with("moved (group "))
        );
    }
}

//! The scene's text as the page shows it: what `hoist_raster::scene::parse` says about it,
//! as diagnostics at their lines (the scene editor draws them like a program's).

use crate::worker::analysis::Side;
use hoist_asm::{Diagnostic, Span};
use hoist_raster::RenderError;

/// The span of 1-based line `line` of `text`, without its indentation and line break.
pub fn line_span(text: &str, line: u32) -> Span {
    let mut start = 0;
    for (n, l) in text.split('\n').enumerate() {
        if n + 1 == line as usize {
            let lead = l.len() - l.trim_start().len();
            return Span::new(start + lead, start + l.trim_end().len().max(lead));
        }
        start += l.len() + 1;
    }
    Span::NONE
}

/// The parse of a scene text as an editor's side: no program, the error (if any) as a
/// diagnostic on its line.
pub fn side(text: &str) -> Side {
    let diagnostics = match hoist_raster::scene::parse(text, &crate::doc::scene_rules::caps()) {
        Ok(_) => Vec::new(),
        Err(RenderError::Scene { line, message }) => {
            vec![Diagnostic::error(
                hoist_asm::Code::SCENE,
                message,
                line_span(text, line),
            )]
        }
        Err(e) => vec![Diagnostic::error(
            hoist_asm::Code::SCENE,
            e.to_string(),
            Span::NONE,
        )],
    };
    Side::only_diagnostics(diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_asm::diag::LineIndex;

    #[test]
    fn a_broken_line_is_marked_where_it_is() {
        let d = crate::doc::examples::load(crate::doc::examples::find("paper/fig3").unwrap());
        let scene = d.scene.unwrap();
        assert!(side(&scene).diagnostics.is_empty());
        let broken = format!("{scene}\n  draw sideways\n");
        let diags = side(&broken).diagnostics;
        assert_eq!(diags.len(), 1, "{diags:?}");
        let d = &diags[0];
        // The editor shows `error[scene]`.
        assert_eq!(d.code.to_string(), "scene");
        let at = LineIndex::new(&broken).line_col(d.span.start as usize);
        assert_eq!(at.line as usize, broken.lines().count());
        assert_eq!(at.col, 3);
        assert_eq!(
            &broken[d.span.start as usize..d.span.end as usize],
            "draw sideways"
        );
    }

    #[test]
    fn every_example_scene_parses_and_garbage_does_not_panic() {
        for e in crate::doc::examples::EXAMPLES {
            let d = crate::doc::examples::load(e);
            if let Some(s) = &d.scene {
                assert!(side(s).diagnostics.is_empty(), "{}", e.id);
            }
        }
        for text in [
            "[test",
            "[test]\nrepeat 99999999\ndraw quad\n",
            "\u{0}\n[",
            "[test]\nwindow rgba32f 99999 1\n",
        ] {
            assert!(!side(text).diagnostics.is_empty(), "{text:?}");
        }
    }
}

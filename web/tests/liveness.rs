//! The liveness panel's model: rows on the lines of the text they belong to (the editor's
//! source, the optimized listing), the peak against the limit, and the hover text naming
//! where a value was written and last read — checked against the program text itself.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::Stage;
use hoist_opt::annotate::{self, SourceLines};
use hoist_web::worker::analysis::Side;
use hoist_web::worker::liveness::Grid;

const FIG3_VP: &str = include_str!("../../examples/paper/fig3.vsh");
const FIG3_FP: &str = include_str!("../../examples/paper/fig3.psh");

/// 1-based line of the first line of `text` that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> u32 {
    text.lines()
        .position(|l| l.trim_start().starts_with(prefix))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no line starts with {prefix}"))
}

#[test]
fn original_rows_sit_on_their_source_lines() {
    let side = Side::parse(FIG3_FP, None);
    let p = side.program.as_ref().expect("fig3 parses");
    let total = FIG3_FP.lines().count() as u32;
    let g = Grid::new(p, 12, &side.lines.0, total);
    assert_eq!(g.lines, total);
    let lines: Vec<u32> = g.rows.iter().map(|r| r.line).collect();
    assert_eq!(lines, side.lines.0);
    for (r, inst) in g.rows.iter().zip(&p.insts) {
        let src = FIG3_FP.lines().nth(r.line as usize - 1).unwrap();
        let name = inst.op.info().d3d.expect("a D3D9 op");
        assert!(src.trim_start().starts_with(name), "{src} is not `{name}`");
        assert_eq!(r.cells.chars().count(), g.names.len() * 4);
        assert_eq!(r.values.len(), r.cells.chars().count());
    }
    // Three texture results are live together before they are combined.
    assert_eq!(g.peak, 3);
    assert_eq!(g.peak_line, Some(line_of(FIG3_FP, "texld r2")));
    assert!(g.summary().starts_with("peak 3 of 12 temporaries at line"));
    // The hover names the write and the last read, by line.
    let at = line_of(FIG3_FP, "texld r2");
    let row = g.row_at(at).unwrap();
    let k = g.names.iter().position(|n| n == "r2").unwrap();
    let want = format!(
        "r2.x: written on line {at}, last read on line {}",
        line_of(FIG3_FP, "mul r2")
    );
    assert_eq!(row.values[k * 4].as_deref(), Some(want.as_str()));
    // Lines without an instruction have no row.
    assert!(g.row_at(1).is_none());
}

#[test]
fn optimized_rows_sit_on_the_printed_listing() {
    let vp = Side::parse(FIG3_VP, None).program.unwrap();
    let fp_side = Side::parse(FIG3_FP, None);
    let fp = fp_side.program.as_ref().unwrap();
    let o = hoist_opt::optimize(&vp, fp, &hoist_opt::Options::default()).unwrap();
    let lines = SourceLines::of(fp, FIG3_FP, 1);
    for (stage, prog) in [(Stage::Vertex, &o.vp), (Stage::Fragment, &o.fp)] {
        let a = annotate::annotate(&o, stage, &lines);
        let g = Grid::of_annotated(prog, &a, 12);
        assert_eq!(g.rows.len(), prog.insts.len());
        assert_eq!(g.lines as usize, a.lines.len());
        for (i, r) in g.rows.iter().enumerate() {
            let note = &a.lines[r.line as usize - 1];
            assert_eq!(note.inst, Some(i as u32), "{}", note.text);
        }
        assert!(g.peak <= 3);
    }
}

//! The liveness panel's model (seed 002): the grid of `hoist_opt::analysis::liveness` laid
//! out on the lines of the text it belongs to (an editor's source, or the optimized
//! program's printed lines), so that row `n` sits on line `n`, with each row's live
//! temporaries against the profile's limit and each cell's value in words (the instruction
//! that wrote it and its last read) for the hover.

use hoist_asm::Program;
use hoist_opt::analysis::liveness::{Cell, Legend, Liveness};
use hoist_opt::annotate::Annotated;
use serde::{Deserialize, Serialize};

/// One instruction's row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// 1-based line of the text the instruction is on.
    pub line: u32,
    /// The grid row, one character per register component (the thesis's legend).
    pub cells: String,
    /// Temporaries live, read or written here.
    pub live: u32,
    /// Per non-empty cell (same index as `cells`' characters), what it holds.
    pub values: Vec<Option<String>>,
}

/// One program's grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// Register columns, four components each.
    pub names: Vec<String>,
    pub rows: Vec<Row>,
    pub peak: u32,
    /// Line of the first row at the peak.
    pub peak_line: Option<u32>,
    pub peak_components: u32,
    pub limit: u16,
    /// Temporaries as numbered (what the profile checks).
    pub declared: u16,
    /// Lines of the text (rows without an instruction are blank).
    pub lines: u32,
}

impl Grid {
    /// The grid of `p`, whose instruction `i` is on line `lines[i]` of a text of
    /// `total` lines.
    pub fn new(p: &Program, limit: u16, lines: &[u32], total: u32) -> Grid {
        let l = Liveness::compute(p, limit);
        let line_of = |i: usize| lines.get(i).copied().unwrap_or(i as u32 + 1);
        let rows: Vec<Row> = (0..l.rows())
            .map(|r| {
                let mut cells = String::new();
                let mut values = Vec::new();
                for k in 0..l.regs.len() {
                    for c in 0..4u8 {
                        let cell = l.cell(r, k, c);
                        cells.push(Legend::Thesis.char(cell));
                        values.push((cell != Cell::Empty).then(|| describe(&l, r, k, c, &line_of)));
                    }
                }
                Row {
                    line: line_of(r),
                    cells,
                    live: l.temps[r],
                    values,
                }
            })
            .collect();
        let last = rows.iter().map(|r| r.line).max().unwrap_or(0);
        Grid {
            names: l.names.clone(),
            peak_line: l.peak_row.map(line_of),
            peak: l.peak,
            peak_components: l.peak_components,
            limit: l.limit,
            declared: l.declared,
            rows,
            lines: total.max(last),
        }
    }

    /// The grid of an optimized program, on its printed lines.
    pub fn of_annotated(p: &Program, a: &Annotated, limit: u16) -> Grid {
        let mut lines = vec![0u32; p.insts.len()];
        for (n, l) in a.lines.iter().enumerate() {
            if let Some(i) = l.inst.and_then(|i| lines.get_mut(i as usize)) {
                *i = n as u32 + 1;
            }
        }
        Grid::new(p, limit, &lines, a.lines.len() as u32)
    }

    /// The row on `line`, if an instruction is there.
    pub fn row_at(&self, line: u32) -> Option<&Row> {
        self.rows.iter().find(|r| r.line == line)
    }

    /// How full a row is, 0 (empty) to 1 (at the limit) and above.
    pub fn pressure(&self, live: u32) -> f64 {
        f64::from(live) / f64::from(self.limit.max(1))
    }

    /// The headline: the peak against the limit.
    pub fn summary(&self) -> String {
        let at = self
            .peak_line
            .map_or(String::new(), |l| format!(" at line {l}"));
        let over = if self.peak > u32::from(self.limit) {
            ": over the limit"
        } else if self.declared > self.limit {
            ": fits, but its numbering is over the limit"
        } else {
            ""
        };
        format!(
            "peak {} of {} temporaries{at} ({} components){over}",
            self.peak, self.limit, self.peak_components
        )
    }
}

/// What a cell holds: register component, where it was written and last read.
fn describe(l: &Liveness, row: usize, reg: usize, comp: u8, line: &dyn Fn(usize) -> u32) -> String {
    let name = format!(
        "{}.{}",
        l.names[reg],
        hoist_asm::ir::COMP_NAMES[comp as usize]
    );
    let Some(v) = l.value(row, reg, comp) else {
        return name;
    };
    let list = |v: &[u32]| {
        v.iter()
            .map(|&i| line(i as usize).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let written = if v.defs.is_empty() {
        "never written (reads 0)".to_string()
    } else {
        format!("written on line {}", list(&v.defs))
    };
    let read = match v.last_use() {
        Some(u) => format!("last read on line {}", line(u as usize)),
        None => "never read".into(),
    };
    format!("{name}: {written}, {read}")
}

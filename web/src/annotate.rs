//! The optimized programs as the paper's Figure 5 shows them: `→` on instructions moved
//! from the fragment program, `+` on added ones, changed operands underlined, and for
//! every instruction a sentence saying why it is there (or why it stayed).
//!
//! Input: a program printed with [`hoist_asm::print_with_lines`], its per-instruction
//! [`Line`] provenance from `hoist_opt::Outcome`, the fates of the original fragment
//! instructions and where those sit in the user's source.

use hoist_asm::{Dialect, Program};
use hoist_opt::{AddedFor, Fate, Line, Prov};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    None,
    /// `→`: moved from the fragment program.
    Moved,
    /// `+`: added by the optimizer.
    Added,
}

impl Marker {
    pub fn glyph(self) -> &'static str {
        match self {
            Marker::None => "",
            Marker::Moved => "→",
            Marker::Added => "+",
        }
    }
}

/// One printed line of an optimized program.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeLine {
    pub text: String,
    pub marker: Marker,
    /// Byte ranges of changed operands within `text`.
    pub changed: Vec<Range<usize>>,
    /// What this instruction is and why (shown on hover and focus).
    pub tip: Option<String>,
    /// For moved lines: the original fragment instruction it came from.
    pub origin: Option<usize>,
    /// The instruction stayed in the fragment program for a reason of C1–C4.
    pub stayed: bool,
}

/// Where things are in the user's original fragment program.
pub struct Context<'a> {
    pub fates: &'a [Fate],
    /// 1-based source line of each original fragment instruction.
    pub fp_lines: &'a [u32],
    /// The optimized program is the fragment program.
    pub fragment: bool,
}

impl Context<'_> {
    fn line_of(&self, i: u32) -> u32 {
        self.fp_lines.get(i as usize).copied().unwrap_or(i + 1)
    }
}

/// Byte ranges of the operands of one printed instruction line (destination first), in
/// either dialect: the comment and a D3D9 predicate are skipped, then the text after the
/// opcode is split at commas outside brackets and braces.
pub fn operand_ranges(line: &str, dialect: Dialect) -> Vec<Range<usize>> {
    let b = line.as_bytes();
    let end = match dialect {
        Dialect::Arb => line.find(['#', ';']).unwrap_or(line.len()),
        Dialect::D3d9 => {
            let semi = line.find(';').unwrap_or(line.len());
            let slash = line.find("//").unwrap_or(line.len());
            semi.min(slash)
        }
    };
    let mut i = 0;
    while i < end && b[i].is_ascii_whitespace() {
        i += 1;
    }
    if dialect == Dialect::D3d9 && i < end && b[i] == b'(' {
        i = line[i..end].find(')').map_or(end, |e| i + e + 1);
        while i < end && b[i].is_ascii_whitespace() {
            i += 1;
        }
    }
    while i < end && !b[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = i;
    for j in i..=end {
        let c = if j < end { b[j] } else { b',' };
        match c {
            b'[' | b'{' | b'(' => depth += 1,
            b']' | b'}' | b')' => depth -= 1,
            b',' if depth <= 0 => {
                let piece = &line[start..j];
                let lead = piece.len() - piece.trim_start().len();
                let trimmed = piece.trim();
                if !trimmed.is_empty() {
                    let s = start + lead;
                    out.push(s..s + trimmed.len());
                }
                start = j + 1;
            }
            _ => {}
        }
    }
    out
}

fn added_why(why: AddedFor) -> &'static str {
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
    }
}

/// Annotates the printed `text` of `program` (instruction `i` on printed line
/// `inst_lines[i]`) with the provenance `lines`.
pub fn annotate(
    program: &Program,
    text: &str,
    inst_lines: &[usize],
    lines: &[Line],
    cx: &Context,
) -> Vec<CodeLine> {
    let mut out: Vec<CodeLine> = text
        .lines()
        .map(|t| CodeLine {
            text: t.to_string(),
            marker: Marker::None,
            changed: Vec::new(),
            tip: None,
            origin: None,
            stayed: false,
        })
        .collect();
    let describe_line = |i: u32| cx.line_of(i);
    for (i, inst) in program.insts.iter().enumerate() {
        let (Some(&li), Some(line)) = (inst_lines.get(i), lines.get(i)) else {
            continue;
        };
        let Some(cl) = out.get_mut(li) else { continue };
        let has_dst = inst.info().has_dst;
        if line.changed != 0 {
            let ops = operand_ranges(&cl.text, program.dialect());
            for bit in 0..8u8 {
                if line.changed & (1 << bit) == 0 {
                    continue;
                }
                let pos = match (bit, has_dst) {
                    (0, true) => Some(0),
                    (0, false) => None,
                    (k, true) => Some(k as usize),
                    (k, false) => Some(k as usize - 1),
                };
                if let Some(r) = pos.and_then(|p| ops.get(p)) {
                    cl.changed.push(r.clone());
                }
            }
        }
        match line.prov {
            Prov::Moved { index } => {
                cl.marker = Marker::Moved;
                cl.origin = Some(index as usize);
                cl.tip = Some(format!(
                    "moved from fragment line {}: it computes a value that is affine in the \
                     interpolated inputs, so it can run per vertex",
                    cx.line_of(index)
                ));
            }
            Prov::Added { why, index } => {
                cl.marker = Marker::Added;
                cl.tip = Some(match index {
                    Some(ix) => format!(
                        "added: {} (for fragment line {})",
                        added_why(why),
                        cx.line_of(ix)
                    ),
                    None => format!("added: {}", added_why(why)),
                });
            }
            Prov::Original { index } => {
                if cx.fragment {
                    match cx.fates.get(index as usize) {
                        Some(Fate::Stays { reason }) => {
                            cl.stayed = true;
                            cl.tip = Some(format!(
                                "stays (fragment line {}): {}",
                                cx.line_of(index),
                                reason.describe(&describe_line)
                            ));
                        }
                        Some(Fate::Moved { .. }) => {
                            cl.tip = Some(format!(
                                "fragment line {}: moved, and also kept here because no \
                                 interpolator was left",
                                cx.line_of(index)
                            ));
                        }
                        None => {}
                    }
                } else {
                    cl.tip = Some(format!("original vertex instruction {}", index + 1));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_in_both_dialects() {
        let l = "add r0.xy, r0, t0 ; comment, with comma";
        let r = operand_ranges(l, Dialect::D3d9);
        let got: Vec<&str> = r.iter().map(|r| &l[r.clone()]).collect();
        assert_eq!(got, ["r0.xy", "r0", "t0"]);

        let l = "(p0.x) mad_sat r1, c[a0.x + 2], -r1, r2";
        let got: Vec<&str> = operand_ranges(l, Dialect::D3d9)
            .iter()
            .map(|r| &l[r.clone()])
            .collect();
        assert_eq!(got, ["r1", "c[a0.x + 2]", "-r1", "r2"]);

        let l = "  MAD R0, {1, 2, 3, 4}, fragment.texcoord[0], R1.xyzw; # x, y";
        let got: Vec<&str> = operand_ranges(l, Dialect::Arb)
            .iter()
            .map(|r| &l[r.clone()])
            .collect();
        assert_eq!(
            got,
            ["R0", "{1, 2, 3, 4}", "fragment.texcoord[0]", "R1.xyzw"]
        );
        assert!(operand_ranges("END", Dialect::Arb).is_empty());
    }
}

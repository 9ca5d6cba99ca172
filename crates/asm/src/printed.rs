//! Printed text with the place of every instruction and operand, so that whoever marks up
//! a printed program (the CLI's annotations, the page's underlined operands) never scans the
//! text again. Both printers build an instruction's operand list through [`Operands`].

use std::ops::Range;

/// Where one instruction sits in the printed text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstSpans {
    /// 0-based line.
    pub line: usize,
    /// Byte range of the destination within that line.
    pub dst: Option<Range<usize>>,
    /// Byte range of each source within that line, in the instruction's source order
    /// (sampler and texture-target words, SWZ selectors are not sources).
    pub src: Vec<Range<usize>>,
}

impl InstSpans {
    /// The operand of a `changed` bit as `hoist_opt::Line` counts them: bit 0 the
    /// destination, bit k+1 source k.
    pub fn operand(&self, bit: u8) -> Option<&Range<usize>> {
        match bit {
            0 => self.dst.as_ref(),
            k => self.src.get(usize::from(k) - 1),
        }
    }
}

/// A printed program and the spans of its instructions (one per instruction, in order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Printed {
    pub text: String,
    pub insts: Vec<InstSpans>,
}

/// What an operand of the printed list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Dst,
    Src,
    /// Printed with the operands but not one of the IR's (`s0`, `texture[0]`, `2D`).
    Other,
}

/// The comma-separated operand list of one instruction line, with spans.
#[derive(Default)]
pub(crate) struct Operands {
    parts: Vec<(Role, String)>,
}

impl Operands {
    pub fn push(&mut self, role: Role, text: String) {
        self.parts.push((role, text));
    }

    /// Appends ` a, b, c` (nothing when empty) to `line`; the spans are relative to the
    /// start of `line`, which must be the start of the printed line.
    pub fn write(self, line: &mut String) -> (Option<Range<usize>>, Vec<Range<usize>>) {
        let mut dst = None;
        let mut src = Vec::new();
        for (k, (role, text)) in self.parts.into_iter().enumerate() {
            line.push_str(if k == 0 { " " } else { ", " });
            let r = line.len()..line.len() + text.len();
            line.push_str(&text);
            match role {
                Role::Dst => dst = Some(r),
                Role::Src => src.push(r),
                Role::Other => {}
            }
        }
        (dst, src)
    }
}

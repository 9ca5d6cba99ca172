//! Spans: byte ranges of program text, carried by the IR and by diagnostics.

use serde::{Deserialize, Serialize};

/// Byte range `start..end` in the program text. `Span::NONE` marks code a pass created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const NONE: Span = Span {
        start: u32::MAX,
        end: u32::MAX,
    };

    pub fn new(start: usize, end: usize) -> Span {
        let clamp = |v: usize| v.min(u32::MAX as usize - 1) as u32;
        Span {
            start: clamp(start),
            end: clamp(end.max(start)),
        }
    }

    pub fn is_none(self) -> bool {
        self.start == u32::MAX
    }

    /// The smallest span covering both (a `NONE` side is ignored).
    pub fn join(self, other: Span) -> Span {
        if self.is_none() {
            return other;
        }
        if other.is_none() {
            return self;
        }
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        if self.is_none() {
            0..0
        } else {
            self.start as usize..self.end as usize
        }
    }
}

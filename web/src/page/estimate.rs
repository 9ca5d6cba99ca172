//! The paper's cost reasoning for the current render: the vertex program runs once per
//! vertex and the fragment program once per fragment, so moving a slot from the fragment
//! program to the vertex program saves about (fragments − vertices) slot executions.

use hoist_opt::Stats;

/// Slot executions of one pair for one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    pub vp_slots: u32,
    pub fp_slots: u32,
    pub vertex: u64,
    pub fragment: u64,
}

impl Work {
    pub fn total(&self) -> u64 {
        self.vertex + self.fragment
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    pub vertices: u64,
    pub fragments: u64,
    pub before: Work,
    pub after: Work,
}

impl Estimate {
    pub fn new(before: &Stats, after: &Stats, vertices: u64, fragments: u64) -> Estimate {
        let work = |s: &Stats| {
            let (v, f) = (s.vp_slots.total(), s.fp_slots.total());
            Work {
                vp_slots: v,
                fp_slots: f,
                vertex: u64::from(v) * vertices,
                fragment: u64::from(f) * fragments,
            }
        };
        Estimate {
            vertices,
            fragments,
            before: work(before),
            after: work(after),
        }
    }

    /// Change of the per-frame total in percent (negative = fewer).
    pub fn change_pct(&self) -> f64 {
        let b = self.before.total() as f64;
        if b == 0.0 {
            0.0
        } else {
            100.0 * (self.after.total() as f64 - b) / b
        }
    }

    /// Fragments per vertex: how much more a fragment slot costs than a vertex slot.
    pub fn ratio(&self) -> f64 {
        self.fragments as f64 / self.vertices.max(1) as f64
    }
}

/// Slot reduction in percent of `before` (positive = fewer).
pub fn reduction_pct(before: u32, after: u32) -> f64 {
    if before == 0 {
        0.0
    } else {
        100.0 * (f64::from(before) - f64::from(after)) / f64::from(before)
    }
}

/// A change in percent as shown (one decimal, `+0.0%` for anything that rounds to zero)
/// and its colour class: `good` for fewer, `bad` for more, none (neutral) for no change.
pub fn change_view(pct: f64) -> (String, Option<&'static str>) {
    let shown = (pct * 10.0).round() / 10.0;
    if shown == 0.0 || !shown.is_finite() {
        ("+0.0%".into(), None)
    } else if shown < 0.0 {
        (format!("{shown:.1}%"), Some("good"))
    } else {
        (format!("+{shown:.1}%"), Some("bad"))
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_asm::profile::SlotCount;

    fn stats(v: u32, f: u32) -> Stats {
        Stats {
            vp_slots: SlotCount {
                alu: v,
                ..SlotCount::default()
            },
            fp_slots: SlotCount {
                alu: f,
                ..SlotCount::default()
            },
            ..Stats::default()
        }
    }

    #[test]
    fn the_papers_figure3_arithmetic() {
        // 256×256 quad: F 16 → 7, V 2 → 14.
        let e = Estimate::new(&stats(2, 16), &stats(14, 7), 4, 65_536);
        assert_eq!(e.before.total(), 2 * 4 + 16 * 65_536);
        assert_eq!(e.after.total(), 14 * 4 + 7 * 65_536);
        assert!((e.change_pct() + 56.2).abs() < 0.1, "{}", e.change_pct());
        assert_eq!(e.ratio(), 16_384.0);
        assert!((reduction_pct(16, 7) - 56.25).abs() < 1e-9);
        assert_eq!(reduction_pct(0, 0), 0.0);
    }

    #[test]
    fn no_change_is_neutral() {
        assert_eq!(change_view(0.0), ("+0.0%".into(), None));
        assert_eq!(change_view(-0.04), ("+0.0%".into(), None));
        assert_eq!(change_view(0.04), ("+0.0%".into(), None));
        assert_eq!(change_view(-56.2), ("-56.2%".into(), Some("good")));
        assert_eq!(change_view(3.05), ("+3.1%".into(), Some("bad")));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_048_584), "1,048,584");
    }
}

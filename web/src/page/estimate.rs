//! The cost reasoning for the current render, under the cost model the selection used: the
//! vertex program runs once per vertex and the fragment program once per fragment, so moving
//! a slot from the fragment program to the vertex program saves about (fragments − vertices)
//! slot executions (the paper's model); the modern model also charges each interpolated
//! component `interp_cost` fragment slots; the R600 models count estimated cycles per
//! 64-fragment wavefront (`hoist_opt::CostModel`'s figures, per frame).

use hoist_opt::Stats;

/// The model a frame's work is counted in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// V × vertices + F × fragments.
    Paper,
    /// V × vertices + (F + c × I) × fragments, c slots per interpolated component.
    Modern(f64),
    /// The R600 model's cycles per wavefront of the original (when it parsed) and the
    /// optimized pair, × the wavefronts of the frame.
    Cycles { before: Option<f64>, after: f64 },
}

/// Threads per R600 wavefront.
pub const WAVEFRONT: u64 = 64;

/// One pair's work for one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    pub vp_slots: u32,
    pub fp_slots: u32,
    pub interp: u32,
    /// The model's cycles per wavefront (R600 models only).
    pub cycles: Option<f64>,
    /// Slot executions (paper, modern) or cycles (R600) per frame.
    pub total: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub vertices: u64,
    pub fragments: u64,
    pub model: Model,
    pub before: Work,
    pub after: Work,
}

impl Estimate {
    pub fn new(
        before: &Stats,
        after: &Stats,
        vertices: u64,
        fragments: u64,
        model: Model,
    ) -> Estimate {
        let (nv, nf) = (vertices as f64, fragments as f64);
        let work = |s: &Stats, cycles: Option<f64>| {
            let (v, f, i) = (s.vp_slots.total(), s.fp_slots.total(), s.interp_components);
            let total = match model {
                Model::Paper => f64::from(v) * nv + f64::from(f) * nf,
                Model::Modern(c) => f64::from(v) * nv + (f64::from(f) + c * f64::from(i)) * nf,
                Model::Cycles { .. } => cycles.map_or(f64::NAN, |c| c * Estimate::waves(fragments)),
            };
            Work {
                vp_slots: v,
                fp_slots: f,
                interp: i,
                cycles,
                total,
            }
        };
        let (cb, ca) = match model {
            Model::Cycles { before, after } => (before, Some(after)),
            _ => (None, None),
        };
        Estimate {
            vertices,
            fragments,
            model,
            before: work(before, cb),
            after: work(after, ca),
        }
    }

    /// Wavefronts of `fragments` fragments.
    pub fn waves(fragments: u64) -> f64 {
        fragments.div_ceil(WAVEFRONT) as f64
    }

    /// Change of the per-frame total in percent (negative = fewer).
    pub fn change_pct(&self) -> f64 {
        let b = self.before.total;
        if b == 0.0 || !b.is_finite() {
            0.0
        } else {
            100.0 * (self.after.total - b) / b
        }
    }

    /// Fragments per vertex: how much more a fragment slot costs than a vertex slot.
    pub fn ratio(&self) -> f64 {
        self.fragments as f64 / self.vertices.max(1) as f64
    }

    /// The formula's heading, the unit of the totals, and the model in words.
    pub fn heading(&self) -> (String, &'static str, String) {
        match self.model {
            Model::Paper => (
                "V × vertices + F × fragments".into(),
                "slot executions",
                "paper: instruction slots executed".into(),
            ),
            Model::Modern(c) => (
                format!("V × vertices + (F + {c} × I) × fragments"),
                "slot executions",
                format!(
                    "modern: each interpolated component (I) costs {c} fragment slot{}",
                    if c == 1.0 { "" } else { "s" }
                ),
            ),
            Model::Cycles { .. } => (
                format!("cycles per wavefront × wavefronts (fragments / {WAVEFRONT})"),
                "estimated cycles",
                "R600: estimated cycles per wavefront (fragment program, plus the vertex \
                 program's amortised over the fragments)"
                    .into(),
            ),
        }
    }

    /// One pair's formula with its figures.
    pub fn formula(&self, w: &Work) -> String {
        let (v, f) = (thousands(self.vertices), thousands(self.fragments));
        match self.model {
            Model::Paper => format!("{} × {v} + {} × {f}", w.vp_slots, w.fp_slots),
            Model::Modern(c) => {
                format!(
                    "{} × {v} + ({} + {c} × {}) × {f}",
                    w.vp_slots, w.fp_slots, w.interp
                )
            }
            Model::Cycles { .. } => format!(
                "{} × {}",
                w.cycles.map_or("–".into(), |c| format!("{c:.2}")),
                thousands(Estimate::waves(self.fragments) as u64)
            ),
        }
    }

    /// A per-frame total as shown (rounded; "–" when unknown).
    pub fn total_view(w: &Work) -> String {
        if w.total.is_finite() {
            thousands(w.total.round() as u64)
        } else {
            "–".into()
        }
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
        let e = Estimate::new(&stats(2, 16), &stats(14, 7), 4, 65_536, Model::Paper);
        assert_eq!(e.before.total, f64::from(2 * 4 + 16 * 65_536));
        assert_eq!(e.after.total, f64::from(14 * 4 + 7 * 65_536));
        assert_eq!(e.formula(&e.after), "14 × 4 + 7 × 65,536");
        assert!((e.change_pct() + 56.2).abs() < 0.1, "{}", e.change_pct());
        assert_eq!(e.ratio(), 16_384.0);
        assert!((reduction_pct(16, 7) - 56.25).abs() < 1e-9);
        assert_eq!(reduction_pct(0, 0), 0.0);
    }

    /// Issue 27 item 11: the modern model charges interpolation; R600 counts cycles.
    #[test]
    fn the_chosen_model_decides_the_figures() {
        let (mut b, mut a) = (stats(2, 16), stats(6, 7));
        b.interp_components = 2;
        a.interp_components = 6;
        let paper = Estimate::new(&b, &a, 4, 65_536, Model::Paper);
        let modern = Estimate::new(&b, &a, 4, 65_536, Model::Modern(0.5));
        // `hoist opt --cost modern` prices Figure 3's result at 7 + 0.5 × 6 + 6 × 4 / 65,536
        // per fragment: 655,384 slot executions for the frame.
        assert_eq!(modern.after.total, 655_384.0);
        assert_eq!(modern.before.total, 2.0 * 4.0 + 17.0 * 65_536.0);
        assert_ne!(paper.after.total, modern.after.total);
        assert_eq!(
            modern.formula(&modern.after),
            "6 × 4 + (7 + 0.5 × 6) × 65,536"
        );
        assert!(modern.heading().0.contains("0.5 × I"));
        let r600 = Estimate::new(
            &b,
            &a,
            4,
            1000,
            Model::Cycles {
                before: Some(4.0),
                after: 2.5,
            },
        );
        assert_eq!(r600.after.total, 2.5 * 16.0);
        assert_eq!(r600.formula(&r600.before), "4.00 × 16");
        assert!((r600.change_pct() + 37.5).abs() < 1e-9);
        let unknown = Estimate::new(
            &b,
            &a,
            4,
            64,
            Model::Cycles {
                before: None,
                after: 1.0,
            },
        );
        assert_eq!(Estimate::total_view(&unknown.before), "–");
        assert_eq!(unknown.change_pct(), 0.0);
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

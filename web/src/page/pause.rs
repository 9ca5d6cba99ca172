//! The pause after the last keystroke before the text is parsed and sent to the worker.

/// Longest pause after the last keystroke before the text is parsed and sent to the
/// worker (ms): short for small programs, so results feel live; longer for long ones, whose
/// parse on the page's thread and redraw of the results would otherwise land between the
/// keys of a burst (BENCHMARKS.md, "Playground responsiveness", measured both).
pub const DEBOUNCE_MS: u32 = 220;
const DEBOUNCE_SHORT_MS: u32 = 60;
/// Programs of up to this many lines together get the short pause.
const SHORT_PAUSE_LINES: usize = 200;

/// The pause before a job (ms), adapted to what the last one cost: the page's parse and
/// the worker's optimization (which cannot be interrupted, so a job started mid-burst holds
/// up the next keystroke's by that long) — a cheap pair is sent at once, a costly one waits
/// up to the cap its length sets. Nothing measured yet (`None`): the cap.
pub fn pause_ms(lines: usize, measured_ms: Option<f64>) -> u32 {
    let cap = if lines <= SHORT_PAUSE_LINES {
        DEBOUNCE_SHORT_MS
    } else {
        DEBOUNCE_MS
    };
    capped(measured_ms, cap)
}

/// The pause before a linear system's search, which a newer text cannot interrupt: what
/// the last search took, up to [`DEBOUNCE_MS`] (the cap when none has run).
pub fn search_pause_ms(measured_ms: Option<f64>) -> u32 {
    capped(measured_ms, DEBOUNCE_MS)
}

fn capped(measured_ms: Option<f64>, cap: u32) -> u32 {
    match measured_ms {
        Some(ms) if ms.is_finite() && ms >= 0.0 => (ms.ceil() as u32).min(cap),
        _ => cap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_follows_the_last_jobs_cost_up_to_the_lengths_cap() {
        assert_eq!(pause_ms(40, None), DEBOUNCE_SHORT_MS);
        assert_eq!(pause_ms(40, Some(12.2)), 13);
        assert_eq!(pause_ms(40, Some(0.0)), 0);
        assert_eq!(pause_ms(40, Some(500.0)), DEBOUNCE_SHORT_MS);
        assert_eq!(pause_ms(40, Some(f64::NAN)), DEBOUNCE_SHORT_MS);
        assert_eq!(pause_ms(SHORT_PAUSE_LINES + 1, Some(150.0)), 150);
        assert_eq!(pause_ms(SHORT_PAUSE_LINES + 1, Some(900.0)), DEBOUNCE_MS);
        assert_eq!(pause_ms(SHORT_PAUSE_LINES + 1, None), DEBOUNCE_MS);
    }

    #[test]
    fn a_search_waits_as_long_as_the_last_one_took_up_to_the_long_cap() {
        assert_eq!(search_pause_ms(Some(73.4)), 74);
        assert_eq!(search_pause_ms(Some(150.0)), 150);
        assert_eq!(search_pause_ms(Some(900.0)), DEBOUNCE_MS);
        assert_eq!(search_pause_ms(None), DEBOUNCE_MS);
        assert_eq!(search_pause_ms(Some(f64::INFINITY)), DEBOUNCE_MS);
    }
}

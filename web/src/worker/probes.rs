//! A scene's probes as the page shows them: for each probe of a run, pass or fail, what
//! the file expects, what the run drew there and where (the pixel shown: the first that
//! failed, else the first probed). Made in the worker from `hoist_raster`'s
//! `ProbeResult`s, the results `hoist run` prints, so the page and the CLI cannot differ.

use hoist_raster::scene::{self, Command, ProbeResult};
use serde::{Deserialize, Serialize};

/// One probe of one run, in words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeView {
    /// The scene line (of the text the Scene panel shows).
    pub line: u32,
    /// The probe as written.
    pub command: String,
    pub pass: bool,
    /// What the file expects: a colour, a depth or an agreement.
    pub expected: String,
    /// What the run drew at [`ProbeView::at`].
    pub got: Option<String>,
    /// Where: the probe's pixels, and the pixel shown.
    pub at: String,
    /// The run's own words for a failure (pixels off, outside the target).
    pub detail: String,
}

fn num(v: f32) -> String {
    format!("{v}")
}

fn colour(v: &[f32], channels: usize) -> String {
    let parts: Vec<String> = v[..channels].iter().map(|x| num(*x)).collect();
    format!("({})", parts.join(", "))
}

/// The probe command of a line as the scene parser reads it.
fn command(text: &str) -> Option<Command> {
    let sc = scene::parse(
        &format!("[test]\n{}\n", text.trim()),
        &crate::doc::scene_rules::caps(),
    )
    .ok()?;
    sc.commands.into_iter().next().map(|(_, c)| c)
}

/// Where a probe looks, in words.
fn region(c: &Command) -> String {
    match c {
        Command::Probe { rect, .. } if rect[2] == i64::MAX => "every pixel".into(),
        Command::Probe { rect, .. } if rect[2] == 1 && rect[3] == 1 => {
            format!("pixel ({}, {})", rect[0], rect[1])
        }
        Command::Probe { rect, .. } => format!(
            "rectangle at ({}, {}), {}×{}",
            rect[0], rect[1], rect[2], rect[3]
        ),
        Command::RelProbe { rect, single, .. } if *single => {
            format!("({}, {}) of the size", num(rect[0]), num(rect[1]))
        }
        Command::RelProbe { rect, .. } => format!(
            "({}, {}, {}, {}) of the size",
            num(rect[0]),
            num(rect[1]),
            num(rect[2]),
            num(rect[3])
        ),
        Command::ProbeDepth { x, y, .. } => format!("pixel ({x}, {y})"),
        Command::Compare(a, b, ..) => format!("targets {a} and {b}"),
        _ => String::new(),
    }
}

/// What a probe expects, in words.
fn expectation(c: &Command) -> String {
    match c {
        Command::Probe {
            expect, channels, ..
        }
        | Command::RelProbe {
            expect, channels, ..
        } => colour(expect, *channels),
        Command::ProbeDepth { expect, .. } => format!("depth {}", num(*expect)),
        Command::Compare(_, _, t, _) if *t == 0.0 => "bit-identical".into(),
        Command::Compare(_, _, t, _) => format!("equal within {}", num(*t)),
        _ => String::new(),
    }
}

/// The page's view of one probe result.
pub fn view(r: &ProbeResult) -> ProbeView {
    let c = command(&r.command);
    let channels = match &c {
        Some(Command::Probe { channels, .. } | Command::RelProbe { channels, .. }) => *channels,
        _ => 4,
    };
    let mut at = c.as_ref().map(region).unwrap_or_default();
    let one = matches!(&c, Some(Command::RelProbe { single: true, .. }));
    let got = r.observed.map(|(x, y, v)| {
        if one {
            at.push_str(&format!(": pixel ({x}, {y})"));
        } else if !at.starts_with("pixel") {
            let which = if r.pass { "first" } else { "first failing" };
            at.push_str(&format!(", {which} pixel ({x}, {y})"));
        }
        colour(&v, channels)
    });
    ProbeView {
        line: r.line,
        command: r.command.trim().to_string(),
        pass: r.pass,
        expected: c.as_ref().map(expectation).unwrap_or_default(),
        got,
        at,
        detail: r.detail.clone(),
    }
}

/// Every probe of a run.
pub fn views(results: &[ProbeResult]) -> Vec<ProbeView> {
    results.iter().map(view).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_raster::scene::RunOptions;

    fn run(text: &str) -> Vec<ProbeView> {
        let sc = scene::parse(text, &crate::doc::scene_rules::caps()).unwrap();
        views(&scene::run(&sc, &RunOptions::default()).unwrap().probes)
    }

    #[test]
    fn each_probe_says_what_it_expected_what_was_drawn_and_where() {
        let v = run(
            "[vertex program]\n!!ARBvp1.0\nMOV result.position, vertex.position;\n\
             MOV result.color, vertex.color;\nEND\n\n[test]\nwindow rgba32f 8 4\n\
             color 0.25 0.5 0.75 1\ndraw rect -1 -1 1 2\n\
             probe rgba 1 2 0.25 0.5 0.75 1\nprobe rect rgb (0, 0, 8, 4) (0.25, 0.5, 0.75)\n\
             relative probe rgba (0.9, 0.1) (0, 0, 0, 0)\nprobe all rgba 0.25 0.5 0.75 1\n",
        );
        assert_eq!(v.len(), 4);
        assert!(v[0].pass && v[0].line == 11);
        assert_eq!(v[0].expected, "(0.25, 0.5, 0.75, 1)");
        assert_eq!(v[0].got.as_deref(), Some("(0.25, 0.5, 0.75, 1)"));
        assert_eq!(v[0].at, "pixel (1, 2)");
        // Half the rectangle is the clear colour: the first failing pixel is shown.
        assert!(!v[1].pass);
        assert_eq!(v[1].expected, "(0.25, 0.5, 0.75)");
        assert_eq!(v[1].got.as_deref(), Some("(0, 0, 0)"));
        assert_eq!(
            v[1].at,
            "rectangle at (0, 0), 8×4, first failing pixel (4, 0)"
        );
        assert!(v[1].detail.contains("16/32 pixels off"), "{}", v[1].detail);
        assert!(v[2].pass && v[2].at == "(0.9, 0.1) of the size: pixel (7, 0)");
        assert!(!v[3].pass && v[3].at.starts_with("every pixel, first failing pixel"));
    }
}

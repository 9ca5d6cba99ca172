//! One truth for a document's size: the scene text as drawn at the Inputs panel's size.
//!
//! A document keeps its scene as written (an example's, an import's, the user's) and its
//! size in `Inputs`. Resizing means drawing the same picture at another resolution, so
//! [`at_size`] rewrites what the scene states in window pixels: `SIZE` and `window`
//! become the new size; probes of the window placed in pixels (`probe rgba x y`, `probe
//! rect`, `probe depth`) and rectangles drawn in pixels (`draw rect ortho`, `draw rect`
//! after a bare `ortho`) move to the same place in the picture. Relative probes, `probe
//! all` and draws in normalized coordinates need nothing. A moved probe keeps the file's
//! expected value: it holds where the picture does not depend on its resolution, and the
//! probe results say where it does. The render (`worker::render::base_scene`), the Scene
//! panel and Export all read this text, so they cannot disagree; [`AtSize::notes`] says
//! what moved, for the panel and the exported file.

use hoist_raster::Geometry;
use hoist_raster::scene::{self, Command, WINDOW_SIZE};

/// The scene text at a size and what changed to get there.
#[derive(Clone, Debug, PartialEq)]
pub struct AtSize {
    pub text: String,
    /// What was rewritten, in words (empty when the text already had that size).
    pub notes: Vec<String>,
}

/// The window size a scene text states: its first `window` command, else `SIZE` (`None`:
/// neither, piglit's default window). Read line by line, so a scene with errors elsewhere
/// still has one.
pub fn stated_size(text: &str) -> Option<(u32, u32)> {
    let mut size = None;
    let mut section = String::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = header(t) {
            section = name;
            continue;
        }
        match section.as_str() {
            "require" if size.is_none() => size = size_line(t),
            "test" => {
                if let Some(Command::Window(_, w, h)) = command(t) {
                    return Some((w, h));
                }
            }
            _ => {}
        }
    }
    size
}

fn header(t: &str) -> Option<String> {
    let rest = t.strip_prefix('[')?;
    Some(rest.split(']').next()?.trim().to_ascii_lowercase())
}

fn size_line(t: &str) -> Option<(u32, u32)> {
    let v = scene::parse_floats(t.strip_prefix("SIZE")?).ok()?;
    (v.len() == 2 && v.iter().all(|x| x.is_finite() && *x >= 1.0))
        .then(|| (v[0] as u32, v[1] as u32))
}

/// One `[test]` line as the scene parser reads it (`None`: not a single command).
fn command(t: &str) -> Option<Command> {
    let first = t.split_whitespace().next()?;
    if !matches!(first, "window" | "probe" | "draw" | "ortho" | "bind") {
        return None;
    }
    let sc = scene::parse(&format!("[test]\n{t}\n"), &crate::doc::scene_rules::caps()).ok()?;
    let mut cs = sc.commands.into_iter();
    match (cs.next(), cs.next()) {
        (Some((_, c)), None) => Some(c),
        _ => None,
    }
}

/// Scales window pixels from one size to another.
#[derive(Clone, Copy)]
struct Scale {
    from: (u32, u32),
    to: (u32, u32),
}

impl Scale {
    fn fx(&self, v: f32) -> f32 {
        (f64::from(v) * f64::from(self.to.0) / f64::from(self.from.0)) as f32
    }
    fn fy(&self, v: f32) -> f32 {
        (f64::from(v) * f64::from(self.to.1) / f64::from(self.from.1)) as f32
    }
    /// The pixel whose centre is at the same place in the picture.
    fn pixel(v: i64, from: u32, to: u32) -> i64 {
        let c = (v as f64 + 0.5) * f64::from(to) / f64::from(from);
        (c.floor() as i64).clamp(0, i64::from(to) - 1)
    }
    /// A span of pixels: its edges moved, at least one pixel wide.
    fn span(v: i64, n: i64, from: u32, to: u32) -> (i64, i64) {
        let s = f64::from(to) / f64::from(from);
        let a = (v as f64 * s).round() as i64;
        let b = ((v + n) as f64 * s).round() as i64;
        (a, (b - a).max(1))
    }
}

fn num(v: f32) -> String {
    format!("{v}")
}

fn expect_text(expect: &[f32; 4], channels: usize) -> String {
    expect[..channels]
        .iter()
        .map(|v| num(*v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line of a command at the new size, if it states window pixels.
fn moved(c: &Command, s: Scale, ortho_pixels: bool) -> Option<(String, &'static str)> {
    let (from, to) = (s.from, s.to);
    match c {
        Command::Probe {
            rect,
            expect,
            channels,
            ..
        } if rect[2] != i64::MAX => {
            let fmt = if *channels == 3 { "rgb" } else { "rgba" };
            let e = expect_text(expect, *channels);
            if rect[2] == 1 && rect[3] == 1 && !c_is_rect(c) {
                let x = Scale::pixel(rect[0], from.0, to.0);
                let y = Scale::pixel(rect[1], from.1, to.1);
                return Some((
                    format!("probe {fmt} {x} {y} {}", e.replace(',', "")),
                    "probe",
                ));
            }
            let (x, w) = Scale::span(rect[0], rect[2], from.0, to.0);
            let (y, h) = Scale::span(rect[1], rect[3], from.1, to.1);
            Some((
                format!("probe rect {fmt} ({x}, {y}, {w}, {h}) ({e})"),
                "probe",
            ))
        }
        Command::ProbeDepth { x, y, expect, .. } => {
            let x = Scale::pixel(*x, from.0, to.0);
            let y = Scale::pixel(*y, from.1, to.1);
            Some((format!("probe depth {x} {y} {}", num(*expect)), "probe"))
        }
        Command::Draw(Geometry::Rect { x, y, w, h, tex }) => {
            let ortho = tex.is_some_and(|t| t[0].is_nan());
            if !(ortho || ortho_pixels) {
                return None;
            }
            let r = [s.fx(*x), s.fy(*y), s.fx(*w), s.fy(*h)].map(num).join(" ");
            Some(match tex {
                _ if ortho => (format!("draw rect ortho {r}"), "rectangle"),
                Some(t) => (
                    format!("draw rect tex {r} {}", t.map(num).join(" ")),
                    "rectangle",
                ),
                None => (format!("draw rect {r}"), "rectangle"),
            })
        }
        _ => None,
    }
}

/// Whether a probe command was written as `probe rect` (a 1×1 rectangle stays one).
fn c_is_rect(c: &Command) -> bool {
    matches!(c, Command::Probe { text, .. } if text.split_whitespace().nth(1) == Some("rect"))
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// `text` (a scene) as drawn at `w`×`h`: see the module's header.
pub fn at_size(text: &str, w: u32, h: u32) -> AtSize {
    let to = (w, h);
    let stated = stated_size(text);
    let from = stated.unwrap_or((WINDOW_SIZE, WINDOW_SIZE));
    if from == to {
        return AtSize {
            text: text.to_string(),
            notes: Vec::new(),
        };
    }
    let mut out = String::with_capacity(text.len() + 32);
    let mut section = String::new();
    let (mut bound, mut ortho_pixels) = (true, false);
    let mut window = from;
    let (mut probes, mut rects) = (0, 0);
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let indent = &line[..line.len() - line.trim_start().len()];
        let nl = if line.ends_with('\n') { "\n" } else { "" };
        if let Some(name) = header(t) {
            section = name;
            out.push_str(line);
            continue;
        }
        if section == "require" && size_line(t).is_some() {
            out.push_str(&format!("{indent}SIZE {w} {h}{nl}"));
            continue;
        }
        let c = (section == "test").then(|| command(t)).flatten();
        let replaced = match &c {
            Some(Command::Window(f, cw, ch)) => {
                window = (*cw, *ch);
                // The format word as written (none: RGBA8, piglit's default).
                let named = t
                    .split_whitespace()
                    .nth(1)
                    .filter(|w| w.starts_with("rgba"));
                Some(match (named, f) {
                    (None, _) => format!("window {w} {h}"),
                    (Some(_), hoist_raster::TargetFormat::Rgba8) => format!("window rgba8 {w} {h}"),
                    (Some(_), hoist_raster::TargetFormat::Rgba32F) => {
                        format!("window rgba32f {w} {h}")
                    }
                })
            }
            Some(Command::Bind(n)) => {
                bound = n == "window";
                None
            }
            Some(Command::Ortho(o)) => {
                ortho_pixels = bound && o.is_none();
                None
            }
            Some(c) if bound && window != to => {
                let s = Scale { from: window, to };
                moved(c, s, ortho_pixels).map(|(l, what)| {
                    if what == "probe" {
                        probes += 1;
                    } else {
                        rects += 1;
                    }
                    l
                })
            }
            _ => None,
        };
        match replaced {
            Some(r) => out.push_str(&format!("{indent}{r}{nl}")),
            None => out.push_str(line),
        }
    }
    // Lines are only ever replaced, never added: diagnostics and probe lines keep their
    // numbers. A scene that states no size is drawn at the document's all the same.
    let mut notes = vec![match stated {
        Some(s) => format!(
            "the scene states {}×{}; the page draws it at {w}×{h} (the Inputs panel's size)",
            s.0, s.1
        ),
        None => format!(
            "the scene states no size (piglit's {WINDOW_SIZE}×{WINDOW_SIZE}); the page draws it \
             at {w}×{h} (the Inputs panel's size), and Export writes `SIZE {w} {h}`"
        ),
    }];
    if probes + rects > 0 {
        let mut what = Vec::new();
        if probes > 0 {
            what.push(plural(probes, "probe"));
        }
        if rects > 0 {
            what.push(plural(rects, "rectangle"));
        }
        notes.push(format!(
            "{} placed in pixels moved to the same place in the picture; a moved probe \
             keeps the file's expected value, which holds where the picture does not \
             depend on its size",
            what.join(" and ")
        ));
    }
    AtSize { text: out, notes }
}

/// The document's scene at its size (`None`: no scene, the quad at the size).
pub fn of(doc: &crate::doc::Doc) -> Option<AtSize> {
    let t = doc.scene.as_deref()?;
    Some(at_size(t, doc.inputs.width, doc.inputs.height))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIG: &str = "[require]\nSIZE 256 256\n\n[test]\nwindow rgba32f 256 256\n\
        draw quad\nprobe rgba 100 7 0.5 0.25 0 1\n  probe rect rgb (0, 0, 128, 256) (1, 0, 0)\n\
        relative probe rgba (0.5, 0.5) (1, 1, 1, 1)\nprobe all rgba 0 0 0 1\n\
        probe depth 255 0 0.5\ndraw rect ortho 0 0 128 64\n";

    #[test]
    fn pixels_move_to_the_same_place_and_the_rest_stays() {
        let s = at_size(FIG, 512, 384);
        let want = "[require]\nSIZE 512 384\n\n[test]\nwindow rgba32f 512 384\n\
        draw quad\nprobe rgba 201 11 0.5 0.25 0 1\n  probe rect rgb (0, 0, 256, 384) (1, 0, 0)\n\
        relative probe rgba (0.5, 0.5) (1, 1, 1, 1)\nprobe all rgba 0 0 0 1\n\
        probe depth 511 0 0.5\ndraw rect ortho 0 0 256 96\n";
        assert_eq!(s.text, want);
        assert_eq!(s.notes.len(), 2, "{:?}", s.notes);
        assert!(
            s.notes[1].starts_with("3 probes and 1 rectangle"),
            "{:?}",
            s.notes
        );
        assert_eq!(stated_size(&s.text), Some((512, 384)));
        // Back at the stated size: the text as written, nothing to say.
        let same = at_size(FIG, 256, 256);
        assert_eq!((same.text.as_str(), same.notes.len()), (FIG, 0));
        // Down to a few pixels: every moved probe stays inside the picture.
        let tiny = at_size(FIG, 3, 2);
        assert!(tiny.text.contains("probe rgba 1 0 "), "{}", tiny.text);
        assert!(tiny.text.contains("probe depth 2 0 "), "{}", tiny.text);
    }

    #[test]
    fn pixel_draws_after_a_bare_ortho_move_and_named_targets_stay() {
        let t = "[test]\northo\ndraw rect 0 0 250 125\northo -1 1 -1 1\ndraw rect 0 0 1 1\n\
                 target t rgba32f 250 250\nbind target t\nprobe rgba 10 10 1 1 1 1\n\
                 bind target window\nprobe rgba 10 10 1 1 1 1\n";
        let s = at_size(t, 500, 500);
        assert!(
            s.text.starts_with("[test]\northo\n"),
            "no line is added: {}",
            s.text
        );
        assert!(
            s.notes[0].starts_with("the scene states no size"),
            "{:?}",
            s.notes
        );
        assert!(
            s.text
                .contains("ortho\ndraw rect 0 0 500 250\northo -1 1 -1 1\ndraw rect 0 0 1 1\n")
        );
        assert!(
            s.text.contains("bind target t\nprobe rgba 10 10 1 1 1 1\n"),
            "{}",
            s.text
        );
        assert!(
            s.text
                .ends_with("bind target window\nprobe rgba 21 21 1 1 1 1\n"),
            "{}",
            s.text
        );
        assert_eq!(stated_size(&s.text), None);
    }

    #[test]
    fn a_scene_that_does_not_parse_still_gets_its_size() {
        let t = "[test]\nwindow 64 64\ndraw sideways\nprobe rgba 63 63 1 0 0 1\n";
        let s = at_size(t, 32, 32);
        assert_eq!(
            s.text,
            "[test]\nwindow 32 32\ndraw sideways\nprobe rgba 31 31 1 0 0 1\n"
        );
    }
}

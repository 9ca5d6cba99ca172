//! The cap on a job's total work, checked before anything renders: draws × the pixels of
//! the target each draw covers, summed over both runs (the original pair and the
//! optimized one). Each draw is counted at the size of the target it draws into, an upper
//! bound on the fragments it shades, so a link cannot ask the worker for hours of work
//! (a Stop button ends what the cap lets through).

use crate::worker::render::Plan;
use hoist_raster::scene::{Command, Scene};
use std::collections::BTreeMap;

/// Most pixel shadings (draws × target pixels, both runs together) a job may ask for:
/// 4096 full-screen draws at 1024 × 1024, 2048 per run.
pub const MAX_WORK: u64 = 1 << 32;

/// What a scene asks for: its draws and the pixels they cover together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub draws: u64,
    pub pixels: u64,
}

impl Work {
    fn add(self, o: Work) -> Work {
        Work {
            draws: self.draws + o.draws,
            pixels: self.pixels.saturating_add(o.pixels),
        }
    }
}

/// The draws of a scene and the pixels of the targets they draw into.
pub fn scene_work(sc: &Scene) -> Work {
    let mut targets: BTreeMap<&str, u64> = BTreeMap::new();
    let window = u64::from(sc.window.0) * u64::from(sc.window.1);
    targets.insert("window", window);
    let mut current = "window";
    let mut w = Work::default();
    for (_, c) in &sc.commands {
        match c {
            Command::Window(_, x, y) => {
                targets.insert("window", u64::from(*x) * u64::from(*y));
            }
            Command::NewTarget(name, _, x, y) => {
                targets.insert(name, u64::from(*x) * u64::from(*y));
            }
            Command::Bind(name) => current = name,
            Command::Draw(_) => {
                w.draws += 1;
                let px = targets.get(current).copied().unwrap_or(window);
                w.pixels = w.pixels.saturating_add(px);
            }
            _ => {}
        }
    }
    w
}

/// Both runs of a plan.
pub fn plan_work(plan: &Plan) -> Work {
    let opt = plan.optimized.as_ref().map(scene_work).unwrap_or_default();
    scene_work(&plan.original).add(opt)
}

/// `n` with a unit prefix: `12.6 G`, `3.4 M`, `512`.
fn short(n: u64) -> String {
    let x = n as f64;
    match n {
        0..1_000_000 => n.to_string(),
        1_000_000..1_000_000_000 => format!("{:.1} M", x / 1e6),
        _ => format!("{:.1} G", x / 1e9),
    }
}

/// `Err` with what the plan asks for and the cap, when it asks for more than [`MAX_WORK`].
pub fn check(plan: &Plan) -> Result<Work, String> {
    let w = plan_work(plan);
    if w.pixels <= MAX_WORK {
        return Ok(w);
    }
    let runs = if plan.optimized.is_some() {
        "2 runs, original and optimized"
    } else {
        "1 run"
    };
    let (x, y) = plan.original.window;
    Err(format!(
        "not rendered: the scene draws {} times with a {x}×{y} window ({runs}: {} pixels to \
         shade), over the playground's cap of {} pixels ({} full-screen draws at 1024×1024); \
         lower the number of draws or the size",
        scene_work(&plan.original).draws,
        short(w.pixels),
        short(MAX_WORK),
        MAX_WORK >> 20,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hoist_raster::scene::parse;

    fn work(text: &str) -> Work {
        scene_work(&parse(text, &crate::doc::scene_rules::caps()).expect("scene"))
    }

    #[test]
    fn draws_count_the_pixels_of_the_target_they_draw_into() {
        let w = work(
            "[test]\nwindow rgba32f 100 50\nrepeat 3\ndraw rect -1 -1 2 2\nend\n\
             target small rgba32f 10 10\nbind target small\ndraw rect -1 -1 2 2\n\
             bind target window\ndraw rect -1 -1 1 1\n",
        );
        assert_eq!(w.draws, 5);
        assert_eq!(w.pixels, 4 * 100 * 50 + 10 * 10);
    }
}

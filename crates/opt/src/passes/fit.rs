//! Makes a program that is over its profile's temp limit (E0302) fit, when a renumbering,
//! a schedule or rematerialization exists, and says which one did it.
//!
//! In order of cost: renumbering the temporaries onto as few registers as their live
//! ranges need ([`renumber`]); pressure-minimising scheduling, then renumbering
//! ([`schedule`]); recomputing values at the peak until it is within the limit
//! ([`remat`], one instruction per copy and invocation), then scheduling and renumbering.
//! Each step keeps the program's results (see each pass), and a candidate counts only when
//! the profile's rules accept it with no error it did not have before, other than the
//! temp limit it fixes.

use super::{remat, renumber, schedule};
use crate::tracked::Tracked;
use hoist_asm::profile::Limits;
use serde::{Deserialize, Serialize};

/// How a program was made to fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum Fit {
    /// Its temporaries renumbered onto fewer registers.
    Renumbered { from: u16, to: u16 },
    /// Reordered, then renumbered.
    Scheduled { from: u16, to: u16 },
    /// `copies` values computed again, at `cost` = copies × invocations, then reordered and
    /// renumbered.
    Rematerialized {
        from: u16,
        to: u16,
        copies: u32,
        cost: f64,
    },
}

impl Fit {
    /// In words, for the CLI and the page.
    pub fn describe(&self) -> String {
        match *self {
            Fit::Renumbered { from, to } => {
                format!("renumbered its temporaries: {from} → {to} registers")
            }
            Fit::Scheduled { from, to } => {
                format!("reordered to lower the register pressure: {from} → {to} registers")
            }
            Fit::Rematerialized {
                from,
                to,
                copies,
                cost,
            } => format!(
                "computed {copies} value{} again instead of holding {} (cost {cost} \
                 instruction runs): {from} → {to} registers",
                if copies == 1 { "" } else { "s" },
                if copies == 1 { "it" } else { "them" }
            ),
        }
    }
}

fn errors(t: &Tracked, limits: &Limits) -> Vec<hoist_asm::Code> {
    hoist_asm::validate::check(&t.program, limits)
        .into_iter()
        .filter(|d| d.is_error() && d.code != hoist_asm::Code::TEMP_LIMIT)
        .map(|d| d.code)
        .collect()
}

/// Makes `t` fit `limits.temps`: `Ok(None)` when it already does, `Ok(Some(how))` when it
/// now does, `Err(())` (and `t` unchanged) when nothing found makes it fit. `invocations` is
/// how often the program runs (fragments or vertices), which prices rematerialization.
#[allow(clippy::result_unit_err)]
pub fn run(t: &mut Tracked, limits: &Limits, invocations: f64) -> Result<Option<Fit>, ()> {
    let from = t.program.num_temps;
    if from <= limits.temps {
        return Ok(None);
    }
    let before = errors(t, limits);
    let mut loose = limits.clone();
    loose.temps = u16::MAX;
    let accept = |c: &Tracked| {
        c.program.num_temps <= limits.temps && {
            let e = errors(c, limits);
            e.iter().all(|x| before.contains(x))
        }
    };
    let mut c = t.clone();
    if renumber::run(&mut c, limits.temps) && accept(&c) {
        let to = c.program.num_temps;
        *t = c;
        return Ok(Some(Fit::Renumbered { from, to }));
    }
    let mut c = t.clone();
    schedule::run(&mut c, &loose);
    if renumber::run(&mut c, limits.temps) && accept(&c) {
        let to = c.program.num_temps;
        *t = c;
        return Ok(Some(Fit::Scheduled { from, to }));
    }
    let mut c = t.clone();
    let copies = remat::run(&mut c, u32::from(limits.temps));
    if copies > 0 {
        schedule::run(&mut c, &loose);
        if renumber::run(&mut c, limits.temps) && accept(&c) {
            let to = c.program.num_temps;
            *t = c;
            return Ok(Some(Fit::Rematerialized {
                from,
                to,
                copies: copies as u32,
                cost: remat::cost(copies, invocations),
            }));
        }
    }
    Err(())
}

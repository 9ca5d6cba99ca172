//! The linear-expression mode's part of the document (seed 003): [`LinearDoc`] (the
//! system's text or program, the example it came from, the dialect of the code), its limits,
//! the mode's examples, and [`read`], which parses a system's text under the page's limits
//! (the page thread's diagnostics). The worker's job is `crate::worker::linear`.

use hoist_opt::linear::{self, System, paper};
use hoist_raster::ATTRIBS;
use serde::{Deserialize, Serialize};

/// Most variables the page packs: x travels in the 16 vertex attributes, four to each.
pub const MAX_PAGE_VARS: usize = 4 * ATTRIBS;
/// Longest system text a document carries (bytes; the text editor's limit for scenes).
pub const MAX_TEXT: usize = crate::doc::limits::MAX_SCENE;
/// Longest register name a program input may name.
pub const MAX_REGISTER: usize = 64;

/// The mode's part of the document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinearDoc {
    /// The system in `linear::parse`'s text format.
    pub text: String,
    /// The example (an entry of [`EXAMPLES`], by system name) the text came from. Absent
    /// from a link means none (not the default document's example).
    #[serde(default, skip_serializing_if = "crate::doc::none")]
    pub example: Option<String>,
    /// Show and run the code as Direct3D 9 vs_3_0 instead of an ARB vertex program.
    pub d3d9: bool,
    /// What the text is: a system, or a program whose system is recovered.
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub input: Input,
    /// For a program: the register to recover (empty: every output the program writes).
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub register: String,
    /// End both programs with the MOVs that write y back in the original order (outputs
    /// that are fixed registers); the verdict runs those programs.
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub unpermute: bool,
    /// Also iterate x ← A·x + b with both programs to the fixed point (`converge`).
    #[serde(skip_serializing_if = "crate::doc::at_default")]
    pub converge: bool,
}

/// What the mode's text holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// A system in `linear::parse`'s text format.
    #[default]
    System,
    /// A straight-line ARB or Direct3D 9 program (`crate::worker::linear_recover`).
    Program,
}

impl Input {
    pub fn is_system(&self) -> bool {
        *self == Input::System
    }
}

impl Default for LinearDoc {
    fn default() -> LinearDoc {
        LinearDoc::example(DEFAULT, false).unwrap_or(LinearDoc {
            text: String::new(),
            example: None,
            d3d9: false,
            input: Input::System,
            register: String::new(),
            unpermute: false,
            converge: false,
        })
    }
}

impl LinearDoc {
    /// The document of example `name` (an entry of [`EXAMPLES`]).
    pub fn example(name: &str, d3d9: bool) -> Option<LinearDoc> {
        let e = find(name)?;
        Some(LinearDoc {
            text: example_text(name)?,
            example: Some(name.to_string()),
            d3d9,
            input: e.input(),
            register: String::new(),
            unpermute: false,
            converge: false,
        })
    }

    /// Whether the text is still the example's.
    pub fn is_example_text(&self) -> bool {
        self.example
            .as_deref()
            .and_then(example_text)
            .is_some_and(|t| t == self.text)
    }

    /// Clamps what a link may carry; a text over [`MAX_TEXT`] is refused.
    pub fn sanitize(&mut self) -> Result<(), String> {
        if self.text.len() > MAX_TEXT {
            return Err(format!(
                "the linear system is {} KiB; the playground accepts up to {} KiB",
                self.text.len().div_ceil(1024),
                MAX_TEXT / 1024
            ));
        }
        if self.example.as_deref().is_some_and(|e| find(e).is_none()) {
            self.example = None;
        }
        if self.input.is_system() {
            self.register.clear();
        }
        if self.register.len() > MAX_REGISTER {
            return Err(format!(
                "the register name is over {} characters",
                MAX_REGISTER
            ));
        }
        Ok(())
    }
}

/// One system of the mode's example picker and gallery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Example {
    /// The system's name (`linear::paper`'s, `jacobi`, or a program's).
    pub name: &'static str,
    pub title: &'static str,
    pub caption: &'static str,
    /// Whether the gallery lists it (the paper's small figures are in the picker only).
    pub gallery: bool,
}

/// The example the mode starts with.
pub const DEFAULT: &str = "fig13";
/// The example a switch to program input starts with.
pub const DEFAULT_PROGRAM: &str = "colour-matrix";

#[rustfmt::skip]
pub const EXAMPLES: &[Example] = &[
    Example { name: "wave2d", title: "2D wave", gallery: true,
        caption: "§3.1: one explicit step of the 2D wave equation on an 8×8 grid (64 unknowns, 5-point stencil, zero boundaries)." },
    Example { name: "runge-kutta", title: "Runge-Kutta suspension", gallery: true,
        caption: "§3.2: five cars' bounce and pitch, evaluated for the four Runge-Kutta coefficient sets in turn (repeat 4)." },
    Example { name: "gauss-seidel", title: "Gauss-Seidel Poisson", gallery: true,
        caption: "§3.3: a Gauss-Seidel sweep of the 7-point Poisson stencil on a 4×4×4 grid; the entries left of the diagonal read updated values (split lower)." },
    Example { name: "jacobi", title: "Jacobi Poisson", gallery: true,
        caption: "The same 4×4×4 Poisson system as a Jacobi sweep: every entry reads the old x, so there is one term and no row-major diagonal." },
    Example { name: "fig2", title: "Fig. 2: one coefficient set", gallery: false,
        caption: "Fig. 2: the suspension system for one Runge-Kutta coefficient set." },
    Example { name: "fig10", title: "Fig. 10: 2D Poisson S block", gallery: false,
        caption: "§4.1.1, Fig. 10: the tridiagonal S block of the 2D Jacobi Poisson iteration (8 unknowns)." },
    Example { name: "fig13", title: "Fig. 13: 3D Poisson S block", gallery: true,
        caption: "§4.1.2, Fig. 13: the tridiagonal S block of the 3D Jacobi Poisson iteration (40 unknowns)." },
    Example { name: "fig14", title: "Fig. 14: 2D wave S* block", gallery: false,
        caption: "§4.2, Fig. 14: the tridiagonal S* block of the 2D wave (32 unknowns)." },
    Example { name: "colour-matrix", title: "Program: colour matrix and transform", gallery: false,
        caption: "An ARB vertex program: a sepia colour matrix, a literal model matrix and a texture-coordinate transform; its outputs are recovered as y = A·x + b over the vertex attributes." },
    Example { name: "yuv-texture", title: "Program: YUV texture to RGB (ps_2_0)", gallery: false,
        caption: "A Direct3D 9 pixel shader: three texture reads (non-linear, so each result is a variable named after its line) converted from YUV to RGB and blended by a host-set constant." },
];

pub fn find(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

impl Example {
    /// Whether the example is a program (its system is recovered) or a system.
    pub fn input(&self) -> Input {
        if crate::doc::linear_programs::source(self.name).is_some() {
            Input::Program
        } else {
            Input::System
        }
    }
}

/// The editor text of example `name`: its system's text, or its program.
pub fn example_text(name: &str) -> Option<String> {
    find(name)?;
    crate::doc::linear_programs::source(name)
        .map(str::to_string)
        .or_else(|| system(name).map(|s| s.to_text()))
}

/// The gallery id (and `#ex=` link) of an example.
pub fn example_id(name: &str) -> String {
    format!("linear/{name}")
}

/// The system of example `name`.
pub fn system(name: &str) -> Option<System> {
    find(name)?;
    if name == "jacobi" {
        return paper::system("gauss-seidel").map(|gs| jacobi(&gs));
    }
    paper::system(name)
}

/// The Gauss-Seidel Poisson system with its two terms merged: a Jacobi sweep reads the old
/// x everywhere.
fn jacobi(gs: &System) -> System {
    let rows = gs.whole_rows().into_iter().take(gs.vars).collect();
    System::new("jacobi", rows, gs.b[..gs.vars].to_vec(), false, 1)
}

/// Why a text is not a system the page packs: the line (1-based; 0 for the whole text).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

/// Parses `text` and holds it to the page's limits.
pub fn read(text: &str) -> Result<System, Problem> {
    if text.len() > MAX_TEXT {
        return Err(Problem {
            line: 0,
            message: format!("the text exceeds {} KiB", MAX_TEXT / 1024),
        });
    }
    let sys = linear::parse(text).map_err(|e| Problem {
        line: e.line,
        message: e.message,
    })?;
    if sys.vars > MAX_PAGE_VARS {
        let line = text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.split('#').next().unwrap_or("").trim();
                !t.is_empty()
                    && !["name ", "repeat "].iter().any(|p| t.starts_with(p))
                    && t != "split lower"
            })
            .nth(MAX_PAGE_VARS)
            .map_or(0, |(i, _)| i + 1);
        return Err(Problem {
            line,
            message: format!(
                "{} rows: the playground packs up to {MAX_PAGE_VARS} variables (x travels in {ATTRIBS} vertex attributes of four)",
                sys.vars
            ),
        });
    }
    Ok(sys)
}

/// `x` in three significant digits (`0` when zero).
pub use hoist_verify::linear_recover::sci;

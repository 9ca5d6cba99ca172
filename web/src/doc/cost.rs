//! The cost model the code-motion selection minimises, as the Options panel chooses it:
//! the paper's (fragment slots), the modern one (interpolation costs ALU) or the R600
//! machine model on an R600 or R700 chip (`hoist_opt::CostModel::R600`: estimated cycles
//! per wavefront of both programs, seed 004). Links written before the choice existed
//! stored a `modern` flag; it still loads (`true` → modern, `false` → paper).

use hoist_opt::CostModel;
use hoist_opt::r600::Chip;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CostChoice {
    #[default]
    Paper,
    Modern,
    R600,
    R700,
}

impl CostChoice {
    pub const ALL: [CostChoice; 4] = [
        CostChoice::Paper,
        CostChoice::Modern,
        CostChoice::R600,
        CostChoice::R700,
    ];

    /// The identifier links and `hoistReport()` use.
    pub fn id(self) -> &'static str {
        match self {
            CostChoice::Paper => "paper",
            CostChoice::Modern => "modern",
            CostChoice::R600 => "r600",
            CostChoice::R700 => "r700",
        }
    }

    /// The chip of the machine models.
    pub fn chip(self) -> Option<Chip> {
        match self {
            CostChoice::R600 => Some(Chip::R600),
            CostChoice::R700 => Some(Chip::R700),
            _ => None,
        }
    }

    /// The optimizer's model for a pair run on `vertices` and `fragments` invocations.
    pub fn model(self, interp_cost: f64, vertices: f64, fragments: f64) -> CostModel {
        match (self, self.chip()) {
            (_, Some(chip)) => CostModel::R600 {
                chip,
                vertices,
                fragments,
            },
            (CostChoice::Modern, _) => CostModel::Modern {
                interp_cost,
                vertices,
                fragments,
            },
            _ => CostModel::Paper,
        }
    }

    /// The radio button's text.
    pub fn label(self) -> &'static str {
        match self {
            CostChoice::Paper => "paper (fragment slots)",
            CostChoice::Modern => "modern (interpolation costs ALU)",
            CostChoice::R600 => "R600 machine (Radeon HD 3870 cycles)",
            CostChoice::R700 => "R700 machine (Radeon HD 4870 cycles)",
        }
    }

    /// What the selection minimises under this model, in a few words.
    pub fn minimises(self) -> &'static str {
        match self {
            CostChoice::Paper => {
                "fragment slots (ties: vertex slots, then interpolated components)"
            }
            CostChoice::Modern => {
                "slot executions: vertex slots × vertices + (fragment slots + interpolation) × \
                 fragments"
            }
            CostChoice::R600 | CostChoice::R700 => {
                "estimated cycles per wavefront: fragment + vertex × vertices/fragments (ties: \
                 fragment ALU groups)"
            }
        }
    }
}

/// Its [`CostChoice::id`] in every format (a positional one would otherwise write the
/// variant's index, which the reader below, that also takes older links' flag, cannot tell).
impl Serialize for CostChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for CostChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CostChoice, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            /// The `modern` flag of older links.
            Flag(bool),
            Name(String),
        }
        // Positional messages (the worker's) carry the name only; links may hold the flag.
        let wire = if d.is_human_readable() {
            Wire::deserialize(d)?
        } else {
            Wire::Name(String::deserialize(d)?)
        };
        match wire {
            Wire::Flag(true) => Ok(CostChoice::Modern),
            Wire::Flag(false) => Ok(CostChoice::Paper),
            Wire::Name(n) => CostChoice::ALL
                .into_iter()
                .find(|c| c.id() == n)
                .ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "unknown cost model `{}` (paper, modern, r600 or r700)",
                        n.chars().take(24).collect::<String>()
                    ))
                }),
        }
    }
}

/// `hoistReport().cost`: the chosen model and what the selection minimises under it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CostReport {
    pub model: &'static str,
    pub minimises: &'static str,
}

impl CostChoice {
    pub fn report(self) -> CostReport {
        CostReport {
            model: self.id(),
            minimises: self.minimises(),
        }
    }
}

/// Vertices of the playground's draw (the GPGPU quad).
pub const QUAD_VERTICES: u64 = 4;

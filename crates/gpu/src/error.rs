//! Why a pair cannot be translated: a program the executor would not run either (relative
//! destinations, malformed flow control), one a GPU shading language cannot express
//! (recursive subroutines), one over a GPU API's guaranteed limits, or (a bug) WGSL that
//! naga's validator rejects.

use hoist_asm::Stage;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Error {
    pub message: String,
    /// The program it is about, when it is one program's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<&'static str>,
    /// The 0-based instruction it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inst: Option<usize>,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            stage: None,
            inst: None,
        }
    }

    pub fn at(stage: Stage, inst: usize, message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            stage: Some(crate::iface::stage_name(stage)),
            inst: Some(inst),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.stage, self.inst) {
            (Some(s), Some(i)) => write!(f, "{s} program, instruction {}: ", i + 1)?,
            (Some(s), None) => write!(f, "{s} program: ")?,
            _ => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

//! The errors of rendering and scene execution.

/// Errors of rendering and scene execution.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RenderError {
    #[error("program cannot be executed: {0}")]
    Program(String),
    #[error("limit exceeded: {0}")]
    Limit(String),
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("line {line}: {message}")]
    Scene { line: u32, message: String },
}

//! Small helpers shared by the subcommands: reading inputs and reporting errors.

use std::io::IsTerminal;
use std::path::Path;

/// Reads a text file, or stdin for `-`. Errors are formatted for the user.
pub fn read_source(path: &Path) -> Result<String, String> {
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether stderr is a terminal (for coloured diagnostics).
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Prints `error: msg` to stderr.
pub fn error(msg: impl std::fmt::Display) {
    eprintln!("error: {msg}");
}

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

/// Writes to stdout; returns false when the reader went away (a broken pipe exits quietly).
pub fn write_stdout(s: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => false,
        Err(e) => {
            error(format!("cannot write to standard output: {e}"));
            false
        }
    }
}

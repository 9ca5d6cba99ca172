//! Generated files checked into the repository (results tables, expected diagnostics): a
//! test computes the text, `BLESS=1` writes it, otherwise a difference fails with the first
//! differing line and the command that regenerates the file.

use std::path::Path;

/// Compares `got` with the file at `path`, or writes it when `BLESS` is set.
pub fn check(path: &Path, got: &str, regenerate: &str) {
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(path, got).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let want = std::fs::read_to_string(path).unwrap_or_default();
    if got == want {
        return;
    }
    let first = got
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(got.lines().count().min(want.lines().count()));
    panic!(
        "{} is stale at line {}:\n got: {:?}\nwant: {:?}\nregenerate it after a deliberate change: BLESS=1 {regenerate}",
        path.display(),
        first + 1,
        got.lines().nth(first),
        want.lines().nth(first)
    );
}
